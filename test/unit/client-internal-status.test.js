'use strict';
/**
 * kafkajs failing inside on one request (`Cannot destructure property 'partitions' of
 * 'low.pop(...)'`) never reaches a status in kafkajs's words, and does not turn every node of the
 * cluster red: the cluster answered (issue 26, 8). The explanation before the words stays; the
 * log keeps them.
 */
const assert = require('node:assert/strict');
const createRetry = require('kafkajs/src/retry');
const { explainKafkaError, withoutClientInternals } = require('../../dist/kafka/client');
const { ClusterConnection } = require('../../dist/kafka/connection');
const { HeartbeatWatcher } = require('../../dist/engines/heartbeat-watcher');
const { StatusReporter, failureStatusText } = require('../../dist/nodes/shared/flow-node');

const S = { alias: 'target', bootstrapServers: ['h:9092'] };
const LOW_POP = "Cannot destructure property 'partitions' of 'low.pop(...)' as it is undefined.";

function kafkajsTypeError(message) {
  const e = new TypeError(message);
  e.stack = `TypeError: ${message}\n    at /app/node_modules/kafkajs/src/admin/index.js:328:17`;
  return e;
}

/** As kafkajs's retrier hands it on: a KafkaJSNonRetriableError caused by the TypeError. */
function throughRetrier(err) {
  return createRetry({ retries: 0 })(async () => {
    throw err;
  }).then(
    () => assert.fail('the retrier did not reject'),
    (e) => e,
  );
}

describe('kafkajs failing inside: never in its own words on a status, never the whole cluster red', function () {
  it('withoutClientInternals drops ` (inside kafkajs: …)` with the parentheses of its words, and nothing else', function () {
    const text = explainKafkaError(kafkajsTypeError(LOW_POP), S);
    assert.match(text, /inside kafkajs/);
    assert.equal(
      withoutClientInternals(`checkpoint cycle failed: ${text}`),
      'checkpoint cycle failed: the broker returned no offsets for a topic (target: h:9092): it was probably deleted, re-created or had no leader during the request; the next cycle tries again',
    );
    assert.equal(withoutClientInternals('connection refused (target: h:9092): check the bootstrap servers'), 'connection refused (target: h:9092): check the bootstrap servers');
  });

  it("a node's own failure status and a connection's failure state show the explanation without kafkajs's words", function () {
    const text = explainKafkaError(kafkajsTypeError(LOW_POP), S);
    assert.doesNotMatch(failureStatusText(text), /inside kafkajs|Cannot destructure|low\.pop/);
    /** @type {any[]} */
    const shown = [];
    const node = /** @type {any} */ ({ id: 'n1', status: (/** @type {any} */ s) => shown.push(s) });
    const status = new StatusReporter(node);
    status.connectionStateFor('target')({ state: 'error', error: `x${text}` });
    assert.equal(shown.at(-1).fill, 'red');
    assert.doesNotMatch(shown.at(-1).text, /inside kafkajs|Cannot destructure|low\.pop/);
  });

  it('ClusterConnection.reportError: kafkajs failing inside is explained, and the connection state (every node of the cluster shows it) stays', async function () {
    const conn = new ClusterConnection(S);
    /** @type {any[]} */
    const states = [];
    conn.register({ id: 'n1', onConnectionState: (s) => states.push(s) });
    conn.reportOk();
    const text = conn.reportError(await throughRetrier(kafkajsTypeError(LOW_POP)));
    assert.match(text, /^the broker returned no offsets for a topic \(target: h:9092\)/);
    assert.equal(conn.state.state, 'connected');
    // an explanation of it passed on in a plain Error, too
    conn.reportError(new Error(`group g: ${text}`));
    assert.equal(conn.state.state, 'connected');
    assert.deepEqual(states.map((s) => s.state), ['idle', 'connected']);
    // a failure of the connection still is one
    conn.reportError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9092'), { name: 'KafkaJSConnectionError' }));
    assert.equal(conn.state.state, 'error');
    await conn.close();
  });

  it("ClusterConnection.reportError: a group coordinator loading or moving is no failure of the connection (the broker answered; a fresh cluster's first groups meet it)", async function () {
    const { KafkaJSProtocolError } = require('kafkajs/src/errors');
    const { createErrorFromCode } = require('kafkajs/src/protocol/error');
    const conn = new ClusterConnection(S);
    conn.reportOk();
    for (const code of [14 /* COORDINATOR_LOAD_IN_PROGRESS */, 15 /* COORDINATOR_NOT_AVAILABLE */, 16 /* NOT_COORDINATOR */]) {
      const err = createErrorFromCode(code);
      assert.ok(err instanceof KafkaJSProtocolError, String(code));
      const text = conn.reportError(err);
      assert.ok(text.length > 0, 'the caller gets the explanation');
      assert.equal(conn.state.state, 'connected', `${err.type}: the cluster's nodes stay as they were`);
      // also when kafkajs's retrier hands it on as the cause
      conn.reportError(await throughRetrier(createErrorFromCode(code)));
      assert.equal(conn.state.state, 'connected', `${err.type} through the retrier`);
    }
    await conn.close();
  });

  it('HeartbeatWatcher: a reader that kafkajs fails inside reports the explanation, not the TypeError', async function () {
    const internal = await throughRetrier(kafkajsTypeError(LOW_POP));
    const admin = { listTopics: async () => ['source.heartbeats'], fetchTopicOffsets: async () => Promise.reject(internal) };
    /** @type {Error[]} */
    const errors = [];
    const watcher = new HeartbeatWatcher(/** @type {any} */ ({
      connection: { alias: 'target', settings: S, kafka: {}, admin: async () => admin, reportOk() {}, reportError: (/** @type {any} */ e) => String(e.message) },
      topic: 'source.heartbeats',
      staleAfterMs: 30000,
      onHeartbeat() {},
      onAlarm() {},
      onError: (/** @type {Error} */ e) => errors.push(e),
    }));
    watcher.start();
    for (let i = 0; i < 100 && errors.length === 0; i++) await new Promise((r) => setImmediate(r));
    await watcher.stop();
    assert.equal(errors.length, 1);
    assert.match(errors[0].message, /^the broker returned no offsets for a topic \(target: h:9092\)/);
    assert.doesNotMatch(withoutClientInternals(errors[0].message), /Cannot destructure/);
  });
});
