/**
 * `mm2-replication` config node: one replication flow, source -> target, and the settings
 * every MM2 connector of the flow must agree on (replication policy, separator, internal-topic
 * separator flag, offset-syncs topic location, internal topics' replication factor). Holding
 * them in one place means the nodes of a flow cannot disagree about topic names.
 */
import type { NodeAPI, Node, NodeDef } from '../shared/red';
import { makeTranslate } from '../shared/i18n';
import type { ClusterConfigNode, ReplicationConfigNode } from '../shared/config-nodes';
import { ensureInternalTopicOn } from '../../kafka/internal-topics';
import { registerExportEndpoint } from '../shared/export-flow';
import { registerBuildFlowEndpoint } from './build-flow-endpoint';
import { nodeEnvLookup } from '../shared/settings';
import { substituteEnv } from '../../core/env-substitution';
import { readReplicationSettings } from './mm2-replication-settings';
import { identityCycleFlows, clusterConflicts, type FlowDirection, type FlowClusters } from '../../core/topic-selection';
import { clusterIdOf } from '../../kafka/cluster-probe';
import { OffsetSyncFeed } from '../../engines/offset-sync-feed';
import { OffsetSyncFollower } from '../../engines/offset-sync-follower';
import { ReplicationRuntime } from '../../engines/replication-runtime';


interface ReplicationDef extends NodeDef {
  source?: string;
  target?: string;
  policy?: string;
  separator?: string;
  internalSeparator?: boolean;
  offsetSyncsLocation?: string;
  replicationFactor?: string | number;
  offsetTranslation?: string;
}

