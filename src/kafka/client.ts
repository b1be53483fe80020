/**
 * The one place that turns our cluster settings into a kafkajs client, routes kafkajs logs
 * into the host's logger, and explains Kafka errors in words an operator can act on.
 */
import type * as tls from 'node:tls';
import { Kafka, logLevel as KafkaLogLevel } from 'kafkajs';
import type { LogEntry, KafkaConfig, SASLOptions } from 'kafkajs';

export type SaslMechanism = 'none' | 'plain' | 'scram-sha-256' | 'scram-sha-512';

export interface ClusterSettings {
  /** MM2 cluster alias, e.g. `us-west`. */
  alias: string;
  /** host:port list. */
  bootstrapServers: string[];
  clientId?: string;
  /** TLS options (from Node-RED's tls-config node) or true for TLS with system CAs. */
  tls?: tls.ConnectionOptions | boolean;
  sasl?: { mechanism: SaslMechanism; username?: string; password?: string };
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export interface HostLogger {
  error(msg: string): void;
  warn(msg: string): void;
  info(msg: string): void;
  debug(msg: string): void;
}

/** Parses `host:port, host:port` (also whitespace- or newline-separated) into a list. */
export function parseBootstrapServers(text: string | string[]): string[] {
  const items = Array.isArray(text) ? text : String(text).split(/[\s,]+/);
  return items.map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Checks the settings before any connection attempt; returns the problems (empty when fine). */
export function validateClusterSettings(s: ClusterSettings): string[] {
  const problems: string[] = [];
  if (!s.alias || !/^[A-Za-z0-9._-]+$/.test(s.alias)) {
    problems.push(`cluster alias '${s.alias ?? ''}' must be non-empty and use only letters, digits, '.', '_' and '-'`);
  }
  if (s.bootstrapServers.length === 0) problems.push('bootstrap servers are empty: give host:port of at least one broker');
  for (const b of s.bootstrapServers) {
    const m = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(b);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) problems.push(`bootstrap server '${b}' is not host:port`);
  }
  if (s.sasl && s.sasl.mechanism !== 'none') {
    if (!['plain', 'scram-sha-256', 'scram-sha-512'].includes(s.sasl.mechanism)) {
      problems.push(`SASL mechanism '${s.sasl.mechanism}' is not supported (use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)`);
    }
    if (!s.sasl.username) problems.push('SASL is on but the username is empty');
    if (!s.sasl.password) problems.push('SASL is on but the password is empty');
  }
  return problems;
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
      const text = `kafkajs ${namespace}: ${message}${detail}`;
      // kafkajs logs every error response of a request at ERROR, also the ones it handles or
      // retries itself (a topic that does not exist yet, a coordinator moving). Those are debug
      // here; what matters reaches the node through the failed call, its status and its own log.
      const handled = namespace === 'Connection' && /^Response /.test(message);
      if (handled || level === KafkaLogLevel.INFO || level === KafkaLogLevel.DEBUG) logger.debug(text);
      else if (throttled(text)) logger.warn(text);
    };
}

/** Builds a kafkajs client for one cluster. Connections open lazily when a producer/consumer/admin connects. */
export function createKafka(s: ClusterSettings, logger?: HostLogger, level: KafkaLogLevel = KafkaLogLevel.WARN): Kafka {
  const cfg: KafkaConfig = {
    clientId: s.clientId || `mm2-node-red-${s.alias}`,
    brokers: s.bootstrapServers,
    connectionTimeout: s.connectionTimeoutMs ?? 5000,
    requestTimeout: s.requestTimeoutMs ?? 30000,
    logLevel: level,
    logCreator: logCreator(logger),
    retry: { initialRetryTime: 300, retries: 5, maxRetryTime: 10000 },
  };
  if (s.tls) cfg.ssl = s.tls;
  if (s.sasl && s.sasl.mechanism !== 'none') {
    cfg.sasl = { mechanism: s.sasl.mechanism, username: s.sasl.username ?? '', password: s.sasl.password ?? '' } as SASLOptions;
  }
  return new Kafka(cfg);
}

/**
 * A short explanation of a Kafka error with what to fix, for node status and logs.
 * Works on kafkajs errors (type, name, cause chain) and on plain Errors.
 */
export function explainKafkaError(err: unknown, s?: Pick<ClusterSettings, 'alias' | 'bootstrapServers'>): string {
  const e = err as { name?: string; type?: string; message?: string; code?: string; cause?: unknown; originalError?: unknown };
  const chain: Array<typeof e> = [];
  let cur: unknown = e;
  for (let i = 0; cur && i < 6; i++) {
    chain.push(cur as typeof e);
    const c = cur as typeof e;
    cur = c.cause ?? c.originalError;
  }
  const text = chain.map((x) => `${x.name ?? ''} ${x.type ?? ''} ${x.code ?? ''} ${x.message ?? ''}`).join(' | ');
  const where = s ? ` (${s.alias}: ${s.bootstrapServers.join(',')})` : '';
  if (/SASL|Authentication|SaslAuthenticate|ILLEGAL_SASL_STATE|UNSUPPORTED_SASL_MECHANISM/i.test(text)) {
    if (/UNSUPPORTED_SASL_MECHANISM|mechanism/i.test(text) && !/failed/i.test(text)) {
      return `SASL mechanism refused by the broker${where}: choose one the listener enables`;
    }
    return `SASL login refused${where}: check the username, password and mechanism`;
  }
  if (/ECONNREFUSED|Connection refused/i.test(text)) return `connection refused${where}: check the bootstrap servers and that the brokers run`;
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/i.test(text)) return `unknown host${where}: check the bootstrap servers`;
  if (/ETIMEDOUT|Connection timeout|KafkaJSConnectionError.*timeout|Request timed out/i.test(text)) {
    return `connection timed out${where}: check the address, the network and TLS settings`;
  }
  if (/EPROTO|wrong version number|SSL|TLS|certificate|self.signed/i.test(text)) {
    return `TLS handshake failed${where}: check the TLS setting and certificates (is the listener TLS?)`;
  }
  if (/TOPIC_AUTHORIZATION_FAILED|GROUP_AUTHORIZATION_FAILED|CLUSTER_AUTHORIZATION_FAILED/i.test(text)) {
    return `not authorized${where}: grant the ACLs the node needs (${(/(\w+_AUTHORIZATION_FAILED)/.exec(text) ?? [])[1]})`;
  }
  if (/UNKNOWN_TOPIC_OR_PARTITION|This server does not host this topic-partition/i.test(text)) {
    return `topic does not exist${where}`;
  }
  if (/KafkaJSNumberOfRetriesExceeded|KafkaJSNonRetriableError/.test(text) && e.message) {
    return `${e.message}${where}`;
  }
  return `${e?.message ?? String(err)}${where}`;
}

export { KafkaLogLevel };
