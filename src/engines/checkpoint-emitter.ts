/**
 * MM2's MirrorCheckpointConnector + MirrorCheckpointTask as one object, on kafkajs
 * (findConsumerGroups; MirrorCheckpointTask.start, poll, checkpointsForGroup, renameTopicPartition;
 * CheckpointStore), with no Node-RED in it:
 *
 * - start: ensure `<source>.checkpoints.internal` on the target, restore the last checkpoints
 *   from it once (log order, last wins, malformed records skipped and counted; a failed read
 *   clears them, and is tried again while the target does not answer), then create the
 *   offset-sync store in the mode MM2 chooses (restore OK -> keep the sync history during its
 *   initial load; failed -> only the latest sync). Offset syncs
 *   that arrive before that are buffered and replayed into the new store, in order.
 * - group discovery (MirrorCheckpointConnector.findConsumerGroups) at start and on `refreshGroups`;
 * - `cycle()`, a full cycle (at least every `emit.checkpoints.interval.seconds`): read the
 *   selected groups' source offsets (one OffsetFetch per group coordinator), compute the
 *   checkpoints (core checkpointsForGroup: +1 rule, rename, monotonic filter) and write the new
 *   ones to partition 0 of the checkpoints topic with the shared target producer, the record
 *   timestamp being the time the offsets were listed.
 * - event-driven partial cycles in between (source-offsets.ts): a commit on the source (seen in
 *   `__consumer_offsets`) or a new offset sync re-translates only the (group, partition) pairs it
 *   concerns, within the stream's batching window, and hands the result to `events.delivered`.
 *   Where `__consumer_offsets` cannot be read the full cycles are all there is (polling), and
 *   `events.sourceMode` says why. Cycles of both kinds never overlap (CoalescingRunner).
 */
import { chunkBySize } from '../core/chunks';
import { clampTimer } from '../core/intervals';
import type { Admin } from 'kafkajs';
import { CheckpointStore } from '../core/checkpoint-store';
import { checkpointsForGroup, type CoverageEntry } from '../core/checkpoints-for-group';
import { TranslationCache, type CacheInput, type GroupCoverageEntry } from '../core/translation-cache';
import { ListReuse } from '../core/list-reuse';
import { encodeCheckpoint, decodeValidCheckpoint } from '../core/checkpoint';
import { CoalescingRunner } from '../core/coalescing-runner';
import { MalformedRecordError } from '../core/errors';
import type { NameFilter } from '../core/filters';
import { findCheckpointGroups, type DiscoveryResult } from '../core/group-discovery';
import { OffsetSyncStore, type OffsetTranslationMode } from '../core/offset-sync-store';
import type { RenamePolicy } from '../core/rename-topic-partition';
import type { Checkpoint, OffsetSync } from '../core/types';
import { firstSeenCandidates, groupsConcernedBySyncs, groupsRead, groupsToRead, partialCycleCoverage, uniteGroupPartitions } from '../core/cycle-selection';
import { readPercent } from '../core/load-percent';
import { DEFAULT_READINESS, membersInState, summarizeReadiness, unlistedGroupReadiness, withMembersOnTarget, type GroupReadiness, type MembersOnTarget, type ReadinessSummary, type ReadinessThresholds } from '../core/readiness';
import type { ClusterConnection } from '../kafka/connection';
import { checkpointGroupListing, type CommittedOffset, type ListedGroupState } from '../kafka/groups';
import { mm2ListsGroup, type NotReplicatedGroup } from '../core/group-types';
import { authorizationFailure, explainKafkaError } from '../kafka/client';
import { SourceOffsets, type GroupPartitions, type SourceOffsetsMode, type SourceOffsetsOptions } from './source-offsets';

export type { GroupPartitions, SourceOffsetsMode };
import { TopicReader } from '../kafka/topic-reader';

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
  /** The checkpoints topic could not be prepared; retrying. */
  | { kind: 'retrying'; error: string; retryInMs: number }
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
}


/** The topics of a group's offsets, once per offsets array (the same array while the group's offsets stand; discovery asks every interval). */
const topicsOfList = new WeakMap<readonly CommittedOffset[], string[]>();
function topicsOf(list: readonly CommittedOffset[] | undefined): string[] {
  if (list === undefined) return [];
  let t = topicsOfList.get(list);
  if (t === undefined) topicsOfList.set(list, (t = [...new Set(list.map((o) => o.topic))]));
  return t;
}

/** Whether two maps hold the same keys with the same values. */
function sameEntries<K, V>(a: ReadonlyMap<K, V>, b: ReadonlyMap<K, V>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of b) if (a.get(k) !== v) return false;
  return true;
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

export interface WrittenCheckpoint extends Checkpoint {
  /** Record timestamp: when the group's offsets were listed. */
  timestamp: number;
}

export type { GroupCoverageEntry };

