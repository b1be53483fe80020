/**
 * MM2's internal topics (offset syncs, checkpoints, heartbeats) are single-partition,
 * compacted topics. This is how MM2 creates them (MirrorUtils.createSinglePartitionCompactedTopic):
 * 1 partition, `cleanup.policy=compact`, the configured replication factor, and "already
 * exists" (or not allowed to create) is fine. Unlike kafkajs's createTopics, we then read the
 * topic's config back so a pre-existing topic that is not compacted is reported.
 */
import type { Admin } from 'kafkajs';
import { ConfigResourceTypes } from 'kafkajs';
import { authorizationFailure, notAuthorized, type ClusterSettings } from './client';

export interface InternalTopicStatus {
  topic: string;
  /** true when this call created it, false when it existed already. */
  created: boolean;
  partitions: number;
  cleanupPolicy: string | undefined;
  /** Problems an operator should fix (not compacted, more than one partition). */
  warnings: string[];
}

/**
 * Why Kafka refuses `topic` as a topic name (at most 249 characters of letters, digits, '.', '_'
 * and '-', not '.' or '..'), naming `replication.policy.separator` when the separator made it
 * so; null when the name is valid.
 */
export function invalidTopicNameReason(topic: string, separator?: string): string | null {
  const bad = [...new Set(topic.replace(/[A-Za-z0-9._-]/g, ''))];
  let why: string | null = null;
  if (topic === '.' || topic === '..') why = `'${topic}' is not a topic name`;
  else if (topic.length === 0) why = 'the topic name is empty';
  else if (bad.length > 0) why = `topic name '${topic}' has characters Kafka does not allow (${bad.map((c) => `'${c}'`).join(' ')}; only letters, digits, '.', '_' and '-')`;
  else if (topic.length > 249) why = `topic name '${topic.slice(0, 40)}…' is longer than Kafka's 249 characters`;
  if (!why) return null;
  const sepBad = separator !== undefined && separator !== '' && /[^A-Za-z0-9._-]/.test(separator);
  return sepBad || (separator !== undefined && bad.some((c) => separator.includes(c)))
    ? `${why}: it is built with replication.policy.separator '${separator}'; set replication.policy.separator to characters Kafka allows in topic names (MM2's default is '.')`
    : why;
}

/**
 * The replication factor to create a topic with on a cluster: the one asked, lowered to the
 * cluster's broker count when the cluster has fewer brokers (`lowered` says so); -1, the
 * brokers' default.replication.factor (as MM2 creates topics, KIP-464), as it is.
 */
export async function fittedReplicationFactor(admin: Admin, factor: number): Promise<{ factor: number; lowered?: { from: number; brokers: number } }> {
  if (factor === -1) return { factor };
  const brokers = (await admin.describeCluster()).brokers.length;
  if (brokers > 0 && brokers < factor) return { factor: brokers, lowered: { from: factor, brokers } };
  return { factor };
}

/** What creates an internal topic needs of a cluster connection. */
export interface InternalTopicCluster {
  readonly alias: string;
  /** For the principal a refusal names. */
  readonly settings?: ClusterSettings;
  admin(): Promise<Admin>;
}

/**
 * Creates an internal topic on a cluster (ensureInternalTopic) with the replication factor fitted
 * to the cluster (fittedReplicationFactor); `onLowered` hears when it was lowered.
 */
export async function ensureInternalTopicOn(
  cluster: InternalTopicCluster,
  topic: string,
  replicationFactor: number,
  separator: string | undefined,
  onLowered: (lowered: { topic: string; factor: number; brokers: number; alias: string }) => void,
): Promise<InternalTopicStatus> {
  const admin = await cluster.admin();
  const fit = await fittedReplicationFactor(admin, replicationFactor);
  if (fit.lowered) onLowered({ topic, factor: fit.lowered.from, brokers: fit.lowered.brokers, alias: cluster.alias });
  return ensureInternalTopic(admin, topic, fit.factor, separator, cluster.settings);
}

/** Error codes MM2 treats as "exists, or will be created by someone allowed to". */
const BENIGN = new Set(['TOPIC_ALREADY_EXISTS', 'UNSUPPORTED_VERSION', 'TOPIC_AUTHORIZATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED']);

export async function ensureInternalTopic(
  admin: Admin,
  topic: string,
  replicationFactor: number,
  /** `replication.policy.separator`, to name it when it made the topic name invalid. */
  separator?: string,
  /** The cluster's settings, for the principal a refusal names. */
  settings?: ClusterSettings,
): Promise<InternalTopicStatus> {
  let created = false;
  // MM2 goes on when it may not create the topic (someone allowed to may have); if the topic is
  // then missing, CREATE is the ACL to name
  let createRefused = false;
  // kafkajs refreshes the metadata of every topic its client has looked up before it creates a
  // topic; while another user of the shared admin is probing a topic that does not exist yet,
  // that refresh can fail with UNKNOWN_TOPIC_OR_PARTITION. Such failures are retried here.
  const deadline = Date.now() + 15000;
  for (;;) {
    try {
      created = await admin.createTopics({
        topics: [{ topic, numPartitions: 1, replicationFactor, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
        // kafkajs's own wait gives up after the client's retries while metadata propagates; wait below instead
        waitForLeaders: false,
      });
      break;
    } catch (e) {
      const err = e as { type?: string; errors?: Array<{ type?: string }>; message: string };
      const types = [err.type, ...(err.errors ?? []).map((x) => x.type)].filter(Boolean) as string[];
      if (types.some((t) => BENIGN.has(t))) {
        createRefused = !!authorizationFailure(e);
        break;
      }
      const transient = types.some((t) => t === 'UNKNOWN_TOPIC_OR_PARTITION' || t === 'LEADER_NOT_AVAILABLE' || t === 'NOT_CONTROLLER');
      if (!transient || Date.now() > deadline) {
        const invalid = invalidTopicNameReason(topic, separator);
        throw new Error(`cannot create internal topic ${topic}: ${invalid ?? err.message}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    await waitForTopic(admin, topic, createRefused ? 3000 : undefined);
  } catch (e) {
    // the topic is not there and we may not create it; or we may not see it (WRITE gives DESCRIBE)
    const refused = notAuthorized((e as { cause?: unknown }).cause ?? e, [{ resource: 'Topic', name: topic, operations: ['WRITE'] }], settings);
    if (refused) throw refused;
    if (createRefused) throw notAuthorized({ type: 'TOPIC_AUTHORIZATION_FAILED' }, [{ resource: 'Topic', name: topic, operations: ['CREATE'] }], settings) ?? e;
    throw e;
  }
  try {
    return await describeInternalTopic(admin, topic, created);
  } catch (e) {
    throw notAuthorized(e, [{ resource: 'Topic', name: topic, operations: ['DESCRIBE_CONFIGS'] }], settings) ?? e;
  }
}

/** Waits until every partition of a topic has a leader (metadata propagates after creation). */
export async function waitForTopic(admin: Admin, topic: string, timeoutMs = 15000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const md = await admin.fetchTopicMetadata({ topics: [topic] });
      const t = md.topics.find((x) => x.name === topic);
      if (t && t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0)) return;
    } catch (e) {
      last = e;
      // a refusal does not go away by waiting
      if (authorizationFailure(e)) throw Object.assign(new Error(`topic ${topic}: ${(e as Error).message}`), { cause: e });
    }
    if (Date.now() > deadline) {
      throw Object.assign(new Error(`topic ${topic} has no leader after ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`), { cause: last });
    }
    await new Promise((r) => setTimeout(r, 200));
  }
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
