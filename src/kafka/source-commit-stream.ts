/**
 * Follows the source cluster's `__consumer_offsets` as a stream of committed-offset changes
 * (the way Burrow follows consumer groups): every partition of the topic, from the last stable
 * offsets taken at start, read_committed (a transactional offset commit shows only once its
 * transaction commits; kafkajs drops the records of aborted transactions), decoded by
 * core/consumer-offsets-record, batched within a short window (last value per group-partition).
 *
 * kafkajs has no manual assignment: the stream joins a throwaway consumer group of its own
 * (`<groupPrefix>-<uuid>`, `__` prefixed so MM2's default groups.exclude leaves it out) that never
 * commits; after every (re)join it seeks each partition to the position it has read up to, so a
 * rebalance neither skips nor replays records. Records of the stream's own groups are dropped.
 *
 * Shared by several instances (issue 25), the stream follows only the partitions of its instance's
 * share (`follow`): the others are paused, so an instance reads about its part of the topic. A
 * partition that joins the share is read from its last stable offset at that moment, never from
 * where it was paused (that would hand over commits older than what the owner reads in full next).
 *
 * Failures after start: kafkajs restarts the consumer itself on retriable errors (the stream
 * rejoins and seeks back to its positions); a non-retriable crash is reported through onError and
 * the stream stops (its owner falls back to polling or starts a new stream from fetched offsets).
 */
