/**
 * `mm2-checkpoint` flow node: MirrorMaker 2's checkpoint connector + task (MirrorCheckpointConnector, MirrorCheckpointTask) as one
 * node. A thin shell around kafka/checkpoint-emitter: settings, status, messages, timers.
 *
 * Input: OffsetSyncsMessage (from mm2-offset-syncs) feeds the offset-sync store; any other
 * message asks for a cycle now (`msg.refreshGroups === true` re-lists the groups first).
 * Output 1: CheckpointsMessage every completed cycle: the whole latest checkpoint state (what a
 * group-offset writer needs after a restart, a redeploy or a lost message), plus what the cycle
 * wrote. Output 2: CoverageMessage every cycle.
 */
import type { NodeAPI, Node, NodeDef, NodeMessage, SendFn } from './lib/red';
import { makeTranslate } from './lib/i18n';
import { setupFlowNode } from './lib/flow-node';
import { onInput, refuseSettings } from './lib/input';
import { NODE_SETTINGS, nodeEnvLookup, parseConfigForNode, type ReplicationFields } from './lib/settings';
import { readCheckpointSettings } from './lib/settings/checkpoint';
import { checkpointStatus, type CheckpointNodeState } from './lib/checkpoint/status';
import { checkpointEmitterEvents } from './lib/checkpoint/events';
import { TOPICS, checkpointsPayload, coveragePayload, readOffsetSyncsMessage, type ReceivedSyncs } from './lib/contracts';
import { SyncStreamReceiver } from '../core/sync-stream';
import { SYNC_REPLAY_EVENT, type SyncReplayRequest } from './lib/sync-replay';
import { CheckpointEmitter, type CycleResult } from '../kafka/checkpoint-emitter';

const TYPE = 'mm2-checkpoint';
const WARN_EVERY_MS = 60000;
const MAX_PASTE_CHARS = 1024 * 1024;

interface CheckpointDef extends NodeDef {
  replication?: string;
  groups?: string;
  groupsExclude?: string;
  topics?: string;
  topicsExclude?: string;
  emitCheckpointsIntervalSeconds?: string | number;
  refreshGroupsIntervalSeconds?: string | number;
}

function pickCurrent(v: unknown): ReplicationFields | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const c = v as Record<string, unknown>;
  const out: ReplicationFields = {};
  for (const k of ['sourceAlias', 'targetAlias', 'policy', 'separator', 'offsetSyncsLocation'] as const) {
    if (typeof c[k] === 'string') out[k] = c[k] as string;
  }
  if (typeof c.internalSeparator === 'boolean') out.internalSeparator = c.internalSeparator;
  const rf = Number(c.replicationFactor);
  if (c.replicationFactor !== undefined && c.replicationFactor !== '' && Number.isInteger(rf)) out.replicationFactor = rf;
  return out;
}

/** The node as the runtime holds it: its emitter is readable (by tests, and to inspect a running flow). */
interface CheckpointNode extends Node {
  /** Set once the settings are valid and the node runs; absent on a node that refused its settings. */
  emitter?: CheckpointEmitter;
}

