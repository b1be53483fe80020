/**
 * Follows MM2's offset-syncs topic (partition 0, from the beginning), without Node-RED: decodes
 * the records, hands the syncs out in log order in batches (at most `batchMax`, at most
 * `batchMs` after the first), signals `loaded` once after the last sync that existed when it
 * started (MM2's readToEnd), then keeps tailing.
 *
 * Read-only: it never creates or writes the topic. Malformed records, and syncs that make no
 * sense (negative offsets), are skipped, counted and reported at a limited rate. A missing topic is waited for; connection and consumer failures
 * are retried with back-off. A record is never handed out twice within one start, even when
 * kafkajs rejoins the reader's throwaway group and the log is delivered again from the
 * beginning; a topic that shrank below what was read (recreated, truncated) causes a `reset`
 * and a new initial load.
 *
 * Everything it has to say comes out through `events`; the owner turns that into messages,
 * status and logs.
 */
import type { Admin, Kafka } from 'kafkajs';
import { Backoff } from '../core/backoff';
import { Batcher } from '../core/coalescing';
import { decodeValidOffsetSync } from '../core/offset-sync';
import { ReportThrottle } from '../core/report-throttle';
import type { OffsetSync } from '../core/types';
import { explainKafkaError, type ClusterSettings } from '../kafka/client';
import { TopicReader, TopicNotFoundError, partitionZeroRange, type RawRecord, type TopicReaderOptions } from '../kafka/topic-reader';
import { askCluster, PROBE_EVERY_MS, PROBE_TIMEOUT_MS } from '../kafka/cluster-probe';
import { Timer, within } from '../core/timers';

/** What the follower needs from a cluster connection (ClusterConnection fits). */
export interface FollowerConnection {
  readonly kafka: Kafka;
  readonly settings: Pick<ClusterSettings, 'alias' | 'bootstrapServers'>;
  admin(): Promise<Admin>;
  reportOk(): void;
  /** Marks the connection failed; returns the explanation. */
  reportError(err: unknown): string;
}

/** What the follower needs from a topic reader (TopicReader fits). */
export interface SyncReader {
  readonly groupId: string;
  /** Resolves when the initial load is done (tailing goes on); rejects with TopicNotFoundError when the topic is missing. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export type SyncReaderFactory = (admin: Admin, options: TopicReaderOptions) => SyncReader;

/** Counters since the start (or the last reset). */
export interface OffsetSyncStats {
  /** Records read, valid and malformed. */
  read: number;
  malformed: number;
  syncs: number;
  /** Distinct source partitions among the syncs. */
  partitions: number;
  /** Record timestamp of the last sync, null before the first one. */
  lastSyncTime: number | null;
  /** Whether `loaded` has been signalled. */
  loaded: boolean;
}

export interface FollowerFailure {
  /**
   * `connection`: the cluster could not be reached or asked (the connection's own state shows it);
   * `reader`: the topic reader (consumer) failed; `internal`: an unexpected error of the follower.
   */
  kind: 'connection' | 'reader' | 'internal';
  /** What went wrong and what to fix. */
  error: string;
  /** When the next attempt starts. */
  retryInMs: number;
  /** The same failure as the previous one (nothing new to tell). */
  repeated: boolean;
}

export interface OffsetSyncFollowerEvents {
  /** Syncs in log order, never empty. */
  batch?(syncs: OffsetSync[]): void;
  /** Every sync that existed at start has been handed out (once per start or reset). */
  loaded?(stats: OffsetSyncStats): void;
  /** The topic was recreated or truncated: everything handed out so far is void; a new initial load follows. */
  reset?(): void;
  /** Initial load: records handled out of the records that existed when the reader started. */
  progress?(done: bigint, total: bigint): void;
  /** After the initial load: the counters may have changed. */
  stats?(stats: OffsetSyncStats): void;
  /** The topic does not exist (yet); `first` for the first look-up that found it missing. */
  waiting?(first: boolean): void;
  /** The topic was missing and now exists. */
  found?(): void;
  /** A malformed record, reported at once (the first after a quiet period). */
  malformed?(offset: bigint, reason: string): void;
  /** `count` malformed records since the last report; the last of them at `offset`. */
  malformedMore?(count: number, offset: bigint, reason: string): void;
  /** A failure; the follower retries by itself after `retryInMs`. */
  error?(failure: FollowerFailure): void;
  /** Loaded again after a failure. */
  recovered?(): void;
  /** An exception thrown while handling a record or the end of the load (never passed to kafkajs). */
  warning?(text: string): void;
}

export interface FollowerTiming {
  /** A batch holds at most this many syncs... */
  batchMax: number;
  /** ...and waits at most this long for more. */
  batchMs: number;
  /** Missing topic: look again this often. */
  topicRetryMs: number;
  /** Failures: retry after backoffMinMs, doubling up to backoffMaxMs (back to the minimum once loaded). */
  backoffMinMs: number;
  backoffMaxMs: number;
  /** At most one malformed-record report per period; the rest are summed up. */
  warnEveryMs: number;
  /** stop(): how long to wait for the consumers to leave their groups. */
  stopTimeoutMs: number;
  /**
   * While tailing, ask the cluster for the topic's end this often (a tailing consumer says
   * nothing while its broker is gone): no answer within probeTimeoutMs marks the connection
   * failed; records at the end that the reader has not delivered at two probes in a row restart it.
   */
  probeMs: number;
  probeTimeoutMs: number;
}

export const FOLLOWER_TIMING: Readonly<FollowerTiming> = {
  batchMax: 500,
  batchMs: 200,
  topicRetryMs: 3000,
  backoffMinMs: 1000,
  backoffMaxMs: 30000,
  warnEveryMs: 10000,
  stopTimeoutMs: 8000,
  probeMs: PROBE_EVERY_MS,
  probeTimeoutMs: PROBE_TIMEOUT_MS,
};

export interface OffsetSyncFollowerOptions {
  connection: FollowerConnection;
  topic: string;
  events: OffsetSyncFollowerEvents;
  timing?: Partial<FollowerTiming>;
  /** Creates the reader of one attempt; default a TopicReader (tailing) on the connection. */
  createReader?: SyncReaderFactory;
}

/** How many reader group ids are kept for diagnostics (bounded when a broker flaps for days). */
const GROUP_IDS_KEPT = 20;

export class OffsetSyncFollower {
  /** The throwaway consumer groups of the readers used so far (the last 20), oldest first; updated in place. */
  readonly readerGroupIds: string[] = [];

