'use strict';
/**
 * OAUTHBEARER in mm2-cluster (issue 11, item 2) against a real broker that validates JWTs with
 * Kafka's OAuthBearerValidatorCallbackHandler, from a JWKS this test serves on a local port beside
 * a client-credentials token endpoint (test/harness/oauth-server.js) that issues RS256 tokens for
 * 30 s. The broker ends a session when its token expires (connections.max.reauth.ms on the
 * listener), so a node that did not renew its token in time would stop working.
 *
 * In a real Node-RED (scripts/node-red-runner.js), deployed as the editor deploys (the client
 * secret sent as a credential): an mm2-heartbeat node writes heartbeats over OAUTHBEARER, its
 * token is renewed before it expires and it goes on writing past the first token's expiry; a
 * wrong client secret gives a red status and a logged error naming the client id and secret;
 * the secret is neither in GET /flows nor in the Connect export; and the exported client
 * properties let Kafka's own Java client (its OAuthBearerLoginCallbackHandler) get a token and log in;
 * the cluster dialog in Chromium shows the OAUTHBEARER fields and marks a bad one.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { useSecuredCluster } = require('../harness/secured');
const { startOAuthServer } = require('../harness/oauth-server');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { skipWithoutChromium, openEditor } = require('../harness/editor');
const { DEFAULT_KAFKA_VERSION, resolveKafka, freePort } = require('../../scripts/kafka/cluster');
const http = require('node:http');
const { parseJavaProperties } = require('../../dist/core/java-properties');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** Runs java with `args`; resolves with its exit status and output (killed after 120 s). */
function java(args) {
  return new Promise((resolve, reject) => {
    const child = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120000);
    child.on('error', reject);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const CLIENT = 'mm2-node-red';
const SECRET = 'oauth-cl1ent-s3cret';
const LIFETIME_S = 30;

describe(`OAUTHBEARER: mm2-cluster with a client-credentials token, a broker validating it from a JWKS (Kafka ${process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION})`, function () {
  this.timeout(180000);
  /** @type {Awaited<ReturnType<typeof startOAuthServer>>} */
  let auth;
  /** @type {Awaited<ReturnType<typeof startNodeRed>>} */
  let nr;
  /** @type {Awaited<ReturnType<Awaited<ReturnType<typeof startNodeRed>>['watchStatuses']>>} */
  let statuses;
  // the JWKS must answer before the broker starts: this before() runs ahead of the cluster's
  before(async function () {
    auth = await startOAuthServer({ clients: { [CLIENT]: SECRET }, lifetimeSeconds: LIFETIME_S });
  });
  const secured = useSecuredCluster('oauth', () => ({
    oauth: { jwksUrl: auth.jwksUrl, issuer: auth.issuer, audience: auth.audience, allowedUrls: [auth.tokenUrl] },
  }));
  let admin;
  before(async function () {
    // PLAINTEXT: the harness's own view of the cluster
    admin = secured.kafka('PLAINTEXT', {}, { retry: { retries: 8, initialRetryTime: 200 } }).admin();
    await admin.connect();
    secured.closeLater(() => admin.disconnect());
    nr = await startNodeRed({ quiet: true, logLevel: 'info', flows: [{ id: 'tab', type: 'tab', label: 'oauth', disabled: false, info: '' }] });
    statuses = await nr.watchStatuses();
  });
  after(async function () {
    if (statuses) statuses.close();
    if (nr) await nr.stop();
    if (auth) await auth.stop();
  });

  /** Heartbeats in the cluster (asked only once the topic exists: kafkajs retries a missing topic for half a minute). */
  const written = async () => ((await admin.listTopics()).includes('heartbeats') ? (await admin.fetchTopicOffsets('heartbeats')).reduce((n, o) => n + Number(o.high), 0) : 0);

  /** The flow: a source cluster on the OAUTH listener (the secret as a credential, as the editor deploys it), a heartbeat node writing into it. */
  function flow(secret, alias, endpoint = auth.tokenUrl) {
    return [
      { id: 'tab', type: 'tab', label: 'oauth', disabled: false, info: '' },
      {
        id: 'src', type: 'mm2-cluster', name: '', alias, bootstrap: secured.cluster.listeners.OAUTH, clientId: '', usetls: false, tls: '',
        saslMechanism: 'oauthbearer', oauthTokenEndpoint: endpoint, oauthClientId: CLIENT, oauthScope: 'kafka', oauthExtensions: '',
        connectionTimeoutMs: '', requestTimeoutMs: '',
        credentials: { oauthClientSecret: secret },
      },
      { id: 'tgt', type: 'mm2-cluster', name: '', alias: `${alias}-t`, bootstrap: env.cluster('target').bootstrap, clientId: '', usetls: false, tls: '', saslMechanism: 'none' },
      { id: 'rep', type: 'mm2-replication', source: 'src', target: 'tgt', policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', replicationFactor: '1' },
      { id: 'hb', type: 'mm2-heartbeat', z: 'tab', replication: 'rep', emitHeartbeatsEnabled: true, emitHeartbeatsIntervalSeconds: '1', staleAfterSeconds: '30', watch: false, wires: [[], []] },
    ];
  }
  const status = () => statuses.get('hb') || {};
  const shown = () => `status ${JSON.stringify(status())}; token requests: ${JSON.stringify(auth.issued)} refused ${JSON.stringify(auth.refused)}\nNode-RED's log:\n${nr.log.slice(-4000)}`;

  it('a node works over OAUTHBEARER, renews its token before it expires and goes on past the first token\'s expiry', async function () {
    const before = await written();
    await nr.deploy(flow(SECRET, 'oauth-ok'));
    await env.eventually(() => status().fill === 'green' && /^emitted/.test(status().text || ''), { timeout: 90000, what: 'a green "emitted" status' })
      .catch((e) => assert.fail(`${e.message}; ${shown()}`));
    await env.eventually(async () => (await written()) > before, { timeout: 30000, what: 'heartbeats written over OAUTHBEARER' });
    const first = auth.issued[0];
    assert.equal(first.clientId, CLIENT);
    assert.equal(first.scope, 'kafka');

    // a second token, asked for while the first was still valid (kafkajs re-authenticates its connections with it)
    await env.eventually(() => auth.issued.length >= 2, { timeout: (LIFETIME_S + 30) * 1000, what: 'a renewed token' })
      .catch((e) => assert.fail(`${e.message}; ${shown()}`));
    assert.ok(auth.issued[1].at < first.exp, `the token was renewed before it expired (${JSON.stringify(auth.issued.slice(0, 2))})`);

    // past the first token's expiry the broker has ended every session still on it: heartbeats go on
    await env.eventually(() => Date.now() > first.exp + 2000, { timeout: (LIFETIME_S + 10) * 1000, what: "the first token's expiry" });
    const atExpiry = await written();
    await env.eventually(async () => (await written()) >= atExpiry + 3, { timeout: 30000, what: "heartbeats written after the first token's expiry" })
      .catch((e) => assert.fail(`${e.message}; ${shown()}`));
    assert.equal(status().fill, 'green', shown());
    assert.deepEqual(auth.refused, []);
    assert.doesNotMatch(nr.log, /\[error\] \[mm2-heartbeat:hb\]/, shown());
  });

  it('the client secret is in no export: not in GET /flows, not in the Kafka Connect export (a reference there)', async function () {
    // deployed by the test before; a flow of its own when run alone
    if (!(await nr.request('GET', '/flows')).text.includes('oauthbearer')) await nr.deploy(flow(SECRET, 'oauth-ok'));
    const flows = await nr.request('GET', '/flows', undefined, { 'Node-RED-API-Version': 'v2' });
    assert.equal(flows.status, 200);
    assert.ok(flows.json.flows.some((n) => n.id === 'src' && n.saslMechanism === 'oauthbearer'), 'the flow is deployed');
    assert.ok(!flows.text.includes(SECRET), 'GET /flows holds no client secret');
    // it is stored as the node's credential
    const creds = await nr.request('GET', '/credentials/mm2-cluster/src');
    assert.equal(creds.json.has_oauthClientSecret, true);
    assert.ok(!creds.text.includes(SECRET));

    for (const format of ['json', 'yaml', 'properties', 'mm2']) {
      const r = await nr.request('GET', `/mm2/export/rep?format=${format}`);
      assert.equal(r.status, 200, r.text);
      assert.ok(!r.text.includes(SECRET), `the ${format} export holds no client secret`);
      assert.match(r.json.text, /sasl\.mechanism.{1,4}OAUTHBEARER/);
      assert.match(r.json.text, /OAuthBearerLoginCallbackHandler/);
      // a config-provider reference in its place (in .properties its colons escaped)
      assert.match(r.json.text, /\$\{file\\?:[^}]+\\?:(source\.cluster|oauth-ok)\.sasl\.jaas\.config\}/);
      assert.match(r.json.secrets.template, /clientSecret="<secret>"/);
    }
    // asked for in clear (the editor's "include secrets", which needs write permission), the stored secret is there
    const clear = await nr.request('GET', '/mm2/export/rep?format=json&includeSecrets=true');
    const jaas = JSON.parse(clear.json.text)[0].config['source.cluster.sasl.jaas.config'];
    assert.ok(jaas.includes(`clientSecret="${SECRET}"`), 'the secret was stored: withheld above by choice');
  });

  it("Kafka's Java client gets a token and logs in with the exported client properties (the worker's JVM allowing the token endpoint)", async function () {
    if (!(await nr.request('GET', '/flows')).text.includes('oauthbearer')) await nr.deploy(flow(SECRET, 'oauth-ok'));
    const exported = await nr.request('GET', '/mm2/export/rep?format=properties&connectors=heartbeat&includeSecrets=true');
    assert.equal(exported.status, 200, exported.text);
    const note = exported.json.notes.find((n) => n.code === 'oauth-allowed-urls');
    assert.ok(note && note.text.includes(`-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=${auth.tokenUrl}`), JSON.stringify(exported.json.notes));
    // the source cluster's client properties, as a Connect worker gives them to its clients
    const client = parseJavaProperties(exported.json.text).entries
      .filter(([k]) => k.startsWith('source.cluster.') && k !== 'source.cluster.alias')
      .map(([k, v]) => [k.slice('source.cluster.'.length), v]);
    assert.deepEqual(client.map(([k]) => k).sort(), ['bootstrap.servers', 'sasl.jaas.config', 'sasl.login.callback.handler.class', 'sasl.mechanism', 'sasl.oauthbearer.token.endpoint.url', 'security.protocol']);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mm2-oauth-client-'));
    try {
      const file = path.join(dir, 'client.properties');
      const { propertiesValue } = require('../../dist/core/java-properties');
      fs.writeFileSync(file, client.map(([k, v]) => `${k}=${propertiesValue(v)}`).join('\n') + '\n');
      const issued = auth.issued.length;
      // not spawnSync: the token endpoint it asks is served by this very process
      const res = await java([
        '-Xmx256m', '-XX:TieredStopAtLevel=1', `-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=${auth.tokenUrl}`,
        '-cp', path.join(resolveKafka(), '*'), 'org.apache.kafka.tools.TopicCommand',
        '--bootstrap-server', secured.cluster.listeners.OAUTH, '--command-config', file, '--list',
      ]);
      assert.equal(res.status, 0, `TopicCommand --list over OAUTHBEARER failed:\n${res.stdout}\n${res.stderr}`);
      assert.match(res.stdout, /^heartbeats$/m);
      assert.ok(auth.issued.length > issued && auth.issued.slice(issued).every((t) => t.clientId === CLIENT && t.scope === 'kafka'), 'the Java client asked the token endpoint');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the cluster dialog (Chromium): OAUTHBEARER shows its fields instead of username and password, refuses a token endpoint that is no URL, never shows the secret', async function () {
    skipWithoutChromium(this);
    if (!(await nr.request('GET', '/flows')).text.includes('oauthbearer')) await nr.deploy(flow(SECRET, 'oauth-ok'));
    const { browser, page } = await openEditor(nr.url);
    try {
      // the palette shows before the editor has loaded the deployed flow: a dialog opened then is a new node's (no OAUTHBEARER)
      await page.waitForFunction(() => !!RED.nodes.node('src'), undefined, { timeout: 60000 });
      await page.evaluate(() => RED.editor.editConfig('', 'mm2-cluster', 'src'));
      await page.waitForSelector('#node-config-input-oauthTokenEndpoint', { state: 'visible' });
      const visible = (id) => page.isVisible(`#node-config-input-${id}`);
      for (const id of ['oauthTokenEndpoint', 'oauthClientId', 'oauthClientSecret', 'oauthScope', 'oauthExtensions']) assert.equal(await visible(id), true, `${id} shown`);
      for (const id of ['username', 'password']) assert.equal(await visible(id), false, `${id} hidden`);
      // the editor has a placeholder for the stored secret, never the secret
      assert.notEqual(await page.inputValue('#node-config-input-oauthClientSecret'), SECRET);
      const invalid = (id, value) => page.evaluate(({ id, value }) => {
        const input = /** @type {HTMLInputElement} */ (document.querySelector(`#node-config-input-${id}`));
        input.value = value;
        input.dispatchEvent(new Event('change', { bubbles: true }));
        return input.classList.contains('input-error');
      }, { id, value });
      assert.equal(await invalid('oauthTokenEndpoint', 'idp.example.com/token'), true, 'a token endpoint that is no URL is marked');
      assert.equal(await invalid('oauthExtensions', 'auth=x'), true, 'the reserved extension key is marked');
      assert.equal(await invalid('oauthTokenEndpoint', 'https://idp.example.com/oauth2/token'), false);
      assert.equal(await invalid('oauthExtensions', 'logicalCluster=lkc-1'), false);
      await page.selectOption('#node-config-input-saslMechanism', 'scram-sha-512');
      assert.equal(await visible('username'), true);
      assert.equal(await visible('oauthTokenEndpoint'), false);
      assert.equal(await invalid('oauthTokenEndpoint', 'idp.example.com/token'), false, 'not checked without OAUTHBEARER');
      await page.click('#node-config-dialog-cancel');
    } finally {
      await browser.close();
    }
  });

  it('a wrong client secret: a red status and a logged error naming the client id and secret', async function () {
    const refusedBefore = auth.refused.length;
    await nr.deploy(flow('not-the-secret', 'oauth-bad'));
    const red = await env.eventually(() => (status().fill === 'red' && /OAUTHBEARER client id or secret refused/.test(status().text || '') ? status() : null), { timeout: 60000, what: 'a red status naming the client id or secret' })
      .catch((e) => assert.fail(`${e.message}; ${shown()}`));
    assert.ok(red);
    assert.ok(auth.refused.length > refusedBefore && auth.refused.every((r) => r.clientId === CLIENT && r.reason === 'invalid_client'));
    // the heartbeat node logs a failed write as a warning (it retries every interval)
    const line = await env.eventually(() => nr.log.split('\n').find((l) => /\[(error|warn)\] \[mm2-heartbeat:hb\].*check the client id and the client secret in the cluster node/.test(l)), { timeout: 30000, what: 'a logged error naming the fix' })
      .catch((e) => assert.fail(`${e.message}; ${shown()}`));
    assert.match(line, /does not accept client 'mm2-node-red' \(HTTP 401 invalid_client/);
    assert.ok(!nr.log.includes('not-the-secret'), 'the wrong secret is not logged');
  });
  /**
   * Deploys the heartbeat flow with token endpoint `endpoint` and waits for a red status matching
   * `want` and an error or warning of the heartbeat node matching `logWant` (both come after
   * kafkajs's own retries: before, the first already gave another failure's advice); then, when
   * `attempts` counts the token requests, after two more of them, no status and no log line gives
   * the advice of another failure (a listener without SASL, no brokers, a closed connection).
   * Returns the log line.
   * @param {string} endpoint
   * @param {string} alias
   * @param {RegExp} want
   * @param {RegExp} logWant
   * @param {{ timeout?: number, attempts?: () => number }} [opts]
   */
  async function failsNaming(endpoint, alias, want, logWant, { timeout = 90000, attempts } = {}) {
    const since = statuses.history().length;
    const logFrom = nr.log.length;
    await nr.deploy(flow(SECRET, alias, endpoint));
    await env.eventually(() => status().fill === 'red' && want.test(status().text || ''), { timeout, what: `a red status matching ${want}` })
      .catch((e) => assert.fail(`${e.message}; ${shown()}`));
    const lines = () => nr.log.slice(logFrom).split('\n').filter((l) => /\[(error|warn)\] \[mm2-heartbeat:hb\]/.test(l));
    const line = await env.eventually(() => lines().find((l) => logWant.test(l)), { timeout: 60000, what: `a logged line matching ${logWant}` })
      .catch((e) => assert.fail(`${e.message}; ${shown()}`));
    if (attempts) {
      const seen = attempts();
      await env.eventually(() => attempts() >= seen + 2, { timeout: 120000, what: 'two more token requests' });
    }
    const wrong = /does not use SASL|SASL mechanism to none|No brokers in the broker pool|Closed connection|closed the connection/;
    const texts = statuses.history().slice(since).filter((h) => h.id === 'hb').map((h) => String(h.status.text || ''));
    assert.deepEqual(texts.filter((x) => wrong.test(x)), [], `no status gives another failure's advice: ${texts.join(' | ')}`);
    assert.deepEqual(lines().filter((l) => wrong.test(l)), [], 'no log line of the node gives another failure\'s advice');
    // green never again once red (a status of the flow deployed before may arrive just after the deploy)
    const redAt = texts.findIndex((x) => want.test(x));
    assert.ok(!texts.slice(redAt).some((x) => /^emitted/.test(x)), `never green once red: ${texts.join(' | ')}`);
    return line;
  }

  it('the token endpoint unreachable (a closed port): the status names the token endpoint URL, the log the URL and what failed', async function () {
    const url = `http://127.0.0.1:${await freePort()}/oauth2/token`;
    const line = await failsNaming(url, 'oauth-closed', /OAUTHBEARER token endpoint URL unreachable \(ECONNREFUSED\): check the URL/, /OAUTHBEARER token endpoint URL unreachable/);
    assert.ok(line.includes(`cannot reach ${url}`), line);
    assert.match(line, /ECONNREFUSED/);
    assert.match(line, /check the token endpoint URL in the cluster node/);
  });

  it('the token endpoint answering HTTP 500: named, with the status code and the field to fix', async function () {
    let asked = 0;
    const server = http.createServer((_req, res) => {
      asked += 1;
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error');
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
    const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/token`;
    try {
      const line = await failsNaming(url, 'oauth-500', /OAUTHBEARER token endpoint URL answered HTTP 500: check the URL/, /OAUTHBEARER token endpoint URL gave no token.*\(HTTP 500\)/, { attempts: () => asked });
      assert.ok(line.includes(`the token endpoint ${url}`), line);
      assert.match(line, /check the token endpoint URL in the cluster node/);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(() => r(undefined)));
    }
  });

  it('a token endpoint that never answers: named, with the time waited (the client times out)', async function () {
    const held = new Set();
    const server = http.createServer((req, res) => { held.add(res); req.resume(); });
    await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
    const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/token`;
    try {
      const line = await failsNaming(url, 'oauth-silent', /OAUTHBEARER token endpoint URL: no answer within \d+ ms: check the URL/, /OAUTHBEARER token endpoint URL not answering.*\(no answer within \d+ ms\)/, { timeout: 120000, attempts: () => held.size });
      assert.ok(line.includes(url), line);
      assert.match(line, /check the token endpoint URL in the cluster node and the network to the identity provider/);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(() => r(undefined)));
    }
  });

  it('a token signed with a key the broker does not trust: the broker refused the token, naming the client id and the endpoint', async function () {
    // the same client, issuer and audience, another signing key
    const rogue = await startOAuthServer({ clients: { [CLIENT]: SECRET }, lifetimeSeconds: LIFETIME_S, issuer: auth.issuer });
    try {
      const line = await failsNaming(rogue.tokenUrl, 'oauth-rogue', new RegExp(`OAUTHBEARER token of client '${CLIENT}' refused by the broker \\(invalid_token\\)`), /OAUTHBEARER token refused by the broker/, { attempts: () => rogue.requests });
      assert.ok(rogue.issued.length > 0, 'a token was issued');
      assert.ok(line.includes(`client '${CLIENT}'`), line);
      assert.ok(line.includes(rogue.tokenUrl), line);
      assert.match(line, /invalid_token/);
    } finally {
      await rogue.stop();
    }
  });
});
