import { partitionKey } from './partition-key';
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

export class SourceOffsetTable {
  private readonly byGroup = new Map<string, Map<string, CommittedOffset>>();
  /** group -> its offsets as one array (offsetsOf), dropped when one of them changes. */
  private readonly lists = new Map<string, readonly CommittedOffset[]>();
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
        m = new Map();
        this.byGroup.set(c.group, m);
      }
      const k = partitionKey(c.topic, c.partition);
      this.lists.delete(c.group);
      this.changedGroups.add(c.group);
      const prev = m.get(k);
      if (c.offset === null) m.delete(k);
      else m.set(k, { topic: c.topic, partition: c.partition, offset: c.offset, metadata: prev?.metadata ?? '' });
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
    if (parts === 'all') {
      let list = this.lists.get(group);
      if (list === undefined) {
        list = Object.freeze([...m.values()]) as CommittedOffset[];
        this.lists.set(group, list);
      }
      return list;
    }
    const out: CommittedOffset[] = [];
    for (const k of parts) {
      const o = m.get(k);
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
        const o = kept.get(k);
        if (o !== undefined) merged.push(o);
      }
      list = merged;
    }
    if (sameOffsets(kept, list)) return; // unchanged: the same array stays
    this.dropGroup(group);
    const m = new Map<string, CommittedOffset>();
    for (const o of list) {
      // a partition listed without a committed offset (-1) stays: MM2's discovery counts its topic
      const k = partitionKey(o.topic, o.partition);
      m.set(k, o);
      this.index(k, group, null, o.offset);
    }
    this.byGroup.set(group, m);
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
    for (const [k, o] of m) this.index(k, group, o.offset, null);
    this.byGroup.delete(group);
    this.lists.delete(group);
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
function sameOffsets(kept: ReadonlyMap<string, CommittedOffset> | undefined, list: readonly CommittedOffset[]): boolean {
  if (kept === undefined || kept.size !== list.length) return false;
  for (const o of list) {
    const k = kept.get(partitionKey(o.topic, o.partition));
    if (k === undefined || k.offset !== o.offset || (k.metadata ?? '') !== (o.metadata ?? '')) return false;
  }
  return true;
}