export interface CycleResult {
  cycle: number;
  /** true: a full cycle (`groups`, `coverage` and `latest` cover every selected group); false: an event-driven partial one (only the groups it touched). */
  full: boolean;
  /** 'restoring': no cycle ran because the checkpoints restore has not finished (MM2 does not poll then). */
  skipped?: 'restoring';
  /** The groups the cycle covered. */
  groups: string[];
  written: WrittenCheckpoint[];
  coverage: GroupCoverageEntry[];
  failedGroups: Array<{ group: string; error: string }>;
  /** Set when the group re-listing of this cycle failed (the previous selection was used). */
  discoveryError?: string;
  /** The latest checkpoint of every partition of every selected group (partial cycle: of the groups it touched). */
  latest: Map<string, readonly Checkpoint[]>;
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

/** Produce requests of at most this many checkpoint records or bytes (keys + values). */
export const CHECKPOINT_CHUNK_RECORDS = 2000;
export const CHECKPOINT_CHUNK_BYTES = 256 * 1024;

/** Encodes checkpoints into produce-sized chunks, in order (partition 0, record timestamp = listing time). */
export function chunkCheckpoints(
  list: readonly WrittenCheckpoint[],
): Array<{ checkpoints: WrittenCheckpoint[]; records: Array<{ key: Buffer; value: Buffer; partition: number; timestamp: string }> }> {
  const records = list.map((c) => {
    const rec = encodeCheckpoint(c);
    return { key: rec.key, value: rec.value, partition: 0, timestamp: String(c.timestamp) };
  });
  const sizes = records.map((r) => r.key.length + r.value.length);
  return chunkBySize(sizes, CHECKPOINT_CHUNK_RECORDS, CHECKPOINT_CHUNK_BYTES).map(([start, end]) => ({
    checkpoints: list.slice(start, end),
    records: records.slice(start, end),
  }));
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Membership in a sorted list, by binary search (no Set of 10,000 names per group refresh). */
function sortedMembers(sorted: readonly string[]): { has(g: string): boolean } {
  return {
    has(g: string): boolean {
      let lo = 0;
      let hi = sorted.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const v = sorted[mid];
        if (v === g) return true;
        if (v < g) lo = mid + 1;
        else hi = mid - 1;
      }
      return false;
    },
  };
}

function unsentKey(c: Checkpoint): string {
  return `${c.group}\u0000${c.topic}\u0000${c.partition}`;
}


/** A group first seen committing that the source's listing did not show is listed again for at most this often (ms). */
const UNLISTED_RELIST_MS = 1000;

export class CheckpointEmitter {
  private checkpointStore: CheckpointStore;
  private syncStore: OffsetSyncStore | null = null;
  private buffered: SyncEvent[] = [];
  private restore: RestoreReport | null = null;
  private selected: string[] | null = null;
  private cycles = 0;
  /** Checkpoints recorded in the store whose write failed: sent again by the next cycle (see runCycle). */
  private unsent = new Map<string, WrittenCheckpoint>();
  private stopped = false;
  private reader: TopicReader | null = null;
  private readonly runner: CoalescingRunner<CycleOptions, CycleResult>;
  private startP: Promise<void> | null = null;
  private discoveryP: Promise<DiscoveryResult> | null = null;
  private readonly now: () => number;
  private wake: (() => void) | null = null;
  private abortRestore: (() => void) | null = null;
  /** The last restore failed because the checkpoints topic does not exist. */
  private restoreTopicMissing = false;
  /** The selected groups' source offsets: read in full per cycle, followed as events in between. */
  private readonly sourceOffsets: SourceOffsets;
  /** Each group's last translation: a full cycle translates again only what moved. */
  private readonly translations = new TranslationCache();
  /** When the source offsets were last read in full (ms; 0: never). */
  private lastFullReadAt = 0;
  /** How long the last full read of the source's offsets that answered took (ms). */
  private lastReadMs = 0;
  private readonly readinessThresholds: ReadinessThresholds;
  /** The last full cycle's listing of the target's groups (see CycleResult.membersOnTarget). */
  private targetMembers: { members: ReadonlyMap<string, MembersOnTarget>; error?: string } = { members: new Map() };
  /** Groups whose coordinator the target refused to name (no DESCRIBE), since the last group discovery. */
  private refusedCoordinators = new Set<string>();
  /**
   * Log starts of remote partitions on the target (`partition:topic`), read for groups rewound
   * below every offset sync (precise mode): each is used once, by the translation that checkpoints
   * the group there, and read again for the next such rewind.
   */
  private readonly logStarts = new Map<string, bigint>();
  /** A read of log starts is under way. */
  private readingStarts = false;
  /** The source's last group listing (discovery, or the event path's check of a group first seen): each group's type. */
  private listedStates: ReadonlyMap<string, ListedGroupState> | null = null;
  /** Groups the group filter accepts of a type MM2 never checkpoints (streams, share), from the last listing. */
  private otherTypes: readonly NotReplicatedGroup[] = [];
  /**
   * Groups first seen committing that a new listing did not show (no DESCRIBE on them, or the
   * listing not there yet), with when: listed again for them at most every UNLISTED_RELIST_MS, until the next discovery.
   */
  private unlistedSeen = new Map<string, number>();

  constructor(private readonly o: CheckpointEmitterOptions) {
    this.now = o.now ?? Date.now;
    this.readinessThresholds = o.readiness ?? DEFAULT_READINESS;
    this.checkpointStore = new CheckpointStore({ acceptGroup: (g) => o.groupFilter.accept(g) });
    this.runner = new CoalescingRunner<CycleOptions, CycleResult>((opts) => this.runCycle(opts), mergeCycleOptions);
    this.sourceOffsets = new SourceOffsets({
      source: o.source,
      want: o.sourceOffsets ?? 'auto',
      batchMs: o.batchMs,
      now: this.now,
      openStream: o.openSourceStream,
      acceptGroup: (g) => o.groupFilter.accept(g),
      onChanged: (changed) => this.deliverCycle({ only: changed }),
      onMode: (m) => {
        o.events?.sourceMode?.(m);
        // following now: a full cycle at once (what changed before the stream stood is read there)
        if (m.kind === 'events') this.deliverCycle({});
      },
      onSkipped: (count, total) => o.events?.sourceRecordsSkipped?.(count, total),
      onUnanswered: (reason) => o.events?.sourceUnanswered?.(reason),
      onAnswered: () => o.events?.sourceAnswered?.(),
    });
  }

