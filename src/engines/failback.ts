/**
 * Failback, without Node-RED: after a failover, consumer groups run on the TARGET against the
 * remote topics (`source.orders`); when the source is back they need offsets on the SOURCE's
 * `orders` that match where they got to. Each cycle:
 *
 * - lists the target's consumer groups (one ListGroups per broker) and their committed offsets
 *   (batched OffsetFetch), keeps the groups the group filter accepts, and of their offsets those
 *   on remote topics of this replication flow (`policy.topicSource(topic)` is the source alias)
 *   whose source topic the topic filter accepts;
 * - translates each position back to the source topic (core/reverse-translation, from the same
 *   offset syncs the checkpoint side uses, fed through `handleSyncEvent` like the checkpoint
 *   emitter's store: translation waits for the initial load);
 * - hands the answers to a GroupOffsetSyncer whose "target" is the SOURCE cluster, as the
 *   checkpoints of the reverse flow (group, source topic, partition, upstream = the target
 *   position, downstream = the source offset to write): the group-offset writer's own rules
 *   apply, unchanged: only groups without members on the source are written, a committed source
 *   offset never moves backwards, never past the source partition's log end, a missing topic or
 *   partition is skipped, UNKNOWN_MEMBER_ID at commit is a benign skip.
 *
 * Nothing is remembered that cannot be read again: a restart reads the syncs and the target's
 * group offsets anew and converges to the same writes.
 */
import type { NameFilter } from '../core/filters';
import { OffsetSyncStore, type OffsetTranslationMode } from '../core/offset-sync-store';
import type { ReplicationPolicy } from '../core/replication-policy';
import { reverseTranslate } from '../core/reverse-translation';
import type { Checkpoint, OffsetSync } from '../core/types';
import type { SyncEvent } from './checkpoint-emitter';
import { isConsumerGroupListing } from '../core/listed-groups';
import { GroupOffsetSyncer, type GroupOffsetsCycle, type SyncerConnection, type TargetGroupReader } from './group-offset-syncer';
import { CoalescingRunner } from '../core/coalescing';

/** What failback reads group positions from (the target's ClusterConnection fits). */
export interface FailbackTargetConnection {
  offsetFetcher(): TargetGroupReader;
  reportOk(): void;
  reportError?(err: unknown): string;
}

export interface FailbackOptions {
  /** Where the group positions are read: the replication flow's target. */
  target: FailbackTargetConnection;
  /** Where the translated offsets are written: the replication flow's source. */
  source: SyncerConnection;
  sourceAlias: string;
  policy: Pick<ReplicationPolicy, 'topicSource' | 'upstreamTopic'>;
  groupFilter: NameFilter;
  /** Applied to the source topic names (as the checkpoint side's `topics` / `topics.exclude`). */
  topicFilter: NameFilter;
  /** The replication's offset translation: 'precise' also searches the syncs the store holds besides its 64 slots. */
  translation?: OffsetTranslationMode;
  /** Least time between two writes of one group (the group-offset writer's floor). */
  minWriteIntervalMs?: number;
  now?: () => number;
}

/** Why a group partition on a remote topic was not translated. */
export type FailbackSkip =
  /** No sync for the source partition: nothing of it was mirrored, or its syncs are gone. */
  | 'no-sync'
  /** The target position is below every sync the store holds. */
  | 'too-old';

/** One group partition on a remote topic of the flow. */
export interface FailbackEntry {
  group: string;
  /** The remote topic on the target. */
  topic: string;
  partition: number;
  /** The group's committed offset there. */
  targetOffset: bigint;
  sourceTopic: string;
  /** The safe source position (translated), else why not. */
  sourceOffset?: bigint;
  skip?: FailbackSkip;
  /** On a sync: the source position is exactly the target one. */
  exact?: boolean;
  /** The sync translated from. */
  sync?: OffsetSync;
  /** At most this many source records are read again after failback. */
  reread?: bigint;
}

