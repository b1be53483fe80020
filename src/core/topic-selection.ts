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
