'use strict';
/**
 * Group types, as MirrorMaker 2 selects them: MM2 4.x's discovery lists the source's groups with
 * ListGroupsOptions.forConsumerGroups() (types classic and consumer, protocol types "" and
 * consumer), never a streams group (KIP-1071) nor a share group (KIP-932). Before, the event path
 * selected any group it first saw committing on a replicated topic, so a Kafka Streams
 * application's streams group (its members commit plain offsets) was checkpointed.
 */
const assert = require('node:assert/strict');
const { mm2ListsGroup, notReplicatedGroup } = require('../../dist/core/group-types');
const { findCheckpointGroups } = require('../../dist/core/group-discovery');
const { checkpointGroupListing, isConsumerGroupListing } = require('../../dist/core/listed-groups');
const { CheckpointEmitter } = require('../../dist/engines/checkpoint-emitter');
const { createReplicationPolicy } = require('../../dist/core/replication-policy');
const { createGroupFilter, createTopicFilter } = require('../../dist/core/filters');
const { checkpointsOf } = require('../harness/record-batches');
const { coveragePayload } = require('../../dist/nodes/shared/contracts');

describe('group types: the selection rule (MM2 4.x ListGroupsOptions.forConsumerGroups)', function () {
  it('classic and consumer groups of protocol type "" or consumer are listed; streams, share and other protocols are not', function () {
    /** @type {Array<[object, boolean]>} */
    const cases = [
      [{ type: 'classic', protocolType: 'consumer' }, true],
      [{ type: 'classic', protocolType: '' }, true], // a group that only stores offsets
      [{ type: 'consumer', protocolType: 'consumer' }, true], // KIP-848
      [{ type: 'CONSUMER', protocolType: 'consumer' }, true],
      [{ protocolType: 'consumer' }, true], // ListGroups v4 (a broker before 3.8): no type
      [{ protocolType: '' }, true],
      [{}, true],
      [{ type: 'streams', protocolType: 'streams' }, false],
      [{ type: 'streams', protocolType: 'consumer' }, false], // the type decides
      [{ type: 'share', protocolType: 'share' }, false],
      [{ type: 'classic', protocolType: 'connect' }, false], // a Connect worker group: not a consumer group
      [{ protocolType: 'streams' }, false], // kafkajs's listing: no type, the protocol type says it
    ];
    for (const [g, listed] of cases) {
      assert.equal(mm2ListsGroup(g), listed, JSON.stringify(g));
      assert.equal(isConsumerGroupListing(g.protocolType, g.type), listed, JSON.stringify(g));
    }
  });

  it('names a streams or share group with why it is not replicated; nothing for classic, consumer or another classic protocol', function () {
    const s = notReplicatedGroup('wordcount', { type: 'streams', protocolType: 'streams' });
    assert.equal(s.type, 'streams');
    assert.match(s.reason, /^a streams group \(Kafka Streams with group\.protocol=streams, KIP-1071\): MirrorMaker 2 checkpoints classic and consumer groups only/);
    assert.match(s.reason, /group\.protocol=classic/);
    const sh = notReplicatedGroup('sharers', { type: 'share', protocolType: 'share' });
    assert.match(sh.reason, /^a share group \(KIP-932\): its progress is kept in __share_group_state.*neither MirrorMaker 2 nor this node can replicate it/);
    for (const g of [{ type: 'classic', protocolType: 'consumer' }, { type: 'consumer' }, { type: 'classic', protocolType: 'connect' }, { protocolType: 'consumer' }]) {
      assert.equal(notReplicatedGroup('x', g), undefined, JSON.stringify(g));
    }
  });

  it('a listing splits into the ids MM2 lists and the others named, each list sorted (the same listing: the same lists)', function () {
    const states = new Map([
      ['orders', { state: 'Stable', protocolType: 'consumer', type: 'classic' }],
      ['wordcount', { state: 'Stable', protocolType: 'streams', type: 'streams' }],
      ['billing', { state: 'Empty', protocolType: 'consumer', type: 'consumer' }],
      ['connect-cluster', { state: 'Stable', protocolType: 'connect', type: 'classic' }],
      ['audit', { state: 'Stable', protocolType: 'share', type: 'share' }],
      ['stored', { state: 'Empty', protocolType: '', type: 'classic' }],
    ]);
    const l = checkpointGroupListing(states);
    assert.deepEqual(l.ids, ['billing', 'orders', 'stored']);
    assert.deepEqual(l.others.map((o) => [o.group, o.type]), [['audit', 'share'], ['wordcount', 'streams']]);
    assert.equal(checkpointGroupListing(states), l);
  });

  it('discovery keeps the others the group filter accepts, apart from the selection', async function () {
    const io = {
      listGroups: async () => ['orders'],
      otherTypes: () => [
        { group: 'wordcount', type: 'streams', reason: 'r1' },
        { group: '__internal-app', type: 'streams', reason: 'r2' },
        { group: 'audit', type: 'share', reason: 'r3' },
      ],
      committedTopics: async () => ({ topics: new Map([['orders', ['t']]]), failed: new Map() }),
    };
    const r = await findCheckpointGroups(io, createGroupFilter({}), createTopicFilter({}));
    assert.deepEqual(r.groups, ['orders']);
    assert.deepEqual(r.otherTypes.map((o) => o.group), ['wordcount', 'audit'], 'the default groups.exclude (__.*) leaves out __internal-app');
    const none = await findCheckpointGroups({ ...io, otherTypes: undefined }, createGroupFilter({}), createTopicFilter({}));
    assert.deepEqual(none.otherTypes, []);
  });
});

