import type { OffsetSync, TopicPartition } from './types';

/**
 * MM2's OffsetSyncStore: the in-memory index of offset syncs that the checkpoint
 * side uses to translate a consumer group's upstream offset into a safe downstream offset.
 *
 * Per source partition it keeps an array of exactly 64 slots. Each slot references one sync;
 * the same sync object may fill several consecutive slots. Slot 0 is always the newest sync
 * and the distinct syncs are spaced roughly exponentially back in time, so translation is exact
 * near the live end and coarser further back (the invariants OffsetSyncStore.updateSyncArray keeps).
 *
 * Identity matters: the update algorithm compares slots with `===` (MM2 compares the sync objects
 * by reference; deduplicating syncs by value would change what is evicted). Every
 * call to {@link OffsetSyncStore.apply} therefore stores a fresh frozen copy of the sync, so two
 * records with equal values are still two objects, exactly as two deserialized records are in
 * MM2, even when a caller passes the same object twice.
 *
 * All offset arithmetic is bigint with Java `long` (signed 64-bit, wrapping) semantics in the
 * overflow guards of invariants B and C.
 */

/** Precise mode: how many of the newest syncs per partition the load history holds at most. */
export const LOAD_HISTORY_PER_PARTITION = 10000;

/** Slots per partition: `Long.SIZE` in MM2. */
export const SYNCS_PER_PARTITION = 64;
const LAST_SLOT = SYNCS_PER_PARTITION - 1;

/** 2^i for i = 0..63, exact (not wrapped; wrapping happens once, on the sum). */
const POW2: readonly bigint[] = Array.from({ length: SYNCS_PER_PARTITION }, (_, i) => 1n << BigInt(i));
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** Wraps an exact integer to a Java `long`. Sums of wrapped terms are congruent mod 2^64, so
 * wrapping the exact sum once gives the same value as Java's step-by-step wrapping. */
function toInt64(x: bigint): bigint {
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

/** The detailed outcome of a translation, for coverage reports and "explain" views. */
export type Translation =
  /** The initial read-to-end of the offset-syncs topic has not completed (MM2: empty). */
  | { kind: 'loading' }
  /** No sync has been received for the partition (MM2: empty). */
  | { kind: 'no-sync' }
  /** The offset is older than the oldest retained sync (MM2: -1). `oldest` is slot 63. */
  | { kind: 'too-old'; oldest: OffsetSync }
  /**
   * Translated: `downstreamOffset` = `sync.downstreamOffset` (+1 unless `exact`). `kept`: the sync is
   * the one the precise mode kept for the group (it is older than the 64 slots' answer would be, or gone from them).
   */
  | { kind: 'translated'; downstreamOffset: bigint; sync: OffsetSync; exact: boolean; kept?: boolean };

/**
 * How offsets are translated. `mm2`: exactly MM2's 64 slots. `precise` (the default): besides them,
 * the newest sync at or below each tracked group partition's position is kept (see OffsetSyncStore).
 */
export type OffsetTranslationMode = 'precise' | 'mm2';
export const OFFSET_TRANSLATION_MODES: readonly OffsetTranslationMode[] = Object.freeze(['precise', 'mm2']);

function freezeSync(sync: OffsetSync): OffsetSync {
  const { topic, partition, upstreamOffset, downstreamOffset } = sync;
  if (typeof upstreamOffset !== 'bigint' || typeof downstreamOffset !== 'bigint') {
    throw new TypeError('OffsetSync offsets must be bigint');
  }
  return Object.freeze({ topic, partition, upstreamOffset, downstreamOffset });
}

export interface OffsetSyncStoreOptions {
  /**
   * true: MM2 `start(mustReadToEnd = false)`: the previous checkpoints were restored, so the
   * full sync history is built during the initial load.
   * false: MM2 `start(mustReadToEnd = true)`: during the initial load only the latest sync per
   * partition is kept, which keeps checkpoints monotonic without the checkpoint history.
   */
  keepHistoryOnLoad: boolean;
  /** Default 'precise'. */
  translation?: OffsetTranslationMode;
}

/** What the precise mode keeps for one group partition. */
interface Kept {
  /** The group's committed offset when it was last translated. */
  position: bigint;
  /** true: the position is at or above the newest sync, which is therefore the kept one (slot 0, whatever it is now). */
  follows: boolean;
  /** The kept sync when not `follows`: the newest sync at or below `position`. */
  sync: OffsetSync;
  /** Tells a live heap item from a stale one. */
  seq: number;
}

interface HeapItem {
  position: bigint;
  group: string;
  seq: number;
}

/** Per partition: the kept syncs of the tracked groups, and the followers by position (a min-heap). */
interface PartitionKept {
  groups: Map<string, Kept>;
  heap: HeapItem[];
}

function heapPush(h: HeapItem[], x: HeapItem): void {
  h.push(x);
  let i = h.length - 1;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (h[p].position <= h[i].position) break;
    [h[p], h[i]] = [h[i], h[p]];
    i = p;
  }
}

