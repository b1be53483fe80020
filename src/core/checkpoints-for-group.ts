import type { CheckpointStore } from './checkpoint-store';
import type { OffsetSyncStore } from './offset-sync-store';
import { renameTopicPartition, type RenamePolicy } from './rename-topic-partition';
import { internName } from './partition-key';
import type { Checkpoint, CommittedOffset, OffsetSync } from './types';

/**
 * MM2 `MirrorCheckpointTask.checkpointsForGroup`: which checkpoints one
 * consumer group produces in one emit cycle, plus a per-partition coverage report that says,
 * for every partition the group has, whether a checkpoint was produced and if not, why.
 */

/** The topic filter (`topics` / `topics.exclude`); structurally satisfied by the filters module. */
export interface TopicFilterLike {
  accept(topic: string): boolean;
}

export type CoverageStatus =
  /** A new checkpoint was produced. */
  | 'emitted'
  /** The topic filter rejects the topic, so it is not mirrored and never checkpointed. */
  | 'topic-not-replicated'
  /** The group has no committed offset for the partition. */
  | 'no-committed-offset'
  /** The offset-sync history or the checkpoint history is still loading. */
  | 'store-loading'
  /** No offset sync exists for the partition. */
  | 'no-sync'
  /** The group's offset is older than the oldest retained offset sync (MM2's -1). */
  | 'older-than-oldest-sync'
  /** The translation is not newer than the last checkpoint (a repeat, or held back by the monotonic rule). */
  | 'unchanged'
  /** Another source partition renamed to the same remote partition; its checkpoint replaced this one. */
  | 'duplicate-remote-partition'
  /**
   * The group rewound below the oldest retained offset sync (untranslatable): a checkpoint at the
   * remote partition's log start was produced instead of leaving the stale, higher one standing.
   */
  | 'rewound-to-start'
  /**
   * The group rewound below the oldest retained offset sync, and the remote partition's log start
   * is not known yet: nothing produced this time (the caller reads the log start and translates again).
   */
  | 'rewound-below-syncs';

export interface CoverageEntry {
  /** Source topic and partition. */
  topic: string;
  partition: number;
  /** Name of the topic on the target; null when the topic is not replicated. */
  remoteTopic: string | null;
  /** The group's committed offset on the source (null when none). */
  upstreamOffset: bigint | null;
  status: CoverageStatus;
  /** The translated downstream offset, when there is one (emitted, unchanged, duplicate). */
  downstreamOffset?: bigint;
  /** The offset sync the translation came from ('older-than-oldest-sync': the oldest retained one). */
  sync?: OffsetSync;
  /** The last checkpoint of the partition ('unchanged'; 'rewound-to-start' and 'rewound-below-syncs': the one the group rewound from). */
  previous?: Checkpoint;
  /** 'emitted' after a rewind of the group on the source: the upstream offset of the checkpoint it rewound from. */
  rewoundFrom?: bigint;
  /** One sentence for an operator. */
  reason: string;
}

export interface CheckpointsForGroupInput {
  group: string;
  /** The group's committed offsets on the source (MM2 `listConsumerGroupOffsets`): an offset null or negative is no commit; the metadata is copied into the checkpoint. */
  offsets: readonly CommittedOffset[];
  topicFilter: TopicFilterLike;
  store: OffsetSyncStore;
  checkpoints: CheckpointStore;
  policy: RenamePolicy;
  sourceAlias: string;
  targetAlias: string;
  /**
   * true: compute only, leave `checkpoints` untouched (an "explain" / dry-run view).
   * false (default): merge the produced checkpoints into `checkpoints` before returning, as MM2 does.
   */
  dryRun?: boolean;
  /** When `offsets` were listed (epoch ms): kept with the checkpoints produced (the checkpoints topic's record timestamp). */
  listedAt?: number;
  /**
   * Rewinds below every offset sync (ours; MM2 keeps the stale checkpoint, so a group deleted on
   * the target gets the old, higher offset back and a failover skips what it was rewound to
   * re-read): given, a group whose committed offset is older than the oldest sync AND lower than
   * its last checkpoint's upstream offset is checkpointed at the remote partition's log start on
   * the target (this function's answer; undefined when not known: 'rewound-below-syncs', nothing
   * produced). Absent: MM2's behaviour.
   */
  remoteLogStart?: (remoteTopic: string, partition: number) => bigint | undefined;
  /**
   * false: no sentence (`reason` '') in the entries but a 'duplicate-remote-partition' one's and a
   * translation below zero's; `entryReason` makes one from the entry when asked (the translation
   * cache keeps rows that make it when read: no string per group partition at each translation). Default true.
   */
  reasons?: boolean;
}

