/**
 * The pure part of a checkpoint cycle (MirrorCheckpointTask.poll after the offsets are read):
 * translate each group's committed offsets through the offset-sync store into checkpoints
 * (checkpointsForGroup, or the TranslationCache in a full cycle), note what must be read on the
 * target for groups rewound below every sync, decide which checkpoints still need writing (the
 * retry list against the checkpoint store), chunk them for produce requests, and judge the
 * cycle's readiness. No I/O: engines/checkpoint-emitter does the reads and the writes.
 */
import { checkpointBatchRecords, checkpointRecordBytes } from './checkpoint';
import { checkpointsForGroup, type CoverageEntry } from './checkpoints-for-group';
import { ListReuse } from './list-reuse';
import { summarizeReadiness, unlistedGroupReadiness, withMembersOnTarget, type GroupReadiness, type MembersOnTarget, type ReadinessSummary, type ReadinessThresholds } from './readiness';
import type { ReconcileChanges, ReconcileLayout } from './reconcile-layout';
import type { CacheInput, CachedTranslation, GroupCoverage, OffsetRows, TranslationCache } from './translation-cache';
import type { BatchRecords } from './record-batch';
import type { Checkpoint, CommittedOffset } from './types';
import { indexInSorted } from './sorted-names';
import type { UnsentCheckpoints } from './unsent-checkpoints';

export interface WrittenCheckpoint extends Checkpoint {
  /** Record timestamp: when the group's offsets were listed. */
  timestamp: number;
}

/** Produce requests of at most this many checkpoint records or bytes (keys + values). */
export const CHECKPOINT_CHUNK_RECORDS = 2000;
export const CHECKPOINT_CHUNK_BYTES = 256 * 1024;

/** A produce request's worth of checkpoints, and their records as one record batch (core/record-batch; nothing encoded yet). */
export interface CheckpointChunk {
  checkpoints: WrittenCheckpoint[];
  /** Partition 0's records (as MM2 writes them), record timestamp = listing time. */
  records: BatchRecords;
}

/** Cuts checkpoints into produce-sized chunks, in order. */
export function chunkCheckpoints(list: readonly WrittenCheckpoint[]): CheckpointChunk[] {
  return [...checkpointChunks(list)];
}

/**
 * chunkCheckpoints one chunk at a time (the same chunks: core/chunks' rule, on each record's key +
 * value bytes): a chunk's checkpoints are read from `list` as the chunk is taken (the retry list
 * makes them then) and its records are encoded only when the batch is written (straight into the
 * request), so a write of 100,000 checkpoints (the catch-up) holds one chunk's objects across its
 * produce requests, not every chunk's (issue 24: they were promoted to old space).
 */
export function* checkpointChunks(list: Iterable<WrittenCheckpoint>): Generator<CheckpointChunk, void, void> {
  const it = list[Symbol.iterator]();
  let carried: { c: WrittenCheckpoint; size: number } | undefined;
  let next = it.next();
  while (carried !== undefined || !next.done) {
    const checkpoints: WrittenCheckpoint[] = [];
    let bytes = 0;
    while (checkpoints.length < CHECKPOINT_CHUNK_RECORDS) {
      let c: WrittenCheckpoint;
      let size: number;
      if (carried !== undefined) {
        ({ c, size } = carried);
        carried = undefined;
      } else if (!next.done) {
        c = next.value;
        size = checkpointRecordBytes(c);
        next = it.next();
      } else break;
      if (checkpoints.length > 0 && bytes + size > CHECKPOINT_CHUNK_BYTES) {
        carried = { c, size }; // the next chunk's first
        break;
      }
      bytes += size;
      checkpoints.push(c);
    }
    yield { checkpoints, records: checkpointBatchRecords(checkpoints) };
  }
}

/** The key of a remote partition's log start (`partition:topic`). */
export function logStartKey(topic: string, partition: number): string {
  return `${partition}:${topic}`;
}

/** Remote partitions whose log start must be read on the target (remote topic -> partitions), and the groups that need them. */
export interface LogStartNeeds {
  starts: Map<string, Set<number>>;
  groups: Set<string>;
}

