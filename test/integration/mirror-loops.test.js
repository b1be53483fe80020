'use strict';
/**
 * Replications that would copy records round in circles are refused by the clusters' ids, not only
 * by their aliases (issue 26, hostile configuration trial and item 3), before a record is copied:
 * - one cluster named by two cluster nodes (aliases left and right): the mirror would copy its
 *   own remote topics again and again (left.x, left.left.x, ...);
 * - two opposite flows over the same two clusters with IdentityReplicationPolicy under other
 *   aliases (east -> west beside west2 -> east2): records would go back and forth for ever;
 * - two opposite flows with DefaultReplicationPolicy whose aliases are not each other's (the full
 *   failover example beside the active/active one): each copies the other's remote topics back
 *   (source.west.source.orders).
 * Each mirror's status says why in red, naming the other nodes, and nothing is copied. Opposite
 * flows whose aliases match (active/active as MM2 runs it) still run: active-active.test.js.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');

async function produce(clusterName, topic, n) {
  const admin = await env.admin(clusterName);
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  const producer = env.kafka(clusterName).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: n }, (_, i) => ({ value: `v${i}` })) });
  await producer.disconnect();
}

async function topicsWith(clusterName, part) {
  return (await (await env.admin(clusterName)).listTopics()).filter((t) => t.includes(part)).sort();
}

const cluster = (id, alias, which) => ({ id, type: 'mm2-cluster', alias, bootstrap: env.cluster(which).bootstrap, saslMechanism: 'none' });
const replication = (id, source, target, policy = 'DefaultReplicationPolicy') => ({
  id, type: 'mm2-replication', name: `flow ${id}`, source, target, policy, separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', offsetTranslation: 'precise', replicationFactor: 1,
});
const mirror = (id, rep, topics) => ({
  id, type: 'mm2-mirror', replication: rep, topics, topicsExclude: '', heartbeatsReplicationEnabled: false, emitOffsetSyncsEnabled: true,
  offsetFlushIntervalMs: '1000', refreshTopicsIntervalSeconds: '5', wires: [[]],
});

/** Loads the flow and waits until each mirror of `ids` shows red; returns their last status texts. */
async function refused(flow, ids) {
  await nodes.helper.load(nodes.modules, flow);
  const seen = Object.fromEntries(ids.map((id) => [id, nodes.statuses(nodes.helper.getNode(id))]));
  const last = (id) => seen[id][seen[id].length - 1] || {};
  await env.eventually(() => ids.every((id) => last(id).fill === 'red'), { timeout: 60000, what: `every mirror red (${JSON.stringify(Object.fromEntries(ids.map((id) => [id, seen[id]])))})` });
  for (const id of ids) assert.ok(!seen[id].some((s) => s.fill === 'green'), `${id} never green: ${JSON.stringify(seen[id])}`);
  return Object.fromEntries(ids.map((id) => [id, last(id).text]));
}

