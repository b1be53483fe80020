/**
 * The one place that turns our cluster settings into a kafkajs client, routes kafkajs logs
 * into the host's logger, and explains Kafka errors in words an operator can act on.
 */
import type * as tls from 'node:tls';
import * as net from 'node:net';
import { Kafka, Partitioners, logLevel as KafkaLogLevel } from 'kafkajs';
import type { LogEntry, KafkaConfig, Producer, ProducerConfig, SASLOptions } from 'kafkajs';
import { CONNECTION_TIMEOUT_BOUNDS_MS, REQUEST_TIMEOUT_BOUNDS_MS } from '../core/field-bounds';
import { clusterFieldProblems, parseBootstrapServers } from '../core/cluster-settings';
import { oauthBearerMechanism, OAuthTokenError, OAuthTokenRefusedError, type OAuthSettings } from './oauth-token';
import './kafkajs-request-queue'; // kafkajs 2.2.4's 1 ms timer per connection, removed (issue 24)

export type SaslMechanism = 'none' | 'plain' | 'scram-sha-256' | 'scram-sha-512' | 'oauthbearer';
export type { OAuthSettings };

export interface ClusterSettings {
  /** MM2 cluster alias, e.g. `us-west`. */
  alias: string;
  /** host:port list. */
  bootstrapServers: string[];
  clientId?: string;
  /** TLS options (from Node-RED's tls-config node) or true for TLS with system CAs. */
  tls?: tls.ConnectionOptions | boolean;
  /** username and password for PLAIN and SCRAM; `oauth` for OAUTHBEARER (client-credentials flow). */
  sasl?: { mechanism: SaslMechanism; username?: string; password?: string; oauth?: OAuthSettings };
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export interface HostLogger {
  error(msg: string): void;
  warn(msg: string): void;
  info(msg: string): void;
  debug(msg: string): void;
}

/** Parses `host:port, host:port` (also whitespace- or newline-separated) into a list (core/cluster-settings). */
export { parseBootstrapServers };

/** Checks the settings before any connection attempt; returns the problems (empty when fine). The checks are core/cluster-settings', shared with the export. */
export function validateClusterSettings(s: ClusterSettings): string[] {
  return clusterFieldProblems(s).map((p) => p.text);
}

const lastLogged = new Map<string, number>();
/** The same kafkajs warning at most once a minute (a dead broker makes kafkajs repeat itself). */
function throttled(text: string): boolean {
  const key = text.replace(/\d+/g, '#').slice(0, 200);
  const now = Date.now();
  const prev = lastLogged.get(key);
  if (prev !== undefined && now - prev < 60000) return false;
  lastLogged.set(key, now);
  if (lastLogged.size > 1000) lastLogged.clear();
  return true;
}

function logCreator(logger: HostLogger | undefined) {
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      if (!logger) return;
      const { message, ...extra } = log as { message: string; [k: string]: unknown };
      delete (extra as Record<string, unknown>).timestamp;
      delete (extra as Record<string, unknown>).logger;
      const detail = Object.keys(extra).length ? ' ' + JSON.stringify(extra) : '';
      // the client's own logger has no namespace (only its parts do: Connection, Consumer...)
      const text = `kafkajs${namespace ? ` ${namespace}` : ''}: ${message}${detail}`;
      // kafkajs logs every error response of a request at ERROR, also the ones it handles or
      // retries itself (a topic that does not exist yet, a coordinator moving). Those are debug
      // here; what matters reaches the node through the failed call, its status and its own log.
      const handled = namespace === 'Connection' && /^Response /.test(message);
      if (handled || level === KafkaLogLevel.INFO || level === KafkaLogLevel.DEBUG) logger.debug(text);
      else if (throttled(text)) logger.warn(text);
    };
}

/**
 * A kafkajs client whose producers partition keyed records as the Java client does (kafkajs's
 * DefaultPartitioner: murmur2 of the key), always: a producer created without a partitioner
 * makes kafkajs log its "switched default partitioner" warning, which users could only silence
 * with an environment variable.
 */
