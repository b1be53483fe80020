import { ConfigError } from './errors';

/**
 * MM2's replication policies (ReplicationPolicy and its two implementations): DefaultReplicationPolicy (remote topics are
 * named `<sourceAlias><sep><topic>`) and IdentityReplicationPolicy (remote topics keep their
 * names; only heartbeats are renamed).
 */

export const REPLICATION_POLICY_CLASS = 'replication.policy.class';
export const REPLICATION_POLICY_SEPARATOR = 'replication.policy.separator';
export const INTERNAL_TOPIC_SEPARATOR_ENABLED = 'replication.policy.internal.topic.separator.enabled';
export const SOURCE_CLUSTER_ALIAS = 'source.cluster.alias';

export const DEFAULT_SEPARATOR = '.';
export const HEARTBEATS_TOPIC = 'heartbeats';
export const DEFAULT_REPLICATION_POLICY_CLASS = 'org.apache.kafka.connect.mirror.DefaultReplicationPolicy';
export const IDENTITY_REPLICATION_POLICY_CLASS = 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy';

/** The replication policies MM2 ships: short name (as a node shows it) -> full Java class name. */
export const REPLICATION_POLICY_SHORT_NAMES: Readonly<Record<string, string>> = Object.freeze({
  DefaultReplicationPolicy: DEFAULT_REPLICATION_POLICY_CLASS,
  IdentityReplicationPolicy: IDENTITY_REPLICATION_POLICY_CLASS,
});

/** The full class name of a short policy name; any other text unchanged. */
export function policyClassName(name: string): string {
  return REPLICATION_POLICY_SHORT_NAMES[name] ?? name;
}

/** The short name of a policy MM2 ships, from its full class name; any other text unchanged. */
export function policyShortName(className: string): string {
  for (const [short, full] of Object.entries(REPLICATION_POLICY_SHORT_NAMES)) if (full === className) return short;
  return className;
}

const OFFSET_SYNCS_TOPIC_PREFIX = 'mm2-offset-syncs';
const CHECKPOINTS_TOPIC_SUFFIX = 'checkpoints';
const INTERNAL_SUFFIX = 'internal';

export type ReplicationPolicyKind = 'default' | 'identity';

/** The operations of MM2's ReplicationPolicy interface, plus our introspection fields. */
export interface ReplicationPolicy {
  readonly kind: ReplicationPolicyKind;
  /** `replication.policy.separator`, used in remote topic names. */
  readonly separator: string;
  /** Separator used in internal topic names (offset syncs, checkpoints): `separator` or `.`. */
  readonly internalSeparator: string;
  /** `source.cluster.alias` (only Identity uses it); null when not configured. */
  readonly sourceClusterAlias: string | null;

  /** Name on the target of `topic` replicated from cluster `sourceClusterAlias`. */
  formatRemoteTopic(sourceClusterAlias: string, topic: string): string;
  /** Alias of the cluster `topic` was replicated from, or null when it is not a remote topic. */
  topicSource(topic: string): string | null;
  /** Name of `topic` on its source cluster (one hop up), or null when it is not a remote topic. */
  upstreamTopic(topic: string): string | null;
  /** Name of `topic` on the cluster it originated on (all hops up); a local topic returns itself. */
  originalTopic(topic: string): string;
  heartbeatsTopic(): string;
  offsetSyncsTopic(clusterAlias: string): string;
  checkpointsTopic(clusterAlias: string): string;
  isHeartbeatsTopic(topic: string): boolean;
  isCheckpointsTopic(topic: string): boolean;
  isMM2InternalTopic(topic: string): boolean;
  isInternalTopic(topic: string): boolean;
}

/** Properties read by createReplicationPolicy (MM2 property names; other keys are ignored). */
export interface ReplicationPolicyProps {
  'replication.policy.class'?: string;
  'replication.policy.separator'?: string;
  'replication.policy.internal.topic.separator.enabled'?: boolean | string;
  'source.cluster.alias'?: string | null;
  [key: string]: unknown;
}

