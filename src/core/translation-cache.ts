import type { CheckpointStore } from './checkpoint-store';
import { checkpointsForGroup, type CheckpointsForGroupInput, type CheckpointsForGroupResult, type CoverageEntry } from './checkpoints-for-group';
import type { OffsetSyncStore } from './offset-sync-store';
import type { CommittedOffset, OffsetSync } from './types';
import { CoverageTable, GroupCoverage } from './coverage-rows';
import { GroupNames } from './group-names';
import { GroupColumns } from './translation-columns';
import { DEFAULT_READINESS, entryReadiness, groupReadinessOf, type EntryReadiness, type MembersOnTarget, type GroupReadiness, type ReadinessThresholds } from './readiness';

/**
 * The last translation of every group, so that a full checkpoint cycle translates again only
 * the groups whose inputs moved: their committed offsets (a new offsets array), the offset sync
 * their position translates from (each partition's change log says which positions a change of its
 * syncs since the last check may have reached: only those look again, and the same sync found
 * means "same answer"; in the store's precise mode the sync kept for the group partition changes
 * only with a new sync at or below it or a new position (a new offsets array)),
 * the stores' loading state, or their own checkpoints (a partial cycle wrote some: `forget`).
 *
 * A group reused this way produces exactly what `checkpointsForGroup` would: no new checkpoint
 * (nothing it depends on changed, and what it emitted last time is in the checkpoint store now),
 * and the same coverage. A group whose last translation emitted something is translated again
 * once (its entries say "emitted" and would now say "unchanged").
 */

/**
 * A coverage entry with its group and its readiness (what a cycle reports). The cache keeps a
 * group's as compact rows (core/coverage-rows: values as variable-length integers in shared
 * byte chunks); an entry is a view of its row, made when read (its sentence too).
 */
export interface GroupCoverageEntry extends CoverageEntry, EntryReadiness {
  group: string;
}

export type { GroupCoverage };

/** What the cache translates: a group's checkpointsForGroup input, and how readiness is judged. */
export interface CacheInput extends CheckpointsForGroupInput {
  /** The version of `offsets` (SourceOffsetTable.versionOf): when given, a new number means "changed" and the array itself is not kept. */
  offsetsVersion?: number;
  /** Default DEFAULT_READINESS. */
  readiness?: ReadinessThresholds;
}

/**
 * A group's committed offsets read where they are kept (SourceOffsetTable.rowsOf), row by row, in
 * the order its offsets array would list them: the cache finds a translation still stands without
 * a CommittedOffset made a partition (`reused`).
 */
export interface OffsetRows {
  readonly length: number;
  topic(i: number): string;
  partition(i: number): number;
  offset(i: number): bigint | null;
}

/** An offsets array read as rows (translate's own check; one a cache, pointed at the array checked). */
class ArrayRows implements OffsetRows {
  list: readonly CommittedOffset[] = [];
  get length(): number {
    return this.list.length;
  }
  topic(i: number): string {
    return this.list[i].topic;
  }
  partition(i: number): number {
    return this.list[i].partition;
  }
  offset(i: number): bigint | null {
    return this.list[i].offset;
  }
}

export interface CachedTranslation {
  checkpoints: CheckpointsForGroupResult['checkpoints'];
  /** The group's coverage rows: the same object as long as the group is reused (callers may cache what they derive from it). */
  coverage: GroupCoverage;
  /** The group's readiness from its coverage (the same object as long as the group is reused). */
  summary: GroupReadiness;
  /** true: nothing was translated (the last answer stands). */
  reused: boolean;
}

const NO_CHECKPOINTS: CachedTranslation['checkpoints'] = Object.freeze([]) as unknown as CachedTranslation['checkpoints'];

/** What a group's answer depended on besides its offsets and syncs (one object for every group translated against the same). */
interface Basis {
  store: OffsetSyncStore;
  checkpoints: CheckpointStore;
  syncsLoaded: boolean;
  checkpointsLoaded: boolean;
  readiness: ReadinessThresholds;
}

/**
 * A group's last translation: its coverage rows themselves (a GroupCoverage: one object a group,
 * not an entry and its rows) and its readiness summary; what else the cache knows of the group
 * (the offsets' version, the basis, where its generations start, when it was listed, whether it
 * is stale) is in columns by its interned number (core/translation-columns: no field of the
 * object, no map keyed by name, issue 24 step g). Its own answer while the group is reused (no
 * object of its own: a full cycle at 10,000 groups asks every group every interval).
 */
class Entry extends GroupCoverage implements CachedTranslation {
  declare readonly checkpoints: typeof NO_CHECKPOINTS;
  declare readonly reused: true;
  declare readonly coverage: GroupCoverage;
  constructor(
    table: CoverageTable,
    /** Its rows, one an offset entry (checkpointsForGroup's entries are). */
    length: number,
    public summary: GroupReadiness,
  ) {
    super(table, length);
  }

