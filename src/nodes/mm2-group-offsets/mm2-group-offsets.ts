/**
 * `mm2-group-offsets` flow node: MM2's `sync.group.offsets` (MirrorCheckpointTask.syncGroupOffset) done safely. Writes the
 * checkpointed (translated) offsets of consumer groups to the TARGET cluster, one admin-style
 * commit per group that moved: the groups whose checkpoints change at once (at most once per
 * group per `minWriteIntervalMs`), every group every `sync.group.offsets.interval.seconds`, and on demand. The cycle logic
 * lives in ../engines/group-offset-syncer (no Node-RED there); this file is the shell: settings,
 * input/output, status, timers, close.
 */
import type { NodeAPI, Node, NodeDef } from '../shared/red';
import { makeTranslate } from '../shared/i18n';
import { setupFlowNode } from '../shared/flow-node';
import { onInput, refuseSettings } from '../shared/input';
import { nodeEnvLookup } from '../shared/settings';
import { readGroupOffsetsSettings, type GroupOffsetsDefFields } from './mm2-group-offsets-settings';
import { GroupOffsetsCycles } from './mm2-group-offsets-cycles';
import { followCheckpointsTopic } from './mm2-group-offsets-topic-mode';
import { replayRewindsOnce } from './mm2-group-offsets-rewind-replay';
import { GroupOffsetSyncer } from '../../engines/group-offset-syncer';
import { followRuntime } from '../../engines/replication-runtime';
import { withShare } from '../shared/share-status';

interface GroupOffsetsDef extends NodeDef, GroupOffsetsDefFields {
  replication?: string;
}

const SET = 'mm2-group-offsets';

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, SET);

  function MM2GroupOffsetsNode(this: Node, def: GroupOffsetsDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const ctx = setupFlowNode(RED, node, def.replication, t);
    if (!ctx) return;
    const { rep, status } = ctx;

    // ---- settings (empty = MM2's default, `${VAR}` substituted, an unset variable is an error) ----
    const read = readGroupOffsetsSettings(def, nodeEnvLookup(RED, node), t);
    if (!read.values) return refuseSettings(node, status, read.problems[0]);
    const { mode, intervalMs, groupFilter, minWriteIntervalMs } = read.values;
    // rewinds on the source are followed unless turned off here, or the replication translates as MM2 does
    const followRewinds = read.values.followRewinds && rep.offsetTranslation !== 'mm2';
    const maybeConnection = rep.targetNode?.connection ?? null;
    if (!maybeConnection) return refuseSettings(node, status, t('mm2-group-offsets.errors.no-target'));
    const connection = ctx.use(maybeConnection);
    const checkpointsTopic = rep.checkpointsTopic();

    // ---- wiring: cycles (nodes/mm2-group-offsets/mm2-group-offsets-cycles), their timers, mode topic (nodes/mm2-group-offsets/mm2-group-offsets-topic-mode) ----
    // a group asked again within the floor is written when it ends: that run is reported like the others
    // the flow in several Node-RED instances: only this one's share of the groups, fenced (engines/replication-shares)
    const shares = mode === 'topic' ? undefined : rep.runtime.shares;
    const syncer = new GroupOffsetSyncer({ connection, groupFilter, names: rep.runtime.names, minWriteIntervalMs, followRewinds, shares, onDeferredRun: (run) => cycles.report(run, null, null, null) });
    const origin = { sourceCluster: rep.sourceAlias, targetCluster: rep.targetAlias, checkpointsTopic };
    let wireTaken = (): void => undefined;
    const cycles = new GroupOffsetsCycles({
      node, ctx, t, syncer, connection, mode, intervalMs, checkpointsTopic, origin, wireTaken: () => wireTaken(),
      decorate: shares ? (view) => withShare(t, view, shares.current, { owned: null, total: null }) : undefined,
    });
    const unshare = shares?.subscribe(() => cycles.render());
    ctx.every(5000, () => cycles.render());
    ctx.every(intervalMs, () => cycles.tick());
    const runner = mode !== 'topic' ? null : followCheckpointsTopic({
      ctx, t, connection, topic: checkpointsTopic, syncer, nodeId: node.id, intervalMs,
      ready: () => cycles.ready,
      loaded: () => {
        cycles.ready = true;
        cycles.run(null, null, null); // the whole topic read: one full run now, then the timer's
      },
      applied: (group) => cycles.groupChanged(group),
      malformed: () => {
        if (cycles.ready) cycles.render();
      },
    });
    // mode input fed by a wire (no checkpoint node of the replication here): one replay of the
    // checkpoints topic recovers the rewinds noted before a restart (as mode topic's load), once
    // the wire has brought checkpoints
    let replay: { stop(): Promise<void> } | null = null;
    wireTaken = () => {
      if (replay || mode !== 'input' || !followRewinds || ctx.closing) return;
      replay = replayRewindsOnce({
        ctx, t, connection, topic: checkpointsTopic, syncer, nodeId: node.id, retryMs: Math.min(intervalMs, 10000),
        recovered: (groups) => cycles.report(syncer.syncGroups(groups), null, null, null),
        info: (text) => node.log(text),
      });
    };
    onInput(node, (msg, send, done) => cycles.input(msg, send, done));
    // modes replication and input: the checkpoint node of this replication keeps its store in the
    // replication's runtime, read here in place (engines/replication-runtime)
    const where = { source: rep.sourceAlias, target: rep.targetAlias };
    const unfollow = mode === 'topic' ? null : followRuntime({
      runtime: rep.runtime, syncer,
      active: () => cycles.ready && !ctx.closing,
      fullRun: () => {
        cycles.ready = true;
        cycles.run(null, null, null);
      },
      ran: (run) => cycles.report(run, null, null, null),
      following: (on) => {
        if (mode !== 'replication') return;
        if (on) status.activity({ fill: 'grey', shape: 'ring', text: t('mm2-group-offsets.status.first-sync', { seconds: intervalMs / 1000 }) });
        else {
          cycles.ready = false;
          status.activity({ fill: 'grey', shape: 'ring', text: t('mm2-group-offsets.status.waiting-checkpoint-node', where) });
        }
      },
    });

    ctx.onClose(async () => {
      unfollow?.();
      unshare?.();
      cycles.stop();
      if (runner) await runner.stop();
      if (replay) await replay.stop();
      await syncer.close();
    });
  }

  RED.nodes.registerType(SET, MM2GroupOffsetsNode as unknown as (this: Node, def: NodeDef) => void);
};
