import { CONNECTOR_CLASS_NAMES, getPropertyDef, type ConnectorKind, type SettingValue } from '../core/config-properties';
import { missingEnvReason, substituteEnv, type EnvLookup } from '../core/env-substitution';
import type { ConfigProblem } from '../core/errors';
import { jaasConfig, oauthJaasConfig, OAUTHBEARER_LOGIN_CALLBACK_HANDLER } from '../core/export/jaas';
import { clusterFieldProblems, readClusterFields, type ClusterField, type ClusterFields } from '../core/cluster-settings';
import { CONNECTOR_KINDS, type ExportNote, type ExportOptions, type ReplicationModel } from '../core/export/model';
import { policyClassName } from '../core/replication-policy';
import { INTERNAL_TOPIC_REPLICATION_FACTORS, resolveReplicationSettings, type ReplicationNodeProperty } from '../core/replication-settings';
import { fieldName, resolveNodeSettings } from '../core/setting-fields';
import { FLOW_NODE_CONNECTOR, FLOW_NODE_PROPERTIES, NODE_TYPE_OF, NODE_TYPE_OF_SETTINGS, OFFSET_FLUSH_FIELD } from './node-types';

/**
 * A replication flow as Node-RED holds it (node definitions: an mm2-replication node, its two
 * mm2-cluster nodes with their tls-config, the flow nodes that use it, `d: true` when disabled)
 * read into the replication model of core/export. Node fields are the camelCase of MM2 property
 * names (core/setting-fields), read with the resolver every node uses (empty = MM2's default,
 * `${VAR}` substituted, checked by the catalogue), so an export says exactly what the nodes do.
 * The mm2-replication and mm2-cluster nodes' fields go through the runtime's own readers
 * (core/replication-settings, core/cluster-settings): a value a node refuses is a problem in its
 * words, written as given, never replaced by a default. Each node's `${VAR}` is looked up as that
 * node resolves it (ExportOptions.nodeLookup, else `lookup`).
 *
 * Secrets: credentials (username, password, OAUTHBEARER client secret) are used as stored, never
 * substituted (the nodes do not substitute them either); written in clear only with includeSecrets,
 * otherwise each secret property is a `${file:...}` config-provider reference (core/export).
 */

export type SaslMechanismName = 'none' | 'plain' | 'scram-sha-256' | 'scram-sha-512' | 'oauthbearer';

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
  /**
   * The tls-config node the cluster node refers to (its id; its definition, undefined when no
   * such node exists), checked by ExportOptions.checkTls as the runtime checks it.
   */
  tlsNode?: { id: string; definition?: Readonly<Record<string, unknown>> };
  saslMechanism?: SaslMechanismName | string;
  username?: string;
  password?: string;
  /** OAUTHBEARER (the mm2-cluster node's fields): token endpoint URL, client id, scope, `key=value, ...` extensions. */
  oauthTokenEndpoint?: string;
  oauthClientId?: string;
  oauthScope?: string;
  oauthExtensions?: string;
  /** OAUTHBEARER client secret, only when secrets are to be exported. */
  oauthClientSecret?: string;
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

