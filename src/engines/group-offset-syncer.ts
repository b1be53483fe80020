/**
 * MM2's `sync.group.offsets` (MirrorCheckpointTask.syncGroupOffset), done safely, without Node-RED: keeps the latest
 * checkpoint per (group, remote partition) and writes the translated offsets of the selected
 * groups to the TARGET cluster with one admin-style OffsetCommit per group that moved.
 *
 * Runs: `sync()`, the full reconcile (every `sync.group.offsets.interval.seconds`, the upper bound;
 * one at a time, queued requests share one run), and `syncGroups(groups)`, the event lane (partial
 * runs side by side, never behind a full run). A run holds a group from its plan to its last
 * commit; no other run decides or writes it meanwhile. Per run: the target's group states from one
 * ListGroups per broker (a partial run takes the listing held, engines/held-target-reads), the
 * committed offsets of the groups it may write from batched OffsetFetch requests (a full run
 * settles each group as its batch answers: up to date, or handed to the event waiting for it with
 * that read, HandedReads), the log-end offsets once per topic, the core's decision per group
 * (`decideGroupOffsetSync`: never backwards, clamp at the log end, skip active groups and missing
 * topics), then the commits, several in flight, every COMMIT_SLICE_GROUPS decided groups (no run holds
 * every group's decision at once: the catch-up). UNKNOWN_MEMBER_ID means the group became active:
 * skipped, nothing written, left alone until a listing made after the refusal. What was read and
 * written is remembered (core/target-offsets): a partial run reads only the groups it may write, a
 * full run re-reads a group up to date as remembered once its re-read falls due (spread over
 * FULL_TARGET_READ_EVERY_MS); every write is decided against a fresh read (never backwards).
 * A floor (`minWriteIntervalMs`) bounds a commit storm: a partial run does not write a group
 * written less than the floor ago; a timer writes it when the floor ends, never dropped.
 * Checkpoints come from the replication runtime's stores (`follow`), from messages
 * (`applyCheckpointsJson`) or from the checkpoints topic (`CheckpointsTopicFollower`, also beside a real MM2).
 */
import type { Admin } from 'kafkajs';
import { decodeValidCheckpoint } from '../core/checkpoint';
import { applyLatestJson } from '../core/checkpoint-json';
import { MalformedRecordError } from '../core/errors';
import { activeGroupReason, type RewindMark, type TargetEndOffset } from '../core/group-offset-sync';
import { emptyCycle, FENCED, recordCommits, recordDecision, sortCycle, targetFailure, type CheckpointStats, type GroupOffsetsCycle, type PlannedCommit } from '../core/group-offsets-cycle';
import { DEFAULT_MIN_WRITE_INTERVAL_MS, FULL_TARGET_READ_EVERY_MS, TargetOffsets } from '../core/target-offsets';
import type { Checkpoint, CommittedOffset } from '../core/types';
import { explainKafkaError, notAuthorized } from '../kafka/client';
import type { AdminCommitResult } from '../kafka/group-client';
import type { ListedGroupState } from '../core/listed-groups';
import type { RawRecord } from '../kafka/topic-reader';
import { HandedReads, TargetGroupListing, TargetLogEnds } from './held-target-reads';
import { cleanFullRun, groupsOf, QuietFullRuns, shareMark } from '../core/quiet-full-run';
import type { CheckpointView } from './replication-runtime';
import { RunQueue, type QueuedJob as Job } from '../core/coalescing';
import { COUNT_EVERY_MS, countView, earliestDue, MAX_PARTIAL_RUNS, ownStore, readTargetGroups, COMMIT_SLICE_GROUPS, REFUSED_REASON, selectGroups, SLICE_GROUPS, type GroupOffsetSyncerOptions } from './group-offset-syncer-types';
import { Timer, within } from '../core/timers';

