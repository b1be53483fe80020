import type { Checkpoint } from './types';

/**
 * Checkpoints as flow messages carry them (`CheckpointJson` in src/nodes/shared/contracts.ts):
 * offsets as decimal strings so int64 survives JSON. Parsing is lenient where it is safe
 * (safe-integer numbers, a numeric-string partition, missing metadata or upstream offset) and
 * strict where a wrong value would write a wrong offset (the downstream offset must be a
 * non-negative int64).
 */

export interface CheckpointJsonLike {
  group: string;
  topic: string;
  partition: number;
  upstreamOffset: string;
  downstreamOffset: string;
  metadata: string;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A decimal string (or safe integer, or bigint) as an int64 bigint; null when it is not one. */
export function parseInt64(v: unknown): bigint | null {
  let b: bigint;
  if (typeof v === 'bigint') b = v;
  else if (typeof v === 'number' && Number.isSafeInteger(v)) b = BigInt(v);
  else if (typeof v === 'string' && /^\s*-?\d{1,19}\s*$/.test(v)) b = BigInt(v.trim());
  else return null;
  return b >= INT64_MIN && b <= INT64_MAX ? b : null;
}

/**
 * A Kafka offset carried in a message: an int64 (see {@link parseInt64}) that is not negative,
 * else null. Values above 2^63-1 are refused, not wrapped: callers skip such entries and count them.
 */
export function parseOffset(v: unknown): bigint | null {
  const b = parseInt64(v);
  return b !== null && b >= 0n ? b : null;
}

/**
 * One message entry as a Checkpoint, or null when it is unusable. `groupKey` (the key of the
 * `latest` map the entry came from) supplies a missing `group` and must match a present one.
 * A missing upstream offset reads as -1 (unknown); the group offset writer does not use it.
 */
export function parseCheckpointJson(entry: unknown, groupKey?: string): Checkpoint | null {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return null;
  const e = entry as Record<string, unknown>;
  const group = typeof e.group === 'string' ? e.group : groupKey;
  if (typeof group !== 'string' || group === '') return null;
  if (groupKey !== undefined && group !== groupKey) return null;
  if (typeof e.topic !== 'string' || e.topic === '') return null;
  const partition = typeof e.partition === 'string' && /^\d{1,10}$/.test(e.partition) ? Number(e.partition) : e.partition;
  if (typeof partition !== 'number' || !Number.isInteger(partition) || partition < 0 || partition > 2147483647) return null;
  const downstreamOffset = parseOffset(e.downstreamOffset);
  if (downstreamOffset === null) return null;
  const upstreamOffset = e.upstreamOffset === undefined || e.upstreamOffset === null ? -1n : parseInt64(e.upstreamOffset);
  if (upstreamOffset === null) return null;
  const metadata = typeof e.metadata === 'string' ? e.metadata : '';
  return { group, topic: e.topic, partition, upstreamOffset, downstreamOffset, metadata };
}

/** A Checkpoint as a message entry (offsets as decimal strings). */
export function checkpointToJson(cp: Checkpoint): CheckpointJsonLike {
  return {
    group: cp.group,
    topic: cp.topic,
    partition: cp.partition,
    upstreamOffset: cp.upstreamOffset.toString(),
    downstreamOffset: cp.downstreamOffset.toString(),
    metadata: cp.metadata,
  };
}

/**
 * A CheckpointsMessage's `payload.latest` (group -> CheckpointJson[]) taken entry by entry into
 * `put` (which says whether the checkpoint differs from the one held). Unusable entries are
 * skipped and counted; the groups that had an entry taken, and those whose checkpoints changed.
 */
export function applyLatestJson(latest: Record<string, unknown>, put: (cp: Checkpoint) => boolean): { accepted: number; malformed: number; groups: string[]; changed: string[] } {
  let accepted = 0;
  let malformed = 0;
  const groups: string[] = [];
  const changed: string[] = [];
  for (const [group, list] of Object.entries(latest)) {
    if (!Array.isArray(list)) {
      malformed++;
      continue;
    }
    let any = false;
    let moved = false;
    for (const entry of list) {
      const cp = parseCheckpointJson(entry, group);
      if (cp === null) {
        malformed++;
        continue;
      }
      if (put(cp)) moved = true;
      accepted++;
      any = true;
    }
    if (any) groups.push(group);
    if (moved) changed.push(group);
  }
  return { accepted, malformed, groups, changed };
}
