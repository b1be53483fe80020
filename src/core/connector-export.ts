import {
  CONFIG_PROVIDER_REFERENCE,
  CONNECTOR_CLASS_NAMES,
  getPropertyDef,
  isSecretProperty,
  settingToString,
  type ConnectorKind,
  type ConnectorSettings,
  type SettingValue,
} from './config-properties';
import {
  DEFAULT_SECRETS_FILE,
  analyzeConnectorConfig,
  formatConnectorConfig,
  givenConnectorConfig,
  readConfigText,
  secretPlaceholder,
  type ConfigFormat,
} from './connector-config';
import { escapePropertiesText, propertiesValue as propsValue } from './java-properties';
import { missingEnvReason, substituteEnv, type EnvLookup } from './env-substitution';
import { mm2PropertiesFlows } from './pasted-configs';
import type { ConfigProblem } from './errors';
import { fieldName, resolveNodeSettings } from './setting-fields';

/**
 * Export of a Node-RED replication flow (an mm2-replication node, its two mm2-cluster nodes and
 * the flow nodes that use it) as the equivalent MirrorMaker 2 connector configs, and the way
 * back (import):
 *
 * - one config per connector (MirrorSourceConnector, MirrorCheckpointConnector,
 *   MirrorHeartbeatConnector) as the Kafka Connect REST body `{name, config}`, as YAML in the
 *   form of Google Cloud's connector config file, and as connect-standalone .properties; each
 *   carries ByteArrayConverter for keys, values and headers, which MM2 needs on a Connect
 *   cluster to write its internal topics byte for byte (spec §2.6);
 * - one `mm2.properties` for MM2's dedicated mode (`connect-mirror-maker.sh`);
 * - flowFromConnectorConfigs: connector configs (any mix, any format) -> the same flow settings,
 *   so that export(import(x)) gives back x's values.
 *
 * Node fields are the camelCase of MM2 property names (core/setting-fields), read with the
 * resolver every node uses (empty = MM2's default, `${VAR}` substituted, checked by the
 * catalogue), so an export says exactly what the nodes do.
 *
 * Secrets (SASL JAAS configs with passwords) are never written in clear unless
 * `includeSecrets` is set; they become Kafka config-provider references
 * `${file:<secretsFile>:<property>}`, and `secretsTemplate` lists what that file must hold.
 * With `includeSecrets` every text carries a warning comment and the result a `warning`.
 */

/** The converter MM2's records need on a Kafka Connect cluster (spec §2.6). */
export const BYTE_ARRAY_CONVERTER = 'org.apache.kafka.connect.converters.ByteArrayConverter';

export const CONNECTOR_KINDS: readonly ConnectorKind[] = Object.freeze(['source', 'checkpoint', 'heartbeat'] as ConnectorKind[]);

/**
 * The MM2 properties each flow node type holds as fields (field = fieldName(property)), in
 * dialog order; nodes/lib/settings exposes it as NODE_SETTINGS.
 */
export const FLOW_NODE_PROPERTIES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'mm2-mirror': Object.freeze([
    'topics',
    'topics.exclude',
    'offset.lag.max',
    'refresh.topics.interval.seconds',
    'heartbeats.replication.enabled',
    'replication.factor',
    'emit.offset-syncs.enabled',
  ]),
  'mm2-checkpoint': Object.freeze([
    'groups',
    'groups.exclude',
    'topics',
    'topics.exclude',
    'emit.checkpoints.interval.seconds',
    'refresh.groups.interval.seconds',
  ]),
  'mm2-group-offsets': Object.freeze(['sync.group.offsets.interval.seconds', 'groups', 'groups.exclude']),
  'mm2-heartbeat': Object.freeze(['emit.heartbeats.enabled', 'emit.heartbeats.interval.seconds']),
});

/** The connector each flow node type's settings go to. */
export const FLOW_NODE_CONNECTOR: Readonly<Record<string, ConnectorKind>> = Object.freeze({
  'mm2-mirror': 'source',
  'mm2-checkpoint': 'checkpoint',
  'mm2-group-offsets': 'checkpoint',
  'mm2-heartbeat': 'heartbeat',
});

/** Kafka Connect worker setting the mirror node holds (the cadence of MM2's delayed offset syncs). */
export const OFFSET_FLUSH_FIELD = 'offsetFlushIntervalMs';

// ---------------------------------------------------------------------------------------------
// Input and output shapes
// ---------------------------------------------------------------------------------------------

export type SaslMechanismName = 'none' | 'plain' | 'scram-sha-256' | 'scram-sha-512';

/** TLS of a cluster as Node-RED's tls-config node holds it (file paths; uploaded data cannot be exported). */
export interface TlsExportSettings {
  /** CA certificate file (PEM). */
  ca?: string;
  /** Client certificate file (PEM). */
  cert?: string;
  /** Client private key file (PEM). */
  key?: string;
  /** false turns host name verification off. Default true. */
  verifyServerCert?: boolean;
  /** The certificates were uploaded into Node-RED rather than given as paths. */
  uploaded?: boolean;
}

/** An mm2-cluster node: its fields, plus its credentials when secrets are to be exported. */
export interface ClusterExportSettings {
  id?: string;
  alias?: string;
  /** `host:port, host:port` (or a list). */
  bootstrap?: string | string[];
  /** true: TLS with the JVM's default trust store; an object: the tls-config node's files. */
  tls?: boolean | TlsExportSettings;
  saslMechanism?: SaslMechanismName | string;
  username?: string;
  password?: string;
}

