'use strict';

const assert = require('node:assert/strict');
const { checkpointsForGroup } = require('../../dist/core/checkpoints-for-group');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
const { CheckpointStore } = require('../../dist/core/checkpoint-store');

/** A tiny DefaultReplicationPolicy look-alike with separator '.'. */
const { policy } = require('./helpers/translation-fixtures');
/** An identity-like policy: names unchanged. */
const identityPolicy = {
  formatRemoteTopic: (_alias, t) => t,
  topicSource: () => 'source1',
  originalTopic: (t) => t,
};
const acceptAll = { accept: () => true };

function sync(topic, partition, u, d) {
  return { topic, partition, upstreamOffset: BigInt(u), downstreamOffset: BigInt(d) };
}

/**
 * MM2's answers (these tests are MirrorCheckpointTaskTest's): the store in mm2 mode unless asked.
 * @param {'precise' | 'mm2'} [translation]
 */
function liveStore(syncs = [], translation = 'mm2') {
  const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation });
  store.markLoaded();
  for (const s of syncs) store.apply(s);
  return store;
}

function loadedCheckpoints(records = []) {
  const cps = new CheckpointStore();
  for (const r of records) cps.loadRecord(r);
  cps.markLoaded(true);
  return cps;
}

/**
 * A committed offset; without `metadata` the field is left out (a caller's object without it is
 * still read as "", though the type, core/types CommittedOffset, always has it).
 * @returns {import('../../dist/core/types').CommittedOffset}
 */
function offset(topic, partition, o, metadata) {
  return /** @type {any} */ ({ topic, partition, offset: o === null ? null : BigInt(o), ...(metadata === undefined ? {} : { metadata }) });
}

function run(group, offsets, store, checkpoints, extra = {}) {
  return checkpointsForGroup({
    group,
    offsets,
    topicFilter: acceptAll,
    store,
    checkpoints,
    policy,
    sourceAlias: 'source1',
    targetAlias: 'target2',
    ...extra,
  });
}

function cp(group, topic, partition, up, down, metadata = '') {
  return { group, topic, partition, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down), metadata };
}

