import { splitList } from './java-regex-list';
import {
  bootstrapServers, clusterAlias, INT_MAX, INT_MIN, javaClassList, javaClassName, nonNegativeMillis, notEmpty,
  positiveInterval, regexList, replicationFactor, SHORT_MAX, SHORT_MIN, TOPIC_CHARS,
} from './config-value-checks';

export { CONFIG_PROVIDER_REFERENCE, INT_MAX, SHORT_MAX } from './config-value-checks';
import { listItemsProblem } from './list-values';
import { REPLICATION_POLICY_SHORT_NAMES } from './replication-policy';

/**
 * The catalogue of every property a MirrorMaker 2 connector config may carry that this
 * package understands: the MM2 properties of the source, checkpoint and heartbeat connectors
 * (MirrorConnectorConfig, MirrorSourceConfig, MirrorCheckpointConfig, MirrorHeartbeatConfig), the Kafka Connect connector-level keys users paste with them, and the
 * per-cluster client keys (bootstrap and security) under `source.cluster.` / `target.cluster.`.
 *
 * Each entry knows its MM2 type, MM2's default, which connectors read it, a one-line
 * description, and how to turn the text Kafka Connect would receive into a typed JS value
 * (or why it cannot). Values are normalised the way Kafka's ConfigDef does (strings trimmed,
 * booleans case-insensitive) and then checked with the extra rules MM2 or Kafka apply later.
 */

/** MM2 / Kafka ConfigDef types. `password` is a string that must not be shown or exported in clear. */
export type PropertyType = 'string' | 'boolean' | 'int' | 'long' | 'short' | 'list' | 'class' | 'password';

/** The three MM2 connectors. */
export type ConnectorKind = 'source' | 'checkpoint' | 'heartbeat';

/** Where a property comes from: Kafka Connect's connector level, MM2 itself, or the Kafka clients MM2 creates. */
export type PropertyGroup = 'connect' | 'mm2' | 'client';

/** A normalised setting value: booleans as boolean, int/short/long as number, everything else as string. */
export type SettingValue = string | number | boolean;

/** JS type of a normalised value of each MM2 type. */
export type JsTypeOf<T extends PropertyType> = T extends 'boolean'
  ? boolean
  : T extends 'int' | 'long' | 'short'
    ? number
    : string;

/** Result of normalising one raw value. */
export type NormaliseResult<V = SettingValue> = { ok: true; value: V } | { ok: false; reason: string };

/** One catalogued property. */
export interface PropertyDef<N extends string = string, T extends PropertyType = PropertyType> {
  /** The MM2 / Kafka Connect property name, e.g. `emit.checkpoints.interval.seconds`. */
  readonly name: N;
  readonly type: T;
  /** MM2's default, already normalised; undefined when there is none (the Kafka client's or worker's applies). */
  readonly default: JsTypeOf<T> | undefined;
  /** True only for `source.cluster.alias`: a config without it is invalid. */
  readonly required: boolean;
  /** The connectors that read this property. */
  readonly connectors: readonly ConnectorKind[];
  readonly group: PropertyGroup;
  /** One line of English for the editor's help and tooltips. */
  readonly description: string;
  /** For properties that accept a fixed set of values: every accepted spelling and the canonical value it maps to. */
  readonly choices?: Readonly<Record<string, string>>;
  /**
   * Extra check on the already type-converted value; returns the reason it is invalid, or undefined.
   * Never throws.
   */
  readonly check?: (value: JsTypeOf<T>) => string | undefined;
}

const ALL: readonly ConnectorKind[] = Object.freeze(['source', 'checkpoint', 'heartbeat'] as ConnectorKind[]);
const SOURCE: readonly ConnectorKind[] = Object.freeze(['source'] as ConnectorKind[]);
const CHECKPOINT: readonly ConnectorKind[] = Object.freeze(['checkpoint'] as ConnectorKind[]);
const HEARTBEAT: readonly ConnectorKind[] = Object.freeze(['heartbeat'] as ConnectorKind[]);
const SOURCE_CHECKPOINT: readonly ConnectorKind[] = Object.freeze(['source', 'checkpoint'] as ConnectorKind[]);

const MIRROR_PKG = 'org.apache.kafka.connect.mirror.';