/** An mm2-replication node's fields. */
export interface ReplicationExportSettings {
  id?: string;
  name?: string;
  policy?: string;
  separator?: string;
  internalSeparator?: boolean | string;
  offsetSyncsLocation?: string;
  replicationFactor?: number | string;
}

/** A flow node definition (as in a flow file): type, id, its fields; `d: true` when disabled. */
export interface FlowNodeSettings {
  type: string;
  id?: string;
  name?: string;
  d?: boolean;
  [field: string]: unknown;
}

export interface FlowExportInput {
  replication: ReplicationExportSettings;
  source: ClusterExportSettings;
  target: ClusterExportSettings;
  /** The flow nodes that use the replication node (other types are ignored). */
  nodes?: FlowNodeSettings[];
}

export interface ExportOptions {
  /** Which connectors to export. Default all three. */
  connectors?: readonly ConnectorKind[];
  /** Write secrets in clear (with a warning). Default false: config-provider references. */
  includeSecrets?: boolean;
  /** File named in secret references. Default DEFAULT_SECRETS_FILE. */
  secretsFile?: string;
  /** Connector names. Default `mm2-<source>-<target>-<kind>`. */
  names?: Partial<Record<ConnectorKind, string>>;
  /** Prefix of the default names instead of `mm2-<source>-<target>-`. */
  namePrefix?: string;
  /** `tasks.max` for every connector, or per connector. Unset: Connect's default (1). */
  tasksMax?: number | Partial<Record<ConnectorKind, number>>;
  /** More properties per connector (e.g. what an import found that no node holds). */
  extraProperties?: Partial<Record<ConnectorKind, Record<string, string>>>;
  /** Environment lookup for `${VAR}` in fields. Default: none set. */
  lookup?: EnvLookup;
}

/** Something the user should know about an export or import. `code` lets an editor translate it. */
export interface ExportNote {
  code:
    | 'secrets-referenced'
    | 'secrets-included'
    | 'worker-setting'
    | 'several-nodes'
    | 'no-node'
    | 'group-filter'
    | 'interval-rounded'
    | 'tls-client-cert'
    | 'tls-uploaded'
    | 'tls-no-verify'
    | 'no-offset-syncs'
    | 'heartbeats-direction'
    | 'dedicated-topics'
    | 'not-imported';
  text: string;
  connector?: ConnectorKind;
  property?: string;
}

export interface ExportedConnector {
  kind: ConnectorKind;
  name: string;
  /** Node ids whose settings went in (empty: MM2's defaults and the flow-wide settings only). */
  from: string[];
  /** The settings, typed (secrets as written: references unless includeSecrets). */
  settings: ConnectorSettings;
  /** The config map for `PUT /connectors/<name>/config` (includes `name`). */
  config: Record<string, string>;
  /** `POST /connectors` body. */
  rest: { name: string; config: Record<string, string> };
  json: string;
  yaml: string;
  properties: string;
}

export interface ConnectorExport {
  sourceAlias: string;
  targetAlias: string;
  connectors: ExportedConnector[];
  /** MM2 dedicated mode configuration for the flow. */
  mm2Properties: string;
  secrets: {
    included: boolean;
    /** Secret properties (per connector config and mm2.properties), without values. */
    properties: string[];
    secretsFile: string;
    /** The secrets file to create, `property=value` with passwords shown as `<password>` (empty when none or included). */
    template: string;
  };
  /** Set when secrets are written in clear. */
  warning?: string;
  notes: ExportNote[];
  /** Settings that cannot be exported as they are (unset `${VAR}`, invalid values); named by MM2 property. */
  problems: ConfigProblem[];
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const SECRETS_WARNING =
  'WARNING: this export contains passwords in clear. Keep it out of version control and chat; Kafka Connect stores connector configs in its config topic, readable by anyone who can read that topic.';

const REFERENCES_NOTE = (file: string): string =>
  `Secrets are written as \${file:${file}:<property>} references: create that file on every Connect worker (secretsTemplate shows its lines) and set config.providers=file, config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider on the workers.`;

function textOf(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

function isBlank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

function boolOf(v: unknown, dflt: boolean): boolean {
  if (typeof v === 'boolean') return v;
  const s = textOf(v).trim().toLowerCase();
  if (s === 'true') return true;
  if (s === 'false') return false;
  return dflt;
}

/** Java JAAS quoted string (StreamTokenizer rules): backslash and double quote escaped. */
function jaasQuote(s: string): string {
  return '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
}

const LOGIN_MODULES: Record<string, string> = {
  plain: 'org.apache.kafka.common.security.plain.PlainLoginModule',
  'scram-sha-256': 'org.apache.kafka.common.security.scram.ScramLoginModule',
  'scram-sha-512': 'org.apache.kafka.common.security.scram.ScramLoginModule',
};

/** The JAAS line Kafka's Java clients need for a SASL user. */
export function jaasConfig(mechanism: string, username: string, password: string): string {
  const module = LOGIN_MODULES[mechanism.toLowerCase()] ?? LOGIN_MODULES.plain;
  return `${module} required username=${jaasQuote(username)} password=${jaasQuote(password)};`;
}

/** Reads username and password out of a JAAS line (the inverse of jaasConfig), when present. */
export function parseJaasConfig(text: string): { module?: string; username?: string; password?: string } {
  const out: { module?: string; username?: string; password?: string } = {};
  const m = /^\s*([A-Za-z0-9_.$]+)\s+(?:required|requisite|sufficient|optional)\b/.exec(text);
  if (m) out.module = m[1];
  const opt = /([A-Za-z_.]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]+))/g;
  let r: RegExpExecArray | null;
  while ((r = opt.exec(text)) !== null) {
    const value = r[2] !== undefined ? r[2].replace(/\\(.)/g, '$1') : r[3];
    if (r[1] === 'username') out.username = value;
    else if (r[1] === 'password') out.password = value;
  }
  return out;
}

