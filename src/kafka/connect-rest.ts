/**
 * A small client for Kafka Connect's REST API (node:http / node:https, no dependency): what the
 * mm2-connect node needs to deploy MM2's connectors and watch them.
 *
 *   PUT    /connectors/<name>/config          create or update
 *   GET    /connectors/<name>/status          connector and task states
 *   PUT    /connectors/<name>/pause | resume
 *   POST   /connectors/<name>/restart?includeTasks=true
 *   DELETE /connectors/<name>
 *
 * Errors are ConnectRestError with the HTTP status and Connect's own `message`, or the network
 * error explained (connection refused, unknown host, timeout).
 *
 * A distributed Connect cluster answers 409 while its workers rebalance ("Cannot complete request
 * momentarily due to stale configuration"), and 5xx while a request forwarded to the leader times
 * out or the leader changes. Every request is repeated on those answers with a doubling back-off,
 * a bounded number of times, before it fails with the last answer.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { backoffDelay } from '../core/backoff';

export type ConnectorState = 'RUNNING' | 'PAUSED' | 'STOPPED' | 'FAILED' | 'UNASSIGNED' | 'RESTARTING' | string;

export interface TaskStatus {
  id: number;
  state: ConnectorState;
  workerId?: string;
  /** The Java stack trace Connect reports for a FAILED task. */
  trace?: string;
}

export interface ConnectorStatus {
  name: string;
  /** null when the connector does not exist on the Connect cluster. */
  state: ConnectorState | null;
  workerId?: string;
  trace?: string;
  tasks: TaskStatus[];
  type?: string;
}

export class ConnectRestError extends Error {
  /** HTTP status, or 0 for a network error. */
  readonly status: number;
  /** Connect's error_code, when it sent one. */
  readonly errorCode?: number;
  /** The network error code (ECONNREFUSED, ENOTFOUND, ETIMEDOUT...), for network errors. */
  readonly code?: string;
  /** A few words for a node status: `connection refused`, or Connect's message. */
  readonly short: string;
  /** An answer that is not Kafka Connect's (code NOT_CONNECT_CODE): its content type and first characters. */
  readonly contentType?: string;
  readonly start?: string;
  constructor(message: string, status: number, extra: { errorCode?: number; code?: string; short?: string; contentType?: string; start?: string } = {}) {
    super(message);
    this.name = 'ConnectRestError';
    this.status = status;
    this.short = extra.short ?? message;
    if (extra.contentType !== undefined) this.contentType = extra.contentType;
    if (extra.start !== undefined) this.start = extra.start;
    if (extra.errorCode !== undefined) this.errorCode = extra.errorCode;
    if (extra.code !== undefined) this.code = extra.code;
  }
}

export interface ConnectRestOptions {
  /** e.g. `http://connect:8083` or `https://host/connect` (a path prefix is kept). User info in the URL is used for basic auth. */
  url: string;
  username?: string;
  password?: string;
  /** Per request. Default 15000 ms. */
  timeoutMs?: number;
  /** Extra TLS options for https (CA, client certificate, rejectUnauthorized). */
  tls?: https.RequestOptions;
  /** Repeats of a request answered 409 (rebalance in progress) or 5xx. Default 6; 0 = none. */
  retries?: number;
  /** Wait before the first repeat, doubled for each further one. Default 250 ms. */
  retryBackoffMs?: number;
  /** Upper bound of one wait. Default 4000 ms. */
  maxRetryBackoffMs?: number;
}

/** Whether Connect's answer says "try again": a rebalance in progress (409) or a server-side failure (5xx). */
export function isRetriableStatus(status: number): boolean {
  return status === 409 || (status >= 500 && status <= 599);
}

function nonNegativeInt(v: number | undefined, dflt: number, what: string): number {
  if (v === undefined) return dflt;
  if (!Number.isFinite(v) || v < 0) throw new ConnectRestError(`${what} must be a number >= 0 (got ${v})`, 0, { code: 'EINVALIDOPTION' });
  return Math.floor(v);
}

/** Checks a Connect REST URL; returns the parsed URL or the reason it cannot be used. */
export function parseConnectUrl(text: string): { url: URL } | { error: string } {
  const t = text.trim();
  if (t === '') return { error: 'the Kafka Connect REST URL is empty' };
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return { error: `'${t}' is not a URL (expected e.g. http://connect:8083)` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: `'${t}' must start with http:// or https://` };
  return { url: u };
}

const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
  EPROTO: 'TLS handshake failed (https against a plain http port?)',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate not trusted',
  CERT_HAS_EXPIRED: 'certificate expired',
};

/** The first line of a Java stack trace plus its last `Caused by:` line: what failed and why. */
export function traceSummary(trace: string | undefined, max = 300): string | undefined {
  if (!trace) return undefined;
  const lines = trace.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0);
  if (lines.length === 0) return undefined;
  const first = lines[0];
  const causes = lines.filter((l) => l.startsWith('Caused by:'));
  const last = causes.length > 0 ? causes[causes.length - 1].replace(/^Caused by:\s*/, '') : undefined;
  const text = last && last !== first ? `${first} (caused by ${last})` : first;
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

