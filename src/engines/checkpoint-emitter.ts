/**
 * MM2's MirrorCheckpointConnector + MirrorCheckpointTask as one object, on kafkajs
 * (findConsumerGroups; MirrorCheckpointTask.start, poll, checkpointsForGroup, renameTopicPartition;
 * CheckpointStore), with no Node-RED in it:
 *
 * - start: ensure `<source>.checkpoints.internal` on the target, restore the last checkpoints
 *   from it once (log order, last wins, malformed records skipped and counted; a failed read
 *   clears them, and is tried again while the target does not answer), then create the
 *   offset-sync store in the mode MM2 chooses (restore OK -> keep the sync history during its initial
 *   load; failed -> only the latest sync). Offset syncs that arrive before are buffered and replayed.
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
 *   `events.sourceMode` says why. Full cycles take turns, partial ones too, side by side; their writes take turns
 *   (CoalescingRunner, the write chain); what a failed write had acknowledged is delivered all the same.
 */
import { CheckpointStore } from '../core/checkpoint-store';
import { TranslationCache, type GroupCoverage } from '../core/translation-cache';
import { ReconcileLayout } from '../core/reconcile-layout';
import { CoalescingRunner, StagedRunner, type CycleRunner } from '../core/coalescing';
import type { DiscoveryResult } from '../core/group-discovery';
import { CheckpointDiscovery } from './checkpoint-discovery';
import { OffsetSyncStore, type OffsetTranslationMode } from '../core/offset-sync-store';
import type { Checkpoint, OffsetSync } from '../core/types';
import { firstSeenCandidates, groupsConcernedBySyncs, groupsRead, partialCycleCoverage } from '../core/cycle-selection';
import { fullCycleReadiness, LatestCheckpoints, latestOf, sortByGroup, translateCycle, translateCycleInSlices, type CycleTranslation, type TranslateCycleInput } from '../core/checkpoint-cycle';
import { DEFAULT_READINESS, type GroupReadiness, type ReadinessSummary, type ReadinessThresholds } from '../core/readiness';
import { sameList, sortedMembers } from '../core/sorted-names';
import { explainKafkaError } from '../kafka/client';
import type { ListedGroupState } from '../core/listed-groups';
import { SourceOffsets, type GroupPartitions, type SourceOffsetsMode } from './source-offsets';
import { CheckpointsRestore } from './checkpoint-restore';
import { readLogStarts, TargetMembers, type TargetMembersListing } from './checkpoint-target-reads';
import { acknowledgedReport, FULL_SOURCE_READ_EVERY_MS, mergeCycleOptions, type CheckpointEmitterOptions, type CycleOptions, type CycleResult, type RestoreReport, type SyncEvent, withCoverageOnRead } from './checkpoint-emitter-types';
import { FullSourceReads, OtherGroupsOfFlow, SourceGroupListing } from './checkpoint-source-reads';
import { CheckpointWrites } from './checkpoint-writes';
import type { ShareView } from '../core/share-lease';

export * from './checkpoint-emitter-types';
export { CHECKPOINT_CHUNK_BYTES, CHECKPOINT_CHUNK_RECORDS, chunkCheckpoints } from '../core/checkpoint-cycle';