describe('group types: the event path selects a group first seen committing only when the listing says classic or consumer (no broker)', function () {
  const CP_TOPIC = 'source.checkpoints.internal';

  /** A source whose listing gives each group's type; offsets from `groups`. */
  function source(groups, types) {
    const state = { listings: 0 };
    return {
      alias: 'source',
      state,
      kafka: null,
      settings: {},
      admin: async () => ({ listTopics: async () => [CP_TOPIC], fetchTopicOffsets: async () => [{ partition: 0, offset: '0', high: '0', low: '0' }] }),
      batchProducer: () => ({ produce: async () => 0n }),
      offsetFetcher: () => ({
        fetchMany: async (gs) => ({ offsets: new Map(gs.map((g) => [g, groups[g] ?? []])), failed: new Map() }),
        listGroupStates: async () => {
          state.listings++;
          return new Map(Object.keys(types).map((g) => [g, { state: 'Stable', protocolType: types[g] === 'classic' || types[g] === 'consumer' ? 'consumer' : types[g], type: types[g] }]));
        },
        coordinatorFailures: async () => new Map(),
      }),
      reportOk: () => undefined,
      reportError: (e) => String(e && e.message ? e.message : e),
    };
  }

  function target() {
    const sent = [];
    return {
      alias: 'target',
      sent,
      kafka: null,
      admin: async () => ({ listTopics: async () => [CP_TOPIC], fetchTopicOffsets: async () => [{ partition: 0, offset: '0', high: '0', low: '0' }] }),
      batchProducer: () => ({ produce: async (_t, _p, records) => { sent.push(...(await checkpointsOf(records))); } }),
      offsetFetcher: () => ({ listGroupStates: async () => new Map(), coordinatorFailures: async () => new Map() }),
      reportOk: () => undefined,
      reportError: (e) => String(e && e.message ? e.message : e),
    };
  }

  it('a streams group committing on a replicated topic is never checkpointed, a classic and a consumer group beside it are; the streams group is named', async function () {
    const offsets = { orders: [{ topic: 't', partition: 0, offset: 5n, metadata: '' }] };
    // the listing when the emitter starts knows only `orders`; the others appear later
    const types = { orders: 'classic' };
    const src = source(offsets, types);
    const tgt = target();
    /** @type {any} */
    let stream = null;
    const delivered = [];
    const e = new CheckpointEmitter({
      source: /** @type {any} */ (src),
      target: /** @type {any} */ (tgt),
      sourceAlias: 'source',
      targetAlias: 'target',
      policy: createReplicationPolicy({}),
      checkpointsTopic: CP_TOPIC,
      groupFilter: createGroupFilter({}),
      topicFilter: createTopicFilter({}),
      ensureTopic: async () => undefined,
      sourceOffsets: 'auto',
      batchMs: 0,
      openSourceStream: (options) => {
        stream = { options, start: async () => undefined, stop: async () => undefined, get lastFetchAt() { return Date.now(); } };
        return stream;
      },
      events: { delivered: (r) => delivered.push(r) },
    });
    await e.start();
    e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 0, upstreamOffset: 5n, downstreamOffset: 3n }] });
    e.handleSyncEvent({ event: 'loaded' });
    const first = await e.cycle();
    assert.deepEqual(first.groups, ['orders']);
    assert.deepEqual(first.notReplicatedGroups, []);
    // the cycles of the start (the syncs' partial one goes beside the full ones) are over: only what follows counts
    while (e.busy) await new Promise((r) => setTimeout(r, 1));
    delivered.length = 0;

    // a Kafka Streams application (streams group), a KIP-848 consumer group and a share group start
    types.wordcount = 'streams';
    types.kip848 = 'consumer';
    types.sharers = 'share';
    offsets.wordcount = [{ topic: 't', partition: 0, offset: 5n, metadata: '' }];
    offsets.kip848 = [{ topic: 't', partition: 0, offset: 5n, metadata: '' }];
    const listingsBefore = src.state.listings;
    stream.options.onBatch({
      changes: [
        { group: 'wordcount', topic: 't', partition: 0, offset: 5n },
        { group: 'kip848', topic: 't', partition: 0, offset: 5n },
      ],
      deletedGroups: [],
      skipped: 0,
    });
    const partial = await waitFor(() => delivered.find((r) => !r.full && r.groups.length > 0));
    assert.deepEqual(partial.groups, ['kip848']);
    assert.deepEqual(partial.written.map((c) => c.group), ['kip848']);
    assert.equal(src.state.listings, listingsBefore + 1, 'one listing for the groups first seen');
    assert.deepEqual(partial.notReplicatedGroups.map((g) => [g.group, g.type]), [['sharers', 'share'], ['wordcount', 'streams']]);
    assert.ok(!tgt.sent.some((c) => c.group === 'wordcount'), 'no checkpoint of the streams group written');

    // it commits again: known from the listing, not listed again, still not selected
    stream.options.onBatch({ changes: [{ group: 'wordcount', topic: 't', partition: 0, offset: 6n }], deletedGroups: [], skipped: 0 });
    const again = await waitFor(() => delivered.filter((r) => !r.full)[1]);
    assert.deepEqual(again.groups, []);
    assert.equal(src.state.listings, listingsBefore + 1);

    // a full cycle with a new discovery: the same selection, the others named in the coverage output
    const full = await e.cycle({ refreshGroups: true });
    assert.deepEqual(full.groups, ['kip848', 'orders']);
    assert.ok(!tgt.sent.some((c) => c.group === 'wordcount'));
    const payload = coveragePayload(full);
    assert.deepEqual(payload.notReplicatedGroups.map((g) => g.group), ['sharers', 'wordcount']);
    assert.match(payload.notReplicatedGroups[1].reason, /streams group/);
    assert.ok(!payload.entries.some((c) => c.group === 'wordcount'));
    await e.stop();
  });
});

