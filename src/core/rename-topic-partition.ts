import type { TopicPartition } from './types';

/** The part of a replication policy that checkpoint renaming needs (structurally satisfied by the full policy). */
export interface RenamePolicy {
  /** Alias of the cluster `topic` was replicated from, or null when it is not a remote topic. */
  topicSource(topic: string): string | null;
  /** Name of `topic` on the cluster it originated on (all hops stripped). */
  originalTopic(topic: string): string;
  /** Name on the target of `topic` replicated from cluster `sourceClusterAlias`. */
  formatRemoteTopic(sourceClusterAlias: string, topic: string): string;
}

/**
 * MM2 `MirrorCheckpointTask.renameTopicPartition`: the name on the target cluster of the source
 * partition `topic`-`partition` that a checkpoint refers to.
 *
 * - A topic that itself came from the target cluster (`topicSource(topic) === targetAlias`)
 *   maps back to `originalTopic(topic)`: note originalTopic strips *all* hops, as MM2 does.
 * - Any other topic maps to `formatRemoteTopic(sourceAlias, topic)`.
 * - The partition number is unchanged.
 *
 * Example (Default policy, source `source1`, target `target2`): `topic3` -> `source1.topic3`,
 * `target2.topic3` -> `topic3`, `source6.topic7` -> `source1.source6.topic7`.
 */
export function renameTopicPartition(
  policy: RenamePolicy,
  sourceAlias: string,
  targetAlias: string,
  topic: string,
  partition: number,
): TopicPartition {
  const remoteTopic =
    policy.topicSource(topic) === targetAlias ? policy.originalTopic(topic) : policy.formatRemoteTopic(sourceAlias, topic);
  return { topic: remoteTopic, partition };
}
