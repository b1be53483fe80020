/**
 * `mm2-cluster` config node: one Kafka cluster (alias, bootstrap servers, TLS, SASL).
 * `${VAR}` works inside alias, bootstrap, client id and the OAUTHBEARER fields; an unset variable is a problem.
 * Secrets live in Node-RED credentials. One shared ClusterConnection per config node,
 * connected lazily by the first user, closed when the last user goes or on redeploy.
 */
import type { NodeAPI, Node, NodeDef } from '../shared/red';
import { makeTranslate } from '../shared/i18n';
import type { ClusterConfigNode } from '../shared/config-nodes';
import { nodeEnvLookup } from '../shared/settings';
import { readClusterTimeouts } from './mm2-cluster-settings';
import { readClusterFields } from '../../core/cluster-settings';
import { ClusterConnection } from '../../kafka/connection';
import { validateClusterSettings, type ClusterSettings, type SaslMechanism } from '../../kafka/client';
import { tlsConfigProblems, tlsLabel } from '../shared/tls-check';


interface ClusterDef extends NodeDef {
  alias?: string;
  bootstrap?: string;
  clientId?: string;
  usetls?: boolean;
  tls?: string;
  saslMechanism?: string;
  oauthTokenEndpoint?: string;
  oauthClientId?: string;
  oauthScope?: string;
  oauthExtensions?: string;
  connectionTimeoutMs?: string | number;
  requestTimeoutMs?: string | number;
}

interface TlsConfigNode {
  type?: string;
  name?: string;
  credentials?: Record<string, unknown>;
  addTLSOptions(opts: Record<string, unknown>): void;
  valid?: boolean;
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, 'mm2-cluster');
  /** The definition of a deployed node (its fields as the editor saved them), or undefined. */
  function definitionOf(id: string): Record<string, unknown> | undefined {
    let found: Record<string, unknown> | undefined;
    RED.nodes.eachNode((d) => {
      if (d.id === id) found = d as unknown as Record<string, unknown>;
    });
    return found;
  }

  function checkTlsNode(id: string): Record<string, unknown> | string | string[] {
    const defn = definitionOf(id);
    const found = RED.nodes.getNode(id) as TlsConfigNode | null;
    // the definition and files as the Connect export reads them (lib/tls-check): the same words for both
    const problems = tlsConfigProblems(t, id, defn ?? (found ? { type: found.type, name: found.name } : undefined), found?.credentials).map((p) => p.text);
    if (problems.length > 0) return problems;
    const label = tlsLabel(id, defn?.name ?? found?.name);
    if (!found) return t('mm2-common.tls.no-node', { tls: label });
    if (found.valid === false) return t('mm2-common.tls.invalid', { tls: label });
    const opts: Record<string, unknown> = {};
    found.addTLSOptions(opts);
    return opts;
  }

  function MM2ClusterNode(this: ClusterConfigNode, def: ClusterDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    // The node's fields as core/cluster-settings reads them (the export reads them there too).
    const read = readClusterFields(def as unknown as Record<string, unknown>, nodeEnvLookup(RED, node));
    node.alias = read.alias;
    const mechanism = read.mechanism as SaslMechanism;
    const timeouts = readClusterTimeouts({ connectionTimeoutMs: read.connectionTimeoutMs, requestTimeoutMs: read.requestTimeoutMs }, t);
    const settings: ClusterSettings = {
      alias: node.alias,
      bootstrapServers: read.bootstrapServers,
      clientId: read.clientId ? read.clientId : undefined,
      connectionTimeoutMs: timeouts.values.connectionTimeoutMs,
      requestTimeoutMs: timeouts.values.requestTimeoutMs,
    };
    const tlsProblems: string[] = [];
    if (def.usetls) {
      // a TLS configuration chosen: used only when it loads; else the node is refused (never the
      // system's CAs in its place)
      const chosen = typeof def.tls === 'string' ? def.tls.trim() : '';
      if (chosen === '') settings.tls = true;
      else {
        const checked = checkTlsNode(chosen);
        if (typeof checked === 'string') tlsProblems.push(checked);
        else if (Array.isArray(checked)) tlsProblems.push(...checked);
        else settings.tls = checked;
      }
    }
    if (read.oauth) {
      settings.sasl = { mechanism, oauth: { ...read.oauth, clientSecret: node.credentials?.oauthClientSecret ?? '' } };
    } else if (mechanism !== 'none') {
      settings.sasl = { mechanism, username: node.credentials?.username, password: node.credentials?.password };
    }
    node.problems = [...read.envProblems.map((p) => p.text), ...timeouts.problems, ...read.fieldProblems.map((p) => p.text), ...tlsProblems, ...validateClusterSettings(settings)];
    node.connection = null;
    if (node.problems.length > 0) {
      node.error(t('mm2-cluster.errors.invalid', { alias: node.alias || node.id, problems: node.problems.join('; ') }));
    } else {
      // kafkajs may still log (retries, reconnects) after a redeploy closed this connection: the
      // failures of a configuration that was replaced are not logged any more
      const live = (): boolean => node.connection === conn;
      // what kafkajs logs is English: the line says in the runtime's language that the client reports it
      const reported = (m: string): string => t('mm2-cluster.log.client', { text: m });
      const conn: ClusterConnection = new ClusterConnection(settings, {
        error: (m) => (live() ? node.error(reported(m)) : node.debug(m)),
        warn: (m) => (live() ? node.warn(reported(m)) : node.debug(m)),
        info: (m) => node.log(m),
        debug: (m) => node.debug(m),
      });
      node.connection = conn;
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
      oauthClientSecret: { type: 'password' },
    },
  });
};
