/**
 * Turns a replication flow as Node-RED holds it (deployed flow configuration, or the editor's
 * current, possibly undeployed, node definitions) into the input of core/connector-export, and
 * registers the admin endpoint behind the "Export for Kafka Connect" button of the
 * mm2-replication dialog:
 *
 *   GET  /mm2/export/:replicationId?format=json|yaml|properties|mm2&connectors=source,checkpoint&includeSecrets=true
 *   POST /mm2/export/:replicationId   body {format, connectors, includeSecrets, secretsFile, flow?}
 *
 * GET exports the deployed flow; POST exports `flow` when given (the editor's node definitions:
 * {replication, source, target, sourceTls?, targetTls?, nodes}), else the deployed one. Both need
 * `mm2-replication.read`; includeSecrets also needs `mm2-replication.write`, because it returns
 * the stored SASL passwords (taken from the deployed mm2-cluster credentials), which Node-RED
 * otherwise never sends to the editor.
 */
import type { NodeAPI, NodeDef } from './red';
import { nodeEnvLookup } from './settings';
import { CONNECTOR_KINDS, FLOW_NODE_PROPERTIES, exportConnectors, exportText, type ClusterExportSettings, type ConnectorExport, type ExportFormat, type ExportOptions, type FlowExportInput, type FlowNodeSettings, type TlsExportSettings } from '../../core/connector-export';
import type { ConnectorKind } from '../../core/config-properties';
import type { EnvLookup } from '../../core/env-substitution';

/** The parts of Node-RED's runtime node API used here (not in our minimal red.ts typing). */
interface NodesApiExtra {
  eachNode?(cb: (n: NodeDef) => void): void;
  getCredentials?(id: string): Record<string, string | undefined> | undefined;
}

function nodesApi(RED: NodeAPI): NodeAPI['nodes'] & NodesApiExtra {
  return RED.nodes as NodeAPI['nodes'] & NodesApiExtra;
}

/** Every node definition of the deployed flows (config nodes, disabled nodes and tabs included). */
export function deployedDefinitions(RED: NodeAPI): NodeDef[] {
  const out: NodeDef[] = [];
  const api = nodesApi(RED);
  if (typeof api.eachNode === 'function') api.eachNode((n) => out.push(n));
  return out;
}

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
  creds: Record<string, string | undefined> | undefined,
  withPassword: boolean,
): ClusterExportSettings {
  if (!def) return {};
  const c: ClusterExportSettings = {
    id: typeof def.id === 'string' ? def.id : undefined,
    alias: typeof def.alias === 'string' ? def.alias : '',
    bootstrap: typeof def.bootstrap === 'string' ? def.bootstrap : '',
    saslMechanism: typeof def.saslMechanism === 'string' ? def.saslMechanism : 'none',
  };
  if (def.usetls === true || def.usetls === 'true') c.tls = tlsFromDefinition(tls);
  const username = (def.credentials as { username?: string } | undefined)?.username ?? creds?.username;
  if (username) c.username = username;
  if (withPassword) {
    const password = (def.credentials as { password?: string } | undefined)?.password ?? creds?.password;
    if (password) c.password = password;
  }
  return c;
}

/**
 * The export input of the deployed replication flow `replicationId`, or null when no such
 * mm2-replication node is deployed. Flow nodes of disabled tabs count as disabled.
 */
