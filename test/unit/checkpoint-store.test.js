'use strict';

const assert = require('node:assert/strict');
const { CheckpointStore, isMoreRecent } = require('../../dist/core/checkpoint-store');

function cp(group, topic, partition, up, down, metadata = '') {
  return { group, topic, partition, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down), metadata };
}

describe('CheckpointStore (CheckpointStore, KAFKA-15905, CheckpointStoreTest)', function () {
  it('keeps every int64 offset and listing time exactly (the compact columns: a downstream far below or above its upstream, times far apart)', function () {
    const store = new CheckpointStore();
    const max = (1n << 63n) - 1n;
    const min = -(1n << 63n);
    const cases = [
      [0n, 0n], [2n ** 53n + 1n, 2n ** 53n + 1n], [2n ** 53n + 1n, 5n], [max, max], [max, -1n], [-1n, max], [min, max], [max, min],
      [-1n, -1n], [10n, 10n - 2147483647n], [10n, 10n - 2147483648n], [10n, 10n + 2147483647n], [10n, 10n + 2147483648n],
    ];
    const times = [1700000000000, undefined, 1700000000000 + 2147483647, 1700000000000 - 2147483646, 1700000000000 - 2147483647, 1e15, 0.5, 1700000000001, 5, 1700000000000 + 2147483648, -1, 7, 8];
    cases.forEach(([up, down], p) => {
      store.update('g', [cp('g', 't', p, up, down, p % 2 ? 'm' : '')], times[p]);
    });
    store.markLoaded(true);
    const got = store.get('g');
    cases.forEach(([up, down], p) => {
      const want = cp('g', 't', p, up, down, p % 2 ? 'm' : '');
      assert.deepEqual(got[p], want, `partition ${p}`);
      assert.deepEqual(store.getPartition('g', 't', p), want);
      const t = times[p];
      assert.equal(store.listedAtOf(want), t === undefined || t < 0 ? undefined : t, `listing time of partition ${p}`);
    });
    // a row escaped once and then back in range (and the reverse) answers the new value
    store.update('g', [cp('g', 't', 0, max, -1n)], 3);
    store.update('g', [cp('g', 't', 3, 5n, 4n)], 1700000000002);
    assert.deepEqual(store.getPartition('g', 't', 0), cp('g', 't', 0, max, -1n));
    assert.deepEqual(store.getPartition('g', 't', 3), cp('g', 't', 3, 5n, 4n));
    assert.equal(store.listedAtOf(cp('g', 't', 0, max, -1n)), 3);
    assert.equal(store.listedAtOf(cp('g', 't', 3, 5n, 4n)), 1700000000002);
    assert.equal(store.isMoreRecent(cp('g', 't', 7, max, min)), false, 'the same downstream, far below: a repeat');
    assert.equal(store.isMoreRecent(cp('g', 't', 7, max, min + 1n)), true, 'downstream one further');
  });

  it('answers as a map model does through random updates with offsets over the whole int64 range (upstream distances from the first of each partition, escaped exactly)', function () {
    let seed = 29;
    const rnd = (n) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    const store = new CheckpointStore();
    store.markLoaded(true);
    const model = new Map(); // `${group}|${partition}` -> checkpoint
    const times = new Map(); // `${group}|${partition}` -> listing time
    const near = [0n, 9n, -1n, 2n ** 31n, 2n ** 53n + 1n, (1n << 63n) - 1n, -(1n << 63n), 6000000000n];
    const offset = () => {
      const o = near[rnd(near.length)] + BigInt(rnd(5)) - 2n;
      return BigInt.asIntN(64, o) === o ? o : near[rnd(2)];
    };
    for (let step = 0; step < 5000; step++) {
      const group = 'g' + rnd(30);
      const partition = rnd(4);
      const up = offset();
      const down = rnd(3) === 0 ? up : offset();
      const c = cp(group, 't', partition, up, down, rnd(5) === 0 ? 'm' : '');
      const last = model.get(`${group}|${partition}`);
      const hasGroup = [...model.keys()].some((k) => k.startsWith(group + '|'));
      assert.equal(store.isMoreRecent(c), isMoreRecent(last, hasGroup, c), `step ${step}`);
      const at = [undefined, -1, 0, 1700000000000 + rnd(40), 2 ** 53 - 1, 0.5][rnd(6)];
      store.update(group, [c], at);
      model.set(`${group}|${partition}`, c);
      times.set(`${group}|${partition}`, at === undefined || at < 0 ? undefined : at);
      if (step % 101 !== 0) continue;
      for (const [k, want] of model) {
        const [g, p] = k.split('|');
        assert.deepEqual(store.getPartition(g, 't', Number(p)), want, `${k} at step ${step}`);
        assert.equal(store.listedAtOf(want), times.get(k), `listing time of ${k} at step ${step}`);
      }
    }
  });

  it('widens its 16-bit columns past 65,536 remote partitions and 65,535 listing times held, every value kept', function () {
    this.timeout(30000);
    const store = new CheckpointStore();
    store.markLoaded(true);
    store.update('a', [cp('a', 'x', 0, 5, 4)], 1000);
    for (let p = 0; p < 70000; p++) store.update(`g${p % 9}`, [cp(`g${p % 9}`, 't', p, p, p - 1)], 2000 + p);
    store.update('a', [cp('a', 'x', 1, -1, -1)], 1000); // a time held by two rows
    for (let p = 0; p < 70000; p += 997) {
      const want = cp(`g${p % 9}`, 't', p, p, p - 1);
      assert.deepEqual(store.getPartition(`g${p % 9}`, 't', p), want);
      assert.equal(store.listedAtOf(want), 2000 + p);
    }
    assert.equal(store.listedAtOf(cp('a', 'x', 0, 5, 4)), 1000);
    // times let go are reused: every row moved to one time, then to distinct new ones again
    for (let p = 0; p < 70000; p++) store.update(`g${p % 9}`, [cp(`g${p % 9}`, 't', p, p, p)], 7);
    for (let p = 0; p < 70000; p += 1009) assert.equal(store.listedAtOf(cp(`g${p % 9}`, 't', p, p, p)), 7);
    store.update('a', [cp('a', 'x', 0, 6, 6)]);
    assert.equal(store.listedAtOf(cp('a', 'x', 0, 6, 6)), undefined);
    assert.equal(store.listedAtOf(cp('a', 'x', 1, -1, -1)), 1000);
  });

  it('restores in log order for the assigned groups only, skipping malformed records (upstream CheckpointStoreTest)', function () {
    const store = new CheckpointStore({ acceptGroup: (g) => g === 'group1' });
    assert.equal(store.loaded, false);
    assert.equal(store.loadedOk, undefined);
    // null stands for a record the decoder rejected (MalformedRecordError): the reader skips it
    const log = [cp('group1', 't1', 0, 0, 0), cp('group2', 't1', 0, 0, 0), null, cp('group1', 't1', 0, 1, 1)];
    const kept = log.map((record) => (record === null ? 'skipped' : store.loadRecord(record)));
    assert.deepEqual(kept, [true, false, 'skipped', true]);
    store.markLoaded(true);
    assert.equal(store.loaded, true);
    assert.equal(store.loadedOk, true);
    assert.deepEqual(store.groups(), ['group1']);
    assert.deepEqual(store.get('group1'), [cp('group1', 't1', 0, 1, 1, '')]);
    assert.equal(store.get('group2'), undefined);
  });

  it('clears everything when the restore fails after a good record, and still counts as loaded', function () {
    const store = new CheckpointStore();
    store.loadRecord(cp('group1', 't1', 0, 0, 0));
    assert.deepEqual(store.groups(), ['group1']);
    store.markLoaded(false);
    assert.equal(store.loaded, true);
    assert.equal(store.loadedOk, false);
    assert.deepEqual(store.groups(), []);
    assert.equal(store.get('group1'), undefined);
    assert.equal(store.isMoreRecent(cp('group1', 't1', 0, 0, 0)), true);
  });

  it('keeps the last record of the log, not the largest one', function () {
    const store = new CheckpointStore();
    store.loadRecord(cp('g', 't', 0, 500, 400));
    store.loadRecord(cp('g', 't', 0, 300, 200));
    store.markLoaded(true);
    assert.deepEqual(store.getPartition('g', 't', 0), cp('g', 't', 0, 300, 200));
  });

  it('accepts every group by default and refuses records after the load ended', function () {
    const store = new CheckpointStore();
    assert.equal(store.loadRecord(cp('any', 't', 0, 1, 1)), true);
    store.markLoaded(true);
    assert.throws(() => store.loadRecord(cp('any', 't', 0, 2, 2)), /after markLoaded/);
  });

  it('update() merges per remote partition and keeps other partitions', function () {
    const store = new CheckpointStore();
    store.markLoaded(true);
    store.update('g', [cp('g', 'a', 0, 10, 5), cp('g', 'a', 1, 20, 15)]);
    store.update('g', [cp('g', 'a', 0, 12, 7, 'm')]);
    assert.deepEqual(store.get('g'), [cp('g', 'a', 0, 12, 7, 'm'), cp('g', 'a', 1, 20, 15)]);
    assert.equal(store.hasGroup('g'), true);
  });

  it('update() with no checkpoints creates no group entry', function () {
    const store = new CheckpointStore();
    store.markLoaded(true);
    store.update('g', []);
    assert.equal(store.hasGroup('g'), false);
    assert.deepEqual(store.groups(), []);
  });

  it('update() refuses a checkpoint of another group', function () {
    const store = new CheckpointStore();
    assert.throws(() => store.update('g', [cp('h', 'a', 0, 1, 1)]), /group 'h' passed for group 'g'/);
  });

  it('stores copies: changing the caller object afterwards has no effect', function () {
    const store = new CheckpointStore();
    const c = cp('g', 'a', 0, 1, 1);
    store.loadRecord(c);
    c.downstreamOffset = 99n;
    assert.equal(store.getPartition('g', 'a', 0).downstreamOffset, 1n);
  });

  describe('isMoreRecent (MirrorCheckpointTask.poll table)', function () {
    const last = cp('g', 't', 0, 100, 50);

    it('pure function: every row of the table, in order', function () {
      assert.equal(isMoreRecent(undefined, false, cp('g', 't', 0, 0, 0)), true, 'no checkpoints for the group');
      assert.equal(isMoreRecent(last, false, cp('g', 't', 0, 0, 0)), true, 'hasGroup false wins');
      assert.equal(isMoreRecent(undefined, true, cp('g', 't', 0, 0, 0)), true, 'none for this partition');
      assert.equal(isMoreRecent(last, true, cp('g', 't', 0, 99, 10)), true, 'upstream rewind: emit even going back');
      assert.equal(isMoreRecent(last, true, cp('g', 't', 0, 99, 50)), true, 'upstream rewind with equal downstream');
      assert.equal(isMoreRecent(last, true, cp('g', 't', 0, 100, 51)), true, 'downstream advanced');
      assert.equal(isMoreRecent(last, true, cp('g', 't', 0, 150, 51)), true, 'both advanced');
      assert.equal(isMoreRecent(last, true, cp('g', 't', 0, 100, 50)), false, 'a repeat');
      assert.equal(isMoreRecent(last, true, cp('g', 't', 0, 150, 50)), false, 'upstream advanced, translation did not');
      assert.equal(isMoreRecent(last, true, cp('g', 't', 0, 150, 49)), false, 'downstream back without a rewind');
    });

    it('store method: looks up the group and the remote partition', function () {
      const store = new CheckpointStore();
      store.loadRecord(last);
      store.markLoaded(true);
      assert.equal(store.isMoreRecent(cp('other', 't', 0, 0, 0)), true, 'other group');
      assert.equal(store.isMoreRecent(cp('g', 't', 1, 0, 0)), true, 'other partition');
      assert.equal(store.isMoreRecent(cp('g', 'u', 0, 0, 0)), true, 'other topic');
      assert.equal(store.isMoreRecent(cp('g', 't', 0, 100, 50)), false);
      assert.equal(store.isMoreRecent(cp('g', 't', 0, 100, 51)), true);
      assert.equal(store.isMoreRecent(cp('g', 't', 0, 50, 1)), true);
    });
  });
});