function heapPop(h: HeapItem[]): HeapItem | undefined {
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

/** The index of the newest sync at or below `offset` in a list in upstream order (binary search), or -1. */
function newestAtOrBelow(list: readonly OffsetSync[], offset: bigint): number {
  if (list.length === 0 || list[0].upstreamOffset > offset) return -1;
  let lo = 0;
  let hi = list.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (list[mid].upstreamOffset <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export class OffsetSyncStore {
  /** MM2 `initializationMustReadToEnd`. */
  private readonly mustReadToEnd: boolean;
  private readToEnd = false;
  /** topic -> partition -> the published 64-slot array (never mutated after publication). */
  private readonly syncs = new Map<string, Map<number, readonly OffsetSync[]>>();
  /** Precise mode: topic -> partition -> what is kept for the tracked groups. */
  private readonly kept = new Map<string, Map<number, PartitionKept>>();
  private seq = 0;
  /** The translation mode (fixed for the store's life). */
  readonly translation: OffsetTranslationMode;
  /**
   * Precise mode with keepHistoryOnLoad: every sync read (the initial load of the offset-syncs
   * topic, and what follows until {@link releaseLoadHistory}), per partition, at most
   * {@link LOAD_HISTORY_PER_PARTITION} of the newest; so that the first translation of each group
   * (after a start) finds the sync just below it among all the topic still holds. null otherwise.
   */
  private history: Map<string, Map<number, OffsetSync[]>> | null;

  constructor({ keepHistoryOnLoad, translation }: OffsetSyncStoreOptions) {
    this.mustReadToEnd = !keepHistoryOnLoad;
    const mode = translation ?? 'precise';
    if (!OFFSET_TRANSLATION_MODES.includes(mode)) throw new TypeError(`offset translation must be one of ${OFFSET_TRANSLATION_MODES.join(', ')}, got ${String(mode)}`);
    this.translation = mode;
    this.history = mode === 'precise' && keepHistoryOnLoad ? new Map() : null;
  }

  /** Drops the load history (the emitter does once every group has been translated after the load). */
  releaseLoadHistory(): void {
    this.history = null;
  }

  /** Whether the load history is still held. */
  get holdsLoadHistory(): boolean {
    return this.history !== null;
  }

  private remember(n: OffsetSync, rewound: boolean): void {
    if (this.history === null) return;
    let byPartition = this.history.get(n.topic);
    if (byPartition === undefined) {
      byPartition = new Map();
      this.history.set(n.topic, byPartition);
    }
    const list = byPartition.get(n.partition);
    if (list === undefined || rewound) byPartition.set(n.partition, [n]);
    else {
      list.push(n);
      if (list.length >= 2 * LOAD_HISTORY_PER_PARTITION) list.splice(0, list.length - LOAD_HISTORY_PER_PARTITION);
    }
  }

  /** The newest sync of the load history at or below `offset` (binary search; the list is in upstream order). */
  private fromHistory(topic: string, partition: number, offset: bigint): OffsetSync | undefined {
    const list = this.history?.get(topic)?.get(partition);
    if (list === undefined) return undefined;
    const i = newestAtOrBelow(list, offset);
    return i < 0 ? undefined : list[i];
  }

  /** Whether the initial read-to-end is complete (MM2 `readToEnd`); translation needs it. */
  get loaded(): boolean {
    return this.readToEnd;
  }

  /** The mode the store was created in (see {@link OffsetSyncStoreOptions.keepHistoryOnLoad}). */
  get keepHistoryOnLoad(): boolean {
    return !this.mustReadToEnd;
  }

  /** Marks the initial read of the offset-syncs topic (up to the end offset seen at start) as complete. */
  markLoaded(): void {
    this.readToEnd = true;
  }

  /** Applies one offset sync (one record of the offset-syncs topic, in log order): MM2's OffsetSyncStore.updateSyncArray. */
  apply(sync: OffsetSync): void {
    const n = freezeSync(sync);
    let byPartition = this.syncs.get(n.topic);
    if (byPartition === undefined) {
      byPartition = new Map();
      this.syncs.set(n.topic, byPartition);
    }
    const original = byPartition.get(n.partition);
    // Step 1: first sync for the partition fills every slot.
    if (original === undefined) {
      this.remember(n, true);
      byPartition.set(n.partition, Object.freeze(new Array<OffsetSync>(SYNCS_PER_PARTITION).fill(n)));
      return;
    }
    this.remember(n, n.upstreamOffset < original[0].upstreamOffset);
    this.settleFollowers(n, original[0]);
    // Step 2: work on a copy; publish it in one assignment at the end.
    const s = original.slice();
    // Step 3: reset while loading in must-read-to-end mode, or on an upstream rewind.
    const onlyKeepLatest = !this.readToEnd && this.mustReadToEnd;
    if (onlyKeepLatest || n.upstreamOffset < s[0].upstreamOffset) {
      // an upstream rewind: what was kept belongs to the old history
      if (n.upstreamOffset < s[0].upstreamOffset) this.kept.get(n.topic)?.delete(n.partition);
      s.fill(n);
      byPartition.set(n.partition, Object.freeze(s));
      return;
    }
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
    // Step 6.
    byPartition.set(n.partition, Object.freeze(s));
  }

  /**
   * MM2 `OffsetSyncStore.translateDownstream`. `upstreamOffset` is the group's committed offset (the next
   * offset to consume). Returns undefined ("empty": not loaded yet, or no sync for the partition),
   * -1n when the offset is older than the oldest retained sync, or the downstream offset.
   */
  translate(topic: string, partition: number, upstreamOffset: bigint): bigint | undefined {
    const t = this.explain(topic, partition, upstreamOffset);
    switch (t.kind) {
      case 'translated':
        return t.downstreamOffset;
      case 'too-old':
        return -1n;
      default:
        return undefined;
    }
  }

  /**
   * Like {@link translate}, but says why, and which sync the result came from. With `group` in
   * precise mode: the group partition is tracked at `upstreamOffset`, and the answer is the newer of
   * MM2's and the sync kept for it (the newest at or below its position, see {@link track}).
   */
  explain(topic: string, partition: number, upstreamOffset: bigint, group?: string): Translation {
    const t = this.explainSlots(topic, partition, upstreamOffset);
    if (group === undefined || this.translation === 'mm2' || (t.kind !== 'translated' && t.kind !== 'too-old')) return t;
    return this.track(group, topic, partition, upstreamOffset, t);
  }

  /**
   * Precise mode: the kept sync of (group, partition) for its new position, from what was kept at
   * its last position and MM2's answer now (`t`), and remembered for the next time.
   *
   * What is kept is exactly the newest sync at or below the position whenever the group's last
   * move (forward from P_old to P) crossed no sync that has since left the 64 slots: a sync at or
   * below P_old is kept already (while a group is at or above the newest sync it follows every new
   * sync up to its position, and is settled on the newest below it when a sync above it arrives),
   * and a sync in (P_old, P] is found in the slots as long as it is still there. A sync in
   * (P_old, P] that arrived before the move and was evicted from the slots since is lost: the answer
   * is then the newest of the kept one and the slots' one, never older than MM2's. A rewind to P
   * below the kept sync drops it (MM2's answer, then kept from there); a rewind above it keeps it.
   * While the load history is held (from the start, with the checkpoints restored, until the
   * emitter's first full cycle after the load translated every group), the newest sync at or below
   * P among all that were read is a candidate too: a group first translated after a start gets the
   * sync just below it among what the offset-syncs topic still held.
   */
  private track(group: string, topic: string, partition: number, offset: bigint, t: Translation & { kind: 'translated' | 'too-old' }): Translation {
    const slots = this.syncs.get(topic)?.get(partition) as readonly OffsetSync[];
    let byPartition = this.kept.get(topic);
    if (byPartition === undefined) {
      byPartition = new Map();
      this.kept.set(topic, byPartition);
    }
    let pk = byPartition.get(partition);
    if (pk === undefined) {
      pk = { groups: new Map(), heap: [] };
      byPartition.set(partition, pk);
    }
    const had = pk.groups.get(group);
    const keptSync = had === undefined ? undefined : had.follows ? slots[0] : had.sync;
    let best: OffsetSync | undefined = t.kind === 'translated' ? t.sync : undefined;
    let fromKept = false;
    if (this.history !== null) {
      // after a start, until every group was translated once: the sync just below it among all that were read
      const h = this.fromHistory(topic, partition, offset);
      if (h !== undefined && (best === undefined || h.upstreamOffset > best.upstreamOffset)) {
        best = h;
        fromKept = true;
      }
    }
    if (keptSync !== undefined && keptSync.upstreamOffset <= offset && (best === undefined || keptSync.upstreamOffset > best.upstreamOffset)) {
      best = keptSync;
      fromKept = true;
    }
    if (best === undefined) {
      // below every sync: nothing to keep
      if (had !== undefined) pk.groups.delete(group);
      return t;
    }
    const follows = best === slots[0] && offset >= best.upstreamOffset;
    if (had === undefined || had.position !== offset || had.follows !== follows || (!follows && had.sync !== best)) {
      const seq = ++this.seq;
      pk.groups.set(group, { position: offset, follows, sync: best, seq });
      if (follows) {
        heapPush(pk.heap, { position: offset, group, seq });
        if (pk.heap.length > 2 * pk.groups.size + 16) this.compactHeap(pk);
      }
    }
    if (!fromKept) return t;
    const exact = best.upstreamOffset === offset;
    return { kind: 'translated', downstreamOffset: exact ? best.downstreamOffset : toInt64(best.downstreamOffset + 1n), sync: best, exact, kept: true };
  }

  /** A new sync `n` above some followers: they keep the newest sync below it (`previous`, slot 0 until now). */
  private settleFollowers(n: OffsetSync, previous: OffsetSync): void {
    const pk = this.kept.get(n.topic)?.get(n.partition);
    if (pk === undefined || n.upstreamOffset < previous.upstreamOffset) return;
    const h = pk.heap;
    while (h.length > 0 && h[0].position < n.upstreamOffset) {
      const item = heapPop(h) as HeapItem;
      const k = pk.groups.get(item.group);
      if (k !== undefined && k.seq === item.seq && k.follows) {
        k.follows = false;
        k.sync = previous;
      }
    }
  }

  private compactHeap(pk: PartitionKept): void {
    const live: HeapItem[] = [];
    for (const [group, k] of pk.groups) if (k.follows) live.push({ position: k.position, group, seq: k.seq });
    live.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
    pk.heap = live; // a sorted array is a min-heap
  }

  /** Precise mode: forgets the kept syncs of every group not in `groups`. */
  retainGroups(groups: ReadonlySet<string>): void {
    for (const byPartition of this.kept.values()) {
      for (const pk of byPartition.values()) {
        let removed = false;
        for (const g of pk.groups.keys()) {
          if (!groups.has(g)) {
            pk.groups.delete(g);
            removed = true;
          }
        }
        if (removed) this.compactHeap(pk);
      }
    }
  }

  /** Precise mode: how many group partitions have a kept sync (the memory beside the 64 slots grows with this). */
  get trackedGroupPartitions(): number {
    let n = 0;
    for (const byPartition of this.kept.values()) for (const pk of byPartition.values()) n += pk.groups.size;
    return n;
  }

  /** MM2's answer from the 64 slots. */
  private explainSlots(topic: string, partition: number, upstreamOffset: bigint): Translation {
    if (!this.readToEnd) return { kind: 'loading' };
    const s = this.syncs.get(topic)?.get(partition);
    if (s === undefined) return { kind: 'no-sync' };
    let found = s[LAST_SLOT];
    for (let i = 0; i < SYNCS_PER_PARTITION; i++) {
      if (s[i].upstreamOffset <= upstreamOffset) {
        found = s[i];
        break;
      }
    }
    if (found.upstreamOffset > upstreamOffset) return { kind: 'too-old', oldest: found };
    const exact = found.upstreamOffset === upstreamOffset;
    // Java long arithmetic: a downstream offset of 2^63-1 plus one wraps negative, which the
    // checkpoint side then drops like a -1; unreachable with real offsets.
    const downstreamOffset = exact ? found.downstreamOffset : toInt64(found.downstreamOffset + 1n);
    return { kind: 'translated', downstreamOffset, sync: found, exact };
  }

  /**
   * The syncs around `offset` on a partition, without tracking anything: `below`, the newest sync at
   * or below it that the store would translate from (with `group` in precise mode: the newer of the
   * slots' answer, the sync kept for the group and the load history's), and `above`, the oldest sync
   * above it that the store holds (the slots, and the load history while it is held). Either is
   * undefined when the store has none (not loaded yet: both).
   */
  around(topic: string, partition: number, offset: bigint, group?: string): { below?: OffsetSync; above?: OffsetSync } {
    const s = this.syncs.get(topic)?.get(partition);
    if (!this.readToEnd || s === undefined) return {};
    let i = 0;
    while (i < SYNCS_PER_PARTITION && s[i].upstreamOffset > offset) i++;
    let below: OffsetSync | undefined = i < SYNCS_PER_PARTITION ? s[i] : undefined;
    let above: OffsetSync | undefined = i > 0 ? s[i - 1] : undefined;
    if (this.translation === 'precise') {
      const consider = (x: OffsetSync | undefined): void => {
        if (x === undefined) return;
        if (x.upstreamOffset <= offset) {
          if (below === undefined || x.upstreamOffset > below.upstreamOffset) below = x;
        } else if (above === undefined || x.upstreamOffset < above.upstreamOffset) above = x;
      };
      if (group !== undefined) {
        const k = this.kept.get(topic)?.get(partition)?.groups.get(group);
        if (k !== undefined) consider(k.follows ? s[0] : k.sync);
      }
      const list = this.history?.get(topic)?.get(partition);
      if (list !== undefined) {
        // the history is in upstream order: the one after the newest at or below is the oldest above
        const h = newestAtOrBelow(list, offset);
        consider(list[h]);
        consider(list[h + 1]);
      }
    }
    return { below, above };
  }

  /** Every partition that has at least one sync, topics and partitions in first-seen order. */
  partitions(): TopicPartition[] {
    const out: TopicPartition[] = [];
    for (const [topic, byPartition] of this.syncs) {
      for (const partition of byPartition.keys()) out.push({ topic, partition });
    }
    return out;
  }

  /** The 64 slots of a partition (the stored objects themselves, so `===` shows shared slots), or undefined. */
  slots(topic: string, partition: number): readonly OffsetSync[] | undefined {
    return this.syncs.get(topic)?.get(partition);
  }

  /** The distinct syncs of a partition, newest first (slot order, consecutive duplicates removed). */
  distinctSyncs(topic: string, partition: number): OffsetSync[] {
    const s = this.slots(topic, partition);
    if (s === undefined) return [];
    return s.filter((x, i) => i === 0 || s[i - 1] !== x);
  }

  /** Slot 63: the earliest sync usable for translation. */
  oldest(topic: string, partition: number): OffsetSync | undefined {
    return this.slots(topic, partition)?.[LAST_SLOT];
  }

  /** Slot 0: the latest sync received. */
  latest(topic: string, partition: number): OffsetSync | undefined {
    return this.slots(topic, partition)?.[0];
  }

  /**
   * The slots in a short notation: runs of consecutive slots holding the same object,
   * `[0-4=10000:10000, 5=9990:9990, 6-63=1000:1000]` (`slots=up:down`). `[]` for an unknown partition.
   */
  describeSlots(topic: string, partition: number): string {
    return describeSlotArray(this.slots(topic, partition) ?? []);
  }
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
