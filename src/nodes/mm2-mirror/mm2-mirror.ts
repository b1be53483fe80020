/**
 * `mm2-mirror` flow node: MirrorMaker 2's MirrorSourceConnector for teams without one. Copies
 * the selected source topics to `<source>.<topic>` on the target and writes MM2 offset syncs.
 * A thin shell: the engine is src/kafka/mirror.ts, the settings src/core/mirror-settings.ts.
 */
import type { NodeAPI, Node, NodeDef, NodeMessage, DoneFn, SendFn } from '../shared/red';
import { makeTranslate } from '../shared/i18n';
import { setupFlowNode } from '../shared/flow-node';
import { refuseSettings } from '../shared/input';
import { nodeEnvLookup } from '../shared/settings';
import { readMirrorSettings, type MirrorDefFields } from './mm2-mirror-settings';
import { MirrorView } from './mm2-mirror-events';
import { scheduleMirror, mirrorInput } from './mm2-mirror-wiring';
import { Mirror } from '../../engines/mirror-task';
import { errText } from '../../engines/mirror-topics';
import { isLegacyMirrorGroup, mirrorGroupId } from '../../core/mirror-progress';
import { claimMirror, mirrorClaimKey, type MirrorClaimant } from './mm2-mirror-claims';

/** The label of the node's flow tab (Node-RED's NR_FLOW_NAME), else its id, else ''. */
function flowLabel(RED: NodeAPI, node: Node): string {
  const util = (RED as unknown as { util?: { getSetting?: (n: unknown, name: string) => unknown } }).util;
  try {
    const label = util?.getSetting?.(node, 'NR_FLOW_NAME');
    if (typeof label === 'string' && label) return label;
  } catch {
    /* no flow: the id below */
  }
  const z = (node as unknown as { z?: unknown }).z;
  return typeof z === 'string' ? z : '';
}

/** What the catalogue's texts say of another node: its name (else id), id and flow tab. */
function claimantWords(c: MirrorClaimant): { node: string; id: string; flow: string } {
  return { node: c.name || c.id, id: c.id, flow: c.flow || '-' };
}

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

    // ---- one node of this Node-RED copies a replication flow at a time (nodes/mm2-mirror/mm2-mirror-claims) ----
    const groupId = mirrorGroupId(rep.sourceAlias, rep.targetAlias);
    const me: MirrorClaimant = { id: node.id, name: node.name ?? '', flow: flowLabel(RED, node) };
    let mirror: Mirror | null = null;
    let handleInput: ((msg: NodeMessage, send: SendFn, done: DoneFn) => void) | null = null;
    let waitingFor: MirrorClaimant | null = null;
    const flowWords = { source: rep.sourceAlias, target: rep.targetAlias, group: groupId };

    // ---- wiring: the engine (engines/mirror-task), its events and stats (nodes/mm2-mirror/mm2-mirror-events), timers and input (nodes/mm2-mirror/mm2-mirror-wiring) ----
    const start = (): void => {
      if (ctx.closing) return;
      if (waitingFor) node.log(t('mm2-mirror.log.took-over', { ...flowWords, ...claimantWords(waitingFor) }));
      waitingFor = null;
      const view = new MirrorView(node, ctx, t, { sourceCluster: rep.sourceAlias, targetCluster: rep.targetAlias, offsetSyncsTopic: syncs ? syncs.topic : null });
      const m = new Mirror({
        source, target, sourceAlias: rep.sourceAlias, targetAlias: rep.targetAlias, policy,
        topicFilter: settings.topicFilter,
        heartbeatsReplicationEnabled: settings.heartbeatsReplicationEnabled,
        offsetLagMax: settings.offsetLagMax,
        replicationFactor: settings.replicationFactor,
        configPropertyFilter: settings.configPropertyFilter,
        syncTopicConfigs: settings.syncTopicConfigsEnabled,
        syncTopicAcls: settings.syncTopicAclsEnabled,
        offsetSyncs: syncs,
        groupId,
        legacyGroups: (g) => isLegacyMirrorGroup(g, rep.sourceAlias, rep.targetAlias),
        onEvent: (e) => {
          if (e.type === 'progress-adopted') node.log(t('mm2-mirror.log.adopted', { partitions: e.partitions, groups: e.groups.join(', '), group: groupId }));
          else view.onEvent(e);
        },
      });
      mirror = m;
      view.mirror = m;
      m.start().catch(() => undefined); // failures are events (status + warn) and retried
      scheduleMirror(ctx, m, settings, () => node.send(view.statsMessage() as unknown as NodeMessage), view.checkStatus);
      handleInput = mirrorInput(t, m, view);
    };
    const wait = (holder: MirrorClaimant): void => {
      waitingFor = holder;
      status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-mirror.status.waiting', { ...flowWords, ...claimantWords(holder) }) });
      node.warn(t('mm2-mirror.warn.waiting', { ...flowWords, ...claimantWords(holder) }));
    };
    // Nothing is copied, nor claimed, before both clusters said who they are: one cluster under two
    // aliases, or an opposite flow over the same clusters that makes a loop, is refused naming the
    // nodes (aliases alone cannot tell). A cluster that does not answer yet is asked again.
    let claim: { release(): void } | null = null;
    let refusal: string | null = null;
    let notAnswering = '';
    const checkClusters = (): void => {
      rep.clusterConflicts().then(
        (conflicts) => {
          if (ctx.closing) return;
          ctx.log.ok('cluster-ids');
          if (conflicts.length > 0) {
            refusal = conflicts.map((c) => c.text).join('; ');
            return refuseSettings(node, status, refusal, { statusText: conflicts[0].status });
          }
          claim = claimMirror(mirrorClaimKey(groupId, source.settings.bootstrapServers), me, start, wait);
        },
        (e: unknown) => {
          if (ctx.closing) return;
          // the status shows the connection's state; the log says what the mirror waits for
          notAnswering = errText(e);
          ctx.log.warn('cluster-ids', t('mm2-mirror.errors.cluster-ids', { error: notAnswering }));
          ctx.after(CLUSTER_ID_RETRY_MS, checkClusters);
        },
      );
    };
    checkClusters();
    node.on('input', (msg: NodeMessage, send: SendFn, done: DoneFn) => {
      if (handleInput) return handleInput(msg, send, done);
      if (refusal) return done(new Error(refusal));
      if (!claim) return done(new Error(t('mm2-mirror.errors.cluster-ids', { error: notAnswering || '-' })));
      done(new Error(t('mm2-mirror.warn.waiting', { ...flowWords, ...claimantWords(waitingFor ?? { id: '-', name: '', flow: '' }) })));
    });
    ctx.onClose(async () => {
      try {
        if (mirror) await mirror.stop();
      } finally {
        // after the stop (progress committed, group left): the next node of the flow starts from there
        claim?.release();
      }
    });
  }

  RED.nodes.registerType('mm2-mirror', MM2MirrorNode as unknown as (this: Node, def: NodeDef) => void);
};
