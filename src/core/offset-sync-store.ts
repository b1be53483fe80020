import type { OffsetSync, TopicPartition } from './types';
import { describeSlotArray, freezeSync, LAST_SLOT, promotedSlots, SYNCS_PER_PARTITION, toInt64 } from './offset-sync-slots';
import { GroupNames } from './group-names';
import { KeptRows } from './kept-rows';
import { clearRetained, newestAtOrBelow, sameRange, thinned, type PartitionKept } from './offset-sync-retention';
import { ChangeClock, slotsChangeFloor, SyncChangeLog } from './sync-change-log';

export { describeSlotArray, invariantB, invariantC, SYNCS_PER_PARTITION } from './offset-sync-slots';

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

/**
 * Precise mode: how many syncs per partition are retained at most for the tracked groups (the syncs
 * from the newest at or below the lowest tracked position up to the newest sync). Beyond it they are
 * thinned (see OffsetSyncStore.thin).
 */
export const RETAINED_SYNCS_PER_PARTITION = 1024;

/** The detailed outcome of a translation, for coverage reports and "explain" views. */
export type Translation =
  /** The initial read-to-end of the offset-syncs topic has not completed (MM2: empty). */
  | { kind: 'loading' }
  /** No sync has been received for the partition (MM2: empty). */
  | { kind: 'no-sync' }
  /** The offset is older than the oldest retained sync (MM2: -1). `oldest` is slot 63. */
  | { kind: 'too-old'; oldest: OffsetSync }
  /**
   * Translated: `downstreamOffset` = `sync.downstreamOffset` (+1 unless `exact`). `kept`: the precise
   * mode's answer, newer than the 64 slots' (a sync kept for the group, retained for the tracked groups
   * of the partition, or from the load history).
   */
  | { kind: 'translated'; downstreamOffset: bigint; sync: OffsetSync; exact: boolean; kept?: boolean };

/**
 * How offsets are translated. `mm2`: exactly MM2's 64 slots. `precise` (the default): besides them,
 * the newest sync at or below each tracked group partition's position is kept, and per partition the
 * syncs from the lowest tracked position up (at most a cap, then thinned; see OffsetSyncStore.track).
 */
export type OffsetTranslationMode = 'precise' | 'mm2';
export const OFFSET_TRANSLATION_MODES: readonly OffsetTranslationMode[] = Object.freeze(['precise', 'mm2']);

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
  /** Precise mode: the cap of retained syncs per partition, default {@link RETAINED_SYNCS_PER_PARTITION} (at least 4). */
  retainedSyncsPerPartition?: number;
  /** The groups' numbers, shared with the flow's other tables (the replication runtime's); default: the store's own. */
  names?: GroupNames;
}

export class OffsetSyncStore {
  /** MM2 `initializationMustReadToEnd`. */
  private readonly mustReadToEnd: boolean;
  private readToEnd = false;
  /** topic -> partition -> the published 64-slot array (never mutated after publication). */
  private readonly syncs = new Map<string, Map<number, readonly OffsetSync[]>>();
  /** topic -> partition -> which positions each change of the partition's syncs may have changed the answer of. */
  private readonly logs = new Map<string, Map<number, SyncChangeLog>>();
  /** Counts the changes of every partition's log (a moment for all of a group's partitions at once: TranslationCache). */
  readonly changeClock = new ChangeClock();
  /** Precise mode: topic -> partition -> what is kept for the tracked groups. */
  private readonly kept = new Map<string, Map<number, PartitionKept>>();
  /** The tracked groups' names, interned once for every partition's kept rows. */
  private readonly groupNames: GroupNames;
  /** The translation mode (fixed for the store's life). */
  readonly translation: OffsetTranslationMode;
  /** Precise mode: the cap of retained syncs per partition. */
  readonly retainedSyncsPerPartition: number;
  /**
   * Precise mode with keepHistoryOnLoad: every sync read (the initial load of the offset-syncs
   * topic, and what follows until {@link releaseLoadHistory}), per partition, at most
   * {@link LOAD_HISTORY_PER_PARTITION} of the newest; so that the first translation of each group
   * (after a start) finds the sync just below it among all the topic still holds. null otherwise.
   */
  private history: Map<string, Map<number, OffsetSync[]>> | null;

