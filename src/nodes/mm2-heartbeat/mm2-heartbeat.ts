/**
 * `mm2-heartbeat` flow node: MM2's MirrorHeartbeatConnector/Task (write `Heartbeat(source,
 * target, now)` every `emit.heartbeats.interval.seconds` to partition 0 of `heartbeats`) plus
 * what MM2 leaves to the operator: it tails the replicated heartbeats on the target, reports the
 * end-to-end latency of each one and raises a stale/ok alarm.
 *
 * Emission goes to the SOURCE cluster's `heartbeats`, so that the mirror of the flow replicates
 * it to `<source>.heartbeats` on the target, where the watcher reads it back.
 *
 * `msg.action === 'switchover'` (a planned switchover, nodes/shared/switchover-request) adds the heartbeats' age
 * to the message and passes it on output 2.
 *
 * The logic lives in kafka/heartbeats.ts and core/heartbeat-monitor.ts; this file maps settings,
 * status, messages and close handling.
 */
import type { NodeAPI, Node, NodeDef } from '../shared/red';
import { makeTranslate } from '../shared/i18n';
import { setupFlowNode } from '../shared/flow-node';
import { onInput, refuseInput, refuseSettings } from '../shared/input';
import { nodeEnvLookup } from '../shared/settings';
import { readHeartbeatSettings, type HeartbeatDefFields } from './mm2-heartbeat-settings';
import { heartbeatStatus, type HeartbeatNodeView } from './mm2-heartbeat-status';
import type { WatchState } from './mm2-heartbeat-watch-events';
import { HeartbeatEmission } from './mm2-heartbeat-emission';
import { startWatching } from './mm2-heartbeat-watching';
import type { HeartbeatWatcher } from '../../engines/heartbeat-watcher';
import type { SwitchoverHeartbeat } from '../../core/switchover';
import { isSwitchoverRequest, switchoverOf } from '../shared/switchover-request';

interface HeartbeatDef extends NodeDef, HeartbeatDefFields {
  replication?: string;
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, 'mm2-heartbeat');

  function MM2HeartbeatNode(this: Node, def: HeartbeatDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const ctx = setupFlowNode(RED, node, def.replication, t);
    if (!ctx) return refuseInput(node, t('mm2-common.errors.no-replication'));
    const { rep, status } = ctx;

    // ---- settings ----
    const read = readHeartbeatSettings(def, nodeEnvLookup(RED, node), t);
    const source = rep.sourceNode?.connection ?? null;
    const target = rep.targetNode?.connection ?? null;
    if (!read.values || !rep.policy || !source || !target) {
      const text = read.problems.length > 0 ? read.problems.join('; ') : t('mm2-common.errors.bad-replication', { problems: 'no connection' });
      const logText = t('mm2-heartbeat.errors.invalid', { problems: text });
      return refuseSettings(node, status, text, { statusText: t('mm2-heartbeat.status.invalid', { problems: text }), logText, refuseInput: text });
    }
    const settings = read.values;
    const topic = rep.policy.heartbeatsTopic();
    const watchTopic = rep.policy.formatRemoteTopic(rep.sourceAlias, topic);
    const intervalMs = settings.intervalSeconds * 1000;
    const staleAfterMs = Math.round(settings.staleAfterSeconds * 1000);
    if (settings.emitEnabled && settings.watch && staleAfterMs <= intervalMs) {
      node.warn(t('mm2-heartbeat.warn.stale-short', { stale: settings.staleAfterSeconds, interval: settings.intervalSeconds }));
    }

    // ---- wiring: emission (nodes/mm2-heartbeat/mm2-heartbeat-emission), watching (nodes/mm2-heartbeat/mm2-heartbeat-watching), status ----
    const watch: WatchState = { phase: 'starting', error: null, loadPercent: 0, lastAlarm: null };
    let watcher: HeartbeatWatcher | null = null;
    const render = (): void => {
      if (ctx.closing) return;
      const now = Date.now();
      const view: HeartbeatNodeView = { intervalMs, emitError: emission?.error ?? null, emitStalledMs: emission?.stalledFor(now) ?? null };
      if (emission) view.emit = { emitted: emission.emitter.emitted, lastEmitted: emission.emitter.lastEmitted };
      if (watcher) view.watch = { ...watch, snapshot: watcher.monitor.snapshot(now), malformed: watcher.malformed, topic: watchTopic };
      status.activity(heartbeatStatus(t, view, now));
    };
    const emission = settings.emitEnabled ? new HeartbeatEmission({ node, ctx, t, source, topic, intervalMs, render }) : null;
    if (settings.watch) watcher = startWatching({ events: RED.events, node, ctx, t, target, topic: watchTopic, staleAfterMs, state: watch, render });
    else if (emission) ctx.every(1000, render);
    render();

    // ---- input: a planned switchover's step (nodes/shared/switchover-request): the heartbeats' age, on output 2 ----
    onInput(node, (msg, send, done) => {
      if (isSwitchoverRequest(msg)) {
        const snap = watcher?.monitor.snapshot(Date.now());
        const heartbeat: SwitchoverHeartbeat = { watched: snap !== undefined, lastSeen: snap?.lastSeen ?? null, ageMs: snap?.ageMs ?? null, staleAfterMs, topic: watchTopic };
        switchoverOf(msg).heartbeat = heartbeat;
        send([null, msg]);
        return done();
      }
      // any other message: one heartbeat now
      if (!emission) return done(new Error(t('mm2-heartbeat.errors.emit-off')));
      emission.emitNow().then(() => done(), (e: unknown) => done(e as Error));
    });
  }

  RED.nodes.registerType('mm2-heartbeat', MM2HeartbeatNode as unknown as (this: Node, def: NodeDef) => void);
};
