/**
 * `mm2-checkpoint` flow node: MirrorMaker 2's checkpoint connector + task (spec §7, §8) as one
 * node. A thin shell around kafka/checkpoint-emitter: settings, status, messages, timers.
 *
 * Input: OffsetSyncsMessage (from mm2-offset-syncs) feeds the offset-sync store; any other
 * message asks for a cycle now (`msg.refreshGroups === true` re-lists the groups first).
 * Output 1: CheckpointsMessage every completed cycle: the whole latest checkpoint state (what a
 * group-offset writer needs after a restart, a redeploy or a lost message), plus what the cycle
 * wrote. Output 2: CoverageMessage every cycle.
 */
import type { NodeAPI, Node, NodeDef, NodeMessage, SendFn } from './lib/red';
import { makeTranslate, type Translate } from './lib/i18n';
import { setupFlowNode, truncate } from './lib/flow-node';
import {
  NODE_SETTINGS,
  nodeEnvLookup,
  parseConfigForNode,
  problemText,
  resolveNodeSettings,
  type ReplicationFields,
} from './lib/settings';
import {
  TOPICS,
  type CheckpointJson,
  type CheckpointsMessage,
  type CoverageJson,
  type CoverageMessage,
} from './lib/contracts';
import { createGroupFilter, createTopicFilter } from '../core/filters';
import type { Checkpoint, OffsetSync } from '../core/types';
import { parseOffset as toOffset } from '../core/checkpoint-json';
import { SYNC_REPLAY_EVENT, SyncStreamReceiver, readSyncStreamPosition, type SyncReplayRequest, type SyncStreamPosition } from '../core/sync-stream';
import {
  CheckpointEmitter,
  type CycleResult,
  type EmitterPhase,
  type SyncEvent,
} from '../kafka/checkpoint-emitter';

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

/** The result of reading one incoming message as an OffsetSyncsMessage. */
interface ParsedSyncs {
  event: SyncEvent;
  /** Sync entries that could not be read (skipped). */
  malformed: number;
  /** The offset-syncs topic the sender read, when it says. */
  sourceTopic?: string;
  /** The message's place in the sender's stream (core/sync-stream), when it says. */
  stream?: SyncStreamPosition;
}

/** Reads `msg` as an OffsetSyncsMessage; null when it is something else (a cycle request). */
function parseSyncsMessage(msg: NodeMessage): ParsedSyncs | null {
  const p = msg.payload as { event?: unknown; syncs?: unknown; source?: { topic?: unknown }; stream?: unknown } | undefined;
  if (!p || typeof p !== 'object') return null;
  if (p.event !== 'syncs' && p.event !== 'loaded' && p.event !== 'reset') return null;
  if (msg.topic !== TOPICS.offsetSyncs && p.source === undefined && !Array.isArray(p.syncs)) return null;
  const sourceTopic = typeof p.source?.topic === 'string' ? p.source.topic : undefined;
  const stream = readSyncStreamPosition(p.stream);
  if (p.event !== 'syncs') return { event: { event: p.event }, malformed: 0, sourceTopic, stream };
  const syncs: OffsetSync[] = [];
  let malformed = 0;
  for (const s of Array.isArray(p.syncs) ? p.syncs : []) {
    const e = s as { topic?: unknown; partition?: unknown; upstreamOffset?: unknown; downstreamOffset?: unknown } | null;
    const up = toOffset(e?.upstreamOffset);
    const down = toOffset(e?.downstreamOffset);
    if (!e || typeof e.topic !== 'string' || e.topic === '' || !Number.isInteger(e.partition) || (e.partition as number) < 0 || up === null || down === null) {
      malformed++;
      continue;
    }
    syncs.push({ topic: e.topic, partition: e.partition as number, upstreamOffset: up, downstreamOffset: down });
  }
  return { event: { event: 'syncs', syncs }, malformed, sourceTopic, stream };
}

function cpJson(c: Checkpoint): CheckpointJson {
  return {
    group: c.group,
    topic: c.topic,
    partition: c.partition,
    upstreamOffset: c.upstreamOffset.toString(),
    downstreamOffset: c.downstreamOffset.toString(),
    metadata: c.metadata,
  };
}

function coverageJson(r: CycleResult): CoverageJson[] {
  return r.coverage.map((c) => {
    const e: CoverageJson = {
      group: c.group,
      topic: c.topic,
      partition: c.partition,
      remoteTopic: c.remoteTopic,
      upstreamOffset: c.upstreamOffset === null ? null : c.upstreamOffset.toString(),
      status: c.status,
      reason: c.reason,
    };
    if (c.downstreamOffset !== undefined) e.downstreamOffset = c.downstreamOffset.toString();
    return e;
  });
}

