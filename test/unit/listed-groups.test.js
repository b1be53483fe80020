'use strict';
/**
 * GroupListingKeeper (core/listed-groups): the group client lists every group with its state
 * every second (one ListGroups per broker); the listing it hands out is the very same map while
 * nothing in it changed (checkpointGroupListing caches by that map), and a changed listing is a
 * new map whose unchanged entries keep their objects. The ListGroups round trips themselves are
 * test/integration/group-requests.test.js.
 */
const assert = require('node:assert/strict');
const { GroupListing, GroupListingKeeper, checkpointGroupListing } = require('../../dist/core/listed-groups');

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

  it('keeps nothing of the answers: a listing of names and a state code a group, whose names are the last listing\'s strings where it had them (issue 24 step g)', function () {
    const k = new GroupListingKeeper();
    const answer = [g('b', 'Empty'), g('a', 'Stable')];
    const first = k.keep([answer]);
    assert.ok(first instanceof GroupListing);
    // a new answer listing a with a fresh string: the listing keeps the one it had
    const fresh = ['x', 'a'].join('').slice(1);
    const second = k.keep([[g(fresh, 'Stable'), g('b', 'Stable')]]);
    assert.notEqual(second, first);
    assert.equal(second.nameAt(0), first.nameAt(0));
    assert.deepEqual([...second.keys()], ['a', 'b']);
  });

  it('one broker\'s part: the same fingerprint gives the part kept (nothing decoded), another one decodes; a part forgotten is decoded again', function () {
    const k = new GroupListingKeeper();
    let decoded = 0;
    const decode = (groups) => () => {
      decoded++;
      return groups;
    };
    const p1 = k.part('1', 'f1', decode([g('a', 'Stable')]));
    const p2 = k.part('2', 'f2', decode([g('b', 'Empty')]));
    const m = k.keep([p1, p2]);
    assert.equal(decoded, 2);
    assert.equal(k.part('1', 'f1', decode([])), p1);
    assert.equal(k.part('2', 'f2', decode([])), p2);
    assert.equal(decoded, 2, 'the same fingerprints: nothing decoded');
    assert.equal(k.keep([k.part('1', 'f1', decode([])), k.part('2', 'f2', decode([]))]), m, 'the same listing');
    const p2b = k.part('2', 'f3', decode([g('b', 'Stable')]));
    assert.equal(decoded, 3);
    const m2 = k.keep([p1, p2b]);
    assert.notEqual(m2, m);
    assert.equal(m2.get('b').state, 'Stable');
    assert.equal(m2.get('a'), m.get('a'));
    assert.equal(k.last, m2);
    k.forgetPart('1');
    k.part('1', 'f1', decode([g('a', 'Stable')]));
    assert.equal(decoded, 4, 'forgotten: decoded again');
    k.retainParts(['2']);
    k.part('1', 'f1', decode([g('a', 'Stable')]));
    assert.equal(decoded, 5, 'a broker no longer in the cluster: decoded again');
  });
});

describe('GroupListingKeeper: open keepers share their names (the source\'s and the target\'s listings of the same groups hold each name once)', function () {
  it('a name another open keeper\'s last listing holds is taken from it; closed, it is no longer', function () {
    const fresh = (n) => ['#', n].join('').slice(1);
    const src = new GroupListingKeeper().open();
    const tgt = new GroupListingKeeper().open();
    try {
      const a = fresh('group-a');
      const s = src.keep([src.part('1', 'x', () => [g(a, 'Empty'), g(fresh('only-src'), 'Empty')])]);
      const t = tgt.keep([tgt.part('1', 'y', () => [g(fresh('group-a'), 'Stable'), g(fresh('only-tgt'), 'Empty')])]);
      assert.equal(t.get('group-a').state, 'Stable');
      // the same name (that it is the source's very string, one copy, shows in bench/state-memory.js: JavaScript cannot compare string identity)
      assert.equal(t.nameAt(t.indexOf('group-a')), s.nameAt(s.indexOf('group-a')));
      src.close();
      const t2 = tgt.keep([tgt.part('1', 'z', () => [g(fresh('only-src'), 'Empty')])]);
      assert.deepEqual([...t2.keys()], ['only-src']);
    } finally {
      src.close();
      tgt.close();
    }
  });
});

