'use strict';
/**
 * Records that decode but make no sense (issue 7 item 7): negative offsets in offset syncs and
 * checkpoints, heartbeats from before the epoch or far in the future, offsets in messages
 * outside 0..2^63-1. Each is refused by the core check and skipped + counted by its reader.
 */
const assert = require('node:assert/strict');
const { encodeOffsetSync, decodeValidOffsetSync, offsetSyncProblem } = require('../../dist/core/offset-sync');
const { encodeCheckpoint, decodeValidCheckpoint, checkpointProblem } = require('../../dist/core/checkpoint');
const { heartbeatTimestampProblem } = require('../../dist/core/heartbeat-monitor');
const { parseOffset } = require('../../dist/core/checkpoint-json');
const { AbsurdRecordError, MalformedRecordError } = require('../../dist/core/errors');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');

describe('absurd records are refused like malformed ones', function () {
  it('an offset sync with a negative offset or partition is refused (AbsurdRecordError is a MalformedRecordError)', function () {
    const ok = { topic: 't', partition: 0, upstreamOffset: 5n, downstreamOffset: 3n };
    assert.equal(offsetSyncProblem(ok), null);
    const okRec = encodeOffsetSync(ok);
    assert.deepEqual(decodeValidOffsetSync(okRec.key, okRec.value), ok);
    for (const bad of [
      { ...ok, upstreamOffset: -1n },
      { ...ok, downstreamOffset: -9223372036854775808n },
      { ...ok, partition: -1 },
    ]) {
      const r = encodeOffsetSync(bad);
      assert.throws(() => decodeValidOffsetSync(r.key, r.value), (e) => e instanceof AbsurdRecordError && e instanceof MalformedRecordError && /negative/.test(e.message));
    }
  });

  it('why: a forged negative sync in the store makes later translations of its partition wrong', function () {
    const build = (forged) => {
      const store = new OffsetSyncStore({ keepHistoryOnLoad: true });
      store.apply({ topic: 't', partition: 0, upstreamOffset: 100n, downstreamOffset: 50n });
      if (forged) store.apply({ topic: 't', partition: 0, upstreamOffset: -5n, downstreamOffset: -5n });
      store.markLoaded();
      for (let i = 1n; i <= 5n; i++) store.apply({ topic: 't', partition: 0, upstreamOffset: 100n + i * 100n, downstreamOffset: 50n + i * 100n });
      return store;
    };
    assert.equal(build(false).translate('t', 0, 300n), 250n);
    assert.equal(build(true).translate('t', 0, 300n), -4n, 'the forged sync poisons the history');
  });

  it('a checkpoint with a negative offset or partition is refused', function () {
    const ok = { group: 'g', topic: 't', partition: 1, upstreamOffset: 10n, downstreamOffset: 7n, metadata: '' };
    assert.equal(checkpointProblem(ok), null);
    const okRec = encodeCheckpoint(ok);
    assert.deepEqual(decodeValidCheckpoint(okRec.key, okRec.value), ok);
    for (const bad of [{ ...ok, upstreamOffset: -1n }, { ...ok, downstreamOffset: -1n }, { ...ok, partition: -3 }]) {
      const r = encodeCheckpoint(bad);
      assert.throws(() => decodeValidCheckpoint(r.key, r.value), (e) => e instanceof AbsurdRecordError && /negative/.test(e.message));
    }
  });

  it('a heartbeat before the epoch or more than the tolerance ahead of this clock is refused; skew below it is accepted', function () {
    const now = 1_700_000_000_000;
    assert.equal(heartbeatTimestampProblem(BigInt(now), now, 30000), null);
    assert.equal(heartbeatTimestampProblem(BigInt(now + 29000), now, 30000), null, 'clock skew within the tolerance');
    assert.equal(heartbeatTimestampProblem(0n, now, 30000), null, 'the epoch itself is a (very old) time');
    assert.match(heartbeatTimestampProblem(-1n, now, 30000), /before the epoch/);
    assert.match(heartbeatTimestampProblem(-9223372036854775808n, now, 30000), /before the epoch/);
    assert.match(heartbeatTimestampProblem(BigInt(now + 31000), now, 30000), /31 s ahead of this clock \(more than 30 s\)/);
    assert.match(heartbeatTimestampProblem(9223372036854775807n, now, 30000), /d ahead of this clock/);
  });

  it('offsets in messages: only integers in 0..2^63-1', function () {
    assert.equal(parseOffset('0'), 0n);
    assert.equal(parseOffset(' 42 '), 42n);
    assert.equal(parseOffset(42), 42n);
    assert.equal(parseOffset(9223372036854775807n), 9223372036854775807n);
    assert.equal(parseOffset('9223372036854775807'), 9223372036854775807n);
    for (const bad of ['9223372036854775808', '9999999999999999999', '-1', -1, -1n, 9223372036854775808n, 1.5, '1e3', '', null, undefined, {}]) {
      assert.equal(parseOffset(bad), null, `refuses ${String(bad)}`);
    }
  });
});