class Mm2Kafka extends Kafka {
  producer(config: ProducerConfig = {}): Producer {
    return super.producer({ ...config, createPartitioner: config.createPartitioner ?? Partitioners.DefaultPartitioner });
  }
}

/**
 * Builds a kafkajs client for one cluster. Connections open lazily when a producer/consumer/admin
 * connects. Its producers use the Java-compatible partitioner unless one is given.
 */
export function createKafka(s: ClusterSettings, logger?: HostLogger, level: KafkaLogLevel = KafkaLogLevel.WARN): Kafka {
  const cfg: KafkaConfig = {
    clientId: s.clientId || `mm2-node-red-${s.alias}`,
    brokers: s.bootstrapServers,
    connectionTimeout: s.connectionTimeoutMs ?? CONNECTION_TIMEOUT_BOUNDS_MS.dflt,
    requestTimeout: s.requestTimeoutMs ?? REQUEST_TIMEOUT_BOUNDS_MS.dflt,
    logLevel: level,
    logCreator: logCreator(logger),
    retry: { initialRetryTime: 300, retries: 5, maxRetryTime: 10000 },
  };
  if (s.tls) cfg.ssl = s.tls;
  if (s.sasl && s.sasl.mechanism === 'oauthbearer' && s.sasl.oauth) {
    // one token cache per client: kafkajs asks on every (re)authentication of every connection
    cfg.sasl = oauthBearerMechanism(s.sasl.oauth) as unknown as KafkaConfig['sasl'];
  } else if (s.sasl && s.sasl.mechanism !== 'none') {
    cfg.sasl = { mechanism: s.sasl.mechanism, username: s.sasl.username ?? '', password: s.sasl.password ?? '' } as SASLOptions;
  }
  return new Mm2Kafka(cfg);
}

/**
 * An Error whose message is already an explanation (what failed, where, what to fix), e.g. a
 * failed connect of the shared connection. explainKafkaError passes it on unchanged: explaining
 * an explanation again would read its own words as a new cause.
 */
export class ExplainedKafkaError extends Error {
  readonly explained = true;
  constructor(message: string, readonly cause?: unknown) {
    super(message);
    this.name = 'ExplainedKafkaError';
  }
}

/**
 * A refusal by the broker's authorizer, explained: `acls` are the ACLs the refused call needs (of
 * the refused resource type), `denied` Kafka's error code (TOPIC_AUTHORIZATION_FAILED, ...).
 * Made by notAuthorized(); `code` is NOT_AUTHORIZED.
 */
export class NotAuthorizedError extends ExplainedKafkaError {
  readonly code = 'NOT_AUTHORIZED';
  constructor(message: string, readonly denied: string, readonly acls: AclNeed[], cause?: unknown) {
    super(message, cause);
    this.name = 'NotAuthorizedError';
  }
}

/**
 * `err` as a NotAuthorizedError naming the ACLs of `acls` the refusal is about (see
 * explainNotAuthorized), or null when `err` is no authorization refusal. An explained refusal
 * passes as it is.
 */
export function notAuthorized(err: unknown, acls: AclNeed[], s?: Pick<ClusterSettings, 'alias' | 'bootstrapServers'> & Partial<Pick<ClusterSettings, 'sasl' | 'tls'>>): NotAuthorizedError | null {
  if (err instanceof NotAuthorizedError) return err;
  const denied = authorizationFailure(err);
  if (!denied) return null;
  const where = s ? ` (${s.alias}: ${s.bootstrapServers.join(',')})` : '';
  return new NotAuthorizedError(explainNotAuthorized(denied, acls, s ? principalOf(s) : undefined, where), denied, acls, err);
}

/** Runs `call`; a refusal by the authorizer rejects as a NotAuthorizedError naming `acls` (notAuthorized), anything else as it is. */
export async function needing<T>(acls: AclNeed[], s: Parameters<typeof notAuthorized>[2], call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw notAuthorized(e, acls, s) ?? e;
  }
}