function ago(t: Translate, ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return t('mm2-checkpoint.ago.seconds', { n: s });
  if (s < 3600) return t('mm2-checkpoint.ago.minutes', { n: Math.floor(s / 60) });
  return t('mm2-checkpoint.ago.hours', { n: Math.floor(s / 3600) });
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
    const resolved = resolveNodeSettings(def, NODE_SETTINGS[TYPE], nodeEnvLookup(RED, node));
    let filters: { group: ReturnType<typeof createGroupFilter>; topic: ReturnType<typeof createTopicFilter> } | null = null;
    if (resolved.problems.length === 0) {
      try {
        filters = {
          group: createGroupFilter({ groups: resolved.values['groups'] as string, 'groups.exclude': resolved.values['groups.exclude'] as string }),
          topic: createTopicFilter({ topics: resolved.values['topics'] as string, 'topics.exclude': resolved.values['topics.exclude'] as string }),
        };
      } catch (e) {
        resolved.problems.push({ property: '', reason: (e as Error).message });
      }
    }
    const source = rep.sourceNode?.connection ?? null;
    const target = rep.targetNode?.connection ?? null;
    if (resolved.problems.length > 0 || !filters || !source || !target || !rep.policy) {
      const text = resolved.problems.map(problemText).join('; ') || t('mm2-common.errors.bad-replication', { problems: '' });
      status.fail(t('mm2-checkpoint.status.error', { error: text }));
      node.error(t('mm2-checkpoint.errors.config', { problems: text }));
      node.on('input', (_msg, _send, done) => done(new Error(t('mm2-checkpoint.errors.config', { problems: text }))));
      return;
    }
    ctx.use(source);
    ctx.use(target);

    const emitMs = Number(resolved.values['emit.checkpoints.interval.seconds']) * 1000;
    const refreshMs = Number(resolved.values['refresh.groups.interval.seconds']) * 1000;
    const checkpointsTopic = rep.checkpointsTopic();
    /** No completed cycle for this long: the status stops being green. */
    const staleMs = 2 * emitMs + 30000;
    const expectedSyncsTopic = rep.offsetSyncs().topic;

    // ---- status -------------------------------------------------------------------------
    const state: {
      phase: EmitterPhase;
      last: CycleResult | null;
      lastAt: number;
      error: string | null;
      groups: number | null;
    } = { phase: { kind: 'preparing' }, last: null, lastAt: 0, error: null, groups: null };

    function render(): void {
      const p = state.phase;
      if (p.kind === 'retrying') {
        status.fail(t('mm2-checkpoint.status.error', { error: p.error }));
        return;
      }
      if (p.kind === 'preparing' || p.kind === 'restoring') {
        const text = p.kind === 'restoring' && p.percent > 0 && p.percent < 100
          ? t('mm2-checkpoint.status.loading-percent', { percent: p.percent })
          : t('mm2-checkpoint.status.loading');
        status.activity({ fill: 'yellow', shape: 'ring', text });
        return;
      }
      if (state.error) {
        status.fail(t('mm2-checkpoint.status.error', { error: state.error }));
        return;
      }
      if (!emitter.syncsLoaded) {
        status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-checkpoint.status.waiting-syncs') });
        return;
      }
      const last = state.last;
      if (!last) {
        // nothing delivered yet: not green
        status.activity({ fill: 'grey', shape: 'ring', text: t('mm2-checkpoint.status.ready', { groups: state.groups ?? 0 }) });
        return;
      }
      const when = ago(t, Date.now() - state.lastAt);
      if (Date.now() - state.lastAt > staleMs) {
        // cycles stopped completing (a request that hangs): not green
        status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-checkpoint.status.stale', { ago: when }) });
        return;
      }
      const failed = last.failedGroups.length;
      // groups of the selection that have a checkpoint (restored or written)
      const checkpointed = last.latest.size;
      if (checkpointed === 0) {
        status.activity({ fill: 'yellow', shape: 'ring', text: truncate(t('mm2-checkpoint.status.none-checkpointed', { groups: last.groups.length, ago: when })) });
        return;
      }
      const text = failed > 0
        ? t('mm2-checkpoint.status.cycle-failed-groups', { groups: last.groups.length, checkpointed, checkpoints: last.written.length, failed, ago: when })
        : t('mm2-checkpoint.status.cycle', { groups: last.groups.length, checkpointed, checkpoints: last.written.length, ago: when });
      status.activity({ fill: failed > 0 ? 'yellow' : 'green', shape: 'dot', text: truncate(text) });
    }

    // A failure is logged once per change, not every cycle (the shared FailureLog).
    const warnLimited = (kind: string, text: string): void => {
      log.warn(kind, text);
    };

    const emitter = new CheckpointEmitter({
      source,
      target,
      sourceAlias: rep.sourceAlias,
      targetAlias: rep.targetAlias,
      policy: rep.policy,
      checkpointsTopic,
      groupFilter: filters.group,
      topicFilter: filters.topic,
      ensureTopic: (c, topic) => rep.ensureTopic(c, topic),
      // an unreachable target is tried again at least every interval
      retryMaxMs: emitMs,
      events: {
        phase(p) {
          state.phase = p;
          if (p.kind === 'retrying') warnLimited('topic', t('mm2-checkpoint.warn.topic', { topic: checkpointsTopic, error: p.error }));
          render();
        },
        restored(r) {
          if (r.malformed > 0) node.warn(t('mm2-checkpoint.warn.malformed-checkpoints', { count: r.malformed, topic: checkpointsTopic }));
          if (!r.ok) node.warn(t('mm2-checkpoint.warn.restore-failed', { topic: checkpointsTopic, error: r.error ?? '' }));
          else node.debug(t('mm2-checkpoint.log.restored', { count: r.restored, read: r.read, topic: checkpointsTopic }));
        },
        discovered(d) {
          state.groups = d.groups.length;
          if (d.errors.length > 0) {
            warnLimited('discovery-groups', t('mm2-checkpoint.warn.group-offsets', { groups: d.errors.map((e) => `${e.group} (${e.error})`).join(', ') }));
          }
          render();
        },
        discoveryFailed(error) {
          warnLimited('discovery', t('mm2-checkpoint.warn.discovery', { error }));
        },
      },
    });
    node.emitter = emitter;

    // ---- cycles ---------------------------------------------------------------------------
    const sent = new WeakSet<CycleResult>();

    function outputs(r: CycleResult, msg?: NodeMessage): [NodeMessage | null, NodeMessage] {
      const latest: Record<string, CheckpointJson[]> = {};
      for (const [g, list] of r.latest) latest[g] = list.map(cpJson);
      const summary: Record<string, number> = {};
      for (const c of r.coverage) summary[c.status] = (summary[c.status] ?? 0) + 1;
      const covPayload: CoverageMessage['payload'] = {
        cycle: r.cycle,
        groups: r.groups.length,
        partitions: r.coverage.length,
        summary,
        entries: coverageJson(r),
        failedGroups: r.failedGroups,
        durationMs: r.durationMs,
      };
      const base = msg ? { ...msg } : {};
      const cov: NodeMessage = { ...base, topic: TOPICS.coverage, payload: covPayload };
      // Every completed cycle, also when it wrote nothing: the receiver reconciles the target
      // against the whole state, so a restart, a redeploy or a lost message repairs itself.
      const cpPayload: CheckpointsMessage['payload'] = {
        checkpoints: r.written.map(cpJson),
        latest,
        cycle: r.cycle,
        sourceCluster: rep.sourceAlias,
        targetCluster: rep.targetAlias,
        checkpointsTopic,
      };
      return [{ ...base, topic: TOPICS.checkpoints, payload: cpPayload }, cov];
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
        if (requester) warnLimited('skipped', t('mm2-checkpoint.warn.skipped-loading'));
        render();
        return;
      }
      state.error = null;
      log.ok('cycle');
      state.last = r;
      state.lastAt = Date.now();
      state.groups = r.groups.length;
      if (r.discoveryError) warnLimited('discovery', t('mm2-checkpoint.warn.discovery', { error: r.discoveryError }));
      else log.ok('discovery');
      if (r.failedGroups.length > 0) {
        warnLimited('failed-groups', t('mm2-checkpoint.warn.group-offsets', { groups: r.failedGroups.map((f) => `${f.group} (${f.error})`).join(', ') }));
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
    node.on('input', (msg, send, done) => {
      try {
        const syncs = parseSyncsMessage(msg);
        if (syncs) {
          if (syncs.sourceTopic !== undefined && expectedSyncsTopic && syncs.sourceTopic !== expectedSyncsTopic) {
            done(new Error(t('mm2-checkpoint.errors.wrong-syncs-topic', { got: syncs.sourceTopic, expected: expectedSyncsTopic })));
            return;
          }
          const decision = syncStream.accept(syncs.stream);
          if (decision.action === 'ignore') {
            if (decision.requestReplay) {
              if (decision.reason === 'gap') warnLimited('syncs-gap', t('mm2-checkpoint.warn.syncs-gap', { topic: expectedSyncsTopic ?? '' }));
              requestSyncs();
            }
            done();
            return;
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
          done();
          return;
        }
        cycleNow(msg.refreshGroups === true, { msg, send }).then(
          () => done(),
          (e: Error) => done(e),
        );
      } catch (e) {
        done(e as Error);
      }
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
