/**
 * Keeps writes to one partition in call order, and (with `retry`) writes a failed batch again
 * until it is acknowledged.
 *
 * MM2 sends every offset sync with one Java producer, which keeps the order of `send()` calls to
 * a partition, so the offset-syncs topic holds a partition's syncs in replication order.
 * kafkajs does not: concurrent `producer.send()` calls to the same partition can reach the log
 * in another order (seen against real brokers: syncs 0, 42, 21). A reader of the offset-syncs
 * topic (our OffsetSyncStore, and MM2's) takes a sync whose upstream offset is lower than the
 * previous one as an upstream rewind and drops its whole history, so out-of-order syncs lose
 * translations. This sender has at most one write in flight and sends everything queued behind
 * it as the next batch, in order; no kafkajs import, so it is unit-testable.
 *
 * Why retry: MM2's producer retries a sync for up to `delivery.timeout.ms` (2 minutes); kafkajs
 * gives up after a few seconds (a topic just created, a leader moving, a loaded broker). A batch
 * dropped then loses every sync in it but the newest of each partition (the offset-sync writer
 * sends that one again), and with them the translations of every group between the lost syncs:
 * seen in the conformance test, where the first batch of a partition failed and a group 20
 * records before the end had no sync at or below it. A sync stays true (the record at its
 * upstream offset is at its downstream offset), so writing it late, still in order, is right.
 */
import { Backoff } from '../core/backoff';

export interface OrderedSendRetry {
  /** true once retrying must stop (the owner is stopping): the batch is then rejected. */
  giveUp: () => boolean;
  /** Waits `ms` (the owner may cut it short when it stops). */
  sleep: (ms: number) => Promise<void>;
  /** Hears each failed attempt before the next (to show it), with the attempt number from 1. */
  onRetry?: (error: unknown, attempt: number) => void;
  /** First delay and its cap, in ms (each failure doubles it): 500 and 30000 unless given. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

export class OrderedBatchSender<T> {
  private queue: Array<{ item: T; resolve: () => void; reject: (e: unknown) => void }> = [];
  private busy = false;

  /** `write` writes a batch in order and settles when it is acknowledged (or failed). */
  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxBatch = 500,
    private readonly retry?: OrderedSendRetry,
  ) {}

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
    this.writeBatch(batch.map((b) => b.item)).then(
      () => batch.forEach((b) => b.resolve()),
      (e: unknown) => batch.forEach((b) => b.reject(e)),
    ).finally(() => {
      this.busy = false;
      this.pump();
    });
  }

  /** One write, or (with `retry`) writes until acknowledged or given up. */
  private async writeBatch(items: T[]): Promise<void> {
    const r = this.retry;
    const backoff = new Backoff(r?.initialDelayMs ?? 500, r?.maxDelayMs ?? 30000);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.write(items);
        return;
      } catch (e) {
        if (!r || r.giveUp()) throw e;
        r.onRetry?.(e, attempt);
        await r.sleep(backoff.next());
        if (r.giveUp()) throw e;
      }
    }
  }
}
