'use strict';
/** The groups of a shared flow other instances own (engines/checkpoint-source-reads OtherGroupsOfFlow): read seldom, never kept. */
const assert = require('node:assert/strict');
const { OtherGroupsOfFlow, OTHERS_READ_EVERY_MS } = require('../../dist/engines/checkpoint-source-reads');
const { createTopicFilter } = require('../../dist/core/filters');

/** A source whose offset fetcher answers from `offsets` (group -> topics), failing while `fail` is set, counting the reads. */
function source(offsets) {
  const s = {
    reads: [],
    fail: false,
    offsetFetcher: () => ({
      fetchMany: async (groups) => {
        s.reads.push([...groups]);
        if (s.fail) throw new Error('the source does not answer');
        const found = new Map();
        const failed = new Map();
        for (const g of groups) {
          if (offsets[g] === 'denied') failed.set(g, 'GROUP_AUTHORIZATION_FAILED');
          else found.set(g, (offsets[g] ?? []).map((topic) => ({ topic, partition: 0, offset: 1n })));
        }
        return { offsets: found, failed };
      },
    }),
  };
  return s;
}

describe('OtherGroupsOfFlow: the groups other instances of a shared flow own', function () {
  it('those with a replicated topic (or unreadable), read at most every interval and again after a share change; a failed read keeps the last answer', async function () {
    let now = 1000;
    const src = source({ a: ['orders'], b: ['other'], c: [], d: 'denied' });
    const others = new OtherGroupsOfFlow(/** @type {any} */ (src), createTopicFilter({ topics: 'orders' }), () => now);
    assert.deepEqual(await others.of([]), [], 'nothing to read');
    assert.equal(src.reads.length, 0);
    assert.deepEqual(await others.of(['a', 'b', 'c', 'd']), ['a', 'd']);
    assert.deepEqual(src.reads, [['a', 'b', 'c', 'd']]);
    now += OTHERS_READ_EVERY_MS - 1;
    assert.deepEqual(await others.of(['a', 'b', 'd']), ['a', 'd'], 'the last answer, for the names asked');
    assert.equal(src.reads.length, 1, 'not read again within the interval');
    others.invalidate();
    assert.deepEqual(await others.of(['a', 'b']), ['a']);
    assert.equal(src.reads.length, 2, 'read again after a share change');
    src.fail = true;
    now += OTHERS_READ_EVERY_MS;
    assert.deepEqual(await others.of(['a', 'b']), ['a'], 'a failed read keeps the last answer');
    const fresh = new OtherGroupsOfFlow(/** @type {any} */ (src), createTopicFilter({}), () => now);
    assert.deepEqual(await fresh.of(['a']), [], 'a failed first read: none known');
  });
});
