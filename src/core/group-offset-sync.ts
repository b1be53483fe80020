import type { Checkpoint, CommittedOffset } from './types';
import { partitionKey } from './partition-key';

/**
 * Consumer-group offset sync to the target cluster (MirrorCheckpointTask.syncGroupOffset, `sync.group.offsets.enabled`):
 * the pure decision, for ONE group, of which translated offsets to commit on the target, and
 * when log ends read earlier still clamp it as a fresh read would ({@link LogEndCache}, the event lane).
 * The caller describes the target group, lists its committed offsets (and, preferably, the log
 * end offsets of the target partitions), calls {@link decideGroupOffsetSync}, and when the
 * action is 'write' issues one admin offset commit for the group with `offsets`. The broker
 * remains the final arbiter: a commit it rejects with UNKNOWN_MEMBER_ID (the group gained
 * members in between, or it is an active KIP-848 group that a classic describe showed as Dead)
 * is a benign skip.
 *
 * Our rules are MM2's plus safety:
 * - Write only to a target group with no active members: state Empty, Dead, or nonexistent
 *   (`targetGroupState` undefined). Any other state, including Unknown or an unrecognised
 *   string, skips the whole group and names the state.
 * - Never move a committed target offset backwards, for every group. **Deliberate difference
 *   from MM2**: MM2 applies this protection only to groups it found EMPTY; groups it did not
 *   (Dead, nonexistent, or a describe failure) get every checkpointed partition written with no
 *   rewind check. We always compare with the target's committed offsets when they are given.
 * - A missing, null or negative (-1) target offset means "nothing committed": write.
 * - An equal target offset means nothing to write for that partition.
 * - Never commit past the target partition's log end offset: see {@link decideGroupOffsetSync}.
 * - With `targetEndOffsets` given, a partition absent from it does not exist on the target and
 *   is skipped (MM2 sends it anyway and leaves the outcome to the broker).
 * - **Rewinds** (`followRewinds`, ours; MM2 never lowers a target offset): a group rewound on
 *   purpose on the source (it committed an upstream offset lower than the one its previous
 *   checkpoint was made from, see {@link noteRewind}) has its target offset moved back to the
 *   rewound translation, once, when the target offset is no further than the pre-rewind
 *   checkpoint's downstream offset (further means it moved on its own: left alone). A
 *   translation that merely came out lower, without an upstream rewind, never moves a group
 *   backwards.
 */

/**
 * A deliberate rewind of a group partition on the source: a checkpoint whose upstream offset is
 * lower than the upstream offset of the checkpoint before it (`kafka-consumer-groups
 * --reset-offsets`, or the group deleted and re-created lower). `from*` is the checkpoint before
 * the rewind (the highest one, when the group rewound again before the target followed).
 */
export interface RewindMark {
  topic: string;
  partition: number;
  /** Upstream and downstream offsets of the checkpoint the group was rewound from. */
  fromUpstream: bigint;
  fromDownstream: bigint;
}

/**
 * The rewind mark of a (group, remote partition) after checkpoint `next` replaced `previous`:
 * a new mark when `next.upstreamOffset < previous.upstreamOffset`, else the pending one (a mark
 * stays until the group-offset sync has acted on it, and is dropped by the caller then).
 */
export function noteRewind(previous: Checkpoint | undefined, next: Checkpoint, pending: RewindMark | undefined): RewindMark | undefined {
  if (previous === undefined || next.upstreamOffset >= previous.upstreamOffset) return pending;
  if (pending !== undefined && pending.fromDownstream >= previous.downstreamOffset && pending.fromUpstream >= previous.upstreamOffset) return pending;
  return Object.freeze({
    topic: next.topic,
    partition: next.partition,
    fromUpstream: pending !== undefined && pending.fromUpstream > previous.upstreamOffset ? pending.fromUpstream : previous.upstreamOffset,
    fromDownstream: pending !== undefined && pending.fromDownstream > previous.downstreamOffset ? pending.fromDownstream : previous.downstreamOffset,
  });
}

