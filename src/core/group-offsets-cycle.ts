/**
 * A group-offset sync run's outcome (engines/group-offset-syncer), as pure rules: the result's
 * shape, what a group's decision adds to it, what each commit's answer adds to it (and to the
 * remembered target offsets), the order of its lists, and whether the target counts as
 * unreachable. No I/O.
 */
import type { GroupOffsetSyncDecision, RewindMark, RewoundPartition as CoreRewoundPartition } from './group-offset-sync';
import type { TargetOffsets } from './target-offsets';

/** Group-level outcome codes of a cycle (besides being written). */
export type GroupSkipCode =
  /** The target group has members (listed state, or the broker refused with UNKNOWN_MEMBER_ID). */
  | 'group-active'
  /** Every checkpointed partition already has this offset or a newer one on the target. */
  | 'up-to-date'
  /** Nothing could be written: the remaining partitions are missing on the target or invalid. */
  | 'nothing-to-write'
  /** Reading the group or committing failed; see the reason. */
  | 'error'
  /** Not written: this instance's lease on its share of the flow did not hold (engines/replication-shares); the next run writes it once the sharing group settles. */
  | 'fenced';

export interface WrittenGroup {
  group: string;
  offsets: Array<{ topic: string; partition: number; offset: bigint }>;
}
export interface SkippedGroup {
  group: string;
  reason: string;
  code: GroupSkipCode;
  state?: string;
}
export interface SkippedPartition {
  group: string;
  topic: string;
  partition: number;
  code: string;
  reason: string;
}
/** A partition whose target offset was moved back to follow a rewind of the group on the source (once), with its group. */
export interface RewoundPartition extends CoreRewoundPartition {
  group: string;
}
export interface ClampedPartition {
  group: string;
  topic: string;
  partition: number;
  checkpointOffset: bigint;
  offset: bigint;
  reason: string;
}

export interface CheckpointStats {
  /** Groups and partitions with a checkpoint (before the group filter). */
  groups: number;
  partitions: number;
  /** Checkpoints accepted so far (records or message entries). */
  received: number;
  /** Malformed records / message entries skipped so far. */
  malformed: number;
}

/** One run's result (domain values; the node's GroupOffsetsMessage is its JSON, see nodes/lib/contracts). */
export interface GroupOffsetsCycle {
  cycle: number;
  /** true for `syncGroups` (only the groups asked for), false for the full reconcile. */
  partial: boolean;
  written: WrittenGroup[];
  skipped: SkippedGroup[];
  partitionsSkipped: SkippedPartition[];
  clamped: ClampedPartition[];
  /** Partitions moved back to follow a rewind on the source (also in `written`). */
  rewound: RewoundPartition[];
  checkpoints: CheckpointStats;
  /** Groups asked for that wait for the floor (written when it ends, by a later run). */
  deferred: number;
  durationMs: number;
  /** A full run that gave the last clean full run's answer again (nothing it judged from changed: core/quiet-full-run); no group judged. */
  reused?: true;
}

/** An empty run result. */
export function emptyCycle(cycle: number, partial: boolean, checkpoints: CheckpointStats, deferred: number): GroupOffsetsCycle {
  return { cycle, partial, written: [], skipped: [], partitionsSkipped: [], clamped: [], rewound: [], checkpoints, deferred, durationMs: 0 };
}

/**
 * Adds a group's decision to the run: its skipped partitions (besides up-to-date and active
 * ones), and the group as skipped when there is nothing to write. Returns whether to commit.
 */
export function recordDecision(result: GroupOffsetsCycle, group: string, state: string | undefined, d: GroupOffsetSyncDecision): boolean {
  for (const s of d.skipped) {
    if (s.code === 'up-to-date' || s.code === 'group-active') continue;
    result.partitionsSkipped.push({ group, topic: s.topic, partition: s.partition, code: s.code, reason: s.reason });
  }
  if (d.action === 'write') return true;
  const upToDate = d.skipped.every((s) => s.code === 'up-to-date' || s.code === 'target-ahead');
  result.skipped.push({ group, code: upToDate ? 'up-to-date' : 'nothing-to-write', state, reason: d.reason });
  return false;
}

/** A commit the run decided on: the group, its listed state, the decision, the rewind marks it was decided with. */
export interface PlannedCommit {
  group: string;
  state: string | undefined;
  decision: GroupOffsetSyncDecision;
  marks?: Map<string, RewindMark>;
}

