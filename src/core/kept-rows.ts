/**
 * The precise translation mode's kept syncs of one partition (core/offset-sync-store), compact
 * (issue 24 step g): one row per tracked group, in typed arrays instead of an object per group
 * partition and two heaps of objects with stale items. A row holds the group's position (its
 * committed offset when last translated; int64, exact), whether it follows the newest sync, and
 * its kept sync (the number of a shared sync object in a small table of the partition's kept syncs,
 * counted: 4 bytes a row where a reference in an array took about 10). Two indexed min-heaps of rows by
 * position (every tracked row; the followers) answer the lowest tracked position and the followers
 * below a new sync, each row in a heap at most once (no stale item). A row is found by its
 * group's number (core/group-names: one interner for every partition of a store, the replication runtime's when shared) in an
 * open-addressing table of row numbers, not by a map keyed by the name per partition; a row
 * follows exactly when it is in the followers' heap. The arrays grow by an eighth. Plain state, no I/O.
 */
import { GroupNames } from './group-names';
import type { OffsetSync } from './types';

/** An indexed min-heap of rows by position: `h` the rows, `at` each row's place in `h` (-1: not in it). */
interface RowHeap {
  h: Int32Array;
  at: Int32Array;
  n: number;
}

function newHeap(rows: number): RowHeap {
  return { h: new Int32Array(rows), at: new Int32Array(rows).fill(-1), n: 0 };
}

export class KeptRows {
  /** Open addressing (linear probing) by group number: row + 1, 0 empty; a power of two long. */
  private slots: Int32Array = new Int32Array(16);
  private shift = 28; // 32 - log2(slots.length)
  private count = 0;
  private free: number[] = [];
  private used = 0;
  /** Per row: its group's number (-1: a free row), its position, its kept sync's number (-1 when it follows). */
  private gid: Int32Array = new Int32Array(8).fill(-1);
  private pos: BigInt64Array = new BigInt64Array(8);
  private syncNo: Int32Array = new Int32Array(8).fill(-1);
  /** The kept syncs by number (undefined: a free number), how many rows keep each, the number of each. */
  private syncs: (OffsetSync | undefined)[] = [];
  private syncRefs: number[] = [];
  private readonly syncIds = new Map<OffsetSync, number>();
  private freeSyncs: number[] = [];
  private readonly all: RowHeap = newHeap(8);
  private readonly followers: RowHeap = newHeap(8);

  /** `names`: the interner the rows' groups are numbered by (shared by the partitions of a store). */
  constructor(private readonly names: GroupNames = new GroupNames()) {}

  /** Tracked groups. */
  get size(): number {
    return this.count;
  }

  /** The tracked groups (in row order). */
  *groups(): IterableIterator<string> {
    for (let r = 0; r < this.used; r++) if (this.gid[r] >= 0) yield this.names.name(this.gid[r]);
  }

  /** What is kept for `group`: its position, whether it follows, its sync (when not following); undefined: not tracked. */
  get(group: string): { position: bigint; follows: boolean; sync: OffsetSync | undefined } | undefined {
    const r = this.rowOf(group);
    if (r < 0) return undefined;
    return { position: this.pos[r], follows: this.followers.at[r] >= 0, sync: this.syncOf(r) };
  }

  /** The kept sync of `group`: `newest` (slot 0 now) when it follows; undefined: not tracked. */
  keptSync(group: string, newest: OffsetSync): OffsetSync | undefined {
    const r = this.rowOf(group);
    if (r < 0) return undefined;
    return this.followers.at[r] >= 0 ? newest : this.syncOf(r);
  }

  /**
   * Whether what is kept for `group` differs from (position, follows, sync): a new position, a
   * change of following, or another sync when not following (true when not tracked).
   */
  differs(group: string, position: bigint, follows: boolean, sync: OffsetSync): boolean {
    const r = this.rowOf(group);
    if (r < 0) return true;
    const f = this.followers.at[r] >= 0;
    return this.pos[r] !== position || f !== follows || (!follows && this.syncOf(r) !== sync);
  }

  /** Keeps (position, follows, sync) for `group`. */
  set(group: string, position: bigint, follows: boolean, sync: OffsetSync): void {
    if (BigInt.asIntN(64, position) !== position) throw new RangeError(`position ${position} is outside the signed 64-bit range`);
    let r = this.rowOf(group);
    if (r < 0) {
      r = this.free.pop() ?? this.newRow();
      const g = this.names.acquire(group);
      this.gid[r] = g;
      this.insertSlot(g, r);
    }
    this.pos[r] = position;
    this.keep(r, follows ? undefined : sync);
    this.place(this.all, r);
    if (follows) this.place(this.followers, r);
    else this.remove(this.followers, r);
  }