/** The log end offset (high watermark) of a target partition. */
export interface TargetEndOffset {
  topic: string;
  partition: number;
  offset: bigint;
}

export interface GroupOffsetSyncInput {
  group: string;
  /** The latest checkpoint per remote partition of the group (e.g. `CheckpointStore.get(group)`). */
  checkpoints: readonly Checkpoint[];
  /**
   * The target group's state as described ('Empty', 'Dead', 'Stable', 'PreparingRebalance',
   * 'CompletingRebalance', 'Unknown', KIP-848 states, any letter case, `_` allowed), or
   * undefined when the group does not exist (describe said GROUP_ID_NOT_FOUND).
   */
  targetGroupState: string | undefined;
  /** The group's committed offsets on the target: an iterable, or a Map whose values are the entries (an offset null or negative: nothing committed). */
  targetOffsets?: Iterable<CommittedOffset> | ReadonlyMap<unknown, CommittedOffset>;
  /** Log end offsets of the target partitions; a partition absent here does not exist on the target. */
  targetEndOffsets?: Iterable<TargetEndOffset> | ReadonlyMap<unknown, TargetEndOffset>;
  /** Rewinds of the group's partitions on the source not acted on yet (see {@link noteRewind}). */
  rewinds?: Iterable<RewindMark> | ReadonlyMap<unknown, RewindMark>;
  /** Move a target offset back to follow a rewind (default false: MM2's behaviour, never backwards). */
  followRewinds?: boolean;
}

/** An offset to commit on the target: the checkpoint's downstream offset (maybe clamped) and upstream metadata. */
export interface OffsetToWrite {
  topic: string;
  partition: number;
  offset: bigint;
  metadata: string;
}

export type SkipCode =
  /** The target group has (or may have) active members. */
  | 'group-active'
  /** The remote topic does not exist on the target. */
  | 'topic-missing-on-target'
  /** The topic exists on the target but not this partition. */
  | 'partition-missing-on-target'
  /** The target's committed offset is already ahead: writing would move it backwards. */
  | 'target-ahead'
  /** The target's committed offset already equals the value to write. */
  | 'up-to-date'
  /** The checkpoint's downstream offset is negative (never produced by the checkpoint side). */
  | 'invalid-checkpoint'
  /** The group rewound on the source, but following rewinds is off (MM2's behaviour): the target offset stays ahead. */
  | 'rewind-not-followed';

export interface SkippedPartition {
  topic: string;
  partition: number;
  code: SkipCode;
  /** One sentence for an operator. */
  reason: string;
  /** The checkpoint's downstream offset. */
  checkpointOffset: bigint;
  /** The target's committed offset (null = none), when known. */
  targetOffset?: bigint | null;
  /** The target partition's log end offset, when known. */
  endOffset?: bigint;
}

/** A written partition whose target offset was moved back to follow a rewind of the group on the source. */
export interface RewoundPartition {
  topic: string;
  partition: number;
  /** The target's committed offset before (higher than `offset`). */
  targetOffset: bigint;
  /** The offset written (the rewound checkpoint's downstream offset, maybe clamped to the log end). */
  offset: bigint;
  /** The upstream offsets the group was rewound from and to. */
  fromUpstream: bigint;
  toUpstream: bigint;
  reason: string;
}

/** A written partition whose offset was lowered to the target log end offset. */
export interface AdjustedPartition {
  topic: string;
  partition: number;
  /** The checkpoint's downstream offset. */
  checkpointOffset: bigint;
  /** The offset written (= endOffset). */
  offset: bigint;
  endOffset: bigint;
  reason: string;
}

export interface GroupOffsetSyncDecision {
  group: string;
  action: 'write' | 'skip';
  /** One sentence for the group. */
  reason: string;
  /** What to commit (empty when action is 'skip'). */
  offsets: OffsetToWrite[];
  skipped: SkippedPartition[];
  /** Partitions in `offsets` whose value was clamped to the target log end. */
  adjusted: AdjustedPartition[];
  /** Partitions in `offsets` whose target offset was moved back to follow a rewind on the source. */
  rewound: RewoundPartition[];
}