export interface CheckpointsForGroupResult {
  /** The checkpoints to write, at most one per remote partition, in input order. */
  checkpoints: Checkpoint[];
  /** One entry per input offset, sorted by topic, then partition. */
  coverage: CoverageEntry[];
}

/**
 * Computes the new checkpoints of one group (MirrorCheckpointTask.checkpointsForGroup):
 * (a) only topics accepted by the topic filter (no internal-topic or cycle check, as MM2);
 * (b) only partitions with a committed offset;
 * (c) translate with the offset-sync store, keyed by the **source** topic; nothing while a store is loading or without syncs
 *     (in the store's precise mode the group partition is tracked, and translated from the sync kept for it when that is newer than MM2's);
 * (d) build the checkpoint for the renamed (remote) partition with the commit's metadata;
 * (e) drop -1 ("older than the oldest retained sync");
 * (f) keep it only if {@link CheckpointStore.isMoreRecent}.
 * If two source partitions rename to the same remote partition, the later one in `offsets` wins (MM2 collects them in a map).
 *
 * Store update (as MirrorCheckpointTask updates its last checkpoints before the records are acknowledged): unless `dryRun`, the result is merged into
 * `checkpoints` before returning, i.e. before the caller writes the records, exactly as MM2.
 * A write that later fails therefore still suppresses re-emission until the translation changes;
 * we accept that because the alternative (update on acknowledgement) can publish a decreasing
 * checkpoint after an ambiguous write failure (a timed-out write that did land), and the
 * monotonic checkpoint series is what failover consumers depend on. A checkpoint whose write
 * failed is published again as soon as the translation moves, or after a restart (the restore
 * does not contain it). Use `dryRun` to compute without recording.
 *
 * Differences from MM2, deliberate and harmless: a negative committed offset counts as "no
 * committed offset" (MM2's admin client gives null there; kafkajs gives -1); while the
 * checkpoint store is still loading the function produces nothing (MM2's `poll` does not get
 * this far) and reports 'store-loading'.
 */
function byTopicPartition(a: CoverageEntry, b: CoverageEntry): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  return a.partition - b.partition;
}

