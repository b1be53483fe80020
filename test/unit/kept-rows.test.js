'use strict';
const assert = require('node:assert/strict');
const { KeptRows } = require('../../dist/core/kept-rows');
const { GroupNames } = require('../../dist/core/group-names');

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const sync = (up) => Object.freeze({ topic: 't', partition: 0, upstreamOffset: up, downstreamOffset: up + 7n });

describe('compact kept syncs of one partition (core/kept-rows)', function () {
  it('keeps position, following and sync per group; the lowest position; followers settle below a new sync', function () {
    const k = new KeptRows();
    const s10 = sync(10n);
    const s20 = sync(20n);
    assert.equal(k.lowest(), undefined);
    k.set('a', 15n, false, s10);
    k.set('b', 25n, true, s20);
    k.set('c', 2n ** 62n + 1n, true, s20);
    assert.equal(k.size, 3);
    assert.equal(k.lowest(), 15n);
    assert.equal(k.keptSync('b', s20), s20);
    assert.equal(k.differs('a', 15n, false, s10), false);
    assert.equal(k.differs('a', 15n, false, s20), true);
    assert.equal(k.differs('z', 15n, false, s10), true);
    const s30 = sync(30n);
    k.settleBelow(30n, s20); // b (25) stops following and keeps s20; c stays a follower
    assert.deepEqual(k.get('b'), { position: 25n, follows: false, sync: s20 });
    assert.equal(k.keptSync('c', s30), s30);
    assert.equal(k.get('c').position, 2n ** 62n + 1n);
    assert.equal(k.delete('a'), true);
    assert.equal(k.delete('a'), false);
    assert.equal(k.lowest(), 25n);
    assert.deepEqual([...k.groups()], ['b', 'c']);
    assert.throws(() => k.set('d', 2n ** 63n, false, s10), /64-bit/);
  });

  it('answers as a map of objects would, through random sets, deletes and settles', function () {
    this.timeout(20000);
    const next = rng(7);
    const names = new GroupNames();
    const k = new KeptRows(names);
    const model = new Map();
    const syncs = Array.from({ length: 8 }, (_, i) => sync(BigInt(i * 100)));
    const pick = (xs) => xs[Math.floor(next() * xs.length)];
    const pos = () => (next() < 0.05 ? 2n ** 60n + BigInt(Math.floor(next() * 1000)) : BigInt(Math.floor(next() * 1000)));
    for (let step = 0; step < 40000; step++) {
      const g = `g${Math.floor(next() * 300)}`;
      const x = next();
      if (x < 0.6) {
        const p = pos();
        const f = next() < 0.4;
        const s = pick(syncs);
        const m = model.get(g);
        const differs = m === undefined || m.position !== p || m.follows !== f || (!f && m.sync !== s);
        assert.equal(k.differs(g, p, f, s), differs);
        k.set(g, p, f, s);
        if (model.has(g)) model.set(g, { position: p, follows: f, sync: f ? undefined : s });
        else model.set(g, { position: p, follows: f, sync: f ? undefined : s });
      } else if (x < 0.75) {
        assert.equal(k.delete(g), model.delete(g));
      } else if (x < 0.8) {
        const up = pos();
        const prev = pick(syncs);
        k.settleBelow(up, prev);
        for (const m of model.values()) {
          if (m.follows && m.position < up) {
            m.follows = false;
            m.sync = prev;
          }
        }
      } else {
        const newest = pick(syncs);
        const m = model.get(g);
        assert.equal(k.keptSync(g, newest), m === undefined ? undefined : m.follows ? newest : m.sync);
        let low;
        for (const v of model.values()) if (low === undefined || v.position < low) low = v.position;
        assert.equal(k.lowest(), low);
      }
      if (step % 4000 === 0) {
        assert.equal(k.size, model.size);
        assert.equal(names.size, model.size);
        assert.deepEqual([...k.groups()].sort(), [...model.keys()].sort());
        for (const [group, m] of model) assert.deepEqual(k.get(group), m, `${group} at step ${step}`);
      }
    }
  });

  it('keeps positions exact in the narrow column and its escapes: -1, 2^53+1, 2^63-1, -2^63, far from the first position', function () {
    const k = new KeptRows();
    const s = sync(0n);
    const extremes = [5n, -1n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 5n + 2147483647n, 5n - 2147483647n, 5n + 2147483648n, 5n - 2147483648n];
    extremes.forEach((p, i) => k.set(`g${i}`, p, true, s));
    extremes.forEach((p, i) => {
      assert.equal(k.get(`g${i}`).position, p);
      assert.equal(k.differs(`g${i}`, p, true, s), false);
      assert.equal(k.differs(`g${i}`, p + (p === 2n ** 63n - 1n ? -1n : 1n), true, s), true);
    });
    assert.equal(k.lowest(), -(2n ** 63n));
    // a new sync at 2^53+2: the followers below it settle, exactly those
    const prev = sync(2n ** 53n);
    k.settleBelow(2n ** 53n + 2n, prev);
    extremes.forEach((p, i) => assert.equal(k.get(`g${i}`).follows, p >= 2n ** 53n + 2n, `g${i} at ${p}`));
    // the escaped row that held the lowest moves into the column, then far up: found again
    k.set('g4', 6n, false, prev);
    assert.equal(k.lowest(), 5n - 2147483648n);
    k.set('g8', 2n ** 62n, false, prev);
    assert.equal(k.lowest(), 5n - 2147483647n);
    assert.equal(k.delete('g6'), true);
    assert.equal(k.lowest(), -1n);
    for (let i = 0; i < extremes.length; i++) k.delete(`g${i}`);
    assert.equal(k.lowest(), undefined);
    k.set('again', 2n ** 63n - 1n, true, s);
    assert.equal(k.get('again').position, 2n ** 63n - 1n);
    assert.equal(k.lowest(), 2n ** 63n - 1n);
  });

  it('answers as a map does when positions spread over the whole signed 64-bit range (escapes, settles, the lowest after moves)', function () {
    this.timeout(20000);
    const next = rng(23);
    const k = new KeptRows();
    const model = new Map();
    const syncs = Array.from({ length: 5 }, (_, i) => sync(BigInt(i)));
    const near = [0n, -1n, 2n ** 31n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n)];
    const pos = () => {
      const c = near[Math.floor(next() * near.length)] + BigInt(Math.floor(next() * 7)) - 3n;
      return BigInt.asIntN(64, c) === c ? c : near[0];
    };
    for (let step = 0; step < 20000; step++) {
      const g = `g${Math.floor(next() * 60)}`;
      const x = next();
      if (x < 0.5) {
        const p = pos();
        const f = next() < 0.5;
        const s = syncs[Math.floor(next() * syncs.length)];
        k.set(g, p, f, s);
        model.set(g, { position: p, follows: f, sync: f ? undefined : s });
      } else if (x < 0.65) assert.equal(k.delete(g), model.delete(g));
      else if (x < 0.8) {
        const up = pos();
        const prev = syncs[Math.floor(next() * syncs.length)];
        k.settleBelow(up, prev);
        for (const m of model.values()) if (m.follows && m.position < up) Object.assign(m, { follows: false, sync: prev });
      } else {
        let low;
        for (const v of model.values()) if (low === undefined || v.position < low) low = v.position;
        assert.equal(k.lowest(), low, `step ${step}`);
        const m = model.get(g);
        assert.deepEqual(k.get(g), m);
      }
      if (step % 1000 === 0) for (const [group, m] of model) assert.deepEqual(k.get(group), m, `${group} at step ${step}`);
    }
  });

  it('lays its rows out by group number when it tracks most numbers, packed otherwise, answering as a map does across the changes of layout', function () {
    this.timeout(30000);
    const next = rng(41);
    const names = new GroupNames();
    // another table holds the first 3000 numbers: the groups tracked here are numbered above them, or among them
    for (let i = 0; i < 3000; i++) names.acquire(`other${i}`);
    const k = new KeptRows(names);
    const model = new Map();
    const syncs = Array.from({ length: 4 }, (_, i) => sync(BigInt(i * 10)));
    const check = (what) => {
      assert.equal(k.size, model.size, what);
      assert.deepEqual([...k.groups()].sort(), [...model.keys()].sort(), what);
      for (const [group, m] of model) assert.deepEqual(k.get(group), m, `${group}: ${what}`);
      let low;
      for (const v of model.values()) if (low === undefined || v.position < low) low = v.position;
      assert.equal(k.lowest(), low, what);
    };
    const put = (g) => {
      const p = next() < 0.02 ? 2n ** 62n + BigInt(Math.floor(next() * 9)) : BigInt(Math.floor(next() * 100));
      const f = next() < 0.5;
      const s = syncs[Math.floor(next() * syncs.length)];
      k.set(g, p, f, s);
      model.set(g, { position: p, follows: f, sync: f ? undefined : s });
    };
    // a few groups with high numbers: packed
    for (let i = 0; i < 40; i++) put(`new${i}`);
    assert.equal(k.isDense, false);
    check('sparse');
    // most of the other table's groups too: by number
    for (let i = 0; i < 3000; i += 1) if (next() < 0.8) put(`other${i}`);
    assert.equal(k.isDense, true);
    check('dense');
    // random changes while dense, settles included
    for (let step = 0; step < 3000; step++) {
      const g = next() < 0.5 ? `other${Math.floor(next() * 3000)}` : `new${Math.floor(next() * 60)}`;
      const x = next();
      if (x < 0.5) put(g);
      else if (x < 0.8) assert.equal(k.delete(g), model.delete(g));
      else {
        const up = BigInt(Math.floor(next() * 100));
        const prev = syncs[Math.floor(next() * syncs.length)];
        k.settleBelow(up, prev);
        for (const m of model.values()) if (m.follows && m.position < up) Object.assign(m, { follows: false, sync: prev });
      }
    }
    check('after random changes');
    // most go: packed again
    for (const g of [...model.keys()]) if (next() < 0.95) assert.equal(k.delete(g), model.delete(g));
    assert.equal(k.isDense, false);
    check('sparse again');
    // a group numbered far above the rows while dense: packed
    for (const g of [...model.keys()]) assert.equal(k.delete(g), model.delete(g));
    for (let i = 0; i < 100; i++) put(`other${i}`);
    assert.equal(k.isDense, true);
    for (let i = 0; i < 1000; i++) names.acquire(`later${i}`);
    put('late');
    assert.equal(k.isDense, false);
    check('a far number');
    k.clear();
    assert.equal(k.size, 0);
    assert.equal(names.size, 4000, 'only the other holders are left');
  });

  it('numbers the groups through one interner shared by partitions: a name is held while a row refers to it', function () {
    const names = new GroupNames();
    const p0 = new KeptRows(names);
    const p1 = new KeptRows(names);
    const s10 = sync(10n);
    for (let i = 0; i < 5000; i++) p0.set(`g${i}`, BigInt(i), i % 2 === 0, s10);
    for (let i = 0; i < 5000; i += 2) p1.set(`g${i}`, BigInt(i), false, s10);
    assert.equal(names.size, 5000);
    for (let i = 0; i < 5000; i += 2) assert.equal(p0.delete(`g${i}`), true);
    assert.equal(names.size, 5000); // the even ones are still rows of p1
    assert.equal(p1.get('g4').position, 4n);
    assert.equal(p0.get('g4'), undefined);
    assert.equal(p0.get('g5').position, 5n);
    p1.clear();
    assert.equal(p1.size, 0);
    assert.equal(p1.get('g4'), undefined);
    assert.equal(names.size, 2500); // the odd ones, rows of p0
    for (let i = 1; i < 5000; i += 2) assert.equal(p0.delete(`g${i}`), true);
    assert.equal(names.size, 0);
    assert.equal(p0.lowest(), undefined);
    p1.set('again', 3n, true, s10);
    assert.deepEqual([...p1.groups()], ['again']);
    assert.equal(names.size, 1);
  });

  it('answers as a plain model does through random sets, deletions and settlements over partitions sharing one interner', function () {
    let seed = 11;
    const rnd = (n) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    const names = new GroupNames();
    const parts = [0, 1, 2].map(() => ({ k: new KeptRows(names), m: new Map() }));
    const syncs = [1n, 2n, 3n].map((u) => ({ topic: 't', partition: 0, upstreamOffset: u, downstreamOffset: u }));
    for (let step = 0; step < 20000; step++) {
      const { k, m } = parts[rnd(3)];
      const name = 'g' + rnd(120);
      const op = rnd(10);
      if (op < 5) {
        const position = BigInt(rnd(100));
        const follows = rnd(2) === 1;
        const sync = syncs[rnd(3)];
        k.set(name, position, follows, sync);
        m.set(name, { position, follows, sync: follows ? undefined : sync });
      } else if (op < 8) assert.equal(k.delete(name), m.delete(name));
      else {
        const up = BigInt(rnd(100));
        const previous = syncs[rnd(3)];
        k.settleBelow(up, previous);
        for (const e of m.values()) if (e.follows && e.position < up) Object.assign(e, { follows: false, sync: previous });
      }
      if (step % 53 !== 0) continue;
      const held = new Set();
      for (const p of parts) {
        let low;
        for (const [n, e] of p.m) {
          assert.deepEqual(p.k.get(n), e, `step ${step}, ${n}`);
          if (low === undefined || e.position < low) low = e.position;
          held.add(n);
        }
        assert.equal(p.k.size, p.m.size);
        assert.equal(p.k.lowest(), low);
      }
      assert.equal(names.size, held.size, 'a name is held exactly while a partition tracks its group');
    }
  });
});