export interface TranslateCycleInput {
  /** A full cycle (through the translation cache, with readiness) or a partial one (checkpointsForGroup, the cache forgets the group). */
  full: boolean;
  /** The groups to translate, in order. */
  groups: Iterable<string>;
  /** Each group's committed offsets on the source. */
  offsetsOf(group: string): readonly CommittedOffset[];
  /** The version of each group's offsets (SourceOffsetTable.versionOf), when they are made anew at each ask: the translation cache compares it instead of the array. */
  versionOf?(group: string): number | undefined;
  /**
   * Each group's offsets read in place (SourceOffsetTable.rowsOf, with `versionOf`): a full cycle
   * finds a translation that stands without making them (`offsetsOf`); a partial one leaves out a
   * group whose whole translation stands (nothing of it can be new).
   */
  rowsOf?(group: string): OffsetRows | undefined;
  /** When the offsets were listed (the checkpoints' record timestamp). */
  listedAt: number;
  /** The translation's fixed inputs (store, checkpoints, policy, aliases, filter, readiness); group, offsets and listedAt are set per group, remoteLogStart from `logStarts` (precise mode). */
  base: Omit<CacheInput, 'group' | 'offsets' | 'listedAt' | 'remoteLogStart'>;
  translations: TranslationCache;
  /** Whether each group has members on the target ('unknown' when not known). */
  membersOf(group: string): MembersOnTarget;
  /** The retry list (core/unsent-checkpoints): this cycle's checkpoints are added to it (replacing older ones of the same partition). */
  unsent: Pick<UnsentCheckpoints, 'add'>;
  /** Precise mode: log starts read on the target (`logStartKey`); one used by a translation is deleted (read again for the next rewind). Absent: MM2's behaviour (no log starts). */
  logStarts?: Map<string, bigint>;
  /** The last full cycle's lists: given back when this cycle's are the same, entry for entry. */
  previous?: { coverage: readonly GroupCoverage[]; summaries: readonly GroupReadiness[] } | null;
  /**
   * Full cycles over an array of groups: visit only the groups something changed for (the
   * reconcile lane, core/reconcile-layout); `key` is what else the answers depend on (compared
   * item by item with the last cycle's: the stores, their loading state, the target's listing).
   */
  reconcile?: { layout: ReconcileLayout; key: readonly unknown[]; changes(): ReconcileChanges };
}

export interface CycleTranslation {
  /** Full cycles: each translated group's coverage rows, in order (an entry is made when read: core/coverage-rows). */
  coverage: ListReuse<GroupCoverage>;
  /** Full cycles: each translated group's readiness (failed groups are added by fullCycleReadiness). */
  summaries: ListReuse<GroupReadiness>;
  needs: LogStartNeeds;
}

const NO_OFFSETS: readonly CommittedOffset[] = Object.freeze([]);

/** Groups taken as they were (the reconcile lane) that weigh one translated group in a slice of translateCycleInSlices. */
const SKIPPED_PER_GROUP = 25;

/** Translates the cycle's groups, in order, synchronously (the store is updated as it goes, as MM2's). */
export function translateCycle(t: TranslateCycleInput): CycleTranslation {
  const steps = translateSteps(t);
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
}

/**
 * translateCycle in slices (the reconcile lane, issue 24 step f): translates `sliceGroups` groups
 * per slice and awaits `pause()` between slices, so that a full cycle at 10,000 groups never holds
 * the caller's thread (other work, an event's partial cycle, runs in the pauses; each group is
 * still translated in one go, with the offsets held when its turn comes).
 */
export async function translateCycleInSlices(t: TranslateCycleInput, sliceGroups: number, pause: () => Promise<void>): Promise<CycleTranslation> {
  const steps = translateSteps(t, sliceGroups);
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return r.value;
    await pause();
  }
}

