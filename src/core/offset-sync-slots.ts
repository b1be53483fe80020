/**
 * MM2's 64-slot sync array of one partition (OffsetSyncStore.updateSyncArray and its invariants),
 * as pure functions over frozen arrays: engines never mutate a published array. All offset
 * arithmetic is bigint with Java `long` (signed 64-bit, wrapping) semantics in the overflow guards.
 */
import type { OffsetSync } from './types';

/** Slots per partition: `Long.SIZE` in MM2. */
export const SYNCS_PER_PARTITION = 64;
export const LAST_SLOT = SYNCS_PER_PARTITION - 1;

/** 2^i for i = 0..63, exact (not wrapped; wrapping happens once, on the sum). */
const POW2: readonly bigint[] = Array.from({ length: SYNCS_PER_PARTITION }, (_, i) => 1n << BigInt(i));
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** Wraps an exact integer to a Java `long`. Sums of wrapped terms are congruent mod 2^64, so
 * wrapping the exact sum once gives the same value as Java's step-by-step wrapping. */
export function toInt64(x: bigint): bigint {
  return x > INT64_MAX || x < INT64_MIN ? BigInt.asIntN(64, x) : x;
}

/**
 * Invariant B for X at slot i and Y at slot j (i < j): X is not too far ahead of Y.
 * Holds for the same object, when the bound overflows below 0, or when `X.up <= Y.up + 2^j - 2^i`.
 */
export function invariantB(x: OffsetSync, y: OffsetSync, i: number, j: number): boolean {
  if (x === y) return true;
  const bound = toInt64(y.upstreamOffset + POW2[j] - POW2[i]);
  return bound < 0n || x.upstreamOffset <= bound;
}

/**
 * Invariant C for X at slot i and Y at a later slot: X is sufficiently separated from Y.
 * Holds for the same object, or when the bound `Y.up + 2^max(i-2,0)` is non-negative and `X.up >= bound`.
 */
export function invariantC(x: OffsetSync, y: OffsetSync, i: number): boolean {
  if (x === y) return true;
  const bound = toInt64(y.upstreamOffset + POW2[Math.max(i - 2, 0)]);
  return bound >= 0n && x.upstreamOffset >= bound;
}

/** A frozen copy of a sync (a fresh object: MM2 compares slots by reference). */
export function freezeSync(sync: OffsetSync): OffsetSync {
  const { topic, partition, upstreamOffset, downstreamOffset } = sync;
  if (typeof upstreamOffset !== 'bigint' || typeof downstreamOffset !== 'bigint') {
    throw new TypeError('OffsetSync offsets must be bigint');
  }
  return Object.freeze({ topic, partition, upstreamOffset, downstreamOffset });
}

/**
 * Steps 4 and 5 of MM2's updateSyncArray for a new sync `n` at or above slot 0 of `original`:
 * `n` goes to slot 0 and older syncs are promoted while the invariants allow. A new array.
 */
export function promotedSlots(original: readonly OffsetSync[], n: OffsetSync): OffsetSync[] {
  const s = original.slice();
  // Step 4.
  let replacement = n;
  let k = 0;
  s[0] = n;
  // Step 5.
  for (let c = 1; c < SYNCS_PER_PARTITION; c++) {
    const prev = c - 1;
    let skip: boolean;
    do {
      const v = original[k];
      const recent = invariantB(s[prev], v, prev, c);
      const sepPrev = invariantC(s[prev], v, prev);
      // s[c + 1] has not been written yet in this pass: it is still the old value.
      const sepNext = c + 1 > LAST_SLOT || invariantC(v, s[c + 1], c);
      const dup = k + 1 <= LAST_SLOT && original[k + 1] === v;
      const promote = recent && sepPrev && sepNext;
      if (promote) replacement = v;
      skip = dup || !sepPrev;
      if (promote || skip) k++;
    } while (k < c && skip);
    // The rest of the array already satisfies the invariants.
    if (invariantB(s[prev], s[c], prev, c)) break;
    s[c] = replacement;
  }
  return s;
}

/** Renders any slot array in the notation of describeSlots (exported for tests and diagnostics). */
export function describeSlotArray(s: readonly OffsetSync[]): string {
  const runs: string[] = [];
  let start = 0;
  for (let i = 1; i <= s.length; i++) {
    if (i === s.length || s[i] !== s[start]) {
      const range = i - 1 === start ? `${start}` : `${start}-${i - 1}`;
      runs.push(`${range}=${s[start].upstreamOffset}:${s[start].downstreamOffset}`);
      start = i;
    }
  }
  return `[${runs.join(', ')}]`;
}