  /** Its summary's (the same group whatever its members on the target say): no field of its own. */
  get group(): string {
    return this.summary.group;
  }
}
Object.defineProperties(Entry.prototype, {
  checkpoints: { value: NO_CHECKPOINTS },
  reused: { value: true },
  coverage: {
    get(this: Entry) {
      return this;
    },
  },
});

/** `s` saying `members`, every field in the object itself (a spread keeps some in a second array: 64 bytes a group more). */
function summaryWith(s: GroupReadiness, members: MembersOnTarget): GroupReadiness {
  if ('listedAt' in s || 'coveredBy' in s) return Object.freeze({ ...s, membersOnTarget: members });
  const { group, verdict, why, reread, topic, partition, ready, atRisk, notCovered } = s;
  return Object.freeze({ group, verdict, why, reread, topic, partition, ready, atRisk, notCovered, membersOnTarget: members });
}

/** The sync a position translates from in the current slots (the oldest one when it is older than all), or undefined. */
function syncFor(store: OffsetSyncStore, group: string, topic: string, partition: number, offset: bigint | null | undefined): OffsetSync | undefined {
  if (offset === null || offset === undefined || offset < 0n) return undefined;
  // with the group: in precise mode the sync kept for it counts (it only changes with a new slot array or a new position)
  const t = store.explain(topic, partition, offset, group);
  return t.kind === 'translated' ? t.sync : t.kind === 'too-old' ? t.oldest : undefined;
}

/**
 * Whether the row of (topic, partition) still has the readiness a translation now would give it
 * (its verdict and re-read bound: the sync above its position may have changed); false when no
 * row or more than one is of that partition.
 */
function readinessHolds(e: GroupCoverage, input: Pick<CacheInput, 'group' | 'store' | 'checkpoints'>, topic: string, partition: number, th: ReadinessThresholds): boolean {
  const i = e.onlyRowOf(topic, partition);
  if (i < 0) return false;
  const reread = e.rereadOf(i);
  const sync = e.syncOf(i);
  const up = e.upstreamOf(i);
  const down = e.downstreamOf(i);
  // not covered, or exactly at its sync (nothing re-read): no sync above counts
  if (reread === null || sync === undefined || up === null || down === undefined || up <= sync.upstreamOffset) return true;
  const { store, checkpoints, group } = input;
  const above = store.around(topic, partition, up, group).above;
  const remote = e.remoteTopicOf(i);
  const cp = remote === null ? undefined : checkpoints.getPartition(group, remote, partition);
  const now = entryReadiness({ status: e.statusOf(i), upstreamOffset: up, downstreamOffset: down, sync }, above, cp, undefined, th);
  return now.reread === reread && now.verdict === e.verdictOf(i);
}

export class TranslationCache {
  /** The group names' interner (the replication runtime's when given: one number a group for every table). */
  private readonly names: GroupNames;
  /** Per group number: its entry and its fields (core/translation-columns). */
  private readonly cols = new GroupColumns<Entry>();
  /** Every group's coverage rows (core/coverage-rows). */
  private table = new CoverageTable();
  /** Groups to translate again whatever else changed (their last answer emitted, or a partial cycle wrote for them), until taken. */
  private staleGroups = new Set<string>();
  /** The bases of the entries by number (a few: a new one only when a store, its loading state or the thresholds change). */
  private bases = new Map<number, Basis>();
  /** The number of the last basis. */
  private basisNo = 0;
  /** translate's offsets read as rows by stillValid (pointed at the array only while it checks). */
  private readonly arrayRows = new ArrayRows();

  constructor(names?: GroupNames) {
    this.names = names ?? new GroupNames();
  }

  /** Number of groups held. */
  get size(): number {
    return this.cols.size;
  }

  /** The number of a group held, or undefined. */
  private idOf(group: string): number | undefined {
    const id = this.names.idOf(group);
    return id !== undefined && this.cols.entry[id] !== undefined ? id : undefined;
  }