/** The client properties (security part) of one cluster, without prefix, and notes about what cannot be exported. */
function clusterSecurity(
  c: ClusterExportSettings,
  role: 'source' | 'target',
): { props: Array<[string, string]>; notes: ExportNote[] } {
  const props: Array<[string, string]> = [];
  const notes: ExportNote[] = [];
  const mech = textOf(c.saslMechanism).trim().toLowerCase();
  const sasl = mech !== '' && mech !== 'none';
  const tls = c.tls !== undefined && c.tls !== false && c.tls !== null;
  if (!sasl && !tls) return { props, notes };
  props.push(['security.protocol', sasl ? (tls ? 'SASL_SSL' : 'SASL_PLAINTEXT') : 'SSL']);
  if (sasl) {
    props.push(['sasl.mechanism', mech.toUpperCase()]);
    props.push(['sasl.jaas.config', jaasConfig(mech, textOf(c.username), textOf(c.password))]);
  }
  if (tls && typeof c.tls === 'object') {
    const t = c.tls;
    if (t.ca) {
      props.push(['ssl.truststore.type', 'PEM']);
      props.push(['ssl.truststore.location', t.ca]);
    }
    if (t.verifyServerCert === false) {
      props.push(['ssl.endpoint.identification.algorithm', '']);
      notes.push({
        code: 'tls-no-verify',
        text: `${role} cluster: host name verification is off (ssl.endpoint.identification.algorithm empty); Java clients still check the certificate chain against the trust store.`,
      });
    }
    if (t.cert || t.key) {
      notes.push({
        code: 'tls-client-cert',
        text: `${role} cluster: Kafka's Java clients take the client certificate and key from one key store; set ${role}.cluster.ssl.keystore.type=PEM and ${role}.cluster.ssl.keystore.location to one PEM file holding the key and the certificate chain (or a PKCS12 key store) by hand.`,
      });
    }
    if (t.uploaded) {
      notes.push({
        code: 'tls-uploaded',
        text: `${role} cluster: certificates uploaded into Node-RED cannot be exported; put them in files on the Connect workers and set the ssl.truststore / ssl.keystore properties.`,
      });
    }
  }
  return { props, notes };
}

function bootstrapText(v: unknown): string {
  const items = Array.isArray(v) ? v.map((x) => String(x)) : textOf(v).split(/[\s,]+/);
  return items.map((s) => s.trim()).filter((s) => s.length > 0).join(', ');
}

const SHORT_POLICY: Record<string, string> = {
  DefaultReplicationPolicy: 'org.apache.kafka.connect.mirror.DefaultReplicationPolicy',
  IdentityReplicationPolicy: 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy',
};

/** Picks the node of a type whose settings are exported: enabled before disabled; a heartbeat node that emits first. */
function pickNode(nodes: FlowNodeSettings[], type: string, notes: ExportNote[]): FlowNodeSettings | undefined {
  const of = nodes.filter((n) => n && n.type === type);
  if (of.length === 0) return undefined;
  const rank = (n: FlowNodeSettings): number =>
    (n.d === true ? 2 : 0) + (type === 'mm2-heartbeat' && !boolOf(n[fieldName('emit.heartbeats.enabled')], true) ? 1 : 0);
  const sorted = [...of].sort((a, b) => rank(a) - rank(b));
  if (of.length > 1) {
    const label = (n: FlowNodeSettings) => (n.name ? `'${n.name}'` : n.id ? n.id : type);
    notes.push({
      code: 'several-nodes',
      text: `${of.length} ${type} nodes use this replication flow; the settings of ${label(sorted[0])} are exported (an enabled node before a disabled one${type === 'mm2-heartbeat' ? ', one that emits first' : ''}).`,
      connector: FLOW_NODE_CONNECTOR[type],
    });
  }
  return sorted[0];
}

function tasksMaxFor(options: ExportOptions, kind: ConnectorKind): number | undefined {
  const t = options.tasksMax;
  if (t === undefined || t === null) return undefined;
  if (typeof t === 'number') return t;
  return t[kind];
}

// ---------------------------------------------------------------------------------------------
// Export
// ---------------------------------------------------------------------------------------------

interface FlowModel {
  sourceAlias: string;
  targetAlias: string;
  sourceBootstrap: string;
  targetBootstrap: string;
  /** replication.policy.* (all connectors). */
  policy: Array<[string, string]>;
  location: string;
  rf: number;
  sourceSecurity: Array<[string, string]>;
  targetSecurity: Array<[string, string]>;
  /** Per connector: MM2 property -> value from the flow nodes. */
  perConnector: Record<ConnectorKind, Array<[string, SettingValue]>>;
  from: Record<ConnectorKind, string[]>;
  offsetFlushMs?: number;
  /** The `topics`/`topics.exclude` the mirror and checkpoint nodes gave (for the dedicated-mode check). */
  topicsBy: { source?: [string, string]; checkpoint?: [string, string] };
  heartbeatEmit?: boolean;
}

