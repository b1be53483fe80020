/**
 * Offsets per group and topic partition, compact (issue 24 step g): one table for every group
 * instead of a map per group. Each group owns a slice of two shared typed arrays, its rows sorted
 * by key: the key (the number of the topic partition, interned: 2 bytes, a Uint16Array widened to
 * Int32 once there are more than 65,536 topic partitions) and the offset as its distance from the
 * first offset set on that topic partition (Int32; ESCAPED: the exact offset is in a side map, for
 * the rare one more than 2^31 - 1 away: exact always). A lookup is a binary search in the group's
 * slice. The groups are numbered by an interner (core/group-names, which may be shared with other
 * per-group tables): where a group's slice starts, its rows and its room are typed arrays by group
 * number. About 6 bytes per group partition plus a few per group, where a map of bigints per group
 * took about 70 (12 with an int64 column).
 *
 * A group may be held with no row (what a read that found nothing committed leaves): `has` says so.
 * A slice is as large as the rows given at once (`replace`, `setMany`) and grows by half when set
 * one by one, at the end of the table; what a moved or deleted slice leaves behind is reclaimed by
 * a compaction when it is more than half of the table. Plain state, no I/O.
 */
import { GroupNames } from './group-names';

const INITIAL_ROWS = 64;
/** An offset too far from its topic partition's origin for the Int32 column: the exact one is in `far`. */
const ESCAPED = -2147483648;
const INT32_MAX = 2147483647;

function checkedInt64(offset: bigint): bigint {
  if (BigInt.asIntN(64, offset) !== offset) throw new RangeError(`offset ${offset} is outside the signed 64-bit range`);
  return offset;
}

function checkedPartition(partition: number): number {
  if (!Number.isInteger(partition) || partition < 0 || partition >= 4294967296) throw new RangeError(`partition ${partition} is not a partition number`);
  return partition;
}

/** A larger Int32Array holding `a`, the new places set to `fill`. */
function grown(a: Int32Array, n: number, fill: number): Int32Array {
  const b = new Int32Array(n);
  if (fill !== 0) b.fill(fill, a.length);
  b.set(a);
  return b;
}

export class GroupOffsetRows {
  /** Per group number: where its slice starts, how many rows it holds (-1: not held), how many it may hold. */
  private start: Int32Array = new Int32Array(0);
  private len: Int32Array = new Int32Array(0).fill(-1);
  private cap: Int32Array = new Int32Array(0);
  private held = 0;
  /** Per row: the key (the topic partition's number; 16-bit until a key needs more) and the offset's distance from its key's origin. */
  private keys: Uint16Array | Int32Array = new Uint16Array(0);
  private offsets = new Int32Array(0);
  /** Per key: the offsets' origin (the first offset set there). */
  private readonly bases: bigint[] = [];
  /** The offsets that do not fit the Int32 column, by `${group number}:${key}`: rare. */
  private far = new Map<string, bigint>();
  /** Rows in use at the end of the table (slices included), and the rows of it no slice owns. */
  private end = 0;
  private waste = 0;
  /** Interned topic partitions: topic -> its number; per topic number, partition -> key; per key, its topic number and partition. */
  private readonly topicNo = new Map<string, number>();
  private readonly keyOf: number[][] = [];
  private readonly keyTopic: number[] = [];
  private readonly keyPartition: number[] = [];

  /** `names`: the interner numbering the groups (one of its own by default). */
  constructor(private readonly names: GroupNames = new GroupNames()) {}

  /** Groups held. */
  get size(): number {
    return this.held;
  }

  has(group: string): boolean {
    return this.numberOf(group) >= 0;
  }

  /** The offset of a group partition (undefined: the group or the partition is not held). */
  get(group: string, topic: string, partition: number): bigint | undefined {
    const g = this.numberOf(group);
    if (g < 0) return undefined;
    const t = this.topicNo.get(topic);
    if (t === undefined) return undefined;
    const key = this.keyOf[t][partition];
    if (key === undefined) return undefined;
    const i = this.find(g, key);
    return i < 0 ? undefined : this.offsetAt(g, this.start[g] + i);
  }

  /** How many partitions are held for `group` (-1: the group is not held). */
  rowsOf(group: string): number {
    const g = this.numberOf(group);
    return g < 0 ? -1 : this.len[g];
  }

  /** Holds `group`, with no row when it is new (what a read that found nothing committed leaves). */
  ensure(group: string): void {
    this.groupOf(group);
  }

