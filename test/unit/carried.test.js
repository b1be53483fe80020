'use strict';
/** What output 1 of mm2-checkpoint last carried per group (Carried), and LatestCheckpoints.has: sorted names without a Map or Set (issue 24 step g). */
const assert = require('node:assert/strict');
const { Carried } = require('../../dist/nodes/mm2-checkpoint/mm2-checkpoint-cycles');
const { LatestCheckpoints } = require('../../dist/core/checkpoint-cycle');

describe('Carried: what output 1 last carried per group', function () {
  /** @type {Array<[string, string[]]>} */
  const cases = [['sorted groups', ['a', 'b', 'c']], ['groups not sorted', ['c', 'a', 'b']], ['no groups', []]];
  for (const [what, groups] of cases) {
    it(`${what}: reads back what was set, versions and lists alike, and nothing for a group never set`, function () {
      const c = new Carried(groups);
      const list = /** @type {any} */ ([{ group: 'b' }]);
      assert.equal(c.get('a'), undefined);
      c.set('a', 3);
      c.set('b', list);
      c.set('c', 0);
      c.set('new', 7);
      assert.deepEqual(['a', 'b', 'c', 'new', 'x'].map((g) => c.get(g)), [3, list, 0, 7, undefined]);
      // a version replaces a list and the other way round; undefined reads undefined
      c.set('b', 4);
      c.set('a', list);
      c.set('c', undefined);
      assert.deepEqual(['a', 'b', 'c'].map((g) => c.get(g)), [list, 4, undefined]);
      c.set('c', 9);
      assert.equal(c.get('c'), 9);
    });
  }
});

describe('LatestCheckpoints.has: sorted names by binary search, others by a Set', function () {
  const store = { hasGroup: (g) => g !== 'none', get: (g) => [{ group: g }], versionOf: () => 1 };
  for (const groups of [['a', 'b', 'c', 'none', 'z'], ['z', 'a', 'none', 'c', 'b'], ['b', 'b', 'a']]) {
    it(`groups ${groups.join(',')}`, function () {
      const l = LatestCheckpoints.of(groups, /** @type {any} */ (store));
      for (const g of ['a', 'b', 'c', 'z', 'none', 'x', '']) assert.equal(l.has(g), groups.includes(g) && g !== 'none', g);
      assert.equal(l.versionOf('x'), undefined);
    });
  }
});
