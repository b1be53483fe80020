'use strict';
const assert = require('node:assert/strict');
const { SliceTable, PartitionNumbers } = require('../../dist/core/slice-table');
const { NumberPositionIndex } = require('../../dist/core/position-index');

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

  it('NumberPositionIndex keeps its answers while it grows by an eighth', function () {
    const ix = new NumberPositionIndex();
    for (let k = 0; k < 1000; k++) ix.move(k, null, BigInt(1000 - k));
    assert.equal(ix.size, 1000);
    assert.deepEqual(ix.atOrAbove(998n), [2, 1, 0]);
    for (let k = 0; k < 1000; k += 2) ix.move(k, BigInt(1000 - k), null);
    assert.equal(ix.size, 500);
    assert.deepEqual(ix.atOrAbove(996n), [3, 1]);
  });
});
