/**
 * The offset-sync feed of one replication flow: one reader of MM2's offset-syncs topic (an
 * OffsetSyncFollower), owned by the `mm2-replication` config node and fanned out to every
 * subscriber (the checkpoint emitter, failback, the `mm2-offset-syncs` reporter). MM2 does the
 * same inside the checkpoint task: it reads the offset-syncs topic itself (OffsetSyncStore), no
 * message crosses a wire. The follower starts with the first subscriber and stops when the last
 * one leaves.
 *
 * A subscriber that joins late (a node redeployed on its own) gets exactly what a fresh start
 * would give it: every sync from the start of the topic in log order (batches of at most
 * `batchMax`), then `loaded` once the load is done, then what follows. The feed keeps that
 * history in memory rather than re-reading the topic for the newcomer: a re-read would either
 * reset every other subscriber (their translation stops until the load ends again) or need a
 * second reader and a hand-over between the two. The cost: the syncs read since the start (or the
 * last reset) stay referenced: 113 bytes each measured (an OffsetSync with two bigints, topic
 * names interned, 200,000 syncs in Node 20), about 11 MB per 100,000 syncs; the offset-syncs topic is compacted (one record per
 * source partition once compacted), so at a start the history is about the size of the topic and
 * grows by the syncs MM2 writes while the flow runs (at most one per `offset.lag.max` records
 * per partition). A `reset` (the topic was recreated or truncated) drops it.
 *
 * No Node-RED here; the config node makes the follower (engines/offset-sync-follower) and the
 * subscribers turn the events into state, messages and statuses.
 */
import type { OffsetSync } from '../core/types';
import type { OffsetSyncFollowerEvents, OffsetSyncStats } from './offset-sync-follower';

/** What the feed needs of a follower (OffsetSyncFollower fits). */
export interface FeedFollower {
  start(): void;
  stop(): Promise<void>;
  readonly stats: OffsetSyncStats;
  readonly readerGroupIds: readonly string[];
}

/** Makes the follower of one run of the feed; null when the replication has no offset-syncs topic to read. */
export type FeedFollowerFactory = (events: OffsetSyncFollowerEvents) => FeedFollower | null;

/** A subscriber's handlers: the follower's events (engines/offset-sync-follower), each optional. */
export type SyncFeedSubscriber = OffsetSyncFollowerEvents;

export interface SyncFeedSubscription {
  /** Leaves the feed; resolves once the follower stopped when this was the last subscriber. */
  unsubscribe(): Promise<void>;
}

export interface OffsetSyncFeedOptions {
  createFollower: FeedFollowerFactory;
  /** The largest batch handed to a late subscriber (the follower's own batches are kept as they come). */
  batchMax?: number;
}

const NO_STATS: OffsetSyncStats = { read: 0, malformed: 0, syncs: 0, partitions: 0, lastSyncTime: null, loaded: false };

/** The last status-like event, told again to a subscriber that joins (its status shows what the others show). */
type LastView =
  | { kind: 'progress'; done: bigint; total: bigint }
  | { kind: 'waiting' }
  | { kind: 'error'; failure: Parameters<NonNullable<OffsetSyncFollowerEvents['error']>>[0] }
  | null;

export class OffsetSyncFeed {
  private readonly subscribers = new Set<SyncFeedSubscriber>();
  private follower: FeedFollower | null = null;
  private readonly stopping = new Set<Promise<void>>();
  private history: OffsetSync[] = [];
  private readonly topicNames = new Map<string, string>();
  private loaded = false;
  private lastView: LastView = null;
  /** Set while a late subscriber is given the history: `loaded` is false for it until its `loaded`. */
  private replaying = false;
  private closed = false;
  private readonly batchMax: number;

  constructor(private readonly o: OffsetSyncFeedOptions) {
    this.batchMax = o.batchMax ?? 500;
  }

  /** Subscribers now. */
  get size(): number {
    return this.subscribers.size;
  }

  /** Whether a follower reads the topic now. */
  get running(): boolean {
    return this.follower !== null;
  }

  /** The follower's counters (all zero when none runs); `loaded` false while a late subscriber is given the history. */
  get stats(): OffsetSyncStats {
    const s = this.follower?.stats ?? NO_STATS;
    return this.replaying ? { ...s, loaded: false } : s;
  }

  /** The throwaway consumer groups of the current follower's readers (diagnostics). */
  get readerGroupIds(): readonly string[] {
    return this.follower?.readerGroupIds ?? [];
  }

  /** Syncs held for late subscribers (the memory the feed costs). */
  get historySize(): number {
    return this.history.length;
  }

