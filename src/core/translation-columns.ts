/**
 * The translation cache's per-group fields as columns (issue 24 step g): typed arrays indexed by
 * the group's interned number (core/group-names), not fields of an object per group nor a map keyed
 * by its name. Plain state: the cache (core/translation-cache) says what the values mean.
 */
export class GroupColumns<E> {
  /** The entry of each number held (undefined: none). */
  readonly entry: (E | undefined)[] = [];
  /** The offsets' version translated (NaN: none; the array itself is in `arrayKey` then). */
  version: Float64Array = new Float64Array(0);
  /** The number of its basis. */
  basis: Int32Array = new Int32Array(0);
  /** The count of its sync store's changes when it was last checked (OffsetSyncStore.changeClock: one moment for all its partitions). */
  checked: Float64Array = new Float64Array(0);
  /** When its offsets were last listed, epoch ms (NaN: not said). */
  listed: Float64Array = new Float64Array(0);
  /** 1: its last answer emitted (or a partial cycle wrote for it): translate it again. */
  stale: Uint8Array = new Uint8Array(0);
  /** The offsets array translated when no version said which (rare: tests, callers without a version). */
  readonly arrayKey = new Map<number, unknown>();
  /** Entries held. */
  size = 0;

  /** Room for number `id`. */
  ensure(id: number): void {
    if (id < this.version.length) return;
    const n = Math.max(64, id + 1, this.version.length + (this.version.length >> 1));
    const grow = <T extends Float64Array | Int32Array | Uint32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.version = grow(this.version, (k) => new Float64Array(k));
    this.basis = grow(this.basis, (k) => new Int32Array(k));
    this.checked = grow(this.checked, (k) => new Float64Array(k));
    this.listed = grow(this.listed, (k) => new Float64Array(k));
    this.stale = grow(this.stale, (k) => new Uint8Array(k));
  }

  /** Sets the entry of `id` (undefined: drops it) and its key (a version, or an offsets array). */
  set(id: number, e: E | undefined, key?: number | object): void {
    this.ensure(id);
    const had = this.entry[id] !== undefined;
    this.entry[id] = e;
    if (e === undefined) {
      if (had) this.size--;
      this.arrayKey.delete(id);
      this.version[id] = NaN;
      this.listed[id] = NaN;
      this.stale[id] = 0;
      return;
    }
    if (!had) this.size++;
    if (typeof key === 'number') {
      this.version[id] = key;
      this.arrayKey.delete(id);
    } else {
      this.version[id] = NaN;
      this.arrayKey.set(id, key);
    }
  }

  /** Whether the key of `id` is `key` (a version, or the same offsets array). */
  sameKey(id: number, key: number | object): boolean {
    return typeof key === 'number' ? this.version[id] === key : this.arrayKey.get(id) === key;
  }

  /** Drops every entry. */
  clear(): void {
    this.entry.length = 0;
    this.arrayKey.clear();
    this.size = 0;
    this.version = new Float64Array(0);
    this.basis = new Int32Array(0);
    this.checked = new Float64Array(0);
    this.listed = new Float64Array(0);
    this.stale = new Uint8Array(0);
  }
}