  /**
   * `checkpointsForGroup(input)`, or its last answer when none of its inputs moved. `input.offsets`
   * must be a new array whenever the group's offsets change (the same array means "unchanged").
   */
  translate(input: CacheInput): CachedTranslation {
    const { group, offsets, store, checkpoints } = input;
    const th = input.readiness ?? DEFAULT_READINESS;
    const cols = this.cols;
    const hadId = this.idOf(group);
    if (hadId !== undefined) {
      const rows = this.arrayRows;
      rows.list = offsets;
      const valid = this.stillValid(hadId, input, input.offsetsVersion ?? offsets, rows, th);
      rows.list = [];
      if (valid) {
        if (input.listedAt !== undefined) cols.listed[hadId] = input.listedAt;
        return cols.entry[hadId] as Entry;
      }
    }
    // no sentences: the rows make them when read (no string a group partition at each translation)
    const r = checkpointsForGroup({ ...input, reasons: false });
    // kept for many cycles: compact rows (values as variable-length integers, no sentence: core/coverage-rows)
    const readiness = r.coverage.map((c): EntryReadiness => {
      const cp = c.remoteTopic === null ? undefined : checkpoints.getPartition(group, c.remoteTopic, c.partition);
      const inexact = c.sync !== undefined && c.upstreamOffset !== null && c.upstreamOffset > c.sync.upstreamOffset;
      const above = inexact ? store.around(c.topic, c.partition, c.upstreamOffset as bigint, group).above : undefined;
      return entryReadiness(c, above, cp, cp === undefined ? undefined : checkpoints.listedAtOf(cp), th);
    });
    if (hadId !== undefined) {
      const had = cols.entry[hadId] as Entry;
      this.table.released(had.length, had.byteLength);
    }
    const summary = groupReadinessOf(group, r.coverage, readiness);
    // one row an offset entry (checkpointsForGroup's entries are)
    const n = r.coverage.length;
    const entry = new Entry(this.table, n, summary);
    const id = hadId ?? this.names.acquire(group);
    cols.set(id, entry, input.offsetsVersion ?? offsets);
    cols.basis[id] = this.basisOf(store, checkpoints, th);
    // checked against every change of the store's syncs so far (one moment for all its partitions)
    cols.checked[id] = store.changeClock.now;
    cols.listed[id] = input.listedAt ?? NaN;
    // an answer that emitted (or replaced a duplicate) reads differently next time: translate it again then
    // (a rewind below the syncs too: checkpointed at the log start, or waiting for it)
    const stale =
      n !== offsets.length ||
      r.coverage.some((c) => c.status === 'emitted' || c.status === 'duplicate-remote-partition' || c.status === 'rewound-to-start' || c.status === 'rewound-below-syncs');
    cols.stale[id] = stale ? 1 : 0;
    entry.write(r.coverage, readiness, checkpoints.loaded);
    const coverage: GroupCoverage = entry;
    if (stale) this.staleGroups.add(group);
    this.compactIfWasteful();
    return { checkpoints: r.checkpoints, coverage, summary, reused: false };
  }

  /**
   * The group's last answer when none of its inputs moved, judged from its offsets read in place
   * (`rows`: the offsets of version `input.offsetsVersion`, as `input.offsets` would list them), or
   * undefined: `translate` it. The same test and answer as `translate`'s reuse, without the offsets
   * as objects (a full cycle asks it of every group its plan visits, most of them unchanged).
   */
  reused(input: Omit<CacheInput, 'offsets'>, rows: OffsetRows): CachedTranslation | undefined {
    const version = input.offsetsVersion;
    const id = version === undefined ? undefined : this.idOf(input.group);
    if (id === undefined || !this.stillValid(id, input, version as number, rows, input.readiness ?? DEFAULT_READINESS)) return undefined;
    if (input.listedAt !== undefined) this.cols.listed[id] = input.listedAt;
    return this.cols.entry[id];
  }

  /**
   * `c`'s summary saying `members` (the group's members on the target): kept as the group's
   * summary from then on (one summary a group, not one per members value), `c`'s too.
   */
  withMembers(group: string, c: CachedTranslation, members: MembersOnTarget): GroupReadiness {
    const before = c.summary;
    if (before.membersOnTarget === members) return before;
    const s = summaryWith(before, members);
    c.summary = s;
    const id = this.idOf(group);
    const e = id === undefined ? undefined : this.cols.entry[id];
    if (e !== undefined && e.summary === before) {
      e.summary = s;
    }
    return s;
  }

  /** The group's last answer as it stands (its coverage and summary, `withMembers` applied), without a look at its inputs; undefined when not held. */
  held(group: string): CachedTranslation | undefined {
    const id = this.idOf(group);
    return id === undefined ? undefined : this.cols.entry[id];
  }

  /** The group's last readiness and when its offsets were last listed, or undefined when it was never translated (or is no longer retained). */
  last(group: string): { summary: GroupReadiness; listedAt: number | undefined } | undefined {
    const id = this.idOf(group);
    if (id === undefined) return undefined;
    const at = this.cols.listed[id];
    return { summary: (this.cols.entry[id] as Entry).summary, listedAt: Number.isNaN(at) ? undefined : at };
  }

  /** The group's checkpoints changed elsewhere (a partial cycle): translate it in full next time (its last readiness stays readable). */
  forget(group: string): void {
    const id = this.idOf(group);
    if (id !== undefined) {
      this.cols.stale[id] = 1;
      this.staleGroups.add(group);
    }
  }

