/**
 * The settings of an `mm2-cluster` node read from its fields: the one reader of the runtime (the
 * mm2-cluster node; kafka/client's validateClusterSettings checks with clusterFieldProblems) and
 * of the export to Kafka Connect (flows/read-flow), so an export refuses what the node refuses,
 * in the same words, and never writes a value the node would not run with.
 *
 * - `${VAR}` is substituted in the node's text fields (alias, bootstrap, client id, timeouts, the
 *   OAUTHBEARER token endpoint, client id, scope and extensions); an unset variable is a problem.
 * - Credentials (username, password, OAUTHBEARER client secret) are Node-RED credentials, used as
 *   stored: never substituted, by the node or by the export.
 */
import { listItemsProblem } from './list-values';
import { missingEnvReason, substituteEnv, type EnvLookup } from './env-substitution';
import { oauthFieldProblem, oauthFieldText, parseSaslExtensions, type OAuthField } from './oauth-fields';

/** The SASL mechanisms a cluster node takes (lower case, as its field holds them). */
export const SASL_MECHANISMS = Object.freeze(['none', 'plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer'] as const);

/** A field of the node (its name in the node definition) with a problem. */
export type ClusterField =
  | 'alias'
  | 'bootstrap'
  | 'clientId'
  | 'connectionTimeoutMs'
  | 'requestTimeoutMs'
  | 'saslMechanism'
  | 'username'
  | 'password'
  | 'oauthTokenEndpoint'
  | 'oauthClientId'
  | 'oauthClientSecret'
  | 'oauthScope'
  | 'oauthExtensions';

export interface ClusterFieldProblem {
  field: ClusterField;
  /** The runtime's words (the node shows them). */
  text: string;
}

/** The fields of an mm2-cluster node, `${VAR}` substituted (see readClusterFields). */
export interface ClusterFields {
  alias: string;
  /** As written (substituted). */
  bootstrap: string;
  bootstrapServers: string[];
  clientId: string;
  /** Lower case; 'none' when empty. */
  mechanism: string;
  connectionTimeoutMs: string;
  requestTimeoutMs: string;
  /** Only for OAUTHBEARER: the fields, trimmed; extensions {} when refused. */
  oauth?: { tokenEndpointUrl: string; clientId: string; scope: string; extensions: Record<string, string> };
  /** Fields that reference an unset variable: `alias: environment variable X is not set`. */
  envProblems: ClusterFieldProblem[];
  /** The unset variables of each such field. */
  missingEnv: Partial<Record<ClusterField, string[]>>;
  /** SASL extensions that are not `key=value` entries Kafka accepts (OAUTHBEARER only). */
  fieldProblems: ClusterFieldProblem[];
}

