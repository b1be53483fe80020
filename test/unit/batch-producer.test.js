'use strict';
/**
 * kafka/batch-producer: one Produce v8 per batch to the partition's leader, over a kafkajs cluster
 * object (here a fake of the parts it calls, behind kafkajs's private factory symbol): a leader
 * error refreshes the metadata and sends again; a refused partition rejects with the Kafka error's
 * type, which kafka/client explains naming the missing ACL as for kafkajs's own errors.
 */
const assert = require('node:assert/strict');
const { BatchProducer, PRODUCE_ATTEMPTS } = require('../../dist/kafka/batch-producer');
const { checkpointBatchRecords } = require('../../dist/core/checkpoint');
const { explainKafkaError } = require('../../dist/kafka/client');
const { decodeBatch } = require('../harness/record-batches');

const TOPIC = 'source.checkpoints.internal';
const cps = (n) => Array.from({ length: n }, (_, i) => ({ group: `g${i}`, topic: 'source.t', partition: i, upstreamOffset: BigInt(i), downstreamOffset: BigInt(i + 1), metadata: '', timestamp: 1700000000000 + i }));

/** A Produce v8 response body: one topic, one partition with `errorCode` (and `message`). */
function answer(partition, errorCode, baseOffset, message = null) {
  const name = Buffer.from(TOPIC);
  const b = Buffer.alloc(4 + 2 + name.length + 4 + 4 + 2 + 8 + 8 + 8 + 4 + 2 + (message ? Buffer.byteLength(message) : 0) + 4);
  let p = b.writeInt32BE(1, 0);
  p = b.writeInt16BE(name.length, p);
  p += name.copy(b, p);
  p = b.writeInt32BE(1, p);
  p = b.writeInt32BE(partition, p);
  p = b.writeInt16BE(errorCode, p);
  p = b.writeBigInt64BE(BigInt(baseOffset), p);
  p = b.writeBigInt64BE(-1n, p);
  p = b.writeBigInt64BE(0n, p);
  p = b.writeInt32BE(0, p);
  if (message) {
    p = b.writeInt16BE(Buffer.byteLength(message), p);
    p += b.write(message, p);
  } else p = b.writeInt16BE(-1, p);
  b.writeInt32BE(0, p);
  return b;
}

/** A kafkajs Kafka object whose cluster factory gives a fake cluster: `leaders` (partition -> node id, changed by the test), each broker answering with `reply(nodeId, body)`. */
function fakeKafka(o) {
  const calls = { refreshes: 0, sent: [], connects: 0, disconnects: 0 };
  const cluster = {
    connect: async () => { calls.connects++; },
    disconnect: async () => { calls.disconnects++; },
    addTargetTopic: async () => undefined,
    refreshMetadataIfNecessary: async () => undefined,
    refreshMetadata: async () => { calls.refreshes++; o.onRefresh?.(); },
    findLeaderForPartitions: (topic, partitions) => {
      const leader = o.leaders[partitions[0]];
      return leader === undefined ? {} : { [leader]: [partitions[0]] };
    },
    findBroker: async ({ nodeId }) => ({
      nodeId: Number(nodeId),
      disconnect: async () => undefined,
      connectionPool: {
        send: async ({ request, response }) => {
          const encoded = await request.encode();
          calls.sent.push({ nodeId: Number(nodeId), apiKey: request.apiKey, apiVersion: request.apiVersion, body: encoded.buffer });
          return response.parse(await response.decode(o.reply(Number(nodeId), encoded.buffer)));
        },
      },
    }),
  };
  /** @type {any} */
  const kafka = { [Symbol('private:Kafka:createCluster')]: () => cluster };
  return { kafka, calls };
}