interface HttpReq {
  body?: { text?: unknown; type?: unknown; current?: unknown; flow?: unknown };
}
interface HttpRes {
  status(code: number): HttpRes;
  json(body: unknown): void;
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, TYPE);

  // The editor's "Paste MM2 config" button (see nodes/mm2-checkpoint.html).
  RED.httpAdmin.post('/mm2/config/parse', RED.auth.needsPermission(`${TYPE}.write`), (req: HttpReq, res: HttpRes) => {
    try {
      const body = req.body ?? {};
      if (typeof body.text !== 'string') {
        res.status(400).json({ error: t('mm2-checkpoint.paste.no-text') });
        return;
      }
      if (body.text.length > MAX_PASTE_CHARS) {
        res.status(413).json({ error: t('mm2-checkpoint.paste.too-long') });
        return;
      }
      const type = typeof body.type === 'string' && NODE_SETTINGS[body.type] ? body.type : TYPE;
      const flow = typeof body.flow === 'string' && body.flow !== '' ? body.flow : undefined;
      res.json(parseConfigForNode(body.text, type, pickCurrent(body.current), { flow, lookup: nodeEnvLookup(RED, undefined) }));
    } catch (e) {
      res.status(500).json({ error: (e as Error).message });
    }
  });

  function MM2CheckpointNode(this: CheckpointNode, def: CheckpointDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const ctx = setupFlowNode(RED, node, def.replication, t);
    if (!ctx) return;
    const { rep, status, log } = ctx;

    // Settings: MM2 property names, MM2 defaults for empty fields, ${VAR} substituted.
    const read = readCheckpointSettings(def, nodeEnvLookup(RED, node));
    const source = rep.sourceNode?.connection ?? null;
    const target = rep.targetNode?.connection ?? null;
    if (!read.values || !source || !target || !rep.policy) {
      const text = read.problems.join('; ') || t('mm2-common.errors.bad-replication', { problems: '' });
      const logText = t('mm2-checkpoint.errors.config', { problems: text });
      return refuseSettings(node, status, text, { statusText: t('mm2-checkpoint.status.error', { error: text }), logText, refuseInput: true });
    }
    ctx.use(source);
    ctx.use(target);
    const { emitMs, refreshMs, groupFilter, topicFilter } = read.values;
    const checkpointsTopic = rep.checkpointsTopic();
    /** No completed cycle for this long: the status stops being green. */
    const staleMs = 2 * emitMs + 30000;
    const expectedSyncsTopic = rep.offsetSyncs().topic;

    // ---- status (lib/checkpoint/status) --------------------------------------------------
    const state: CheckpointNodeState = { phase: { kind: 'preparing' }, last: null, lastAt: 0, error: null, groups: null };
    const render = (): void => status.show(checkpointStatus(t, state, emitter.syncsLoaded, staleMs));

    const emitter = new CheckpointEmitter({
      source,
      target,
      sourceAlias: rep.sourceAlias,
      targetAlias: rep.targetAlias,
      policy: rep.policy,
      checkpointsTopic,
      groupFilter,
      topicFilter,
      ensureTopic: (c, topic) => rep.ensureTopic(c, topic),
      // an unreachable target is tried again at least every interval
      retryMaxMs: emitMs,
      events: checkpointEmitterEvents({ node, t, log, state, checkpointsTopic, render: () => render() }),
    });
    node.emitter = emitter;

    // ---- cycles ---------------------------------------------------------------------------
    const sent = new WeakSet<CycleResult>();

    function outputs(r: CycleResult, msg?: NodeMessage): [NodeMessage | null, NodeMessage] {
      const base = msg ? { ...msg } : {};
      // Every completed cycle, also when it wrote nothing: the receiver reconciles the target
      // against the whole state, so a restart, a redeploy or a lost message repairs itself.
      const where = { sourceCluster: rep.sourceAlias, targetCluster: rep.targetAlias, checkpointsTopic };
      return [
        { ...base, topic: TOPICS.checkpoints, payload: checkpointsPayload(r, where) },
        { ...base, topic: TOPICS.coverage, payload: coveragePayload(r) },
      ];
    }

    async function cycleNow(refreshGroups: boolean, requester?: { msg: NodeMessage; send: SendFn }): Promise<void> {
      let r: CycleResult;
      try {
        r = await emitter.cycle({ refreshGroups });
      } catch (e) {
        const error = (e as Error)?.message ?? String(e);
        state.error = error;
        render();
        const text = t('mm2-checkpoint.errors.cycle', { error });
        if (!requester) log.error('cycle', text);
        throw new Error(text);
      }
      if (r.skipped) {
        if (requester) log.warn('skipped', t('mm2-checkpoint.warn.skipped-loading'));
        render();
        return;
      }
      state.error = null;
      log.ok('cycle');
      state.last = r;
      state.lastAt = Date.now();
      state.groups = r.groups.length;
      if (r.discoveryError) log.warn('discovery', t('mm2-checkpoint.warn.discovery', { error: r.discoveryError }));
      else log.ok('discovery');
      if (r.failedGroups.length > 0) {
        log.warn('failed-groups', t('mm2-checkpoint.warn.group-offsets', { groups: r.failedGroups.map((f) => `${f.group} (${f.error})`).join(', ') }));
      } else log.ok('failed-groups');
      render();
      if (sent.has(r)) return;
      sent.add(r);
      const out = outputs(r, requester?.msg);
      if (requester) requester.send(out);
      else node.send(out);
    }

    // The offset-sync history arrives as messages: one missed (this node redeployed on its own, a
    // message lost) would leave it without history for good. The stream positions tell; the
    // mm2-offset-syncs node then sends the whole history again (core/sync-stream).
    const syncStream = new SyncStreamReceiver();
    const syncsCluster = rep.offsetSyncs().alias;
    function requestSyncs(): void {
      if (!expectedSyncsTopic || closed) return;
      const req: SyncReplayRequest = { topic: expectedSyncsTopic, cluster: syncsCluster, requester: `${TYPE} ${node.name || node.id}` };
      RED.events.emit(SYNC_REPLAY_EVENT, req);
    }
    let closed = false;
    ctx.onClose(() => {
      closed = true;
    });
    ctx.after(0, requestSyncs); // a node started on its own missed the history: ask for it

    let malformedSyncs = 0;
    /** Feeds an OffsetSyncsMessage to the emitter; an error for the sender when it is not ours. */
    function receiveSyncs(syncs: ReceivedSyncs): Error | undefined {
      if (syncs.sourceTopic !== undefined && expectedSyncsTopic && syncs.sourceTopic !== expectedSyncsTopic) {
        return new Error(t('mm2-checkpoint.errors.wrong-syncs-topic', { got: syncs.sourceTopic, expected: expectedSyncsTopic }));
      }
      const decision = syncStream.accept(syncs.stream);
      if (decision.action === 'ignore') {
        if (decision.requestReplay) {
          if (decision.reason === 'gap') log.warn('syncs-gap', t('mm2-checkpoint.warn.syncs-gap', { topic: expectedSyncsTopic ?? '' }));
          requestSyncs();
        }
        return undefined;
      }
      // the first message of a new load (a start, a reset, a replay): it brings the whole history
      if (decision.action === 'reset-then-apply') emitter.handleSyncEvent({ event: 'reset' });
      if (syncs.malformed > 0) {
        malformedSyncs += syncs.malformed;
        log.limited('malformed-syncs', t('mm2-checkpoint.warn.malformed-syncs', { count: malformedSyncs }), WARN_EVERY_MS);
      }
      const wasLoaded = emitter.syncsLoaded;
      emitter.handleSyncEvent(syncs.event);
      if (emitter.syncsLoaded !== wasLoaded) render();
      return undefined;
    }

    // an OffsetSyncsMessage feeds the store; any other message asks for a cycle now
    onInput(node, (msg, send, done) => {
      const syncs = readOffsetSyncsMessage(msg);
      if (syncs) return done(receiveSyncs(syncs));
      return cycleNow(msg.refreshGroups === true, { msg, send }).then(() => done());
    });

    // Both intervals are within the bounds of core/intervals (catalogue checks of resolveNodeSettings).
    ctx.every(emitMs, () => {
      cycleNow(false).catch(() => undefined);
    });
    ctx.every(refreshMs, () => {
      emitter.refreshGroups().catch(() => undefined);
    });
    // "12 groups, 3 checkpoints / 5 s ago" stays true
    ctx.every(5000, () => {
      if (state.last) render();
    });
    ctx.onClose(() => emitter.stop());

    render();
    emitter.start().catch(() => undefined);
  }

  RED.nodes.registerType(TYPE, MM2CheckpointNode as unknown as (this: Node, def: NodeDef) => void);
};
