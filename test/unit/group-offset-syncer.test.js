'use strict';
/** GroupOffsetSyncer's own logic with an in-memory target (the real-broker behaviour is in test/integration/mm2-group-offsets.test.js). */
const assert = require('node:assert/strict');
const { GroupOffsetSyncer, FULL_TARGET_READ_EVERY_MS, COMMIT_SLICE_GROUPS } = require('../../dist/engines/group-offset-syncer');
const { createGroupFilter } = require('../../dist/core/filters');
const { encodeCheckpoint } = require('../../dist/core/checkpoint');

/**
 * A target held in memory (no broker): group states, committed offsets (commits land there),
 * topic 't' with 1 partition ending at 100. `gate` holds fetchMany until released.
 */
/**
 * @param {{ delayMs?: number, states?: Record<string, string>, committed?: Record<string, number> }} [o]
 */
function fakeConnection({ delayMs = 0, states = {}, committed = {} } = {}) {
  const calls = { list: 0, fetchMany: [], commits: [], commitBatches: [], lookups: [], inFlight: 0, maxInFlight: 0 };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  /** @type {{ committed: Record<string, number>, gate: Promise<void> | null }} */
  const target = { committed: { ...committed }, gate: null };
  const fetcher = {
    listGroupStates: async () => {
      calls.list++;
      calls.inFlight++;
      calls.maxInFlight = Math.max(calls.maxInFlight, calls.inFlight);
      await sleep(delayMs);
      calls.inFlight--;
      // as a broker lists them: every group with committed offsets (Empty), and those given a state
      const listed = new Map(Object.keys(target.committed).map((g) => [g, { state: 'Empty', protocolType: 'consumer' }]));
      for (const [g, state] of Object.entries(states)) listed.set(g, { state, protocolType: 'consumer' });
      return listed;
    },
    fetchMany: async (groups) => {
      calls.fetchMany.push([...groups]);
      if (target.gate) await target.gate;
      const offsets = new Map();
      for (const g of groups) {
        const c = target.committed[g];
        offsets.set(g, c === undefined ? [] : [{ topic: 't', partition: 0, offset: BigInt(c), metadata: '' }]);
      }
      return { offsets, failed: new Map() };
    },
  };
  /** @type {Partial<import('kafkajs').Admin>} */
  const admin = {
    fetchTopicOffsets: async () => [{ partition: 0, offset: '100', high: '100', low: '0' }],
    listTopics: async () => ['t'], // the topic exists (fetchEndOffsets looks it up first)
  };
  return {
    calls,
    target,
    connection: {
      admin: async () => /** @type {import('kafkajs').Admin} */ (admin),
      committer: () => ({
        findCoordinators: async (/** @type {readonly string[]} */ groups) => {
          calls.lookups.push(groups.length);
        },
        commitMany: async (list, { stop = () => false } = {}) => {
          calls.commitBatches.push(list.length);
          const out = new Map();
          for (const { group, offsets } of list) {
            if (stop()) {
              out.set(group, { ok: false, errorType: 'CLOSED' });
              continue;
            }
            calls.commits.push({ group, offsets });
            target.committed[group] = Number(offsets[0].offset);
            out.set(group, { ok: true });
          }
          return out;
        },
      }),
      offsetFetcher: () => fetcher,
      reportOk: () => undefined,
    },
  };
}

const cp = (downstreamOffset) => [{ topic: 't', partition: 0, downstreamOffset: String(downstreamOffset) }];