  /** Whether cycles also run by themselves (source offsets 'auto'); 'poll' runs them only when asked, as MM2's task does every interval. */
  private get eventDriven(): boolean {
    return (this.o.sourceOffsets ?? 'auto') === 'auto';
  }

  /** How the source offsets are read now. */
  get sourceMode(): SourceOffsetsMode {
    return this.sourceOffsets.mode;
  }

  /** Tries to follow `__consumer_offsets` again when that failed before (e.g. after an ACL was added); the node calls it every group refresh. */
  retrySourceStream(): Promise<void> {
    return this.ready && !this.stopped ? this.sourceOffsets.retryStream() : Promise.resolve();
  }

  /** A cycle nobody waits for: its result (or failure) goes to the delivered / deliveryFailed events. */
  private deliverCycle(opts: CycleOptions): void {
    if (this.stopped || this.syncStore === null) return;
    this.runner.run(opts).then(
      (r) => {
        if (!r.skipped && !this.stopped) this.o.events?.delivered?.(r);
      },
      (e: unknown) => {
        if (!this.stopped) this.o.events?.deliveryFailed?.((e as Error)?.message ?? String(e));
      },
    );
  }

  /** The latest checkpoints of every selected group that has some (null: before the restore or the first discovery). */
  latestState(): Map<string, readonly Checkpoint[]> | null {
    if (this.syncStore === null || this.selected === null) return null;
    const latest = new Map<string, readonly Checkpoint[]>();
    for (const g of this.selected) {
      const list = this.checkpointStore.get(g);
      if (list && list.length > 0) latest.set(g, list);
    }
    return latest;
  }

  /**
   * The source's groups with their states (one ListGroups per broker): a planned switchover
   * checks that a group has no members there. Rejects with the error explained.
   */
  async sourceGroupStates(): Promise<ReadonlyMap<string, ListedGroupState>> {
    try {
      return await this.o.source.offsetFetcher().listGroupStates();
    } catch (e) {
      throw new Error(explainKafkaError(e, this.o.source.settings));
    }
  }

  /**
   * Whether each of `groups` has members on the target: one ListGroups per broker; a group not
   * listed is asked for its coordinator, which a principal without DESCRIBE on it is refused
   * (ListGroups leaves out what the principal may not describe): 'unknown' then. Never rejects:
   * a failed listing makes every group 'unknown', with the error.
   */
  private async listTargetMembers(groups: readonly string[]): Promise<{ members: ReadonlyMap<string, MembersOnTarget>; error?: string }> {
    const members = new Map<string, MembersOnTarget>();
    try {
      const fetcher = this.o.target.offsetFetcher();
      const states = await fetcher.listGroupStates();
      const unlisted: string[] = [];
      for (const g of groups) {
        const s = states.get(g);
        if (s !== undefined) members.set(g, membersInState(s.state));
        else unlisted.push(g);
      }
      // a coordinator found is remembered by the fetcher; a refusal (no DESCRIBE on the group) is
      // remembered here until the next group discovery (ACLs change rarely), so a full cycle does not
      // ask again for every refused group; other failures are asked again next cycle
      const ask = unlisted.filter((g) => !this.refusedCoordinators.has(g));
      const failed = ask.length > 0 ? await fetcher.coordinatorFailures(ask) : new Map<string, string>();
      for (const [g, why] of failed) if (authorizationFailure({ message: why })) this.refusedCoordinators.add(g);
      for (const g of unlisted) members.set(g, failed.has(g) || this.refusedCoordinators.has(g) ? 'unknown' : false);
      // unchanged (the usual cycle): the last map stays, and what was derived from it with it
      const prev = this.targetMembers;
      if (prev.error === undefined && sameEntries(prev.members, members)) return prev;
      return { members };
    } catch (e) {
      return { members: new Map(), error: explainKafkaError(e, this.o.target.settings) };
    }
  }

  /** The last full cycle's lists (a full cycle that finds the same gives them back). */
  private lastFull: { coverage: readonly GroupCoverageEntry[]; summaries: readonly GroupReadiness[]; latest: Map<string, readonly Checkpoint[]> } | null = null;

  /** Each of `groups` with checkpoints, and their checkpoint lists. */
  private latestOf(groups: readonly string[]): Map<string, readonly Checkpoint[]> {
    const latest = new Map<string, readonly Checkpoint[]>();
    for (const g of groups) {
      const list = this.checkpointStore.get(g);
      if (list && list.length > 0) latest.set(g, list);
    }
    return latest;
  }

  /** latestOf(groups), or the last full cycle's map when it holds exactly that (the store's lists are new arrays whenever they change). */
  private fullLatest(groups: readonly string[]): Map<string, readonly Checkpoint[]> {
    const prev = this.lastFull?.latest;
    if (prev !== undefined) {
      let n = 0;
      let same = true;
      for (const g of groups) {
        const list = this.checkpointStore.get(g);
        if (!list || list.length === 0) continue;
        n++;
        if (prev.get(g) !== list) {
          same = false;
          break;
        }
      }
      if (same && n === prev.size) return prev;
    }
    return this.latestOf(groups);
  }