/** Where a group stands after a cycle. */
export type FailbackGroupState =
  /** Every translated partition has at least its translated offset on the source (written now or already there). */
  | 'in-step'
  /** The group has members on the source: its offsets are its consumers' business. */
  | 'active-on-source'
  /** Some partition could not be written (missing on the source, or an error); see the reason. */
  | 'not-written'
  /** Some partition of the group could not be translated (its target offset is below every sync): it is not safe to move back yet. */
  | 'not-translated';

export interface FailbackGroup {
  group: string;
  state: FailbackGroupState;
  /** The group's state on the target as listed (undefined: not listed). */
  targetState?: string;
  reason?: string;
}

export interface FailbackCycle {
  cycle: number;
  /** Each group partition on a remote topic of the flow, translated or not. */
  entries: FailbackEntry[];
  groups: FailbackGroup[];
  /** Target groups whose offsets could not be read (group -> reason). */
  readFailed: Array<{ group: string; reason: string }>;
  /** What the group-offset writer did on the source. */
  write: GroupOffsetsCycle;
  durationMs: number;
}

/** A cycle was asked for before the offset syncs were read to their end. */
export class SyncsNotLoadedError extends Error {
  constructor() {
    super('the offset syncs have not been read to their end yet');
    this.name = 'SyncsNotLoadedError';
  }
}

export class Failback {
  private store: OffsetSyncStore;
  private readonly syncer: GroupOffsetSyncer;
  private readonly translation: OffsetTranslationMode;
  private readonly now: () => number;
  /** Cycles never overlap, and the requests that arrive while one runs share the one run after it. */
  private readonly runner = new CoalescingRunner<void, FailbackCycle>(() => this.runCycle(), () => undefined);
  private cycleNo = 0;
  private closed = false;

