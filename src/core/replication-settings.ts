/**
 * The flow-wide settings of an `mm2-replication` node read from its fields: the one reader of the
 * runtime (the config node, through nodes/mm2-replication/mm2-replication-settings) and of the export to Kafka
 * Connect (flows/read-flow: the admin endpoint and the mm2-connect deploy), so an export says
 * exactly what the nodes do and refuses exactly what they refuse, in the same words.
 *
 * Fields are read with core/setting-fields: `${VAR}` substituted (an unset variable is a problem),
 * an absent field takes MM2's default, a value is normalised and checked by the MM2 property
 * catalogue; a bad value is a problem naming the MM2 property, never replaced by a default.
 */
import type { ConfigProblem } from './errors';
import type { EnvLookup } from './env-substitution';
import { substituteEnv } from './env-substitution';
import { policyShortName } from './replication-policy';
import { fieldName, resolveNodeSettings } from './setting-fields';

/** The MM2 property each field of an mm2-replication node sets (the replication factor is that of every internal topic). */
export const REPLICATION_NODE_FIELDS = Object.freeze({
  'replication.policy.class': 'policy',
  'replication.policy.separator': 'separator',
  'replication.policy.internal.topic.separator.enabled': 'internalSeparator',
  'offset-syncs.topic.location': 'offsetSyncsLocation',
  'checkpoints.topic.replication.factor': 'replicationFactor',
} as const);

/** The MM2 property of a replication node's field. */
export type ReplicationNodeProperty = keyof typeof REPLICATION_NODE_FIELDS;

/** The internal topics' replication factors, all three from the node's one replicationFactor field. */
export const INTERNAL_TOPIC_REPLICATION_FACTORS = Object.freeze([
  'checkpoints.topic.replication.factor',
  'heartbeats.topic.replication.factor',
  'offset-syncs.topic.replication.factor',
] as const);

/** The flow-wide settings of an mm2-replication node, checked (see resolveReplicationSettings). */
export interface ReplicationSettings {
  /** Short name: `DefaultReplicationPolicy` or `IdentityReplicationPolicy`. */
  policy: string;
  separator: string;
  internalSeparator: boolean;
  offsetSyncsLocation: 'source' | 'target';
  /** Of every internal topic; -1 means the target broker's default.replication.factor. */
  replicationFactor: number;
  /** Every bad field, by MM2 property name; the values above are then not to be used. */
  problems: ConfigProblem[];
  /**
   * Each field's text as given, `${VAR}` of set variables substituted (an unset one left as
   * written), trimmed; '' when absent. What an export writes for a refused field, never a default.
   */
  given: Record<ReplicationNodeProperty, string>;
}

function givenText(raw: unknown, lookup: EnvLookup): string {
  if (raw === undefined || raw === null) return '';
  return substituteEnv(String(raw), lookup).value.trim();
}

/**
 * Reads the fields of an mm2-replication node with the catalogue's rules (a bad value is a
 * problem naming the MM2 property, never replaced by a default): an unknown policy class or
 * offset-syncs location, a replication factor that is not a whole number of at least 1 or -1,
 * an empty or blank separator are refused. An absent field (undefined, null; '' for the
 * choices and the factor) takes MM2's default. `${VAR}` is substituted.
 */
export function resolveReplicationSettings(def: Readonly<Record<string, unknown>>, lookup: EnvLookup = (n) => process.env[n]): ReplicationSettings {
  const problems: ConfigProblem[] = [];
  const fields: Record<string, unknown> = {};
  const properties = Object.keys(REPLICATION_NODE_FIELDS) as ReplicationNodeProperty[];
  const given = {} as Record<ReplicationNodeProperty, string>;
  for (const property of properties) {
    const raw = def[REPLICATION_NODE_FIELDS[property]];
    fields[fieldName(property)] = raw;
    given[property] = givenText(raw, lookup);
  }
  const sep = def.separator;
  if (typeof sep === 'string' && sep.trim() === '') {
    problems.push({
      property: 'replication.policy.separator',
      reason: `must not be empty or blank (got '${sep}'); MM2's default is '.'`,
    });
    delete fields[fieldName('replication.policy.separator')];
    given['replication.policy.separator'] = sep;
  }
  const r = resolveNodeSettings(fields, properties, lookup);
  problems.push(...r.problems);
  const v = r.values;
  return {
    policy: policyShortName(String(v['replication.policy.class'] ?? '')),
    separator: String(v['replication.policy.separator'] ?? '.'),
    internalSeparator: v['replication.policy.internal.topic.separator.enabled'] !== false,
    offsetSyncsLocation: v['offset-syncs.topic.location'] === 'target' ? 'target' : 'source',
    replicationFactor: Number(v['checkpoints.topic.replication.factor'] ?? 3),
    problems,
    given,
  };
}
