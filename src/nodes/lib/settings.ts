/**
 * The mapping between MirrorMaker 2 properties and the fields of our nodes, shared by every
 * flow node that exposes MM2 settings:
 *
 * - a field is named as the camelCase of its MM2 property (`emit.checkpoints.interval.seconds`
 *   -> `emitCheckpointsIntervalSeconds`, `offset-syncs.topic.location` -> `offsetSyncsTopicLocation`);
 * - an empty field takes MM2's default (CONFIG_DEFAULTS);
 * - `${VAR}` inside a text field is substituted (Node-RED itself only replaces whole-value `${VAR}`)
 *   by core/env-substitution, with `nodeEnvLookup` below as the Node-RED lookup;
 * - values are normalised and checked by the MM2 property catalogue, so a node reports the same
 *   problem, in the same words, that the paste-a-config endpoint and MM2 itself would
 *   (resolveNodeSettings, implemented in core/setting-fields so pure parsers share it too);
 * - a pasted MM2 connector config (YAML, JSON, .properties) is turned into a node's fields, the
 *   replication-flow settings it implies, and notes for every property that belongs elsewhere.
 *
 * Nothing here imports Node-RED: the Node-RED facing parts take a lookup function.
 */
import {
  getPropertyDef,
  isPassThroughKey,
  settingToString,
  type ConnectorKind,
  type PropertyDef,
  type SettingValue,
} from '../../core/config-properties';
import { analyzeConnectorConfig } from '../../core/connector-config';
import type { ConfigProblem } from '../../core/errors';
import type { EnvLookup } from '../../core/env-substitution';
import { fieldName, resolveNodeSettings, settingSpecs } from '../../core/setting-fields';
import { FLOW_NODE_PROPERTIES } from '../../core/connector-export';

/** The MM2 properties each node exposes as fields, in dialog order (one list, kept in core). */
export const NODE_SETTINGS: Readonly<Record<string, readonly string[]>> = FLOW_NODE_PROPERTIES;

/** The connector a node's settings come from (used to tell "belongs here" from "belongs elsewhere"). */
export const NODE_CONNECTOR: Readonly<Record<string, ConnectorKind>> = Object.freeze({
  'mm2-checkpoint': 'checkpoint',
});

export {
  fieldName,
  resolveNodeSettings,
  settingSpecs,
  type ResolvedSettings,
  type SettingSpec,
} from '../../core/setting-fields';
export type { EnvLookup } from '../../core/env-substitution';

/**
 * The env lookup of a Node-RED node (the one every node and config node of this package uses):
 * `RED.util.getSetting(node, name)` (NR_NODE_* names, group/flow/global env, then process.env)
 * when available, else process.env.
 */
export function nodeEnvLookup(RED: unknown, node: unknown): EnvLookup {
  const util = (RED as { util?: { getSetting?: (n: unknown, name: string) => unknown } } | undefined)?.util;
  return (name) => {
    if (util && typeof util.getSetting === 'function') {
      try {
        const v = util.getSetting(node, name);
        if (v !== undefined && v !== null) return String(v);
      } catch {
        /* fall back to the process environment */
      }
    }
    return process.env[name];
  };
}

/** One problem as one line: `groups: '[' is not a valid regular expression (...)`. */
export function problemText(p: ConfigProblem): string {
  return p.property ? `${p.property}: ${p.reason}` : p.reason;
}

// ---------------------------------------------------------------------------------------------
// Pasting an MM2 connector config
// ---------------------------------------------------------------------------------------------

/** The replication-flow (mm2-replication + its two mm2-cluster nodes) settings, as the editor holds them. */
export interface ReplicationFields {
  sourceAlias?: string;
  targetAlias?: string;
  /** `DefaultReplicationPolicy` or `IdentityReplicationPolicy`. */
  policy?: string;
  separator?: string;
  internalSeparator?: boolean;
  offsetSyncsLocation?: string;
  replicationFactor?: number;
}