export * from './group-offset-syncer-types';
export type { CheckpointStats, ClampedPartition, GroupOffsetsCycle, GroupSkipCode, RewoundPartition, SkippedGroup, SkippedPartition, WrittenGroup } from '../core/group-offsets-cycle';

/** The default floor (ms), and how old a read of an up-to-date group a full run accepts at the latest (ms; core/target-offsets). */
export { DEFAULT_MIN_WRITE_INTERVAL_MS, FULL_TARGET_READ_EVERY_MS };

export class GroupOffsetSyncer {
  /** The checkpoints this syncer received itself (modes "input" and "topic"). */
  private own = ownStore();
  /** What the runs read: its own store, or the replication runtime's (the checkpoint emitters' stores, read in place). */
  private view: CheckpointView = this.own;
  /** The target's offsets as last read or written, the floor and the rewinds not acted on yet (from the order of the checkpoints: state, read again after a restart). */
  private readonly targets: TargetOffsets;
  /** Told of each rewind mark this writer acted on (the runtime drops its copy: a writer started later does not follow it again). */
  onRewindDone: ((group: string, mark: RewindMark) => void) | null = null;
  /** Groups waiting for the floor, and the timer that runs them. */
  private readonly deferredGroups = new Set<string>();
  private readonly deferTimer = new Timer(true);
  /** The target's groups and their states as last listed (engines/held-target-reads). */
  private readonly listing: TargetGroupListing;
  private received = 0;
  /** The log ends of the remote partitions as last read (a partial run takes them when they clamp nothing). */
  private readonly logEnds: TargetLogEnds;
  /** The groups and partitions of the checkpoints read, as last counted (stats). */
  private counted: { at: number; groups: number; partitions: number } | null = null;
  /** The groups the last full run selected (bounds the target-offset cache). */
  private groupCount = 0;
  private malformedCount = 0;
  private cycleNo = 0;
  /** The runs: full ones on a chain, partial ones side by side (core/coalescing RunQueue). */
  private readonly runs = new RunQueue<GroupOffsetsCycle>({ run: (job) => this.runCycle(job), closed: () => this.closed, partialChanged: () => this.epoch++ }, MAX_PARTIAL_RUNS);
  /** Groups a run holds from its plan to its last commit: no other run decides or writes them meanwhile (never backwards). */
  private readonly held = new Set<string>();
  /** Groups a partial run found held by another: synced once that one lets them go (with the read a full run made of them, when it did: engines/held-target-reads HandedReads). */
  private readonly lockWaiters = new Set<string>();
  private readonly handed = new HandedReads();
  private pumpScheduled = false;
  private closed = false;
  private readonly now: () => number;
  /** The last clean full run, given again while nothing it judged from changed (core/quiet-full-run); `epoch` bumps at every change of what the writer holds besides the checkpoints' versions. */
  private readonly quiet = new QuietFullRuns();
  private epoch = 0;
  /** The group a plan is made for, and its checkpoints made only when the plan asks. */
  private planning = '';
  private readonly planned = (): readonly Checkpoint[] => this.view.get(this.planning) ?? [];

  constructor(private readonly opts: GroupOffsetSyncerOptions) {
    this.now = opts.now ?? Date.now;
    this.listing = new TargetGroupListing(() => opts.connection.offsetFetcher().listGroupStates(), this.now, () => this.closed);
    this.logEnds = new TargetLogEnds(opts.fullTargetReadEveryMs ?? FULL_TARGET_READ_EVERY_MS, opts.connection, this.now, () => this.closed);
    this.targets = new TargetOffsets({ floorMs: opts.minWriteIntervalMs ?? DEFAULT_MIN_WRITE_INTERVAL_MS, followRewinds: opts.followRewinds === true, fullReadEveryMs: opts.fullTargetReadEveryMs, names: opts.names, onRewindDone: (g, m) => this.onRewindDone?.(g, m) });
  }

  /** Whether a run is in progress or queued. */
  get busy(): boolean {
    return this.runs.busy || this.lockWaiters.size > 0;
  }