describe('group types: a group first seen committing that the listing does not show yet (no broker)', function () {
  const CP_TOPIC = 'source.checkpoints.internal';
  it('is not selected; listed again for it at most every second; selected once the listing shows it as a classic group', async function () {
    const offsets = { orders: [{ topic: 't', partition: 0, offset: 5n, metadata: '' }] };
    const types = { orders: 'classic' };
    let listings = 0;
    const conn = (sent) => ({
      alias: 'x', kafka: null, settings: {},
      admin: async () => ({ listTopics: async () => [CP_TOPIC], fetchTopicOffsets: async () => [{ partition: 0, offset: '0', high: '0', low: '0' }] }),
      batchProducer: () => ({ produce: async (_t, _p, records) => { sent.push(...(await checkpointsOf(records))); } }),
      offsetFetcher: () => ({
        fetchMany: async (gs) => ({ offsets: new Map(gs.map((g) => [g, offsets[g] ?? []])), failed: new Map() }),
        listGroupStates: async () => {
          listings++;
          return new Map(Object.keys(types).map((g) => [g, { state: 'Empty', protocolType: '', type: types[g] }]));
        },
        coordinatorFailures: async () => new Map(),
      }),
      reportOk: () => undefined,
      reportError: (e) => String(e && e.message ? e.message : e),
    });
    const sent = [];
    /** @type {any} */
    let stream = null;
    const delivered = [];
    let clock = 1_000_000;
    const e = new CheckpointEmitter({
      source: /** @type {any} */ (conn([])), target: /** @type {any} */ (conn(sent)),
      sourceAlias: 'source', targetAlias: 'target', policy: createReplicationPolicy({}), checkpointsTopic: CP_TOPIC,
      groupFilter: createGroupFilter({}), topicFilter: createTopicFilter({}), ensureTopic: async () => undefined,
      sourceOffsets: 'auto', batchMs: 0, now: () => clock,
      openSourceStream: (options) => (stream = { options, start: async () => undefined, stop: async () => undefined, get lastFetchAt() { return Date.now(); } }),
      events: { delivered: (r) => delivered.push(r) },
    });
    await e.start();
    e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 0, upstreamOffset: 5n, downstreamOffset: 3n }] });
    e.handleSyncEvent({ event: 'loaded' });
    await e.cycle();
    // the cycles of the start (the syncs' partial one goes beside the full ones) are over: only what follows counts
    while (e.busy) await new Promise((r) => setTimeout(r, 1));
    delivered.length = 0;
    const partials = () => delivered.filter((r) => !r.full);
    offsets.late = [{ topic: 't', partition: 0, offset: 5n, metadata: '' }];
    const before = listings;
    stream.options.onBatch({ changes: [{ group: 'late', topic: 't', partition: 0, offset: 5n }], deletedGroups: [], skipped: 0 });
    assert.deepEqual((await waitFor(() => partials()[0])).groups, [], 'not shown by the listing: not selected');
    assert.equal(listings, before + 1);
    stream.options.onBatch({ changes: [{ group: 'late', topic: 't', partition: 0, offset: 6n }], deletedGroups: [], skipped: 0 });
    await waitFor(() => partials()[1]);
    assert.equal(listings, before + 1, 'not listed again within a second');
    types.late = 'classic';
    clock += 1000;
    stream.options.onBatch({ changes: [{ group: 'late', topic: 't', partition: 0, offset: 7n }], deletedGroups: [], skipped: 0 });
    assert.deepEqual((await waitFor(() => partials()[2])).groups, ['late']);
    assert.equal(listings, before + 2);
    assert.ok(e.groups.includes('late'));
    await e.stop();
  });
});

