'use strict';
/**
 * CheckpointEmitter's own bookkeeping with in-memory connections (no broker): a checkpoint
 * counts as written only when the write was acknowledged, whatever failed; an unreachable target
 * or source is reported, never a quiet cycle. The real-broker behaviour is in
 * test/integration/checkpoint-write-retry.test.js and the drills.
 */
const assert = require('node:assert/strict');
const { CheckpointEmitter, mergeCycleOptions } = require('../../dist/engines/checkpoint-emitter');
const { GroupOffsetSyncer } = require('../../dist/engines/group-offset-syncer');
const { createReplicationPolicy } = require('../../dist/core/replication-policy');
const { createGroupFilter, createTopicFilter } = require('../../dist/core/filters');
const { checkpointsOf } = require('../harness/record-batches');

const CP_TOPIC = 'source.checkpoints.internal';

/**
 * A connection answering from memory; `fail` says which calls reject now.
 * @param {string} alias
 * @param {{
 *   groups?: Record<string, Array<{ topic: string, partition: number, offset: bigint, metadata: string }>>,
 *   states?: Record<string, string>,
 *   denied?: string[],
 *   fail?: { listGroups?: boolean, hangRestore?: boolean, restore?: boolean, probe?: boolean, topicUnseen?: boolean, restoreRefused?: boolean,
 *            admin?: boolean, producer?: boolean, send?: boolean, fetch?: boolean, listGroupStates?: boolean }
 * }} [options]
 * `states`: the groups ListGroups lists, with their states (the groups of `denied` are left out,
 * as a broker does for a principal without DESCRIBE on them, and their coordinator is refused).
 */
function memoryConnection(alias, { groups = {}, states = {}, denied = [], fail = {} } = {}) {
  const state = { errors: [], oks: 0, sent: [], listings: 0, states, denied, unavailable: [], coordinatorsAsked: [] };
  const admin = {
    listGroups: async () => {
      if (fail.listGroups) throw new Error('Connection error: connect ECONNREFUSED');
      return { groups: Object.keys(groups).map((groupId) => ({ groupId, protocolType: 'consumer' })) };
    },
    listTopics: () => {
      if (fail.hangRestore) return new Promise(() => undefined);
      if (fail.restore) return Promise.reject(new Error('Connection error: connect ECONNREFUSED'));
      if (fail.restoreRefused) return Promise.reject(Object.assign(new Error('Not authorized to access topics: [Topic authorization failed]'), { type: 'TOPIC_AUTHORIZATION_FAILED' }));
      return Promise.resolve(fail.topicUnseen ? [] : [CP_TOPIC]);
    },
    fetchTopicOffsets: async () => {
      if (fail.probe) throw new Error('Connection error: connect ECONNREFUSED');
      return [{ partition: 0, offset: '0', high: '0', low: '0' }];
    },
  };
  return {
    alias,
    state,
    fail,
    kafka: null,
    admin: async () => {
      if (fail.admin) throw new Error('Connection error: connect ECONNREFUSED');
      return admin;
    },
    batchProducer: () => ({
      produce: async (/** @type {string} */ _topic, /** @type {number} */ _partition, /** @type {any} */ records) => {
        if (fail.producer) throw new Error('Connection error: connect ECONNREFUSED');
        if (fail.send) throw new Error('The request timed out');
        state.sent.push(...(await checkpointsOf(records)));
      },
    }),
    offsetFetcher: () => ({
      fetch: async (g) => {
        if (fail.fetch) throw new Error('Connection error: connect ECONNREFUSED');
        return groups[g];
      },
      fetchMany: async (gs) => {
        const offsets = new Map();
        const failed = new Map();
        for (const g of gs) {
          if (fail.fetch) failed.set(g, 'Connection error: connect ECONNREFUSED');
          else offsets.set(g, groups[g] ?? []);
        }
        return { offsets, failed };
      },
      // the groups with offsets (Empty) and those of `states`; discovery lists the source this way too
      listGroupStates: async () => {
        state.listings++;
        if (fail.listGroupStates || fail.listGroups) throw new Error('Connection error: connect ECONNREFUSED');
        const listed = { ...Object.fromEntries(Object.keys(groups).map((g) => [g, 'Empty'])), ...state.states };
        return new Map(Object.entries(listed).filter(([g]) => !state.denied.includes(g)).map(([g, s]) => [g, { state: s, protocolType: 'consumer' }]));
      },
      coordinatorFailures: async (gs) => {
        state.coordinatorsAsked.push([...gs]);
        return new Map(gs.filter((g) => state.denied.includes(g) || state.unavailable.includes(g))
          .map((g) => [g, state.denied.includes(g) ? 'FindCoordinator: GROUP_AUTHORIZATION_FAILED' : 'FindCoordinator: COORDINATOR_LOAD_IN_PROGRESS']));
      },
    }),
    reportOk: () => {
      state.oks++;
      state.last = 'ok';
    },
    reportError: (e) => {
      const text = e && e.message ? e.message : String(e);
      state.errors.push(text);
      state.last = 'error';
      return text;
    },
  };
}