function isExplained(err: unknown): err is ExplainedKafkaError {
  return !!err && typeof err === 'object' && (err as { explained?: unknown }).explained === true && typeof (err as Error).message === 'string';
}

/** What an explanation of a failure inside kafkajs holds, before kafkajs's own words. */
const CLIENT_INTERNAL_MARK = '(inside kafkajs: ';

/**
 * The error thrown inside kafkajs itself, found in `err` or its causes (kafkajs's retrier hands a
 * TypeError on as the cause of a KafkaJSNonRetriableError with the same message), or null: a
 * TypeError or RangeError raised in kafkajs's code (its first frame outside Node.js and
 * built-ins is in kafkajs), such as `Cannot destructure property 'partitions' of 'low.pop(...)'` when a topic lost
 * its leader during a request. Not a refusal of the broker and not a bug of ours: the next cycle
 * tries again.
 */
function clientInternalError(err: unknown): { message?: string } | null {
  let cur: unknown = err;
  for (let i = 0; cur && typeof cur === 'object' && i < 6; i++) {
    const e = cur as { name?: string; message?: string; stack?: string; cause?: unknown; originalError?: unknown };
    if (e.name === 'TypeError' || e.name === 'RangeError') {
      if (/Cannot destructure property 'partitions' of '(low|high)\.pop/.test(e.message ?? '')) return e;
      const frame = (e.stack ?? '').split('\n').find((l) => /^\s+at /.test(l) && !/\(node:|^\s+at node:|\(<anonymous>\)$/.test(l));
      if (frame && /[\\/]kafkajs[\\/]/.test(frame)) return e;
    }
    cur = e.cause ?? e.originalError;
  }
  return null;
}

/**
 * `text` without kafkajs's own words of a failure inside it (` (inside kafkajs: …)`), for a node
 * status: the explanation before them says what happened and what comes next; the log keeps them.
 */
export function withoutClientInternals(text: string): string {
  const at = text.indexOf(CLIENT_INTERNAL_MARK);
  if (at < 0) return text;
  let depth = 1;
  let end = at + CLIENT_INTERNAL_MARK.length;
  for (; end < text.length && depth > 0; end++) {
    if (text[end] === '(') depth++;
    else if (text[end] === ')') depth--;
  }
  const start = at > 0 && text[at - 1] === ' ' ? at - 1 : at;
  return withoutClientInternals(text.slice(0, start) + text.slice(end));
}

/** Whether `err` (or one of its causes) was thrown inside kafkajs itself (see clientInternalError). */
export function isKafkaClientInternalError(err: unknown): boolean {
  return clientInternalError(err) !== null;
}

/**
 * Whether a failure is kafkajs failing inside (the error itself, or our explanation of it in a
 * log line or a message): it is logged as a warning, not an error, so that it fires no Catch node.
 */
export function isClientInternalFailure(failure: unknown): boolean {
  if (typeof failure === 'string') return failure.includes(CLIENT_INTERNAL_MARK);
  if (isKafkaClientInternalError(failure)) return true;
  const message = (failure as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message.includes(CLIENT_INTERNAL_MARK);
}

/**
 * A failed OAUTHBEARER token request, explained: what failed and which field of the cluster node
 * to fix. The field comes first, so that a node status (cut at 60 characters) names it too.
 */
function explainTokenFailure(t: OAuthTokenError, where: string): string {
  const at = `the token endpoint ${t.url}`;
  switch (t.failure) {
    case 'client':
      return `OAUTHBEARER client id or secret refused${where}: ${at} does not accept client '${t.clientId}' (${t.detail}): check the client id and the client secret in the cluster node`;
    case 'unreachable':
      return `OAUTHBEARER token endpoint URL unreachable${where}: cannot reach ${t.url} (${t.detail}): check the token endpoint URL in the cluster node and that the identity provider is up`;
    case 'timeout':
      return `OAUTHBEARER token endpoint URL not answering${where}: ${at} (${t.detail}): check the token endpoint URL in the cluster node and the network to the identity provider`;
    case 'scope':
      return `OAUTHBEARER scope refused${where}: ${at} refused it (${t.detail}): check the scope in the cluster node`;
    case 'grant':
      return `OAUTHBEARER client-credentials grant refused${where}: ${at} does not let client '${t.clientId}' use it (${t.detail}): allow that grant for the client at the identity provider`;
    default:
      return `OAUTHBEARER token endpoint URL gave no token${where}: ${at} (${t.detail}): check the token endpoint URL in the cluster node (the identity provider's token URL, not its issuer or JWKS URL)`;
  }
}

/** The SASL mechanism as Kafka names it (SCRAM-SHA-512), for messages. */
function mechanismName(m: SaslMechanism | undefined): string {
  return m ? m.toUpperCase() : '';
}

/** A Kafka resource type as ACLs name it (kafka-acls prints `Topic:orders`). */
export type AclResource = 'Topic' | 'Group' | 'Cluster' | 'TransactionalId';

/** One ACL a call needs: operations on one resource (a literal name or a prefix). */
export interface AclNeed {
  resource: AclResource;
  /** The resource name (`kafka-cluster` for the Cluster), or the prefix when `prefixed`. */
  name: string;
  prefixed?: boolean;
  /** Kafka's operation names: READ, WRITE, CREATE, DESCRIBE, DESCRIBE_CONFIGS, ... */
  operations: string[];
}

/** The Kafka error codes of an authorization refusal and the resource type each is about. */
const AUTHORIZATION_FAILURES: Record<string, AclResource> = {
  TOPIC_AUTHORIZATION_FAILED: 'Topic',
  GROUP_AUTHORIZATION_FAILED: 'Group',
  CLUSTER_AUTHORIZATION_FAILED: 'Cluster',
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 'TransactionalId',
};

/**
 * The Kafka authorization error code anywhere in an error's cause chain (kafkajs's `type`, or its
 * words "Not authorized to access topics/group"), e.g. `TOPIC_AUTHORIZATION_FAILED`; null when
 * the error is no refusal.
 */
export function authorizationFailure(err: unknown): string | null {
  let cur: unknown = err;
  for (let i = 0; cur && i < 8; i++) {
    const c = cur as { type?: string; message?: string; cause?: unknown; originalError?: unknown; errors?: unknown[] };
    const m = /\b((?:TOPIC|GROUP|CLUSTER|TRANSACTIONAL_ID)_AUTHORIZATION_FAILED)\b/.exec(`${c.type ?? ''} ${c.message ?? ''}`);
    if (m) return m[1];
    const words = /not authorized to access (topics|group|cluster)/i.exec(c.message ?? '');
    if (words) return `${words[1].toLowerCase() === 'topics' ? 'TOPIC' : words[1].toUpperCase()}_AUTHORIZATION_FAILED`;
    // createTopics and friends: one error per resource in `errors`
    const nested = Array.isArray(c.errors) ? c.errors.map((x) => authorizationFailure(x)).find(Boolean) : null;
    if (nested) return nested;
    cur = c.cause ?? c.originalError;
  }
  return null;
}

/** `READ and DESCRIBE on Topic:orders`, `READ on Group:__mm2-node-red-reader (prefixed)`. */
export function aclText(n: AclNeed): string {
  const ops = n.operations.length <= 1 ? n.operations.join('') : `${n.operations.slice(0, -1).join(', ')} and ${n.operations[n.operations.length - 1]}`;
  return `${ops} on ${n.resource}:${n.name}${n.prefixed ? ' (prefixed)' : ''}`;
}

/**
 * The principal a connection is authorized as, for messages: `User:<name>` for a SASL login with
 * Kafka's default principal builder; over TLS without SASL, the client certificate's (its subject
 * as the broker's ssl.principal.mapping.rules map it); undefined otherwise.
 */
export function principalOf(s: Partial<Pick<ClusterSettings, 'sasl' | 'tls'>>): string | undefined {
  if (s.sasl && s.sasl.mechanism === 'oauthbearer') return s.sasl.oauth?.clientId ? `the token's principal (OAuth client '${s.sasl.oauth.clientId}')` : "the token's principal";
  if (s.sasl && s.sasl.mechanism !== 'none' && s.sasl.username) return `User:${s.sasl.username}`;
  if (s.tls && typeof s.tls === 'object' && s.tls.cert) return "the client certificate's principal";
  return undefined;
}

/**
 * The explanation of an authorization refusal (`denied`, e.g. TOPIC_AUTHORIZATION_FAILED): which
 * of the ACLs the call needs (`acls`) are of the refused resource type, for whom. Every node
 * explains a refusal through here, so each one names the missing ACL the same way.
 */
export function explainNotAuthorized(denied: string, acls: AclNeed[], principal?: string, where = ''): string {
  const type = AUTHORIZATION_FAILURES[denied];
  const of = acls.filter((a) => a.resource === type);
  const who = principal ? ` for ${principal.startsWith('User:') ? 'principal ' : ''}${principal}` : '';
  if (of.length === 0) {
    const what = type ? `an ACL on ${type === 'Cluster' ? 'the Cluster' : `a ${type}`}` : 'an ACL';
    return `not authorized${where} (${denied}): the broker refused ${what}${who}; grant the ACLs the node's help lists`;
  }
  return `not authorized${where} (${denied}): ${NEEDS}${of.map(aclText).join('; ')}${who}`;
}

const NEEDS = 'needs ';

/**
 * The short form of a refusal explained by explainNotAuthorized, for a node status (60
 * characters): `not authorized: needs WRITE on Topic:orders`; null for any other text.
 */
export function refusalSummary(text: string): string | null {
  const acl = "[A-Z_]+(?:(?:, | and )[A-Z_]+)* on [A-Za-z]+:[^\\s;]+(?: \\(prefixed\\))?";
  const m = new RegExp(`not authorized(?: \\([^)]*\\))? \\((?:TOPIC|GROUP|CLUSTER|TRANSACTIONAL_ID)_AUTHORIZATION_FAILED\\): ${NEEDS}(${acl}(?:; ${acl})*)`).exec(text);
  return m ? `not authorized: ${NEEDS}${m[1]}` : null;
}

const WHERE = '(?: \\([^)]*\\))?';
/** The short forms of the OAUTHBEARER explanations (explainTokenFailure, explainKafkaError): [pattern, summary]. */
const TOKEN_SUMMARIES: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [new RegExp(`OAUTHBEARER token endpoint URL unreachable${WHERE}: cannot reach \\S+ \\(([^)\\s]+)`), (m) => `OAUTHBEARER token endpoint URL unreachable (${m[1]}): check the URL`],
  [new RegExp(`OAUTHBEARER token endpoint URL not answering${WHERE}: the token endpoint \\S+ \\(no answer within (\\d+) ms\\)`), (m) => `OAUTHBEARER token endpoint URL: no answer within ${m[1]} ms: check the URL`],
  [new RegExp(`OAUTHBEARER token endpoint URL gave no token${WHERE}: the token endpoint \\S+ \\((HTTP \\d{3}(?: without an access_token)?)`), (m) => `OAUTHBEARER token endpoint URL answered ${m[1]}: check the URL`],
  [new RegExp(`OAUTHBEARER client id or secret refused${WHERE}: the token endpoint \\S+ does not accept client '([^']*)' \\((HTTP \\d{3})`), (m) => `OAUTHBEARER client id or secret refused (client '${m[1]}', ${m[2]}): check both`],
  [new RegExp(`OAUTHBEARER scope refused${WHERE}: the token endpoint \\S+ refused it \\((HTTP \\d{3}[^):]*)`), (m) => `OAUTHBEARER scope refused (${m[1]}): check the scope`],
  [new RegExp(`OAUTHBEARER client-credentials grant refused${WHERE}: the token endpoint \\S+ does not let client '([^']*)'`), (m) => `OAUTHBEARER client '${m[1]}' may not use the client-credentials grant`],
  [new RegExp(`OAUTHBEARER token refused by the broker${WHERE}: the broker \\S+ refused the token of client '([^']*)' from the token endpoint \\S+ \\(([^\\s:)]+)`), (m) => `OAUTHBEARER token of client '${m[1]}' refused by the broker (${m[2]})`],
];

/**
 * The short form of an OAUTHBEARER failure explained here (a token request that failed, a token
 * the broker refused), anywhere in `text`, for a node status: what failed, what it answered and
 * the field to fix (`OAUTHBEARER token endpoint URL answered HTTP 500: check the URL`); null for
 * any other text.
 */
export function tokenFailureSummary(text: string): string | null {
  for (const [re, summary] of TOKEN_SUMMARIES) {
    const m = re.exec(text);
    if (m) return summary(m);
  }
  return null;
}

/**
 * A short explanation of a Kafka error with what to fix, for node status and logs.
 * Works on kafkajs errors (type, name, cause chain) and on plain Errors. With the cluster's
 * settings it can tell a SASL client on a plaintext listener from the opposite.
 */
export function explainKafkaError(
  err: unknown,
  s?: Pick<ClusterSettings, 'alias' | 'bootstrapServers'> & Partial<Pick<ClusterSettings, 'sasl' | 'tls'>>,
  /** What the failed call needs: an authorization failure names the ACLs of the refused resource type. */
  acls?: AclNeed[],
): string {
  if (isExplained(err)) return err.message;
  const e = err as { name?: string; type?: string; message?: string; code?: string; cause?: unknown; originalError?: unknown; stack?: string };
  const chain: Array<typeof e> = [];
  let cur: unknown = e;
  for (let i = 0; cur && i < 6; i++) {
    chain.push(cur as typeof e);
    const c = cur as typeof e;
    cur = c.cause ?? c.originalError;
  }
  const text = chain.map((x) => `${x.name ?? ''} ${x.type ?? ''} ${x.code ?? ''} ${x.message ?? ''}`).join(' | ');
  const where = s ? ` (${s.alias}: ${s.bootstrapServers.join(',')})` : '';
  // an explanation of ours passed on in a plain Error (it names the cluster already): as it is
  if (where && typeof e?.message === 'string' && e.message.includes(where) && !e.type && !/^KafkaJS/.test(e.name ?? '')) return e.message;
  const denied = authorizationFailure(err);
  if (denied) return explainNotAuthorized(denied, acls ?? [], s ? principalOf(s) : undefined, where);
  const token = chain.find((x): x is OAuthTokenError => x instanceof OAuthTokenError || (x as { code?: string }).code === 'OAUTH_TOKEN_FAILED');
  if (token) return explainTokenFailure(token, where);
  const refusedToken = chain.find((x): x is OAuthTokenRefusedError => x instanceof OAuthTokenRefusedError || (x as { code?: string }).code === 'OAUTH_TOKEN_REFUSED');
  if (refusedToken) {
    const r = refusedToken;
    return `OAUTHBEARER token refused by the broker${where}: the broker ${r.broker} refused the token of client '${r.clientId}' from the token endpoint ${r.url} (${r.detail}): the token does not pass the listener's checks (signature by a key of its JWKS, issuer, audience, expiry): check that the token endpoint URL is the one of the identity provider the cluster trusts, and the scope (some providers set the audience from it)`;
  }
  // kafkajs itself failing on an answer it did not expect (a topic deleted or without a leader in
  // the middle of a request): a TypeError from inside the client, not a bug of the caller
  const internal = clientInternalError(e);
  if (internal) {
    const offsets = /'partitions' of '(low|high)\.pop/.test(internal.message ?? '');
    return offsets
      ? `the broker returned no offsets for a topic${where}: it was probably deleted, re-created or had no leader during the request; the next cycle tries again ${CLIENT_INTERNAL_MARK}${internal.message})`
      : `the Kafka client failed on an unexpected answer${where}: probably a topic deleted or re-created during the request; the next cycle tries again ${CLIENT_INTERNAL_MARK}${internal.message})`;
  }
  const sasl = s?.sasl && s.sasl.mechanism !== 'none' ? s.sasl : undefined;
  // the mechanism from the settings, else from kafkajs' words ("SASL SCRAM SHA512 authentication failed")
  const said = /SASL (PLAIN|OAUTHBEARER|SCRAM SHA(256|512))\b/.exec(text);
  const mech = mechanismName(sasl?.mechanism) || (said ? said[1].replace('SCRAM SHA', 'SCRAM-SHA-') : '');
  const user = sasl?.username ? ` '${sasl.username}'` : '';
  // a SASL client on a listener without SASL: the broker refuses the SASL handshake
  if (/ILLEGAL_SASL_STATE/.test(text)) {
    return `this listener does not use SASL${where}: set the SASL mechanism to none, or give the address of the broker's SASL listener`;
  }
  if (/UNSUPPORTED_SASL_MECHANISM|mechanism is not supported|does not support the requested SASL mechanism/i.test(text)) {
    return `SASL mechanism ${mech || ''}${mech ? ' ' : ''}not enabled on this listener${where}: choose one the listener enables (sasl.enabled.mechanisms)`;
  }
  if (mech === 'OAUTHBEARER' && /KafkaJSSASLAuthenticationError|SASL_AUTHENTICATION_FAILED|authentication failed|invalid_token/i.test(text)) {
    return `OAUTHBEARER token refused by the broker${where}: it does not pass the listener's checks (signature by a key of its JWKS, issuer, audience, expiry): check that the token endpoint URL is the one of the identity provider the cluster trusts, and the scope (some providers set the audience from it)`;
  }
  if (/KafkaJSSASLAuthenticationError|SASL_AUTHENTICATION_FAILED|authentication failed|invalid credentials|Invalid username or password/i.test(text)) {
    const scram = /SCRAM/i.test(mech || text);
    return scram
      ? `SASL login refused${where}: the broker has no ${mech || 'SCRAM'} user${user} or the password is wrong: check the username and password (a SCRAM user must exist on the cluster for this mechanism)`
      : `SASL login refused${where}: wrong username${user} or password for ${mech || 'SASL'}: check the username and password`;
  }
  // a client without SASL on a SASL listener: the broker answers ApiVersions, then closes the
  // connection at the first other request (it expects the SASL handshake). A restarting broker
  // closes connections too: ClusterConnection asks the listener (probeSaslListener) to be sure.
  if (!sasl && s && /KafkaJSConnectionClosedError|Closed connection/i.test(text)) {
    return `the broker closed the connection${where}: a broker restarting, or a listener that wants SASL or TLS (then set them in the cluster node)`;
  }
  if (/ECONNREFUSED|Connection refused/i.test(text)) return `connection refused${where}: check the bootstrap servers and that the brokers run`;
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/i.test(text)) return `unknown host${where}: check the bootstrap servers`;
  if (/ETIMEDOUT|Connection timeout|KafkaJSConnectionError.*timeout|Request timed out/i.test(text)) {
    return `connection timed out${where}: check the address, the network and TLS settings`;
  }
  if (/EPROTO|wrong version number|SSL|TLS|certificate|self.signed/i.test(text)) {
    return `TLS handshake failed${where}: check the TLS setting and certificates (is the listener TLS?)`;
  }
  if (/UNKNOWN_TOPIC_OR_PARTITION|This server does not host this topic-partition/i.test(text)) {
    return `topic does not exist${where}`;
  }
  if (/KafkaJSNumberOfRetriesExceeded|KafkaJSNonRetriableError/.test(text) && e.message) {
    return `${e.message}${where}`;
  }
  return `${e?.message ?? String(err)}${where}`;
}

/**
 * Asks a plaintext listener whether it wants SASL: sends Kafka's SaslHandshake request (api key
 * 17, v1) as the first request, as legacy clients do. A SASL listener answers with the mechanisms
 * it enables; a listener without SASL answers ILLEGAL_SASL_STATE. Anything else (no answer, a TLS
 * listener, a closed socket) is `unknown`. Used only to explain a failed connection.
 */
export function probeSaslListener(hostPort: string, timeoutMs = 3000): Promise<{ sasl: true; mechanisms: string[] } | { sasl: false } | null> {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(hostPort);
  if (!m) return Promise.resolve(null);
  const str = (x: string) => {
    const b = Buffer.from(x, 'utf8');
    const len = Buffer.alloc(2);
    len.writeInt16BE(b.length);
    return Buffer.concat([len, b]);
  };
  const header = Buffer.alloc(8);
  header.writeInt16BE(17, 0); // SaslHandshake
  header.writeInt16BE(1, 2);
  header.writeInt32BE(1, 4); // correlation id
  const body = Buffer.concat([header, str('mm2-node-red-probe'), str('PLAIN')]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    let settled = false;
    const sock = net.connect({ host: m[1], port: Number(m[2]) });
    const finish = (r: { sasl: true; mechanisms: string[] } | { sasl: false } | null) => {
      if (settled) return;
      settled = true;
      sock.destroy();
      resolve(r);
    };
    sock.setTimeout(timeoutMs, () => finish(null));
    sock.on('error', () => finish(null));
    sock.on('close', () => finish(null));
    sock.on('connect', () => sock.write(Buffer.concat([size, body])));
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 4 || buf.length < 4 + buf.readInt32BE(0)) return;
      try {
        if (buf.readInt32BE(4) !== 1) return finish(null);
        const code = buf.readInt16BE(8);
        if (code === 34) return finish({ sasl: false }); // ILLEGAL_SASL_STATE
        if (code !== 0 && code !== 33) return finish(null); // 33: UNSUPPORTED_SASL_MECHANISM, still a SASL listener
        const n = buf.readInt32BE(10);
        const mechanisms: string[] = [];
        let off = 14;
        for (let i = 0; i < n && i < 32; i++) {
          const len = buf.readInt16BE(off);
          mechanisms.push(buf.toString('utf8', off + 2, off + 2 + len));
          off += 2 + len;
        }
        finish({ sasl: true, mechanisms });
      } catch {
        finish(null);
      }
    });
  });
}

