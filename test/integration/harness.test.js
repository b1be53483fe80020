'use strict';
/**
 * Proves the test harness: two real Kafka clusters answer, records round-trip through each,
 * and MM2's three internal topics can be created single-partition and compacted.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { ensureInternalTopic } = require('../../dist/kafka/internal-topics');
const { DEFAULT_KAFKA_VERSION } = require('../../scripts/kafka/cluster');

async function produceAndConsume(name) {
  const topic = env.unique(`harness-${name}`);
  const admin = await env.admin(name);
  await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
  const kafka = env.kafka(name);
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const sent = [];
  for (let p = 0; p < 3; p++) {
    for (let i = 0; i < 5; i++) sent.push({ partition: p, key: `k${p}-${i}`, value: `v${p}-${i}`, headers: { h: `x${i}` } });
  }
  await producer.send({ topic, messages: sent });
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: env.unique(`harness-${name}-g`), allowAutoTopicCreation: false });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const got = [];
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      got.push({ partition, key: message.key.toString(), value: message.value.toString(), h: message.headers.h.toString(), offset: message.offset });
    },
  });
  await env.eventually(() => got.length >= sent.length, { what: `${sent.length} records from ${name}` });
  await consumer.disconnect();
  return { sent, got };
}

describe('test harness: two real Kafka clusters', function () {
  for (const name of ['source', 'target']) {
    it(`produces and consumes on ${name} (KRaft, Kafka ${process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION})`, async function () {
      const { sent, got } = await produceAndConsume(name);
      assert.equal(got.length, 15);
      for (const s of sent) {
        const g = got.find((x) => x.key === s.key);
        assert.ok(g, `record ${s.key} consumed`);
        assert.equal(g.partition, s.partition);
        assert.equal(g.value, s.value);
      }
      // offsets per partition are 0..4, in order
      for (let p = 0; p < 3; p++) {
        assert.deepEqual(got.filter((g) => g.partition === p).map((g) => g.offset), ['0', '1', '2', '3', '4']);
      }
    });
  }

  it('the two clusters are distinct', async function () {
    assert.notEqual(env.cluster('source').bootstrap, env.cluster('target').bootstrap);
    const s = await env.admin('source');
    const t = await env.admin('target');
    const [cs, ct] = [await s.describeCluster(), await t.describeCluster()];
    assert.notEqual(cs.clusterId, ct.clusterId);
  });

  it('creates the three MM2 internal topics with 1 partition and cleanup.policy=compact', async function () {
    const source = await env.admin('source');
    const target = await env.admin('target');
    // unique aliases so that other suites' flows (which use source/target) do not interfere
    const a = env.unique('src');
    const b = env.unique('tgt');
    const created = [
      await ensureInternalTopic(source, `mm2-offset-syncs.${b}.internal`, 1),
      await ensureInternalTopic(target, `${a}.checkpoints.internal`, 1),
    ];
    // `heartbeats` has a fixed name: another suite may have created it already (compacted, 1 partition too)
    const hb = await ensureInternalTopic(target, 'heartbeats', 1);
    for (const t of [...created, hb]) {
      if (t !== hb) assert.equal(t.created, true, `${t.topic} created`);
      assert.equal(t.partitions, 1, `${t.topic} partitions`);
      assert.equal(t.cleanupPolicy, 'compact', `${t.topic} cleanup.policy`);
      assert.deepEqual(t.warnings, []);
    }
    // a second call finds them and does not fail
    const again = await ensureInternalTopic(target, 'heartbeats', 1);
    assert.equal(again.created, false);
    assert.equal(again.cleanupPolicy, 'compact');
  });

  it('reports an existing internal topic that is not compacted', async function () {
    const target = await env.admin('target');
    const topic = env.unique('x') + '.checkpoints.internal';
    await target.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    const st = await ensureInternalTopic(target, topic, 1);
    assert.equal(st.created, false);
    assert.equal(st.cleanupPolicy, 'delete');
    assert.equal(st.warnings.length, 2);
    assert.match(st.warnings[0], /cleanup\.policy=delete/);
    assert.match(st.warnings[1], /2 partitions/);
  });
});
