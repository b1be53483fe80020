/**
 * "Build flow from configs": pasted MM2 configuration (anything core/pasted-configs reads:
 * connector configs in any format or number, an mm2.properties, a Strimzi KafkaMirrorMaker2
 * resource) -> an importable Node-RED flow: the two mm2-cluster config nodes (and tls-config
 * nodes where the configs give CA files), the mm2-replication config node, and one flow node per
 * connector (mm2-mirror; mm2-offset-syncs -> mm2-checkpoint -> mm2-group-offsets when the
 * checkpoint connector syncs group offsets; mm2-heartbeat), wired, placed, with a debug node on
 * each output a user watches. The settings come from ./import-connectors'
 * flowFromConnectorConfigs, so building and exporting are each other's inverse.
 *
 * buildFlowFromText answers {format, flows, choose, flow, nodes, problems, notes, ignored}; `nodes` is empty
 * while there is any problem (a placeholder, an unresolvable reference, an invalid value, a
 * missing alias), or while the text holds several flows and `flow` names none of them.
 */
import { randomBytes } from 'node:crypto';
import { CONNECTOR_CLASS_NAMES, isSecretProperty, type ConnectorKind } from '../core/config-properties';
import type { ConfigProblem } from '../core/errors';
import type { EnvLookup } from '../core/env-substitution';
import type { ExportNote } from '../core/export/model';
import { readPastedConfigs, type IgnoredKey, type PastedConnector } from '../core/pasted-configs';
import { wordIgnored, pastedValueReason, referencedKeys, substitutedValueProblems } from './pasted-wording';
import { flowFromConnectorConfigs, type FlowImport } from './import-connectors';
import type { ClusterExportSettings, TlsExportSettings } from './read-flow';

/** A node of a Node-RED flow file (what RED.view.importNodes and POST /flows take). */
export interface FlowFileNode {
  id: string;
  type: string;
  [key: string]: unknown;
}

export interface BuildFlowOptions {
  /** The flow to build when the text holds several (its id, `source->target`). */
  flow?: string;
  /** Environment lookup: `${VAR}` values are refused when VAR is not set. */
  lookup?: EnvLookup;
  /** Makes node ids (default: 16 random hex digits, as Node-RED's). */
  newId?: () => string;
}

export interface BuiltFlow {
  format: string;
  flows: Array<{ id: string; source: string; target: string; connectors: Array<ConnectorKind | null> }>;
  choose: boolean;
  /** The flow built (its id), or null. */
  flow: string | null;
  /** The importable nodes: config nodes first, then the flow nodes (no `z`: the importer puts them on a tab). */
  nodes: FlowFileNode[];
  problems: ConfigProblem[];
  notes: ExportNote[];
  ignored: IgnoredKey[];
}

function defaultId(): string {
  return randomBytes(8).toString('hex');
}

/** Defaults of each flow node as its editor defines them (an empty text field means MM2's default). */
const NODE_DEFAULTS: Record<string, Record<string, unknown>> = {
  'mm2-mirror': { topics: '', topicsExclude: '', heartbeatsReplicationEnabled: true, replicationFactor: '', offsetLagMax: '', emitOffsetSyncsEnabled: true, offsetFlushIntervalMs: '', refreshTopicsIntervalSeconds: '',
    syncTopicConfigsEnabled: true, syncTopicConfigsIntervalSeconds: '', configPropertiesExclude: '', syncTopicAclsEnabled: true, syncTopicAclsIntervalSeconds: '' },
  'mm2-checkpoint': { groups: '', groupsExclude: '', topics: '', topicsExclude: '', emitCheckpointsIntervalSeconds: '', refreshGroupsIntervalSeconds: '' },
  'mm2-group-offsets': { mode: 'replication', syncGroupOffsetsIntervalSeconds: '', groups: '', groupsExclude: '' },
  'mm2-heartbeat': { emitHeartbeatsEnabled: true, emitHeartbeatsIntervalSeconds: '', staleAfterSeconds: '', watch: true },
};

function debugNode(id: string, name: string, x: number, y: number, active: boolean): FlowFileNode {
  return { id, type: 'debug', name, active, tosidebar: true, console: false, tostatus: false, complete: 'payload', targetType: 'msg', statusVal: '', statusType: 'auto', x, y, wires: [] };
}

