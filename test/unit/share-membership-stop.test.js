'use strict';
/** ShareMembership stopped while it starts (a redeploy while joining): its consumer never goes on into the group. */
const assert = require('node:assert/strict');
const { ShareMembership } = require('../../dist/kafka/share-membership');

/** A kafkajs stand-in whose consumer's connect waits until `release()`; records the calls. */
function slowKafka() {
  const calls = [];
  /** @type {(v?: unknown) => void} */
  let release = () => {};
  const consumer = {
    events: { GROUP_JOIN: 'join', HEARTBEAT: 'hb', CRASH: 'crash', REBALANCING: 'rebalancing', STOP: 'stop' },
    on: () => () => {},
    connect: () => (calls.push('connect'), new Promise((r) => (release = r))),
    subscribe: async () => void calls.push('subscribe'),
    run: async () => void calls.push('run'),
    disconnect: async () => void calls.push('disconnect'),
    pause: () => {},
  };
  return { kafka: { consumer: () => consumer }, calls, release: () => release() };
}

describe('ShareMembership stopped while it starts', function () {
  {
    it(`stop() during connect: start() rejects, the consumer is disconnected and never subscribes nor runs`, async function () {
      const k = slowKafka();
      const m = new ShareMembership({ kafka: /** @type {any} */ (k.kafka), sourceAlias: 's', targetAlias: 't', settings: {} });
      const started = m.start();
      started.catch(() => undefined);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(k.calls, ['connect']);
      await m.stop();
      k.release();
      await assert.rejects(started, /stopped while it started/);
      assert.equal(k.calls.includes('subscribe'), false, `no subscribe after stop: ${k.calls}`);
      assert.equal(k.calls.includes('run'), false, `no run after stop: ${k.calls}`);
      assert.ok(k.calls.filter((c) => c === 'disconnect').length >= 1, 'disconnected');
      assert.equal(m.state, null);
    });
  }
});