const key = partitionKey;

function entriesOf<T>(source: Iterable<T> | ReadonlyMap<unknown, T> | undefined): Iterable<T> {
  if (source === undefined) return [];
  if (source instanceof Map) return (source as ReadonlyMap<unknown, T>).values();
  return source as Iterable<T>;
}

/** Target group states in which an admin offset commit is safe (no members). */
const WRITABLE_STATES = new Set(['empty', 'dead']);
/** isWritableGroupState's answers by state as listed (the first 64 distinct states). */
const writableByState = new Map<string, boolean>();

/** Whether offsets may be written to a target group in this state (undefined = the group does not exist). */
export function isWritableGroupState(state: string | undefined): boolean {
  if (state === undefined) return true;
  // asked of every group every full run with a handful of distinct states: each answered once (no string made a call)
  let w = writableByState.get(state);
  if (w === undefined) {
    w = WRITABLE_STATES.has(state.replace(/[_\s-]/g, '').toLowerCase());
    if (writableByState.size < 64) writableByState.set(state, w);
  }
  return w;
}

/** Why a target group in `state` (not Empty, Dead or absent: {@link isWritableGroupState}) is skipped: the decision's reason. */
export function activeGroupReason(state: string): string {
  return (
    `target group is ${state || '(empty state)'}, not Empty or Dead: it has or may have active members, ` +
    `so its offsets are left to its consumers (a commit would be rejected with UNKNOWN_MEMBER_ID)`
  );
}

/**
 * Decides the offset commit for one group.
 *
 * Log end clamp: when a checkpoint's downstream offset is beyond the target partition's log
 * end offset E (the target topic was truncated or recreated, records were lost in an unclean
 * election, or the end offsets were read slightly earlier than the checkpoint), we write E
 * instead of skipping the partition, and report it in `adjusted`. Rationale, for "no record
 * skipped after failover": a consumer resuming at E reads every record the target receives
 * from now on, and lowering an offset can only cause re-delivery, never loss; whereas a
 * committed offset beyond the end makes a consumer either skip the records that later fill the
 * gap (once the log grows past it) or fall back to `auto.offset.reset` (latest skips records,
 * earliest reprocesses everything), and skipping the write leaves the group without a
 * position at all when it had none. The never-backwards rule is applied to the clamped value.
 */