describe('checkpointsForGroup (MirrorCheckpointTask.poll step 3, MirrorCheckpointTaskTest)', function () {
  describe('upstream MirrorCheckpointTaskTest', function () {
    let store;
    beforeEach(function () {
      store = liveStore([sync('topic1', 2, 3, 4), sync('target2.topic5', 6, 7, 8)]);
    });

    it('translates past a sync to downstream + 1 and renames with the source alias', function () {
      const r = run('group9', [offset('topic1', 2, 10, 'meta-9')], store, loadedCheckpoints());
      assert.deepEqual(r.checkpoints, [cp('group9', 'source1.topic1', 2, 10, 5, 'meta-9')]);
      assert.equal(r.coverage[0].status, 'emitted');
      assert.equal(r.coverage[0].remoteTopic, 'source1.topic1');
      assert.equal(r.coverage[0].downstreamOffset, 5n);
    });

    it('maps a topic that came from the target back to its original name', function () {
      const r = run('group11', [offset('target2.topic5', 6, 12)], store, loadedCheckpoints());
      assert.deepEqual(r.checkpoints, [cp('group11', 'topic5', 6, 12, 9)]);
    });

    it('gives the synced downstream offset for an exact match', function () {
      const r = run('group13', [offset('target2.topic5', 6, 7)], store, loadedCheckpoints());
      assert.deepEqual(r.checkpoints, [cp('group13', 'topic5', 6, 7, 8)]);
      assert.match(r.coverage[0].reason, /exactly the synced record 7->8/);
    });

    it('produces nothing for a partition without syncs or without a committed offset', function () {
      const r = run('g', [offset('topic1', 1, 10), offset('topic1', 2, null)], store, loadedCheckpoints());
      assert.deepEqual(r.checkpoints, []);
      assert.deepEqual(
        r.coverage.map((c) => c.status),
        ['no-sync', 'no-committed-offset'],
      );
    });

    it('emits monotonic checkpoints, except after an upstream rewind', function () {
      const s = liveStore([sync('t', 0, 11, 4), sync('t', 0, 12, 5)]);
      const cps = loadedCheckpoints();
      const first = run('g', [offset('t', 0, 13)], s, cps);
      assert.deepEqual(first.checkpoints, [cp('g', 'source1.t', 0, 13, 6)]);
      assert.deepEqual(cps.get('g'), [cp('g', 'source1.t', 0, 13, 6)], 'stored before the caller writes it');
      for (let u = 13; u <= 17; u++) s.apply(sync('t', 0, u, u - 7));
      assert.equal(s.translate('t', 0, 13n), 5n);
      const second = run('g', [offset('t', 0, 13)], s, cps);
      assert.deepEqual(second.checkpoints, []);
      assert.equal(second.coverage[0].status, 'unchanged');
      assert.equal(second.coverage[0].downstreamOffset, 5n);
      assert.deepEqual(second.coverage[0].previous, cp('g', 'source1.t', 0, 13, 6));
      assert.match(second.coverage[0].reason, /behind the last checkpoint 6 and the group did not rewind/);
      const rewound = run('g', [offset('t', 0, 12)], s, cps);
      assert.deepEqual(rewound.checkpoints, [cp('g', 'source1.t', 0, 12, 5)]);
      assert.deepEqual(cps.get('g'), [cp('g', 'source1.t', 0, 12, 5)]);
    });

    it('precise mode: the same group keeps the sync MM2 evicts, so its translation stays at the checkpoint instead of falling behind it', function () {
      const s = liveStore([sync('t', 0, 11, 4), sync('t', 0, 12, 5)], 'precise');
      const cps = loadedCheckpoints();
      assert.deepEqual(run('g', [offset('t', 0, 13)], s, cps).checkpoints, [cp('g', 'source1.t', 0, 13, 6)]);
      for (let u = 13; u <= 17; u++) s.apply(sync('t', 0, u, u - 7));
      assert.equal(s.translate('t', 0, 13n), 5n, "MM2's slots no longer hold 13");
      const second = run('g', [offset('t', 0, 13)], s, cps);
      assert.equal(second.coverage[0].status, 'unchanged');
      assert.equal(second.coverage[0].downstreamOffset, 6n, 'exactly the synced record 13 -> 6, kept for the group');
      assert.match(second.coverage[0].reason, /unchanged: downstream offset 6 was already checkpointed \(upstream 13 is exactly the synced record 13->6\)/);
    });

    it('uses restored checkpoints after a restart (CheckpointStore, KAFKA-15905 example)', function () {
      // before the restart: syncs 100, 200, 300; the group at 250 gives 250 -> 201
      const before = liveStore([100, 200, 300].map((u) => sync('t', 0, u, u)));
      const first = run('g', [offset('t', 0, 250)], before, loadedCheckpoints());
      assert.deepEqual(first.checkpoints, [cp('g', 'source1.t', 0, 250, 201)]);
      // restart: the checkpoint is restored, so the sync store keeps the history of its initial load
      const restored = loadedCheckpoints(first.checkpoints);
      const after = new OffsetSyncStore({ keepHistoryOnLoad: restored.loadedOk, translation: 'mm2' });
      for (const u of [175, 275, 375, 475]) after.apply(sync('t', 0, u, u));
      after.markLoaded();
      for (const g of [250, 370]) {
        const r = run('g', [offset('t', 0, g)], after, restored);
        assert.deepEqual(r.checkpoints, [], `group at ${g}`);
        assert.equal(r.coverage[0].downstreamOffset, 176n);
        assert.equal(r.coverage[0].status, 'unchanged');
      }
      const r = run('g', [offset('t', 0, 400)], after, restored);
      assert.deepEqual(r.checkpoints, [cp('g', 'source1.t', 0, 400, 376)]);
    });

    it('produces nothing until the checkpoint store has been restored', function () {
      const cps = new CheckpointStore();
      const r = run('group9', [offset('topic1', 2, 10)], store, cps);
      assert.deepEqual(r.checkpoints, []);
      assert.equal(r.coverage[0].status, 'store-loading');
      assert.match(r.coverage[0].reason, /previous checkpoints are still being restored/);
      assert.deepEqual(cps.groups(), []);
      cps.markLoaded(true);
      assert.deepEqual(run('group9', [offset('topic1', 2, 10)], store, cps).checkpoints, [
        cp('group9', 'source1.topic1', 2, 10, 5),
      ]);
    });
  });

  describe('coverage report', function () {
    it('gives one entry per input partition, sorted by topic then partition whatever the input order, with a status and a reason', function () {
      const store = liveStore([sync('a', 0, 100, 1000), sync('b', 0, 50, 60), sync('c', 0, 10, 20)]);
      const cps = loadedCheckpoints([cp('g', 'source1.c', 0, 10, 20)]);
      const r = checkpointsForGroup({
        group: 'g',
        offsets: [
          offset('x.internal', 0, 5),
          offset('a', 2, -1),
          offset('nosync', 0, 5),
          offset('a', 0, 150, 'm'),
          offset('c', 0, 10),
          offset('b', 0, 10),
          offset('a', 1, null),
        ],
        topicFilter: { accept: (t) => !t.endsWith('.internal') },
        store,
        checkpoints: cps,
        policy,
        sourceAlias: 'source1',
        targetAlias: 'target2',
      });
      assert.deepEqual(r.checkpoints, [cp('g', 'source1.a', 0, 150, 1001, 'm')]);
      assert.deepEqual(
        r.coverage.map((c) => [c.topic, c.partition, c.remoteTopic, c.upstreamOffset, c.status, c.downstreamOffset]),
        [
          ['a', 0, 'source1.a', 150n, 'emitted', 1001n],
          ['a', 1, 'source1.a', null, 'no-committed-offset', undefined],
          ['a', 2, 'source1.a', null, 'no-committed-offset', undefined],
          ['b', 0, 'source1.b', 10n, 'older-than-oldest-sync', undefined],
          ['c', 0, 'source1.c', 10n, 'unchanged', 20n],
          ['nosync', 0, 'source1.nosync', 5n, 'no-sync', undefined],
          ['x.internal', 0, null, 5n, 'topic-not-replicated', undefined],
        ],
      );
      const reasons = r.coverage.map((c) => c.reason);
      // one byte per character in V8 (a reason is kept per group partition): Latin-1 only
      for (const why of reasons) assert.match(why, /^[\x20-\xff]+$/, why);
      assert.equal(reasons[0], 'checkpoint 150 -> 1001: the group is past the synced record 100->1000, so it resumes right after it');
      assert.equal(reasons[6], 'topic is not replicated: the topic filter (topics / topics.exclude) rejects it');
      assert.equal(reasons[1], 'the group has no committed offset for this partition');
      assert.equal(
        reasons[5],
        'no offset sync for this partition yet: no record of it has been mirrored since the sync history began',
      );
      assert.equal(
        reasons[3],
        "the group's offset 10 is older than the oldest retained offset sync (upstream 50); translating it could skip " +
          'records, so it is checkpointed once the group reaches offset 50',
      );
      assert.deepEqual(r.coverage[3].sync, sync('b', 0, 50, 60));
      assert.match(reasons[4], /^unchanged: downstream offset 20 was already checkpointed/);
      assert.deepEqual(r.coverage[0].sync, sync('a', 0, 100, 1000));
    });

    it('reports store-loading while the offset-sync store reads to the end', function () {
      const store = new OffsetSyncStore({ keepHistoryOnLoad: false, translation: 'mm2' });
      store.apply(sync('a', 0, 1, 1));
      const r = run('g', [offset('a', 0, 5)], store, loadedCheckpoints());
      assert.deepEqual(r.checkpoints, []);
      assert.equal(r.coverage[0].status, 'store-loading');
      assert.match(r.coverage[0].reason, /offset-sync history is still being read/);
    });

    it('keeps the later of two source partitions that rename to the same remote partition', function () {
      const store = liveStore([sync('t', 0, 1, 10), sync('u.t', 0, 1, 20)]);
      const r = checkpointsForGroup({
        group: 'g',
        offsets: [offset('t', 0, 1), offset('u.t', 0, 1)],
        topicFilter: acceptAll,
        store,
        checkpoints: loadedCheckpoints(),
        policy: { ...identityPolicy, formatRemoteTopic: () => 'same' },
        sourceAlias: 'source1',
        targetAlias: 'target2',
      });
      assert.deepEqual(r.checkpoints, [cp('g', 'same', 0, 1, 20)]);
      assert.deepEqual(r.coverage.map((c) => c.status), ['duplicate-remote-partition', 'emitted']);
      assert.match(r.coverage[0].reason, /source partition u\.t-0 also maps to same-0/);
    });

    it('dryRun computes the same result without recording it', function () {
      const store = liveStore([sync('t', 0, 5, 5)]);
      const cps = loadedCheckpoints();
      const dry = run('g', [offset('t', 0, 5)], store, cps, { dryRun: true });
      assert.deepEqual(dry.checkpoints, [cp('g', 'source1.t', 0, 5, 5)]);
      assert.equal(cps.hasGroup('g'), false);
      const real = run('g', [offset('t', 0, 5)], store, cps);
      assert.deepEqual(real.checkpoints, dry.checkpoints);
      assert.deepEqual(cps.get('g'), dry.checkpoints);
      assert.deepEqual(run('g', [offset('t', 0, 5)], store, cps).checkpoints, [], 'unchanged on the next cycle');
    });

    it('defaults missing metadata to the empty string', function () {
      const store = liveStore([sync('t', 0, 5, 5)]);
      const r = run('g', [{ topic: 't', partition: 0, offset: 6n, metadata: null }], store, loadedCheckpoints());
      assert.equal(r.checkpoints[0].metadata, '');
    });
  });

  describe('rewinds of the group on the source (issue 26)', function () {
    it('marks the checkpoint after an upstream rewind with the upstream offset it rewound from', function () {
      const s = liveStore([sync('t', 0, 10, 110), sync('t', 0, 50, 150)], 'precise');
      const cps = loadedCheckpoints([cp('g', 'source1.t', 0, 60, 151)]);
      const r = run('g', [offset('t', 0, 10)], s, cps);
      assert.deepEqual(r.checkpoints, [cp('g', 'source1.t', 0, 10, 110)]);
      assert.equal(r.coverage[0].status, 'emitted');
      assert.equal(r.coverage[0].rewoundFrom, 60n);
      assert.match(r.coverage[0].reason, /after a rewind of the group from upstream 60/);
      const forward = run('g', [offset('t', 0, 50)], s, cps);
      assert.equal(forward.coverage[0].status, 'emitted');
      assert.equal(forward.coverage[0].rewoundFrom, undefined, 'moving forward again is no rewind');
    });

    it('a rewind below every offset sync is checkpointed at the remote partition log start, not left at the stale checkpoint', function () {
      const s = liveStore([sync('t', 0, 100, 1000), sync('t', 0, 200, 1100)], 'precise');
      const cps = loadedCheckpoints([cp('g', 'source1.t', 0, 250, 1101)]);
      const asked = [];
      const r = run('g', [offset('t', 0, 40, 'm')], s, cps, {
        remoteLogStart: (topic, partition) => {
          asked.push([topic, partition]);
          return 900n;
        },
      });
      assert.deepEqual(asked, [['source1.t', 0]]);
      assert.deepEqual(r.checkpoints, [cp('g', 'source1.t', 0, 40, 900, 'm')]);
      assert.equal(r.coverage[0].status, 'rewound-to-start');
      assert.equal(r.coverage[0].downstreamOffset, 900n);
      assert.deepEqual(r.coverage[0].previous, cp('g', 'source1.t', 0, 250, 1101));
      assert.match(r.coverage[0].reason, /rewound from upstream 250 to 40, below the oldest retained offset sync \(upstream 100\).*checkpoint 40 -> 900, the start of source1\.t-0/);
      assert.deepEqual(cps.get('g'), [cp('g', 'source1.t', 0, 40, 900, 'm')], 'the stale checkpoint is replaced');
      // once: the same position again is no new rewind (the last checkpoint is now upstream 40)
      const again = run('g', [offset('t', 0, 40, 'm')], s, cps, { remoteLogStart: () => 900n });
      assert.deepEqual(again.checkpoints, []);
      assert.equal(again.coverage[0].status, 'older-than-oldest-sync');
    });

    it('without the log start known, produces nothing and says so (the stale checkpoint is not re-emitted either)', function () {
      const s = liveStore([sync('t', 0, 100, 1000)], 'precise');
      const cps = loadedCheckpoints([cp('g', 'source1.t', 0, 250, 1101)]);
      const r = run('g', [offset('t', 0, 40)], s, cps, { remoteLogStart: () => undefined });
      assert.deepEqual(r.checkpoints, []);
      assert.equal(r.coverage[0].status, 'rewound-below-syncs');
      assert.match(r.coverage[0].reason, /log start of source1\.t-0 on the target is not known yet/);
    });

    it("without remoteLogStart (mm2 mode) keeps MM2's answer: older than the oldest sync, the last checkpoint stands", function () {
      const s = liveStore([sync('t', 0, 100, 1000)]);
      const cps = loadedCheckpoints([cp('g', 'source1.t', 0, 250, 1101)]);
      const r = run('g', [offset('t', 0, 40)], s, cps);
      assert.deepEqual(r.checkpoints, []);
      assert.equal(r.coverage[0].status, 'older-than-oldest-sync');
      assert.deepEqual(cps.get('g'), [cp('g', 'source1.t', 0, 250, 1101)]);
    });

    it('a position older than every sync that is not a rewind stays older-than-oldest-sync (the log start is not asked)', function () {
      const s = liveStore([sync('t', 0, 100, 1000)], 'precise');
      const cps = loadedCheckpoints([cp('g', 'source1.t', 0, 20, 1000)]);
      const r = run('g', [offset('t', 0, 40), offset('t', 1, 5)], s, cps, {
        remoteLogStart: () => {
          throw new Error('not asked');
        },
      });
      assert.deepEqual(r.coverage.map((c) => c.status), ['older-than-oldest-sync', 'no-sync']);
    });
  });
});
