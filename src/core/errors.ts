/**
 * Error types of the core library. Every decoder throws MalformedRecordError and nothing
 * else for input it cannot read; every configuration problem is a ConfigError.
 */

/** A record in an MM2 internal topic could not be decoded (short buffer, bad length, null key or value). */
export class MalformedRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedRecordError';
  }
}

/**
 * A record that decodes but makes no sense (a negative offset, a heartbeat from before the
 * epoch or far in the future). Readers skip and count it exactly like a malformed record.
 */
/**
 * Why a decoded position (offset sync or checkpoint) makes no sense, or null: a negative
 * partition or offset comes from a forged or broken record.
 */
export function positionProblem(p: { partition: number; upstreamOffset: bigint; downstreamOffset: bigint }): string | null {
  if (p.partition < 0) return `partition ${p.partition} is negative`;
  if (p.upstreamOffset < 0n) return `upstreamOffset ${p.upstreamOffset} is negative`;
  if (p.downstreamOffset < 0n) return `offset (downstream) ${p.downstreamOffset} is negative`;
  return null;
}

export class AbsurdRecordError extends MalformedRecordError {
  constructor(message: string) {
    super(message);
    this.name = 'AbsurdRecordError';
  }
}

/** One problem with one configuration property. */
export interface ConfigProblem {
  /** MM2 property name, e.g. `groups` or `emit.checkpoints.interval.seconds`. */
  property: string;
  /** What is wrong and, where possible, what to do about it. */
  reason: string;
}

/** One or more configuration properties are invalid. The message names every bad property and why. */
export class ConfigError extends Error {
  readonly problems: ConfigProblem[];
  constructor(problems: ConfigProblem[] | string, property?: string) {
    const list: ConfigProblem[] =
      typeof problems === 'string' ? [{ property: property ?? '', reason: problems }] : problems;
    super(
      list
        .map((p) => (p.property ? `${p.property}: ${p.reason}` : p.reason))
        .join('; '),
    );
    this.name = 'ConfigError';
    this.problems = list;
  }
}
