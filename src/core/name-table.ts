/**
 * A compact map from names (group names, 10,000 and more) to numbers (issue 24 step g): what a
 * Map<string, number> does for a filter's memo, a node's per-group outcome or write time, in
 * about a third of its bytes. The names are held in one array (the strings themselves shared with
 * whoever made them), the values in one typed array, and the hash slots in an Int32Array of entry
 * numbers (open addressing, linear probing); no entry object, no boxed number for a time.
 * Iterated in insertion order, as a Map (a name set again keeps its place; deleted and set again:
 * last). Plain state, no I/O.
 */

/** A typed array of the values (Float64Array for times, Uint8Array for small codes...). */
type Values = Float64Array | Float32Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array;

/** FNV-1a over the UTF-16 units of a name. */
function hashOf(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class NameTable {
  /** Entry -> its name (undefined: deleted, a hole until the next rebuild); entries 0..n-1 used. */
  private keys: (string | undefined)[];
  private vals: Values;
  /** Entries used (live and holes). */
  private n = 0;
  /** Slot -> entry + 1 (0: empty); a slot of a deleted entry stays taken until the next rebuild. At most two thirds taken. */
  private slots: Int32Array;
  private live = 0;

  constructor(private readonly make: new (n: number) => Values = Float64Array) {
    this.keys = new Array<string | undefined>(8);
    this.vals = new make(8);
    this.slots = new Int32Array(12);
  }

  /** Names held. */
  get size(): number {
    return this.live;
  }

  /** The entry of `name`, or -1. */
  private find(name: string): number {
    const size = this.slots.length;
    for (let s = hashOf(name) % size; ; s = s + 1 === size ? 0 : s + 1) {
      const e = this.slots[s];
      if (e === 0) return -1;
      if (this.keys[e - 1] === name) return e - 1;
    }
  }

  has(name: string): boolean {
    return this.find(name) >= 0;
  }

  /** The value of `name`, or undefined. */
  get(name: string): number | undefined {
    const e = this.find(name);
    return e < 0 ? undefined : this.vals[e];
  }

  set(name: string, value: number): void {
    const e = this.find(name);
    if (e >= 0) {
      this.vals[e] = value;
      return;
    }
    if (this.n === this.vals.length) this.rebuild(this.live + 1);
    const n = this.n++;
    this.keys[n] = name;
    this.vals[n] = value;
    this.place(name, n);
    this.live++;
  }

  delete(name: string): boolean {
    const e = this.find(name);
    if (e < 0) return false;
    // the slot stays (probes go on past it) until the next rebuild; the name goes now
    this.keys[e] = undefined;
    this.vals[e] = 0;
    this.live--;
    if (this.live === 0) this.clear();
    return true;
  }

  clear(): void {
    this.keys = new Array<string | undefined>(8);
    this.vals = new this.make(8);
    this.slots = new Int32Array(12);
    this.n = 0;
    this.live = 0;
  }

  /** Each name with its value, in insertion order; `f` may delete the name it is given (and set no new one). */
  forEach(f: (value: number, name: string) => void): void {
    const n = this.n;
    for (let e = 0; e < n; e++) {
      const k = this.keys[e];
      if (k !== undefined) f(this.vals[e], k);
    }
  }

  private place(name: string, entry: number): void {
    const size = this.slots.length;
    let s = hashOf(name) % size;
    while (this.slots[s] !== 0) s = s + 1 === size ? 0 : s + 1;
    this.slots[s] = entry + 1;
  }

  /** The holes dropped (the order kept), room for `need` names and a quarter more: names, values and slots made again. */
  private rebuild(need: number): void {
    const cap = Math.max(8, need + (need >> 2));
    const keys = new Array<string | undefined>(cap);
    const vals = new this.make(cap);
    let n = 0;
    for (let e = 0; e < this.n; e++) {
      const k = this.keys[e];
      if (k === undefined) continue;
      keys[n] = k;
      vals[n] = this.vals[e];
      n++;
    }
    this.keys = keys;
    this.vals = vals;
    this.n = n;
    this.slots = new Int32Array(cap + (cap >> 1));
    for (let e = 0; e < n; e++) this.place(keys[e] as string, e);
  }
}
