'use strict';
/**
 * OrderedBatchSender: the mirror's offset syncs reach the offset-syncs topic in the order the
 * writer sends them (as MM2's Java producer keeps them), although kafkajs may reorder
 * concurrent sends. Found by the conformance test against MM2's OffsetSyncFormatter: syncs
 * 0, 42, 21 in the log made every reader reset its history at 21 (an "upstream rewind").
 */
const assert = require('node:assert/strict');
const { OrderedBatchSender } = require('../../dist/kafka/ordered-sender');
const { OffsetSyncWriter } = require('../../dist/core/offset-sync-writer');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
const { MIRROR_SYNCS_IN_FLIGHT } = require('../../dist/engines/mirror-task');

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A write function whose batches are recorded and settled by the test. */
function controlledWrite() {
  const batches = [];
  const write = (items) => new Promise((resolve, reject) => batches.push({ items, resolve, reject }));
  return { write, batches };
}

describe('OrderedBatchSender (offset syncs in send order)', function () {
  it('has one write in flight and sends everything queued behind it as the next batch, in order', async function () {
    const { write, batches } = controlledWrite();
    const sender = new OrderedBatchSender(write);
    const settled = [];
    const ps = [1, 2, 3, 4].map((n) => sender.send(n).then(() => settled.push(n)));
    assert.deepEqual(batches.map((b) => b.items), [[1]]);
    assert.equal(sender.queued, 3);
    batches[0].resolve();
    await tick();
    assert.deepEqual(settled, [1]);
    assert.deepEqual(batches.map((b) => b.items), [[1], [2, 3, 4]]);
    const p5 = sender.send(5);
    batches[1].resolve();
    await Promise.all(ps);
    assert.deepEqual(settled, [1, 2, 3, 4]);
    await tick();
    assert.deepEqual(batches.map((b) => b.items), [[1], [2, 3, 4], [5]]);
    batches[2].resolve();
    await p5;
  });

  it('rejects every item of a failed batch and goes on with the next one', async function () {
    const { write, batches } = controlledWrite();
    const sender = new OrderedBatchSender(write);
    const a = sender.send('a');
    const b = sender.send('b');
    const c = sender.send('c');
    batches[0].reject(new Error('boom'));
    await assert.rejects(a, /boom/);
    await tick();
    assert.deepEqual(batches[1].items, ['b', 'c']);
    batches[1].reject(new Error('again'));
    await assert.rejects(b, /again/);
    await assert.rejects(c, /again/);
    const d = sender.send('d');
    assert.deepEqual(batches[2].items, ['d']);
    batches[2].resolve();
    await d;
  });

  it('a write that throws synchronously rejects its batch only', async function () {
    let calls = 0;
    const sender = new OrderedBatchSender((items) => {
      calls += 1;
      if (items.includes('bad')) throw new Error('sync throw');
      return Promise.resolve();
    });
    await assert.rejects(sender.send('bad'), /sync throw/);
    await sender.send('good');
    assert.equal(calls, 2);
  });

  it('splits long queues into batches of at most maxBatch', async function () {
    const { write, batches } = controlledWrite();
    const sender = new OrderedBatchSender(write, 2);
    const all = [1, 2, 3, 4, 5, 6].map((n) => sender.send(n));
    for (let i = 0; i < 4; i++) {
      batches[i].resolve();
      await tick();
    }
    await Promise.all(all);
    assert.deepEqual(batches.map((b) => b.items), [[1], [2, 3], [4, 5], [6]]);
  });

  it('behind the OffsetSyncWriter, a log written in write order keeps the store history (no false rewind)', async function () {
    const log = [];
    // writes that complete in reverse order of their start would reorder the log without the sender
    const sender = new OrderedBatchSender(async (items) => {
      await new Promise((r) => setTimeout(r, items[0].upstreamOffset === 0n ? 20 : 1));
      log.push(...items);
    });
    const writer = new OffsetSyncWriter({ maxOffsetLag: 20, send: (s) => sender.send(s) });
    for (let u = 30; u < 120; u++) {
      writer.maybeQueueOffsetSyncs('t', 0, BigInt(u), BigInt(u - 30));
      writer.firePendingOffsetSyncs();
    }
    await writer.flush();
    assert.deepEqual(log.map((s) => Number(s.downstreamOffset)), [0, 21, 42, 63, 84, 89]);
    const store = new OffsetSyncStore({ keepHistoryOnLoad: true });
    for (const s of log) store.apply(s);
    store.markLoaded();
    assert.equal(store.translate('t', 0, 30n), 0n, 'the first sync is still known');
    assert.equal(store.translate('t', 0, 120n), 90n);
  });

  describe('with retry (the mirror: a failed batch is written again until it lands)', function () {
    /** A retry whose sleeps are recorded and return at once. */
    function instantRetry(extra = {}) {
      const sleeps = [];
      const retries = [];
      return {
        sleeps, retries,
        retry: { giveUp: () => false, sleep: async (ms) => { sleeps.push(ms); }, onRetry: (e, n) => retries.push([e.message, n]), ...extra },
      };
    }

    it('writes the failed batch again, whole and before what was queued behind it; nothing is rejected', async function () {
      const { write, batches } = controlledWrite();
      const r = instantRetry({ initialDelayMs: 100, maxDelayMs: 300 });
      const sender = new OrderedBatchSender(write, 500, r.retry);
      const settled = [];
      const a = sender.send('a').then(() => settled.push('a'));
      const b = sender.send('b').then(() => settled.push('b'));
      batches[0].reject(new Error('leader moved'));
      await tick();
      const c = sender.send('c').then(() => settled.push('c'));
      assert.deepEqual(batches.map((x) => x.items), [['a'], ['a']], 'the same batch again, c waits behind it');
      for (let i = 1; i <= 3; i++) {
        batches[i].reject(new Error(`fail ${i}`));
        await tick();
      }
      batches[4].resolve();
      await a;
      await tick();
      assert.deepEqual(batches.map((x) => x.items), [['a'], ['a'], ['a'], ['a'], ['a'], ['b', 'c']]);
      batches[5].resolve();
      await Promise.all([b, c]);
      assert.deepEqual(settled, ['a', 'b', 'c']);
      assert.deepEqual(r.retries, [['leader moved', 1], ['fail 1', 2], ['fail 2', 3], ['fail 3', 4]]);
      assert.deepEqual(r.sleeps, [100, 200, 300, 300], 'each failure doubles the delay, up to the cap');
    });

    it('rejects the batch once it gives up (the owner stops), and writes what comes next', async function () {
      const { write, batches } = controlledWrite();
      let stopping = false;
      const sender = new OrderedBatchSender(write, 500, { giveUp: () => stopping, sleep: async () => { stopping = true; } });
      const a = sender.send('a');
      batches[0].reject(new Error('down'));
      await assert.rejects(a, /down/);
      assert.equal(batches.length, 1, 'not written again after giving up during the back-off');
      const b = sender.send('b');
      batches[1].reject(new Error('still down'));
      await assert.rejects(b, /still down/);
      assert.equal(batches.length, 2, 'a failure while giving up is not retried');
    });

    it('behind the OffsetSyncWriter, the first batches failed still reach the log whole: a group between its syncs translates', async function () {
      const log = [];
      // the first write (one sync) fails after a while, with everything else queued behind it; then that batch fails too
      let failures = 2;
      const writeOnce = async (items) => {
        if (failures-- > 0) throw new Error('UNKNOWN_TOPIC_OR_PARTITION');
        log.push(...items);
      };
      const feed = async (sender) => {
        const writer = new OffsetSyncWriter({ maxOffsetLag: 20, send: (s) => sender.send(s) });
        for (let u = 30; u < 120; u++) {
          writer.maybeQueueOffsetSyncs('t', 0, BigInt(u), BigInt(u - 30));
          writer.firePendingOffsetSyncs();
        }
        await writer.flush();
        const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: 'mm2' });
        for (const s of log) store.apply(s);
        store.markLoaded();
        return store;
      };
      // without retry (what kafkajs giving up did): only the newest sync of the failed batch is sent again
      const lost = await feed(new OrderedBatchSender(writeOnce));
      assert.deepEqual(log.filter((s) => s.upstreamOffset <= 100n), [], 'the syncs at 30, 51, 72 and 93 are lost');
      const t = lost.translate('t', 0, 100n);
      assert.ok(t === undefined || t === -1n, `no translation of 100 (${t})`);
      log.length = 0;
      failures = 2;
      const kept = await feed(new OrderedBatchSender(writeOnce, 500, instantRetry().retry));
      assert.deepEqual(log.map((s) => Number(s.upstreamOffset)), [30, 51, 72, 93, 114, 119]);
      assert.equal(kept.translate('t', 0, 100n), 64n, 'from the sync 93 -> 63: one past it');
      assert.equal(kept.translate('t', 0, 30n), 0n);
    });
  });

  it("behind the mirror's writer, a chunk's urgent syncs all reach the log while other partitions' first syncs are in flight (the mirror's in-flight bound)", async function () {
    // a source with 10 heartbeats topics: their first syncs take MM2's 10 slots, then a chunk of 90
    // records of the test topic queues its urgent syncs in the same synchronous loop
    const run = async (maxInFlight) => {
      const log = [];
      const sender = new OrderedBatchSender(async (items) => {
        await new Promise((r) => setTimeout(r, 5));
        log.push(...items);
      });
      const writer = new OffsetSyncWriter({ maxOffsetLag: 20, maxInFlight, send: (s) => sender.send(s) });
      for (let h = 0; h < 10; h++) {
        writer.maybeQueueOffsetSyncs(`hb${h}.heartbeats`, 0, 0n, 0n);
        writer.firePendingOffsetSyncs();
      }
      for (let u = 30; u < 120; u++) {
        writer.maybeQueueOffsetSyncs('t', 0, BigInt(u), BigInt(u - 30));
        writer.firePendingOffsetSyncs();
      }
      await writer.flush();
      return log.filter((x) => x.topic === 't').map((x) => Number(x.upstreamOffset));
    };
    const mm2 = await run(10);
    assert.ok(!mm2.includes(30), `with MM2's 10 the first sync of t is replaced before it is sent (${mm2.join(', ')})`);
    assert.deepEqual(await run(MIRROR_SYNCS_IN_FLIGHT), [30, 51, 72, 93, 114, 119]);
  });
});
