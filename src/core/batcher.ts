/**
 * Collects items into batches of at most `maxItems`, each sent at most `maxWaitMs` after its
 * first item: a full batch goes out at once, a partial one when its timer fires or on an
 * explicit `flush()`. `onFlush` is called on every flush, also with no items (a due timer, an
 * explicit flush): the owner uses that moment to refresh what it shows.
 */
export interface BatcherOptions<T> {
  maxItems: number;
  maxWaitMs: number;
  onFlush(items: T[]): void;
}

export class Batcher<T> {
  private items: T[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: BatcherOptions<T>) {}

  /** Items waiting to be flushed. */
  get size(): number {
    return this.items.length;
  }

  /** Adds an item: flushes when the batch is full, else makes sure a flush is due. */
  add(item: T): void {
    this.items.push(item);
    if (this.items.length >= this.opts.maxItems) this.flush();
    else this.arm();
  }

  /** Makes sure a flush is due within maxWaitMs, even without items. */
  arm(): void {
    if (!this.timer) this.timer = setTimeout(() => this.flush(), this.opts.maxWaitMs);
  }

  /** Hands the waiting items (possibly none) to onFlush now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const items = this.items;
    this.items = [];
    this.opts.onFlush(items);
  }

  /** Drops the waiting items and the pending flush (no onFlush). */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.items = [];
  }
}