  /** The groups that must be translated again (an answer that emitted, a forgotten group) since the last call. */
  takeStale(): Set<string> {
    const s = this.staleGroups;
    this.staleGroups = new Set();
    return s;
  }

  /** The group's offsets were listed at `listedAt` and found unchanged (a full cycle that did not look at it). */
  listedAtLeast(group: string, listedAt: number | undefined): void {
    const id = this.idOf(group);
    if (id === undefined || listedAt === undefined) return;
    const at = this.cols.listed[id];
    // NaN: never said
    if (!(at >= listedAt)) this.cols.listed[id] = listedAt;
  }

  /** Keeps only these groups. */
  retain(groups: { has(group: string): boolean }): void {
    const cols = this.cols;
    for (let id = 0; id < cols.entry.length; id++) {
      const e = cols.entry[id];
      if (e === undefined || groups.has(e.group)) continue;
      this.drop(id, e);
    }
    this.compactIfWasteful();
  }

  /** Rows of the table in use and reclaimable (for tests and benches). */
  get rows(): { live: number; waste: number } {
    return this.table.rows;
  }

  /** Forgets entry `e` of number `id` (its rows and slots reclaimable, its number released). */
  private drop(id: number, e: Entry): void {
    this.table.released(e.length, e.byteLength);
    this.cols.set(id, undefined);
    this.names.release(id);
  }

  private compactIfWasteful(): void {
    const cols = this.cols;
    if (!this.table.wasteful) return;
    this.table.compact(cols.entry.filter((e): e is Entry => e !== undefined));
  }

  clear(): void {
    const cols = this.cols;
    for (let id = 0; id < cols.entry.length; id++) if (cols.entry[id] !== undefined) this.names.release(id);
    cols.clear();
    this.table = new CoverageTable();
    this.bases = new Map();
    this.staleGroups.clear();
  }

  /** The number of the basis of a translation against these (the last one when the same). */
  private basisOf(store: OffsetSyncStore, checkpoints: CheckpointStore, readiness: ReadinessThresholds): number {
    const b = this.bases.get(this.basisNo);
    if (b !== undefined && b.store === store && b.checkpoints === checkpoints && b.readiness === readiness && b.syncsLoaded === store.loaded && b.checkpointsLoaded === checkpoints.loaded) return this.basisNo;
    this.bases.set(++this.basisNo, { store, checkpoints, syncsLoaded: store.loaded, checkpointsLoaded: checkpoints.loaded, readiness });
    // the oldest forgotten past 16: an entry of it is translated again
    if (this.bases.size > 16) this.bases.delete(this.bases.keys().next().value as number);
    return this.basisNo;
  }

  /** Whether entry `id` still stands for offsets `rows` (key `key`: their version, or the array itself). */
  private stillValid(id: number, input: Omit<CacheInput, 'offsets'>, key: number | object, rows: OffsetRows, th: ReadinessThresholds): boolean {
    const { store, checkpoints } = input;
    const cols = this.cols;
    const e = cols.entry[id] as Entry;
    const b = this.bases.get(cols.basis[id]);
    if (cols.stale[id] === 1 || b === undefined || b.readiness !== th) return false;
    if (!cols.sameKey(id, key)) return false;
    if (b.store !== store || b.checkpoints !== checkpoints) return false;
    if (b.syncsLoaded !== store.loaded || b.checkpointsLoaded !== checkpoints.loaded) return false;
    const n = rows.length;
    if (n !== e.length) return false;
    const checked = cols.checked[id];
    const now = store.changeClock.now;
    if (checked === now) return true;
    for (let i = 0; i < n; i++) {
      const topic = rows.topic(i);
      const partition = rows.partition(i);
      // the store's log of the partition (the same object for the store's life)
      const log = store.changeLog(topic, partition);
      // syncs changed on the partition since the group was checked: only a change that reached the position can change its answer
      const floor = log.sinceStamp(checked);
      if (floor === undefined) continue;
      const at = rows.offset(i);
      if (at !== null && at !== undefined && at >= 0n && (floor === null || (floor !== undefined && at >= floor))) {
        // the same sync (its offsets: the answer reads nothing else of it) as the row translated from: the same answer
        if (!e.syncMatches(topic, partition, syncFor(store, input.group, topic, partition, at))) return false;
      }
      // the same sync, but its readiness reads the next sync above the position too: a change above
      // the floor (a first sync above a still group, a retained one dropped) moves its re-read bound
      if (at !== null && at !== undefined && at >= 0n && !readinessHolds(e, input, topic, partition, th)) return false;
    }
    // the same syncs after newer changes: same answer; checked as of now (no search next time)
    cols.checked[id] = now;
    return true;
  }
}
