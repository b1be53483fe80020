/**
 * Offsets per group and topic partition, compact (issue 24 step g): one table for every group
 * instead of a map per group. Each group owns a slice of three shared typed arrays, its rows sorted
 * by (topic, partition): the key (an interned topic number × 2^32 + the partition, an exact double)
 * and the offset (int64, exact: a BigInt64Array). A lookup is a binary search in the group's slice.
 * About 16 bytes per group partition plus one map entry per group, where a map of bigints per group
 * took about 70.
 *
 * A group may be held with no row (what a read that found nothing committed leaves): `has` says so.
 * Slices grow by doubling at the end of the table; what a moved or deleted slice leaves behind is
 * reclaimed by a compaction when it is more than half of the table. Plain state, no I/O.
 */

const INITIAL_ROWS = 64;
const TOPIC_FACTOR = 4294967296; // 2^32: the key of (topic number t, partition p) is t * 2^32 + p

function checkedInt64(offset: bigint): bigint {
  if (BigInt.asIntN(64, offset) !== offset) throw new RangeError(`offset ${offset} is outside the signed 64-bit range`);
  return offset;
}

export class GroupOffsetRows {
  /** group -> its number (a place in the per-group arrays). */
  private readonly groupNo = new Map<string, number>();
  /** Per group number: where its slice starts, how many rows it holds, how many it may hold. */
  private start: Int32Array = new Int32Array(16);
  private len: Int32Array = new Int32Array(16);
  private cap: Int32Array = new Int32Array(16);
  private freeGroupNos: number[] = [];
  private groupNos = 0;
  /** Per row: the key (topic number × 2^32 + partition) and the offset. */
  private keys = new Float64Array(INITIAL_ROWS);
  private offsets = new BigInt64Array(INITIAL_ROWS);
  /** Rows in use at the end of the table (slices included), and the rows of it no slice owns. */
  private end = 0;
  private waste = 0;
  /** Interned topic names: name -> number. */
  private readonly topicNo = new Map<string, number>();

  /** Groups held. */
  get size(): number {
    return this.groupNo.size;
  }

  has(group: string): boolean {
    return this.groupNo.has(group);
  }

  /** The offset of a group partition (undefined: the group or the partition is not held). */
  get(group: string, topic: string, partition: number): bigint | undefined {
    const g = this.groupNo.get(group);
    if (g === undefined) return undefined;
    const t = this.topicNo.get(topic);
    if (t === undefined) return undefined;
    const i = this.find(g, t * TOPIC_FACTOR + partition);
    return i < 0 ? undefined : this.offsets[this.start[g] + i];
  }

  /** Holds `group`, with no row when it is new (what a read that found nothing committed leaves). */
  ensure(group: string): void {
    this.groupOf(group);
  }

  /** Sets the offset of a group partition (the group held from now on). */
  set(group: string, topic: string, partition: number, offset: bigint): void {
    checkedInt64(offset);
    if (!Number.isInteger(partition) || partition < 0 || partition >= TOPIC_FACTOR) throw new RangeError(`partition ${partition} is not a partition number`);
    const g = this.groupOf(group);
    const key = this.topicOf(topic) * TOPIC_FACTOR + partition;
    const i = this.find(g, key);
    if (i >= 0) {
      this.offsets[this.start[g] + i] = offset;
      return;
    }
    const at = -i - 1; // where it goes, in key order
    if (this.len[g] === this.cap[g]) this.grow(g);
    const s = this.start[g];
    const n = this.len[g];
    this.keys.copyWithin(s + at + 1, s + at, s + n);
    this.offsets.copyWithin(s + at + 1, s + at, s + n);
    this.keys[s + at] = key;
    this.offsets[s + at] = offset;
    this.len[g] = n + 1;
    this.maybeCompact();
  }

  /** Replaces what is held of `group` by `rows` (the group held from now on, also when `rows` is empty). */
  replace(group: string, rows: Iterable<{ topic: string; partition: number; offset: bigint }>): void {
    const g = this.groupOf(group);
    this.len[g] = 0;
    for (const r of rows) this.set(group, r.topic, r.partition, r.offset);
  }

