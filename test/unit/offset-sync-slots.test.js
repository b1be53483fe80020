'use strict';
/** core/offset-sync-slots and core/offset-sync-retention: the pure pieces of the offset-sync store, directly. */
const assert = require('node:assert/strict');
const { promotedSlots, freezeSync, SYNCS_PER_PARTITION, describeSlotArray } = require('../../dist/core/offset-sync-slots');
const { thinned, newestAtOrBelow, heapPush, heapPop } = require('../../dist/core/offset-sync-retention');

function sync(u, d = u) {
  return freezeSync({ topic: 't', partition: 0, upstreamOffset: BigInt(u), downstreamOffset: BigInt(d) });
}

describe('core/offset-sync-slots', function () {
  it('promotedSlots puts the new sync in slot 0 and keeps the older one behind it, leaving the original untouched', function () {
    const first = sync(0);
    const original = Object.freeze(new Array(SYNCS_PER_PARTITION).fill(first));
    const next = sync(1);
    const s = promotedSlots(original, next);
    assert.equal(s.length, SYNCS_PER_PARTITION);
    assert.equal(s[0], next);
    assert.equal(s[SYNCS_PER_PARTITION - 1], first, 'the oldest sync stays in the last slot');
    assert.equal(describeSlotArray(s), '[0=1:1, 1-63=0:0]');
    assert.equal(original[0], first);
  });

  it('freezeSync copies (a new object each time) and refuses offsets that are not bigint', function () {
    const a = { topic: 't', partition: 0, upstreamOffset: 5n, downstreamOffset: 6n };
    const x = freezeSync(a);
    assert.notEqual(x, a);
    assert.ok(Object.isFrozen(x));
    assert.notEqual(freezeSync(a), x);
    assert.throws(() => freezeSync({ ...a, upstreamOffset: /** @type {any} */ (5) }), /must be bigint/);
  });
});

describe('core/offset-sync-retention', function () {
  it('thinned keeps the first and the newest of each aligned range after it', function () {
    const list = [0, 1, 2, 3, 5, 8, 9].map((u) => sync(u));
    assert.deepEqual(thinned(list, 4n).map((x) => Number(x.upstreamOffset)), [0, 3, 5, 9]);
  });

  it('newestAtOrBelow finds by binary search from a start index, -1 below all', function () {
    const list = [10, 20, 30, 40].map((u) => sync(u));
    assert.equal(newestAtOrBelow(list, 25n), 1);
    assert.equal(newestAtOrBelow(list, 40n), 3);
    assert.equal(newestAtOrBelow(list, 5n), -1);
    assert.equal(newestAtOrBelow(list, 25n, 2), -1);
  });

  it('the heap pops by position, lowest first', function () {
    const h = [];
    for (const p of [5n, 1n, 4n, 2n, 3n]) heapPush(h, { position: p });
    const out = [];
    while (h.length > 0) out.push(heapPop(h).position);
    assert.deepEqual(out, [1n, 2n, 3n, 4n, 5n]);
  });
});
