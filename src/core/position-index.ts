/**
 * Keys (consumer groups, as the group numbers of a SliceTable) ordered by their position (an
 * offset) on one partition, so that "which keys are at or above this offset" costs in proportion
 * to the keys it answers (a binary search and the matching tail), not to every key on the
 * partition. Two parallel typed arrays sorted by offset (an int64 offset and an int32 key per
 * entry, no bigint or string held); a move is a binary search and one copy each way.
 *
 * With `positionOf` (the key's position as its owner keeps it, e.g. a row of core/source-offset-table)
 * only the keys are kept (2 bytes an entry while every key is below 65,536, widened to 4 once one
 * is not; 12 with the offsets): the owner changes a key's position and then tells the move, whose
 * `from` stands for that key meanwhile.
 */
export class NumberPositionIndex {
  private offsets: BigInt64Array | null = new BigInt64Array(4);
  private keys: Uint16Array | Int32Array = new Uint16Array(4);
  private n = 0;
  /** The key being moved and the position it was added with (with `positionOf`: its owner may hold the new one already). */
  private moving = -1;
  private movingFrom = 0n;

  constructor(private readonly positionOf?: (key: number) => bigint) {
    if (positionOf !== undefined) this.offsets = null;
  }

  get size(): number {
    return this.n;
  }

  /** `key` moved from `from` to `to` (null: not held there / no longer held). `from` must be the position it was added with. */
  move(key: number, from: bigint | null, to: bigint | null): void {
    if (from !== null && from === to) return;
    if (from !== null) {
      this.moving = key;
      this.movingFrom = from;
      for (let i = this.lowerBound(from); i < this.n && this.at(i) === from; i++) {
        if (this.keys[i] === key) {
          this.offsets?.copyWithin(i, i + 1, this.n);
          this.keys.copyWithin(i, i + 1, this.n);
          this.n--;
          break;
        }
      }
      this.moving = -1;
    }
    if (to !== null) {
      if (key > 0xffff && this.keys instanceof Uint16Array) this.keys = Int32Array.from(this.keys); // widened once a key needs it
      if (this.n === this.keys.length) {
        // an eighth more (at least 4 entries): a sixteenth left empty on average, not a sixth
        const size = Math.max(this.n + 4, Math.ceil(1.125 * this.n));
        if (this.offsets !== null) {
          const offsets = new BigInt64Array(size);
          offsets.set(this.offsets);
          this.offsets = offsets;
        }
        const keys = this.keys instanceof Uint16Array ? new Uint16Array(size) : new Int32Array(size);
        keys.set(this.keys);
        this.keys = keys;
      }
      const i = this.upperBound(to);
      if (this.offsets !== null) {
        this.offsets.copyWithin(i + 1, i, this.n);
        this.offsets[i] = to;
      }
      this.keys.copyWithin(i + 1, i, this.n);
      this.keys[i] = key;
      this.n++;
    }
  }

  /** The keys whose position is at or above `offset`, lowest position first. */
  atOrAbove(offset: bigint): number[] {
    return Array.from(this.keys.subarray(this.lowerBound(offset), this.n));
  }

  /** The position of entry `i`. */
  private at(i: number): bigint {
    if (this.offsets !== null) return this.offsets[i];
    const k = this.keys[i];
    return k === this.moving ? this.movingFrom : (this.positionOf as (key: number) => bigint)(k);
  }

  private lowerBound(offset: bigint): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid) < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private upperBound(offset: bigint): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid) <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
