/**
 * MM2's internal topics (offset syncs, checkpoints, heartbeats) are single-partition,
 * compacted topics. This is how MM2 creates them (MirrorUtils.createSinglePartitionCompactedTopic):
 * 1 partition, `cleanup.policy=compact`, the configured replication factor, and "already
 * exists" (or not allowed to create) is fine. Unlike kafkajs's createTopics, we then read the
 * topic's config back so a pre-existing topic that is not compacted is reported.
 */
import type { Admin } from 'kafkajs';
import { ConfigResourceTypes } from 'kafkajs';

export interface InternalTopicStatus {
  topic: string;
  /** true when this call created it, false when it existed already. */
  created: boolean;
  partitions: number;
  cleanupPolicy: string | undefined;
  /** Problems an operator should fix (not compacted, more than one partition). */
  warnings: string[];
}

/** Error codes MM2 treats as "exists, or will be created by someone allowed to". */
const BENIGN = new Set(['TOPIC_ALREADY_EXISTS', 'UNSUPPORTED_VERSION', 'TOPIC_AUTHORIZATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED']);

export async function ensureInternalTopic(
  admin: Admin,
  topic: string,
  replicationFactor: number,
): Promise<InternalTopicStatus> {
  let created = false;
  try {
    created = await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
      waitForLeaders: true,
    });
  } catch (e) {
    const err = e as { type?: string; errors?: Array<{ type?: string }>; message: string };
    const types = [err.type, ...(err.errors ?? []).map((x) => x.type)].filter(Boolean) as string[];
    if (!types.some((t) => BENIGN.has(t))) {
      throw new Error(`cannot create internal topic ${topic}: ${err.message}`);
    }
  }
  return describeInternalTopic(admin, topic, created);
}

export async function describeInternalTopic(admin: Admin, topic: string, created = false): Promise<InternalTopicStatus> {
  const md = await admin.fetchTopicMetadata({ topics: [topic] });
  const partitions = md.topics[0]?.partitions.length ?? 0;
  const cfg = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['cleanup.policy'] }],
  });
  const cleanupPolicy = cfg.resources[0]?.configEntries.find((c) => c.configName === 'cleanup.policy')?.configValue;
  const warnings: string[] = [];
  if (cleanupPolicy !== undefined && !cleanupPolicy.split(',').map((s) => s.trim()).includes('compact')) {
    warnings.push(`${topic} has cleanup.policy=${cleanupPolicy}; MM2 expects compact (set it with kafka-configs --alter --add-config cleanup.policy=compact)`);
  }
  if (partitions > 1) warnings.push(`${topic} has ${partitions} partitions; MM2 reads and writes partition 0 only`);
  return { topic, created, partitions, cleanupPolicy, warnings };
}
