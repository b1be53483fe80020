'use strict';
/** A planned switchover judged from the nodes' state (core/switchover): the plan after the final cycle, the verification after the sync. */
const assert = require('node:assert/strict');
const { planSwitchover, verifySwitchover, readSwitchoverPlan } = require('../../dist/core/switchover');
const { groupReadiness, summarizeReadiness } = require('../../dist/core/readiness');

const th = { maxReread: 100, maxAgeMs: 60000 };
const NOW = 1_700_000_000_000;
const freshHb = { watched: true, lastSeen: NOW - 2000, ageMs: 2000, staleAfterMs: 30000, topic: 'source.heartbeats' };

/** A coverage entry of group `group` on source topic `orders` (target `source.orders`). */
function entry(group, partition, up, down, verdict = 'ready', reread = 3) {
  return { group, topic: 'orders', partition, remoteTopic: 'source.orders', upstreamOffset: BigInt(up), downstreamOffset: BigInt(down), status: 'emitted', reason: '', verdict, reread, checkpointAt: NOW };
}
const cp = (group, partition, up, down) => ({ group, topic: 'source.orders', partition, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down), metadata: '' });

/** The state a checkpoint node holds after a cycle over `groups` ({name: [[partition, up, down, verdict?, reread?]]}). */
function held(groups) {
  const coverage = [];
  const latest = new Map();
  const readiness = [];
  for (const [g, parts] of Object.entries(groups)) {
    const es = parts.map(([p, up, down, verdict, reread]) => entry(g, p, up, down, verdict, reread));
    coverage.push(...es);
    latest.set(g, parts.map(([p, up, down]) => cp(g, p, up, down)));
    readiness.push(groupReadiness(g, es));
  }
  return { coverage, latest, readiness: summarizeReadiness(readiness, th, NOW) };
}

function plan(over = {}) {
  const state = held({ 'orders-app': [[0, 120, 100], [1, 55, 40]], 'orders-billing': [[0, 80, 60]] });
  const sourceStates = new Map([['orders-app', { state: 'Empty' }], ['orders-billing', { state: 'Empty' }]]);
  return planSwitchover({ groups: null, heartbeat: freshHb, cycle: 7, sourceStates, now: NOW, ...state, ...over });
}

const committedAsTranslated = (p) => new Map(p.groups.map((g) => [g.group, g.partitions.map((x) => ({ topic: x.topic, partition: x.partition, offset: BigInt(x.targetOffset) }))]));
const target = (p, over = {}) => ({ committed: committedAsTranslated(p), readFailed: new Map(), skipped: [], excluded: new Set(), ...over });

describe('switchover: the plan (heartbeats, readiness, idle on the source, the translation)', function () {
  it('every group ready and idle, fresh heartbeats: no reason; per partition the start offset on the target and the re-read bound', function () {
    const p = plan();
    assert.deepEqual(p.reasons, []);
    assert.deepEqual(p.groups.map((g) => [g.group, g.ok, g.sourceState, g.readiness]), [['orders-app', true, 'Empty', 'ready'], ['orders-billing', true, 'Empty', 'ready']]);
    assert.deepEqual(p.groups[0].partitions, [
      { topic: 'source.orders', partition: 0, sourceTopic: 'orders', sourceOffset: '120', targetOffset: '100', reread: 3 },
      { topic: 'source.orders', partition: 1, sourceTopic: 'orders', sourceOffset: '55', targetOffset: '40', reread: 3 },
    ]);
    assert.equal(p.cycle, 7);
    // it crosses the flow as JSON and is read back as it was
    assert.deepEqual(readSwitchoverPlan(JSON.parse(JSON.stringify(p))), p);
  });

  it('only the groups asked for; a group the checkpoint node does not know is refused by name', function () {
    const p = plan({ groups: ['orders-billing', 'nobody'] });
    assert.deepEqual(p.groups.map((g) => [g.group, g.ok, g.reasons.map((r) => r.code)]), [['orders-billing', true, []], ['nobody', false, ['not-selected']]]);
  });

  it('a group with members on the source, or not listed there, is refused; a failed listing refuses them all', function () {
    const p = plan({ sourceStates: new Map([['orders-app', { state: 'Stable' }]]) });
    assert.deepEqual(p.groups.map((g) => [g.group, g.reasons.map((r) => r.code)]), [['orders-app', ['members-on-source']], ['orders-billing', ['not-listed-on-source']]]);
    assert.match(p.groups[0].reasons[0].text, /members on the source \(state Stable\)/);
    const q = plan({ sourceStates: { error: 'NOT_COORDINATOR' } });
    assert.deepEqual(q.reasons.map((r) => r.code), ['source-states-failed']);
    assert.match(q.reasons[0].text, /NOT_COORDINATOR/);
    // Dead has no members either (as for the target groups mm2-group-offsets writes)
    assert.deepEqual(plan({ sourceStates: new Map([['orders-app', { state: 'Dead' }], ['orders-billing', { state: 'Empty' }]]) }).groups.map((g) => g.ok), [true, true]);
  });

  it('a group not ready is refused with its verdict, the partition and the re-read', function () {
    const state = held({ 'orders-app': [[0, 120, 100, 'ready', 3], [1, 955, 40, 'at-risk', 900]] });
    const p = plan({ ...state, sourceStates: new Map([['orders-app', { state: 'Empty' }]]) });
    assert.equal(p.groups[0].ok, false);
    assert.equal(p.groups[0].reasons[0].code, 'not-ready');
    assert.equal(p.groups[0].reasons[0].text, 'not ready (at-risk): a failover would re-read 900 records on orders-1, more than 100');
    assert.equal(p.groups[0].reread, 900);
  });

  it('stale heartbeats, none seen, not watched, or not asked: refused for every group', function () {
    assert.deepEqual(plan({ heartbeat: { ...freshHb, ageMs: 45000, lastSeen: NOW - 45000 } }).reasons.map((r) => [r.code, r.text]), [
      ['heartbeat-stale', 'heartbeats are stale: the newest on the target is 45 s old (stale after 30 s); replication may be behind or stopped'],
    ]);
    assert.deepEqual(plan({ heartbeat: { ...freshHb, ageMs: null, lastSeen: null } }).reasons.map((r) => r.code), ['heartbeat-none']);
    assert.deepEqual(plan({ heartbeat: { ...freshHb, watched: false } }).reasons.map((r) => r.code), ['heartbeat-not-watched']);
    assert.deepEqual(plan({ heartbeat: null }).reasons.map((r) => r.code), ['heartbeat-missing']);
    // at exactly the threshold the heartbeats are still fresh
    assert.deepEqual(plan({ heartbeat: { ...freshHb, ageMs: 30000 } }).reasons, []);
  });

  it('no readiness (not a full cycle), or nothing to switch over: refused', function () {
    const p = plan({ readiness: undefined, groups: ['orders-app'] });
    assert.deepEqual(p.reasons.map((r) => r.code), ['readiness-missing']);
    assert.deepEqual(p.groups[0].reasons.map((r) => r.code), ['not-selected']);
    const empty = held({});
    assert.deepEqual(plan({ ...empty }).reasons.map((r) => r.code), ['no-groups']);
  });
});

