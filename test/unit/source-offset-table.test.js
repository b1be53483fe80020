'use strict';
// SourceOffsetTable (core/source-offset-table): the source groups' committed offsets, the index of
// the groups per partition, and the merge of a full read with what the stream of
// `__consumer_offsets` changed meanwhile, without a cluster or a stream (SourceOffsets, which feeds
// it from the real ones, is in source-offsets.test.js and test/integration/source-commit-stream.test.js).

const assert = require('node:assert/strict');
const { SourceOffsetTable } = require('../../dist/core/source-offset-table');
const { partitionKey } = require('../../dist/core/partition-key');

const off = (topic, partition, offset, metadata = '') => ({ topic, partition, offset: offset === null ? null : BigInt(offset), metadata });
const ch = (group, partition, offset, topic = 't') => ({ group, topic, partition, offset: offset === null ? null : BigInt(offset) });
const view = (list) => (list ?? []).map((o) => `${o.topic}-${o.partition}@${o.offset}`).sort();
const all = () => true;
/** takeChanged as plain values: group -> 'all' or the sorted partition keys. */
const changed = (t) => {
  const c = t.takeChanged();
  return c === null ? null : Object.fromEntries([...c].map(([g, p]) => [g, p === 'all' ? 'all' : [...p].sort()]));
};

