import { internName, partitionKey } from './partition-key';
import { PositionIndex } from './position-index';
import type { CommittedOffset } from './types';

/**
 * The source groups' committed offsets as the checkpoint emitter keeps them, and the merge of a
 * full read (OffsetFetch) with what the stream of `__consumer_offsets` changed meanwhile:
 *
 * - per group, per partition (`partitionKey`), the committed offset and its metadata; a partition
 *   listed without a committed offset (null) stays (MM2's discovery counts its topic);
 * - per source partition, the groups by their committed offset (the groups a new offset sync
 *   there concerns, found in proportion to how many there are);
 * - the groups and partitions changed by the stream since they were last taken (`takeChanged`);
 * - **the merge**: what the stream changes while a full read is under way is newer than (or the
 *   same as) what the read answers, so it stands: the read sets only the partitions the stream
 *   did not touch meanwhile, and a group the stream deleted meanwhile is not brought back.
 *   Several reads may be under way at once; each keeps what changed since it was sent.
 *
 * Plain state, no I/O.
 */

/** Source partitions of one group (`partitionKey` keys) whose offsets changed; 'all': the whole group (deleted, or read again). */
export type GroupPartitions = Set<string> | 'all';

/** One change of a group's committed offset seen on `__consumer_offsets`. */
export interface SourceOffsetChange {
  group: string;
  topic: string;
  partition: number;
  /** null: the offset was deleted (OffsetDelete, group deletion) or expired. */
  offset: bigint | null;
}

/** A full read under way (from `beginRead`): what the stream changed since it was sent. */
export interface FullRead {
  readonly during: ReadonlyMap<string, GroupPartitions>;
}

/** A group with more partitions than this finds one through a map (fewer: a scan of its list). */
const SCAN_AT_MOST = 24;

/**
 * One group's committed offsets (issue 24 step g, compact state): one list in first-seen order of
 * the partitions, handed out frozen by `offsetsOf` and copied on the next change after that (no
 * map and no second array per group); a group with many partitions also has a map of their places.
 */
class GroupRow {
  shared = false;
  index: Map<string, number> | null = null;

  constructor(public list: CommittedOffset[]) {
    if (list.length > SCAN_AT_MOST) this.reindex();
  }

  get size(): number {
    return this.list.length;
  }

  indexOf(topic: string, partition: number): number {
    if (this.index !== null) return this.index.get(partitionKey(topic, partition)) ?? -1;
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const o = list[i];
      if (o.partition === partition && o.topic === topic) return i;
    }
    return -1;
  }

  /** The offset of the partition of key `k` (`partitionKey`). */
  byKey(k: string): CommittedOffset | undefined {
    if (this.index !== null) {
      const i = this.index.get(k);
      return i === undefined ? undefined : this.list[i];
    }
    for (const o of this.list) if (partitionKey(o.topic, o.partition) === k) return o;
    return undefined;
  }

  get(topic: string, partition: number): CommittedOffset | undefined {
    const i = this.indexOf(topic, partition);
    return i < 0 ? undefined : this.list[i];
  }

  /** Sets (`o`) or deletes (undefined) the offset of a partition; the list handed out stays as it was. */
  set(topic: string, partition: number, o: CommittedOffset | undefined): void {
    if (this.shared) {
      this.list = this.list.slice();
      this.shared = false;
    }
    const i = this.indexOf(topic, partition);
    if (o !== undefined) {
      if (i >= 0) this.list[i] = o;
      else {
        this.list.push(o);
        if (this.index !== null) this.index.set(partitionKey(topic, partition), this.list.length - 1);
        else if (this.list.length > SCAN_AT_MOST) this.reindex();
      }
    } else if (i >= 0) {
      this.list.splice(i, 1);
      if (this.index !== null) this.reindex();
    }
  }

  /** The list, frozen: the same array until the next change. */
  frozen(): readonly CommittedOffset[] {
    if (!this.shared) {
      Object.freeze(this.list);
      this.shared = true;
    }
    return this.list;
  }

  private reindex(): void {
    this.index = this.list.length > SCAN_AT_MOST ? new Map(this.list.map((o, j) => [partitionKey(o.topic, o.partition), j])) : null;
  }
}

