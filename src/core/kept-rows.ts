/**
 * The precise translation mode's kept syncs of one partition (core/offset-sync-store), compact
 * (issue 24 step g): one row per tracked group, in typed arrays instead of an object per group
 * partition and two heaps of objects with stale items. A row holds the group's position (its
 * committed offset when last translated), whether it follows the newest sync, and its kept sync
 * (the number of a shared sync object in a small table of the partition's kept syncs, counted;
 * -1: it follows). The position is exact: its distance from the partition's first position in an
 * Int32 column (4 bytes a row where an int64 took 8), the rare one that does not fit escaped to
 * an exact side table. No index by position (two heaps took 16 bytes a row): the followers below
 * a new sync are found by one pass over the rows (once per new sync of the partition, numbers
 * compared, none made), and the lowest position is kept and found again by one pass only after
 * the row that held it moved up or went. A row is found by its group's number (core/group-names:
 * one interner for every partition of a store, the replication runtime's when shared) in an
 * open-addressing table of row numbers, not by a map keyed by the name per partition. The arrays
 * grow by an eighth. Plain state, no I/O.
 */
import { GroupNames } from './group-names';
import type { OffsetSync } from './types';

/** The position column's mark of an escaped position (the exact one is in `far`). */
const ESCAPED = -2147483648;
const INT32_MAX = 2147483647;
const WIDE = 2n ** 31n;

/** `syncNo` of a free row (no group), of a row that follows (no kept sync). */
const FREE = -2;
const FOLLOWS = -1;
/** Below this many rows a partition stays sparse. */
const DENSE_FROM = 32;

export class KeptRows {
  /**
   * Dense: the row of a group is its number (no index, no group column), for a partition tracking
   * at least half of the numbers up to its highest (the usual one: every group of a topic on each
   * of its partitions); else sparse: rows found through `slots`, their groups in `gid`.
   */
  private dense = false;
  /** Sparse: open addressing (linear probing) by group number: row + 1, 0 empty; a power of two long. */
  private slots: Int32Array = new Int32Array(16);
  private shift = 28; // 32 - log2(slots.length)
  /** Sparse: the highest group number a row was given since the rows were laid out (at least the highest held). */
  private maxG = -1;
  private count = 0;
  private free: number[] = [];
  /** Rows in use (sparse) or the numbers up to the highest held (dense). */
  private used = 0;
  /** Per row: its group's number (sparse only), its position minus `base` (ESCAPED: in `far`), its kept sync's number (FOLLOWS, FREE). */
  private gid: Int32Array = new Int32Array(8).fill(-1);
  private rel: Int32Array = new Int32Array(8);
  private syncNo: Int32Array = new Int32Array(8).fill(FREE);
  /** The positions' origin: the first one kept (undefined until then). */
  private base: bigint | undefined;
  /** The exact positions of the escaped rows (more than 2^31 - 1 from `base`): rare. */
  private far = new Map<number, bigint>();
  /** Rows that follow, and a bound at or below every follower's position (undefined: not known): a new sync at or below it settles none, no pass. */
  private following = 0;
  private followLow: bigint | undefined;
  /** The lowest position, when known (`lowKnown`): kept while no row that may hold it moves up or goes. */
  private low: bigint | undefined;
  private lowKnown = true;
  /** The kept syncs by number (undefined: a free number), how many rows keep each, the number of each. */
  private syncs: (OffsetSync | undefined)[] = [];
  private syncRefs: number[] = [];
  private readonly syncIds = new Map<OffsetSync, number>();
  private freeSyncs: number[] = [];

  /** `names`: the interner the rows' groups are numbered by (shared by the partitions of a store). */
  constructor(private readonly names: GroupNames = new GroupNames()) {}

  /** Tracked groups. */
  get size(): number {
    return this.count;
  }

  /** Whether the rows are laid out by group number (for tests and diagnostics). */
  get isDense(): boolean {
    return this.dense;
  }

  /** The tracked groups (in row order). */
  *groups(): IterableIterator<string> {
    for (let r = 0; r < this.used; r++) if (this.syncNo[r] !== FREE) yield this.names.name(this.groupAt(r));
  }

