/**
 * Consumer-group I/O that MM2 does through its admin client, on kafkajs:
 * listing groups, reading committed offsets, describing a group's state one group at a time
 * (kafkajs fails a whole describe batch on one bad group), log-end offsets, and writing
 * offsets the way MM2's `alterConsumerGroupOffsets` does: one OffsetCommit per group with no
 * member id and generation -1, which the broker accepts only for groups with no members.
 * kafkajs's `setOffsets` joins the group as a member and is deliberately not used.
 */
import type { Admin, Kafka } from 'kafkajs';

export interface CommittedOffset {
  topic: string;
  partition: number;
  /** null when the partition has no committed offset. */
  offset: bigint | null;
  metadata: string;
}

/** Group ids on the cluster (consumer groups and groups with an empty protocol type). */
export async function listConsumerGroups(admin: Admin): Promise<string[]> {
  const { groups } = await admin.listGroups();
  return groups
    .filter((g) => g.protocolType === 'consumer' || g.protocolType === '' || g.protocolType === undefined)
    .map((g) => g.groupId)
    .sort();
}

/** Every committed offset of the group (all topics). Partitions without a commit come back with offset null. */
export async function fetchCommittedOffsets(admin: Admin, groupId: string): Promise<CommittedOffset[]> {
  const topics = await admin.fetchOffsets({ groupId });
  const out: CommittedOffset[] = [];
  for (const t of topics) {
    for (const p of t.partitions) {
      const off = BigInt(p.offset);
      out.push({ topic: t.topic, partition: p.partition, offset: off < 0n ? null : off, metadata: p.metadata ?? '' });
    }
  }
  return out;
}

export interface GroupState {
  /** Classic group state as the coordinator reports it: Empty, Stable, PreparingRebalance, CompletingRebalance, Dead;
   * undefined when the group does not exist (or the classic describe cannot see it). */
  state: string | undefined;
  members: number;
  /** Set when describing failed; the group is then treated as possibly active by callers that must be safe. */
  error?: string;
}

/** Describes one group; never throws. */
export async function describeGroupState(admin: Admin, groupId: string): Promise<GroupState> {
  try {
    const { groups } = await admin.describeGroups([groupId]);
    const g = groups[0];
    if (!g) return { state: undefined, members: 0 };
    if (g.state === 'Dead' && g.members.length === 0) return { state: 'Dead', members: 0 };
    return { state: g.state, members: g.members.length };
  } catch (e) {
    const err = e as { type?: string; message?: string };
    if (err.type === 'GROUP_ID_NOT_FOUND') return { state: undefined, members: 0 };
    return { state: 'Unknown', members: 0, error: err.message ?? String(e) };
  }
}

/** Log-end offsets (high watermarks) of a topic; an empty list when the topic does not exist. */
export async function fetchEndOffsets(admin: Admin, topic: string): Promise<Array<{ partition: number; offset: bigint }>> {
  if (!(await admin.listTopics()).includes(topic)) return []; // see partitionZeroRange
  try {
    const offs = await admin.fetchTopicOffsets(topic);
    return offs.map((o) => ({ partition: o.partition, offset: BigInt(o.high) }));
  } catch (e) {
    const err = e as { type?: string; message?: string };
    if (err.type === 'UNKNOWN_TOPIC_OR_PARTITION' || /does not host this topic|UNKNOWN_TOPIC/i.test(err.message ?? '')) return [];
    throw e;
  }
}

export interface AdminCommitResult {
  ok: boolean;
  /** UNKNOWN_MEMBER_ID (the group has members: untouched), or another Kafka error type. */
  errorType?: string;
  message?: string;
}

interface InternalBroker {
  nodeId: number;
  offsetFetch(args: { groupId: string; topics: never[] }): Promise<{
    responses: Array<{ topic: string; partitions: Array<{ partition: number; offset: string; metadata: string | null; errorCode: number }> }>;
  }>;
  offsetCommit(args: {
    groupId: string;
    groupGenerationId: number;
    memberId: string;
    retentionTime?: number;
    topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: string; metadata: string | null }> }>;
  }): Promise<unknown>;
}

