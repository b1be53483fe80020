/**
 * `mm2-heartbeat` flow node: MM2's MirrorHeartbeatConnector/Task (write `Heartbeat(source,
 * target, now)` every `emit.heartbeats.interval.seconds` to partition 0 of `heartbeats`) plus
 * what MM2 leaves to the operator: it tails the replicated heartbeats on the target, reports the
 * end-to-end latency of each one and raises a stale/ok alarm.
 *
 * Emission goes to the SOURCE cluster's `heartbeats`, so that the mirror of the flow replicates
 * it to `<source>.heartbeats` on the target, where the watcher reads it back.
 *
 * The logic lives in kafka/heartbeats.ts and core/heartbeat-monitor.ts; this file maps settings,
 * status, messages and close handling.
 */
import type { NodeAPI, Node, NodeDef, NodeMessage } from './lib/red';
import { makeTranslate } from './lib/i18n';
import { setupFlowNode } from './lib/flow-node';
import { onInput, refuseInput, refuseSettings } from './lib/input';
import { heartbeatAlarmMessage } from './lib/contracts';
import { nodeEnvLookup } from './lib/settings';
import { readHeartbeatSettings, type HeartbeatDefFields } from './lib/settings/heartbeat';
import { heartbeatStatus, type HeartbeatNodeView } from './lib/heartbeat/status';
import { heartbeatWatchEvents, type WatchState } from './lib/heartbeat/watch-events';
import { HeartbeatEmitter } from '../kafka/heartbeat-emitter';
import { HeartbeatWatcher } from '../kafka/heartbeat-watcher';

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
    const read = readHeartbeatSettings(def, nodeEnvLookup(RED, node), t);
    const source = rep.sourceNode?.connection ?? null;
    const target = rep.targetNode?.connection ?? null;
    if (!read.values || !rep.policy || !source || !target) {
      const text = read.problems.length > 0 ? read.problems.join('; ') : t('mm2-common.errors.bad-replication', { problems: 'no connection' });
      const logText = t('mm2-heartbeat.errors.invalid', { problems: text });
      return refuseSettings(node, status, text, { statusText: t('mm2-heartbeat.status.invalid', { problems: text }), logText, refuseInput: text });
    }
    const settings = read.values;

    const heartbeatsTopic = rep.policy.heartbeatsTopic();
    const watchTopic = rep.policy.formatRemoteTopic(rep.sourceAlias, heartbeatsTopic);
    const intervalMs = settings.intervalSeconds * 1000;
    const staleAfterMs = Math.round(settings.staleAfterSeconds * 1000);

    if (settings.emitEnabled && settings.watch && staleAfterMs <= intervalMs) {
      node.warn(t('mm2-heartbeat.warn.stale-short', { stale: settings.staleAfterSeconds, interval: settings.intervalSeconds }));
    }

    // ---- status -------------------------------------------------------------------------
    let emitError: string | null = null;
    const watch: WatchState = { phase: 'starting', error: null, loadPercent: 0, lastAlarm: null };

    let emitter: HeartbeatEmitter | null = null;
    let watcher: HeartbeatWatcher | null = null;

    // A send that neither succeeds nor fails (a source that stopped answering) is not green either.
    const startedAt = Date.now();
    const emitStallMs = Math.max(2 * intervalMs, 5000);
    const emitStalledFor = (now: number): number | null => {
      if (!emitter) return null;
      const age = now - (emitter.lastEmitted ?? startedAt);
      return age > emitStallMs ? age : null;
    };

    const render = (): void => {
      if (ctx.closing) return;
      const now = Date.now();
      const view: HeartbeatNodeView = { emitError, emitStalledMs: emitStalledFor(now) };
      if (emitter) view.emit = { emitted: emitter.emitted, lastEmitted: emitter.lastEmitted };
      if (watcher) view.watch = { phase: watch.phase, error: watch.error, loadPercent: watch.loadPercent, snapshot: watcher.monitor.snapshot(now), malformed: watcher.malformed, topic: watchTopic };
      status.activity(heartbeatStatus(t, view, now));
    };

    // ---- emission -----------------------------------------------------------------------
    const emitFailed = (e: unknown): Error => {
      const err = e instanceof Error ? e : new Error(String(e));
      emitError = err.message;
      ctx.log.warn('emit', t('mm2-heartbeat.warn.emit-failed', { topic: heartbeatsTopic, alias: source.alias, error: err.message }));
      render();
      return err;
    };
    const emitted = (): void => {
      if (emitError) {
        emitError = null;
        ctx.log.ok('emit');
        node.log(t('mm2-heartbeat.log.emit-recovered', { topic: heartbeatsTopic, alias: source.alias }));
      }
      render();
    };

    if (settings.emitEnabled) {
      ctx.use(source);
      const em = new HeartbeatEmitter({
        connection: source,
        topic: heartbeatsTopic,
        sourceAlias: rep.sourceAlias,
        targetAlias: rep.targetAlias,
        ensureTopic: () => rep.ensureTopic(source, heartbeatsTopic),
      });
      emitter = em;
      const tick = (): void => {
        if (em.busy || ctx.closing) return;
        em.emit().then(
          () => {
            if (!ctx.closing) emitted();
          },
          (e: unknown) => {
            if (!ctx.closing) emitFailed(e);
          },
        );
      };
      ctx.every(intervalMs, tick);
      ctx.after(0, tick);
    }

    // ---- watching -----------------------------------------------------------------------
    if (settings.watch) {
      ctx.use(target);
      const w = new HeartbeatWatcher({
        connection: target,
        topic: watchTopic,
        staleAfterMs,
        retryMs: Math.min(5000, Math.max(1000, Math.floor(staleAfterMs / 2))),
        ...heartbeatWatchEvents({ node, ctx, t, state: watch, topic: watchTopic, alias: target.alias, render }),
      });
      watcher = w;
      ctx.onClose(() => w.stop());
      w.start();

      // The alarm is sent on edges only: a receiver deployed after the last edge ("modified nodes"
      // deploy of the receiver alone) would never learn the current state. Every later deploy gets
      // the current state again, marked `resent` (a deploy that restarts this node starts afresh;
      // before the first edge there is nothing to repeat).
      const onFlowsStarted = (): void => {
        if (ctx.closing || !watch.lastAlarm) return;
        const now = Date.now();
        const snap = w.monitor.snapshot(now);
        const state = snap.health === 'stale' ? 'stale' : 'ok';
        const msg = heartbeatAlarmMessage({ state, lastSeen: snap.lastSeen, ageMs: snap.ageMs, staleAfterMs: snap.staleAfterMs, resent: true });
        node.send([null, msg as unknown as NodeMessage]);
      };
      RED.events.on('flows:started', onFlowsStarted);
      ctx.onClose(() => RED.events.removeListener('flows:started', onFlowsStarted));
      ctx.every(Math.min(1000, Math.max(100, Math.floor(staleAfterMs / 4))), () => {
        w.tick();
        render();
      });
    } else if (emitter) {
      ctx.every(1000, render);
    }
    render();

    // ---- input: one heartbeat now -------------------------------------------------------
    onInput(node, (_msg, _send, done) => {
      const em = emitter;
      if (!em) return done(new Error(t('mm2-heartbeat.errors.emit-off')));
      em.emit().then(
        () => {
          if (!ctx.closing) emitted();
          done();
        },
        (e: unknown) => done(ctx.closing ? (e as Error) : emitFailed(e)),
      );
    });
  }

  RED.nodes.registerType('mm2-heartbeat', MM2HeartbeatNode as unknown as (this: Node, def: NodeDef) => void);
};
