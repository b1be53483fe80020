'use strict';
/**
 * NameTable (core/name-table, issue 24 step g): a compact map from names to numbers that answers
 * as a Map<string, number> does (values, size, insertion order, deletes during forEach), checked
 * against a Map over random operations.
 */
const assert = require('node:assert/strict');
const { NameTable } = require('../../dist/core/name-table');
const { seededRandom: rng, randomSeeds } = require('../../scripts/seeded-random');

const entries = (t) => {
  const out = [];
  t.forEach((v, k) => out.push([k, v]));
  return out;
};

describe('NameTable (names to numbers, compact, as a Map answers)', function () {
  it('set, get, has, delete, size, clear; a name set again keeps its place, deleted and set again comes last', function () {
    const t = new NameTable();
    t.set('b', 1.5);
    t.set('a', 1700000000123);
    t.set('c', -2);
    assert.equal(t.size, 3);
    assert.equal(t.get('a'), 1700000000123);
    assert.equal(t.get('zz'), undefined);
    assert.equal(t.has('b'), true);
    t.set('b', 7);
    assert.deepEqual(entries(t), [['b', 7], ['a', 1700000000123], ['c', -2]]);
    assert.equal(t.delete('b'), true);
    assert.equal(t.delete('b'), false);
    assert.equal(t.has('b'), false);
    t.set('b', 8);
    assert.deepEqual(entries(t), [['a', 1700000000123], ['c', -2], ['b', 8]]);
    t.clear();
    assert.equal(t.size, 0);
    assert.deepEqual(entries(t), []);
    t.set('', 0);
    assert.equal(t.has(''), true);
  });

  it('a typed array of small values (Uint8Array) holds them as given', function () {
    const t = new NameTable(Uint8Array);
    for (let i = 0; i < 300; i++) t.set(`g${i}`, i % 14);
    for (let i = 0; i < 300; i++) assert.equal(t.get(`g${i}`), i % 14);
  });

  it('deleting the name given during forEach visits every other name once, in order', function () {
    const t = new NameTable();
    for (let i = 0; i < 50; i++) t.set(`n${i}`, i);
    const seen = [];
    t.forEach((v, k) => {
      seen.push(k);
      if (v % 3 === 0) t.delete(k);
    });
    assert.equal(seen.length, 50);
    assert.deepEqual(entries(t).map(([, v]) => v), [...Array(50).keys()].filter((v) => v % 3 !== 0));
    // every name deleted during one forEach
    t.forEach((_, k) => t.delete(k));
    assert.equal(t.size, 0);
  });

  it('random sets and deletes (names colliding, growing and shrinking): the same answers and order as a Map', function () {
    for (let seed = 1, seeds = randomSeeds(5); seed <= seeds; seed++) {
      const rand = rng(900 + seed);
      const t = new NameTable();
      const m = new Map();
      for (let op = 0; op < 20000; op++) {
        const name = `grp-${Math.floor(rand() * (op < 10000 ? 3000 : 300))}`;
        const r = rand();
        if (r < 0.6) {
          const v = Math.floor(rand() * 1e6);
          t.set(name, v);
          m.set(name, v);
        } else if (r < 0.9) assert.equal(t.delete(name), m.delete(name));
        else assert.equal(t.get(name), m.get(name));
        if (op % 997 === 0) {
          assert.equal(t.size, m.size);
          assert.deepEqual(entries(t), [...m]);
        }
      }
      assert.deepEqual(entries(t), [...m]);
    }
  });
});
