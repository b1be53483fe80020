'use strict';
/** The repairable offset-sync stream between mm2-offset-syncs and mm2-checkpoint (core/sync-stream). */
const assert = require('node:assert/strict');
const { SyncStreamSender, SyncStreamReceiver, readSyncStreamPosition } = require('../../dist/core/sync-stream');

describe('offset-sync stream positions (repairing a lost history)', function () {
  it('the sender numbers each load from 1 and names every new load differently', function () {
    const s = new SyncStreamSender('os@1');
    assert.equal(s.sent, 0);
    const a = [s.next(), s.next()];
    assert.deepEqual(a.map((p) => p.seq), [1, 2]);
    assert.equal(a[0].load, a[1].load);
    s.newLoad();
    assert.equal(s.sent, 0);
    const b = s.next();
    assert.equal(b.seq, 1);
    assert.notEqual(b.load, a[0].load);
    assert.notEqual(new SyncStreamSender('os@2').next().load, a[0].load);
  });

  it('a receiver that follows a load from seq 1 applies it; the first message of a new load resets first', function () {
    const r = new SyncStreamReceiver();
    assert.deepEqual(r.accept({ load: 'A', seq: 1 }), { action: 'reset-then-apply' });
    assert.deepEqual(r.accept({ load: 'A', seq: 2 }), { action: 'apply' });
    assert.equal(r.complete, true);
    // the sender restarted (redeployed on its own): its new load brings the whole history again
    assert.deepEqual(r.accept({ load: 'B', seq: 1 }), { action: 'reset-then-apply' });
    assert.deepEqual(r.accept({ load: 'B', seq: 2 }), { action: 'apply' });
  });

  it('a receiver that joins in the middle of a load asks once for a replay and ignores that load', function () {
    const r = new SyncStreamReceiver();
    assert.deepEqual(r.accept({ load: 'A', seq: 7 }), { action: 'ignore', requestReplay: true, reason: 'joined-late' });
    assert.deepEqual(r.accept({ load: 'A', seq: 8 }), { action: 'ignore', requestReplay: false, reason: 'joined-late' });
    assert.equal(r.complete, false);
    assert.deepEqual(r.accept({ load: 'B', seq: 1 }), { action: 'reset-then-apply' }, 'the replay');
    assert.equal(r.complete, true);
  });

  it('a lost message (a gap) asks once for a replay; a duplicate is ignored without one', function () {
    const r = new SyncStreamReceiver();
    r.accept({ load: 'A', seq: 1 });
    r.accept({ load: 'A', seq: 2 });
    assert.deepEqual(r.accept({ load: 'A', seq: 2 }), { action: 'ignore', requestReplay: false, reason: 'gap' });
    assert.deepEqual(r.accept({ load: 'A', seq: 5 }), { action: 'ignore', requestReplay: true, reason: 'gap' });
    assert.deepEqual(r.accept({ load: 'A', seq: 6 }), { action: 'ignore', requestReplay: false, reason: 'joined-late' });
    assert.deepEqual(r.accept({ load: 'C', seq: 1 }), { action: 'reset-then-apply' });
  });

  it('two senders wired to one receiver are followed apart: neither makes the other ask for replays', function () {
    const r = new SyncStreamReceiver();
    assert.deepEqual(r.accept({ load: 'a@1/0', seq: 1 }), { action: 'reset-then-apply' });
    assert.deepEqual(r.accept({ load: 'b@1/0', seq: 1 }), { action: 'reset-then-apply' });
    assert.deepEqual(r.accept({ load: 'a@1/0', seq: 2 }), { action: 'apply' });
    assert.deepEqual(r.accept({ load: 'b@1/0', seq: 2 }), { action: 'apply' });
    assert.deepEqual(r.accept({ load: 'a@1/1', seq: 1 }), { action: 'reset-then-apply' }, 'a new load of a');
    assert.deepEqual(r.accept({ load: 'b@1/0', seq: 3 }), { action: 'apply' }, 'b goes on');
  });

  it('messages without a position (hand-made, older senders) are applied as they are', function () {
    const r = new SyncStreamReceiver();
    assert.deepEqual(r.accept(undefined), { action: 'apply' });
    assert.equal(readSyncStreamPosition(undefined), undefined);
    assert.equal(readSyncStreamPosition({ load: '', seq: 1 }), undefined);
    assert.equal(readSyncStreamPosition({ load: 'A', seq: 0 }), undefined);
    assert.equal(readSyncStreamPosition({ load: 'A', seq: 1.5 }), undefined);
    assert.deepEqual(readSyncStreamPosition({ load: 'A', seq: 3, x: 1 }), { load: 'A', seq: 3 });
  });
});