describe('kafka/batch-producer', function () {
  it('sends one Produce v8 (acks=-1) with the batch to the leader and resolves with the base offset', async function () {
    const { kafka, calls } = fakeKafka({ leaders: { 0: 2 }, reply: () => answer(0, 0, 41) });
    const p = new BatchProducer(kafka);
    assert.equal(await p.produce(TOPIC, 0, checkpointBatchRecords(cps(3))), 41n);
    assert.equal(calls.sent.length, 1);
    const { nodeId, apiKey, apiVersion, body } = calls.sent[0];
    assert.deepEqual({ nodeId, apiKey, apiVersion }, { nodeId: 2, apiKey: 0, apiVersion: 8 });
    assert.equal(body.readInt16BE(2), -1, 'acks=-1');
    const at = 2 + 2 + 4 + 4 + 2 + TOPIC.length + 4 + 4; // the records' length, the batch after it
    assert.equal(at + 4 + body.readInt32BE(at), body.length);
    assert.equal((await decodeBatch(body.subarray(at + 4))).length, 3);
    assert.deepEqual(p.requests, { Produce: 1 });
    await p.close();
    assert.equal(calls.disconnects, 1);
    await assert.rejects(p.produce(TOPIC, 0, checkpointBatchRecords(cps(1))), /closed/);
  });

  it('NOT_LEADER_OR_FOLLOWER: the metadata refreshed, sent again to the new leader; no leader in the metadata: the same', async function () {
    const o = { leaders: { 0: 1 }, reply: (node) => (node === 1 ? answer(0, 6, -1) : answer(0, 0, 7)), onRefresh: () => { o.leaders = { 0: 3 }; } };
    const { kafka, calls } = fakeKafka(o);
    const p = new BatchProducer(kafka);
    assert.equal(await p.produce(TOPIC, 0, checkpointBatchRecords(cps(2))), 7n);
    assert.deepEqual(calls.sent.map((s) => s.nodeId), [1, 3]);
    assert.equal(calls.refreshes, 1);
    // the topic not in the metadata yet
    const o2 = { leaders: {}, reply: () => answer(0, 0, 9), onRefresh: () => { o2.leaders = { 0: 1 }; } };
    const f2 = fakeKafka(o2);
    assert.equal(await new BatchProducer(f2.kafka).produce(TOPIC, 0, checkpointBatchRecords(cps(1))), 9n);
    assert.equal(f2.calls.refreshes, 1);
  });

  it(`a leader error that persists rejects after ${PRODUCE_ATTEMPTS} sends, with the error's type`, async function () {
    const { kafka, calls } = fakeKafka({ leaders: { 0: 1 }, reply: () => answer(0, 6, -1) });
    const e = await new BatchProducer(kafka).produce(TOPIC, 0, checkpointBatchRecords(cps(1))).then(() => null, (x) => x);
    assert.ok(e, 'rejected');
    assert.equal(e.type, 'NOT_LEADER_FOR_PARTITION');
    assert.equal(calls.sent.length, PRODUCE_ATTEMPTS);
  });

  it('TOPIC_AUTHORIZATION_FAILED: rejects at once, and the explanation names WRITE on the topic as for kafkajs\'s producer', async function () {
    const { kafka, calls } = fakeKafka({ leaders: { 0: 1 }, reply: () => answer(0, 29, -1) });
    const e = await new BatchProducer(kafka).produce(TOPIC, 0, checkpointBatchRecords(cps(1))).then(() => null, (x) => x);
    assert.equal(e.type, 'TOPIC_AUTHORIZATION_FAILED');
    assert.equal(calls.sent.length, 1, 'not sent again');
    const text = explainKafkaError(e, { alias: 'target', bootstrapServers: ['h:9092'] }, [{ resource: 'Topic', name: TOPIC, operations: ['WRITE'] }]);
    assert.match(text, new RegExp(`\\(TOPIC_AUTHORIZATION_FAILED\\): needs WRITE on Topic:${TOPIC.replace(/\./g, '\\.')}`));
  });

  it('another refusal of the partition (a record too large) rejects with its type and the broker\'s message', async function () {
    const { kafka } = fakeKafka({ leaders: { 0: 1 }, reply: () => answer(0, 10, -1, 'batch over message.max.bytes') });
    const e = await new BatchProducer(kafka).produce(TOPIC, 0, checkpointBatchRecords(cps(1))).then(() => null, (x) => x);
    assert.equal(e.type, 'MESSAGE_TOO_LARGE');
    assert.match(e.message, /batch over message\.max\.bytes/);
  });
});
