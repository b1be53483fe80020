'use strict';
/**
 * The reconcile lane driven by what changed (issue 24 item 5): a full run whose inputs did not
 * change gives the answer of the last one without judging every group again; anything it judged
 * from changing (a checkpoint, the target's listing, the full-read period, a partial run) makes it
 * judge every group again. Also the emitter's parts that give back the last answer (the target's
 * members, the latest checkpoints, group discovery).
 */
const assert = require('node:assert/strict');
const { GroupOffsetSyncer } = require('../../dist/engines/group-offset-syncer');
const { QuietFullRuns, cleanFullRun } = require('../../dist/core/quiet-full-run');
const { LatestCheckpoints } = require('../../dist/core/checkpoint-cycle');
const { TargetMembers } = require('../../dist/engines/checkpoint-target-reads');
const { CheckpointDiscovery } = require('../../dist/engines/checkpoint-discovery');
const { createGroupFilter } = require('../../dist/core/filters');

/** A target in memory whose listing is the same Map while no group's state changed (as kafka/group-client keeps it). */
function target() {
  const committed = {};
  const states = {};
  const calls = { list: 0, fetched: 0, commits: 0 };
  let listing = null;
  let listedKey = '';
  const fetcher = {
    listGroupStates: async () => {
      calls.list++;
      const m = new Map(Object.keys(committed).map((g) => [g, { state: states[g] ?? 'Empty', protocolType: 'consumer' }]));
      const key = JSON.stringify([...m]);
      if (key !== listedKey) [listing, listedKey] = [m, key];
      return listing;
    },
    fetchMany: async (groups) => {
      calls.fetched += groups.length;
      const offsets = new Map();
      for (const g of groups) offsets.set(g, committed[g] === undefined ? [] : [{ topic: 't', partition: 0, offset: BigInt(committed[g]), metadata: '' }]);
      return { offsets, failed: new Map() };
    },
  };
  const connection = {
    admin: async () => ({ fetchTopicOffsets: async () => [{ partition: 0, offset: '100', high: '100', low: '0' }], listTopics: async () => ['t'] }),
    committer: () => ({
      commitMany: async (list) => {
        const out = new Map();
        for (const { group, offsets } of list) {
          calls.commits++;
          committed[group] = Number(offsets[0].offset);
          out.set(group, { ok: true });
        }
        return out;
      },
    }),
    offsetFetcher: () => fetcher,
    reportOk: () => undefined,
  };
  return { committed, states, calls, connection };
}

const cp = (downstreamOffset) => [{ topic: 't', partition: 0, downstreamOffset: String(downstreamOffset) }];
const skips = (r) => r.skipped.map((s) => `${s.group} ${s.code}`);