function newEmitter(source, target, extra = {}) {
  return new CheckpointEmitter({
    source,
    target,
    sourceAlias: 'source',
    targetAlias: 'target',
    policy: createReplicationPolicy({}),
    checkpointsTopic: CP_TOPIC,
    groupFilter: createGroupFilter({}),
    topicFilter: createTopicFilter({}),
    ensureTopic: async () => undefined,
    sourceOffsets: 'poll', // no broker: no __consumer_offsets to follow
    ...extra,
  });
}

async function readyEmitter(source, target) {
  const e = newEmitter(source, target);
  await e.start();
  assert.equal(e.restoreReport.ok, true);
  e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 0, upstreamOffset: 5n, downstreamOffset: 3n }] });
  e.handleSyncEvent({ event: 'loaded' });
  return e;
}

const brief = (c) => [c.group, c.topic, c.partition, c.upstreamOffset, c.downstreamOffset];

describe('CheckpointEmitter (no broker)', function () {
  it('a failed producer connect keeps the checkpoints for the next cycle (they are not written until acknowledged)', async function () {
    const source = memoryConnection('source', { groups: { g: [{ topic: 't', partition: 0, offset: 10n, metadata: '' }] } });
    const target = memoryConnection('target', { fail: { producer: true } });
    const e = await readyEmitter(source, target);
    await assert.rejects(e.cycle({ refreshGroups: true }), /ECONNREFUSED/);
    assert.equal(target.state.errors.length, 1, 'the target connection shows the error');
    // the group has not moved; the target is back: the same checkpoint is written now
    target.fail.producer = false;
    const r = await e.cycle();
    assert.deepEqual(r.written.map(brief), [['g', 'source.t', 0, 10n, 4n]]);
    assert.deepEqual(target.state.sent.map(brief), [['g', 'source.t', 0, 10n, 4n]]);
    // and only once
    assert.deepEqual((await e.cycle()).written, []);
    assert.equal(target.state.sent.length, 1);
    await e.stop();
  });

  it('a failed send keeps them too; a newer checkpoint of the same partition replaces the unsent one', async function () {
    const groups = { g: [{ topic: 't', partition: 0, offset: 10n, metadata: '' }] };
    const source = memoryConnection('source', { groups });
    const target = memoryConnection('target', { fail: { send: true } });
    const e = await readyEmitter(source, target);
    await assert.rejects(e.cycle({ refreshGroups: true }), /timed out/);
    e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 0, upstreamOffset: 20n, downstreamOffset: 15n }] });
    groups.g = [{ topic: 't', partition: 0, offset: 20n, metadata: '' }];
    await assert.rejects(e.cycle(), /timed out/);
    target.fail.send = false;
    const r = await e.cycle();
    assert.deepEqual(r.written.map(brief), [['g', 'source.t', 0, 20n, 15n]]);
    assert.deepEqual(target.state.sent.map(brief), [['g', 'source.t', 0, 20n, 15n]]);
    await e.stop();
  });

  it('a cycle with nothing to write still fails when the target does not answer; every completed cycle reports the whole state', async function () {
    const source = memoryConnection('source', { groups: { g: [{ topic: 't', partition: 0, offset: 10n, metadata: '' }] } });
    const target = memoryConnection('target');
    const e = await readyEmitter(source, target);
    const first = await e.cycle({ refreshGroups: true });
    assert.equal(first.written.length, 1);
    target.fail.probe = true;
    await assert.rejects(e.cycle(), /ECONNREFUSED/);
    assert.equal(target.state.errors.length, 1);
    target.fail.probe = false;
    const r = await e.cycle();
    assert.deepEqual(r.written, []);
    assert.deepEqual([...r.latest.keys()], ['g'], 'the latest state, although nothing was written');
    assert.deepEqual(r.latest.get('g').map(brief), [['g', 'source.t', 0, 10n, 4n]]);
    await e.stop();
  });

  it('a source that answers for no group is reported as failing; the state held is still reported', async function () {
    const source = memoryConnection('source', { groups: { g: [{ topic: 't', partition: 0, offset: 10n, metadata: '' }] } });
    const target = memoryConnection('target');
    const e = await readyEmitter(source, target);
    await e.cycle({ refreshGroups: true });
    source.fail.fetch = true;
    const r = await e.cycle();
    assert.deepEqual(r.failedGroups.map((f) => f.group), ['g']);
    assert.equal(source.state.errors.length, 1, 'the source connection shows the error');
    assert.equal(source.state.last, 'error');
    assert.deepEqual(r.latest.get('g').map(brief), [['g', 'source.t', 0, 10n, 4n]]);
    // the source answers again: the error clears with the next cycle
    source.fail.fetch = false;
    await e.cycle();
    assert.equal(source.state.last, 'ok');
    await e.stop();
  });
});

