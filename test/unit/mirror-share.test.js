'use strict';
/**
 * Issue 25, the mirror part: the instances of one replication flow share the source partitions
 * through the mirror's consumer group. core/mirror-share (the share, the fencing of offset syncs,
 * the duplicates to expect), OffsetSyncWriter.forget, and the engine (engines/mirror-task) driven
 * through the group's events with fake clusters: a revoked partition's syncs are never written, a
 * paused instance writes none until the group took it back, a resumed partition's first record gets
 * a sync, and records the target had already are counted.
 */
const assert = require('node:assert/strict');
const { MirrorShare, progressMetadata, parseProgressMetadata, resumeMark } = require('../../dist/core/mirror-share');
const { OffsetSyncWriter } = require('../../dist/core/offset-sync-writer');
const { Mirror } = require('../../dist/engines/mirror-task');
const { mirrorStatus } = require('../../dist/nodes/mm2-mirror/mm2-mirror-status');
const { makeTranslate } = require('../../dist/nodes/shared/i18n');

const waitFor = async (cond, what) => {
  const until = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('mirror share (core/mirror-share)', function () {
  it('tells what each assignment revoked and added, and how many partitions are owned', function () {
    const s = new MirrorShare(15000);
    assert.equal(s.size, 0);
    assert.equal(s.owns('t', 0), false);
    const first = s.assign({ t: [0, 1, 2], u: [0] }, 1000);
    assert.deepEqual(first.revoked, []);
    assert.deepEqual(first.added.map((p) => `${p.topic}-${p.partition}`), ['t-0', 't-1', 't-2', 'u-0']);
    const second = s.assign({ t: [1, 2, 3] }, 2000);
    assert.deepEqual(second.revoked.map((p) => `${p.topic}-${p.partition}`), ['t-0', 'u-0']);
    assert.deepEqual(second.added.map((p) => `${p.topic}-${p.partition}`), ['t-3']);
    assert.equal(s.size, 3);
    assert.equal(s.owns('t', 0), false);
    assert.equal(s.owns('t', 3), true);
    assert.equal(s.generations, 2);
    assert.deepEqual(s.left().map((p) => `${p.topic}-${p.partition}`), ['t-1', 't-2', 't-3']);
    assert.equal(s.size, 0);
  });

  it('syncs only while a member in good standing: joined, no rebalance announced, a heartbeat answered within the bound', function () {
    const s = new MirrorShare(15000);
    assert.equal(s.maySync(0), false, 'before the first assignment');
    s.assign({ t: [0] }, 1000);
    assert.equal(s.maySync(1000), true);
    assert.equal(s.maySync(15999), true);
    assert.equal(s.maySync(16000), false, 'no heartbeat answered for half the session timeout: paused, maybe evicted');
    s.alive(20000);
    assert.equal(s.maySync(20001), true, 'a heartbeat answered again');
    s.rebalance();
    assert.equal(s.maySync(20002), false, 'a rebalance announced: none until the new assignment');
    s.alive(20003);
    assert.equal(s.maySync(20004), false, 'a heartbeat does not end the rebalance');
    s.assign({ t: [0] }, 20005);
    assert.equal(s.maySync(20006), true);
    s.heartbeatFailed(Object.assign(new Error('x'), { type: 'REBALANCE_IN_PROGRESS' }));
    assert.equal(s.rebalanceAnnounced, true);
    s.assign({ t: [0] }, 20007);
    s.heartbeatFailed(new Error('connection reset'));
    assert.equal(s.rebalanceAnnounced, false, 'another failure is not a rebalance');
    s.left();
    assert.equal(s.maySync(20008), false, 'left the group');
  });

  it('the progress metadata carries the target offset (and the mark); the records to expect again are what the remote partition got after it', function () {
    assert.equal(progressMetadata(1234n), 'd=1234');
    assert.equal(progressMetadata(1234n, 77n), 'd=1234;h=77');
    assert.deepEqual(parseProgressMetadata('d=1234'), { down: 1234n, mark: null });
    assert.deepEqual(parseProgressMetadata('d=1234;h=77'), { down: 1234n, mark: 77n });
    for (const bad of [null, undefined, '', 'd=', 'd=-1', 'x=1', 'd=1 ', 'd=12345678901234567890', 'd=1;h=']) assert.equal(parseProgressMetadata(bad), null, String(bad));
    const note = (down, mark = null) => ({ down, mark });
    assert.equal(resumeMark(10n, note(100n), 130n), 40n, 'committed at 10, 30 records written after the commit: 10..39 come again');
    assert.equal(resumeMark(10n, note(100n), 100n), null, 'committed after the last write: none');
    assert.equal(resumeMark(10n, note(100n), 40n), null, 'the remote partition is shorter (recreated): none');
    assert.equal(resumeMark(10n, null, 130n), null, 'no note (an older build): unknown, none counted');
    assert.equal(resumeMark(10n, note(100n), undefined), null, 'no remote partition');
    assert.equal(resumeMark(25n, note(160n, 40n), 160n), 40n, 'moved again inside the window: the mark the commit carried');
    assert.equal(resumeMark(25n, note(160n, 40n), 200n), 65n, 'and more written after that commit: the higher');
  });

  it('counts the records copied below the mark as duplicates; the mark goes once passed', function () {
    const s = new MirrorShare(15000);
    s.assign({ t: [0, 1] }, 0);
    s.expect('t', 0, 40n);
    const offs = (from, n) => Array.from({ length: n }, (_, i) => BigInt(from + i));
    assert.equal(s.copied('t', 0, offs(10, 20)), 20);
    assert.equal(s.markOf('t', 0), 40n, 'records below the mark still to come: carried by the commit');
    assert.equal(s.copied('t', 0, offs(30, 20)), 10);
    assert.equal(s.markOf('t', 0), null);
    assert.equal(s.copied('t', 0, offs(50, 20)), 0);
    assert.equal(s.copied('t', 1, offs(0, 5)), 0, 'nothing expected');
    s.expect('t', 1, 7n);
    s.assign({ t: [0] }, 1);
    assert.equal(s.copied('t', 1, offs(0, 5)), 0, 'revoked: forgotten');
  });
});

describe('OffsetSyncWriter.forget', function () {
  it('drops the queued syncs of a partition and its state: the next record of it is urgent again', function () {
    const sent = [];
    const w = new OffsetSyncWriter({ maxOffsetLag: 100n, maxInFlight: 1, send: (s) => { sent.push(s); return new Promise(() => undefined); } });
    assert.equal(w.maybeQueueOffsetSyncs('t', 0, 0n, 0n), true);
    w.firePendingOffsetSyncs(); // takes the only permit
    assert.equal(w.maybeQueueOffsetSyncs('t', 1, 5n, 5n), true); // pending (no permit)
    assert.equal(w.maybeQueueOffsetSyncs('t', 0, 1n, 1n), false); // delayed
    w.forget('t', 0);
    w.forget('t', 1);
    assert.deepEqual(w.pending(), []);
    assert.deepEqual(w.delayed(), []);
    assert.equal(w.partitionState('t', 0), undefined);
    assert.equal(w.maybeQueueOffsetSyncs('t', 0, 2n, 2n), true, 'the first record after forget gets a sync');
  });
});

describe('mm2-mirror status with several instances', function () {
  const t = makeTranslate(/** @type {any} */ ({ _: (/** @type {string} */ key) => key }), 'mm2-mirror');
  const input = (o) => ({ problems: [], subscribed: ['orders'], recordsPerSecond: 2, outstanding: null, fresh: true, ...o });
  it('shows the share when the group has several instances; alone, as before', function () {
    assert.deepEqual(mirrorStatus(t, input({ share: { partitions: 17, of: 50, instances: 3 } }), 0), { activity: { fill: 'green', shape: 'dot', text: 'copying 17 of 50 partitions, 3 instances, 2 rec/s' } });
    assert.deepEqual(mirrorStatus(t, input({ share: { partitions: 50, of: 50, instances: 1 } }), 0), { activity: { fill: 'green', shape: 'dot', text: 'mirroring 1 topic, 2 rec/s' } });
    assert.deepEqual(mirrorStatus(t, input({}), 0), { activity: { fill: 'green', shape: 'dot', text: 'mirroring 1 topic, 2 rec/s' } });
  });
});

describe('mirror engine: rebalances (fake clusters)', function () {
  /** A mirror of topic t (2 partitions) to src.t whose clusters answer what the test says. */
  function engine({ members = 3, committed = [], ends = new Map() } = {}) {
    const written = [];
    const events = [];
    const source = {
      admin: async () => ({
        describeGroups: async () => ({ groups: [{ groupId: 'g', members: Array.from({ length: members }, () => ({})) }] }),
        fetchOffsets: async () => [{ topic: 't', partitions: committed }],
      }),
    };
    const target = {
      admin: async () => ({ listTopics: async () => ['src.t'], fetchTopicOffsets: async () => [...ends].map(([partition, high]) => ({ partition, high: String(high) })) }),
    };
    const producer = { send: async ({ messages }) => { written.push(...messages); } };
    const m = new Mirror(/** @type {any} */ ({
      source, target, sourceAlias: 'src', targetAlias: 'tgt', policy: { formatRemoteTopic: (a, x) => `${a}.${x}` },
      offsetLagMax: 100n, groupId: 'g', sessionTimeoutMs: 30000, onEvent: (e) => events.push(e),
      offsetSyncs: { topic: 'syncs', ensure: async () => undefined, connection: { producer: async () => producer, reportError: (e) => String(e) } },
    }));
    const x = /** @type {any} */ (m);
    x.subscription = new Map([['t', 2]]);
    x.remote = new Map([['t', 'src.t']]);
    let nextBase = 1000n;
    x.out = { sending: new Map(), close: async () => undefined, produce: async (_r, _p, chunk) => { const b = nextBase; nextBase += BigInt(chunk.length); return b; } };
    const batch = (partition, from, count) => x.onBatch({
      batch: { topic: 't', partition, highWatermark: String(from + count), messages: Array.from({ length: count }, (_, i) => ({ offset: String(from + i), key: null, value: Buffer.from('v'), headers: {} })) },
      resolveOffset: () => undefined, heartbeat: async () => undefined, isRunning: () => true, isStale: () => false,
    });
    const syncs = () => written.map((w) => JSON.stringify([w.key.toString('hex'), w.value.toString('hex')]));
    return { m, x, events, written, batch, syncs };
  }

  it('after a join: the instances and share are told, and the records the target had already are counted', async function () {
    // partition 0 was committed at 10 with target offset 100 and the remote partition holds 130: 30 records came after the commit
    const { x, events, batch, written } = engine({ members: 3, committed: [{ partition: 0, offset: '10', metadata: 'd=100' }, { partition: 1, offset: '5', metadata: '' }], ends: new Map([[0, 130n], [1, 50n]]) });
    x.onAssigned({ t: [0, 1] });
    await batch(0, 10, 20);
    // committed inside the window: the commit carries the mark, so a next owner still counts 30..39
    const early = [];
    await x.commitWith({ commitOffsets: async (list) => { early.push(...list); } });
    assert.deepEqual(early.map((c) => [c.partition, c.offset, c.metadata]), [[0, '30', 'd=1020;h=40']]);
    await batch(0, 30, 20);
    await batch(1, 5, 10);
    assert.deepEqual(events.find((e) => e.type === 'share'), { type: 'share', partitions: 2, of: 2, instances: 3 });
    assert.deepEqual(events.filter((e) => e.type === 'duplicates').map((e) => [e.partition, e.records]), [[0, 20], [0, 10]]);
    const stats = x.stats();
    assert.equal(stats.duplicates, 30);
    assert.equal(stats.instances, 3);
    assert.equal(stats.ownedPartitions, 2);
    // the progress commit carries the target offset after the last record copied
    const commits = [];
    await x.commitWith({ commitOffsets: async (list) => { commits.push(...list); } });
    assert.deepEqual(commits.map((c) => [c.partition, c.offset, c.metadata]), [[0, '50', 'd=1040'], [1, '15', 'd=1050']]);
    // no sync for the copies below the mark (the previous owner's syncs map those records to their
    // first copies; a lower sync would be a rewind): partition 0's first sync is at the mark
    const { decodeOffsetSync } = require('../../dist/core/offset-sync');
    await waitFor(() => written.length >= 2, 'the first syncs');
    const first = new Map();
    for (const w of written) {
      const d = decodeOffsetSync(w.key, w.value);
      if (!first.has(d.partition)) first.set(d.partition, d);
    }
    assert.deepEqual([first.get(0).upstreamOffset, first.get(0).downstreamOffset], [40n, 1030n]);
    assert.deepEqual([first.get(1).upstreamOffset, first.get(1).downstreamOffset], [5n, 1040n]);
    await x.stop(1000);
  });

  it('a revoked partition: its queued syncs are dropped and a batch held by a rebalance writes none of it; the first record after a new assignment gets a sync', async function () {
    const { x, written, batch } = engine({ members: 2 });
    x.onAssigned({ t: [0, 1] });
    await batch(0, 0, 5);
    await batch(1, 0, 5);
    await waitFor(() => written.length >= 2, 'the first syncs of both partitions');
    const before = written.length;
    // a rebalance is announced: syncs are held ...
    x.share.rebalance();
    await batch(0, 5, 1); // not copied: the batch stops at once
    x.writer.maybeQueueOffsetSyncs('t', 0, 200n, 1200n);
    x.writer.maybeQueueOffsetSyncs('t', 1, 200n, 1201n);
    x.writer.firePendingOffsetSyncs();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(written.length, before, 'nothing written while the rebalance goes on');
    // ... and the new assignment moved partition 0 away: only partition 1's sync is written
    x.onAssigned({ t: [1] });
    await waitFor(() => written.length > before, 'the held sync of the partition still owned');
    await new Promise((r) => setTimeout(r, 100));
    const { decodeOffsetSync } = require('../../dist/core/offset-sync');
    const after = written.slice(before).map((w) => decodeOffsetSync(w.key, w.value));
    assert.deepEqual(after.map((s) => [s.partition, s.upstreamOffset]), [[1, 200n]], 'no sync of the revoked partition');
    // partition 0 comes back: its first record gets a sync at once (fresh state), even one record after the last
    x.onAssigned({ t: [0, 1] });
    const n = written.length;
    await batch(0, 201, 1);
    await waitFor(() => written.length > n, 'the first sync after the assignment');
    assert.deepEqual(decodeOffsetSync(written[n].key, written[n].value).upstreamOffset, 201n);
    await x.stop(1000);
  });

  it('an instance paused past the bound (no heartbeat answered) writes no sync until the group took it back', async function () {
    const { x, written, batch } = engine({ members: 2 });
    x.onAssigned({ t: [0, 1] });
    await batch(0, 0, 1);
    await waitFor(() => written.length === 1, 'the first sync');
    x.share.lastAlive = Date.now() - 20000; // woke after 20 s without a heartbeat (half the session timeout is 15 s)
    await batch(0, 1, 150); // copied from the batch in hand; its syncs wait
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(written.length, 1, 'no sync written by a member that may have been evicted');
    x.onAssigned({ t: [1] }); // the group took it back without partition 0
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(written.length, 1, 'the held syncs were of a partition that moved: dropped');
    await x.stop(1000);
  });
});
