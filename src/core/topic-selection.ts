import type { ReplicationPolicy } from './replication-policy';

/**
 * Which source topics MirrorSourceConnector replicates (MirrorSourceConnector.shouldReplicateTopic).
 */

/** Anything with MM2's TopicFilter shape (see ./filters). */
export interface TopicFilterLike {
  accept(topic: string): boolean;
}

export interface TopicSelectionOptions {
  policy: ReplicationPolicy;
  topicFilter: TopicFilterLike;
  /** Alias of the flow's target cluster. */
  targetAlias: string;
  /** `heartbeats.replication.enabled` (4.0+, default true). */
  heartbeatsReplicationEnabled?: boolean;
}

/**
 * True when `topic` already came from `targetAlias`, at any hop, so replicating it to the
 * target would close a cycle. Walks topicSource/upstreamTopic; stops at a non-remote topic or
 * when upstreamTopic returns the topic itself (IdentityReplicationPolicy cannot see cycles).
 */
export function isCycle(policy: ReplicationPolicy, targetAlias: string, topic: string): boolean {
  let current = topic;
  for (;;) {
    const source = policy.topicSource(current);
    if (source === null || source === undefined) return false;
    if (source === targetAlias) return true;
    const up = policy.upstreamTopic(current);
    if (up === null || up === undefined || up === current) return false;
    current = up;
  }
}

/**
 * MirrorSourceConnector.shouldReplicateTopic: the filter accepts the topic (or it is a
 * heartbeats topic and heartbeat replication is enabled), it is not internal, and it is not a cycle.
 */
export function shouldReplicateTopic(options: TopicSelectionOptions, topic: string): boolean {
  const { policy, topicFilter, targetAlias } = options;
  const heartbeatsEnabled = options.heartbeatsReplicationEnabled !== false;
  const selected = topicFilter.accept(topic) || (heartbeatsEnabled && policy.isHeartbeatsTopic(topic));
  return selected && !policy.isInternalTopic(topic) && !isCycle(policy, targetAlias, topic);
}

/** One replication flow, as the active/active check needs it. */
export interface FlowDirection {
  id: string;
  sourceAlias: string;
  targetAlias: string;
  /** Its replication policy is IdentityReplicationPolicy. */
  identity: boolean;
}

/**
 * The flows running opposite to `flow` over the same two clusters (by alias: MM2's cycle check
 * works on aliases), when `flow` or the opposite flow uses IdentityReplicationPolicy. Such a pair
 * copies every record back and forth: a remote topic keeps its name, so no policy can tell it came
 * from the other cluster (MM2 documents that IdentityReplicationPolicy cannot detect cycles).
 * Empty when the pair is safe (both DefaultReplicationPolicy) or there is no opposite flow.
 */
export function identityCycleFlows(flow: FlowDirection, others: readonly FlowDirection[]): FlowDirection[] {
  if (!flow.sourceAlias || !flow.targetAlias) return [];
  return others.filter(
    (o) => o.id !== flow.id && o.sourceAlias === flow.targetAlias && o.targetAlias === flow.sourceAlias && (flow.identity || o.identity),
  );
}

/** One replication flow with the ids its two clusters' brokers report (Metadata's cluster id). */
export interface FlowClusters extends FlowDirection {
  /** The ids of its cluster config nodes, to name them. */
  sourceNode: string;
  targetNode: string;
  sourceClusterId: string;
  targetClusterId: string;
}

/** Why a replication must not copy records between the clusters it names. */
export type ClusterConflict =
  /** Source and target are one Kafka cluster under two aliases: the flow would copy its own remote topics again and again. */
  | { kind: 'same-cluster'; clusterId: string }
  /**
   * Another flow replicates the other way between the same two clusters (by cluster id) and the
   * pair cannot see its cycles: either uses IdentityReplicationPolicy (remote topics keep their
   * names), or the two flows' aliases are not each other's (east -> west beside west2 -> east2:
   * MM2's cycle check compares aliases, so `west2.east.orders` goes back as `east.west2.east.orders`,
   * and so on).
   */
  | { kind: 'opposite-loop'; other: FlowClusters; why: 'identity' | 'aliases' };

/**
 * What makes `flow` copy records round in circles, found by the clusters' ids rather than their
 * aliases (two aliases may name one cluster). Empty when the flow is safe to run beside `others`.
 * The alias check (identityCycleFlows) stays for flows whose clusters cannot be asked yet.
 */
export function clusterConflicts(flow: FlowClusters, others: readonly FlowClusters[]): ClusterConflict[] {
  if (!flow.sourceClusterId || !flow.targetClusterId) return [];
  if (flow.sourceClusterId === flow.targetClusterId) return [{ kind: 'same-cluster', clusterId: flow.sourceClusterId }];
  const out: ClusterConflict[] = [];
  for (const o of others) {
    if (o.id === flow.id || o.sourceClusterId !== flow.targetClusterId || o.targetClusterId !== flow.sourceClusterId) continue;
    if (flow.identity || o.identity) out.push({ kind: 'opposite-loop', other: o, why: 'identity' });
    else if (o.sourceAlias !== flow.targetAlias || o.targetAlias !== flow.sourceAlias) out.push({ kind: 'opposite-loop', other: o, why: 'aliases' });
  }
  return out;
}