// ---------------------------------------------------------------------------------------------
// Fixed choices (accepted spellings -> canonical value)
// ---------------------------------------------------------------------------------------------

function classChoices(pkg: string, ...simpleNames: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of simpleNames) {
    out[s] = pkg + s;
    out[pkg + s] = pkg + s;
  }
  return out;
}

/** Accepted `replication.policy.class` values (short or full Java class name) -> full name. */
export const REPLICATION_POLICY_CLASSES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.entries(REPLICATION_POLICY_SHORT_NAMES).flatMap(([short, full]) => [[short, full], [full, full]])),
);

/** Full class name of each MM2 connector. */
export const CONNECTOR_CLASS_NAMES: Readonly<Record<ConnectorKind, string>> = Object.freeze({
  source: MIRROR_PKG + 'MirrorSourceConnector',
  checkpoint: MIRROR_PKG + 'MirrorCheckpointConnector',
  heartbeat: MIRROR_PKG + 'MirrorHeartbeatConnector',
});

/**
 * Accepted `connector.class` values -> full class name: the full name, the simple name, and
 * Kafka Connect's plugin alias without the `Connector` suffix (`MirrorCheckpoint`).
 */
export const CONNECTOR_CLASSES: Readonly<Record<string, string>> = (() => {
  const out: Record<string, string> = {};
  for (const full of Object.values(CONNECTOR_CLASS_NAMES)) {
    const simple = full.slice(MIRROR_PKG.length);
    out[full] = full;
    out[simple] = full;
    out[simple.replace(/Connector$/, '')] = full;
  }
  return Object.freeze(out);
})();

/** The connector a `connector.class` value (any accepted spelling) stands for, or undefined. */
export function connectorKindOfClass(value: unknown): ConnectorKind | undefined {
  if (typeof value !== 'string') return undefined;
  const full = CONNECTOR_CLASSES[value.trim()];
  if (full === undefined) return undefined;
  for (const kind of Object.keys(CONNECTOR_CLASS_NAMES) as ConnectorKind[]) {
    if (CONNECTOR_CLASS_NAMES[kind] === full) return kind;
  }
  return undefined;
}

const SECURITY_PROTOCOLS: Record<string, string> = {
  PLAINTEXT: 'PLAINTEXT',
  SSL: 'SSL',
  SASL_PLAINTEXT: 'SASL_PLAINTEXT',
  SASL_SSL: 'SASL_SSL',
};

// ---------------------------------------------------------------------------------------------
// The catalogue
// ---------------------------------------------------------------------------------------------

interface DefOptions<T extends PropertyType> {
  required?: boolean;
  choices?: Record<string, string>;
  check?: (value: JsTypeOf<T>) => string | undefined;
}

function def<N extends string, T extends PropertyType>(
  name: N,
  type: T,
  dflt: JsTypeOf<T> | undefined,
  connectors: readonly ConnectorKind[],
  group: PropertyGroup,
  description: string,
  opts: DefOptions<T> = {},
): PropertyDef<N, T> {
  const d: PropertyDef<N, T> = {
    name,
    type,
    default: dflt,
    required: opts.required ?? false,
    connectors,
    group,
    description,
    ...(opts.choices ? { choices: Object.freeze({ ...opts.choices }) } : {}),
    ...(opts.check ? { check: opts.check } : {}),
  };
  return Object.freeze(d);
}

const mm2 = <N extends string, T extends PropertyType>(
  name: N,
  type: T,
  dflt: JsTypeOf<T> | undefined,
  connectors: readonly ConnectorKind[],
  description: string,
  opts?: DefOptions<T>,
) => def(name, type, dflt, connectors, 'mm2', description, opts);

