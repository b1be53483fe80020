/**
 * Keeps a CheckpointsTopicFollower running on a cluster connection: starts it (admin client,
 * topic reader), and when the start fails (the checkpoints topic does not exist yet, the target
 * is unreachable) tries again after `retryMs`, until `stop()`. No Node-RED here: the caller
 * shows the events in its status and log.
 */
import type { Admin, Kafka } from 'kafkajs';
import { assertTimerMs } from '../core/intervals';
import type { MalformedRecordError } from '../core/errors';
import { CheckpointsTopicFollower } from './checkpoints-topic-follower';
import type { GroupOffsetSyncer } from './group-offset-syncer';
import { TopicNotFoundError } from '../kafka/topic-reader';
import type { ClusterSettings } from '../kafka/client';
import { Timer } from '../core/timers';

export interface CheckpointsTopicRunnerEvents {
  /** Initial load progress: records read of those that existed at start. */
  progress?(read: bigint, total: bigint): void;
  /** The initial load is complete: the syncer holds every checkpoint of the topic. */
  loaded?(): void;
  /** A checkpoint of this group was stored (during the load and after it). */
  applied?(group: string): void;
  malformed?(err: MalformedRecordError, offset: bigint): void;
  /** The running reader failed (it retries by itself). */
  readerError?(err: Error): void;
  /** The start failed because the topic does not exist; retried after `retryMs`. */
  waitingTopic?(): void;
  /** The start failed otherwise; retried after `retryMs`. */
  startFailed?(error: string): void;
}

export interface CheckpointsTopicRunnerOptions {
  connection: { kafka: Kafka; admin(): Promise<Admin>; settings?: ClusterSettings };
  topic: string;
  syncer: GroupOffsetSyncer;
  groupPrefix?: string;
  /** Wait between failed starts (ms). */
  retryMs: number;
  events?: CheckpointsTopicRunnerEvents;
}

export class CheckpointsTopicRunner {
  private follower: CheckpointsTopicFollower | null = null;
  private readonly timer = new Timer();
  private stopped = false;

  constructor(private readonly opts: CheckpointsTopicRunnerOptions) {
    assertTimerMs(opts.retryMs, 'retry');
  }

  /** Starts following the topic (again after each failed start) until stop(). */
  start(): void {
    this.attempt();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer.stop();
    const f = this.follower;
    this.follower = null;
    if (f) await f.stop();
  }

  private attempt(): void {
    if (this.stopped) return;
    this.startOnce().catch((err: unknown) => {
      this.follower = null;
      if (this.stopped) return;
      const ev = this.opts.events;
      if (err instanceof TopicNotFoundError) ev?.waitingTopic?.();
      else ev?.startFailed?.(err instanceof Error ? err.message : String(err));
      if (!this.stopped) this.timer.after(this.opts.retryMs, () => this.attempt());
    });
  }

  private async startOnce(): Promise<void> {
    const o = this.opts;
    const admin = await o.connection.admin();
    if (this.stopped) return;
    const ev = o.events;
    const f = new CheckpointsTopicFollower({
      kafka: o.connection.kafka,
      admin,
      topic: o.topic,
      syncer: o.syncer,
      groupPrefix: o.groupPrefix,
      settings: o.connection.settings,
      onProgress: (read, total) => {
        if (!this.stopped) ev?.progress?.(read, total);
      },
      onApplied: (group) => {
        if (!this.stopped) ev?.applied?.(group);
      },
      onLoaded: () => {
        if (!this.stopped) ev?.loaded?.();
      },
      onMalformed: (err, offset) => ev?.malformed?.(err, offset),
      onError: (err) => {
        if (!this.stopped) ev?.readerError?.(err);
      },
    });
    this.follower = f;
    await f.start();
  }
}
