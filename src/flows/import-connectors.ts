import { CONFIG_PROVIDER_REFERENCE, CONNECTOR_CLASS_NAMES, getPropertyDef, isSecretProperty, settingToString, type ConnectorKind, type SettingValue } from '../core/config-properties';
import { analyzeConnectorConfig, givenConnectorConfig, readConfigText } from '../core/connector-config';
import type { ConfigProblem } from '../core/errors';
import { parseJaasConfig } from '../core/export/jaas';
import type { ExportNote, ExportOptions } from '../core/export/model';
import { fieldName } from '../core/setting-fields';
import { FLOW_NODE_PROPERTIES, NODE_TYPE_OF, NODE_TYPE_OF_SETTINGS } from './node-types';
import type { ClusterExportSettings, FlowExportInput, FlowNodeSettings, ReplicationExportSettings, TlsExportSettings } from './read-flow';

/**
 * The way back from MM2 connector configs to a replication flow: the inverse of
 * ./export-connectors, so that export(import(x)) gives back x's values.
 */

export interface FlowImport extends FlowExportInput {
  nodes: FlowNodeSettings[];
  /** Options that make exportConnectors give back the imported configs' names and tasks.max. */
  options: Pick<ExportOptions, 'names' | 'tasksMax' | 'extraProperties'>;
  /** The connectors the configs were for. */
  connectors: ConnectorKind[];
  notes: ExportNote[];
  problems: ConfigProblem[];
}

/** Properties the import maps onto the flow (the rest go to options.extraProperties). */
const FLOW_WIDE = new Set([
  'name',
  'connector.class',
  'tasks.max',
  'key.converter',
  'value.converter',
  'header.converter',
  'source.cluster.alias',
  'target.cluster.alias',
  'source.cluster.bootstrap.servers',
  'target.cluster.bootstrap.servers',
  'replication.policy.class',
  'replication.policy.separator',
  'replication.policy.internal.topic.separator.enabled',
  'offset-syncs.topic.location',
  'offset-syncs.topic.replication.factor',
  'checkpoints.topic.replication.factor',
  'heartbeats.topic.replication.factor',
  'sync.group.offsets.enabled',
]);

const SECURITY_KEYS = ['security.protocol', 'sasl.mechanism', 'sasl.jaas.config', 'sasl.oauthbearer.token.endpoint.url', 'ssl.truststore.type', 'ssl.truststore.location', 'ssl.endpoint.identification.algorithm'];

function fieldValue(property: string, v: SettingValue): unknown {
  const d = getPropertyDef(property);
  if (d?.type === 'boolean') return v === true || v === 'true';
  return settingToString(v);
}

/**
 * The flow that connector configs describe (the inverse of exportConnectors): the replication
 * and cluster settings, one flow node per connector (mm2-mirror for the source connector,
 * mm2-checkpoint for the checkpoint connector plus mm2-group-offsets when it syncs group
 * offsets, mm2-heartbeat for the heartbeat connector), the names and tasks.max, and every other
 * property in options.extraProperties, so that nothing is lost. Configs may be text (YAML, JSON,
 * .properties) or objects; disagreeing flow-wide values are problems. This is a description of
 * the flow; ./build-flow's nodeRedFlowFromImport turns it into importable Node-RED nodes
 * (and buildFlowFromText does both for any pasted text).
 */
