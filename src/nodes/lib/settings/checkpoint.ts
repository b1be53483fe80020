/**
 * The settings of an `mm2-checkpoint` node, as MM2's MirrorCheckpointConfig reads them: the
 * node's MM2 properties (NODE_SETTINGS), empty fields taking MM2's defaults, `${VAR}`
 * substituted, values and intervals checked by the catalogue (core/intervals bounds), and the
 * group and topic filters built from them.
 */
import { NODE_SETTINGS, problemText, resolveNodeSettings, type EnvLookup } from '../settings';
import { createGroupFilter, createTopicFilter, type NameFilter } from '../../../core/filters';
import { settingsOk, settingsRefused, type SettingsRead } from './read';

export interface CheckpointSettings {
  groupFilter: NameFilter;
  topicFilter: NameFilter;
  /** emit.checkpoints.interval.seconds, in ms. */
  emitMs: number;
  /** refresh.groups.interval.seconds, in ms. */
  refreshMs: number;
}

/** Problems are `property: reason` lines. */
export function readCheckpointSettings(def: Readonly<Record<string, unknown>>, lookup: EnvLookup): SettingsRead<CheckpointSettings> {
  const resolved = resolveNodeSettings(def, NODE_SETTINGS['mm2-checkpoint'], lookup);
  if (resolved.problems.length > 0) return settingsRefused(...resolved.problems.map(problemText));
  const v = resolved.values;
  try {
    return settingsOk({
      groupFilter: createGroupFilter({ groups: v['groups'] as string, 'groups.exclude': v['groups.exclude'] as string }),
      topicFilter: createTopicFilter({ topics: v['topics'] as string, 'topics.exclude': v['topics.exclude'] as string }),
      emitMs: Number(v['emit.checkpoints.interval.seconds']) * 1000,
      refreshMs: Number(v['refresh.groups.interval.seconds']) * 1000,
    });
  } catch (e) {
    return settingsRefused(problemText({ property: '', reason: (e as Error).message }));
  }
}
