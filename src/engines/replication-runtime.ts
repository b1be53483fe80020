/**
 * The runtime of one replication flow (one per `mm2-replication` config node, as Node-RED's MQTT
 * broker node owns the connection its nodes share): what the engines of the flow share lives
 * here, once. The checkpoints: each checkpoint emitter of the flow keeps its store here (restored
 * from the checkpoints topic, then written by its cycles), and the group-offset writers read that
 * very store instead of a copy sent over a wire (MM2's MirrorCheckpointTask syncs group offsets
 * from the map its checkpoint cycles fill). Its listeners hear each checkpoint stored (the order
 * tells a deliberate rewind on the source), each store restored and each cycle's changed groups.
 * A group-offset writer registers with it through followRuntime (at the end of this file).
 *
 * No Node-RED, no Kafka I/O.
 */
import { CheckpointStore } from '../core/checkpoint-store';
import { GroupNames } from '../core/group-names';
import { RewindMarks } from '../core/rewind-history';
import type { RewindMark } from '../core/group-offset-sync';
import type { Checkpoint } from '../core/types';
import type { GroupOffsetSyncer, GroupOffsetsCycle } from './group-offset-syncer';
import { ReplicationShares } from './replication-shares';

/** The checkpoints as the group-offset writer reads them. */
export interface CheckpointView {
  /** Groups with at least one checkpoint. */
  groups(): Iterable<string>;
  /** Calls `f` with each of groups(), in the same order, without an iterator result per group (10,000 every second); optional. */
  eachGroup?(f: (group: string) => void): void;
  /** The latest checkpoint of each remote partition of `group`, or undefined. */
  get(group: string): readonly Checkpoint[] | undefined;
  hasGroup(group: string): boolean;
  /** How many remote partitions of `group` have a checkpoint (no list made). */
  sizeOf?(group: string): number;
  /** The version of what get(group) answers (CheckpointStore.versionOf: it never repeats, also across stores); undefined: none. */
  versionOf?(group: string): number | undefined;
}

/** What a checkpoint emitter's store says of the groups it keeps (its selection). */
export interface CheckpointSource {
  /** The groups the emitter selects now that have a checkpoint (null: not discovered yet). */
  selected(): Iterable<string> | null;
}

export interface CheckpointsListener {
  /** A checkpoint stored (restore or cycle), replacing `previous` of its group and remote partition. */
  put?(previous: Checkpoint | undefined, next: Checkpoint): void;
  /** A store finished its restore, an emitter's selection of groups changed, or an emitter came or went: read every group again. */
  reloaded?(): void;
  /** A cycle completed: these groups' checkpoints changed since the previous one. */
  changed?(groups: readonly string[]): void;
}

interface OpenStore {
  store: CheckpointStore;
  source: CheckpointSource;
  restored: boolean;
  /** The rewinds the order of this store's checkpoints showed (a failed restore clears its own only). */
  marks: RewindMarks;
}

/** The rewinds every store's order showed, as a writer takes them (and tells those it acted on). */
export interface RuntimeRewinds {
  rewinds(): Iterable<{ group: string; mark: RewindMark }>;
  /** A writer acted on `mark` of `group`: dropped from every store's marks (see RewindMarks.done). */
  done(group: string, mark: RewindMark): void;
}

/** The part of the runtime a checkpoint emitter uses. */
export interface CheckpointsHome {
  /** The groups' numbers, one interner for every per-group table of the flow (the stores, the source offsets, the kept syncs, the target offsets): no map of names per table. */
  readonly names?: GroupNames;
  /** A new store for the emitter (its restore fills it); replaces `previous` (a failed restore tried again). */
  open(source: CheckpointSource, acceptGroup: (group: string) => boolean, previous?: CheckpointStore): CheckpointStore;
  /** The store's restore is over (markLoaded called). */
  restored(store: CheckpointStore): void;
  /** A cycle of the emitter translated (the groups it changed are known here). */
  cycled(): void;
  /** The emitter's selection of groups changed (its first discovery, or groups came or went). */
  selected(store: CheckpointStore): void;
  /** The emitter stopped: its store goes, and what its other tables (`held`: its kept syncs, its source offsets) held in `names` is released. */
  close(store: CheckpointStore, held?: readonly ({ release(): void } | null)[]): void;
}

