/**
 * The settings of an `mm2-failback` node, read as the checkpoint side reads its MM2 properties:
 * `groups`, `groups.exclude`, `topics`, `topics.exclude` (the topic filter applies to the
 * source topic names) and `sync.group.offsets.interval.seconds` (how often the source offsets
 * are written), empty fields taking MM2's defaults, `${VAR}` substituted, values and intervals
 * checked by the catalogue. A bad setting is refused naming the property, never defaulted.
 */
import { problemText, resolveNodeSettings, type EnvLookup } from '../shared/settings';
import { createGroupFilter, createTopicFilter, type NameFilter } from '../../core/filters';
import { settingsOk, settingsRefused, type SettingsRead } from '../shared/settings-read';

export interface FailbackSettings {
  groupFilter: NameFilter;
  topicFilter: NameFilter;
  /** sync.group.offsets.interval.seconds, in ms. */
  intervalMs: number;
}

/** The MM2 properties the node holds as fields (field = fieldName(property)). */
export const FAILBACK_PROPERTIES = ['groups', 'groups.exclude', 'topics', 'topics.exclude', 'sync.group.offsets.interval.seconds'] as const;

/** How to turn failback off, named when its interval is refused (MM2's sync.group.offsets.enabled is not one of its properties). */
export const FAILBACK_OFF_HINT = "disable this node (the Enabled switch at the bottom of its dialog) or delete it";

/** Problems are `property: reason` lines. */
export function readFailbackSettings(def: Readonly<Record<string, unknown>>, lookup: EnvLookup): SettingsRead<FailbackSettings> {
  // MM2's sync.group.offsets.enabled is not a property of this node: it is turned off by disabling it
  const resolved = resolveNodeSettings(def, FAILBACK_PROPERTIES, lookup, { 'sync.group.offsets.interval.seconds': FAILBACK_OFF_HINT });
  if (resolved.problems.length > 0) return settingsRefused(...resolved.problems.map(problemText));
  const v = resolved.values;
  try {
    return settingsOk({
      groupFilter: createGroupFilter({ groups: v['groups'] as string, 'groups.exclude': v['groups.exclude'] as string }),
      topicFilter: createTopicFilter({ topics: v['topics'] as string, 'topics.exclude': v['topics.exclude'] as string }),
      intervalMs: Number(v['sync.group.offsets.interval.seconds']) * 1000,
    });
  } catch (e) {
    return settingsRefused(problemText({ property: '', reason: (e as Error).message }));
  }
}
