/** The shapes of our two config nodes as flow nodes see them (RED.nodes.getNode(id)). */
import type { OffsetTranslationMode } from '../../core/offset-sync-store';
import type { Node } from './red';
import type { ClusterConnection } from '../../kafka/connection';
import type { ReplicationPolicy } from '../../core/replication-policy';
import type { InternalTopicStatus } from '../../kafka/internal-topics';
import type { OffsetSyncFeed } from '../../engines/offset-sync-feed';
import type { ReplicationRuntime } from '../../engines/replication-runtime';

export interface ClusterConfigNode extends Node {
  alias: string;
  connection: ClusterConnection | null;
  /** Problems with the settings; the connection is not created while there are any. */
  problems: string[];
}

export interface ReplicationConfigNode extends Node {
  sourceNode: ClusterConfigNode | null;
  targetNode: ClusterConfigNode | null;
  sourceAlias: string;
  targetAlias: string;
  policy: ReplicationPolicy | null;
  /** MM2 property map of the flow-wide settings (replication.policy.*, offset-syncs.topic.location, ...). */
  props: Record<string, string>;
  offsetSyncsLocation: 'source' | 'target';
  /** Ours, not MM2's: how the checkpoint side translates offsets ('precise' default, or 'mm2'). */
  offsetTranslation: OffsetTranslationMode;
  /** Of the internal topics; -1: the target broker's default.replication.factor. */
  replicationFactor: number;
  problems: string[];
  /** What the flow nodes of this replication share, held once (engines/replication-runtime): the checkpoint emitters' stores the group-offset writers read. */
  runtime: ReplicationRuntime;
  /** The offset-syncs topic name and the connection of the cluster that holds it. */
  offsetSyncs(): { topic: string; connection: ClusterConnection | null; alias: string };
  checkpointsTopic(): string;
  /**
   * The flow's one reader of the offset-syncs topic, fanned out to the nodes that subscribe
   * (mm2-checkpoint, mm2-failback, mm2-offset-syncs); a late subscriber gets the whole history first
   * (engines/offset-sync-feed). Stopped when the config node closes.
   */
  syncFeed: OffsetSyncFeed;
  /**
   * Asks both clusters (and those of the other replications deployed) for their cluster ids and
   * says, in words, why this flow must not copy records: source and target one cluster, or an
   * opposite flow between the same clusters that makes a loop (`text` in full, `status` short, for
   * a node's status). Empty: safe. Rejects when a cluster of this flow does not answer (ask again later).
   */
  clusterConflicts(): Promise<Array<{ text: string; status: string }>>;
  /** Creates an internal topic (1 partition, compacted) if missing; a factor above the broker count is lowered to it with a warning (-1 is left to the broker). */
  ensureTopic(connection: ClusterConnection, topic: string): Promise<InternalTopicStatus>;
}
