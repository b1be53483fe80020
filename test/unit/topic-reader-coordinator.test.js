'use strict';
/**
 * A reader's consumer crashing on a group coordinator that is loading (a cluster's first group, a
 * restarted broker) or moving is no failure: the broker answered and kafkajs restarts the consumer.
 * Reported, it turned every node of the cluster red for a moment after a deploy (issue 26, 8).
 */
const assert = require('node:assert/strict');
const { TopicReader } = require('../../dist/kafka/topic-reader');

describe('TopicReader: a group coordinator loading or moving is no failure of the reader', function () {
  function fakeKafka() {
    /** @type {Record<string, (ev: any) => void>} */
    const handlers = {};
    const consumer = {
      events: { END_BATCH_PROCESS: 'end-batch', CRASH: 'crash' },
      on: (/** @type {string} */ name, /** @type {(ev: any) => void} */ fn) => { handlers[name] = fn; },
      connect: async () => undefined,
      subscribe: async () => undefined,
      run: async () => undefined,
      disconnect: async () => undefined,
    };
    return { handlers, kafka: { consumer: () => consumer } };
  }

  it('a crash kafkajs restarts through (COORDINATOR_LOAD_IN_PROGRESS, also under its retries) is not reported; a connection failure is', async function () {
    const { handlers, kafka } = fakeKafka();
    const admin = { listTopics: async () => ['source.heartbeats'], fetchTopicOffsets: async () => [{ partition: 0, offset: '5', low: '0', high: '5' }] };
    /** @type {Error[]} */
    const errors = [];
    const reader = new TopicReader(/** @type {any} */ (kafka), /** @type {any} */ (admin), { topic: 'source.heartbeats', tail: true, onRecord() {}, onError: (e) => errors.push(e) });
    void reader.start();
    for (let i = 0; i < 100 && !handlers.crash; i++) await new Promise((r) => setImmediate(r));
    // the error as kafkajs makes it from the broker's code 14 (kafkajs names it GROUP_LOAD_IN_PROGRESS)
    const loading = require('kafkajs/src/protocol/error').createErrorFromCode(14);
    handlers.crash({ payload: { error: loading, restart: true } });
    // under Kafka's own name for the code, too
    handlers.crash({ payload: { error: Object.assign(new Error("The coordinator is loading and hence can't process requests for this group"), { name: 'KafkaJSProtocolError', type: 'COORDINATOR_LOAD_IN_PROGRESS', retriable: true }), restart: true } });
    handlers.crash({ payload: { error: Object.assign(new Error('retries exceeded'), { name: 'KafkaJSNumberOfRetriesExceeded', cause: loading }), restart: true } });
    const refused = Object.assign(new Error('Connection error: connect ECONNREFUSED 127.0.0.1:9092'), { name: 'KafkaJSConnectionError', retriable: true });
    handlers.crash({ payload: { error: refused, restart: true } });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    await reader.stop();
    assert.deepEqual(errors.map((e) => e.message), ['Connection error: connect ECONNREFUSED 127.0.0.1:9092']);
  });
});
