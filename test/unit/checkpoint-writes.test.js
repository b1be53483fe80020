'use strict';
/** engines/checkpoint-writes: the writes of a full and a partial cycle take turns; the topic's order is the store's; an acknowledgement never drops a newer checkpoint. */
const assert = require('node:assert/strict');
const { CheckpointWrites } = require('../../dist/engines/checkpoint-writes');
const { unsentKey } = require('../../dist/core/checkpoint-cycle');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');

const cp = (down) => ({ group: 'g', topic: 'source.t', partition: 0, upstreamOffset: BigInt(down), downstreamOffset: BigInt(down), metadata: '', timestamp: 1 });

describe('engines/checkpoint-writes', function () {
  it('a write waits for the one before it and sends what is current when its turn comes; the first one\'s acknowledgement leaves the newer checkpoint on the retry list', async function () {
    const sent = [];
    /** @type {(v?: unknown) => void} */
    let release = () => undefined;
    /** @type {Promise<unknown>} */
    let gate = new Promise((r) => (release = r));
    const target = {
      producer: async () => ({
        send: async ({ messages }) => {
          await gate;
          for (const m of messages) sent.push(Number(decodeCheckpoint(m.key, m.value).downstreamOffset));
        },
      }),
      admin: async () => ({ fetchTopicOffsets: async () => [] }),
      reportOk: () => undefined,
      reportError: (e) => String(e),
    };
    const unsent = new Map();
    let store = cp(5);
    const writes = new CheckpointWrites({ target: /** @type {any} */ (target), topic: 'source.checkpoints.internal', unsent, current: () => store, stopped: () => false });
    unsent.set(unsentKey(store), store);
    const first = writes.write(true); // holds at its produce
    await new Promise((r) => setImmediate(r));
    // a partial cycle translates the partition again meanwhile
    store = cp(7);
    unsent.set(unsentKey(store), store);
    const second = writes.write(false);
    release();
    gate = Promise.resolve();
    assert.deepEqual((await first).map((c) => Number(c.downstreamOffset)), [5]);
    assert.deepEqual((await second).map((c) => Number(c.downstreamOffset)), [7]);
    assert.deepEqual(sent, [5, 7], 'in the store\'s order: the later value last');
    assert.equal(unsent.size, 0);
    await writes.idle();
  });

  it('a failed write keeps its checkpoints for the next turn, which sends them', async function () {
    let fail = true;
    const sent = [];
    const target = {
      producer: async () => ({
        send: async ({ messages }) => {
          if (fail) throw new Error('The request timed out');
          for (const m of messages) sent.push(Number(decodeCheckpoint(m.key, m.value).downstreamOffset));
        },
      }),
      admin: async () => ({ fetchTopicOffsets: async () => [] }),
      reportOk: () => undefined,
      reportError: (e) => `explained: ${e.message}`,
    };
    const unsent = new Map();
    const c = cp(3);
    unsent.set(unsentKey(c), c);
    const writes = new CheckpointWrites({ target: /** @type {any} */ (target), topic: 'x', unsent, current: () => c, stopped: () => false });
    await assert.rejects(writes.write(false), /explained: The request timed out/);
    assert.equal(unsent.size, 1);
    fail = false;
    assert.equal((await writes.write(false)).length, 1);
    assert.deepEqual(sent, [3]);
  });
});