  /**
   * Reads the log starts of remote partitions on the target for groups rewound below every
   * offset sync, then translates those groups again (a partial cycle) so that they are
   * checkpointed there. Nothing found (the partitions are missing, or the read failed): the next
   * full cycle asks again; a failure is reported like a failed delivery.
   */
  private readLogStarts(need: ReadonlyMap<string, ReadonlySet<number>>, groups: ReadonlySet<string>): void {
    if (this.readingStarts || this.stopped) return;
    this.readingStarts = true;
    (async () => {
      const admin = await this.o.target.admin();
      let found = 0;
      for (const [topic, parts] of need) {
        for (const o of await admin.fetchTopicOffsets(topic)) {
          if (!parts.has(o.partition)) continue;
          this.logStarts.set(`${o.partition}:${topic}`, BigInt(o.low));
          found++;
        }
      }
      return found;
    })().then(
      (found) => {
        this.readingStarts = false;
        if (found > 0) this.deliverCycle({ only: new Map([...groups].map((g) => [g, 'all' as const])) });
      },
      (e: unknown) => {
        this.readingStarts = false;
        if (!this.stopped) this.o.events?.deliveryFailed?.(`reading the log start of a rewound group's partitions on the target: ${explainKafkaError(e, this.o.target.settings)}`);
      },
    );
  }

  /** Whether the restore has finished (cycles may run). */
  get ready(): boolean {
    return this.syncStore !== null;
  }

  /** The restore outcome, once known. */
  get restoreReport(): RestoreReport | null {
    return this.restore;
  }

  /** The groups selected by the last successful discovery (null: not discovered yet). */
  get groups(): string[] | null {
    return this.selected === null ? null : [...this.selected];
  }

  /** Whether the offset-sync history has been read to its end (MM2 readToEnd). */
  get syncsLoaded(): boolean {
    return this.syncStore?.loaded ?? false;
  }

  /** The sync store's mode, once created (true: full history kept during its initial load). */
  get keepHistoryOnLoad(): boolean | undefined {
    return this.syncStore?.keepHistoryOnLoad;
  }

  /** The sync store's translation mode, once created. */
  get offsetTranslation(): OffsetTranslationMode | undefined {
    return this.syncStore?.translation;
  }

  /** Precise mode: the group partitions the sync store keeps a sync for (0 in mm2 mode or before the store exists). */
  get trackedGroupPartitions(): number {
    return this.syncStore?.trackedGroupPartitions ?? 0;
  }

  /** Precise mode: the syncs the sync store retains for the tracked groups, all partitions (0 in mm2 mode or before the store exists). */
  get retainedSyncs(): number {
    return this.syncStore?.retainedSyncs ?? 0;
  }

  /** Precise mode: whether the sync store still holds the syncs read since the start (until every group was translated once). */
  get holdsLoadHistory(): boolean {
    return this.syncStore?.holdsLoadHistory ?? false;
  }

  /** Offset-sync events buffered while the restore runs. */
  get bufferedEvents(): number {
    return this.buffered.length;
  }

  /**
   * Starts: prepares the checkpoints topic (retrying while it cannot), restores, then creates
   * the sync store. Initial group discovery runs alongside. Resolves when the restore is done
   * (or the emitter was stopped). Never rejects.
   */
  start(): Promise<void> {
    if (!this.startP) {
      this.startP = this.startup().catch(() => undefined);
      this.refreshGroups().catch(() => undefined);
    }
    return this.startP;
  }

  /** Applies (or, while restoring, buffers) one offset-sync event. */
  handleSyncEvent(ev: SyncEvent): void {
    if (this.syncStore === null) {
      if (ev.event === 'reset') this.buffered = [];
      else this.buffered.push(ev);
      return;
    }
    this.applyEvent(ev);
  }

  /** Re-lists the groups (MirrorCheckpointConnector.findConsumerGroups). Concurrent calls share one discovery. Rejects on failure (the previous selection stays). */
  refreshGroups(): Promise<DiscoveryResult> {
    if (!this.discoveryP) {
      this.discoveryP = this.discover().finally(() => {
        this.discoveryP = null;
        this.refusedCoordinators.clear();
      });
    }
    return this.discoveryP;
  }

  /** Requests a cycle; never overlaps with a running one (a request during a cycle runs one more after it). */
  cycle(opts: CycleOptions = {}): Promise<CycleResult> {
    return this.runner.run(opts);
  }

  /** Stops: the restore reader, the source stream, and waits for a running cycle (which gives up at its next step). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    this.abortRestore?.();
    const r = this.reader;
    this.reader = null;
    await Promise.all([r?.stop(), this.sourceOffsets.stop()]);
    await this.runner.idle();
  }

  // -------------------------------------------------------------------------------------------

  private applyEvent(ev: SyncEvent): void {
    const store = this.syncStore as OffsetSyncStore;
    if (ev.event === 'reset') {
      this.syncStore = new OffsetSyncStore({ keepHistoryOnLoad: store.keepHistoryOnLoad, translation: store.translation });
    } else if (ev.event === 'loaded') {
      const was = store.loaded;
      store.markLoaded();
      // the history is complete now: translate everything at once, not one interval later
      if (!was && this.eventDriven) this.deliverCycle({});
    } else {
      for (const s of ev.syncs) store.apply(s);
      this.syncsArrived(ev.syncs);
    }
  }

  /**
   * New offset syncs can give a better translation to the groups at or above them: those
   * (group, partition) pairs are translated again at once (the full cycle covers the rest).
   */
  private syncsArrived(syncs: readonly OffsetSync[]): void {
    if (this.selected === null || !this.eventDriven) return;
    // per partition, the lowest sync concerns every group at or above it: one look-up each
    const only = groupsConcernedBySyncs(syncs, (topic, partition, offset) => this.sourceOffsets.groupsAtOrAbove(topic, partition, offset));
    if (only.size > 0) this.deliverCycle({ only });
  }

