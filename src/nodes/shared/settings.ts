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
} from '../../core/config-properties';
import { analyzeConnectorConfig } from '../../core/connector-config';
import { readPastedConfigs, type IgnoredKey, type PastedConnector, type PastedFlow } from '../../core/pasted-configs';
import { wordIgnored, pastedValueReason, referencedKeys, substitutedValueProblems } from '../../flows/pasted-wording';
import type { ConfigProblem } from '../../core/errors';
import type { EnvLookup } from '../../core/env-substitution';
import { settingSpecs } from '../../core/setting-fields';
import { REPLICATION_NODE_FIELDS } from '../../core/replication-settings';
import { FLOW_NODE_CONNECTOR, FLOW_NODE_PROPERTIES } from '../../flows/node-types';

/** The MM2 properties each node exposes as fields, in dialog order (one list, kept in core). */
export const NODE_SETTINGS: Readonly<Record<string, readonly string[]>> = FLOW_NODE_PROPERTIES;

/** The connector a node's settings come from (used to tell "belongs here" from "belongs elsewhere"). */
export const NODE_CONNECTOR: Readonly<Record<string, ConnectorKind>> = FLOW_NODE_CONNECTOR;

export {
  fieldName,
  resolveNodeSettings,
  settingSpecs,
  type ResolvedSettings,
  type SettingSpec,
} from '../../core/setting-fields';
export type { EnvLookup } from '../../core/env-substitution';
export type { IgnoredKey } from '../../core/pasted-configs';

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

/** Which replication field each MM2 property sets (the replication node's own from core/replication-settings). */
export const REPLICATION_PROPERTIES: Readonly<Record<string, keyof ReplicationFields>> = Object.freeze({
  'source.cluster.alias': 'sourceAlias',
  'target.cluster.alias': 'targetAlias',
  ...REPLICATION_NODE_FIELDS,
});

// The replication node's reader lives in core, shared by the runtime and the export (flows/read-flow).
export { resolveReplicationSettings, type ReplicationSettings } from '../../core/replication-settings';

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

/** One field a paste sets: the node field, the MM2 property it comes from, the value for the dialog. */
export interface PasteSet {
  field: string;
  property: string;
  value: string;
}

/** One replication flow of a pasted text, offered when the text holds several. */
export interface PasteFlowChoice {
  id: string;
  source: string;
  target: string;
  connectors: Array<ConnectorKind | null>;
}

export interface ConfigParseResponse {
  /** What the text was read as: yaml, json, properties, mm2.properties or strimzi. */
  format: string;
  /** The connector the fields come from (from connector.class or the section of the text), when it is an MM2 connector. */
  connector: ConnectorKind | null;
  /** Where in the text that connector's config is (`config 2`, `A->B`, `spec.mirrors[0].checkpointConnector`). */
  origin: string | null;
  /** The replication flows the text describes; more than one and none chosen: `choose` is true and nothing is filled. */
  flows: PasteFlowChoice[];
  /** The flow the fields come from (PasteFlowChoice.id), or null. */
  flow: string | null;
  /** True when the text holds several flows and the request named none of them (send `flow`). */
  choose: boolean;
  /** Every property the chosen connector config sets (never MM2's defaults), values as text; secret values replaced by `***`. */
  settings: Record<string, string>;
  /** This node's fields the config sets: field -> text for the dialog. Fields it does not set are absent and keep their value. */
  fields: Record<string, string>;
  /** The same as `fields`, with the MM2 property of each, in dialog order. */
  set: PasteSet[];
  /** Properties the catalogue does not know (kept, not dropped: see notes). */
  unknown: string[];
  /** Every problem: syntax errors (property ''), invalid values and placeholders (their field is not set), removed aliases. */
  problems: ConfigProblem[];
  /** Properties whose values are secrets: they belong in the mm2-cluster credentials. */
  secrets: string[];
  /** The replication-flow settings the config sets, and how they differ from the current flow. */
  replication: { fields: ReplicationFields; differences: ReplicationDifference[] };
  /** Every other property the config sets, and where it belongs. */
  notes: PasteNote[];
  /** Keys of the text that are not connector settings (Kubernetes, worker, disabled flows), each with the reason. */
  ignored: IgnoredKey[];
}