async function waitFor(fn, timeout = 5000) {
  const until = Date.now() + timeout;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > until) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('group types: the mm2-checkpoint status counts the streams and share groups not replicated', function () {
  const { checkpointStatus } = require('../../dist/nodes/mm2-checkpoint/mm2-checkpoint-status');
  const { makeTranslate } = require('../../dist/nodes/shared/i18n');
  const t = makeTranslate(/** @type {any} */ ({ _: (/** @type {string} */ key) => key }), 'mm2-checkpoint');
  const now = 1_800_000_000_000;
  const state = (others, groups = 1) => {
    const names = Array.from({ length: groups }, (_, i) => `g${i}`);
    return /** @type {any} */ ({
      phase: { kind: 'ready' },
      last: {
        cycle: 1, full: true, groups: names, written: [], coverage: [], failedGroups: [],
        latest: new Map(names.map((g) => [g, []])), startedAt: now, durationMs: 1, syncsLoaded: true,
        notReplicatedGroups: others,
      },
      lastAt: now - 1000,
      error: null,
      groups,
    });
  };

  it('counts them after the cycle text, never shortened away; green stays green (it is what MM2 does)', function () {
    const others = [{ group: 'wordcount', type: 'streams', reason: 'r' }, { group: 'audit', type: 'share', reason: 'r' }];
    const v = /** @type {any} */ (checkpointStatus(t, state(others), true, 600000, now));
    assert.equal(v.activity.fill, 'green');
    assert.match(v.activity.text, / · 2 streams\/share not replicated$/);
    const long = /** @type {any} */ (checkpointStatus(t, state(others, 10000), true, 600000, now));
    assert.match(long.activity.text, / · 2 streams\/share not replicated$/);
    assert.ok(long.activity.text.length <= 60, long.activity.text);
    const none = /** @type {any} */ (checkpointStatus(t, state([]), true, 600000, now));
    assert.doesNotMatch(none.activity.text, /not replicated/);
  });
});

describe('group types: the mm2-checkpoint log names each streams or share group with why, once', function () {
  const { checkpointEmitterEvents } = require('../../dist/nodes/mm2-checkpoint/mm2-checkpoint-events');
  const { makeTranslate } = require('../../dist/nodes/shared/i18n');
  const t = makeTranslate(/** @type {any} */ ({ _: (/** @type {string} */ key) => key }), 'mm2-checkpoint');

  it('warns at a discovery that finds them, and clears when none is left', function () {
    /** @type {Array<[string, string]>} */
    const warned = [];
    /** @type {string[]} */
    const cleared = [];
    const log = { warn: (kind, text) => warned.push([kind, text]), ok: (kind) => cleared.push(kind), limited: () => true };
    const ev = checkpointEmitterEvents(/** @type {any} */ ({ node: { warn() {}, debug() {} }, t, log, state: {}, checkpointsTopic: 'x', render() {}, delivered() {} }));
    const base = { groups: ['orders'], rejectedByGroupFilter: [], noReplicatedTopics: [], errors: [] };
    ev.discovered(/** @type {any} */ ({ ...base, otherTypes: [{ group: 'wordcount', type: 'streams', reason: 'a streams group (...)' }] }));
    const w = warned.filter(([k]) => k === 'other-types');
    assert.equal(w.length, 1);
    assert.match(w[0][1], /^groups of a type MirrorMaker 2 never checkpoints are not replicated: wordcount \(a streams group \(\.\.\.\)\)$/);
    ev.discovered(/** @type {any} */ ({ ...base, otherTypes: [] }));
    assert.ok(cleared.includes('other-types'));
  });
});