export function checkpointsForGroup(input: CheckpointsForGroupInput): CheckpointsForGroupResult {
  const { group, offsets, topicFilter, store, checkpoints, policy, sourceAlias, targetAlias } = input;
  const sentences = input.reasons !== false;
  const loaded = checkpoints.loaded;
  const coverage: CoverageEntry[] = [];
  /** remote partition key -> index in `coverage` of the entry whose checkpoint is kept (made at the first checkpoint: most groups have none). */
  let emittedAt: Map<string, number> | undefined;
  let produced: Map<string, Checkpoint> | undefined;
  // an entry's sentence (from its own fields: entryReason) unless the caller keeps none
  const push = (e: CoverageEntry): void => {
    if (sentences) e.reason = entryReason(e, loaded);
    coverage.push(e);
  };
  const emit = (remoteTopic: string, partition: number, checkpoint: Checkpoint): void => {
    const remoteKey = `${partition}:${remoteTopic}`;
    produced ??= new Map();
    emittedAt ??= new Map();
    produced.set(remoteKey, checkpoint);
    emittedAt.set(remoteKey, coverage.length);
  };

  for (const entry of offsets) {
    const { topic, partition } = entry;
    const offset = entry.offset;
    if (!topicFilter.accept(topic)) {
      push({ topic, partition, remoteTopic: null, upstreamOffset: offset, status: 'topic-not-replicated', reason: '' });
      continue;
    }
    const renamed = renameTopicPartition(policy, sourceAlias, targetAlias, topic, partition);
    // one shared string per remote topic (it is kept in every checkpoint and coverage entry)
    const remoteTopic = internName(renamed.topic);
    const remotePartition = renamed.partition;
    if (offset === null || offset === undefined || offset < 0n) {
      push({ topic, partition, remoteTopic, upstreamOffset: null, status: 'no-committed-offset', reason: '' });
      continue;
    }
    if (!loaded) {
      push({ topic, partition, remoteTopic, upstreamOffset: offset, status: 'store-loading', reason: '' });
      continue;
    }
    const t = store.explain(topic, partition, offset, group);
    if (t.kind === 'loading' || t.kind === 'no-sync') {
      push({ topic, partition, remoteTopic, upstreamOffset: offset, status: t.kind === 'loading' ? 'store-loading' : 'no-sync', reason: '' });
      continue;
    }
    const last = t.kind === 'too-old' && input.remoteLogStart !== undefined ? checkpoints.getPartition(group, remoteTopic, remotePartition) : undefined;
    if (t.kind === 'too-old' && last !== undefined && offset < last.upstreamOffset) {
      const start = (input.remoteLogStart as (topic: string, partition: number) => bigint | undefined)(remoteTopic, remotePartition);
      if (start === undefined || start < 0n) {
        push({ topic, partition, remoteTopic, upstreamOffset: offset, status: 'rewound-below-syncs', sync: t.oldest, previous: last, reason: '' });
        continue;
      }
      emit(remoteTopic, remotePartition, { group, topic: remoteTopic, partition: remotePartition, upstreamOffset: offset, downstreamOffset: start, metadata: entry.metadata ?? '' });
      push({ topic, partition, remoteTopic, upstreamOffset: offset, status: 'rewound-to-start', downstreamOffset: start, sync: t.oldest, previous: last, reason: '' });
      continue;
    }
    if (t.kind === 'too-old') {
      push({ topic, partition, remoteTopic, upstreamOffset: offset, status: 'older-than-oldest-sync', sync: t.oldest, reason: '' });
      continue;
    }
    const checkpoint: Checkpoint = {
      group,
      topic: remoteTopic,
      partition: remotePartition,
      upstreamOffset: offset,
      downstreamOffset: t.downstreamOffset,
      metadata: entry.metadata ?? '',
    };
    if (checkpoint.downstreamOffset < 0n) {
      // Only reachable through Java long wrap-around at 2^63-1 (see OffsetSyncStore.explain); its sentence names the value (always made: no other field holds it).
      coverage.push({
        topic,
        partition,
        remoteTopic,
        upstreamOffset: offset,
        status: 'older-than-oldest-sync',
        sync: t.sync,
        reason: `the translation of offset ${offset} is negative (${checkpoint.downstreamOffset}) and cannot be used`,
      });
      continue;
    }
    if (!checkpoints.isMoreRecent(checkpoint)) {
      const previous = checkpoints.getPartition(group, remoteTopic, remotePartition) as Checkpoint;
      push({ topic, partition, remoteTopic, upstreamOffset: offset, status: 'unchanged', downstreamOffset: checkpoint.downstreamOffset, sync: t.sync, previous, reason: '' });
      continue;
    }
    const earlier = emittedAt?.get(`${remotePartition}:${remoteTopic}`);
    if (earlier !== undefined) {
      // always made (it names the other source partition)
      const e = coverage[earlier];
      coverage[earlier] = {
        ...e,
        status: 'duplicate-remote-partition',
        reason: `source partition ${topic}-${partition} also maps to ${remoteTopic}-${remotePartition}; ` + `its checkpoint replaced this one`,
      };
    }
    emit(remoteTopic, remotePartition, checkpoint);
    const before = checkpoints.getPartition(group, remoteTopic, remotePartition);
    if (before !== undefined && offset < before.upstreamOffset) {
      push({ topic, partition, remoteTopic, upstreamOffset: offset, status: 'emitted', downstreamOffset: checkpoint.downstreamOffset, sync: t.sync, rewoundFrom: before.upstreamOffset, reason: '' });
      continue;
    }
    push({ topic, partition, remoteTopic, upstreamOffset: offset, status: 'emitted', downstreamOffset: checkpoint.downstreamOffset, sync: t.sync, reason: '' });
  }

  const result = produced === undefined ? [] : [...produced.values()];
  if (!input.dryRun) checkpoints.update(group, result, input.listedAt);
  // the report in a stable order (topic, then partition), whatever order the broker listed the offsets in
  if (!sortedByTopicPartition(coverage)) coverage.sort(byTopicPartition);
  return { checkpoints: result, coverage };
}

