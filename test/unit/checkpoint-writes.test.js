'use strict';
/** engines/checkpoint-writes: the writes of a full and a partial cycle take turns; the topic's order is the store's; an acknowledgement never drops a newer checkpoint. */
const assert = require('node:assert/strict');
const { CheckpointWrites, CheckpointWriteError } = require('../../dist/engines/checkpoint-writes');
const { CHECKPOINT_CHUNK_RECORDS } = require('../../dist/core/checkpoint-cycle');
const { CheckpointStore } = require('../../dist/core/checkpoint-store');
const { checkpointsOf } = require('../harness/record-batches');

const cp = (down) => ({ group: 'g', topic: 'source.t', partition: 0, upstreamOffset: BigInt(down), downstreamOffset: BigInt(down), metadata: '' });

/** A loaded store, and a cycle's put: into the store (listed at 1) and onto the writes' retry list. */
function loadedStore() {
  const store = new CheckpointStore();
  store.markLoaded(true);
  return store;
}
const put = (store, writes, c) => {
  store.update(c.group, [c], 1);
  writes.unsent.add(c);
};

describe('engines/checkpoint-writes', function () {
  it('a write waits for the one before it and sends what is current when its turn comes; the first one\'s acknowledgement leaves the newer checkpoint on the retry list', async function () {
    const sent = [];
    /** @type {(v?: unknown) => void} */
    let release = () => undefined;
    /** @type {Promise<unknown>} */
    let gate = new Promise((r) => (release = r));
    const target = {
      batchProducer: () => ({
        produce: async (_topic, _partition, records) => {
          await gate;
          for (const c of await checkpointsOf(records)) sent.push(Number(c.downstreamOffset));
        },
      }),
      admin: async () => ({ fetchTopicOffsets: async () => [] }),
      reportOk: () => undefined,
      reportError: (e) => String(e),
    };
    const store = loadedStore();
    const writes = new CheckpointWrites({ target: /** @type {any} */ (target), topic: 'source.checkpoints.internal', store: () => store, stopped: () => false });
    put(store, writes, cp(5));
    const first = writes.write(true); // holds at its produce
    await new Promise((r) => setImmediate(r));
    // a partial cycle translates the partition again meanwhile
    put(store, writes, cp(7));
    const second = writes.write(false);
    release();
    gate = Promise.resolve();
    assert.deepEqual((await first).map((c) => Number(c.downstreamOffset)), [5]);
    assert.deepEqual((await second).map((c) => Number(c.downstreamOffset)), [7]);
    assert.deepEqual(sent, [5, 7], 'in the store\'s order: the later value last');
    assert.equal(writes.unsent.size, 0);
    await writes.idle();
  });

  it('a failed write keeps its checkpoints for the next turn, which sends them', async function () {
    let fail = true;
    const sent = [];
    const target = {
      batchProducer: () => ({
        produce: async (_topic, _partition, records) => {
          if (fail) throw new Error('The request timed out');
          for (const c of await checkpointsOf(records)) sent.push(Number(c.downstreamOffset));
        },
      }),
      admin: async () => ({ fetchTopicOffsets: async () => [] }),
      reportOk: () => undefined,
      reportError: (e) => `explained: ${e.message}`,
    };
    const store = loadedStore();
    const writes = new CheckpointWrites({ target: /** @type {any} */ (target), topic: 'x', store: () => store, stopped: () => false });
    put(store, writes, cp(3));
    await assert.rejects(writes.write(false), /explained: The request timed out/);
    assert.equal(writes.unsent.size, 1);
    fail = false;
    assert.equal((await writes.write(false)).length, 1);
    assert.deepEqual(sent, [3]);
  });
  /** Writes with checkpoints of `n` partitions (more than a chunk) on their retry list, current in a store of their own. */
  function manyUnsent(n, o) {
    const store = loadedStore();
    const writes = new CheckpointWrites({ ...o, topic: 'x', store: () => store });
    for (let p = 0; p < n; p++) put(store, writes, { ...cp(p + 1), partition: p });
    return writes;
  }

  it('a write that fails after a chunk was acknowledged reports that chunk (it reached the topic) and keeps only the rest on the retry list', async function () {
    const n = CHECKPOINT_CHUNK_RECORDS + 10;
    let sends = 0;
    const target = {
      batchProducer: () => ({
        produce: async () => {
          sends += 1;
          if (sends > 1) throw new Error('The request timed out');
        },
      }),
      admin: async () => ({ fetchTopicOffsets: async () => [] }),
      reportOk: () => undefined,
      reportError: (e) => `explained: ${e.message}`,
    };
    const acknowledged = [];
    const writes = manyUnsent(n, { target: /** @type {any} */ (target), stopped: () => false, acknowledged: (sent) => acknowledged.push(sent) });
    const e = await writes.write(false).then(() => null, (err) => err);
    assert.ok(e instanceof CheckpointWriteError, String(e));
    assert.match(e.message, /explained: The request timed out/);
    assert.equal(acknowledged.length, 1, 'the acknowledged chunk is reported once');
    assert.equal(acknowledged[0].length, CHECKPOINT_CHUNK_RECORDS);
    assert.equal(e.sent.length, CHECKPOINT_CHUNK_RECORDS);
    assert.equal(writes.unsent.size, n - CHECKPOINT_CHUNK_RECORDS, 'what was not acknowledged stays for the next turn');
    assert.ok(acknowledged[0].every((c) => !writes.unsent.has(c)));
    assert.deepEqual(writes.unsent.list().map((c) => c.partition), Array.from({ length: 10 }, (_, i) => CHECKPOINT_CHUNK_RECORDS + i), 'the rest, in order');
  });

  it('closing between two chunks: the write resolves with what was acknowledged only, the rest stays on the retry list', async function () {
    const n = CHECKPOINT_CHUNK_RECORDS + 10;
    let stopped = false;
    const target = {
      batchProducer: () => ({
        produce: async () => {
          stopped = true; // the node closes while the first chunk is under way
        },
      }),
      admin: async () => ({ fetchTopicOffsets: async () => [] }),
      reportOk: () => undefined,
      reportError: (e) => String(e),
    };
    const acknowledged = [];
    const writes = manyUnsent(n, { target: /** @type {any} */ (target), stopped: () => stopped, acknowledged: (sent) => acknowledged.push(sent) });
    const sent = await writes.write(false);
    assert.equal(sent.length, CHECKPOINT_CHUNK_RECORDS, 'the chunk not sent is not reported as written');
    assert.equal(writes.unsent.size, n - CHECKPOINT_CHUNK_RECORDS);
    assert.deepEqual(acknowledged, [], 'no failure: the write itself reports what it sent');
  });
});