interface InternalCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  findBroker(args: { nodeId: number }): Promise<InternalBroker>;
  findGroupCoordinator(args: { groupId: string }): Promise<InternalBroker>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadataIfNecessary(): Promise<void>;
  findTopicPartitionMetadata(topic: string): Array<{ partitionId: number }>;
  fetchTopicsOffset(topics: Array<{ topic: string; fromBeginning: boolean; partitions: Array<{ partition: number }> }>): Promise<
    Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>
  >;
}

/**
 * kafkajs keeps its cluster factory behind a private symbol; the admin-style OffsetCommit
 * needs it. The kafkajs version is pinned exactly in package.json because of this.
 */
function internalCluster(kafka: Kafka, isolationLevel?: number): InternalCluster {
  const sym = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  if (!sym) throw new Error('this kafkajs version does not expose its cluster factory; the admin offset commit needs kafkajs 2.2.4');
  const factory = (kafka as unknown as Record<symbol, (o: object) => InternalCluster>)[sym];
  return factory({ allowAutoTopicCreation: false, ...(isolationLevel === undefined ? {} : { isolationLevel }) });
}

/**
 * Why the coordinator of `groupId` cannot be found, as the broker says it (e.g. a
 * GROUP_AUTHORIZATION_FAILED KafkaJSProtocolError), or null when it can: kafkajs replaces the
 * broker's answer with a bare "Failed to find group coordinator".
 */
export async function findCoordinatorProblem(kafka: Kafka, groupId: string): Promise<unknown> {
  const cluster = internalCluster(kafka) as InternalCluster & { brokerPool?: { seedBroker?: { findGroupCoordinator(a: { groupId: string; coordinatorType: number }): Promise<unknown> } } };
  await cluster.connect();
  try {
    const seed = cluster.brokerPool?.seedBroker;
    if (!seed) return null;
    await seed.findGroupCoordinator({ groupId, coordinatorType: 0 });
    return null;
  } catch (e) {
    return e;
  } finally {
    await cluster.disconnect().catch(() => undefined);
  }
}

/** kafkajs's READ_COMMITTED isolation level (ListOffsets answers the last stable offset). */
const READ_COMMITTED = 1;

/**
 * The last stable offsets (read_committed end offsets: below any open transaction) of every
 * partition of `topic`. kafkajs's admin asks ListOffsets with read_uncommitted (the high
 * watermark), so this uses a short-lived cluster object of our own.
 */
export async function fetchStableEndOffsets(kafka: Kafka, topic: string): Promise<Map<number, bigint>> {
  const cluster = internalCluster(kafka, READ_COMMITTED);
  await cluster.connect();
  try {
    await cluster.addTargetTopic(topic);
    await cluster.refreshMetadataIfNecessary();
    const partitions = cluster.findTopicPartitionMetadata(topic).map((p) => ({ partition: p.partitionId }));
    const [res] = await cluster.fetchTopicsOffset([{ topic, fromBeginning: false, partitions }]);
    return new Map((res?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
  } finally {
    await cluster.disconnect().catch(() => undefined);
  }
}

/** Coordinator errors after which the cached coordinator of a group is looked up again. */
const COORDINATOR_MOVED = new Set(['NOT_COORDINATOR', 'NOT_COORDINATOR_FOR_GROUP', 'COORDINATOR_NOT_AVAILABLE', 'GROUP_COORDINATOR_NOT_AVAILABLE', 'COORDINATOR_LOAD_IN_PROGRESS', 'GROUP_LOAD_IN_PROGRESS']);

/** A lazily connected kafkajs cluster object of our own (for the requests kafkajs's admin lacks). */
abstract class InternalClusterClient {
  private cluster: InternalCluster | null = null;
  private connecting: Promise<InternalCluster> | null = null;
  private coordinators = new Map<string, number>();
  /** Requests sent, by Kafka API (for the benchmark and diagnostics). */
  readonly requests: Record<string, number> = { FindCoordinator: 0 };
  constructor(protected readonly kafka: Kafka) {}

  protected async connected(): Promise<InternalCluster> {
    if (this.cluster) return this.cluster;
    if (!this.connecting) {
      const c = internalCluster(this.kafka);
      this.connecting = c.connect().then(
        () => (this.cluster = c),
        (e) => {
          this.connecting = null;
          throw e;
        },
      );
    }
    return this.connecting;
  }

  /**
   * Runs `fn` with the coordinator of a group, remembered per group (kafkajs's admin asks for it
   * before every request); a moved or loading coordinator is looked up again, and `fn` tried up to five times.
   */
  protected async withCoordinator<T>(groupId: string, fn: (broker: InternalBroker) => Promise<T>): Promise<T> {
    const cluster = await this.connected();
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn(await this.coordinator(cluster, groupId));
      } catch (e) {
        const type = (e as { type?: string }).type ?? '';
        // a coordinator that moved or is still loading (a new __consumer_offsets, a restarted
        // broker) answers again shortly: a few bounded tries
        if (attempt < 4 && COORDINATOR_MOVED.has(type)) {
          this.coordinators.delete(groupId);
          await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
          continue;
        }
        throw e;
      }
    }
  }

  private async coordinator(cluster: InternalCluster, groupId: string): Promise<InternalBroker> {
    const known = this.coordinators.get(groupId);
    if (known !== undefined) {
      try {
        return await cluster.findBroker({ nodeId: known });
      } catch {
        this.coordinators.delete(groupId);
      }
    }
    this.requests.FindCoordinator++;
    const broker = await cluster.findGroupCoordinator({ groupId });
    this.coordinators.set(groupId, broker.nodeId);
    if (this.coordinators.size > 100000) this.coordinators.clear();
    return broker;
  }

  async close(): Promise<void> {
    const c = this.cluster;
    this.cluster = null;
    this.connecting = null;
    this.coordinators.clear();
    if (c) await c.disconnect();
  }
}

