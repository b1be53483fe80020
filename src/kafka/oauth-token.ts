/**
 * OAUTHBEARER tokens for kafkajs with the OAuth 2 client-credentials flow (RFC 6749 4.4): the
 * `oauthBearerProvider` kafkajs calls on every (re)authentication. It returns the cached token
 * while it is fresh and asks the token endpoint for a new one when it is near expiry, one request
 * at a time. Node's fetch, no other dependency. A failure rejects with an OAuthTokenError that
 * explainKafkaError (./client) turns into words naming the field to fix.
 */

/** The OAUTHBEARER settings of a cluster. */
export interface OAuthSettings {
  /** The identity provider's token endpoint (`sasl.oauthbearer.token.endpoint.url`). */
  tokenEndpointUrl: string;
  clientId: string;
  /** Kept in Node-RED's credentials; never exported in clear. */
  clientSecret: string;
  /** Space-separated scopes; empty asks for the client's default scopes. */
  scope?: string;
  /** SASL extensions sent with the token (`extension_<key>` in Kafka's JAAS config). */
  extensions?: Record<string, string>;
}

/** What went wrong getting a token: the field to fix follows from it (explainKafkaError). */
export type OAuthTokenFailure =
  /** no connection to the token endpoint (refused, unknown host, TLS) */
  | 'unreachable'
  /** no answer within the timeout */
  | 'timeout'
  /** the endpoint refused the client: wrong client id or secret (invalid_client, HTTP 401) */
  | 'client'
  /** the endpoint refused the scope (invalid_scope) */
  | 'scope'
  /** the client may not use the client-credentials grant (unauthorized_client, unsupported_grant_type) */
  | 'grant'
  /** any other refusal or an answer without an access token: probably not a token endpoint */
  | 'answer';

export class OAuthTokenError extends Error {
  readonly code = 'OAUTH_TOKEN_FAILED';
  /**
   * kafkajs's retrier tries again only when the cause may pass soon (an endpoint down, an HTTP
   * 5xx). Not after a timeout: each attempt would wait the whole timeout again; the node's next
   * attempt asks again.
   */
  readonly retriable: boolean;
  constructor(
    readonly failure: OAuthTokenFailure,
    readonly url: string,
    readonly clientId: string,
    /** HTTP status, the OAuth error code and its description, or the network error, as received. */
    readonly detail: string,
  ) {
    super(`OAUTHBEARER token request to ${url} failed (${failure}): ${detail}`);
    this.name = 'OAuthTokenError';
    this.retriable = failure === 'unreachable' || (failure === 'answer' && /^HTTP 5\d\d/.test(detail));
  }

  /** A refusal only a change of the settings cures (client, scope, grant): given again for REFUSAL_HOLD_MS without asking. */
  get held(): boolean {
    return this.failure === 'client' || this.failure === 'scope' || this.failure === 'grant';
  }
}

/**
 * The broker refused a token the token endpoint gave (RFC 7628's error: `invalid_token` when the
 * signature, issuer, audience or expiry does not pass the listener's checks). kafkajs's own
 * OAUTHBEARER authenticator takes the broker's error for a success and sends its next request,
 * which the broker answers by closing the connection ("Closed connection", "No brokers in the
 * broker pool"); ours reads it (oauthBearerMechanism).
 */
export class OAuthTokenRefusedError extends Error {
  readonly code = 'OAUTH_TOKEN_REFUSED';
  readonly retriable = false;
  constructor(
    readonly url: string,
    readonly clientId: string,
    /** host:port of the broker that refused it */
    readonly broker: string,
    /** the broker's words: its RFC 7628 status (`invalid_token`) and its error message */
    readonly detail: string,
  ) {
    super(`the broker ${broker} refused the OAUTHBEARER token of client '${clientId}' from ${url}: ${detail}`);
    this.name = 'OAuthTokenRefusedError';
  }
}

