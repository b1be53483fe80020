/**
 * `mm2-heartbeat` watching: tails the replicated heartbeats on the target (events in
 * ./watch-events), ticks the stale alarm, and repeats the current alarm state to receivers
 * deployed after its last edge.
 */
import type { NodeAPI, Node, NodeMessage } from '../shared/red';
import type { Translate } from '../shared/i18n';
import type { FlowNodeContext } from '../shared/flow-node';
import { heartbeatAlarmMessage } from '../shared/contracts';
import { heartbeatWatchEvents, type WatchState } from './mm2-heartbeat-watch-events';
import type { ClusterConnection } from '../../kafka/connection';
import { HeartbeatWatcher } from '../../engines/heartbeat-watcher';

export interface HeartbeatWatchingOptions {
  events: NodeAPI['events'];
  node: Pick<Node, 'send' | 'warn' | 'log'>;
  ctx: FlowNodeContext;
  t: Translate;
  target: ClusterConnection;
  topic: string;
  staleAfterMs: number;
  state: WatchState;
  render(): void;
}

/** Starts the watcher; it stops on close. */
export function startWatching(o: HeartbeatWatchingOptions): HeartbeatWatcher {
  const { ctx, node, target, topic, staleAfterMs, state } = o;
  ctx.use(target);
  const w = new HeartbeatWatcher({
    connection: target,
    topic,
    staleAfterMs,
    retryMs: Math.min(5000, Math.max(1000, Math.floor(staleAfterMs / 2))),
    ...heartbeatWatchEvents({ node, ctx, t: o.t, state, topic, alias: target.alias, render: o.render }),
  });
  ctx.onClose(() => w.stop());
  w.start();

  // The alarm is sent on edges only: a receiver deployed after the last edge ("modified nodes"
  // deploy of the receiver alone) would never learn the current state. Every later deploy gets
  // the current state again, marked `resent` (a deploy that restarts this node starts afresh;
  // before the first edge there is nothing to repeat).
  const onFlowsStarted = (): void => {
    if (ctx.closing || !state.lastAlarm) return;
    const snap = w.monitor.snapshot(Date.now());
    const alarm = snap.health === 'stale' ? 'stale' : 'ok';
    const msg = heartbeatAlarmMessage({ state: alarm, lastSeen: snap.lastSeen, ageMs: snap.ageMs, staleAfterMs: snap.staleAfterMs, resent: true });
    node.send([null, msg as unknown as NodeMessage]);
  };
  o.events.on('flows:started', onFlowsStarted);
  ctx.onClose(() => o.events.removeListener('flows:started', onFlowsStarted));
  ctx.every(Math.min(1000, Math.max(100, Math.floor(staleAfterMs / 4))), () => {
    w.tick();
    o.render();
  });
  return w;
}
