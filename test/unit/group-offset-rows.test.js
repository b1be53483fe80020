'use strict';
const assert = require('node:assert/strict');
const { GroupOffsetRows } = require('../../dist/core/group-offset-rows');
const { GroupNames } = require('../../dist/core/group-names');
const { GroupTimes } = require('../../dist/core/group-times');

/** A tiny seeded generator (the same sequence on every run). */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

describe('compact offsets per group partition (core/group-offset-rows)', function () {
  it('sets, replaces, reads and forgets offsets; a group may be held with no partition', function () {
    const r = new GroupOffsetRows();
    assert.equal(r.get('g', 't', 0), undefined);
    r.set('g', 't', 1, 5n);
    r.set('g', 't', 0, 3n);
    r.set('g', 'u', 0, 9n);
    r.set('g', 't', 1, 6n);
    assert.equal(r.get('g', 't', 1), 6n);
    assert.equal(r.get('g', 't', 0), 3n);
    assert.equal(r.get('g', 'u', 0), 9n);
    assert.equal(r.get('g', 'u', 1), undefined);
    assert.equal(r.get('h', 't', 1), undefined);
    r.replace('h', []);
    assert.equal(r.has('h'), true);
    assert.equal(r.size, 2);
    assert.deepEqual(r.entries('h'), []);
    r.replace('g', [{ topic: 'u', partition: 2, offset: 1n }]);
    assert.deepEqual(r.entries('g'), [{ topic: 'u', partition: 2, offset: 1n }]);
    assert.equal(r.delete('g'), true);
    assert.equal(r.delete('g'), false);
    assert.equal(r.has('g'), false);
    r.clear();
    assert.equal(r.size, 0);
    assert.equal(r.get('h', 't', 0), undefined);
  });

  it('keeps offsets exact over the whole signed 64-bit range and refuses one outside it', function () {
    const r = new GroupOffsetRows();
    const big = [2n ** 63n - 1n, 2n ** 53n + 1n, -(2n ** 63n), -1n, 0n];
    big.forEach((o, p) => r.set('g', 't', p, o));
    big.forEach((o, p) => assert.equal(r.get('g', 't', p), o));
    assert.throws(() => r.set('g', 't', 9, 2n ** 63n), /64-bit/);
    assert.throws(() => r.set('g', 't', -1, 1n), /partition/);
  });

  it('keeps offsets exact when an origin is far from later ones (distances escaped) and widens its keys past 65,536 topic partitions', function () {
    this.timeout(20000);
    const r = new GroupOffsetRows();
    r.set('g', 't', 0, 0n);
    const vals = [-1n, 2n ** 31n, 2n ** 31n - 1n, -(2n ** 31n), -(2n ** 31n) + 1n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 5n];
    vals.forEach((v, i) => r.set(`h${i}`, 't', 0, v));
    vals.forEach((v, i) => assert.equal(r.get(`h${i}`, 't', 0), v));
    r.set('h6', 't', 0, 7n); // an escaped one set near the origin again
    assert.equal(r.get('h6', 't', 0), 7n);
    r.replace('h7', [{ topic: 't', partition: 0, offset: 3n }]);
    assert.equal(r.get('h7', 't', 0), 3n);
    const model = new Map();
    for (let p = 0; p < 70000; p++) {
      const o = BigInt(p) * 40000n - 2n ** 31n;
      r.set(`k${p % 7}`, 'w', p, o);
      model.set(p, o);
    }
    for (const [p, o] of model) assert.equal(r.get(`k${p % 7}`, 'w', p), o);
    vals.forEach((v, i) => assert.equal(r.get(`h${i}`, 't', 0), i === 6 ? 7n : i === 7 ? 3n : v));
    assert.equal(r.entries('k3').length, 10000);
    r.clear(); // the keys stay interned: the column stays wide
    r.set('z', 'w', 69999, 4n);
    r.set('z', 'w', 1, 5n);
    assert.deepEqual(r.entries('z'), [{ topic: 'w', partition: 1, offset: 5n }, { topic: 'w', partition: 69999, offset: 4n }]);
  });

  it('answers as a map of maps would, through random sets, replaces, deletes and clears (slices growing, moving and compacted)', function () {
    this.timeout(20000);
    const next = rng(24);
    const r = new GroupOffsetRows();
    let model = new Map();
    const groups = Array.from({ length: 60 }, (_, i) => `g${i}`);
    const topics = ['a', 'b', 'a.b', 'c:1'];
    const pick = (xs) => xs[Math.floor(next() * xs.length)];
    const extremes = [-1n, 2n ** 31n, 2n ** 31n - 1n, -(2n ** 31n), 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 0n];
    const off = () => {
      const y = next();
      if (y < 0.05) return 2n ** 62n + BigInt(Math.floor(next() * 1e9));
      if (y < 0.1) return pick(extremes);
      if (y < 0.12) return 2n ** 31n + BigInt(Math.floor(next() * 1e6)) - 500000n;
      return BigInt(Math.floor(next() * 1e6));
    };
    for (let step = 0; step < 60000; step++) {
      const x = next();
      const g = pick(groups);
      if (x < 0.6) {
        const t = pick(topics);
        const p = Math.floor(next() * 40);
        const o = off();
        r.set(g, t, p, o);
        if (!model.has(g)) model.set(g, new Map());
        model.get(g).set(`${p}:${t}`, o);
      } else if (x < 0.7) {
        const rows = Array.from({ length: Math.floor(next() * 12) }, () => ({ topic: pick(topics), partition: Math.floor(next() * 40), offset: off() }));
        r.replace(g, rows);
        const m = new Map();
        for (const o of rows) m.set(`${o.partition}:${o.topic}`, o.offset);
        model.set(g, m);
      } else if (x < 0.8) {
        assert.equal(r.delete(g), model.delete(g));
      } else if (x < 0.8005) {
        r.clear();
        model = new Map();
      } else {
        const t = pick(topics);
        const p = Math.floor(next() * 40);
        assert.equal(r.get(g, t, p), model.get(g)?.get(`${p}:${t}`));
        assert.equal(r.has(g), model.has(g));
      }
      if (step % 5000 === 0 || step === 59999) {
        assert.equal(r.size, model.size);
        for (const [group, m] of model) {
          const got = new Map(r.entries(group).map((e) => [`${e.partition}:${e.topic}`, e.offset]));
          assert.deepEqual(got, m, `group ${group} at step ${step}`);
        }
        // what moved or deleted slices left behind is reclaimed: the table stays within a few times the rows held
        let held = 0;
        for (const m of model.values()) held += m.size;
        assert.ok(r.tableRows <= Math.max(2048, 4 * held + 4 * model.size), `table ${r.tableRows} rows for ${held} held`);
      }
    }
  });

  it('shares one interner with the groups\' times: a name is held while the offsets or a time refer to it', function () {
    const names = new GroupNames();
    const r = new GroupOffsetRows(names);
    const t = new GroupTimes(names);
    r.setMany('g', [{ topic: 't', partition: 0, offset: 1n }, { topic: 't', partition: 1, offset: 2n }, { topic: 't', partition: 0, offset: 3n }]);
    assert.deepEqual(r.entries('g'), [{ topic: 't', partition: 0, offset: 3n }, { topic: 't', partition: 1, offset: 2n }]);
    t.setReadAt('g', 1000);
    t.setLastWrite('h', 2000);
    t.setLastWrite('h', 2500);
    assert.equal(names.size, 2);
    assert.equal(t.readAt('g'), 1000);
    assert.equal(t.lastWrite('g'), undefined);
    assert.equal(t.lastWrite('h'), 2500);
    assert.equal(t.readAt('nobody'), undefined);
    r.delete('g');
    assert.equal(names.size, 2); // g's read time still refers to it
    assert.equal(t.readAt('g'), 1000);
    t.clearReadAt();
    assert.equal(t.readAt('g'), undefined);
    assert.equal(names.size, 1); // h: its write time stays (the floor)
    assert.equal(t.lastWrite('h'), 2500);
    r.set('h', 'u', 4, 7n);
    r.clear();
    assert.equal(names.size, 1);
    t.clear();
    assert.equal(names.size, 0);
    assert.equal(t.lastWrite('h'), undefined);
    for (let i = 0; i < 3000; i++) {
      t.setLastWrite(`w${i}`, i);
      r.replace(`w${i}`, [{ topic: 'x', partition: i % 7, offset: BigInt(i) }]);
    }
    assert.equal(names.size, 3000);
    for (let i = 0; i < 3000; i++) assert.equal(r.get(`w${i}`, 'x', i % 7), BigInt(i));
    assert.equal(t.lastWrite('w2999'), 2999);
  });
});