  /** What the syncer holds, as every run reports it: the counts over the checkpoints read are taken at most once a second (a run per event at 10,000 groups). */
  get stats(): CheckpointStats {
    const now = this.now();
    let c = this.counted;
    if (c === null || now - c.at >= COUNT_EVERY_MS || now < c.at) c = this.counted = { at: now, ...countView(this.view) };
    return { groups: c.groups, partitions: c.partitions, received: this.received, malformed: this.malformedCount };
  }

  /**
   * Reads `view` from now on (the replication runtime: the checkpoint emitters' own stores, in
   * place); its stores tell each checkpoint stored through {@link noteCheckpoint}. null: back to
   * the syncer's own store (what messages or the checkpoints topic bring).
   */
  follow(view: CheckpointView | null): void {
    const next = view ?? this.own;
    if (next === this.view) return;
    this.view = next;
    this.counted = null;
    this.epoch++;
    this.targets.clearRewinds();
  }

  /** Whether the syncer reads a view other than its own store. */
  get following(): boolean {
    return this.view !== this.own;
  }

  /** A checkpoint stored where the syncer reads (the runtime's stores), after `previous` of its group and remote partition: a rewind on the source is noted. */
  noteCheckpoint(previous: Checkpoint | undefined, next: Checkpoint): void {
    this.targets.noteCheckpoint(previous, next);
    this.received++;
    this.epoch++;
  }

  /** Stores one checkpoint in the syncer's own store: the last one per (group, remote partition) wins. Returns whether it differs from the one held. */
  put(cp: Checkpoint): boolean {
    const had = this.own.getPartition(cp.group, cp.topic, cp.partition);
    this.own.update(cp.group, [cp]);
    this.counted = null;
    this.noteCheckpoint(had, cp);
    return !had || had.downstreamOffset !== cp.downstreamOffset || had.upstreamOffset !== cp.upstreamOffset;
  }

  /** Holds exactly `list` from now on (the last one per group and partition wins): nothing no longer derived is written again from an older cycle. */
  replaceCheckpoints(list: Iterable<Checkpoint>): void {
    const following = this.following;
    this.own = ownStore();
    this.counted = null;
    this.epoch++;
    if (!following) this.view = this.own;
    this.targets.clearRewinds();
    for (const cp of list) this.put(cp);
  }

  /** Whether the writer's group filter selects the group (groups / groups.exclude). */
  selects(group: string): boolean {
    return this.opts.groupFilter.accept(group);
  }

  /** The stored checkpoints of a group. */
  checkpointsOf(group: string): Checkpoint[] {
    return [...(this.view.get(group) ?? [])];
  }

  /**
   * Merges a CheckpointsMessage's `payload.latest` (group -> CheckpointJson[]). Unusable
   * entries are skipped and counted; returns how many were taken and how many skipped, the groups
   * that had an entry taken, and those whose checkpoints changed (new to this writer or moved).
   */
  applyCheckpointsJson(latest: Record<string, unknown>): { accepted: number; malformed: number; groups: string[]; changed: string[] } {
    const r = applyLatestJson(latest, (cp) => this.put(cp));
    this.malformedCount += r.malformed;
    return r;
  }

  /**
   * Takes the rewinds a replay of the checkpoints topic found (core/rewind-history; mode "input" at
   * start, issue 26 item 1): a partition held no checkpoint of yet takes the mark alone (dropped when
   * its checkpoint comes past where the group was rewound from); one held takes it only while its
   * checkpoint is below the upstream offset rewound from. Returns the held groups that took a mark (to sync now).
   */
  adoptRewinds(history: { rewinds(): Iterable<{ group: string; mark: RewindMark }> }): string[] {
    this.epoch++;
    const groups = new Set<string>();
    for (const { group, mark } of history.rewinds()) {
      const held = this.view.get(group)?.find((c) => c.topic === mark.topic && c.partition === mark.partition);
      if (held !== undefined && held.upstreamOffset >= mark.fromUpstream) continue;
      // a group not delivered yet keeps only the mark: the node's groups stay those of its wire
      this.targets.adoptRewind(group, mark);
      if (held !== undefined) groups.add(group);
    }
    return [...groups];
  }

