/**
 * The one bound every interval of every node goes through (emit/refresh/sync intervals, the
 * heartbeat stale alarm, the Connect poll, the mirror's offset flush...).
 *
 * Node timers are JavaScript timers: a delay above 2^31-1 ms (about 24.8 days) is not waited
 * for but fires after 1 ms, so an interval of a month becomes a busy loop; a delay near zero is
 * a busy loop too. MM2 itself accepts any positive `long` of seconds; we accept
 *
 *   MIN_INTERVAL_MS (1 s) <= interval <= MAX_INTERVAL_MS (24 days)
 *
 * and refuse anything else with an error naming the property, the allowed range and the fix
 * (never a silent clamp). To turn a periodic job off, its `.enabled` property is the switch.
 */
import { ConfigError } from './errors';

/** The longest delay setTimeout/setInterval honour (2^31-1 ms); longer ones fire after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Shortest interval of any node: 1 second. */
export const MIN_INTERVAL_MS = 1000;

/** Longest interval of any node: 24 days (2,073,600 s), just below the JavaScript timer limit. */
export const MAX_INTERVAL_MS = 24 * 24 * 3600 * 1000;

export const MIN_INTERVAL_SECONDS = MIN_INTERVAL_MS / 1000;
export const MAX_INTERVAL_SECONDS = MAX_INTERVAL_MS / 1000;

export type IntervalUnit = 'seconds' | 'milliseconds';

export interface IntervalOptions {
  /** The unit the value is written in (default seconds). */
  unit?: IntervalUnit;
  /** The value that turns the job off (e.g. 0 for the Connect status poll), accepted as is. */
  off?: number;
  /** How to turn the job off, for the error text (e.g. "set emit.heartbeats.enabled to false"). */
  offHint?: string;
  /** Only whole numbers (a Java `long`/`int` setting). */
  integer?: boolean;
}

function range(unit: IntervalUnit): string {
  return unit === 'milliseconds'
    ? `${MIN_INTERVAL_MS}..${MAX_INTERVAL_MS} ms (1 s to 24 days)`
    : `${MIN_INTERVAL_SECONDS}..${MAX_INTERVAL_SECONDS} s (1 s to 24 days)`;
}

/**
 * Why an interval value is refused, or undefined when it is within bounds (or is the `off`
 * value). `value` is the number as written, in `unit`. Pure; never throws.
 */
export function intervalProblem(value: number, opts: IntervalOptions = {}): string | undefined {
  const unit = opts.unit ?? 'seconds';
  if (opts.off !== undefined && value === opts.off) return undefined;
  const ms = unit === 'milliseconds' ? value : value * 1000;
  const off = opts.offHint ? `; to turn the job off ${opts.offHint}` : '';
  if (typeof value !== 'number' || Number.isNaN(value)) {
    return `'${String(value)}' is not a number; use ${range(unit)}`;
  }
  if (ms < MIN_INTERVAL_MS) {
    return `${value} is below the shortest interval: use ${range(unit)}${off}`;
  }
  if (ms > MAX_INTERVAL_MS) {
    return `${value} is above the longest interval (a JavaScript timer cannot wait longer than 24.8 days): use ${range(unit)}${off}`;
  }
  return undefined;
}

/**
 * Reads an interval from its raw field value (text or number; '' or undefined/null take
 * `dflt`), checks it and returns it in milliseconds. Throws ConfigError naming `property`.
 * With `opts.off`, that value is returned as 0 (no timer).
 */
export function intervalMs(property: string, raw: unknown, dflt: number, opts: IntervalOptions = {}): number {
  const unit = opts.unit ?? 'seconds';
  let value: number;
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) value = dflt;
  else if (typeof raw === 'number') value = raw;
  else {
    const s = String(raw).trim();
    // Number() accepts '0x10', '1e3', ' ', 'Infinity'; only plain decimal numbers are intervals.
    value = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/.test(s) ? Number(s) : NaN;
    if (Number.isNaN(value)) throw new ConfigError(`'${String(raw)}' is not a number; use ${range(unit)}`, property);
  }
  if (opts.integer && !Number.isInteger(value)) {
    throw new ConfigError(`'${String(raw)}' is not a whole number of ${unit}; use ${range(unit)}`, property);
  }
  const reason = intervalProblem(value, opts);
  if (reason !== undefined) throw new ConfigError(reason, property);
  if (opts.off !== undefined && value === opts.off) return 0;
  return Math.round(unit === 'milliseconds' ? value : value * 1000);
}

/**
 * The last guard before a timer is armed: a delay outside 1 ms..2^31-1 ms (or not finite)
 * is a programming error (a setting that skipped intervalMs), never clamped.
 */
export function assertTimerMs(ms: number, what = 'timer'): number {
  if (!Number.isFinite(ms) || ms < 0 || ms > MAX_TIMER_MS) {
    throw new RangeError(`${what}: ${ms} ms is not a delay a JavaScript timer can wait (0..${MAX_TIMER_MS} ms)`);
  }
  return ms;
}

/** setTimeout delays are limited to 2^31-1 ms (longer ones fire at once): a computed delay brought into 1 ms..MAX_TIMER_MS. */
export function clampTimer(ms: number): number {
  return Math.min(Math.max(1, Math.floor(ms)), MAX_TIMER_MS);
}
