/**
 * Log-end offsets of a topic's partitions: the high watermarks through kafkajs's admin
 * (fetchEndOffsets, telling a topic the principal may not read from one that does not exist),
 * and the last stable offsets (read_committed: below any open transaction) through a
 * short-lived kafkajs cluster object of our own (fetchStableEndOffsets).
 */
import type { Admin, Kafka } from 'kafkajs';
import { notAuthorized, type ClusterSettings } from './client';
import { findTopicProblem } from './broker-refusals';
import { internalCluster } from './kafkajs-cluster';

/**
 * Log-end offsets (high watermarks) of a topic; an empty list when the topic does not exist.
 * With `cluster`, a topic that is not listed is asked for alone: one the principal may not see
 * rejects with a NotAuthorizedError naming READ on it (what committing a group's offsets of it needs).
 * `known`: the caller read the topic's ends before (it exists, the principal may read it): the
 * topics are not listed first (one Metadata request less); a topic gone since answers an empty list.
 */
export async function fetchEndOffsets(admin: Admin, topic: string, cluster?: { kafka: Kafka; settings?: ClusterSettings }, known = false): Promise<Array<{ partition: number; offset: bigint }>> {
  if (!known && !(await admin.listTopics()).includes(topic)) {
    // see kafka/topic-reader partitionZeroRange
    const refused = cluster ? notAuthorized(await findTopicProblem(cluster.kafka, topic).catch(() => null), [{ resource: 'Topic', name: topic, operations: ['READ'] }], cluster.settings) : null;
    if (refused) throw refused;
    return [];
  }
  try {
    const offs = await admin.fetchTopicOffsets(topic);
    return offs.map((o) => ({ partition: o.partition, offset: BigInt(o.high) }));
  } catch (e) {
    const err = e as { type?: string; message?: string };
    if (err.type === 'UNKNOWN_TOPIC_OR_PARTITION' || /does not host this topic|UNKNOWN_TOPIC/i.test(err.message ?? '')) return [];
    throw e;
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