describe('CheckpointEmitter restore (no broker)', function () {
  it('a target that stops answering during the restore is reported while the restore waits', async function () {
    const source = memoryConnection('source');
    const target = memoryConnection('target', { fail: { hangRestore: true, probe: true } });
    const phases = [];
    const e = newEmitter(source, target, { retryMaxMs: 1000, events: { phase: (p) => phases.push(p.kind) } });
    e.start();
    const deadline = Date.now() + 10000;
    while (target.state.errors.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.match(target.state.errors[0] || '', /ECONNREFUSED/, 'the target connection shows the error');
    assert.equal(e.ready, false, 'still restoring');
    assert.equal(phases.at(-1), 'restoring');
    await e.stop();
  });
});

describe('CheckpointEmitter restore when the target does not answer (no broker)', function () {
  it('reads the checkpoints again once the target answers, instead of going on without them', async function () {
    const source = memoryConnection('source');
    const target = memoryConnection('target', { fail: { restore: true, probe: true } });
    const phases = [];
    const e = newEmitter(source, target, { retryMaxMs: 1000, events: { phase: (p) => phases.push(p.kind) } });
    const started = e.start();
    const deadline = Date.now() + 10000;
    while (!phases.includes('retrying') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(phases.includes('retrying'), `retrying after the failed read (phases: ${phases})`);
    assert.equal(e.ready, false);
    target.fail.restore = false;
    target.fail.probe = false;
    await started;
    assert.equal(e.ready, true);
    assert.equal(e.restoreReport.ok, true, 'the second read worked: the checkpoints were kept (MM2 mode with history)');
    assert.equal(e.keepHistoryOnLoad, true);
    await e.stop();
  });
});

describe('CheckpointEmitter restore that fails while the target answers (no broker)', function () {
  it('the checkpoints topic not seen yet right after it was prepared (a loaded target): read again, never going on without the checkpoints, saying why meanwhile', async function () {
    const source = memoryConnection('source');
    const target = memoryConnection('target', { fail: { topicUnseen: true } });
    const phases = [];
    const restored = [];
    const e = newEmitter(source, target, { retryMaxMs: 1000, events: { phase: (p) => phases.push(p), restored: (r) => restored.push(r) } });
    const started = e.start();
    const deadline = Date.now() + 10000;
    while (!phases.some((p) => p.kind === 'retrying') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const retrying = phases.find((p) => p.kind === 'retrying');
    assert.ok(retrying, `retrying after the failed read (phases: ${phases.map((p) => p.kind)})`);
    assert.equal(retrying.restore, true, 'a read of the checkpoints that failed, not the topic\'s preparation');
    assert.match(retrying.error, /does not exist/, 'says why it waits');
    assert.equal(e.ready, false, 'no cycle without the checkpoints');
    assert.deepEqual(restored, [], 'no failed restore reported: the node waits');
    target.fail.topicUnseen = false;
    await started;
    assert.equal(e.ready, true);
    assert.equal(e.restoreReport.ok, true, 'read once the topic is seen');
    assert.equal(e.keepHistoryOnLoad, true, 'MM2 mode with the sync history, as after any restore that worked');
    await e.stop();
  });

  it('a refusal by the authorizer goes on without the checkpoints, as MM2 does (waiting does not change it)', async function () {
    const source = memoryConnection('source');
    const target = memoryConnection('target', { fail: { restoreRefused: true } });
    const phases = [];
    const e = newEmitter(source, target, { retryMaxMs: 1000, events: { phase: (p) => phases.push(p.kind) } });
    await e.start();
    assert.equal(e.ready, true);
    assert.equal(e.restoreReport.ok, false);
    assert.match(e.restoreReport.error ?? '', /authoriz/i);
    assert.equal(e.keepHistoryOnLoad, false, 'only the latest sync per partition during the initial load');
    assert.ok(!phases.includes('retrying'), `not retried (phases: ${phases})`);
    await e.stop();
  });
});

describe('GroupOffsetSyncer: an unreachable target (no broker)', function () {
  it('reports the connection failed when the target does not answer the group listing; nothing is written', async function () {
    const errors = [];
    const commits = [];
    const s = new GroupOffsetSyncer({
      connection: {
        admin: async () => /** @type {import('kafkajs').Admin} */ ({}),
        committer: () => ({ commitMany: async (list) => { commits.push(...list); return new Map(); } }),
        offsetFetcher: () => ({
          listGroupStates: async () => { throw new Error('Connection error: connect ECONNREFUSED'); },
          fetchMany: async () => assert.fail('no read without the group states'),
        }),
        reportOk: () => assert.fail('not ok'),
        reportError: (e) => {
          errors.push(/** @type {Error} */ (e).message);
          return /** @type {Error} */ (e).message;
        },
      },
      groupFilter: createGroupFilter({}),
    });
    s.applyCheckpointsJson({ g: [{ topic: 't', partition: 0, downstreamOffset: '5' }] });
    await assert.rejects(() => s.sync(), /ECONNREFUSED/);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /ECONNREFUSED/);
    assert.deepEqual(commits, []);
  });
});

describe('CheckpointEmitter: requests sharing one cycle (mergeCycleOptions)', function () {
  it("precise translation after a start: each group's first translation finds the sync just below it among all read; the history goes after the first full cycle; 'mm2' gives MM2's", async function () {
    const groups = { g: [{ topic: 't', partition: 0, offset: 1250n, metadata: '' }] };
    const written = {};
    for (const offsetTranslation of ['precise', 'mm2']) {
      const source = memoryConnection('source', { groups });
      const target = memoryConnection('target');
      const e = newEmitter(source, target, { offsetTranslation });
      await e.start();
      // the offset-syncs topic as read at the start: a sync every 100 records, 1000 of them
      const syncs = Array.from({ length: 1000 }, (_, i) => ({ topic: 't', partition: 0, upstreamOffset: BigInt(i * 100), downstreamOffset: BigInt(i * 50) }));
      e.handleSyncEvent({ event: 'syncs', syncs });
      e.handleSyncEvent({ event: 'loaded' });
      assert.equal(e.offsetTranslation, offsetTranslation);
      assert.equal(e.holdsLoadHistory, offsetTranslation === 'precise');
      const r = await e.cycle({ refreshGroups: true });
      written[offsetTranslation] = r.written.map(brief);
      assert.equal(e.holdsLoadHistory, false, 'released once every group was translated');
      assert.equal(e.trackedGroupPartitions, offsetTranslation === 'precise' ? 1 : 0);
      // retained from the load history for the group as it moves on: 1200, 1300, ..., 99,900
      assert.equal(e.retainedSyncs, offsetTranslation === 'precise' ? 988 : 0);
      await e.stop();
    }
    assert.deepEqual(written.precise, [['g', 'source.t', 0, 1250n, 601n]], 'from 1200->600, the sync just below 1250');
    assert.equal(written.mm2.length, 1);
    assert.ok(written.mm2[0][4] < 601n, `MM2's 64 slots give a sync far below: ${written.mm2[0][4]}`);
  });

  it('a full request wins over partial ones; partial ones are united per group and partition', function () {
    /** @type {Map<string, Set<string> | 'all'>} */
    const first = new Map();
    first.set('g1', new Set(['0:t']));
    first.set('g2', 'all');
    const a = { only: first };
    const b = { refreshGroups: true, only: new Map([['g1', new Set(['1:t'])], ['g3', new Set(['0:u'])]]) };
    const m = mergeCycleOptions(a, b);
    assert.equal(m.refreshGroups, true);
    assert.deepEqual([...m.only.keys()].sort(), ['g1', 'g2', 'g3']);
    assert.deepEqual([...m.only.get('g1')].sort(), ['0:t', '1:t']);
    assert.equal(m.only.get('g2'), 'all');
    assert.equal(mergeCycleOptions(a, { only: new Map([['g1', 'all']]) }).only.get('g1'), 'all');
    assert.equal(mergeCycleOptions(a, {}).only, undefined);
    assert.equal(mergeCycleOptions({}, b).only, undefined);
    // the inputs are not changed
    assert.deepEqual([...a.only.get('g1')], ['0:t']);
  });

  it("readiness: every full cycle judges each group; one whose offsets cannot be listed keeps its last verdict until its last listing is too old", async function () {
    const source = memoryConnection('source', { groups: { g: [{ topic: 't', partition: 0, offset: 10n, metadata: '' }], h: [{ topic: 't', partition: 0, offset: 5n, metadata: '' }] } });
    const target = memoryConnection('target');
    let clock = 1000;
    const e = newEmitter(source, target, { now: () => clock, readiness: { maxReread: 3, maxAgeMs: 60000 } });
    await e.start();
    e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 0, upstreamOffset: 5n, downstreamOffset: 3n }] });
    e.handleSyncEvent({ event: 'loaded' });
    /** @param {any} r */
    const verdicts = (r) => r.readiness.groups.map((/** @type {any} */ g) => [g.group, g.verdict, g.why, g.reread, g.listedAt ?? null]);
    let r = await e.cycle({ refreshGroups: true });
    // g re-reads the records 6..9 of the sync 5->3 (+1): 4, above 3; h sits on the sync
    assert.deepEqual(verdicts(r), [['g', 'at-risk', 'reread', 4, null], ['h', 'ready', null, 0, null]]);
    assert.deepEqual([r.readiness.ready, r.readiness.atRisk, r.readiness.notCovered, r.readiness.worst.group], [1, 1, 0, 'g']);
    // the time of this cycle's listing, which the checkpoints written now reflect
    assert.equal(r.readiness.listedAt, 1000);
    assert.deepEqual(r.coverage.map((c) => [c.group, c.status, c.checkpointAt]), [['g', 'emitted', 1000], ['h', 'emitted', 1000]]);
    // the source stops answering: the last verdicts stand, with the time of the last listing
    source.fail.fetch = true;
    clock = 61000;
    r = await e.cycle();
    assert.equal(r.failedGroups.length, 2);
    assert.deepEqual(verdicts(r), [['g', 'at-risk', 'reread', 4, 1000], ['h', 'ready', null, 0, 1000]]);
    clock = 61001;
    r = await e.cycle();
    assert.deepEqual(verdicts(r), [['g', 'at-risk', 'age', 4, 1000], ['h', 'at-risk', 'age', 0, 1000]]);
    // listed again: judged from what it is now
    source.fail.fetch = false;
    r = await e.cycle();
    assert.deepEqual(verdicts(r), [['g', 'at-risk', 'reread', 4, null], ['h', 'ready', null, 0, null]]);
    await e.stop();
  });
});

