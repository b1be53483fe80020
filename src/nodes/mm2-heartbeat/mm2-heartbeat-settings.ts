/**
 * The settings of an `mm2-heartbeat` node: MM2's `emit.heartbeats.enabled` and
 * `emit.heartbeats.interval.seconds` (MM2's rules and defaults, through the catalogue), and our
 * own `staleAfterSeconds` and `watch`, with the same `${VAR}` substitution and interval bounds.
 */
import type { Translate } from '../shared/i18n';
import { resolveNodeSettings } from '../shared/settings';
import { CONFIG_DEFAULTS } from '../../core/config-properties';
import { missingEnvReason, substituteEnvValue, type EnvLookup } from '../../core/env-substitution';
import { ConfigError } from '../../core/errors';
import { intervalMs as readIntervalMs } from '../../core/intervals';
import { settingsOk, settingsRefused, type SettingsRead } from '../shared/settings-read';

export interface HeartbeatDefFields {
  emitHeartbeatsEnabled?: boolean | string;
  emitHeartbeatsIntervalSeconds?: number | string;
  staleAfterSeconds?: number | string;
  watch?: boolean | string;
}

/** Our own setting (not an MM2 property): alarm when no fresh heartbeat arrives within it. */
const DEFAULT_STALE_AFTER_SECONDS = 30;

export interface HeartbeatSettings {
  emitEnabled: boolean;
  intervalSeconds: number;
  staleAfterSeconds: number;
  watch: boolean;
}

/** The MM2 properties of the node, read by the shared resolver (defaults, `${VAR}`, catalogue checks). */
const MM2_SETTINGS = ['emit.heartbeats.enabled', 'emit.heartbeats.interval.seconds'] as const;

function isBlank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

/** Parses the node's settings; MM2 properties are checked with MM2's rules, empty fields take MM2's defaults. */
function parseSettings(def: HeartbeatDefFields, lookup: EnvLookup, t: Translate): { settings: HeartbeatSettings; problems: string[] } {
  const resolved = resolveNodeSettings(def as Readonly<Record<string, unknown>>, MM2_SETTINGS, lookup);
  const problems = resolved.problems.map((p) => t('mm2-heartbeat.errors.setting', { property: p.property, reason: p.reason }));
  const mm2 = <T>(prop: (typeof MM2_SETTINGS)[number]): T => (resolved.values[prop] ?? CONFIG_DEFAULTS[prop]) as unknown as T;
  const emitEnabled = mm2<boolean>('emit.heartbeats.enabled');
  const intervalSeconds = mm2<number>('emit.heartbeats.interval.seconds');

  // Our own settings (not MM2 properties), with the same `${VAR}` substitution.
  const own = (field: string, raw: unknown): unknown => {
    const s = substituteEnvValue(raw, lookup);
    if (s.missing.length === 0) return s.value;
    problems.push(t('mm2-heartbeat.errors.setting', { property: field, reason: missingEnvReason(s.missing) }));
    return undefined;
  };

  let staleAfterSeconds = DEFAULT_STALE_AFTER_SECONDS;
  const staleRaw = own('staleAfterSeconds', def.staleAfterSeconds);
  try {
    staleAfterSeconds = readIntervalMs('staleAfterSeconds', staleRaw, DEFAULT_STALE_AFTER_SECONDS, { offHint: 'untick "watch"' }) / 1000;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    problems.push(t('mm2-heartbeat.errors.stale-after', { value: String(staleRaw), reason: e.problems[0].reason }));
  }

  let watch = true;
  const watchRaw = own('watch', def.watch);
  if (!isBlank(watchRaw)) {
    const s = String(watchRaw).trim().toLowerCase();
    if (s === 'true' || s === 'false') watch = s === 'true';
    else problems.push(t('mm2-heartbeat.errors.watch', { value: String(watchRaw) }));
  }
  return { settings: { emitEnabled, intervalSeconds, staleAfterSeconds, watch }, problems };
}

/** The node's settings, or every problem that refuses them (joined by the node). */
export function readHeartbeatSettings(def: HeartbeatDefFields, lookup: EnvLookup, t: Translate): SettingsRead<HeartbeatSettings> {
  const r = parseSettings(def, lookup, t);
  return r.problems.length > 0 ? settingsRefused(...r.problems) : settingsOk(r.settings);
}