export class ReplicationRuntime implements CheckpointsHome, CheckpointView {
  /** The share of the flow this instance owns when the flow runs in several Node-RED instances (engines/replication-shares). */
  readonly shares = new ReplicationShares();
  /** The groups' numbers, shared by every per-group table of the flow (CheckpointsHome.names). */
  readonly names = new GroupNames();
  private readonly stores: OpenStore[] = [];
  private readonly listeners = new Set<CheckpointsListener>();
  /** Groups whose checkpoints changed since the last completed cycle. */
  private readonly dirty = new Set<string>();
  /** The rewinds the order of the stored checkpoints showed, over every store (a writer that starts later takes them; marks only, no copy of the checkpoints). */
  private readonly allMarks: RuntimeRewinds = {
    rewinds: () => this.eachMark(),
    done: (group, mark) => {
      for (const s of this.stores) s.marks.done(group, mark);
    },
  };

  // ---- the checkpoint emitters' side ------------------------------------------------------------

  open(source: CheckpointSource, acceptGroup: (group: string) => boolean, previous?: CheckpointStore): CheckpointStore {
    if (previous) this.remove(previous);
    const marks = new RewindMarks();
    const store = new CheckpointStore({ acceptGroup, onPut: (had, cp) => this.stored(marks, had, cp), names: this.names });
    this.stores.push({ store, source, restored: false, marks });
    this.emit((l) => l.reloaded?.());
    return store;
  }

  restored(store: CheckpointStore): void {
    const open = this.stores.find((s) => s.store === store);
    if (!open) return;
    open.restored = true;
    if (!store.loadedOk) open.marks.clear(); // a failed restore cleared what it had read (the other stores' marks stay)
    this.dirty.clear();
    this.emit((l) => l.reloaded?.());
  }

  selected(store: CheckpointStore): void {
    const open = this.stores.find((s) => s.store === store);
    if (open && open.restored) this.emit((l) => l.reloaded?.());
  }

  cycled(): void {
    if (this.dirty.size === 0) return;
    const groups = [...this.dirty];
    this.dirty.clear();
    this.emit((l) => l.changed?.(groups));
  }

  close(store: CheckpointStore, held: readonly ({ release(): void } | null)[] = []): void {
    for (const h of held) h?.release();
    if (!this.remove(store)) return;
    this.emit((l) => l.reloaded?.());
  }

  // ---- the readers' side --------------------------------------------------------------------------

  /** Whether a checkpoint emitter of this flow keeps its store here (an mm2-checkpoint node runs in this Node-RED). */
  get hasEmitter(): boolean {
    return this.stores.length > 0;
  }

  /** Whether every emitter's store is restored and its groups selected (false when there is none). */
  get restoredAll(): boolean {
    return this.stores.length > 0 && this.stores.every((s) => s.restored && s.source.selected() !== null);
  }

  /** The rewinds on the source seen in the order of the stored checkpoints so far. */
  get rewinds(): RuntimeRewinds {
    return this.allMarks;
  }

