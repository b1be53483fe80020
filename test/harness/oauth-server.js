'use strict';
/**
 * A small OAuth 2 authorization server for tests, on a local HTTP port the kernel picks: a JWKS
 * (one RSA key made with node:crypto) at /jwks and a client-credentials token endpoint at /token
 * that issues RS256 JWTs. A broker validates the tokens with Kafka's
 * OAuthBearerValidatorCallbackHandler against the JWKS (scripts/kafka/cluster.js `security.oauth`).
 *
 *   const server = await startOAuthServer({ clients: { 'mm2-node': 'node-secret' }, lifetimeSeconds: 20 });
 *   server.tokenUrl, server.jwksUrl, server.issuer, server.audience
 *   server.issued        // tokens issued so far: [{ clientId, scope, at, exp }]
 *   server.refused       // refused token requests: [{ clientId, reason }]
 *   await server.stop();
 *
 * Clients authenticate with HTTP Basic (RFC 6749 2.3.1, as Kafka's Java client does) or with
 * client_id and client_secret in the form body. A wrong secret is answered 401 invalid_client.
 * The token's subject is the client id (the broker's principal: User:<client id>). `issuer` sets the
 * tokens' `iss` (default: the server's own URL), e.g. another server's, to issue tokens that only
 * the signing key tells apart (a key the broker does not trust).
 */
const http = require('node:http');
const crypto = require('node:crypto');

const b64url = (x) => Buffer.from(typeof x === 'string' ? x : JSON.stringify(x)).toString('base64url');

/**
 * @param {{ clients: Record<string, string>, lifetimeSeconds?: number, audience?: string, issuer?: string }} opts
 */
async function startOAuthServer(opts) {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = crypto.randomBytes(6).toString('hex');
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
  const lifetime = opts.lifetimeSeconds ?? 30;
  const audience = opts.audience ?? 'kafka';
  const issued = [];
  const refused = [];
  let requests = 0;
  let base = '';

  const sign = (claims) => {
    const data = `${b64url({ alg: 'RS256', typ: 'JWT', kid })}.${b64url(claims)}`;
    return `${data}.${crypto.sign('sha256', Buffer.from(data), privateKey).toString('base64url')}`;
  };
  const send = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url || '/', base);
      if (req.method === 'GET' && url.pathname === '/jwks') return send(res, 200, { keys: [jwk] });
      if (req.method !== 'POST' || url.pathname !== '/token') return send(res, 404, { error: 'not_found' });
      requests += 1;
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      let clientId = form.get('client_id');
      let secret = form.get('client_secret');
      const auth = /^Basic\s+(.+)$/i.exec(req.headers.authorization || '');
      if (auth) {
        const [u, ...p] = Buffer.from(auth[1], 'base64').toString('utf8').split(':');
        clientId = decodeURIComponent(u);
        secret = decodeURIComponent(p.join(':'));
      }
      if (form.get('grant_type') !== 'client_credentials') {
        refused.push({ clientId, reason: 'unsupported_grant_type' });
        return send(res, 400, { error: 'unsupported_grant_type' });
      }
      if (!clientId || !(clientId in opts.clients) || opts.clients[clientId] !== secret) {
        refused.push({ clientId, reason: 'invalid_client' });
        return send(res, 401, { error: 'invalid_client', error_description: 'client authentication failed' });
      }
      const now = Math.floor(Date.now() / 1000);
      const scope = form.get('scope') || '';
      const claims = { iss: opts.issuer ?? base, sub: clientId, aud: audience, iat: now, nbf: now, exp: now + lifetime, jti: crypto.randomUUID(), ...(scope ? { scope } : {}) };
      issued.push({ clientId, scope, at: Date.now(), exp: claims.exp * 1000 });
      return send(res, 200, { access_token: sign(claims), token_type: 'Bearer', expires_in: lifetime, ...(scope ? { scope } : {}) });
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(undefined));
  });
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  base = `http://127.0.0.1:${port}`;
  return {
    issuer: opts.issuer ?? base,
    audience,
    tokenUrl: `${base}/token`,
    jwksUrl: `${base}/jwks`,
    issued,
    refused,
    /** Token requests answered so far (issued or refused). */
    get requests() { return requests; },
    stop: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve(undefined));
    }),
  };
}

module.exports = { startOAuthServer };
