/**
 * Keeps writes to one partition in call order.
 *
 * MM2 sends every offset sync with one Java producer, which keeps the order of `send()` calls to
 * a partition, so the offset-syncs topic holds a partition's syncs in replication order.
 * kafkajs does not: concurrent `producer.send()` calls to the same partition can reach the log
 * in another order (seen against real brokers: syncs 0, 42, 21). A reader of the offset-syncs
 * topic (our OffsetSyncStore, and MM2's) takes a sync whose upstream offset is lower than the
 * previous one as an upstream rewind and drops its whole history, so out-of-order syncs lose
 * translations. This sender has at most one write in flight and sends everything queued behind
 * it as the next batch, in order; no kafkajs import, so it is unit-testable.
 */
export class OrderedBatchSender<T> {
  private queue: Array<{ item: T; resolve: () => void; reject: (e: unknown) => void }> = [];
  private busy = false;

  /** `write` writes a batch in order and settles when it is acknowledged (or failed). */
  constructor(private readonly write: (items: T[]) => Promise<void>, private readonly maxBatch = 500) {}

  /** Queues `item`; settles with the write of the batch that carries it. */
  send(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  /** Items waiting behind the write in flight. */
  get queued(): number {
    return this.queue.length;
  }

  private pump(): void {
    if (this.busy || this.queue.length === 0) return;
    this.busy = true;
    const batch = this.queue.splice(0, this.maxBatch);
    let p: Promise<void>;
    try {
      p = Promise.resolve(this.write(batch.map((b) => b.item)));
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(
      () => batch.forEach((b) => b.resolve()),
      (e: unknown) => batch.forEach((b) => b.reject(e)),
    ).finally(() => {
      this.busy = false;
      this.pump();
    });
  }
}