describe('mirrors that would copy round in circles are refused by cluster id (real clusters)', function () {
  this.timeout(120000);
  before(() => nodes.startServer());
  after(() => nodes.stopServer());
  afterEach(() => nodes.helper.unload());

  it('one cluster under two aliases: refused naming both cluster nodes, no remote topic created', async function () {
    const tag = env.unique('same');
    await produce('source', `${tag}-loop-a`, 10);
    const texts = await refused([
      cluster('cl', `${tag}-left`, 'source'), cluster('cr', `${tag}-right`, 'source'),
      replication('r1', 'cl', 'cr'), mirror('m1', 'r1', `${tag}-.*`),
    ], ['m1']);
    assert.match(texts.m1, /^refused: source and target are one Kafka cluster$/, texts.m1);
    // the status is short; the log and the error name the nodes in full: the message itself is checked below
    const node = nodes.helper.getNode('m1');
    assert.ok(node, 'the mirror node');
    const srcAdmin = await env.admin('source');
    const { clusterId } = await srcAdmin.describeCluster();
    const full = nodes.helper.log().args.map((a) => a[0]).filter((e) => e && e.id === 'm1' && e.level === 20).map((e) => String(e.msg));
    assert.ok(full.some((m) => m.includes(`cl`) && m.includes('cr') && m.includes(clusterId)), `the error names both cluster nodes and the cluster id: ${full.join(' | ')}`);
    // refused before anything was copied: the same cluster holds no remote topic of its own
    assert.deepEqual(await topicsWith('source', `${tag}-left.`), []);
  });

  it('opposite flows with IdentityReplicationPolicy under other aliases (east -> west beside west2 -> east2): both refused, no record copied', async function () {
    const tag = env.unique('idl');
    await produce('source', `${tag}-e`, 10);
    await produce('target', `${tag}-w`, 10);
    const texts = await refused([
      cluster('e', `${tag}-east`, 'source'), cluster('w', `${tag}-west`, 'target'),
      cluster('w2', `${tag}-west2`, 'target'), cluster('e2', `${tag}-east2`, 'source'),
      replication('ew', 'e', 'w', 'IdentityReplicationPolicy'), replication('we', 'w2', 'e2', 'IdentityReplicationPolicy'),
      mirror('m-ew', 'ew', `${tag}-.*`), mirror('m-we', 'we', `${tag}-.*`),
    ], ['m-ew', 'm-we']);
    assert.match(texts['m-ew'], /^refused: a loop with mm2-replication 'flow we'/, texts['m-ew']);
    assert.match(texts['m-we'], /^refused: a loop with mm2-replication 'flow ew'/, texts['m-we']);
    const errors = nodes.helper.log().args.map((a) => a[0]).filter((e) => e && e.level === 20 && (e.id === 'm-ew' || e.id === 'm-we')).map((e) => String(e.msg));
    assert.ok(errors.some((m) => m.includes('IdentityReplicationPolicy') && m.includes("'flow we' (we)")), errors.join(' | '));
    // nothing went across: each topic is on its own cluster only, with its 10 records
    assert.deepEqual(await topicsWith('target', `${tag}-e`), []);
    assert.deepEqual(await topicsWith('source', `${tag}-w`), []);
    for (const [c, t] of [['source', `${tag}-e`], ['target', `${tag}-w`]]) {
      const offs = await (await env.admin(c)).fetchTopicOffsets(t);
      assert.equal(offs[0].high, '10', `${t} on ${c}`);
    }
  });

  it('opposite flows with DefaultReplicationPolicy whose aliases are not each other\'s: both refused, no chained topic', async function () {
    const tag = env.unique('chain');
    await produce('source', `${tag}-orders`, 5);
    const texts = await refused([
      cluster('s', `${tag}-source`, 'source'), cluster('t', `${tag}-target`, 'target'),
      cluster('w', `${tag}-west`, 'target'), cluster('e', `${tag}-east`, 'source'),
      replication('st', 's', 't'), replication('we', 'w', 'e'),
      mirror('m-st', 'st', `${tag}-.*`), mirror('m-we', 'we', `${tag}-.*`),
    ], ['m-st', 'm-we']);
    assert.match(texts['m-st'], /^refused: a loop with mm2-replication 'flow we'/, texts['m-st']);
    assert.match(texts['m-we'], /^refused: a loop with mm2-replication 'flow st'/, texts['m-we']);
    const errors = nodes.helper.log().args.map((a) => a[0]).filter((e) => e && e.level === 20 && e.id === 'm-st').map((e) => String(e.msg));
    assert.ok(errors.some((m) => m.includes('under other aliases') && m.includes(`${tag}-west.${tag}-source.<topic>`)), errors.join(' | '));
    assert.deepEqual(await topicsWith('target', `${tag}-source.`), []);
    assert.deepEqual(await topicsWith('source', `${tag}-west.`), []);
  });
});
