'use strict';
/** engines/checkpoint-target-reads TargetMembers: members on the target per group, kept as sorted names and a byte a group (issue 24 step g). */
const assert = require('node:assert/strict');
const { TargetMembers, MembersTable } = require('../../dist/engines/checkpoint-target-reads');

/** A target whose ListGroups answers `states` (group -> state) and whose coordinator look-ups fail for `failing`. */
function target(states, failing = new Map()) {
  const fetcher = {
    listGroupStates: async () => new Map(Object.entries(states).map(([g, state]) => [g, { state, protocolType: 'consumer' }])),
    coordinatorFailures: async (groups) => new Map(groups.filter((g) => failing.has(g)).map((g) => [g, failing.get(g)])),
  };
  return /** @type {any} */ ({ offsetFetcher: () => fetcher, settings: { alias: 'target', bootstrapServers: ['t:9092'] } });
}

describe('TargetMembers: members on the target per group', function () {
  it('sorted groups: a table read as a map (listed states, unlisted groups false, refused ones unknown); the same listing again is the same object', async function () {
    const m = new TargetMembers(target({ a: 'Stable', b: 'Empty', d: 'Dead' }, new Map([['e', 'not authorized: TOPIC_AUTHORIZATION_FAILED']])));
    const groups = ['a', 'b', 'c', 'd', 'e'];
    const l = await m.list(groups);
    assert.ok(l.members instanceof MembersTable);
    const want = [['a', true], ['b', false], ['c', false], ['d', false], ['e', 'unknown']];
    assert.deepEqual(groups.map((g) => [g, l.members.get(g)]), want);
    assert.deepEqual([...l.members], want);
    assert.deepEqual([l.members.size, l.members.has('c'), l.members.has('x'), l.members.get('x'), l.members.get('')], [5, true, false, undefined, undefined]);
    const seen = [];
    l.members.forEach((v, k) => seen.push([k, v]));
    assert.deepEqual(seen, want);
    m.current = l;
    const again = await m.list([...groups]);
    assert.equal(again, l, 'unchanged: the last listing itself');
    // a group's state changes: a new table, the names array shared
    const m2 = new TargetMembers(target({ a: 'Empty', b: 'Empty', d: 'Dead' }));
    m2.current = l;
    const changed = await m2.list(groups);
    assert.notEqual(changed, l);
    assert.equal(/** @type {any} */ (changed.members).names, /** @type {any} */ (l.members).names);
    assert.deepEqual(groups.map((g) => changed.members.get(g)), [false, false, false, false, false]);
  });

  it('groups not sorted (or repeated): a Map, as before', async function () {
    const m = new TargetMembers(target({ a: 'Stable' }));
    const l = await m.list(['b', 'a', 'a']);
    assert.ok(l.members instanceof Map);
    assert.deepEqual([...l.members], [['a', true], ['b', false]]);
  });

  it('a failed listing: every group unknown, with the error', async function () {
    const fetcher = { listGroupStates: async () => Promise.reject(new Error('boom')) };
    const m = new TargetMembers(/** @type {any} */ ({ offsetFetcher: () => fetcher, settings: { alias: 'target', bootstrapServers: ['t:9092'] } }));
    const l = await m.list(['a']);
    assert.equal(l.members.get('a'), undefined);
    assert.match(String(l.error), /boom/);
    assert.equal(m.of('a'), 'unknown');
  });
});