/**
 * The Node-RED nodes of an imported flow description (flowFromConnectorConfigs). Ids come from
 * `newId`; positions form one row per connector.
 */
export function nodeRedFlowFromImport(imp: FlowImport, newId: () => string = defaultId): FlowFileNode[] {
  const out: FlowFileNode[] = [];
  const cluster = (c: ClusterExportSettings, role: 'source' | 'target'): string => {
    const id = newId();
    let tlsId = '';
    if (c.tls && typeof c.tls === 'object') {
      const t = c.tls as TlsExportSettings;
      tlsId = newId();
      out.push({
        id: tlsId, type: 'tls-config', name: `${c.alias ?? role} TLS`, cert: t.cert ?? '', key: t.key ?? '', ca: t.ca ?? '',
        certname: '', keyname: '', caname: '', servername: '', verifyservercert: t.verifyServerCert !== false, alpnprotocol: '',
      });
    }
    const mechanism = c.saslMechanism && c.saslMechanism !== 'none' ? String(c.saslMechanism).toLowerCase() : 'none';
    const node: FlowFileNode = {
      id, type: 'mm2-cluster', name: '', alias: c.alias ?? '', bootstrap: typeof c.bootstrap === 'string' ? c.bootstrap : (c.bootstrap ?? []).join(', '),
      clientId: '', usetls: c.tls !== undefined && c.tls !== false, tls: tlsId, saslMechanism: mechanism,
    };
    for (const f of ['oauthTokenEndpoint', 'oauthClientId', 'oauthScope', 'oauthExtensions'] as const) node[f] = c[f] ?? '';
    const creds: Record<string, string> = {};
    if (c.username) creds.username = c.username;
    if (c.password) creds.password = c.password;
    if (c.oauthClientSecret) creds.oauthClientSecret = c.oauthClientSecret;
    if (Object.keys(creds).length > 0) node.credentials = creds;
    out.push(node);
    return id;
  };
  const src = cluster(imp.source, 'source');
  const tgt = cluster(imp.target, 'target');
  const rep = newId();
  const r = imp.replication;
  out.push({
    id: rep, type: 'mm2-replication', name: `${imp.source.alias ?? 'source'} → ${imp.target.alias ?? 'target'}`, source: src, target: tgt,
    policy: r.policy ?? 'DefaultReplicationPolicy', separator: r.separator ?? '.', internalSeparator: r.internalSeparator ?? true,
    offsetSyncsLocation: r.offsetSyncsLocation ?? 'source', replicationFactor: r.replicationFactor !== undefined ? String(r.replicationFactor) : '3',
    // ours, not in any MM2 config: the default
    offsetTranslation: 'precise',
  });

  const flowNode = (type: string, x: number, y: number, wires: string[][]): FlowFileNode => {
    const given = imp.nodes.find((n) => n.type === type) ?? { type };
    const fields: Record<string, unknown> = { ...NODE_DEFAULTS[type] };
    for (const k of Object.keys(fields)) if (given[k] !== undefined) fields[k] = given[k];
    return { id: newId(), type, name: '', replication: rep, ...fields, x, y, wires };
  };
  let y = 60;
  const has = (type: string) => imp.nodes.some((n) => n.type === type);
  if (has('mm2-mirror')) {
    const dbg = debugNode(newId(), 'mirror stats', 470, y, false);
    out.push(flowNode('mm2-mirror', 170, y, [[dbg.id]]), dbg);
    y += 80;
  }
  if (has('mm2-checkpoint')) {
    const cov = debugNode(newId(), 'coverage report', 750, y + 50, true);
    const written = debugNode(newId(), 'checkpoints written', 750, y, true);
    let go: FlowFileNode | undefined;
    let goDbg: FlowFileNode | undefined;
    if (has('mm2-group-offsets')) {
      // mode "replication": it reads the checkpoint node's store through the replication node, no wire
      goDbg = debugNode(newId(), 'group offsets synced', 1050, y + 100, true);
      go = flowNode('mm2-group-offsets', 800, y + 100, [[goDbg.id]]);
    }
    // the offset syncs reach the checkpoint node through the replication node too: the wires carry reports
    const cp = flowNode('mm2-checkpoint', 450, y, [[written.id], [cov.id]]);
    const syncs: FlowFileNode = { id: newId(), type: 'mm2-offset-syncs', name: '', replication: rep, x: 160, y, wires: [[]] };
    out.push(syncs, cp, written, cov);
    if (go && goDbg) out.push(go, goDbg);
    y += go ? 180 : 110;
  }
  if (has('mm2-heartbeat')) {
    const lat = debugNode(newId(), 'replication latency', 450, y, false);
    const alarm = debugNode(newId(), 'heartbeat alarm', 450, y + 50, true);
    out.push(flowNode('mm2-heartbeat', 160, y, [[lat.id], [alarm.id]]), lat, alarm);
  }
  return out;
}