export function decideGroupOffsetSync(input: GroupOffsetSyncInput): GroupOffsetSyncDecision {
  const { group, targetGroupState } = input;
  const skipped: SkippedPartition[] = [];
  const adjusted: AdjustedPartition[] = [];
  const rewound: RewoundPartition[] = [];
  const offsets: OffsetToWrite[] = [];

  // The latest checkpoint per remote partition (a later entry replaces an earlier one).
  const latest = new Map<string, Checkpoint>();
  for (const cp of input.checkpoints) {
    if (cp.group !== group) {
      throw new Error(`decideGroupOffsetSync: checkpoint of group '${cp.group}' passed for group '${group}'`);
    }
    latest.set(key(cp.topic, cp.partition), cp);
  }

  if (!isWritableGroupState(targetGroupState)) {
    const reason = activeGroupReason(targetGroupState as string);
    for (const cp of latest.values()) {
      skipped.push({ topic: cp.topic, partition: cp.partition, code: 'group-active', reason, checkpointOffset: cp.downstreamOffset });
    }
    return { group, action: 'skip', reason, offsets, skipped, adjusted, rewound };
  }

  if (latest.size === 0) {
    return { group, action: 'skip', reason: 'no checkpoints for this group yet', offsets, skipped, adjusted, rewound };
  }

  const committed = new Map<string, bigint | null>();
  for (const t of entriesOf(input.targetOffsets)) {
    committed.set(key(t.topic, t.partition), t.offset === null || t.offset === undefined || t.offset < 0n ? null : t.offset);
  }
  const haveEnds = input.targetEndOffsets !== undefined;
  const ends = new Map<string, bigint>();
  const endTopics = new Set<string>();
  for (const e of entriesOf(input.targetEndOffsets)) {
    ends.set(key(e.topic, e.partition), e.offset);
    endTopics.add(e.topic);
  }
  const rewinds = new Map<string, RewindMark>();
  for (const r of entriesOf(input.rewinds)) rewinds.set(key(r.topic, r.partition), r);

  for (const cp of latest.values()) {
    const { topic, partition } = cp;
    const k = key(topic, partition);
    const checkpointOffset = cp.downstreamOffset;
    const targetOffset = committed.has(k) ? (committed.get(k) as bigint | null) : null;
    const base = { topic, partition, checkpointOffset, targetOffset };
    if (checkpointOffset < 0n) {
      skipped.push({ ...base, code: 'invalid-checkpoint', reason: `the checkpoint's downstream offset ${checkpointOffset} is negative` });
      continue;
    }
    let desired = checkpointOffset;
    let endOffset: bigint | undefined;
    if (haveEnds) {
      endOffset = ends.get(k);
      if (endOffset === undefined) {
        const topicExists = endTopics.has(topic);
        skipped.push({
          ...base,
          code: topicExists ? 'partition-missing-on-target' : 'topic-missing-on-target',
          reason: topicExists
            ? `partition ${partition} of topic ${topic} does not exist on the target cluster`
            : `topic ${topic} does not exist on the target cluster`,
        });
        continue;
      }
      if (desired > endOffset) desired = endOffset;
    }
    const clamped = desired !== checkpointOffset;
    const clampNote = clamped ? ` (checkpoint ${checkpointOffset} clamped to the target log end ${desired})` : '';
    const rewind = rewinds.get(k);
    let rewoundFrom: bigint | null = null;
    if (targetOffset !== null && targetOffset > desired && rewind !== undefined) {
      const what = `the group was rewound on the source from upstream ${rewind.fromUpstream} to ${cp.upstreamOffset}`;
      if (input.followRewinds !== true) {
        skipped.push({
          ...base,
          ...(endOffset !== undefined ? { endOffset } : {}),
          code: 'rewind-not-followed',
          reason: `${what}, but following rewinds is off (MM2's behaviour): target offset ${targetOffset} stays ahead of ${desired}${clampNote}`,
        });
        continue;
      }
      if (targetOffset > rewind.fromDownstream) {
        skipped.push({
          ...base,
          ...(endOffset !== undefined ? { endOffset } : {}),
          code: 'target-ahead',
          reason:
            `${what}, but target offset ${targetOffset} is beyond ${rewind.fromDownstream}, where the checkpoint before the rewind put it: ` +
            `it moved on on the target, so it is not moved backwards`,
        });
        continue;
      }
      rewoundFrom = targetOffset;
      rewound.push({
        topic,
        partition,
        targetOffset,
        offset: desired,
        fromUpstream: rewind.fromUpstream,
        toUpstream: cp.upstreamOffset,
        reason: `${what}: target offset moved back from ${targetOffset} to ${desired}${clampNote}, once, so a failover re-reads what the group was rewound to re-read`,
      });
    }
    if (rewoundFrom === null && targetOffset !== null && targetOffset > desired) {
      const pastEnd = endOffset !== undefined && targetOffset > endOffset ? `, even beyond the target log end ${endOffset}` : '';
      skipped.push({
        ...base,
        ...(endOffset !== undefined ? { endOffset } : {}),
        code: 'target-ahead',
        reason: `target offset ${targetOffset} is ahead of ${desired}${clampNote}${pastEnd}; it is never moved backwards`,
      });
      continue;
    }
    if (targetOffset !== null && targetOffset === desired) {
      skipped.push({
        ...base,
        ...(endOffset !== undefined ? { endOffset } : {}),
        code: 'up-to-date',
        reason: `target offset is already ${desired}${clampNote}`,
      });
      continue;
    }
    offsets.push({ topic, partition, offset: desired, metadata: cp.metadata ?? '' });
    if (clamped && endOffset !== undefined) {
      adjusted.push({
        topic,
        partition,
        checkpointOffset,
        offset: desired,
        endOffset,
        reason:
          `checkpoint ${checkpointOffset} is beyond the target log end ${endOffset}; writing ${endOffset} ` +
          `so no record written to the target from now on is skipped`,
      });
    }
  }

  const stateText = targetGroupState === undefined ? 'does not exist on the target' : `is ${targetGroupState}`;
  if (offsets.length === 0) {
    return {
      group,
      action: 'skip',
      reason: `nothing to write: the group ${stateText}, and no partition needs a newer offset (${skipped.length} skipped)`,
      offsets,
      skipped,
      adjusted,
      rewound,
    };
  }
  const extra = [
    rewound.length > 0 ? `${rewound.length} moved back to follow a rewind on the source` : '',
    adjusted.length > 0 ? `${adjusted.length} clamped to the log end` : '',
    skipped.length > 0 ? `${skipped.length} skipped` : '',
  ].filter((s) => s !== '');
  return {
    group,
    action: 'write',
    reason:
      `the group ${stateText}: writing ${offsets.length} partition offset${offsets.length === 1 ? '' : 's'}` +
      (extra.length > 0 ? ` (${extra.join(', ')})` : ''),
    offsets,
    skipped,
    adjusted,
    rewound,
  };
}

