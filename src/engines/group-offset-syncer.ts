/**
 * MM2's `sync.group.offsets` (MirrorCheckpointTask.syncGroupOffset), done safely, without Node-RED: keeps the latest
 * checkpoint per (group, remote partition) and writes the translated offsets of the selected
 * groups to the TARGET cluster with one admin-style OffsetCommit per group that moved.
 *
 * Two kinds of run, one at a time (never overlapping, queued requests share one run):
 * - `sync()`, the full reconcile (every `sync.group.offsets.interval.seconds`, the upper bound):
 *   every selected group with a checkpoint;
 * - `syncGroups(groups)`, a partial run for the groups whose checkpoints just changed.
 * Per run: the state of every target group from one ListGroups per broker, the target's
 * committed offsets of the run's groups from batched OffsetFetch requests (one per coordinator
 * per 500 groups), the log-end offsets once per topic, the core's decision per group
 * (`decideGroupOffsetSync`: never backwards, clamp at the log end, skip active groups, skip
 * missing topics), then the commits of the groups that move, several in flight. UNKNOWN_MEMBER_ID
 * from the broker means the group became active meanwhile: reported as skipped, nothing written.
 * What we read and wrote is remembered, so a partial run re-reads only the groups it may write,
 * and a full run re-reads a group that is up to date as remembered only when its last read is
 * older than FULL_TARGET_READ_EVERY_MS (the offsets it writes are always decided against a
 * fresh read: never backwards).
 *
 * A floor (`minWriteIntervalMs`) bounds the work of a commit storm: a partial run does not write
 * a group written less than the floor ago; it is written once when the floor ends (a timer runs
 * `syncGroups` for it), never dropped. The full run (at most once per interval, or on demand) writes every group.
 *
 * Checkpoints come either from messages (`applyCheckpointsJson`, the checkpoint emitter's
 * `payload.latest`) or from the checkpoints topic itself (`CheckpointsTopicFollower`), which
 * also works beside a real MM2 checkpoint connector.
 */
import type { Admin, Kafka } from 'kafkajs';
import { decodeValidCheckpoint } from '../core/checkpoint';
import { parseCheckpointJson } from '../core/checkpoint-json';
import { MalformedRecordError } from '../core/errors';
import type { NameFilter } from '../core/filters';
import { decideGroupOffsetSync, type RewindMark, type TargetEndOffset } from '../core/group-offset-sync';
import { emptyCycle, recordCommits, recordDecision, sortCycle, targetFailure, type CheckpointStats, type GroupOffsetsCycle, type PlannedCommit } from '../core/group-offsets-cycle';
import { DEFAULT_MIN_WRITE_INTERVAL_MS, FULL_TARGET_READ_EVERY_MS, TargetOffsets } from '../core/target-offsets';
import type { Checkpoint, CommittedOffset } from '../core/types';
import { explainKafkaError, notAuthorized, type ClusterSettings } from '../kafka/client';
import { fetchEndOffsets } from '../kafka/end-offsets';
import type { AdminCommitResult } from '../kafka/admin-offset-committer';
import type { ListedGroupState } from '../core/listed-groups';
import type { RawRecord } from '../kafka/topic-reader';
import type { RewindMarks } from '../core/rewind-history';
import { CheckpointStore } from '../core/checkpoint-store';
import { LogEndCache } from '../core/log-end-cache';
import type { CheckpointView } from './replication-runtime';

/** What the syncer reads target groups with (GroupOffsetFetcher fits). */
export interface TargetGroupReader {
  fetchMany(groups: readonly string[]): Promise<{ offsets: Map<string, CommittedOffset[]>; failed: Map<string, string> }>;
  listGroupStates(): Promise<ReadonlyMap<string, ListedGroupState>>;
}

/** What the syncer needs from a cluster connection (ClusterConnection fits). */
export interface SyncerConnection {
  admin(): Promise<Admin>;
  /** With the client and settings, a refusal names the ACL and the principal (a topic the principal may not see, a group it may not read). */
  readonly kafka?: Kafka;
  readonly settings?: ClusterSettings;
  committer(): {
    commitMany(
      commits: ReadonlyArray<{ group: string; offsets: Array<{ topic: string; partition: number; offset: bigint; metadata?: string }> }>,
      opts?: { connections?: number; stop?: () => boolean },
    ): Promise<Map<string, AdminCommitResult>>;
  };
  offsetFetcher(): TargetGroupReader;
  reportOk(): void;
  /** Marks the connection failed (its users show it); optional. */
  reportError?(err: unknown): string;
}