const CONNECT_DEFS = [
  def('name', 'string', undefined, ALL, 'connect', 'Connector name, unique within the Kafka Connect cluster; also part of the MM2 client ids.', { check: notEmpty }),
  def('connector.class', 'class', undefined, ALL, 'connect', 'Which MM2 connector this is: MirrorSourceConnector, MirrorCheckpointConnector or MirrorHeartbeatConnector.', {
    choices: CONNECTOR_CLASSES,
  }),
  def('tasks.max', 'int', 1, ALL, 'connect', 'Maximum number of tasks; the checkpoint connector runs min(tasks.max, number of groups).', {
    check: (v) => (v < 1 ? `must be at least 1 (got ${v})` : undefined),
  }),
  def('key.converter', 'class', undefined, ALL, 'connect', 'Converter for record keys; MM2 needs org.apache.kafka.connect.converters.ByteArrayConverter to write its internal topics byte-exact.', { check: javaClassName }),
  def('value.converter', 'class', undefined, ALL, 'connect', 'Converter for record values; MM2 needs ByteArrayConverter to write its internal topics byte-exact.', { check: javaClassName }),
  def('header.converter', 'class', undefined, ALL, 'connect', 'Converter for record headers.', { check: javaClassName }),
] as const;

const SHARED_DEFS = [
  mm2('enabled', 'boolean', true, SOURCE_CHECKPOINT, 'Whether this source->target flow is enabled; when false the connector runs no tasks (the heartbeat connector ignores it).'),
  mm2('source.cluster.alias', 'string', undefined, ALL, 'Alias of the source cluster; used in remote topic names and the checkpoints topic name.', {
    required: true,
    check: clusterAlias,
  }),
  mm2('target.cluster.alias', 'string', 'target', ALL, 'Alias of the target cluster; used in the offset-syncs topic name and in metrics.', { check: clusterAlias }),
  mm2('admin.timeout.ms', 'long', 60000, ALL, 'Timeout in milliseconds for the admin requests of the periodic jobs.', { check: nonNegativeMillis }),
  mm2('replication.policy.class', 'class', MIRROR_PKG + 'DefaultReplicationPolicy', ALL, 'How remote topics are named: DefaultReplicationPolicy (prefix with the source alias) or IdentityReplicationPolicy (keep the name).', {
    choices: REPLICATION_POLICY_CLASSES,
  }),
  mm2('replication.policy.separator', 'string', '.', ALL, 'Separator between the cluster alias and the topic name in remote topic names.', {
    check: (v) => {
      if (v.length === 0) return 'must not be empty';
      if (!TOPIC_CHARS.test(v)) return `'${v}' is used in topic names, so it may contain only ASCII letters, digits, '.', '_' and '-'`;
      return undefined;
    },
  }),
  mm2('replication.policy.internal.topic.separator.enabled', 'boolean', true, ALL, 'Whether the offset-syncs and checkpoints topic names use the separator too (false gives the legacy "." names).'),
  mm2('forwarding.admin.class', 'class', 'org.apache.kafka.clients.admin.ForwardingAdmin', ALL, 'Admin client implementation MM2 uses to create and configure topics.', { check: javaClassName }),
  mm2('metric.reporters', 'list', 'org.apache.kafka.common.metrics.JmxReporter', ALL, 'Classes that report the connector metrics.', { check: javaClassList }),
] as const;

