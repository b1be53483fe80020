/**
 * When each group was last read from the target and last written to it (ms), compact (issue 24
 * step g): two Float64Arrays by group number (core/group-names, shared with the offsets of the
 * same groups) instead of two maps keyed by the name, each holding a boxed number per group. A
 * group holds one reference to its number while either time is set. Plain state, no I/O.
 */
import type { GroupNames } from './group-names';

/** A larger Float64Array holding `a`, the new places NaN (no time). */
function grown(a: Float64Array, n: number): Float64Array {
  const b = new Float64Array(n).fill(NaN);
  b.set(a);
  return b;
}

export class GroupTimes {
  private readMs: Float64Array = new Float64Array(0);
  private writeMs: Float64Array = new Float64Array(0);

  constructor(private readonly names: GroupNames) {}

  /** When `group` was last read (undefined: not since it was forgotten, or never). */
  readAt(group: string): number | undefined {
    return this.value(this.readMs, group);
  }

  /** When `group` was last written (undefined: never). */
  lastWrite(group: string): number | undefined {
    return this.value(this.writeMs, group);
  }

  setReadAt(group: string, ms: number): void {
    this.put(group, ms, true);
  }

  setLastWrite(group: string, ms: number): void {
    this.put(group, ms, false);
  }

  /** Forgets every read time (the write times stay: the floor). */
  clearReadAt(): void {
    for (let g = 0; g < this.readMs.length; g++) {
      if (Number.isNaN(this.readMs[g])) continue;
      this.readMs[g] = NaN;
      if (Number.isNaN(this.writeMs[g])) this.names.release(g);
    }
  }

  /** Forgets every time. */
  clear(): void {
    for (let g = 0; g < this.readMs.length; g++) if (!Number.isNaN(this.readMs[g]) || !Number.isNaN(this.writeMs[g])) this.names.release(g);
    this.readMs = new Float64Array(0);
    this.writeMs = new Float64Array(0);
  }

  private value(a: Float64Array, group: string): number | undefined {
    const g = this.names.idOf(group);
    if (g === undefined || g >= a.length) return undefined;
    const v = a[g];
    return Number.isNaN(v) ? undefined : v;
  }

  private put(group: string, ms: number, read: boolean): void {
    if (Number.isNaN(ms)) throw new RangeError('a time is a number');
    let g = this.names.idOf(group);
    const holds = g !== undefined && g < this.readMs.length && (!Number.isNaN(this.readMs[g]) || !Number.isNaN(this.writeMs[g]));
    if (!holds) g = this.names.acquire(group);
    else if (g === undefined) throw new Error('unreachable');
    if (g >= this.readMs.length) {
      const n = Math.max(g + 1, 16, this.readMs.length + (this.readMs.length >> 1));
      this.readMs = grown(this.readMs, n);
      this.writeMs = grown(this.writeMs, n);
    }
    (read ? this.readMs : this.writeMs)[g] = ms;
  }
}