  /** Forgets `group`. */
  delete(group: string): boolean {
    const g = this.groupNo.get(group);
    if (g === undefined) return false;
    this.groupNo.delete(group);
    this.waste += this.cap[g];
    this.start[g] = 0;
    this.len[g] = 0;
    this.cap[g] = 0;
    this.freeGroupNos.push(g);
    this.maybeCompact();
    return true;
  }

  /** Forgets every group (the interned topic names stay: there are few). */
  clear(): void {
    this.groupNo.clear();
    this.start = new Int32Array(16);
    this.len = new Int32Array(16);
    this.cap = new Int32Array(16);
    this.freeGroupNos = [];
    this.groupNos = 0;
    this.keys = new Float64Array(INITIAL_ROWS);
    this.offsets = new BigInt64Array(INITIAL_ROWS);
    this.end = 0;
    this.waste = 0;
  }

  /** The partitions held for `group` with their offsets, in (topic number, partition) order (for tests and diagnostics). */
  entries(group: string): { topic: string; partition: number; offset: bigint }[] {
    const g = this.groupNo.get(group);
    if (g === undefined) return [];
    const names = [...this.topicNo.keys()];
    const out: { topic: string; partition: number; offset: bigint }[] = [];
    for (let i = this.start[g], e = i + this.len[g]; i < e; i++) {
      const k = this.keys[i];
      const t = Math.floor(k / TOPIC_FACTOR);
      out.push({ topic: names[t], partition: k - t * TOPIC_FACTOR, offset: this.offsets[i] });
    }
    return out;
  }

  /** Rows the table holds (in slices and left behind), for tests and the memory figures. */
  get tableRows(): number {
    return this.end;
  }

  // -------------------------------------------------------------------------------------------

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

  private topicOf(topic: string): number {
    let t = this.topicNo.get(topic);
    if (t === undefined) {
      t = this.topicNo.size;
      if (t >= 2097152) throw new RangeError('more than 2^21 distinct topic names'); // keeps the keys exact doubles
      this.topicNo.set(topic, t);
    }
    return t;
  }

  private groupOf(group: string): number {
    let g = this.groupNo.get(group);
    if (g !== undefined) return g;
    g = this.freeGroupNos.pop();
    if (g === undefined) {
      g = this.groupNos++;
      if (g >= this.start.length) {
        const n = 2 * this.start.length;
        this.start = grown(this.start, n);
        this.len = grown(this.len, n);
        this.cap = grown(this.cap, n);
      }
    }
    this.groupNo.set(group, g);
    this.start[g] = this.end;
    this.len[g] = 0;
    this.cap[g] = 0;
    return g;
  }

  /** Gives group `g` a slice twice as large (at least 4 rows): in place when it ends the table, else at the end. */
  private grow(g: number): void {
    const n = this.len[g];
    const cap = Math.max(4, 2 * this.cap[g]);
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
    while (n < rows) n *= 2;
    const keys = new Float64Array(n);
    keys.set(this.keys.subarray(0, this.end));
    const offsets = new BigInt64Array(n);
    offsets.set(this.offsets.subarray(0, this.end));
    this.keys = keys;
    this.offsets = offsets;
  }

  /** Moves the slices together when more than half of the table is left behind. */
  private maybeCompact(): void {
    if (this.waste < 1024 || 2 * this.waste < this.end) return;
    let used = 0;
    for (const g of this.groupNo.values()) used += this.len[g];
    const size = Math.max(INITIAL_ROWS, 2 * used);
    const keys = new Float64Array(size);
    const offsets = new BigInt64Array(size);
    let at = 0;
    for (const g of this.groupNo.values()) {
      const s = this.start[g];
      const n = this.len[g];
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

function grown(a: Int32Array, n: number): Int32Array {
  const b = new Int32Array(n);
  b.set(a);
  return b;
}