describe('CheckpointStore: compact rows per group (issue 24 step g)', function () {
  for (const parts of [3, 200]) {
    it(`${parts} partitions: first-seen order, a list handed out never changes, a version per group, the listing time of the latest checkpoint only`, function () {
      const store = new CheckpointStore();
      store.markLoaded(true);
      const order = Array.from({ length: parts }, (_, i) => (i * 7) % parts);
      for (const p of order) store.update('g', [cp('g', p % 2 ? 't.a' : 't.b', p, 10, 100)], 1000 + p);
      const first = store.get('g');
      assert.ok(Object.isFrozen(first));
      const v = store.versionOf('g');
      assert.deepEqual(store.get('g'), first, 'the same checkpoints while nothing changes');
      assert.equal(store.versionOf('g'), v, 'the same version while nothing changes');
      assert.equal(store.sizeOf('g'), parts);
      assert.deepEqual(first.map((c) => c.partition), order);
      for (const p of order) {
        const c = store.getPartition('g', p % 2 ? 't.a' : 't.b', p);
        assert.equal(c.partition, p);
        assert.equal(store.listedAtOf(c), 1000 + p);
        assert.equal(store.getPartition('g', p % 2 ? 't.b' : 't.a', p), undefined, 'another topic');
      }
      const old = store.getPartition('g', 't.b', 0);
      store.update('g', [cp('g', 't.b', 0, 20, 200)]);
      assert.deepEqual(first.map((c) => c.partition), order, 'the list handed out is as it was');
      assert.deepEqual(first[0], old);
      const second = store.get('g');
      assert.notEqual(store.versionOf('g'), v, 'a new version');
      assert.equal(second.length, parts);
      assert.equal(second[0].downstreamOffset, 200n);
      assert.equal(store.listedAtOf(second[0]), undefined, 'stored without a listing time');
      assert.equal(store.listedAtOf(old), undefined, 'no longer the latest');
      assert.equal(store.isMoreRecent(cp('g', 't.b', 0, 20, 200)), false);
      assert.equal(store.isMoreRecent(cp('g', 't.b', 0, 19, 150)), true, 'a rewind');
      store.update('g', [cp('g', 't.c', 0, 1, 1)], 5);
      assert.equal(store.get('g').length, parts + 1);
      assert.equal(store.listedAtOf(store.getPartition('g', 't.c', 0)), 5);
    });
  }
});
