'use strict';

const assert = require('node:assert/strict');
const { ListReuse } = require('../../dist/core/list-reuse');

describe('ListReuse: the same list back while the same items come in the same order', () => {
  const a = { n: 1 };
  const b = { n: 2 };
  const c = { n: 3 };

  function build(prev, items) {
    const r = new ListReuse(prev);
    for (const x of items) r.push(x);
    return r;
  }

  it('the same objects in the same order: the previous list itself', () => {
    const prev = [a, b, c];
    const r = build(prev, [a, b, c]);
    assert.equal(r.result(), prev);
  });

  it('a new item, a missing one, another order, an equal but other object: a new list with exactly the items pushed, the previous one untouched', () => {
    const prev = Object.freeze([a, b, c]);
    for (const items of [[a, b, c, { n: 4 }], [a, b], [a, c, b], [], [{ n: 1 }, b, c], [b]]) {
      const r = build(prev, items);
      assert.notEqual(r.result(), prev);
      assert.deepEqual(r.result(), items);
      r.result().forEach((x, i) => assert.equal(x, items[i]));
    }
    assert.deepEqual(prev, [a, b, c]);
  });

  it('no previous list: the items pushed', () => {
    assert.deepEqual(build(undefined, [a, b]).result(), [a, b]);
    const empty = new ListReuse();
    assert.deepEqual(empty.result(), []);
  });
});