  /** Decodes and stores one record of the checkpoints topic: a malformed one is counted and its MalformedRecordError returned (never thrown); null: stored. */
  applyRecord(r: Pick<RawRecord, 'key' | 'value'>): MalformedRecordError | null {
    return this.applyRecordOf(r).error;
  }

  /** applyRecord, also naming the group of a stored checkpoint. */
  applyRecordOf(r: Pick<RawRecord, 'key' | 'value'>): { error: MalformedRecordError | null; group?: string } {
    try {
      const cp = decodeValidCheckpoint(r.key, r.value);
      this.put(cp);
      return { error: null, group: cp.group };
    } catch (e) {
      this.malformedCount++;
      return { error: e instanceof MalformedRecordError ? e : new MalformedRecordError(String((e as Error)?.message ?? e)) };
    }
  }

  /** The full reconcile now (every selected group with a checkpoint); queued behind a run going on (requests share one follow-up run, started after the request). */
  sync(): Promise<GroupOffsetsCycle> {
    if (this.closed) return Promise.reject(new Error('closed'));
    return this.runs.full();
  }

  /**
   * Only these groups (selected, with a checkpoint), now: the event lane. Partial runs go side by
   * side (up to MAX_PARTIAL_RUNS, later requests join one that waits for a slot), never behind a
   * full run; a group another run holds is synced once that run lets it go. A group written less
   * than the floor ago waits for it (counted in `deferred`; a timer runs it when the floor ends).
   */
  syncGroups(groups: Iterable<string>): Promise<GroupOffsetsCycle> {
    if (this.closed) return Promise.reject(new Error('closed'));
    return this.runs.partial(groups);
  }