  /** Sets the offset of a group partition (the group held from now on). */
  set(group: string, topic: string, partition: number, offset: bigint): void {
    checkedInt64(offset);
    checkedPartition(partition);
    this.put(this.groupOf(group), this.keyFor(topic, partition), offset);
  }

  /** Sets the offsets of `rows` for `group` (held from now on), its slice made room for them at once. */
  setMany(group: string, rows: readonly { topic: string; partition: number; offset: bigint }[]): void {
    for (const r of rows) {
      checkedInt64(r.offset);
      checkedPartition(r.partition);
    }
    const g = this.groupOf(group);
    if (this.len[g] + rows.length > this.cap[g]) this.grow(g, this.len[g] + rows.length);
    for (const r of rows) this.put(g, this.keyFor(r.topic, r.partition), r.offset);
  }

  /** Replaces what is held of `group` by `rows` (the group held from now on, also when `rows` is empty). */
  replace(group: string, rows: Iterable<{ topic: string; partition: number; offset: bigint }>): void {
    const list = Array.isArray(rows) ? (rows as readonly { topic: string; partition: number; offset: bigint }[]) : [...rows];
    const g = this.groupOf(group);
    this.dropFar(g);
    this.len[g] = 0;
    this.setMany(group, list);
  }

  /** Forgets `group`. */
  delete(group: string): boolean {
    const g = this.numberOf(group);
    if (g < 0) return false;
    this.dropFar(g);
    this.waste += this.cap[g];
    this.start[g] = 0;
    this.len[g] = -1;
    this.cap[g] = 0;
    this.held--;
    this.names.release(g);
    this.maybeCompact();
    return true;
  }

  /** Forgets every group (the interned topic partitions stay: there are few). */
  clear(): void {
    for (let g = 0; g < this.len.length; g++) if (this.len[g] >= 0) this.names.release(g);
    this.start = new Int32Array(0);
    this.len = new Int32Array(0).fill(-1);
    this.cap = new Int32Array(0);
    this.held = 0;
    this.keys = this.newKeys(0); // as wide as it was: the interned topic partitions stay
    this.offsets = new Int32Array(0);
    this.far = new Map();
    this.end = 0;
    this.waste = 0;
  }

  /** The partitions held for `group` with their offsets, in key order (for tests and diagnostics). */
  entries(group: string): { topic: string; partition: number; offset: bigint }[] {
    const g = this.numberOf(group);
    if (g < 0) return [];
    const names = [...this.topicNo.keys()];
    const out: { topic: string; partition: number; offset: bigint }[] = [];
    for (let i = this.start[g], e = i + this.len[g]; i < e; i++) {
      const k = this.keys[i];
      out.push({ topic: names[this.keyTopic[k]], partition: this.keyPartition[k], offset: this.offsetAt(g, i) });
    }
    return out;
  }

  /** Rows the table holds (in slices and left behind), for tests and the memory figures. */
  get tableRows(): number {
    return this.end;
  }

  // -------------------------------------------------------------------------------------------

  /** The number of `group` when held, or -1. */
  private numberOf(group: string): number {
    const g = this.names.idOf(group);
    return g === undefined || g >= this.len.length || this.len[g] < 0 ? -1 : g;
  }

  /** The offset of the row at `at` (of group `g`). */
  private offsetAt(g: number, at: number): bigint {
    const d = this.offsets[at];
    const base = this.bases[this.keys[at]];
    if (d === 0) return base;
    return d === ESCAPED ? (this.far.get(`${g}:${this.keys[at]}`) as bigint) : base + BigInt(d);
  }

  /** Writes `offset` (of group `g`, key `key`) to the row at `at`. */
  private write(g: number, at: number, key: number, offset: bigint): void {
    let base = this.bases[key];
    if (base === undefined) this.bases[key] = base = offset;
    const d = offset - base;
    if (d > ESCAPED && d <= INT32_MAX) {
      this.offsets[at] = Number(d);
      if (this.far.size > 0) this.far.delete(`${g}:${key}`);
    } else {
      this.offsets[at] = ESCAPED;
      this.far.set(`${g}:${key}`, offset);
    }
  }

  /** Forgets the exact offsets of group `g`'s rows (before its rows go). */
  private dropFar(g: number): void {
    if (this.far.size === 0) return;
    for (let i = this.start[g], e = i + Math.max(0, this.len[g]); i < e; i++) if (this.offsets[i] === ESCAPED) this.far.delete(`${g}:${this.keys[i]}`);
  }