export type { CheckpointStats, ClampedPartition, GroupOffsetsCycle, GroupSkipCode, RewoundPartition, SkippedGroup, SkippedPartition, WrittenGroup } from '../core/group-offsets-cycle';

/**
 * The default floor (ms), and how old a read of an up-to-date group a full run accepts (ms): the
 * target's offsets are kept from what we read and wrote (core/target-offsets), so that a full run
 * costs in proportion to what moved; every write is still decided against a fresh read.
 */
export { DEFAULT_MIN_WRITE_INTERVAL_MS, FULL_TARGET_READ_EVERY_MS };
/** How long a run's listing of group states serves the partial runs after it without another read (ms): the broker's refusal of a commit to a group with members stays the last guard. */
const STATES_MAX_AGE_MS = 1000;
/** The oldest listing a partial run takes (ms), reading a new one beside it for the next. */
const PARTIAL_STATES_MAX_AGE_MS = 10000;

export interface GroupOffsetSyncerOptions {
  connection: SyncerConnection;
  /** Which groups to write (MM2 `groups` / `groups.exclude`). */
  groupFilter: NameFilter;
  /** Least time between two writes of one group (ms); default DEFAULT_MIN_WRITE_INTERVAL_MS. */
  minWriteIntervalMs?: number;
  /**
   * Follow a deliberate rewind of a group on the source (a checkpoint whose upstream offset is
   * lower than the one before it): a memberless target group's offset is moved back to it, once.
   * Default false: MM2's behaviour, a target offset never moves backwards.
   */
  followRewinds?: boolean;
  /** Called with the result of a run the floor timer started (the caller reports it like any other). */
  onDeferredRun?: (run: Promise<GroupOffsetsCycle>) => void;
  /** A full run reads again a group up to date as remembered when its last read is older than this (ms). Default FULL_TARGET_READ_EVERY_MS (60 s); benchmarks shorten it so that a short run covers several. */
  fullTargetReadEveryMs?: number;
  now?: () => number;
}


type Job = { full: true } | { full: false; groups: Set<string> };

/** A store of the syncer's own (checkpoints from messages or from the checkpoints topic). */
function ownStore(): CheckpointStore {
  const store = new CheckpointStore();
  store.markLoaded(true);
  return store;
}