describe("CheckpointEmitter: the groups' members on the target (no broker)", function () {
  it('each full cycle lists the target once: a state with members -> true, Empty/Dead/not listed -> false, refused or failed -> unknown', async function () {
    const offsets = [{ topic: 't', partition: 0, offset: 10n, metadata: '' }];
    const groups = { dead: offsets, empty: offsets, gone: offsets, hidden: offsets, rebalancing: offsets, stable: offsets };
    const source = memoryConnection('source', { groups });
    const target = memoryConnection('target', {
      states: { dead: 'Dead', empty: 'Empty', hidden: 'Stable', rebalancing: 'PreparingRebalance', stable: 'Stable', other: 'Stable' },
      denied: ['hidden'],
    });
    const e = await readyEmitter(source, target);
    /** @param {any} r */
    const members = (r) => Object.fromEntries(r.readiness.groups.map((/** @type {any} */ g) => [g.group, g.membersOnTarget]));
    let r = await e.cycle({ refreshGroups: true });
    assert.equal(target.state.listings, 1, 'one listing of the target per full cycle');
    assert.deepEqual(members(r), { dead: false, empty: false, gone: false, hidden: 'unknown', rebalancing: true, stable: true });
    assert.deepEqual([r.readiness.withMembersOnTarget, r.readiness.membersUnknown], [2, 1]);
    assert.deepEqual(r.coverage.map((c) => [c.group, r.membersOnTarget.get(c.group)]), Object.entries(members(r)));
    assert.equal(r.targetGroupsError, undefined);
    // the consumers on the target leave, another joins: the next cycle (nothing moved on the source) says so
    target.state.states = { ...target.state.states, stable: 'Empty', rebalancing: 'Empty', gone: 'Stable' };
    r = await e.cycle();
    assert.equal(target.state.listings, 2);
    assert.deepEqual(members(r), { dead: false, empty: false, gone: true, hidden: 'unknown', rebalancing: false, stable: false });
    assert.equal(r.written.length, 0, 'nothing moved on the source');
    // the target does not answer the listing: unknown, with why; the cycle still completes
    target.fail.listGroupStates = true;
    r = await e.cycle();
    assert.ok(Object.values(members(r)).every((m) => m === 'unknown'));
    assert.equal(r.readiness.membersUnknown, 6);
    assert.match(r.targetGroupsError, /connection refused/);
    await e.stop();
  });
});

