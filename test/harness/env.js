'use strict';
/**
 * What integration tests know about the running clusters, plus small kafkajs helpers that
 * tests use to set up and inspect state (never to fake it).
 */
const { Kafka, logLevel } = require('kafkajs');

let clusters = null;
const toClose = [];

/** Sets the clusters tests reach as `source`, `target`...; returns the ones set before. */
function setClusters(c) {
  const before = clusters;
  clusters = c;
  return before;
}

function cluster(name) {
  if (!clusters) throw new Error('the Kafka clusters are not running: run integration tests with test/harness/hooks.js');
  return clusters[name];
}

/** A kafkajs client for one of the test clusters (quiet logs, fast retries). */
function kafka(name, extra = {}) {
  return new Kafka({
    clientId: `test-${name}`,
    brokers: [cluster(name).bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 3, initialRetryTime: 100 },
    ...extra,
  });
}

/** An admin client that is disconnected at the end of the run. */
async function admin(name) {
  const a = kafka(name).admin();
  await a.connect();
  toClose.push(() => a.disconnect());
  return a;
}

/** A unique name for a topic or group, so tests never see each other's data. */
let seq = 0;
function unique(prefix) {
  seq += 1;
  return `${prefix}-${Date.now().toString(36)}-${seq}`;
}

/** Runs `fn` until it returns a truthy value or the time is up; returns that value. */
async function eventually(fn, { timeout = 20000, interval = 200, what = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  let lastErr;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      lastErr = e;
    }
    await new Promise((r) => setTimeout(r, interval));
  }
  throw new Error(`timed out waiting for ${what}${lastErr ? `: ${lastErr.message}` : ''}`);
}

/**
 * Deletes the records of `topic`-`partition` before `offset` with Kafka's own
 * kafka-delete-records tool (kafkajs's deleteTopicRecords fails against Kafka 4).
 */
function deleteRecordsBefore(name, topic, partition, offset) {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const { runKafkaTool } = require('../../scripts/kafka/cluster');
  const file = path.join(os.tmpdir(), `delete-records-${process.pid}-${Date.now()}.json`);
  fs.writeFileSync(file, JSON.stringify({ version: 1, partitions: [{ topic, partition, offset: Number(offset) }] }));
  try {
    return runKafkaTool('org.apache.kafka.tools.DeleteRecordsCommand', ['--bootstrap-server', cluster(name).bootstrap, '--offset-json-file', file]);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/**
 * Runs `fn` while the broker of cluster `name` does not answer (its process is stopped with
 * SIGSTOP: connections stay open, nothing is answered, as with a hung machine), then lets it
 * go on (SIGCONT) and waits until it answers again, also when `fn` fails.
 */
async function whileUnresponsive(name, fn) {
  const child = cluster(name).process;
  child.kill('SIGSTOP');
  try {
    return await fn();
  } finally {
    child.kill('SIGCONT');
    await eventually(async () => {
      const a = kafka(name).admin();
      await a.connect();
      try {
        await a.describeCluster();
        return true;
      } finally {
        await a.disconnect();
      }
    }, { timeout: 60000, what: `cluster '${name}' answering again` });
  }
}

async function stopAll() {
  while (toClose.length) {
    try { await toClose.pop()(); } catch { /* ignore */ }
  }
  if (clusters) await clusters.stop();
  clusters = null;
}

/** The configs set on `topic` itself (DescribeConfigs source DYNAMIC_TOPIC_CONFIG), name -> value, sorted by name. */
async function topicConfigs(admin, topic) {
  const res = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2 /* TOPIC */, name: topic }] });
  return Object.fromEntries(res.resources[0].configEntries.filter((c) => c.configSource === 1).map((c) => [c.configName, c.configValue]).sort(([x], [y]) => (x < y ? -1 : 1)));
}

module.exports = { setClusters, cluster, kafka, admin, unique, eventually, deleteRecordsBefore, whileUnresponsive, stopAll, topicConfigs };