  /**
   * Adds a subscriber. It is given the history at once (inside this call: subscribe once the
   * handlers are ready), then every event of the follower; the first subscriber starts it.
   */
  subscribe(sub: SyncFeedSubscriber): SyncFeedSubscription {
    if (this.closed) return { unsubscribe: () => Promise.resolve() };
    this.catchUp(sub);
    this.subscribers.add(sub);
    if (!this.follower) this.startFollower();
    let left = false;
    return {
      unsubscribe: () => {
        if (left) return Promise.resolve();
        left = true;
        this.subscribers.delete(sub);
        return this.subscribers.size === 0 ? this.stopFollower() : Promise.resolve();
      },
    };
  }

  /** The config node closed: every subscriber is dropped and the follower stopped. */
  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
    await this.stopFollower();
    await Promise.allSettled([...this.stopping]);
  }

  private catchUp(sub: SyncFeedSubscriber): void {
    if (!this.follower) return;
    this.replaying = true;
    try {
      for (let i = 0; i < this.history.length; i += this.batchMax) {
        call(sub, 'batch', this.history.slice(i, i + this.batchMax));
      }
    } finally {
      this.replaying = false;
    }
    if (this.loaded) {
      call(sub, 'loaded', this.stats);
      call(sub, 'stats', this.stats);
      return;
    }
    const v = this.lastView;
    if (v?.kind === 'progress') call(sub, 'progress', v.done, v.total);
    else if (v?.kind === 'waiting') call(sub, 'waiting', true);
    else if (v?.kind === 'error') call(sub, 'error', { ...v.failure, repeated: false });
  }

  private startFollower(): void {
    this.history = [];
    this.loaded = false;
    this.lastView = null;
    let self: FeedFollower | null = null;
    const live = (): boolean => self !== null && self === this.follower;
    const all = <K extends keyof OffsetSyncFollowerEvents>(name: K, ...args: Parameters<NonNullable<OffsetSyncFollowerEvents[K]>>): void => {
      if (!live()) return;
      for (const s of [...this.subscribers]) call(s, name, ...args);
    };
    const events: OffsetSyncFollowerEvents = {
      batch: (syncs) => {
        if (!live()) return;
        for (const s of syncs) {
          s.topic = this.intern(s.topic);
          this.history.push(s);
        }
        all('batch', syncs);
      },
      loaded: (stats) => {
        if (!live()) return;
        this.loaded = true;
        this.lastView = null;
        all('loaded', stats);
      },
      reset: () => {
        if (!live()) return;
        this.history = [];
        this.topicNames.clear();
        this.loaded = false;
        all('reset');
      },
      progress: (done, total) => {
        if (live()) this.lastView = { kind: 'progress', done, total };
        all('progress', done, total);
      },
      stats: (stats) => all('stats', stats),
      waiting: (first) => {
        if (live()) this.lastView = { kind: 'waiting' };
        all('waiting', first);
      },
      found: () => all('found'),
      malformed: (offset, reason) => all('malformed', offset, reason),
      malformedMore: (count, offset, reason) => all('malformedMore', count, offset, reason),
      error: (failure) => {
        if (live() && !this.loaded) this.lastView = { kind: 'error', failure };
        all('error', failure);
      },
      recovered: () => all('recovered'),
      warning: (text) => all('warning', text),
    };
    self = this.o.createFollower(events);
    this.follower = self;
    self?.start();
  }

  private stopFollower(): Promise<void> {
    const f = this.follower;
    this.follower = null;
    this.history = [];
    this.topicNames.clear();
    this.loaded = false;
    this.lastView = null;
    if (!f) return Promise.resolve();
    const p = f.stop().catch(() => undefined);
    this.stopping.add(p);
    void p.finally(() => this.stopping.delete(p));
    return p;
  }

  /** One string per topic name (the history holds many syncs of few topics). */
  private intern(name: string): string {
    const known = this.topicNames.get(name);
    if (known !== undefined) return known;
    this.topicNames.set(name, name);
    return name;
  }
}

/** Calls one handler of a subscriber; a handler that throws does not keep the event from the others. */
function call<K extends keyof OffsetSyncFollowerEvents>(sub: SyncFeedSubscriber, name: K, ...args: Parameters<NonNullable<OffsetSyncFollowerEvents[K]>>): void {
  const fn = sub[name] as ((...a: unknown[]) => void) | undefined;
  if (!fn) return;
  try {
    fn.apply(sub, args);
  } catch (e) {
    if (name !== 'warning') sub.warning?.(`offset-sync feed: ${name}: ${(e as Error)?.message ?? String(e)}`);
  }
}