function buildModel(input: FlowExportInput, options: ExportOptions, notes: ExportNote[], problems: ConfigProblem[]): FlowModel {
  const lookup: EnvLookup = options.lookup ?? (() => undefined);
  const sub = (property: string, raw: unknown): string => {
    const s = substituteEnv(textOf(raw), lookup);
    if (s.missing.length > 0) problems.push({ property, reason: missingEnvReason(s.missing) });
    return s.value.trim();
  };
  const sourceAlias = sub('source.cluster.alias', input.source?.alias);
  const targetAlias = sub('target.cluster.alias', input.target?.alias);
  const sourceBootstrap = bootstrapText(sub('source.cluster.bootstrap.servers', bootstrapText(input.source?.bootstrap)));
  const targetBootstrap = bootstrapText(sub('target.cluster.bootstrap.servers', bootstrapText(input.target?.bootstrap)));
  if (sourceAlias !== '' && sourceAlias === targetAlias) {
    problems.push({ property: 'target.cluster.alias', reason: `equals source.cluster.alias '${sourceAlias}'; MM2 needs distinct aliases` });
  }

  const rep = input.replication ?? {};
  const policyName = textOf(rep.policy).trim();
  const policyClass = SHORT_POLICY[policyName] ?? (policyName === '' ? SHORT_POLICY.DefaultReplicationPolicy : policyName);
  const separator = isBlank(rep.separator) ? '.' : textOf(rep.separator);
  const internalSeparator = boolOf(rep.internalSeparator, true);
  const location = textOf(rep.offsetSyncsLocation).trim() === 'target' ? 'target' : 'source';
  // As the user wrote it: -1 (the broker's default.replication.factor) is carried, a bad value is a problem.
  const rfText = isBlank(rep.replicationFactor) ? '3' : textOf(rep.replicationFactor).trim();
  const rfRaw = /^[+-]?[0-9]+$/.test(rfText) ? Number(rfText) : NaN;
  const rf = Number.isInteger(rfRaw) && (rfRaw >= 1 || rfRaw === -1) && rfRaw <= 32767 ? rfRaw : 3;
  if (rf !== rfRaw) {
    problems.push({ property: 'checkpoints.topic.replication.factor', reason: `'${rfText}' is not a replication factor (a whole number of at least 1, or -1 for the broker's default.replication.factor)` });
  }

  const src = clusterSecurity(input.source ?? {}, 'source');
  const tgt = clusterSecurity(input.target ?? {}, 'target');
  notes.push(...src.notes, ...tgt.notes);

  const perConnector: Record<ConnectorKind, Array<[string, SettingValue]>> = { source: [], checkpoint: [], heartbeat: [] };
  const from: Record<ConnectorKind, string[]> = { source: [], checkpoint: [], heartbeat: [] };
  const nodes = Array.isArray(input.nodes) ? input.nodes : [];
  const model: FlowModel = {
    sourceAlias,
    targetAlias,
    sourceBootstrap,
    targetBootstrap,
    policy: [
      ['replication.policy.class', policyClass],
      ['replication.policy.separator', separator],
      ['replication.policy.internal.topic.separator.enabled', internalSeparator ? 'true' : 'false'],
    ],
    location,
    rf,
    sourceSecurity: src.props,
    targetSecurity: tgt.props,
    perConnector,
    from,
    topicsBy: {},
  };

  const read = (n: FlowNodeSettings, properties: readonly string[]): Record<string, SettingValue> => {
    const r = resolveNodeSettings(n, properties, lookup);
    for (const p of r.problems) problems.push({ property: p.property, reason: `${n.type}${n.name ? ` '${n.name}'` : ''}: ${p.reason}` });
    return r.values;
  };

  // mirror -> MirrorSourceConnector
  const mirror = pickNode(nodes, 'mm2-mirror', notes);
  if (mirror) {
    const v = read(mirror, FLOW_NODE_PROPERTIES['mm2-mirror']);
    for (const p of FLOW_NODE_PROPERTIES['mm2-mirror']) if (v[p] !== undefined) perConnector.source.push([p, v[p]]);
    if (mirror.id) from.source.push(mirror.id);
    if (v['topics'] !== undefined) model.topicsBy.source = [String(v['topics']), String(v['topics.exclude'])];
    if (v['emit.offset-syncs.enabled'] === false) {
      // MM2 reads it in the checkpoint connector too (and rejects the config): say so before Connect does.
      perConnector.checkpoint.push(['emit.offset-syncs.enabled', false]);
      notes.push({
        code: 'no-offset-syncs',
        text: "the mirror node writes no offset syncs (emit.offset-syncs.enabled=false): MirrorCheckpointConnector can't run without them.",
        connector: 'checkpoint',
        property: 'emit.offset-syncs.enabled',
      });
    }
    const flush = substituteEnv(textOf(mirror[OFFSET_FLUSH_FIELD]), lookup);
    if (flush.missing.length > 0) problems.push({ property: 'offset.flush.interval.ms', reason: missingEnvReason(flush.missing) });
    else if (flush.value.trim() !== '') {
      const n = Number(flush.value.trim());
      if (Number.isSafeInteger(n) && n > 0) {
        model.offsetFlushMs = n;
        notes.push({
          code: 'worker-setting',
          text: `offset.flush.interval.ms=${n} (the mirror node's delayed offset-sync cadence) is a Kafka Connect worker setting, not a connector property: set it in the workers' configuration (mm2.properties carries it).`,
          connector: 'source',
          property: 'offset.flush.interval.ms',
        });
      } else problems.push({ property: 'offset.flush.interval.ms', reason: `must be a positive whole number of milliseconds (got '${flush.value}')` });
    }
  }

  // checkpoint (+ group offsets) -> MirrorCheckpointConnector
  const checkpoint = pickNode(nodes, 'mm2-checkpoint', notes);
  const groupOffsets = pickNode(nodes, 'mm2-group-offsets', notes);
  let cpGroups: [string, string] | undefined;
  if (checkpoint) {
    const v = read(checkpoint, FLOW_NODE_PROPERTIES['mm2-checkpoint']);
    for (const p of FLOW_NODE_PROPERTIES['mm2-checkpoint']) if (v[p] !== undefined) perConnector.checkpoint.push([p, v[p]]);
    if (checkpoint.id) from.checkpoint.push(checkpoint.id);
    if (v['groups'] !== undefined) cpGroups = [String(v['groups']), String(v['groups.exclude'])];
    if (v['topics'] !== undefined) model.topicsBy.checkpoint = [String(v['topics']), String(v['topics.exclude'])];
  }
  if (groupOffsets) {
    // The node takes fractional seconds; MM2's property is a long.
    const raw = groupOffsets[fieldName('sync.group.offsets.interval.seconds')];
    const s = substituteEnv(textOf(raw), lookup);
    const copy: FlowNodeSettings = { ...groupOffsets };
    if (s.missing.length === 0 && s.value.trim() !== '') {
      const n = Number(s.value.trim());
      if (Number.isFinite(n) && n > 0 && !Number.isInteger(n)) {
        copy[fieldName('sync.group.offsets.interval.seconds')] = String(Math.ceil(n));
        notes.push({
          code: 'interval-rounded',
          text: `sync.group.offsets.interval.seconds ${n} rounded up to ${Math.ceil(n)}: MM2 takes whole seconds.`,
          connector: 'checkpoint',
          property: 'sync.group.offsets.interval.seconds',
        });
      }
    }
    const v = read(copy, FLOW_NODE_PROPERTIES['mm2-group-offsets']);
    perConnector.checkpoint.push(['sync.group.offsets.enabled', true]);
    if (v['sync.group.offsets.interval.seconds'] !== undefined) {
      perConnector.checkpoint.push(['sync.group.offsets.interval.seconds', v['sync.group.offsets.interval.seconds']]);
    }
    if (groupOffsets.id) from.checkpoint.push(groupOffsets.id);
    const goGroups: [string, string] = [String(v['groups']), String(v['groups.exclude'])];
    const dflt = (p: string) => String(normaliseDefault(p));
    const goIsDefault = goGroups[0] === dflt('groups') && goGroups[1] === dflt('groups.exclude');
    if (!checkpoint) {
      perConnector.checkpoint.push(['groups', goGroups[0]], ['groups.exclude', goGroups[1]]);
    } else if (!goIsDefault && cpGroups && (goGroups[0] !== cpGroups[0] || goGroups[1] !== cpGroups[1])) {
      notes.push({
        code: 'group-filter',
        text: `the group-offsets node syncs only groups '${goGroups[0]}' (excluding '${goGroups[1]}'); MM2 syncs the offsets of every group it checkpoints ('${cpGroups[0]}', excluding '${cpGroups[1]}'): narrow the checkpoint node's groups if that matters.`,
        connector: 'checkpoint',
        property: 'groups',
      });
    }
  }

  // heartbeat -> MirrorHeartbeatConnector
  const heartbeat = pickNode(nodes, 'mm2-heartbeat', notes);
  if (heartbeat) {
    const v = read(heartbeat, FLOW_NODE_PROPERTIES['mm2-heartbeat']);
    for (const p of FLOW_NODE_PROPERTIES['mm2-heartbeat']) if (v[p] !== undefined) perConnector.heartbeat.push([p, v[p]]);
    if (heartbeat.id) from.heartbeat.push(heartbeat.id);
    model.heartbeatEmit = v['emit.heartbeats.enabled'] !== false;
  }
  return model;
}

