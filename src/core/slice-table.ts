/**
 * Rows per group in typed arrays (issue 24 step g, compact state): one table for every group
 * instead of objects per group partition. Each group (a name, given a number) owns a slice of the
 * table's columns; its rows keep the order the caller gives them (insertion at any place). A
 * group may also keep one plain array beside its slice (`side`, e.g. strings that are rarely set:
 * null when it has none), kept in step with the rows.
 *
 * A slice that ends the table grows in place, one that must move doubles at the end of the table; what a moved or deleted slice leaves behind is
 * reclaimed by a compaction when it is more than half of the table. A row's place in the table
 * (`base(g) + i`) holds until the next change of the table. Plain state, no I/O.
 */

export type Column = Int32Array | Float64Array | BigInt64Array | Uint8Array;

const INITIAL_ROWS = 64;

export class SliceTable {
  /** The columns, each as long as the table. */
  readonly cols: Column[];
  private readonly makers: readonly ((n: number) => Column)[];
  /** group -> its number. */
  private readonly groupNo = new Map<string, number>();
  /** Per group number: its name (undefined: free), where its slice starts, how many rows it holds, how many it may hold. */
  private names: (string | undefined)[] = [];
  private start: Int32Array = new Int32Array(16);
  private len: Int32Array = new Int32Array(16);
  private cap: Int32Array = new Int32Array(16);
  private side: (unknown[] | null)[] = [];
  private freeGroupNos: number[] = [];
  private groupNos = 0;
  /** Rows in use at the end of the table (slices included), and the rows of it no slice owns. */
  private end = 0;
  private waste = 0;

  constructor(makers: readonly ((n: number) => Column)[]) {
    this.makers = makers;
    this.cols = makers.map((m) => m(INITIAL_ROWS));
  }

  /** Groups held. */
  get size(): number {
    return this.groupNo.size;
  }

  /** The number of `group`, or undefined when it is not held. */
  find(group: string): number | undefined {
    return this.groupNo.get(group);
  }

  /** The name of group number `g`. */
  nameOf(g: number): string {
    return this.names[g] as string;
  }

  /** The groups held with their numbers, in the order they were first held (numbers reused). */
  entries(): IterableIterator<[string, number]> {
    return this.groupNo.entries();
  }

  /** The groups' names (no pair per group). */
  groupNames(): IterableIterator<string> {
    return this.groupNo.keys();
  }

  /** Where the slice of group `g` starts in the columns. */
  base(g: number): number {
    return this.start[g];
  }

  /** How many rows group `g` holds. */
  rows(g: number): number {
    return this.len[g];
  }

  /** The side array of group `g` (as long as its rows), or null. */
  sideOf(g: number): unknown[] | null {
    return this.side[g];
  }

  /** Gives group `g` a side array (filled with `fill` for the rows it holds) when it has none. */
  ensureSide(g: number, fill: unknown): unknown[] {
    let s = this.side[g];
    if (s === null) {
      s = new Array<unknown>(this.len[g]).fill(fill);
      this.side[g] = s;
    }
    return s;
  }

  dropSide(g: number): void {
    this.side[g] = null;
  }

  /** Holds `group` (no row when new); returns its number. */
  groupOf(group: string): number {
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
    this.names[g] = group;
    this.side[g] = null;
    this.start[g] = this.end;
    this.len[g] = 0;
    this.cap[g] = 0;
    return g;
  }

  /** Opens a row at place `at` of group `g`'s slice (the rows from there move up one); returns its place in the columns. */
  insert(g: number, at: number): number {
    if (this.len[g] === this.cap[g]) {
      this.maybeCompact();
      this.grow(g);
    }
    const s = this.start[g];
    const n = this.len[g];
    if (at < n) for (const c of this.cols) c.copyWithin(s + at + 1, s + at, s + n);
    this.len[g] = n + 1;
    const side = this.side[g];
    if (side !== null) side.splice(at, 0, undefined);
    return s + at;
  }

  /** Removes the row at place `at` of group `g`'s slice (the rows above move down one). */
  remove(g: number, at: number): void {
    const s = this.start[g];
    const n = this.len[g];
    if (at < n - 1) for (const c of this.cols) c.copyWithin(s + at, s + at + 1, s + n);
    this.len[g] = n - 1;
    const side = this.side[g];
    if (side !== null) side.splice(at, 1);
  }

  /** Empties group `g`'s slice (the group stays held). */
  empty(g: number): void {
    this.len[g] = 0;
    this.side[g] = null;
  }

  /** Forgets `group`. */
  delete(group: string): boolean {
    const g = this.groupNo.get(group);
    if (g === undefined) return false;
    this.groupNo.delete(group);
    this.names[g] = undefined;
    this.side[g] = null;
    this.waste += this.cap[g];
    this.start[g] = 0;
    this.len[g] = 0;
    this.cap[g] = 0;
    this.freeGroupNos.push(g);
    this.maybeCompact();
    return true;
  }

