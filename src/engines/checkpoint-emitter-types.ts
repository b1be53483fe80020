/**
 * The checkpoint emitter's contract (engines/checkpoint-emitter): its options, the events it
 * reports, what a cycle returns, and the timings of its source reads.
 */
import type { CheckpointsHome } from './replication-runtime';
import type { DiscoveryResult } from '../core/group-discovery';
import type { NameFilter } from '../core/filters';
import type { OffsetTranslationMode } from '../core/offset-sync-store';
import type { RenamePolicy } from '../core/rename-topic-partition';
import type { Checkpoint, OffsetSync } from '../core/types';
import type { GroupCoverage, GroupCoverageEntry } from '../core/translation-cache';
import { coverageEntriesOf } from '../core/coverage-rows';
import { LatestCheckpoints, type LatestSource, type WrittenCheckpoint } from '../core/checkpoint-cycle';
import { uniteGroupPartitions } from '../core/cycle-selection';
import type { MembersOnTarget, ReadinessSummary, ReadinessThresholds } from '../core/readiness';
import type { NotReplicatedGroup } from '../core/group-types';
import type { ClusterConnection } from '../kafka/connection';
import type { GroupOwner } from './replication-shares';
import type { GroupPartitions, SourceOffsetsMode, SourceOffsetsOptions } from './source-offsets';

export type { GroupCoverageEntry, GroupPartitions, SourceOffsetsMode, WrittenCheckpoint };

/** One offset-sync event, as the offset-syncs reader sends it (already parsed). */
export type SyncEvent = { event: 'syncs'; syncs: OffsetSync[] } | { event: 'loaded' } | { event: 'reset' };

export type EmitterPhase =
  /**
   * Creating / checking the checkpoints topic. `failed`: what made the previous attempt fail (a
   * target that does not answer, a refusal), while this attempt has not succeeded yet.
   */
  | { kind: 'preparing'; failed?: string }
  /** Restoring the last checkpoints; `percent` of the records that existed at start. */
  | { kind: 'restoring'; percent: number }
  /** The checkpoints topic could not be prepared, or (`restore`) not read; retrying. */
  | { kind: 'retrying'; error: string; retryInMs: number; restore?: boolean }
  /** Restore done; cycles may run. */
  | { kind: 'ready' };

export interface RestoreReport {
  ok: boolean;
  /** Checkpoints kept (of selected groups), after "last wins". */
  restored: number;
  /** Records read. */
  read: number;
  /** Records skipped because they could not be decoded (tombstones included). */
  malformed: number;
  /** Why the restore failed. */
  error?: string;
}

export interface EmitterEvents {
  phase?(phase: EmitterPhase): void;
  restored?(report: RestoreReport): void;
  /** Group discovery finished (at start, on refresh, or before a cycle). */
  discovered?(result: DiscoveryResult): void;
  /** Group discovery failed; the previous selection (if any) stays. */
  discoveryFailed?(error: string): void;
  /** How the source offsets are read now (following `__consumer_offsets`, or polling and why). */
  sourceMode?(mode: SourceOffsetsMode): void;
  /** Records of `__consumer_offsets` skipped because they were not understood. */
  sourceRecordsSkipped?(count: number, total: number): void;
  /** A fetch of the followed `__consumer_offsets` failed (the first one, before the client's retries run out): the source stopped answering. */
  sourceUnanswered?(reason: string): void;
  /** The followed `__consumer_offsets` answered again. */
  sourceAnswered?(): void;
  /** A cycle nobody asked for through `cycle()` completed: an event-driven partial cycle, or the full one after the stream started. */
  delivered?(result: CycleResult): void;
  /** Such a cycle failed. */
  deliveryFailed?(error: string): void;
}

export interface CheckpointEmitterOptions {
  /**
   * Which groups this instance works on when the flow runs in several Node-RED instances
   * (engines/replication-shares): only those are selected, translated and written, and nothing is
   * written while the lease on the share does not hold. Absent: every group (one instance).
   */
  shares?: GroupOwner;
  source: ClusterConnection;
  target: ClusterConnection;
  sourceAlias: string;
  targetAlias: string;
  policy: RenamePolicy;
  checkpointsTopic: string;
  groupFilter: NameFilter;
  topicFilter: NameFilter;
  /** Creates the checkpoints topic if missing (mm2-replication's ensureTopic). */
  ensureTopic(connection: ClusterConnection, topic: string): Promise<unknown>;
  events?: EmitterEvents;
  /** 'auto' (default): follow the source's `__consumer_offsets` where allowed (else poll), and translate again at once what new offset syncs or a completed sync history change; 'poll': cycles only when asked (`cycle()`), as MM2. */
  sourceOffsets?: 'auto' | 'poll';
  /** 'precise' (default): the sync store also keeps, per tracked group partition, the newest sync at or below its position; 'mm2': exactly MM2's 64 slots (mm2-replication's offsetTranslation). */
  offsetTranslation?: OffsetTranslationMode;
  /** When a group partition or a group counts as at risk (mm2-checkpoint's readiness fields). Default DEFAULT_READINESS. */
  readiness?: ReadinessThresholds;
  /** The event path's batching window (ms). Default 50. */
  batchMs?: number;
  /** Longest wait between two attempts to prepare the checkpoints topic (it doubles from 2 s up to this). Default 60 s. */
  retryMaxMs?: number;
  /** Give up the restore after this long (counts as a failed restore). Default 120 s. */
  restoreTimeoutMs?: number;
  /** While `__consumer_offsets` is followed, read every selected group's source offsets in full at least this often (ms). Default FULL_SOURCE_READ_EVERY_MS (60 s); benchmarks shorten it so that a short run covers several. */
  fullSourceReadEveryMs?: number;
  /** Clock (ms); tests may replace it. */
  now?: () => number;
  /** Makes the stream following the source's `__consumer_offsets` (default: a SourceCommitStream); tests may replace it. */
  openSourceStream?: SourceOffsetsOptions['openStream'];
  /** Where the checkpoint store lives (the replication runtime, which the group-offset writers read); default: a store of the emitter's own. */
  home?: CheckpointsHome;
}

