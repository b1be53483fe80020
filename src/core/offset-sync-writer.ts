import { ConfigError } from './errors';
import type { OffsetSync } from './types';
import { partitionKey } from './partition-key';

/**
 * The source side of offset syncs (MirrorSourceTask + OffsetSyncWriter): when to write an offset sync for a replicated
 * record, and how syncs are queued, throttled and flushed. Pure: no Kafka I/O; the caller
 * supplies `send`, which writes one sync record to partition 0 of the offset-syncs topic.
 */

/** MM2 `MAX_OUTSTANDING_OFFSET_SYNCS`. */
export const DEFAULT_MAX_IN_FLIGHT_OFFSET_SYNCS = 10;

/** `offset.lag.max` default. */
export const DEFAULT_MAX_OFFSET_LAG = 100n;

function toLag(value: bigint | number): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw new ConfigError(`must be an integer, got ${String(value)}`, 'offset.lag.max');
}

/**
 * Per source partition state of the "urgent sync" rule (MM2's OffsetSyncWriter.PartitionState.update). Lives for one task lifetime:
 * it is never persisted, so a restart makes the first record of each partition urgent again.
 */
export class PartitionState {
  /** `offset.lag.max`. */
  readonly maxOffsetLag: bigint;
  previousUpstream = -1n;
  previousDownstream = -1n;
  lastSyncDownstream = -1n;
  /** Sticky until {@link reset}: a sync is owed for this partition. */
  shouldSyncOffsets = false;

  constructor(maxOffsetLag: bigint | number = DEFAULT_MAX_OFFSET_LAG) {
    this.maxOffsetLag = toLag(maxOffsetLag);
  }

  /**
   * Records that upstream offset `u` was written at downstream offset `d`. Returns true when a
   * sync is owed: no sync yet, the translation would lag `offset.lag.max` or more, an upstream
   * gap or rewind, or a downstream decrease. The flag stays true until {@link reset}.
   */
  update(u: bigint, d: bigint): boolean {
    const urgent =
      this.lastSyncDownstream === -1n ||
      d - (this.lastSyncDownstream + 1n) >= this.maxOffsetLag ||
      u - this.previousUpstream !== 1n ||
      d < this.previousDownstream;
    if (urgent) {
      this.lastSyncDownstream = d;
      this.shouldSyncOffsets = true;
    }
    this.previousUpstream = u;
    this.previousDownstream = d;
    return this.shouldSyncOffsets;
  }

  /** Clears the "sync owed" flag (called once the sync has been queued as urgent). */
  reset(): void {
    this.shouldSyncOffsets = false;
  }
}

export interface OffsetSyncWriterOptions {
  /** `offset.lag.max` (default 100). */
  maxOffsetLag?: bigint | number;
  /** In-flight sync writes allowed at once (MM2: 10). */
  maxInFlight?: number;
  /** Writes one sync; the returned promise settles when the write is acknowledged or failed. */
  send: (sync: OffsetSync) => Promise<void>;
  /** Told about each failed send (for logging). A failed sync is sent again by the next commit unless a newer one replaced it. */
  onSendError?: (error: unknown, sync: OffsetSync) => void;
}

const key = partitionKey;

/**
 * MM2's OffsetSyncWriter (maybeQueueOffsetSyncs, firePendingOffsetSyncs, promoteDelayedOffsetSyncs). Two maps keyed by source partition hold at most one sync each:
 * `pending` (insertion-ordered, sent as soon as a permit is free) and `delayed` (the latest
 * non-urgent sync, promoted to pending at every commit so idle partitions still publish their
 * latest position once per flush interval).
 *
 * Failure handling: a failed send releases its permit, is counted in {@link failedSends} and
 * reported to `onSendError`. Unlike MM2, which drops it, the failed sync goes back to `delayed`
 * (unless a newer sync of its partition was queued or started meanwhile), so the next
 * {@link commit} sends it again: in MM2 a lost sync of a partition that then stays idle is never
 * repaired, and that partition is translated from an older sync (or not at all when it was the
 * first) until more records arrive. A released permit does not by itself fire pending syncs
 * (as MM2): the next {@link maybeQueueOffsetSyncs}+{@link firePendingOffsetSyncs} call or the
 * next {@link commit} does.
 */
export class OffsetSyncWriter {
  readonly maxOffsetLag: bigint;
  readonly maxInFlight: number;
  private readonly send: (sync: OffsetSync) => Promise<void>;
  private readonly onSendError?: (error: unknown, sync: OffsetSync) => void;
  private readonly states = new Map<string, PartitionState>();
  private readonly pendingSyncs = new Map<string, OffsetSync>();
  private readonly delayedSyncs = new Map<string, OffsetSync>();
  private readonly outstanding = new Set<Promise<void>>();
  /** The newest sync started per partition: a failed one is queued again only if it still is. */
  private readonly lastStarted = new Map<string, OffsetSync>();
  private failures = 0;
  private sent = 0;