/** Groups a full cycle translates between two turns of the event loop. */
const SLICE_GROUPS = 100;
const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class CheckpointEmitter {
  private checkpointStore: CheckpointStore;
  private syncStore: OffsetSyncStore | null = null;
  private buffered: SyncEvent[] = [];
  private restore: RestoreReport | null = null;
  private selected: string[] | null = null;
  private cycles = 0;
  private stopped = false;
  /** Full cycles, one at a time (requests meanwhile share one more). */
  private readonly runner: CoalescingRunner<CycleOptions, CycleResult>;
  /** Partial (event-driven) cycles, one translation at a time, beside the full ones (never waiting for a full cycle's read, nor for the last one's write: core/coalescing StagedRunner). */
  private readonly partialRunner: StagedRunner<CycleOptions, CycleResult>;
  /** The writes to the checkpoints topic, taking turns, and the retry list: checkpoints in the store not acknowledged yet (engines/checkpoint-writes). */
  private readonly writes: CheckpointWrites;
  private startP: Promise<void> | null = null;
  /** Every group of the flow (the status's "of 10,000 groups"): this instance's and the others' (core/group-discovery `elsewhere`). */
  private discoveredList: readonly string[] | null = null;
  private unsubscribeShares: (() => void) | null = null;
  private sharePartial = false; // the last share view owned a part of the flow (sharing with others, or kept out)
  private discoveryP: Promise<DiscoveryResult> | null = null;
  private readonly now: () => number;
  /** Reads the checkpoints topic at start. */
  private readonly restorer: CheckpointsRestore;
  /** The selected groups' source offsets: read in full per cycle, followed as events in between. */
  private readonly sourceOffsets: SourceOffsets;
  /** Each group's last translation: a full cycle translates again only what moved. */
  private readonly translations = new TranslationCache(this.o.home?.names);
  /** The last full cycle's groups and answers: the next visits only the groups something changed for. */
  private readonly layout = new ReconcileLayout();
  private readonly readinessThresholds: ReadinessThresholds;
  private readonly targetMembers: TargetMembers; // the last full cycle's listing of the target's groups
  /**
   * Log starts of remote partitions (`partition:topic`), read for groups rewound below every offset
   * sync (precise mode): each used once, by the translation that checkpoints the group there.
   */
  private readonly logStarts = new Map<string, bigint>();
  /** A read of log starts is under way. */
  private readingStarts = false;
  /** The source's group listing (each group's type). */
  private readonly listing: SourceGroupListing;
  /** The full reads of the selected groups' source offsets. */
  private readonly fullReads: FullSourceReads;
  private readonly othersOfFlow: OtherGroupsOfFlow;
  /** Group discovery (its answer reused while nothing it depends on changed). */
  private readonly discovery: CheckpointDiscovery;

  constructor(private readonly o: CheckpointEmitterOptions) {
    this.now = o.now ?? Date.now;
    this.readinessThresholds = o.readiness ?? DEFAULT_READINESS;
    this.targetMembers = new TargetMembers(o.target);
    this.listing = new SourceGroupListing(o.source, o.groupFilter, this.now);
    this.restorer = new CheckpointsRestore({
      target: o.target,
      checkpointsTopic: o.checkpointsTopic,
      phase: (p) => o.events?.phase?.(p),
      restoreTimeoutMs: o.restoreTimeoutMs,
      retryMaxMs: o.retryMaxMs,
    });
    this.checkpointStore = this.openStore();
    this.runner = new CoalescingRunner<CycleOptions, CycleResult>((opts) => this.runCycle(opts), mergeCycleOptions);
    // the next event's cycle does not wait for this one's write (the writes take turns on their own)
    this.partialRunner = new StagedRunner<CycleOptions, CycleResult>((opts, release) => this.runCycle(opts, release), mergeCycleOptions);
    this.writes = new CheckpointWrites({
      target: o.target,
      topic: o.checkpointsTopic,
      store: () => this.checkpointStore,
      // a group whose share moved away is no longer this instance's to write (its retry entries go)
      keep: (g) => this.owns(g),
      stopped: () => this.stopped,
      fenced: () => this.o.shares !== undefined && !this.o.shares.writable(),
      acknowledged: (sent) => !this.stopped && this.o.events?.delivered?.(acknowledgedReport(++this.cycles, sent, this.checkpointStore, this.syncsLoaded, this.now())),
    });
    this.sourceOffsets = new SourceOffsets({
      source: o.source, names: o.home?.names,
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
    this.fullReads = new FullSourceReads(o.source, this.sourceOffsets, this.now, () => o.events, o.fullSourceReadEveryMs ?? FULL_SOURCE_READ_EVERY_MS);
    this.othersOfFlow = new OtherGroupsOfFlow(o.source, o.topicFilter, this.now);
    this.discovery = new CheckpointDiscovery({ ...o, listing: this.listing, fullReads: this.fullReads, sourceOffsets: this.sourceOffsets, othersOfFlow: this.othersOfFlow });
  }

  /** Whether this instance works on `group` (the flow's share; every group when not shared). */
  private owns(group: string): boolean {
    return this.o.shares === undefined || this.o.shares.owns(group);
  }

  /** A full cycle's groups: those selected it owns; owning every group, the selected list itself (never changed in place), not a copy per cycle that lived across its awaits into old space. */
  private fullCycleGroups(): string[] {
    const selected = this.selected ?? [];
    const shares = this.o.shares;
    if (shares === undefined || shares.ownsEvery?.() === true) return selected;
    return selected.filter((g) => shares.owns(g));
  }

  /** How many groups the flow has (every instance's; null: not discovered yet). */
  get groupsDiscovered(): number | null {
    return this.discoveredList?.length ?? null;
  }
  /** Every group of the flow, this instance's and the others' (null: not discovered yet). */
  get groupsOfFlow(): readonly string[] | null {
    return this.discoveredList;
  }

  /** The share changed: the stream follows its partitions of `__consumer_offsets`; groups gained are read in full (not streamed here), rediscovered and cycled at once; groups lost leave the selection. */
  private sharesChanged(view: ShareView): void {
    if (this.stopped) return;
    // what this instance owns moved (a part of the flow, or kept out, now or before): a discovery under way read the share before, a new one runs after it
    const partial = (view.kind === 'sharing' && view.partitions < view.partitionCount) || view.kind === 'refused';
    const running = partial || this.sharePartial ? this.discoveryP?.catch(() => undefined) : undefined;
    this.sharePartial = partial;
    const followed = this.sourceOffsets.followPartitions(this.o.shares?.offsetsPartitions() ?? null);
    if (this.selected === null && running === undefined) return;
    this.othersOfFlow.invalidate();
    this.discovery.invalidate();
    followed.then(() => running).then(() => (this.fullReads.invalidate(), this.refreshGroups())).then(() => this.deliverCycle({}), () => undefined);
  }

  /** Full cycles on one runner, partial ones on the other: they go side by side (translation is synchronous; the writes take turns). */
  private runnerFor(opts: CycleOptions): CycleRunner<CycleOptions, CycleResult> {
    return opts.only === undefined ? this.runner : this.partialRunner;
  }

  /** Whether a cycle runs or waits (full or partial). */
  get busy(): boolean {
    return this.runner.busy || this.partialRunner.busy;
  }

  /** A new checkpoint store (at start, and when a failed restore is tried again), in the home when there is one. */
  private openStore(previous?: CheckpointStore): CheckpointStore {
    const acceptGroup = (g: string): boolean => this.o.groupFilter.accept(g);
    if (!this.o.home) return new CheckpointStore({ acceptGroup });
    return this.o.home.open({ selected: () => this.selected }, acceptGroup, previous);
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
    this.runnerFor(opts).run(opts).then(
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
    return latestOf(this.selected, (g) => this.checkpointStore.get(g));
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

  /** The last full cycle's lists (a full cycle that finds the same gives them back). */
  private lastFull: { coverage: readonly GroupCoverage[]; summaries: readonly GroupReadiness[]; latest: LatestCheckpoints } | null = null;

  /**
   * Reads the log starts of remote partitions on the target for groups rewound below every
   * offset sync, then translates those groups again (a partial cycle) so that they are
   * checkpointed there. Nothing found (the partitions are missing, or the read failed): the next
   * full cycle asks again; a failure is reported like a failed delivery.
   */
  private readLogStarts(need: ReadonlyMap<string, ReadonlySet<number>>, groups: ReadonlySet<string>): void {
    if (this.readingStarts || this.stopped) return;
    this.readingStarts = true;
    readLogStarts(this.o.target, need, this.logStarts).then(
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
      if (this.o.shares) this.unsubscribeShares = this.o.shares.subscribe((v) => this.sharesChanged(v));
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
        this.targetMembers.forgetRefusals();
      });
    }
    return this.discoveryP;
  }

  /** Requests a cycle; never overlaps with a running one of its kind (a request during a cycle runs one more after it). */
  cycle(opts: CycleOptions = {}): Promise<CycleResult> {
    return this.runnerFor(opts).run(opts);
  }

  /** Stops: the restore reader, the source stream, and waits for a running cycle (which gives up at its next step). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribeShares?.();
    await Promise.all([this.restorer.stop(), this.sourceOffsets.stop()]);
    await Promise.all([this.runner.idle(), this.partialRunner.idle()]);
    await this.writes.idle();
    this.o.home?.close(this.checkpointStore, [this.syncStore, this.sourceOffsets]);
  }

  private applyEvent(ev: SyncEvent): void {
    const store = this.syncStore as OffsetSyncStore;
    if (ev.event === 'reset') {
      this.syncStore = OffsetSyncStore.after(store, { keepHistoryOnLoad: store.keepHistoryOnLoad, translation: store.translation, names: this.o.home?.names });
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
    const done = await this.restorer.untilRestored(() => this.o.ensureTopic(target, checkpointsTopic), (previous) => (this.checkpointStore = this.openStore(previous)), this.checkpointStore);
    if (done === null) return;
    const { report } = done;
    this.restore = report;
    this.checkpointStore.markLoaded(report.ok);
    this.o.home?.restored(this.checkpointStore);
    if (!report.ok) report.restored = 0;
    // MM2: offsetSyncStore.start(mustReadToEnd = !checkpointsLoadedOk)
    this.syncStore = OffsetSyncStore.after(this.syncStore, { keepHistoryOnLoad: report.ok, translation: this.o.offsetTranslation ?? 'precise', names: this.o.home?.names });
    const events = this.buffered;
    this.buffered = [];
    for (const ev of events) this.applyEvent(ev);
    this.o.events?.restored?.(report);
    this.o.events?.phase?.({ kind: 'ready' });
    if (!this.stopped) await this.sourceOffsets.startStream();
  }

  private async discover(): Promise<DiscoveryResult> {
    const { source } = this.o;
    try {
      const { result, flowGroups, reused } = await this.discovery.run();
      source.reportOk();
      this.discoveredList = flowGroups;
      this.listing.discovered(result.otherTypes);
      const same = this.selected !== null && sameList(this.selected, result.groups);
      this.selected = result.groups;
      // what the groups no longer selected held goes: the stream also keeps groups never selected (none new when reused); the translations and the sync store only selected ones (nothing to drop while the selection stands)
      const kept = sortedMembers(result.groups);
      if (!reused) this.sourceOffsets.retain(kept);
      if (!same) {
        this.translations.retain(kept);
        this.syncStore?.retainGroups(kept);
        // the store's readers see the groups selected now
        this.o.home?.selected(this.checkpointStore);
      }
      this.o.events?.discovered?.(result);
      return result;
    } catch (e) {
      this.discovery.invalidate();
      const text = source.reportError(e);
      this.o.events?.discoveryFailed?.(text);
      throw new Error(text);
    }
  }

  private async runCycle(opts: CycleOptions, release?: () => void): Promise<CycleResult> {
    const cycle = ++this.cycles;
    const startedAt = this.now();
    const full = opts.only === undefined;
    const base: CycleResult = {
      cycle,
      full,
      groups: [],
      written: [],
      ...{ coverage: [], coverageRows: [] },
      failedGroups: [],
      latest: new Map(),
      startedAt,
      durationMs: 0,
      syncsLoaded: this.syncsLoaded,
      notReplicatedGroups: this.listing.otherTypes,
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
    const { source } = this.o;
    const failedGroups: Array<{ group: string; error: string }> = [];
    // Which groups, with which of their offsets: a full cycle reads every selected group's offsets now; a partial one takes the offsets the source stream keeps,
    // for the partitions that changed. A group first seen in the stream is selected at once when MM2's discovery rule would select it (group filter, and a commit on a replicated topic).
    // a partial cycle: each group's partitions (its offsets are read when its turn comes, in place when its translation stands)
    const perGroup = new Map<string, GroupPartitions>();
    let groups: string[];
    let listedAt: number | null = null;
    let targetListing: Promise<TargetMembersListing> | null = null;
    let fullRead: { groups: readonly string[]; ts: number } | null = null;
    let partialTs = 0;
    if (full) {
      groups = this.fullCycleGroups();
      const ts = this.now();
      listedAt = ts;
      // the target's groups are listed alongside the source's offsets
      targetListing = this.targetMembers.list(groups);
      await this.fullReads.forCycle(groups, failedGroups);
      // the groups read, without an object per group (10,000 of them per second, alive across the cycle's awaits)
      fullRead = { groups: groupsRead(groups, new Set(failedGroups.map((f) => f.group))), ts };
      // Every selected group failed: the source is not answering, whatever the cached admin client thinks (its users show the error; the checkpoints already held stay valid and are reported).
      if (groups.length > 0 && failedGroups.length === groups.length) source.reportError(new Error(failedGroups[0].error));
      else source.reportOk();
    } else {
      const ts = this.now();
      const selected = sortedMembers(this.selected ?? []); // sorted: no set of 10,000 names per event
      groups = [];
      const only = opts.only as Map<string, GroupPartitions>;
      // groups first seen committing that MM2's rule would select by name and topic: selected only when the listing says they are classic or consumer groups (never streams or share)
      const firstSeen = firstSeenCandidates(only, selected, (g) => this.sourceOffsets.rowsOf(g), this.o.groupFilter, this.o.topicFilter).filter((g) => this.owns(g));
      const listedNow = firstSeen.length > 0 ? await this.listing.mm2Lists(firstSeen) : new Set<string>();
      const { covered, added } = partialCycleCoverage(only, selected, listedNow);
      // a new list (copy on write): a full cycle under way goes on with the list it took, the same array when it owns every group
      if (added.length > 0) this.selected = [...(this.selected ?? []), ...added].sort();
      for (const { group, parts } of covered) {
        if (!this.owns(group)) continue; // its share moved away (the rediscovery drops it)
        groups.push(group);
        perGroup.set(group, parts);
      }
      partialTs = ts;
      groups.sort();
    }
    if (targetListing !== null) this.targetMembers.current = await targetListing;
    if (this.stopped) return { ...base, skipped: 'restoring' };
    // Translation and the store update run synchronously, in group order, after all fetches.
    const store = this.syncStore as OffsetSyncStore;
    // a full cycle in slices that yield (the reconcile lane: an event's partial cycle runs between them)
    const translate = (t: TranslateCycleInput): Promise<CycleTranslation> => (full ? translateCycleInSlices(t, SLICE_GROUPS, yieldTurn) : Promise.resolve(translateCycle(t)));
    const { coverage: coverageList, summaries: summaryList, needs } = await translate({
      full,
      // a full cycle: the groups read, their offsets as the source offsets keep them (no object per group)
      groups: fullRead !== null ? fullRead.groups : [...perGroup.keys()],
      offsetsOf: fullRead !== null ? (g) => this.sourceOffsets.offsetsOf(g) ?? [] : (g) => this.sourceOffsets.offsetsOf(g, perGroup.get(g)) ?? [],
      versionOf: (g) => this.sourceOffsets.versionOf(g),
      rowsOf: (g) => this.sourceOffsets.rowsOf(g),
      listedAt: fullRead !== null ? fullRead.ts : partialTs,
      base: {
        topicFilter: this.o.topicFilter,
        store,
        checkpoints: this.checkpointStore,
        policy: this.o.policy,
        sourceAlias: this.o.sourceAlias,
        targetAlias: this.o.targetAlias,
        readiness: this.readinessThresholds,
      },
      translations: this.translations,
      membersOf: (g) => this.targetMembers.of(g),
      unsent: this.writes.unsent,
      logStarts: store.translation === 'mm2' ? undefined : this.logStarts,
      previous: this.lastFull,
      reconcile: {
        layout: this.layout,
        key: [store, store.loaded, this.checkpointStore, this.checkpointStore.loaded, this.targetMembers.current, this.readinessThresholds],
        changes: () => ({
          offsetsChanged: this.sourceOffsets.takeChangedGroups(),
          stale: this.translations.takeStale(),
          groupsAtOrAbove: (topic, partition, offset) => this.sourceOffsets.groupsAtOrAbove(topic, partition, offset),
        }),
      },
    });
    // the store holds this cycle's checkpoints: its readers (the group-offset writers) hear which groups changed now, while the write to the checkpoints topic goes on (as MM2's sync reads its map)
    this.o.home?.cycled();
    // every selected group has been translated once since the load: what each needs is kept; the load history can go
    if (full && store.loaded && failedGroups.length === 0 && discoveryError === undefined) store.releaseLoadHistory();
    sortByGroup(failedGroups);
    // Like MM2, the store already holds this cycle's checkpoints; unlike MM2 a failed write is not forgotten: the retry list keeps a checkpoint until the broker acknowledged it (checkpoint-writes)
    const writing = this.writes.write(full);
    release?.(); // the store holds this cycle's checkpoints and the writers heard: the next partial cycle may start
    const toWrite = await writing;
    if (full) await yieldTurn(); // the latest checkpoints and the readiness over every group: a turn of their own
    if (needs.groups.size > 0) this.readLogStarts(needs.starts, needs.groups);
    // the names only: the lists are read from the store when a message or the status asks
    // a full cycle over the groups of the last one: its object again (the set of names it makes when asked is made once)
    const latest = full ? LatestCheckpoints.reuse(this.lastFull?.latest, groups, this.checkpointStore) : LatestCheckpoints.of(groups, this.checkpointStore);
    let readiness: ReadinessSummary | undefined;
    const coverage = coverageList.result();
    if (full) {
      // a group whose offsets could not be listed: its last readiness stands until it is too old
      const r = fullCycleReadiness({
        summaries: summaryList,
        failedGroups,
        last: (g) => this.translations.last(g),
        membersOf: (g) => this.targetMembers.of(g),
        now: this.now(),
        thresholds: this.readinessThresholds,
        listedAt,
      });
      const summaries = r.summaries;
      this.lastFull = { coverage, summaries, latest };
      readiness = r.readiness;
    }
    return withCoverageOnRead({
      ...base,
      groups,
      written: toWrite,
      coverageRows: coverage,
      failedGroups,
      discoveryError,
      latest,
      durationMs: this.now() - startedAt,
      syncsLoaded: store.loaded,
      readiness,
      membersOnTarget: this.targetMembers.current.members,
      notReplicatedGroups: this.listing.otherTypes,
      ...(this.targetMembers.current.error !== undefined ? { targetGroupsError: this.targetMembers.current.error } : {}),
    });
  }
}