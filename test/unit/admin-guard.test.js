'use strict';
/**
 * The shared admin client guarded against kafkajs's race between fetchTopicOffsets and a metadata
 * request (kafka/admin-guard): `Cannot destructure property 'partitions' of 'low.pop(...)'` on a
 * (re)deploy, when the nodes of a cluster start at once (issue 26, 8).
 *
 * The race is played with kafkajs's own admin and its own Cluster code for the offsets
 * (fetchTopicsOffset, findLeaderForPartitions, findTopicPartitionMetadata); only the network is
 * fake: the broker answers each request on the next turn, and a metadata request for some topics
 * replaces the cached metadata with theirs, as kafkajs's BrokerPool.refreshMetadata does.
 */
const assert = require('node:assert/strict');
const createAdmin = require('kafkajs/src/admin');
const Cluster = require('kafkajs/src/cluster');
const createRetry = require('kafkajs/src/retry');
const { guardAdmin, MetadataGate, INTERNAL_ERROR_ATTEMPTS } = require('../../dist/kafka/admin-guard');

const turn = () => new Promise((r) => setImmediate(r));

const topicMetadata = (topic) => ({ topic, partitionMetadata: [0, 1].map((partitionId) => ({ partitionId, leader: 1, partitionErrorCode: 0 })) });

/** kafkajs's Cluster with a fake broker pool: its offsets code is kafkajs's own. */
function fakeCluster() {
  const cluster = Object.create(Cluster.prototype);
  cluster.isolationLevel = 1;
  cluster.targetTopics = new Set();
  cluster.brokerPool = { metadata: { topicMetadata: [], brokers: [{ nodeId: 1 }] } };
  cluster.listOffsetsCalls = 0;
  const broker = {
    async listOffsets({ topics }) {
      cluster.listOffsetsCalls++;
      // an offsets answer takes longer than a metadata answer
      await turn();
      await turn();
      await turn();
      return { responses: topics.map(({ topic, partitions }) => ({ topic, partitions: partitions.map((p) => ({ partition: p.partition, offset: p.timestamp === -2 ? '0' : '10' })) })) };
    },
  };
  cluster.findBroker = async () => broker;
  cluster.addTargetTopic = async (topic) => {
    cluster.targetTopics.add(topic);
  };
  const refreshWith = async (topics) => {
    await turn();
    cluster.brokerPool.metadata = { ...cluster.brokerPool.metadata, topicMetadata: topics.map(topicMetadata) };
  };
  cluster.refreshMetadata = () => refreshWith([...cluster.targetTopics]);
  cluster.refreshMetadataIfNecessary = async () => {
    const cached = cluster.brokerPool.metadata.topicMetadata.map((t) => t.topic);
    if (![...cluster.targetTopics].every((t) => cached.includes(t))) await refreshWith([...cluster.targetTopics]);
  };
  // kafkajs's Cluster.metadata: refreshMetadataIfNecessary(topics) with only the topics asked for
  cluster.metadata = async ({ topics = [] } = {}) => {
    const cached = cluster.brokerPool.metadata.topicMetadata.map((t) => t.topic);
    if (!topics.every((t) => cached.includes(t))) await refreshWith(topics);
    return { topicMetadata: topics.map(topicMetadata) };
  };
  return cluster;
}

const silent = { namespace: () => silent, info() {}, warn() {}, error() {}, debug() {}, setLogLevel() {} };

function kafkajsAdmin(cluster) {
  return createAdmin({ logger: silent, retry: { retries: 0 }, cluster });
}

/** The offsets of `topic` asked for, and a metadata request for `other` sent after the high watermarks were asked for. */
async function offsetsWhileMetadata(admin, cluster, topic, other) {
  const offsets = admin.fetchTopicOffsets(topic).then((r) => ({ ok: r }), (e) => ({ failed: e }));
  while (cluster.listOffsetsCalls === 0) await turn();
  const metadata = await admin.fetchTopicMetadata({ topics: [other] });
  return { offsets: await offsets, metadata };
}