/** A connector of a pasted flow as flowFromConnectorConfigs takes it: its class named. */
function withClass(c: PastedConnector): Record<string, unknown> {
  if (c.kind === undefined || c.config['connector.class'] !== undefined) return c.config;
  return { 'connector.class': CONNECTOR_CLASS_NAMES[c.kind], ...c.config };
}

/** In dedicated mode a flow's checkpoint and heartbeat connectors can be switched off. */
function runs(c: PastedConnector): boolean {
  const off = (k: string) => String(c.config[k] ?? '').trim().toLowerCase() === 'false';
  if (c.kind === 'checkpoint') return !off('emit.checkpoints.enabled');
  if (c.kind === 'heartbeat') return !off('emit.heartbeats.enabled');
  return true;
}

/** Builds the importable flow for pasted configuration text (see the file comment). */
export function buildFlowFromText(text: string, options: BuildFlowOptions = {}): BuiltFlow {
  const pasted = readPastedConfigs(text);
  const result: BuiltFlow = {
    format: pasted.format,
    flows: pasted.flows.map((f) => ({ id: f.id, source: f.source, target: f.target, connectors: f.connectors.map((c) => c.kind ?? null) })),
    choose: false,
    flow: null,
    nodes: [],
    problems: [...pasted.problems],
    notes: [],
    ignored: wordIgnored(pasted.ignored),
  };
  if (result.problems.length > 0) return result;
  const flow = pasted.flows.length === 1 ? pasted.flows[0] : pasted.flows.find((f) => f.id === options.flow);
  if (!flow) {
    result.choose = pasted.flows.length > 1;
    if (options.flow !== undefined && pasted.flows.length > 0) {
      result.problems.push({ property: '', reason: `the text holds no flow '${options.flow}' (it holds ${result.flows.map((f) => f.id).join(', ')})` });
    }
    if (pasted.flows.length === 0) result.problems.push({ property: '', reason: 'the text holds no MM2 connector config' });
    return result;
  }
  result.flow = flow.id;
  if (flow.source !== '' && flow.source === flow.target) {
    // the mm2-replication node refuses two clusters of one alias: build nothing it would refuse
    result.problems.push({
      property: 'target.cluster.alias',
      reason: `is the same as source.cluster.alias ('${flow.source}'): a replication flow copies between two clusters of different aliases; give the target its own alias`,
    });
    return result;
  }
  const connectors = flow.connectors.filter(runs);
  const add = (p: ConfigProblem) => {
    if (!result.problems.some((x) => x.property === p.property && x.reason === p.reason)) result.problems.push(p);
  };
  // `${VAR}` as the paste endpoint takes it (pasted-wording's substitutedValueProblems): kept as
  // written in the nodes, checked with the variables substituted, never echoed substituted
  const referenced = new Set<string>();
  for (const c of connectors) {
    const refused = new Set<string>();
    for (const [k, v] of Object.entries(c.config)) {
      if (isSecretProperty(k)) continue;
      const why = pastedValueReason(v, options.lookup, k);
      if (why !== undefined) {
        add({ property: k, reason: why });
        refused.add(k);
      }
    }
    if (!options.lookup) continue;
    for (const k of referencedKeys(c.config)) referenced.add(k);
    for (const p of substitutedValueProblems(c.config, options.lookup)) if (!refused.has(p.property)) add(p);
  }
  const imp = flowFromConnectorConfigs(connectors.map(withClass));
  for (const p of imp.problems) if (!referenced.has(p.property)) add(p);
  result.notes = imp.notes;
  if (result.problems.length > 0) return result;
  result.nodes = nodeRedFlowFromImport(imp, options.newId);
  return result;
}