function normaliseDefault(property: string): SettingValue | undefined {
  return getPropertyDef(property)?.default as SettingValue | undefined;
}

/** The settings of one connector (typed, before secrets are replaced). */
function connectorSettings(kind: ConnectorKind, model: FlowModel, options: ExportOptions, name: string): Record<string, SettingValue> {
  const s: Record<string, SettingValue> = {
    name,
    'connector.class': CONNECTOR_CLASS_NAMES[kind],
  };
  const tasks = tasksMaxFor(options, kind);
  if (tasks !== undefined) s['tasks.max'] = tasks;
  s['key.converter'] = BYTE_ARRAY_CONVERTER;
  s['value.converter'] = BYTE_ARRAY_CONVERTER;
  s['header.converter'] = BYTE_ARRAY_CONVERTER;
  s['source.cluster.alias'] = model.sourceAlias;
  s['target.cluster.alias'] = model.targetAlias;
  for (const [k, v] of model.policy) s[k] = v;
  if (model.sourceBootstrap) s['source.cluster.bootstrap.servers'] = model.sourceBootstrap;
  if (model.targetBootstrap) s['target.cluster.bootstrap.servers'] = model.targetBootstrap;
  for (const [k, v] of model.sourceSecurity) s[`source.cluster.${k}`] = v;
  for (const [k, v] of model.targetSecurity) s[`target.cluster.${k}`] = v;
  for (const [k, v] of model.perConnector[kind]) s[k] = v;
  if (kind === 'source') {
    s['offset-syncs.topic.location'] = model.location;
    s['offset-syncs.topic.replication.factor'] = model.rf;
  } else if (kind === 'checkpoint') {
    s['offset-syncs.topic.location'] = model.location;
    s['checkpoints.topic.replication.factor'] = model.rf;
  } else {
    s['heartbeats.topic.replication.factor'] = model.rf;
  }
  for (const [k, v] of Object.entries(options.extraProperties?.[kind] ?? {})) {
    if (v !== undefined && v !== null) s[k] = String(v);
  }
  return s;
}