function textOf(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

function boolOf(v: unknown, dflt: boolean): boolean {
  if (typeof v === 'boolean') return v;
  const s = textOf(v).trim().toLowerCase();
  if (s === 'true') return true;
  if (s === 'false') return false;
  return dflt;
}

/** The client properties (security part) of one cluster, without prefix, and notes about what cannot be exported. */
function clusterSecurity(
  c: ClusterExportSettings,
  role: 'source' | 'target',
  read: ClusterFields,
): { props: Array<[string, string]>; notes: ExportNote[] } {
  const props: Array<[string, string]> = [];
  const notes: ExportNote[] = [];
  const mech = read.mechanism;
  const sasl = mech !== '' && mech !== 'none';
  const tls = c.tls !== undefined && c.tls !== false && c.tls !== null;
  if (!sasl && !tls) return { props, notes };
  props.push(['security.protocol', sasl ? (tls ? 'SASL_SSL' : 'SASL_PLAINTEXT') : 'SSL']);
  if (sasl && read.oauth) {
    // Kafka's Java client does the client-credentials flow itself with its login callback handler
    const url = read.oauth.tokenEndpointUrl;
    props.push(['sasl.mechanism', 'OAUTHBEARER']);
    props.push(['sasl.oauthbearer.token.endpoint.url', url]);
    props.push(['sasl.login.callback.handler.class', OAUTHBEARER_LOGIN_CALLBACK_HANDLER]);
    // the client secret as stored (a credential: never substituted)
    props.push(['sasl.jaas.config', oauthJaasConfig(read.oauth.clientId, textOf(c.oauthClientSecret), read.oauth.scope, read.oauth.extensions)]);
    notes.push({
      code: 'oauth-allowed-urls',
      text: `${role} cluster: Kafka's Java clients call the token endpoint only when the JVM system property org.apache.kafka.sasl.oauthbearer.allowed.urls lists it (required from Kafka 4.0): start the Connect workers with -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=${url} (e.g. in KAFKA_OPTS).`,
      property: `${role}.cluster.sasl.oauthbearer.token.endpoint.url`,
    });
  } else if (sasl) {
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

/** The MM2 property (of a role) each exported field of a cluster node is written to; fields the export does not write have none. */
const CLUSTER_FIELD_PROPERTY: Partial<Record<ClusterField, string>> = {
  alias: 'cluster.alias',
  bootstrap: 'cluster.bootstrap.servers',
  saslMechanism: 'cluster.sasl.mechanism',
  username: 'cluster.sasl.jaas.config',
  password: 'cluster.sasl.jaas.config',
  oauthTokenEndpoint: 'cluster.sasl.oauthbearer.token.endpoint.url',
  oauthClientId: 'cluster.sasl.jaas.config',
  oauthClientSecret: 'cluster.sasl.jaas.config',
  oauthScope: 'cluster.sasl.jaas.config',
  oauthExtensions: 'cluster.sasl.jaas.config',
};

/** The MM2 property a file of a cluster's TLS configuration is exported to. */
const TLS_FIELD_PROPERTY = { ca: 'ssl.truststore.location', cert: 'ssl.keystore.location', key: 'ssl.keystore.location' } as const;

/**
 * The TLS configuration of a cluster node with TLS on, checked as the runtime checks it
 * (ExportOptions.checkTls): each problem (a node that does not exist, a missing or garbage file,
 * a certificate without its key, ...) is a problem of the property that file is exported to, in
 * the runtime's words, so the export is refused instead of handing MM2 a config it fails on.
 */
function checkClusterTls(c: ClusterExportSettings, role: 'source' | 'target', options: ExportOptions, problems: ConfigProblem[]): void {
  if (!options.checkTls || !c.tlsNode || c.tls === undefined || c.tls === false || c.tls === null) return;
  for (const p of options.checkTls(c.tlsNode)) {
    problems.push({ property: `${role}.cluster.${p.field ? TLS_FIELD_PROPERTY[p.field] : 'security.protocol'}`, reason: p.text });
  }
}

/**
 * A cluster node read as the node reads itself (core/cluster-settings): every problem of a field
 * the export writes is a problem of its MM2 property, in the node's words (an unset variable once,
 * not also the check of the text left as written). The password and client secret are checked only
 * when secrets are exported: otherwise they are not read, and the export writes references.
 */
function readCluster(c: ClusterExportSettings, role: 'source' | 'target', lookup: EnvLookup, secrets: boolean, problems: ConfigProblem[]): ClusterFields {
  const read = readClusterFields(c as unknown as Readonly<Record<string, unknown>>, lookup);
  const propertyOf = (field: ClusterField): string | undefined => {
    const p = CLUSTER_FIELD_PROPERTY[field];
    return p === undefined ? undefined : `${role}.${p}`;
  };
  for (const [field, missing] of Object.entries(read.missingEnv) as Array<[ClusterField, string[]]>) {
    const property = propertyOf(field);
    if (property) problems.push({ property, reason: missingEnvReason(missing) });
  }
  const sasl = read.oauth
    ? { mechanism: read.mechanism, oauth: { ...read.oauth, clientSecret: textOf(c.oauthClientSecret) } }
    : read.mechanism !== 'none'
      ? { mechanism: read.mechanism, username: textOf(c.username), password: textOf(c.password) }
      : undefined;
  const checked = clusterFieldProblems({ alias: read.alias, bootstrapServers: read.bootstrapServers, ...(sasl ? { sasl } : {}) }, { secrets });
  for (const p of [...read.fieldProblems, ...checked]) {
    const property = propertyOf(p.field);
    if (property && read.missingEnv[p.field] === undefined) problems.push({ property, reason: p.text });
  }
  return read;
}


/** Picks the node of a type whose settings are exported: enabled before disabled; a heartbeat node that emits first. */
function pickNode(nodes: FlowNodeSettings[], type: string, notes: ExportNote[]): FlowNodeSettings | undefined {
  const of = nodes.filter((n) => n && n.type === type);
  if (of.length === 0) return undefined;
  const rank = (n: FlowNodeSettings): number =>
    (n.d === true ? 2 : 0) + (type === NODE_TYPE_OF.heartbeat && !boolOf(n[fieldName('emit.heartbeats.enabled')], true) ? 1 : 0);
  const sorted = [...of].sort((a, b) => rank(a) - rank(b));
  if (of.length > 1) {
    const label = (n: FlowNodeSettings) => (n.name ? `'${n.name}'` : n.id ? n.id : type);
    notes.push({
      code: 'several-nodes',
      text: `${of.length} ${type} nodes use this replication flow; the settings of ${label(sorted[0])} are exported (an enabled node before a disabled one${type === NODE_TYPE_OF.heartbeat ? ', one that emits first' : ''}).`,
      connector: FLOW_NODE_CONNECTOR[type],
    });
  }
  return sorted[0];
}

/** The replication node's part of the model: read by the runtime's reader, refused values as given. */
function readReplication(
  rep: ReplicationExportSettings,
  lookup: EnvLookup,
  problems: ConfigProblem[],
): Pick<ReplicationModel, 'policy' | 'location' | 'rf' | 'reported'> {
  const r = resolveReplicationSettings(rep as Readonly<Record<string, unknown>>, lookup);
  problems.push(...r.problems);
  const refused = new Set(r.problems.map((p) => p.property));
  const value = (property: ReplicationNodeProperty, ok: string): string => (refused.has(property) ? r.given[property] : ok);
  const rfRefused = refused.has('checkpoints.topic.replication.factor');
  return {
    policy: [
      ['replication.policy.class', value('replication.policy.class', policyClassName(r.policy))],
      ['replication.policy.separator', value('replication.policy.separator', r.separator)],
      ['replication.policy.internal.topic.separator.enabled', value('replication.policy.internal.topic.separator.enabled', r.internalSeparator ? 'true' : 'false')],
    ],
    location: value('offset-syncs.topic.location', r.offsetSyncsLocation),
    rf: rfRefused ? r.given['checkpoints.topic.replication.factor'] : r.replicationFactor,
    // one field, three properties: its problem is reported once
    reported: [...refused, ...(rfRefused ? INTERNAL_TOPIC_REPLICATION_FACTORS : [])],
  };
}

/**
 * Reads a replication flow (an mm2-replication node, its two mm2-cluster nodes and the flow nodes
 * that use it) into the replication model an export takes; what it meets goes to `notes` and
 * `problems` (by MM2 property).
 */
export function readFlow(input: FlowExportInput, options: ExportOptions, notes: ExportNote[], problems: ConfigProblem[]): ReplicationModel {
  const lookup: EnvLookup = options.lookup ?? (() => undefined);
  // A node's `${VAR}` as the runtime resolves it for that node (its flow's env), else the export's lookup.
  const lookupOf = (id: unknown): EnvLookup => (typeof id === 'string' && id !== '' ? options.nodeLookup?.(id) : undefined) ?? lookup;
  // The cluster nodes' fields through the runtime's reader (core/cluster-settings), refused in its words.
  const secrets = options.includeSecrets === true;
  const before = problems.length;
  const sourceCluster = readCluster(input.source ?? {}, 'source', lookupOf(input.source?.id), secrets, problems);
  const targetCluster = readCluster(input.target ?? {}, 'target', lookupOf(input.target?.id), secrets, problems);
  const clusterReported = problems.slice(before).map((p) => p.property);
  const sourceAlias = sourceCluster.alias;
  const targetAlias = targetCluster.alias;
  const sourceBootstrap = sourceCluster.bootstrapServers.join(', ');
  const targetBootstrap = targetCluster.bootstrapServers.join(', ');
  if (sourceAlias !== '' && sourceAlias === targetAlias) {
    problems.push({ property: 'target.cluster.alias', reason: `equals source.cluster.alias '${sourceAlias}'; MM2 needs distinct aliases` });
  }

  // The replication node's fields through the runtime's own reader (core/replication-settings):
  // a value it refuses is a problem in its words, written as given, never replaced by a default.
  const rep = readReplication(input.replication ?? {}, lookupOf(input.replication?.id), problems);

  for (const role of ['source', 'target'] as const) checkClusterTls(input[role] ?? {}, role, options, problems);
  const src = clusterSecurity(input.source ?? {}, 'source', sourceCluster);
  const tgt = clusterSecurity(input.target ?? {}, 'target', targetCluster);
  notes.push(...src.notes, ...tgt.notes);

  const perConnector: Record<ConnectorKind, Array<[string, SettingValue]>> = { source: [], checkpoint: [], heartbeat: [] };
  const from: Record<ConnectorKind, string[]> = { source: [], checkpoint: [], heartbeat: [] };
  const nodes = Array.isArray(input.nodes) ? input.nodes : [];
  const model: ReplicationModel = {
    sourceAlias,
    targetAlias,
    sourceBootstrap,
    targetBootstrap,
    policy: rep.policy,
    location: rep.location,
    rf: rep.rf,
    reported: [...(rep.reported ?? []), ...clusterReported],
    sourceSecurity: src.props,
    targetSecurity: tgt.props,
    perConnector,
    from,
    topicsBy: {},
    exportedFrom: 'Node-RED (@kafka-mm2/node-red)',
    settingsFrom: { source: 'the mirror node', checkpoint: 'the checkpoint node', heartbeat: 'the heartbeat node' },
    connectorNotes: { source: [], checkpoint: [], heartbeat: [] },
  };

  const read = (n: FlowNodeSettings, properties: readonly string[]): Record<string, SettingValue> => {
    const r = resolveNodeSettings(n, properties, lookupOf(n.id));
    for (const p of r.problems) problems.push({ property: p.property, reason: `${n.type}${n.name ? ` '${n.name}'` : ''}: ${p.reason}` });
    return r.values;
  };

  // mirror -> MirrorSourceConnector
  const mirror = pickNode(nodes, NODE_TYPE_OF.source, notes);
  if (mirror) {
    const v = read(mirror, FLOW_NODE_PROPERTIES[NODE_TYPE_OF.source]);
    for (const p of FLOW_NODE_PROPERTIES[NODE_TYPE_OF.source]) if (v[p] !== undefined) perConnector.source.push([p, v[p]]);
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
    const flush = substituteEnv(textOf(mirror[OFFSET_FLUSH_FIELD]), lookupOf(mirror.id));
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
  const checkpoint = pickNode(nodes, NODE_TYPE_OF.checkpoint, notes);
  const groupOffsets = pickNode(nodes, NODE_TYPE_OF_SETTINGS['group-offsets'], notes);
  let cpGroups: [string, string] | undefined;
  if (checkpoint) {
    const v = read(checkpoint, FLOW_NODE_PROPERTIES[NODE_TYPE_OF.checkpoint]);
    for (const p of FLOW_NODE_PROPERTIES[NODE_TYPE_OF.checkpoint]) if (v[p] !== undefined) perConnector.checkpoint.push([p, v[p]]);
    if (checkpoint.id) from.checkpoint.push(checkpoint.id);
    if (v['groups'] !== undefined) cpGroups = [String(v['groups']), String(v['groups.exclude'])];
    if (v['topics'] !== undefined) model.topicsBy.checkpoint = [String(v['topics']), String(v['topics.exclude'])];
  }
  if (groupOffsets) {
    // The node takes fractional seconds; MM2's property is a long.
    const raw = groupOffsets[fieldName('sync.group.offsets.interval.seconds')];
    const s = substituteEnv(textOf(raw), lookupOf(groupOffsets.id));
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
    const v = read(copy, FLOW_NODE_PROPERTIES[NODE_TYPE_OF_SETTINGS['group-offsets']]);
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
  const heartbeat = pickNode(nodes, NODE_TYPE_OF.heartbeat, notes);
  if (heartbeat) {
    const v = read(heartbeat, FLOW_NODE_PROPERTIES[NODE_TYPE_OF.heartbeat]);
    for (const p of FLOW_NODE_PROPERTIES[NODE_TYPE_OF.heartbeat]) if (v[p] !== undefined) perConnector.heartbeat.push([p, v[p]]);
    if (heartbeat.id) from.heartbeat.push(heartbeat.id);
  }
  for (const kind of CONNECTOR_KINDS) {
    if (from[kind].length === 0 && nodes.length > 0) {
      model.connectorNotes[kind].push({
        code: 'no-node',
        text: `no ${NODE_TYPE_OF[kind]} node uses this replication flow: ${CONNECTOR_CLASS_NAMES[kind].split('.').pop()} gets MM2's defaults and the flow-wide settings.`,
        connector: kind,
      });
    }
  }
  if (heartbeat) {
    model.connectorNotes.heartbeat.push({
      code: 'heartbeats-direction',
      text: `MirrorHeartbeatConnector writes Heartbeat(${model.sourceAlias}, ${model.targetAlias}) into the target's 'heartbeats' topic; the mm2-heartbeat node writes into the source's, so that the mirror carries them to '${model.sourceAlias}${model.policy[1][1]}heartbeats' on the target where it measures latency. Keep an mm2-heartbeat node emitting (or use dedicated mode, whose ${model.targetAlias}->${model.sourceAlias} herder writes into the source) to keep that round trip.`,
      connector: 'heartbeat',
    });
  }
  return model;
}

function normaliseDefault(property: string): SettingValue | undefined {
  return getPropertyDef(property)?.default as SettingValue | undefined;
}
