'use strict';
/**
 * Active/active in one Node-RED, on real brokers: examples/active-active.json (two mm2-replication
 * flows in opposite directions over the same two clusters, each with mirror, offset syncs,
 * checkpoint, group offsets and heartbeat) deployed as it is, its clusters pointed at the two test
 * clusters (aliases made unique), its topic and group selection narrowed to this file's names and
 * its intervals shortened. Records produced on either side arrive once on the other and never come
 * back; the groups of each side get their offsets on the other; heartbeats go both ways. With
 * IdentityReplicationPolicy the same pair is refused, naming the field and the fix.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { exampleFlow } = require('../harness/active-active');
const { DEFAULT_KAFKA_VERSION } = require('../../scripts/kafka/cluster');

const N = 20;

describe(`active/active in one Node-RED: the active-active example, both directions (Kafka ${process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION})`, function () {
  this.timeout(240000);
  let east;
  let west;
  let producers = [];

  before(async function () {
    await nodes.startServer();
    east = await env.admin('source');
    west = await env.admin('target');
  });
  afterEach(async function () {
    await nodes.helper.unload();
    for (const p of producers) await p.disconnect().catch(() => undefined);
    producers = [];
  });
  after(() => nodes.stopServer());

  async function produce(name, topic, values) {
    const producer = env.kafka(name).producer({ allowAutoTopicCreation: false });
    await producer.connect();
    producers.push(producer);
    await producer.send({ topic, acks: -1, messages: values.map((value) => ({ value, partition: 0 })) });
  }
  async function topic(admin, name) {
    await admin.createTopics({ topics: [{ topic: name, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
  }
  /** Every value of partition 0 of `topic` on cluster `name` (read from the start up to its end). */
  async function values(name, admin, t) {
    const [end] = await admin.fetchTopicOffsets(t);
    const high = Number(end.high);
    if (high === 0) return [];
    const consumer = env.kafka(name).consumer({ groupId: env.unique('reader'), allowAutoTopicCreation: false });
    await consumer.connect();
    const got = [];
    try {
      await consumer.subscribe({ topics: [t], fromBeginning: true });
      let resolveDone;
      const done = new Promise((r) => (resolveDone = r));
      await consumer.run({ eachMessage: async ({ message }) => {
        got.push(String(message.value));
        if (Number(message.offset) + 1 >= high) resolveDone();
      } });
      await env.eventually(async () => Promise.race([done.then(() => true), new Promise((r) => setTimeout(() => r(false), 500))]), { timeout: 60000, what: `${t} read to its end` });
    } finally {
      await consumer.disconnect();
    }
    return got;
  }
  /** A group's committed offset of partition 0 of `t`, or null. */
  async function committed(admin, group, t) {
    const res = await admin.fetchOffsets({ groupId: group, topics: [t] });
    const p = res.find((x) => x.topic === t)?.partitions.find((x) => x.partition === 0);
    return p && Number(p.offset) >= 0 ? Number(p.offset) : null;
  }

  it('records produced on either side arrive exactly once on the other, nothing comes back, group offsets and heartbeats go both ways', async function () {
    const tag = env.unique('aa').replace(/-/g, '') + '_';
    const P = env.unique('aaorders');
    const E = `${tag}east`;
    const W = `${tag}west`;
    await topic(east, P);
    await topic(west, P);
    const eastValues = Array.from({ length: N }, (_, i) => `east-${i}`);
    const westValues = Array.from({ length: N }, (_, i) => `west-${i}`);
    await produce('source', P, eastValues);
    await produce('target', P, westValues);
    // a consumer group on each side that read its side's topic to the end
    const gEast = `${P}-g-east`;
    const gWest = `${P}-g-west`;
    const commit = (admin, group) => env.eventually(async () => {
      await admin.setOffsets({ groupId: group, topic: P, partitions: [{ partition: 0, offset: String(N) }] });
      return true;
    }, { what: `a commit for ${group}`, timeout: 30000 });
    await commit(east, gEast);
    await commit(west, gWest);

    const flow = exampleFlow(tag, P);
    await nodes.helper.load(nodes.modules, flow);
    const get = (id) => nodes.helper.getNode(id);
    const hbEw = nodes.collect(get('ew-dbg-hb'));
    const hbWe = nodes.collect(get('we-dbg-hb'));

    const remoteOnWest = `${E}.${P}`;
    const remoteOnEast = `${W}.${P}`;
    await env.eventually(async () => (await west.listTopics()).includes(remoteOnWest) && (await east.listTopics()).includes(remoteOnEast), { timeout: 90000, what: 'both remote topics' });
    const ends = async (admin, t) => Number((await admin.fetchTopicOffsets(t))[0].high);
    await env.eventually(async () => (await ends(west, remoteOnWest)) >= N && (await ends(east, remoteOnEast)) >= N, { timeout: 90000, what: 'every record on the other side' });

    // each mirror refreshes its topics now that the other's remote topic exists: the answer lists no remote topic of the other direction
    const refreshed = async (id) => {
      const node = get(id);
      const out = get(`${id.split('-')[0]}-dbg-mirror`);
      const msgs = nodes.collect(out);
      const before = msgs.length;
      node.receive({ refreshTopics: true });
      await env.eventually(() => msgs.length > before && msgs.slice(before).some((m) => Array.isArray(m.payload.topics)), { timeout: 60000, what: `${id} refreshed` });
      return msgs.slice(before).find((m) => Array.isArray(m.payload.topics)).payload;
    };
    const ew = await refreshed('ew-mirror');
    const we = await refreshed('we-mirror');
    assert.ok(ew.topics.includes(P), `east → west mirrors ${P}: ${ew.topics}`);
    assert.ok(!ew.topics.includes(remoteOnEast), `east → west never sends ${remoteOnEast} back: ${ew.topics}`);
    assert.ok(we.topics.includes(P), `west → east mirrors ${P}: ${we.topics}`);
    assert.ok(!we.topics.includes(remoteOnWest), `west → east never sends ${remoteOnWest} back: ${we.topics}`);
    // heartbeats topics are replicated as MM2 does (heartbeats.replication.enabled), and only one hop
    assert.ok(ew.topics.includes('heartbeats'), `east → west mirrors heartbeats: ${ew.topics}`);
    assert.ok(we.topics.includes('heartbeats'), `west → east mirrors heartbeats: ${we.topics}`);
    assert.ok(!we.topics.includes(`${E}.heartbeats`) && !ew.topics.includes(`${W}.heartbeats`), 'a remote heartbeats topic is never sent back');

    // exactly once on the other side, none back: the remote topics hold each record once, the local topics only their own
    assert.deepEqual(await values('target', west, remoteOnWest), eastValues);
    assert.deepEqual(await values('source', east, remoteOnEast), westValues);
    assert.deepEqual(await values('source', east, P), eastValues, 'nothing came back to east');
    assert.deepEqual(await values('target', west, P), westValues, 'nothing came back to west');
    const eastTopics = await east.listTopics();
    const westTopics = await west.listTopics();
    for (const loop of [`${E}.${W}.${P}`, `${W}.${E}.${P}`]) {
      assert.ok(!eastTopics.includes(loop) && !westTopics.includes(loop), `no ${loop} anywhere`);
    }

    // consumer groups on each side have their offsets on the other
    await env.eventually(async () => (await committed(west, gEast, remoteOnWest)) === N, { timeout: 90000, what: `${gEast} at ${N} on ${remoteOnWest} (west)` });
    await env.eventually(async () => (await committed(east, gWest, remoteOnEast)) === N, { timeout: 90000, what: `${gWest} at ${N} on ${remoteOnEast} (east)` });

    // heartbeats both ways: each flow's watcher reports the latency of heartbeats that crossed
    await env.eventually(() => hbEw.some((m) => typeof m.payload?.latencyMs === 'number') && hbWe.some((m) => typeof m.payload?.latencyMs === 'number'), {
      timeout: 90000,
      what: `latency both ways (east → west: ${hbEw.length} messages, west → east: ${hbWe.length})`,
    });
    assert.ok(westTopics.includes(`${E}.heartbeats`) || (await west.listTopics()).includes(`${E}.heartbeats`), `${E}.heartbeats on west`);
    assert.ok((await east.listTopics()).includes(`${W}.heartbeats`), `${W}.heartbeats on east`);
  });

  for (const how of ['as it is', 'with a ${VAR} inside']) {
  it(`IdentityReplicationPolicy (${how}) on an active/active pair is refused on both flows, naming the field and the fix; nothing is mirrored`, async function () {
    const tag = env.unique('aai').replace(/-/g, '') + '_';
    const P = env.unique('aaiorders');
    await topic(east, P);
    await produce('source', P, ['x']);
    // Node-RED resolves a whole-value ${VAR} in the definitions, our nodes one inside a value too
    // (each flow refuses from its own policy and the other flow's direction)
    const variable = `${tag.toUpperCase()}POLICY`;
    process.env[variable] = 'ReplicationPolicy';
    const flow = exampleFlow(tag, P, { rep: { policy: how === 'as it is' ? 'IdentityReplicationPolicy' : `Identity\${${variable}}` } });
    await nodes.helper.load(nodes.modules, flow);
    delete process.env[variable];
    for (const id of ['rep-ew', 'rep-we']) {
      const node = nodes.helper.getNode(id);
      const errors = node.error.getCalls().filter((c) => c.thisValue === node).map((c) => String(c.args[0]));
      assert.ok(errors.some((e) => /replication\.policy\.class/.test(e) && /IdentityReplicationPolicy/.test(e) && /DefaultReplicationPolicy/.test(e)), `${id}: ${errors.join(' | ')}`);
    }
    for (const id of ['ew-mirror', 'we-mirror']) {
      const node = nodes.helper.getNode(id);
      const calls = node.status.getCalls().filter((c) => c.thisValue === node).map((c) => c.args[0]);
      assert.ok(calls.some((s) => s.fill === 'red'), `${id} is red: ${JSON.stringify(calls)}`);
      assert.ok(calls.every((s) => s.fill !== 'green'), `${id} never green`);
    }
    assert.ok(!(await west.listTopics()).includes(P), `${P} is not mirrored to west`);
  });
  }
});
