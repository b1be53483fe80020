/**
 * Follows `<source>.checkpoints.internal` on the target for the group-offset syncer (its
 * checkpoints from the topic itself, which also works beside a real MM2 checkpoint connector).
 */
import type { Admin, Kafka } from 'kafkajs';
import type { MalformedRecordError } from '../core/errors';
import type { ClusterSettings } from '../kafka/client';
import { TopicReader, type RawRecord } from '../kafka/topic-reader';


export interface CheckpointsTopicFollowerOptions {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  /** Takes one record of the topic (the group-offset syncer's applyRecordOf): the group it stored, or why it was malformed. */
  syncer: { applyRecordOf(r: Pick<RawRecord, 'key' | 'value'>): { error: MalformedRecordError | null; group?: string } };
  groupPrefix?: string;
  /** The cluster's settings, for the principal a refusal names. */
  settings?: ClusterSettings;
  onProgress?: (read: bigint, total: bigint) => void;
  onLoaded?: () => void;
  onMalformed?: (err: MalformedRecordError, offset: bigint) => void;
  /** A checkpoint of this group was stored (during the load and after it). */
  onApplied?: (group: string) => void;
  onError?: (err: Error) => void;
}

/**
 * Reads `<source>.checkpoints.internal` on the target (partition 0) to its end, then tails it,
 * feeding every record into the syncer (last wins per group/partition, malformed skipped and
 * counted). `start()` rejects with TopicNotFoundError when the topic does not exist.
 */
export class CheckpointsTopicFollower {
  private reader: TopicReader | null = null;
  private loadedFlag = false;

  constructor(private readonly opts: CheckpointsTopicFollowerOptions) {}

  get loaded(): boolean {
    return this.loadedFlag;
  }

  get groupId(): string | undefined {
    return this.reader?.groupId;
  }

  async start(): Promise<void> {
    const o = this.opts;
    const reader = new TopicReader(o.kafka, o.admin, {
      topic: o.topic,
      tail: true,
      groupPrefix: o.groupPrefix,
      settings: o.settings,
      onRecord: (r) => {
        const { error, group } = o.syncer.applyRecordOf(r);
        if (error) o.onMalformed?.(error, r.offset);
        else if (group !== undefined) o.onApplied?.(group);
      },
      onProgress: o.onProgress,
      onLoaded: () => {
        this.loadedFlag = true;
        o.onLoaded?.();
      },
      onError: o.onError,
    });
    this.reader = reader;
    try {
      await reader.start();
    } catch (e) {
      this.reader = null;
      await reader.stop();
      throw e;
    }
  }

  async stop(): Promise<void> {
    const r = this.reader;
    this.reader = null;
    if (r) await r.stop();
  }
}