describe("CheckpointEmitter: the groups' coordinators on the target (no broker)", function () {
  it('a group whose coordinator the target refuses is asked once per group discovery; a failure of another kind is asked again next cycle', async function () {
    const offsets = [{ topic: 't', partition: 0, offset: 10n, metadata: '' }];
    const source = memoryConnection('source', { groups: { hidden: offsets, loading: offsets, stable: offsets } });
    const target = memoryConnection('target', { states: { hidden: 'Stable', stable: 'Stable' }, denied: ['hidden'] });
    target.state.unavailable = ['loading'];
    const e = await readyEmitter(source, target);
    const members = (r) => Object.fromEntries(r.readiness.groups.map((/** @type {any} */ g) => [g.group, g.membersOnTarget]));
    let r = await e.cycle({ refreshGroups: true });
    assert.deepEqual(members(r), { hidden: 'unknown', loading: 'unknown', stable: true });
    assert.deepEqual(target.state.coordinatorsAsked, [['hidden', 'loading']]);
    r = await e.cycle();
    assert.deepEqual(members(r), { hidden: 'unknown', loading: 'unknown', stable: true });
    assert.deepEqual(target.state.coordinatorsAsked.at(-1), ['loading'], 'the refusal is remembered, the other failure asked again');
    target.state.unavailable = [];
    r = await e.cycle();
    assert.deepEqual(members(r), { hidden: 'unknown', loading: false, stable: true });
    assert.deepEqual(target.state.coordinatorsAsked.at(-1), ['loading']);
    // the next discovery forgets the refusals (the ACLs may have changed): asked again
    r = await e.cycle({ refreshGroups: true });
    assert.deepEqual(target.state.coordinatorsAsked.at(-1), ['hidden', 'loading']);
    assert.deepEqual(members(r), { hidden: 'unknown', loading: false, stable: true });
    await e.stop();
  });
});

