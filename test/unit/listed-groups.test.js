'use strict';
/**
 * GroupListingKeeper (core/listed-groups): the group client lists every group with its state
 * every second (one ListGroups per broker); the listing it hands out is the very same map while
 * nothing in it changed (checkpointGroupListing caches by that map), and a changed listing is a
 * new map whose unchanged entries keep their objects. The ListGroups round trips themselves are
 * test/integration/group-requests.test.js.
 */
const assert = require('node:assert/strict');
const { GroupListingKeeper } = require('../../dist/core/listed-groups');

const g = (groupId, state, protocolType = 'consumer', type) => (type === undefined ? { groupId, state, protocolType } : { groupId, state, protocolType, type });

describe('GroupListingKeeper (a listing of group states kept across ListGroups rounds)', function () {
  it('the first listing: every group of every broker with its state, protocol type and (when listed) type', function () {
    const k = new GroupListingKeeper();
    const m = k.keep([[g('a', 'Stable', 'consumer', 'classic')], [g('b', 'Empty', ''), g('s', 'Stable', 'streams', 'streams')]]);
    assert.deepEqual([...m], [
      ['a', { state: 'Stable', protocolType: 'consumer', type: 'classic' }],
      ['b', { state: 'Empty', protocolType: '' }],
      ['s', { state: 'Stable', protocolType: 'streams', type: 'streams' }],
    ]);
    assert.equal('type' in m.get('b'), false, 'no type key where the broker lists none (ListGroups v4)');
  });

  it('no groups at all: an empty listing, the same map each time', function () {
    const k = new GroupListingKeeper();
    const first = k.keep([[], []]);
    assert.equal(first.size, 0);
    assert.equal(k.keep([[], []]), first);
  });

  it('the same answer arrays, or new answers listing the same groups and states: the very same map', function () {
    const k = new GroupListingKeeper();
    const answers = [[g('a', 'Stable'), g('b', 'Empty')], [g('c', 'Stable', 'consumer', 'consumer')]];
    const first = k.keep(answers);
    assert.equal(k.keep(answers), first, 'the same arrays');
    const again = [[g('c', 'Stable', 'consumer', 'consumer')], [g('b', 'Empty'), g('a', 'Stable')]];
    assert.equal(k.keep(again), first, 'equal answers in another order and other arrays');
    assert.equal(k.keep(again), first);
  });

  it('a changed state: a new map; the unchanged entries are the same objects, the last map is left as it was', function () {
    const k = new GroupListingKeeper();
    const first = k.keep([[g('a', 'Stable'), g('b', 'Empty')]]);
    const aBefore = first.get('a');
    const second = k.keep([[g('a', 'Stable'), g('b', 'Stable')]]);
    assert.notEqual(second, first);
    assert.equal(second.get('a'), aBefore, 'unchanged: the same object');
    assert.deepEqual(second.get('b'), { state: 'Stable', protocolType: 'consumer' });
    assert.deepEqual(first.get('b'), { state: 'Empty', protocolType: 'consumer' }, 'a caller holding the last map sees it unchanged');
  });

  it('a changed protocol type or type counts as a change', function () {
    const k = new GroupListingKeeper();
    const first = k.keep([[g('a', 'Empty', '')]]);
    const second = k.keep([[g('a', 'Empty', 'consumer')]]);
    assert.notEqual(second, first);
    const third = k.keep([[g('a', 'Empty', 'consumer', 'classic')]]);
    assert.notEqual(third, second);
    assert.equal(third.get('a').type, 'classic');
  });

  it('a group gone or a group added: a new map without it or with it', function () {
    const k = new GroupListingKeeper();
    const first = k.keep([[g('a', 'Stable'), g('b', 'Empty')]]);
    const gone = k.keep([[g('a', 'Stable')]]);
    assert.notEqual(gone, first);
    assert.deepEqual([...gone.keys()], ['a']);
    assert.equal(gone.get('a'), first.get('a'));
    const added = k.keep([[g('a', 'Stable')], [g('z', 'Empty')]]);
    assert.notEqual(added, gone);
    assert.deepEqual([...added.keys()], ['a', 'z']);
  });

  it('after a change, the new listing is what the next round is compared with', function () {
    const k = new GroupListingKeeper();
    k.keep([[g('a', 'Stable')]]);
    const changed = k.keep([[g('a', 'Empty')]]);
    assert.equal(k.keep([[g('a', 'Empty')]]), changed);
    assert.notEqual(k.keep([[g('a', 'Stable')]]), changed);
  });

  it('groups listed with the same state, protocol type and type share one frozen state object, across keepers too (issue 24 step g)', function () {
    const m = new GroupListingKeeper().keep([[g('a', 'Empty'), g('b', 'Empty'), g('c', 'Empty', 'consumer', 'classic'), g('d', 'Stable')], [g('e', 'Empty', '')]]);
    const n = new GroupListingKeeper().keep([[g('x', 'Empty'), g('y', 'Empty', 'consumer', 'classic')]]);
    assert.equal(m.get('a'), m.get('b'));
    assert.equal(m.get('a'), n.get('x'));
    assert.equal(m.get('c'), n.get('y'));
    assert.ok(Object.isFrozen(m.get('a')));
    // different values: different objects, each with its own values
    assert.deepEqual([m.get('a'), m.get('c'), m.get('d'), m.get('e')], [
      { state: 'Empty', protocolType: 'consumer' },
      { state: 'Empty', protocolType: 'consumer', type: 'classic' },
      { state: 'Stable', protocolType: 'consumer' },
      { state: 'Empty', protocolType: '' },
    ]);
    assert.equal(new Set([m.get('a'), m.get('c'), m.get('d'), m.get('e')]).size, 4);
  });
});
