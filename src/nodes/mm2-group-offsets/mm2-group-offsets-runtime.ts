/**
 * How an `mm2-group-offsets` node reads the checkpoints of its replication's runtime
 * (engines/replication-runtime): in mode "replication" always, in mode "input" while an
 * `mm2-checkpoint` node of the same replication runs in this Node-RED (its messages on the wire
 * are then reports of what the store already holds). The store is read in place, never copied:
 * each checkpoint stored tells the writer of a rewind on the source, a restored store starts a
 * full run, and each checkpoint cycle's changed groups are written at once.
 */
import type { ReplicationRuntime } from '../../engines/replication-runtime';
import type { GroupOffsetSyncer } from '../../engines/group-offset-syncer';
import type { GroupOffsetsCycles } from './mm2-group-offsets-cycles';

export interface RuntimeFollowOptions {
  runtime: ReplicationRuntime;
  syncer: GroupOffsetSyncer;
  cycles: Pick<GroupOffsetsCycles, 'ready' | 'run' | 'groupsChanged'>;
  /** The node follows the runtime now (true) or not (false: no checkpoint node of the replication runs here). */
  following(on: boolean): void;
}

/** Follows the runtime until the returned function is called. */
export function followRuntime(o: RuntimeFollowOptions): () => void {
  const { runtime, syncer, cycles } = o;
  let attached: boolean | null = null;
  const evaluate = (): void => {
    const want = runtime.hasEmitter;
    if (want !== attached) {
      attached = want;
      syncer.follow(want ? runtime : null);
      // a rewind this writer acted on is not followed again by the next writer (a redeploy of this node)
      syncer.onRewindDone = want ? (group, mark) => runtime.rewinds.done(group, mark) : null;
      // the rewinds the store's order showed before this node started (a node redeployed on its own)
      if (want) syncer.adoptRewinds(runtime.rewinds);
      o.following(want);
    }
    if (want && runtime.restoredAll) {
      // a store restored (or an emitter came or went): every group again, now
      cycles.ready = true;
      cycles.run(null, null, null);
    }
  };
  const unsubscribe = runtime.subscribe({
    put: (previous, next) => {
      if (attached) syncer.noteCheckpoint(previous, next);
    },
    reloaded: evaluate,
    changed: (groups) => {
      if (attached) cycles.groupsChanged(groups);
    },
  });
  evaluate();
  return () => {
    unsubscribe();
    syncer.onRewindDone = null;
  };
}
