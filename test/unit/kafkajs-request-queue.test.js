'use strict';
/**
 * kafkajs 2.2.4's RequestQueue without its endless 1 ms timer (kafka/kafkajs-request-queue, issue
 * 24): loaded with kafka/client; nothing scheduled while nothing waits and nothing is throttled,
 * a waiting request still sent when room comes, a throttle still waited out.
 */
const assert = require('node:assert/strict');
require('../../dist/kafka/client');
const { requestQueuePatched } = require('../../dist/kafka/kafkajs-request-queue');
const RequestQueue = require('kafkajs/src/network/requestQueue');

const logger = { debug() {}, info() {}, warn() {}, error() {} };
function queue(maxInFlightRequests = 1) {
  return new RequestQueue({ maxInFlightRequests, requestTimeout: 30000, enforceRequestTimeout: false, clientId: 'test', broker: 'b:1', logger, isConnected: () => true });
}
function request(q, correlationId, sent) {
  return { entry: { correlationId, apiKey: 3, apiName: 'Metadata', apiVersion: 0, resolve() {}, reject() {} }, expectResponse: true, requestTimeout: 30000, sendRequest: () => sent.push(correlationId) };
}

describe('kafkajs RequestQueue without its idle 1 ms timer (kafka/kafkajs-request-queue)', function () {
  it('is patched once kafka/client is loaded', function () {
    assert.equal(requestQueuePatched(), true);
  });

  it('a response with nothing waiting schedules nothing (kafkajs 2.2.4 kept a 1 ms timer going)', function () {
    const q = queue();
    const sent = [];
    q.push(request(q, 1, sent));
    assert.deepEqual(sent, [1]);
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    assert.equal(q.throttleCheckTimeoutId, null);
    q.destroy();
  });

  it('a request that waits for room is sent when the one in flight is answered, and after a throttle', async function () {
    const q = queue(1);
    const sent = [];
    q.push(request(q, 1, sent));
    q.push(request(q, 2, sent)); // waits: one in flight at most
    assert.deepEqual(sent, [1]);
    assert.notEqual(q.throttleCheckTimeoutId, null, 'its check is scheduled');
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    assert.deepEqual(sent, [1, 2]);
    q.fulfillRequest({ correlationId: 2, payload: Buffer.alloc(0), size: 0 });
    // the check scheduled while 2 waited runs once and schedules nothing more
    const settled = Date.now() + 5000;
    while (q.throttleCheckTimeoutId !== null && Date.now() < settled) await new Promise((r) => setImmediate(r));
    assert.equal(q.throttleCheckTimeoutId, null);

    q.maybeThrottle(40);
    q.push(request(q, 3, sent)); // throttled: waits for the throttle to end
    assert.deepEqual(sent, [1, 2]);
    const deadline = Date.now() + 5000;
    while (sent.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(sent, [1, 2, 3]);
    q.destroy();
  });
});
