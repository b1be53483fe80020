/**
 * The precise translation mode's kept syncs of one partition (core/offset-sync-store), compact
 * (issue 24 step g): one row per tracked group, in typed arrays instead of an object per group
 * partition and two heaps of objects with stale items. A row holds the group's position (its
 * committed offset when last translated; int64, exact), whether it follows the newest sync, and
 * its kept sync (a reference: the syncs are shared objects). Two indexed min-heaps of rows by
 * position (every tracked row; the followers) answer the lowest tracked position and the followers
 * below a new sync, each row in a heap at most once (no stale item). Plain state, no I/O.
 */
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
  private readonly rowOf = new Map<string, number>();
  private free: number[] = [];
  private used = 0;
  private pos: BigInt64Array = new BigInt64Array(8);
  private fol: Uint8Array = new Uint8Array(8);
  private sync: (OffsetSync | undefined)[] = [];
  private readonly all: RowHeap = newHeap(8);
  private readonly followers: RowHeap = newHeap(8);

  /** Tracked groups. */
  get size(): number {
    return this.rowOf.size;
  }

  /** The tracked groups (first tracked first, as a map would). */
  groups(): IterableIterator<string> {
    return this.rowOf.keys();
  }

  /** What is kept for `group`: its position, whether it follows, its sync (when not following); undefined: not tracked. */
  get(group: string): { position: bigint; follows: boolean; sync: OffsetSync | undefined } | undefined {
    const r = this.rowOf.get(group);
    if (r === undefined) return undefined;
    return { position: this.pos[r], follows: this.fol[r] === 1, sync: this.sync[r] };
  }

  /** The kept sync of `group`: `newest` (slot 0 now) when it follows; undefined: not tracked. */
  keptSync(group: string, newest: OffsetSync): OffsetSync | undefined {
    const r = this.rowOf.get(group);
    if (r === undefined) return undefined;
    return this.fol[r] === 1 ? newest : this.sync[r];
  }

  /**
   * Whether what is kept for `group` differs from (position, follows, sync): a new position, a
   * change of following, or another sync when not following (true when not tracked).
   */
  differs(group: string, position: bigint, follows: boolean, sync: OffsetSync): boolean {
    const r = this.rowOf.get(group);
    if (r === undefined) return true;
    const f = this.fol[r] === 1;
    return this.pos[r] !== position || f !== follows || (!follows && this.sync[r] !== sync);
  }

  /** Keeps (position, follows, sync) for `group`. */
  set(group: string, position: bigint, follows: boolean, sync: OffsetSync): void {
    if (BigInt.asIntN(64, position) !== position) throw new RangeError(`position ${position} is outside the signed 64-bit range`);
    let r = this.rowOf.get(group);
    if (r === undefined) {
      r = this.free.pop() ?? this.newRow();
      this.rowOf.set(group, r);
    }
    this.pos[r] = position;
    this.fol[r] = follows ? 1 : 0;
    this.sync[r] = follows ? undefined : sync;
    this.place(this.all, r);
    if (follows) this.place(this.followers, r);
    else this.remove(this.followers, r);
  }

  /** Stops tracking `group`. */
  delete(group: string): boolean {
    const r = this.rowOf.get(group);
    if (r === undefined) return false;
    this.rowOf.delete(group);
    this.remove(this.all, r);
    this.remove(this.followers, r);
    this.sync[r] = undefined;
    this.free.push(r);
    return true;
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
      this.fol[r] = 0;
      this.sync[r] = previous;
    }
  }

  // -------------------------------------------------------------------------------------------

  private newRow(): number {
    const r = this.used++;
    if (r >= this.pos.length) {
      const n = 2 * this.pos.length;
      const pos = new BigInt64Array(n);
      pos.set(this.pos);
      this.pos = pos;
      const fol = new Uint8Array(n);
      fol.set(this.fol);
      this.fol = fol;
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