/** The broker's answer to one group's commit (kafka AdminCommitResult). */
export interface CommitAnswer {
  ok: boolean;
  /** UNKNOWN_MEMBER_ID (the group has members: untouched), or another Kafka error type. */
  errorType?: string;
  message?: string;
}

/**
 * Adds the commits' answers to the run and to the remembered target offsets, in order. A group
 * without an answer counts as refused ('no answer'). Returns how many commits were answered
 * (written, or refused because the group became active: the target answered).
 */
/** The answer of a commit not sent because the instance's lease on its share stopped holding as it went out (issue 25). */
export const FENCED = 'FENCED';

export function recordCommits(
  result: GroupOffsetsCycle,
  targets: TargetOffsets,
  planned: readonly PlannedCommit[],
  answerOf: (group: string) => CommitAnswer | undefined,
  now: () => number,
): number {
  let committedOk = 0;
  for (const c of planned) {
    const r = answerOf(c.group) ?? { ok: false, errorType: 'UNKNOWN', message: 'no answer' };
    const { group, state, decision: d } = c;
    if (!r.ok && r.errorType === FENCED) {
      // not sent: the next run of the instance that owns the group writes it (counted as answered: the target is not at fault)
      targets.forget(group);
      result.skipped.push({ group, code: 'fenced', state, reason: 'not written: this instance\'s lease on its share of the flow stopped holding as the commit went out (paused, or a rebalance settling); written once the sharing group settles' });
      committedOk++;
      continue;
    }
    if (!r.ok) {
      // the group has members now: never touched, and not tried again before a newer listing
      const members = refusedForMembers(r.errorType);
      targets.refused(group, members, c.marks, now());
      if (members) {
        result.skipped.push({
          group,
          code: 'group-active',
          state: state ?? 'Dead',
          reason: `the group became active on the target before the commit (the broker answered ${r.errorType}); nothing was written`,
        });
        committedOk++;
        continue;
      }
      result.skipped.push({ group, code: 'error', state, reason: `commit refused: ${r.errorType ?? ''} ${r.message ?? ''}`.trim() });
      continue;
    }
    committedOk++;
    targets.written(group, d.offsets, c.marks, now()); // followed (or written forward): once
    result.written.push({ group, offsets: d.offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset })) });
    for (const a of d.adjusted) {
      result.clamped.push({ group, topic: a.topic, partition: a.partition, checkpointOffset: a.checkpointOffset, offset: a.offset, reason: a.reason });
    }
    for (const w of d.rewound) result.rewound.push({ group, ...w });
  }
  return committedOk;
}

/**
 * Whether the broker refused an admin commit (generation -1, no member id) because the group has
 * members. Kafka's coordinators (the classic GroupCoordinator before 4.0, and the new one's
 * ClassicGroup, ConsumerGroup and StreamsGroup `validateOffsetCommit`) accept such a commit only
 * for a group without members and answer UNKNOWN_MEMBER_ID otherwise; REBALANCE_IN_PROGRESS (a
 * classic group completing a rebalance) means members too.
 */
export function refusedForMembers(errorType: string | undefined): boolean {
  return errorType === 'UNKNOWN_MEMBER_ID' || errorType === 'REBALANCE_IN_PROGRESS';
}

/** Sorts every list of the run by group (stable: a group's entries keep their order). */
export function sortCycle(result: GroupOffsetsCycle): void {
  const order = (a: { group: string }, b: { group: string }): number => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0);
  result.written.sort(order);
  result.skipped.sort(order);
  result.partitionsSkipped.sort(order);
  result.clamped.sort(order);
  result.rewound.sort(order);
}

/**
 * Why the target counts as unreachable after the run (its listing answered): every read failed,
 * or every commit; null otherwise. The reason is the first error skip's.
 */
export function targetFailure(result: GroupOffsetsCycle, reads: { asked: number; failed: number }, commits: { sent: number; answered: number }): string | null {
  const readsFailed = reads.asked > 0 && reads.failed === reads.asked;
  const commitsFailed = commits.sent > 0 && commits.answered === 0;
  if (!readsFailed && !commitsFailed) return null;
  return result.skipped.find((x) => x.code === 'error')?.reason ?? 'the target did not answer';
}
