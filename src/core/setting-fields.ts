/**
 * MM2 properties as the fields of a node definition, shared by every node that exposes MM2
 * settings (through nodes/shared/settings) and by the pure settings parsers (mirror-settings):
 *
 * - a field is named as the camelCase of its MM2 property (`emit.checkpoints.interval.seconds`
 *   -> `emitCheckpointsIntervalSeconds`, `offset-syncs.topic.location` -> `offsetSyncsTopicLocation`);
 * - an empty field takes MM2's default (CONFIG_DEFAULTS);
 * - `${VAR}` inside a text field is substituted (env-substitution), an unset variable is a problem;
 * - values are normalised and checked by the MM2 property catalogue, so a node reports the same
 *   problem, in the same words, that the paste-a-config endpoint and MM2 itself would.
 */
import { CONFIG_DEFAULTS, getPropertyDef, normaliseValue, type ConnectorKind, type PropertyDef, type SettingValue } from './config-properties';
import type { ConfigProblem } from './errors';
import { missingEnvReason, substituteEnv, type EnvLookup } from './env-substitution';

/** The node field of an MM2 property: camelCase over `.` and `-`. */
export function fieldName(property: string): string {
  const parts = property.split(/[.-]/).filter((p) => p.length > 0);
  return parts.map((p, i) => (i === 0 ? p : p[0].toUpperCase() + p.slice(1))).join('');
}

/** Which settings a table row is for: one of MM2's three connectors, or the group-offset sync of the checkpoint connector. */
export type SettingGroup = ConnectorKind | 'group-offsets';

/**
 * The one table of the MM2 properties each connector's settings are read from, with their
 * fields (field = fieldName(property)), in dialog order. As Kafka has one Mirror*Config per
 * connector; `group-offsets` is MirrorCheckpointConfig's sync.group.offsets part.
 */
export const CONNECTOR_SETTINGS = Object.freeze({
  source: Object.freeze([
    { field: 'topics', property: 'topics' },
    { field: 'topicsExclude', property: 'topics.exclude' },
    { field: 'offsetLagMax', property: 'offset.lag.max' },
    { field: 'refreshTopicsIntervalSeconds', property: 'refresh.topics.interval.seconds' },
    { field: 'heartbeatsReplicationEnabled', property: 'heartbeats.replication.enabled' },
    { field: 'replicationFactor', property: 'replication.factor' },
    { field: 'emitOffsetSyncsEnabled', property: 'emit.offset-syncs.enabled' },
    { field: 'syncTopicConfigsEnabled', property: 'sync.topic.configs.enabled' },
    { field: 'syncTopicConfigsIntervalSeconds', property: 'sync.topic.configs.interval.seconds' },
    { field: 'configPropertiesExclude', property: 'config.properties.exclude' },
    { field: 'syncTopicAclsEnabled', property: 'sync.topic.acls.enabled' },
    { field: 'syncTopicAclsIntervalSeconds', property: 'sync.topic.acls.interval.seconds' },
  ] as const),
  checkpoint: Object.freeze([
    { field: 'groups', property: 'groups' },
    { field: 'groupsExclude', property: 'groups.exclude' },
    { field: 'topics', property: 'topics' },
    { field: 'topicsExclude', property: 'topics.exclude' },
    { field: 'emitCheckpointsIntervalSeconds', property: 'emit.checkpoints.interval.seconds' },
    { field: 'refreshGroupsIntervalSeconds', property: 'refresh.groups.interval.seconds' },
  ] as const),
  'group-offsets': Object.freeze([
    { field: 'syncGroupOffsetsIntervalSeconds', property: 'sync.group.offsets.interval.seconds' },
    { field: 'groups', property: 'groups' },
    { field: 'groupsExclude', property: 'groups.exclude' },
  ] as const),
  heartbeat: Object.freeze([
    { field: 'emitHeartbeatsEnabled', property: 'emit.heartbeats.enabled' },
    { field: 'emitHeartbeatsIntervalSeconds', property: 'emit.heartbeats.interval.seconds' },
  ] as const),
});

