/**
 * The client timeouts of an `mm2-cluster` node (kafkajs's connectionTimeout and requestTimeout),
 * in milliseconds, within the bounds of core/field-bounds. Empty takes today's default; a bad
 * value is refused naming the field, never replaced by the default.
 */
import type { Translate } from '../shared/i18n';
import { CONNECTION_TIMEOUT_BOUNDS_MS, FIELD_BOUNDS, REQUEST_TIMEOUT_BOUNDS_MS, numberFieldProblem } from '../../core/field-bounds';

export interface ClusterTimeouts {
  connectionTimeoutMs: number;
  requestTimeoutMs: number;
}

const FIELDS = [
  ['connectionTimeoutMs', CONNECTION_TIMEOUT_BOUNDS_MS],
  ['requestTimeoutMs', REQUEST_TIMEOUT_BOUNDS_MS],
] as const;

/** `raw`: the fields as written, `${VAR}` already substituted. */
export function readClusterTimeouts(raw: Readonly<Record<'connectionTimeoutMs' | 'requestTimeoutMs', string>>, t: Translate): { values: ClusterTimeouts; problems: string[] } {
  const problems: string[] = [];
  const values: ClusterTimeouts = { connectionTimeoutMs: CONNECTION_TIMEOUT_BOUNDS_MS.dflt, requestTimeoutMs: REQUEST_TIMEOUT_BOUNDS_MS.dflt };
  for (const [field, bounds] of FIELDS) {
    const text = raw[field].trim();
    if (text === '') continue;
    if (numberFieldProblem(FIELD_BOUNDS['mm2-cluster'][field], text) !== undefined) {
      problems.push(t('mm2-cluster.errors.timeout', { field, value: text, min: bounds.min, max: bounds.max, dflt: bounds.dflt }));
    } else {
      values[field] = Number(text);
    }
  }
  return { values, problems };
}