/** Which replication field each MM2 property sets. */
export const REPLICATION_PROPERTIES: Readonly<Record<string, keyof ReplicationFields>> = Object.freeze({
  'source.cluster.alias': 'sourceAlias',
  'target.cluster.alias': 'targetAlias',
  'replication.policy.class': 'policy',
  'replication.policy.separator': 'separator',
  'replication.policy.internal.topic.separator.enabled': 'internalSeparator',
  'offset-syncs.topic.location': 'offsetSyncsLocation',
  'checkpoints.topic.replication.factor': 'replicationFactor',
});

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
  const properties: string[] = [];
  for (const [property, field] of Object.entries(REPLICATION_PROPERTIES)) {
    if (property === 'source.cluster.alias' || property === 'target.cluster.alias') continue;
    properties.push(property);
    fields[fieldName(property)] = def[field];
  }
  const sep = def.separator;
  if (typeof sep === 'string' && sep.trim() === '') {
    problems.push({
      property: 'replication.policy.separator',
      reason: `must not be empty or blank (got '${sep}'); MM2's default is '.'`,
    });
    delete fields[fieldName('replication.policy.separator')];
  }
  const r = resolveNodeSettings(fields, properties, lookup);
  problems.push(...r.problems);
  const v = r.values;
  const policy = String(v['replication.policy.class'] ?? '');
  return {
    policy: SHORT_POLICY[policy] ?? policy,
    separator: String(v['replication.policy.separator'] ?? '.'),
    internalSeparator: v['replication.policy.internal.topic.separator.enabled'] !== false,
    offsetSyncsLocation: v['offset-syncs.topic.location'] === 'target' ? 'target' : 'source',
    replicationFactor: Number(v['checkpoints.topic.replication.factor'] ?? 3),
    problems,
  };
}

export interface ReplicationDifference {
  property: string;
  field: keyof ReplicationFields;
  /** The value the pasted config implies (MM2's default when it does not set the property). */
  config: string | number | boolean;
  /** The value of the selected replication flow. */
  current: string | number | boolean;
}

/** Where a pasted property that is not one of this node's fields belongs. */
export type NoteCode =
  | 'replication'
  | 'cluster'
  | 'group-offsets'
  | 'mirror'
  | 'heartbeat'
  | 'not-needed'
  | 'other-connector'
  | 'pass-through'
  | 'unknown'
  | 'secret';

export interface PasteNote {
  property: string;
  /** The value as given (secrets are never echoed). */
  value: string;
  code: NoteCode;
}

export interface ConfigParseResponse {
  format: string;
  /** The connector the config is for (from connector.class), when it names an MM2 connector. */
  connector: ConnectorKind | null;
  /** Every setting (given or MM2's default), values as text; secret values replaced by `***`. */
  settings: Record<string, string>;
  /** This node's fields filled from the config: field -> text for the dialog. */
  fields: Record<string, string>;
  /** Properties the catalogue does not know (kept, not dropped: see notes). */
  unknown: string[];
  /** Every problem: syntax errors (property ''), invalid values, removed aliases. */
  problems: ConfigProblem[];
  /** Properties whose values are secrets: they belong in the mm2-cluster credentials. */
  secrets: string[];
  /** The replication-flow settings the config implies, and how they differ from the current flow. */
  replication: { fields: ReplicationFields; differences: ReplicationDifference[] };
  /** Every other property that has a non-default value, and where it belongs. */
  notes: PasteNote[];
}

const SHORT_POLICY: Record<string, string> = {
  'org.apache.kafka.connect.mirror.DefaultReplicationPolicy': 'DefaultReplicationPolicy',
  'org.apache.kafka.connect.mirror.IdentityReplicationPolicy': 'IdentityReplicationPolicy',
};

function noteCodeFor(property: string, def: PropertyDef | undefined, nodeConnector: ConnectorKind | undefined): NoteCode {
  if (def === undefined) return 'unknown';
  if (def.group === 'client') return 'cluster';
  if (property.startsWith('sync.group.offsets.')) return 'group-offsets';
  if (def.connectors.length === 1 && def.connectors[0] === 'heartbeat') return 'heartbeat';
  if (def.connectors.includes('source') && !def.connectors.includes('checkpoint')) return 'mirror';
  if (nodeConnector && !def.connectors.includes(nodeConnector)) return 'other-connector';
  if (property.endsWith('.replication.factor')) return 'replication';
  return 'not-needed';
}