describe('SourceOffsetTable: the source offsets and the merge of a full read with the stream', () => {
  describe('the stream', () => {
    it('a change sets the offset, null removes the partition; the changed partitions are handed over once', () => {
      const t = new SourceOffsetTable();
      t.applyStream([], [ch('g', 0, 5), ch('g', 1, 7)], all);
      assert.deepEqual(view(t.offsetsOf('g')), ['t-0@5', 't-1@7']);
      assert.deepEqual(changed(t), { g: [partitionKey('t', 0), partitionKey('t', 1)].sort() });
      assert.equal(t.takeChanged(), null, 'taken: nothing pending');
      t.applyStream([], [ch('g', 1, null)], all);
      assert.deepEqual(view(t.offsetsOf('g')), ['t-0@5']);
      assert.deepEqual(changed(t), { g: [partitionKey('t', 1)] });
    });

    it('a streamed commit keeps the metadata the read gave the partition (the stream does not decode it)', () => {
      const t = new SourceOffsetTable();
      t.endRead(t.beginRead(), new Map([['g', [off('t', 0, 5, 'meta')]]]));
      t.applyStream([], [ch('g', 0, 9)], all);
      assert.deepEqual(t.offsetsOf('g'), [off('t', 0, 9, 'meta')]);
    });

    it('groups the filter does not accept are not kept', () => {
      const t = new SourceOffsetTable();
      t.applyStream(['x'], [ch('x', 0, 5), ch('g', 0, 1)], (g) => g !== 'x');
      assert.equal(t.offsetsOf('x'), undefined);
      assert.deepEqual(changed(t), { g: [partitionKey('t', 0)] });
      assert.equal(t.groups, 1);
    });

    it('a deleted group is forgotten and changed as a whole; one not held is no change; a change after the deletion re-creates it', () => {
      const t = new SourceOffsetTable();
      t.applyStream([], [ch('g', 0, 5), ch('g', 1, 5), ch('h', 0, 3)], all);
      t.takeChanged();
      t.applyStream(['g', 'nobody'], [], all);
      assert.equal(t.offsetsOf('g'), undefined);
      assert.deepEqual(changed(t), { g: 'all' });
      t.applyStream(['h'], [ch('h', 2, 1)], all);
      assert.deepEqual(view(t.offsetsOf('h')), ['t-2@1'], 'the new commit only');
      assert.deepEqual(changed(t), { h: 'all' });
    });

    it('the groups per partition by offset follow the changes and deletions', () => {
      const t = new SourceOffsetTable();
      t.applyStream([], [ch('a', 0, 5), ch('b', 0, 10), ch('c', 0, 20)], all);
      assert.deepEqual(t.groupsAtOrAbove('t', 0, 10n), ['b', 'c']);
      t.applyStream(['c'], [ch('a', 0, 30), ch('b', 0, null)], all);
      assert.deepEqual(t.groupsAtOrAbove('t', 0, 10n), ['a']);
      assert.deepEqual(t.groupsAtOrAbove('t', 1, 0n), [], 'a partition no group committed on');
    });
  });

  describe('the merge of a full read with what streamed meanwhile', () => {
    let t;
    beforeEach(() => {
      t = new SourceOffsetTable();
      t.applyStream([], [ch('g', 0, 5), ch('g', 1, 5)], all);
      t.takeChanged();
    });

    it('a commit streamed while a read is under way stands; the partitions it did not touch take the read', () => {
      const read = t.beginRead();
      t.applyStream([], [ch('g', 0, 20)], all);
      t.endRead(read, new Map([['g', [off('t', 0, 10), off('t', 1, 7)]]]));
      assert.deepEqual(view(t.offsetsOf('g')), ['t-0@20', 't-1@7']);
      assert.deepEqual(t.groupsAtOrAbove('t', 0, 20n), ['g']);
      assert.deepEqual(t.groupsAtOrAbove('t', 1, 7n), ['g']);
      assert.deepEqual(t.groupsAtOrAbove('t', 1, 8n), []);
    });

    it('a partition deleted by the stream during the read stays deleted', () => {
      const read = t.beginRead();
      t.applyStream([], [ch('g', 1, null)], all);
      t.endRead(read, new Map([['g', [off('t', 0, 5), off('t', 1, 5)]]]));
      assert.deepEqual(view(t.offsetsOf('g')), ['t-0@5']);
    });

    it('a group deleted during the read is not brought back; one committed again after its deletion keeps the new commit only', () => {
      t.applyStream([], [ch('h', 0, 3)], all);
      const read = t.beginRead();
      t.applyStream(['g', 'h'], [ch('h', 2, 1)], all);
      t.endRead(read, new Map([['g', [off('t', 0, 5)]], ['h', [off('t', 0, 3)]]]));
      assert.equal(t.offsetsOf('g'), undefined);
      assert.deepEqual(view(t.offsetsOf('h')), ['t-2@1']);
      assert.deepEqual(t.groupsAtOrAbove('t', 0, 0n), [], 'nor the index');
    });

    it('nothing streamed: the read replaces what is kept, also partitions the stream set before the read was sent', () => {
      t.applyStream([], [ch('g', 0, 20)], all);
      t.endRead(t.beginRead(), new Map([['g', [off('t', 0, 30), off('t', 1, 2)]]]));
      assert.deepEqual(view(t.offsetsOf('g')), ['t-0@30', 't-1@2']);
      assert.deepEqual(t.groupsAtOrAbove('t', 1, 3n), [], 'the index follows the read (5 -> 2)');
    });

    it('two reads under way at once: each keeps what the stream changed since it was sent', () => {
      const a = t.beginRead();
      t.applyStream([], [ch('g', 0, 20)], all);
      const b = t.beginRead();
      t.applyStream([], [ch('g', 1, 40)], all);
      t.endRead(b, new Map([['g', [off('t', 0, 20), off('t', 1, 6)]]]));
      assert.deepEqual(view(t.offsetsOf('g')), ['t-0@20', 't-1@40']);
      t.endRead(a, new Map([['g', [off('t', 0, 10), off('t', 1, 6)]]]));
      assert.deepEqual(view(t.offsetsOf('g')), ['t-0@20', 't-1@40']);
    });

    it('a read that failed changes nothing, and no longer holds the changes after it', () => {
      const failed = t.beginRead();
      t.applyStream([], [ch('g', 0, 20)], all);
      t.endRead(failed);
      assert.deepEqual(view(t.offsetsOf('g')), ['t-0@20', 't-1@5']);
      const read = t.beginRead();
      t.endRead(read, new Map([['g', [off('t', 0, 8), off('t', 1, 5)]]]));
      assert.deepEqual(view(t.offsetsOf('g')), ['t-0@8', 't-1@5'], 'the change before this read does not stand against it');
    });

    it('a group the read did not answer keeps what is kept; a group new to the table is added', () => {
      t.endRead(t.beginRead(), new Map([['n', [off('t', 0, 1)]]]));
      assert.deepEqual(view(t.offsetsOf('g')), ['t-0@5', 't-1@5']);
      assert.deepEqual(view(t.offsetsOf('n')), ['t-0@1']);
    });

    it('a partition read without a committed offset is kept (MM2 counts its topic) but indexes no group', () => {
      t.endRead(t.beginRead(), new Map([['g', [off('t', 0, 5), off('u', 0, null)]]]));
      assert.deepEqual(view(t.offsetsOf('g')), ['t-0@5', 'u-0@null']);
      assert.deepEqual(t.groupsAtOrAbove('u', 0, 0n), []);
    });

    it('the version of a group changes only when one of its offsets changes (not across a read answering the same)', () => {
      const v = t.versionOf('g');
      assert.equal(typeof v, 'number');
      assert.deepEqual(t.offsetsOf('g'), t.offsetsOf('g'));
      t.endRead(t.beginRead(), new Map([['g', [off('t', 1, 5), off('t', 0, 5)]]]));
      assert.equal(t.versionOf('g'), v, 'the same offsets read again');
      t.endRead(t.beginRead(), new Map([['g', [off('t', 0, 5), off('t', 1, 5, 'new metadata')]]]));
      assert.notEqual(t.versionOf('g'), v, 'metadata changed');
      assert.equal(t.offsetsOf('g').find((o) => o.partition === 1).metadata, 'new metadata');
      const again = t.versionOf('g');
      t.applyStream([], [ch('g', 0, 6)], all);
      assert.notEqual(t.versionOf('g'), again);
      assert.equal(t.offsetsOf('g').find((o) => o.partition === 1).metadata, 'new metadata', 'a streamed change of another partition keeps the metadata');
      assert.equal(t.versionOf('nobody'), undefined);
    });

    it('offsetsOf a set of partitions gives only those held', () => {
      assert.deepEqual(view(t.offsetsOf('g', new Set([partitionKey('t', 1), partitionKey('t', 9)]))), ['t-1@5']);
      assert.equal(t.offsetsOf('nobody', new Set()), undefined);
    });

    it('retain forgets the groups no longer selected, with their index entries', () => {
      t.applyStream([], [ch('h', 0, 9)], all);
      t.retain(new Set(['h']));
      assert.equal(t.offsetsOf('g'), undefined);
      assert.deepEqual(t.groupsAtOrAbove('t', 0, 0n), ['h']);
      assert.equal(t.groups, 1);
    });
  });
});