/** The translation, one group after another; yields after every `every` groups (Infinity: never). */
function* translateSteps(t: TranslateCycleInput, every = Infinity): Generator<void, CycleTranslation, void> {
  const coverage = new ListReuse<GroupCoverage>(t.full ? t.previous?.coverage : undefined);
  const summaries = new ListReuse<GroupReadiness>(t.full ? t.previous?.summaries : undefined);
  const needs: LogStartNeeds = { starts: new Map(), groups: new Set() };
  const logStarts = t.logStarts;
  // one input, its group fields set per group (neither call keeps it)
  const input: CacheInput = {
    ...t.base,
    group: '',
    offsets: [],
    listedAt: 0,
    // precise mode: a group rewound below every offset sync is checkpointed at the remote
    // partition's log start (read for it), not left at its stale, higher checkpoint; mm2: MM2's behaviour
    ...(logStarts === undefined ? {} : { remoteLogStart: (topic: string, partition: number) => logStarts.get(logStartKey(topic, partition)) }),
  };
  // the reconcile lane: a full cycle over the same groups as the last one visits only what changed
  const rc = t.full && t.reconcile !== undefined && Array.isArray(t.groups) ? t.reconcile : undefined;
  const list = t.groups as readonly string[];
  let marks: Uint8Array | null = null;
  if (rc !== undefined) {
    const layout = rc.layout;
    marks = layout.plan(list, rc.key, t.base.store, rc.changes());
    if (marks === null) {
      // every group: those the last cycle listed without looking at them were listed then
      const before = layout.lastGroups;
      if (before !== null) for (const g of before) t.translations.listedAtLeast(g, layout.listedAt);
      layout.begin(list, rc.key);
    }
  }
  // the slice's weight in SKIPPED_PER_GROUP-ths of a translated group (whole numbers: a fraction in a generator's local is a new heap number at each step)
  const limit = every * SKIPPED_PER_GROUP;
  let n = 0;
  // by index: a generator's for-of makes an iterator result per group
  const all: readonly string[] = Array.isArray(t.groups) ? t.groups : [...t.groups];
  for (let i = 0; i < all.length; i++) {
    const group = all[i];
    const held = marks !== null && marks[i] === 0 ? t.translations.held(group) : undefined;
    if (held !== undefined) {
      // nothing changed for it: its last entries, as they were (the cache's: the same objects the last cycle gave)
      coverage.push(held.coverage);
      summaries.push(held.summary);
      // a group taken as it was costs little: SKIPPED_PER_GROUP of them weigh one translated group in a slice
      n += 1;
      if (n > limit) {
        n = 0;
        yield;
      }
      continue;
    }
    n += SKIPPED_PER_GROUP;
    if (n > limit) {
      n = SKIPPED_PER_GROUP;
      yield;
    }
    input.group = group;
    input.offsetsVersion = t.versionOf?.(group);
    input.listedAt = t.listedAt;
    // a translation that stands, found from the offsets' rows (no object a partition)
    const rows = t.rowsOf !== undefined ? t.rowsOf(group) : undefined;
    let kept: CachedTranslation | undefined;
    if (rows !== undefined) {
      if (t.full) kept = t.translations.reused(input, rows);
      else {
        // a partial cycle over a group whose whole translation stands: none of its partitions has
        // anything new (no checkpoint, no rewind), its cache entry stays; the listing time is the full cycles'
        input.listedAt = undefined;
        const stands = t.translations.reused(input, rows) !== undefined;
        input.listedAt = t.listedAt;
        if (stands) continue;
      }
    }
    input.offsets = kept === undefined ? t.offsetsOf(group) : NO_OFFSETS;
    let r: { checkpoints: Checkpoint[]; coverage: Iterable<Pick<CoverageEntry, 'remoteTopic' | 'status' | 'partition'>> };
    if (t.full) {
      // only what moved is translated again (the cache says what did)
      const c = kept ?? t.translations.translate(input);
      coverage.push(c.coverage);
      const withMembers = t.translations.withMembers(group, c, t.membersOf(group));
      summaries.push(withMembers);
      // reused: nothing new, and no rewind below the syncs (an entry saying so is translated again every cycle)
      if (c.reused) continue;
      r = c;
    } else {
      // a partial translation (some partitions): the group's next full cycle translates it whole
      r = checkpointsForGroup(input);
      t.translations.forget(group);
    }
    for (const c of r.coverage) {
      if (c.remoteTopic === null) continue;
      if (c.status === 'rewound-below-syncs') {
        let parts = needs.starts.get(c.remoteTopic);
        if (parts === undefined) needs.starts.set(c.remoteTopic, (parts = new Set()));
        parts.add(c.partition);
        needs.groups.add(group);
      } else if (c.status === 'rewound-to-start') {
        logStarts?.delete(logStartKey(c.remoteTopic, c.partition)); // used: read again for the next rewind
      }
    }
    // Into the store (checkpointsForGroup did, with the listing time: the record timestamp) and onto the retry list (its row) together.
    for (const c of r.checkpoints) t.unsent.add(c);
  }
  if (rc !== undefined) rc.layout.done(list, rc.key, t.listedAt);
  return { coverage, summaries, needs };
}

function byGroup(a: { group: string }, b: { group: string }): number {
  return a.group < b.group ? -1 : a.group > b.group ? 1 : 0;
}

/** Sorts a cycle's failed groups by name, in place. */
export function sortByGroup<T extends { group: string }>(list: T[]): T[] {
  return list.sort(byGroup);
}

/**
 * A full cycle's readiness: the translated groups' summaries, then each group whose offsets could
 * not be listed (its last readiness stands until it is too old), sorted by group when there are
 * such; and the summary over all of them.
 */
export function fullCycleReadiness(o: {
  summaries: ListReuse<GroupReadiness>;
  failedGroups: ReadonlyArray<{ group: string }>;
  last(group: string): { summary: GroupReadiness; listedAt: number | undefined } | undefined;
  membersOf(group: string): MembersOnTarget;
  now: number;
  thresholds: ReadinessThresholds;
  listedAt: number | null;
}): { summaries: GroupReadiness[]; readiness: ReadinessSummary } {
  for (const f of o.failedGroups) {
    const last = o.last(f.group);
    o.summaries.push(withMembersOnTarget(unlistedGroupReadiness(f.group, last?.summary ?? null, last?.listedAt ?? null, o.now, o.thresholds), o.membersOf(f.group)));
  }
  let summaries = o.summaries.result() as GroupReadiness[];
  // sorted in a copy: the list may be the last cycle's
  if (o.failedGroups.length > 0) summaries = [...summaries].sort(byGroup);
  return { summaries, readiness: summarizeReadiness(summaries, o.thresholds, o.listedAt) };
}

