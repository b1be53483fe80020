'use strict';
/**
 * Captures `__consumer_offsets` records that a real broker wrote, for the decoder's unit tests:
 *
 *   npm run build && node test/harness/capture-consumer-offsets.js 4.4.0   (then 4.1.1, 3.9.1)
 *   -> test/fixtures/consumer-offsets-<version>.json
 *   node test/harness/capture-consumer-offsets.js 4.1.1 --expiry-only
 *   -> captures only the `expiry` part again, the rest of the file stays as it is
 *
 * Starts one single-node cluster of that Kafka version and makes the group coordinator write:
 * classic group commits (kafkajs, with and without metadata), a KIP-848 consumer-protocol group
 * (Kafka's own console consumer, `group.protocol=consumer`, 4.x only), a classic group converted to
 * a consumer group (its classic member leaves, a consumer-protocol member joins; 4.x only), a share
 * group and a Kafka Streams application's streams group (4.2 and later, where both are on by
 * default; test/harness/java-clients.js), offsets deleted with
 * OffsetDelete (Kafka's kafka-consumer-groups --delete-offsets: the same offset tombstone that
 * expiry writes), a deleted group (admin deleteGroups), a transactional offset commit that aborts
 * and one that commits (kafkajs transaction + sendOffsets). Then it reads every record of
 * __consumer_offsets twice, read_uncommitted and read_committed (a record only in the first is
 * part of an aborted transaction), and stores for each its key and value in hex together with
 * what Kafka's own decoder (kafka-dump-log --offsets-decoder: DumpLogSegments, whichever of its two
 * classes the version has) says it is.
 *
 * The `expiry` part comes from a second cluster with offsets.retention.minutes=1 (the least Kafka
 * allows) checked every second, where nothing is ever deleted: a group that only stored offsets
 * (admin-style OffsetCommit, generation -1: expiry counts from the commit) and a group that joined,
 * committed and left (empty: expiry counts from when it became empty). The script waits until the
 * broker has expired both, then stores that cluster's records the same way, with their timestamps;
 * `expired: 'offset'` marks the offset tombstones of the expired groups, `expired: 'group'` the
 * tombstone of their group record written with the last expired offset.
 */
const fs = require('node:fs');
const path = require('node:path');
const { Kafka, logLevel } = require('kafkajs');
const { execFileSync } = require('node:child_process');
const { startCluster, runKafkaTool, resolveKafka } = require('../../scripts/kafka/cluster');
const { runJava, runStreamsApp } = require('./java-clients');

const args = process.argv.slice(2);
const expiryOnly = args.includes('--expiry-only');
const version = args.find((a) => !a.startsWith('--')) || process.env.KAFKA_VERSION || '4.1.1';
const [major, minor] = version.split('.').map(Number);
const out = path.join(__dirname, '..', 'fixtures', `consumer-offsets-${version}.json`);

async function readAll(kafka, readUncommitted) {
  const admin = kafka.admin();
  await admin.connect();
  const offs = await admin.fetchTopicOffsets('__consumer_offsets');
  await admin.disconnect();
  const want = new Map(offs.map((o) => [o.partition, BigInt(o.high)]));
  const seen = new Map(offs.map((o) => [o.partition, BigInt(o.low)]));
  const records = [];
  const consumer = kafka.consumer({ groupId: `__capture-${readUncommitted ? 'all' : 'committed'}`, readUncommitted, maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topics: ['__consumer_offsets'], fromBeginning: true });
  const done = () => [...want].every(([p, h]) => (seen.get(p) ?? 0n) >= h || h === 0n);
  await new Promise((resolve, reject) => {
    consumer.on(consumer.events.END_BATCH_PROCESS, (ev) => {
      const last = BigInt(ev.payload.lastOffset) + 1n;
      if (last > (seen.get(ev.payload.partition) ?? 0n)) seen.set(ev.payload.partition, last);
      if (done()) resolve();
    });
    consumer.on(consumer.events.CRASH, (ev) => reject(ev.payload.error));
    consumer
      .run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          records.push({
            partition, offset: message.offset, timestamp: message.timestamp,
            key: message.key ? message.key.toString('hex') : null, value: message.value ? message.value.toString('hex') : null,
          });
        },
      })
      .then(() => done() && resolve(), reject);
  });
  await consumer.disconnect();
  return records;
}