describe('CheckpointEmitter: a source that cannot be followed (no broker)', function () {
  it('polls, says why, and still checkpoints every full cycle', async function () {
    const source = memoryConnection('source', { groups: { g: [{ topic: 't', partition: 0, offset: 5n, metadata: '' }] } });
    const target = memoryConnection('target');
    const modes = [];
    const e = newEmitter(source, target, { sourceOffsets: 'auto', events: { sourceMode: (m) => modes.push(m) } });
    await e.start();
    assert.equal(e.sourceMode.kind, 'poll');
    assert.ok(e.sourceMode.reason, 'the reason is given');
    assert.deepEqual(modes.map((m) => m.kind), ['poll']);
    e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 0, upstreamOffset: 5n, downstreamOffset: 3n }] });
    e.handleSyncEvent({ event: 'loaded' }); // a full cycle at once (the history is complete)
    const r = await e.cycle();
    assert.equal(r.full, true);
    // the full cycle of the load, or this one if it came first, wrote the checkpoint; once
    assert.deepEqual(target.state.sent.map(brief), [['g', 'source.t', 0, 5n, 3n]]);
    assert.deepEqual((await e.cycle()).written, [], 'a later full cycle has nothing new to write');
    await e.stop();
  });
});

describe('CheckpointEmitter: new offset syncs translate again only the groups at or above them (no broker)', function () {
  /** Resolves once `cond()` holds (checked every few ms, for up to 20 s). */
  async function until(cond, what) {
    for (const deadline = Date.now() + 20000; Date.now() < deadline; ) {
      if (cond()) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.fail(`never: ${what}`);
  }

  it('per partition, the groups whose position is at or above the lowest new sync, and no other', async function () {
    const o = (topic, partition, offset) => ({ topic, partition, offset, metadata: '' });
    const source = memoryConnection('source', { groups: { a: [o('t', 0, 10n), o('t', 1, 70n)], b: [o('t', 0, 50n)], c: [o('t', 0, 100n)] } });
    const target = memoryConnection('target');
    const delivered = [];
    const e = newEmitter(source, target, { sourceOffsets: 'auto', events: { delivered: (r) => delivered.push(r), deliveryFailed: (err) => delivered.push({ err }) } });
    await e.start(); // the stream cannot start here (no broker): the offsets come from full reads
    e.handleSyncEvent({ event: 'syncs', syncs: [o('t', 0, 0n), o('t', 1, 0n)].map((s) => ({ ...s, upstreamOffset: 0n, downstreamOffset: 0n })) });
    e.handleSyncEvent({ event: 'loaded' }); // a full cycle at once (after the partial one of these syncs)
    await until(() => delivered.some((r) => r.full), 'the full cycle after the load');
    assert.deepEqual(delivered[delivered.length - 1].groups, ['a', 'b', 'c']);
    assert.ok(delivered.every((r) => !r.err));
    delivered.splice(0, delivered.length, 'the cycles of the start');

    // two syncs on t/0: the lower one (40) concerns b (50) and c (100), not a (10)
    e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 0, upstreamOffset: 40n, downstreamOffset: 40n }, { topic: 't', partition: 0, upstreamOffset: 60n, downstreamOffset: 60n }] });
    await until(() => delivered.length === 2, 'the partial cycle of the syncs on t/0');
    assert.equal(delivered[1].full, false);
    assert.deepEqual(delivered[1].groups, ['b', 'c']);
    assert.deepEqual(delivered[1].written.map(brief), [['b', 'source.t', 0, 50n, 41n], ['c', 'source.t', 0, 100n, 61n]]);

    // a sync above every position concerns nobody; the next one, at a's position on t/1, only a there
    e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 1, upstreamOffset: 200n, downstreamOffset: 200n }] });
    e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 1, upstreamOffset: 70n, downstreamOffset: 70n }] });
    await until(() => delivered.length === 3, 'the partial cycle of the sync on t/1');
    assert.deepEqual(delivered[2].groups, ['a']);
    assert.deepEqual(delivered[2].written.map(brief), [['a', 'source.t', 1, 70n, 70n]]);
    await e.stop();
    assert.equal(delivered.length, 3, 'the sync above every position started no cycle');
  });
});

