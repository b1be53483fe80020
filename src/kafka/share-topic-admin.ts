/**
 * The Kafka side of the polling split (core/share-topic): a look at `__consumer_offsets`'s
 * metadata (may this principal describe it?), and the creation of the flow's split topic on the
 * source, as MM2 creates its internal topics (MirrorUtils.createCompactedTopic): compacted, the
 * replication's factor (fitted to the cluster's brokers), "already exists" fine. Unlike MM2's
 * single-partition topics it has SHARE_TOPIC_PARTITIONS partitions: its partitions are the unit of
 * the split, as `__consumer_offsets`'s are on the event path. Nothing is ever written to it, so
 * it needs no WRITE and stays empty. Decides nothing.
 */
import type { Admin } from 'kafkajs';
import { OFFSETS_TOPIC } from '../core/group-ownership';
import { SHARE_TOPIC_PARTITIONS, type OffsetsTopicAccess } from '../core/share-topic';
import { authorizationFailure, notAuthorized, type AclNeed, type ClusterSettings } from './client';
import { fittedReplicationFactor, waitForTopic } from './internal-topics';

/** Whether the principal may describe `__consumer_offsets` (a metadata request for it). */
export async function offsetsTopicAccess(admin: Admin): Promise<OffsetsTopicAccess> {
  try {
    const md = await admin.fetchTopicMetadata({ topics: [OFFSETS_TOPIC] });
    return md.topics.some((t) => t.name === OFFSETS_TOPIC && t.partitions.length > 0) ? 'describable' : 'unknown';
  } catch (e) {
    return authorizationFailure(e) === 'TOPIC_AUTHORIZATION_FAILED' ? 'not-authorized' : 'unknown';
  }
}

/** What creating the split topic needs: CREATE (or the topic made beforehand) and DESCRIBE on it. */
export function shareTopicAcls(topic: string): AclNeed[] {
  return [{ resource: 'Topic', name: topic, operations: ['CREATE', 'DESCRIBE'] }];
}

/**
 * Creates the flow's split topic if it is missing; resolves with its partition count once every
 * partition has a leader. Rejects with a NotAuthorizedError naming CREATE / DESCRIBE when the
 * topic is missing and may not be created, or may not be described.
 */
export async function ensureShareTopic(admin: Admin, topic: string, replicationFactor: number, settings?: ClusterSettings): Promise<number> {
  const acls = shareTopicAcls(topic);
  const fit = await fittedReplicationFactor(admin, replicationFactor);
  let createRefused = false;
  try {
    await admin.createTopics({
      topics: [{ topic, numPartitions: SHARE_TOPIC_PARTITIONS, replicationFactor: fit.factor, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
      waitForLeaders: false,
    });
  } catch (e) {
    const err = e as { type?: string; errors?: Array<{ type?: string }> };
    const types = [err.type, ...(err.errors ?? []).map((x) => x.type)];
    // exists already (another instance made it), or someone allowed to creates it: the wait below tells
    createRefused = !!authorizationFailure(e);
    if (!types.includes('TOPIC_ALREADY_EXISTS') && !createRefused) throw e;
  }
  try {
    await waitForTopic(admin, topic, createRefused ? 3000 : undefined);
  } catch (e) {
    // may not see it (DESCRIBE), or it is missing and may not be made (CREATE)
    const refused = notAuthorized((e as { cause?: unknown }).cause ?? e, acls, settings);
    if (refused) throw refused;
    if (createRefused) throw notAuthorized({ type: 'TOPIC_AUTHORIZATION_FAILED' }, acls, settings) ?? e;
    throw e;
  }
  const md = await admin.fetchTopicMetadata({ topics: [topic] });
  return md.topics.find((t) => t.name === topic)?.partitions.length ?? 0;
}
