/**
 * kafkajs's own cluster object, for the requests its admin client lacks or answers wrongly: the
 * private cluster factory (kafkajs keeps it behind a symbol, hence kafkajs pinned exactly at
 * 2.2.4 in package.json), the parts of its cluster and broker objects this package calls, and
 * whether a broker speaks a given API version.
 */
import type { Kafka } from 'kafkajs';
import type { KafkajsProtocolRequest } from './group-requests';

export interface ApiVersionRange {
  minVersion: number;
  maxVersion: number;
}

export interface InternalBroker {
  nodeId: number;
  /** ApiVersions of the broker (kafkajs stores them on connect). */
  versions?: Record<number, ApiVersionRange> | null;
  connectionPool: { send<T>(request: KafkajsProtocolRequest<T>): Promise<T> };
  disconnect(): Promise<void>;
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

export interface InternalCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  refreshMetadata(): Promise<void>;
  brokerPool: { brokers: Record<string, unknown> };
  findBroker(args: { nodeId: number | string }): Promise<InternalBroker>;
  findGroupCoordinator(args: { groupId: string }): Promise<InternalBroker>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadataIfNecessary(): Promise<void>;
  findTopicPartitionMetadata(topic: string): Array<{ partitionId: number }>;
  /** Leader node id -> the partitions of `partitions` it leads (from the metadata as it is). */
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  fetchTopicsOffset(topics: Array<{ topic: string; fromBeginning: boolean; partitions: Array<{ partition: number }> }>): Promise<
    Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>
  >;
}

/**
 * kafkajs keeps its cluster factory behind a private symbol; the admin-style OffsetCommit
 * needs it. The kafkajs version is pinned exactly in package.json because of this.
 */
export function internalCluster(kafka: Kafka, isolationLevel?: number): InternalCluster {
  const sym = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  if (!sym) throw new Error('this kafkajs version does not expose its cluster factory; the admin offset commit needs kafkajs 2.2.4');
  const factory = (kafka as unknown as Record<symbol, (o: object) => InternalCluster>)[sym];
  return factory({ allowAutoTopicCreation: false, ...(isolationLevel === undefined ? {} : { isolationLevel }) });
}

/** Whether the broker speaks this version of the API (from its ApiVersions answer). */
export function speaks(broker: InternalBroker, apiKey: number, version: number): boolean {
  const v = broker.versions?.[apiKey];
  return v !== undefined && v !== null && v.minVersion <= version && v.maxVersion >= version;
}

/**
 * A kafkajs cluster object of our own, for the requests kafkajs's clients lack (the group client's,
 * the checkpoints' batch producer's): connected on first use, again after a failed connect; closed
 * for good by `close`, which also ends a connect under way.
 */
export class OwnCluster {
  private cluster: InternalCluster | null = null;
  private connecting: Promise<InternalCluster> | null = null;
  private isClosed = false;

  /** `what`: the client, for the error after close ("the group client"). */
  constructor(private readonly kafka: Kafka, private readonly what: string) {}

  get closed(): boolean {
    return this.isClosed;
  }

  connected(): Promise<InternalCluster> {
    if (this.isClosed) return Promise.reject(new Error(`${this.what} is closed`));
    if (this.cluster) return Promise.resolve(this.cluster);
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

  /** Sends one of our requests over the broker's connection (a closed connection is dropped, as kafkajs does). */
  async send<T>(broker: InternalBroker, request: KafkajsProtocolRequest<T>): Promise<T> {
    try {
      return await broker.connectionPool.send(request);
    } catch (e) {
      if ((e as Error).name === 'KafkaJSConnectionClosedError') await broker.disconnect().catch(() => undefined);
      throw e;
    }
  }

  async close(): Promise<void> {
    const c = this.cluster;
    const connecting = this.connecting;
    this.isClosed = true;
    this.cluster = null;
    this.connecting = null;
    if (c) await c.disconnect();
    else if (connecting) await connecting.then((x) => x.disconnect(), () => undefined);
  }
}
