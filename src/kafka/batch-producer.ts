/**
 * A producer of ready record batches (core/record-batch): one Produce v8 request per batch
 * (kafka/produce-request), acks=-1, sent to the partition's leader over a lazily connected kafkajs
 * cluster object of our own (as the group client sends its requests). Used for the checkpoints
 * topic, where kafkajs's producer made several objects per record (issue 24).
 *
 * The leader comes from the cluster's metadata; a leader error (the partition moved, no leader
 * yet, the topic not in the metadata yet) refreshes the metadata and sends again, a few bounded
 * times: the broker wrote nothing then. Anything else (a refused partition, a timeout, a closed
 * connection) rejects with the error, a refused partition as an Error with the Kafka error's
 * `type` (TOPIC_AUTHORIZATION_FAILED...), so that kafka/client explains it like kafkajs's own.
 */
import type { Kafka } from 'kafkajs';
import { backoffDelay } from '../core/backoff';
import type { BatchRecords } from '../core/record-batch';
import { Sleeps } from '../core/timers';
import { protocolError } from './group-requests';
import { OwnCluster, type InternalBroker, type InternalCluster } from './kafkajs-cluster';
import { encodeProduceV8, produceRequest } from './produce-request';

/** Errors after which the leader is looked up again (nothing was written). */
const LEADER_ERRORS = new Set(['NOT_LEADER_FOR_PARTITION', 'NOT_LEADER_OR_FOLLOWER', 'LEADER_NOT_AVAILABLE', 'UNKNOWN_TOPIC_OR_PARTITION', 'FENCED_LEADER_EPOCH', 'UNKNOWN_LEADER_EPOCH']);
const LEADER_ERROR_NAMES = new Set(['KafkaJSBrokerNotFound', 'KafkaJSMetadataNotLoaded']);
/** Sends of one batch at most (the first and the ones after a leader error). */
export const PRODUCE_ATTEMPTS = 4;
/** The broker's wait for the replicas' acknowledgement (kafkajs's producer default). */
export const PRODUCE_TIMEOUT_MS = 30000;
/** The wait before sending again after a leader error (core/backoff: doubled per try; kafkajs's producer waits ~300 ms first). */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 1000;

export class BatchProducer {
  private readonly own: OwnCluster;
  /** The waits between tries (a close ends them). */
  private readonly sleeps = new Sleeps();
  /** Requests sent, by Kafka API (for the benchmark, the tests and diagnostics). */
  readonly requests = { Produce: 0 };

  constructor(kafka: Kafka) {
    this.own = new OwnCluster(kafka, 'the batch producer');
  }

  private get closed(): boolean {
    return this.own.closed;
  }

  /**
   * Sends `records` as one batch to `partition` of `topic` and resolves with its base offset once
   * every in-sync replica has it (acks=-1); rejects on any failure (see the file's comment).
   */
  async produce(topic: string, partition: number, records: BatchRecords): Promise<bigint> {
    const cluster = await this.own.connected();
    const request = produceRequest(encodeProduceV8(topic, partition, records, -1, PRODUCE_TIMEOUT_MS));
    for (let attempt = 1; ; attempt++) {
      try {
        await cluster.addTargetTopic(topic);
        await cluster.refreshMetadataIfNecessary();
        const broker = await this.leaderOf(cluster, topic, partition);
        this.requests.Produce++;
        const res = await this.own.send(broker, request);
        const answer = res.partitions.find((p) => p.topic === topic && p.partition === partition);
        if (answer === undefined) throw new Error(`Produce v8 response: no answer for ${topic}-${partition}`);
        if (answer.errorCode !== 0) throw protocolError(answer.errorCode, `producing to ${topic}-${partition}`, answer.errorMessage);
        return answer.baseOffset;
      } catch (e) {
        const err = e as { type?: string; name?: string };
        const leaderMoved = LEADER_ERRORS.has(err.type ?? '') || LEADER_ERROR_NAMES.has(err.name ?? '');
        if (!leaderMoved || attempt >= PRODUCE_ATTEMPTS || this.closed) throw e;
        await cluster.refreshMetadata().catch(() => undefined);
        await this.sleeps.sleep(backoffDelay(attempt - 1, RETRY_FIRST_MS, RETRY_MAX_MS));
        if (this.closed) throw e;
      }
    }
  }

  private async leaderOf(cluster: InternalCluster, topic: string, partition: number): Promise<InternalBroker> {
    const leaders = cluster.findLeaderForPartitions(topic, [partition]);
    const nodeId = Object.keys(leaders)[0];
    if (nodeId === undefined) throw protocolError(3, `producing to ${topic}-${partition}`); // UNKNOWN_TOPIC_OR_PARTITION
    if (Number(nodeId) < 0) throw protocolError(5, `producing to ${topic}-${partition}`); // LEADER_NOT_AVAILABLE
    return cluster.findBroker({ nodeId });
  }

  async close(): Promise<void> {
    const closing = this.own.close();
    this.sleeps.wakeAll();
    await closing;
  }
}