/** Each of `groups` with checkpoints, and their checkpoint lists. */
/** What LatestCheckpoints reads (a CheckpointStore). */
export interface LatestSource {
  get(group: string): readonly Checkpoint[] | undefined;
  hasGroup(group: string): boolean;
  versionOf(group: string): number | undefined;
}

/**
 * The latest checkpoints of some groups (those with some when made), read from the store when
 * asked: a map that keeps only the group names (issue 24 step g, compact state: a cycle's result
 * kept for its status or its next message holds no checkpoint object), with each group's
 * version for "did it change since a message carried it".
 */
export class LatestCheckpoints implements ReadonlyMap<string, readonly Checkpoint[]> {
  /** How `has` looks: a Set of the names, or 'sorted' (a cycle's groups are: a binary search, no Set of 10,000 names; issue 24 step g). */
  private names: Set<string> | 'sorted' | null = null;

  constructor(
    private readonly list: readonly string[],
    private readonly store: LatestSource,
  ) {}

  /** The groups of `groups` that have checkpoints in `store`. */
  static of(groups: Iterable<string>, store: LatestSource): LatestCheckpoints {
    const list: string[] = [];
    for (const g of groups) if (store.hasGroup(g)) list.push(g);
    return new LatestCheckpoints(list, store);
  }

  /** LatestCheckpoints.of(groups, store), or `prev` when it holds exactly those groups of the same store (its set of names, made once, serves again). */
  static reuse(prev: LatestCheckpoints | undefined, groups: readonly string[], store: LatestSource): LatestCheckpoints {
    if (prev !== undefined && prev.store === store) {
      const list = prev.list;
      let n = 0;
      let same = true;
      for (let i = 0; i < groups.length; i++) {
        const g = groups[i];
        if (!store.hasGroup(g)) continue;
        if (list[n++] !== g) {
          same = false;
          break;
        }
      }
      if (same && n === list.length) return prev;
    }
    return LatestCheckpoints.of(groups, store);
  }

  get size(): number {
    return this.list.length;
  }

  /** The groups, in order (the list itself: read it, never change it). */
  get groupList(): readonly string[] {
    return this.list;
  }

  has(group: string): boolean {
    const l = this.list;
    if (this.names === null) this.names = l.every((g, i) => i === 0 || l[i - 1] < g) ? 'sorted' : new Set(l);
    if (this.names !== 'sorted') return this.names.has(group);
    return indexInSorted(l, group) >= 0;
  }

  get(group: string): readonly Checkpoint[] | undefined {
    return this.has(group) ? this.store.get(group) : undefined;
  }

  /** The version of a group's checkpoints in the store (CheckpointStore.versionOf). */
  versionOf(group: string): number | undefined {
    return this.has(group) ? this.store.versionOf(group) : undefined;
  }

  keys(): MapIterator<string> {
    return this.list[Symbol.iterator]() as MapIterator<string>;
  }

  *entries(): MapIterator<[string, readonly Checkpoint[]]> {
    for (const g of this.list) {
      const l = this.store.get(g);
      if (l !== undefined) yield [g, l];
    }
  }

  *values(): MapIterator<readonly Checkpoint[]> {
    for (const [, l] of this.entries()) yield l;
  }

  forEach(f: (value: readonly Checkpoint[], key: string, map: ReadonlyMap<string, readonly Checkpoint[]>) => void): void {
    for (const [g, l] of this.entries()) f(l, g, this);
  }

  [Symbol.iterator](): MapIterator<[string, readonly Checkpoint[]]> {
    return this.entries();
  }
}

export function latestOf(groups: Iterable<string>, get: (group: string) => readonly Checkpoint[] | undefined): Map<string, readonly Checkpoint[]> {
  const latest = new Map<string, readonly Checkpoint[]>();
  for (const g of groups) {
    const list = get(g);
    if (list && list.length > 0) latest.set(g, list);
  }
  return latest;
}

/** latestOf(groups), or `prev` when it holds exactly that (the store's lists are new arrays whenever they change). */
export function reusedLatest(
  groups: readonly string[],
  get: (group: string) => readonly Checkpoint[] | undefined,
  prev: Map<string, readonly Checkpoint[]> | undefined,
): Map<string, readonly Checkpoint[]> {
  if (prev !== undefined) {
    let n = 0;
    let same = true;
    for (const g of groups) {
      const list = get(g);
      if (!list || list.length === 0) continue;
      n++;
      if (prev.get(g) !== list) {
        same = false;
        break;
      }
    }
    if (same && n === prev.size) return prev;
  }
  return latestOf(groups, get);
}