  /** Groups that waited for another run to let them go: synced now (reported as a deferred run). */
  private pumpLockWaiters(): void {
    if (this.pumpScheduled || this.lockWaiters.size === 0 || this.closed) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      if (this.closed) return;
      const free = [...this.lockWaiters].filter((g) => !this.held.has(g));
      if (free.length === 0) return;
      for (const g of free) this.lockWaiters.delete(g);
      const run = this.syncGroups(free);
      if (this.opts.onDeferredRun) this.opts.onDeferredRun(run);
      else run.catch(() => undefined);
    });
  }

  /**
   * Stops: no new run starts, a running one issues no new request (it is abandoned), and close
   * waits at most `timeoutMs` for the requests already in flight.
   */
  async close(timeoutMs = 3000): Promise<void> {
    this.closed = true;
    this.deferTimer.stop();
    this.deferredGroups.clear();
    this.lockWaiters.clear();
    this.handed.clear();
    await within(this.runs.close(), timeoutMs); // a partial run waiting for a slot is rejected: closed
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('closed: the sync run was abandoned');
  }

  /** The groups of a run that may be written now, and how many wait for the floor (a timer is set for them). */
  private applyFloor(groups: string[]): string[] {
    const now = this.now();
    const { ready, waiting, wakeAt: earliest } = this.targets.floor(groups, now);
    for (const g of waiting) this.deferredGroups.add(g);
    if (earliest < Infinity && !this.deferTimer.pending && !this.closed) {
      this.deferTimer.after(earliest - now, () => this.runDeferred());
    }
    return ready;
  }

  private runDeferred(): void {
    if (this.closed || this.deferredGroups.size === 0) return;
    const groups = [...this.deferredGroups];
    this.deferredGroups.clear();
    const run = this.syncGroups(groups);
    if (this.opts.onDeferredRun) this.opts.onDeferredRun(run);
    else run.catch(() => undefined);
  }

  /** The partitions of `group` with a rewind on the source not acted on yet. */
  pendingRewinds(group: string): RewindMark[] {
    return this.targets.pendingRewinds(group);
  }

  private async runCycle(job: Job): Promise<GroupOffsetsCycle> {
    const started = this.now();
    const cycle = ++this.cycleNo;
    const epoch = this.epoch;
    // a full run after a clean one lists the target's groups first: nothing it judged from changed, the same answer (core/quiet-full-run)
    let listed: { admin: Admin; states: ReadonlyMap<string, ListedGroupState> } | null = null;
    if (job.full && this.quiet.held && shareMark(this.opts.shares) !== null) {
      listed = await this.listFor(true);
      const idle = this.deferredGroups.size === 0 && this.runs.partials === 0 && this.held.size === 0;
      const same = idle ? this.quiet.same(this.view, (g) => this.opts.groupFilter.accept(g), listed.states, epoch, this.now(), shareMark(this.opts.shares)) : null;
      if (same !== null) {
        const result = emptyCycle(cycle, false, this.stats, 0);
        result.skipped = same;
        result.reused = true;
        this.opts.connection.reportOk();
        result.durationMs = this.now() - started;
        return result;
      }
    }
    const selected = selectGroups(job.full ? groupsOf(this.view) : [...job.groups], (g) => (job.full || this.view.hasGroup(g)) && this.opts.groupFilter.accept(g) && (this.opts.shares?.owns(g) ?? true));
    // the floor bounds the partial runs; a full run (at most one per interval, or a "sync now") writes every group now
    if (job.full && this.deferredGroups.size > 0) for (let i = 0; i < selected.length; i++) this.deferredGroups.delete(selected[i]);
    const groups = job.full ? selected : this.applyFloor(selected);
    const result = emptyCycle(cycle, !job.full, this.stats, selected.length - groups.length);
    if (groups.length === 0) {
      result.durationMs = this.now() - started;
      return result;
    }
    const { admin, states } = listed ?? (await this.listFor(job.full));

    // the groups another run holds now are its to decide and write (it reads them afresh): a
    // partial run has them synced again once it lets them go, a full run leaves them to it; a full
    // run takes a group only once it plans to read it: an event for a group it finds up to date or
    // with members never waits for it
    const mine = this.held.size === 0 ? groups : groups.filter((g) => {
      if (!this.held.has(g)) return true;
      if (!job.full) this.lockWaiters.add(g);
      return false;
    });
    const holding = new Set(job.full ? [] : mine);
    if (!job.full) for (let i = 0; i < mine.length; i++) this.held.add(mine[i]);
    // a partial run decides against the read a full run handed over as it let the group go (fresh: no read again)
    const handed = job.full ? null : this.handed.take(mine, this.now());
    // a full run notes the version of each group's checkpoints it judged (recorded when clean)
    const versions = job.full ? new Float64Array(mine.length) : null;
    try {
      const r = await this.decideAndWrite(job, mine, holding, states, admin, result, started, versions, handed);
      if (versions !== null) this.recordQuiet(mine, versions, states, epoch, r, mine.length === selected.length);
      return r;
    } finally {
      this.letGo(holding, holding);
    }
  }

  /** A turn of the event loop for other work; a run abandoned meanwhile stops here. */
  private async pause(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.checkOpen();
  }

  /** The writer's connection and the target's groups listed (a full run: a new listing). */
  private async listFor(full: boolean): Promise<{ admin: Admin; states: ReadonlyMap<string, ListedGroupState> }> {
    const { connection } = this.opts;
    const admin = await connection.admin();
    this.checkOpen();
    // without the states no group may be written; the target is unreachable or refuses
    const states = await this.listing.states(full).catch((e: unknown) => {
      connection.reportError?.(e);
      throw e;
    });
    this.checkOpen();
    return { admin, states };
  }

  /** A full run over every selected group ended: its answer stands while nothing it judged from changes, when clean (nothing but groups up to date or with members, and nothing changed meanwhile). */
  private recordQuiet(groups: readonly string[], versions: Float64Array, states: unknown, epoch: number, r: GroupOffsetsCycle, whole: boolean): void {
    const share = shareMark(this.opts.shares), clean = whole && share !== null && epoch === this.epoch && cleanFullRun(r, REFUSED_REASON); // shared: only while this instance owns every group and may write
    // a group up to date as remembered is read again once its re-read falls due (spread over the full-read period)
    const expiresAt = clean ? earliestDue(r.skipped, (g) => this.targets.rereadDueAt(g)) : Infinity;
    this.quiet.record({ groups, versions, states, view: this.view, epoch, expiresAt, skipped: r.skipped, clean, share });
  }

  /** The run holding `holding` lets `groups` go (it will not write them): another run may take them now. */
  private letGo(holding: Set<string>, groups: Set<string> | readonly string[]): void {
    let any = false;
    if (groups === holding) { any = holding.size > 0; holding.forEach((g) => this.held.delete(g)); holding.clear(); } // the run's end: all of them, no copy
    else for (let i = 0; i < (groups as readonly string[]).length; i++) if (holding.delete((groups as readonly string[])[i])) { this.held.delete((groups as readonly string[])[i]); any = true; }
    if (any) this.pumpLockWaiters();
  }

  /**
   * A full run's read of some groups answered (one OffsetFetch batch): a group the target holds
   * exactly as checkpointed is reported up to date and let go at once, and one an event waits
   * for is let go with this read handed over (its run decides and writes it against this read,
   * with the checkpoints it has then: not after this run's other reads, decisions and commits).
   */
  private settleEarly(answered: ReadonlyMap<string, CommittedOffset[]>, holding: Set<string>, settled: Set<string>, states: ReadonlyMap<string, ListedGroupState>, result: GroupOffsetsCycle): void {
    if (this.closed) return;
    const now = this.now();
    const go: string[] = [];
    answered.forEach((offsets, g) => {
      if (!holding.has(g)) return;
      this.targets.read(g, offsets, now);
      this.planning = g; // planned(): made only when their version was not found exactly there before
      if (this.targets.exactly(g, this.planned, this.view.versionOf?.(g))) result.skipped.push(this.targets.upToDateSkip(g, states.get(g)?.state));
      else if (this.lockWaiters.has(g)) this.handed.hand(g, offsets, now);
      else return;
      settled.add(g);
      go.push(g);
    });
    this.letGo(holding, go);
  }

  /** The rest of a run over the groups it holds: the reads, the decisions, the commits. */
  private async decideAndWrite(job: Job, groups: readonly string[], holding: Set<string>, states: ReadonlyMap<string, ListedGroupState>, admin: Admin, result: GroupOffsetsCycle, started: number, versions: Float64Array | null, handed: ReadonlyMap<string, { offsets: CommittedOffset[]; at: number }> | null): Promise<GroupOffsetsCycle> {
    const { connection } = this.opts;
    const statesAt = this.listing.at;
    // groups with members are left alone without reading them; the others are read in batches
    const writable: string[] = [];
    let now = this.now(); // once a slice: a clock read per group was a boxed number per group
    for (let i = 0; i < groups.length; i++) {
      if (job.full && i > 0 && i % SLICE_GROUPS === 0) { await this.pause(); now = this.now(); } // a full run in slices: an event's run goes in between
      const g = groups[i];
      const version = this.view.versionOf?.(g);
      const taken = job.full && this.held.has(g); // a partial run took it meanwhile: its to decide (NaN: this answer is not given again)
      if (versions !== null) versions[i] = taken ? NaN : version ?? NaN;
      if (taken) continue;
      const state = states.get(g)?.state;
      // the checkpoints are made only when their version is not the one found up to date before
      this.planning = g; // read by planned(), synchronously within plan(): no closure per group
      const plan = this.targets.plan(g, state, statesAt, this.planned, job.full, now, version);
      if (plan === 'active') {
        // decideGroupOffsetSync's reason for it, without its decision (a skip per partition, every run while the group has members)
        result.skipped.push({ group: g, code: 'group-active', state, reason: activeGroupReason(state as string) });
      } else if (plan === 'refused') {
        result.skipped.push({ group: g, code: 'group-active', state, reason: REFUSED_REASON });
      } else if (plan === 'up-to-date') {
        result.skipped.push(this.targets.upToDateSkip(g, state));
      } else {
        writable.push(g);
        if (job.full) { holding.add(g); this.held.add(g); this.handed.drop(g); } // planned synchronously after the check above: no other run took it
      }
    }
    // what it will not read is let go at once (a full run took only what it reads: an event for another group is not held up behind it)
    if (!job.full && writable.length < groups.length) {
      const reading = new Set(writable);
      this.letGo(holding, groups.filter((g) => !reading.has(g)));
    }
    // a full run settles a group as its batch answers (engines/held-target-reads HandedReads)
    const settled = new Set<string>();
    const toRead = handed === null || handed.size === 0 ? writable : writable.filter((g) => !handed.has(g));
    const onBatch = job.full ? (answered: ReadonlyMap<string, CommittedOffset[]>) => this.settleEarly(answered, holding, settled, states, result) : undefined;
    const readAt = this.now();
    const read = await readTargetGroups(connection.offsetFetcher(), toRead, settled, onBatch);
    this.checkOpen();
    for (const [g, reason] of read.failed) {
      // reading needs DESCRIBE, writing READ on the group: the ACL to grant is READ
      const refused = notAuthorized({ message: reason }, [{ resource: 'Group', name: g, operations: ['READ'] }], connection.settings);
      result.skipped.push({ group: g, code: 'error', state: states.get(g)?.state, reason: `could not read the group's offsets on the target: ${refused?.message ?? reason}` });
      this.targets.forget(g);
    }

    // log-end offsets per topic: read at most once per run; a partial run takes those held when they clamp nothing (engines/held-target-reads)
    const endsOf = this.logEnds.forRun(admin, job.full);
    // a run commits what it decided every COMMIT_SLICE_GROUPS groups (the catch-up: a partial run
    // over every group the emitter's first cycle changed): the decisions (an offset object per
    // partition) are held for a slice, not for every group until the last one is decided
    const toCommit: PlannedCommit[] = [];
    // the coordinators of what it may commit in several slices, looked up at once (batched), beside the decisions
    const lookup = writable.length > COMMIT_SLICE_GROUPS ? connection.committer().findCoordinators?.(writable).catch(() => undefined) : undefined;
    const tally = { sent: 0, answered: 0, fenced: false, lookup };
    let sliceFrom = 0;
    let decided = 0;
    for (let i = 0; i < writable.length; i++) {
      const g = writable[i];
      if (settled.has(g)) continue;
      if (job.full && ++decided % SLICE_GROUPS === 0) await this.pause();
      if (toCommit.length >= COMMIT_SLICE_GROUPS) {
        await this.commitSlice(toCommit.splice(0), holding, writable.slice(sliceFrom, i), result, tally);
        sliceFrom = i;
      }
      const given = handed?.get(g);
      const offsets = given?.offsets ?? read.offsets.get(g);
      if (!offsets) continue;
      this.targets.read(g, offsets, given?.at ?? readAt);
      const state = states.get(g)?.state;
      // the read finds every checkpoint already there (the usual answer of the re-read once a
      // minute): nothing to decide, no log-end offsets needed
      this.planning = g;
      if (this.targets.exactly(g, this.planned, this.view.versionOf?.(g))) {
        result.skipped.push(this.targets.upToDateSkip(g, state));
        continue;
      }
      if (job.full && this.lockWaiters.has(g)) { this.handed.hand(g, offsets, readAt); this.letGo(holding, [g]); continue; } // an event came for it since: its run decides it with this read, now
      const checkpoints = this.checkpointsOf(g);
      // the marks as decided on (a copy: one noted while the run awaits stays for the next run)
      const marks = this.targets.rewindsOf(g);
      const endList: TargetEndOffset[] = [];
      try {
        for (const list of await Promise.all([...new Set(checkpoints.map((c) => c.topic))].map((topic) => endsOf(topic, checkpoints)))) endList.push(...list);
      } catch (e) {
        result.skipped.push({ group: g, code: 'error', state, reason: `could not read the log-end offsets on the target: ${explainKafkaError(e)}` });
        continue;
      }
      this.checkOpen();
      const d = this.targets.decide({ group: g, checkpoints, targetGroupState: state, targetOffsets: offsets, targetEndOffsets: endList }, marks);
      if (recordDecision(result, g, state, d)) toCommit.push({ group: g, state, decision: d, marks });
    }
    await this.commitSlice(toCommit, holding, null, result, tally);
    // the cache's bound follows the number of groups the last full run held
    if (job.full) this.groupCount = groups.length;
    this.targets.trim(Math.max(this.groupCount, groups.length));
    sortCycle(result);
    // the listing answered; the target is unreachable only when every read, or every commit, failed
    const failure = targetFailure(result, { asked: writable.length, failed: read.failed.size }, tally);
    if (failure !== null) connection.reportError?.(new Error(failure));
    else connection.reportOk();
    result.durationMs = this.now() - started;
    return result;
  }
  /**
   * Commits decisions of a run and records the answers: `decided` are the groups the run decided
   * since the last slice (those it will not commit are let go now); null: the run's last slice
   * (every group it holds and will not commit is let go). `tally` adds up the run's commits.
   */
  private async commitSlice(toCommit: PlannedCommit[], holding: Set<string>, decided: readonly string[] | null, result: GroupOffsetsCycle, tally: { sent: number; answered: number; fenced: boolean; lookup?: Promise<void> }): Promise<void> {
    const { connection } = this.opts;
    if (tally.lookup !== undefined && toCommit.length > 0) await tally.lookup;
    const done = decided ?? [...holding];
    if (toCommit.length < done.length) {
      const committing = new Set(toCommit.map((c) => c.group));
      this.letGo(holding, done.filter((g) => !committing.has(g)));
    }
    // fencing: a paused instance whose share may have moved writes nothing until its membership settles
    if (toCommit.length > 0 && this.opts.shares && !this.opts.shares.writable()) {
      for (const c of toCommit.splice(0)) result.skipped.push({ group: c.group, code: 'fenced', state: c.state, reason: 'not written: this instance\'s lease on its share of the flow does not hold (paused, or a rebalance settling); written once the sharing group settles' });
    }
    // the commits, pipelined per coordinator over several connections; none is sent after close,
    // and none once the lease stopped holding (checked again as each commit goes out: a pause
    // during the coordinator lookup must not send what was read before it)
    const shares = this.opts.shares;
    const sent = await connection.committer().commitMany(
      toCommit.map((c) => ({ group: c.group, offsets: c.decision.offsets })),
      {
        stop: () => {
          if (this.closed) return true;
          if (shares && !shares.writable()) tally.fenced = true;
          return tally.fenced;
        },
      },
    );
    this.checkOpen();
    const answerOf = (g: string): AdminCommitResult | undefined => {
      const r = sent.get(g);
      return tally.fenced && r !== undefined && !r.ok && r.errorType === 'CLOSED' ? { ok: false, errorType: FENCED, message: 'lease' } : r;
    };
    tally.sent += toCommit.length;
    tally.answered += recordCommits(result, this.targets, toCommit, answerOf, this.now);
  }
}
