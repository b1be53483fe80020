import type { ReplicationPolicy } from './replication-policy';

/**
 * The topic-name based helpers of MM2's MirrorClient / RemoteClusterUtils.
 * Each takes the list of topic names of one cluster. Where MirrorClient returns a Set we
 * return an array without duplicates, in the order of first appearance in `topics`.
 */

function unique(items: Iterable<string>): string[] {
  return Array.from(new Set(items));
}

/** Topics that are heartbeats topics (`heartbeats`, `a.heartbeats`, `b.a.heartbeats`, ...). */
export function heartbeatTopics(policy: ReplicationPolicy, topics: Iterable<string>): string[] {
  return unique(Array.from(topics).filter((t) => policy.isHeartbeatsTopic(t)));
}

/** Topics that are checkpoints topics (`<alias><isep>checkpoints<isep>internal`). */
export function checkpointTopics(policy: ReplicationPolicy, topics: Iterable<string>): string[] {
  return unique(Array.from(topics).filter((t) => policy.isCheckpointsTopic(t)));
}

/** Every cluster alias on the source chain of `topic`, stopping at a non-remote topic or a repeated alias. */
function allSources(policy: ReplicationPolicy, topic: string): string[] {
  const sources = new Set<string>();
  let current: string | null = topic;
  let source = policy.topicSource(current);
  while (source !== null && source !== undefined && !sources.has(source)) {
    sources.add(source);
    current = policy.upstreamTopic(current);
    if (current === null || current === undefined) break;
    source = policy.topicSource(current);
  }
  return Array.from(sources);
}

/** Aliases of all clusters upstream of this one, found through its heartbeats topics. */
export function upstreamClusters(policy: ReplicationPolicy, topics: Iterable<string>): string[] {
  return unique(heartbeatTopics(policy, topics).flatMap((t) => allSources(policy, t)));
}

/**
 * Hops from `topic` back to cluster `sourceClusterAlias`: 1 when its direct source is that
 * alias, 2 for the source's source, and so on; -1 when the chain ends (non-remote topic) or
 * an alias repeats (a cycle, possible with IdentityReplicationPolicy) before the alias is found.
 */
export function countHopsForTopic(policy: ReplicationPolicy, topic: string, sourceClusterAlias: string): number {
  const visited = new Set<string>();
  let current: string | null = topic;
  for (let hops = 1; ; hops++) {
    if (current === null || current === undefined) return -1;
    const source = policy.topicSource(current);
    if (source === null || source === undefined) return -1;
    if (source === sourceClusterAlias) return hops;
    if (visited.has(source)) return -1;
    visited.add(source);
    current = policy.upstreamTopic(current);
  }
}

/** Minimum hop count to `sourceClusterAlias` over all heartbeats topics, or -1 when none reaches it. */
export function replicationHops(policy: ReplicationPolicy, topics: Iterable<string>, sourceClusterAlias: string): number {
  let best = -1;
  for (const t of heartbeatTopics(policy, topics)) {
    const hops = countHopsForTopic(policy, t, sourceClusterAlias);
    if (hops !== -1 && (best === -1 || hops < best)) best = hops;
  }
  return best;
}

/** Topics that were replicated from another cluster: not internal and with a topic source. */
export function remoteTopics(policy: ReplicationPolicy, topics: Iterable<string>): string[] {
  return unique(Array.from(topics).filter((t) => !policy.isInternalTopic(t) && policy.topicSource(t) !== null));
}
