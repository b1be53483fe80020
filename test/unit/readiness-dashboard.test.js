'use strict';
/**
 * examples/readiness-dashboard.json without Node-RED: its replication nodes are those of the
 * full-failover example (same settings, so the dashboard shows what that flow does), every wire
 * and widget reference resolves, and its function nodes, run on the messages the nodes send
 * (built by the nodes' own payload functions), shape what the table and the charts take.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { coveragePayload, heartbeatMessage, mirrorStatsPayload } = require('../../dist/nodes/shared/contracts');
const { groupReadiness, summarizeReadiness, unlistedGroupReadiness, DEFAULT_READINESS } = require('../../dist/core/readiness');

const root = path.join(__dirname, '..', '..');
const read = (name) => JSON.parse(fs.readFileSync(path.join(root, 'examples', `${name}.json`), 'utf8'));
const flow = read('readiness-dashboard');
const failover = read('full-failover');
const fnNamed = (name) => {
  const n = flow.find((x) => x.type === 'function' && x.name === name);
  assert.ok(n, `a function node "${name}"`);
  return n;
};

/**
 * Runs a function node's code as Node-RED does (msg, node, its context and env in scope); returns
 * what it returns and the status it set. `context` is the node's context (a Map), kept across runs.
 */
function run(fnNode, msg, { context = new Map(), env = {} } = {}) {
  const statuses = [];
  const errors = [];
  const node = { status: (s) => statuses.push(s), warn: () => undefined, error: (e) => errors.push(e) };
  const ctx = { get: (k) => context.get(k), set: (k, v) => context.set(k, v) };
  const environment = { get: (k) => env[k] };
  // eslint-disable-next-line no-new-func
  const result = new Function('msg', 'node', 'context', 'env', fnNode.func)(msg, node, ctx, environment);
  return { result, statuses, errors };
}