const SOURCE_DEFS = [
  mm2('topics', 'list', '.*', SOURCE_CHECKPOINT, 'Topics to replicate (and whose group offsets to checkpoint): comma-separated names and Java regexes.', { check: regexList('topics') }),
  mm2('topics.exclude', 'list', '.*[\\-\\.]internal, .*\\.replica, __.*', SOURCE_CHECKPOINT, 'Topics never to replicate: comma-separated names and Java regexes; excludes win over includes.', {
    check: regexList('topics.exclude'),
  }),
  mm2('topic.filter.class', 'class', MIRROR_PKG + 'DefaultTopicFilter', SOURCE_CHECKPOINT, 'Topic filter; only the built-in DefaultTopicFilter (topics / topics.exclude) is supported here.', {
    choices: classChoices(MIRROR_PKG, 'DefaultTopicFilter'),
  }),
  mm2(
    'config.properties.exclude',
    'list',
    'follower\\.replication\\.throttled\\.replicas, leader\\.replication\\.throttled\\.replicas, message\\.timestamp\\.difference\\.max\\.ms, message\\.timestamp\\.type, unclean\\.leader\\.election\\.enable, min\\.insync\\.replicas',
    SOURCE,
    'Topic config properties never copied to remote topics: comma-separated names and Java regexes.',
    { check: regexList('config.properties.exclude') },
  ),
  mm2('config.property.filter.class', 'class', MIRROR_PKG + 'DefaultConfigPropertyFilter', SOURCE, 'Filter that selects the topic config properties to copy to remote topics.', {
    check: javaClassName,
  }),
  mm2('offset.lag.max', 'long', 100, SOURCE, 'How far (in records) the remote partition may move past the last offset sync before a new sync is written.', {
    check: (v) => (v < 0 ? `must be 0 or more records (got ${v})` : undefined),
  }),
  mm2('emit.offset-syncs.enabled', 'boolean', true, SOURCE_CHECKPOINT, 'Whether the source connector writes offset syncs; the checkpoint connector cannot run without them.'),
  mm2('offset-syncs.topic.location', 'string', 'source', SOURCE_CHECKPOINT, 'Cluster holding the offset-syncs topic: source or target; must be the same for the source and checkpoint connectors.', {
    choices: { source: 'source', target: 'target' },
  }),
  mm2('offset-syncs.topic.replication.factor', 'short', 3, SOURCE, 'Replication factor of the offset-syncs topic (-1 for the broker default).', { check: replicationFactor }),
  mm2('heartbeats.replication.enabled', 'boolean', true, SOURCE, 'Whether heartbeats topics are replicated regardless of the topic filter.'),
  mm2('replication.factor', 'int', 2, SOURCE, 'Replication factor of newly created remote topics (-1 for the broker default).', { check: replicationFactor }),
  mm2('consumer.poll.timeout.ms', 'long', 1000, SOURCE_CHECKPOINT, 'Poll timeout in milliseconds; for the checkpoint task, the sleep granularity of its emit loop.', { check: nonNegativeMillis }),
  mm2('refresh.topics.enabled', 'boolean', true, SOURCE, 'Whether to look periodically for new topics and partitions.'),
  mm2('refresh.topics.interval.seconds', 'long', 600, SOURCE, 'Seconds between looks for new topics and partitions; our nodes accept 1 s to 24 days.', { check: positiveInterval('refresh.topics.enabled') }),
  mm2('sync.topic.configs.enabled', 'boolean', true, SOURCE, 'Whether to copy topic configs to remote topics periodically.'),
  mm2('sync.topic.configs.interval.seconds', 'long', 600, SOURCE, 'Seconds between topic config copies; our nodes accept 1 s to 24 days.', { check: positiveInterval('sync.topic.configs.enabled') }),
  mm2('sync.topic.acls.enabled', 'boolean', true, SOURCE, 'Whether to copy topic ACLs to remote topics periodically.'),
  mm2('sync.topic.acls.interval.seconds', 'long', 600, SOURCE, 'Seconds between topic ACL copies; our nodes accept 1 s to 24 days.', { check: positiveInterval('sync.topic.acls.enabled') }),
] as const;

const CHECKPOINT_DEFS = [
  mm2('groups', 'list', '.*', CHECKPOINT, 'Consumer groups to checkpoint: comma-separated group ids and Java regexes.', { check: regexList('groups') }),
  mm2('groups.exclude', 'list', 'console-consumer-.*, connect-.*, __.*', CHECKPOINT, 'Consumer groups never to checkpoint: comma-separated group ids and Java regexes; excludes win over includes.', {
    check: regexList('groups.exclude'),
  }),
  mm2('group.filter.class', 'class', MIRROR_PKG + 'DefaultGroupFilter', CHECKPOINT, 'Group filter; only the built-in DefaultGroupFilter (groups / groups.exclude) is supported here.', {
    choices: classChoices(MIRROR_PKG, 'DefaultGroupFilter'),
  }),
  mm2('refresh.groups.enabled', 'boolean', true, CHECKPOINT, 'Whether to look periodically for new consumer groups.'),
  mm2('refresh.groups.interval.seconds', 'long', 600, CHECKPOINT, 'Seconds between looks for new consumer groups; our nodes accept 1 s to 24 days.', { check: positiveInterval('refresh.groups.enabled') }),
  mm2('emit.checkpoints.enabled', 'boolean', true, CHECKPOINT, 'Whether to write checkpoints (translated group offsets) to the target; the checkpoint connector rejects false.'),
  mm2('emit.checkpoints.interval.seconds', 'long', 60, CHECKPOINT, 'Seconds between checkpoint emissions; our nodes accept 1 s to 24 days.', { check: positiveInterval() }),
  mm2('sync.group.offsets.enabled', 'boolean', false, CHECKPOINT, "Whether to also commit the translated offsets to the target's __consumer_offsets for groups with no active member there."),
  mm2('sync.group.offsets.interval.seconds', 'long', 60, CHECKPOINT, 'Seconds between group offset syncs to the target; our nodes accept 1 s to 24 days.', { check: positiveInterval('sync.group.offsets.enabled') }),
  mm2('checkpoints.topic.replication.factor', 'short', 3, CHECKPOINT, 'Replication factor of the <source>.checkpoints.internal topic (-1 for the broker default).', { check: replicationFactor }),
] as const;