function withSecretsReplaced(
  settings: Record<string, SettingValue>,
  includeSecrets: boolean,
  secretsFile: string,
  secrets: Map<string, string>,
): Record<string, SettingValue> {
  const out: Record<string, SettingValue> = {};
  for (const [k, v] of Object.entries(settings)) {
    const text = settingToString(v);
    if (isSecretProperty(k) && text.trim() !== '' && !CONFIG_PROVIDER_REFERENCE.test(text.trim())) {
      secrets.set(k, text);
      out[k] = includeSecrets ? v : secretPlaceholder(k, secretsFile);
    } else out[k] = v;
  }
  return out;
}

function warningComment(): string {
  return `# ${SECRETS_WARNING}\n`;
}

/** The secrets file for the references: `property=value`, passwords masked. */
function secretsTemplate(secrets: Map<string, string>): string {
  if (secrets.size === 0) return '';
  const lines = ['# Secrets for the MM2 connector configs: one line per ${file:...:<property>} reference.'];
  for (const [k, v] of secrets) {
    let shown = v;
    if (/sasl\.jaas\.config$/.test(k)) {
      const j = parseJaasConfig(v);
      if (j.password !== undefined) shown = v.replace(/password\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^\s;]+)/, 'password="<password>"');
    } else shown = '<secret>';
    lines.push(`${escapePropertiesText(k, true)}=${propsValue(shown)}`);
  }
  return lines.join('\n') + '\n';
}

/** The connector name used by default: `mm2-<source>-<target>-<kind>`. */
export function defaultConnectorName(sourceAlias: string, targetAlias: string, kind: ConnectorKind, prefix?: string): string {
  return `${prefix ?? `mm2-${sourceAlias}-${targetAlias}-`}${kind}`;
}

/**
 * Exports a replication flow as MM2 connector configs (see the file comment). Never throws for
 * bad settings: they are in `problems` (by MM2 property), and the rest is still exported.
 */
export function exportConnectors(input: FlowExportInput, options: ExportOptions = {}): ConnectorExport {
  const notes: ExportNote[] = [];
  const problems: ConfigProblem[] = [];
  const model = buildModel(input, options, notes, problems);
  const includeSecrets = options.includeSecrets === true;
  const secretsFile = options.secretsFile && options.secretsFile.trim() !== '' ? options.secretsFile.trim() : DEFAULT_SECRETS_FILE;
  const kinds = (options.connectors ?? CONNECTOR_KINDS).filter((k, i, a) => CONNECTOR_KINDS.includes(k) && a.indexOf(k) === i);
  const secrets = new Map<string, string>();
  const connectors: ExportedConnector[] = [];

  for (const kind of CONNECTOR_KINDS.filter((k) => kinds.includes(k))) {
    const name = options.names?.[kind] ?? defaultConnectorName(model.sourceAlias, model.targetAlias, kind, options.namePrefix);
    const raw = connectorSettings(kind, model, options, name);
    // Check every value with the catalogue: an export must be a config MM2 accepts.
    const check = analyzeConnectorConfig(raw);
    for (const p of check.problems) {
      const cls = CONNECTOR_CLASS_NAMES[kind].split('.').pop() as string;
      const reason = p.reason.startsWith(cls) ? p.reason : `${cls}: ${p.reason}`;
      if (!problems.some((q) => q.property === p.property && (q.reason === p.reason || q.reason.endsWith(p.reason)))) problems.push({ property: p.property, reason });
    }
    const written = withSecretsReplaced(raw, includeSecrets, secretsFile, secrets);
    const fmt = (format: ConfigFormat) => formatConnectorConfig(written, format, { includeSecrets: true });
    const config: Record<string, string> = {};
    for (const [k, v] of Object.entries(JSON.parse(fmt('json')).config as Record<string, string>)) config[k] = v;
    const head = includeSecrets && [...secrets.keys()].some((k) => k in raw) ? warningComment() : '';
    const refs = !includeSecrets && Object.values(written).some((v) => typeof v === 'string' && v.startsWith('${file:'))
      ? `# Secrets are \${file:${secretsFile}:<property>} references, resolved by the workers' FileConfigProvider.\n`
      : '';
    connectors.push({
      kind,
      name,
      from: model.from[kind],
      settings: analyzeConnectorConfig(written).settings,
      config,
      rest: { name, config },
      json: fmt('json'),
      yaml: head + refs + fmt('yaml'),
      properties: head + refs + fmt('properties'),
    });
    if (model.from[kind].length === 0 && (input.nodes ?? []).length > 0) {
      notes.push({
        code: 'no-node',
        text: `no ${kind === 'source' ? 'mm2-mirror' : kind === 'checkpoint' ? 'mm2-checkpoint' : 'mm2-heartbeat'} node uses this replication flow: ${CONNECTOR_CLASS_NAMES[kind].split('.').pop()} gets MM2's defaults and the flow-wide settings.`,
        connector: kind,
      });
    }
  }
  if (kinds.includes('heartbeat') && model.heartbeatEmit !== undefined) {
    notes.push({
      code: 'heartbeats-direction',
      text: `MirrorHeartbeatConnector writes Heartbeat(${model.sourceAlias}, ${model.targetAlias}) into the target's 'heartbeats' topic; the mm2-heartbeat node writes into the source's, so that the mirror carries them to '${model.sourceAlias}${model.policy[1][1]}heartbeats' on the target where it measures latency. Keep an mm2-heartbeat node emitting (or use dedicated mode, whose ${model.targetAlias}->${model.sourceAlias} herder writes into the source) to keep that round trip.`,
      connector: 'heartbeat',
    });
  }

  const mm2 = mm2PropertiesText(model, options, kinds, includeSecrets, secretsFile, secrets, notes);
  if (!includeSecrets && secrets.size > 0) notes.unshift({ code: 'secrets-referenced', text: REFERENCES_NOTE(secretsFile) });
  if (includeSecrets && secrets.size > 0) notes.unshift({ code: 'secrets-included', text: SECRETS_WARNING });
  return {
    sourceAlias: model.sourceAlias,
    targetAlias: model.targetAlias,
    connectors,
    mm2Properties: mm2,
    secrets: {
      included: includeSecrets && secrets.size > 0,
      properties: [...secrets.keys()],
      secretsFile,
      template: includeSecrets ? '' : secretsTemplate(secrets),
    },
    ...(includeSecrets && secrets.size > 0 ? { warning: SECRETS_WARNING } : {}),
    notes,
    problems,
  };
}