  private readonly topic: string;
  private readonly events: OffsetSyncFollowerEvents;
  private readonly timing: FollowerTiming;
  private readonly createReader: SyncReaderFactory;
  private readonly batcher: Batcher<OffsetSync>;
  private readonly throttle: ReportThrottle<{ offset: bigint; reason: string }>;

  private gen = 0; // reader generation: callbacks of a replaced reader are ignored
  private started = false;
  private stopped = false;
  private reader: SyncReader | null = null;
  private readonly pendingStops = new Set<Promise<void>>();
  private readonly retryTimer = new Timer();
  private readonly probeTimer = new Timer();
  private probing = false;
  /** lastOffset at the previous probe when records were waiting at the end then; null: none were. */
  private behindAt: bigint | null = null;
  private lastOffset = -1n; // highest offset handled: the re-delivery guard
  private read = 0;
  private malformed = 0;
  private syncs = 0;
  private readonly partitions = new Set<string>();
  private lastSyncTime: number | null = null;
  private loaded = false;
  private progressRead = 0n;
  private progressTotal = 0n;
  private readerRecords = 0n; // records the current reader delivered (for the loading percentage)
  private readonly backoff: Backoff;
  private lastError = '';
  private waiting = false;

  constructor(private readonly opts: OffsetSyncFollowerOptions) {
    this.topic = opts.topic;
    this.events = opts.events;
    this.timing = { ...FOLLOWER_TIMING, ...opts.timing };
    this.backoff = new Backoff(this.timing.backoffMinMs, this.timing.backoffMaxMs);
    this.createReader = opts.createReader ?? ((admin, o) => new TopicReader(opts.connection.kafka, admin, o));
    this.batcher = new Batcher<OffsetSync>({
      maxItems: this.timing.batchMax,
      maxWaitMs: this.timing.batchMs,
      onFlush: (syncs) => {
        if (this.stopped) return;
        if (syncs.length > 0) this.events.batch?.(syncs);
        this.update();
      },
    });
    this.throttle = new ReportThrottle({
      everyMs: this.timing.warnEveryMs,
      first: (m) => this.events.malformed?.(m.offset, m.reason),
      more: (count, m) => {
        if (!this.stopped) this.events.malformedMore?.(count, m.offset, m.reason);
      },
    });
  }

  get stats(): OffsetSyncStats {
    return {
      read: this.read,
      malformed: this.malformed,
      syncs: this.syncs,
      partitions: this.partitions.size,
      lastSyncTime: this.lastSyncTime,
      loaded: this.loaded,
    };
  }

