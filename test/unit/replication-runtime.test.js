'use strict';
/** engines/replication-runtime: the checkpoint emitters' stores held once, read in place, with what their readers hear. */
const assert = require('node:assert/strict');
const { ReplicationRuntime } = require('../../dist/engines/replication-runtime');

const cp = (group, partition, up, down = up) => ({ group, topic: 'source.t', partition, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down), metadata: '' });

function listen(rt) {
  const heard = [];
  rt.subscribe({
    put: (prev, next) => heard.push(['put', next.group, prev ? Number(prev.upstreamOffset) : null, Number(next.upstreamOffset)]),
    reloaded: () => heard.push(['reloaded', rt.restoredAll]),
    changed: (groups) => heard.push(['changed', [...groups].sort()]),
  });
  return heard;
}

describe('engines/replication-runtime', function () {
  it('a reader hears the restore in log order, then the restore, the selection and each cycle\'s changed groups', function () {
    const rt = new ReplicationRuntime();
    const heard = listen(rt);
    let selected = null;
    const store = rt.open({ selected: () => selected }, () => true);
    assert.equal(rt.hasEmitter, true);
    store.loadRecord(cp('a', 0, 10));
    store.loadRecord(cp('a', 0, 4)); // rewound on the source before the restart
    store.markLoaded(true);
    rt.restored(store);
    assert.equal(rt.restoredAll, false, 'not before the emitter selected its groups');
    selected = ['a', 'b'];
    rt.selected(store);
    assert.equal(rt.restoredAll, true);
    store.update('b', [cp('b', 0, 7)]);
    rt.cycled();
    rt.cycled(); // nothing changed since: nothing heard
    assert.deepEqual(heard, [
      ['reloaded', false],
      ['put', 'a', null, 10],
      ['put', 'a', 10, 4],
      ['reloaded', false],
      ['reloaded', true],
      ['put', 'b', null, 7],
      ['changed', ['b']],
    ]);
    // the rewind the order showed is kept for a writer that starts later
    const marks = [...rt.rewinds.rewinds()];
    assert.equal(marks.length, 1);
    assert.equal(marks[0].group, 'a');
    assert.equal(marks[0].mark.fromUpstream, 10n);
  });

  it('reads in place: the groups the emitter selects that have checkpoints, as its store holds them', function () {
    const rt = new ReplicationRuntime();
    const store = rt.open({ selected: () => ['a', 'c'] }, () => true);
    store.loadRecord(cp('a', 0, 1));
    store.loadRecord(cp('b', 0, 1)); // restored, no longer selected
    store.markLoaded(true);
    assert.deepEqual([...rt.groups()], [], 'nothing before the restore ended');
    rt.restored(store);
    assert.deepEqual([...rt.groups()], ['a']);
    assert.deepEqual(rt.get('a'), store.get('a'), 'what the store holds');
    assert.equal(rt.hasGroup('b'), true, 'a restored group is readable (its checkpoint is real), only not listed');
    assert.equal(rt.get('c'), undefined);
  });

  it('two emitters of one replication: their groups together; one closing takes its store away; a failed restore forgets the marks', function () {
    const rt = new ReplicationRuntime();
    const heard = listen(rt);
    const s1 = rt.open({ selected: () => ['a'] }, () => true);
    const s2 = rt.open({ selected: () => ['b'] }, () => true);
    s1.loadRecord(cp('a', 0, 5));
    s1.loadRecord(cp('a', 0, 2));
    s1.markLoaded(true);
    rt.restored(s1);
    s2.loadRecord(cp('b', 0, 3));
    s2.markLoaded(true);
    rt.restored(s2);
    assert.deepEqual([...rt.groups()].sort(), ['a', 'b']);
    rt.close(s2);
    assert.deepEqual([...rt.groups()], ['a']);
    assert.equal(heard.filter((h) => h[0] === 'reloaded').length, 5, 'two opens, two restores, one close');
    // a store opened again after a failed read (the emitter tries again): the old one goes
    const s3 = rt.open({ selected: () => ['a'] }, () => true, s1);
    s3.markLoaded(false);
    rt.restored(s3);
    assert.deepEqual([...rt.rewinds.rewinds()], []);
    assert.deepEqual([...rt.groups()], []);
    rt.close(s3);
    assert.equal(rt.hasEmitter, false);
    assert.equal(rt.restoredAll, false);
  });

  describe('rewind marks kept for a writer that starts later', function () {
    function restoredWithRewind(rt, group, selected) {
      const store = rt.open({ selected: () => selected }, () => true);
      store.loadRecord(cp(group, 0, 10));
      store.loadRecord(cp(group, 0, 4));
      store.markLoaded(true);
      rt.restored(store);
      return store;
    }

    it('a mark a writer acted on is dropped: a writer started later (a redeploy) does not follow the same rewind again', function () {
      const rt = new ReplicationRuntime();
      restoredWithRewind(rt, 'a', ['a']);
      const [{ group, mark }] = [...rt.rewinds.rewinds()];
      rt.rewinds.done(group, mark);
      assert.deepEqual([...rt.rewinds.rewinds()], []);
    });

    it('a rewind from further than the one acted on stays (the group rewound again meanwhile)', function () {
      const rt = new ReplicationRuntime();
      const store = restoredWithRewind(rt, 'a', ['a']);
      const [{ mark: acted }] = [...rt.rewinds.rewinds()];
      store.update('a', [cp('a', 0, 50)]);
      store.update('a', [cp('a', 0, 7)]); // rewound again, from 50
      rt.rewinds.done('a', acted);
      const left = [...rt.rewinds.rewinds()];
      assert.equal(left.length, 1);
      assert.equal(left[0].mark.fromUpstream, 50n);
    });

    it('a failed restore of one store forgets its own marks only', function () {
      const rt = new ReplicationRuntime();
      restoredWithRewind(rt, 'a', ['a']);
      const s2 = rt.open({ selected: () => ['b'] }, () => true);
      s2.loadRecord(cp('b', 0, 9));
      s2.loadRecord(cp('b', 0, 1));
      s2.markLoaded(false);
      rt.restored(s2);
      assert.deepEqual([...rt.rewinds.rewinds()].map((r) => r.group), ['a']);
    });
  });

  it('numbers the groups once for every table of the flow, and a closing emitter releases what its tables held', function () {
    const rt = new ReplicationRuntime();
    const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
    const { SourceOffsetTable } = require('../../dist/core/source-offset-table');
    const store = rt.open({ selected: () => ['a', 'b'] }, () => true);
    store.markLoaded(true);
    rt.restored(store);
    store.update('a', [cp('a', 0, 10)]);
    store.update('b', [cp('b', 0, 5)]);
    const table = new SourceOffsetTable(rt.names);
    table.applyStream([], [{ group: 'b', topic: 't', partition: 0, offset: 5n }, { group: 'c', topic: 't', partition: 0, offset: 1n }], () => true);
    const syncs = new OffsetSyncStore({ keepHistoryOnLoad: false, names: rt.names });
    assert.equal(rt.names.size, 3, 'a, b and c: one number each, whichever tables hold them');
    assert.equal(rt.names.idOf('b') !== undefined, true);
    rt.close(store, [syncs, { release: () => table.release() }]);
    assert.equal(rt.names.size, 0, 'nothing holds a name any more');
    assert.deepEqual(rt.get('a'), undefined);
  });
});