  private async startup(): Promise<void> {
    const { target, checkpointsTopic } = this.o;
    const maxDelay = Math.max(1000, this.o.retryMaxMs ?? 60000);
    let delay = Math.min(2000, maxDelay);
    // the last attempt's failure: the next attempt does not make it "loading" again until it succeeds
    let failed: string | undefined;
    const retryLater = async (error: string): Promise<void> => {
      failed = error;
      this.o.events?.phase?.({ kind: 'retrying', error, retryInMs: delay });
      await this.sleep(delay);
      delay = Math.min(delay * 2, maxDelay);
    };
    let report: RestoreReport;
    for (;;) {
      if (this.stopped) return;
      this.o.events?.phase?.(failed === undefined ? { kind: 'preparing' } : { kind: 'preparing', failed });
      try {
        await this.o.ensureTopic(target, checkpointsTopic);
      } catch (e) {
        await retryLater((e as Error)?.message ?? String(e));
        continue;
      }
      if (this.stopped) return;
      report = await this.restoreCheckpoints();
      if (this.stopped) return;
      // A failed read goes on without the checkpoints, as MM2 does, when the target answers
      // (a missing topic, records it cannot read in time). When the target itself did not
      // answer, what it holds is not lost: read it again once it answers.
      if (report.ok || this.restoreTopicMissing || (await this.targetAnswers())) break;
      this.checkpointStore = new CheckpointStore({ acceptGroup: (g) => this.o.groupFilter.accept(g) });
      await retryLater(report.error ?? 'the target did not answer');
    }
    this.restore = report;
    this.checkpointStore.markLoaded(report.ok);
    if (!report.ok) report.restored = 0;
    // MM2: offsetSyncStore.start(mustReadToEnd = !checkpointsLoadedOk)
    this.syncStore = new OffsetSyncStore({ keepHistoryOnLoad: report.ok, translation: this.o.offsetTranslation ?? 'precise' });
    const events = this.buffered;
    this.buffered = [];
    for (const ev of events) this.applyEvent(ev);
    this.o.events?.restored?.(report);
    this.o.events?.phase?.({ kind: 'ready' });
    if (!this.stopped) await this.sourceOffsets.startStream();
  }