  /** Stops tracking `group`. */
  delete(group: string): boolean {
    const g = this.names.idOf(group);
    if (g === undefined) return false;
    const i = this.slotOf(g);
    if (i < 0) return false;
    const r = this.slots[i] - 1;
    this.removeSlot(i);
    this.remove(this.all, r);
    this.remove(this.followers, r);
    this.keep(r, undefined);
    this.gid[r] = -1;
    this.free.push(r);
    this.names.release(g);
    return true;
  }

  /** Stops tracking every group (their interned names released). */
  clear(): void {
    for (let r = 0; r < this.used; r++) if (this.gid[r] >= 0) this.names.release(this.gid[r]);
    this.slots = new Int32Array(16);
    this.shift = 28;
    this.count = 0;
    this.free = [];
    this.used = 0;
    this.gid = new Int32Array(8).fill(-1);
    this.pos = new BigInt64Array(8);
    this.syncNo = new Int32Array(8).fill(-1);
    this.syncs = [];
    this.syncRefs = [];
    this.syncIds.clear();
    this.freeSyncs = [];
    for (const heap of [this.all, this.followers]) Object.assign(heap, newHeap(8));
  }

  /** The lowest tracked position, or undefined when none is tracked. */
  lowest(): bigint | undefined {
    return this.all.n === 0 ? undefined : this.pos[this.all.h[0]];
  }

  /** The followers below `upstream` stop following: they keep `previous` (the newest sync below the new one). */
  settleBelow(upstream: bigint, previous: OffsetSync): void {
    const f = this.followers;
    while (f.n > 0 && this.pos[f.h[0]] < upstream) {
      const r = f.h[0];
      this.remove(f, r);
      this.keep(r, previous);
    }
  }

  // -------------------------------------------------------------------------------------------

  private newRow(): number {
    const r = this.used++;
    if (r >= this.pos.length) {
      const n = this.pos.length + Math.max(8, this.pos.length >> 3);
      const pos = new BigInt64Array(n);
      pos.set(this.pos);
      this.pos = pos;
      const gid = new Int32Array(n).fill(-1);
      gid.set(this.gid);
      this.gid = gid;
      const syncNo = new Int32Array(n).fill(-1);
      syncNo.set(this.syncNo);
      this.syncNo = syncNo;
      for (const heap of [this.all, this.followers]) {
        const h = new Int32Array(n);
        h.set(heap.h);
        heap.h = h;
        const at = new Int32Array(n).fill(-1);
        at.set(heap.at);
        heap.at = at;
      }
    }
    return r;
  }

  /** The kept sync of row `r` (undefined when it follows). */
  private syncOf(r: number): OffsetSync | undefined {
    const k = this.syncNo[r];
    return k < 0 ? undefined : this.syncs[k];
  }

  /** Row `r` keeps `sync` from now on (undefined: none), the syncs' counts kept. */
  private keep(r: number, sync: OffsetSync | undefined): void {
    const had = this.syncNo[r];
    if (had >= 0) {
      if (this.syncs[had] === sync) return;
      if (--this.syncRefs[had] === 0) {
        this.syncIds.delete(this.syncs[had] as OffsetSync);
        this.syncs[had] = undefined;
        this.freeSyncs.push(had);
      }
    }
    if (sync === undefined) {
      this.syncNo[r] = -1;
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
    this.count++;
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
    this.count--;
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

  /** Puts row `r` in `heap` (or moves it to its place after its position changed). */
  private place(heap: RowHeap, r: number): void {
    let i = heap.at[r];
    if (i < 0) {
      i = heap.n++;
      heap.h[i] = r;
      heap.at[r] = i;
    }
    this.down(heap, this.up(heap, i));
  }

  private remove(heap: RowHeap, r: number): void {
    const i = heap.at[r];
    if (i < 0) return;
    heap.at[r] = -1;
    const last = --heap.n;
    if (i === last) return;
    const moved = heap.h[last];
    heap.h[i] = moved;
    heap.at[moved] = i;
    this.down(heap, this.up(heap, i));
  }

  private up(heap: RowHeap, i: number): number {
    const { h, at } = heap;
    const pos = this.pos;
    const r = h[i];
    const p0 = pos[r];
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (pos[h[p]] <= p0) break;
      h[i] = h[p];
      at[h[i]] = i;
      i = p;
    }
    h[i] = r;
    at[r] = i;
    return i;
  }

  private down(heap: RowHeap, i: number): void {
    const { h, at, n } = heap;
    const pos = this.pos;
    const r = h[i];
    const p0 = pos[r];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const rr = l + 1;
      let m = l;
      if (rr < n && pos[h[rr]] < pos[h[l]]) m = rr;
      if (pos[h[m]] >= p0) break;
      h[i] = h[m];
      at[h[i]] = i;
      i = m;
    }
    h[i] = r;
    at[r] = i;
  }
}
