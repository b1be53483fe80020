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
import { GroupNames } from './group-names';

export type Column = Int32Array | Float64Array | BigInt64Array | Uint8Array | Uint16Array;

const INITIAL_ROWS = 64;

export class SliceTable {
  /** The columns, each as long as the table. */
  readonly cols: Column[];
  private readonly makers: ((n: number) => Column)[];
  /**
   * The groups' numbers: an interner that may be shared with the other tables of the flow (the
   * replication runtime's): each group one number, the index of its slice's entries below, held
   * (acquire / release) while this table holds the group; no map of its own.
   */
  private readonly names: GroupNames;
  /** Per group number: whether held here (1), where its slice starts, how many rows it holds, how many it may hold. */
  private held: Uint8Array = new Uint8Array(16);
  private start: Int32Array = new Int32Array(16);
  private len: Int32Array = new Int32Array(16);
  private cap: Int32Array = new Int32Array(16);
  /** The groups held in the order they were first held (as a Map's keys): per number, the one before and after (-1: none). */
  private prev: Int32Array = new Int32Array(16);
  private next: Int32Array = new Int32Array(16);
  private first = -1;
  private last = -1;
  private count = 0;
  /** The side arrays by group number, for the few groups that have one (a map: no entry per group). */
  private readonly side = new Map<number, unknown[]>();
  /** Rows in use at the end of the table (slices included), and the rows of it no slice owns. */
  private end = 0;
  private waste = 0;

  constructor(makers: readonly ((n: number) => Column)[], names: GroupNames = new GroupNames()) {
    this.makers = [...makers];
    this.names = names;
    this.cols = makers.map((m) => m(INITIAL_ROWS));
  }

  /** Groups held. */
  get size(): number {
    return this.count;
  }

  /**
   * Gives column `i` a wider type from now on (`make`), its values kept: a 16-bit column widened
   * once a value needs more (the caller checks before writing one). Read `cols[i]` again after.
   */
  widen(i: number, make: (n: number) => Column): void {
    const c = make(this.cols[i].length);
    c.set(this.cols[i] as never);
    this.cols[i] = c;
    this.makers[i] = make;
  }

  /** The number of `group`, or undefined when it is not held. */
  find(group: string): number | undefined {
    const g = this.names.idOf(group);
    return g !== undefined && g < this.held.length && this.held[g] === 1 ? g : undefined;
  }

  /** The name of group number `g`. */
  nameOf(g: number): string {
    return this.names.name(g);
  }

  /** The groups held with their numbers, in the order they were first held (numbers reused). */
  *entries(): IterableIterator<[string, number]> {
    for (let g = this.first; g >= 0; ) {
      const after = this.next[g]; // the caller may delete g meanwhile
      yield [this.names.name(g), g];
      g = after;
    }
  }

  /** The groups held, in the order they were first held (one array, no entry made per group). */
  groupNames(): string[] {
    const out: string[] = [];
    for (let g = this.first; g >= 0; g = this.next[g]) out.push(this.names.name(g));
    return out;
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
    return this.side.size === 0 ? null : (this.side.get(g) ?? null);
  }

  /** Gives group `g` a side array (filled with `fill` for the rows it holds) when it has none. */
  ensureSide(g: number, fill: unknown): unknown[] {
    let s = this.side.get(g);
    if (s === undefined) {
      s = new Array<unknown>(this.len[g]).fill(fill);
      this.side.set(g, s);
    }
    return s;
  }

  dropSide(g: number): void {
    this.side.delete(g);
  }

  /** Holds `group` (no row when new); returns its number. */
  groupOf(group: string): number {
    const had = this.find(group);
    if (had !== undefined) return had;
    const g = this.names.acquire(group);
    if (g >= this.held.length) {
      const n = Math.max(2 * this.held.length, g + 1);
      this.held = grown(this.held, n);
      this.start = grown(this.start, n);
      this.len = grown(this.len, n);
      this.cap = grown(this.cap, n);
      this.prev = grown(this.prev, n);
      this.next = grown(this.next, n);
    }
    this.held[g] = 1;
    this.count++;
    this.prev[g] = this.last;
    this.next[g] = -1;
    if (this.last >= 0) this.next[this.last] = g;
    else this.first = g;
    this.last = g;
    this.side.delete(g);
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
    const side = this.sideOf(g);
    if (side !== null) side.splice(at, 0, undefined);
    return s + at;
  }

  /** Removes the row at place `at` of group `g`'s slice (the rows above move down one). */
  remove(g: number, at: number): void {
    const s = this.start[g];
    const n = this.len[g];
    if (at < n - 1) for (const c of this.cols) c.copyWithin(s + at, s + at + 1, s + n);
    this.len[g] = n - 1;
    const side = this.sideOf(g);
    if (side !== null) side.splice(at, 1);
  }

  /** Empties group `g`'s slice (the group stays held). */
  empty(g: number): void {
    this.len[g] = 0;
    this.side.delete(g);
  }

  /** Forgets `group`. */
  delete(group: string): boolean {
    const g = this.find(group);
    if (g === undefined) return false;
    this.held[g] = 0;
    this.count--;
    const p = this.prev[g];
    const q = this.next[g];
    if (p >= 0) this.next[p] = q;
    else this.first = q;
    if (q >= 0) this.prev[q] = p;
    else this.last = p;
    this.side.delete(g);
    this.waste += this.cap[g];
    this.start[g] = 0;
    this.len[g] = 0;
    this.cap[g] = 0;
    this.names.release(g);
    this.maybeCompact();
    return true;
  }

  /** Forgets every group (their numbers released). */
  clear(): void {
    for (let g = this.first; g >= 0; g = this.next[g]) this.names.release(g);
    this.held = new Uint8Array(16);
    this.side.clear();
    this.start = new Int32Array(16);
    this.len = new Int32Array(16);
    this.cap = new Int32Array(16);
    this.prev = new Int32Array(16);
    this.next = new Int32Array(16);
    this.first = -1;
    this.last = -1;
    this.count = 0;
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
    for (let g = this.first; g >= 0; g = this.next[g]) used += this.len[g];
    const size = Math.max(INITIAL_ROWS, used + (used >> 3));
    const cols = this.makers.map((m) => m(size));
    let at = 0;
    for (let g = this.first; g >= 0; g = this.next[g]) {
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

function grown<T extends Int32Array | Uint8Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
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