  /** What is kept for `group`: its position, whether it follows, its sync (when not following); undefined: not tracked. */
  get(group: string): { position: bigint; follows: boolean; sync: OffsetSync | undefined } | undefined {
    const r = this.rowOf(group);
    if (r < 0) return undefined;
    return { position: this.positionOf(r), follows: this.syncNo[r] === FOLLOWS, sync: this.syncOf(r) };
  }

  /** The kept sync of `group`: `newest` (slot 0 now) when it follows; undefined: not tracked. */
  keptSync(group: string, newest: OffsetSync): OffsetSync | undefined {
    const r = this.rowOf(group);
    if (r < 0) return undefined;
    return this.syncNo[r] === FOLLOWS ? newest : this.syncOf(r);
  }

  /**
   * Whether what is kept for `group` differs from (position, follows, sync): a new position, a
   * change of following, or another sync when not following (true when not tracked).
   */
  differs(group: string, position: bigint, follows: boolean, sync: OffsetSync): boolean {
    const r = this.rowOf(group);
    if (r < 0) return true;
    const f = this.syncNo[r] === FOLLOWS;
    return f !== follows || (!follows && this.syncOf(r) !== sync) || this.positionOf(r) !== position;
  }

  /** Keeps (position, follows, sync) for `group`. */
  set(group: string, position: bigint, follows: boolean, sync: OffsetSync): void {
    if (BigInt.asIntN(64, position) !== position) throw new RangeError(`position ${position} is outside the signed 64-bit range`);
    let r = this.rowOf(group);
    if (r < 0) {
      r = this.addRow(this.names.acquire(group));
      if (this.lowKnown && (this.low === undefined || position < this.low)) this.low = position;
    } else if (this.lowKnown) {
      const had = this.positionOf(r);
      if (position < (this.low as bigint)) this.low = position;
      else if (had === this.low && position !== had) this.lowKnown = false; // it may have held the lowest
    }
    this.writePosition(r, position);
    this.keep(r, follows ? undefined : sync);
    if (follows && this.followLow !== undefined && position < this.followLow) this.followLow = position;
  }

  /** Stops tracking `group`. */
  delete(group: string): boolean {
    const r = this.rowOf(group);
    if (r < 0) return false;
    const g = this.groupAt(r);
    if (this.lowKnown && this.positionOf(r) === this.low) this.lowKnown = false;
    this.keep(r, undefined);
    this.following--;
    this.syncNo[r] = FREE;
    if (this.far.size > 0) this.far.delete(r);
    this.count--;
    if (this.dense) {
      if (this.used > 4 * DENSE_FROM && 8 * this.count < this.used) this.layOut(false);
    } else {
      this.removeSlot(this.slotOf(g));
      this.gid[r] = -1;
      this.free.push(r);
    }
    this.names.release(g);
    if (this.count === 0) {
      this.low = undefined;
      this.lowKnown = true;
      if (!this.dense) {
        // no row left: numbered afresh
        this.maxG = -1;
        this.used = 0;
        this.free = [];
      }
    }
    return true;
  }

  /** Stops tracking every group (their interned names released). */
  clear(): void {
    for (let r = 0; r < this.used; r++) if (this.syncNo[r] !== FREE) this.names.release(this.groupAt(r));
    this.dense = false;
    this.slots = new Int32Array(16);
    this.shift = 28;
    this.maxG = -1;
    this.count = 0;
    this.free = [];
    this.used = 0;
    this.gid = new Int32Array(8).fill(-1);
    this.rel = new Int32Array(8);
    this.syncNo = new Int32Array(8).fill(FREE);
    this.base = undefined;
    this.far = new Map();
    this.following = 0;
    this.followLow = undefined;
    this.low = undefined;
    this.lowKnown = true;
    this.syncs = [];
    this.syncRefs = [];
    this.syncIds.clear();
    this.freeSyncs = [];
  }

  /** The lowest tracked position, or undefined when none is tracked. */
  lowest(): bigint | undefined {
    if (this.count === 0) return undefined;
    if (!this.lowKnown) {
      // one pass: the lowest distance among the rows in the column, then the escaped ones
      let m = Infinity;
      for (let r = 0; r < this.used; r++) if (this.syncNo[r] !== FREE && this.rel[r] !== ESCAPED && this.rel[r] < m) m = this.rel[r];
      let low = m === Infinity ? undefined : (this.base as bigint) + BigInt(m);
      for (const p of this.far.values()) if (low === undefined || p < low) low = p;
      this.low = low;
      this.lowKnown = true;
    }
    return this.low;
  }

