/** The records MM2 keeps in its internal topics, as plain values. Offsets are int64 as bigint. */

/** One entry of the offset-syncs topic: source record `upstreamOffset` of `topic`-`partition`
 * (source-cluster name) landed at `downstreamOffset` of the remote partition on the target. */
export interface OffsetSync {
  topic: string;
  partition: number;
  upstreamOffset: bigint;
  downstreamOffset: bigint;
}

/** One entry of `<source>.checkpoints.internal`: `group` committed `upstreamOffset` on the source;
 * the equivalent safe position in the remote partition `topic`-`partition` on the target is `downstreamOffset`.
 * `topic` is the remote (already renamed) name. */
export interface Checkpoint {
  group: string;
  topic: string;
  partition: number;
  upstreamOffset: bigint;
  downstreamOffset: bigint;
  metadata: string;
}

/** One entry of the `heartbeats` topic. `timestamp` is epoch milliseconds. */
export interface Heartbeat {
  sourceClusterAlias: string;
  targetClusterAlias: string;
  timestamp: bigint;
}

/** An encoded record: the key and value bytes exactly as MM2 writes them. */
export interface EncodedRecord {
  key: Buffer;
  value: Buffer;
}

/**
 * A group's committed offset of one partition, as a cluster answers it (OffsetFetch, or a record
 * of `__consumer_offsets`): `offset` is null when the partition has no committed offset;
 * `metadata` is the commit's metadata ("" when none).
 */
export interface CommittedOffset {
  topic: string;
  partition: number;
  offset: bigint | null;
  metadata: string;
}

/** A topic-partition. */
export interface TopicPartition {
  topic: string;
  partition: number;
}