/**
 * Kafka's log dump tool: `org.apache.kafka.tools.DumpLogSegments` (kafka-tools, Kafka 4.3 and
 * later), `kafka.tools.DumpLogSegments` (the Scala core jar, Kafka 3.x to 4.2). Picked by which
 * class the version's jars hold, so one script captures from every tested version.
 */
const DUMP_LOG_CLASSES = ['org.apache.kafka.tools.DumpLogSegments', 'kafka.tools.DumpLogSegments'];
function dumpLogClass() {
  const libs = resolveKafka(version);
  const entries = new Set();
  for (const jar of fs.readdirSync(libs).filter((f) => /^kafka.*\.jar$/.test(f))) {
    const listing = execFileSync('unzip', ['-Z1', path.join(libs, jar)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    for (const line of listing.split('\n')) if (line.endsWith('/DumpLogSegments.class')) entries.add(line);
  }
  const cls = DUMP_LOG_CLASSES.find((c) => entries.has(`${c.replace(/\./g, '/')}.class`));
  if (!cls) throw new Error(`no DumpLogSegments class (${DUMP_LOG_CLASSES.join(' or ')}) in the Kafka ${version} jars of ${libs}`);
  return cls;
}

/** Kafka's own decoding of every record of the partition logs: `partition:offset` -> { key, payload }. */
function kafkaDecoded(dataDir) {
  const dumpLog = dumpLogClass();
  const decoded = new Map();
  const logs = path.join(dataDir, 'data');
  for (const dir of fs.readdirSync(logs).filter((d) => d.startsWith('__consumer_offsets-'))) {
    const partition = Number(dir.slice('__consumer_offsets-'.length));
    const files = fs.readdirSync(path.join(logs, dir)).filter((f) => f.endsWith('.log')).map((f) => path.join(logs, dir, f));
    if (files.length === 0) continue;
    const text = runKafkaTool(dumpLog, ['--files', files.join(','), '--offsets-decoder', '--print-data-log'], version);
    for (const line of text.split('\n')) {
      const m = /^\| offset: (\d+) .*? key: (.*?) payload: (.*)$/.exec(line);
      if (m) decoded.set(`${partition}:${m[1]}`, { key: m[2], payload: m[3] });
    }
  }
  return decoded;
}

/**
 * Every record of the cluster's __consumer_offsets: key and value in hex, `aborted` (seen
 * read_uncommitted only), `kafka` (Kafka's own decoding), and the record timestamp if `withTimestamp`.
 */
async function capturedRecords(kafka, cluster, withTimestamp) {
  const all = await readAll(kafka, true);
  const committed = new Set((await readAll(kafka, false)).map((r) => `${r.partition}:${r.offset}`));
  const decoded = kafkaDecoded(cluster.dataDir);
  return all.map(({ timestamp, ...r }) => ({
    ...r,
    ...(withTimestamp ? { timestamp } : {}),
    aborted: !committed.has(`${r.partition}:${r.offset}`),
    kafka: decoded.get(`${r.partition}:${r.offset}`) ?? null,
  }));
}

const RETENTION = { 'offsets.retention.minutes': 1, 'offsets.retention.check.interval.ms': 1000 };

/** The `expiry` part (see the header): its own cluster, two groups left alone until the broker expires their offsets. */
async function captureExpiry() {
  const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');
  const cluster = await startCluster(`capture-expiry-${version}`, { version, properties: RETENTION });
  const kafka = new Kafka({ clientId: 'capture', brokers: [cluster.bootstrap], logLevel: logLevel.NOTHING });
  const actions = [];
  try {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 2 }], waitForLeaders: true });
    const committer = new AdminOffsetCommitter(kafka);
    try {
      const res = await committer.commit('expired-simple', [{ topic: 'orders', partition: 0, offset: 2n }, { topic: 'orders', partition: 1, offset: 3n }]);
      if (!res.ok) throw new Error(`commit of expired-simple: ${res.errorType} ${res.message}`);
    } finally {
      await committer.close();
    }
    actions.push('expired-simple commits orders-0=2, orders-1=3 (admin-style OffsetCommit, generation -1, never joins), then nothing');
    await admin.setOffsets({ groupId: 'expired-empty', topic: 'orders', partitions: [{ partition: 0, offset: '4' }] });
    actions.push('expired-empty commits orders-0=4 (kafkajs admin setOffsets: joins, commits, leaves: an empty group), then nothing');
    const groups = { 'expired-simple': ['orders-0', 'orders-1'], 'expired-empty': ['orders-0'] };
    const deadline = Date.now() + 240000;
    let records;
    for (;;) {
      // the broker has dropped them from its cache, and the tombstones are in the log
      const gone = await Promise.all(Object.keys(groups).map((groupId) => admin.fetchOffsets({ groupId, topics: ['orders'] })
        .then((r) => r.every((t) => t.partitions.every((p) => p.offset === '-1')))));
      if (gone.every(Boolean)) {
        records = await capturedRecords(kafka, cluster, true);
        const tombstoned = new Set(records.filter((r) => r.value === null && r.kafka).map((r) => JSON.parse(r.kafka.key).data)
          .filter((k) => k.topic).map((k) => `${k.group}/${k.topic}-${k.partition}`));
        if (Object.entries(groups).every(([g, tps]) => tps.every((tp) => tombstoned.has(`${g}/${tp}`)))) break;
      }
      if (Date.now() > deadline) throw new Error('the broker did not expire the offsets within 4 minutes');
      await new Promise((r) => setTimeout(r, 1000));
    }
    await admin.disconnect();
    actions.push('the broker expires both groups\' offsets (offsets.retention.minutes=1); nothing else deletes anything');
    const labelled = records.map((r) => {
      if (r.value !== null || !r.kafka) return r;
      const key = JSON.parse(r.kafka.key);
      const group = key.data.group ?? key.data.groupId;
      if (!(group in groups)) return r;
      return { ...r, expired: key.data.topic !== undefined ? 'offset' : 'group' };
    });
    return { properties: RETENTION, actions, records: labelled };
  } finally {
    await cluster.stop();
  }
}