interface RawResponse {
  status: number;
  body: unknown;
  text: string;
  /** The answer's Content-Type header ('' when none). */
  contentType: string;
}

/** The network-style code of a ConnectRestError for an answer that is not Kafka Connect's REST API. */
export const NOT_CONNECT_CODE = 'ENOTCONNECT';

/**
 * Whether an answer cannot come from Kafka Connect's REST API: Connect answers JSON (or nothing)
 * to every request; a body that is not JSON comes from something else at that URL (a web page, a
 * proxy's login page...). The answers a proxy in front of Connect gives in its own words are left
 * to their own explanation: 401/403 (credentials), 409 and 5xx (repeated, then reported).
 */
export function isNotConnectAnswer(r: { status: number; body: unknown; text: string }): boolean {
  if (r.status === 401 || r.status === 403 || isRetriableStatus(r.status)) return false;
  return r.text.trim() !== '' && r.body === undefined;
}

/** The first characters of an answer, on one line, for a message. */
function answerStart(text: string, max = 40): string {
  const one = text.trim().replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

export class ConnectRestClient {
  readonly baseUrl: URL;
  private readonly auth?: string;
  private readonly timeoutMs: number;
  private readonly tls?: https.RequestOptions;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(opts: ConnectRestOptions) {
    const p = parseConnectUrl(opts.url);
    if ('error' in p) throw new ConnectRestError(p.error, 0, { code: 'EINVALIDURL' });
    this.baseUrl = p.url;
    const user = opts.username || decodeURIComponent(p.url.username);
    const pass = opts.password ?? decodeURIComponent(p.url.password);
    if (user) this.auth = 'Basic ' + Buffer.from(`${user}:${pass ?? ''}`).toString('base64');
    this.baseUrl.username = '';
    this.baseUrl.password = '';
    this.timeoutMs = opts.timeoutMs ?? 15000;
    this.tls = opts.tls;
    this.retries = nonNegativeInt(opts.retries, 6, 'retries');
    this.backoffMs = nonNegativeInt(opts.retryBackoffMs, 250, 'retryBackoffMs');
    this.maxBackoffMs = Math.max(this.backoffMs, nonNegativeInt(opts.maxRetryBackoffMs, 4000, 'maxRetryBackoffMs'));
  }

  /** The URL without credentials, for messages. */
  get displayUrl(): string {
    return this.baseUrl.origin + this.baseUrl.pathname.replace(/\/+$/, '');
  }

  private stopped = false;

  /** No more repeats: a request waiting to be repeated ends with the answer it has (the user closed). */
  stopRetrying(): void {
    this.stopped = true;
  }

  /**
   * One request, repeated on 409 and 5xx answers (bounded; see the file comment). Network errors
   * fail at once, and so does an answer that is not Kafka Connect's (isNotConnectAnswer).
   */
  private async request(method: string, path: string, body?: unknown): Promise<RawResponse> {
    for (let attempt = 0; ; attempt++) {
      const r = await this.send(method, path, body);
      if (isNotConnectAnswer(r)) throw this.notConnect(r, `${method} ${path}`);
      if (!isRetriableStatus(r.status) || attempt >= this.retries || this.stopped) return r;
      await new Promise((resolve) => setTimeout(resolve, backoffDelay(attempt, this.backoffMs, this.maxBackoffMs)));
      if (this.stopped) return r;
    }
  }

  private send(method: string, path: string, body?: unknown): Promise<RawResponse> {
    const base = this.baseUrl.pathname.replace(/\/+$/, '');
    const target = new URL(this.baseUrl.origin + base + path);
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string | number> = { accept: 'application/json' };
    if (data) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = data.length;
    }
    if (this.auth) headers.authorization = this.auth;
    const lib = target.protocol === 'https:' ? https : http;
    return new Promise<RawResponse>((resolve, reject) => {
      const req = lib.request(target, { method, headers, ...(target.protocol === 'https:' ? this.tls ?? {} : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          const type = res.headers['content-type'];
          resolve({ status: res.statusCode ?? 0, body: parsed, text, contentType: typeof type === 'string' ? type.split(';')[0].trim() : '' });
        });
        res.on('error', reject);
      });
      req.setTimeout(this.timeoutMs, () => {
        const e = new Error(`no answer within ${this.timeoutMs} ms`) as Error & { code: string };
        e.code = 'ETIMEDOUT';
        req.destroy(e);
      });
      req.on('error', (e: Error & { code?: string }) => {
        const code = e.code ?? '';
        const words = NETWORK_WORDS[code] ?? e.message;
        const hint = code === 'ECONNREFUSED' ? ' (is a Connect worker running and listening there?)' : code && !words.includes(code) ? ` (${code})` : '';
        reject(new ConnectRestError(`cannot reach Kafka Connect at ${this.displayUrl}: ${words}${hint}`, 0, { code, short: words }));
      });
      if (data) req.write(data);
      req.end();
    });
  }

  /** The failure of an answer that is not Kafka Connect's: what answered (content type, first characters) and what to check. */
  private notConnect(r: RawResponse, what: string): ConnectRestError {
    const type = r.contentType || 'no content type';
    const start = answerStart(r.text);
    return new ConnectRestError(
      `${this.displayUrl} answers, but not as Kafka Connect's REST API (${what}: HTTP ${r.status}, ${type}, starting ${JSON.stringify(start)}): check the Connect URL, the address and port of a Connect worker's REST listener (listeners, default http://:8083) and any path prefix`,
      r.status,
      { code: NOT_CONNECT_CODE, short: `not Kafka Connect: ${type} ${JSON.stringify(start)}`, contentType: type, start },
    );
  }

  private fail(r: RawResponse, what: string): never {
    const b = r.body as { message?: unknown; error_code?: unknown } | undefined;
    const msg = typeof b?.message === 'string' ? b.message : r.text.trim().slice(0, 300) || `HTTP ${r.status}`;
    const hint =
      r.status === 401 || r.status === 403
        ? ' (check the Connect REST user and password)'
        : isRetriableStatus(r.status) && this.retries > 0
          ? ` (still HTTP ${r.status} after ${this.retries} repeats: ${r.status === 409 ? 'the Connect workers keep rebalancing' : 'the Connect cluster keeps failing'})`
          : '';
    throw new ConnectRestError(`${what}: ${msg}${hint}`, r.status, { short: `HTTP ${r.status}: ${msg}`, ...(typeof b?.error_code === 'number' ? { errorCode: b.error_code } : {}) });
  }

  private static path(name: string): string {
    return `/connectors/${encodeURIComponent(name)}`;
  }

  /** GET / : the worker's version, a reachability check. */
  async serverInfo(): Promise<{ version?: string; commit?: string; kafka_cluster_id?: string }> {
    const r = await this.request('GET', '/');
    if (r.status !== 200) this.fail(r, 'GET /');
    return (r.body ?? {}) as { version?: string };
  }

  /** Creates or updates a connector. Returns whether it was created (201) or updated (200). */
  async putConfig(name: string, config: Record<string, string>): Promise<{ created: boolean }> {
    const r = await this.request('PUT', `${ConnectRestClient.path(name)}/config`, config);
    if (r.status === 200 || r.status === 201) return { created: r.status === 201 };
    this.fail(r, `deploy ${name}`);
  }

  /** The connector's and its tasks' states; state null when the connector does not exist. */
  async status(name: string): Promise<ConnectorStatus> {
    const r = await this.request('GET', `${ConnectRestClient.path(name)}/status`);
    if (r.status === 404) return { name, state: null, tasks: [] };
    if (r.status !== 200) this.fail(r, `status of ${name}`);
    const b = r.body as {
      name?: string;
      type?: string;
      connector?: { state?: string; worker_id?: string; trace?: string };
      tasks?: Array<{ id?: number; state?: string; worker_id?: string; trace?: string }>;
    };
    const tasks: TaskStatus[] = (b.tasks ?? []).map((t) => ({
      id: Number(t.id),
      state: String(t.state),
      ...(t.worker_id ? { workerId: t.worker_id } : {}),
      ...(t.trace ? { trace: t.trace } : {}),
    }));
    tasks.sort((a, c) => a.id - c.id);
    return {
      name: b.name ?? name,
      state: b.connector?.state ?? null,
      ...(b.connector?.worker_id ? { workerId: b.connector.worker_id } : {}),
      ...(b.connector?.trace ? { trace: b.connector.trace } : {}),
      tasks,
      ...(b.type ? { type: b.type } : {}),
    };
  }

  /** The connector's current config, or null when it does not exist. */
  async getConfig(name: string): Promise<Record<string, string> | null> {
    const r = await this.request('GET', `${ConnectRestClient.path(name)}/config`);
    if (r.status === 404) return null;
    if (r.status !== 200) this.fail(r, `config of ${name}`);
    return (r.body ?? {}) as Record<string, string>;
  }

  async pause(name: string): Promise<void> {
    const r = await this.request('PUT', `${ConnectRestClient.path(name)}/pause`);
    if (r.status !== 202 && r.status !== 200 && r.status !== 204) this.fail(r, `pause ${name}`);
  }

  async resume(name: string): Promise<void> {
    const r = await this.request('PUT', `${ConnectRestClient.path(name)}/resume`);
    if (r.status !== 202 && r.status !== 200 && r.status !== 204) this.fail(r, `resume ${name}`);
  }

  /** Restarts the connector and all its tasks (KIP-745). */
  async restart(name: string): Promise<void> {
    const r = await this.request('POST', `${ConnectRestClient.path(name)}/restart?includeTasks=true&onlyFailed=false`);
    if (r.status !== 202 && r.status !== 200 && r.status !== 204) this.fail(r, `restart ${name}`);
  }

  /** Deletes the connector; returns false when it did not exist. */
  async delete(name: string): Promise<boolean> {
    const r = await this.request('DELETE', ConnectRestClient.path(name));
    if (r.status === 404) return false;
    if (r.status !== 204 && r.status !== 200) this.fail(r, `delete ${name}`);
    return true;
  }
}