  /** Starts following (once); failures are retried, never thrown. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.kick();
    this.probeTimer.every(this.timing.probeMs, () => this.probe());
  }

  /** Stops for good: nothing is emitted any more; waits (bounded) for the consumers to leave their groups. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.gen += 1;
    this.retryTimer.stop();
    this.probeTimer.stop();
    this.batcher.clear();
    this.throttle.clear();
    const r = this.reader;
    this.reader = null;
    const stops = [...this.pendingStops];
    if (r) stops.push(r.stop());
    await within(Promise.allSettled(stops), this.timing.stopTimeoutMs);
  }

  /**
   * Reads the topic again from the beginning, for a receiver that lost the history (redeployed
   * on its own, or a message lost): `reset`, then every sync again and a new `loaded`. What was
   * batched but not handed out yet is part of the new load. Ignored before start and after stop.
   */
  replay(): void {
    if (!this.started || this.stopped) return;
    this.gen += 1; // the current reader's callbacks are ignored from now on
    this.retryTimer.stop();
    const r = this.reader;
    this.reader = null;
    if (r) this.stopLater(r);
    this.batcher.clear();
    this.reset();
    this.kick();
  }

  /**
   * While tailing: is the cluster still answering, and is the reader still delivering? A failed
   * probe marks the connection failed (the status shows it in red) and is told as a
   * `connection` error; the reader keeps its own retries. Records waiting at the end that the
   * reader did not deliver between two probes restart it (it resumes after what it handed out).
   */
  private probe(): void {
    if (this.stopped || this.probing || !this.loaded || !this.reader || this.waiting) return;
    const g = this.gen;
    this.probing = true;
    // a missing topic is an answer too (the reader notices a recreated topic itself)
    const ask = (admin: Admin) => partitionZeroRange(admin, this.topic).catch((e: unknown) => (e instanceof TopicNotFoundError ? null : Promise.reject(e)));
    askCluster(this.opts.connection, this.timing.probeTimeoutMs, ask)
      .then(
        (range) => {
          if (this.stale(g) || !this.reader) return;
          this.recovered();
          if (range === null) return;
          const behind = range.high > this.lastOffset + 1n;
          if (!behind) {
            this.behindAt = null;
            return;
          }
          if (this.behindAt === null || this.behindAt !== this.lastOffset) {
            this.behindAt = this.lastOffset;
            return;
          }
          // nothing delivered since the last probe although records are waiting: a stuck reader
          this.behindAt = null;
          const r = this.reader;
          this.gen += 1;
          this.reader = null;
          this.stopLater(r);
          this.batcher.flush();
          this.fail('reader', `the reader stopped delivering: ${range.high - this.lastOffset - 1n} record(s) at the end of ${this.topic} not read; restarting it`);
        },
        (e: Error) => {
          if (!this.stale(g)) this.tell('connection', e.message, this.timing.probeMs);
        },
      )
      .finally(() => {
        this.probing = false;
      });
  }

  private stale(g: number): boolean {
    return this.stopped || g !== this.gen;
  }

  /** Tells what the status should show now: the load progress, or the counters once loaded. */
  private update(): void {
    if (this.stopped || this.waiting) return;
    if (!this.loaded) {
      const done = this.progressRead > this.readerRecords ? this.progressRead : this.readerRecords;
      this.events.progress?.(done, this.progressTotal);
      return;
    }
    this.events.stats?.(this.stats);
  }

  private onRecord(rec: RawRecord): void {
    this.readerRecords += 1n;
    if (rec.offset <= this.lastOffset) return; // delivered again after a rejoin/restart: already handed out
    this.lastOffset = rec.offset;
    this.read += 1;
    let sync: OffsetSync;
    try {
      sync = decodeValidOffsetSync(rec.key, rec.value);
    } catch (e) {
      // only MalformedRecordError (AbsurdRecordError for a negative offset); anything else is reported the same way
      this.malformed += 1;
      this.throttle.report({ offset: rec.offset, reason: (e as Error)?.message ?? String(e) });
      this.batcher.arm(); // the counters show the malformed record soon
      return;
    }
    this.syncs += 1;
    this.partitions.add(`${sync.partition}:${sync.topic}`);
    this.lastSyncTime = Number.isFinite(rec.timestamp) ? rec.timestamp : Date.now();
    this.batcher.add(sync);
  }

  private onLoaded(): void {
    if (this.loaded) {
      this.update();
      return;
    }
    this.batcher.flush(); // every pre-existing sync goes out before 'loaded'
    this.loaded = true;
    this.backoff.reset();
    this.events.loaded?.(this.stats);
    this.throttle.flush(); // the malformed records of the load are told now, not later
    this.update();
  }

  /** Drops everything read so far (the topic was recreated) and tells so with 'reset'. */
  private reset(): void {
    this.batcher.flush();
    this.lastOffset = -1n;
    this.read = 0;
    this.malformed = 0;
    this.syncs = 0;
    this.partitions.clear();
    this.lastSyncTime = null;
    this.loaded = false;
    this.events.reset?.();
  }

