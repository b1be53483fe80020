'use strict';
/** The thin Kafka I/O layer against real brokers: admin-style offset commits, group state, topic reading. */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { AdminOffsetCommitter, GroupOffsetFetcher, fetchCommittedOffsets } = require('../../dist/kafka/group-client');
const { describeGroupState, listConsumerGroups } = require('../../dist/kafka/group-listing');
const { fetchEndOffsets } = require('../../dist/kafka/end-offsets');
const { TopicReader, TopicNotFoundError } = require('../../dist/kafka/topic-reader');
const { createKafka, explainKafkaError } = require('../../dist/kafka/client');

describe('kafka adapter (real brokers)', function () {
  it('commits offsets as an admin to a group with no members, and is refused for an active group', async function () {
    const target = await env.admin('target');
    const topic = env.unique('adm');
    await target.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    const kafka = env.kafka('target');
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: 20 }, (_, i) => ({ partition: i % 2, value: `v${i}` })) });
    await producer.disconnect();

    const committer = new AdminOffsetCommitter(kafka);
    const idle = env.unique('idle-group');
    const unknown = await describeGroupState(target, idle);
    assert.ok(unknown.state === undefined || unknown.state === 'Dead', `a group that does not exist reads as absent or Dead, got ${unknown.state}`);
    assert.equal(unknown.members, 0);
    const r = await committer.commit(idle, [
      { topic, partition: 0, offset: 7n, metadata: 'm0' },
      { topic, partition: 1, offset: 3n, metadata: '' },
    ]);
    assert.deepEqual(r, { ok: true });
    const offs = await fetchCommittedOffsets(target, idle);
    offs.sort((a, b) => a.partition - b.partition);
    assert.deepEqual(offs, [
      { topic, partition: 0, offset: 7n, metadata: 'm0' },
      { topic, partition: 1, offset: 3n, metadata: '' },
    ]);
    assert.ok((await listConsumerGroups(target)).includes(idle));
    // the coordinator-caching fetcher reads the same offsets (twice: the second from the cached coordinator)
    const fetcher = new GroupOffsetFetcher(kafka);
    for (let i = 0; i < 2; i++) assert.deepEqual((await fetcher.fetch(idle)).sort((a, b) => a.partition - b.partition), offs);
    assert.deepEqual(await fetcher.fetch(env.unique('no-such-group')), []);
    await fetcher.close();
    assert.equal((await describeGroupState(target, idle)).state, 'Empty');

    // an active consumer in the group: the broker refuses the admin commit, offsets unchanged
    const active = env.unique('active-group');
    const consumer = kafka.consumer({ groupId: active });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    let seen = 0;
    await consumer.run({ eachMessage: async () => { seen++; } });
    await env.eventually(() => seen >= 20, { what: 'active consumer to read' });
    await env.eventually(async () => (await describeGroupState(target, active)).state === 'Stable', { what: 'group stable' });
    const before = await fetchCommittedOffsets(target, active);
    const refused = await committer.commit(active, [{ topic, partition: 0, offset: 1n }]);
    assert.equal(refused.ok, false);
    assert.equal(refused.errorType, 'UNKNOWN_MEMBER_ID');
    assert.deepEqual(await fetchCommittedOffsets(target, active), before);
    await consumer.disconnect();
    await committer.close();

    assert.deepEqual((await fetchEndOffsets(target, topic)).sort((a, b) => a.partition - b.partition), [
      { partition: 0, offset: 10n },
      { partition: 1, offset: 10n },
    ]);
    assert.deepEqual(await fetchEndOffsets(target, env.unique('missing')), []);
  });

  it('reads a single-partition topic to its end, reports loaded, then tails', async function () {
    const admin = await env.admin('source');
    const topic = env.unique('tail') + '.internal';
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    const kafka = env.kafka('source');
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) });
    const seen = [];
    const progress = [];
    let loadedAt = -1;
    const reader = new TopicReader(kafka, admin, {
      topic,
      tail: true,
      onRecord: (r) => seen.push(r.value.toString()),
      onProgress: (read, total) => progress.push([read, total]),
      onLoaded: () => { loadedAt = seen.length; },
    });
    await reader.start();
    assert.equal(loadedAt, 30);
    assert.equal(reader.isLoaded, true);
    assert.deepEqual(progress[0], [0n, 30n]);
    assert.deepEqual(progress[progress.length - 1], [30n, 30n]);
    await producer.send({ topic, messages: [{ key: 'late', value: 'late' }] });
    await env.eventually(() => seen.length === 31, { what: 'tailed record' });
    assert.equal(seen[30], 'late');
    await reader.stop();
    await producer.disconnect();
  });

  it('a missing topic is a TopicNotFoundError; an empty topic loads at once', async function () {
    const admin = await env.admin('source');
    const kafka = env.kafka('source');
    const missing = new TopicReader(kafka, admin, { topic: env.unique('nope'), tail: false, onRecord: () => {} });
    await assert.rejects(() => missing.start(), TopicNotFoundError);
    const topic = env.unique('empty');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    let loaded = false;
    const r = new TopicReader(kafka, admin, { topic, tail: false, onRecord: () => {}, onLoaded: () => { loaded = true; } });
    await r.start();
    assert.equal(loaded, true);
  });

  it('explains a wrong bootstrap address and a refused SASL login', async function () {
    const bad = createKafka({ alias: 'nowhere', bootstrapServers: ['127.0.0.1:1'], connectionTimeoutMs: 500 });
    const a = bad.admin({ retry: { retries: 0 } });
    const err = await a.connect().then(() => null, (e) => e);
    assert.ok(err, 'connect to port 1 fails');
    assert.match(explainKafkaError(err, { alias: 'nowhere', bootstrapServers: ['127.0.0.1:1'] }), /connection refused \(nowhere: 127\.0\.0\.1:1\): check the bootstrap servers/);

    const src = env.cluster('source');
    for (const mechanism of /** @type {const} */ (['plain', 'scram-sha-256'])) {
      const wrong = createKafka({ alias: 'source', bootstrapServers: [src.saslBootstrap], sasl: { mechanism, username: 'alice', password: 'wrong' } });
      const wa = wrong.admin({ retry: { retries: 0 } });
      const e2 = await wa.connect().then(() => null, (e) => e);
      assert.ok(e2, `${mechanism} login with a wrong password fails`);
      // without the settings the mechanism comes from kafkajs' words; a SCRAM user may not exist at all
      assert.equal(
        explainKafkaError(e2),
        mechanism === 'plain'
          ? 'SASL login refused: wrong username or password for PLAIN: check the username and password'
          : 'SASL login refused: the broker has no SCRAM-SHA-256 user or the password is wrong: check the username and password (a SCRAM user must exist on the cluster for this mechanism)',
      );
      const right = createKafka({ alias: 'source', bootstrapServers: [src.saslBootstrap], sasl: { mechanism, username: 'alice', password: src.saslUsers.alice } });
      const ra = right.admin({ retry: { retries: 0 } });
      await ra.connect();
      assert.ok((await ra.describeCluster()).brokers.length === 1, `${mechanism} login with the right password works`);
      await ra.disconnect();
    }
  });
});
