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
const { coveragePayload, heartbeatMessage, mirrorStatsPayload } = require('../../dist/nodes/lib/contracts');
const { groupReadiness, summarizeReadiness, DEFAULT_READINESS } = require('../../dist/core/readiness');

const root = path.join(__dirname, '..', '..');
const read = (name) => JSON.parse(fs.readFileSync(path.join(root, 'examples', `${name}.json`), 'utf8'));
const flow = read('readiness-dashboard');
const failover = read('full-failover');
const fnNamed = (name) => {
  const n = flow.find((x) => x.type === 'function' && x.name === name);
  assert.ok(n, `a function node "${name}"`);
  return n;
};

/** Runs a function node's code as Node-RED does (msg and node in scope); returns what it returns and the status it set. */
function run(fnNode, msg) {
  const statuses = [];
  const node = { status: (s) => statuses.push(s), warn: () => undefined, error: () => undefined };
  // eslint-disable-next-line no-new-func
  const result = new Function('msg', 'node', fnNode.func)(msg, node);
  return { result, statuses };
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
    assert.deepEqual(wiredTo('mm2-mirror', 0), ['mirror rate']);
  });

  it("'readiness per group': a table row per group with its verdict, and chart points of checkpoint age and re-read bound", function () {
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
    const th = DEFAULT_READINESS;
    const groups = ['analytics', 'fulfilment', 'ledger'].map((g) => groupReadiness(g, coverage.filter((c) => c.group === g)));
    /** @type {any} a cycle's result as the emitter returns it, with what coveragePayload reads */
    const cycle = { cycle: 7, groups: groups.map((g) => g.group), coverage, failedGroups: [], durationMs: 5, readiness: summarizeReadiness(groups, th, listedAt) };
    const { result, statuses } = run(fnNamed('readiness per group'), { topic: 'mm2/coverage', payload: coveragePayload(cycle) });
    const [table, age, reread] = result;
    assert.deepEqual(table.payload, [
      { group: 'analytics', verdict: 'at-risk', reread: 1095, partition: 'orders-0', partitions: '1 / 1 / 0', age: 95, why: 're-reads more than 1,000' },
      { group: 'fulfilment', verdict: 'ready', reread: 12, partition: 'orders-1', partitions: '2 / 0 / 0', age: 20, why: '' },
      { group: 'ledger', verdict: 'not-covered', reread: '', partition: 'orders-0', partitions: '0 / 0 / 1', age: '', why: 'no offset sync for orders-0 yet' },
    ]);
    // one point per group and chart: the series in msg.topic, the value in msg.payload
    assert.deepEqual(age, [{ topic: 'analytics', payload: 95 }, { topic: 'fulfilment', payload: 20 }]);
    assert.deepEqual(reread, [{ topic: 'analytics', payload: 1095 }, { topic: 'fulfilment', payload: 12 }]);
    assert.deepEqual(statuses, [{ fill: 'yellow', shape: 'dot', text: '1 ready, 1 at risk, 1 not covered' }]);
    // a coverage report without readiness (none listed yet) draws nothing
    assert.equal(run(fnNamed('readiness per group'), { payload: { entries: [] } }).result, null);
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
