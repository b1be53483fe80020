/**
 * Builds a list that usually comes out the same as last time, without allocating it again
 * while it does: items pushed in the same order, as the same objects, as the previous list
 * give that list back; the first item that differs starts a new list (a copy of the prefix
 * that matched, then the rest). A full checkpoint cycle at 10,000 groups gathers 100,000
 * coverage entries and 10,000 readiness summaries every interval, nearly always the very
 * objects of the cycle before: reusing the list spares that garbage (it lives a whole cycle,
 * long enough to be promoted to the old generation).
 *
 * The previous list is never changed: callers must not change a list this returns either.
 */
export class ListReuse<T> {
  private matched = 0;
  private out: T[] | null = null;
  /** Items in `out` (it starts as a copy of the whole previous list, written over in place). */
  private n = 0;

  constructor(private readonly prev: readonly T[] = []) {}

  push(item: T): void {
    const out = this.out;
    if (out !== null) {
      // over the previous list's copy, then past its end (one allocation of the usual size, not a growing array)
      if (this.n < out.length) out[this.n] = item;
      else out.push(item);
      this.n++;
      return;
    }
    if (this.matched < this.prev.length && this.prev[this.matched] === item) {
      this.matched++;
      return;
    }
    this.out = this.prev.slice();
    this.n = this.matched;
    this.push(item);
  }

  /** The list: the previous one itself when every item matched it, else a new one. */
  result(): readonly T[] {
    const out = this.out;
    if (out !== null) {
      if (out.length > this.n) out.length = this.n;
      return out;
    }
    return this.matched === this.prev.length ? this.prev : this.prev.slice(0, this.matched);
  }
}