/**
 * A token failure as kafkajs must see it while it connects: a connection error (its name), so
 * that kafkajs drops the connection, whose SASL exchange the failure left half done, instead of
 * starting the next attempt's SASL handshake on it (the broker answers that with
 * ILLEGAL_SASL_STATE, which would be read as "this listener does not use SASL"). The token
 * failure is its cause, for the explanation (kafka/client explainKafkaError).
 */
export class OAuthConnectionError extends Error {
  readonly retriable: boolean;
  constructor(readonly cause: OAuthTokenError | OAuthTokenRefusedError, readonly broker: string) {
    super(cause.message);
    this.name = 'KafkaJSConnectionError';
    this.retriable = cause.retriable;
  }
}

/** kafkajs re-authenticates 10 s (its reauthenticationThreshold) before the broker's session ends. */
const KAFKAJS_REAUTH_THRESHOLD_MS = 10000;
/** A token is given out while it has at least this long left and a fifth of its lifetime (Java's refresh window is 80%). */
export const MIN_TOKEN_REMAINING_MS = KAFKAJS_REAUTH_THRESHOLD_MS + 5000;
const REFRESH_FRACTION = 0.2;
const TOKEN_REQUEST_TIMEOUT_MS = 10000;
/**
 * How long a refusal that only a change of the settings can cure (client, scope, grant) is given
 * again without asking: kafkajs connects again at every use, and an identity provider may lock out
 * a client that keeps failing. A change of the settings makes a new provider (a redeploy).
 */
export const REFUSAL_HOLD_MS = 30000;

export interface OAuthBearerToken {
  value: string;
  extensions?: Record<string, string>;
}

interface CachedToken {
  value: string;
  obtainedAt: number;
  /** ms since the epoch; undefined when neither expires_in nor the JWT's exp tells (the token is used once). */
  expiresAt?: number;
}

