'use strict';

const assert = require('node:assert/strict');
const { PartitionState, OffsetSyncWriter, DEFAULT_MAX_IN_FLIGHT_OFFSET_SYNCS } = require('../../dist/core/offset-sync-writer');
const { ConfigError } = require('../../dist/core/errors');

function sync(topic, partition, u, d) {
  return { topic, partition, upstreamOffset: BigInt(u), downstreamOffset: BigInt(d) };
}

/** A send function whose calls are recorded and settled by the test. */
function controlledSend() {
  const calls = [];
  const send = (s) =>
    new Promise((resolve, reject) => {
      calls.push({ sync: s, resolve, reject });
    });
  return { send, calls };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('PartitionState (OffsetSyncWriter.PartitionState)', function () {
  it('follows the upstream testOffsetSync sequence with offset.lag.max = 50', function () {
    const state = new PartitionState(50);
    // [u, d, expected, reset after]
    const steps = [
      [0, 100, true, true],
      [2, 102, true, true],
      [3, 152, false, true],
      [4, 153, true, true],
      [5, 154, false, true],
      [6, 203, false, true],
      [7, 204, true, true],
      [2, 206, true, true],
      [3, 207, false, true],
      [4, 3, true, true],
      [5, 4, false, false],
      [7, 6, true, false],
      [7, 6, true, false],
      [8, 7, true, false],
      [10, 57, true, true],
      [11, 58, false, false],
    ];
    for (const [u, d, expected, reset] of steps) {
      assert.equal(state.update(BigInt(u), BigInt(d)), expected, `update(${u}, ${d})`);
      if (reset) state.reset();
    }
  });

  it('records the state fields: first record, gap, lag and downstream decrease', function () {
    const state = new PartitionState(10n);
    assert.equal(state.maxOffsetLag, 10n);
    assert.equal(state.previousUpstream, -1n);
    assert.equal(state.lastSyncDownstream, -1n);
    assert.equal(state.update(5n, 50n), true); // first record (and a gap from -1)
    state.reset();
    assert.equal(state.lastSyncDownstream, 50n);
    assert.equal(state.update(6n, 60n), false); // 60 - (50 + 1) = 9 < 10, contiguous, increasing
    assert.equal(state.previousUpstream, 6n);
    assert.equal(state.previousDownstream, 60n);
    assert.equal(state.update(7n, 61n), true); // 61 - 51 = 10 >= 10: lag
    state.reset();
    assert.equal(state.lastSyncDownstream, 61n);
    assert.equal(state.update(8n, 40n), true); // downstream went backwards
    state.reset();
    assert.equal(state.update(8n, 41n), true); // upstream repeated (8 - 8 != 1)
    state.reset();
    assert.equal(state.update(9n, 42n), false);
    assert.equal(state.shouldSyncOffsets, false);
  });

  it('with offset.lag.max = 0 every update is urgent (upstream testZeroOffsetSync)', function () {
    const state = new PartitionState(0);
    for (let i = 0; i < 20; i++) {
      assert.equal(state.update(BigInt(i), BigInt(i)), true, `update(${i})`);
      state.reset();
    }
  });

  it('rejects a non-integer offset.lag.max with a ConfigError naming the property', function () {
    assert.throws(() => new PartitionState(1.5), (e) => e instanceof ConfigError && e.problems[0].property === 'offset.lag.max');
  });
});

describe('OffsetSyncWriter (OffsetSyncWriter queues)', function () {
  it('queues an urgent sync in pending and a non-urgent one in delayed (offset.lag.max = 2)', function () {
    const { send, calls } = controlledSend();
    const writer = new OffsetSyncWriter({ maxOffsetLag: 2, send });
    assert.equal(writer.maybeQueueOffsetSyncs('topic', 0, 0n, 1n), true);
    assert.deepEqual(writer.pending(), [sync('topic', 0, 0, 1)]);
    assert.deepEqual(writer.delayed(), []);
    assert.equal(writer.partitionState('topic', 0).lastSyncDownstream, 1n);
    assert.equal(writer.maybeQueueOffsetSyncs('topic', 0, 1n, 2n), false);
    assert.deepEqual(writer.pending(), [sync('topic', 0, 0, 1)]);
    assert.deepEqual(writer.delayed(), [sync('topic', 0, 1, 2)]);
    assert.equal(writer.partitionState('topic', 0).lastSyncDownstream, 1n);
    assert.equal(calls.length, 0, 'queueing alone sends nothing');
  });

  it('never sends more than the in-flight limit (1 permit, offset.lag.max = 1)', async function () {
    const { send, calls } = controlledSend();
    const writer = new OffsetSyncWriter({ maxOffsetLag: 1, maxInFlight: 1, send });
    writer.maybeQueueOffsetSyncs('topic', 0, 1n, 1n);
    assert.equal(writer.firePendingOffsetSyncs(), 1);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0].sync, sync('topic', 0, 1, 1));
    assert.equal(writer.inFlight, 1);

    assert.equal(writer.maybeQueueOffsetSyncs('topic', 0, 3n, 4n), true); // gap: urgent
    assert.equal(writer.firePendingOffsetSyncs(), 0);
    assert.equal(calls.length, 1, 'the second sync waits for a permit');
    assert.deepEqual(writer.pending(), [sync('topic', 0, 3, 4)]);

    calls[0].resolve();
    await tick();
    assert.equal(writer.inFlight, 0);
    assert.equal(calls.length, 1, 'a released permit does not fire by itself (as MM2)');
    assert.equal(writer.firePendingOffsetSyncs(), 1);
    assert.deepEqual(calls[1].sync, sync('topic', 0, 3, 4));
    assert.deepEqual(writer.pending(), []);
  });

  it('defaults to 10 in-flight syncs and fires pending syncs in queue order', function () {
    const { send, calls } = controlledSend();
    const writer = new OffsetSyncWriter({ maxOffsetLag: 100n, send });
    assert.equal(writer.maxInFlight, DEFAULT_MAX_IN_FLIGHT_OFFSET_SYNCS);
    assert.equal(writer.maxInFlight, 10);
    for (let p = 0; p < 12; p++) writer.maybeQueueOffsetSyncs('t', p, 0n, 0n);
    assert.equal(writer.firePendingOffsetSyncs(), 10);
    assert.deepEqual(calls.map((c) => c.sync.partition), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(writer.pending().map((s) => s.partition), [10, 11]);
    assert.equal(writer.inFlight, 10);
    assert.equal(writer.sentSyncs, 10);
  });

  it('promotes delayed syncs over pending ones at commit (offset.lag.max = 50)', function () {
    const { send } = controlledSend();
    const writer = new OffsetSyncWriter({ maxOffsetLag: 50, send });
    writer.maybeQueueOffsetSyncs('topic', 0, 0n, 100n);
    writer.maybeQueueOffsetSyncs('topic', 0, 1n, 101n);
    writer.promoteDelayedOffsetSyncs();
    assert.deepEqual(writer.delayed(), []);
    assert.deepEqual(writer.pending(), [sync('topic', 0, 1, 101)]);
  });

  it('an urgent sync replaces the pending one in place and drops the delayed one of its partition', function () {
    const { send } = controlledSend();
    const writer = new OffsetSyncWriter({ maxOffsetLag: 50, send });
    writer.maybeQueueOffsetSyncs('a', 0, 0n, 0n); // urgent, pending first
    writer.maybeQueueOffsetSyncs('b', 0, 0n, 0n); // urgent, pending second
    writer.maybeQueueOffsetSyncs('a', 0, 1n, 1n); // delayed
    assert.deepEqual(writer.delayed(), [sync('a', 0, 1, 1)]);
    writer.maybeQueueOffsetSyncs('a', 0, 5n, 5n); // gap: urgent, replaces a's pending sync, keeps its place
    assert.deepEqual(writer.pending(), [sync('a', 0, 5, 5), sync('b', 0, 0, 0)]);
    assert.deepEqual(writer.delayed(), []);
  });

  it('commit() promotes then fires, publishing the latest position of an idle partition', function () {
    const { send, calls } = controlledSend();
    const writer = new OffsetSyncWriter({ maxOffsetLag: 100, send });
    writer.maybeQueueOffsetSyncs('t', 3, 10n, 20n);
    writer.firePendingOffsetSyncs();
    for (let u = 11n; u <= 15n; u++) writer.maybeQueueOffsetSyncs('t', 3, u, u + 10n);
    assert.equal(calls.length, 1);
    assert.deepEqual(writer.delayed(), [sync('t', 3, 15, 25)]);
    assert.equal(writer.commit(), 1);
    assert.deepEqual(calls.map((c) => c.sync), [sync('t', 3, 10, 20), sync('t', 3, 15, 25)]);
    assert.deepEqual(writer.delayed(), []);
    assert.deepEqual(writer.pending(), []);
    assert.equal(writer.commit(), 0, 'nothing new: nothing sent');
  });

  it('counts a failed send, releases its permit, reports it, and the next commit sends it again (a lost sync of an idle partition is repaired)', async function () {
    const { send, calls } = controlledSend();
    const errors = [];
    const writer = new OffsetSyncWriter({
      maxOffsetLag: 100,
      maxInFlight: 1,
      send,
      onSendError: (e, s) => errors.push([/** @type {Error} */ (e).message, s.upstreamOffset]),
    });
    writer.maybeQueueOffsetSyncs('t', 0, 0n, 0n);
    writer.firePendingOffsetSyncs();
    calls[0].reject(new Error('broker down'));
    await tick();
    assert.equal(writer.failedSends, 1);
    assert.equal(writer.inFlight, 0);
    assert.deepEqual(errors, [['broker down', 0n]]);
    assert.deepEqual(writer.delayed(), [sync('t', 0, 0, 0)], 'the failed sync waits for the next commit');
    assert.equal(writer.commit(), 1, 'sent again');
    assert.equal(calls.length, 2);
    assert.deepEqual(calls[1].sync, sync('t', 0, 0, 0));
    calls[1].resolve();
    await tick();
    assert.equal(writer.commit(), 0, 'acknowledged: nothing more');
    assert.equal(calls.length, 2);
  });

  it('a failed sync is not sent again when a newer one of its partition was queued or started meanwhile (never a rewind)', async function () {
    const { send, calls } = controlledSend();
    const writer = new OffsetSyncWriter({ maxOffsetLag: 100, maxInFlight: 5, send });
    writer.maybeQueueOffsetSyncs('t', 0, 0n, 0n);
    writer.firePendingOffsetSyncs();
    writer.maybeQueueOffsetSyncs('t', 0, 5n, 1n); // an upstream gap: urgent
    writer.firePendingOffsetSyncs();
    assert.equal(calls.length, 2);
    calls[0].reject(new Error('broker down'));
    await tick();
    assert.deepEqual(writer.delayed(), []);
    assert.deepEqual(writer.pending(), []);
    calls[1].resolve();
    await tick();
    assert.equal(writer.commit(), 0, 'the older failed sync stays dropped: a newer one was started');

    // a newer non-urgent sync of the partition is delayed: the commit sends that one, not the failed one
    writer.maybeQueueOffsetSyncs('t', 1, 0n, 0n);
    writer.firePendingOffsetSyncs();
    writer.maybeQueueOffsetSyncs('t', 1, 1n, 1n);
    calls[2].reject(new Error('broker down'));
    await tick();
    assert.equal(writer.commit(), 1);
    assert.deepEqual(calls[3].sync, sync('t', 1, 1, 1));
  });

  it('treats a send that throws synchronously as a failed send', async function () {
    const writer = new OffsetSyncWriter({
      maxOffsetLag: 100,
      send: () => {
        throw new Error('not connected');
      },
      onSendError: () => {
        throw new Error('a broken logger is ignored');
      },
    });
    writer.maybeQueueOffsetSyncs('t', 0, 0n, 0n);
    assert.equal(writer.firePendingOffsetSyncs(), 1);
    await tick();
    assert.equal(writer.failedSends, 1);
    assert.equal(writer.inFlight, 0);
  });

  it('flush() sends everything queued, in permit-sized waves, and resolves when nothing is in flight', async function () {
    const sent = [];
    const writer = new OffsetSyncWriter({
      maxOffsetLag: 100,
      maxInFlight: 2,
      send: async (s) => {
        sent.push(`${s.topic}-${s.partition}@${s.upstreamOffset}`);
      },
    });
    for (let p = 0; p < 5; p++) writer.maybeQueueOffsetSyncs('t', p, 0n, 0n);
    writer.maybeQueueOffsetSyncs('t', 0, 1n, 1n); // delayed
    await writer.flush();
    assert.deepEqual(sent, ['t-0@1', 't-1@0', 't-2@0', 't-3@0', 't-4@0']);
    assert.equal(writer.inFlight, 0);
    assert.deepEqual(writer.pending(), []);
    assert.deepEqual(writer.delayed(), []);
  });

  it('keeps partition states independent', function () {
    const { send } = controlledSend();
    const writer = new OffsetSyncWriter({ maxOffsetLag: 100, send });
    assert.equal(writer.maybeQueueOffsetSyncs('t', 0, 0n, 0n), true);
    assert.equal(writer.maybeQueueOffsetSyncs('t', 1, 1n, 1n), true);
    assert.equal(writer.maybeQueueOffsetSyncs('t', 0, 1n, 1n), false);
    assert.equal(writer.maybeQueueOffsetSyncs('u', 0, 2n, 2n), true);
    assert.equal(writer.partitionState('t', 5), undefined);
  });

  it('validates its options', function () {
    const send = async () => {};
    assert.throws(() => new OffsetSyncWriter({ maxOffsetLag: /** @type {any} */ ('x'), send }), ConfigError);
    assert.throws(() => new OffsetSyncWriter({ maxOffsetLag: 1, maxInFlight: 0, send }), RangeError);
    assert.equal(new OffsetSyncWriter({ send }).maxOffsetLag, 100n);
  });
});
