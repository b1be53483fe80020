/**
 * Keys (consumer groups, as the group numbers of a SliceTable) ordered by their position (an
 * offset) on one partition, so that "which keys are at or above this offset" costs in proportion
 * to the keys it answers (a binary search and the matching tail), not to every key on the
 * partition. Two parallel typed arrays sorted by offset (an int64 offset and an int32 key per
 * entry, no bigint or string held); a move is a binary search and one copy each way.
 */
export class NumberPositionIndex {
  private offsets = new BigInt64Array(4);
  private keys = new Int32Array(4);
  private n = 0;

  get size(): number {
    return this.n;
  }

  /** `key` moved from `from` to `to` (null: not held there / no longer held). `from` must be the position it was added with. */
  move(key: number, from: bigint | null, to: bigint | null): void {
    if (from !== null && from === to) return;
    if (from !== null) {
      for (let i = this.lowerBound(from); i < this.n && this.offsets[i] === from; i++) {
        if (this.keys[i] === key) {
          this.offsets.copyWithin(i, i + 1, this.n);
          this.keys.copyWithin(i, i + 1, this.n);
          this.n--;
          break;
        }
      }
    }
    if (to !== null) {
      if (this.n === this.keys.length) {
        // an eighth more (at least 4 entries): a sixteenth left empty on average, not a sixth
        const size = Math.max(this.n + 4, Math.ceil(1.125 * this.n));
        const offsets = new BigInt64Array(size);
        offsets.set(this.offsets);
        const keys = new Int32Array(size);
        keys.set(this.keys);
        this.offsets = offsets;
        this.keys = keys;
      }
      const i = this.upperBound(to);
      this.offsets.copyWithin(i + 1, i, this.n);
      this.keys.copyWithin(i + 1, i, this.n);
      this.offsets[i] = to;
      this.keys[i] = key;
      this.n++;
    }
  }

  /** The keys whose position is at or above `offset`, lowest position first. */
  atOrAbove(offset: bigint): number[] {
    return Array.from(this.keys.subarray(this.lowerBound(offset), this.n));
  }

  private lowerBound(offset: bigint): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.offsets[mid] < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private upperBound(offset: bigint): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.offsets[mid] <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
