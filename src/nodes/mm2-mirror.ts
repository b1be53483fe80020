/**
 * `mm2-mirror` flow node: MirrorMaker 2's MirrorSourceConnector for teams without one. Copies
 * the selected source topics to `<source>.<topic>` on the target and writes MM2 offset syncs.
 * A thin shell: the engine is src/kafka/mirror.ts, the settings src/core/mirror-settings.ts.
 */
import type { NodeAPI, Node, NodeDef, NodeMessage, SendFn, DoneFn } from './lib/red';
import { makeTranslate } from './lib/i18n';
import { setupFlowNode } from './lib/flow-node';
import { refuseSettings } from './lib/input';
import { nodeEnvLookup } from './lib/settings';
import { readMirrorSettings, type MirrorDefFields } from './lib/settings/mirror';
import { MirrorView } from './lib/mirror/events';
import { scheduleMirror, mirrorInput } from './lib/mirror/wiring';
import { Mirror, mirrorGroupId } from '../kafka/mirror-task';
import { errText } from '../kafka/mirror-topics';

/** How soon the clusters are asked for their ids again when one did not answer. */
const CLUSTER_ID_RETRY_MS = 5000;

interface MirrorDef extends NodeDef, MirrorDefFields {
  replication?: string;
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, 'mm2-mirror');

  function MM2MirrorNode(this: Node, def: MirrorDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const ctx = setupFlowNode(RED, node, def.replication, t);
    if (!ctx) return;
    const { rep, status } = ctx;

    // ---- settings ----
    const read = readMirrorSettings(def, nodeEnvLookup(RED, node), t);
    if (!read.values) return refuseSettings(node, status, read.problems[0]);
    const settings = read.values;
    const source = rep.sourceNode?.connection;
    const target = rep.targetNode?.connection;
    const policy = rep.policy;
    if (!source || !target || !policy) {
      return refuseSettings(node, status, t('mm2-common.errors.bad-replication', { problems: 'no cluster connection' }));
    }
    ctx.use(source);
    ctx.use(target);
    let syncs: { connection: NonNullable<typeof source>; topic: string; ensure: () => Promise<unknown> } | null = null;
    if (settings.emitOffsetSyncsEnabled) {
      const os = rep.offsetSyncs();
      if (!os.connection || !os.topic) {
        return refuseSettings(node, status, t('mm2-common.errors.bad-replication', { problems: 'offset-syncs topic unknown' }));
      }
      const conn = ctx.use(os.connection);
      syncs = { connection: conn, topic: os.topic, ensure: () => rep.ensureTopic(conn, os.topic) };
    }

    // ---- wiring: the engine (kafka/mirror-task), its events and stats (lib/mirror/events), timers and input (lib/mirror/wiring) ----
    const view = new MirrorView(node, ctx, t, { sourceCluster: rep.sourceAlias, targetCluster: rep.targetAlias, offsetSyncsTopic: syncs ? syncs.topic : null });
    const mirror = new Mirror({
      source, target, sourceAlias: rep.sourceAlias, targetAlias: rep.targetAlias, policy,
      topicFilter: settings.topicFilter,
      heartbeatsReplicationEnabled: settings.heartbeatsReplicationEnabled,
      offsetLagMax: settings.offsetLagMax,
      replicationFactor: settings.replicationFactor,
      configPropertyFilter: settings.configPropertyFilter,
      syncTopicConfigs: settings.syncTopicConfigsEnabled,
      syncTopicAcls: settings.syncTopicAclsEnabled,
      offsetSyncs: syncs,
      groupId: mirrorGroupId(rep.sourceAlias, rep.targetAlias, node.id),
      onEvent: view.onEvent,
    });
    view.mirror = mirror;
    // Nothing is copied before both clusters said who they are: one cluster under two aliases, or
    // an opposite flow over the same clusters that makes a loop, is refused naming the nodes
    // (aliases alone cannot tell). A cluster that does not answer yet is asked again. Input that
    // comes meanwhile waits for the answer.
    let ready!: { resolve: () => void; reject: (e: Error) => void };
    const started = new Promise<void>((resolve, reject) => (ready = { resolve, reject }));
    started.catch(() => undefined);
    const start = (): void => {
      rep.clusterConflicts().then(
        (conflicts) => {
          if (ctx.closing) return;
          ctx.log.ok('cluster-ids');
          if (conflicts.length > 0) {
            const text = conflicts.map((c) => c.text).join('; ');
            refuseSettings(node, status, text, { statusText: conflicts[0].status });
            return ready.reject(new Error(text));
          }
          mirror.start().catch(() => undefined); // failures are events (status + warn) and retried
          scheduleMirror(ctx, mirror, settings, () => node.send(view.statsMessage() as unknown as NodeMessage));
          ready.resolve();
        },
        (e: unknown) => {
          // the status shows the connection's state; the log says what the mirror waits for
          ctx.log.warn('cluster-ids', t('mm2-mirror.errors.cluster-ids', { error: errText(e) }));
          ctx.after(CLUSTER_ID_RETRY_MS, start);
        },
      );
    };
    start();
    const input = mirrorInput(t, mirror, view);
    node.on('input', (msg: NodeMessage, send: SendFn, done: DoneFn) => {
      started.then(() => input(msg, send, done), (e: Error) => done(e));
    });
    ctx.onClose(() => mirror.stop());
  }

  RED.nodes.registerType('mm2-mirror', MM2MirrorNode as unknown as (this: Node, def: NodeDef) => void);
};
