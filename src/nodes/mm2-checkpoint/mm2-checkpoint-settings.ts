/**
 * The settings of an `mm2-checkpoint` node, as MM2's MirrorCheckpointConfig reads them: the
 * node's MM2 properties (NODE_SETTINGS), empty fields taking MM2's defaults, `${VAR}`
 * substituted, values and intervals checked by the catalogue (core/intervals bounds), and the
 * group and topic filters built from them.
 */
import { NODE_SETTINGS, problemText, resolveNodeSettings, type EnvLookup } from '../shared/settings';
import { createGroupFilter, createTopicFilter, type NameFilter } from '../../core/filters';
import { fieldText, settingsOk, settingsRefused, type SettingsRead } from '../shared/settings-read';
import { FIELD_BOUNDS, numberFieldProblem } from '../../core/field-bounds';
import { missingEnvReason, substituteEnv } from '../../core/env-substitution';
import { DEFAULT_READINESS, type ReadinessThresholds } from '../../core/readiness';

export interface CheckpointSettings {
  groupFilter: NameFilter;
  topicFilter: NameFilter;
  /** emit.checkpoints.interval.seconds, in ms. */
  emitMs: number;
  /** refresh.groups.interval.seconds, in ms. */
  refreshMs: number;
  /** How the source groups' offsets are read: 'auto' follows `__consumer_offsets` where allowed (else polls); 'poll' never does. */
  sourceOffsets: 'auto' | 'poll';
  /** When a group partition counts as at risk (readyMaxReread, readyMaxAgeSeconds: ours, not MM2 properties). */
  readiness: ReadinessThresholds;
  /** The node's settings the instances of a shared flow must agree on (MM2 property names, and sourceOffsets), as resolved. */
  shareSettings: Record<string, unknown>;
}

/** The readiness fields: empty takes the default; `${VAR}` substituted; a bad value refused naming the field. */
function readReadiness(def: Readonly<Record<string, unknown>>, lookup: EnvLookup): { values: ReadinessThresholds; problems: string[] } {
  const problems: string[] = [];
  const values = { maxReread: DEFAULT_READINESS.maxReread, maxAgeMs: DEFAULT_READINESS.maxAgeMs };
  const fields = [
    ['readyMaxReread', 'a whole number of records, 0 or more', (n: number) => (values.maxReread = n)],
    ['readyMaxAgeSeconds', 'a whole number of seconds', (n: number) => (values.maxAgeMs = n * 1000)],
  ] as const;
  for (const [field, what, set] of fields) {
    const sub = substituteEnv(fieldText(def[field]), lookup);
    if (sub.missing.length > 0) {
      problems.push(problemText({ property: field, reason: missingEnvReason(sub.missing) }));
      continue;
    }
    const text = sub.value.trim();
    if (text === '') continue;
    const b = FIELD_BOUNDS['mm2-checkpoint'][field];
    if (numberFieldProblem(b, text) !== undefined) {
      problems.push(problemText({ property: field, reason: `"${text}" is not ${what} from ${b.min} to ${b.max} (empty: ${field === 'readyMaxReread' ? DEFAULT_READINESS.maxReread : DEFAULT_READINESS.maxAgeMs / 1000})` }));
      continue;
    }
    set(Number(text));
  }
  return { values, problems };
}

/** The node's own field (not an MM2 property): its allowed values. */
export const SOURCE_OFFSETS_VALUES = ['auto', 'poll'] as const;

/** Problems are `property: reason` lines. */
export function readCheckpointSettings(def: Readonly<Record<string, unknown>>, lookup: EnvLookup): SettingsRead<CheckpointSettings> {
  const resolved = resolveNodeSettings(def, NODE_SETTINGS['mm2-checkpoint'], lookup);
  if (resolved.problems.length > 0) return settingsRefused(...resolved.problems.map(problemText));
  const v = resolved.values;
  const readiness = readReadiness(def, lookup);
  if (readiness.problems.length > 0) return settingsRefused(...readiness.problems);
  const so = def['sourceOffsets'];
  const sourceOffsets = so === undefined || so === null || so === '' ? 'auto' : String(so);
  if (!(SOURCE_OFFSETS_VALUES as readonly string[]).includes(sourceOffsets)) {
    return settingsRefused(problemText({ property: 'sourceOffsets', reason: `"${sourceOffsets}" is not one of ${SOURCE_OFFSETS_VALUES.join(', ')} (auto: follow the source's __consumer_offsets where the principal may read it, else poll; poll: read every group's offsets each interval)` }));
  }
  try {
    return settingsOk({
      groupFilter: createGroupFilter({ groups: v['groups'] as string, 'groups.exclude': v['groups.exclude'] as string }),
      topicFilter: createTopicFilter({ topics: v['topics'] as string, 'topics.exclude': v['topics.exclude'] as string }),
      emitMs: Number(v['emit.checkpoints.interval.seconds']) * 1000,
      refreshMs: Number(v['refresh.groups.interval.seconds']) * 1000,
      sourceOffsets: sourceOffsets as 'auto' | 'poll',
      readiness: readiness.values,
      shareSettings: { ...v, sourceOffsets },
    });
  } catch (e) {
    return settingsRefused(problemText({ property: '', reason: (e as Error).message }));
  }
}