describe('the reconcile lane: full runs cost what changed', function () {
  it('a full run with nothing changed gives the last answer without reading the target; a new checkpoint, a group with members, a partial run or the full-read period make it judge every group again', async function () {
    let now = 1_000_000;
    const t = target();
    const s = new GroupOffsetSyncer({ connection: /** @type {any} */ (t.connection), groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, fullTargetReadEveryMs: 60000, now: () => now });
    s.applyCheckpointsJson({ a: cp(5), b: cp(6) });
    const first = await s.sync();
    assert.deepEqual(first.written.map((w) => w.group), ['a', 'b']);
    const second = await s.sync(); // judged: both up to date (recorded as clean)
    assert.deepEqual(skips(second), ['a up-to-date', 'b up-to-date']);
    const fetched = t.calls.fetched;
    const lists = t.calls.list;
    const third = await s.sync();
    assert.deepEqual(skips(third), skips(second), 'the same answer');
    assert.equal(third.skipped, second.skipped, 'the clean run\'s list given again, not copied (10,000 entries a second at 10,000 groups)');
    assert.equal(third.partial, false);
    assert.equal(t.calls.list, lists + 1, 'the target\'s groups are still listed every full run');
    assert.equal(t.calls.fetched, fetched, 'nothing read again');

    // a checkpoint moved: judged again, written
    s.applyCheckpointsJson({ a: cp(9) });
    const moved = await s.sync();
    assert.deepEqual(moved.written.map((w) => `${w.group} ${w.offsets[0].offset}`), ['a 9']);
    await s.sync(); // clean again
    // a group got members on the target: the listing changed, judged again
    t.states.b = 'Stable';
    const active = await s.sync();
    assert.deepEqual(skips(active), ['a up-to-date', 'b group-active']);
    const again = await s.sync();
    assert.deepEqual(skips(again), ['a up-to-date', 'b group-active'], 'a group with members is a clean answer too');
    // someone else moved a's offset back on the target (the listing stays the same): seen by the read
    // once the full-read period passed, never by a run within it
    t.committed.a = 1;
    const within = await s.sync();
    assert.deepEqual(skips(within), ['a up-to-date', 'b group-active'], 'as remembered, within the period');
    now += 60000;
    const due = await s.sync();
    assert.deepEqual(due.written.map((w) => `${w.group} ${w.offsets[0].offset}`), ['a 9'], 'read again and written once the period passed');
    // a partial run in between: the next full run judges again (what it wrote is taken into account)
    s.applyCheckpointsJson({ a: cp(11) });
    const partial = await s.syncGroups(['a']);
    assert.deepEqual(partial.written.map((w) => `${w.group} ${w.offsets[0].offset}`), ['a 11']);
    assert.deepEqual(skips(await s.sync()), ['a up-to-date', 'b group-active']);
    await s.close();
  });

  it("the re-read spread over the period: each full run re-reads the groups due (one of the period's SPREAD_SLOTS phases), a clean answer stands only until the next one falls due, and every group is re-read within the period", async function () {
    let now = 1_000_000;
    const t = target();
    const P = 5000;
    const s = new GroupOffsetSyncer({ connection: /** @type {any} */ (t.connection), groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, fullTargetReadEveryMs: P, now: () => now });
    /** @type {Record<string, unknown>} */
    const json = {};
    for (let i = 0; i < 500; i++) json[`g${i}`] = cp(5);
    s.applyCheckpointsJson(json);
    await s.sync(); // every group new: read and written
    now += 1;
    await s.sync(); // judged: every group up to date as written (read at the start)
    // someone else moves every group back on the target: each is seen (and written again) when its re-read falls due
    for (let i = 0; i < 500; i++) t.committed[`g${i}`] = 1;
    const perRun = [];
    const rewritten = new Set();
    for (let k = 1; k <= 10; k++) {
      now += 1000;
      const before = t.calls.fetched;
      const r = await s.sync();
      perRun.push(t.calls.fetched - before);
      for (const w of r.written) {
        assert.equal(w.offsets[0].offset, 5n, 'written forward to the checkpoint');
        rewritten.add(w.group);
      }
      if (k === 5) assert.equal(rewritten.size, 500, 'every group re-read within the period');
    }
    // 500 groups, a run every 1 s, a period of 5 s cut into SPREAD_SLOTS (4) phases: 4 runs of 5
    // re-read about a quarter each (125), the fifth none; never all at once
    assert.ok(Math.max(...perRun) < 250, `re-reads per run ${perRun}`);
    assert.ok(perRun.slice(5).filter((n) => n > 0).length >= 4, `the steady runs re-read a share each, all but one a period: ${perRun}`);
    assert.ok(perRun.slice(5).some((n) => n === 0), `a run with no phase due re-reads nothing: ${perRun}`);
    // between two due moments a full run gives the last answer without reading anything
    const lists = t.calls.list;
    const fetched = t.calls.fetched;
    await s.sync();
    assert.equal(t.calls.list, lists + 1);
    assert.equal(t.calls.fetched, fetched, 'nothing due at the same moment: nothing read');
    await s.close();
  });

  it('in a sharing group (what a single Node-RED always is): the last answer is given again only while this instance owns every group and may write, under the same share', async function () {
    const t = target();
    let view = { kind: 'alone' };
    let every = true;
    let writable = true;
    const shares = { owns: () => every || true, ownsEvery: () => every, writable: () => writable, get current() { return view; } };
    // owning every group: a clean run's answer is given again, judging no group; kept only under its
    // share (a new share is another object), only while it owns every group and may write
    const s2 = new GroupOffsetSyncer({ connection: /** @type {any} */ (t.connection), groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, fullTargetReadEveryMs: 60000, shares });
    s2.applyCheckpointsJson({ a: cp(5), b: cp(6) });
    await s2.sync();
    await s2.sync();
    const lists = t.calls.list;
    // a reused answer and a judged one read the same (nothing) and answer the same: the run says
    // which it was (`reused`: the last clean answer given again, no group judged)
    /** @param {any} r */
    const how = (r) => (r.reused === true ? 'reused' : `judged ${r.skipped.length}`);
    assert.equal(how(await s2.sync()), 'reused', 'owning every group under the same share: the last answer, no group judged');
    assert.equal(t.calls.list, lists + 1, 'the target still listed every full run');
    view = { kind: 'alone' }; // the same words, another share object: a change of the share
    assert.equal(how(await s2.sync()), 'judged 2', 'a new share: every group judged again');
    assert.equal(how(await s2.sync()), 'reused', 'then the answer stands again');
    every = false; // another instance owns some groups now
    assert.equal(how(await s2.sync()), 'judged 2', 'not owning every group: judged every run');
    assert.equal(how(await s2.sync()), 'judged 2', 'not owning every group: judged every run');
    every = true;
    writable = false; // the lease does not hold
    assert.equal(how(await s2.sync()), 'judged 2', 'not free to write: judged');
    await s2.close();
  });

  it('QuietFullRuns: a group selected now that was not, another version or another listing: judged again; a group the filter does not select: the same', function () {
    const q = new QuietFullRuns();
    const versions = new Map([['a', 1], ['b', 2]]);
    let names = ['a', 'b'];
    const view = { groups: () => names, versionOf: (g) => versions.get(g) };
    const states = new Map();
    /** @type {any[]} */
    const skipped = [{ group: 'a', code: 'up-to-date', state: 'Empty', reason: '' }, { group: 'b', code: 'up-to-date', state: 'Empty', reason: '' }];
    assert.equal(cleanFullRun({ written: [], partitionsSkipped: [], clamped: [], rewound: [], deferred: 0, skipped }, 'refused'), true);
    assert.equal(cleanFullRun({ written: [], partitionsSkipped: [], clamped: [], rewound: [], deferred: 0, skipped: /** @type {any[]} */ ([{ ...skipped[0], state: undefined }]) }, 'refused'), false, 'a group not listed on the target');
    assert.equal(cleanFullRun({ written: [], partitionsSkipped: [], clamped: [], rewound: [], deferred: 0, skipped: [{ ...skipped[0], code: 'group-active', reason: 'refused' }] }, 'refused'), false, 'refused by the broker: until a newer listing');
    q.record({ groups: ['a', 'b'], versions: new Float64Array([1, 2]), states, view, epoch: 3, expiresAt: 100, skipped, clean: true });
    const accept = (g) => !g.startsWith('x');
    assert.equal(q.same(view, accept, states, 3, 50), skipped);
    assert.equal(q.same(view, accept, new Map(), 3, 50), null, 'another listing');
    assert.equal(q.same(view, accept, states, 4, 50), null, 'something else changed');
    assert.equal(q.same(view, accept, states, 3, 100), null, 'a read is due');
    names = ['a', 'ab', 'b'];
    assert.equal(q.same(view, accept, states, 3, 50), null, 'a group selected now');
    names = ['a', 'b', 'x1'];
    assert.equal(q.same(view, accept, states, 3, 50), skipped, 'a group the filter does not select');
    names = ['a'];
    assert.equal(q.same(view, accept, states, 3, 50), null, 'a group gone');
    names = ['a', 'b'];
    versions.set('b', 7);
    assert.equal(q.same(view, accept, states, 3, 50), null, 'a checkpoint changed');
    q.record({ groups: ['a'], versions: new Float64Array([1]), states, view, epoch: 3, expiresAt: 100, skipped, clean: false });
    assert.equal(q.held, false, 'an answer that was not clean is not kept');
  });

  it('LatestCheckpoints.reuse: the same object while the groups with checkpoints are the same', function () {
    const has = new Set(['a', 'c']);
    const store = { hasGroup: (g) => has.has(g), get: () => [], versionOf: () => 1 };
    const first = LatestCheckpoints.reuse(undefined, ['a', 'b', 'c'], store);
    assert.deepEqual([...first.keys()], ['a', 'c']);
    assert.equal(LatestCheckpoints.reuse(first, ['a', 'b', 'c'], store), first);
    has.add('b');
    const next = LatestCheckpoints.reuse(first, ['a', 'b', 'c'], store);
    assert.notEqual(next, first);
    assert.deepEqual([...next.keys()], ['a', 'b', 'c']);
    assert.notEqual(LatestCheckpoints.reuse(next, ['a', 'b', 'c'], { ...store }), next, 'another store');
  });

  it('TargetMembers: the same listing and groups give the answer held, without asking for coordinators', async function () {
    let states = new Map([['a', { state: 'Empty' }], ['b', { state: 'Stable' }]]);
    let asked = 0;
    const fetcher = { listGroupStates: async () => states, coordinatorFailures: async (g) => ((asked += g.length), new Map()) };
    const m = new TargetMembers(/** @type {any} */ ({ offsetFetcher: () => fetcher, settings: {} }));
    m.current = await m.list(['a', 'b']);
    assert.deepEqual([...m.current.members], [['a', false], ['b', true]]);
    const held = m.current;
    assert.equal(await m.list(['a', 'b']), held);
    states = new Map([['a', { state: 'Stable' }], ['b', { state: 'Stable' }]]);
    const changed = await m.list(['a', 'b']);
    assert.deepEqual([...changed.members], [['a', true], ['b', true]]);
    m.current = changed;
    const withNew = await m.list(['a', 'b', 'c']);
    assert.equal(asked, 1, 'a group not listed is asked for');
    assert.equal(withNew.members.get('c'), false);
  });

  it('CheckpointDiscovery: the same listing, nothing committed on a new partition and the offsets current: the last answer; otherwise a discovery', async function () {
    let ids = Object.freeze(['g1', 'g2']);
    let shape = 1;
    let fresh = true;
    let reads = 0;
    const topics = new Map([['g1', ['t']], ['g2', ['u']]]);
    const d = new CheckpointDiscovery(/** @type {any} */ ({
      source: { admin: async () => ({}) },
      groupFilter: createGroupFilter({}),
      topicFilter: { accept: (t) => t === 't' },
      listing: { listIds: async () => ids, others: () => [] },
      fullReads: { fresh: () => fresh, forDiscovery: async () => ((reads += 1), { topics, failed: new Map() }), invalidate: () => undefined },
      sourceOffsets: { get shape() { return shape; } },
      othersOfFlow: { of: async () => [] },
    }));
    const a = await d.run();
    assert.deepEqual(a.result.groups, ['g1']);
    assert.equal(a.reused, false);
    const b = await d.run();
    assert.equal(b.reused, true);
    assert.equal(b.result, a.result);
    assert.equal(reads, 1);
    shape = 2; // g2 committed on t
    topics.set('g2', ['u', 't']);
    const c = await d.run();
    assert.equal(c.reused, false);
    assert.deepEqual(c.result.groups, ['g1', 'g2']);
    fresh = false; // the full read is due
    assert.equal((await d.run()).reused, false);
    fresh = true;
    await d.run();
    ids = Object.freeze(['g1', 'g2', 'g3']); // another listing
    assert.equal((await d.run()).reused, false);
    d.invalidate();
    assert.equal((await d.run()).reused, false);
  });
});