import { randomUUID } from 'node:crypto';
import type { Admin, Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { Batcher } from '../core/coalescing';
import { decodeConsumerOffsetsRecord, type ConsumerOffsetsRecord } from '../core/consumer-offsets-record';
import type { SourceOffsetChange } from '../core/source-offset-table';
import { fetchStableEndOffsets } from './end-offsets';
import { findCoordinatorProblem } from './broker-refusals';
import { disconnectQuietly, readerConsumer } from './topic-reader';
import { aclText, authorizationFailure, NotAuthorizedError, type AclNeed } from './client';

export const CONSUMER_OFFSETS_TOPIC = '__consumer_offsets';
/** Record type of a KIP-848 consumer group's metadata record (its classic counterpart is type 2, decoded as group-metadata). */
const CONSUMER_GROUP_METADATA_TYPE = 3;
const DEFAULT_GROUP_PREFIX = '__mm2-node-red-commits';
/** A follow() whose positioning failed is tried again after this long (ms). */
const FOLLOW_RETRY_MS = 1000;

/** One change of a group's committed offset (core/source-offset-table). */
export type { SourceOffsetChange };

export interface SourceCommitBatch {
  /** The last change per (group, topic, partition) within the window, in arrival order of their last change. */
  changes: SourceOffsetChange[];
  /**
   * Groups whose group record was tombstoned within the window (deleted, or removed when empty and
   * expired), and not written again after it: a group converted between the classic and consumer
   * protocols (the tombstone of its classic record, then its consumer group record, or the other
   * way round, written together) is not listed, its offsets stay. Apply these before `changes`:
   * a non-null change listed with a deleted group came after the deletion (the group was created
   * again). The offsets of a deleted group arrive as `offset: null` changes of their own; a group that only ever stored offsets (never
   * joined, generation 0) gets no group tombstone from Kafka 3.9, so its deletion shows only as those.
   */
  deletedGroups: string[];
  /** Records not understood in this batch (unknown types or versions, undecodable bytes). */
  skipped: number;
}

export interface SourceCommitStreamOptions {
  /** The source cluster's kafkajs objects (see ClusterConnection). */
  kafka: Kafka;
  admin: Admin;
  /** Changes within this window are delivered together, last value per (group, topic, partition) wins. Default 50. */
  batchMs?: number;
  /** The stream's own consumer group id prefix; records of groups with this prefix are dropped. */
  groupPrefix?: string;
  /** The principal the source connection authenticates as (for the ACL hint of NOT_AUTHORIZED), e.g. `User:alice`. */
  principal?: string;
  onBatch(batch: SourceCommitBatch): void;
  /** A non-retriable failure after start: the stream has stopped. */
  onError?(err: Error): void;
  /**
   * A fetch failed after start and kafkajs tries again (a broker that went away, a closed
   * connection): the source stopped answering, said at once rather than when kafkajs gives up.
   */
  onUnanswered?(reason: string): void;
  /** A fetch answered again after onUnanswered. */
  onAnswered?(): void;
  /** How long an empty fetch waits on the broker (ms, default 500); stop() waits at most about this long. */
  maxWaitTimeMs?: number;
}

/** The principal may not read `__consumer_offsets` or use the stream's consumer group (the shared refusal of kafka/client). */
export { NotAuthorizedError };

/** The ACLs the stream needs: follow __consumer_offsets in a throwaway consumer group of `groupPrefix`. */
export function commitStreamAcls(groupPrefix = DEFAULT_GROUP_PREFIX): AclNeed[] {
  return [
    { resource: 'Topic', name: CONSUMER_OFFSETS_TOPIC, operations: ['READ', 'DESCRIBE'] },
    { resource: 'Group', name: groupPrefix, prefixed: true, operations: ['READ'] },
  ];
}

/** Whether an error (or its cause) says the group coordinator is moving or loading: worth another try. */
function coordinatorBusy(err: unknown): boolean {
  let cur: unknown = err;
  for (let i = 0; cur && i < 6; i++) {
    const c = cur as { type?: string; message?: string; cause?: unknown; originalError?: unknown };
    if (/^(NOT_COORDINATOR|COORDINATOR_NOT_AVAILABLE|COORDINATOR_LOAD_IN_PROGRESS|GROUP_LOAD_IN_PROGRESS|REBALANCE_IN_PROGRESS)$/.test(c.type ?? '')) return true;
    if (/not the correct coordinator|coordinator is not available|coordinator is loading/i.test(c.message ?? '')) return true;
    cur = c.cause ?? c.originalError;
  }
  return false;
}

interface Pending {
  record: ConsumerOffsetsRecord | null;
}

export class SourceCommitStream {
  readonly stats = { records: 0, skipped: 0, batches: 0 };
  readonly groupId: string;
  private readonly prefix: string;
  private consumer: Consumer | null = null;
  private stopped = false;
  private running = false;
  /** Next offset to read, by partition of __consumer_offsets. */
  private readonly next = new Map<number, bigint>();
  private readonly batcher: Batcher<Pending>;
  private wake: () => void = () => {};
  private readonly batchMs: number;
  /** When the oldest change not yet delivered arrived. */
  private pendingSince = 0;
  /** When the last fetch answered (ms since the epoch; 0: none yet). */
  private lastFetch = 0;
  /** Fetches sent and not answered yet, by broker id. */
  private readonly fetching = new Set<number>();
  /** onUnanswered was called and no fetch answered since. */
  private unanswered = false;
  /** The partitions to follow (null: every one): see follow(). */
  private only: ReadonlySet<number> | null = null;
  /** Partitions assigned to the stream's consumer at its last join. */
  private assigned: number[] = [];
  /** Partitions paused because they are not followed; their `next` is stale. */
  private readonly pausedHere = new Set<number>();
  /** A follow() tried again after a failure (see followAgainLater). */
  private followRetry: ReturnType<typeof setTimeout> | null = null;
  /** The follow() under way (they take turns). */
  private following: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: SourceCommitStreamOptions) {
    this.prefix = o.groupPrefix ?? DEFAULT_GROUP_PREFIX;
    this.groupId = `${this.prefix}-${randomUUID()}`;
    this.batchMs = o.batchMs ?? 50;
    if (!Number.isFinite(this.batchMs) || this.batchMs < 0) {
      throw new RangeError(`batchMs: ${o.batchMs} is not a number of milliseconds >= 0 (the batching window, default 50)`);
    }
    this.batcher = new Batcher<Pending>({ maxItems: Number.POSITIVE_INFINITY, maxWaitMs: this.batchMs, onFlush: (items) => this.deliver(items) });
  }

  /** When the stream's last fetch answered (ms since the epoch; 0: none yet): a live stream fetches at least every maxWaitTimeMs. */
  get lastFetchAt(): number {
    return this.lastFetch;
  }

  /** The partitions of __consumer_offsets read now (paused ones left out), ascending. */
  get followedPartitions(): number[] {
    return this.assigned.filter((p) => !this.pausedHere.has(p)).sort((a, b) => a - b);
  }

  /**
   * Follows only `partitions` of __consumer_offsets (null: every one): the others are paused. A
   * partition followed again is read from its last stable offset now: resolves once it is
   * positioned there, so a commit made after this resolves is delivered (one made while it was
   * paused is not: its owner reads the groups in full). Before start() resolves it only notes the set.
   * Resolves with how many partitions are followed again.
   */
  follow(partitions: ReadonlySet<number> | null): Promise<number> {
    this.only = partitions === null ? null : new Set(partitions);
    const next = this.following.then(() => this.applyFollow());
    // a failed positioning (the source did not answer the end offsets) is tried again by itself:
    // the partitions would otherwise stay paused until the next share change or discovery
    this.following = next.then(() => undefined, () => this.followAgainLater());
    return next;
  }

  private followAgainLater(): void {
    if (this.stopped || this.followRetry !== null) return;
    this.followRetry = setTimeout(() => {
      this.followRetry = null;
      if (!this.stopped) this.follow(this.only).catch(() => undefined);
    }, FOLLOW_RETRY_MS);
  }

  private wanted(partition: number): boolean {
    return this.only === null || this.only.has(partition);
  }

  /** Pauses what is not followed, and positions and resumes what is followed again. */
  private async applyFollow(): Promise<number> {
    const c = this.consumer;
    if (!c || !this.running || this.stopped) return 0;
    const pause = this.assigned.filter((p) => !this.wanted(p) && !this.pausedHere.has(p));
    if (pause.length > 0) {
      c.pause([{ topic: CONSUMER_OFFSETS_TOPIC, partitions: pause }]);
      for (const p of pause) this.pausedHere.add(p);
    }
    const resume = [...this.pausedHere].filter((p) => this.wanted(p));
    if (resume.length === 0) return 0;
    const ends = await fetchStableEndOffsets(this.o.kafka, CONSUMER_OFFSETS_TOPIC);
    if (c !== this.consumer || this.stopped) return 0;
    const now = resume.filter((p) => this.wanted(p) && this.pausedHere.has(p));
    for (const p of now) {
      const at = ends.get(p) ?? this.next.get(p) ?? 0n;
      this.next.set(p, at);
      c.seek({ topic: CONSUMER_OFFSETS_TOPIC, partition: p, offset: at.toString() });
      this.pausedHere.delete(p);
    }
    if (now.length > 0) c.resume([{ topic: CONSUMER_OFFSETS_TOPIC, partitions: now }]);
    return now.length;
  }

  /** Next offset the stream reads, by partition of __consumer_offsets (for diagnostics and tests). */
  get positions(): ReadonlyMap<number, bigint> {
    return this.next;
  }

  /**
   * Resolves once positioned and fetching (the first fetch after the join answered): every
   * commit made after this resolves is delivered. Rejects with a
   * NotAuthorizedError (`code === 'NOT_AUTHORIZED'`) when the principal may not read
   * __consumer_offsets or use the stream's group.
   */
  async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.startInner();
        return;
      } catch (e) {
        // a coordinator that is moving or loading (a busy broker) answers the join again shortly
        if (!this.stopped && attempt < 4 && coordinatorBusy(e)) {
          const c = this.consumer;
          this.consumer = null;
          if (c) await disconnectQuietly(c);
          await new Promise((r) => setTimeout(r, 500 * attempt));
          if (!this.stopped) continue;
        }
        await this.fail(e);
      }
    }
  }

  /** Stops, then throws `e` (as a NotAuthorizedError naming the ACLs when that is what it is). */
  private async fail(e: unknown): Promise<never> {
    await this.stop();
    let denied = authorizationFailure(e);
    if (!denied && (e as Error)?.name === 'KafkaJSGroupCoordinatorNotFound') {
      denied = authorizationFailure(await findCoordinatorProblem(this.o.kafka, this.groupId).catch(() => null));
    }
    if (denied) throw new NotAuthorizedError(this.aclHint(denied), denied, commitStreamAcls(this.prefix), e);
    throw e;
  }

  /** Every ACL of the event path, whichever was refused: the node falls back to polling until all are granted. */
  private aclHint(denied: string): string {
    const who = this.o.principal ? ` for principal ${this.o.principal}` : '';
    return `not authorized to follow ${CONSUMER_OFFSETS_TOPIC} (${denied}): the event path needs the ACLs ${commitStreamAcls(this.prefix).map(aclText).join(' and ')}${who}`;
  }

  private async startInner(): Promise<void> {
    const topics = await this.o.admin.listTopics();
    if (!topics.includes(CONSUMER_OFFSETS_TOPIC)) {
      // the broker creates it with the first group; a principal without DESCRIBE does not see it either
      await this.o.admin.fetchTopicMetadata({ topics: [CONSUMER_OFFSETS_TOPIC] });
    }
    if (this.stopped) return;
    const ends = await fetchStableEndOffsets(this.o.kafka, CONSUMER_OFFSETS_TOPIC);
    for (const [p, off] of ends) this.next.set(p, off);
    if (this.stopped) return;
    const consumer = readerConsumer(this.o.kafka, this.groupId, this.o.maxWaitTimeMs);
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, (ev) => {
      // a (re)join abandons the fetches of before it: they did not fail
      this.fetching.clear();
      // runs synchronously inside the join, before the first fetch: every assigned partition
      // continues where the stream is, never at the group's reset position
      const parts = (ev.payload.memberAssignment as Record<string, number[]>)[CONSUMER_OFFSETS_TOPIC] ?? [];
      this.assigned = [...parts];
      // a rejoin after start: what is not followed (or was paused: its position is stale) stays paused
      // (a client restarted by kafkajs forgets its pauses); applyFollow resumes it from its end
      if (this.running) {
        const keep = parts.filter((p) => !this.wanted(p) || this.pausedHere.has(p));
        this.pausedHere.clear();
        for (const p of keep) this.pausedHere.add(p);
        if (keep.length > 0) consumer.pause([{ topic: CONSUMER_OFFSETS_TOPIC, partitions: keep }]);
        if (keep.some((p) => this.wanted(p))) queueMicrotask(() => void this.follow(this.only).catch(() => undefined));
      }
      for (const partition of parts) {
        if (this.pausedHere.has(partition)) continue;
        const at = this.next.get(partition) ?? 0n;
        this.next.set(partition, at);
        consumer.seek({ topic: CONSUMER_OFFSETS_TOPIC, partition, offset: at.toString() });
      }
    });
    consumer.on(consumer.events.END_BATCH_PROCESS, (ev) => {
      // batches of control records (transaction markers) or aborted records advance the position too
      const last = BigInt(ev.payload.lastOffset);
      const at = this.next.get(ev.payload.partition) ?? 0n;
      if (last + 1n > at) this.next.set(ev.payload.partition, last + 1n);
    });
    consumer.on(consumer.events.FETCH_START, (ev) => {
      const nodeId = ev.payload.nodeId;
      // a new fetch to a broker whose previous one never answered: that one failed (kafkajs
      // retries quietly, for many seconds, before it gives up)
      if (this.fetching.has(nodeId)) this.noAnswer(`a fetch of ${CONSUMER_OFFSETS_TOPIC} from broker ${nodeId} failed; the client is trying again`);
      this.fetching.add(nodeId);
    });
    consumer.on(consumer.events.FETCH, (ev) => {
      this.fetching.delete(ev.payload.nodeId);
      this.lastFetch = Date.now();
      if (this.unanswered) {
        this.unanswered = false;
        if (this.running && !this.stopped) this.o.onAnswered?.();
      }
    });
    consumer.on(consumer.events.CRASH, (ev) => {
      const err = ev.payload.error as Error;
      const restart = (ev.payload as { restart?: boolean }).restart;
      if (restart) this.noAnswer(err?.message ?? String(err));
      // before start() resolved, start() rejects with it; a restart keeps the stream's positions (GROUP_JOIN)
      if (this.stopped || restart || !this.running) return;
      this.o.onError?.(err);
      void this.stop();
    });
    await consumer.connect();
    if (this.stopped) return disconnectQuietly(consumer);
    await consumer.subscribe({ topics: [CONSUMER_OFFSETS_TOPIC], fromBeginning: false });
    if (this.stopped) return disconnectQuietly(consumer);
    // positioned = joined (the join seeks every partition to the stream's position) and one
    // fetch answered after it: a commit made later is read, whatever a fetch in flight did
    const positioned = new Promise<void>((resolve, reject) => {
      this.wake = resolve; // stop() while joining: start() returns
      let joinedOnce = false;
      const offJoin = consumer.on(consumer.events.GROUP_JOIN, () => {
        joinedOnce = true;
      });
      const offFetch = consumer.on(consumer.events.FETCH, () => {
        if (!joinedOnce) return;
        off();
        resolve();
      });
      const offCrash = consumer.on(consumer.events.CRASH, (ev) => {
        off();
        reject(ev.payload.error);
      });
      const off = (): void => {
        offJoin();
        offFetch();
        offCrash();
      };
    });
    await consumer.run({ autoCommit: false, eachBatch: (p) => this.onBatch(p) });
    if (this.stopped) return disconnectQuietly(consumer);
    await positioned;
    this.running = !this.stopped;
    // the share known before the stream stood
    if (this.running && this.only !== null) await this.follow(this.only);
  }

  /** The source stopped answering (said once until a fetch answers again). */
  private noAnswer(reason: string): void {
    if (this.stopped || !this.running || this.unanswered) return;
    this.unanswered = true;
    this.o.onUnanswered?.(reason);
  }

  private async onBatch({ batch }: EachBatchPayload): Promise<void> {
    if (this.stopped) return;
    for (const m of batch.messages) {
      this.stats.records++;
      let record: ConsumerOffsetsRecord | null;
      try {
        record = decodeConsumerOffsetsRecord(m.key, m.value);
      } catch {
        record = null;
      }
      if (this.batcher.size === 0) this.pendingSince = Date.now();
      this.batcher.add({ record });
    }
    // catching up, kafkajs hands over fetched batches back to back without letting timers run:
    // a window that is over is delivered here
    if (this.batcher.size > 0 && Date.now() - this.pendingSince >= this.batchMs) this.batcher.flush();
  }

  private ours(group: string | undefined): boolean {
    return group !== undefined && group.startsWith(`${this.prefix}-`);
  }

  private deliver(items: Pending[]): void {
    if (this.stopped || items.length === 0) return;
    const changes = new Map<string, SourceOffsetChange>();
    const deleted = new Set<string>();
    let skipped = 0;
    for (const { record: r } of items) {
      if (r === null) {
        skipped++;
        continue;
      }
      if ((r.type === 'group-metadata' || (r.type === 'ignored' && r.keyVersion === CONSUMER_GROUP_METADATA_TYPE)) && r.group !== undefined) {
        // a group record after the group's tombstone: converted between the classic and the
        // consumer protocol (the broker writes the tombstone of the one and the records of the
        // other together, and keeps the offsets), or deleted and created again (its offsets came
        // as tombstones of their own): the group is there, with the offsets the changes say
        deleted.delete(r.group);
        continue;
      }
      if (r.type === 'ignored' || r.type === 'group-metadata' || this.ours(r.group)) continue;
      if (r.type === 'group-delete') {
        // the broker tombstones the group's offsets before the group: those null changes stay
        deleted.add(r.group);
        continue;
      }
      const key = `${r.group}\u0000${r.topic}\u0000${r.partition}`;
      changes.delete(key); // keep arrival order of the last change
      changes.set(key, { group: r.group, topic: r.topic, partition: r.partition, offset: r.type === 'offset-commit' ? r.offset : null });
    }
    this.stats.skipped += skipped;
    if (changes.size === 0 && deleted.size === 0 && skipped === 0) return;
    this.stats.batches++;
    this.o.onBatch({ changes: [...changes.values()], deletedGroups: [...deleted], skipped });
  }

  /** Stops reading (also mid-fetch); changes not yet delivered are dropped. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.followRetry !== null) clearTimeout(this.followRetry);
    this.followRetry = null;
    this.wake();
    this.batcher.clear();
    const c = this.consumer;
    this.consumer = null;
    if (c) await disconnectQuietly(c);
  }
}
