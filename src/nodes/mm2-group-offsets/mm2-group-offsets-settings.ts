/**
 * The settings of an `mm2-group-offsets` node (MM2's `sync.group.offsets.*`, `groups`,
 * `groups.exclude`): empty = MM2's default, `${VAR}` substituted (an unset variable is an
 * error), the interval within the bounds of core/intervals.
 */
import type { Translate } from '../shared/i18n';
import { problemText, resolveNodeSettings, type EnvLookup } from '../shared/settings';
import { CONFIG_DEFAULTS } from '../../core/config-properties';
import { substituteEnv } from '../../core/env-substitution';
import { ConfigError } from '../../core/errors';
import { intervalMs as readIntervalMs } from '../../core/intervals';
import { createGroupFilter, type NameFilter } from '../../core/filters';
import { MIN_WRITE_INTERVAL_BOUNDS_MS } from '../../core/field-bounds';
import { DEFAULT_MIN_WRITE_INTERVAL_MS } from '../../engines/group-offset-syncer';
import { fieldText, settingsOk, settingsRefused, type SettingsRead } from '../shared/settings-read';


/** Where the node takes its checkpoints from. */
export type GroupOffsetsMode = 'replication' | 'input' | 'topic';

export interface GroupOffsetsDefFields {
  mode?: string;
  syncGroupOffsetsIntervalSeconds?: string | number;
  groups?: string;
  groupsExclude?: string;
  /** Least time between two writes of one group, ms (ours, not an MM2 property). */
  minWriteIntervalMs?: string | number;
  /** Follow a deliberate rewind of a group on the source (ours; absent = true; false = MM2's never backwards). */
  followRewinds?: boolean | string;
}

export interface GroupOffsetsSettings {
  /**
   * 'replication' (default): the checkpoints the replication's mm2-checkpoint node keeps, read in
   * place; 'input': from CheckpointsMessages on the wire (read in place too while that node runs
   * here); 'topic': from the checkpoints topic on the target (beside a real MM2).
   */
  mode: GroupOffsetsMode;
  intervalMs: number;
  groupFilter: NameFilter;
  /** Least time between two writes of one group (ms). */
  minWriteIntervalMs: number;
  /** Follow a deliberate rewind of a group on the source (the replication's `mm2` translation mode turns it off too). */
  followRewinds: boolean;
}


/** The MM2 properties read by the shared resolver (defaults, `${VAR}`, catalogue checks). */
const FILTER_SETTINGS = ['groups', 'groups.exclude'] as const;

export function readGroupOffsetsSettings(def: GroupOffsetsDefFields, lookup: EnvLookup, t: Translate): SettingsRead<GroupOffsetsSettings> {
  const mode: GroupOffsetsMode = def.mode === 'topic' || def.mode === 'input' ? def.mode : 'replication';
  if (def.mode !== undefined && def.mode !== null && def.mode !== '' && def.mode !== 'input' && def.mode !== 'topic' && def.mode !== 'replication') {
    return settingsRefused(t('mm2-group-offsets.errors.bad-mode', { value: String(def.mode) }));
  }
  const fr = def.followRewinds;
  const followRewinds = fr === undefined || fr === null || fr === '' || fr === true || fr === 'true';
  if (!followRewinds && fr !== false && fr !== 'false') {
    return settingsRefused(t('mm2-group-offsets.errors.bad-follow-rewinds', { value: String(fr) }));
  }
  const resolved = resolveNodeSettings(def as Record<string, unknown>, FILTER_SETTINGS, lookup);
  // The interval is read here rather than by the catalogue (a `long` there): this node takes
  // fractional seconds, as its editor does.
  const interval = substituteEnv(fieldText(def.syncGroupOffsetsIntervalSeconds), lookup);
  const floor = substituteEnv(fieldText(def.minWriteIntervalMs), lookup);
  const missing = [...new Set([...interval.missing, ...floor.missing, ...resolved.missingEnv])];
  if (missing.length > 0) return settingsRefused(t('mm2-group-offsets.errors.env-missing', { names: missing.join(', ') }));
  let intervalMs: number;
  try {
    intervalMs = readIntervalMs('sync.group.offsets.interval.seconds', interval.value, Number(CONFIG_DEFAULTS['sync.group.offsets.interval.seconds']));
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return settingsRefused(t('mm2-group-offsets.errors.bad-interval', { reason: e.problems[0].reason }));
  }
  const floorText = floor.value.trim();
  const minWriteIntervalMs = floorText === '' ? DEFAULT_MIN_WRITE_INTERVAL_MS : Number(floorText);
  const { min, max } = MIN_WRITE_INTERVAL_BOUNDS_MS;
  if (!/^[0-9]+$/.test(floorText === '' ? '0' : floorText) || minWriteIntervalMs < min || minWriteIntervalMs > max) {
    return settingsRefused(t('mm2-group-offsets.errors.bad-floor', { value: floorText, min, max }));
  }
  let filterError = resolved.problems.map(problemText).join('; ');
  if (filterError === '') {
    try {
      const groupFilter = createGroupFilter({ groups: resolved.values['groups'] as string, 'groups.exclude': resolved.values['groups.exclude'] as string });
      return settingsOk({ mode, intervalMs, groupFilter, minWriteIntervalMs, followRewinds });
    } catch (e) {
      filterError = (e as Error).message;
    }
  }
  return settingsRefused(t('mm2-common.errors.bad-regex', { error: filterError }));
}