function sortedByTopicPartition(list: readonly CoverageEntry[]): boolean {
  for (let i = 1; i < list.length; i++) if (byTopicPartition(list[i - 1], list[i]) > 0) return false;
  return true;
}

/** How a translated position reads against its sync. */
function howOf(offset: bigint, sync: OffsetSync): string {
  // ASCII only: a reason is kept per group partition (100,000 at 10,000 groups x 10 partitions), and one
  // character outside Latin-1 makes V8 store the whole string with two bytes per character
  return offset === sync.upstreamOffset
    ? `exactly the synced record ${sync.upstreamOffset}->${sync.downstreamOffset}`
    : `past the synced record ${sync.upstreamOffset}->${sync.downstreamOffset}, so it resumes right after it`;
}

/**
 * checkpointsForGroup's sentence for its entry `e`, from the entry's own fields (`checkpointsLoaded`:
 * the checkpoint store's state when it was made). Not for a 'duplicate-remote-partition' entry nor a
 * translation below zero: checkpointsForGroup always gives those their sentence.
 */
export function entryReason(e: CoverageEntry, checkpointsLoaded: boolean): string {
  const offset = e.upstreamOffset as bigint;
  const sync = e.sync as OffsetSync;
  const previous = e.previous as Checkpoint;
  switch (e.status) {
    case 'topic-not-replicated':
      return 'topic is not replicated: the topic filter (topics / topics.exclude) rejects it';
    case 'no-committed-offset':
      return 'the group has no committed offset for this partition';
    case 'store-loading':
      return checkpointsLoaded
        ? 'the offset-sync history is still being read; no translation until it has been read to the end'
        : 'the previous checkpoints are still being restored from the checkpoints topic; no checkpoint until that is done';
    case 'no-sync':
      return 'no offset sync for this partition yet: no record of it has been mirrored since the sync history began';
    case 'rewound-below-syncs':
    case 'rewound-to-start': {
      const what =
        `the group was rewound from upstream ${previous.upstreamOffset} to ${offset}, below the oldest retained offset sync (upstream ${sync.upstreamOffset}), ` +
        `so it cannot be translated, and the last checkpoint (${previous.downstreamOffset}) would skip what it was rewound to re-read`;
      return e.status === 'rewound-below-syncs'
        ? `${what}; the log start of ${e.remoteTopic}-${e.partition} on the target is not known yet, so nothing is checkpointed this time`
        : `${what}: checkpoint ${offset} -> ${e.downstreamOffset}, the start of ${e.remoteTopic}-${e.partition} on the target, so a failover skips nothing`;
    }
    case 'older-than-oldest-sync':
      return (
        `the group's offset ${offset} is older than the oldest retained offset sync (upstream ${sync.upstreamOffset}); ` +
        `translating it could skip records, so it is checkpointed once the group reaches offset ${sync.upstreamOffset}`
      );
    case 'unchanged':
      return e.downstreamOffset === previous.downstreamOffset
        ? `unchanged: downstream offset ${previous.downstreamOffset} was already checkpointed (upstream ${offset} is ${howOf(offset, sync)})`
        : `the translation ${e.downstreamOffset} is behind the last checkpoint ${previous.downstreamOffset} ` +
            `and the group did not rewind, so the last checkpoint stands (checkpoints never move backwards)`;
    case 'emitted':
      return e.rewoundFrom !== undefined
        ? `checkpoint ${offset} -> ${e.downstreamOffset} after a rewind of the group from upstream ${e.rewoundFrom}: the group is ${howOf(offset, sync)}`
        : `checkpoint ${offset} -> ${e.downstreamOffset}: the group is ${howOf(offset, sync)}`;
    default:
      return e.reason;
  }
}
