/** The mirror's contract (engines/mirror-task): its options, the events it reports, its statistics. */
import type { ClusterConnection } from '../kafka/connection';
import type { MirrorTopicEvent, MirrorTopicsOptions } from './mirror-topics';
import type { MirrorOutstanding } from '../core/mirror-positions';

export type { MirrorOutstanding };

export type MirrorEvent =
  | { type: 'subscribed'; topics: string[]; partitions: number }
  | MirrorTopicEvent
  | { type: 'error'; where: MirrorErrorPlace; error: string; topic?: string }
  | { type: 'recovered'; where: MirrorErrorPlace }
  /** Partitions the group had no commit for now start where per-node groups of an earlier build stopped. */
  | { type: 'progress-adopted'; partitions: number; groups: string[] }
  /** The target acknowledged `records` copied records (evidence that the mirror copies now). */
  | { type: 'delivered'; records: number }
  /** Both clusters answered a probe (evidence that the mirror could copy now). */
  | { type: 'answered' }
  /** After a join: this instance copies `partitions` of the flow's `of`, `instances` share the flow (issue 25). */
  | { type: 'share'; partitions: number; of: number; instances: number }
  /** `records` copied now were on the target already (copied before a move or a crash; counted in stats.duplicates). */
  | { type: 'duplicates'; topic: string; partition: number; records: number };


/** `source`/`target`: the cluster did not answer a probe; `delivery`: records wait on the source and none are copied. */
export type MirrorErrorPlace = 'refresh' | 'produce' | 'sync' | 'commit' | 'consumer' | 'syncs-topic' | 'source' | 'target' | 'delivery' | 'configs' | 'acls';

/** The topic management's settings (./mirror-topics), plus the record copy's. */
export interface MirrorOptions extends Omit<MirrorTopicsOptions, 'onEvent' | 'stopped' | 'sleep'> {
  offsetLagMax: bigint;
  /** Where offset syncs go; null when emit.offset-syncs.enabled=false. */
  offsetSyncs: { connection: ClusterConnection; topic: string; ensure: () => Promise<unknown> } | null;
  /** The mirror's own consumer group on the source (holds the at-least-once restart point): mirrorGroupId of the flow. */
  groupId: string;
  /**
   * The per-node groups of earlier builds (core/mirror-progress): a partition the group has no
   * commit for starts where the furthest of them stopped. Omitted: none are looked for.
   */
  legacyGroups?: (groupId: string) => boolean;
  onEvent: (e: MirrorEvent) => void;
  /** kafkajs consumer fetch wait; small values make stop and refresh faster. */
  maxWaitTimeInMs?: number;
  partitionsConsumedConcurrently?: number;
  /** probe(): a cluster that does not answer within this is reported (default 10 s). */
  probeTimeoutMs?: number;
  /** `sync.topic.configs.enabled`: the first refresh that works copies the topic configs (then syncConfigs() on the caller's interval). */
  syncTopicConfigs?: boolean;
  /** `sync.topic.acls.enabled`: the first refresh that works copies the topic ACLs (then syncAcls() on the caller's interval). */
  syncTopicAcls?: boolean;
  /** The consumer's session timeout (default 30 s): a dead instance's partitions move after it. */
  sessionTimeoutMs?: number;
  /** The back-off of a failed config or ACL sync, in ms (default 5 s, doubling up to 5 minutes). */
  syncRetryMs?: { first: number; max: number };
}

export interface MirrorStats {
  topics: string[];
  remoteTopics: Record<string, string>;
  partitions: number;
  records: number;
  bytes: number;
  syncsSent: number;
  syncsFailed: number;
  lagBySourcePartition: Record<string, number>;
  /** Source partitions this instance copies now (its share; all of them when it runs alone). */
  ownedPartitions: number;
  /** Instances of the flow in the mirror's group (1: alone). */
  instances: number;
  /** Records copied again because the target had them already (after a move or a crash); see core/mirror-share. */
  duplicates: number;
  committedPartitions: number;
  errors: Partial<Record<MirrorErrorPlace, string>>;
}