/** Parses `host:port, host:port` (also whitespace- or newline-separated) into a list. */
export function parseBootstrapServers(text: string | string[]): string[] {
  const items = Array.isArray(text) ? text : String(text).split(/[\s,]+/);
  return items.map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Reads the fields of an mm2-cluster node definition (credentials apart) as the node does. */
export function readClusterFields(def: Readonly<Record<string, unknown>>, lookup: EnvLookup): ClusterFields {
  const envProblems: ClusterFieldProblem[] = [];
  const missingEnv: Partial<Record<ClusterField, string[]>> = {};
  const fieldProblems: ClusterFieldProblem[] = [];
  // `${VAR}` inside a value (Node-RED itself only substitutes a whole-value `${VAR}`), e.g. `${KAFKA_HOST}:9092`.
  const text = (field: ClusterField, raw: unknown): string => {
    const given = Array.isArray(raw) ? raw.map((x) => String(x)).join(', ') : raw === undefined || raw === null ? '' : String(raw);
    const s = substituteEnv(given, lookup);
    if (s.missing.length > 0) {
      envProblems.push({ field, text: `${field}: ${missingEnvReason(s.missing)}` });
      missingEnv[field] = s.missing;
    }
    return s.value;
  };
  const alias = text('alias', def.alias).trim();
  const bootstrap = text('bootstrap', def.bootstrap);
  const clientId = text('clientId', def.clientId);
  const mechanism = String(def.saslMechanism || 'none').toLowerCase();
  const connectionTimeoutMs = text('connectionTimeoutMs', def.connectionTimeoutMs);
  const requestTimeoutMs = text('requestTimeoutMs', def.requestTimeoutMs);
  const out: ClusterFields = { alias, bootstrap, bootstrapServers: parseBootstrapServers(bootstrap), clientId, mechanism, connectionTimeoutMs, requestTimeoutMs, envProblems, missingEnv, fieldProblems };
  if (mechanism === 'oauthbearer') {
    // client-credentials flow: the secret in the credentials, the rest in the node's fields
    const extensions = text('oauthExtensions', def.oauthExtensions);
    const why = oauthFieldProblem('extensions', extensions);
    if (why) fieldProblems.push({ field: 'oauthExtensions', text: oauthFieldText('extensions', extensions.trim(), why) });
    out.oauth = {
      tokenEndpointUrl: text('oauthTokenEndpoint', def.oauthTokenEndpoint).trim(),
      clientId: text('oauthClientId', def.oauthClientId).trim(),
      scope: text('oauthScope', def.oauthScope).trim(),
      extensions: why ? {} : parseSaslExtensions(extensions),
    };
  }
  return out;
}

/** What clusterFieldProblems looks at (the part of kafka/client's ClusterSettings it checks). */
export interface ClusterCheckedSettings {
  alias?: string;
  bootstrapServers: string[];
  sasl?: {
    mechanism: string;
    username?: string;
    password?: string;
    oauth?: { tokenEndpointUrl?: string; clientId?: string; clientSecret?: string; scope?: string; extensions?: Record<string, string> };
  };
}

const OAUTH_FIELD: Record<Exclude<OAuthField, 'extensions'>, ClusterField> = {
  tokenEndpointUrl: 'oauthTokenEndpoint',
  clientId: 'oauthClientId',
  clientSecret: 'oauthClientSecret',
  scope: 'oauthScope',
};

/**
 * Checks the settings before any connection attempt; returns the problems (empty when fine).
 * `secrets: false` leaves out the checks of the password and the client secret (an export without
 * secrets does not read them: it writes config-provider references instead).
 */
export function clusterFieldProblems(s: ClusterCheckedSettings, options: { secrets?: boolean } = {}): ClusterFieldProblem[] {
  const secrets = options.secrets !== false;
  const problems: ClusterFieldProblem[] = [];
  if (!s.alias || !/^[A-Za-z0-9._-]+$/.test(s.alias)) {
    problems.push({ field: 'alias', text: `cluster alias '${s.alias ?? ''}' must be non-empty and use only letters, digits, '.', '_' and '-'` });
  }
  if (s.bootstrapServers.length === 0) problems.push({ field: 'bootstrap', text: 'bootstrap servers are empty: give host:port of at least one broker' });
  // bootstrap.servers is exported as MM2's list: Kafka 4.2+ refuses a duplicate (core/list-values)
  const repeated = listItemsProblem(s.bootstrapServers);
  if (repeated !== undefined) problems.push({ field: 'bootstrap', text: `bootstrap servers: ${repeated}` });
  for (const b of s.bootstrapServers) {
    const m = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(b);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) problems.push({ field: 'bootstrap', text: `bootstrap server '${b}' is not host:port` });
  }
  if (s.sasl && s.sasl.mechanism === 'oauthbearer') {
    const o = s.sasl.oauth;
    const fields: Array<[Exclude<OAuthField, 'extensions'>, string]> = [
      ['tokenEndpointUrl', o?.tokenEndpointUrl ?? ''],
      ['clientId', o?.clientId ?? ''],
      ['clientSecret', o?.clientSecret ?? ''],
      ['scope', o?.scope ?? ''],
    ];
    for (const [field, value] of fields) {
      if (field === 'clientSecret' && !secrets) continue;
      const why = oauthFieldProblem(field, value);
      if (why) problems.push({ field: OAUTH_FIELD[field], text: oauthFieldText(field, field === 'clientSecret' ? '' : value, why) });
    }
    for (const [k, v] of Object.entries(o?.extensions ?? {})) {
      const why = oauthFieldProblem('extensions', `${k}=${v}`);
      if (why) problems.push({ field: 'oauthExtensions', text: oauthFieldText('extensions', `${k}=${v}`, why) });
    }
  } else if (s.sasl && s.sasl.mechanism !== 'none') {
    if (!['plain', 'scram-sha-256', 'scram-sha-512'].includes(s.sasl.mechanism)) {
      problems.push({ field: 'saslMechanism', text: `SASL mechanism '${s.sasl.mechanism}' is not supported (use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER)` });
    }
    if (!s.sasl.username) problems.push({ field: 'username', text: 'SASL is on but the username is empty' });
    if (secrets && !s.sasl.password) problems.push({ field: 'password', text: 'SASL is on but the password is empty' });
  }
  return problems;
}
