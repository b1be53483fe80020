/**
 * Which positions of a source partition may translate differently since a given moment: the
 * reconcile lane's "dirty partitions" (issue 24 step f). Every change of a partition's offset syncs
 * (a new sync, a reset) bumps the partition's generation and notes a floor: a group partition
 * positioned below the floor translates from the same sync as before the change (the same answer
 * of `OffsetSyncStore.explain`), one at or above it must be looked at again. A translation kept
 * with the generation it was checked at is then re-checked only when some change since reached
 * its position (TranslationCache), instead of after every new sync of the partition.
 */
import { LAST_SLOT } from './offset-sync-slots';
import type { OffsetSync } from './types';

/** How many changes a log remembers; a translation checked longer ago than that is looked at again. */
export const CHANGE_LOG_SIZE = 64;

/**
 * A count of the changes of every partition of a store (one object a store, shared by its logs):
 * one number says "as of then" for all of a group's partitions at once (TranslationCache keeps one
 * a group, not a generation a group partition).
 */
export class ChangeClock {
  /** Changes so far (0: none). */
  now = 0;
}

export class SyncChangeLog {
  /** Bumped by every change of the partition's syncs (0: none yet). */
  gen = 0;
  /** The floor of change number g (0-based) at g % CHANGE_LOG_SIZE; null: every position. */
  private readonly floors: Array<bigint | null> = [];
  /** The clock's count at change number g (its stamp: the first change has stamp 1), at g % CHANGE_LOG_SIZE. */
  private readonly stamps: number[] = [];

  constructor(readonly clock: ChangeClock = new ChangeClock()) {}

  /** A change: positions at or above `floor` may translate differently (null: every position). */
  changed(floor: bigint | null): void {
    this.floors[this.gen % CHANGE_LOG_SIZE] = floor;
    this.stamps[this.gen % CHANGE_LOG_SIZE] = ++this.clock.now;
    this.gen++;
  }

  /**
   * `since` for a moment given by the clock (`stamp`: the clock's count then): undefined when
   * nothing changed since, null when every position may (or the changes since are more than the
   * log remembers).
   */
  sinceStamp(stamp: number): bigint | null | undefined {
    const gen = this.gen;
    const size = CHANGE_LOG_SIZE;
    if (gen === 0 || this.stamps[(gen - 1) % size] <= stamp) return undefined;
    const oldest = gen > size ? gen - size : 0;
    let low: bigint | undefined;
    let g = gen - 1;
    for (; g >= oldest && this.stamps[g % size] > stamp; g--) {
      const f = this.floors[g % size] as bigint | null;
      if (f === null) return null;
      if (low === undefined || f < low) low = f;
    }
    // every remembered change is after `stamp` and some were forgotten: older than the log can tell
    if (g < oldest && oldest > 0) return null;
    return low;
  }

  /**
   * The lowest position that may translate differently since generation `gen`: undefined when
   * nothing changed since, null when every position may (or `gen` is too old to tell).
   */
  since(gen: number): bigint | null | undefined {
    if (gen === this.gen) return undefined;
    if (gen > this.gen || this.gen - gen > CHANGE_LOG_SIZE) return null;
    let low: bigint | null = this.floors[gen % CHANGE_LOG_SIZE] as bigint | null;
    for (let g = gen + 1; g < this.gen && low !== null; g++) {
      const f = this.floors[g % CHANGE_LOG_SIZE] as bigint | null;
      if (f === null || f < low) low = f;
    }
    return low;
  }
}

/**
 * The floor of a new slot array `after` replacing `before` (MM2's answer, the first slot at or
 * below a position): positions below every slot that differs (both its old and its new sync)
 * stop their scan at the same slot, holding the same sync; a different last slot changes the
 * answer of every position below all syncs ("too old" names it). null: every position.
 */
export function slotsChangeFloor(before: readonly OffsetSync[], after: readonly OffsetSync[]): bigint | null | undefined {
  if (before[LAST_SLOT] !== after[LAST_SLOT]) return null;
  let low: bigint | undefined;
  for (let i = 0; i < LAST_SLOT; i++) {
    const a = before[i];
    const b = after[i];
    if (a === b) continue;
    const m = a.upstreamOffset < b.upstreamOffset ? a.upstreamOffset : b.upstreamOffset;
    if (low === undefined || m < low) low = m;
  }
  return low;
}
