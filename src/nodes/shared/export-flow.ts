/**
 * Takes a replication flow as the Node-RED runtime holds it (deployed flow configuration, or the
 * editor's current, possibly undeployed, node definitions; read by flows/definitions) to the
 * export of flows/export-connectors, and registers the admin endpoint behind the "Export for Kafka Connect" button of the
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
import { exportText, type ExportFormat } from '../../core/export/connectors';
import { CONNECTOR_KINDS, type ConnectorExport, type ExportOptions } from '../../core/export/model';
import { flowFromDefinitions, flowFromEditor, type CredentialsOf } from '../../flows/definitions';
import { exportConnectors } from '../../flows/export-connectors';
import type { FlowExportInput } from '../../flows/read-flow';
import type { ConnectorKind } from '../../core/config-properties';
import type { EnvLookup } from '../../core/env-substitution';
import { makeTranslate, type Translate } from './i18n';
import { tlsConfigProblems } from './tls-check';

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

/**
 * The export input of the deployed replication flow `replicationId`, or null when no such
 * mm2-replication node is deployed. Flow nodes of disabled tabs count as disabled.
 */
export function deployedFlow(RED: NodeAPI, replicationId: string, withPassword: boolean): FlowExportInput | null {
  return flowFromDefinitions(deployedDefinitions(RED), replicationId, credentialsOf(RED), withPassword);
}

/** The flow the editor sent (its current node definitions), with credentials from the deployed cluster nodes. */
export function editorFlow(RED: NodeAPI, body: Record<string, unknown>, withPassword: boolean): FlowExportInput {
  return flowFromEditor(body, credentialsOf(RED), withPassword);
}

/** The stored credentials of a deployed node, by id. */
function credentialsOf(RED: NodeAPI): CredentialsOf {
  const api = nodesApi(RED);
  return (id) => (typeof api.getCredentials === 'function' ? api.getCredentials(id) : undefined);
}

/** The env lookup for exports: the deployed replication node's (group/flow/global env), else process.env. */
export function exportLookup(RED: NodeAPI, replicationId: string): EnvLookup {
  const node = RED.nodes.getNode(replicationId);
  return node ? nodeEnvLookup(RED, node) : (n) => process.env[n];
}

/**
 * The env lookup of each deployed node by id, as the runtime resolves that node's `${VAR}` (its
 * flow's and group's env, then the process's): the replication and cluster nodes' fields are
 * exported as those nodes read them. Undefined for a node not running (disabled, not deployed).
 */
export function deployedNodeLookup(RED: NodeAPI): (id: string) => EnvLookup | undefined {
  return (id) => {
    const node = RED.nodes.getNode(id);
    return node ? nodeEnvLookup(RED, node) : undefined;
  };
}

/**
 * The export's check of a cluster node's tls-config node (ExportOptions.checkTls): the runtime's
 * own check (lib/tls-check, as the mm2-cluster node refuses it), with the node's stored
 * credentials (its uploaded certificates, its passphrase) read on the Node-RED host.
 */
export function exportTlsCheck(RED: NodeAPI, t: Translate): NonNullable<ExportOptions['checkTls']> {
  const creds = credentialsOf(RED);
  return (tls) => tlsConfigProblems(t, tls.id, tls.definition, creds(tls.id));
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
  const t = makeTranslate(RED, 'mm2-replication');
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
          nodeLookup: deployedNodeLookup(RED),
          checkTls: exportTlsCheck(RED, t),
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
