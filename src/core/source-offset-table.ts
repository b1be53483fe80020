import { internName, partitionKey } from './partition-key';
import { NumberPositionIndex } from './position-index';
import type { GroupNames } from './group-names';
import { PartitionNumbers, SliceTable } from './slice-table';
import type { CommittedOffset } from './types';
import type { OffsetRows } from './translation-cache';

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

/** Versions of every table (one clock: a group's version never repeats, also across tables). */
let versionClock = 0;

/**
 * The columns of the rows: the partition (a number for the topic and partition; 16-bit, widened to
 * Int32 past 65,536 partitions), the offset as its distance from the partition's first offset kept
 * (Int32; NONE: listed without one, ESCAPED: the exact offset is in `far`). 6 bytes a row where an
 * int64 column and a flag took 13.
 */
const PAIR = 0;
const REL = 1;
const ESCAPED = -2147483648;
const NONE = -2147483647;
const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** Whether `v` is `d` from `base` (valueAt's `base + BigInt(d)`), as doubles when both are exact as doubles: no bigint made. */
function sameDistance(base: bigint, d: number, v: bigint): boolean {
  if (v >= SAFE_MIN && v <= SAFE_MAX && base >= SAFE_MIN && base <= SAFE_MAX) return Number(v) - Number(base) === d;
  return v === base + BigInt(d);
}

/**
 * The committed offsets (issue 24 step g, compact state): a row per group partition in typed
 * arrays (the topic interned as a number, the offset exact: an Int32 distance from the first offset
 * of its partition, the rare one that does not fit escaped to a side table), each group a slice
 * in first-seen order of its partitions, the metadata beside the slice only when one is not empty,
 * and a version per group (a new number whenever one of its offsets changes) for the readers'
 * "did it change". Objects (`CommittedOffset`) are made only when a reader asks (`offsetsOf`).
 */
export class SourceOffsetTable {
  private readonly rows: SliceTable;
  private readonly pairs = new PartitionNumbers();
  /** Per partition number: the offsets' origin (the first one kept there). */
  private readonly bases: bigint[] = [];
  /** The offsets that do not fit the Int32 column (more than 2^31 - 1 from their partition's origin), by `${group number}:${partition number}`: rare. */
  private far = new Map<string, bigint>();
  /** Per group number: its version. */
  private versions: number[] = [];
  /** (topic, partition) -> the groups (numbers) with a commit there, by their committed offset. */
  private readonly byPartition = new Map<string, NumberPositionIndex>();
  /** Changed by the stream and not taken yet. */
  private pending = new Map<string, GroupPartitions>();
  /** Groups whose offsets changed (by the stream or a full read) since the last takeChangedGroups: the reconcile lane's dirty groups. */
  private changedGroups = new Set<string>();
  /** Per full read under way: what the stream changed since it was sent. */
  private readonly reads = new Set<Map<string, GroupPartitions>>();
  /** What rowsOf gives, pointed at the group asked last. */
  private readonly cursor: GroupRows;

  /** Bumped whenever a group or one of its partitions is added or removed (what group discovery reads of the offsets: which topics each group committed on). */
  private shapeCount = 0;

  /** A number that changes whenever a group or one of its partitions comes or goes (not when an offset moves). */
  get shape(): number {
    return this.shapeCount;
  }

  /** `names`: the groups' numbers, shared with the flow's other tables (the replication runtime's); default: the table's own. */
  constructor(names?: GroupNames) {
    this.rows = new SliceTable([(n) => new Uint16Array(n), (n) => new Int32Array(n)], names);
    this.cursor = new GroupRows(this.rows, this.pairs, (g, at) => this.valueAt(g, at));
  }

  /** Groups held. */
  get groups(): number {
    return this.rows.size;
  }

  /**
   * Applies what the stream saw, in its order: the groups deleted first, then the changes (a
   * change listed with a deleted group came after the deletion: the group was created again).
   * `accept` says which groups are kept (the others are ignored). A deleted group not held is no change.
   */
  applyStream(deletedGroups: Iterable<string>, changes: Iterable<SourceOffsetChange>, accept: (group: string) => boolean): void {
    for (const g of deletedGroups) {
      if (!accept(g)) continue;
      if (this.rows.find(g) !== undefined) {
        this.dropGroup(g);
        this.mark(g, 'all');
      }
    }
    for (const c of changes) {
      if (!accept(c.group)) continue;
      const g = this.groupNo(c.group);
      const k = partitionKey(c.topic, c.partition);
      this.changedGroups.add(c.group);
      const t = this.pairs.of(internName(c.topic), c.partition);
      const i = this.place(g, t);
      const base = this.rows.base(g);
      const prev = i < 0 ? null : this.valueAt(g, base + i);
      if (c.offset === null) {
        if (i >= 0) {
          if (this.far.size > 0) this.far.delete(`${g}:${t}`);
          this.rows.remove(g, i);
          this.shapeCount++;
        }
      } else {
        if (i < 0) this.shapeCount++;
        // a new partition keeps no metadata; a known one keeps its metadata
        const at = i >= 0 ? base + i : this.rows.insert(g, this.rows.rows(g));
        this.write(g, at, t, c.offset);
      }
      this.versions[g] = ++versionClock;
      this.index(k, g, prev, c.offset !== null && BigInt.asIntN(64, c.offset) === c.offset ? c.offset : null);
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
    // forEach: no [group, list] pair made per group (a full read answers 10,000 groups a minute)
    answer.forEach((list, group) => {
      const streamed = during.get(group);
      if (streamed === 'all') return; // deleted (and maybe committed again) meanwhile: the stream's state stands
      this.replaceGroup(group, list, streamed);
    });
  }

  /**
   * The committed offsets kept for a group (undefined: never read), made now (a new array each
   * call: {@link versionOf} says whether they changed); only those of `parts` when given.
   */
  offsetsOf(group: string, parts: GroupPartitions = 'all'): CommittedOffset[] | undefined {
    const g = this.rows.find(group);
    if (g === undefined) return undefined;
    const out: CommittedOffset[] = [];
    if (parts === 'all') {
      for (let i = 0, n = this.rows.rows(g); i < n; i++) out.push(this.rowAt(g, i));
      return out;
    }
    // in the order asked
    for (const k of parts) {
      const colon = k.indexOf(':');
      const t = this.pairs.find(k.slice(colon + 1), Number(k.slice(0, colon)));
      const i = t < 0 ? -1 : this.place(g, t);
      if (i >= 0) out.push(this.rowAt(g, i));
    }
    return out;
  }

  /**
   * The group's committed offsets read in place, in `offsetsOf(group)`'s order (undefined: never
   * read): no object a partition. One reader a table, pointed at the group: valid until the next
   * call or the next change of the table.
   */
  rowsOf(group: string): OffsetRows | undefined {
    const g = this.rows.find(group);
    return g === undefined ? undefined : this.cursor.at(g);
  }

  /** A number that changes whenever one of the group's offsets (or their metadata) changes; undefined: the group is not held. */
  versionOf(group: string): number | undefined {
    const g = this.rows.find(group);
    return g === undefined ? undefined : this.versions[g];
  }

  /** Whether the group is held (read, or streamed). */
  has(group: string): boolean {
    return this.rows.find(group) !== undefined;
  }

  /** The distinct topics of a group's offsets, in first-seen order (empty when not held). */
  topicsOf(group: string): string[] {
    const g = this.rows.find(group);
    if (g === undefined) return [];
    const seen: string[] = [];
    const col = this.rows.cols[PAIR] as Uint16Array | Int32Array;
    for (let i = this.rows.base(g), e = i + this.rows.rows(g); i < e; i++) {
      const t = this.pairs.topic(col[i]);
      if (!seen.includes(t)) seen.push(t);
    }
    return seen;
  }

  /** The groups whose committed offset on a source partition is at or above `offset`, lowest first. */
  groupsAtOrAbove(topic: string, partition: number, offset: bigint): string[] {
    const s = this.byPartition.get(partitionKey(topic, partition));
    return s === undefined ? [] : s.atOrAbove(offset).map((g) => this.rows.nameOf(g));
  }

  /** Forgets every group (their numbers released: the interner may be shared with the flow's other tables). */
  release(): void {
    this.rows.clear();
    this.byPartition.clear();
    this.versions = [];
    this.far = new Map();
  }

  /** Forgets the groups not in `groups`. */
  retain(groups: { has(group: string): boolean }): void {
    // the usual refresh drops nothing: looked for first, without a copy of the groups
    let any = false;
    for (const g of this.rows.groupNames()) {
      if (groups.has(g)) continue;
      any = true;
      break;
    }
    if (any) for (const [g] of [...this.rows.entries()]) if (!groups.has(g)) this.dropGroup(g);
  }

  // -------------------------------------------------------------------------------------------

  private groupNo(group: string): number {
    const had = this.rows.size;
    const g = this.rows.groupOf(group);
    if (this.rows.size !== had) {
      this.versions[g] = ++versionClock;
      this.shapeCount++;
    }
    return g;
  }

  /** The row `i` of group `g` as an object. */
  private rowAt(g: number, i: number): CommittedOffset {
    const at = this.rows.base(g) + i;
    const c = this.rows.cols;
    const side = this.rows.sideOf(g);
    return {
      topic: this.pairs.topic(c[PAIR][at] as number),
      partition: this.pairs.partition(c[PAIR][at] as number),
      offset: this.valueAt(g, at),
      metadata: side === null ? '' : ((side[i] as string | undefined) ?? ''),
    };
  }

  /** The place of partition number `p` in group `g`'s slice, or -1. */
  private place(g: number, p: number): number {
    const base = this.rows.base(g);
    const n = this.rows.rows(g);
    const pairs = this.rows.cols[PAIR];
    for (let i = 0; i < n; i++) if (pairs[base + i] === p) return i;
    return -1;
  }

  /** The committed offset of the row at `at` (of group `g`), null when listed without one. */
  private valueAt(g: number, at: number): bigint | null {
    const c = this.rows.cols;
    const d = c[REL][at] as number;
    if (d === NONE) return null;
    const p = c[PAIR][at] as number;
    if (d === ESCAPED) return this.far.get(`${g}:${p}`) as bigint;
    return d === 0 ? this.bases[p] : this.bases[p] + BigInt(d);
  }

  /** Writes row `at` of group `g`: partition number `p`, its offset (null, or outside the signed 64-bit range: none). */
  private write(g: number, at: number, p: number, offset: bigint | null): void {
    const c = this.rows.cols;
    if (p > 0xffff && c[PAIR] instanceof Uint16Array) this.rows.widen(PAIR, (n) => new Int32Array(n)); // past 65,536 partitions
    c[PAIR][at] = p;
    if (offset === null || BigInt.asIntN(64, offset) !== offset) {
      c[REL][at] = NONE;
      if (this.far.size > 0) this.far.delete(`${g}:${p}`);
      return;
    }
    let base = this.bases[p];
    if (base === undefined) this.bases[p] = base = offset;
    const d = offset - base;
    if (d >= -INT32_MAX + 1 && d <= INT32_MAX) {
      c[REL][at] = Number(d);
      if (this.far.size > 0) this.far.delete(`${g}:${p}`);
    } else {
      c[REL][at] = ESCAPED;
      this.far.set(`${g}:${p}`, offset);
    }
  }

  private mark(group: string, k: string | 'all'): void {
    markIn(this.pending, group, k);
    for (const during of this.reads) markIn(during, group, k);
  }

  /** A full read's answer for a group; the partitions in `keep` (changed by the stream meanwhile) keep what the stream gave. */
  private replaceGroup(group: string, list: readonly CommittedOffset[], keep?: ReadonlySet<string>): void {
    const had = this.rows.find(group);
    if (keep !== undefined && had !== undefined) {
      const merged = list.filter((o) => !keep.has(partitionKey(o.topic, o.partition)));
      const n = this.rows.rows(had);
      for (let i = 0; i < n; i++) {
        const o = this.rowAt(had, i);
        if (keep.has(partitionKey(o.topic, o.partition))) merged.push(o);
      }
      list = merged;
    }
    if (had !== undefined && this.sameOffsets(had, list)) return; // unchanged: the same version stays
    this.dropGroup(group);
    const g = this.groupNo(group);
    // one row per partition, the last one listed winning (as a map keyed by partition did), in first-listed order
    for (const o of list) {
      // a partition listed without a committed offset (-1) stays: MM2's discovery counts its topic
      const t = this.pairs.of(internName(o.topic), o.partition);
      const i = this.place(g, t);
      const place = i >= 0 ? i : this.rows.rows(g);
      if (i < 0) this.rows.insert(g, place);
      this.write(g, this.rows.base(g) + place, t, o.offset);
      const metadata = o.metadata ?? '';
      if (metadata !== '') this.rows.ensureSide(g, '')[place] = metadata;
      else this.rows.sideOf(g)?.splice(place, 1, '');
    }
    const c = this.rows.cols;
    const base = this.rows.base(g);
    for (let i = 0, n = this.rows.rows(g); i < n; i++) {
      const v = this.valueAt(g, base + i);
      if (v !== null) this.index(this.keyOf(c[PAIR][base + i] as number), g, null, v);
    }
  }

  /** Whether a fresh read holds exactly what is kept for group `g` (same partitions, offsets and metadata); no bigint made (a full read compares 100,000 offsets a minute at 10,000 x 10). */
  private sameOffsets(g: number, list: readonly CommittedOffset[]): boolean {
    if (this.rows.rows(g) !== list.length) return false;
    const base = this.rows.base(g);
    const side = this.rows.sideOf(g);
    const rel = this.rows.cols[REL];
    for (let k = 0; k < list.length; k++) {
      const o = list[k];
      const t = this.pairs.find(o.topic, o.partition);
      if (t < 0) return false;
      const i = this.place(g, t);
      if (i < 0) return false;
      const v = o.offset;
      const d = rel[base + i] as number;
      // what write keeps: none for null and for an offset outside the signed 64-bit range
      if (v === null || v === undefined || v < INT64_MIN || v > INT64_MAX) {
        if (d !== NONE) return false;
      } else if (d === NONE || (d === ESCAPED ? this.far.get(`${g}:${t}`) !== v : !sameDistance(this.bases[t], d, v))) return false;
      if ((side === null ? '' : side[i]) !== (o.metadata ?? '')) return false;
    }
    return true;
  }

  private keyOf(p: number): string {
    return partitionKey(this.pairs.topic(p), this.pairs.partition(p));
  }

  /** Group `g`'s committed offset on partition `k` moved from `from` to `to` (null: none). */
  private index(k: string, g: number, from: bigint | null, to: bigint | null): void {
    if (from === null && to === null) return;
    let s = this.byPartition.get(k);
    if (!s) {
      // the index keeps the groups only: their offsets are read from the rows (pair number `p`)
      const p = this.pairs.find(k.slice(k.indexOf(':') + 1), Number(k.slice(0, k.indexOf(':'))));
      s = new NumberPositionIndex((key) => this.offsetAt(key, p));
      this.byPartition.set(k, s);
    }
    s.move(g, from, to);
    if (s.size === 0) this.byPartition.delete(k);
  }

  /** The committed offset of group `g` on partition number `p` (set: it is in that partition's index). */
  private offsetAt(g: number, p: number): bigint {
    return this.valueAt(g, this.rows.base(g) + this.place(g, p)) as bigint;
  }

  private dropGroup(group: string): void {
    const g = this.rows.find(group);
    if (g === undefined) return;
    const c = this.rows.cols;
    const base = this.rows.base(g);
    for (let i = 0, n = this.rows.rows(g); i < n; i++) {
      const p = c[PAIR][base + i] as number;
      const v = this.valueAt(g, base + i);
      if (v !== null) this.index(this.keyOf(p), g, v, null);
      if (this.far.size > 0) this.far.delete(`${g}:${p}`);
    }
    this.rows.delete(group);
    this.shapeCount++;
    this.changedGroups.add(group);
  }
}

/** A group's rows read in place (SourceOffsetTable.rowsOf). */
class GroupRows implements OffsetRows {
  length = 0;
  private g = 0;
  private base = 0;
  constructor(
    private readonly rows: SliceTable,
    private readonly pairs: PartitionNumbers,
    private readonly value: (g: number, at: number) => bigint | null,
  ) {}

  at(g: number): this {
    this.g = g;
    this.base = this.rows.base(g);
    this.length = this.rows.rows(g);
    return this;
  }

  topic(i: number): string {
    return this.pairs.topic(this.rows.cols[PAIR][this.base + i] as number);
  }

  partition(i: number): number {
    return this.pairs.partition(this.rows.cols[PAIR][this.base + i] as number);
  }

  offset(i: number): bigint | null {
    return this.value(this.g, this.base + i);
  }
}

function markIn(marks: Map<string, GroupPartitions>, group: string, k: string | 'all'): void {
  const have = marks.get(group);
  if (k === 'all') marks.set(group, 'all');
  else if (have === undefined) marks.set(group, new Set([k]));
  else if (have !== 'all') have.add(k);
}