/**
 * Java `String.split(Pattern.quote(sep))`: split on the literal separator, keep a leading
 * empty piece, drop every trailing empty piece. `sep` must be non-empty.
 */
export function javaSplit(s: string, sep: string): string[] {
  const parts = s.split(sep);
  // Java returns the input unchanged when there is no match (even for ""), JS does too.
  if (parts.length === 1) return parts;
  let end = parts.length;
  while (end > 0 && parts[end - 1] === '') end--;
  return parts.slice(0, end);
}

class DefaultPolicy implements ReplicationPolicy {
  readonly kind: ReplicationPolicyKind = 'default';
  readonly sourceClusterAlias: string | null = null;

  constructor(readonly separator: string, readonly internalSeparator: string) {}

  formatRemoteTopic(sourceClusterAlias: string, topic: string): string {
    return sourceClusterAlias + this.separator + topic;
  }

  topicSource(topic: string): string | null {
    if (typeof topic !== 'string') return null;
    const parts = javaSplit(topic, this.separator);
    return parts.length < 2 ? null : parts[0];
  }

  upstreamTopic(topic: string): string | null {
    const source = this.topicSource(topic);
    if (source === null) return null;
    return topic.substring(source.length + this.separator.length);
  }

  originalTopic(topic: string): string {
    // Iterative form of ReplicationPolicy.originalTopic: stop when upstreamTopic is null or a fixed point.
    let current = topic;
    for (;;) {
      const up = this.upstreamTopic(current);
      if (up === null || up === current) return current;
      current = up;
    }
  }

  heartbeatsTopic(): string {
    return HEARTBEATS_TOPIC;
  }

  offsetSyncsTopic(clusterAlias: string): string {
    return OFFSET_SYNCS_TOPIC_PREFIX + this.internalSeparator + clusterAlias + this.internalSuffix();
  }

  checkpointsTopic(clusterAlias: string): string {
    return clusterAlias + this.internalSeparator + CHECKPOINTS_TOPIC_SUFFIX + this.internalSuffix();
  }

  isHeartbeatsTopic(topic: string): boolean {
    return this.originalTopic(topic) === HEARTBEATS_TOPIC;
  }

  isCheckpointsTopic(topic: string): boolean {
    return topic.endsWith(this.internalSeparator + CHECKPOINTS_TOPIC_SUFFIX + this.internalSuffix());
  }

  isMM2InternalTopic(topic: string): boolean {
    return topic.endsWith(this.internalSuffix());
  }

  isInternalTopic(topic: string): boolean {
    const kafkaInternal = topic.startsWith('__') || topic.startsWith('.');
    const connectInternal = topic.endsWith('-internal') || topic.endsWith('.internal');
    return this.isMM2InternalTopic(topic) || kafkaInternal || connectInternal;
  }

  private internalSuffix(): string {
    return this.internalSeparator + INTERNAL_SUFFIX;
  }
}

/**
 * IdentityReplicationPolicy: topic names are not changed, except heartbeat-like topics
 * (any name that ends with `heartbeats`, a plain suffix test), which follow Default.
 */
class IdentityPolicy extends DefaultPolicy {
  readonly kind: ReplicationPolicyKind = 'identity';
  readonly sourceClusterAlias: string | null;

  constructor(separator: string, internalSeparator: string, sourceClusterAlias: string | null) {
    super(separator, internalSeparator);
    this.sourceClusterAlias = sourceClusterAlias;
  }

  formatRemoteTopic(sourceClusterAlias: string, topic: string): string {
    return this.looksLikeHeartbeat(topic) ? super.formatRemoteTopic(sourceClusterAlias, topic) : topic;
  }

  topicSource(topic: string): string | null {
    return this.looksLikeHeartbeat(topic) ? super.topicSource(topic) : this.sourceClusterAlias;
  }

