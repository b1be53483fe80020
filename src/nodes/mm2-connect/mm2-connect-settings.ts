/**
 * The settings of an `mm2-connect` node: the Connect REST URL (text with `${VAR}`, or the name
 * of an environment variable), which connectors to deploy, `tasks.max`, the connector name
 * prefix, secrets and the status poll interval (0 = off, else within core/intervals bounds).
 */
import { FIELD_BOUNDS, numberFieldProblem } from '../../core/field-bounds';
import type { Translate } from '../shared/i18n';
import type { EnvLookup } from '../shared/settings';
import { substituteEnv, missingEnvReason } from '../../core/env-substitution';
import { CONNECTOR_KINDS } from '../../core/export/model';
import type { ConnectorKind } from '../../core/config-properties';
import { ConfigError } from '../../core/errors';
import { intervalMs } from '../../core/intervals';
import { parseConnectUrl } from '../../engines/connect-deployer';
import { settingsOk, settingsRefused, type SettingsRead } from '../shared/settings-read';

/** The status poll interval of an empty field (0 turns polling off). */
const DEFAULT_POLL_SECONDS = 10;

export interface ConnectDefFields {
  url?: string;
  urlType?: string;
  deploySource?: boolean | string;
  deployCheckpoint?: boolean | string;
  deployHeartbeat?: boolean | string;
  namePrefix?: string;
  tasksMax?: string | number;
  includeSecrets?: boolean | string;
  secretsFile?: string;
  pollSeconds?: string | number;
  deployOnStart?: boolean | string;
}

export interface ConnectSettings {
  /** The Connect REST URL, credentials included when written in it. */
  url: string;
  kinds: ConnectorKind[];
  tasksMax?: number;
  namePrefix: string;
  includeSecrets: boolean;
  secretsFile?: string;
  /** 0: no status poll. */
  pollMs: number;
  deployOnStart: boolean;
}

/** A checkbox field: true, false, or `dflt` when empty. */
export function flag(v: unknown, dflt: boolean): boolean {
  if (v === undefined || v === null || v === '') return dflt;
  return v === true || String(v).trim().toLowerCase() === 'true';
}

/** `envValue(name)`: the environment variable of an env-typed URL field ('' when unset). */
export function readConnectSettings(def: ConnectDefFields, lookup: EnvLookup, envValue: (name: string) => string, t: Translate): SettingsRead<ConnectSettings> {
  let urlText = '';
  let urlProblem: string | null = null;
  try {
    if (def.urlType === 'env') {
      urlText = envValue(def.url ?? '');
      if (urlText === '') urlProblem = t('mm2-connect.errors.env-url', { name: String(def.url ?? '') });
    } else {
      const s = substituteEnv(String(def.url ?? ''), lookup);
      if (s.missing.length > 0) urlProblem = missingEnvReason(s.missing);
      urlText = s.value;
    }
  } catch (e) {
    urlProblem = (e as Error).message;
  }
  if (!urlProblem) {
    const p = parseConnectUrl(urlText);
    if ('error' in p) urlProblem = p.error;
  }
  const kinds = CONNECTOR_KINDS.filter((k) =>
    flag(k === 'source' ? def.deploySource : k === 'checkpoint' ? def.deployCheckpoint : def.deployHeartbeat, true),
  );
  const problems: string[] = [];
  let tasksMax: number | undefined;
  const tasksText = substituteEnv(String(def.tasksMax ?? ''), lookup);
  if (tasksText.missing.length > 0) problems.push(`tasks.max: ${missingEnvReason(tasksText.missing)}`);
  else if (tasksText.value.trim() !== '') {
    if (numberFieldProblem(FIELD_BOUNDS['mm2-connect'].tasksMax, tasksText.value) === undefined) tasksMax = Number(tasksText.value.trim());
    else problems.push(t('mm2-connect.errors.tasks-max', { value: tasksText.value }));
  }
  // 0 turns the poll off; anything else is an interval within the bounds of every node (core/intervals).
  let pollMs = 0;
  const pollText = substituteEnv(String(def.pollSeconds ?? ''), lookup);
  if (pollText.missing.length > 0) problems.push(`pollSeconds: ${missingEnvReason(pollText.missing)}`);
  else {
    try {
      pollMs = intervalMs('pollSeconds', pollText.value, DEFAULT_POLL_SECONDS, { off: 0, offHint: 'set 0' });
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(t('mm2-connect.errors.poll', { reason: e.problems[0].reason }));
    }
  }
  const namePrefix = substituteEnv(String(def.namePrefix ?? ''), lookup).value.trim();
  if (kinds.length === 0) problems.push(t('mm2-connect.errors.no-connectors'));
  if (urlProblem) return settingsRefused(t('mm2-connect.errors.url', { error: urlProblem }));
  if (problems.length > 0) return settingsRefused(...problems);
  const secretsFile = def.secretsFile && String(def.secretsFile).trim() !== '' ? String(def.secretsFile).trim() : undefined;
  return settingsOk({
    url: urlText,
    kinds,
    ...(tasksMax !== undefined ? { tasksMax } : {}),
    namePrefix,
    includeSecrets: flag(def.includeSecrets, false),
    ...(secretsFile ? { secretsFile } : {}),
    pollMs,
    deployOnStart: flag(def.deployOnStart, false),
  });
}