  constructor({ keepHistoryOnLoad, translation, retainedSyncsPerPartition, names }: OffsetSyncStoreOptions) {
    this.groupNames = names ?? new GroupNames();
    this.mustReadToEnd = !keepHistoryOnLoad;
    const mode = translation ?? 'precise';
    if (!OFFSET_TRANSLATION_MODES.includes(mode)) throw new TypeError(`offset translation must be one of ${OFFSET_TRANSLATION_MODES.join(', ')}, got ${String(mode)}`);
    this.translation = mode;
    const cap = retainedSyncsPerPartition ?? RETAINED_SYNCS_PER_PARTITION;
    if (!Number.isSafeInteger(cap) || cap < 4) throw new TypeError(`retained syncs per partition must be a whole number of at least 4, got ${String(retainedSyncsPerPartition)}`);
    this.retainedSyncsPerPartition = cap;
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
    const log = this.changeLog(n.topic, n.partition);
    // Step 1: first sync for the partition fills every slot.
    if (original === undefined) {
      this.remember(n, true);
      byPartition.set(n.partition, Object.freeze(new Array<OffsetSync>(SYNCS_PER_PARTITION).fill(n)));
      log.changed(null);
      return;
    }
    this.remember(n, n.upstreamOffset < original[0].upstreamOffset);
    this.settleFollowers(n, original[0]);
    // Step 2: the new array is built apart and published in one assignment at the end.
    // Step 3: reset while loading in must-read-to-end mode, or on an upstream rewind.
    const onlyKeepLatest = !this.readToEnd && this.mustReadToEnd;
    if (onlyKeepLatest || n.upstreamOffset < original[0].upstreamOffset) {
      // an upstream rewind: what was kept belongs to the old history
      if (n.upstreamOffset < original[0].upstreamOffset) {
        this.kept.get(n.topic)?.get(n.partition)?.groups.clear(); // the interned names it held are released
        this.kept.get(n.topic)?.delete(n.partition);
      }
      byPartition.set(n.partition, Object.freeze(new Array<OffsetSync>(SYNCS_PER_PARTITION).fill(n)));
      log.changed(null);
      return;
    }
    this.retainNew(n);
    // Steps 4 and 5.
    const s = promotedSlots(original, n);
    // Step 6.
    byPartition.set(n.partition, Object.freeze(s));
    // MM2's answer changes where the slots differ. Precise mode: a tracked group partition below
    // the new sync keeps the sync kept for it (the newest at or below it: nothing newer below it
    // came, what the slots or the retained syncs dropped is not newer); one below every sync (not
    // tracked) is answered from the last slot.
    const floor = this.translation === 'mm2' ? slotsChangeFloor(original, s) : s[LAST_SLOT] !== original[LAST_SLOT] ? null : n.upstreamOffset;
    if (floor !== undefined) log.changed(floor);
  }

  /**
   * The change log of a partition's syncs (created empty for a partition without syncs yet): the
   * same object for the store's life, so a translation can keep it and ask what changed since.
   */
  changeLog(topic: string, partition: number): SyncChangeLog {
    let byPartition = this.logs.get(topic);
    if (byPartition === undefined) {
      byPartition = new Map();
      this.logs.set(topic, byPartition);
    }
    let log = byPartition.get(partition);
    if (log === undefined) byPartition.set(partition, (log = new SyncChangeLog(this.changeClock)));
    return log;
  }