const HEARTBEAT_DEFS = [
  mm2('emit.heartbeats.enabled', 'boolean', true, HEARTBEAT, 'Whether to write heartbeats to the target.'),
  mm2('emit.heartbeats.interval.seconds', 'long', 1, HEARTBEAT, 'Seconds between heartbeats; our nodes accept 1 s to 24 days.', { check: positiveInterval('emit.heartbeats.enabled') }),
  mm2('heartbeats.topic.replication.factor', 'short', 3, HEARTBEAT, 'Replication factor of the heartbeats topic (-1 for the broker default).', { check: replicationFactor }),
] as const;

function clusterLabel(prefix: string): string {
  if (prefix === 'source.cluster.') return 'the source cluster';
  if (prefix === 'target.cluster.') return 'the target cluster';
  return 'both clusters unless overridden per cluster';
}

function securityDefs<P extends '' | 'source.cluster.' | 'target.cluster.'>(prefix: P) {
  const c = (s: string) => `${s} (${clusterLabel(prefix)}).`;
  const client = <N extends string, T extends PropertyType>(
    name: N,
    type: T,
    dflt: JsTypeOf<T> | undefined,
    description: string,
    opts?: DefOptions<T>,
  ) => def(`${prefix}${name}` as `${P}${N}`, type, dflt, ALL, 'client', c(description), opts);
  return [
    client('security.protocol', 'string', 'PLAINTEXT', 'Protocol to reach the brokers: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL', {
      choices: SECURITY_PROTOCOLS,
    }),
    client('sasl.mechanism', 'string', undefined, 'SASL mechanism, e.g. PLAIN, SCRAM-SHA-512 or OAUTHBEARER', { check: notEmpty }),
    client('sasl.jaas.config', 'password', undefined, 'JAAS login module line for SASL; a secret'),
    client('ssl.truststore.location', 'string', undefined, 'Path of the trust store'),
    client('ssl.truststore.password', 'password', undefined, 'Password of the trust store; a secret'),
    client('ssl.truststore.type', 'string', undefined, 'Format of the trust store: JKS, PKCS12 or PEM'),
    client('ssl.truststore.certificates', 'password', undefined, 'Trusted certificates in PEM form'),
    client('ssl.keystore.location', 'string', undefined, 'Path of the key store (client certificate)'),
    client('ssl.keystore.password', 'password', undefined, 'Password of the key store; a secret'),
    client('ssl.keystore.type', 'string', undefined, 'Format of the key store: JKS, PKCS12 or PEM'),
    client('ssl.key.password', 'password', undefined, 'Password of the private key in the key store; a secret'),
    client('ssl.keystore.key', 'password', undefined, 'Private key in PEM form; a secret'),
    client('ssl.keystore.certificate.chain', 'password', undefined, 'Client certificate chain in PEM form'),
    client('ssl.endpoint.identification.algorithm', 'string', undefined, 'Host name verification: https, or empty to turn it off'),
    client('ssl.protocol', 'string', undefined, 'TLS protocol used to create the SSL context, e.g. TLSv1.3'),
    client('ssl.enabled.protocols', 'list', undefined, 'TLS protocols enabled for connections'),
  ] as const;
}

const BOOTSTRAP_DEFS = [
  def('source.cluster.bootstrap.servers', 'list', undefined, ALL, 'client', 'Bootstrap host:port list of the source cluster.', { check: bootstrapServers }),
  def('target.cluster.bootstrap.servers', 'list', undefined, ALL, 'client', 'Bootstrap host:port list of the target cluster.', { check: bootstrapServers }),
] as const;

