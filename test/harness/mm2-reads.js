'use strict';
/**
 * Reading MM2's internal topics two ways, for the conformance tests: through MM2's own console
 * formatters (the real peer's view) and through our TopicReader and decoders (ours).
 */
const assert = require('node:assert/strict');
const env = require('./env');
const { consoleConsume } = require('../../scripts/kafka/connect');
const { TopicReader } = require('../../dist/kafka/topic-reader');

/** `OffsetSync{topicPartition=t-0, upstreamOffset=1, downstreamOffset=2}` */
function parseOffsetSync(line) {
  const m = /^OffsetSync\{topicPartition=(.+)-(\d+), upstreamOffset=(-?\d+), downstreamOffset=(-?\d+)\}$/.exec(line);
  assert.ok(m, `not an OffsetSync line: ${line}`);
  return { topic: m[1], partition: Number(m[2]), upstreamOffset: BigInt(m[3]), downstreamOffset: BigInt(m[4]) };
}

/** `Checkpoint{consumerGroupId=g, topicPartition=t-0, upstreamOffset=1, downstreamOffset=2, metadata=m}` */
function parseCheckpoint(line) {
  const m = /^Checkpoint\{consumerGroupId=(.+?), topicPartition=(.+)-(\d+), upstreamOffset=(-?\d+), downstreamOffset=(-?\d+), metadata=(.*)\}$/.exec(line);
  assert.ok(m, `not a Checkpoint line: ${line}`);
  return { group: m[1], topic: m[2], partition: Number(m[3]), upstreamOffset: BigInt(m[4]), downstreamOffset: BigInt(m[5]), metadata: m[6] };
}

/** `Heartbeat{sourceClusterAlias=a, targetClusterAlias=b, timestamp=123}` */
function parseHeartbeat(line) {
  const m = /^Heartbeat\{sourceClusterAlias=(.*), targetClusterAlias=(.*), timestamp=(-?\d+)\}$/.exec(line);
  assert.ok(m, `not a Heartbeat line: ${line}`);
  return { sourceClusterAlias: m[1], targetClusterAlias: m[2], timestamp: BigInt(m[3]) };
}

/**
 * Runs Kafka's console consumer with MM2's `formatter` on partition 0 of `topic` and parses every
 * line. It stops after the records the topic holds now, or after 10 s without a record (a
 * compacted topic may hold fewer than high - low).
 */
async function mm2Reads(cluster, topic, formatter, parse) {
  const admin = await env.admin(cluster);
  const p0 = (await admin.fetchTopicOffsets(topic)).find((o) => o.partition === 0);
  const maxMessages = Number(p0.high) - Number(p0.low);
  assert.ok(maxMessages > 0, `${topic} on ${cluster} is empty`);
  return consoleConsume({ bootstrap: env.cluster(cluster).bootstrap, topic, formatter, maxMessages, timeoutMs: 10000 }).map(parse);
}

/**
 * Every record of partition 0 of an internal topic decoded with `decode`, in log order.
 * With `{ recordTimestamp: true }` each entry also carries the record's timestamp.
 */
async function ourReads(cluster, topic, decode, { recordTimestamp = false } = {}) {
  const out = [];
  const reader = new TopicReader(env.kafka(cluster), await env.admin(cluster), {
    topic,
    tail: false,
    onRecord: (r) => out.push(recordTimestamp ? { ...decode(r.key, r.value), recordTimestamp: r.timestamp } : decode(r.key, r.value)),
  });
  await reader.start();
  return out;
}

module.exports = { parseOffsetSync, parseCheckpoint, parseHeartbeat, mm2Reads, ourReads };