describe('CheckpointEmitter: while __consumer_offsets is followed, the source offsets are read in full only every FULL_SOURCE_READ_EVERY_MS (no broker)', function () {
  const { FULL_SOURCE_READ_EVERY_MS } = require('../../dist/engines/checkpoint-emitter');

  it('reads once the stream stands, then not again before the interval, again at it; every cycle while the stream is silent', async function () {
    const source = memoryConnection('source', { groups: { g: [{ topic: 't', partition: 0, offset: 5n, metadata: '' }] } });
    const target = memoryConnection('target');
    source.settings = {}; // no SASL: the stream's ACL hint names no principal
    let fetches = 0;
    const fetcher = source.offsetFetcher();
    source.offsetFetcher = () => ({
      ...fetcher,
      fetchMany: (gs) => {
        fetches++;
        return fetcher.fetchMany(gs);
      },
    });
    // a stream that stands at once; its last fetch answered `silentMs` ago (real clock, as the stream's own)
    let silentMs = 0;
    const stream = { start: async () => undefined, stop: async () => undefined, get lastFetchAt() { return Date.now() - silentMs; } };
    let clock = 1_000_000;
    const e = newEmitter(source, target, { sourceOffsets: 'auto', now: () => clock, openSourceStream: () => stream });
    await e.start();
    assert.equal(e.sourceMode.kind, 'events', JSON.stringify(e.sourceMode));
    e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 0, upstreamOffset: 5n, downstreamOffset: 3n }] });
    e.handleSyncEvent({ event: 'loaded' });
    const first = await e.cycle(); // after the cycles the stream and the load started
    assert.equal(first.full, true);
    assert.deepEqual(first.failedGroups, []);
    const read = fetches;
    assert.ok(read >= 1, 'read in full once the stream stood');

    clock += 1000;
    assert.deepEqual((await e.cycle()).groups, ['g']);
    clock = 1_000_000 + FULL_SOURCE_READ_EVERY_MS - 1;
    await e.cycle();
    assert.equal(fetches, read, 'not read again within the interval: the stream keeps them current');

    clock = 1_000_000 + FULL_SOURCE_READ_EVERY_MS;
    await e.cycle();
    assert.equal(fetches, read + 1, 'read again once the interval has passed');
    clock += 1000;
    await e.cycle();
    assert.equal(fetches, read + 1);

    // a stream that has not answered for longer than STREAM_SILENT_MS is not trusted: every cycle reads
    silentMs = 60000;
    clock += 1000;
    await e.cycle();
    clock += 1000;
    await e.cycle();
    assert.equal(fetches, read + 3);
    await e.stop();
  });
});