export class SourceOffsetTable {
  private readonly byGroup = new Map<string, GroupRow>();
  /** (topic, partition) -> the groups with a commit there, by their committed offset. */
  private readonly byPartition = new Map<string, PositionIndex<string>>();
  /** Changed by the stream and not taken yet. */
  private pending = new Map<string, GroupPartitions>();
  /** Groups whose offsets changed (by the stream or a full read) since the last takeChangedGroups: the reconcile lane's dirty groups. */
  private changedGroups = new Set<string>();
  /** Per full read under way: what the stream changed since it was sent. */
  private readonly reads = new Set<Map<string, GroupPartitions>>();

  /** Groups held. */
  get groups(): number {
    return this.byGroup.size;
  }

  /**
   * Applies what the stream saw, in its order: the groups deleted first, then the changes (a
   * change listed with a deleted group came after the deletion: the group was created again).
   * `accept` says which groups are kept (the others are ignored). A deleted group not held is no change.
   */
  applyStream(deletedGroups: Iterable<string>, changes: Iterable<SourceOffsetChange>, accept: (group: string) => boolean): void {
    for (const g of deletedGroups) {
      if (!accept(g)) continue;
      if (this.byGroup.has(g)) {
        this.dropGroup(g);
        this.mark(g, 'all');
      }
    }
    for (const c of changes) {
      if (!accept(c.group)) continue;
      let m = this.byGroup.get(c.group);
      if (!m) {
        m = new GroupRow([]);
        this.byGroup.set(c.group, m);
      }
      const k = partitionKey(c.topic, c.partition);
      this.changedGroups.add(c.group);
      const prev = m.get(c.topic, c.partition);
      m.set(c.topic, c.partition, c.offset === null ? undefined : { topic: internName(c.topic), partition: c.partition, offset: c.offset, metadata: prev?.metadata ?? '' });
      this.index(k, c.group, prev?.offset ?? null, c.offset);
      this.mark(c.group, k);
    }
  }

  /** The groups (and partitions) the stream changed since the last call; null when none. */
  takeChanged(): Map<string, GroupPartitions> | null {
    if (this.pending.size === 0) return null;
    const changed = this.pending;
    this.pending = new Map();
    return changed;
  }

  /** The groups whose offsets changed since the last call (a group deleted or read anew included). */
  takeChangedGroups(): Set<string> {
    const changed = this.changedGroups;
    this.changedGroups = new Set();
    return changed;
  }

  /** A full read is sent now: what the stream changes from now on stands against its answer. */
  beginRead(): FullRead {
    const during = new Map<string, GroupPartitions>();
    this.reads.add(during);
    return { during };
  }

  /**
   * The answer of a full read (group -> its committed offsets; a group absent keeps what is
   * kept), merged with what the stream changed since `beginRead`; `answer` undefined: the read
   * failed (nothing changes).
   */
  endRead(read: FullRead, answer?: ReadonlyMap<string, readonly CommittedOffset[]>): void {
    const during = read.during as Map<string, GroupPartitions>;
    this.reads.delete(during);
    if (answer === undefined) return;
    for (const [group, list] of answer) {
      const streamed = during.get(group);
      if (streamed === 'all') continue; // deleted (and maybe committed again) meanwhile: the stream's state stands
      this.replaceGroup(group, list, streamed);
    }
  }

  /**
   * The committed offsets kept for a group (undefined: never read); only those of `parts` when
   * given. The whole list is the same array until one of the group's offsets changes.
   */
  offsetsOf(group: string, parts: GroupPartitions = 'all'): readonly CommittedOffset[] | undefined {
    const m = this.byGroup.get(group);
    if (!m) return undefined;
    if (parts === 'all') return m.frozen();
    const out: CommittedOffset[] = [];
    for (const k of parts) {
      const o = m.byKey(k);
      if (o) out.push(o);
    }
    return out;
  }