const SECURITY_DEFS = [
  ...securityDefs('source.cluster.'),
  ...securityDefs('target.cluster.'),
  ...securityDefs(''),
] as const;

const ALL_DEFS = [
  ...CONNECT_DEFS,
  ...SHARED_DEFS,
  ...BOOTSTRAP_DEFS,
  ...SOURCE_DEFS,
  ...CHECKPOINT_DEFS,
  ...HEARTBEAT_DEFS,
  ...SECURITY_DEFS,
] as const;

type AnyDef = (typeof ALL_DEFS)[number];

/** Every catalogued property name. */
export type KnownPropertyName = AnyDef['name'];

/**
 * Parsed settings: every catalogued property with a value (given or MM2's default), typed by
 * its MM2 type, plus any other property as a string.
 */
export type ConnectorSettings = { [D in AnyDef as D['name']]?: JsTypeOf<D['type']> } & {
  [name: string]: SettingValue | undefined;
};

/** The catalogue in display order: Connect keys, shared, bootstrap servers, source, checkpoint, heartbeat, security keys. */
export const CONFIG_PROPERTIES: readonly PropertyDef[] = Object.freeze([...ALL_DEFS] as PropertyDef[]);

const BY_NAME: ReadonlyMap<string, PropertyDef> = new Map(CONFIG_PROPERTIES.map((d) => [d.name, d]));

/** The catalogue entry of `name`, or undefined for a property we do not catalogue. */
export function getPropertyDef(name: string): PropertyDef | undefined {
  return BY_NAME.get(name);
}

/** Properties of the catalogue that `connector` reads. */
export function propertiesFor(connector: ConnectorKind): PropertyDef[] {
  return CONFIG_PROPERTIES.filter((d) => d.connectors.includes(connector));
}

/** MM2's default of every catalogued property that has one (normalised values), frozen. */
export const CONFIG_DEFAULTS: Readonly<ConnectorSettings> = Object.freeze(
  Object.fromEntries(
    CONFIG_PROPERTIES.filter((d) => d.default !== undefined).map((d) => [d.name, d.default as SettingValue]),
  ) as ConnectorSettings,
);

/**
 * Deprecated aliases that Kafka 4.0 removed (KAFKA-17529). MM2 4.x silently ignores them,
 * which would silently widen what is replicated; we report them instead.
 */
export const REMOVED_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  'topics.whitelist': 'topics',
  'topics.blacklist': 'topics.exclude',
  'groups.whitelist': 'groups',
  'groups.blacklist': 'groups.exclude',
  'config.properties.blacklist': 'config.properties.exclude',
});

const SECRET_NAME =
  /(?:^|\.)(?:sasl\.jaas\.config|password|secret|ssl\.keystore\.key|basic\.auth\.user\.info|client\.secret|sasl\.oauthbearer\.client\.credentials\.client\.secret)$/i;

/**
 * Whether the value of `name` is a secret that must not be shown or exported in clear:
 * every `password`-type catalogue entry, and any other key that names a JAAS config, a
 * password, a private key or a client secret (e.g. `source.consumer.sasl.jaas.config`).
 */
export function isSecretProperty(name: string): boolean {
  const d = BY_NAME.get(name);
  if (d && d.type === 'password') return true;
  return SECRET_NAME.test(name);
}

const PASS_THROUGH_PREFIXES = [
  'source.cluster.',
  'target.cluster.',
  'consumer.',
  'producer.',
  'admin.',
  'source.consumer.',
  'target.consumer.',
  'source.producer.',
  'target.producer.',
  'source.admin.',
  'target.admin.',
  'ssl.',
  'sasl.',
  'key.converter.',
  'value.converter.',
  'header.converter.',
  'producer.override.',
  'consumer.override.',
  'admin.override.',
  'errors.',
  'transforms',
  'predicates',
  'offsets.storage.',
  'exactly.once.',
  'transaction.boundary',
  'config.action.reload',
];

/**
 * Whether a property that is not in the catalogue is still a legitimate key Kafka Connect or
 * MM2 forwards somewhere (a client override such as `source.consumer.fetch.max.bytes`, a
 * converter or framework setting), as opposed to a probable typo. Editors can use this to
 * tell the two kinds of unknown properties apart.
 */