describe("CheckpointEmitter: a full cycle's groups (issue 24, Node-RED's RSS)", function () {
  const offsets = (offset) => [{ topic: 't', partition: 0, offset, metadata: '' }];
  /** a GroupOwner that owns `owned` (every group when `every`) */
  const owner = (every, owned) => ({
    ready: async () => undefined,
    owns: (g) => every || owned.includes(g),
    ownsEvery: () => every,
    writable: () => true,
    offsetsPartitions: () => null,
    subscribe: () => () => undefined,
  });
  const ready = async (extra) => {
    const source = memoryConnection('source', { groups: { g1: offsets(5n), g2: offsets(5n) } });
    const e = newEmitter(source, memoryConnection('target'), extra);
    await e.start();
    e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 0, upstreamOffset: 5n, downstreamOffset: 3n }] });
    e.handleSyncEvent({ event: 'loaded' });
    return { e, source };
  };

  for (const [name, extra] of [['without shares', {}], ['owning every group of a share', { shares: owner(true, []) }]]) {
    it(`${name}: every full cycle goes over the selected list itself, not a copy made per cycle (10,000-30,000 names alive across the cycle's awaits)`, async function () {
      const { e } = await ready(extra);
      const a = await e.cycle();
      const b = await e.cycle();
      assert.deepEqual(a.groups, ['g1', 'g2']);
      assert.equal(b.groups, a.groups, 'the same list');
      assert.deepEqual(a.written.map(brief), [['g1', 'source.t', 0, 5n, 3n], ['g2', 'source.t', 0, 5n, 3n]]);
    });
  }

  it('owning a part of the groups: only those; a list handed out never changes when the selection does', async function () {
    const { e } = await ready({ shares: owner(false, ['g2', 'g3']) });
    assert.deepEqual((await e.cycle()).groups, ['g2']);

    const groups = { g1: offsets(5n), g2: offsets(5n) };
    const all = newEmitter(memoryConnection('source', { groups }), memoryConnection('target'));
    await all.start();
    all.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 0, upstreamOffset: 5n, downstreamOffset: 3n }] });
    all.handleSyncEvent({ event: 'loaded' });
    const before = await all.cycle();
    groups.g0 = offsets(5n); // a group appears on the source: the next discovery selects it
    const after = await all.cycle({ refreshGroups: true });
    assert.deepEqual(after.groups, ['g0', 'g1', 'g2']);
    assert.deepEqual(before.groups, ['g1', 'g2'], 'the earlier cycle keeps its list');
  });
});
