/**
 * Group names interned (issue 24 step g): each group name held once, as a small number that
 * per-partition tables index their typed-array rows by instead of a map keyed by the name per
 * partition. A number is held while something refers to it (`acquire` / `release`, counted) and
 * reused once nothing does, so the numbers stay about as many as the groups held. Plain state, no I/O.
 */
export class GroupNames {
  private readonly ids = new Map<string, number>();
  private names: (string | undefined)[] = [];
  private refs: Int32Array = new Int32Array(16);
  private readonly free: number[] = [];

  /** Names held now. */
  get size(): number {
    return this.ids.size;
  }

  /** The number of `name`, or undefined when it is not held. */
  idOf(name: string): number | undefined {
    return this.ids.get(name);
  }

  /** The name of a number held. */
  name(id: number): string {
    const n = this.names[id];
    if (n === undefined) throw new RangeError(`group number ${id} is not held`);
    return n;
  }

  /** The number of `name` (interned when new), with one more reference to it. */
  acquire(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.free.pop() ?? this.names.length;
      if (id >= this.refs.length) {
        const refs = new Int32Array(Math.max(16, id + (id >> 1)));
        refs.set(this.refs);
        this.refs = refs;
      }
      this.ids.set(name, id);
      this.names[id] = name;
      this.refs[id] = 0;
    }
    this.refs[id]++;
    return id;
  }

  /** One reference to `id` less: its name is forgotten (and the number reused) when none is left. */
  release(id: number): void {
    if (this.names[id] === undefined) return;
    if (--this.refs[id] > 0) return;
    this.ids.delete(this.names[id] as string);
    this.names[id] = undefined;
    this.free.push(id);
  }
}