/** Options of parseConfigForNode. */
export interface ParseForNodeOptions {
  /** The flow to take the fields from when the text holds several (PasteFlowChoice.id). */
  flow?: string;
  /** Environment lookup: a `${VAR}` value is refused when VAR is not set. Default: references are not checked. */
  lookup?: EnvLookup;
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

function emptyResponse(format: string, problems: ConfigProblem[], ignored: IgnoredKey[] = []): ConfigParseResponse {
  return {
    format,
    connector: null,
    origin: null,
    flows: [],
    flow: null,
    choose: false,
    settings: {},
    fields: {},
    set: [],
    unknown: [],
    problems,
    secrets: [],
    replication: { fields: {}, differences: [] },
    notes: [],
    ignored,
  };
}

/** The connector config of `flow` a node of connector `kind` takes its fields from. */
function pickConnector(flow: PastedFlow, kind: ConnectorKind | undefined): PastedConnector | undefined {
  if (flow.connectors.length === 1) return flow.connectors[0];
  return flow.connectors.find((c) => c.kind === kind) ?? flow.connectors.find((c) => c.kind === undefined);
}

/**
 * What the "Paste MM2 config" button of a node's dialog shows: reads `text` in any form
 * core/pasted-configs understands, and for the connector config that belongs to `nodeType`
 * reports exactly the fields it sets (never MM2's defaults for what it does not set), the
 * replication-flow settings it sets and how they differ from `current`, every other property it
 * sets and where that belongs, and every key of the text that is not used, with the reason.
 * A value that is a placeholder or an unresolvable reference is a problem, and its field is not
 * set; so is an invalid value. A text with several flows fills nothing until `options.flow` names one.
 */
export function parseConfigForNode(text: unknown, nodeType: string, current?: ReplicationFields, options: ParseForNodeOptions = {}): ConfigParseResponse {
  const properties = Object.prototype.hasOwnProperty.call(NODE_SETTINGS, nodeType) ? NODE_SETTINGS[nodeType] : undefined;
  if (!properties) throw new Error(`settings: no MM2 settings are declared for node type '${nodeType}'`);
  const nodeConnector = NODE_CONNECTOR[nodeType];
  if (typeof text !== 'string') {
    return emptyResponse('text', [{ property: '', reason: 'expected the connector configuration as text (YAML, JSON or .properties)' }]);
  }
  const pasted = readPastedConfigs(text);
  const flows: PasteFlowChoice[] = pasted.flows.map((f) => ({ id: f.id, source: f.source, target: f.target, connectors: f.connectors.map((c) => c.kind ?? null) }));
  const base = emptyResponse(pasted.format, [...pasted.problems], wordIgnored(pasted.ignored));
  base.flows = flows;
  let flow: PastedFlow | undefined;
  if (pasted.flows.length === 1) flow = pasted.flows[0];
  else if (pasted.flows.length > 1) {
    flow = pasted.flows.find((f) => f.id === options.flow);
    if (!flow) {
      base.choose = true;
      if (options.flow !== undefined) base.problems.push({ property: '', reason: `the text holds no flow '${options.flow}' (it holds ${flows.map((f) => f.id).join(', ')})` });
      return base;
    }
  }
  if (!flow) return base;
  base.flow = flow.id;
  const picked = pickConnector(flow, nodeConnector);
  if (!picked) {
    base.problems.push({
      property: 'connector.class',
      reason: `the flow ${flow.id} has no ${nodeConnector ?? ''} connector config (it has ${flow.connectors.map((c) => c.kind ?? 'an unnamed connector').join(', ')})`,
    });
    return base;
  }
  base.origin = picked.origin;

  const given = new Set(Object.keys(picked.config).filter((k) => picked.config[k] !== null && picked.config[k] !== undefined));
  const a = analyzeConnectorConfig(picked.config);
  // A `${VAR}` that is set stays a reference in the field (as in any field), but its value is
  // what must be valid: check the substituted config.
  // `${VAR}` (see substitutedValueProblems): kept as written, checked with the variables substituted, never echoed substituted
  const referenced = options.lookup ? referencedKeys(picked.config) : new Set<string>();
  const checked = options.lookup
    ? [...a.problems.filter((p) => !referenced.has(p.property)), ...substitutedValueProblems(picked.config, options.lookup)]
    : a.problems;
  const secretSet = new Set(a.secrets);
  const problems = base.problems;
  const refused = new Set<string>();
  // A placeholder or an unresolvable reference is refused for that (clearer than what its
  // value would fail); the analyzer's problems speak for the other keys.
  for (const k of given) {
    if (secretSet.has(k)) continue; // secrets are never echoed nor used here (see notes)
    const why = pastedValueReason(picked.config[k], options.lookup, k);
    if (why !== undefined) {
      problems.push({ property: k, reason: why });
      refused.add(k);
    }
  }
  for (const p of checked) {
    if (p.property !== '' && (refused.has(p.property) || !given.has(p.property))) continue;
    problems.push(p);
    if (p.property) refused.add(p.property);
  }
  const settings: Record<string, string> = {};
  for (const k of given) {
    const v = a.settings[k];
    if (v !== undefined) settings[k] = redact(k, v, secretSet);
  }

  const fields: Record<string, string> = {};
  const set: PasteSet[] = [];
  const own = new Set(properties);
  for (const spec of settingSpecs(properties)) {
    if (!given.has(spec.property) || refused.has(spec.property)) continue;
    const v = a.settings[spec.property];
    if (v === undefined) continue;
    const value = redact(spec.property, v, secretSet);
    fields[spec.field] = value;
    set.push({ field: spec.field, property: spec.property, value });
  }

  const repFields: ReplicationFields = {};
  for (const [property, field] of Object.entries(REPLICATION_PROPERTIES)) {
    const v = a.settings[property];
    if (v === undefined || !given.has(property) || refused.has(property)) continue;
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
  for (const property of given) {
    const value = a.settings[property];
    if (value === undefined || own.has(property) || property in REPLICATION_PROPERTIES) continue;
    const def = getPropertyDef(property);
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
    ...base,
    connector: picked.kind ?? a.connector ?? null,
    settings,
    fields,
    set,
    unknown: a.unknown.filter((k) => given.has(k)),
    problems,
    secrets: a.secrets,
    replication: { fields: repFields, differences },
    notes,
  };
}
