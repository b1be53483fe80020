/**
 * `mm2-group-offsets` flow node: MM2's `sync.group.offsets` (MirrorCheckpointTask.syncGroupOffset) done safely. Writes the
 * checkpointed (translated) offsets of consumer groups to the TARGET cluster, one admin-style
 * commit per group, every `sync.group.offsets.interval.seconds` and on demand. The cycle logic
 * lives in ../kafka/group-offset-syncer (no Node-RED there); this file is the shell: settings,
 * input/output, status, timers, close.
 */
import type { NodeAPI, Node, NodeDef, NodeMessage, SendFn, DoneFn } from './lib/red';
import { makeTranslate } from './lib/i18n';
import { setupFlowNode } from './lib/flow-node';
import { onInput, refuseSettings } from './lib/input';
import { TOPICS, groupOffsetsPayload } from './lib/contracts';
import { nodeEnvLookup } from './lib/settings';
import { readGroupOffsetsSettings, type GroupOffsetsDefFields } from './lib/settings/group-offsets';
import { cycleStatus } from './lib/group-offsets/status';
import { explainKafkaError } from '../kafka/client';
import { GroupOffsetSyncer, type GroupOffsetsCycle } from '../kafka/group-offset-syncer';
import { COUNT_EVERY_MS, followCheckpointsTopic } from './lib/group-offsets/topic-mode';

interface GroupOffsetsDef extends NodeDef, GroupOffsetsDefFields {
  replication?: string;
}

const SET = 'mm2-group-offsets';

/** A CheckpointsMessage is recognised by its payload shape (`latest` map of group -> checkpoints). */
function checkpointsLatest(msg: NodeMessage): Record<string, unknown> | null {
  const p = msg.payload as { latest?: unknown } | null | undefined;
  if (!p || typeof p !== 'object' || Array.isArray(p)) return null;
  const latest = p.latest;
  if (!latest || typeof latest !== 'object' || Array.isArray(latest)) return null;
  return latest as Record<string, unknown>;
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, SET);

  function MM2GroupOffsetsNode(this: Node, def: GroupOffsetsDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const maybeCtx = setupFlowNode(RED, node, def.replication, t);
    if (!maybeCtx) return;
    const ctx = maybeCtx;
    const { rep, status } = ctx;

    // ---- settings (empty = MM2's default, `${VAR}` substituted, an unset variable is an error) ----
    const read = readGroupOffsetsSettings(def, nodeEnvLookup(RED, node), t);
    if (!read.values) return refuseSettings(node, status, read.problems[0]);
    const { mode, intervalMs, groupFilter } = read.values;
    const intervalS = intervalMs / 1000;
    const maybeConnection = rep.targetNode?.connection ?? null;
    if (!maybeConnection) return refuseSettings(node, status, t('mm2-group-offsets.errors.no-target'));
    const connection = ctx.use(maybeConnection);
    const checkpointsTopic = rep.checkpointsTopic();
    const syncer = new GroupOffsetSyncer({ connection, groupFilter });
    // a failure is logged once per change, counters once a minute (the shared FailureLog)
    const countLimited = (kind: string, text: string): void => {
      ctx.log.limited(kind, text, COUNT_EVERY_MS);
    };
    let lastCycleError = '';

    // ---- status (lib/group-offsets/status) ----
    let ready = mode === 'input';
    let last: { result: GroupOffsetsCycle; at: number } | null = null;
    function renderCycleStatus(): void {
      if (!last || lastCycleError) return;
      status.show(cycleStatus(t, last.result, last.at, intervalMs, syncer.stats.malformed));
    }
    if (mode === 'input') {
      status.activity({ fill: 'grey', shape: 'ring', text: t('mm2-group-offsets.status.first-sync', { seconds: intervalS }) });
    }
    ctx.every(5000, renderCycleStatus);

    // ---- one cycle ----
    function cycle(msg: NodeMessage | null, send: SendFn | null, done: DoneFn | null): void {
      syncer.sync().then(
        (result) => {
          lastCycleError = '';
          ctx.log.ok('cycle');
          last = { result, at: Date.now() };
          renderCycleStatus();
          const failed = result.skipped.filter((s) => s.code === 'error');
          if (failed.length > 0) {
            ctx.log.warn('failed', t('mm2-group-offsets.warn.groups-failed', { count: failed.length, group: failed[0].group, error: failed[0].reason }));
          }
          if (ctx.closing) {
            done?.();
            return;
          }
          const out: NodeMessage = msg ?? {};
          out.topic = TOPICS.groupOffsets;
          out.payload = groupOffsetsPayload(result);
          if (send) send(out);
          else node.send(out);
          done?.();
        },
        (err: unknown) => {
          const text = explainKafkaError(err, connection.settings);
          if (ctx.closing) {
            done?.();
            return;
          }
          status.fail(t('mm2-group-offsets.status.error', { error: text }));
          if (done) {
            done(new Error(t('mm2-group-offsets.errors.cycle-failed', { error: text })));
          } else {
            ctx.log.error('cycle', t('mm2-group-offsets.errors.cycle-failed', { error: text }));
          }
          lastCycleError = text;
        },
      )
      .catch((e: unknown) => {
        // a failure in the handlers above (never expected): report it, never leave it unhandled
        node.error(t('mm2-group-offsets.errors.cycle-failed', { error: (e as Error)?.message ?? String(e) }));
      });
    }

    ctx.every(intervalMs, () => {
      if (!ready) return;
      if (syncer.busy) {
        ctx.log.warn('overrun', t('mm2-group-offsets.warn.overrun', { seconds: intervalS }));
        return;
      }
      cycle(null, null, null);
    });

    // ---- mode topic: follow the checkpoints topic on the target (lib/group-offsets/topic-mode) ----
    const runner = mode !== 'topic' ? null : followCheckpointsTopic({
      ctx, t, connection, topic: checkpointsTopic, syncer, nodeId: node.id, intervalMs,
      ready: () => ready,
      loaded: () => {
        ready = true;
      },
      malformed: () => {
        if (ready) renderCycleStatus();
      },
    });

    // ---- input ----
    onInput(node, (msg, send, done) => {
      const latest = checkpointsLatest(msg);
      if (latest !== null) {
        if (mode === 'input') {
          const r = syncer.applyCheckpointsJson(latest);
          if (r.malformed > 0) {
            countLimited('bad-entries', t('mm2-group-offsets.warn.bad-entries', { count: r.malformed, total: syncer.stats.malformed }));
          }
          if (!last && !lastCycleError) {
            const s = syncer.stats;
            status.activity({ fill: 'grey', shape: 'dot', text: t('mm2-group-offsets.status.received', { groups: s.groups, partitions: s.partitions }) });
          }
        }
        if (msg.sync !== true) return done();
      }
      if (!ready) return done(new Error(t('mm2-group-offsets.errors.not-ready', { topic: checkpointsTopic })));
      cycle(msg, send, done);
    });

    ctx.onClose(async () => {
      if (runner) await runner.stop();
      await syncer.close();
    });
  }

  RED.nodes.registerType(SET, MM2GroupOffsetsNode as unknown as (this: Node, def: NodeDef) => void);
};