export function isPassThroughKey(name: string): boolean {
  if (BY_NAME.has(name)) return false;
  return PASS_THROUGH_PREFIXES.some((p) => name.startsWith(p));
}

// ---------------------------------------------------------------------------------------------
// Normalisation
// ---------------------------------------------------------------------------------------------

function integerOf(raw: unknown, min: number, max: number, typeName: string): NormaliseResult<number> {
  let n: number;
  if (typeof raw === 'number') {
    n = raw;
  } else if (typeof raw === 'bigint') {
    n = Number(raw);
  } else {
    const s = String(raw).trim();
    if (!/^[+-]?[0-9]+$/.test(s)) return { ok: false, reason: `'${String(raw)}' is not a whole number (expected ${typeName})` };
    n = Number(s);
  }
  if (!Number.isInteger(n)) return { ok: false, reason: `'${String(raw)}' is not a whole number (expected ${typeName})` };
  if (n < min || n > max) return { ok: false, reason: `${String(raw).trim()} is out of range for ${typeName} (${min}..${max})` };
  return { ok: true, value: n === 0 ? 0 : n };
}

/** Turns one list value (string, or array of strings) into the canonical `a, b` form. */
export function canonicalList(raw: unknown): string {
  if (Array.isArray(raw)) return splitList(raw.map((x) => String(x))).join(', ');
  return splitList(String(raw)).join(', ');
}

/**
 * Converts a raw value (text as Kafka Connect receives it, or an already typed JS value) into
 * the normalised value of `d`, applying its choices and check. Never throws.
 *
 * - string, password, class: trimmed (as Kafka's ConfigDef does); choices map to the canonical spelling;
 * - boolean: `true`/`false` in any case, or a JS boolean;
 * - int, short, long: a whole number in range (long limited to JS safe integers);
 * - list: the items, trimmed, joined as `a, b`; a duplicate or empty item is refused (Kafka 4.2+, core/list-values).
 */
export function normaliseValue(d: PropertyDef, raw: unknown): NormaliseResult {
  let value: SettingValue;
  switch (d.type) {
    case 'boolean': {
      if (typeof raw === 'boolean') {
        value = raw;
        break;
      }
      const s = String(raw).trim().toLowerCase();
      if (s === 'true') value = true;
      else if (s === 'false') value = false;
      else return { ok: false, reason: `'${String(raw)}' is not a boolean (expected true or false)` };
      break;
    }
    case 'int': {
      const r = integerOf(raw, INT_MIN, INT_MAX, 'an int');
      if (!r.ok) return r;
      value = r.value;
      break;
    }
    case 'short': {
      const r = integerOf(raw, SHORT_MIN, SHORT_MAX, 'a short');
      if (!r.ok) return r;
      value = r.value;
      break;
    }
    case 'long': {
      const r = integerOf(raw, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'a long');
      if (!r.ok) return r;
      value = r.value;
      break;
    }
    case 'list': {
      // Kafka 4.2+ refuses duplicate and empty items (ConfigDef.ValidList): checked on the text as given.
      const problem = Array.isArray(raw) || typeof raw === 'string' ? listItemsProblem(raw as string | readonly unknown[]) : undefined;
      if (problem !== undefined) return { ok: false, reason: problem };
      value = canonicalList(raw);
      break;
    }
    case 'string':
    case 'class':
    case 'password':
      value = String(raw).trim();
      break;
  }
  if (d.choices) {
    const key = d.name.endsWith('security.protocol') ? String(value).toUpperCase() : String(value);
    const canonical = Object.prototype.hasOwnProperty.call(d.choices, key) ? d.choices[key] : undefined;
    if (canonical === undefined) {
      const accepted = [...new Set(Object.keys(d.choices))].map((c) => `'${c}'`).join(', ');
      return { ok: false, reason: `'${String(value)}' is not one of ${accepted}` };
    }
    value = canonical;
  }
  if (d.check) {
    const reason = (d.check as (v: SettingValue) => string | undefined)(value);
    if (reason !== undefined) return { ok: false, reason };
  }
  return { ok: true, value };
}

/** The string Kafka Connect expects for a setting value (booleans and numbers in their Java text form). */
export function settingToString(value: SettingValue): string {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return String(value);
  return value;
}