describe('GroupOffsetSyncer (no broker)', function () {
  it('never overlaps runs: requests during a run share one follow-up run', async function () {
    const { calls, connection } = fakeConnection({ delayMs: 30 });
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0 });
    s.applyCheckpointsJson({ g: cp(5) });
    const a = s.sync();
    assert.equal(s.busy, true);
    assert.equal(s.sync(), a, 'a request before the run started shares it');
    while (calls.list === 0) await new Promise((r) => setTimeout(r, 1)); // the run has started
    const b = s.sync();
    const c = s.sync();
    assert.equal(b, c, 'queued requests share the follow-up run');
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    assert.equal(ra.cycle, 1);
    assert.equal(rb.cycle, 2);
    assert.equal(rc.cycle, 2);
    assert.equal(calls.list, 2, 'one listing of the group states per full run');
    assert.equal(calls.maxInFlight, 1);
    assert.equal(s.busy, false);
  });

  it('the event lane: partial runs go side by side and never wait behind a full run; a group held by one run is written after it, from a fresh read, never backwards', async function () {
    const { calls, connection, target } = fakeConnection();
    const deferred = [];
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, onDeferredRun: (run) => deferred.push(run) });
    s.applyCheckpointsJson({ a: cp(5), b: cp(6), c: cp(7) });
    // a full run held at its read (the gate): it holds a, b and c
    let open = () => undefined;
    target.gate = new Promise((r) => (open = r));
    const full = s.sync();
    while (calls.fetchMany.length === 0) await new Promise((r) => setTimeout(r, 1));
    // a new checkpoint of b while the full run holds it: the partial run does not write b now
    s.applyCheckpointsJson({ b: cp(9) });
    target.gate = null; // the partial run's own read is not held
    const partial = await s.syncGroups(['b']);
    assert.deepEqual(partial.written, [], 'b is the full run\'s until it lets it go');
    assert.equal(calls.commits.length, 0);
    open();
    const f = await full;
    assert.deepEqual(f.written.map((w) => `${w.group} ${w.offsets[0].offset}`), ['a 5', 'c 7'], 'b, which an event waits for, is handed to the event\'s run with the full run\'s read');
    // b waited for the full run's read and is synced once it let it go, against that read (no read again)
    const until = Date.now() + 5000;
    while (deferred.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    assert.equal(deferred.length, 1);
    const reads = calls.fetchMany.length;
    const after = await deferred[0];
    assert.deepEqual(after.written.map((w) => `${w.group} ${w.offsets[0].offset}`), ['b 9']);
    assert.equal(calls.fetchMany.length, reads);
    assert.equal(target.committed.b, 9);
    // two partial runs at once: both in flight together (the second does not wait for the first)
    s.applyCheckpointsJson({ a: cp(10), c: cp(11) });
    let release = () => undefined;
    target.gate = new Promise((r) => (release = r));
    const reads2 = calls.fetchMany.length;
    const p1 = s.syncGroups(['a']);
    const p2 = s.syncGroups(['c']);
    while (calls.fetchMany.length < reads2 + 2) await new Promise((r) => setTimeout(r, 1));
    assert.deepEqual(calls.fetchMany.slice(reads2), [['a'], ['c']], 'both reads in flight before either ended');
    release();
    target.gate = null;
    const [r1, r2] = await Promise.all([p1, p2]);
    assert.deepEqual([...r1.written, ...r2.written].map((w) => `${w.group} ${w.offsets[0].offset}`).sort(), ['a 10', 'c 11']);
    await s.close();
  });

  it('a full run reads all groups in one batched read, writes only the groups that moved, and the next full run writes nothing', async function () {
    const { calls, connection } = fakeConnection({ committed: { b: 9 } });
    let clock = 1000000;
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, now: () => clock });
    s.applyCheckpointsJson({ a: cp(5), b: cp(9), c: cp(7) });
    const r = await s.sync();
    assert.deepEqual(calls.fetchMany, [['a', 'b', 'c']]);
    assert.deepEqual(r.written.map((w) => w.group), ['a', 'c']);
    assert.deepEqual(r.skipped.map((x) => `${x.group} ${x.code}`), ['b up-to-date']);
    assert.equal(r.partial, false);
    const again = await s.sync();
    assert.deepEqual(again.written, []);
    assert.equal(calls.commits.length, 2);
    assert.equal(calls.fetchMany.length, 1, 'groups up to date as read or written less than FULL_TARGET_READ_EVERY_MS ago are not read again');
    assert.deepEqual(again.skipped.map((x) => `${x.group} ${x.code}`), ['a up-to-date', 'b up-to-date', 'c up-to-date']);
    // a checkpoint that moved is read (fresh) and written by the full run
    s.applyCheckpointsJson({ c: cp(8) });
    const moved = await s.sync();
    assert.deepEqual(moved.written.map((w) => w.group), ['c']);
    assert.deepEqual(calls.fetchMany[1], ['c']);
    // what was read longer ago than FULL_TARGET_READ_EVERY_MS is read again: the target's offsets are refreshed
    clock += FULL_TARGET_READ_EVERY_MS;
    const later = await s.sync();
    assert.deepEqual(calls.fetchMany[2], ['a', 'b', 'c']);
    assert.deepEqual(later.written, []);
  });

  it('keeps no run result alive once the run is over (a full run at 10,000 groups reports 100,000 entries)', async function () {
    require('node:v8').setFlagsFromString('--expose-gc');
    const gc = require('node:vm').runInNewContext('gc');
    const { connection } = fakeConnection({ committed: { b: 9 } });
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0 });
    s.applyCheckpointsJson({ a: cp(5), b: cp(9) });
    const ref = await (async () => new WeakRef(await s.sync()))();
    for (let i = 0; i < 20 && ref.deref() !== undefined; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    assert.equal(ref.deref(), undefined, 'the result of the last run is collectable');
    assert.equal((await s.sync()).cycle, 2, 'runs still follow one another');
  });

  it('a group deleted on the target (no longer listed) is read and written again by the next full run, not a minute later', async function () {
    const { calls, connection, target } = fakeConnection();
    let clock = 0; // every reading of the clock a millisecond later: a listing is always newer than the write before it
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, now: () => ++clock });
    s.applyCheckpointsJson({ a: cp(5), b: cp(6) });
    assert.deepEqual((await s.sync()).written.map((w) => w.group), ['a', 'b']);
    assert.deepEqual((await s.sync()).written, []);
    assert.equal(calls.fetchMany.length, 1);
    delete target.committed.b; // deleted on the target
    const r = await s.sync();
    assert.deepEqual(r.written.map((w) => w.group), ['b']);
    assert.deepEqual(calls.fetchMany[1], ['b']);
  });

  it('syncGroups handles only the groups asked for; one already up to date by what was written is not read again', async function () {
    const { calls, connection } = fakeConnection();
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0 });
    s.applyCheckpointsJson({ a: cp(5), b: cp(6) });
    const r = await s.syncGroups(['a']);
    assert.equal(r.partial, true);
    assert.deepEqual(r.written, [{ group: 'a', offsets: [{ topic: 't', partition: 0, offset: 5n }] }]);
    assert.deepEqual(calls.fetchMany, [['a']]);
    const r2 = await s.syncGroups(['a', 'unknown-group']);
    assert.deepEqual(r2.skipped.map((x) => `${x.group} ${x.code}`), ['a up-to-date']);
    assert.deepEqual(calls.fetchMany, [['a']], 'what we wrote is remembered');
    s.applyCheckpointsJson({ a: cp(8) });
    const r3 = await s.syncGroups(['a']);
    assert.deepEqual(r3.written.map((w) => w.offsets[0].offset), [8n]);
    assert.deepEqual(calls.fetchMany, [['a'], ['a']], 'a group to write is read fresh first');
  });

  it('the event lane never waits for a listing it holds: an old one is taken and read again beside the run', async function () {
    const { calls, connection } = fakeConnection();
    let clock = 1000000;
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, now: () => clock });
    s.applyCheckpointsJson({ a: cp(5), b: cp(5) });
    await s.sync();
    assert.equal(calls.list, 1);
    const fetcher = connection.offsetFetcher();
    const listOnce = fetcher.listGroupStates;
    fetcher.listGroupStates = () => {
      calls.list++;
      return new Promise(() => undefined); // the target does not answer the listing now
    };
    s.applyCheckpointsJson({ a: cp(7) });
    clock += 5000;
    assert.deepEqual((await s.syncGroups(['a'])).written.map((w) => w.group), ['a']);
    assert.equal(calls.list, 1, 'a listing 5 s old serves without another');
    s.applyCheckpointsJson({ b: cp(8) });
    clock += 60000;
    assert.deepEqual((await s.syncGroups(['b'])).written.map((w) => w.group), ['b'], 'written without waiting for the listing');
    assert.equal(calls.list, 2, 'one read beside the run');
    fetcher.listGroupStates = listOnce;
    await s.close();
  });

  it('a commit refused for members (UNKNOWN_MEMBER_ID): reported active, neither read nor written again until a newer listing', async function () {
    const { calls, connection, target } = fakeConnection({ committed: { g: 1 } });
    let clock = 1000000;
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, now: () => ++clock });
    const commits = connection.committer();
    let members = false;
    connection.committer = () => ({
      findCoordinators: commits.findCoordinators,
      commitMany: async (list, o) => (members ? new Map(list.map((c) => [c.group, { ok: false, errorType: 'UNKNOWN_MEMBER_ID', message: 'members' }])) : commits.commitMany(list, o)),
    });
    s.applyCheckpointsJson({ g: cp(5) });
    await s.sync();
    members = true; // a consumer joined on the target after the listing
    s.applyCheckpointsJson({ g: cp(6) });
    const r = await s.syncGroups(['g']);
    assert.deepEqual(r.skipped.map((x) => `${x.group} ${x.code}`), ['g group-active']);
    const reads = calls.fetchMany.length;
    s.applyCheckpointsJson({ g: cp(7) });
    const again = await s.syncGroups(['g']);
    assert.deepEqual(again.skipped.map((x) => `${x.group} ${x.code}`), ['g group-active']);
    assert.match(again.skipped[0].reason, /refused/);
    assert.equal(calls.fetchMany.length, reads, 'not read again');
    assert.equal(target.committed.g, 5);
    // the consumer left: a full run lists afresh and writes it
    members = false;
    assert.deepEqual((await s.sync()).written.map((w) => `${w.group} ${w.offsets[0].offset}`), ['g 7']);
  });

  it('a full run holds only the groups it may write: an event for a group it found up to date is not held up behind it', async function () {
    const { calls, connection } = fakeConnection();
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0 });
    s.applyCheckpointsJson({ a: cp(5), b: cp(5) });
    await s.sync();
    const fetcher = connection.offsetFetcher();
    const fetchMany = fetcher.fetchMany;
    /** @type {() => void} */
    let release = () => undefined;
    /** @type {Promise<void>} */
    const gate = new Promise((r) => (release = () => r()));
    fetcher.fetchMany = async (groups) => {
      if (groups.includes('b')) await gate; // the full run's read of b does not answer yet
      return fetchMany(groups);
    };
    s.applyCheckpointsJson({ b: cp(6) });
    const full = s.sync();
    while (!calls.fetchMany.some((g) => g.includes('b'))) await new Promise((r) => setTimeout(r, 1));
    s.applyCheckpointsJson({ a: cp(7) }); // after the full run planned a as up to date
    const r = await s.syncGroups(['a']);
    assert.deepEqual(r.written.map((w) => `${w.group} ${w.offsets[0].offset}`), ['a 7'], 'written while the full run still waits for its read');
    release();
    assert.deepEqual((await full).written.map((w) => `${w.group} ${w.offsets[0].offset}`), ['b 6']);
    await s.close();
  });

  it('a full run takes a group only once it plans to read it: an event for a group its plan pass has not reached runs at once, the full run leaves that group to it; never backwards, a group with members never touched', async function () {
    const N = 1600; // four slices of the plan pass (SLICE_GROUPS 500): events run in between
    const name = (i) => `g${String(i).padStart(4, '0')}`;
    /** @type {Record<string, number>} */
    const committed = {};
    for (let i = 0; i < N; i++) committed[name(i)] = 5;
    const { calls, connection, target } = fakeConnection({ committed, states: { [name(1400)]: 'Stable' } });
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0 });
    /** @type {Record<string, unknown>} */
    const json = {};
    for (let i = 0; i < N; i++) json[name(i)] = cp(5);
    s.applyCheckpointsJson(json);
    await s.sync(); // read, every group up to date
    // the full run: g0001 moved (read and written by it); an event for g1200 starts as its plan pass is at g0100
    s.applyCheckpointsJson({ [name(1)]: cp(6), [name(1400)]: cp(9) });
    const view = /** @type {any} */ (s).view;
    const versionOf = view.versionOf.bind(view);
    /** @type {Promise<any> | null} */
    let partial = null;
    let heldWhenReached = false;
    view.versionOf = (g) => {
      if (g === name(100) && partial === null) {
        s.applyCheckpointsJson({ [name(1200)]: cp(8) });
        partial = s.syncGroups([name(1200)]);
      }
      if (g === name(1200)) heldWhenReached = /** @type {any} */ (s).held.has(g);
      return versionOf(g);
    };
    // the event's read waits until the full run's plan pass went past its group
    const fetcher = connection.offsetFetcher();
    const fetchMany = fetcher.fetchMany;
    /** @type {() => void} */
    let release = () => undefined;
    const gate = new Promise((r) => (release = () => r(undefined)));
    fetcher.fetchMany = async (groups) => {
      if (groups.includes(name(1200))) await gate;
      return fetchMany(groups);
    };
    const reads = calls.fetchMany.length;
    const full = s.sync();
    const f = await full; // never waits for the event's run (its read is held until released below)
    assert.ok(partial !== null, 'the event came during the plan pass');
    assert.equal(heldWhenReached, true, 'the event\'s run held its group when the full run reached it');
    assert.deepEqual(f.written.map((w) => `${w.group} ${w.offsets[0].offset}`), [`${name(1)} 6`]);
    assert.equal(f.skipped.some((x) => x.group === name(1200)), false, 'left to the event\'s run: not judged by the full run');
    assert.equal(f.skipped.find((x) => x.group === name(1400))?.code, 'group-active');
    release();
    const p = await /** @type {Promise<any>} */ (partial);
    assert.deepEqual(p.written.map((w) => `${w.group} ${w.offsets[0].offset}`), [`${name(1200)} 8`]);
    // never backwards: each group's commits only move forward; the group with members was neither read nor written
    /** @type {Map<string, number>} */
    const last = new Map();
    for (const c of calls.commits) {
      const o = Number(c.offsets[0].offset);
      assert.ok(o >= (last.get(c.group) ?? committed[c.group]), `${c.group} moved back to ${o}`);
      last.set(c.group, o);
    }
    assert.equal(calls.commits.filter((c) => c.group === name(1200)).length, 1, 'written once');
    assert.equal(calls.commits.some((c) => c.group === name(1400)), false);
    assert.equal(calls.fetchMany.slice(reads).some((g) => g.includes(name(1400))), false);
    assert.equal(target.committed[name(1400)], 5);
    // the next full run judges every group again (this one's answer is not given again: g1200 was not judged)
    const next = await s.sync();
    assert.equal(next.skipped.find((x) => x.group === name(1200))?.code, 'up-to-date');
    await s.close();
  });

  it('the event lane takes the log ends held when they clamp nothing; a checkpoint beyond them is read first', async function () {
    const { connection } = fakeConnection();
    const admin = await connection.admin();
    let endReads = 0;
    let lists = 0;
    let end = 100;
    admin.listTopics = async () => {
      lists++;
      return ['t'];
    };
    admin.fetchTopicOffsets = async () => {
      endReads++;
      return [{ partition: 0, offset: String(end), high: String(end), low: '0' }];
    };
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0 });
    s.applyCheckpointsJson({ a: cp(5) });
    await s.sync();
    assert.equal(endReads, 1);
    s.applyCheckpointsJson({ a: cp(90) });
    assert.deepEqual((await s.syncGroups(['a'])).written.map((w) => w.offsets[0].offset), [90n]);
    assert.equal(endReads, 1, 'the ends held serve');
    end = 200;
    s.applyCheckpointsJson({ a: cp(150) });
    const r = await s.syncGroups(['a']);
    assert.deepEqual(r.written.map((w) => w.offsets[0].offset), [150n], 'not clamped at the end held (100): read again first');
    assert.deepEqual(r.clamped, []);
    assert.equal(endReads, 2);
    assert.equal(lists, 1, 'a topic read before is not looked up again by the event lane (the full run looks it up)');
    s.applyCheckpointsJson({ a: cp(160) });
    await s.sync();
    assert.equal(lists, 2);
    await s.close();
  });

  for (const lane of ['a partial run (the catch-up: every group a first checkpoint cycle changed)', 'a full run']) {
    it(`${lane} over more groups than a commit slice commits slice by slice: every group decided as in one piece, written once, never backwards, clamped at the log end, a group with members untouched`, async function () {
      const n = 2 * COMMIT_SLICE_GROUPS + 234;
      const name = (i) => `g${String(i).padStart(5, '0')}`;
      /** @type {Record<string, number>} */
      const committed = {};
      /** @type {Record<string, string>} */
      const states = {};
      /** @type {Record<string, unknown>} */
      const latest = {};
      for (let i = 0; i < n; i++) {
        if (i % 7 === 0) committed[name(i)] = 50; // ahead of the checkpoint (5): never moved backwards
        if (i % 11 === 0) states[name(i)] = 'Stable'; // members: never touched
        latest[name(i)] = cp(i % 13 === 0 ? 150 : 5); // 150: beyond the log end (100), clamped
      }
      const { calls, connection, target } = fakeConnection({ committed, states });
      const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0 });
      s.applyCheckpointsJson(latest);
      const all = Object.keys(latest);
      const r = lane.startsWith('a partial') ? await s.syncGroups(all) : await s.sync();
      const expected = all.filter((g, i) => i % 11 !== 0 && (i % 7 !== 0 || i % 13 === 0));
      assert.deepEqual(r.written.map((w) => w.group), expected);
      assert.ok(calls.commitBatches.length > 1 && calls.commitBatches.every((k) => k <= COMMIT_SLICE_GROUPS), `slices of at most ${COMMIT_SLICE_GROUPS}: ${calls.commitBatches}`);
      assert.equal(calls.commits.length, expected.length, 'each group committed once');
      assert.deepEqual(calls.lookups, [all.length - all.filter((g, i) => i % 11 === 0).length], 'the coordinators of every group it may write looked up once, not per slice');
      for (let i = 0; i < n; i++) {
        const g = name(i);
        const want = i % 11 === 0 ? committed[g] : i % 13 === 0 ? 100 : i % 7 === 0 ? 50 : 5;
        assert.equal(target.committed[g], want, g);
      }
      assert.deepEqual(r.clamped.map((c) => c.group), expected.filter((g) => Number(g.slice(1)) % 13 === 0));
      assert.equal(r.skipped.filter((x) => x.code === 'group-active').length, all.filter((g, i) => i % 11 === 0).length);
      assert.equal(r.skipped.filter((x) => x.code === 'up-to-date').length, all.filter((g, i) => i % 11 !== 0 && i % 7 === 0 && i % 13 !== 0).length, 'a target ahead: nothing to write, reported up to date');
      assert.equal(s.busy, false);
    });
  }

  it('never backwards: a target offset ahead of the checkpoint stays; a group with members is neither read nor written', async function () {
    const { calls, connection, target } = fakeConnection({ committed: { ahead: 50 }, states: { busy: 'Stable', ahead: 'Empty' } });
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}) });
    s.applyCheckpointsJson({ ahead: cp(5), busy: cp(5) });
    const r = await s.syncGroups(['ahead', 'busy']);
    assert.deepEqual(r.written, []);
    assert.deepEqual(r.skipped.map((x) => `${x.group} ${x.code} ${x.state}`), ['ahead up-to-date Empty', 'busy group-active Stable']);
    assert.deepEqual(calls.fetchMany, [['ahead']]);
    assert.deepEqual(calls.commits, []);
    assert.equal(target.committed.ahead, 50);
  });

  it('the floor: a group asked again within it is written once when it ends, with the latest checkpoint', async function () {
    const { calls, connection } = fakeConnection();
    const deferred = [];
    // the syncer's clock moves only when the test says (a loaded machine must not end the floor early)
    let clock = 1000000;
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 150, now: () => clock, onDeferredRun: (run) => deferred.push(run) });
    s.applyCheckpointsJson({ g: cp(1), h: cp(1) });
    const r1 = await s.syncGroups(['g']);
    assert.equal(r1.written.length, 1);
    s.applyCheckpointsJson({ g: cp(2) });
    const r2 = await s.syncGroups(['g', 'h']);
    assert.equal(r2.deferred, 1, 'g waits for the floor');
    assert.deepEqual(r2.written.map((w) => w.group), ['h']);
    s.applyCheckpointsJson({ g: cp(3) });
    const r3 = await s.syncGroups(['g']);
    assert.equal(r3.deferred, 1);
    assert.deepEqual(r3.written, []);
    // the floor ends: a run for g, with its latest checkpoint (a timer that fired before the clock
    // moved found the floor still on and set itself again: such a run writes nothing)
    clock += 200;
    const until = Date.now() + 4000;
    const writtenByDeferred = async () => (await Promise.all(deferred)).flatMap((r) => r.written);
    while ((await writtenByDeferred()).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(await writtenByDeferred(), [{ group: 'g', offsets: [{ topic: 't', partition: 0, offset: 3n }] }], 'one write of g when the floor ends');
    assert.deepEqual(calls.commits.map((c) => `${c.group}=${c.offsets[0].offset}`), ['g=1', 'h=1', 'g=3'], 'g written twice in all, never dropped');
    await s.close();
  });

  it('close abandons a running run: no request after it, the run rejects, close resolves', async function () {
    const { calls, connection, target } = fakeConnection();
    /** @type {() => void} */
    let release = () => undefined;
    target.gate = new Promise((r) => (release = r));
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}) });
    /** @type {Record<string, unknown>} */
    const latest = {};
    for (let i = 0; i < 10000; i++) latest[`g${i}`] = cp(i + 1);
    s.applyCheckpointsJson(latest);
    const run = s.sync();
    while (calls.fetchMany.length === 0) await new Promise((r) => setTimeout(r, 5));
    const closed = s.close();
    release();
    await closed;
    await assert.rejects(run, /abandoned|closed/);
    assert.deepEqual(calls.commits, [], 'no commit issued after close');
    await assert.rejects(() => s.syncGroups(['g1']), /closed/);
  });

  it('last checkpoint wins per group and partition; malformed records are counted, not thrown', function () {
    const { connection } = fakeConnection();
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}) });
    const r1 = encodeCheckpoint({ group: 'g', topic: 't', partition: 0, upstreamOffset: 10, downstreamOffset: 9 });
    const r2 = encodeCheckpoint({ group: 'g', topic: 't', partition: 0, upstreamOffset: 5, downstreamOffset: 4 });
    assert.equal(s.applyRecord(r1), null);
    const err = s.applyRecord({ key: r1.key, value: null });
    assert.equal(err.name, 'MalformedRecordError');
    assert.equal(s.applyRecord({ key: null, value: null }).name, 'MalformedRecordError');
    assert.equal(s.applyRecord(r2), null);
    assert.deepEqual(s.checkpointsOf('g').map((c) => c.downstreamOffset), [4n], 'log order wins, not the largest');
    assert.deepEqual(s.stats, { groups: 1, partitions: 1, received: 2, malformed: 2 });
    assert.deepEqual(s.applyCheckpointsJson({ g: [{ topic: 't', partition: 1, downstreamOffset: '1' }, { topic: '' }], h: 'nope' }), { accepted: 1, malformed: 2, groups: ['g'], changed: ['g'] });
    // the same checkpoint again changes nothing; a moved one does
    assert.deepEqual(s.applyCheckpointsJson({ g: [{ topic: 't', partition: 1, downstreamOffset: '1' }] }).changed, []);
    assert.deepEqual(s.applyCheckpointsJson({ g: [{ topic: 't', partition: 1, downstreamOffset: '2' }] }).changed, ['g']);
    assert.deepEqual(s.stats, { groups: 1, partitions: 2, received: 5, malformed: 4 });
  });

  it('a checkpoint record with a negative offset is skipped and counted, never stored (it would be written to the target)', function () {
    const { connection } = fakeConnection();
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}) });
    const good = encodeCheckpoint({ group: 'g', topic: 't', partition: 0, upstreamOffset: 10, downstreamOffset: 9 });
    const forged = encodeCheckpoint({ group: 'g', topic: 't', partition: 0, upstreamOffset: 20, downstreamOffset: -5 });
    assert.equal(s.applyRecord(good), null);
    const err = s.applyRecord(forged);
    assert.equal(err.name, 'AbsurdRecordError');
    assert.match(err.message, /negative/);
    assert.deepEqual(s.checkpointsOf('g').map((c) => c.downstreamOffset), [9n], 'the forged record does not replace the good one');
    assert.deepEqual(s.stats, { groups: 1, partitions: 1, received: 1, malformed: 1 });
  });

  it('writes only groups the filter accepts, and rejects after close', async function () {
    const { calls, connection } = fakeConnection();
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({ groups: 'keep-.*' }) });
    s.applyCheckpointsJson({
      'keep-1': [{ topic: 't', partition: 0, downstreamOffset: '7', metadata: 'm' }],
      'drop-1': [{ topic: 't', partition: 0, downstreamOffset: '7' }],
    });
    const r = await s.sync();
    assert.deepEqual(r.written, [{ group: 'keep-1', offsets: [{ topic: 't', partition: 0, offset: 7n }] }]);
    assert.deepEqual(calls.commits, [{ group: 'keep-1', offsets: [{ topic: 't', partition: 0, offset: 7n, metadata: 'm' }] }]);
    await s.close();
    await assert.rejects(() => s.sync(), /closed/);
  });

  describe('rewinds of a group on the source (issue 26)', function () {
    const rec = (group, up, down) => encodeCheckpoint({ group, topic: 't', partition: 0, upstreamOffset: up, downstreamOffset: down });

    it('followRewinds: a checkpoint with a lower upstream offset moves the memberless target group back once, reported as rewound', async function () {
      const { calls, target, connection } = fakeConnection();
      const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, followRewinds: true });
      s.applyRecord(rec('g', 50, 50));
      await s.sync();
      assert.equal(target.committed.g, 50);
      s.applyRecord(rec('g', 20, 20)); // kafka-consumer-groups --reset-offsets --to-offset 20 on the source
      assert.equal(s.pendingRewinds('g').length, 1);
      const r = await s.syncGroups(['g']);
      assert.equal(target.committed.g, 20);
      assert.deepEqual(r.written, [{ group: 'g', offsets: [{ topic: 't', partition: 0, offset: 20n }] }]);
      assert.deepEqual(
        r.rewound.map((x) => [x.group, x.targetOffset, x.offset, x.fromUpstream, x.toUpstream]),
        [['g', 50n, 20n, 50n, 20n]],
      );
      assert.deepEqual(s.pendingRewinds('g'), [], 'once');
      // afterwards a lower translation without an upstream rewind never moves the group back
      s.applyRecord(rec('g', 25, 18));
      const after = await s.syncGroups(['g']);
      assert.deepEqual(after.written, []);
      assert.deepEqual(after.rewound, []);
      assert.equal(target.committed.g, 20);
      assert.equal(calls.commits.length, 2);
    });

    it("without followRewinds (MM2's behaviour) the target stays ahead and the rewind is named once", async function () {
      const { target, connection } = fakeConnection();
      const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0 });
      s.applyRecord(rec('g', 50, 50));
      await s.sync();
      s.applyRecord(rec('g', 20, 20));
      const r = await s.syncGroups(['g']);
      assert.equal(target.committed.g, 50);
      assert.deepEqual(r.rewound, []);
      assert.deepEqual(r.partitionsSkipped.map((x) => x.code), ['rewind-not-followed']);
      const again = await s.sync();
      assert.deepEqual(again.partitionsSkipped, [], 'reported once');
      assert.equal(target.committed.g, 50);
    });

    it('a group with members on the target is never touched, also not once it is empty again', async function () {
      const states = { g: 'Stable' };
      const { target, connection } = fakeConnection({ states, committed: { g: 50 } });
      const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, followRewinds: true });
      s.applyRecord(rec('g', 50, 50));
      s.applyRecord(rec('g', 20, 20));
      const r = await s.sync();
      assert.deepEqual(r.skipped.map((x) => x.code), ['group-active']);
      states.g = 'Empty';
      const later = await s.sync();
      assert.deepEqual(later.written, []);
      assert.deepEqual(later.rewound, []);
      assert.equal(target.committed.g, 50);
    });

    it('the rewind is read back from the checkpoints topic after a restart (the record before it is the state)', async function () {
      const { target, connection } = fakeConnection({ committed: { g: 50 } });
      const restarted = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, followRewinds: true });
      for (const r of [rec('g', 40, 40), rec('g', 50, 50), rec('g', 20, 20)]) restarted.applyRecord(r);
      const r = await restarted.sync();
      assert.equal(target.committed.g, 20);
      assert.equal(r.rewound.length, 1);
      // already followed before the restart (the target sits at the newest checkpoint): nothing to do
      const { target: t2, connection: c2 } = fakeConnection({ committed: { g: 30 } });
      const again = new GroupOffsetSyncer({ connection: c2, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, followRewinds: true });
      for (const x of [rec('g', 50, 50), rec('g', 20, 20), rec('g', 30, 30)]) again.applyRecord(x);
      const r2 = await again.sync();
      assert.deepEqual(r2.written, []);
      assert.equal(t2.committed.g, 30);
    });

    it('mode replication: a rewind one writer followed is not followed again by the next one (the node redeployed), after the target moved on', async function () {
      const { ReplicationRuntime } = require('../../dist/engines/replication-runtime');
      const { followRuntime } = require('../../dist/engines/replication-runtime');
      const c = (up, down) => ({ group: 'g', topic: 't', partition: 0, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down), metadata: '' });
      const { target, connection } = fakeConnection({ committed: { g: 50 } });
      const rt = new ReplicationRuntime();
      const store = rt.open({ selected: () => ['g'] }, () => true);
      store.loadRecord(c(50, 50));
      store.loadRecord(c(20, 20)); // rewound on the source
      store.markLoaded(true);
      rt.restored(store);
      const hooks = () => ({ active: () => false, fullRun() {}, ran() {}, following() {} });
      const first = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, followRewinds: true });
      const stopFirst = followRuntime({ runtime: rt, syncer: first, ...hooks() });
      const r = await first.sync();
      assert.equal(target.committed.g, 20, 'the rewind followed');
      assert.equal(r.rewound.length, 1);
      stopFirst(); // the node is redeployed
      target.committed.g = 35; // the group's consumers ran on the target meanwhile
      const second = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, followRewinds: true });
      followRuntime({ runtime: rt, syncer: second, ...hooks() });
      assert.deepEqual(second.pendingRewinds('g'), [], 'the acted-on mark is gone from the runtime');
      const again = await second.sync();
      assert.deepEqual(again.written, []);
      assert.equal(target.committed.g, 35, 'never moved back a second time');
    });

    it('mode replication: the groups a checkpoint cycle changed are written by the writer itself, only while it is active', async function () {
      const { ReplicationRuntime } = require('../../dist/engines/replication-runtime');
      const { followRuntime } = require('../../dist/engines/replication-runtime');
      const c = (up, down) => ({ group: 'g', topic: 't', partition: 0, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down), metadata: '' });
      const { target, connection } = fakeConnection({ committed: { g: 10 } });
      const rt = new ReplicationRuntime();
      const store = rt.open({ selected: () => ['g'] }, () => true);
      store.loadRecord(c(10, 10));
      store.markLoaded(true);
      rt.restored(store);
      let active = false;
      const runs = [];
      const events = { full: 0, following: [] };
      const syncer = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, followRewinds: true });
      const stop = followRuntime({
        runtime: rt, syncer,
        active: () => active,
        fullRun: () => events.full++,
        ran: (run) => runs.push(run),
        following: (on) => events.following.push(on),
      });
      assert.deepEqual(events.following, [true], 'attached: an emitter keeps its store in the runtime');
      assert.equal(events.full, 1, 'the store is restored: one full run asked at once');
      store.update('g', [c(30, 30)]);
      rt.cycled();
      assert.equal(runs.length, 0, 'not active yet: nothing written by the event path');
      active = true;
      store.update('g', [c(40, 40)]);
      rt.cycled();
      assert.equal(runs.length, 1, 'the changed group is written at once');
      const r = await runs[0];
      assert.deepEqual(r.written.map((w) => w.group), ['g']);
      assert.equal(target.committed.g, 40);
      stop();
      store.update('g', [c(50, 50)]);
      rt.cycled();
      assert.equal(runs.length, 1, 'stopped: no longer follows the runtime');
    });

    describe('mode input: rewinds recovered from one replay of the checkpoints topic (adoptRewinds)', function () {
      const { RewindHistory } = require('../../dist/core/rewind-history');
      const { decodeCheckpoint } = require('../../dist/core/checkpoint');
      const history = (...records) => {
        const h = new RewindHistory();
        for (const r of records) h.note(decodeCheckpoint(r.key, r.value));
        return h;
      };
      const json = (up, down) => [{ topic: 't', partition: 0, upstreamOffset: String(up), downstreamOffset: String(down) }];

      it('the wire delivered only the latest checkpoint: the replay gives the rewind and the group follows it once', async function () {
        const { target, connection } = fakeConnection({ committed: { g: 50 } });
        const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, followRewinds: true });
        s.applyCheckpointsJson({ g: json(20, 20) }); // the checkpoint node's whole state after the restart
        const before = await s.sync();
        assert.deepEqual(before.written, [], 'without the replay: never backwards');
        assert.equal(target.committed.g, 50);
        assert.deepEqual(s.adoptRewinds(history(rec('g', 50, 50), rec('g', 20, 20))), ['g']);
        const r = await s.syncGroups(['g']);
        assert.equal(target.committed.g, 20);
        assert.deepEqual(r.rewound.map((x) => [x.group, x.offset, x.fromUpstream]), [['g', 20n, 50n]]);
        assert.deepEqual(s.pendingRewinds('g'), [], 'once');
      });

      it('before the wire delivered anything, the mark waits for the wire\'s checkpoint; the node\'s groups stay those of its wire', async function () {
        const { target, connection } = fakeConnection({ committed: { g: 50 } });
        const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, followRewinds: true });
        assert.deepEqual(s.adoptRewinds(history(rec('g', 50, 50), rec('g', 20, 20), rec('h', 10, 10))), [], 'nothing held: nothing to sync now');
        assert.deepEqual(s.checkpointsOf('g'), [], 'the topic\'s history does not become the node\'s checkpoints');
        assert.deepEqual(s.checkpointsOf('h'), [], 'a partition without a rewind is left to the wire');
        assert.equal(s.pendingRewinds('g').length, 1, 'the mark is kept');
        // the wire delivers the rewound checkpoint (the checkpoint node's whole state after its restart)
        s.applyCheckpointsJson({ g: json(20, 20) });
        await s.sync();
        assert.equal(target.committed.g, 20, 'the rewind is followed');
      });

      it('a mark adopted before the wire delivered anything is dropped when the wire\'s checkpoint is past where the group was rewound from', async function () {
        const { target, connection } = fakeConnection({ committed: { g: 50 } });
        const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, followRewinds: true });
        s.adoptRewinds(history(rec('g', 50, 50), rec('g', 20, 20)));
        s.applyCheckpointsJson({ g: json(55, 55) });
        assert.deepEqual(s.pendingRewinds('g'), []);
        await s.sync();
        assert.equal(target.committed.g, 55, 'forward as usual, never back');
      });

      it('a group that moved on past the upstream offset it was rewound from (as the wire says) takes no mark', async function () {
        const { target, connection } = fakeConnection({ committed: { g: 60 } });
        const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, followRewinds: true });
        s.applyCheckpointsJson({ g: json(60, 60) });
        assert.deepEqual(s.adoptRewinds(history(rec('g', 50, 50), rec('g', 20, 20))), []);
        assert.deepEqual(s.pendingRewinds('g'), []);
        const r = await s.sync();
        assert.deepEqual(r.written, []);
        assert.equal(target.committed.g, 60);
      });

      it('a rewind already followed before the restart writes nothing again; a lower translation without a rewind never moves back', async function () {
        const { target, connection } = fakeConnection({ committed: { g: 20, h: 30 } });
        const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, followRewinds: true });
        s.applyCheckpointsJson({ g: json(20, 20), h: json(25, 25) });
        s.adoptRewinds(history(rec('g', 50, 50), rec('g', 20, 20), rec('h', 20, 30), rec('h', 25, 25)));
        const r = await s.sync();
        assert.deepEqual(r.written, []);
        assert.deepEqual([target.committed.g, target.committed.h], [20, 30]);
      });
    });
  });
});

