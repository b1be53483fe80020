/**
 * The watching of heartbeats that MM2 leaves to the operator: HeartbeatWatcher tails the
 * replicated heartbeats topic (`<source>.heartbeats` on the target), decodes every record,
 * reports each heartbeat that arrives with its end-to-end latency, and raises/clears a staleness
 * alarm (core/heartbeat-monitor). No Node-RED here: the mm2-heartbeat node is a thin shell around
 * this class and ./heartbeat-emitter.
 *
 * It owns no timer: the caller drives evaluation (tick()), so all timers live in one place and
 * are cleared on close.
 */
import { decodeHeartbeat } from '../core/heartbeat';
import { readPercent } from '../core/load-percent';
import { AbsurdRecordError, MalformedRecordError } from '../core/errors';
import { HeartbeatMonitor, heartbeatTimestampProblem, type HeartbeatAlarm } from '../core/heartbeat-monitor';
import type { ClusterConnection } from '../kafka/connection';
import { explainKafkaError, isKafkaClientInternalError } from '../kafka/client';
import { TopicNotFoundError, TopicReader, topicEnds, type RawRecord } from '../kafka/topic-reader';
import { askCluster, ProbeSchedule, PROBE_EVERY_MS, PROBE_TIMEOUT_MS } from '../kafka/cluster-probe';

/** A heartbeat read from the replicated heartbeats topic. */
export interface ObservedHeartbeat {
  sourceClusterAlias: string;
  targetClusterAlias: string;
  timestamp: number;
  latencyMs: number;
  offset: bigint;
}

export type WatchPhase = 'starting' | 'waiting-topic' | 'loading' | 'watching' | 'stopped';

export interface HeartbeatWatcherOptions {
  /** The cluster that holds the replicated heartbeats (the target). */
  connection: ClusterConnection;
  /** e.g. `source.heartbeats` (policy.formatRemoteTopic(sourceAlias, 'heartbeats')). */
  topic: string;
  staleAfterMs: number;
  /** How long to wait before looking for a missing topic again, or restarting a failed reader. */
  retryMs?: number;
  /**
   * While watching, ask the target for the topic's end this often (a tailing consumer says
   * nothing while its broker is gone); no answer within probeTimeoutMs marks the connection failed.
   */
  probeMs?: number;
  probeTimeoutMs?: number;
  now?: () => number;
  /** Each heartbeat that arrives after the initial load (the backlog is not reported). */
  onHeartbeat: (hb: ObservedHeartbeat) => void;
  /** Alarm edges: `stale` once, `ok` once after a `stale`. */
  onAlarm: (alarm: HeartbeatAlarm) => void;
  /** A record that is not a heartbeat, or one whose timestamp makes no sense (before the epoch, more than staleAfterMs ahead), was skipped; `count` is the total since start. */
  onMalformed?: (err: Error, offset: bigint, count: number) => void;
  /** Phase changes; `percent` during the initial load. */
  onPhase?: (phase: WatchPhase, percent?: number) => void;
  /** A failure of the reader (it is retried after retryMs). The message says what to fix. */
  onError?: (err: Error) => void;
  groupPrefix?: string;
}

export class HeartbeatWatcher {
  readonly monitor: HeartbeatMonitor;
  /** Records skipped because they could not be decoded or their timestamp makes no sense. */
  malformed = 0;
  private phaseName: WatchPhase = 'starting';
  private reader: TopicReader | null = null;
  private generation = 0;
  private attempting = false;
  private lastAttempt = -Infinity;
  private failedAt: number | null = null;
  private stopped = false;
  private readonly now: () => number;
  private readonly retryMs: number;
  private readonly probes: ProbeSchedule;

  constructor(private readonly opts: HeartbeatWatcherOptions) {
    this.now = opts.now ?? Date.now;
    this.retryMs = opts.retryMs ?? 5000;
    this.probes = new ProbeSchedule(opts.probeMs ?? PROBE_EVERY_MS);
    this.monitor = new HeartbeatMonitor(opts.staleAfterMs, this.now());
  }

  get phase(): WatchPhase {
    return this.phaseName;
  }

  /** The consumer group of the current reader (a throwaway group that never commits), if any. */
  get readerGroupId(): string | null {
    return this.reader?.groupId ?? null;
  }

  /** Starts reading; never throws (failures go to onError / onPhase and are retried by tick()). */
  start(): void {
    this.attempt();
  }

  /**
   * Call periodically (every second or so): evaluates staleness, looks for a missing topic
   * again, and restarts a reader that failed and has not delivered anything since.
   */
  tick(): void {
    if (this.stopped) return;
    const now = this.now();
    this.emitAlarm(this.monitor.check(now));
    if (this.phaseName === 'watching' && this.reader && this.failedAt === null && this.probes.due(now)) this.probe();
    if (this.reader && this.failedAt !== null && now - this.failedAt >= this.retryMs) {
      // The reader failed and has delivered nothing since: start a fresh one.
      const old = this.reader;
      this.reader = null;
      this.failedAt = null;
      old.stop().catch(() => undefined);
      this.attempt();
      return;
    }
    if (!this.attempting && !this.reader && now - this.lastAttempt >= this.retryMs) this.attempt();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.generation += 1;
    this.setPhase('stopped');
    const r = this.reader;
    this.reader = null;
    if (r) await r.stop();
  }