/** MM2 dedicated mode: flow-prefixed properties (`S->T.x`), cluster-prefixed client settings (`S.x`). */
function mm2PropertiesText(
  model: FlowModel,
  options: ExportOptions,
  kinds: readonly ConnectorKind[],
  includeSecrets: boolean,
  secretsFile: string,
  secrets: Map<string, string>,
  notes: ExportNote[],
): string {
  const S = model.sourceAlias;
  const T = model.targetAlias;
  const flow = `${S}->${T}`;
  const back = `${T}->${S}`;
  const lines: string[] = [];
  const pairs: Array<[string, string]> = [];
  const put = (k: string, v: SettingValue) => pairs.push([k, settingToString(v)]);
  put('clusters', `${S}, ${T}`);
  put(`${S}.bootstrap.servers`, model.sourceBootstrap);
  put(`${T}.bootstrap.servers`, model.targetBootstrap);
  for (const [k, v] of model.sourceSecurity) put(`${S}.${k}`, v);
  for (const [k, v] of model.targetSecurity) put(`${T}.${k}`, v);
  for (const [k, v] of model.policy) put(k, v);
  put(`${flow}.enabled`, true);
  put(`${back}.enabled`, false);
  // One `topics` per flow in dedicated mode: the mirror's (what is replicated) wins.
  const seen = new Set<string>();
  const flowProps: Array<[string, SettingValue]> = [];
  const order: ConnectorKind[] = ['source', 'checkpoint'];
  for (const kind of order) {
    if (!kinds.includes(kind)) continue;
    for (const [k, v] of model.perConnector[kind]) {
      if (seen.has(k)) continue;
      seen.add(k);
      flowProps.push([k, v]);
    }
  }
  const ts = model.topicsBy;
  if (kinds.includes('source') && kinds.includes('checkpoint') && ts.source && ts.checkpoint && (ts.source[0] !== ts.checkpoint[0] || ts.source[1] !== ts.checkpoint[1])) {
    notes.push({
      code: 'dedicated-topics',
      text: `mm2.properties: dedicated mode has one topics / topics.exclude per flow; the mirror node's ('${ts.source[0]}' excluding '${ts.source[1]}') is used, the checkpoint node's ('${ts.checkpoint[0]}' excluding '${ts.checkpoint[1]}') is not.`,
      property: 'topics',
    });
  }
  for (const [k, v] of flowProps) put(`${flow}.${k}`, v);
  if (kinds.includes('source') || kinds.includes('checkpoint')) put(`${flow}.offset-syncs.topic.location`, model.location);
  if (!kinds.includes('source')) put(`${flow}.emit.offset-syncs.enabled`, true);
  if (!kinds.includes('checkpoint')) put(`${flow}.emit.checkpoints.enabled`, false);
  // Heartbeats: the flow's herder writes into the target; the reverse herder's (which runs even
  // though T->S is disabled) writes into the source, as the mm2-heartbeat node does.
  const hb = model.perConnector.heartbeat;
  const hbOn = kinds.includes('heartbeat');
  for (const dir of [flow, back]) {
    if (!hbOn) put(`${dir}.emit.heartbeats.enabled`, false);
    else for (const [k, v] of hb) put(`${dir}.${k}`, v);
  }
  const tasks = tasksMaxFor(options, 'source') ?? tasksMaxFor(options, 'checkpoint');
  if (tasks !== undefined) put('tasks.max', tasks);
  for (const k of ['checkpoints.topic.replication.factor', 'heartbeats.topic.replication.factor', 'offset-syncs.topic.replication.factor']) put(k, model.rf);
  // The Connect worker's own internal topics of each herder (mm2-offsets.<alias>.internal, ...).
  for (const k of ['offset.storage.replication.factor', 'status.storage.replication.factor', 'config.storage.replication.factor']) put(k, model.rf);
  if (model.offsetFlushMs !== undefined) put('offset.flush.interval.ms', model.offsetFlushMs);
  for (const kind of kinds) {
    for (const [k, v] of Object.entries(options.extraProperties?.[kind] ?? {})) put(`${flow}.${k}`, v);
  }

  let refs = 0;
  const out: Array<[string, string]> = pairs.map(([k, v]) => {
    if (isSecretProperty(k) && v.trim() !== '' && !CONFIG_PROVIDER_REFERENCE.test(v.trim())) {
      secrets.set(k, v);
      if (!includeSecrets) {
        refs++;
        return [k, secretPlaceholder(k, secretsFile)];
      }
    }
    return [k, v];
  });
  lines.push('# MirrorMaker 2 dedicated mode: bin/connect-mirror-maker.sh mm2.properties');
  lines.push(`# The replication flow ${S} -> ${T}, exported from Node-RED (@kafka-mm2/node-red).`);
  if (includeSecrets && out.some(([k]) => isSecretProperty(k))) lines.push(`# ${SECRETS_WARNING}`);
  if (refs > 0) {
    lines.push(`# Secrets are \${file:${secretsFile}:<property>} references, resolved by FileConfigProvider.`);
    out.unshift(['config.providers.file.class', 'org.apache.kafka.common.config.provider.FileConfigProvider']);
    out.unshift(['config.providers', 'file']);
  }
  for (const [k, v] of out) lines.push(`${escapePropertiesText(k, true)}=${propsValue(v)}`);
  return lines.join('\n') + '\n';
}