describe('GroupListing (a listing of group states: names sorted, a state code a group)', function () {
  const S = (state, protocolType = 'consumer', type) => (type === undefined ? { state, protocolType } : { state, protocolType, type });

  it('reads as a ReadonlyMap in name order: size, get, has, keys, values, entries, forEach, iteration', function () {
    const e = S('Empty');
    const st = S('Stable', 'consumer', 'consumer');
    const l = new GroupListing(['c', 'a', 'b'], [e, st, e]);
    assert.equal(l.size, 3);
    assert.equal(l.get('a'), st);
    assert.equal(l.get('b'), e);
    assert.equal(l.get('zz'), undefined);
    assert.equal(l.has('c'), true);
    assert.equal(l.has(''), false);
    assert.deepEqual([...l.keys()], ['a', 'b', 'c']);
    assert.deepEqual([...l.values()], [st, e, e]);
    assert.deepEqual([...l.entries()], [['a', st], ['b', e], ['c', e]]);
    assert.deepEqual([...l], [['a', st], ['b', e], ['c', e]]);
    const seen = [];
    l.forEach((v, key, map) => seen.push([key, v, map === l]));
    assert.deepEqual(seen, [['a', st, true], ['b', e, true], ['c', e, true]]);
    assert.equal(Object.prototype.toString.call(l), '[object GroupListing]');
  });

  it('a name listed twice (by two brokers): the last one counts, as a Map would', function () {
    const l = new GroupListing(['a', 'b', 'a'], [S('Empty'), S('Empty'), S('Stable')]);
    assert.equal(l.size, 2);
    assert.equal(l.get('a').state, 'Stable');
    const u = GroupListing.union([GroupListing.of([g('a', 'Empty'), g('c', 'Empty')]), GroupListing.of([g('b', 'Stable'), g('a', 'Dead')])]);
    assert.deepEqual([...u.keys()], ['a', 'b', 'c']);
    assert.equal(u.get('a').state, 'Dead');
  });

  it('many distinct states (more than a byte of codes) each read back', function () {
    const names = [];
    const states = [];
    for (let i = 0; i < 600; i++) {
      names.push(`g${String(i).padStart(4, '0')}`);
      states.push(S(`s${i}`));
    }
    const l = new GroupListing(names, states);
    for (let i = 0; i < 600; i += 37) assert.equal(l.get(names[i]), states[i]);
  });

  it('names compared as JavaScript sorts strings (UTF-16 units): the ids discovery sees come sorted', function () {
    const names = ['é', 'Z', 'a', 'a-1', 'a.1', '\u{1F600}', ''];
    const l = GroupListing.of(names.map((n) => g(n, 'Empty')));
    assert.deepEqual([...l.keys()], [...names].sort());
    for (const n of names) assert.equal(l.has(n), true, n);
    assert.deepEqual(checkpointGroupListing(l).ids, [...names].sort());
  });

  it('sameAs: the same names with the same state values', function () {
    const a = GroupListing.of([g('a', 'Empty'), g('b', 'Stable')]);
    assert.equal(a.sameAs(GroupListing.of([g('b', 'Stable'), g('a', 'Empty')])), true);
    assert.equal(a.sameAs(GroupListing.of([g('a', 'Empty')])), false);
    assert.equal(a.sameAs(GroupListing.of([g('a', 'Empty'), g('b', 'Empty')])), false);
    assert.equal(a.sameAs(GroupListing.of([g('a', 'Empty'), g('c', 'Stable')])), false);
  });
});