  /** The followers below `upstream` stop following: they keep `previous` (the newest sync below the new one). */
  settleBelow(upstream: bigint, previous: OffsetSync): void {
    if (this.following === 0 || this.base === undefined) return;
    if (this.followLow !== undefined && upstream <= this.followLow) return; // every follower at or above it
    // rows in the column below `upstream`: a distance below `d` (every one when d is past the column's range, none when below it)
    const d = upstream - this.base;
    const limit = d > WIDE ? Infinity : d < -WIDE ? -Infinity : Number(d);
    // the lowest of the followers that stay, for the next sync
    let m = Infinity;
    let farLow: bigint | undefined;
    for (let r = 0; r < this.used; r++) {
      if (this.syncNo[r] !== FOLLOWS) continue;
      const x = this.rel[r];
      if (x === ESCAPED) {
        const p = this.far.get(r) as bigint;
        if (p < upstream) this.keep(r, previous);
        else if (farLow === undefined || p < farLow) farLow = p;
      } else if (x < limit) this.keep(r, previous);
      else if (x < m) m = x;
    }
    const low = m === Infinity ? undefined : this.base + BigInt(m);
    this.followLow = farLow === undefined || (low !== undefined && low < farLow) ? low : farLow;
  }

  // -------------------------------------------------------------------------------------------

  private groupAt(r: number): number {
    return this.dense ? r : this.gid[r];
  }

  /** A row for group number `g` (new: it follows until told otherwise). */
  private addRow(g: number): number {
    if (this.dense && g >= this.used && g + 1 > 4 * (this.count + 1) && g >= DENSE_FROM) this.layOut(false);
    else if (!this.dense && this.count + 1 >= DENSE_FROM && 2 * (this.count + 1) >= Math.max(g, this.maxG) + 1) this.layOut(true);
    let r: number;
    if (this.dense) {
      if (g >= this.rel.length) this.resize(Math.max(g + 1, this.rel.length + (this.rel.length >> 3)));
      if (g >= this.used) this.used = g + 1;
      r = g;
    } else {
      r = this.free.pop() ?? this.newRow();
      this.gid[r] = g;
      this.insertSlot(g, r);
      if (g > this.maxG) this.maxG = g;
    }
    this.syncNo[r] = FOLLOWS;
    this.following++;
    this.count++;
    return r;
  }

