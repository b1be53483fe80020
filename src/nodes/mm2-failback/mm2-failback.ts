/**
 * `mm2-failback` flow node: reverse checkpoints for failback (MM2 has none: KIP-1098 is open).
 * After a failover the consumer groups run on the replication flow's TARGET against the remote
 * topics; this node translates their committed offsets there back to the SOURCE topics, from the
 * same offset syncs the checkpoint node uses (read from downstream to upstream), and writes them
 * to the idle groups on the source, with the group-offset writer's rules. A node of its own, not a
 * mode of mm2-checkpoint or mm2-group-offsets: those two read the source and write the target; this
 * one reads the target and writes the source, and its status tells whether the groups may move
 * back. The logic lives in ../engines/failback (no Node-RED there); this file is the shell.
 *
 * Offset syncs: from the replication's offset-sync feed (the config node's one reader of the
 * offset-syncs topic), no wire needed. Input: an OffsetSyncsMessage (a wire kept from an older
 * flow) is left aside; any other message runs a cycle now (the result is sent on it). Output: FailbackMessage every cycle.
 */
import type { NodeAPI, Node, NodeDef } from '../shared/red';
import { makeTranslate } from '../shared/i18n';
import { setupFlowNode } from '../shared/flow-node';
import { onInput, refuseSettings } from '../shared/input';
import { nodeEnvLookup } from '../shared/settings';
import { readFailbackSettings } from './mm2-failback-settings';
import { readOffsetSyncsMessage } from '../shared/contracts';
import { SyncsIntake } from '../shared/syncs-intake';
import { FailbackRuns } from './mm2-failback-runs';
import { Failback } from '../../engines/failback';

const TYPE = 'mm2-failback';

interface FailbackDef extends NodeDef {
  replication?: string;
  groups?: string;
  groupsExclude?: string;
  topics?: string;
  topicsExclude?: string;
  syncGroupOffsetsIntervalSeconds?: string | number;
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, TYPE);

  function MM2FailbackNode(this: Node, def: FailbackDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const ctx = setupFlowNode(RED, node, def.replication, t);
    if (!ctx) return;
    const { rep, status } = ctx;

    // ---- settings: MM2 property names, MM2 defaults for empty fields, ${VAR} substituted ----
    const read = readFailbackSettings(def as unknown as Record<string, unknown>, nodeEnvLookup(RED, node));
    const source = rep.sourceNode?.connection ?? null;
    const target = rep.targetNode?.connection ?? null;
    if (!read.values || !source || !target || !rep.policy) {
      const text = read.problems.join('; ') || t('mm2-common.errors.bad-replication', { problems: '' });
      return refuseSettings(node, status, text, { statusText: t('mm2-failback.status.error', { error: text }), logText: t('mm2-failback.errors.config', { problems: text }), refuseInput: true });
    }
    const { groupFilter, topicFilter, intervalMs } = read.values;

    // ---- wiring ----
    const failback = new Failback({
      target: ctx.use(target),
      source: ctx.use(source),
      sourceAlias: rep.sourceAlias,
      policy: rep.policy,
      groupFilter,
      topicFilter,
      translation: rep.offsetTranslation,
    });
    const { topic } = rep.offsetSyncs();
    const runs = new FailbackRuns({ node, ctx, t, failback, source, intervalMs, syncsTopic: topic, clusters: { source: rep.sourceAlias, target: rep.targetAlias } });
    const syncs = new SyncsIntake({
      t, node, log: ctx.log, topic, emitter: failback, feed: rep.syncFeed, catalog: TYPE,
      // the syncs loaded (or reset): a cycle at once, then the timer's
      render: () => (ctx.closing ? undefined : failback.syncsLoaded ? runs.run(null, null, null) : runs.render()),
      readerError: (e) => {
        runs.syncsError = e;
        if (!ctx.closing) runs.render();
      },
    });
    onInput(node, (msg, send, done) => {
      if (readOffsetSyncsMessage(msg)) {
        syncs.ignoreMessage();
        return done();
      }
      runs.run(msg, send, done);
    });

    // ---- timers ----
    ctx.every(intervalMs, () => runs.tick());
    ctx.every(5000, () => runs.render()); // "... / 5 s ago" stays true, and goes stale when cycles stop
    ctx.onClose(() => Promise.all([syncs.stop(), failback.close()]).then(() => undefined));
    runs.render();
    syncs.start(); // the history at once, then what follows
  }

  RED.nodes.registerType(TYPE, MM2FailbackNode as unknown as (this: Node, def: NodeDef) => void);
};