  /** Forgets every group. */
  clear(): void {
    this.groupNo.clear();
    this.names = [];
    this.side = [];
    this.start = new Int32Array(16);
    this.len = new Int32Array(16);
    this.cap = new Int32Array(16);
    this.freeGroupNos = [];
    this.groupNos = 0;
    for (let i = 0; i < this.cols.length; i++) this.cols[i] = this.makers[i](INITIAL_ROWS);
    this.end = 0;
    this.waste = 0;
  }

  /** Gives group `g` a slice twice as large (at least 2 rows): in place when it ends the table, else at the end. */
  private grow(g: number): void {
    const n = this.len[g];
    const atEnd = this.start[g] + this.cap[g] === this.end;
    // a slice that ends the table grows in place by one row (nothing moves); one that must move takes room to grow
    const cap = atEnd ? this.cap[g] + 1 : Math.max(2, 2 * this.cap[g]);
    const s = atEnd ? this.start[g] : this.end;
    this.reserve(s + cap);
    if (!atEnd) {
      for (const c of this.cols) c.copyWithin(s, this.start[g], this.start[g] + n);
      this.waste += this.cap[g];
    }
    this.start[g] = s;
    this.cap[g] = cap;
    this.end = s + cap;
  }

  private reserve(rows: number): void {
    const have = this.cols[0].length;
    if (rows <= have) return;
    let n = have;
    // an eighth more each time (a sixteenth of the table left empty on average, not a sixth as with 1.5):
    // the rows are copied about eight times over in all, once each growth (issue 24: memory held, not time)
    while (n < rows) n = Math.max(n + INITIAL_ROWS, Math.ceil(n * 1.125));
    for (let i = 0; i < this.cols.length; i++) {
      const c = this.makers[i](n);
      c.set(this.cols[i].subarray(0, this.end) as never);
      this.cols[i] = c;
    }
  }

  /** Moves the slices together when more than half of the table is left behind. */
  private maybeCompact(): void {
    if (this.waste < 1024 || 2 * this.waste < this.end) return;
    let used = 0;
    for (const g of this.groupNo.values()) used += this.len[g];
    const size = Math.max(INITIAL_ROWS, used + (used >> 3));
    const cols = this.makers.map((m) => m(size));
    let at = 0;
    for (const g of this.groupNo.values()) {
      const s = this.start[g];
      const n = this.len[g];
      for (let i = 0; i < cols.length; i++) cols[i].set(this.cols[i].subarray(s, s + n) as never, at);
      this.start[g] = at;
      this.cap[g] = n;
      at += n;
    }
    for (let i = 0; i < cols.length; i++) this.cols[i] = cols[i];
    this.end = at;
    this.waste = 0;
  }
}

function grown(a: Int32Array, n: number): Int32Array {
  const b = new Int32Array(n);
  b.set(a);
  return b;
}

/** Interned names (topics) by number, for the rows. */
export class NameNumbers {
  private readonly numbers = new Map<string, number>();
  private readonly names: string[] = [];

  /** The number of `name`, given one when new. */
  of(name: string): number {
    let n = this.numbers.get(name);
    if (n === undefined) {
      n = this.names.length;
      this.numbers.set(name, n);
      this.names.push(name);
    }
    return n;
  }

  /** The number of `name`, or undefined when it never had one. */
  find(name: string): number | undefined {
    return this.numbers.get(name);
  }

  name(n: number): string {
    return this.names[n];
  }
}

/**
 * Interned (topic, partition) pairs by number, for the rows: one Int32 column instead of a topic
 * number and a partition per row. Numbers are never reused (the pairs are as few as the partitions).
 */
export class PartitionNumbers {
  private readonly topicNos = new NameNumbers();
  /** Per topic number: partition -> pair number. */
  private readonly byTopic: Map<number, number>[] = [];
  private readonly topicOfPair: number[] = [];
  private readonly partitionOfPair: number[] = [];

  /** The number of (topic, partition), given one when new. */
  of(topic: string, partition: number): number {
    const t = this.topicNos.of(topic);
    let m = this.byTopic[t];
    if (m === undefined) {
      m = new Map();
      this.byTopic[t] = m;
    }
    let n = m.get(partition);
    if (n === undefined) {
      n = this.topicOfPair.length;
      m.set(partition, n);
      this.topicOfPair.push(t);
      this.partitionOfPair.push(partition);
    }
    return n;
  }

  /** The number of (topic, partition), or -1 when it never had one. */
  find(topic: string, partition: number): number {
    const t = this.topicNos.find(topic);
    if (t === undefined) return -1;
    return this.byTopic[t]?.get(partition) ?? -1;
  }

  topic(n: number): string {
    return this.topicNos.name(this.topicOfPair[n]);
  }

  partition(n: number): number {
    return this.partitionOfPair[n];
  }
}
