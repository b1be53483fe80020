/**
 * Reads partition 0 of one of MM2's single-partition internal topics from the beginning to
 * the end offset seen at start ("initial load"), then optionally keeps tailing it, as MM2's
 * KafkaBasedLog does. kafkajs has no manual assignment, so the reader joins a throwaway
 * consumer group that never commits (`__mm2-node-red-reader-…`: the `__` prefix is in MM2's
 * default groups.exclude, and a group without commits is never checkpointed anyway).
 */
import { randomUUID } from 'node:crypto';
import type { Consumer, Kafka, Admin } from 'kafkajs';
import { notAuthorized, type AclNeed, type ClusterSettings } from './client';
import { consumerRefusal, findTopicProblem } from './broker-refusals';

/** The cluster a reader reads from, to tell a topic it may not see from a missing one and to name the principal. */
export interface ReaderCluster {
  kafka: Kafka;
  settings?: ClusterSettings;
}

export interface RawRecord {
  key: Buffer | null;
  value: Buffer | null;
  offset: bigint;
  timestamp: number;
}

export interface TopicReaderOptions {
  topic: string;
  /** Keep reading new records after the initial load. */
  tail: boolean;
  /** Called for each record in log order. Exceptions thrown here are the caller's to count; the reader goes on. */
  onRecord: (r: RawRecord) => void;
  /** Initial load progress: records read so far out of the records that existed at start. */
  onProgress?: (read: bigint, total: bigint) => void;
  /** The end offset seen at start has been reached. */
  onLoaded?: () => void;
  /**
   * A consumer failure (the consumer restarts itself on retriable ones). A group coordinator
   * loading or moving, which kafkajs restarts the consumer through, is none (passingCoordinatorState).
   */
  onError?: (err: Error) => void;
  /** How long an empty fetch waits on the broker; lower = fresher tail, more requests. */
  maxWaitTimeMs?: number;
  groupPrefix?: string;
  /** The cluster's settings, for the principal named when the broker refuses (see notAuthorized). */
  settings?: ClusterSettings;
}

/** The ACLs reading `topic` needs: READ on it (DESCRIBE comes with READ). */
export function readTopicAcl(topic: string): AclNeed {
  return { resource: 'Topic', name: topic, operations: ['READ'] };
}

export class TopicNotFoundError extends Error {
  constructor(public readonly topic: string) {
    super(`topic ${topic} does not exist`);
    this.name = 'TopicNotFoundError';
  }
}

function isUnknownTopic(e: unknown): boolean {
  const err = e as { type?: string; message?: string };
  return err?.type === 'UNKNOWN_TOPIC_OR_PARTITION' || /does not host this topic/i.test(err?.message ?? '');
}

/**
 * The end offsets (high watermarks) by partition of each of `topics` that exists; a missing
 * topic is left out, and never asked for (see partitionZeroRange).
 */
export async function topicEnds(admin: Admin, topics: readonly string[]): Promise<Map<string, Map<number, bigint>>> {
  const out = new Map<string, Map<number, bigint>>();
  if (topics.length === 0) return out;
  const existing = new Set(await admin.listTopics());
  for (const topic of topics) {
    if (!existing.has(topic)) continue;
    try {
      const offs = await admin.fetchTopicOffsets(topic);
      out.set(topic, new Map(offs.map((o) => [o.partition, BigInt(o.high)])));
    } catch (e) {
      if (!isUnknownTopic(e)) throw e; // deleted meanwhile: left out
    }
  }
  return out;
}

/**
 * Offsets [low, high) of partition 0, or throws TopicNotFoundError. With `cluster`, a topic that
 * is not listed is asked for alone: a principal without READ (DESCRIBE) on it gets a
 * NotAuthorizedError naming that ACL instead of waiting for a topic that exists.
 */
export async function partitionZeroRange(admin: Admin, topic: string, cluster?: ReaderCluster): Promise<{ low: bigint; high: bigint }> {
  // Look the topic up in the full topic list first: asking kafkajs for the offsets of a missing
  // topic makes it part of the shared client's metadata refreshes for a while.
  if (!(await admin.listTopics()).includes(topic)) {
    if (cluster) {
      const refused = notAuthorized(await findTopicProblem(cluster.kafka, topic).catch(() => null), [readTopicAcl(topic)], cluster.settings);
      if (refused) throw refused;
    }
    throw new TopicNotFoundError(topic);
  }
  let offs;
  try {
    offs = await admin.fetchTopicOffsets(topic);
  } catch (e) {
    if (isUnknownTopic(e)) throw new TopicNotFoundError(topic);
    throw notAuthorized(e, [readTopicAcl(topic)], cluster?.settings) ?? e;
  }
  const p0 = offs.find((o) => o.partition === 0);
  if (!p0) throw new TopicNotFoundError(topic);
  return { low: BigInt(p0.low), high: BigInt(p0.high) };
}

/**
 * The kafkajs consumer of a reader of our own (a throwaway group that never commits, no topic
 * auto-creation, read_committed: kafkajs's default isolation drops aborted transactional records).
 */
export function readerConsumer(kafka: Kafka, groupId: string, maxWaitTimeMs = 500): Consumer {
  return kafka.consumer({
    groupId,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: maxWaitTimeMs,
    sessionTimeout: 30000,
    heartbeatInterval: 3000,
    retry: { retries: 10 },
  });
}

