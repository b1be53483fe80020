'use strict';
/**
 * Failback's own logic (engines/failback) with clusters held in memory: which target offsets it
 * takes (remote topics of the flow, the filters), the reverse translation, the writes on the
 * source through the group-offset writer's rules, where each group stands; and the node's status
 * (nodes/mm2-failback/mm2-failback-status). The real brokers are in test/integration/failback-e2e.test.js.
 */
const assert = require('node:assert/strict');
const { Failback, SyncsNotLoadedError } = require('../../dist/engines/failback');
const { FailbackRuns } = require('../../dist/nodes/mm2-failback/mm2-failback-runs');
const status = require('../../dist/nodes/mm2-failback/mm2-failback-status');
const { makeTranslate } = require('../../dist/nodes/shared/i18n');
const { createGroupFilter, createTopicFilter } = require('../../dist/core/filters');
const { createReplicationPolicy } = require('../../dist/core/replication-policy');

const sync = (up, down, topic = 'orders', partition = 0) => ({ topic, partition, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down) });
/** The status shown (loosely typed for the tests). @returns {any} */
const failbackStatus = (/** @type {any[]} */ ...a) => /** @type {any} */ (status.failbackStatus)(...a);
const t = makeTranslate(/** @type {any} */ ({ _: (/** @type {string} */ k) => k }), 'mm2-failback');

/**
 * Target: groups -> [{topic, partition, offset}]; source: committed offsets and states, topic
 * `orders` with 2 partitions ending at 1000 (and `other`).
 * @param {{ target: Record<string, Array<[string, number, number]>>, targetStates?: Record<string, string>, source?: Record<string, Array<[string, number, number]>>, sourceStates?: Record<string, string> }} o
 */
function clusters(o) {
  const commits = [];
  const listed = (groups, states) => {
    const m = new Map(Object.keys(groups).map((g) => [g, { state: 'Empty', protocolType: 'consumer' }]));
    for (const [g, state] of Object.entries(states || {})) m.set(g, { state, protocolType: 'consumer' });
    return m;
  };
  const fetcherOf = (groups, states) => ({
    listGroupStates: async () => listed(groups, states),
    fetchMany: async (ids) => {
      const offsets = new Map();
      for (const g of ids) offsets.set(g, (groups[g] || []).map(([topic, partition, offset]) => ({ topic, partition, offset: BigInt(offset), metadata: 'm' })));
      return { offsets, failed: new Map() };
    },
  });
  const sourceGroups = { ...(o.source || {}) };
  const target = { offsetFetcher: () => fetcherOf(o.target, o.targetStates), reportOk: () => undefined };
  const source = {
    admin: async () => /** @type {any} */ ({
      listTopics: async () => ['orders', 'other'],
      fetchTopicOffsets: async () => [0, 1].map((partition) => ({ partition, offset: '1000', high: '1000', low: '0' })),
    }),
    committer: () => ({
      commitMany: async (list) => {
        const out = new Map();
        for (const { group, offsets } of list) {
          commits.push({ group, offsets: offsets.map((x) => `${x.topic}-${x.partition}@${x.offset}`) });
          const have = (sourceGroups[group] || []).filter(([tp, p]) => !offsets.some((x) => x.topic === tp && x.partition === p));
          sourceGroups[group] = [...have, ...offsets.map((x) => [x.topic, x.partition, Number(x.offset)])];
          out.set(group, { ok: true });
        }
        return out;
      },
    }),
    offsetFetcher: () => fetcherOf(sourceGroups, o.sourceStates),
    reportOk: () => undefined,
  };
  return { target, source, commits, sourceGroups };
}

function failbackOn(c, opts = {}) {
  const f = new Failback({
    target: c.target,
    source: c.source,
    sourceAlias: 'source',
    policy: createReplicationPolicy(),
    groupFilter: createGroupFilter({}),
    topicFilter: createTopicFilter({}),
    minWriteIntervalMs: 0,
    ...opts,
  });
  f.handleSyncEvent({ event: 'syncs', syncs: [sync(100, 0), sync(200, 90), sync(300, 180), sync(0, 0, 'orders', 1), sync(500, 400, 'orders', 1)] });
  return f;
}