  /** Lays the rows out again, by group number (`dense`) or packed with an index. */
  private layOut(dense: boolean): void {
    const groups: number[] = [];
    const rows: number[] = [];
    for (let r = 0; r < this.used; r++) {
      if (this.syncNo[r] === FREE) continue;
      groups.push(this.groupAt(r));
      rows.push(r);
    }
    const rel = this.rel;
    const syncNo = this.syncNo;
    const far = this.far;
    let size = groups.length;
    if (dense) for (const g of groups) size = Math.max(size, g + 1);
    size += Math.max(8, size >> 3);
    this.rel = new Int32Array(size);
    this.syncNo = new Int32Array(size).fill(FREE);
    this.far = new Map();
    this.free = [];
    this.maxG = -1;
    let slots = 16;
    if (!dense) while (5 * groups.length > 4 * slots) slots *= 2;
    this.slots = new Int32Array(dense ? 0 : slots);
    this.shift = 32 - Math.log2(slots);
    this.gid = dense ? new Int32Array(0) : new Int32Array(size).fill(-1);
    this.dense = dense;
    this.used = 0;
    this.count = 0;
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i];
      const r = dense ? g : i;
      if (!dense) {
        this.gid[r] = g;
        this.insertSlot(g, r);
        if (g > this.maxG) this.maxG = g;
      }
      this.used = Math.max(this.used, r + 1);
      this.rel[r] = rel[rows[i]];
      this.syncNo[r] = syncNo[rows[i]];
      const p = far.get(rows[i]);
      if (p !== undefined) this.far.set(r, p);
      this.count++;
    }
  }

  /** The position of row `r`. */
  private positionOf(r: number): bigint {
    const x = this.rel[r];
    if (x === ESCAPED) return this.far.get(r) as bigint;
    return x === 0 ? (this.base as bigint) : (this.base as bigint) + BigInt(x);
  }

  private writePosition(r: number, position: bigint): void {
    if (this.base === undefined) this.base = position;
    const d = position - this.base;
    if (d >= -INT32_MAX && d <= INT32_MAX) {
      this.rel[r] = Number(d);
      if (this.far.size > 0) this.far.delete(r);
    } else {
      this.rel[r] = ESCAPED;
      this.far.set(r, position);
    }
  }

  /** Sparse: a new row at the end. */
  private newRow(): number {
    const r = this.used++;
    if (r >= this.rel.length) this.resize(this.rel.length + Math.max(8, this.rel.length >> 3));
    return r;
  }

  private resize(n: number): void {
    const rel = new Int32Array(n);
    rel.set(this.rel);
    this.rel = rel;
    const syncNo = new Int32Array(n).fill(FREE);
    syncNo.set(this.syncNo);
    this.syncNo = syncNo;
    if (!this.dense) {
      const gid = new Int32Array(n).fill(-1);
      gid.set(this.gid);
      this.gid = gid;
    }
  }

  /** The kept sync of row `r` (undefined when it follows). */
  private syncOf(r: number): OffsetSync | undefined {
    const k = this.syncNo[r];
    return k < 0 ? undefined : this.syncs[k];
  }

  /** Row `r` keeps `sync` from now on (undefined: none, it follows), the syncs' and followers' counts kept. */
  private keep(r: number, sync: OffsetSync | undefined): void {
    const had = this.syncNo[r];
    if (had >= 0) {
      if (this.syncs[had] === sync) return;
      if (--this.syncRefs[had] === 0) {
        this.syncIds.delete(this.syncs[had] as OffsetSync);
        this.syncs[had] = undefined;
        this.freeSyncs.push(had);
      }
    } else if (sync === undefined) return;
    else this.following--;
    if (sync === undefined) {
      this.syncNo[r] = FOLLOWS;
      this.following++;
      return;
    }
    let k = this.syncIds.get(sync);
    if (k === undefined) {
      k = this.freeSyncs.pop() ?? this.syncs.length;
      this.syncIds.set(sync, k);
      this.syncs[k] = sync;
      this.syncRefs[k] = 0;
    }
    this.syncRefs[k]++;
    this.syncNo[r] = k;
  }

  /** The row of `group`, or -1. */
  private rowOf(group: string): number {
    const g = this.names.idOf(group);
    if (g === undefined) return -1;
    if (this.dense) return g < this.used && this.syncNo[g] !== FREE ? g : -1;
    const i = this.slotOf(g);
    return i < 0 ? -1 : this.slots[i] - 1;
  }

  private home(g: number): number {
    return Math.imul(g, 0x9e3779b1) >>> this.shift;
  }

  /** The slot holding group number `g`, or -1. */
  private slotOf(g: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = this.home(g); ; i = (i + 1) & mask) {
      const v = slots[i];
      if (v === 0) return -1;
      if (this.gid[v - 1] === g) return i;
    }
  }

  private insertSlot(g: number, r: number): void {
    if (5 * (this.count + 1) > 4 * this.slots.length) this.rehash(2 * this.slots.length); // at most 4/5 full
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = this.home(g);
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = r + 1;
  }

  /** Empties slot `i`, moving back the entries after it that would no longer be found (no tombstones). */
  private removeSlot(i: number): void {
    const slots = this.slots;
    const mask = slots.length - 1;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const v = slots[j];
      if (v === 0) break;
      const k = this.home(this.gid[v - 1]);
      // the entry at j stays when its home lies cyclically in (i, j]
      if (i <= j ? i < k && k <= j : i < k || k <= j) continue;
      slots[i] = v;
      i = j;
    }
    slots[i] = 0;
  }

  private rehash(n: number): void {
    const old = this.slots;
    this.slots = new Int32Array(n);
    this.shift = 32 - Math.log2(n);
    const mask = n - 1;
    for (let j = 0; j < old.length; j++) {
      const v = old[j];
      if (v === 0) continue;
      let i = this.home(this.gid[v - 1]);
      while (this.slots[i] !== 0) i = (i + 1) & mask;
      this.slots[i] = v;
    }
  }
}
