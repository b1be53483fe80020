/**
 * A group-offset writer registered with its replication's runtime (engines/replication-runtime):
 * in mode "replication" always, in mode "input" while a checkpoint emitter of the same
 * replication keeps its store there (the checkpoint node's messages on the wire are then reports
 * of what the store already holds). The store is read in place, never copied: each checkpoint
 * stored tells the writer of a rewind on the source, a restored store starts a full run, and each
 * checkpoint cycle's changed groups are written at once, here, by the writer itself (the node
 * only hears each run, for its output and status).
 *
 * No Node-RED, no Kafka I/O.
 */
import type { ReplicationRuntime } from './replication-runtime';
import type { GroupOffsetSyncer, GroupOffsetsCycle } from './group-offset-syncer';

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
