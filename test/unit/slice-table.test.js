'use strict';
const assert = require('node:assert/strict');
const { SliceTable, PartitionNumbers } = require('../../dist/core/slice-table');
const { NumberPositionIndex } = require('../../dist/core/position-index');
const { GroupNames } = require('../../dist/core/group-names');

describe('SliceTable and PartitionNumbers (compact rows)', function () {
  it('PartitionNumbers gives one number per (topic, partition), stable, and answers both back', function () {
    const p = new PartitionNumbers();
    assert.equal(p.find('a', 0), -1, 'never seen');
    const a0 = p.of('a', 0);
    const a1 = p.of('a', 1);
    const b0 = p.of('b', 0);
    assert.equal(new Set([a0, a1, b0]).size, 3);
    assert.equal(p.of('a', 1), a1, 'the same pair, the same number');
    assert.equal(p.find('a', 1), a1);
    assert.equal(p.find('b', 1), -1, 'a known topic, an unknown partition');
    assert.equal(p.find('c', 0), -1, 'an unknown topic');
    assert.deepEqual([p.topic(b0), p.partition(b0)], ['b', 0]);
    assert.deepEqual([p.topic(a1), p.partition(a1)], ['a', 1]);
  });

  it('keeps every group\'s rows exact and in order while the table grows (by an eighth) and slices move', function () {
    const t = new SliceTable([(n) => new Int32Array(n), (n) => new BigInt64Array(n)]);
    const groups = 300;
    // interleaved: every slice that does not end the table moves when it grows
    for (let r = 0; r < 12; r++) {
      for (let g = 0; g < groups; g++) {
        const no = t.groupOf(`g${g}`);
        const at = t.insert(no, t.rows(no));
        t.cols[0][at] = g * 100 + r;
        t.cols[1][at] = BigInt(g) * 2n ** 40n + BigInt(r);
      }
    }
    for (let g = 0; g < groups; g += 2) t.delete(`g${g}`); // frees half the rows: a compaction may run
    for (let g = 1; g < groups; g += 2) {
      const no = t.find(`g${g}`);
      const at = t.insert(no, 0); // one more row in front
      t.cols[0][at] = -g;
      t.cols[1][at] = -1n;
    }
    assert.equal(t.size, groups / 2);
    for (let g = 1; g < groups; g += 2) {
      const no = t.find(`g${g}`);
      const base = t.base(no);
      assert.equal(t.rows(no), 13);
      assert.equal(t.cols[0][base], -g);
      for (let r = 0; r < 12; r++) {
        assert.equal(t.cols[0][base + 1 + r], g * 100 + r);
        assert.equal(t.cols[1][base + 1 + r], BigInt(g) * 2n ** 40n + BigInt(r));
      }
    }
  });

  it('grows by an eighth: rows added group after group leave at most an eighth of the table empty', function () {
    const t = new SliceTable([(n) => new Int32Array(n)]);
    for (let g = 0; g < 5000; g++) {
      const no = t.groupOf(`g${g}`);
      for (let p = 0; p < 10; p++) t.cols[0][t.insert(no, p)] = p;
    }
    assert.ok(t.cols[0].length <= Math.ceil(1.125 * 50000) + 64, `the table holds ${t.cols[0].length} rows for 50000`);
    const no = t.find('g4999');
    const rows = [];
    for (let i = 0; i < t.rows(no); i++) rows.push(t.cols[0][t.base(no) + i]);
    assert.deepEqual(rows, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('widens a 16-bit column in place: values kept, later growth, moves and a clear keep the wider type', function () {
    const t = new SliceTable([(n) => new Uint16Array(n), (n) => new Int32Array(n)]);
    const a = t.groupOf('a');
    for (let i = 0; i < 100; i++) {
      const at = t.insert(a, i); // the columns may be new after an insert
      t.cols[0][at] = i;
    }
    t.widen(0, (n) => new Int32Array(n));
    assert.ok(t.cols[0] instanceof Int32Array);
    const b = t.groupOf('b');
    const bAt = t.insert(b, 0);
    t.cols[0][bAt] = 70000;
    for (let i = 100; i < 300; i++) {
      const at = t.insert(a, i); // a moves to the end
      t.cols[0][at] = i;
    }
    assert.equal(t.cols[0][t.base(b)], 70000);
    for (let i = 0; i < 300; i++) assert.equal(t.cols[0][t.base(a) + i], i);
    t.clear();
    assert.ok(t.cols[0] instanceof Int32Array);
  });

  it('NumberPositionIndex keeps its answers while it grows by an eighth', function () {
    const ix = new NumberPositionIndex();
    for (let k = 0; k < 1000; k++) ix.move(k, null, BigInt(1000 - k));
    assert.equal(ix.size, 1000);
    assert.deepEqual(ix.atOrAbove(998n), [2, 1, 0]);
    for (let k = 0; k < 1000; k += 2) ix.move(k, BigInt(1000 - k), null);
    assert.equal(ix.size, 500);
    assert.deepEqual(ix.atOrAbove(996n), [3, 1]);
  });

  it('numbers its groups with a shared interner: one number per name across tables, held while a table holds the group, first-held order kept', function () {
    const names = new GroupNames();
    const a = new SliceTable([(n) => new Int32Array(n)], names);
    const b = new SliceTable([(n) => new Int32Array(n)], names);
    const ga = a.groupOf('x');
    a.groupOf('y');
    a.groupOf('z');
    assert.equal(b.find('x'), undefined, 'a name held by another table is not held here');
    assert.equal(b.groupOf('x'), ga, 'the same number in both tables');
    assert.equal(names.size, 3);
    assert.equal(a.delete('y'), true);
    assert.equal(a.find('y'), undefined);
    assert.equal(names.size, 2, 'y released: no table holds it');
    a.groupOf('y');
    assert.deepEqual([...a.entries()].map(([n]) => n), ['x', 'z', 'y'], 'first-held order, as a Map keeps its keys');
    assert.equal(a.size, 3);
    assert.equal(a.delete('x'), true);
    assert.equal(names.idOf('x'), ga, 'still held by the other table');
    assert.equal(a.nameOf(b.find('x')), 'x');
    a.clear();
    assert.equal(a.size, 0);
    assert.deepEqual([...a.entries()], []);
    assert.equal(names.size, 1, 'clear released every group the table held');
    b.delete('x');
    assert.equal(names.size, 0);
  });

  it('keeps every slice as a plain model does through random inserts, removals, emptyings and deletions (compactions included)', function () {
    let seed = 7;
    const rnd = (n) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    const t = new SliceTable([(n) => new Int32Array(n)]);
    const model = new Map();
    let v = 0;
    for (let step = 0; step < 30000; step++) {
      const name = 'g' + rnd(300);
      const op = rnd(10);
      if (op < 5) {
        const g = t.groupOf(name);
        if (!model.has(name)) model.set(name, []);
        const rows = model.get(name);
        const at = rnd(rows.length + 1);
        const place = t.insert(g, at); // first: an insert may give the table new columns
        t.cols[0][place] = ++v;
        rows.splice(at, 0, v);
      } else if (op < 7) {
        const g = t.find(name);
        if (g !== undefined && model.get(name).length > 0) {
          const at = rnd(model.get(name).length);
          t.remove(g, at);
          model.get(name).splice(at, 1);
        }
      } else if (op < 9) assert.equal(t.delete(name), model.delete(name));
      else if (t.find(name) !== undefined) {
        t.empty(t.find(name));
        model.set(name, []);
      }
      if (step % 97 !== 0) continue;
      assert.equal(t.size, model.size);
      assert.deepEqual([...t.entries()].map(([n]) => n), [...model.keys()]);
      for (const [n, rows] of model) {
        const g = t.find(n);
        assert.deepEqual([...t.cols[0].subarray(t.base(g), t.base(g) + t.rows(g))], rows, `step ${step}, ${n}`);
      }
    }
  });
});