describe('switchover: the verification after the sync (the target offsets equal the translation)', function () {
  it('every committed target offset equals its translation: ok, with where each consumer starts', function () {
    const p = plan();
    const r = verifySwitchover(p, target(p));
    assert.equal(r.ok, true);
    assert.deepEqual(r.refused, []);
    assert.deepEqual([r.okGroups, r.refusedGroups], [2, 0]);
    assert.deepEqual(r.groups[0].partitions.map((x) => [x.partition, x.targetOffset, x.committed, x.reread]), [[0, '100', '100', 3], [1, '40', '40', 3]]);
  });

  it('a target offset that differs, or is missing, refuses the group naming the partition and both offsets', function () {
    const p = plan();
    const committed = committedAsTranslated(p);
    committed.set('orders-app', [{ topic: 'source.orders', partition: 0, offset: 97n }]);
    const r = verifySwitchover(p, target(p, { committed }));
    assert.equal(r.ok, false);
    assert.deepEqual(r.groups.map((g) => [g.group, g.ok]), [['orders-app', false], ['orders-billing', true]]);
    assert.deepEqual(r.refused, [
      'orders-app: source.orders-0 is at 97 there, not at the translation 100',
      'orders-app: source.orders-1 has no committed offset there, not at the translation 40',
    ]);
    assert.deepEqual(r.groups[0].partitions.map((x) => x.committed), ['97', null]);
  });

  it('members on the target, a failed sync or read, a group the writer does not select: refused with the reason', function () {
    const p = plan();
    const r = verifySwitchover(p, target(p, { skipped: [{ group: 'orders-app', code: 'group-active', reason: '...', state: 'Stable' }], readFailed: new Map([['orders-billing', 'GROUP_AUTHORIZATION_FAILED']]) }));
    assert.deepEqual(r.groups.map((g) => g.reasons.map((x) => x.code)), [['members-on-target'], ['target-unreadable']]);
    const q = verifySwitchover(p, target(p, { excluded: new Set(['orders-billing']), skipped: [{ group: 'orders-app', code: 'error', reason: 'timeout' }] }));
    assert.deepEqual(q.groups.map((g) => g.reasons.map((x) => x.code)), [['sync-failed'], ['not-synced']]);
    // "up-to-date" skips are fine: the target already holds the translation
    const u = verifySwitchover(p, target(p, { skipped: [{ group: 'orders-app', code: 'up-to-date', reason: '' }] }));
    assert.equal(u.ok, true);
  });

  it("the plan's refusals stay refusals; the global ones make the switchover refused with each group's own result", function () {
    const p = plan({ heartbeat: { ...freshHb, ageMs: 45000 }, sourceStates: new Map([['orders-app', { state: 'Stable' }], ['orders-billing', { state: 'Empty' }]]) });
    const r = verifySwitchover(p, target(p));
    assert.equal(r.ok, false);
    assert.deepEqual(r.groups.map((g) => g.ok), [false, true]);
    assert.equal(r.refused.length, 2);
    assert.match(r.refused[0], /^heartbeats are stale/);
    assert.match(r.refused[1], /^orders-app: has members on the source/);
  });

  it('a message that is no plan is not read as one', function () {
    for (const v of [null, 'x', {}, { reasons: [], groups: [{ group: 'g', reasons: [], partitions: [{ topic: 't', partition: 0, targetOffset: '-1' }] }], cycle: 1, at: 1 }]) {
      assert.equal(readSwitchoverPlan(v), null, JSON.stringify(v));
    }
  });
});