describe('SourceOffsetTable: compact rows per group (issue 24 step g)', () => {
  for (const parts of [4, 100]) {
    it(`${parts} partitions: a list handed out never changes, the version does; deletions, the groups per partition and a subset by key`, () => {
      const t = new SourceOffsetTable();
      const read = t.beginRead();
      t.endRead(read, new Map([['g', Array.from({ length: parts }, (_, p) => off('t', p, 10 + p))]]));
      const first = t.offsetsOf('g');
      const v = t.versionOf('g');
      assert.deepEqual(t.offsetsOf('g'), first, 'the same offsets while nothing changes');
      assert.deepEqual(t.topicsOf('g'), ['t']);
      t.applyStream([], [ch('g', 1, 50), ch('g', 0, null), ch('g', parts, 3)], all);
      assert.equal(first.length, parts, 'the list handed out is as it was');
      assert.equal(first[1].offset, 11n);
      const second = t.offsetsOf('g');
      assert.notEqual(t.versionOf('g'), v);
      assert.deepEqual(second.map((o) => o.partition), [...Array.from({ length: parts - 1 }, (_, i) => i + 1), parts], 'first-seen order, the deleted one out, the new one last');
      assert.equal(second[0].offset, 50n);
      assert.deepEqual(t.offsetsOf('g', new Set([partitionKey('t', parts), partitionKey('t', 1), partitionKey('t', 0)])).map((o) => o.partition), [parts, 1], 'in the order asked, the deleted one left out');
      assert.deepEqual(t.groupsAtOrAbove('t', 1, 40n), ['g']);
      assert.deepEqual(t.groupsAtOrAbove('t', 0, 0n), [], 'deleted from the index too');
      // a read that finds the same: the same version stays
      const v2 = t.versionOf('g');
      const again = t.beginRead();
      t.endRead(again, new Map([['g', second.map((o) => ({ ...o }))]]));
      assert.equal(t.versionOf('g'), v2);
      assert.deepEqual(t.offsetsOf('g'), second);
    });
  }
});