/**
 * The connector configs MM2's dedicated mode derives from an mm2.properties for the flow
 * `source -> target` (default: the first enabled flow), read by core/pasted-configs the way
 * MirrorMakerConfig.connectorBaseConfig does: top-level connector properties, the clusters'
 * `S.`/`T.` settings as `source.cluster.`/`target.cluster.` (top-level security settings as their
 * defaults), then the flow's `S->T.` properties, which win; ByteArrayConverter forced; one per
 * connector. Worker settings (clusters, config.providers, *.storage.*, offset.flush.interval.ms)
 * are left out.
 */
export function connectorConfigsFromMm2Properties(
  text: string,
  flow?: { source: string; target: string },
): { source: string; target: string; configs: Record<ConnectorKind, Record<string, string>>; problems: ConfigProblem[] } {
  const read = mm2PropertiesFlows(text);
  const problems = [...read.problems];
  const f = flow ? read.flows.find((x) => x.source === flow.source && x.target === flow.target) : read.flows[0];
  if (!f) {
    if (flow) problems.push({ property: `${flow.source}->${flow.target}.enabled`, reason: `the flow ${flow.source}->${flow.target} is not enabled in the mm2.properties` });
    return { source: flow?.source ?? '', target: flow?.target ?? '', configs: { source: {}, checkpoint: {}, heartbeat: {} }, problems };
  }
  const configs = {} as Record<ConnectorKind, Record<string, string>>;
  for (const kind of CONNECTOR_KINDS) {
    const base = f.connectors.find((c) => c.kind === kind)?.config ?? {};
    const config: Record<string, string> = {};
    for (const [k, v] of Object.entries(base)) config[k] = String(v);
    configs[kind] = {
      ...config,
      'connector.class': CONNECTOR_CLASS_NAMES[kind],
      'key.converter': BYTE_ARRAY_CONVERTER,
      'value.converter': BYTE_ARRAY_CONVERTER,
      'header.converter': BYTE_ARRAY_CONVERTER,
    };
  }
  return { source: f.source, target: f.target, configs, problems };
}

// ---------------------------------------------------------------------------------------------
// Import
// ---------------------------------------------------------------------------------------------

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

const SECURITY_KEYS = ['security.protocol', 'sasl.mechanism', 'sasl.jaas.config', 'ssl.truststore.type', 'ssl.truststore.location', 'ssl.endpoint.identification.algorithm'];

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
 * the flow; nodes/lib/build-flow's nodeRedFlowFromImport turns it into importable Node-RED nodes
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

    const nodeType = kind === 'source' ? 'mm2-mirror' : kind === 'checkpoint' ? 'mm2-checkpoint' : 'mm2-heartbeat';
    const node: FlowNodeSettings = { type: nodeType };
    for (const p of FLOW_NODE_PROPERTIES[nodeType]) if (s[p] !== undefined) node[fieldName(p)] = fieldValue(p, s[p] as SettingValue);
    nodes.push(node);
    if (kind === 'checkpoint' && s['sync.group.offsets.enabled'] === true) {
      nodes.push({ type: 'mm2-group-offsets', syncGroupOffsetsIntervalSeconds: settingToString(s['sync.group.offsets.interval.seconds'] as SettingValue) });
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
      }
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

/** The three formats an export is shown in, plus `mm2` (the dedicated-mode mm2.properties). */
export type ExportFormat = 'json' | 'yaml' | 'properties' | 'mm2';

/** All connectors of an export as one text: a JSON array of REST bodies, YAML documents, .properties files, or mm2.properties. */
export function exportText(result: ConnectorExport, format: ExportFormat): string {
  switch (format) {
    case 'json':
      return JSON.stringify(result.connectors.map((c) => c.rest), null, 2) + '\n';
    case 'yaml':
      return result.connectors.map((c) => `# ${c.name} (${CONNECTOR_CLASS_NAMES[c.kind].split('.').pop()})\n${c.yaml}`).join('---\n');
    case 'properties':
      return result.connectors.map((c) => `# ---- ${c.name}.properties (${CONNECTOR_CLASS_NAMES[c.kind].split('.').pop()})\n${c.properties}`).join('\n');
    case 'mm2':
      return result.mm2Properties;
    default:
      throw new Error(`unknown export format '${String(format)}' (expected json, yaml, properties or mm2)`);
  }
}
