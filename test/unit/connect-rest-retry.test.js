'use strict';
/**
 * The Connect REST client repeats requests that a distributed Connect cluster answers with 409
 * (rebalance in progress) or 5xx, with a doubling, bounded back-off; other answers and the last
 * retriable one after the repeats are final. Against a small local HTTP server that plays a Connect
 * worker in a rebalance (not Kafka: the REST protocol only).
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const { ConnectRestClient, ConnectRestError, isRetriableStatus } = require('../../dist/kafka/connect-rest');
const { backoffDelay } = require('../../dist/core/backoff');

const REBALANCE = { error_code: 409, message: 'Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)' };

/** A server answering each request with the next of `answers` ([status, body]), then the last one forever. */
async function server(answers) {
  const seen = [];
  const srv = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, body: Buffer.concat(chunks).toString('utf8') });
      const [status, body] = answers[Math.min(seen.length - 1, answers.length - 1)];
      const text = body === undefined ? '' : JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await /** @type {Promise<void>} */ (new Promise((r) => srv.listen(0, '127.0.0.1', r)));
  return { url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (srv.address()).port}`, seen, close: () => new Promise((r) => srv.close(r)) };
}

describe('Kafka Connect REST client: repeats 409 and 5xx with back-off', function () {
  let srv;
  afterEach(async function () {
    if (srv) await srv.close();
    srv = null;
  });

  it('which answers are repeated, and the back-off doubles up to its bound', function () {
    for (const s of [409, 500, 502, 503, 504]) assert.equal(isRetriableStatus(s), true, String(s));
    for (const s of [200, 201, 204, 400, 401, 403, 404]) assert.equal(isRetriableStatus(s), false, String(s));
    assert.deepEqual([0, 1, 2, 3, 4, 5, 40].map((a) => backoffDelay(a, 250, 4000)), [250, 500, 1000, 2000, 4000, 4000, 4000]);
  });

  it('a GET during a rebalance (409, then 503) returns the config once the workers answer', async function () {
    const config = { 'connector.class': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector', 'tasks.max': '2' };
    srv = await server([[409, REBALANCE], [409, REBALANCE], [503, { error_code: 503, message: 'leader changing' }], [200, config]]);
    const c = new ConnectRestClient({ url: srv.url, retryBackoffMs: 5 });
    assert.deepEqual(await c.getConfig('mm2-a-b-checkpoint'), config);
    assert.equal(srv.seen.length, 4);
    assert.ok(srv.seen.every((r) => r.method === 'GET' && r.url === '/connectors/mm2-a-b-checkpoint/config'));
  });

  it('a PUT answered 409 is sent again with the same body', async function () {
    srv = await server([[409, REBALANCE], [201, { name: 'x' }]]);
    const c = new ConnectRestClient({ url: srv.url, retryBackoffMs: 5 });
    assert.deepEqual(await c.putConfig('x', { 'connector.class': 'C' }), { created: true });
    assert.equal(srv.seen.length, 2);
    assert.deepEqual(srv.seen.map((r) => [r.method, JSON.parse(r.body)]), [['PUT', { 'connector.class': 'C' }], ['PUT', { 'connector.class': 'C' }]]);
  });

  it('bounded: still 409 after the repeats fails with Connect\'s message and says it kept rebalancing', async function () {
    srv = await server([[409, REBALANCE]]);
    const c = new ConnectRestClient({ url: srv.url, retries: 3, retryBackoffMs: 5 });
    await assert.rejects(c.status('x'), (e) => {
      assert.ok(e instanceof ConnectRestError);
      assert.equal(e.status, 409);
      assert.match(e.message, /stale configuration/);
      assert.match(e.message, /after 3 repeats: the Connect workers keep rebalancing/);
      return true;
    });
    assert.equal(srv.seen.length, 4, 'one request and 3 repeats');
  });

  it('answers that are final are not repeated (404, 400); retries 0 turns repeating off', async function () {
    srv = await server([[404, { error_code: 404, message: 'Connector x not found' }]]);
    let c = new ConnectRestClient({ url: srv.url, retryBackoffMs: 5 });
    assert.equal((await c.status('x')).state, null);
    assert.equal(srv.seen.length, 1);
    await srv.close();

    srv = await server([[400, { error_code: 400, message: 'Connector configuration is invalid' }]]);
    c = new ConnectRestClient({ url: srv.url, retryBackoffMs: 5 });
    await assert.rejects(c.putConfig('x', {}), /Connector configuration is invalid/);
    assert.equal(srv.seen.length, 1);
    await srv.close();

    srv = await server([[503, { message: 'down' }]]);
    c = new ConnectRestClient({ url: srv.url, retries: 0 });
    await assert.rejects(c.pause('x'), (/** @type {ConnectRestError} */ e) => e.status === 503);
    assert.equal(srv.seen.length, 1);
  });

  it('stopRetrying (the node closed): a request waiting to be repeated ends with the answer it has', async function () {
    srv = await server([[409, REBALANCE]]);
    const c = new ConnectRestClient({ url: srv.url, retries: 50, retryBackoffMs: 5 });
    const pending = c.getConfig('x');
    for (let i = 0; i < 500 && srv.seen.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
    c.stopRetrying();
    await assert.rejects(pending, (/** @type {ConnectRestError} */ e) => e.status === 409);
    assert.ok(srv.seen.length < 50, `stopped after ${srv.seen.length} requests`);
  });

  it('a bad retry option is refused, not replaced by a default', function () {
    assert.throws(() => new ConnectRestClient({ url: 'http://x:1', retries: -1 }), /retries must be a number >= 0/);
    assert.throws(() => new ConnectRestClient({ url: 'http://x:1', retryBackoffMs: Number.NaN }), /retryBackoffMs/);
  });
});