/** Disconnects a consumer; one that is gone already is fine. */
export async function disconnectQuietly(consumer: Consumer, timeoutMs = 10000): Promise<void> {
  // bounded: a kafkajs consumer stopped in the middle of a join can wait out its retries, and
  // a node's close must not (it goes on disconnecting in the background)
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([consumer.disconnect(), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
  } catch {
    /* already gone */
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/**
 * Group-coordinator states that pass by themselves: a coordinator loading the group offsets of a
 * (re)started broker or of a cluster's first group, a coordinator moving, a rebalance.
 */
const PASSING_COORDINATOR_STATES = new Set([
  // kafkajs's names for error codes 14, 15, 16 and 27 (node_modules/kafkajs/src/protocol/error.js)
  'GROUP_LOAD_IN_PROGRESS', 'GROUP_COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR_FOR_GROUP', 'REBALANCE_IN_PROGRESS',
  // the same codes under Kafka's own names (what a Java client or a newer kafkajs calls them)
  'COORDINATOR_LOAD_IN_PROGRESS', 'COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR',
]);

/** Whether a consumer failure (or its cause, under kafkajs's retries) is one of PASSING_COORDINATOR_STATES. */
export function passingCoordinatorState(err: unknown): boolean {
  let cur: unknown = err;
  for (let i = 0; cur && typeof cur === 'object' && i < 6; i++) {
    const e = cur as { type?: string; cause?: unknown; originalError?: unknown };
    if (e.type && PASSING_COORDINATOR_STATES.has(e.type)) return true;
    cur = e.cause ?? e.originalError;
  }
  return false;
}

export class TopicReader {
  private consumer: Consumer | null = null;
  private loaded = false;
  private stopped = false;
  private high = 0n;
  private low = 0n;
  private position = 0n;
  readonly groupId: string;
  private readonly groupPrefix: string;

  constructor(private readonly kafka: Kafka, private readonly admin: Admin, private readonly opts: TopicReaderOptions) {
    this.groupPrefix = opts.groupPrefix ?? '__mm2-node-red-reader';
    this.groupId = `${this.groupPrefix}-${randomUUID()}`;
  }

  get isLoaded(): boolean {
    return this.loaded;
  }

  /** Resolves when the initial load is complete (or rejects if the topic is missing). */
  async start(): Promise<void> {
    const { low, high } = await partitionZeroRange(this.admin, this.opts.topic, { kafka: this.kafka, settings: this.opts.settings });
    if (this.stopped) return; // stop() came first: start nothing
    this.low = low;
    this.high = high;
    this.position = low;
    const loadedP = new Promise<void>((resolve) => {
      this.markLoaded = () => {
        if (this.loaded) return;
        this.loaded = true;
        this.opts.onProgress?.(this.high - this.low, this.high - this.low);
        this.opts.onLoaded?.();
        resolve();
      };
    });
    this.opts.onProgress?.(0n, high - low);
    if (high <= low) {
      this.markLoaded();
      if (!this.opts.tail) return loadedP;
    }
    const consumer = readerConsumer(this.kafka, this.groupId, this.opts.maxWaitTimeMs);
    this.consumer = consumer;
    consumer.on(consumer.events.END_BATCH_PROCESS, (ev) => {
      // Batches with only control records or compacted gaps advance the position too.
      const last = BigInt(ev.payload.lastOffset);
      if (ev.payload.partition === 0 && last + 1n > this.position) this.position = last + 1n;
      this.checkLoaded();
    });
    consumer.on(consumer.events.CRASH, (ev) => {
      const err = ev.payload.error as Error;
      if (!this.opts.onError) return;
      // the group's coordinator loading or moving: the broker answered, kafkajs restarts the consumer
      if (ev.payload.restart && passingCoordinatorState(err)) return;
      void this.explained(err).then((e) => this.opts.onError?.(e));
    });
    await consumer.connect();
    if (this.stopped) return this.abandon(consumer);
    await consumer.subscribe({ topics: [this.opts.topic], fromBeginning: true });
    if (this.stopped) return this.abandon(consumer);
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        if (partition !== 0 || this.stopped) return;
        const offset = BigInt(message.offset);
        this.position = offset + 1n;
        this.opts.onRecord({ key: message.key, value: message.value, offset, timestamp: Number(message.timestamp) });
        if (!this.loaded) {
          const read = this.position - this.low;
          if (read % 500n === 0n) this.opts.onProgress?.(read, this.high - this.low);
        }
        this.checkLoaded();
      },
    });
    if (this.stopped) return this.abandon(consumer);
    await loadedP;
    if (!this.opts.tail) await this.stop();
  }

  /** The ACLs this reader needs: READ on its topic and on its throwaway group's prefix. */
  get acls(): AclNeed[] {
    return [readTopicAcl(this.opts.topic), { resource: 'Group', name: this.groupPrefix, prefixed: true, operations: ['READ'] }];
  }

  /** A consumer failure, as a NotAuthorizedError naming the ACL when the broker refused (consumerRefusal). */
  private async explained(err: Error): Promise<Error> {
    return (await consumerRefusal(this.kafka, this.groupId, err, this.acls, this.opts.settings)) ?? err;
  }

  /** stop() ran while start() was connecting: make sure the consumer it raced with is gone. */
  private abandon(consumer: Consumer): Promise<void> {
    return disconnectQuietly(consumer);
  }

  private markLoaded: () => void = () => {};

  private checkLoaded(): void {
    if (!this.loaded && this.position >= this.high) this.markLoaded();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const c = this.consumer;
    this.consumer = null;
    if (c) await disconnectQuietly(c);
  }
}
