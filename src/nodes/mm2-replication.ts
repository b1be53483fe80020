/**
 * `mm2-replication` config node: one replication flow, source -> target, and the settings
 * every MM2 connector of the flow must agree on (replication policy, separator, internal-topic
 * separator flag, offset-syncs topic location, internal topics' replication factor). Holding
 * them in one place means the nodes of a flow cannot disagree about topic names.
 */
import type { NodeAPI, Node, NodeDef } from './lib/red';
import { makeTranslate } from './lib/i18n';
import type { ClusterConfigNode, ReplicationConfigNode } from './lib/config-nodes';
import { ensureInternalTopicOn } from '../kafka/internal-topics';
import { registerExportEndpoint } from './lib/export-flow';
import { registerBuildFlowEndpoint } from './lib/build-flow';
import { nodeEnvLookup } from './lib/settings';
import { readReplicationSettings } from './lib/settings/replication';


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

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, 'mm2-replication');
  // The dialog's "Export for Kafka Connect" button (GET/POST /mm2/export/:id).
  registerExportEndpoint(RED);
  // The dialog's "Build flow from configs" button (POST /mm2/flow/build).
  registerBuildFlowEndpoint(RED, (key) => t(key));
  function MM2ReplicationNode(this: ReplicationConfigNode, def: ReplicationDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    node.problems = [];
    node.sourceNode = def.source ? (RED.nodes.getNode(def.source) as ClusterConfigNode | null) : null;
    node.targetNode = def.target ? (RED.nodes.getNode(def.target) as ClusterConfigNode | null) : null;
    if (!node.sourceNode) node.problems.push(t('mm2-replication.errors.no-source'));
    if (!node.targetNode) node.problems.push(t('mm2-replication.errors.no-target'));
    node.sourceAlias = node.sourceNode?.alias ?? '';
    node.targetAlias = node.targetNode?.alias ?? '';
    if (node.sourceNode && node.targetNode && node.sourceAlias === node.targetAlias) {
      node.problems.push(t('mm2-replication.errors.same-alias', { alias: node.sourceAlias }));
    }
    // A bad setting is refused naming the MM2 property, never replaced by a default (lib/settings/replication).
    const read = readReplicationSettings(def as unknown as Record<string, unknown>, { source: node.sourceAlias, target: node.targetAlias }, nodeEnvLookup(RED, node));
    node.problems.push(...read.problems);
    node.offsetSyncsLocation = read.values.offsetSyncsLocation;
    node.replicationFactor = read.values.replicationFactor;
    node.offsetTranslation = read.values.offsetTranslation;
    node.props = read.values.props;
    node.policy = read.values.policy;
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
    node.checkpointsTopic = () => (node.policy ? node.policy.checkpointsTopic(node.sourceAlias) : '');
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
