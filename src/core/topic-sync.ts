/**
 * What MM2's MirrorSourceConnector copies from a source topic to its remote topic besides the
 * records (syncTopicConfigs / createNewTopics with targetConfig, syncTopicAcls with
 * shouldReplicateAcl and targetAclBinding), and DefaultConfigPropertyFilter
 * (`config.properties.exclude`). Pure: the Kafka calls are in engines/mirror-topics.
 */
import { compileRegexList } from './java-regex-list';
import { CONFIG_DEFAULTS } from './config-properties';

export const CONFIG_PROPERTIES_EXCLUDE = 'config.properties.exclude';

/** Kafka's ConfigEntry.ConfigSource, as DescribeConfigs answers it (v1+). */
export const CONFIG_SOURCE = Object.freeze({
  UNKNOWN: 0,
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
});

/** One entry of a DescribeConfigs answer for a topic. */
export interface TopicConfigEntry {
  name: string;
  value: string | null;
  /** CONFIG_SOURCE; undefined when the broker did not say (DescribeConfigs v0). */
  source?: number;
  /** The broker's isDefault flag (v0); with `source` known, a default is source DEFAULT_CONFIG, as the Java client says. */
  isDefault?: boolean;
  readOnly?: boolean;
  sensitive?: boolean;
}

/** DefaultConfigPropertyFilter: a property is copied unless `config.properties.exclude` fully matches its name. */
export interface ConfigPropertyFilter {
  shouldReplicateConfigProperty(name: string): boolean;
  /**
   * DefaultConfigPropertyFilter.shouldReplicateSourceDefault: false with MM2's `use.defaults.from`
   * default (`target`): a property at its default on the source is reset to the target's default.
   */
  shouldReplicateSourceDefault(name: string): boolean;
}

/**
 * The filter of `config.properties.exclude` (comma-separated names and Java regexes; absent =
 * MM2's default list). Throws a ConfigError naming the property for a bad entry.
 */
export function createConfigPropertyFilter(exclude?: string | readonly string[] | null): ConfigPropertyFilter {
  const list = exclude === undefined || exclude === null ? String(CONFIG_DEFAULTS[CONFIG_PROPERTIES_EXCLUDE]) : exclude;
  const pattern = compileRegexList(list, CONFIG_PROPERTIES_EXCLUDE);
  return {
    shouldReplicateConfigProperty: (name) => !(pattern !== null && pattern.test(name)),
    shouldReplicateSourceDefault: () => false,
  };
}

function isDefaultEntry(e: TopicConfigEntry): boolean {
  return e.source !== undefined && e.source !== CONFIG_SOURCE.UNKNOWN ? e.source === CONFIG_SOURCE.DEFAULT_CONFIG : e.isDefault === true;
}

/** MirrorSourceConnector.targetConfig's common filter: not read-only, not sensitive, not a static broker setting, not excluded. */
function copyable(e: TopicConfigEntry, filter: ConfigPropertyFilter): boolean {
  return !e.readOnly && !e.sensitive && e.source !== CONFIG_SOURCE.STATIC_BROKER_CONFIG && filter.shouldReplicateConfigProperty(e.name);
}

export interface ConfigValue {
  name: string;
  value: string;
}

