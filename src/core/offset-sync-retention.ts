/**
 * The precise translation mode's bookkeeping per partition (core/offset-sync-store): what is kept
 * for each tracked group partition (core/kept-rows), and the retained
 * syncs with their thinning; plain data and helpers, no I/O.
 */
import type { KeptRows } from './kept-rows';
import type { OffsetSync } from './types';

/**
 * Per partition: the kept syncs of the tracked groups (compact rows, with the followers and every
 * tracked group by position: core/kept-rows), and the retained syncs.
 */
export interface PartitionKept {
  groups: KeptRows;
  /**
   * In upstream order from `head`: the newest sync at or below the lowest tracked position (or the
   * oldest retained, when none is), then the syncs above it up to the newest sync, thinned to one per
   * `spacing`-aligned range of upstream offsets (besides the first) once they were more than the cap.
   */
  retained: OffsetSync[];
  head: number;
  /** 1n: nothing thinned since the list was last short; else a power of two. */
  spacing: bigint;
}

export function clearRetained(pk: PartitionKept): void {
  pk.retained = [];
  pk.head = 0;
  pk.spacing = 1n;
}

/** Whether `x` and `y` fall into the same `spacing`-aligned range of upstream offsets. */
export function sameRange(x: OffsetSync, y: OffsetSync, spacing: bigint): boolean {
  return x.upstreamOffset / spacing === y.upstreamOffset / spacing;
}

/** Keeps the first of `list` and the newest in every `spacing`-aligned range of the rest (so the newest of all too). */
export function thinned(list: readonly OffsetSync[], spacing: bigint): OffsetSync[] {
  const out: OffsetSync[] = [];
  for (const x of list) {
    if (out.length >= 2 && sameRange(out[out.length - 1], x, spacing)) out[out.length - 1] = x;
    else out.push(x);
  }
  return out;
}

/** A binary min-heap by position (kept for tests; the store's own heaps are core/kept-rows). */
export function heapPush<T extends { position: bigint }>(h: T[], x: T): void {
  h.push(x);
  let i = h.length - 1;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (h[p].position <= h[i].position) break;
    [h[p], h[i]] = [h[i], h[p]];
    i = p;
  }
}

export function heapPop<T extends { position: bigint }>(h: T[]): T | undefined {
  const top = h[0];
  const last = h.pop();
  if (h.length > 0 && last !== undefined) {
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && h[l].position < h[m].position) m = l;
      if (r < h.length && h[r].position < h[m].position) m = r;
      if (m === i) break;
      [h[m], h[i]] = [h[i], h[m]];
      i = m;
    }
  }
  return top;
}

/** The index of the newest sync at or below `offset` in a list in upstream order from `from` (binary search), or -1. */
export function newestAtOrBelow(list: readonly OffsetSync[], offset: bigint, from = 0): number {
  if (list.length <= from || list[from].upstreamOffset > offset) return -1;
  let lo = from;
  let hi = list.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (list[mid].upstreamOffset <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Heap items in position order (a sorted array is a min-heap). */
export function sortedByPosition<T extends { position: bigint }>(items: T[]): T[] {
  return items.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
}