describe('GroupOffsetSyncer with a share of the flow (issue 25, no broker)', function () {
  it('writes only the groups this instance owns, and nothing while its lease does not hold (skipped as fenced, written by the next run)', async function () {
    const { calls, connection, target } = fakeConnection();
    const shares = { owned: new Set(['a']), canWrite: true, owns(g) { return this.owned.has(g); }, writable() { return this.canWrite; } };
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, shares });
    s.applyCheckpointsJson({ a: cp(5), b: cp(6) });
    const r1 = await s.sync();
    assert.deepEqual(r1.written.map((w) => w.group), ['a'], 'b is another instance\'s');
    assert.equal(target.committed.b, undefined);
    shares.canWrite = false;
    s.applyCheckpointsJson({ a: cp(7) });
    const r2 = await s.sync();
    assert.deepEqual(r2.written, []);
    assert.deepEqual(r2.skipped.map((x) => [x.group, x.code]), [['a', 'fenced']]);
    assert.equal(target.committed.a, 5, 'nothing committed without a lease');
    shares.canWrite = true;
    const r3 = await s.sync();
    assert.deepEqual(r3.written.map((w) => [w.group, w.offsets[0].offset]), [['a', 7n]]);
    assert.equal(calls.commits.length, 2);
  });

  it('a lease that stops holding while the commits go out (a pause during the coordinator lookup): nothing more is sent, skipped as fenced, not a target failure', async function () {
    const { calls, connection, target } = fakeConnection();
    let asked = 0;
    // holds at the check before the commits, then no more (the process was paused and woke without a lease)
    const shares = { owns: () => true, writable: () => ++asked <= 1 };
    const reported = [];
    connection.reportError = (e) => reported.push(e.message);
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, shares });
    s.applyCheckpointsJson({ a: cp(5), b: cp(6) });
    const r = await s.sync();
    assert.deepEqual(r.written, []);
    assert.deepEqual(r.skipped.map((x) => [x.group, x.code]).sort(), [['a', 'fenced'], ['b', 'fenced']]);
    assert.equal(calls.commits.length, 0, 'nothing sent once the lease did not hold');
    assert.deepEqual([target.committed.a, target.committed.b], [undefined, undefined]);
    assert.deepEqual(reported, [], 'the target is not reported as failing');
  });
});