describe('failback (no broker)', function () {
  it('waits for the offset syncs to be loaded', async function () {
    const f = failbackOn(clusters({ target: {} }));
    await assert.rejects(f.cycle(), SyncsNotLoadedError);
    f.handleSyncEvent({ event: 'loaded' });
    assert.equal(f.syncsLoaded, true);
    f.handleSyncEvent({ event: 'reset' });
    assert.equal(f.syncsLoaded, false, 'a reset starts a new load');
    await f.close();
  });

  it('translates the remote topics of the flow back and writes the idle source groups; never backwards; leaves active ones alone', async function () {
    const c = clusters({
      target: {
        // on a sync (exact), past one (+1), below every sync (too old), a local topic, another flow's remote topic
        a: [['source.orders', 0, 90], ['source.orders', 1, 450], ['orders', 0, 5], ['other.orders', 0, 7]],
        b: [['source.orders', 0, 100]],
        c: [['source.orders', 0, 200]],
        old: [['source.orders', 0, 0], ['source.orders', 1, 0]],
        'console-consumer-1': [['source.orders', 0, 180]],
      },
      source: { b: [['orders', 0, 250]] }, // already further on the source
      sourceStates: { c: 'Stable' },
    });
    const f = failbackOn(c);
    f.handleSyncEvent({ event: 'loaded' });
    const r = await f.cycle();
    const entry = (g, p) => r.entries.find((e) => e.group === g && e.partition === p && e.topic === 'source.orders');
    assert.equal(entry('a', 0).sourceOffset, 200n);
    assert.equal(entry('a', 0).exact, true);
    assert.equal(entry('a', 1).sourceOffset, 501n);
    assert.equal(entry('a', 1).exact, false);
    assert.equal(entry('old', 0).sourceOffset, 100n, 'the sync 100 -> 0 is at target offset 0');
    assert.equal(entry('old', 1).sourceOffset, 0n);
    assert.equal(r.entries.filter((e) => e.group === 'a').length, 2, 'only the remote topics of this flow');
    assert.ok(!r.entries.some((e) => e.group === 'console-consumer-1'), 'groups.exclude applies');
    assert.deepEqual(c.commits.map((x) => x.group).sort(), ['a', 'old']);
    assert.deepEqual(c.commits.find((x) => x.group === 'a').offsets.sort(), ['orders-0@200', 'orders-1@501']);
    const state = Object.fromEntries(r.groups.map((g) => [g.group, g.state]));
    assert.deepEqual(state, { a: 'in-step', b: 'in-step', c: 'active-on-source', old: 'in-step' });
    assert.deepEqual(c.sourceGroups.b, [['orders', 0, 250]], 'b is further on the source: never moved back');
    // the status: yellow, one active on the source
    const st = failbackStatus(t, r, Date.now(), 60000);
    assert.equal(st.activity.fill, 'yellow');
    assert.match(st.activity.text, /^3\/4 groups in step on source, 1 active on source \/ 0 s ago$/);
    await f.close();
  });

  it('too old and unknown partitions are not written; the topic filter applies to the source topic names', async function () {
    const c = clusters({ target: { a: [['source.orders', 1, 450]], y: [['source.orders', 1, 450], ['source.orders', 5, 3]], z: [['source.orders', 5, 3]], x: [['source.other', 0, 3]] } });
    const f = failbackOn(c, { topicFilter: createTopicFilter({ 'topics.exclude': 'other' }) });
    f.handleSyncEvent({ event: 'syncs', syncs: [sync(50, 10, 'orders', 5)] });
    f.handleSyncEvent({ event: 'loaded' });
    const r = await f.cycle();
    assert.deepEqual(r.entries.find((e) => e.group === 'z'), { group: 'z', topic: 'source.orders', partition: 5, targetOffset: 3n, sourceTopic: 'orders', skip: 'too-old' });
    assert.ok(!r.entries.some((e) => e.group === 'x'), 'source topic other is excluded');
    assert.deepEqual(r.groups.find((g) => g.group === 'z').state, 'not-translated');
    // one partition of y translated, one not: written where it could be, and not in step
    assert.deepEqual(r.groups.find((g) => g.group === 'y'), { group: 'y', targetState: 'Empty', state: 'not-translated', reason: '1 of 2 partitions could not be translated (no sync at or below their target offset)' });
    assert.deepEqual(c.commits.map((x) => x.group).sort(), ['a', 'y']);
    const st = failbackStatus(t, r, Date.now(), 60000);
    assert.match(st.activity.text, /^1\/3 groups in step on source, 2 too old/);
    // green once every group is in step; stale when cycles stop
    const ok = { ...r, groups: r.groups.filter((g) => g.group === 'a') };
    assert.deepEqual(failbackStatus(t, ok, 1000, 60000, 2000).activity, { fill: 'green', shape: 'dot', text: '1/1 group in step on source / 1 s ago' });
    assert.equal(failbackStatus(t, ok, 0, 10000, 60000).activity.fill, 'yellow');
    assert.equal(failbackStatus(t, { ...r, groups: [] }, 1000, 60000, 2000).activity.fill, 'yellow', 'no group on a remote topic is not green');
    // no group could be written (e.g. READ missing on the source): red, with the reason; one of two: yellow
    const refused = 'not authorized: needs READ on Group:a';
    const none = { ...r, groups: [{ group: 'a', state: 'not-written', reason: refused }] };
    assert.deepEqual(failbackStatus(t, none, 1000, 60000, 2000), { fail: `nothing written on the source: ${refused}` });
    const one = { ...r, groups: [...none.groups, { group: 'b', state: 'in-step' }] };
    assert.equal(failbackStatus(t, one, 1000, 60000, 2000).activity.fill, 'yellow');
    await f.close();
  });

  it('writes what each cycle reads: a group gone from the target, or now below every sync, is not written again from an older cycle', async function () {
    /** @type {Record<string, Array<[string, number, number]>>} */
    const target = { a: [['source.orders', 0, 90]], gone: [['source.orders', 0, 90]] };
    const c = clusters({ target });
    const f = failbackOn(c);
    f.handleSyncEvent({ event: 'loaded' });
    await f.cycle();
    assert.deepEqual(c.commits.map((x) => x.group).sort(), ['a', 'gone']);
    // the source groups are reset (say, the topic recreated); on the target `gone` is deleted and
    // `a` no longer has an offset on orders-0
    delete target.gone;
    target.a = [['source.orders', 1, 0]];
    c.sourceGroups.a = [];
    c.sourceGroups.gone = [];
    c.commits.length = 0;
    const r = await f.cycle();
    assert.deepEqual(c.commits, [{ group: 'a', offsets: ['orders-1@0'] }], 'only what this cycle translated: orders-1 of a, nothing of gone, not a\'s old orders-0');
    assert.ok(!r.groups.some((g) => g.group === 'gone'));
    await f.close();
  });

  it('"fail back now" is coalesced: 3,000 messages while a cycle runs cost one more cycle, and every message is done', async function () {
    const c = clusters({ target: { app: [['source.orders', 0, 150]] } });
    // the target's listing waits while the test sends its messages: one cycle is under way
    let listings = 0;
    let release = () => undefined;
    const gate = new Promise((r) => { release = () => r(undefined); });
    const fetcher = c.target.offsetFetcher;
    c.target.offsetFetcher = () => {
      const f = fetcher();
      return { ...f, listGroupStates: async () => { listings++; await gate; return f.listGroupStates(); } };
    };
    const f = failbackOn(c);
    f.handleSyncEvent({ event: 'loaded' });
    const sent = [];
    const ignore = () => undefined;
    const ctx = /** @type {any} */ ({ closing: false, status: { activity: ignore, show: ignore, fail: ignore }, log: { ok: ignore, warn: ignore, error: ignore } });
    const runs = new FailbackRuns({ node: { send: (m) => sent.push(m) }, ctx, t, failback: f, source: /** @type {any} */ ({ settings: {} }), intervalMs: 60000, syncsTopic: 'mm2-offset-syncs.target.internal', clusters: { source: 'source', target: 'target' } });
    const done = [];
    for (let i = 0; i < 3000; i++) {
      runs.run({ _msgid: `m${i}` }, (m) => sent.push(m), (err) => done.push(err));
    }
    release();
    // waits on the condition (every message done), never on time
    while (done.length < 3000) await new Promise((r) => setImmediate(r));
    assert.equal(listings, 2, 'the cycle under way and one after it for the 2,999 messages that came meanwhile');
    assert.deepEqual(done.filter((e) => e !== undefined), [], 'every message done, none with an error');
    assert.deepEqual(sent.map((m) => m._msgid), ['m0', 'm1'], 'each cycle\'s result sent once, on the first message it served');
    assert.equal(sent[1].payload.groups[0].group, 'app');
    await f.close();
  });
});