  constructor(private readonly o: FailbackOptions) {
    this.translation = o.translation ?? 'precise';
    this.now = o.now ?? Date.now;
    // every sync read is history: no checkpoint history to stay monotonic with (the writer never moves offsets back)
    this.store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: this.translation });
    this.syncer = new GroupOffsetSyncer({ connection: o.source, groupFilter: o.groupFilter, minWriteIntervalMs: o.minWriteIntervalMs, now: o.now });
  }

  /** Whether the offset-sync history has been read to its end (translation needs it). */
  get syncsLoaded(): boolean {
    return this.store.loaded;
  }

  /** Applies one offset-sync event (from mm2-offset-syncs), as the checkpoint emitter does. */
  handleSyncEvent(ev: SyncEvent): void {
    if (ev.event === 'reset') this.store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: this.translation });
    else if (ev.event === 'loaded') this.store.markLoaded();
    else for (const s of ev.syncs) this.store.apply(s);
  }

  /**
   * One cycle now, or after the running one: requests that arrive while a cycle runs share the one
   * cycle after it (its result, the same object, answers them all), as the checkpoint emitter's
   * cycles do. Rejects with SyncsNotLoadedError before the syncs are loaded, and when the target
   * cannot be listed.
   */
  cycle(): Promise<FailbackCycle> {
    if (this.closed) return Promise.reject(new Error('closed'));
    return this.runner.run(undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.syncer.close();
  }

  private async runCycle(): Promise<FailbackCycle> {
    if (this.closed) throw new Error('closed');
    // the store as loaded now: a reset while the target is read replaces this.store, not this one
    const store = this.store;
    if (!store.loaded) throw new SyncsNotLoadedError();
    const started = this.now();
    const cycle = ++this.cycleNo;
    const { target, groupFilter, topicFilter, policy, sourceAlias } = this.o;
    const fetcher = target.offsetFetcher();
    let states: Awaited<ReturnType<TargetGroupReader['listGroupStates']>>;
    try {
      states = await fetcher.listGroupStates();
    } catch (e) {
      target.reportError?.(e);
      throw e;
    }
    const groups = [...states].filter(([id, g]) => isConsumerGroupListing(g.protocolType, g.type) && groupFilter.accept(id)).map(([id]) => id).sort();
    const read = groups.length > 0 ? await fetcher.fetchMany(groups) : { offsets: new Map(), failed: new Map<string, string>() };
    if (groups.length > 0 && read.failed.size === groups.length) target.reportError?.(new Error([...read.failed.values()][0]));
    else target.reportOk();
    if (this.closed) throw new Error('closed');

    const entries: FailbackEntry[] = [];
    const checkpoints: Checkpoint[] = [];
    const translatedGroups = new Set<string>();
    for (const g of groups) {
      for (const o of read.offsets.get(g) ?? []) {
        if (o.offset === null || policy.topicSource(o.topic) !== sourceAlias) continue;
        const sourceTopic = policy.upstreamTopic(o.topic);
        if (sourceTopic === null) continue;
        if (!topicFilter.accept(sourceTopic)) continue;
        const base = { group: g, topic: o.topic, partition: o.partition, targetOffset: o.offset, sourceTopic };
        const r = reverseTranslate(store, sourceTopic, o.partition, o.offset);
        if (r.kind === 'translated') {
          entries.push({ ...base, sourceOffset: r.upstreamOffset, exact: r.exact, sync: r.sync, reread: r.reread });
          // the reverse flow's checkpoint: upstream = where the group is on the target, downstream = the source offset
          checkpoints.push({ group: g, topic: sourceTopic, partition: o.partition, upstreamOffset: o.offset, downstreamOffset: r.upstreamOffset, metadata: o.metadata });
          translatedGroups.add(g);
        } else if (r.kind === 'too-old' || r.kind === 'no-sync') {
          entries.push({ ...base, skip: r.kind });
        }
      }
    }
    // what this cycle read, nothing older: a group gone from the target or a partition no longer
    // translated is not written again
    this.syncer.replaceCheckpoints(checkpoints);
    const write = await this.syncer.sync();
    const result: FailbackCycle = {
      cycle,
      entries,
      groups: this.groupStates(groups, entries, translatedGroups, write, states),
      readFailed: [...read.failed].map(([group, reason]) => ({ group, reason })),
      write,
      durationMs: 0,
    };
    result.durationMs = this.now() - started;
    return result;
  }

  /** Each group with an entry: in step on the source, active there, not (all) written, or not translated. */
  private groupStates(
    groups: string[],
    entries: FailbackEntry[],
    translated: Set<string>,
    write: GroupOffsetsCycle,
    states: ReadonlyMap<string, { state?: string }>,
  ): FailbackGroup[] {
    const withEntry = new Set(entries.map((e) => e.group));
    const untranslated = new Map<string, { of: number; not: number }>();
    for (const e of entries) {
      const u = untranslated.get(e.group) ?? { of: 0, not: 0 };
      u.of++;
      if (e.skip !== undefined) u.not++;
      untranslated.set(e.group, u);
    }
    const skipped = new Map(write.skipped.map((s) => [s.group, s]));
    const partitionProblems = new Map<string, string>();
    for (const p of write.partitionsSkipped) {
      // the source ahead of the translation is in step (never moved back); anything else was not written
      if (p.code !== 'target-ahead' && !partitionProblems.has(p.group)) partitionProblems.set(p.group, p.reason);
    }
    const out: FailbackGroup[] = [];
    for (const g of groups) {
      if (!withEntry.has(g)) continue;
      const targetState = states.get(g)?.state;
      const base = { group: g, ...(targetState !== undefined ? { targetState } : {}) };
      const u = untranslated.get(g) ?? { of: 0, not: 0 };
      if (!translated.has(g) || u.not > 0) {
        // the translated partitions are written all the same; a consumer of the others would start where the source has them
        out.push({ ...base, state: 'not-translated', reason: `${u.not} of ${u.of} partitions could not be translated (no sync at or below their target offset)` });
        continue;
      }
      const s = skipped.get(g);
      if (s?.code === 'group-active') out.push({ ...base, state: 'active-on-source', reason: s.reason });
      else if (s?.code === 'error') out.push({ ...base, state: 'not-written', reason: s.reason });
      else if (partitionProblems.has(g)) out.push({ ...base, state: 'not-written', reason: partitionProblems.get(g) });
      else out.push({ ...base, state: 'in-step' });
    }
    return out;
  }
}