describe('SourceOffsetTable: many groups moving through the shared rows (growth, deletion, compaction)', () => {
  it('answers what a map per group would, after random changes, reads and deletions', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const t = new SourceOffsetTable();
    const model = new Map(); // group -> Map(partition -> offset)
    const groups = Array.from({ length: 300 }, (_, i) => `g${i}`);
    for (let step = 0; step < 6000; step++) {
      const g = groups[Math.floor(rand() * groups.length)];
      const r = rand();
      if (r < 0.05) {
        t.applyStream([g], [], all);
        model.delete(g);
      } else if (r < 0.15) {
        const n = Math.floor(rand() * 40);
        const list = Array.from({ length: n }, (_, p) => off('t', p, Math.floor(rand() * 1000)));
        t.endRead(t.beginRead(), new Map([[g, list]]));
        model.set(g, new Map(list.map((o) => [o.partition, o.offset])));
      } else {
        const p = Math.floor(rand() * 30);
        const o = rand() < 0.1 ? null : Math.floor(rand() * 1000);
        t.applyStream([], [ch(g, p, o)], all);
        if (!model.has(g)) model.set(g, new Map());
        if (o === null) model.get(g).delete(p);
        else model.get(g).set(p, BigInt(o));
      }
    }
    for (const g of groups) {
      const want = model.get(g);
      const got = t.offsetsOf(g);
      if (want === undefined) {
        assert.equal(got, undefined, g);
        continue;
      }
      assert.deepEqual(new Map(got.map((o) => [o.partition, o.offset])), want, g);
    }
    for (let p = 0; p < 30; p++) {
      const want = groups.filter((g) => model.get(g)?.has(p) && model.get(g).get(p) >= 500n).sort();
      assert.deepEqual(t.groupsAtOrAbove('t', p, 500n).sort(), want, `partition ${p}`);
    }
  });

  it('widens its 16-bit partition column past 65,536 partitions and its index keys past 65,536 groups, every offset kept', function () {
    this.timeout(30000);
    const t = new SourceOffsetTable();
    const changes = [];
    for (let p = 0; p < 70000; p++) changes.push({ group: `g${p % 5}`, topic: 'w', partition: p, offset: BigInt(p) - 2n ** 31n });
    t.applyStream([], changes, all);
    for (let p = 0; p < 70000; p += 991) {
      assert.equal(t.offsetsOf(`g${p % 5}`).find((o) => o.partition === p).offset, BigInt(p) - 2n ** 31n);
      assert.deepEqual(t.groupsAtOrAbove('w', p, -(2n ** 63n)), [`g${p % 5}`]);
    }
    const many = [];
    for (let i = 0; i < 66000; i++) many.push({ group: `h${i}`, topic: 'x', partition: 0, offset: BigInt(i % 7) });
    t.applyStream([], many, all);
    assert.equal(t.groupsAtOrAbove('x', 0, 6n).length, Math.floor(66000 / 7));
    const six = new Set(t.groupsAtOrAbove('x', 0, 6n));
    for (let i = 0; i < 66000; i++) assert.equal(six.has(`h${i}`), i % 7 === 6, `h${i}`);
    assert.equal(t.offsetsOf('h65999')[0].offset, 3n);
  });

  it('keeps every offset exact in the Int32 column and its escapes (-1, 2^53+1, 2^63-1, -2^63, far from the first), as a map model does', () => {
    let seed = 13;
    const rnd = (n) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    const t = new SourceOffsetTable();
    const model = new Map(); // group -> Map(partition -> offset | null)
    const near = [0n, 7n, -1n, 2n ** 31n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 5000000000n];
    const offset = () => {
      const o = near[rnd(near.length)] + BigInt(rnd(5)) - 2n;
      return BigInt.asIntN(64, o) === o ? o : near[rnd(2)];
    };
    for (let step = 0; step < 6000; step++) {
      const g = 'g' + rnd(50);
      const op = rnd(20);
      if (op === 0) {
        t.applyStream([g], [], all);
        model.delete(g);
      } else if (op < 4) {
        const list = [];
        for (let p = rnd(6); p >= 0; p--) list.push({ topic: 't', partition: rnd(6), offset: rnd(8) === 0 ? null : offset(), metadata: '' });
        t.endRead(t.beginRead(), new Map([[g, list]]));
        model.set(g, new Map(list.map((o) => [o.partition, o.offset])));
      } else {
        const p = rnd(6);
        const o = rnd(10) === 0 ? null : offset();
        t.applyStream([], [{ group: g, topic: 't', partition: p, offset: o }], all);
        if (!model.has(g)) model.set(g, new Map());
        if (o === null) model.get(g).delete(p);
        else model.get(g).set(p, o);
      }
      if (step % 97 !== 0) continue;
      for (let i = 0; i < 50; i++) {
        const want = model.get('g' + i);
        const got = t.offsetsOf('g' + i);
        if (want === undefined) assert.equal(got, undefined);
        else assert.deepEqual(new Map(got.map((o) => [o.partition, o.offset])), want, `g${i} at step ${step}`);
      }
      const at = near[rnd(near.length)];
      for (let p = 0; p < 6; p++) {
        const want = [...model].filter(([, m]) => m.has(p) && m.get(p) !== null && m.get(p) >= at).map(([g]) => g);
        assert.deepEqual(t.groupsAtOrAbove('t', p, at).sort(), want.sort(), `partition ${p} at ${at}, step ${step}`);
      }
    }
  });

  it('a full read answering what is kept keeps the version, one offset off by one (near the escapes too), gone or come, changes it', () => {
    let seed = 29;
    const rnd = (n) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    const near = [0n, 7n, -1n, 2n ** 31n, 2n ** 53n - 1n, 2n ** 53n + 1n, 2n ** 63n - 2n, -(2n ** 63n) + 1n, 5000000000n, 2n ** 64n];
    // what the table keeps of an offset: none for null and outside the signed 64-bit range
    const kept = (o) => (o === null || BigInt.asIntN(64, o) !== o ? null : o);
    const t = new SourceOffsetTable();
    let changed = 0;
    for (let step = 0; step < 3000; step++) {
      const g = 'g' + rnd(20);
      const had = t.offsetsOf(g);
      const list = had !== undefined && rnd(3) > 0 ? had.map((o) => ({ ...o })) : [0, 1, 2].map((p) => ({ topic: p === 2 ? 'u' : 't', partition: p, offset: near[rnd(near.length)] + BigInt(rnd(3)) - 1n, metadata: '' }));
      if (rnd(2) === 0) {
        const o = list[rnd(list.length)];
        const what = rnd(4);
        o.offset = what === 0 ? null : what === 1 && o.offset !== null ? o.offset + 1n : what === 2 && o.offset !== null ? o.offset - 1n : near[rnd(near.length)];
      }
      const v = t.versionOf(g);
      t.endRead(t.beginRead(), new Map([[g, list]]));
      const same = had !== undefined && had.length === list.length && list.every((o) => had.some((h) => h.topic === o.topic && h.partition === o.partition && kept(h.offset) === kept(o.offset)));
      if (same) assert.equal(t.versionOf(g), v, `step ${step}: the same offsets`);
      else {
        assert.notEqual(t.versionOf(g), v, `step ${step}: changed`);
        changed++;
      }
      assert.deepEqual(t.offsetsOf(g).map((o) => kept(o.offset)), list.map((o) => kept(o.offset)));
    }
    assert.ok(changed > 300 && changed < 2700, `both seen (${changed} changed)`);
  });

  it('answers groupsAtOrAbove as a plain model does through random stream changes, deletions and full reads (the index reads the offsets from the rows)', function () {
    let seed = 5;
    const rnd = (n) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    const table = new SourceOffsetTable();
    const big = [0n, 1n, 5n, 2n ** 53n + 1n, (1n << 63n) - 1n, -1n];
    const offset = () => (rnd(4) === 0 ? big[rnd(big.length)] : BigInt(rnd(20)));
    for (let step = 0; step < 4000; step++) {
      const group = 'g' + rnd(40);
      const op = rnd(10);
      if (op < 6) table.applyStream([], [{ group, topic: rnd(2) ? 'a' : 'b:c', partition: rnd(3), offset: rnd(6) === 0 ? null : offset() }], () => true);
      else if (op < 7) table.applyStream([group], [], () => true);
      else {
        const read = table.beginRead();
        if (rnd(2)) table.applyStream([], [{ group: 'g' + rnd(40), topic: 'a', partition: rnd(3), offset: offset() }], () => true);
        const list = [];
        for (let i = rnd(4); i > 0; i--) list.push({ topic: rnd(2) ? 'a' : 'b:c', partition: rnd(3), offset: rnd(5) === 0 ? null : offset(), metadata: '' });
        table.endRead(read, new Map([[group, list]]));
      }
      if (step % 37 !== 0) continue;
      const model = new Map(); // partition key -> [group, offset][]
      for (let g = 0; g < 40; g++) {
        for (const o of table.offsetsOf('g' + g) ?? []) {
          if (o.offset === null) continue;
          const k = partitionKey(o.topic, o.partition);
          if (!model.has(k)) model.set(k, []);
          model.get(k).push(['g' + g, o.offset]);
        }
      }
      for (const topic of ['a', 'b:c']) {
        for (let partition = 0; partition < 3; partition++) {
          const at = big[rnd(big.length)];
          const want = (model.get(partitionKey(topic, partition)) ?? []).filter(([, o]) => o >= at);
          const got = table.groupsAtOrAbove(topic, partition, at);
          assert.deepEqual(new Set(got), new Set(want.map(([g]) => g)), `step ${step}, ${topic}:${partition} at ${at}`);
          assert.equal(got.length, want.length);
          const offsets = got.map((g) => want.find(([h]) => h === g)[1]);
          for (let i = 1; i < offsets.length; i++) assert.ok(offsets[i - 1] <= offsets[i], 'lowest first');
        }
      }
    }
  });
});