describe('the shared admin client guarded against kafkajs metadata races (admin-guard)', function () {
  it("kafkajs's own admin fails with `low.pop(...)` when a metadata request for another topic comes between its two offset requests", async function () {
    const cluster = fakeCluster();
    const { offsets } = await offsetsWhileMetadata(kafkajsAdmin(cluster), cluster, 'orders', 'mm2-offset-syncs.target.internal');
    assert.ok(offsets.failed, 'the race reproduces with kafkajs alone');
    assert.match(String(offsets.failed.message), /Cannot destructure property 'partitions' of 'low\.pop\(\.\.\.\)'/);
  });

  it('guarded, the same requests both answer: the metadata request waits for the offsets in flight', async function () {
    const cluster = fakeCluster();
    const { offsets, metadata } = await offsetsWhileMetadata(guardAdmin(kafkajsAdmin(cluster)), cluster, 'orders', 'mm2-offset-syncs.target.internal');
    assert.deepEqual(offsets.ok, [0, 1].map((partition) => ({ partition, offset: '10', high: '10', low: '0' })));
    assert.deepEqual(metadata.topics.map((t) => t.name), ['mm2-offset-syncs.target.internal']);
  });

  it('guarded, many offset and metadata requests at once (a deploy) all answer', async function () {
    const cluster = fakeCluster();
    const admin = guardAdmin(kafkajsAdmin(cluster));
    const topics = ['a', 'b', 'c', 'd', 'e', 'f'];
    const results = /** @type {any[]} */ (await Promise.all(topics.flatMap((t) => [admin.fetchTopicOffsets(t), admin.fetchTopicMetadata({ topics: [`${t}.internal`] })])));
    assert.equal(results.length, 12);
    for (let i = 0; i < topics.length; i++) assert.equal(results[2 * i].length, 2, `offsets of ${topics[i]}`);
  });

  it('retries an offsets request that failed inside kafkajs, and only that', async function () {
    const typeError = () => {
      const e = new TypeError("Cannot destructure property 'partitions' of 'low.pop(...)' as it is undefined.");
      e.stack = `TypeError: ${e.message}\n    at /app/node_modules/kafkajs/src/admin/index.js:328:17`;
      return e;
    };
    // as kafkajs's retrier hands it on: a KafkaJSNonRetriableError caused by the TypeError
    const viaRetrier = async (err) => createRetry({ retries: 0 })(async () => { throw err; }).catch((e) => e);
    const internal = await viaRetrier(typeError());
    let calls = 0;
    const flaky = guardAdmin(/** @type {any} */ ({ fetchTopicOffsets: async () => (++calls === 1 ? Promise.reject(internal) : [{ partition: 0, offset: '1', high: '1', low: '0' }]) }), () => 0);
    assert.deepEqual(await flaky.fetchTopicOffsets('t'), [{ partition: 0, offset: '1', high: '1', low: '0' }]);
    assert.equal(calls, 2);

    let refusedCalls = 0;
    const refusal = Object.assign(new Error('This server does not host this topic-partition'), { type: 'UNKNOWN_TOPIC_OR_PARTITION' });
    const broker = guardAdmin(/** @type {any} */ ({ fetchTopicOffsets: async () => { refusedCalls++; throw refusal; } }), () => 0);
    await assert.rejects(broker.fetchTopicOffsets('t'), (e) => e === refusal);
    assert.equal(refusedCalls, 1, "a broker's error is kafkajs's to retry, not tried again here");

    let alwaysCalls = 0;
    const always = guardAdmin(/** @type {any} */ ({ fetchTopicOffsets: async () => { alwaysCalls++; throw internal; } }), () => 0);
    await assert.rejects(always.fetchTopicOffsets('t'), (e) => e === internal);
    assert.equal(alwaysCalls, INTERNAL_ERROR_ATTEMPTS, 'tried a bounded number of times, then the failure is the caller\'s');
  });

  it('passes every other method through unchanged', async function () {
    const admin = { listTopics: async () => ['x'], disconnect: async () => 'bye' };
    const guarded = guardAdmin(/** @type {any} */ (admin));
    assert.deepEqual(await guarded.listTopics(), ['x']);
    assert.equal(await guarded.disconnect(), 'bye');
  });

  it('MetadataGate: offset requests side by side, a metadata request alone and before the offset requests that come after it', async function () {
    const gate = new MetadataGate();
    const log = [];
    const hold = () => {
      /** @type {(v?: unknown) => void} */
      let release = () => undefined;
      const p = new Promise((r) => (release = r));
      return { p, release };
    };
    const o1 = hold();
    const o2 = hold();
    const m1 = hold();
    const a = gate.shared(async () => { log.push('o1 start'); await o1.p; log.push('o1 end'); });
    const b = gate.shared(async () => { log.push('o2 start'); await o2.p; log.push('o2 end'); });
    const m = gate.exclusive(async () => { log.push('m start'); await m1.p; log.push('m end'); });
    const c = gate.shared(async () => { log.push('o3'); });
    await turn();
    assert.deepEqual(log, ['o1 start', 'o2 start'], 'two offset requests side by side; the metadata request waits, and so does the offset request after it');
    o1.release();
    await turn();
    assert.ok(!log.includes('m start'), 'the metadata request waits for every offset request in flight');
    o2.release();
    await turn();
    await turn();
    assert.deepEqual(log.slice(-1), ['m start']);
    m1.release();
    await Promise.all([a, b, m, c]);
    assert.deepEqual(log, ['o1 start', 'o2 start', 'o1 end', 'o2 end', 'm start', 'm end', 'o3']);
  });

  it('MetadataGate: a request that does not end holds the others back only up to the longest wait', async function () {
    const gate = new MetadataGate(30);
    const never = new Promise(() => undefined);
    void gate.shared(() => never); // an offsets request to a broker that does not answer
    assert.equal(await gate.exclusive(async () => 'metadata'), 'metadata');
    void gate.exclusive(() => never);
    assert.equal(await gate.exclusive(async () => 'next metadata'), 'next metadata');
    assert.equal(await gate.shared(async () => 'offsets'), 'offsets');
  });
});