  constructor(options: OffsetSyncWriterOptions) {
    this.maxOffsetLag = toLag(options.maxOffsetLag ?? DEFAULT_MAX_OFFSET_LAG);
    const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT_OFFSET_SYNCS;
    if (!Number.isSafeInteger(maxInFlight) || maxInFlight < 1) {
      throw new RangeError(`maxInFlight must be a positive integer, got ${String(maxInFlight)}`);
    }
    this.maxInFlight = maxInFlight;
    this.send = options.send;
    this.onSendError = options.onSendError;
  }

  /** Syncs whose send is started but not settled. */
  get inFlight(): number {
    return this.outstanding.size;
  }

  /** Sends that failed (rejected or threw) since construction. */
  get failedSends(): number {
    return this.failures;
  }

  /** Sends started since construction. */
  get sentSyncs(): number {
    return this.sent;
  }

  /**
   * Called after the record at upstream offset `u` of source partition `topic`-`partition`
   * was acknowledged at downstream offset `d`. Queues the sync as urgent (pending, replacing
   * any unsent pending or delayed sync of the partition) or as delayed. Returns whether it was urgent.
   */
  maybeQueueOffsetSyncs(topic: string, partition: number, u: bigint, d: bigint): boolean {
    const k = key(topic, partition);
    let state = this.states.get(k);
    if (state === undefined) {
      state = new PartitionState(this.maxOffsetLag);
      this.states.set(k, state);
    }
    const sync: OffsetSync = { topic, partition, upstreamOffset: u, downstreamOffset: d };
    if (state.update(u, d)) {
      state.reset();
      this.delayedSyncs.delete(k);
      this.pendingSyncs.set(k, sync);
      return true;
    }
    this.delayedSyncs.set(k, sync);
    return false;
  }

  /** Sends pending syncs in queue order while in-flight permits are free. Returns how many were started. */
  firePendingOffsetSyncs(): number {
    let started = 0;
    for (const [k, sync] of this.pendingSyncs) {
      if (this.outstanding.size >= this.maxInFlight) break;
      this.pendingSyncs.delete(k);
      this.start(sync);
      started++;
    }
    return started;
  }

  /** Moves every delayed sync into pending (a delayed sync replaces a pending one of its partition). */
  promoteDelayedOffsetSyncs(): void {
    for (const [k, sync] of this.delayedSyncs) this.pendingSyncs.set(k, sync);
    this.delayedSyncs.clear();
  }

  /** The offset-flush hook (MM2 `commit()`): promote delayed syncs, then fire. Returns how many were started. */
  commit(): number {
    this.promoteDelayedOffsetSyncs();
    return this.firePendingOffsetSyncs();
  }

  /**
   * Not in MM2 (whose syncs in the queues are simply lost at task stop): for a clean stop,
   * commits and keeps firing until nothing is pending or in flight. A sync that fails now goes
   * back to `delayed` (for a later commit), not to `pending`, so this terminates once no new
   * syncs are queued.
   */
  async flush(): Promise<void> {
    this.promoteDelayedOffsetSyncs();
    for (;;) {
      this.firePendingOffsetSyncs();
      if (this.outstanding.size === 0) return;
      await Promise.race(this.outstanding);
    }
  }

  /**
   * Not in MM2 (a task's partitions never change while it lives): the partition moved to another
   * instance of the flow (or is ours again after a move). Its queued syncs are dropped (the new
   * owner writes newer ones) and its state too, so that the first record it copies here again
   * gets a sync at once, as the first record of a task does. A failed send of it is not queued again.
   */
  forget(topic: string, partition: number): void {
    const k = key(topic, partition);
    this.states.delete(k);
    this.pendingSyncs.delete(k);
    this.delayedSyncs.delete(k);
    this.lastStarted.delete(k);
  }

  /** Pending syncs in send order (copies). */
  pending(): OffsetSync[] {
    return [...this.pendingSyncs.values()].map((s) => ({ ...s }));
  }

  /** Delayed syncs (copies). */
  delayed(): OffsetSync[] {
    return [...this.delayedSyncs.values()].map((s) => ({ ...s }));
  }

  /** The emission state of a partition (undefined before its first record). */
  partitionState(topic: string, partition: number): Readonly<PartitionState> | undefined {
    return this.states.get(key(topic, partition));
  }

  private start(sync: OffsetSync): void {
    this.sent++;
    const k = key(sync.topic, sync.partition);
    this.lastStarted.set(k, sync);
    let promise: Promise<void>;
    try {
      promise = Promise.resolve(this.send(sync));
    } catch (error) {
      promise = Promise.reject(error);
    }
    const tracked: Promise<void> = promise.then(
      () => {
        this.outstanding.delete(tracked);
      },
      (error: unknown) => {
        this.outstanding.delete(tracked);
        this.failures++;
        // Sent again by the next commit, unless something newer for the partition is on its way.
        if (this.lastStarted.get(k) === sync && !this.pendingSyncs.has(k) && !this.delayedSyncs.has(k)) this.delayedSyncs.set(k, sync);
        if (this.onSendError) {
          try {
            this.onSendError(error, sync);
          } catch {
            // a failing logger must not break the writer
          }
        }
      },
    );
    this.outstanding.add(tracked);
  }
}
