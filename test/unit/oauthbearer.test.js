'use strict';
/**
 * OAUTHBEARER in mm2-cluster (issue 11, item 2), without a broker: the token provider kafkajs
 * calls (cached while fresh, a new token near expiry, one request at a time) against a token
 * endpoint served here on a local port; its failures explained naming the field to fix; the field
 * checks shared with the editor; and the export for Kafka Connect (Kafka's client properties, the
 * client secret only as a reference) and back. The broker side is test/integration/oauthbearer.test.js.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { oauthBearerProvider, oauthBearerMechanism, requestToken, tokenIsFresh, MIN_TOKEN_REMAINING_MS, REFUSAL_HOLD_MS, OAuthTokenError, OAuthTokenRefusedError } = require('../../dist/kafka/oauth-token');
const { explainKafkaError, validateClusterSettings, principalOf, tokenFailureSummary } = require('../../dist/kafka/client');
const { failureStatusText } = require('../../dist/nodes/shared/flow-node');
const { oauthFieldProblem, parseSaslExtensions } = require('../../dist/core/oauth-fields');
const { exportConnectors } = require('../../dist/flows/export-connectors');
const { flowFromConnectorConfigs } = require('../../dist/flows/import-connectors');
const { oauthJaasConfig, parseJaasConfig, maskJaasSecrets } = require('../../dist/core/export/jaas');
const { parseJavaProperties } = require('../../dist/core/java-properties');
const { flowFromDefinitions } = require('../../dist/flows/definitions');
const { catalogPath, editorPath } = require('../harness/layout');

const SECRET = 'cl1ent-s3cret';

/** A token endpoint on a local port: answers with `answer(req, form)` ({ status, body }); records each request. */
async function tokenEndpoint(answer) {
  const seen = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      seen.push({ headers: req.headers, form });
      const { status, body } = answer(req, form);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/token`;
  return { url, seen, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

/** An unsigned JWT with `exp` (the provider reads exp; the broker checks the signature, not this test). */
const jwt = (exp) => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'c', exp })).toString('base64url')}.sig`;

describe('OAUTHBEARER: token provider, explanations, field checks, export', function () {
  describe('the token provider kafkajs calls', function () {
    let ep;
    let lifetime = 60;
    let clock = 1_000_000_000_000;
    const now = () => clock;
    beforeEach(async function () {
      lifetime = 60;
      ep = await tokenEndpoint((req, form) => {
        const auth = Buffer.from(String(req.headers.authorization).replace(/^Basic /, ''), 'base64').toString();
        if (auth !== `mm2%20client:${encodeURIComponent(SECRET)}`) return { status: 401, body: { error: 'invalid_client', error_description: 'bad secret' } };
        if (form.get('scope') === 'bad') return { status: 400, body: { error: 'invalid_scope' } };
        return { status: 200, body: { access_token: jwt(Math.floor(clock / 1000) + lifetime), token_type: 'Bearer', expires_in: lifetime } };
      });
    });
    afterEach(() => ep.close());
    const settings = (over = {}) => ({ tokenEndpointUrl: ep.url, clientId: 'mm2 client', clientSecret: SECRET, scope: 'kafka.read kafka.write', ...over });

    it('asks with the client-credentials grant, client id and secret by HTTP Basic, the scope; gives the token with the extensions', async function () {
      const provider = oauthBearerProvider(settings({ extensions: { logicalCluster: 'lkc-1' } }), { now });
      const t = await provider();
      assert.equal(ep.seen.length, 1);
      assert.equal(ep.seen[0].form.get('grant_type'), 'client_credentials');
      assert.equal(ep.seen[0].form.get('scope'), 'kafka.read kafka.write');
      assert.equal(ep.seen[0].form.get('client_secret'), null, 'the secret goes in the Authorization header only');
      assert.equal(ep.seen[0].headers['content-type'], 'application/x-www-form-urlencoded');
      assert.match(t.value, /^[\w-]+\.[\w-]+\.sig$/);
      assert.deepEqual(t.extensions, { logicalCluster: 'lkc-1' });
    });

    it('gives the cached token while fresh, asks for a new one near expiry (before kafkajs re-authenticates), one request at a time', async function () {
      const provider = oauthBearerProvider(settings(), { now });
      const [a, b, c] = await Promise.all([provider(), provider(), provider()]);
      assert.equal(ep.seen.length, 1, 'connections asking together share one request');
      assert.equal(a.value, b.value);
      assert.equal(b.value, c.value);
      clock += 40_000; // 20 s of 60 left: still more than a fifth and more than 15 s
      assert.equal((await provider()).value, a.value);
      assert.equal(ep.seen.length, 1);
      clock += 6_000; // 14 s left: kafkajs would re-authenticate at 10 s left with this token again and again
      const renewed = await provider();
      assert.equal(ep.seen.length, 2);
      assert.notEqual(renewed.value, a.value);
      assert.equal((await provider()).value, renewed.value);
      assert.equal(ep.seen.length, 2);
    });

    it('a token of a long lifetime is renewed when a fifth of it is left', function () {
      const t = { obtainedAt: 0, expiresAt: 3_600_000 };
      assert.equal(tokenIsFresh(t, 2_879_000), true);
      assert.equal(tokenIsFresh(t, 2_881_000), false);
      assert.equal(tokenIsFresh({ obtainedAt: 0, expiresAt: MIN_TOKEN_REMAINING_MS }, 0), false, 'a token shorter than the margin is never cached');
      assert.equal(tokenIsFresh({ obtainedAt: 0 }, 0), false, 'without a known expiry the token is used once');
    });

    it('an opaque token: its expiry from expires_in', async function () {
      await ep.close();
      ep = await tokenEndpoint(() => ({ status: 200, body: { access_token: 'opaque-token', expires_in: 120 } }));
      const t = await requestToken(settings(), { now });
      assert.equal(t.value, 'opaque-token');
      assert.equal(t.expiresAt, clock + 120_000);
    });

    it('a wrong client secret: not retried by kafkajs, explained naming the client id and the client secret', async function () {
      const provider = oauthBearerProvider(settings({ clientSecret: 'wrong' }), { now });
      const e = await provider().then(() => null, (x) => x);
      assert.ok(e instanceof OAuthTokenError);
      assert.equal(e.failure, 'client');
      assert.equal(e.retriable, false);
      // as kafkajs hands it on: wrapped, the token error its cause
      const wrapped = Object.assign(new Error(e.message), { name: 'KafkaJSNonRetriableError', cause: e });
      const text = explainKafkaError(wrapped, { alias: 'east', bootstrapServers: ['k1:9092'], sasl: { mechanism: 'oauthbearer' } });
      assert.match(text, /^OAUTHBEARER client id or secret refused \(east: k1:9092\)/);
      assert.match(text, /does not accept client 'mm2 client' \(HTTP 401 invalid_client: bad secret\)/);
      assert.match(text, /check the client id and the client secret in the cluster node/);
      assert.ok(!text.includes('wrong'), 'the secret is not in the text');
      // the identity provider is not asked again and again with a secret it refused (kafkajs connects at every use)
      const asked = ep.seen.length;
      assert.equal(await provider().then(() => null, (x) => x), e);
      assert.equal(ep.seen.length, asked);
      clock += REFUSAL_HOLD_MS;
      assert.equal((await provider().then(() => null, (x) => x)).failure, 'client');
      assert.equal(ep.seen.length, asked + 1);
      // the right secret (a redeploy: a new provider) works at once
      const ok = oauthBearerProvider(settings(), { now });
      assert.ok((await ok()).value);
    });

    it('a refused scope names the scope', async function () {
      const e = await requestToken(settings({ scope: 'bad' }), { now }).then(() => null, (x) => x);
      assert.equal(e.failure, 'scope');
      assert.match(explainKafkaError(e), /^OAUTHBEARER scope refused: .* \(HTTP 400 invalid_scope\): check the scope in the cluster node/);
    });

    it('an unreachable token endpoint (retried by kafkajs, asked again at once) names the token endpoint URL', async function () {
      const url = ep.url;
      await ep.close();
      const e = await requestToken(settings({ tokenEndpointUrl: url }), { now }).then(() => null, (x) => x);
      assert.equal(e.failure, 'unreachable');
      assert.equal(e.retriable, true);
      assert.match(explainKafkaError(e, { alias: 'east', bootstrapServers: ['k1:9092'] }), new RegExp(`^OAUTHBEARER token endpoint URL unreachable \\(east: k1:9092\\): cannot reach ${url} \\(ECONNREFUSED.*\\): check the token endpoint URL in the cluster node`));
      ep = await tokenEndpoint(() => ({ status: 200, body: {} }));
    });

    it('a token endpoint that does not answer in time: a timeout naming the time waited, not retried inside kafkajs (each attempt would wait again)', async function () {
      const held = [];
      const silent = http.createServer((_req, res) => { held.push(res); });
      await new Promise((r) => silent.listen(0, '127.0.0.1', () => r(undefined)));
      const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (silent.address()).port}/token`;
      try {
        const e = await requestToken(settings({ tokenEndpointUrl: url }), { now, timeoutMs: 300 }).then(() => null, (x) => x);
        assert.equal(e.failure, 'timeout');
        assert.equal(e.retriable, false);
        assert.equal(e.held, false, 'asked again at the next attempt');
        const text = explainKafkaError(e, { alias: 'east', bootstrapServers: ['k1:9092'] });
        assert.ok(text.startsWith(`OAUTHBEARER token endpoint URL not answering (east: k1:9092): the token endpoint ${url} (no answer within 300 ms)`), text);
        assert.equal(failureStatusText(`error: emit failed: ${text}`), 'OAUTHBEARER token endpoint URL: no answer within 300 ms: check the URL');
      } finally {
        silent.closeAllConnections();
        await new Promise((r) => silent.close(r));
      }
    });

    it('an HTTP 500: retried by kafkajs, named with its status code in the explanation and the status', async function () {
      await ep.close();
      ep = await tokenEndpoint(() => ({ status: 500, body: 'oops' }));
      const e = await requestToken(settings(), { now }).then(() => null, (x) => x);
      assert.equal(e.failure, 'answer');
      assert.equal(e.retriable, true);
      const text = explainKafkaError(e, { alias: 'east', bootstrapServers: ['k1:9092'] });
      assert.match(text, new RegExp(`^OAUTHBEARER token endpoint URL gave no token \\(east: k1:9092\\): the token endpoint ${ep.url} \\(HTTP 500\\): check the token endpoint URL in the cluster node`));
      assert.equal(tokenFailureSummary(text), 'OAUTHBEARER token endpoint URL answered HTTP 500: check the URL');
    });

    it('an answer without a token (not a token endpoint) names the token endpoint URL', async function () {
      await ep.close();
      ep = await tokenEndpoint(() => ({ status: 200, body: '<html>login</html>' }));
      const e = await requestToken(settings(), { now }).then(() => null, (x) => x);
      assert.equal(e.failure, 'answer');
      assert.match(explainKafkaError(e), /^OAUTHBEARER token endpoint URL gave no token: .*\(HTTP 200 without an access_token.*\): check the token endpoint URL in the cluster node/);
    });
  });

  describe('the OAUTHBEARER mechanism given to kafkajs (its SASL exchange with the broker)', function () {
    /** kafkajs's saslAuthenticate as the mechanism sees it: answers each request with the next of `answers` (a Buffer of the server's bytes, or an Error). */
    function exchange(answers) {
      const sent = [];
      const saslAuthenticate = async ({ request, response }) => {
        const bytes = await request.encode();
        sent.push(bytes.subarray(4).toString('utf8'));
        const a = answers.shift();
        if (a instanceof Error) throw a;
        const raw = Buffer.alloc(4 + a.length);
        raw.writeInt32BE(a.length);
        a.copy(raw, 4);
        return response ? response.parse(await response.decode(raw)) : undefined;
      };
      return { sent, saslAuthenticate, host: 'k1', port: 9092 };
    }
    let issued = 0;
    const fetchToken = async () => {
      issued += 1;
      return new Response(JSON.stringify({ access_token: `tok-${issued}`, expires_in: 3600 }), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const o = { tokenEndpointUrl: 'https://idp.example.com/token', clientId: 'mm2-east', clientSecret: 's', extensions: { logicalCluster: 'lkc-1' } };

    it('sends the client initial response (RFC 7628) with the extensions; an empty answer is success', async function () {
      const m = oauthBearerMechanism(o, { fetch: fetchToken });
      assert.equal(m.mechanism, 'oauthbearer');
      const x = exchange([Buffer.alloc(0)]);
      await m.authenticationProvider(x).authenticate();
      assert.deepEqual(x.sent, [`n,,\u0001auth=Bearer tok-${issued}\u0001logicalCluster=lkc-1\u0001\u0001`]);
    });

    it("the broker's error challenge: answered with %x01, then a refusal naming the client id and the token endpoint; the token is not given again", async function () {
      const m = oauthBearerMechanism(o, { fetch: fetchToken });
      const failed = Object.assign(new Error('Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER'), { type: 'SASL_AUTHENTICATION_FAILED' });
      const x = exchange([Buffer.from('{"status":"invalid_token"}'), failed]);
      const e = await m.authenticationProvider(x).authenticate().then(() => null, (err) => err);
      assert.equal(x.sent[1], '\u0001', 'the client answers the error with %x01 (RFC 7628 3.2.2)');
      assert.equal(e.name, 'KafkaJSConnectionError', 'kafkajs drops the connection');
      assert.equal(e.retriable, false);
      assert.ok(e.cause instanceof OAuthTokenRefusedError);
      const text = explainKafkaError(Object.assign(new Error(e.message), { name: 'KafkaJSNonRetriableError', cause: e }), { alias: 'east', bootstrapServers: ['k1:9092'], sasl: { mechanism: 'oauthbearer' } });
      assert.match(text, /^OAUTHBEARER token refused by the broker \(east: k1:9092\): the broker k1:9092 refused the token of client 'mm2-east' from the token endpoint https:\/\/idp\.example\.com\/token \(invalid_token: Authentication failed/);
      assert.equal(tokenFailureSummary(text), "OAUTHBEARER token of client 'mm2-east' refused by the broker (invalid_token)");
      // the next attempt gets a new token
      const before = issued;
      const y = exchange([Buffer.alloc(0)]);
      await m.authenticationProvider(y).authenticate();
      assert.equal(issued, before + 1);
    });

    it('a failed token request is thrown as a connection error (kafkajs drops the half-done SASL exchange), the token failure its cause', async function () {
      const m = oauthBearerMechanism({ ...o, tokenEndpointUrl: 'http://127.0.0.1:1/token' }, { fetch: async () => { throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:1' } }); } });
      const x = exchange([]);
      const e = await m.authenticationProvider(x).authenticate().then(() => null, (err) => err);
      assert.deepEqual(x.sent, [], 'nothing sent to the broker');
      assert.equal(e.name, 'KafkaJSConnectionError');
      assert.equal(e.retriable, true);
      assert.ok(e.cause instanceof OAuthTokenError);
      const text = explainKafkaError(Object.assign(new Error('x'), { name: 'KafkaJSNumberOfRetriesExceeded', cause: e }), { alias: 'east', bootstrapServers: ['k1:9092'], sasl: { mechanism: 'oauthbearer' } });
      assert.match(text, /^OAUTHBEARER token endpoint URL unreachable \(east: k1:9092\): cannot reach http:\/\/127\.0\.0\.1:1\/token \(ECONNREFUSED/);
      assert.doesNotMatch(text, /SASL mechanism to none/);
      assert.equal(failureStatusText(`east: ${text}`), 'OAUTHBEARER token endpoint URL unreachable (ECONNREFUSED): check the URL');
    });
  });

  it('a token the broker refuses is explained as such, not as a wrong password', function () {
    const oauth = { tokenEndpointUrl: 'http://127.0.0.1:1/t', clientId: 'c', clientSecret: 's' };
    const e = Object.assign(new Error('SASL OAUTHBEARER authentication failed: Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER'), { name: 'KafkaJSSASLAuthenticationError' });
    const text = explainKafkaError(e, { alias: 'east', bootstrapServers: ['k1:9092'], sasl: { mechanism: 'oauthbearer', oauth } });
    assert.match(text, /^OAUTHBEARER token refused by the broker \(east: k1:9092\): .*issuer, audience/);
    assert.doesNotMatch(text, /password/);
    assert.equal(principalOf({ sasl: { mechanism: 'oauthbearer', oauth } }), "the token's principal (OAuth client 'c')");
  });

  it('settings: the token endpoint URL, client id and secret are required, scope and extensions checked (the editor runs the same check)', function () {
    const base = { alias: 'a', bootstrapServers: ['h:1'] };
    const ok = { tokenEndpointUrl: 'https://idp.example.com/oauth2/token', clientId: 'c', clientSecret: 's', scope: 'a b', extensions: { logicalCluster: 'lkc-1' } };
    assert.deepEqual(validateClusterSettings({ ...base, sasl: { mechanism: 'oauthbearer', oauth: ok } }), []);
    const problems = validateClusterSettings({ ...base, sasl: { mechanism: 'oauthbearer', oauth: { tokenEndpointUrl: 'idp.example.com/token', clientId: '', clientSecret: '', scope: 'a "b"' } } });
    assert.equal(problems.length, 4);
    assert.match(problems[0], /OAUTHBEARER token endpoint URL 'idp.example.com\/token' is not an http\(s\) URL/);
    assert.match(problems[1], /OAUTHBEARER client id is empty/);
    assert.match(problems[2], /OAUTHBEARER client secret is empty: enter the secret of the OAuth client in the cluster node/);
    assert.match(problems[3], /OAUTHBEARER scope 'a "b"' has a character a scope cannot hold/);
    assert.equal(oauthFieldProblem('tokenEndpointUrl', ''), 'required');
    assert.equal(oauthFieldProblem('tokenEndpointUrl', 'http://127.0.0.1:8080/realms/x/protocol/openid-connect/token'), undefined);
    assert.equal(oauthFieldProblem('tokenEndpointUrl', 'ftp://idp/token'), 'url');
    assert.equal(oauthFieldProblem('tokenEndpointUrl', '${IDP}/token'), undefined);
    assert.equal(oauthFieldProblem('extensions', 'logicalCluster=lkc-1, identityPoolId=pool-2'), undefined);
    assert.equal(oauthFieldProblem('extensions', 'logicalCluster'), 'extension-pair');
    assert.equal(oauthFieldProblem('extensions', 'logical_cluster=x'), 'extension-key');
    assert.equal(oauthFieldProblem('extensions', 'auth=x'), 'extension-reserved');
    assert.equal(oauthFieldProblem('extensions', 'a='), 'extension-value');
    assert.deepEqual(parseSaslExtensions('logicalCluster=lkc-1,\nidentityPoolId = pool-2'), { logicalCluster: 'lkc-1', identityPoolId: 'pool-2' });
  });

  it("the dialog checks the OAUTHBEARER fields with the runtime's check, only when OAUTHBEARER is chosen, in words of both catalogs", function () {
    const html = fs.readFileSync(editorPath('mm2-cluster', true), 'utf8');
    const registered = [];
    /** @type {string | null} the SASL select's value while the dialog is open, null when it is closed */
    let selected = null;
    const context = vm.createContext({
      RED: { nodes: { registerType: (_type, def) => registered.push(def) }, validators: { number: () => () => true } },
      $: () => ({ length: selected === null ? 0 : 1, val: () => selected, on() {} }),
    });
    for (const m of html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)) vm.runInContext(m[1], context);
    const { defaults } = registered[0];
    const check = (field, value, saslMechanism, opt) => defaults[field].validate.call({ saslMechanism, _: (k, subs) => `${k} ${subs.field}` }, value, opt);
    assert.equal(check('oauthTokenEndpoint', '', 'none', {}), true, 'not checked without OAUTHBEARER');
    assert.equal(check('oauthTokenEndpoint', '', 'oauthbearer'), false, 'Node-RED 2: false');
    assert.equal(check('oauthTokenEndpoint', '', 'oauthbearer', { label: 'Token endpoint' }), 'mm2-cluster.validate.required Token endpoint');
    assert.equal(check('oauthTokenEndpoint', 'idp.example.com/token', 'oauthbearer', { label: 'T' }), 'mm2-cluster.validate.url T');
    assert.equal(check('oauthTokenEndpoint', 'https://idp.example.com/oauth2/token', 'oauthbearer', {}), true);
    assert.equal(check('oauthClientId', '', 'oauthbearer', { label: 'C' }), 'mm2-cluster.validate.required C');
    assert.equal(check('oauthScope', 'a "b"', 'oauthbearer', { label: 'S' }), 'mm2-cluster.validate.scope S');
    assert.equal(check('oauthScope', '', 'oauthbearer', {}), true);
    assert.equal(check('oauthExtensions', 'auth=x', 'oauthbearer', { label: 'E' }), 'mm2-cluster.validate.extension-reserved E');
    // with the dialog open its select decides, not the saved value
    selected = 'oauthbearer';
    assert.equal(check('oauthClientId', '', 'none', { label: 'C' }), 'mm2-cluster.validate.required C');
    selected = 'scram-sha-512';
    assert.equal(check('oauthClientId', '', 'oauthbearer', { label: 'C' }), true);
    // every answer of the check has its words in both languages
    const codes = ['required', 'url', 'scope', 'extension-pair', 'extension-key', 'extension-reserved', 'extension-value'];
    for (const [field, value] of [['tokenEndpointUrl', ''], ['tokenEndpointUrl', 'x'], ['scope', '"'], ['extensions', 'a'], ['extensions', 'a_b=1'], ['extensions', 'auth=1'], ['extensions', 'a=']]) {
      assert.ok(codes.includes(/** @type {string} */ (oauthFieldProblem(field, value))), `${field} '${value}'`);
    }
    for (const lang of ['en-US', 'zh-CN']) {
      const words = JSON.parse(fs.readFileSync(catalogPath(lang, 'mm2-cluster.json'), 'utf8'))['mm2-cluster'].validate;
      assert.deepEqual(Object.keys(words).sort(), [...codes].sort(), lang);
      for (const c of codes) assert.match(words[c], /__field__/, `${lang} ${c} names the field`);
    }
  });

  describe('export for Kafka Connect', function () {
    const cluster = (secret) => ({
      id: 'src', type: 'mm2-cluster', alias: 'east', bootstrap: 'k1:9092', saslMechanism: 'oauthbearer', usetls: true,
      oauthTokenEndpoint: 'https://idp.example.com/oauth2/token', oauthClientId: 'mm2-east', oauthScope: 'kafka', oauthExtensions: 'logicalCluster=lkc-1',
      ...(secret ? { credentials: { oauthClientSecret: SECRET } } : {}),
    });
    const defs = [
      cluster(false),
      { id: 'tgt', type: 'mm2-cluster', alias: 'west', bootstrap: 'k2:9092', saslMechanism: 'none' },
      { id: 'rep', type: 'mm2-replication', source: 'src', target: 'tgt' },
      { id: 'hb', type: 'mm2-heartbeat', replication: 'rep' },
    ];
    const creds = (id) => (id === 'src' ? { oauthClientSecret: SECRET } : undefined);

    it("maps to Kafka's client properties; the client secret is a reference and masked in the template, never in clear", function () {
      const input = flowFromDefinitions(defs, 'rep', creds, false);
      assert.equal(input.source.oauthClientSecret, undefined, 'not read without secrets');
      const r = exportConnectors(input, {});
      assert.deepEqual(r.problems, []);
      for (const c of r.connectors) {
        assert.equal(c.config['source.cluster.security.protocol'], 'SASL_SSL');
        assert.equal(c.config['source.cluster.sasl.mechanism'], 'OAUTHBEARER');
        assert.equal(c.config['source.cluster.sasl.oauthbearer.token.endpoint.url'], 'https://idp.example.com/oauth2/token');
        assert.equal(c.config['source.cluster.sasl.login.callback.handler.class'], 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler');
        assert.equal(c.config['source.cluster.sasl.jaas.config'], '${file:/path/to/secrets.properties:source.cluster.sasl.jaas.config}');
        for (const text of [c.json, c.yaml, c.properties]) assert.ok(!text.includes(SECRET));
      }
      assert.ok(!r.mm2Properties.includes(SECRET));
      const tpl = Object.fromEntries(parseJavaProperties(r.secrets.template).entries);
      assert.equal(tpl['source.cluster.sasl.jaas.config'],
        'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="mm2-east" clientSecret="<secret>" scope="kafka" extension_logicalCluster="lkc-1";');
      const note = r.notes.find((n) => n.code === 'oauth-allowed-urls');
      assert.match(note.text, /-Dorg\.apache\.kafka\.sasl\.oauthbearer\.allowed\.urls=https:\/\/idp\.example\.com\/oauth2\/token/);
    });

    it('with includeSecrets the JAAS line holds the secret (with the warning); imported back, the flow has the same OAuth fields', function () {
      const input = flowFromDefinitions(defs, 'rep', creds, true);
      const r = exportConnectors(input, { includeSecrets: true });
      const jaas = r.connectors[0].config['source.cluster.sasl.jaas.config'];
      assert.equal(jaas, oauthJaasConfig('mm2-east', SECRET, 'kafka', { logicalCluster: 'lkc-1' }));
      assert.match(r.warning, /passwords in clear/);
      assert.deepEqual(parseJaasConfig(jaas), { module: 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule', clientId: 'mm2-east', clientSecret: SECRET, scope: 'kafka', extensions: { logicalCluster: 'lkc-1' } });
      assert.ok(!maskJaasSecrets(jaas).includes(SECRET));
      const back = flowFromConnectorConfigs(r.connectors.map((c) => c.rest));
      assert.equal(back.source.saslMechanism, 'oauthbearer');
      assert.equal(back.source.oauthTokenEndpoint, 'https://idp.example.com/oauth2/token');
      assert.equal(back.source.oauthClientId, 'mm2-east');
      assert.equal(back.source.oauthClientSecret, SECRET);
      assert.equal(back.source.oauthScope, 'kafka');
      assert.equal(back.source.oauthExtensions, 'logicalCluster=lkc-1');
    });
  });
});
