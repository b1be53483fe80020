'use strict';
/**
 * mm2-group-offsets in mode "input": the replay of the checkpoints topic at start
 * (nodes/mm2-group-offsets/mm2-group-offsets-rewind-replay) when the topic cannot be read. The
 * replay itself on real brokers: test/integration/rewind-restart.test.js.
 */
const assert = require('node:assert/strict');
const { replayRewindsOnce } = require('../../dist/nodes/mm2-group-offsets/mm2-group-offsets-rewind-replay');
const { NotAuthorizedError } = require('../../dist/kafka/client');
const { TopicNotFoundError } = require('../../dist/kafka/topic-reader');

const TOPIC = 'source.checkpoints.internal';

/** A flow-node context that records what the shell does: warnings, timers, red statuses. */
function fakeContext() {
  const seen = { warnings: [], timers: [], fails: [], info: [], recovered: [] };
  const warned = new Map();
  const ctx = {
    closing: false,
    log: {
      warn: (kind, text) => {
        if (warned.get(kind) === text) return false;
        warned.set(kind, text);
        seen.warnings.push(text);
        return true;
      },
      ok: (kind) => warned.delete(kind),
    },
    status: { fail: (text) => seen.fails.push(text), activity: () => undefined },
    after: (ms, fn) => seen.timers.push({ ms, fn }),
  };
  return { ctx, seen };
}

const t = (key, vars) => `${key} ${JSON.stringify(vars)}`;

function start(admin) {
  const { ctx, seen } = fakeContext();
  let calls = 0;
  const connection = {
    kafka: {},
    settings: { alias: 'target', bootstrapServers: ['localhost:9092'] },
    admin: async () => {
      calls++;
      return admin(calls);
    },
  };
  const syncer = { adoptRewinds: () => assert.fail('nothing was read') };
  const options = {
    ctx, t, connection, topic: TOPIC, syncer, nodeId: 'n1', retryMs: 5000,
    recovered: (groups) => seen.recovered.push(groups),
    info: (text) => seen.info.push(text),
  };
  // the fakes hold only what the replay's shell uses
  const replay = replayRewindsOnce(/** @type {any} */ (options));
  return { seen, replay, calls: () => calls };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('mm2-group-offsets mode input: the replay of the checkpoints topic at start, when it cannot be read', function () {
  it('no READ ACL: one warning naming the ACL, no retry, never red; the node goes on with its input', async function () {
    const refused = new NotAuthorizedError(`not authorized: needs READ on Topic:${TOPIC}`, `Topic:${TOPIC}`, [{ resource: 'Topic', name: TOPIC, operations: ['READ'] }]);
    const { seen, replay, calls } = start(() => Promise.reject(refused));
    await settle();
    await settle();
    assert.equal(seen.warnings.length, 1);
    assert.match(seen.warnings[0], /mm2-group-offsets\.warn\.rewind-replay-acl/);
    assert.match(seen.warnings[0], new RegExp(`needs READ on Topic:${TOPIC.replace(/\./g, '\\.')}`));
    assert.deepEqual(seen.timers, [], 'not tried again');
    assert.deepEqual(seen.fails, [], 'never red');
    assert.equal(calls(), 1);
    await replay.stop();
  });

  it('no checkpoints topic yet: nothing to recover, nothing said', async function () {
    const { seen, replay } = start(() => Promise.reject(new TopicNotFoundError(TOPIC)));
    await settle();
    await settle();
    assert.deepEqual([seen.warnings, seen.timers, seen.fails], [[], [], []]);
    await replay.stop();
  });

  it('another failure (target unreachable): said once, tried again after the retry time, never red', async function () {
    const { seen, replay, calls } = start(() => Promise.reject(new Error('Connection timeout')));
    await settle();
    await settle();
    assert.equal(seen.warnings.length, 1);
    assert.match(seen.warnings[0], /mm2-group-offsets\.warn\.rewind-replay /);
    assert.deepEqual(seen.timers.map((x) => x.ms), [5000]);
    seen.timers.shift().fn();
    await settle();
    await settle();
    assert.equal(calls(), 2);
    assert.equal(seen.warnings.length, 1, 'the same failure is not said again');
    assert.deepEqual(seen.fails, []);
    await replay.stop();
    seen.timers.shift()?.fn();
    await settle();
    assert.equal(calls(), 2, 'nothing after stop');
  });
});