export function flowFromConnectorConfigs(inputs: ReadonlyArray<string | Readonly<Record<string, unknown>>>): FlowImport {
  const problems: ConfigProblem[] = [];
  const notes: ExportNote[] = [];
  const nodes: FlowNodeSettings[] = [];
  const names: Partial<Record<ConnectorKind, string>> = {};
  const tasksMax: Partial<Record<ConnectorKind, number>> = {};
  const extra: Partial<Record<ConnectorKind, Record<string, string>>> = {};
  const connectors: ConnectorKind[] = [];
  const flowWide = new Map<string, string>();
  const agree = (property: string, value: string) => {
    const prev = flowWide.get(property);
    if (prev !== undefined && prev !== value) {
      problems.push({ property, reason: `the configs disagree ('${prev}' and '${value}'); every connector of a flow must use the same value` });
    } else flowWide.set(property, value);
  };
  const source: ClusterExportSettings = {};
  const target: ClusterExportSettings = {};
  const replication: ReplicationExportSettings = {};

  inputs.forEach((input, i) => {
    const a = analyzeConnectorConfig(input);
    for (const p of a.problems) problems.push({ property: p.property, reason: inputs.length > 1 ? `config ${i + 1}: ${p.reason}` : p.reason });
    const kind = a.connector;
    if (!kind) {
      problems.push({ property: 'connector.class', reason: `config ${i + 1} is not an MM2 connector (MirrorSourceConnector, MirrorCheckpointConnector or MirrorHeartbeatConnector)` });
      return;
    }
    if (connectors.includes(kind)) {
      problems.push({ property: 'connector.class', reason: `two configs for ${CONNECTOR_CLASS_NAMES[kind]}` });
      return;
    }
    connectors.push(kind);
    const s = a.settings;
    const given = new Set(givenKeys(input));
    if (typeof s['name'] === 'string' && s['name'] !== '') names[kind] = s['name'];
    if (given.has('tasks.max') && typeof s['tasks.max'] === 'number') tasksMax[kind] = s['tasks.max'];
    for (const p of ['source.cluster.alias', 'target.cluster.alias', 'replication.policy.class', 'replication.policy.separator', 'replication.policy.internal.topic.separator.enabled']) {
      if (s[p] !== undefined) agree(p, settingToString(s[p] as SettingValue));
    }
    for (const p of ['source.cluster.bootstrap.servers', 'target.cluster.bootstrap.servers']) if (s[p] !== undefined) agree(p, settingToString(s[p] as SettingValue));
    if (kind !== 'heartbeat') agree('offset-syncs.topic.location', settingToString(s['offset-syncs.topic.location'] as SettingValue));
    const rfProp = kind === 'source' ? 'offset-syncs.topic.replication.factor' : kind === 'checkpoint' ? 'checkpoints.topic.replication.factor' : 'heartbeats.topic.replication.factor';
    agree('internal topics replication factor', settingToString(s[rfProp] as SettingValue));
    for (const role of ['source', 'target'] as const) {
      for (const k of SECURITY_KEYS) {
        const v = s[`${role}.cluster.${k}`];
        if (v !== undefined && !(k === 'security.protocol' && v === 'PLAINTEXT')) agree(`${role}.cluster.${k}`, settingToString(v as SettingValue));
      }
    }

    const nodeType = NODE_TYPE_OF[kind];
    const node: FlowNodeSettings = { type: nodeType };
    for (const p of FLOW_NODE_PROPERTIES[nodeType]) if (s[p] !== undefined) node[fieldName(p)] = fieldValue(p, s[p] as SettingValue);
    nodes.push(node);
    if (kind === 'checkpoint' && s['sync.group.offsets.enabled'] === true) {
      nodes.push({ type: NODE_TYPE_OF_SETTINGS['group-offsets'], syncGroupOffsetsIntervalSeconds: settingToString(s['sync.group.offsets.interval.seconds'] as SettingValue) });
    }
    const own = new Set<string>([...FLOW_WIDE, ...FLOW_NODE_PROPERTIES[nodeType], ...(kind === 'checkpoint' ? ['sync.group.offsets.interval.seconds'] : [])]);
    for (const k of given) {
      if (own.has(k) || SECURITY_KEYS.some((sk) => k === `source.cluster.${sk}` || k === `target.cluster.${sk}`)) continue;
      const v = s[k];
      if (v === undefined) continue;
      (extra[kind] ??= {})[k] = settingToString(v as SettingValue);
      notes.push({ code: 'not-imported', text: `${k}=${isSecretProperty(k) ? '***' : settingToString(v as SettingValue)} is not a setting of the flow's nodes; it is kept for the export.`, connector: kind, property: k });
    }
  });

  source.alias = flowWide.get('source.cluster.alias');
  target.alias = flowWide.get('target.cluster.alias') ?? 'target';
  source.bootstrap = (flowWide.get('source.cluster.bootstrap.servers') ?? '').split(/,\s*/).filter((x) => x).join(', ');
  target.bootstrap = (flowWide.get('target.cluster.bootstrap.servers') ?? '').split(/,\s*/).filter((x) => x).join(', ');
  for (const [role, c] of [['source', source], ['target', target]] as const) {
    const proto = flowWide.get(`${role}.cluster.security.protocol`) ?? 'PLAINTEXT';
    if (proto === 'SSL' || proto === 'SASL_SSL') {
      const tls: TlsExportSettings = {};
      const loc = flowWide.get(`${role}.cluster.ssl.truststore.location`);
      if (loc) tls.ca = loc;
      if (flowWide.get(`${role}.cluster.ssl.endpoint.identification.algorithm`) === '') tls.verifyServerCert = false;
      c.tls = Object.keys(tls).length > 0 ? tls : true;
    }
    if (proto === 'SASL_SSL' || proto === 'SASL_PLAINTEXT') {
      c.saslMechanism = (flowWide.get(`${role}.cluster.sasl.mechanism`) ?? 'PLAIN').toLowerCase();
      const jaas = flowWide.get(`${role}.cluster.sasl.jaas.config`) ?? '';
      if (!CONFIG_PROVIDER_REFERENCE.test(jaas.trim())) {
        const j = parseJaasConfig(jaas);
        if (j.username !== undefined) c.username = j.username;
        if (j.password !== undefined) c.password = j.password;
        if (j.clientId !== undefined) c.oauthClientId = j.clientId;
        if (j.clientSecret !== undefined) c.oauthClientSecret = j.clientSecret;
        if (j.scope !== undefined) c.oauthScope = j.scope;
        if (j.extensions) c.oauthExtensions = Object.entries(j.extensions).map(([k, v]) => `${k}=${v}`).join(', ');
      }
      const tokenUrl = flowWide.get(`${role}.cluster.sasl.oauthbearer.token.endpoint.url`);
      if (tokenUrl !== undefined) c.oauthTokenEndpoint = tokenUrl;
    }
  }
  const policy = flowWide.get('replication.policy.class');
  if (policy) replication.policy = policy.replace(/^org\.apache\.kafka\.connect\.mirror\./, '');
  const sep = flowWide.get('replication.policy.separator');
  if (sep !== undefined) replication.separator = sep;
  const isep = flowWide.get('replication.policy.internal.topic.separator.enabled');
  if (isep !== undefined) replication.internalSeparator = isep === 'true';
  const loc = flowWide.get('offset-syncs.topic.location');
  if (loc !== undefined) replication.offsetSyncsLocation = loc;
  const rf = flowWide.get('internal topics replication factor');
  if (rf !== undefined) replication.replicationFactor = Number(rf);

  return {
    replication,
    source,
    target,
    nodes,
    options: {
      ...(Object.keys(names).length ? { names } : {}),
      ...(Object.keys(tasksMax).length ? { tasksMax } : {}),
      ...(Object.keys(extra).length ? { extraProperties: extra } : {}),
    },
    connectors,
    notes,
    problems,
  };
}

/** The property names a config (text in any of the three formats, or an object) sets, before defaults. */
function givenKeys(input: string | Readonly<Record<string, unknown>>): string[] {
  const ignored: ConfigProblem[] = []; // analyzeConnectorConfig reports them
  const obj = typeof input === 'string' ? readConfigText(input, ignored).obj : input;
  return [...givenConnectorConfig(obj, ignored)].filter(([, v]) => v !== null && v !== undefined).map(([k]) => k);
}