  upstreamTopic(topic: string): string | null {
    return this.looksLikeHeartbeat(topic) ? super.upstreamTopic(topic) : topic;
  }

  private looksLikeHeartbeat(topic: string): boolean {
    return typeof topic === 'string' && topic.endsWith(HEARTBEATS_TOPIC);
  }
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n`;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** A property counts as present when it is an own key whose value is neither undefined nor null. */
function has(props: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(props, key) && props[key] !== undefined && props[key] !== null;
}

function parseKind(value: unknown): ReplicationPolicyKind {
  if (value === undefined || value === null) return 'default';
  if (typeof value === 'string') {
    const v = value.trim();
    if (v === DEFAULT_REPLICATION_POLICY_CLASS) return 'default';
    if (v === IDENTITY_REPLICATION_POLICY_CLASS) return 'identity';
    const lower = v.toLowerCase();
    if (lower === 'default' || lower === 'defaultreplicationpolicy') return 'default';
    if (lower === 'identity' || lower === 'identityreplicationpolicy') return 'identity';
  }
  throw new ConfigError(
    `unsupported value ${show(value)}; use DefaultReplicationPolicy or IdentityReplicationPolicy ` +
      `(short forms Default/Identity, or the full ${DEFAULT_REPLICATION_POLICY_CLASS} / ${IDENTITY_REPLICATION_POLICY_CLASS})`,
    REPLICATION_POLICY_CLASS,
  );
}

function parseBoolean(value: unknown, property: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (v === 'true') return true;
    if (v === 'false') return false;
  }
  throw new ConfigError(`expected true or false, got ${show(value)}`, property);
}

/**
 * Builds a replication policy from MM2 properties. Mirrors DefaultReplicationPolicy.configure:
 * the separator defaults to `.`; the internal-topic separator flag (default true) is consulted
 * only when `replication.policy.separator` is explicitly present. A property whose value is
 * undefined or null counts as absent (node definitions often carry unset fields as null).
 * Throws ConfigError for an unknown policy class, a non-string or empty separator, a flag that
 * is not true/false, or a non-string source alias.
 */
export function createReplicationPolicy(props: ReplicationPolicyProps | Record<string, unknown> = {}): ReplicationPolicy {
  const p = (props ?? {}) as Record<string, unknown>;
  const kind = parseKind(p[REPLICATION_POLICY_CLASS]);

  let separator = DEFAULT_SEPARATOR;
  let internalSeparatorEnabled = true;
  if (has(p, REPLICATION_POLICY_SEPARATOR)) {
    const sep = p[REPLICATION_POLICY_SEPARATOR];
    if (typeof sep !== 'string') {
      throw new ConfigError(`expected a string, got ${show(sep)}`, REPLICATION_POLICY_SEPARATOR);
    }
    if (sep.length === 0) {
      throw new ConfigError('must not be empty', REPLICATION_POLICY_SEPARATOR);
    }
    separator = sep;
    if (has(p, INTERNAL_TOPIC_SEPARATOR_ENABLED)) {
      internalSeparatorEnabled = parseBoolean(p[INTERNAL_TOPIC_SEPARATOR_ENABLED], INTERNAL_TOPIC_SEPARATOR_ENABLED);
    }
  }
  const internalSeparator = internalSeparatorEnabled ? separator : DEFAULT_SEPARATOR;

  if (kind === 'default') return new DefaultPolicy(separator, internalSeparator);

  let alias: string | null = null;
  if (has(p, SOURCE_CLUSTER_ALIAS)) {
    const a = p[SOURCE_CLUSTER_ALIAS];
    if (typeof a !== 'string') {
      throw new ConfigError(`expected a string, got ${show(a)}`, SOURCE_CLUSTER_ALIAS);
    }
    alias = a;
  }
  return new IdentityPolicy(separator, internalSeparator, alias);
}