  private schedule(ms: number): void {
    this.retryTimer.after(ms, () => {
      if (!this.stopped) this.kick();
    });
  }

  private stopLater(r: SyncReader): void {
    // Deferred: kafkajs arms its own restart timer right after emitting CRASH; stopping on
    // the next tick cancels that timer too, so no consumer restarts behind our back.
    const p = new Promise<void>((resolve) => {
      new Timer().after(0, () => {
        r.stop().then(resolve, resolve);
      });
    });
    this.pendingStops.add(p);
    void p.finally(() => this.pendingStops.delete(p));
  }

  private fail(kind: FollowerFailure['kind'], error: string): void {
    const retryInMs = this.backoff.next();
    this.tell(kind, error, retryInMs);
    this.schedule(retryInMs);
  }

  private tell(kind: FollowerFailure['kind'], error: string, retryInMs: number): void {
    const key = `${kind}\n${error}`;
    const repeated = key === this.lastError;
    this.lastError = key;
    this.events.error?.({ kind, error, retryInMs, repeated });
  }

  private waitForTopic(): void {
    const first = !this.waiting;
    this.waiting = true;
    this.events.waiting?.(first);
    this.schedule(this.timing.topicRetryMs);
  }

  private recovered(): void {
    if (this.lastError) {
      this.events.recovered?.();
      this.lastError = '';
    }
  }

  private explain(err: unknown): string {
    return explainKafkaError(err, this.opts.connection.settings);
  }

  private async attempt(g: number): Promise<void> {
    const connection = this.opts.connection;
    let admin: Admin;
    try {
      admin = await connection.admin(); // on failure the connection state says why
    } catch (e) {
      if (!this.stale(g)) this.fail('connection', (e as Error).message);
      return;
    }
    if (this.stale(g)) return;
    let range: { low: bigint; high: bigint };
    try {
      range = await partitionZeroRange(admin, this.topic, { kafka: connection.kafka, settings: connection.settings });
    } catch (e) {
      if (this.stale(g)) return;
      if (e instanceof TopicNotFoundError) {
        connection.reportOk();
        this.waitForTopic();
        return;
      }
      this.fail('connection', connection.reportError(e));
      return;
    }
    if (this.stale(g)) return;
    connection.reportOk();
    if (this.waiting) {
      this.waiting = false;
      this.events.found?.();
    }
    if (this.lastOffset >= 0n && range.high <= this.lastOffset) this.reset();
    this.progressRead = 0n;
    this.progressTotal = range.high - range.low;
    this.readerRecords = 0n;
    this.update();

    const r: SyncReader = this.createReader(admin, {
      topic: this.topic,
      tail: true,
      settings: connection.settings,
      onRecord: (rec) => {
        if (this.stale(g)) return;
        try {
          this.onRecord(rec);
        } catch (e) {
          this.events.warning?.(`${this.topic}@${rec.offset}: ${(e as Error).message}`); // never into kafkajs
        }
      },
      onProgress: (done, total) => {
        if (this.stale(g)) return;
        this.progressRead = done;
        this.progressTotal = total;
        this.update();
      },
      onLoaded: () => {
        if (this.stale(g)) return;
        try {
          this.onLoaded();
          this.recovered();
        } catch (e) {
          this.events.warning?.((e as Error).message);
        }
      },
      onError: (err) => {
        if (this.stale(g)) return;
        this.gen += 1; // this reader is done: ignore anything it still delivers
        this.reader = null;
        this.stopLater(r);
        this.batcher.flush();
        this.fail('reader', this.explain(err));
      },
    });
    this.reader = r;
    this.readerGroupIds.push(r.groupId);
    if (this.readerGroupIds.length > GROUP_IDS_KEPT) this.readerGroupIds.shift();
    try {
      await r.start(); // resolves when the initial load is done; tailing goes on
    } catch (e) {
      if (this.stale(g)) {
        await r.stop();
        return;
      }
      this.gen += 1;
      this.reader = null;
      await r.stop();
      if (this.stopped) return;
      if (e instanceof TopicNotFoundError) {
        this.waitForTopic(); // deleted between our look-up and the reader's
        return;
      }
      this.fail('reader', this.explain(e));
    }
  }

  private kick(): void {
    this.gen += 1;
    const g = this.gen;
    this.attempt(g).catch((e) => {
      // attempt handles its failures; this is the last line of defence against a crash
      if (!this.stale(g)) this.fail('internal', (e as Error)?.message ?? String(e));
    });
  }
}