export function deployedFlow(RED: NodeAPI, replicationId: string, withPassword: boolean): FlowExportInput | null {
  const defs = deployedDefinitions(RED);
  const byId = new Map(defs.map((d) => [d.id, d as Record<string, unknown> & NodeDef]));
  const rep = byId.get(replicationId);
  if (!rep || rep.type !== 'mm2-replication') return null;
  const api = nodesApi(RED);
  const creds = (id: unknown) => (typeof id === 'string' && typeof api.getCredentials === 'function' ? api.getCredentials(id) : undefined);
  const cluster = (id: unknown) => {
    const d = typeof id === 'string' ? byId.get(id) : undefined;
    const tls = d && typeof d.tls === 'string' ? byId.get(d.tls) : undefined;
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

/** The flow the editor sent (its current node definitions), with credentials from the deployed cluster nodes. */
export function editorFlow(RED: NodeAPI, body: Record<string, unknown>, withPassword: boolean): FlowExportInput {
  const api = nodesApi(RED);
  const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
  const creds = (c: Record<string, unknown> | undefined) =>
    c && typeof c.id === 'string' && typeof api.getCredentials === 'function' ? api.getCredentials(c.id) : undefined;
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

/** The env lookup for exports: the deployed replication node's (group/flow/global env), else process.env. */
export function exportLookup(RED: NodeAPI, replicationId: string): EnvLookup {
  const node = RED.nodes.getNode(replicationId);
  return node ? nodeEnvLookup(RED, node) : (n) => process.env[n];
}

const FORMATS: readonly ExportFormat[] = ['json', 'yaml', 'properties', 'mm2'];

/** What the export endpoint answers. */
export interface ExportResponse {
  format: ExportFormat;
  text: string;
  connectors: Array<{ kind: ConnectorKind; name: string; from: string[]; text: string }>;
  notes: ConnectorExport['notes'];
  problems: ConnectorExport['problems'];
  secrets: ConnectorExport['secrets'];
  warning?: string;
}

export function exportResponse(result: ConnectorExport, format: ExportFormat): ExportResponse {
  const per = (c: ConnectorExport['connectors'][number]) =>
    format === 'json' ? c.json : format === 'yaml' ? c.yaml : format === 'properties' ? c.properties : '';
  return {
    format,
    text: exportText(result, format),
    connectors: result.connectors.map((c) => ({ kind: c.kind, name: c.name, from: c.from, text: per(c) })),
    notes: result.notes,
    problems: result.problems,
    secrets: result.secrets,
    ...(result.warning ? { warning: result.warning } : {}),
  };
}

function connectorsParam(v: unknown): ConnectorKind[] | undefined {
  const list = Array.isArray(v) ? v.map(String) : typeof v === 'string' && v.trim() !== '' ? v.split(',') : undefined;
  if (!list) return undefined;
  return list.map((s) => s.trim()).filter((s): s is ConnectorKind => (CONNECTOR_KINDS as readonly string[]).includes(s));
}

interface Req {
  params: { id?: string };
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
}
interface Res {
  status(code: number): Res;
  json(body: unknown): void;
}
type Middleware = (req: unknown, res: unknown, next: () => void) => void;

const registeredOn = new WeakSet<object>();

/** Registers GET/POST /mm2/export/:replicationId on Node-RED's admin API (once per admin app). */
export function registerExportEndpoint(RED: NodeAPI): void {
  const app = RED.httpAdmin as unknown as object;
  if (!app || registeredOn.has(app)) return;
  registeredOn.add(app);
  const handle = (req: Req, res: Res, source: Record<string, unknown>, body?: Record<string, unknown>) => {
    const id = String(req.params.id ?? '');
    const format = (FORMATS as readonly string[]).includes(String(source.format ?? 'json')) ? (String(source.format ?? 'json') as ExportFormat) : undefined;
    if (!format) {
      res.status(400).json({ error: `unknown format '${String(source.format)}' (expected json, yaml, properties or mm2)` });
      return;
    }
    const includeSecrets = source.includeSecrets === true || source.includeSecrets === 'true';
    const run = () => {
      try {
        const flowBody = body && body.flow && typeof body.flow === 'object' ? (body.flow as Record<string, unknown>) : undefined;
        const input = flowBody ? editorFlow(RED, flowBody, includeSecrets) : deployedFlow(RED, id, includeSecrets);
        if (!input) {
          res.status(404).json({ error: `no deployed mm2-replication node '${id}': deploy the flow first, or export from the editor dialog` });
          return;
        }
        const options: ExportOptions = {
          includeSecrets,
          lookup: exportLookup(RED, id),
          ...(typeof source.secretsFile === 'string' && source.secretsFile.trim() !== '' ? { secretsFile: source.secretsFile } : {}),
        };
        const kinds = connectorsParam(source.connectors);
        if (kinds) options.connectors = kinds;
        res.json(exportResponse(exportConnectors(input, options), format));
      } catch (e) {
        res.status(500).json({ error: (e as Error).message });
      }
    };
    if (includeSecrets) (RED.auth.needsPermission('mm2-replication.write') as Middleware)(req, res, run);
    else run();
  };
  RED.httpAdmin.get('/mm2/export/:id', RED.auth.needsPermission('mm2-replication.read'), (req: Req, res: Res) => handle(req, res, req.query ?? {}));
  RED.httpAdmin.post('/mm2/export/:id', RED.auth.needsPermission('mm2-replication.read'), (req: Req, res: Res) => handle(req, res, req.body ?? {}, req.body ?? {}));
}
