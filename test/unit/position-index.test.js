'use strict';
const assert = require('node:assert/strict');
const { NumberPositionIndex } = require('../../dist/core/position-index');

// keys are group numbers: a = 1, b = 2, c = 3, d = 4
const [a, b, c, d] = [1, 2, 3, 4];

describe('NumberPositionIndex (groups by position on one partition)', function () {
  it('answers the keys at or above an offset, lowest first, through moves, equal positions and removals', function () {
    const ix = new NumberPositionIndex();
    assert.deepEqual(ix.atOrAbove(0n), []);
    assert.deepEqual(ix.atOrAbove(-1n), [], 'nothing held');
    ix.move(a, null, 10n);
    ix.move(b, null, 50n);
    ix.move(c, null, 50n);
    ix.move(d, null, 100n);
    assert.deepEqual(ix.atOrAbove(50n), [b, c, d]);
    assert.deepEqual(ix.atOrAbove(51n), [d]);
    assert.deepEqual(ix.atOrAbove(101n), []);
    assert.deepEqual(ix.atOrAbove(0n), [a, b, c, d]);
    assert.deepEqual([ix.atOrAbove(100n).length > 0, ix.atOrAbove(101n)], [true, []], 'the highest position is 100');
    // c moves (of two keys at 50, the right one leaves), a goes, d stays where it is
    ix.move(c, 50n, 200n);
    ix.move(a, 10n, null);
    ix.move(d, 100n, 100n);
    assert.deepEqual(ix.atOrAbove(0n), [b, d, c]);
    assert.equal(ix.size, 3);
    assert.deepEqual([ix.atOrAbove(200n).length > 0, ix.atOrAbove(201n)], [true, []], 'the highest position is 200');
    ix.move(b, 50n, 5n); // backwards (a rewind)
    assert.deepEqual(ix.atOrAbove(6n), [d, c]);
    assert.deepEqual(ix.atOrAbove(5n), [b, d, c]);
  });

  it('agrees with a scan of every key after many random moves (keys past 65,535 from half way: its 16-bit keys widened)', function () {
    const ix = new NumberPositionIndex();
    const at = new Map();
    let seed = 7;
    const rnd = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    for (let step = 0; step < 5000; step++) {
      const k = step > 2500 && rnd(4) === 0 ? 65530 + rnd(20) : rnd(200);
      const to = rnd(10) === 0 ? null : BigInt(rnd(300));
      ix.move(k, at.get(k) ?? null, to);
      if (to === null) at.delete(k);
      else at.set(k, to);
      if (step % 50 === 0) {
        const q = BigInt(rnd(320));
        const want = [...at].filter(([, o]) => o >= q).map(([g]) => g).sort((x, y) => x - y);
        assert.deepEqual([...ix.atOrAbove(q)].sort((x, y) => x - y), want, `at step ${step}, offset ${q}`);
      }
    }
    assert.equal(ix.size, at.size);
  });
});