/** The Kafka Connect worker setting the source side holds (the cadence of MM2's delayed offset syncs); not a connector property. */
export const OFFSET_FLUSH_SETTING = Object.freeze({ field: 'offsetFlushIntervalMs', property: 'offset.flush.interval.ms' } as const);

/** The MM2 properties of one row of CONNECTOR_SETTINGS, in order. */
export function settingProperties(group: SettingGroup): readonly string[] {
  return Object.freeze(CONNECTOR_SETTINGS[group].map((s) => s.property));
}

export interface SettingSpec {
  property: string;
  field: string;
  def: PropertyDef;
  /** MM2's default (normalised), or undefined when MM2 has none. */
  default: SettingValue | undefined;
}

/** The specs of a list of MM2 properties. Throws for a property the catalogue does not know (a programming error). */
export function settingSpecs(properties: readonly string[]): SettingSpec[] {
  return properties.map((property) => {
    const def = getPropertyDef(property);
    if (!def) throw new Error(`settings: '${property}' is not a catalogued MM2 property`);
    return { property, field: fieldName(property), def, default: CONFIG_DEFAULTS[property] };
  });
}

export interface ResolvedSettings {
  /** MM2 property -> normalised value (MM2's default for an empty field). */
  values: Record<string, SettingValue>;
  /** Which properties took MM2's default because their field was empty. */
  defaulted: string[];
  problems: ConfigProblem[];
  /** Every environment variable referenced by a field but not set (each once); each is also a problem. */
  missingEnv: string[];
}

function isEmptyField(raw: unknown): boolean {
  return raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '');
}

/**
 * Reads the fields of a node definition for the given MM2 properties: empty -> MM2's default,
 * `${VAR}` substituted, then normalised and checked by the catalogue. Never throws; every bad
 * field is a problem naming the MM2 property.
 */
/** The catalogue's way to turn a job off, as a refusal names it: `; to turn the job off set <property> to false`. */
const OFF_HINT = /; to turn the job off set ([A-Za-z0-9.-]+\.enabled) to false/;

/**
 * A refusal of the catalogue as a node says it: the property that turns the job off (MM2's
 * `sync.group.offsets.enabled`, say) is named only when the node has it. Otherwise `own` says
 * how to turn this node's job off (mm2-failback: disable the node), or the hint is left out (the
 * checkpoint node's group refresh cannot be turned off).
 */
export function offHintForNode(reason: string, properties: readonly string[], own?: string): string {
  const m = OFF_HINT.exec(reason);
  if (m === null || properties.includes(m[1])) return reason;
  return reason.replace(OFF_HINT, own === undefined ? '' : `; to turn the job off ${own}`);
}

export function resolveNodeSettings(
  def: Readonly<Record<string, unknown>>,
  properties: readonly string[],
  lookup: EnvLookup = (n) => process.env[n],
  /** Per property, how to turn this node's job off when it has no `.enabled` property for it (offHintForNode). */
  offHints: Readonly<Record<string, string>> = {},
): ResolvedSettings {
  const values: Record<string, SettingValue> = {};
  const defaulted: string[] = [];
  const problems: ConfigProblem[] = [];
  const missingEnv: string[] = [];
  for (const spec of settingSpecs(properties)) {
    let raw = def[spec.field];
    if (typeof raw === 'string' && raw.includes('${')) {
      const s = substituteEnv(raw, lookup);
      if (s.missing.length > 0) {
        for (const name of s.missing) if (!missingEnv.includes(name)) missingEnv.push(name);
        problems.push({ property: spec.property, reason: missingEnvReason(s.missing) });
        continue;
      }
      raw = s.value;
    }
    if (isEmptyField(raw)) {
      if (spec.default === undefined) {
        problems.push({ property: spec.property, reason: 'is required' });
        continue;
      }
      values[spec.property] = spec.default;
      defaulted.push(spec.property);
      continue;
    }
    const r = normaliseValue(spec.def, raw);
    if (r.ok) values[spec.property] = r.value;
    else problems.push({ property: spec.property, reason: offHintForNode(r.reason, properties, offHints[spec.property]) });
  }
  return { values, defaulted, problems, missingEnv };
}