/**
 * The log-end offsets of the target's remote partitions as last read, for the event lane of the
 * group-offset writer: a write for one group need not read them again when what it would clamp
 * cannot change the answer. A log end only grows (records are appended; DeleteRecords and
 * retention move the start, not the end), so an end read earlier that is already at or above
 * every checkpoint of the group clamps nothing now either; a checkpoint beyond it (the log grew
 * since, or the partition is new) needs a fresh read. Reads older than `maxAgeMs` are not used
 * (a topic deleted and created again starts from 0; the full runs read afresh every interval);
 * the event lane has them read again beside it once they are older than half of that (`due`).
 */
export class LogEndCache {
  private readonly byTopic = new Map<string, { at: number; ends: TargetEndOffset[]; byPartition: Map<number, bigint> }>();

  constructor(private readonly maxAgeMs: number) {}

  /** A fresh read of `topic`'s log ends at `now`. */
  put(topic: string, ends: readonly TargetEndOffset[], now: number): void {
    const list = ends.filter((e) => e.topic === topic);
    this.byTopic.set(topic, { at: now, ends: list, byPartition: new Map(list.map((e) => [e.partition, e.offset])) });
  }

  /**
   * The log ends of `topic` read earlier, when they serve the checkpoints of one group at `now`:
   * read at most maxAgeMs ago and at or above every checkpoint of the group on that topic.
   * undefined: read again.
   */
  serves(topic: string, checkpoints: Iterable<Checkpoint>, now: number): TargetEndOffset[] | undefined {
    const e = this.byTopic.get(topic);
    if (e === undefined || now - e.at > this.maxAgeMs) return undefined;
    for (const c of checkpoints) {
      if (c.topic !== topic) continue;
      const end = e.byPartition.get(c.partition);
      if (end === undefined || end < c.downstreamOffset) return undefined;
    }
    return e.ends;
  }

  /** Whether the ends of `topic` held are older than half of maxAgeMs at `now` (read them again beside the runs that take them, before they stop serving). */
  due(topic: string, now: number): boolean {
    const e = this.byTopic.get(topic);
    return e !== undefined && now - e.at > this.maxAgeMs / 2;
  }

  /** Whether ends of `topic` (at least one partition: the topic existed) are held. */
  holds(topic: string): boolean {
    return (this.byTopic.get(topic)?.ends.length ?? 0) > 0;
  }

  /** Forgets the topic (it is missing on the target, or a write was refused for it). */
  forget(topic: string): void {
    this.byTopic.delete(topic);
  }

  /** Topics held. */
  get size(): number {
    return this.byTopic.size;
  }
}