describe('examples/readiness-dashboard.json', function () {
  it("runs the full-failover example's replication nodes with the same settings", function () {
    const settings = (n) => Object.fromEntries(Object.entries(n).filter(([k]) => !['id', 'z', 'x', 'y', 'wires', 'g'].includes(k)));
    const mm2 = (f) => f.filter((n) => n.type.startsWith('mm2-'));
    assert.deepEqual(mm2(flow).map((n) => n.type).sort(), mm2(failover).map((n) => n.type).sort());
    for (const n of mm2(flow)) {
      // the config nodes keep their ids (importing both examples shares the clusters), flow nodes are one of a type
      const twin = failover.find((m) => m.id === n.id) || failover.find((m) => m.type === n.type);
      assert.deepEqual(settings(n), settings(twin), `${n.type} ${n.id} as in full-failover`);
    }
  });

  it('one page; the table and every chart in a group of it; each widget fed by a function node', function () {
    const byId = new Map(flow.map((n) => [n.id, n]));
    const pages = flow.filter((n) => n.type === 'ui-page');
    assert.equal(pages.length, 1);
    assert.equal(byId.get(pages[0].ui).type, 'ui-base');
    assert.equal(`${byId.get(pages[0].ui).path}${pages[0].path}`, '/dashboard/readiness');
    const widgets = flow.filter((n) => n.type === 'ui-table' || n.type === 'ui-chart');
    assert.deepEqual(widgets.map((n) => n.type).sort(), ['ui-chart', 'ui-chart', 'ui-chart', 'ui-chart', 'ui-table']);
    for (const w of widgets) {
      assert.equal(byId.get(w.group).type, 'ui-group', w.id);
      assert.equal(byId.get(w.group).page, pages[0].id, w.id);
      const feeders = flow.filter((n) => (n.wires || []).some((out) => out.includes(w.id)));
      assert.deepEqual(feeders.map((n) => n.type), ['function'], `${w.id} is fed by one function node`);
    }
    // the checkpoint node's coverage output (2), the heartbeats (1) and the mirror's stats feed the function nodes
    const wiredTo = (type, out) => flow.find((n) => n.type === type).wires[out].map((id) => byId.get(id).name);
    assert.deepEqual(wiredTo('mm2-checkpoint', 1), ['readiness per group']);
    assert.deepEqual(wiredTo('mm2-heartbeat', 0), ['heartbeat latency']);
    // the mirror's stats too: the records of each group's partitions not yet on the target
    assert.deepEqual(wiredTo('mm2-mirror', 0), ['mirror rate', 'readiness per group']);
    // the two charts per group take each point's time and value from it (a chart drawn again keeps its times)
    for (const id of ['rd-chart-notcopied', 'rd-chart-reread']) {
      const c = byId.get(id);
      assert.deepEqual([c.xAxisProperty, c.xAxisPropertyType, c.yAxisProperty, c.yAxisPropertyType], ['x', 'property', 'y', 'property'], id);
    }
  });

  const listedAt = 1_800_000_000_000;
  const e = (group, partition, status, verdict, reread, checkpointAt, reason = '') => ({
    group, topic: 'orders', partition, remoteTopic: 'source.orders', upstreamOffset: 500n, status, reason, verdict, reread, checkpointAt,
    ...(verdict === 'not-covered' ? {} : { downstreamOffset: 480n }),
  });
  const coverage = [
    e('fulfilment', 0, 'emitted', 'ready', 0, listedAt),
    e('fulfilment', 1, 'unchanged', 'ready', 12, listedAt - 20_000),
    e('analytics', 0, 'unchanged', 'at-risk', 1095, listedAt - 95_400),
    e('analytics', 1, 'emitted', 'ready', 3, listedAt),
    e('ledger', 0, 'no-sync', 'not-covered', null, null, 'no offset sync for orders-0 yet'),
  ];
  /** The coverage message of a cycle that listed the offsets at `at`, of the groups named (default: all three). */
  const coverageMessage = (at = listedAt, names = ['analytics', 'fulfilment', 'ledger']) => {
    const entries = coverage.filter((c) => names.includes(c.group));
    const groups = names.map((g) => groupReadiness(g, entries.filter((c) => c.group === g)));
    /** @type {any} a cycle's result as the emitter returns it, with what coveragePayload reads */
    const cycle = { cycle: 7, groups: names, coverage: entries, failedGroups: [], durationMs: 5, readiness: summarizeReadiness(groups, DEFAULT_READINESS, at) };
    return { topic: 'mm2/coverage', payload: coveragePayload(cycle) };
  };
  /** The mirror's stats with this lag per source partition. */
  const mirrorMessage = (lag) => {
    /** @type {any} the mirror's stats, as the mirror task counts them */
    const stats = { topics: ['orders'], remoteTopics: { orders: 'source.orders' }, partitions: 2, records: 900, bytes: 9000, syncsSent: 9, syncsFailed: 0, lagBySourcePartition: lag, committedPartitions: 2, errors: {} };
    return { topic: 'mm2/mirror', payload: mirrorStatsPayload(stats, 10, { sourceCluster: 'source', targetCluster: 'target', offsetSyncsTopic: 'mm2-offset-syncs.target.internal' }) };
  };
  const colourMessage = (msgs) => msgs.find((m) => m.ui_update)?.ui_update.chartOptions.color;

  it("'readiness per group': a table row per group with its verdict in words, and chart points of the records not yet on the target and the re-read bound", function () {
    const context = new Map();
    const fn = fnNamed('readiness per group');
    // the mirror's stats are kept for the next coverage report: nothing drawn
    assert.equal(run(fn, mirrorMessage({ 'orders-0': 40, 'orders-1': 2, 'other-0': 7 }), { context }).result, null);
    const { result, statuses } = run(fn, coverageMessage(), { context });
    const [table, notCopied, reread] = result;
    assert.deepEqual(table.payload, [
      { group: 'analytics', verdict: 'at risk', reread: 1095, partition: 'orders-0', partitions: '1 / 1 / 0', notCopied: 42, why: 're-reads more than 1,000' },
      { group: 'fulfilment', verdict: 'ready', reread: 12, partition: 'orders-1', partitions: '2 / 0 / 0', notCopied: 42, why: '' },
      { group: 'ledger', verdict: 'not covered', reread: '', partition: 'orders-0', partitions: '0 / 0 / 1', notCopied: 40, why: 'no offset sync for orders-0 yet' },
    ]);
    // one point per group and chart: the series in msg.topic, the time and value in msg.payload
    // (after the colours of the chart's series, the first time)
    assert.deepEqual(notCopied.filter((m) => !m.ui_update), [
      { topic: 'analytics', payload: { x: listedAt, y: 42 } }, { topic: 'fulfilment', payload: { x: listedAt, y: 42 } }, { topic: 'ledger', payload: { x: listedAt, y: 40 } },
    ]);
    assert.deepEqual(reread.filter((m) => !m.ui_update), [{ topic: 'analytics', payload: { x: listedAt, y: 1095 } }, { topic: 'fulfilment', payload: { x: listedAt, y: 12 } }]);
    assert.deepEqual(statuses, [{ fill: 'yellow', shape: 'dot', text: '1 ready, 1 at risk, 1 not covered' }]);
    // the chart of a cycle without the mirror's stats yet: no point, an empty cell
    const alone = run(fn, coverageMessage()).result;
    assert.deepEqual(alone[0].payload.map((row) => row.notCopied), ['', '', '']);
    assert.deepEqual(alone[1], []);
    // a coverage report without readiness (none listed yet) draws nothing
    assert.equal(run(fn, { payload: { entries: [] } }).result, null);
  });

  it("'readiness per group': the verdicts in Chinese with the tab's DASHBOARD_LANG zh-CN; another value is refused by name", function () {
    const fn = fnNamed('readiness per group');
    const tab = flow.find((n) => n.type === 'tab');
    assert.deepEqual(tab.env, [{ name: 'DASHBOARD_LANG', value: 'en-US', type: 'str' }], 'the setting, on the tab, en-US');
    const { result, statuses } = run(fn, coverageMessage(), { env: { DASHBOARD_LANG: 'zh-CN' } });
    assert.deepEqual(result[0].payload.map((row) => [row.verdict, row.why]), [['有风险', '重读超过 1,000 条记录'], ['就绪', ''], ['未覆盖', 'no offset sync for orders-0 yet']]);
    assert.deepEqual(statuses, [{ fill: 'yellow', shape: 'dot', text: '1 个就绪，1 个有风险，1 个未覆盖' }]);
    assert.deepEqual(run(fn, coverageMessage(), { env: { DASHBOARD_LANG: 'en-US' } }).result[0].payload.map((row) => row.verdict), ['at risk', 'ready', 'not covered']);
    // a group without a partition to name (never listed; no commit on a mirrored topic): why in words too
    const never = coverageMessage();
    never.payload.readiness.groups = [
      unlistedGroupReadiness('billing', null, null, listedAt, DEFAULT_READINESS),
      groupReadiness('idle', [{ topic: 'orders', partition: 0, status: 'no-committed-offset', verdict: 'not-covered', reread: null, checkpointAt: null }]),
    ];
    assert.deepEqual(run(fn, never).result[0].payload.map((row) => row.why), ['its offsets could not be listed yet', 'no committed offset on a mirrored topic']);
    assert.deepEqual(run(fn, never, { env: { DASHBOARD_LANG: 'zh-CN' } }).result[0].payload.map((row) => row.why), ['尚未能列出其偏移量', '在被镜像的主题上没有已提交的偏移量']);
    const fr = run(fn, coverageMessage(), { env: { DASHBOARD_LANG: 'fr' } });
    assert.equal(fr.result, null);
    assert.match(fr.errors[0], /DASHBOARD_LANG is "fr": set the tab's environment variable DASHBOARD_LANG to en-US or zh-CN/);
    assert.equal(fr.statuses[0].fill, 'red');
  });

  it("'readiness per group': the flow in several instances: a column of the instance covering each group; a group no live instance covers says so (en-US, zh-CN)", function () {
    const fn = fnNamed('readiness per group');
    const table = flow.find((n) => n.type === 'ui-table');
    assert.ok(table.columns.some((c) => c.key === 'coveredBy'), 'a Covered by column');
    const shared = coverageMessage();
    const { uncoveredReadiness } = require('../../dist/core/share-summaries');
    shared.payload.readiness.groups = [{ ...shared.payload.readiness.groups[0], coveredBy: 'nr-1:4242' }, uncoveredReadiness('billing')];
    assert.deepEqual(run(fn, shared).result[0].payload.map((row) => [row.group, row.coveredBy, row.why]), [
      ['analytics', 'nr-1:4242', 're-reads more than 1,000'],
      ['billing', '', 'no live Node-RED instance covers it (the one that did stopped or stopped publishing)'],
    ]);
    assert.equal(run(fn, shared, { env: { DASHBOARD_LANG: 'zh-CN' } }).result[0].payload[1].why, '没有存活的 Node-RED 实例覆盖它（原来覆盖它的实例已停止或已停止发布）');
    // one instance alone: no coveredBy in the rows (the table as before)
    assert.ok(run(fn, coverageMessage()).result[0].payload.every((row) => !('coveredBy' in row)));
  });

  it("'readiness per group': a group has one colour in both charts, from its name, in the charts' palette", function () {
    const fn = fnNamed('readiness per group');
    const context = new Map();
    run(fn, mirrorMessage({ 'orders-0': 40, 'orders-1': 2 }), { context });
    const [, notCopied, reread] = run(fn, coverageMessage(), { context }).result;
    // the chart colours its series in their order: the colours go out first, in the order of the points
    assert.ok(notCopied[0].ui_update && reread[0].ui_update);
    const colours = (msgs) => Object.fromEntries(msgs.filter((m) => m.topic !== undefined).map((m, i) => [m.topic, colourMessage(msgs)[i]]));
    const a = colours(notCopied);
    const b = colours(reread);
    assert.deepEqual(Object.keys(a), ['analytics', 'fulfilment', 'ledger']);
    assert.deepEqual(Object.keys(b), ['analytics', 'fulfilment']);
    // ledger is not drawn in the re-read chart: the others keep their colours all the same
    assert.equal(b.analytics, a.analytics);
    assert.equal(b.fulfilment, a.fulfilment);
    // a group alone in a chart (another run, another order) has its colour still
    const context2 = new Map();
    run(fn, mirrorMessage({ 'orders-0': 40, 'orders-1': 2 }), { context: context2 });
    const only = run(fn, coverageMessage(listedAt, ['fulfilment']), { context: context2 }).result[1];
    assert.deepEqual(colourMessage(only), [a.fulfilment]);
    // the colours are the charts' own (what a chart draws before the first colours arrive)
    const palette = flow.find((n) => n.id === 'rd-chart-reread').colors;
    assert.deepEqual(flow.find((n) => n.id === 'rd-chart-notcopied').colors, palette);
    for (const c of Object.values(a)) assert.ok(palette.includes(c), c);
    // no colours again while the set of groups stays
    const next = run(fn, coverageMessage(listedAt + 10_000), { context }).result;
    assert.equal(colourMessage(next[1]), undefined);
    assert.equal(colourMessage(next[2]), undefined);
  });

  it("'readiness per group': a group no longer selected leaves the charts (cleared, drawn again without it); a new one is added in its colour", function () {
    const fn = fnNamed('readiness per group');
    const context = new Map();
    run(fn, mirrorMessage({ 'orders-0': 40, 'orders-1': 2 }), { context });
    const first = run(fn, coverageMessage(), { context }).result;
    const colours = colourMessage(first[2]);
    // analytics is no longer selected
    const [, notCopied, reread] = run(fn, coverageMessage(listedAt + 10_000, ['fulfilment', 'ledger']), { context }).result;
    assert.deepEqual(reread, [
      { payload: [] },
      { ui_update: { chartOptions: { color: [colours[1]] } } },
      { topic: 'fulfilment', payload: [{ x: listedAt, y: 12 }, { x: listedAt + 10_000, y: 12 }] },
    ]);
    assert.deepEqual(notCopied.map((m) => m.topic), [undefined, undefined, 'fulfilment', 'ledger']);
    assert.deepEqual(notCopied[0], { payload: [] });
    assert.deepEqual(notCopied[3].payload, [{ x: listedAt, y: 40 }, { x: listedAt + 10_000, y: 40 }]);
    // then points again, without clearing
    const third = run(fn, coverageMessage(listedAt + 20_000, ['fulfilment', 'ledger']), { context }).result;
    assert.deepEqual(third[2], [{ topic: 'fulfilment', payload: { x: listedAt + 20_000, y: 12 } }]);
    // analytics back: added after the others, its colour appended
    const back = run(fn, coverageMessage(listedAt + 30_000), { context }).result[2];
    assert.deepEqual(back, [
      { ui_update: { chartOptions: { color: [colours[1], colours[0]] } } },
      { topic: 'analytics', payload: { x: listedAt + 30_000, y: 1095 } },
      { topic: 'fulfilment', payload: { x: listedAt + 30_000, y: 12 } },
    ]);
  });

  it("'heartbeat latency' and 'mirror rate': one chart point per message", function () {
    const hb = heartbeatMessage({ sourceClusterAlias: 'source', targetClusterAlias: 'target', timestamp: 1000, latencyMs: 42, offset: 5n }, 'source.heartbeats');
    assert.deepEqual(run(fnNamed('heartbeat latency'), hb).result, { topic: 'source → target', payload: 42 });
    /** @type {any} the mirror's stats, as the mirror task counts them */
    const stats = { topics: ['orders'], remoteTopics: { orders: 'source.orders' }, partitions: 3, records: 900, bytes: 9000, syncsSent: 9, syncsFailed: 0, lagBySourcePartition: {}, committedPartitions: 3, errors: {} };
    const payload = mirrorStatsPayload(stats, 37.26, { sourceCluster: 'source', targetCluster: 'target', offsetSyncsTopic: 'mm2-offset-syncs.target.internal' });
    assert.deepEqual(run(fnNamed('mirror rate'), { topic: 'mm2/mirror', payload }).result, { topic: 'records/s', payload: 37.3 });
  });
});
