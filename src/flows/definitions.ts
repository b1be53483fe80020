import { FLOW_NODE_PROPERTIES } from './node-types';
import type { ClusterExportSettings, FlowExportInput, FlowNodeSettings, TlsExportSettings } from './read-flow';

/**
 * Node-RED node definitions (a deployed flow's, or the editor's current ones) read into the
 * export input of a replication flow: the mm2-replication node, its mm2-cluster nodes with their
 * tls-config nodes and stored credentials, and the flow nodes that use it (disabled ones, and
 * those on a disabled tab, marked `d: true`).
 */

/** A node definition as a flow holds it. */
export interface NodeDefinition {
  id: string;
  type: string;
  z?: string;
  [key: string]: unknown;
}

/** A node's stored credentials. */
export type Credentials = Record<string, string | undefined>;

/** The stored credentials of a node, by id (Node-RED never sends them to the editor). */
export type CredentialsOf = (id: string) => Credentials | undefined;

/** A tls-config node definition as TlsExportSettings (file paths; uploaded certificates flagged). */
export function tlsFromDefinition(def: Record<string, unknown> | undefined | null): TlsExportSettings | true {
  if (!def) return true;
  const s = (k: string) => (typeof def[k] === 'string' ? (def[k] as string).trim() : '');
  const out: TlsExportSettings = {};
  if (s('ca')) out.ca = s('ca');
  if (s('cert')) out.cert = s('cert');
  if (s('key')) out.key = s('key');
  if (def.verifyservercert === false || def.verifyservercert === 'false') out.verifyServerCert = false;
  if (s('caname') || s('certname') || s('keyname')) out.uploaded = true;
  return out;
}

function clusterFromDefinition(
  def: Record<string, unknown> | undefined,
  tls: Record<string, unknown> | undefined | null,
  creds: Credentials | undefined,
  withPassword: boolean,
): ClusterExportSettings {
  if (!def) return {};
  const c: ClusterExportSettings = {
    id: typeof def.id === 'string' ? def.id : undefined,
    alias: typeof def.alias === 'string' ? def.alias : '',
    bootstrap: typeof def.bootstrap === 'string' ? def.bootstrap : '',
    saslMechanism: typeof def.saslMechanism === 'string' ? def.saslMechanism : 'none',
  };
  if (def.usetls === true || def.usetls === 'true') {
    c.tls = tlsFromDefinition(tls);
    const ref = typeof def.tls === 'string' ? def.tls.trim() : '';
    // a reference to a node that is not there is not the system's CAs: the export checks it (ExportOptions.checkTls)
    if (ref !== '') c.tlsNode = { id: ref, ...(tls ? { definition: tls } : {}) };
  }
  const username = (def.credentials as { username?: string } | undefined)?.username ?? creds?.username;
  if (username) c.username = username;
  for (const f of ['oauthTokenEndpoint', 'oauthClientId', 'oauthScope', 'oauthExtensions'] as const) {
    if (typeof def[f] === 'string' && def[f] !== '') c[f] = def[f] as string;
  }
  if (withPassword) {
    const given = def.credentials as { password?: string; oauthClientSecret?: string } | undefined;
    const password = given?.password ?? creds?.password;
    if (password) c.password = password;
    const secret = given?.oauthClientSecret ?? creds?.oauthClientSecret;
    if (secret) c.oauthClientSecret = secret;
  }
  return c;
}

/**
 * The export input of the replication flow `replicationId` among a flow's node definitions
 * (every node, config nodes and tabs included), or null when there is no such mm2-replication
 * node. Flow nodes of disabled tabs count as disabled.
 */
export function flowFromDefinitions(defs: readonly NodeDefinition[], replicationId: string, credentialsOf: CredentialsOf, withPassword: boolean): FlowExportInput | null {
  const byId = new Map(defs.map((d) => [d.id, d]));
  const rep = byId.get(replicationId);
  if (!rep || rep.type !== 'mm2-replication') return null;
  const creds = (id: unknown) => (typeof id === 'string' ? credentialsOf(id) : undefined);
  const cluster = (id: unknown) => {
    const d = typeof id === 'string' ? byId.get(id) : undefined;
    const tls = d && typeof d.tls === 'string' ? byId.get(d.tls.trim()) : undefined;
    return clusterFromDefinition(d, tls, creds(id), withPassword);
  };
  const disabledTabs = new Set(defs.filter((d) => d.type === 'tab' && (d as { disabled?: unknown }).disabled === true).map((d) => d.id));
  const nodes: FlowNodeSettings[] = defs
    .filter((d) => d.replication === replicationId && FLOW_NODE_PROPERTIES[d.type] !== undefined)
    .map((d) => ({ ...(d as FlowNodeSettings), d: (d as { d?: unknown }).d === true || (typeof d.z === 'string' && disabledTabs.has(d.z)) }));
  return {
    replication: { ...(rep as Record<string, unknown>), id: rep.id } as FlowExportInput['replication'],
    source: cluster(rep.source),
    target: cluster(rep.target),
    nodes,
  };
}

/**
 * The export input of the flow the editor sent (its current node definitions:
 * {replication, source, target, sourceTls?, targetTls?, nodes}), with the clusters' stored credentials.
 */
export function flowFromEditor(body: Record<string, unknown>, credentialsOf: CredentialsOf, withPassword: boolean): FlowExportInput {
  const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
  const creds = (c: Record<string, unknown> | undefined) =>
    c && typeof c.id === 'string' ? credentialsOf(c.id) : undefined;
  const src = obj(body.source);
  const tgt = obj(body.target);
  const nodes = Array.isArray(body.nodes) ? (body.nodes.filter((n) => obj(n) && typeof (n as { type?: unknown }).type === 'string') as FlowNodeSettings[]) : [];
  return {
    replication: (obj(body.replication) ?? {}) as FlowExportInput['replication'],
    source: clusterFromDefinition(src, obj(body.sourceTls), creds(src), withPassword),
    target: clusterFromDefinition(tgt, obj(body.targetTls), creds(tgt), withPassword),
    nodes,
  };
}
