/**
 * `mm2-cluster` config node: one Kafka cluster (alias, bootstrap servers, TLS, SASL).
 * `${VAR}` works inside alias, bootstrap, client id and the OAUTHBEARER fields; an unset variable is a problem.
 * Secrets live in Node-RED credentials. One shared ClusterConnection per config node,
 * connected lazily by the first user, closed when the last user goes or on redeploy.
 */
import type { NodeAPI, Node, NodeDef } from './lib/red';
import { makeTranslate } from './lib/i18n';
import type { ClusterConfigNode } from './lib/config-nodes';
import { nodeEnvLookup } from './lib/settings';
import { readClusterTimeouts } from './lib/settings/cluster';
import { missingEnvReason, substituteEnv } from '../core/env-substitution';
import { oauthFieldProblem, oauthFieldText, parseSaslExtensions } from '../core/oauth-fields';
import { ClusterConnection } from '../kafka/connection';
import { parseBootstrapServers, validateClusterSettings, type ClusterSettings, type SaslMechanism } from '../kafka/client';


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
  addTLSOptions(opts: Record<string, unknown>): void;
  valid?: boolean;
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, 'mm2-cluster');
  function MM2ClusterNode(this: ClusterConfigNode, def: ClusterDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    // `${VAR}` inside a value (Node-RED itself only substitutes a whole-value `${VAR}`), e.g. `${KAFKA_HOST}:9092`.
    const lookup = nodeEnvLookup(RED, node);
    const envProblems: string[] = [];
    const text = (field: string, raw: unknown): string => {
      const s = substituteEnv(raw === undefined || raw === null ? '' : String(raw), lookup);
      if (s.missing.length > 0) envProblems.push(`${field}: ${missingEnvReason(s.missing)}`);
      return s.value;
    };
    node.alias = text('alias', def.alias).trim();
    const bootstrap = text('bootstrap', def.bootstrap);
    const clientId = text('clientId', def.clientId);
    const mechanism = (String(def.saslMechanism || 'none').toLowerCase()) as SaslMechanism;
    const timeouts = readClusterTimeouts({ connectionTimeoutMs: text('connectionTimeoutMs', def.connectionTimeoutMs), requestTimeoutMs: text('requestTimeoutMs', def.requestTimeoutMs) }, t);
    const settings: ClusterSettings = {
      alias: node.alias,
      bootstrapServers: parseBootstrapServers(bootstrap),
      clientId: clientId ? clientId : undefined,
      connectionTimeoutMs: timeouts.values.connectionTimeoutMs,
      requestTimeoutMs: timeouts.values.requestTimeoutMs,
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
    const extensionProblems: string[] = [];
    if (mechanism === 'oauthbearer') {
      // client-credentials flow: the secret in the credentials, the rest in the node's fields
      const extensions = text('oauthExtensions', def.oauthExtensions);
      const why = oauthFieldProblem('extensions', extensions);
      if (why) extensionProblems.push(oauthFieldText('extensions', extensions.trim(), why));
      settings.sasl = {
        mechanism,
        oauth: {
          tokenEndpointUrl: text('oauthTokenEndpoint', def.oauthTokenEndpoint).trim(),
          clientId: text('oauthClientId', def.oauthClientId).trim(),
          clientSecret: node.credentials?.oauthClientSecret ?? '',
          scope: text('oauthScope', def.oauthScope).trim(),
          extensions: why ? {} : parseSaslExtensions(extensions),
        },
      };
    } else if (mechanism !== 'none') {
      settings.sasl = { mechanism, username: node.credentials?.username, password: node.credentials?.password };
    }
    node.problems = [...envProblems, ...timeouts.problems, ...extensionProblems, ...validateClusterSettings(settings)];
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