  /** Every partition's change log (those of partitions without syncs yet too). */
  *changeLogs(): IterableIterator<[string, number, SyncChangeLog]> {
    for (const [topic, byPartition] of this.logs) for (const [partition, log] of byPartition) yield [topic, partition, log];
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
   * Precise mode: the sync to translate (group, partition) from at its new position, from what was
   * kept at its last position, the retained syncs and MM2's answer now (`t`), and remembered for the
   * next time.
   *
   * Two things are kept. Per group partition, the newest sync at or below its position (while a
   * group is at or above the newest sync it follows every new sync up to its position, and is
   * settled on the newest below it when a sync above it arrives): exact for a group that does not
   * move, whatever else is dropped. Per partition, the retained syncs: the newest at or below the
   * lowest tracked position and every sync above it (those the slots held when the lowest group was
   * first tracked there, and every sync since), so a group that moves, at any distance behind the
   * newest sync, finds the sync just below its new position. Once more than the cap are retained on
   * a partition they are thinned to one per range of 2^k upstream offsets (k as small as brings them
   * to 3/4 of the cap; see {@link thin}): the answer is then a retained sync below the newest
   * one at or below the position, never above it, and the readiness bound ({@link around}) says
   * what it costs. The answer is the newest of the kept sync (when at or below the position), the
   * newest retained sync at or below it and MM2's: never older than MM2's. A rewind to P below the
   * kept sync drops it; an upstream rewind of the syncs (a re-created partition) drops all.
   * While the load history is held (from the start, with the checkpoints restored, until the
   * emitter's first full cycle after the load translated every group), the newest sync at or below
   * P among all that were read is a candidate too, and a group first tracked below the retained
   * syncs adds those of the history above its position to them: a group first translated after a
   * start gets the sync just below it among what the offset-syncs topic still held, and keeps
   * finding it as it moves.
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
      pk = { groups: new KeptRows(this.groupNames), retained: [], head: 0, spacing: 1n };
      byPartition.set(partition, pk);
    }
    const keptSync = pk.groups.keptSync(group, slots[0]);
    let best: OffsetSync | undefined = t.kind === 'translated' ? t.sync : undefined;
    let fromKept = false;
    const consider = (x: OffsetSync | undefined): void => {
      if (x !== undefined && x.upstreamOffset <= offset && (best === undefined || x.upstreamOffset > best.upstreamOffset)) {
        best = x;
        fromKept = true;
      }
    };
    // after a start, until every group was translated once: the sync just below it among all that were read
    if (this.history !== null) consider(this.fromHistory(topic, partition, offset));
    consider(keptSync);
    const r = newestAtOrBelow(pk.retained, offset, pk.head);
    if (r >= 0) consider(pk.retained[r]);
    if (best === undefined) {
      // below every sync: nothing to keep
      pk.groups.delete(group);
      return t;
    }
    const found: OffsetSync = best;
    const follows = found === slots[0] && offset >= found.upstreamOffset;
    if (pk.groups.differs(group, offset, follows, found)) pk.groups.set(group, offset, follows, found);
    if (pk.head >= pk.retained.length || offset < pk.retained[pk.head].upstreamOffset) this.retainFrom(pk, found, slots);
    if (!fromKept) return t;
    const exact = found.upstreamOffset === offset;
    return { kind: 'translated', downstreamOffset: exact ? found.downstreamOffset : toInt64(found.downstreamOffset + 1n), sync: found, exact, kept: true };
  }

  /**
   * A group tracked below the retained syncs (or the first one): they start at `from` (its answer),
   * with every sync above it that the slots and the load history hold, below the retained ones.
   */
  private retainFrom(pk: PartitionKept, from: OffsetSync, slots: readonly OffsetSync[]): void {
    const r = pk.retained;
    const until = pk.head < r.length ? r[pk.head].upstreamOffset : undefined;
    const between = (x: OffsetSync): boolean => x.upstreamOffset > from.upstreamOffset && (until === undefined || x.upstreamOffset < until);
    const list = this.history?.get(from.topic)?.get(from.partition);
    const firstInHistory = list !== undefined && list.length > 0 ? list[0].upstreamOffset : undefined;
    const seed: OffsetSync[] = [from];
    // the slots (newest first) older than the history, then the history (in upstream order)
    for (let i = LAST_SLOT; i >= 0; i--) {
      const x = slots[i];
      if ((i === LAST_SLOT || slots[i + 1] !== x) && between(x) && (firstInHistory === undefined || x.upstreamOffset < firstInHistory)) seed.push(x);
    }
    if (list !== undefined) {
      for (let i = newestAtOrBelow(list, from.upstreamOffset) + 1; i < list.length && between(list[i]); i++) seed.push(list[i]);
    }
    for (let i = pk.head; i < r.length; i++) seed.push(r[i]);
    pk.retained = seed;
    pk.head = 0;
    if (seed.length > this.retainedSyncsPerPartition) this.thin(pk);
  }

  /** Precise mode: a new sync (the newest of its partition) is retained while a group is tracked there. */
  private retainNew(n: OffsetSync): void {
    const pk = this.kept.get(n.topic)?.get(n.partition);
    if (pk === undefined) return;
    if (pk.groups.size === 0) {
      // nobody to retain for: the next group tracked here starts them again (from the slots)
      clearRetained(pk);
      return;
    }
    const r = pk.retained;
    // the first stays (a group's sync at the lowest position); one per range of `spacing` offsets after it
    if (r.length - pk.head >= 2 && sameRange(r[r.length - 1], n, pk.spacing)) r[r.length - 1] = n;
    else r.push(n);
    this.pruneRetained(pk);
  }

  /** Drops the retained syncs below the newest at or below the lowest tracked position; thins them over the cap. */
  private pruneRetained(pk: PartitionKept): void {
    const low = this.lowestPosition(pk);
    if (low === undefined) {
      clearRetained(pk);
      return;
    }
    const r = pk.retained;
    while (r.length - pk.head >= 2 && r[pk.head + 1].upstreamOffset <= low) pk.head++;
    if (pk.head > 32 && 2 * pk.head > r.length) {
      pk.retained = r.slice(pk.head);
      pk.head = 0;
    }
    const n = pk.retained.length - pk.head;
    if (n > this.retainedSyncsPerPartition) this.thin(pk);
    // fewer again: the next syncs at a finer spacing (those already thinned stay as they are)
    else if (pk.spacing > 1n && 4 * n <= this.retainedSyncsPerPartition) pk.spacing /= 2n;
  }