/**
 * Commits offsets for a group as an administrator: generation -1, empty member id. The broker
 * accepts it only when the group has no members (classic and KIP-848 groups alike) and
 * answers UNKNOWN_MEMBER_ID otherwise, which we report as `{ ok: false, errorType: 'UNKNOWN_MEMBER_ID' }`.
 */
export class AdminOffsetCommitter extends InternalClusterClient {
  async commit(groupId: string, offsets: Array<{ topic: string; partition: number; offset: bigint; metadata?: string }>): Promise<AdminCommitResult> {
    if (offsets.length === 0) return { ok: true };
    const byTopic = new Map<string, Array<{ partition: number; offset: string; metadata: string | null }>>();
    for (const o of offsets) {
      const list = byTopic.get(o.topic) ?? [];
      list.push({ partition: o.partition, offset: o.offset.toString(), metadata: o.metadata ?? '' });
      byTopic.set(o.topic, list);
    }
    try {
      await this.withCoordinator(groupId, (coordinator) =>
        coordinator.offsetCommit({
          groupId,
          groupGenerationId: -1,
          memberId: '',
          retentionTime: -1,
          topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
        }),
      );
      return { ok: true };
    } catch (e) {
      const err = e as { type?: string; message?: string };
      return { ok: false, errorType: err.type ?? 'UNKNOWN', message: err.message ?? String(e) };
    }
  }

}


/**
 * Reads groups' committed offsets with one OffsetFetch per group, with each group's coordinator
 * remembered: kafkajs's admin.fetchOffsets asks for the coordinator before every fetch, which
 * is half of a checkpoint cycle's round trips.
 */
export class GroupOffsetFetcher extends InternalClusterClient {
  override readonly requests = { FindCoordinator: 0, OffsetFetch: 0 };

  /** Every committed offset of the group, as fetchCommittedOffsets returns them. */
  async fetch(groupId: string): Promise<CommittedOffset[]> {
    return this.withCoordinator(groupId, async (broker) => {
      // an empty topic list goes out as a null array: all committed offsets of the group
      this.requests.OffsetFetch++;
      const { responses } = await broker.offsetFetch({ groupId, topics: [] });
      const out: CommittedOffset[] = [];
      for (const t of responses) {
        for (const p of t.partitions) {
          const off = BigInt(p.offset);
          out.push({ topic: t.topic, partition: p.partition, offset: off < 0n ? null : off, metadata: p.metadata ?? '' });
        }
      }
      return out;
    });
  }}