  private put(g: number, key: number, offset: bigint): void {
    const i = this.find(g, key);
    if (i >= 0) {
      this.write(g, this.start[g] + i, key, offset);
      return;
    }
    const at = -i - 1; // where it goes, in key order
    if (this.len[g] === this.cap[g]) this.grow(g, Math.max(4, this.cap[g] + (this.cap[g] >> 1)));
    const s = this.start[g];
    const n = this.len[g];
    this.keys.copyWithin(s + at + 1, s + at, s + n);
    this.offsets.copyWithin(s + at + 1, s + at, s + n);
    this.keys[s + at] = key;
    this.write(g, s + at, key, offset);
    this.len[g] = n + 1;
    this.maybeCompact();
  }

  /** The place of `key` in the slice of group `g`, or -(where it would go) - 1. */
  private find(g: number, key: number): number {
    const s = this.start[g];
    let lo = 0;
    let hi = this.len[g];
    const keys = this.keys;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const k = keys[s + mid];
      if (k < key) lo = mid + 1;
      else if (k > key) hi = mid;
      else return mid;
    }
    return -lo - 1;
  }

  /** The key of a topic partition (interned when new). */
  private keyFor(topic: string, partition: number): number {
    let t = this.topicNo.get(topic);
    if (t === undefined) {
      t = this.topicNo.size;
      this.topicNo.set(topic, t);
      this.keyOf.push([]);
    }
    let k = this.keyOf[t][partition];
    if (k === undefined) {
      k = this.keyTopic.length;
      if (k >= 2147483647) throw new RangeError('more than 2^31 distinct topic partitions');
      if (k > 0xffff && this.keys instanceof Uint16Array) this.keys = Int32Array.from(this.keys); // widened once, when a key needs it
      this.keyOf[t][partition] = k;
      this.keyTopic.push(t);
      this.keyPartition.push(partition);
    }
    return k;
  }

  private groupOf(group: string): number {
    const had = this.numberOf(group);
    if (had >= 0) return had;
    const g = this.names.acquire(group);
    if (g >= this.len.length) {
      const n = Math.max(g + 1, 16, this.len.length + (this.len.length >> 1));
      this.start = grown(this.start, n, 0);
      this.len = grown(this.len, n, -1);
      this.cap = grown(this.cap, n, 0);
    }
    this.held++;
    this.start[g] = this.end;
    this.len[g] = 0;
    this.cap[g] = 0;
    return g;
  }

  /** Gives group `g` a slice of `cap` rows: in place when it ends the table, else at the end. */
  private grow(g: number, cap: number): void {
    const n = this.len[g];
    const atEnd = this.start[g] + this.cap[g] === this.end;
    const s = atEnd ? this.start[g] : this.end;
    this.reserve(s + cap);
    if (!atEnd) {
      this.keys.copyWithin(s, this.start[g], this.start[g] + n);
      this.offsets.copyWithin(s, this.start[g], this.start[g] + n);
      this.waste += this.cap[g];
    }
    this.start[g] = s;
    this.cap[g] = cap;
    this.end = s + cap;
  }

  private reserve(rows: number): void {
    if (rows <= this.keys.length) return;
    let n = this.keys.length;
    while (n < rows) n += Math.max(INITIAL_ROWS, n >> 3); // an eighth more: the rows are small, memory held counts more than copies
    this.resize(n);
  }

  private resize(n: number): void {
    const keys = this.newKeys(n);
    keys.set(this.keys.subarray(0, this.end));
    const offsets = new Int32Array(n);
    offsets.set(this.offsets.subarray(0, this.end));
    this.keys = keys;
    this.offsets = offsets;
  }

  /** A key column of `n` rows as wide as the one held. */
  private newKeys(n: number): Uint16Array | Int32Array {
    return this.keys instanceof Uint16Array ? new Uint16Array(n) : new Int32Array(n);
  }

  /** Moves the slices together when more than half of the table is left behind. */
  private maybeCompact(): void {
    if (this.waste < 1024 || 2 * this.waste < this.end) return;
    let used = 0;
    for (let g = 0; g < this.len.length; g++) if (this.len[g] > 0) used += this.len[g];
    const size = Math.max(INITIAL_ROWS, used + (used >> 2));
    const keys = this.newKeys(size);
    const offsets = new Int32Array(size);
    let at = 0;
    for (let g = 0; g < this.len.length; g++) {
      const n = this.len[g];
      if (n < 0) continue;
      const s = this.start[g];
      keys.set(this.keys.subarray(s, s + n), at);
      offsets.set(this.offsets.subarray(s, s + n), at);
      this.start[g] = at;
      this.cap[g] = n;
      at += n;
    }
    this.keys = keys;
    this.offsets = offsets;
    this.end = at;
    this.waste = 0;
  }
}