  private setPhase(p: WatchPhase, percent?: number): void {
    if (p === this.phaseName && percent === undefined) return;
    this.phaseName = p;
    try {
      this.opts.onPhase?.(p, percent);
    } catch {
      /* a caller's status handler must not stop the reader */
    }
  }

  private emitAlarm(a: HeartbeatAlarm | null): void {
    if (a) this.opts.onAlarm(a);
  }

  private attempt(): void {
    if (this.stopped) return;
    const gen = ++this.generation;
    this.attempting = true;
    this.lastAttempt = this.now();
    this.failedAt = null;
    if (this.phaseName !== 'waiting-topic') this.setPhase('starting');
    let reader: TopicReader | null = null;
    const run = async (): Promise<void> => {
      const admin = await this.opts.connection.admin();
      if (gen !== this.generation) return;
      let live = false;
      reader = new TopicReader(this.opts.connection.kafka, admin, {
        topic: this.opts.topic,
        tail: true,
        maxWaitTimeMs: 500,
        groupPrefix: this.opts.groupPrefix ?? '__mm2-node-red-heartbeats',
        settings: this.opts.connection.settings,
        onRecord: (r) => {
          if (gen !== this.generation) return;
          try {
            this.onRecord(r, live);
          } catch (e) {
            // A failing output handler must not make kafkajs redeliver the batch forever.
            this.report(e instanceof Error ? e : new Error(String(e)));
          }
        },
        onProgress: (read, total) => {
          if (gen !== this.generation || live) return;
          this.setPhase('loading', readPercent(read, total));
        },
        onLoaded: () => {
          if (gen !== this.generation) return;
          live = true;
          this.setPhase('watching');
          // The newest backlog heartbeat may already clear (or raise) the alarm.
          this.emitAlarm(this.monitor.check(this.now()));
        },
        onError: (err) => {
          if (gen !== this.generation || this.stopped) return;
          this.failedAt = this.now();
          this.report(new Error(this.opts.connection.reportError(err)));
        },
      });
      this.reader = reader;
      await reader.start();
      if (gen === this.generation) this.opts.connection.reportOk();
    };
    run()
      .catch((e: unknown) => {
        if (gen !== this.generation || this.stopped) return;
        const failed = reader;
        if (this.reader === failed) this.reader = null;
        if (failed) (failed as TopicReader).stop().catch(() => undefined);
        if (e instanceof TopicNotFoundError) {
          this.setPhase('waiting-topic');
          return;
        }
        this.setPhase('starting');
        // kafkajs failing inside (reading the topic's offsets) is explained, never shown in its own words
        if (isKafkaClientInternalError(e)) this.report(new Error(explainKafkaError(e, this.opts.connection.settings)));
        else this.report(e instanceof Error ? e : new Error(String(e)));
      })
      .finally(() => {
        if (gen === this.generation) this.attempting = false;
      });
  }

  /** Is the target still answering? A failure marks the connection failed (red) and goes to onError. */
  private probe(): void {
    const gen = this.generation;
    askCluster(this.opts.connection, this.opts.probeTimeoutMs ?? PROBE_TIMEOUT_MS, (admin) => topicEnds(admin, [this.opts.topic]))
      .then(
        () => undefined,
        (e: Error) => {
          if (gen === this.generation && !this.stopped) this.report(e);
        },
      )
      .finally(() => this.probes.done());
  }

  private report(err: Error): void {
    try {
      this.opts.onError?.(err);
    } catch {
      /* ignore */
    }
  }

  private onRecord(r: RawRecord, live: boolean): void {
    const now = this.now();
    if (this.failedAt !== null) {
      // The consumer recovered by itself.
      this.failedAt = null;
      this.opts.connection.reportOk();
    }
    let hb;
    try {
      hb = decodeHeartbeat(r.key, r.value);
    } catch (e) {
      this.malformed += 1;
      const err = e instanceof MalformedRecordError ? e : new MalformedRecordError(String((e as Error)?.message ?? e));
      this.opts.onMalformed?.(err, r.offset, this.malformed);
      return;
    }
    const problem = heartbeatTimestampProblem(hb.timestamp, now, this.opts.staleAfterMs);
    if (problem) {
      // It would count as seen, with an absurd latency, and could keep a stale flow looking fresh.
      this.malformed += 1;
      this.opts.onMalformed?.(new AbsurdRecordError(`heartbeat ${hb.sourceClusterAlias}->${hb.targetClusterAlias}: ${problem}`), r.offset, this.malformed);
      return;
    }
    const timestamp = Number(hb.timestamp);
    if (!live) {
      this.monitor.seed(timestamp);
      return;
    }
    const obs = this.monitor.observe(timestamp, now);
    this.opts.onHeartbeat({
      sourceClusterAlias: hb.sourceClusterAlias,
      targetClusterAlias: hb.targetClusterAlias,
      timestamp,
      latencyMs: obs.latencyMs,
      offset: r.offset,
    });
    this.emitAlarm(obs.alarm);
  }
}
