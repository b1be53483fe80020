/** What readPastedConfigs (core/pasted-configs) and its readers return, and the small helpers they share. */
import type { ConnectorKind } from './config-properties';
import type { ConfigProblem } from './errors';

/** The forms readPastedConfigs understands. */
export type PastedFormat = 'strimzi' | 'mm2.properties' | 'json' | 'yaml' | 'properties';

export interface PastedConnector {
  /** The connector, from connector.class (or the section of an mm2.properties / Strimzi resource). */
  kind: ConnectorKind | undefined;
  /** Exactly the properties the text sets for this connector, values as given. */
  config: Record<string, unknown>;
  /** Where in the text it came from, e.g. `config 2`, `spec.mirrors[0].checkpointConnector`, `A->B`. */
  origin: string;
}

export interface PastedFlow {
  /** `source->target` (an alias the text does not give is empty). */
  id: string;
  source: string;
  target: string;
  connectors: PastedConnector[];
}

export interface IgnoredKey {
  /** The key as it appears in the text (a path such as `spec.replicas` for a custom resource). */
  key: string;
  reason: string;
  /**
   * Set when the fix is done in the application's own cluster settings: the application words
   * the reason with its own names (`detail`: the user name or the authentication type).
   */
  code?: IgnoredCode;
  detail?: string;
}

/** Keys whose fix belongs to the application's cluster settings (see IgnoredKey.code). */
export type IgnoredCode = 'config-provider' | 'ca-secret' | 'user-name' | 'password-secret' | 'client-cert-secret' | 'auth-type';

export interface PastedConfigs {
  format: PastedFormat;
  flows: PastedFlow[];
  ignored: IgnoredKey[];
  /** Syntax errors (property '') and structural problems (property named). */
  problems: ConfigProblem[];
}

export function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function text(v: unknown): string {
  if (Array.isArray(v)) return v.map((x) => String(x)).join(',');
  return v === undefined || v === null ? '' : String(v);
}