/**
 * The explanation of a cluster that does not answer at all (connection refused, unknown host,
 * connection timed out: explainKafkaError's words) without the cluster's place, so that a status
 * has room for what to fix; null for any other failure (a refusal, a missing topic...).
 */
export function unreachableExplanation(text: string): string | null {
  const m = /^(connection refused|unknown host|connection timed out) \([^)]*\)(: .*)$/s.exec(text);
  return m ? `${m[1]}${m[2]}` : null;
}

/** Whether an explanation is the uncertain "the broker closed the connection" one that asking the listener can make certain. */
export function isClosedConnectionExplanation(text: string): boolean {
  return text.startsWith('the broker closed the connection');
}

/**
 * After the broker closed the connection of a client without SASL and TLS: asks each bootstrap
 * listener whether it wants SASL. Returns the certain explanation, or null when no listener says so.
 */
export async function diagnoseClosedConnection(s: ClusterSettings): Promise<string | null> {
  if ((s.sasl && s.sasl.mechanism !== 'none') || s.tls) return null;
  for (const b of s.bootstrapServers) {
    const r = await probeSaslListener(b);
    if (r && r.sasl) {
      const list = r.mechanisms.length > 0 ? ` (it enables ${[...r.mechanisms].sort().join(', ')})` : '';
      return `the listener wants SASL${list} (${s.alias}: ${b}): set the SASL mechanism, username and password in the cluster node, or use the broker's plaintext port`;
    }
  }
  return null;
}

export { KafkaLogLevel };