async function main() {
  if (expiryOnly) {
    const fixture = JSON.parse(fs.readFileSync(out, 'utf8'));
    fixture.expiry = await captureExpiry();
    fs.writeFileSync(out, JSON.stringify(fixture, null, 1) + '\n');
    process.stderr.write(`wrote ${fixture.expiry.records.length} expiry records to ${out}, the rest unchanged\n`);
    return;
  }
  const cluster = await startCluster(`capture-${version}`, { version });
  const kafka = new Kafka({ clientId: 'capture', brokers: [cluster.bootstrap], logLevel: logLevel.NOTHING });
  const tool = (cls, args) => runKafkaTool(cls, ['--bootstrap-server', cluster.bootstrap, ...args], version);
  const actions = [];
  try {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 2 }, { topic: 'payments', numPartitions: 1 }] });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'orders', messages: Array.from({ length: 10 }, (_, i) => ({ partition: i % 2, value: `o${i}` })) });
    await producer.send({ topic: 'payments', messages: Array.from({ length: 5 }, (_, i) => ({ value: `p${i}` })) });
    await producer.disconnect();

    // classic group commits (admin-style, no members), one with metadata
    await admin.setOffsets({ groupId: 'classic-a', topic: 'orders', partitions: [{ partition: 0, offset: '3' }, { partition: 1, offset: '4' }] });
    await admin.setOffsets({ groupId: 'classic-a', topic: 'orders', partitions: [{ partition: 0, offset: '5' }] });
    actions.push('classic-a commits orders-0=3, orders-1=4, then orders-0=5 (kafkajs admin setOffsets)');
    // a classic group with a member committing (JoinGroup/SyncGroup: group metadata records too)
    const consumer = kafka.consumer({ groupId: 'classic-member' });
    await consumer.connect();
    await consumer.subscribe({ topics: ['payments'], fromBeginning: true });
    let n = 0;
    await new Promise((resolve) => {
      consumer.run({ autoCommit: false, eachMessage: async () => { if (++n === 5) resolve(); } });
    });
    await consumer.commitOffsets([{ topic: 'payments', partition: 0, offset: '5' }]);
    await consumer.disconnect();
    actions.push('classic-member (kafkajs consumer) joins, commits payments-0=5, leaves');

    // a deleted group
    await admin.setOffsets({ groupId: 'doomed', topic: 'payments', partitions: [{ partition: 0, offset: '2' }] });
    await admin.deleteGroups(['doomed']);
    actions.push('doomed commits payments-0=2, then is deleted (admin deleteGroups)');

    // OffsetDelete of one partition's offset (the tombstone expiry writes too)
    await admin.setOffsets({ groupId: 'pruned', topic: 'orders', partitions: [{ partition: 0, offset: '1' }] });
    await admin.setOffsets({ groupId: 'pruned', topic: 'payments', partitions: [{ partition: 0, offset: '1' }] });
    tool('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', ['--delete-offsets', '--group', 'pruned', '--topic', 'orders']);
    actions.push('pruned commits orders-0=1 and payments-0=1, then its orders offsets are deleted (kafka-consumer-groups --delete-offsets)');

    // transactional offset commits: one aborts, one commits
    for (const [id, outcome, offset] of [['txn-abort', 'abort', '7'], ['txn-commit', 'commit', '8']]) {
      const tp = kafka.producer({ transactionalId: id, idempotent: true, maxInFlightRequests: 1 });
      await tp.connect();
      const tx = await tp.transaction();
      await tx.sendOffsets({ consumerGroupId: `group-${id}`, topics: [{ topic: 'orders', partitions: [{ partition: 1, offset }] }] });
      await (outcome === 'abort' ? tx.abort() : tx.commit());
      await tp.disconnect();
      actions.push(`group-${id} commits orders-1=${offset} in a transaction that is ${outcome === 'abort' ? 'aborted' : 'committed'}`);
    }

    if (major >= 4) {
      tool('org.apache.kafka.tools.consumer.ConsoleConsumer', [
        '--topic', 'orders', '--group', 'kip848', '--from-beginning', '--max-messages', '10', '--timeout-ms', '30000',
        '--consumer-property', 'group.protocol=consumer',
      ]);
      actions.push('kip848 (Kafka console consumer, group.protocol=consumer) reads orders and commits on close');

      // a classic group converted to a consumer group: its classic member leaves (the group is
      // Empty, its offsets stay), then a consumer-protocol member joins the same group id
      const classic = kafka.consumer({ groupId: 'converted' });
      await classic.connect();
      await classic.subscribe({ topics: ['payments'], fromBeginning: true });
      let seen = 0;
      await new Promise((resolve) => {
        classic.run({ autoCommit: false, eachMessage: async () => { if (++seen === 5) resolve(); } });
      });
      await classic.commitOffsets([{ topic: 'payments', partition: 0, offset: '5' }]);
      await classic.disconnect();
      tool('org.apache.kafka.tools.consumer.ConsoleConsumer', [
        '--topic', 'orders', '--group', 'converted', '--from-beginning', '--max-messages', '10', '--timeout-ms', '30000',
        '--consumer-property', 'group.protocol=consumer',
      ]);
      actions.push('converted (kafkajs consumer, classic protocol) joins, commits payments-0=5, leaves; then a console consumer with group.protocol=consumer joins the same group (the classic group becomes a consumer group), reads orders and commits on close');
    }
    if (major > 4 || (major === 4 && minor >= 2)) {
      // on by default from 4.2: share groups (KIP-932) and streams groups (KIP-1071)
      const shared = await runJava('share', { bootstrap: cluster.bootstrap, group: 'shared', topic: 'orders', max: 10, version });
      actions.push(`shared (KafkaShareConsumer: a share group, share.auto.offset.reset=earliest) reads ${shared.length} records of orders, acknowledges them and leaves`);
      const streamed = await runStreamsApp({ bootstrap: cluster.bootstrap, applicationId: 'streams-app', topic: 'payments', max: 5, version });
      actions.push(`streams-app (a Kafka Streams application, group.protocol=streams) reads ${streamed.length} records of payments, commits and closes`);
    }
    await admin.disconnect();

    const records = await capturedRecords(kafka, cluster, false);
    await cluster.stop();
    const expiry = await captureExpiry();
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify({ kafkaVersion: version, capturedBy: 'test/harness/capture-consumer-offsets.js', actions, records, expiry }, null, 1) + '\n');
    process.stderr.write(`wrote ${records.length} records and ${expiry.records.length} expiry records to ${out}\n`);
  } finally {
    await cluster.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${e.stack || e}\n`);
    process.exit(1);
  },
);