/** Numbers the feed's connection registrations (a new run may start while the last one stops). */
let feedRuns = 0;

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, 'mm2-replication');
  // The dialog's "Export for Kafka Connect" button (GET/POST /mm2/export/:id).
  registerExportEndpoint(RED);
  // The dialog's "Build flow from configs" button (POST /mm2/flow/build).
  registerBuildFlowEndpoint(RED, t);
  /** The other mm2-replication flows of the deployed flows, with their clusters' aliases and their policy. */
  function otherFlows(selfId: string): FlowDirection[] {
    const defs = new Map<string, NodeDef>();
    RED.nodes.eachNode((d) => defs.set(d.id, d));
    // A node already built has its settings resolved; a definition not built yet is read the way
    // its node will read it, `${VAR}` included (the environment of the runtime: config nodes have no flow of their own here)
    const env = nodeEnvLookup(RED, null);
    const aliasOf = (id: unknown): string => {
      if (typeof id !== 'string') return '';
      const made = RED.nodes.getNode(id) as ClusterConfigNode | null;
      if (made) return made.alias ?? '';
      const d = defs.get(id);
      return typeof d?.alias === 'string' ? substituteEnv(d.alias, env).value.trim() : '';
    };
    const out: FlowDirection[] = [];
    for (const d of defs.values()) {
      if (d.type !== 'mm2-replication' || d.id === selfId) continue;
      const made = RED.nodes.getNode(d.id) as ReplicationConfigNode | null;
      if (made && made.policy !== undefined) {
        out.push({ id: d.id, sourceAlias: made.sourceAlias, targetAlias: made.targetAlias, identity: made.policy?.kind === 'identity' });
        continue;
      }
      const aliases = { source: aliasOf(d.source), target: aliasOf(d.target) };
      const policy = readReplicationSettings(d as unknown as Record<string, unknown>, aliases, env).values.policy;
      out.push({ id: d.id, sourceAlias: aliases.source, targetAlias: aliases.target, identity: policy?.kind === 'identity' });
    }
    return out;
  }

  function MM2ReplicationNode(this: ReplicationConfigNode, def: ReplicationDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    node.problems = [];
    // what the flow nodes of this replication share lives here once (Node-RED's MQTT model: the config node owns it)
    node.runtime = new ReplicationRuntime();
    node.sourceNode = def.source ? (RED.nodes.getNode(def.source) as ClusterConfigNode | null) : null;
    node.targetNode = def.target ? (RED.nodes.getNode(def.target) as ClusterConfigNode | null) : null;
    if (!node.sourceNode) node.problems.push(t('mm2-replication.errors.no-source'));
    if (!node.targetNode) node.problems.push(t('mm2-replication.errors.no-target'));
    node.sourceAlias = node.sourceNode?.alias ?? '';
    node.targetAlias = node.targetNode?.alias ?? '';
    if (node.sourceNode && node.targetNode && node.sourceAlias === node.targetAlias) {
      node.problems.push(t('mm2-replication.errors.same-alias', { alias: node.sourceAlias }));
    }
    // A bad setting is refused naming the MM2 property, never replaced by a default (nodes/mm2-replication/mm2-replication-settings).
    const read = readReplicationSettings(def as unknown as Record<string, unknown>, { source: node.sourceAlias, target: node.targetAlias }, nodeEnvLookup(RED, node));
    node.problems.push(...read.problems);
    node.offsetSyncsLocation = read.values.offsetSyncsLocation;
    node.replicationFactor = read.values.replicationFactor;
    node.offsetTranslation = read.values.offsetTranslation;
    node.props = read.values.props;
    node.policy = read.values.policy;
    // Active/active with IdentityReplicationPolicy: records would go round for ever (no policy can see the cycle).
    if (node.policy) {
      const self: FlowDirection = { id: node.id, sourceAlias: node.sourceAlias, targetAlias: node.targetAlias, identity: node.policy.kind === 'identity' };
      for (const o of identityCycleFlows(self, otherFlows(node.id))) {
        node.problems.push(t('mm2-replication.errors.identity-active-active', { other: o.id, source: node.sourceAlias, target: node.targetAlias }));
      }
    }
    if (node.problems.length > 0) node.error(t('mm2-replication.errors.invalid', { problems: node.problems.join('; ') }));

    node.offsetSyncs = () => {
      // The topic is named after the *other* cluster's alias (ReplicationPolicy.offsetSyncsTopic).
      const onSource = node.offsetSyncsLocation === 'source';
      const alias = onSource ? node.targetAlias : node.sourceAlias;
      const holder = onSource ? node.sourceNode : node.targetNode;
      return {
        topic: node.policy ? node.policy.offsetSyncsTopic(alias) : '',
        connection: holder?.connection ?? null,
        alias: holder?.alias ?? '',
      };
    };
    node.clusterConflicts = async () => {
      const src = node.sourceNode?.connection;
      const tgt = node.targetNode?.connection;
      if (!src || !tgt || !node.policy) return [];
      const [sourceClusterId, targetClusterId] = await Promise.all([clusterIdOf(src), clusterIdOf(tgt)]);
      const self: FlowClusters = {
        id: node.id, sourceAlias: node.sourceAlias, targetAlias: node.targetAlias, identity: node.policy.kind === 'identity',
        sourceNode: node.sourceNode?.id ?? '', targetNode: node.targetNode?.id ?? '', sourceClusterId, targetClusterId,
      };
      // the other replications deployed and running; one whose cluster does not answer is left
      // out (it copies nothing now, and its own nodes ask the same question before they copy)
      const others: FlowClusters[] = [];
      const ids: string[] = [];
      RED.nodes.eachNode((d) => {
        if (d.type === 'mm2-replication' && d.id !== node.id) ids.push(d.id);
      });
      await Promise.all(ids.map(async (id) => {
        const o = RED.nodes.getNode(id) as ReplicationConfigNode | null;
        const os = o?.sourceNode?.connection;
        const ot = o?.targetNode?.connection;
        if (!o || !os || !ot || !o.policy || o.problems.length > 0) return;
        try {
          const [a, b] = await Promise.all([clusterIdOf(os), clusterIdOf(ot)]);
          others.push({ id: o.id, sourceAlias: o.sourceAlias, targetAlias: o.targetAlias, identity: o.policy.kind === 'identity', sourceNode: o.sourceNode?.id ?? '', targetNode: o.targetNode?.id ?? '', sourceClusterId: a, targetClusterId: b });
        } catch {
          /* not answering: see above */
        }
      }));
      const label = (n: { id: string; name?: string } | null | undefined, id: string): string => (n?.name ? `'${n.name}' (${id})` : id);
      return clusterConflicts(self, others).map((c) => {
        if (c.kind === 'same-cluster') {
          return {
            text: t('mm2-replication.errors.same-cluster', {
              source: label(node.sourceNode, self.sourceNode), sourceAlias: node.sourceAlias,
              target: label(node.targetNode, self.targetNode), targetAlias: node.targetAlias, clusterId: c.clusterId,
            }),
            status: t('mm2-replication.errors.same-cluster-status'),
          };
        }
        const other = RED.nodes.getNode(c.other.id) as ReplicationConfigNode | null;
        return {
          text: t(`mm2-replication.errors.opposite-loop-${c.why}`, {
            other: label(other, c.other.id), source: node.sourceAlias, target: node.targetAlias,
            otherSource: c.other.sourceAlias, otherTarget: c.other.targetAlias, sourceId: sourceClusterId, targetId: targetClusterId,
          }),
          status: t('mm2-replication.errors.opposite-loop-status', { other: label(other, c.other.id) }),
        };
      });
    };
    node.checkpointsTopic = () => (node.policy ? node.policy.checkpointsTopic(node.sourceAlias) : '');
    // One reader of the offset-syncs topic for the whole flow, started by the first node that
    // subscribes and stopped when the last leaves (engines/offset-sync-feed). It registers with the
    // connection while it reads, so the connection stays open for it.
    node.syncFeed = new OffsetSyncFeed({
      createFollower: (events) => {
        const { topic, connection } = node.offsetSyncs();
        if (!connection || !topic || node.problems.length > 0) return null;
        const user = { id: `mm2-offset-sync-feed:${node.id}:${++feedRuns}` };
        connection.register(user);
        const follower = new OffsetSyncFollower({ connection, topic, events });
        return {
          start: () => follower.start(),
          stop: () => follower.stop().finally(() => connection.deregister(user)),
          get stats() {
            return follower.stats;
          },
          readerGroupIds: follower.readerGroupIds,
        };
      },
    });
    node.on('close', (_removed: boolean, done: () => void) => {
      node.syncFeed.close().then(done, done);
    });
    node.ensureTopic = async (connection, topic) => {
      const st = await ensureInternalTopicOn(connection, topic, node.replicationFactor, node.props['replication.policy.separator'], (lowered) =>
        node.warn(t('mm2-replication.warn.rf-lowered', lowered)),
      );
      for (const w of st.warnings) node.warn(w);
      return st;
    };
  }

  RED.nodes.registerType('mm2-replication', MM2ReplicationNode as unknown as (this: Node, def: NodeDef) => void);
};