  /** The groups whose committed offset on a source partition is at or above `offset`, lowest first. */
  groupsAtOrAbove(topic: string, partition: number, offset: bigint): string[] {
    return this.byPartition.get(partitionKey(topic, partition))?.atOrAbove(offset) ?? [];
  }

  /** Forgets the groups not in `groups`. */
  retain(groups: { has(group: string): boolean }): void {
    for (const g of [...this.byGroup.keys()]) if (!groups.has(g)) this.dropGroup(g);
  }

  // -------------------------------------------------------------------------------------------

  private mark(group: string, k: string | 'all'): void {
    markIn(this.pending, group, k);
    for (const during of this.reads) markIn(during, group, k);
  }

  /** A full read's answer for a group; the partitions in `keep` (changed by the stream meanwhile) keep what the stream gave. */
  private replaceGroup(group: string, list: readonly CommittedOffset[], keep?: ReadonlySet<string>): void {
    const kept = this.byGroup.get(group);
    if (keep !== undefined && kept !== undefined) {
      const merged = list.filter((o) => !keep.has(partitionKey(o.topic, o.partition)));
      for (const k of keep) {
        const o = kept.byKey(k);
        if (o !== undefined) merged.push(o);
      }
      list = merged;
    }
    if (sameOffsets(kept, list)) return; // unchanged: the same array stays
    this.dropGroup(group);
    // one entry per partition, the last one listed winning (as a map keyed by partition did), in first-listed order
    const seen = new Map<string, number>();
    const rows: CommittedOffset[] = [];
    for (const o of list) {
      // a partition listed without a committed offset (-1) stays: MM2's discovery counts its topic
      const k = partitionKey(o.topic, o.partition);
      const at = seen.get(k);
      // one instance of each topic name (what a read decodes is a new string per group, or per partition):
      // whatever keeps a row's topic (the coverage rows, the checkpoints) shares it
      const row: CommittedOffset = { topic: internName(o.topic), partition: o.partition, offset: o.offset, metadata: o.metadata };
      if (at === undefined) {
        seen.set(k, rows.length);
        rows.push(row);
      } else rows[at] = row;
    }
    for (const o of rows) this.index(partitionKey(o.topic, o.partition), group, null, o.offset);
    this.byGroup.set(group, new GroupRow(rows));
  }

  /** The group's committed offset on partition `k` moved from `from` to `to` (null: none). */
  private index(k: string, group: string, from: bigint | null, to: bigint | null): void {
    if (from === null && to === null) return;
    let s = this.byPartition.get(k);
    if (!s) {
      s = new PositionIndex<string>();
      this.byPartition.set(k, s);
    }
    s.move(group, from, to);
    if (s.size === 0) this.byPartition.delete(k);
  }

  private dropGroup(group: string): void {
    const m = this.byGroup.get(group);
    if (!m) return;
    for (const o of m.list) this.index(partitionKey(o.topic, o.partition), group, o.offset, null);
    this.byGroup.delete(group);
    this.changedGroups.add(group);
  }
}

function markIn(marks: Map<string, GroupPartitions>, group: string, k: string | 'all'): void {
  const have = marks.get(group);
  if (k === 'all') marks.set(group, 'all');
  else if (have === undefined) marks.set(group, new Set([k]));
  else if (have !== 'all') have.add(k);
}

/** Whether a fresh read holds exactly what is kept (same partitions, offsets and metadata). */
function sameOffsets(kept: GroupRow | undefined, list: readonly CommittedOffset[]): boolean {
  if (kept === undefined || kept.size !== list.length) return false;
  for (const o of list) {
    const k = kept.get(o.topic, o.partition);
    if (k === undefined || k.offset !== o.offset || (k.metadata ?? '') !== (o.metadata ?? '')) return false;
  }
  return true;
}