/** The configs a new remote topic is created with (createNewTopics: targetConfig(config, false)): the copyable ones not at their default. */
export function remoteTopicCreateConfigs(source: readonly TopicConfigEntry[], filter: ConfigPropertyFilter): ConfigValue[] {
  return source
    .filter((e) => copyable(e, filter) && (!isDefaultEntry(e) || filter.shouldReplicateSourceDefault(e.name)))
    .filter((e) => e.value !== null && e.value !== undefined)
    .map((e) => ({ name: e.name, value: String(e.value) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * What syncTopicConfigs does to one remote topic (incrementalAlterConfigs with
 * targetConfig(config, true)): every copyable property of the source is SET to the source's
 * value, except one at its default on the source, which is DELETEd on the remote topic (back to
 * the target's default). Properties not copyable are left as they are on the target.
 */
export interface RemoteConfigSync {
  set: ConfigValue[];
  reset: string[];
}

export function remoteTopicConfigSync(source: readonly TopicConfigEntry[], filter: ConfigPropertyFilter): RemoteConfigSync {
  const set: ConfigValue[] = [];
  const reset: string[] = [];
  for (const e of source) {
    if (!copyable(e, filter)) continue;
    if (isDefaultEntry(e) && !filter.shouldReplicateSourceDefault(e.name)) reset.push(e.name);
    else if (e.value !== null && e.value !== undefined) set.push({ name: e.name, value: String(e.value) });
  }
  return { set, reset };
}

/**
 * The whole set of topic-level configs the remote topic should hold after a sync, for a client
 * that can only replace a topic's dynamic configs at once (AlterConfigs, not the incremental
 * one): the remote topic's own topic-level configs that the sync does not touch are kept, the
 * synced ones take the source's value, the reset ones are left out. `changed` is false when the
 * remote topic holds exactly that already (nothing to tell). Null when a kept config's value is
 * hidden (sensitive): replacing the set would lose it.
 */
export function plannedRemoteConfigs(sync: RemoteConfigSync, remote: readonly TopicConfigEntry[]): { configs: ConfigValue[]; changed: boolean } | null {
  const touched = new Set([...sync.set.map((s) => s.name), ...sync.reset]);
  const current = new Map<string, string | null>();
  for (const e of remote) if (e.source === CONFIG_SOURCE.DYNAMIC_TOPIC_CONFIG || (e.source === undefined && e.isDefault === false)) current.set(e.name, e.value);
  const next = new Map<string, string>();
  for (const [name, value] of current) {
    if (touched.has(name)) continue;
    if (value === null || value === undefined) return null;
    next.set(name, value);
  }
  for (const s of sync.set) next.set(s.name, s.value);
  let changed = next.size !== current.size;
  if (!changed) for (const [name, value] of next) if (current.get(name) !== value) changed = true;
  const configs = [...next].map(([name, value]) => ({ name, value })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { configs, changed };
}

/** A topic ACL binding, with Kafka's enum names. */
export interface TopicAclBinding {
  resourceType: string;
  resourceName: string;
  patternType: string;
  principal: string;
  host: string;
  operation: string;
  permissionType: string;
}

/**
 * syncTopicAcls: of the source's ACL bindings, those on a literal topic name of a replicated
 * topic, except ALLOW WRITE (only MM2 writes to a remote topic), become bindings on the remote
 * topic, same principal, host and permission; ALLOW ALL becomes ALLOW READ (downgradeAllowAllACL).
 * Everything else (DENY bindings, ALLOW of other operations) is copied as it is. The result has
 * no duplicates and is sorted.
 */
export function remoteTopicAcls(
  source: readonly TopicAclBinding[],
  replicated: (topic: string) => boolean,
  remoteName: (topic: string) => string,
): TopicAclBinding[] {
  const out = new Map<string, TopicAclBinding>();
  for (const b of source) {
    if (b.resourceType !== 'TOPIC' || b.patternType !== 'LITERAL') continue;
    if (b.permissionType === 'ALLOW' && b.operation === 'WRITE') continue;
    if (!replicated(b.resourceName)) continue;
    const operation = b.permissionType === 'ALLOW' && b.operation === 'ALL' ? 'READ' : b.operation;
    const r: TopicAclBinding = { ...b, resourceName: remoteName(b.resourceName), operation };
    out.set(aclKey(r), r);
  }
  return [...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

/** A stable text of a binding (to compare sets of bindings). */
export function aclKey(b: TopicAclBinding): string {
  return [b.resourceType, b.patternType, b.resourceName, b.principal, b.host, b.operation, b.permissionType].join('|');
}
