'use strict';
/**
 * kafkajs failing inside (a TypeError on an answer it did not expect, such as
 * `Cannot destructure property 'partitions' of 'low.pop(...)'` after a broker restart) reaches
 * the node's log explained and as a warning, never as a raw error that fires Catch nodes: the
 * explanation (kafka/client explainKafkaError), its recognition (isClientInternalFailure) and
 * the one place nodes log failures with (nodes/shared/flow-node logFailure, FailureLog.error).
 */
const assert = require('node:assert/strict');
const createRetry = require('kafkajs/src/retry');
const { explainKafkaError, isClientInternalFailure, isKafkaClientInternalError } = require('../../dist/kafka/client');
const { FailureLog, StatusReporter, logFailure } = require('../../dist/nodes/shared/flow-node');
const { offsetSyncsEvents } = require('../../dist/nodes/mm2-offset-syncs/mm2-offset-syncs-events');
const { makeTranslate } = require('../../dist/nodes/shared/i18n');

const S = { alias: 'src', bootstrapServers: ['h:9092'] };
const LOW_POP = "Cannot destructure property 'partitions' of 'low.pop(...)' as it is undefined.";

function kafkajsTypeError(message) {
  const e = new TypeError(message);
  e.stack = `TypeError: ${message}\n    at Array.map (<anonymous>)\n    at /app/node_modules/kafkajs/src/admin/index.js:328:17`;
  return e;
}

/** The error as kafkajs's own retrier hands it on (admin calls run inside it): a KafkaJSNonRetriableError with the TypeError as cause. */
async function throughRetrier(err) {
  try {
    await createRetry({ retries: 0 })(async () => {
      throw err;
    });
  } catch (e) {
    return e;
  }
  throw new Error('the retrier did not reject');
}

function fakeNode() {
  /** @type {Array<[string, string]>} */
  const logged = [];
  return {
    logged,
    id: 'n1',
    warn: (m) => logged.push(['warn', m]),
    error: (m) => logged.push(['error', m]),
    log: () => undefined,
    debug: (m) => logged.push(['debug', m]),
    send: () => undefined,
    status: () => undefined,
  };
}

describe('kafkajs internals: explained, and logged as warnings', function () {
  it("a TypeError handed on by kafkajs's retrier (KafkaJSNonRetriableError, same message) is explained, not shown raw", async function () {
    const wrapped = await throughRetrier(kafkajsTypeError(LOW_POP));
    assert.equal(wrapped.name, 'KafkaJSNonRetriableError', 'what kafkajs really hands on');
    assert.equal(isKafkaClientInternalError(wrapped), true);
    assert.equal(
      explainKafkaError(wrapped, S),
      `the broker returned no offsets for a topic (src: h:9092): it was probably deleted, re-created or had no leader during the request; the next cycle tries again (inside kafkajs: ${LOW_POP})`,
    );
    const other = await throughRetrier(kafkajsTypeError("Cannot read properties of undefined (reading 'leader')"));
    assert.match(explainKafkaError(other, S), /^the Kafka client failed on an unexpected answer \(src: h:9092\): .* \(inside kafkajs: Cannot read properties of undefined \(reading 'leader'\)\)$/);
  });

  it('a TypeError of our own code, also one raised in a callback kafkajs called, is not taken for kafkajs failing', function () {
    const ours = new TypeError('x is not a function');
    ours.stack = 'TypeError: x is not a function\n    at eachBatch (/app/dist/engines/mirror-task.js:10:5)\n    at /app/node_modules/kafkajs/src/consumer/runner.js:1:1';
    assert.equal(isKafkaClientInternalError(ours), false);
    assert.equal(isClientInternalFailure(ours), false);
    assert.equal(explainKafkaError(ours, S), 'x is not a function (src: h:9092)');
  });

  it('recognized in the error, in its explanation and in a log line built around it; not in other failures', function () {
    const text = explainKafkaError(kafkajsTypeError(LOW_POP), S);
    assert.equal(isClientInternalFailure(kafkajsTypeError(LOW_POP)), true);
    assert.equal(isClientInternalFailure(text), true);
    assert.equal(isClientInternalFailure(new Error(text)), true);
    assert.equal(isClientInternalFailure(`checkpoint cycle failed: ${text}`), true);
    assert.equal(isClientInternalFailure(explainKafkaError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9092'), { name: 'KafkaJSConnectionError' }), S)), false);
    assert.equal(isClientInternalFailure('checkpoint cycle failed: not authorized'), false);
    assert.equal(isClientInternalFailure(null), false);
  });

  it('logFailure and FailureLog.error: kafkajs failing inside is a warning, any other failure an error', function () {
    const text = explainKafkaError(kafkajsTypeError(LOW_POP), S);
    const node = fakeNode();
    logFailure(node, `checkpoint cycle failed: ${text}`);
    logFailure(node, 'checkpoint cycle failed: connection refused (src: h:9092)');
    assert.deepEqual(node.logged.map((l) => l[0]), ['warn', 'error']);
    const log = new FailureLog(fakeNode());
    const n2 = /** @type {any} */ (log).node;
    log.error('cycle', `group offsets sync failed: ${text}`);
    log.error('cycle', 'group offsets sync failed: not authorized');
    assert.deepEqual(n2.logged, [
      ['warn', `group offsets sync failed: ${text}`],
      ['error', 'group offsets sync failed: not authorized'],
    ]);
  });

  it("mm2-offset-syncs: the reader failing inside kafkajs after a restart is logged explained, as a warning", function () {
    const node = fakeNode();
    const t = makeTranslate(/** @type {any} */ ({ _: (/** @type {string} */ key) => key }), 'mm2-offset-syncs');
    const events = offsetSyncsEvents({
      node,
      t,
      status: new StatusReporter(/** @type {any} */ (node)),
      topic: 'mm2-offset-syncs.tgt.internal',
      cluster: 'src',
      stats: () => /** @type {any} */ ({ read: 0n, malformed: 0, loaded: false }),
    });
    events.error({ kind: 'connection', error: explainKafkaError(kafkajsTypeError(LOW_POP), S), retryInMs: 5000, repeated: false });
    events.error({ kind: 'connection', error: 'connection refused (src: h:9092): check the bootstrap servers and that the brokers run', retryInMs: 5000, repeated: false });
    assert.equal(node.logged.length, 2);
    assert.equal(node.logged[0][0], 'warn');
    assert.match(node.logged[0][1], /the broker returned no offsets for a topic \(src: h:9092\).*inside kafkajs/);
    assert.doesNotMatch(node.logged[0][1], /^Cannot destructure/);
    assert.equal(node.logged[1][0], 'error');
  });
});