  /** Listens until the returned function is called. */
  subscribe(listener: CheckpointsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The groups each emitter selects now that have a checkpoint (an emitter not discovered yet: none of its groups). */
  eachGroup(f: (group: string) => void): void {
    if (this.stores.length === 1) {
      const { store, source, restored } = this.stores[0];
      if (!restored) return;
      const sel = source.selected();
      // an array (the emitter's selection) by index: a for-of not optimized makes an iterator result per group (44 MiB a minute seen)
      if (Array.isArray(sel)) {
        for (let i = 0; i < sel.length; i++) {
          const g = sel[i] as string;
          if (store.hasGroup(g)) f(g);
        }
      } else for (const g of sel ?? []) if (store.hasGroup(g)) f(g);
      return;
    }
    for (const g of this.groups()) f(g);
  }

  *groups(): Iterable<string> {
    if (this.stores.length === 1) {
      // the usual case, one checkpoint node: no set of the names seen
      const { store, source, restored } = this.stores[0];
      if (restored) for (const g of source.selected() ?? []) if (store.hasGroup(g)) yield g;
      return;
    }
    const seen = new Set<string>();
    for (const { store, source, restored } of this.stores) {
      if (!restored) continue;
      for (const g of source.selected() ?? []) {
        if (seen.has(g) || !store.hasGroup(g)) continue;
        seen.add(g);
        yield g;
      }
    }
  }

  get(group: string): readonly Checkpoint[] | undefined {
    for (const { store, restored } of this.stores) {
      if (!restored) continue;
      const list = store.get(group);
      if (list !== undefined) return list;
    }
    return undefined;
  }

  sizeOf(group: string): number {
    for (const { store, restored } of this.stores) if (restored && store.hasGroup(group)) return store.sizeOf(group);
    return 0;
  }

  versionOf(group: string): number | undefined {
    // the store get(group) answers from
    for (const { store, restored } of this.stores) if (restored && store.hasGroup(group)) return store.versionOf(group);
    return undefined;
  }

  hasGroup(group: string): boolean {
    for (const { store, restored } of this.stores) if (restored && store.hasGroup(group)) return true;
    return false;
  }

  // -------------------------------------------------------------------------------------------------

  private *eachMark(): Generator<{ group: string; mark: RewindMark }> {
    for (const s of this.stores) yield* s.marks.rewinds();
  }

  private stored(marks: RewindMarks, had: Checkpoint | undefined, cp: Checkpoint): void {
    marks.noteReplaced(had, cp);
    this.dirty.add(cp.group);
    for (const l of this.listeners) l.put?.(had, cp);
  }

  private remove(store: CheckpointStore): boolean {
    const i = this.stores.findIndex((s) => s.store === store);
    if (i < 0) return false;
    this.stores.splice(i, 1);
    store.release(); // its groups' numbers (names) released: the store is read no more
    return true;
  }

  private emit(f: (l: CheckpointsListener) => void): void {
    for (const l of [...this.listeners]) f(l);
  }
}

/**
 * A group-offset writer registered with its replication's runtime (engines/replication-runtime):
 * in mode "replication" always, in mode "input" while a checkpoint emitter of the same
 * replication keeps its store there (the checkpoint node's messages on the wire are then reports
 * of what the store already holds). The store is read in place, never copied: each checkpoint
 * stored tells the writer of a rewind on the source, a restored store starts a full run, and each
 * checkpoint cycle's changed groups are written at once, here, by the writer itself (the node
 * only hears each run, for its output and status).
 */
export interface RuntimeFollowOptions {
  runtime: ReplicationRuntime;
  syncer: GroupOffsetSyncer;
  /** Whether the writer may run now (false before the first full run's go, or while the node closes). */
  active(): boolean;
  /** Every group now: a store restored, or an emitter came or went (the node runs it, as its timer's runs). */
  fullRun(): void;
  /** A partial run started here for the groups a cycle changed: its result or failure, for the node's output and status. */
  ran(run: Promise<GroupOffsetsCycle>): void;
  /** The writer follows the runtime now (true) or not (false: no checkpoint emitter of the replication runs here). */
  following(on: boolean): void;
}

/** Follows the runtime until the returned function is called. */
export function followRuntime(o: RuntimeFollowOptions): () => void {
  const { runtime, syncer } = o;
  let attached: boolean | null = null;
  const evaluate = (): void => {
    const want = runtime.hasEmitter;
    if (want !== attached) {
      attached = want;
      syncer.follow(want ? runtime : null);
      // a rewind this writer acted on is not followed again by the next writer (a redeploy of its node)
      syncer.onRewindDone = want ? (group, mark) => runtime.rewinds.done(group, mark) : null;
      // the rewinds the store's order showed before this writer started (a node redeployed on its own)
      if (want) syncer.adoptRewinds(runtime.rewinds);
      o.following(want);
    }
    // a store restored (or an emitter came or went): every group again, now
    if (want && runtime.restoredAll) o.fullRun();
  };
  const unsubscribe = runtime.subscribe({
    put: (previous, next) => {
      if (attached) syncer.noteCheckpoint(previous, next);
    },
    reloaded: evaluate,
    // the groups a cycle just changed: written now (the emitter has batched them already)
    changed: (groups) => {
      if (attached && groups.length > 0 && o.active()) o.ran(syncer.syncGroups(groups));
    },
  });
  evaluate();
  return () => {
    unsubscribe();
    syncer.onRewindDone = null;
  };
}
