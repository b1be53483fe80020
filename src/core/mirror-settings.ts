import { CONFIG_DEFAULTS, getPropertyDef, normaliseValue, type SettingValue } from './config-properties';
import { ConfigError, type ConfigProblem } from './errors';
import { createTopicFilter, type TopicFilter } from './filters';

/**
 * The settings of the mirror node (MM2's MirrorSourceConnector/Task, spec §3.4, §5, §10.2):
 * each one named after its MM2 property, an empty value meaning MM2's default, `${VAR}`
 * references substituted inside the text (Node-RED itself only substitutes whole values).
 */

/** Kafka Connect worker `offset.flush.interval.ms` default: the cadence of MM2's delayed offset-sync flush (§5.3). */
export const DEFAULT_OFFSET_FLUSH_INTERVAL_MS = 60000;

/** Node field -> MM2 property name. */
export const MIRROR_SETTING_PROPERTIES = Object.freeze({
  topics: 'topics',
  topicsExclude: 'topics.exclude',
  offsetLagMax: 'offset.lag.max',
  refreshTopicsIntervalSeconds: 'refresh.topics.interval.seconds',
  heartbeatsReplicationEnabled: 'heartbeats.replication.enabled',
  replicationFactor: 'replication.factor',
  emitOffsetSyncsEnabled: 'emit.offset-syncs.enabled',
  offsetFlushIntervalMs: 'offset.flush.interval.ms',
} as const);

export type MirrorSettingField = keyof typeof MIRROR_SETTING_PROPERTIES;

export type MirrorSettingsInput = Partial<Record<MirrorSettingField, unknown>>;

export interface MirrorSettings {
  topics: string;
  topicsExclude: string;
  offsetLagMax: bigint;
  refreshTopicsIntervalSeconds: number;
  heartbeatsReplicationEnabled: boolean;
  /** -1 means the target broker's default.replication.factor. */
  replicationFactor: number;
  emitOffsetSyncsEnabled: boolean;
  offsetFlushIntervalMs: number;
  /** The same settings as an MM2 property map (normalised text), e.g. for export to a connector config. */
  props: Record<string, string>;
  topicFilter: TopicFilter;
}

/**
 * Replaces `${NAME}` references inside `text` with `lookup(NAME)`. An unknown name is left as
 * written, so the problem shows in the value that fails validation.
 */
export function substituteEnv(text: string, lookup: (name: string) => string | undefined): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
    const v = lookup(name);
    return v === undefined || v === null ? whole : String(v);
  });
}

function isEmpty(raw: unknown): boolean {
  return raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '');
}

/**
 * Parses and checks the node's settings. Throws one ConfigError naming every bad property
 * (by its MM2 name) and why.
 */
export function parseMirrorSettings(input: MirrorSettingsInput, lookup: (name: string) => string | undefined = () => undefined): MirrorSettings {
  const problems: ConfigProblem[] = [];
  const values: Partial<Record<MirrorSettingField, SettingValue>> = {};
  const props: Record<string, string> = {};
  for (const field of Object.keys(MIRROR_SETTING_PROPERTIES) as MirrorSettingField[]) {
    const property = MIRROR_SETTING_PROPERTIES[field];
    let raw = input[field];
    if (typeof raw === 'string') raw = substituteEnv(raw, lookup);
    if (field === 'offsetFlushIntervalMs') {
      // A Connect worker setting, not in the MM2 connector catalogue.
      let n = DEFAULT_OFFSET_FLUSH_INTERVAL_MS;
      if (!isEmpty(raw)) {
        n = Number(String(raw).trim());
        if (!Number.isSafeInteger(n) || n <= 0) {
          problems.push({ property, reason: `must be a positive whole number of milliseconds (got '${String(raw)}')` });
          continue;
        }
      }
      values[field] = n;
      props[property] = String(n);
      continue;
    }
    const def = getPropertyDef(property);
    if (!def) throw new Error(`internal: ${property} is not catalogued`);
    const fallback = (CONFIG_DEFAULTS as Record<string, SettingValue | undefined>)[property];
    const r = normaliseValue(def, isEmpty(raw) ? fallback : raw);
    if (!r.ok) {
      problems.push({ property, reason: r.reason });
      continue;
    }
    values[field] = r.value;
    props[property] = typeof r.value === 'boolean' ? String(r.value) : String(r.value);
  }
  if (values.offsetLagMax !== undefined && Number(values.offsetLagMax) < 0) {
    problems.push({ property: 'offset.lag.max', reason: `must be 0 or more records (got ${String(values.offsetLagMax)})` });
  }
  if (values.replicationFactor !== undefined && values.replicationFactor !== -1 && Number(values.replicationFactor) < 1) {
    problems.push({ property: 'replication.factor', reason: `must be at least 1, or -1 for the broker default (got ${String(values.replicationFactor)})` });
  }
  let topicFilter: TopicFilter | undefined;
  if (problems.length === 0) {
    try {
      topicFilter = createTopicFilter({ topics: props.topics, 'topics.exclude': props['topics.exclude'] });
    } catch (e) {
      if (e instanceof ConfigError) problems.push(...e.problems);
      else throw e;
    }
  }
  if (problems.length > 0 || !topicFilter) throw new ConfigError(problems);
  return {
    topics: String(values.topics),
    topicsExclude: String(values.topicsExclude),
    offsetLagMax: BigInt(values.offsetLagMax as number),
    refreshTopicsIntervalSeconds: Number(values.refreshTopicsIntervalSeconds),
    heartbeatsReplicationEnabled: values.heartbeatsReplicationEnabled as boolean,
    replicationFactor: Number(values.replicationFactor),
    emitOffsetSyncsEnabled: values.emitOffsetSyncsEnabled as boolean,
    offsetFlushIntervalMs: Number(values.offsetFlushIntervalMs),
    props,
    topicFilter,
  };
}