function redact(property: string, value: unknown, secrets: ReadonlySet<string>): string {
  if (secrets.has(property)) return '***';
  return typeof value === 'boolean' || typeof value === 'number' ? settingToString(value) : String(value);
}

/**
 * What the "Paste MM2 config" button of a node's dialog shows: runs the MM2 config analysis on
 * `text`, fills `nodeType`'s fields, derives the replication-flow settings and compares them with
 * `current`, and lists every other property that is set (never drops one silently).
 */
export function parseConfigForNode(text: unknown, nodeType: string, current?: ReplicationFields): ConfigParseResponse {
  const properties = NODE_SETTINGS[nodeType];
  if (!properties) throw new Error(`settings: no MM2 settings are declared for node type '${nodeType}'`);
  const nodeConnector = NODE_CONNECTOR[nodeType];
  if (typeof text !== 'string') {
    return {
      format: 'text',
      connector: null,
      settings: {},
      fields: {},
      unknown: [],
      problems: [{ property: '', reason: 'expected the connector configuration as text (YAML, JSON or .properties)' }],
      secrets: [],
      replication: { fields: {}, differences: [] },
      notes: [],
    };
  }
  const a = analyzeConnectorConfig(text);
  const secretSet = new Set(a.secrets);
  const settings: Record<string, string> = {};
  for (const [k, v] of Object.entries(a.settings)) {
    if (v !== undefined) settings[k] = redact(k, v, secretSet);
  }

  const fields: Record<string, string> = {};
  const own = new Set(properties);
  for (const spec of settingSpecs(properties)) {
    const v = a.settings[spec.property];
    if (v !== undefined) fields[spec.field] = redact(spec.property, v, secretSet);
  }

  const repFields: ReplicationFields = {};
  for (const [property, field] of Object.entries(REPLICATION_PROPERTIES)) {
    const v = a.settings[property];
    if (v === undefined) continue;
    if (field === 'policy') repFields.policy = SHORT_POLICY[String(v)] ?? String(v);
    else if (field === 'internalSeparator') repFields.internalSeparator = v === true || v === 'true';
    else if (field === 'replicationFactor') repFields.replicationFactor = typeof v === 'number' ? v : Number(v);
    else (repFields as Record<string, unknown>)[field] = String(v);
  }
  const differences: ReplicationDifference[] = [];
  if (current) {
    for (const [property, field] of Object.entries(REPLICATION_PROPERTIES)) {
      const c = repFields[field];
      const cur = current[field];
      if (c === undefined || cur === undefined || cur === null || cur === '') continue;
      if (String(c) !== String(cur)) differences.push({ property, field, config: c, current: cur });
    }
  }

  const notes: PasteNote[] = [];
  const unknownSet = new Set(a.unknown);
  for (const [property, value] of Object.entries(a.settings)) {
    if (value === undefined || own.has(property) || property in REPLICATION_PROPERTIES) continue;
    const def = getPropertyDef(property);
    const isDefault = def !== undefined && def.default !== undefined && settingToString(def.default as SettingValue) === settingToString(value);
    if (isDefault) continue;
    if (property === 'connector.class' || property === 'name') {
      if (property === 'connector.class' && nodeConnector && a.connector !== nodeConnector) {
        notes.push({ property, value: String(value), code: 'other-connector' });
      }
      continue;
    }
    let code: NoteCode;
    if (secretSet.has(property)) code = 'secret';
    else if (unknownSet.has(property)) code = isPassThroughKey(property) ? 'pass-through' : 'unknown';
    else code = noteCodeFor(property, def, nodeConnector);
    notes.push({ property, value: redact(property, value, secretSet), code });
  }

  return {
    format: a.format,
    connector: a.connector ?? null,
    settings,
    fields,
    unknown: a.unknown,
    problems: a.problems,
    secrets: a.secrets,
    replication: { fields: repFields, differences },
    notes,
  };
}