export class GroupOffsetSyncer {
  /** The checkpoints this syncer received itself (modes "input" and "topic"). */
  private own = ownStore();
  /** What the runs read: its own store, or the replication runtime's (the checkpoint emitters' stores, read in place). */
  private view: CheckpointView = this.own;
  /** The target's offsets as last read or written, the floor and the rewinds not acted on yet (from the order of the checkpoints: state, read again after a restart). */
  private readonly targets: TargetOffsets;
  /** Groups waiting for the floor, and the timer that runs them. */
  private readonly deferredGroups = new Set<string>();
  private deferTimer: ReturnType<typeof setTimeout> | null = null;
  private states: { at: number; map: ReadonlyMap<string, ListedGroupState> } | null = null;
  private received = 0;
  /** The log ends of the remote partitions as last read (a partial run takes them when they clamp nothing). */
  private readonly logEnds: LogEndCache;
  /** A listing of the target's groups is being read beside the runs. */
  private listingBeside = false;
  /** The groups the last full run selected (bounds the target-offset cache). */
  private groupCount = 0;
  private malformedCount = 0;
  private cycleNo = 0;
  private running = false;
  private chain: Promise<unknown> = Promise.resolve();
  private nextFull: Promise<GroupOffsetsCycle> | null = null;
  private nextPartial: { groups: Set<string>; run: Promise<GroupOffsetsCycle> } | null = null;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly opts: GroupOffsetSyncerOptions) {
    this.now = opts.now ?? Date.now;
    this.logEnds = new LogEndCache(opts.fullTargetReadEveryMs ?? FULL_TARGET_READ_EVERY_MS);
    this.targets = new TargetOffsets({ floorMs: opts.minWriteIntervalMs ?? DEFAULT_MIN_WRITE_INTERVAL_MS, followRewinds: opts.followRewinds === true, fullReadEveryMs: opts.fullTargetReadEveryMs });
  }

  /** Whether a run is in progress or queued. */
  get busy(): boolean {
    return this.running || this.nextFull !== null || this.nextPartial !== null;
  }

  get stats(): CheckpointStats {
    let groups = 0;
    let partitions = 0;
    for (const g of this.view.groups()) {
      groups++;
      partitions += this.view.get(g)?.length ?? 0;
    }
    return { groups, partitions, received: this.received, malformed: this.malformedCount };
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
  }

  /** Stores one checkpoint in the syncer's own store: the last one per (group, remote partition) wins. Returns whether it differs from the one held. */
  put(cp: Checkpoint): boolean {
    const had = this.own.getPartition(cp.group, cp.topic, cp.partition);
    this.own.update(cp.group, [cp]);
    this.noteCheckpoint(had, cp);
    return !had || had.downstreamOffset !== cp.downstreamOffset || had.upstreamOffset !== cp.upstreamOffset;
  }

  /**
   * Holds exactly `list` from now on (the last one per group and remote partition wins): for a
   * caller that derives the whole set again each cycle, so that nothing it no longer reads is
   * written again from an older cycle.
   */
  replaceCheckpoints(list: Iterable<Checkpoint>): void {
    const following = this.following;
    this.own = ownStore();
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
    let accepted = 0;
    let malformed = 0;
    const groups: string[] = [];
    const changed: string[] = [];
    for (const [group, list] of Object.entries(latest)) {
      if (!Array.isArray(list)) {
        malformed++;
        continue;
      }
      let any = false;
      let moved = false;
      for (const entry of list) {
        const cp = parseCheckpointJson(entry, group);
        if (cp) {
          if (this.put(cp)) moved = true;
          accepted++;
          any = true;
        } else {
          malformed++;
        }
      }
      if (any) groups.push(group);
      if (moved) changed.push(group);
    }
    this.malformedCount += malformed;
    return { accepted, malformed, groups, changed };
  }

  /**
   * Takes the rewinds a replay of the checkpoints topic found (core/rewind-history; mode "input"
   * at start, issue 26 item 1), whatever the messages delivered meanwhile: a partition this
   * writer holds no checkpoint of yet takes the mark alone, kept until the wire delivers the
   * partition's checkpoint (dropped then if that checkpoint is past where the group was rewound
   * from); one it holds takes the mark only while its checkpoint is still below the upstream offset
   * the group was rewound from (a checkpoint past it means the group moved on: nothing to follow).
   * Returns the groups it holds that took a mark (to sync now); the others are synced by the run
   * their checkpoint comes with.
   */
  adoptRewinds(history: Pick<RewindMarks, 'rewinds'>): string[] {
    const groups = new Set<string>();
    for (const { group, mark } of history.rewinds()) {
      const held = this.view.get(group)?.find((c) => c.topic === mark.topic && c.partition === mark.partition);
      if (held !== undefined && held.upstreamOffset >= mark.fromUpstream) continue;
      // a group the wire has not delivered yet keeps only the mark, waiting for its checkpoint
      // (TargetOffsets.noteCheckpoint drops it if that checkpoint is past where the group was
      // rewound from): the node's groups stay those of its wire, never the topic's whole history
      this.targets.adoptRewind(group, mark);
      if (held !== undefined) groups.add(group);
    }
    return [...groups];
  }

  /**
   * Decodes and stores one record of the checkpoints topic. A malformed record is counted and
   * its MalformedRecordError returned (never thrown); null when the record was stored.
   */
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

  /**
   * The full reconcile now (every selected group with a checkpoint). If a run is going on, the
   * request is queued (several requests share one follow-up run), so the caller gets a run that
   * started after its request.
   */
  sync(): Promise<GroupOffsetsCycle> {
    if (this.closed) return Promise.reject(new Error('closed'));
    if (!this.nextFull) {
      this.nextFull = this.enqueue(() => {
        this.nextFull = null;
        return { full: true };
      });
    }
    return this.nextFull;
  }

  /**
   * Only these groups (selected, with a checkpoint), now: after the running run, together with
   * every other group asked for meanwhile. A group written less than the floor ago waits for it
   * (counted in `deferred`; a timer runs it when the floor ends).
   */
  syncGroups(groups: Iterable<string>): Promise<GroupOffsetsCycle> {
    if (this.closed) return Promise.reject(new Error('closed'));
    if (!this.nextPartial) {
      const set = new Set<string>();
      this.nextPartial = {
        groups: set,
        run: this.enqueue(() => {
          this.nextPartial = null;
          return { full: false, groups: set };
        }),
      };
    }
    for (const g of groups) this.nextPartial.groups.add(g);
    return this.nextPartial.run;
  }

  private enqueue(take: () => Job): Promise<GroupOffsetsCycle> {
    const run = this.chain.then(async () => {
      const job = take();
      if (this.closed) throw new Error('closed');
      this.running = true;
      try {
        return await this.runCycle(job);
      } finally {
        this.running = false;
      }
    });
    // the chain only orders the runs: it must not hold the last result (100,000 entries at 10,000 groups) until the next run
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Stops: no new run starts, a running one issues no new request (it is abandoned), and close
   * waits at most `timeoutMs` for the requests already in flight.
   */
  async close(timeoutMs = 3000): Promise<void> {
    this.closed = true;
    if (this.deferTimer) clearTimeout(this.deferTimer);
    this.deferTimer = null;
    this.deferredGroups.clear();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.chain,
      new Promise((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]);
    if (timer) clearTimeout(timer);
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('closed: the sync run was abandoned');
  }

  /** The groups of a run that may be written now, and how many wait for the floor (a timer is set for them). */
  private applyFloor(groups: string[]): string[] {
    const now = this.now();
    const { ready, waiting, wakeAt: earliest } = this.targets.floor(groups, now);
    for (const g of waiting) this.deferredGroups.add(g);
    if (earliest < Infinity && !this.deferTimer && !this.closed) {
      this.deferTimer = setTimeout(() => this.runDeferred(), Math.max(1, earliest - now));
      this.deferTimer.unref?.();
    }
    return ready;
  }

  private runDeferred(): void {
    this.deferTimer = null;
    if (this.closed || this.deferredGroups.size === 0) return;
    const groups = [...this.deferredGroups];
    this.deferredGroups.clear();
    const run = this.syncGroups(groups);
    if (this.opts.onDeferredRun) this.opts.onDeferredRun(run);
    else run.catch(() => undefined);
  }

  /**
   * Target group states: fresh for a full run. A partial run (the event lane) takes a listing up to
   * PARTIAL_STATES_MAX_AGE_MS old and has one older than STATES_MAX_AGE_MS read again beside it,
   * for the next: the broker's refusal of a commit to a group with members (UNKNOWN_MEMBER_ID,
   * REBALANCE_IN_PROGRESS) stays the last guard, so a group that gained members since is still never written.
   */
  private async groupStates(full: boolean): Promise<ReadonlyMap<string, ListedGroupState>> {
    const s = this.states;
    if (!full && s) {
      const age = this.now() - s.at;
      if (age <= STATES_MAX_AGE_MS) return s.map;
      if (age <= PARTIAL_STATES_MAX_AGE_MS) {
        this.listStatesBeside();
        return s.map;
      }
    }
    return this.listStates();
  }

  private listStates(): Promise<ReadonlyMap<string, ListedGroupState>> {
    const at = this.now();
    return this.opts.connection.offsetFetcher().listGroupStates().then((map) => {
      if (!this.states || this.states.at <= at) this.states = { at, map };
      return map;
    });
  }

  /** A listing read beside the runs (one at a time); its failure is left to the next run that needs one. */
  private listStatesBeside(): void {
    if (this.listingBeside || this.closed) return;
    this.listingBeside = true;
    this.listStates().then(
      () => (this.listingBeside = false),
      () => (this.listingBeside = false),
    );
  }

  /** The partitions of `group` with a rewind on the source not acted on yet. */
  pendingRewinds(group: string): RewindMark[] {
    return this.targets.pendingRewinds(group);
  }

  private async runCycle(job: Job): Promise<GroupOffsetsCycle> {
    const started = this.now();
    const cycle = ++this.cycleNo;
    const selected = (job.full ? [...this.view.groups()] : [...job.groups].filter((g) => this.view.hasGroup(g)))
      .filter((g) => this.opts.groupFilter.accept(g))
      .sort();
    // the floor bounds the partial runs; a full run (at most one per interval, or a "sync now") writes every group now
    if (job.full) for (const g of selected) this.deferredGroups.delete(g);
    const groups = job.full ? selected : this.applyFloor(selected);
    const result = emptyCycle(cycle, !job.full, this.stats, selected.length - groups.length);
    if (groups.length === 0) {
      result.durationMs = this.now() - started;
      return result;
    }
    const { connection } = this.opts;
    const admin = await connection.admin();
    this.checkOpen();
    let states: ReadonlyMap<string, ListedGroupState>;
    try {
      states = await this.groupStates(job.full);
    } catch (e) {
      // without the states no group may be written; the target is unreachable or refuses
      connection.reportError?.(e);
      throw e;
    }
    this.checkOpen();

    const statesAt = this.states?.at ?? -Infinity;
    // groups with members are left alone without reading them; the others are read in batches
    const writable: string[] = [];
    for (const g of groups) {
      const state = states.get(g)?.state;
      const plan = this.targets.plan(g, state, statesAt, this.view.get(g) ?? [], job.full, this.now());
      if (plan === 'active') {
        const d = decideGroupOffsetSync({ group: g, checkpoints: this.checkpointsOf(g), targetGroupState: state });
        result.skipped.push({ group: g, code: 'group-active', state, reason: d.reason });
      } else if (plan === 'up-to-date') {
        result.skipped.push(this.targets.upToDateSkip(g, state));
      } else {
        writable.push(g);
      }
    }
    const read = writable.length > 0 ? await connection.offsetFetcher().fetchMany(writable) : { offsets: new Map<string, CommittedOffset[]>(), failed: new Map<string, string>() };
    this.checkOpen();
    for (const [g, reason] of read.failed) {
      // reading needs DESCRIBE, writing READ on the group: the ACL to grant is READ
      const refused = notAuthorized({ message: reason }, [{ resource: 'Group', name: g, operations: ['READ'] }], connection.settings);
      result.skipped.push({ group: g, code: 'error', state: states.get(g)?.state, reason: `could not read the group's offsets on the target: ${refused?.message ?? reason}` });
      this.targets.forget(g);
    }

    // log-end offsets per topic: read at most once per run, shared by the groups; a partial run
    // takes those read earlier when they clamp nothing of the group (core/log-end-cache)
    const ends = new Map<string, Promise<TargetEndOffset[]>>();
    const readEnds = (topic: string): Promise<TargetEndOffset[]> => {
      let p = ends.get(topic);
      if (!p) {
        const at = this.now();
        p = fetchEndOffsets(admin, topic, connection.kafka ? { kafka: connection.kafka, settings: connection.settings } : undefined).then((list) => {
          const read = list.map((e) => ({ topic, partition: e.partition, offset: e.offset }));
          this.logEnds.put(topic, read, at);
          return read;
        });
        ends.set(topic, p);
      }
      return p;
    };
    const endsOf = (topic: string, checkpoints: readonly Checkpoint[]): Promise<TargetEndOffset[]> => {
      const earlier = job.full ? undefined : this.logEnds.serves(topic, checkpoints, this.now());
      return earlier !== undefined ? Promise.resolve(earlier) : readEnds(topic);
    };
    const toCommit: PlannedCommit[] = [];
    for (const g of writable) {
      const offsets = read.offsets.get(g);
      if (!offsets) continue;
      this.targets.read(g, offsets, this.now());
      const state = states.get(g)?.state;
      // the read finds every checkpoint already there (the usual answer of the re-read once a
      // minute): nothing to decide, no log-end offsets needed
      if (this.targets.exactly(g, this.view.get(g) ?? [])) {
        result.skipped.push(this.targets.upToDateSkip(g, state));
        continue;
      }
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

    // the commits, pipelined per coordinator over several connections; none is sent after close
    const sent = await connection.committer().commitMany(
      toCommit.map((c) => ({ group: c.group, offsets: c.decision.offsets })),
      { stop: () => this.closed },
    );
    this.checkOpen();
    const committedOk = recordCommits(result, this.targets, toCommit, (g) => sent.get(g), this.now);
    // the cache's bound follows the number of groups the last full run selected
    if (job.full) this.groupCount = selected.length;
    this.targets.trim(Math.max(this.groupCount, selected.length));
    sortCycle(result);
    // the listing answered; the target is unreachable only when every read, or every commit, failed
    const failure = targetFailure(result, { asked: writable.length, failed: read.failed.size }, { sent: toCommit.length, answered: committedOk });
    if (failure !== null) connection.reportError?.(new Error(failure));
    else connection.reportOk();
    result.durationMs = this.now() - started;
    return result;
  }
}
