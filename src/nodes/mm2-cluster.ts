/**
 * `mm2-cluster` config node: one Kafka cluster (alias, bootstrap servers, TLS, SASL).
 * Secrets live in Node-RED credentials. One shared ClusterConnection per config node,
 * connected lazily by the first user, closed when the last user goes or on redeploy.
 */
import type { NodeAPI, Node, NodeDef } from './lib/red';
import { makeTranslate } from './lib/i18n';
import type { ClusterConfigNode } from './lib/config-nodes';
import { ClusterConnection } from '../kafka/connection';
import { parseBootstrapServers, validateClusterSettings, type ClusterSettings, type SaslMechanism } from '../kafka/client';


interface ClusterDef extends NodeDef {
  alias?: string;
  bootstrap?: string;
  clientId?: string;
  usetls?: boolean;
  tls?: string;
  saslMechanism?: string;
}

interface TlsConfigNode {
  addTLSOptions(opts: Record<string, unknown>): void;
  valid?: boolean;
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, 'mm2-cluster');
  function MM2ClusterNode(this: ClusterConfigNode, def: ClusterDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    node.alias = String(def.alias ?? '').trim();
    const mechanism = (String(def.saslMechanism || 'none').toLowerCase()) as SaslMechanism;
    const settings: ClusterSettings = {
      alias: node.alias,
      bootstrapServers: parseBootstrapServers(String(def.bootstrap ?? '')),
      clientId: def.clientId ? String(def.clientId) : undefined,
    };
    if (def.usetls) {
      const tlsNode = def.tls ? (RED.nodes.getNode(def.tls) as TlsConfigNode | null) : null;
      if (tlsNode) {
        const opts: Record<string, unknown> = {};
        tlsNode.addTLSOptions(opts);
        settings.tls = opts;
      } else {
        settings.tls = true;
      }
    }
    if (mechanism !== 'none') {
      settings.sasl = { mechanism, username: node.credentials?.username, password: node.credentials?.password };
    }
    node.problems = validateClusterSettings(settings);
    node.connection = null;
    if (node.problems.length > 0) {
      node.error(t('mm2-cluster.errors.invalid', { alias: node.alias || node.id, problems: node.problems.join('; ') }));
    } else {
      node.connection = new ClusterConnection(settings, {
        error: (m) => node.error(m),
        warn: (m) => node.warn(m),
        info: (m) => node.log(m),
        debug: (m) => node.debug(m),
      });
    }

    node.on('close', (_removed: boolean, done: () => void) => {
      const c = node.connection;
      node.connection = null;
      if (!c) {
        done();
        return;
      }
      c.close().then(done, done);
    });
  }

  RED.nodes.registerType('mm2-cluster', MM2ClusterNode as unknown as (this: Node, def: NodeDef) => void, {
    credentials: {
      username: { type: 'text' },
      password: { type: 'password' },
    },
  });
};
