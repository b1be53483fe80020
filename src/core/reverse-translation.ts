import type { OffsetSync } from './types';
import type { OffsetSyncStore } from './offset-sync-store';
import { rereadBound } from './readiness';

/**
 * Reverse translation, for failback: a consumer group's position D on the TARGET's remote
 * partition (its committed offset, the next record it would read there) turned into a safe
 * position on the SOURCE partition, from the same offset syncs the forward translation uses,
 * read from downstream to upstream. MM2 has no such thing (KIP-1098 is open); the rule mirrors
 * MM2's forward rule (OffsetSyncStore.translateDownstream):
 *
 * - A sync (u, d) says that source record u was copied to target offset d. The mirror copies a
 *   partition in order, so every source record before u was copied before d (or never copied:
 *   aborted, compacted away, filtered).
 * - A group at D = d has read every copy before d: on the source it resumes exactly at u.
 * - A group at D > d has read the copy of u too: it resumes at u + 1. What lies between u and the
 *   record the group would read next cannot be told apart from the syncs alone (a copy may be
 *   missing, a marker may take an offset on either side, a sync may have been lost), so more
 *   would risk skipping records: u + 1 is all that is provably safe.
 * - A sync with d > D says nothing about D. If the store holds none with d <= D the position is
 *   older than every sync it holds (too old); the caller leaves the group alone, as MM2 does with -1.
 *
 * Every sync (u, d) with d <= D gives a position that is never ahead of the exact one, so the
 * answer is the highest of them: the newest such sync (the store resets on an upstream rewind,
 * so within what it holds the upstream offsets only grow with time). Never ahead of the exact
 * position; behind it by at most the records between that sync and the next one above D.
 */

/** The outcome of a reverse translation. */
export type ReverseTranslation =
  /** The initial read of the offset-syncs topic has not completed. */
  | { kind: 'loading' }
  /** No sync for the partition: nothing of it was mirrored (or its syncs are gone). */
  | { kind: 'no-sync' }
  /** The target position is below the downstream offset of every sync the store holds; `oldest`: the one with the lowest. */
  | { kind: 'too-old'; oldest: OffsetSync }
  /**
   * Translated: `upstreamOffset` = `sync.upstreamOffset` (+1 unless `exact`). `above`: the sync
   * just above the position (downstream), when the store holds one; `reread`: at most this many
   * source records are read again after failback (0 when exact).
   */
  | { kind: 'translated'; upstreamOffset: bigint; sync: OffsetSync; exact: boolean; above?: OffsetSync; reread: bigint };

/** The position a sync gives for target position D (which must be >= its downstream offset). */
function positionFrom(sync: OffsetSync, downstreamOffset: bigint): bigint {
  return sync.downstreamOffset === downstreamOffset ? sync.upstreamOffset : sync.upstreamOffset + 1n;
}

/** The same sync with upstream and downstream exchanged (the re-read bound read the other way). */
function swapped(s: OffsetSync): OffsetSync {
  return { topic: s.topic, partition: s.partition, upstreamOffset: s.downstreamOffset, downstreamOffset: s.upstreamOffset };
}

/**
 * Reverse translation over any collection of syncs of ONE partition (all of them, or the ones a
 * store holds), in any order: the highest position any sync at or below D gives, and the sync
 * just above D (the lowest downstream offset above it among the syncs with a higher upstream offset).
 */
export function reverseFromSyncs(syncs: Iterable<OffsetSync>, downstreamOffset: bigint): ReverseTranslation {
  let best: OffsetSync | undefined;
  let bestAt = -1n;
  let oldest: OffsetSync | undefined;
  const all: OffsetSync[] = [];
  for (const s of syncs) {
    all.push(s);
    if (oldest === undefined || s.downstreamOffset < oldest.downstreamOffset) oldest = s;
    if (s.downstreamOffset > downstreamOffset) continue;
    const at = positionFrom(s, downstreamOffset);
    if (best === undefined || at > bestAt) {
      best = s;
      bestAt = at;
    }
  }
  if (oldest === undefined) return { kind: 'no-sync' };
  if (best === undefined) return { kind: 'too-old', oldest };
  let above: OffsetSync | undefined;
  for (const s of all) {
    if (s.downstreamOffset > downstreamOffset && s.upstreamOffset > best.upstreamOffset && (above === undefined || s.downstreamOffset < above.downstreamOffset)) above = s;
  }
  return translated(best, downstreamOffset, above);
}

function translated(sync: OffsetSync, downstreamOffset: bigint, above: OffsetSync | undefined): ReverseTranslation {
  const exact = sync.downstreamOffset === downstreamOffset;
  const reread = rereadBound(downstreamOffset, swapped(sync), above === undefined ? undefined : swapped(above));
  return { kind: 'translated', upstreamOffset: positionFrom(sync, downstreamOffset), sync, exact, ...(above !== undefined ? { above } : {}), reread };
}

/**
 * Reverse translation with an offset-sync store (its public interface only): first over its 64
 * slots (`distinctSyncs`), then, between the sync found and the next one above the position,
 * the syncs the store holds besides the slots (in precise mode: what it keeps for groups and
 * its load history), found with `around` by bisecting the upstream offsets between the two
 * (at most 64 look-ups). Whatever it finds there is a sync too, so the answer stays safe.
 */
export function reverseTranslate(store: OffsetSyncStore, topic: string, partition: number, downstreamOffset: bigint): ReverseTranslation {
  if (!store.loaded) return { kind: 'loading' };
  const first = reverseFromSyncs(store.distinctSyncs(topic, partition), downstreamOffset);
  if (first.kind !== 'translated' || first.exact || first.above === undefined) return first;
  let best = first.sync;
  let above = first.above;
  let lo = best.upstreamOffset;
  let hi = above.upstreamOffset;
  while (hi - lo > 1n) {
    const mid = lo + (hi - lo) / 2n;
    const { below } = store.around(topic, partition, mid);
    if (below === undefined || below.upstreamOffset <= lo) {
      lo = mid; // no sync in (lo, mid]
    } else if (below.downstreamOffset <= downstreamOffset) {
      if (positionFrom(below, downstreamOffset) > positionFrom(best, downstreamOffset)) best = below;
      if (below.downstreamOffset === downstreamOffset) break; // exact: nothing can be better
      lo = mid;
    } else {
      if (below.upstreamOffset < above.upstreamOffset) above = below;
      hi = below.upstreamOffset;
    }
  }
  return translated(best, downstreamOffset, above.upstreamOffset > best.upstreamOffset ? above : undefined);
}