/** The `exp` of a JWT access token (ms), or undefined for an opaque token. */
function jwtExpiry(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' && Number.isFinite(claims.exp) ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `t` may still be given out at `now` (see MIN_TOKEN_REMAINING_MS). */
export function tokenIsFresh(t: { obtainedAt: number; expiresAt?: number }, now: number): boolean {
  if (t.expiresAt === undefined) return false;
  const left = t.expiresAt - now;
  return left > MIN_TOKEN_REMAINING_MS && left > REFRESH_FRACTION * (t.expiresAt - t.obtainedAt);
}

export interface TokenProviderOptions {
  /** The clock (tests). */
  now?: () => number;
  /** fetch (tests). */
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** One client-credentials token request; rejects with an OAuthTokenError. */
export async function requestToken(o: OAuthSettings, opts: TokenProviderOptions = {}): Promise<CachedToken> {
  const doFetch = opts.fetch ?? fetch;
  const now = opts.now ?? Date.now;
  const timeoutMs = opts.timeoutMs ?? TOKEN_REQUEST_TIMEOUT_MS;
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (o.scope && o.scope.trim() !== '') form.set('scope', o.scope.trim());
  // RFC 6749 2.3.1: client id and secret form-urlencoded, then HTTP Basic (as Kafka's Java client sends them)
  const basic = Buffer.from(`${encodeURIComponent(o.clientId)}:${encodeURIComponent(o.clientSecret)}`).toString('base64');
  const started = now();
  let res: Response;
  try {
    res = await doFetch(o.tokenEndpointUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    if (err.name === 'TimeoutError' || err.name === 'AbortError') throw new OAuthTokenError('timeout', o.tokenEndpointUrl, o.clientId, `no answer within ${timeoutMs} ms`);
    const cause = err.cause ? `${err.cause.code ?? ''} ${err.cause.message ?? ''}`.trim() : '';
    throw new OAuthTokenError('unreachable', o.tokenEndpointUrl, o.clientId, cause || err.message || String(e));
  }
  const text = await res.text().catch(() => '');
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    /* not JSON: below */
  }
  const oauthError = typeof body.error === 'string' ? body.error : '';
  const description = typeof body.error_description === 'string' ? `: ${body.error_description}` : '';
  if (!res.ok) {
    const detail = `HTTP ${res.status}${oauthError ? ` ${oauthError}` : ''}${description}`;
    const failure: OAuthTokenFailure =
      oauthError === 'invalid_client' || res.status === 401 ? 'client'
      : oauthError === 'invalid_scope' ? 'scope'
      : oauthError === 'unauthorized_client' || oauthError === 'unsupported_grant_type' ? 'grant'
      : 'answer';
    throw new OAuthTokenError(failure, o.tokenEndpointUrl, o.clientId, detail);
  }
  const value = typeof body.access_token === 'string' ? body.access_token : '';
  if (value === '') {
    throw new OAuthTokenError('answer', o.tokenEndpointUrl, o.clientId, `HTTP ${res.status} without an access_token (${text === '' ? 'empty' : res.headers.get('content-type') ?? 'no content type'})`);
  }
  // the broker holds the session to the JWT's exp; expires_in for an opaque token
  const expiresIn = Number(body.expires_in);
  const expiresAt = jwtExpiry(value) ?? (Number.isFinite(expiresIn) && expiresIn > 0 ? started + expiresIn * 1000 : undefined);
  return { value, obtainedAt: started, expiresAt };
}

/**
 * kafkajs's `oauthBearerProvider` for one cluster: the cached token while fresh (tokenIsFresh),
 * else a new one (one request at a time, shared by the connections asking meanwhile). A refusal of
 * the client, scope or grant is given again for REFUSAL_HOLD_MS without asking.
 */
export function oauthBearerProvider(o: OAuthSettings, opts: TokenProviderOptions = {}): (() => Promise<OAuthBearerToken>) & { drop(value: string): void } {
  const now = opts.now ?? Date.now;
  let cached: CachedToken | null = null;
  let pending: Promise<CachedToken> | null = null;
  let refused: { error: OAuthTokenError; at: number } | null = null;
  const extensions = o.extensions && Object.keys(o.extensions).length > 0 ? { ...o.extensions } : undefined;
  const give = (t: CachedToken): OAuthBearerToken => (extensions ? { value: t.value, extensions } : { value: t.value });
  const provider = async (): Promise<OAuthBearerToken> => {
    if (cached && tokenIsFresh(cached, now())) return give(cached);
    if (refused && now() - refused.at < REFUSAL_HOLD_MS) throw refused.error;
    if (!pending) {
      pending = requestToken(o, opts).then(
        (t) => {
          cached = t;
          pending = null;
          return t;
        },
        (e: unknown) => {
          pending = null;
          if (e instanceof OAuthTokenError && e.held) refused = { error: e, at: now() };
          throw e;
        },
      );
    }
    return give(await pending);
  };
  /** Forgets the token `value` (the broker refused it): the next call asks for a new one. */
  const drop = (value: string): void => {
    if (cached && cached.value === value) cached = null;
  };
  return Object.assign(provider, { drop });
}

/** What kafkajs hands a SASL mechanism's authenticator (its AuthenticationProviderArgs). */
interface SaslAuthenticateArgs {
  host: string;
  port: number;
  saslAuthenticate: (args: { request: { encode(): Promise<Buffer> }; response?: { decode(raw: Buffer): Promise<Buffer>; parse(b: Buffer): Promise<Buffer> } }) => Promise<Buffer | void>;
}

const SOH = '\u0001';

/** Kafka's bytes (an INT32 length, then the bytes), as kafkajs's SaslAuthenticate request writes them as they are. */
function sized(b: Buffer): Buffer {
  const out = Buffer.alloc(4 + b.length);
  out.writeInt32BE(b.length, 0);
  b.copy(out, 4);
  return out;
}

/** The server's bytes of a SaslAuthenticate answer (kafkajs gives them with their INT32 length). */
function unsized(raw: Buffer | void): Buffer {
  if (!raw || raw.length < 4) return Buffer.alloc(0);
  const n = raw.readInt32BE(0);
  return n >= 0 && n <= raw.length - 4 ? raw.subarray(4, 4 + n) : raw;
}

/**
 * The OAUTHBEARER client initial response (RFC 7628 3.1, as Kafka's OAuthBearerClientInitialResponse
 * writes it): `n,,` SOH `auth=Bearer <token>` [SOH key=value ...] SOH SOH.
 */
export function clientInitialResponse(token: OAuthBearerToken): Buffer {
  const ext = Object.entries(token.extensions ?? {}).map(([k, v]) => `${SOH}${k}=${v}`).join('');
  return Buffer.from(`n,,${SOH}auth=Bearer ${token.value}${ext}${SOH}${SOH}`, 'utf8');
}

/** The status of the broker's RFC 7628 error (`{"status":"invalid_token",...}`), or the text as it is. */
function brokerStatus(challenge: Buffer): string {
  const text = challenge.toString('utf8');
  try {
    const j = JSON.parse(text) as { status?: unknown; scope?: unknown };
    if (typeof j.status === 'string') return `${j.status}${typeof j.scope === 'string' && j.scope ? ` (scope ${j.scope})` : ''}`;
  } catch {
    /* not JSON */
  }
  return text.slice(0, 200);
}

/**
 * kafkajs's SASL mechanism for OAUTHBEARER with the client-credentials token of `o` (see
 * oauthBearerProvider), in place of kafkajs's own authenticator, which (kafkajs 2.2) reads
 * neither a refused token nor a failed token request in a way that can be explained:
 * - a token request that fails is thrown as an OAuthConnectionError (kafkajs drops the half-done
 *   connection, the cause names the token endpoint and what it answered);
 * - the broker's RFC 7628 error (a challenge in place of success) is answered as the RFC says
 *   (%x01), the token forgotten, and an OAuthTokenRefusedError thrown naming the client id and
 *   the token endpoint.
 */
export function oauthBearerMechanism(o: OAuthSettings, opts: TokenProviderOptions = {}): { mechanism: 'oauthbearer'; authenticationProvider: (args: SaslAuthenticateArgs) => { authenticate(): Promise<void> } } {
  const provider = oauthBearerProvider(o, opts);
  const raw = { decode: async (b: Buffer) => b, parse: async (b: Buffer) => b };
  return {
    mechanism: 'oauthbearer',
    authenticationProvider: ({ host, port, saslAuthenticate }) => ({
      async authenticate(): Promise<void> {
        const broker = `${host}:${port}`;
        let token: OAuthBearerToken;
        try {
          token = await provider();
        } catch (e) {
          throw e instanceof OAuthTokenError ? new OAuthConnectionError(e, broker) : e;
        }
        const refused = (detail: string): OAuthConnectionError => {
          provider.drop(token.value);
          return new OAuthConnectionError(new OAuthTokenRefusedError(o.tokenEndpointUrl, o.clientId, broker, detail), broker);
        };
        let challenge: Buffer;
        try {
          challenge = unsized(await saslAuthenticate({ request: { encode: async () => sized(clientInitialResponse(token)) }, response: raw }));
        } catch (e) {
          // the broker refused at once (SASL_AUTHENTICATION_FAILED with its message)
          if ((e as { type?: string }).type === 'SASL_AUTHENTICATION_FAILED') throw refused((e as Error).message);
          throw e;
        }
        if (challenge.length === 0) return;
        // RFC 7628 3.2.2: the server's error; the client answers %x01, the server then fails the exchange
        const status = brokerStatus(challenge);
        let final = '';
        try {
          await saslAuthenticate({ request: { encode: async () => sized(Buffer.from([1])) }, response: raw });
        } catch (e) {
          final = (e as Error).message ?? '';
        }
        throw refused(final && !final.includes(status) ? `${status}: ${final}` : status);
      },
    }),
  };
}