export interface CycleOptions {
  /** Re-list the groups before the cycle. */
  refreshGroups?: boolean;
  /** A partial cycle: only these groups (and partitions, as `partition:topic` keys), from the offsets already known. Absent: a full cycle. */
  only?: Map<string, GroupPartitions>;
}

/** Two requests sharing one cycle: full wins; partial ones are united. */
export function mergeCycleOptions(a: CycleOptions, b: CycleOptions): CycleOptions {
  const refreshGroups = Boolean(a.refreshGroups || b.refreshGroups);
  if (!a.only || !b.only) return { refreshGroups };
  return { refreshGroups, only: uniteGroupPartitions(a.only, b.only) };
}

/** `r` with its `coverage` made when read from its rows (a new list of views each read; enumerable, as a plain property was). */
export function withCoverageOnRead(r: Omit<CycleResult, 'coverage'>): CycleResult {
  const rows = r.coverageRows ?? [];
  return Object.defineProperty(r, 'coverage', { get: () => coverageEntriesOf(rows), enumerable: true, configurable: true }) as CycleResult;
}

/**
 * The report of what a failed write had acknowledged before its failure (engines/checkpoint-writes
 * `acknowledged`): reported as an event-driven cycle's write, so that output 1 carries every record
 * that reached the checkpoints topic, with the latest checkpoints of their groups.
 */
export function acknowledgedReport(cycle: number, sent: readonly WrittenCheckpoint[], store: LatestSource, syncsLoaded: boolean, now: number): CycleResult {
  const groups = [...new Set(sent.map((c) => c.group))].sort();
  return withCoverageOnRead({ cycle, full: false, groups, written: [...sent], coverageRows: [], failedGroups: [], latest: LatestCheckpoints.of(groups, store), startedAt: now, durationMs: 0, syncsLoaded });
}

export interface CycleResult {
  cycle: number;
  /** true: a full cycle (`groups`, `coverage` and `latest` cover every selected group); false: an event-driven partial one (only the groups it touched). */
  full: boolean;
  /** 'restoring': no cycle ran because the checkpoints restore has not finished (MM2 does not poll then). */
  skipped?: 'restoring';
  /** The groups the cycle covered. */
  groups: string[];
  written: WrittenCheckpoint[];
  /** Every group partition's coverage, made when read (a new list of views each time: read it once). */
  readonly coverage: GroupCoverageEntry[];
  /** The same per group, compact (core/coverage-rows): what the node's outputs read (the emitter's results have it). */
  coverageRows?: readonly GroupCoverage[];
  failedGroups: Array<{ group: string; error: string }>;
  /** Set when the group re-listing of this cycle failed (the previous selection was used). */
  discoveryError?: string;
  /** The latest checkpoint of every partition of every selected group (partial cycle: of the groups it touched). */
  latest: ReadonlyMap<string, readonly Checkpoint[]> & { versionOf?(group: string): number | undefined };
  startedAt: number;
  durationMs: number;
  /** Whether the offset-sync history has been read to its end. */
  syncsLoaded: boolean;
  /** Full cycles: every selected group's failover readiness (groups whose offsets could not be listed included). */
  readiness?: ReadinessSummary;
  /**
   * Whether each selected group has members on the target, from the target's group listing of
   * the last full cycle (one ListGroups per broker); a group missing here: 'unknown'.
   */
  membersOnTarget?: ReadonlyMap<string, MembersOnTarget>;
  /** Why the target's groups could not be listed (every group's membersOnTarget is then 'unknown'). */
  targetGroupsError?: string;
  /**
   * Groups the group filter accepts of a type MM2 never checkpoints (streams, share: core/group-types),
   * from the source's last group listing, with why: named, never checkpointed.
   */
  notReplicatedGroups?: readonly NotReplicatedGroup[];
}

/**
 * While `__consumer_offsets` is followed, a full cycle takes the source offsets from the stream
 * and reads them all again only this often (and once the stream stands): the read is the
 * reconcile of the stream, not the source of the offsets. Polling reads them every cycle.
 */
export const FULL_SOURCE_READ_EVERY_MS = 60000;
/**
 * A full read of the source's offsets that has not answered after this long (ms), or after three
 * times the last one that answered if that is longer, means the source stopped answering: said at
 * once (sourceUnanswered), not when the client's retries run out. The polling path has no stream
 * whose failed fetch would tell.
 */
export const SOURCE_SILENT_READ_MS = 3000;
