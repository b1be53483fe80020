import { settingToString, type SettingValue } from './config-properties';
import { missingEnvReason, substituteEnvValue, type EnvLookup } from './env-substitution';
import { ConfigError, type ConfigProblem } from './errors';
import { createTopicFilter, type TopicFilter } from './filters';
import { createConfigPropertyFilter, type ConfigPropertyFilter } from './topic-sync';
import { intervalMs } from './intervals';
import { CONNECTOR_SETTINGS, OFFSET_FLUSH_SETTING, resolveNodeSettings, settingProperties } from './setting-fields';

/**
 * The settings of the mirror node (MM2's MirrorSourceConnector/Task, MirrorSourceConfig):
 * each one named after its MM2 property, an empty value meaning MM2's default, `${VAR}`
 * references substituted inside the text (the flow runtime itself only substitutes whole values) and
 * an unset variable reported. The MM2 properties are read by core/setting-fields (the resolver
 * every node shares); offset.flush.interval.ms, a Connect worker setting, is read here.
 */

/** Kafka Connect worker `offset.flush.interval.ms` default: the cadence of MM2's delayed offset-sync flush (MirrorSourceTask.commit -> OffsetSyncWriter.promoteDelayedOffsetSyncs). */
export const DEFAULT_OFFSET_FLUSH_INTERVAL_MS = 60000;

type FieldMap<T extends ReadonlyArray<{ readonly field: string; readonly property: string }>> = { readonly [E in T[number] as E['field']]: E['property'] };
type MirrorFieldRows = [...(typeof CONNECTOR_SETTINGS)['source'], typeof OFFSET_FLUSH_SETTING];

/** Node field -> MM2 property name (the source connector's settings, plus the worker's offset flush). */
export const MIRROR_SETTING_PROPERTIES = Object.freeze(
  Object.fromEntries([...CONNECTOR_SETTINGS.source, OFFSET_FLUSH_SETTING].map((s) => [s.field, s.property])),
) as FieldMap<MirrorFieldRows>;

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
  /** `sync.topic.configs.enabled`: copy topic configs to the remote topics every `syncTopicConfigsIntervalSeconds`. */
  syncTopicConfigsEnabled: boolean;
  syncTopicConfigsIntervalSeconds: number;
  /** DefaultConfigPropertyFilter of `config.properties.exclude` (also used when a remote topic is created). */
  configPropertyFilter: ConfigPropertyFilter;
  /** `sync.topic.acls.enabled`: copy topic ACLs to the remote topics every `syncTopicAclsIntervalSeconds`. */
  syncTopicAclsEnabled: boolean;
  syncTopicAclsIntervalSeconds: number;
}

/** The catalogued MM2 properties of the mirror (all but the Connect worker's offset.flush.interval.ms). */
const MM2_PROPERTIES: readonly string[] = settingProperties('source');

/**
 * Parses and checks the node's settings. Throws one ConfigError naming every bad property
 * (by its MM2 name) and why; a `${VAR}` whose variable is not set is one of them.
 */
export function parseMirrorSettings(input: MirrorSettingsInput, lookup: EnvLookup = () => undefined): MirrorSettings {
  // The node fields are named after the MM2 properties, so the shared field resolver reads them.
  const resolved = resolveNodeSettings(input as Record<string, unknown>, MM2_PROPERTIES, lookup);
  const problems: ConfigProblem[] = [...resolved.problems];
  const values: Partial<Record<MirrorSettingField, SettingValue>> = {};
  const props: Record<string, string> = {};
  for (const field of Object.keys(MIRROR_SETTING_PROPERTIES) as MirrorSettingField[]) {
    const property = MIRROR_SETTING_PROPERTIES[field];
    const value = resolved.values[property];
    if (value === undefined) continue;
    values[field] = value;
    props[property] = settingToString(value);
  }

  // offset.flush.interval.ms: a Connect worker setting, not in the MM2 connector catalogue;
  // an interval like every other one (core/intervals bounds).
  const flush = substituteEnvValue(input.offsetFlushIntervalMs, lookup);
  if (flush.missing.length > 0) {
    problems.push({ property: 'offset.flush.interval.ms', reason: missingEnvReason(flush.missing) });
  } else {
    try {
      const n = intervalMs('offset.flush.interval.ms', flush.value, DEFAULT_OFFSET_FLUSH_INTERVAL_MS, { unit: 'milliseconds', integer: true });
      values.offsetFlushIntervalMs = n;
      props['offset.flush.interval.ms'] = String(n);
    } catch (e) {
      if (e instanceof ConfigError) problems.push(...e.problems);
      else throw e;
    }
  }

  let topicFilter: TopicFilter | undefined;
  let configPropertyFilter: ConfigPropertyFilter | undefined;
  if (problems.length === 0) {
    try {
      topicFilter = createTopicFilter({ topics: props.topics, 'topics.exclude': props['topics.exclude'] });
      configPropertyFilter = createConfigPropertyFilter(props['config.properties.exclude']);
    } catch (e) {
      if (e instanceof ConfigError) problems.push(...e.problems);
      else throw e;
    }
  }
  if (problems.length > 0 || !topicFilter || !configPropertyFilter) throw new ConfigError(problems);
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
    syncTopicConfigsEnabled: values.syncTopicConfigsEnabled as boolean,
    syncTopicConfigsIntervalSeconds: Number(values.syncTopicConfigsIntervalSeconds),
    configPropertyFilter,
    syncTopicAclsEnabled: values.syncTopicAclsEnabled as boolean,
    syncTopicAclsIntervalSeconds: Number(values.syncTopicAclsIntervalSeconds),
  };
}