  /** Whether the target answers a request about the checkpoints topic now. */
  private async targetAnswers(): Promise<boolean> {
    try {
      const admin = await this.o.target.admin();
      await admin.fetchTopicOffsets(this.o.checkpointsTopic);
      return true;
    } catch {
      return false;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = null;
        resolve();
      }, clampTimer(ms));
      this.wake = () => {
        clearTimeout(t);
        this.wake = null;
        resolve();
      };
    });
  }

  private async restoreCheckpoints(): Promise<RestoreReport> {
    const { target, checkpointsTopic } = this.o;
    const report: RestoreReport = { ok: false, restored: 0, read: 0, malformed: 0 };
    this.restoreTopicMissing = false;
    const kept = new Set<string>();
    const outcome: { failure: Error | null } = { failure: null };
    let failNow: (e: Error) => void = () => undefined;
    const failed = new Promise<void>((resolve) => {
      failNow = (e) => {
        if (!outcome.failure) outcome.failure = e;
        resolve();
      };
    });
    this.abortRestore = () => failNow(new Error('stopped'));
    let timer: NodeJS.Timeout | undefined;
    let probe: NodeJS.Timeout | undefined;
    try {
      this.o.events?.phase?.({ kind: 'restoring', percent: 0 });
      const admin: Admin = await target.admin();
      const reader = new TopicReader(target.kafka, admin, {
        topic: checkpointsTopic,
        tail: false,
        groupPrefix: '__mm2-node-red-checkpoints-restore',
        settings: target.settings,
        onRecord: (r) => {
          report.read++;
          let cp: Checkpoint;
          try {
            cp = decodeValidCheckpoint(r.key, r.value); // a negative offset is skipped and counted as malformed
          } catch (e) {
            if (e instanceof MalformedRecordError) {
              report.malformed++;
              return;
            }
            throw e;
          }
          if (this.checkpointStore.loadRecord(cp, r.timestamp)) kept.add(`${cp.group}\u0000${cp.partition}:${cp.topic}`);
        },
        onProgress: (read, total) => {
          this.o.events?.phase?.({ kind: 'restoring', percent: readPercent(read, total) });
        },
        onError: (err) => failNow(err),
      });
      this.reader = reader;
      const timeoutMs = this.o.restoreTimeoutMs ?? 120000;
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          failNow(new Error(`reading ${checkpointsTopic} did not finish within ${Math.round(timeoutMs / 1000)} s`));
          resolve();
        }, clampTimer(timeoutMs));
      });
      // While the read runs, ask the target every retry period whether it still answers: a
      // target that stopped answering shows as an error (red), not as a long "loading".
      const probeMs = clampTimer(Math.max(1000, this.o.retryMaxMs ?? 60000));
      probe = setInterval(() => {
        target
          .admin()
          .then((a) => a.fetchTopicOffsets(checkpointsTopic))
          .then(
            () => target.reportOk(),
            (e) => {
              if (!outcome.failure) target.reportError(e);
            },
          );
      }, probeMs);
      const started = reader.start().catch((e: Error) => failNow(e));
      await Promise.race([started, failed, timedOut]);
      if (outcome.failure) {
        await reader.stop();
        throw outcome.failure;
      }
      report.ok = true;
      report.restored = kept.size;
    } catch (e) {
      const err = e as Error;
      report.ok = false;
      this.restoreTopicMissing = err?.name === 'TopicNotFoundError';
      report.error = this.restoreTopicMissing ? err.message : target.reportError(err);
    } finally {
      if (timer) clearTimeout(timer);
      if (probe) clearInterval(probe);
      this.reader = null;
      this.abortRestore = null;
    }
    return report;
  }

  /**
   * Of `groups` (first seen committing in the stream), those MM2's discovery lists: classic and
   * consumer groups, by the type of the last listing, or of a new one when a group is not in it
   * (a streams group's members commit plain offsets too: it is never selected). A group the
   * listing does not show, or a listing that fails, selects nothing now: the next discovery decides.
   */
  private async groupsMm2Lists(groups: readonly string[]): Promise<Set<string>> {
    let states = this.listedStates;
    const now = this.now();
    const relist = (g: string): boolean => !states?.has(g) && now - (this.unlistedSeen.get(g) ?? -Infinity) >= UNLISTED_RELIST_MS;
    if (states === null || groups.some(relist)) {
      try {
        states = await this.o.source.offsetFetcher().listGroupStates();
      } catch {
        states = null;
      }
      if (states !== null) {
        this.listedStates = states;
        const others = checkpointGroupListing(states).others;
        this.otherTypes = others.some((o) => !this.o.groupFilter.accept(o.group)) ? others.filter((o) => this.o.groupFilter.accept(o.group)) : others;
      }
    }
    const out = new Set<string>();
    if (states === null) return out;
    for (const g of groups) {
      const listed = states.get(g);
      if (listed === undefined) this.unlistedSeen.set(g, now);
      else if (mm2ListsGroup(listed)) out.add(g);
    }
    return out;
  }

  private async discover(): Promise<DiscoveryResult> {
    const { source, groupFilter, topicFilter } = this.o;
    try {
      await source.admin(); // connects (and reports a connection failure) first
      const result = await findCheckpointGroups(
        {
          // one ListGroups per broker, the same names while nothing changed (refreshed every second at scale)
          // classic and consumer groups only, as MM2 4.x lists them (core/group-types)
          listGroups: async () => {
            const states = await source.offsetFetcher().listGroupStates();
            this.listedStates = states;
            return checkpointGroupListing(states).ids;
          },
          otherTypes: () => (this.listedStates === null ? [] : checkpointGroupListing(this.listedStates).others),
          committedTopics: async (groups) => {
            // while the stream follows (and was read in full since), what it keeps is current: read only the others
            const fresh = this.sourceFresh();
            const { failed } = await this.sourceOffsets.readAll(groupsToRead(groups, fresh, (g) => this.sourceOffsets.offsetsOf(g) !== undefined));
            const topics = { get: (g: string) => (failed.has(g) ? undefined : topicsOf(this.sourceOffsets.offsetsOf(g))) };
            return { topics, failed };
          },
        },
        groupFilter,
        topicFilter,
      );
      source.reportOk();
      this.otherTypes = result.otherTypes;
      this.unlistedSeen.clear();
      const same = this.selected !== null && sameList(this.selected, result.groups);
      this.selected = result.groups;
      // what the groups no longer selected held goes: the stream also keeps groups never selected;
      // the translations and the sync store only selected ones (nothing to drop while the selection stands)
      const kept = sortedMembers(result.groups);
      this.sourceOffsets.retain(kept);
      if (!same) {
        this.translations.retain(kept);
        this.syncStore?.retainGroups(kept);
      }
      this.o.events?.discovered?.(result);
      return result;
    } catch (e) {
      const text = source.reportError(e);
      this.o.events?.discoveryFailed?.(text);
      throw new Error(text);
    }
  }

  /** Whether the source offsets kept are current without a full read: the stream follows, and a full read succeeded since it stood, less than FULL_SOURCE_READ_EVERY_MS (or the option) ago. */
  private sourceFresh(): boolean {
    const since = this.sourceOffsets.followingSince;
    return since !== null && this.lastFullReadAt >= since && this.now() - this.lastFullReadAt < (this.o.fullSourceReadEveryMs ?? FULL_SOURCE_READ_EVERY_MS);
  }

  private async runCycle(opts: CycleOptions): Promise<CycleResult> {
    const cycle = ++this.cycles;
    const startedAt = this.now();
    const full = opts.only === undefined;
    const base: CycleResult = {
      cycle,
      full,
      groups: [],
      written: [],
      coverage: [],
      failedGroups: [],
      latest: new Map(),
      startedAt,
      durationMs: 0,
      syncsLoaded: this.syncsLoaded,
      notReplicatedGroups: this.otherTypes,
    };
    if (this.syncStore === null || this.stopped) {
      return { ...base, skipped: 'restoring' };
    }
    let discoveryError: string | undefined;
    if (opts.refreshGroups || this.selected === null) {
      try {
        await this.refreshGroups();
      } catch (e) {
        discoveryError = (e as Error).message;
        if (this.selected === null) throw e;
      }
    }
    const { source, target } = this.o;
    const failedGroups: Array<{ group: string; error: string }> = [];
    // Which groups, with which of their offsets: a full cycle reads every selected group's
    // offsets now; a partial one takes the offsets the source stream keeps, for the partitions
    // that changed. A group first seen in the stream is selected at once when MM2's discovery
    // rule would select it (group filter, and a commit on a replicated topic).
    const perGroup: Array<{ group: string; ts: number; offsets: readonly CommittedOffset[] }> = [];
    let groups: string[];
    let listedAt: number | null = null;
    let targetListing: Promise<{ members: ReadonlyMap<string, MembersOnTarget>; error?: string }> | null = null;
    let fullRead: { groups: readonly string[]; ts: number } | null = null;
    if (full) {
      groups = [...(this.selected ?? [])];
      const ts = this.now();
      listedAt = ts;
      // the target's groups are listed alongside the source's offsets
      targetListing = this.listTargetMembers(groups);
      // a read that does not answer in time: the source stopped answering (said now, the client keeps trying)
      let silent = false;
      const silentAfter = Math.max(SOURCE_SILENT_READ_MS, 3 * this.lastReadMs);
      const watchdog = groups.length === 0 ? null : setTimeout(() => {
        silent = true;
        this.o.events?.sourceUnanswered?.(`the source has not answered the read of the groups' offsets for ${Math.round(silentAfter / 1000)} s; the client is trying again`);
      }, silentAfter);
      try {
        await source.admin(); // connects (and reports a connection failure) before the fetch
        // following: the stream's offsets, read in full only every FULL_SOURCE_READ_EVERY_MS
        // (and the groups never read); polling: every group, every cycle
        const fresh = this.sourceFresh();
        const readStarted = this.now();
        const { failed } = await this.sourceOffsets.readAll(groupsToRead(groups, fresh, (g) => this.sourceOffsets.offsetsOf(g) !== undefined));
        if (!fresh && failed.size === 0) this.lastFullReadAt = readStarted;
        for (const [group, error] of failed) failedGroups.push({ group, error });
        if (failed.size < groups.length) {
          this.lastReadMs = this.now() - readStarted;
          // it answered after all (late): the source answers
          if (silent) this.o.events?.sourceAnswered?.();
        }
      } catch (e) {
        const error = (e as Error)?.message ?? String(e);
        for (const group of groups) failedGroups.push({ group, error });
      } finally {
        if (watchdog) clearTimeout(watchdog);
      }
      // the groups read, without an object per group (10,000 of them per second, alive across the cycle's awaits)
      fullRead = { groups: groupsRead(groups, new Set(failedGroups.map((f) => f.group))), ts };
      // Every selected group failed: the source is not answering, whatever the cached admin client
      // thinks (its users show the error; the checkpoints already held stay valid and are reported).
      if (groups.length > 0 && failedGroups.length === groups.length) source.reportError(new Error(failedGroups[0].error));
      else source.reportOk();
    } else {
      const ts = this.now();
      const selected = new Set(this.selected ?? []);
      groups = [];
      const only = opts.only as Map<string, GroupPartitions>;
      // groups first seen committing that MM2's rule would select by name and topic: selected
      // only when the listing says they are classic or consumer groups (never streams or share)
      const firstSeen = firstSeenCandidates(only, selected, (g) => this.sourceOffsets.offsetsOf(g), this.o.groupFilter, this.o.topicFilter);
      const listedNow = firstSeen.length > 0 ? await this.groupsMm2Lists(firstSeen) : new Set<string>();
      const { covered, added } = partialCycleCoverage(only, selected, listedNow);
      if (added.length > 0) {
        (this.selected as string[]).push(...added);
        this.selected?.sort();
      }
      for (const { group, parts } of covered) {
        groups.push(group);
        perGroup.push({ group, ts, offsets: this.sourceOffsets.offsetsOf(group, parts) ?? [] });
      }
      groups.sort();
    }
    if (targetListing !== null) this.targetMembers = await targetListing;
    if (this.stopped) return { ...base, skipped: 'restoring' };
    // Translation and the store update run synchronously, in group order, after all fetches.
    const store = this.syncStore as OffsetSyncStore;
    // a full cycle's lists are usually the last one's, entry for entry: kept, not built again
    const coverageList = new ListReuse<GroupCoverageEntry>(full ? this.lastFull?.coverage : undefined);
    const summaryList = new ListReuse<GroupReadiness>(full ? this.lastFull?.summaries : undefined);
    // one input, its group fields set per group (neither call keeps it)
    const input: CacheInput = {
      group: '',
      offsets: [],
      topicFilter: this.o.topicFilter,
      store,
      checkpoints: this.checkpointStore,
      policy: this.o.policy,
      sourceAlias: this.o.sourceAlias,
      targetAlias: this.o.targetAlias,
      listedAt: 0,
      readiness: this.readinessThresholds,
      // precise mode: a group rewound below every offset sync is checkpointed at the remote
      // partition's log start (read for it below), not left at its stale, higher checkpoint; mm2: MM2's behaviour
      ...(store.translation === 'mm2' ? {} : { remoteLogStart: (topic: string, partition: number) => this.logStarts.get(`${partition}:${topic}`) }),
    };
    /** Groups rewound below every offset sync whose remote partitions' log starts are not known yet: remote topic -> partitions. */
    const needStarts = new Map<string, Set<number>>();
    const needGroups = new Set<string>();
    const translateGroup = (group: string, offsets: readonly CommittedOffset[], ts: number): void => {
      input.group = group;
      input.offsets = offsets;
      input.listedAt = ts;
      let r: { checkpoints: Checkpoint[]; coverage: readonly CoverageEntry[] };
      if (full) {
        // only what moved is translated again (the cache says what did)
        const t = this.translations.translate(input);
        for (const c of t.coverage) coverageList.push(c);
        summaryList.push(withMembersOnTarget(t.summary, this.targetMembers.members.get(group) ?? 'unknown'));
        r = t;
      } else {
        // a partial translation (some partitions): the group's next full cycle translates it whole
        r = checkpointsForGroup(input);
        this.translations.forget(group);
      }
      for (const c of r.coverage) {
        if (c.remoteTopic === null) continue;
        if (c.status === 'rewound-below-syncs') {
          let parts = needStarts.get(c.remoteTopic);
          if (parts === undefined) needStarts.set(c.remoteTopic, (parts = new Set()));
          parts.add(c.partition);
          needGroups.add(group);
        } else if (c.status === 'rewound-to-start') {
          this.logStarts.delete(`${c.partition}:${c.remoteTopic}`); // used: read again for the next rewind
        }
      }
      // Into the store and onto the retry list together (see below).
      for (const c of r.checkpoints) {
        const w: WrittenCheckpoint = { ...c, timestamp: ts };
        this.unsent.set(unsentKey(w), w);
      }
    };
    if (fullRead !== null) for (const g of fullRead.groups) translateGroup(g, this.sourceOffsets.offsetsOf(g) ?? [], fullRead.ts);
    else for (const g of perGroup) translateGroup(g.group, g.offsets, g.ts);
    // every selected group has been translated once since the load: what each needs is kept; the load history can go
    if (full && store.loaded && failedGroups.length === 0 && discoveryError === undefined) store.releaseLoadHistory();
    failedGroups.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
    // Like MM2, the store already holds this cycle's checkpoints (so a write that failed but
    // landed can never be followed by a lower one). Unlike MM2, a failed write is not forgotten:
    // a checkpoint counts as written only once the broker acknowledged it, so every checkpoint
    // of this cycle goes on the retry list first and leaves it only with its acknowledgement;
    // whatever fails (connecting the producer, a produce request, anything else) leaves it
    // there, and the next cycle sends the ones still current in the store again.
    const toWrite: WrittenCheckpoint[] = [];
    for (const [k, c] of this.unsent) {
      const current = this.checkpointStore.getPartition(c.group, c.topic, c.partition);
      if (current && current.downstreamOffset === c.downstreamOffset && current.upstreamOffset === c.upstreamOffset) toWrite.push(c);
      else this.unsent.delete(k);
    }
    if (toWrite.length > 0) {
      try {
        const producer = await target.producer();
        // One produce request holds at most ~1 MiB by default (broker message.max.bytes): send in
        // chunks, in order, and stop at the first failure.
        for (const chunk of chunkCheckpoints(toWrite)) {
          if (this.stopped) break; // closing: what is unsent stays on the list (and in the topic's next owner's cycle)
          await producer.send({ topic: this.o.checkpointsTopic, acks: -1, messages: chunk.records });
          for (const c of chunk.checkpoints) this.unsent.delete(unsentKey(c));
        }
      } catch (e) {
        throw new Error(target.reportError(e, [{ resource: 'Topic', name: this.o.checkpointsTopic, operations: ['WRITE'] }]));
      }
      target.reportOk();
    } else if (full) {
      // Nothing to write: still make sure the target answers (and still holds the checkpoints
      // topic), so that an unreachable target is a failed cycle, never a quiet one.
      try {
        const admin = await target.admin();
        await admin.fetchTopicOffsets(this.o.checkpointsTopic);
      } catch (e) {
        throw new Error(target.reportError(e));
      }
      target.reportOk();
    }
    if (needGroups.size > 0) this.readLogStarts(needStarts, needGroups);
    const latest = full ? this.fullLatest(groups) : this.latestOf(groups);
    let readiness: ReadinessSummary | undefined;
    const coverage = coverageList.result() as GroupCoverageEntry[];
    if (full) {
      // a group whose offsets could not be listed: its last readiness stands until it is too old
      const th = this.readinessThresholds;
      const now = this.now();
      for (const f of failedGroups) {
        const last = this.translations.last(f.group);
        summaryList.push(withMembersOnTarget(unlistedGroupReadiness(f.group, last?.summary ?? null, last?.listedAt ?? null, now, th), this.targetMembers.members.get(f.group) ?? 'unknown'));
      }
      let summaries = summaryList.result() as GroupReadiness[];
      // sorted in a copy: the list may be the last cycle's
      if (failedGroups.length > 0) summaries = [...summaries].sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
      this.lastFull = { coverage, summaries, latest };
      readiness = summarizeReadiness(summaries, th, listedAt);
    }
    return {
      ...base,
      groups,
      written: toWrite,
      coverage,
      failedGroups,
      discoveryError,
      latest,
      durationMs: this.now() - startedAt,
      syncsLoaded: store.loaded,
      readiness,
      membersOnTarget: this.targetMembers.members,
      notReplicatedGroups: this.otherTypes,
      ...(this.targetMembers.error !== undefined ? { targetGroupsError: this.targetMembers.error } : {}),
    };
  }
}