  /** The retained syncs over the cap: a spacing twice as coarse (or more) until they are at most 3/4 of it. */
  private thin(pk: PartitionKept): void {
    const list = pk.retained.slice(pk.head);
    const target = Math.max(2, Math.floor((3 * this.retainedSyncsPerPartition) / 4));
    let spacing = pk.spacing;
    let out: OffsetSync[];
    do {
      spacing *= 2n;
      out = thinned(list, spacing);
    } while (out.length > target);
    pk.retained = out;
    pk.head = 0;
    pk.spacing = spacing;
  }

  /** The lowest position of a tracked group on the partition, or undefined. */
  private lowestPosition(pk: PartitionKept): bigint | undefined {
    return pk.groups.lowest();
  }

  /** A new sync `n` above some followers: they keep the newest sync below it (`previous`, slot 0 until now). */
  private settleFollowers(n: OffsetSync, previous: OffsetSync): void {
    const pk = this.kept.get(n.topic)?.get(n.partition);
    if (pk === undefined || n.upstreamOffset < previous.upstreamOffset) return;
    pk.groups.settleBelow(n.upstreamOffset, previous);
  }

  /** A new store replacing `previous` (released: see {@link release}). */
  static after(previous: OffsetSyncStore | null, options: OffsetSyncStoreOptions): OffsetSyncStore {
    previous?.release();
    return new OffsetSyncStore(options);
  }

  /**
   * Forgets what is kept for every group (their numbers released: the interner may be shared with
   * the flow's other tables): for a store that is replaced or no longer used.
   */
  release(): void {
    for (const byPartition of this.kept.values()) for (const pk of byPartition.values()) pk.groups.clear();
    this.kept.clear();
  }

  /** Precise mode: forgets the kept syncs of every group not in `groups`. */
  retainGroups(groups: { has(group: string): boolean }): void {
    for (const byPartition of this.kept.values()) {
      for (const pk of byPartition.values()) {
        let removed = false;
        for (const g of [...pk.groups.groups()]) {
          if (!groups.has(g)) {
            pk.groups.delete(g);
            removed = true;
          }
        }
        if (removed) this.pruneRetained(pk);
      }
    }
  }

  /** Precise mode: how many group partitions have a kept sync (the memory beside the 64 slots grows with this). */
  get trackedGroupPartitions(): number {
    let n = 0;
    for (const byPartition of this.kept.values()) for (const pk of byPartition.values()) n += pk.groups.size;
    return n;
  }

  /** Precise mode: how many group names the kept rows hold interned (at most the groups tracked on some partition). */
  get groupNamesHeld(): number {
    return this.groupNames.size;
  }

  /** Precise mode: how many syncs are retained for the tracked groups, all partitions together (at most the cap per partition). */
  get retainedSyncs(): number {
    let n = 0;
    for (const byPartition of this.kept.values()) for (const pk of byPartition.values()) n += pk.retained.length - pk.head;
    return n;
  }

  /**
   * Precise mode: the syncs retained on a partition for its tracked groups, and `spacing`: 1 while
   * every sync above the lowest tracked position is retained; once they were more than the cap,
   * the power of two such that at most one sync per range of `spacing` upstream offsets is retained
   * (besides the first). A moving group then translates from a sync up to about `spacing` offsets
   * (plus the gap between two syncs) below its position. Undefined when no group is tracked there.
   */
  retention(topic: string, partition: number): { syncs: number; spacing: bigint } | undefined {
    const pk = this.kept.get(topic)?.get(partition);
    if (pk === undefined || pk.groups.size === 0) return undefined;
    return { syncs: pk.retained.length - pk.head, spacing: pk.spacing };
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
   * or below it that the store would translate from (in precise mode the newest of the slots' answer,
   * the retained syncs', the load history's and, with `group`, the sync kept for the group), and
   * `above`, the oldest sync above it that the store holds (the slots, and in precise mode the
   * retained syncs and the load history while it is held). Either is undefined when the store has
   * none (not loaded yet: both).
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
      const pk = this.kept.get(topic)?.get(partition);
      if (group !== undefined) {
        consider(pk?.groups.keptSync(group, s[0]));
      }
      if (pk !== undefined && pk.head < pk.retained.length) {
        // the retained syncs are in upstream order too
        const r = newestAtOrBelow(pk.retained, offset, pk.head);
        if (r < 0) consider(pk.retained[pk.head]);
        else {
          consider(pk.retained[r]);
          consider(pk.retained[r + 1]);
        }
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
