'use strict';
/** The source cluster's __consumer_offsets followed as a stream of committed-offset changes (real brokers). */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { SourceCommitStream } = require('../../dist/kafka/source-commit-stream');
const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');

/** The __consumer_offsets partition of a group, as the broker picks it: abs(Java's String.hashCode) modulo the partitions (abs of MIN_VALUE is 0). */
function offsetsPartition(group, partitions) {
  let h = 0;
  for (let i = 0; i < group.length; i++) h = (Math.imul(31, h) + group.charCodeAt(i)) | 0;
  return (h === -0x80000000 ? 0 : Math.abs(h)) % partitions;
}

/**
 * OffsetCommit v2 of one offset as an administrator (generation -1, no member) with `retentionMs`,
 * to the single broker at `bootstrap` (it is the coordinator of every group): resolves with the
 * partition's error code. kafkajs always sends the newest version both sides speak (v5 and later
 * have no retention time), so its own v2 request and response codecs go over a socket of our own.
 */
function commitWithRetention(bootstrap, group, topic, partition, offset, retentionMs) {
  const net = require('node:net');
  const frame = require('kafkajs/src/protocol/request');
  const v2 = require('kafkajs/src/protocol/requests/offsetCommit').protocol({ version: 2 });
  const { request, response } = v2({ groupId: group, groupGenerationId: -1, memberId: '', retentionTime: retentionMs, topics: [{ topic, partitions: [{ partition, offset: String(offset) }] }] });
  const [host, port] = bootstrap.split(':');
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host, port: Number(port) });
    sock.on('connect', async () => sock.write((await frame({ correlationId: 1, clientId: 'expiry-test', request })).buffer));
    let got = Buffer.alloc(0);
    sock.on('data', async (d) => {
      got = Buffer.concat([got, d]);
      if (got.length < 4 || got.length < 4 + got.readInt32BE(0)) return;
      sock.destroy();
      try {
        // size, correlation id, then the response body
        const { responses } = await response.decode(got.subarray(8, 4 + got.readInt32BE(0)));
        const [p] = responses.flatMap((r) => r.partitions);
        assert.equal(p.partition, partition);
        resolve(p.errorCode);
      } catch (e) {
        reject(e);
      }
    });
    sock.on('error', reject);
    sock.setTimeout(10000, () => { sock.destroy(); reject(new Error(`no answer to the OffsetCommit from ${bootstrap}`)); });
  });
}

describe('source commit stream (real brokers)', function () {
  let admin;
  let kafka;
  let stream;
  let topic;
  const batches = [];
  /** Last change seen per group/topic/partition over all batches. */
  const latest = () => {
    const m = new Map();
    for (const b of batches) for (const c of b.changes) m.set(`${c.group}/${c.topic}-${c.partition}`, c.offset);
    return m;
  };
  const seen = (group) => batches.some((b) => b.changes.some((c) => c.group === group));

  before(async function () {
    admin = await env.admin('source');
    kafka = env.kafka('source');
    topic = env.unique('scs');
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    // make sure __consumer_offsets exists before the stream starts
    await new AdminOffsetCommitter(kafka).commit(env.unique('warm'), [{ topic, partition: 0, offset: 0n }]);
    stream = new SourceCommitStream({ kafka, admin, batchMs: 50, onBatch: (b) => batches.push(b) });
    await stream.start();
  });

  after(async function () {
    if (stream) await stream.stop();
  });

  it('delivers commits made after start, in batches, last value per partition', async function () {
    const committer = new AdminOffsetCommitter(kafka);
    const group = env.unique('grp');
    try {
      // one OffsetCommit request: both partitions land in one record batch, so in one delivered batch
      assert.deepEqual(await committer.commit(group, [{ topic, partition: 0, offset: 3n }, { topic, partition: 1, offset: 4n }]), { ok: true });
      await env.eventually(() => seen(group), { what: 'the first commit of the group' });
      const first = batches.find((b) => b.changes.some((c) => c.group === group));
      assert.deepEqual(
        first.changes.filter((c) => c.group === group).map((c) => [c.partition, c.offset]).sort(),
        [[0, 3n], [1, 4n]],
      );
      await committer.commit(group, [{ topic, partition: 0, offset: 9n }]);
      await env.eventually(() => latest().get(`${group}/${topic}-0`) === 9n, { what: 'the second commit' });
      assert.equal(latest().get(`${group}/${topic}-1`), 4n);
      for (const b of batches) {
        const keys = b.changes.map((c) => `${c.group}/${c.topic}-${c.partition}`);
        assert.equal(new Set(keys).size, keys.length, 'one change per partition in a batch');
      }
      assert.ok(!batches.some((b) => b.changes.some((c) => c.group === stream.groupId)), 'the stream drops its own group');
      assert.ok(stream.stats.records >= 3 && stream.stats.batches >= 2, JSON.stringify(stream.stats));
    } finally {
      await committer.close();
    }
  });

  it('a transactional offset commit shows only once committed; an aborted one never', async function () {
    const parts = (await admin.fetchTopicOffsets('__consumer_offsets')).length;
    const aborted = env.unique('txn-aborted');
    const committedGroup = env.unique('txn-committed');
    // a group on another __consumer_offsets partition than the open transaction (that one waits for its marker)
    let probe;
    do probe = env.unique('probe');
    while (offsetsPartition(probe, parts) === offsetsPartition(committedGroup, parts));
    const committer = new AdminOffsetCommitter(kafka);
    const producers = [];
    const open = [];
    try {
      const txn = async (id) => {
        const p = kafka.producer({ transactionalId: env.unique(id), idempotent: true, maxInFlightRequests: 1 });
        producers.push(p);
        await p.connect();
        const t = await p.transaction();
        open.push(t);
        return t;
      };
      const ta = await txn('abort');
      await ta.sendOffsets({ consumerGroupId: aborted, topics: [{ topic, partitions: [{ partition: 0, offset: '7' }] }] });
      await ta.abort();

      const tc = await txn('commit');
      await tc.sendOffsets({ consumerGroupId: committedGroup, topics: [{ topic, partitions: [{ partition: 1, offset: '8' }] }] });
      // a plain commit made after the transactional one, on another partition, is delivered while the transaction is open
      await committer.commit(probe, [{ topic, partition: 0, offset: 1n }]);
      await env.eventually(() => seen(probe), { what: 'the commit made while the transaction is open' });
      assert.ok(!seen(committedGroup), 'the open transaction is not delivered');
      await tc.commit();
      await env.eventually(() => latest().get(`${committedGroup}/${topic}-1`) === 8n, { what: 'the committed transactional offset' });

      // after a later commit on the aborted group's partition, the aborted commit has still not shown up
      let after;
      do after = env.unique('after-abort');
      while (offsetsPartition(after, parts) !== offsetsPartition(aborted, parts));
      await committer.commit(after, [{ topic, partition: 0, offset: 2n }]);
      await env.eventually(() => seen(after), { what: 'a commit behind the aborted transaction' });
      assert.ok(!seen(aborted), 'the aborted transactional commit is never delivered');
    } finally {
      // a transaction left open would hold back its __consumer_offsets partition (read_committed) for the next tests
      for (const t of open) if (t.isActive()) await t.abort().catch(() => undefined);
      for (const p of producers) await p.disconnect().catch(() => undefined);
      await committer.close();
    }
  });

  it('a deleted group: its offsets as null, the group in deletedGroups', async function () {
    // kafkajs's setOffsets joins the group (generation 1): Kafka 3.9 writes no group tombstone for
    // a group that never had a generation (offsets only), only the tombstones of its offsets
    const group = env.unique('doomed');
    const offsetOnly = env.unique('offsets-only');
    const committer = new AdminOffsetCommitter(kafka);
    try {
      await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: '5' }] });
      await committer.commit(offsetOnly, [{ topic, partition: 1, offset: 6n }]);
      await env.eventually(() => latest().get(`${group}/${topic}-0`) === 5n && latest().get(`${offsetOnly}/${topic}-1`) === 6n, { what: 'the commits of the groups' });
      // the coordinator may still be finishing the group's rebalance (its member leaving): NON_EMPTY_GROUP, ask again
      for (const g of [group, offsetOnly]) {
        await env.eventually(
          () => admin.deleteGroups([g]).then(() => true, (e) => {
            if ((e.groups ?? []).every((r) => r.error?.type === 'NON_EMPTY_GROUP')) return false;
            throw e;
          }),
          { what: `deleting ${g}` },
        );
      }
      await env.eventually(() => latest().get(`${group}/${topic}-0`) === null && latest().get(`${offsetOnly}/${topic}-1`) === null, { what: 'the offsets deleted with the groups' });
      await env.eventually(() => batches.some((b) => b.deletedGroups.includes(group)), { what: 'the group deletion' });
    } finally {
      await committer.close();
    }
  });

  it('follows only the partitions of its share (issue 25): the others are not read; one followed again is read from its end, without the commits made while it was not', async function () {
    const committer = new AdminOffsetCommitter(kafka);
    const [{ partitions }] = (await admin.fetchTopicMetadata({ topics: ['__consumer_offsets'] })).topics;
    const count = partitions.length;
    // two groups whose commits land in two different partitions of __consumer_offsets
    const base = env.unique('share');
    const gA = `${base}-a`;
    const pa = offsetsPartition(gA, count);
    let gB = null;
    for (let i = 0; gB === null && i < 1000; i++) if (offsetsPartition(`${base}-b${i}`, count) !== pa) gB = `${base}-b${i}`;
    assert.ok(gB !== null, 'found a group of another partition');
    const pb = offsetsPartition(gB, count);

    assert.equal(await stream.follow(new Set([pa])), 0, 'nothing to follow again');
    assert.deepEqual(stream.followedPartitions, [pa], 'only the share is read');
    const pbAt = stream.positions.get(pb);
    await committer.commit(gB, [{ topic, partition: 0, offset: 5n }]);
    await committer.commit(gA, [{ topic, partition: 0, offset: 5n }]);
    await env.eventually(() => seen(gA), { what: `${gA}'s commit (a partition followed)`, timeout: 60000 });
    // a commit made after gB's was read: gB's partition was not
    assert.equal(stream.positions.get(pb), pbAt, `partition ${pb} (not followed) not read`);
    assert.equal(seen(gB), false, `${gB}'s commit (a partition not followed) not delivered`);
    await committer.commit(gB, [{ topic, partition: 0, offset: 6n }]);

    assert.equal(await stream.follow(null), count - 1, 'the partitions not followed are followed again');
    assert.equal(stream.followedPartitions.length, count, 'every partition read again');
    await committer.commit(gB, [{ topic, partition: 0, offset: 7n }]);
    await env.eventually(() => latest().get(`${gB}/${topic}-0`) === 7n, { what: `${gB}'s commit made after it is followed again`, timeout: 60000 });
    const gBs = batches.flatMap((b) => b.changes.filter((c) => c.group === gB).map((c) => c.offset));
    assert.deepEqual(gBs, [7n], `only the commit made after the partition is followed again (not 5, not 6: the owner reads those in full): ${gBs}`);
  });

  it('after stop() nothing is delivered, and nothing more is read', async function () {
    // the second stream's join can meet a busy coordinator late in the suite (kafkajs retries it)
    this.timeout(180000);
    const s = new SourceCommitStream({ kafka, admin, onBatch: () => assert.fail('delivered after stop') });
    await s.start();
    await s.stop();
    // what it read before stop() (other groups' records, its own group's join) is not the question
    const readBeforeStop = s.stats.records;
    const committer = new AdminOffsetCommitter(kafka);
    const group = env.unique('after-stop');
    try {
      assert.deepEqual(await committer.commit(group, [{ topic, partition: 0, offset: 1n }]), { ok: true });
      // the running stream sees it; the stopped one delivered nothing (its onBatch would fail the test)
      await env.eventually(() => seen(group), {
        what: `the commit on the running stream (its group on __consumer_offsets partition ${offsetsPartition(group, 50)}; the stream read ${stream.stats.records} records, last fetch ${Date.now() - stream.lastFetchAt} ms ago, at ${JSON.stringify(Object.fromEntries([...stream.positions].map(([p, o]) => [p, String(o)])))})`,
      });
      assert.equal(s.stats.records, readBeforeStop, 'the stopped stream read nothing after stop()');
    } finally {
      await committer.close();
    }
  });
});

describe('source commit stream on a cluster with an authorizer (real broker)', function () {
  const { Kafka, logLevel, AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes } = require('kafkajs');
  const { startCluster, SASL_USERS } = require('../../scripts/kafka/cluster');
  let cluster;
  let superAdmin;
  before(async function () {
    this.timeout(120000);
    // PLAINTEXT clients are User:ANONYMOUS (super user here); alice logs in over SASL and has no ACLs at first
    cluster = await startCluster('authz', { security: { authorizer: true } });
    superAdmin = new Kafka({ brokers: [cluster.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await superAdmin.connect();
    await superAdmin.createTopics({ topics: [{ topic: 'authz-t', numPartitions: 1 }], waitForLeaders: true });
  });
  after(async function () {
    this.timeout(30000);
    if (superAdmin) await superAdmin.disconnect();
    if (cluster) await cluster.stop();
  });

  const alice = () => new Kafka({
    brokers: [cluster.saslBootstrap], logLevel: logLevel.NOTHING, retry: { retries: 1, initialRetryTime: 100 },
    sasl: { mechanism: 'plain', username: 'alice', password: SASL_USERS.alice },
  });
  const allow = (resourceType, resourceName, resourcePatternType, operation) => superAdmin.createAcls({
    acl: [{ resourceType, resourceName, resourcePatternType, principal: 'User:alice', host: '*', operation, permissionType: AclPermissionTypes.ALLOW }],
  });

  it('refuses with NOT_AUTHORIZED naming the ACLs, and follows once they are granted', async function () {
    this.timeout(120000);
    const committer = new AdminOffsetCommitter(new Kafka({ brokers: [cluster.bootstrap], logLevel: logLevel.NOTHING }));
    try {
      await committer.commit('first-group', [{ topic: 'authz-t', partition: 0, offset: 0n }]); // creates __consumer_offsets
      const attempt = async () => {
        const kafka = alice();
        const admin = kafka.admin();
        await admin.connect();
        const batches = [];
        const s = new SourceCommitStream({ kafka, admin, principal: 'User:alice', onBatch: (b) => batches.push(b) });
        try {
          await s.start();
          return { s, admin, batches };
        } catch (e) {
          await admin.disconnect();
          return { error: e };
        }
      };
      const denied = await attempt();
      assert.equal(denied.error?.code, 'NOT_AUTHORIZED', String(denied.error?.stack ?? denied.error));
      assert.match(denied.error.message, /TOPIC_AUTHORIZATION_FAILED/);
      assert.match(denied.error.message, /READ and DESCRIBE on Topic:__consumer_offsets/);
      assert.match(denied.error.message, /READ on Group:__mm2-node-red-commits \(prefixed\)/);
      assert.match(denied.error.message, /User:alice/);

      // the topic alone is not enough: the stream's consumer group needs READ too
      await allow(AclResourceTypes.TOPIC, '__consumer_offsets', ResourcePatternTypes.LITERAL, AclOperationTypes.READ);
      await allow(AclResourceTypes.TOPIC, '__consumer_offsets', ResourcePatternTypes.LITERAL, AclOperationTypes.DESCRIBE);
      const groupDenied = await env.eventually(async () => {
        const r = await attempt();
        if (r.s) await r.s.stop();
        return r.error && /GROUP_AUTHORIZATION_FAILED/.test(r.error.message) ? r.error : null;
      }, { timeout: 60000, what: 'the refusal for the group once the topic ACLs are in' });
      assert.equal(groupDenied.code, 'NOT_AUTHORIZED');

      await allow(AclResourceTypes.GROUP, '__mm2-node-red-commits', ResourcePatternTypes.PREFIXED, AclOperationTypes.READ);
      const ok = await env.eventually(async () => {
        const r = await attempt();
        return r.s ? r : null;
      }, { timeout: 60000, what: 'the stream starting with the ACLs granted' });
      try {
        await committer.commit('watched', [{ topic: 'authz-t', partition: 0, offset: 1n }]);
        await env.eventually(() => ok.batches.some((b) => b.changes.some((c) => c.group === 'watched' && c.offset === 1n)), { what: 'the commit through the authorized stream' });
      } finally {
        await ok.s.stop();
        await ok.admin.disconnect();
      }
    } finally {
      await committer.close();
    }
  });
});

describe('source commit stream on a cluster of its own: offsets that expire, records nobody should write (real broker)', function () {
  // An offset committed with OffsetCommit v2 to v4 and a retention_time_ms expires that long after
  // its commit (3.9's OffsetAndMetadata.expireTimestamp, 4.1's expireTimestampMs; both versions
  // still take v2), instead of offsets.retention.minutes (a minute at least) after it. The broker
  // looks for expired offsets every offsets.retention.check.interval.ms (here a second) and writes
  // the same offset tombstone as OffsetDelete. When no offset is left, 4.1 also tombstones the
  // group record; 3.9 does so only for a group that ever had a generation, so not for this one
  // (a "simple" group: no member, no protocol type).
  const { Kafka, logLevel } = require('kafkajs');
  const { startCluster } = require('../../scripts/kafka/cluster');
  const RETENTION = { 'offsets.retention.check.interval.ms': 1000 };
  const RETENTION_MS = 3000;
  let cluster;
  let kafka;
  let admin;
  let stream;
  const batches = [];
  before(async function () {
    this.timeout(120000);
    cluster = await startCluster('expiry', { properties: RETENTION });
    kafka = new Kafka({ clientId: 'expiry-test', brokers: [cluster.bootstrap], logLevel: logLevel.NOTHING });
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'expiry-t', numPartitions: 1 }], waitForLeaders: false });
    // kafkajs's waitForLeaders gives up when the broker does not know the new topic yet (a loaded machine)
    await env.eventually(async () => {
      const [m] = (await admin.fetchTopicMetadata({ topics: ['expiry-t'] })).topics;
      return m.partitions.length === 1 && m.partitions[0].leader >= 0;
    }, { timeout: 60000, what: 'a leader for expiry-t' });
    const warm = new AdminOffsetCommitter(kafka);
    try {
      await warm.commit('warm', [{ topic: 'expiry-t', partition: 0, offset: 0n }]); // creates __consumer_offsets
    } finally {
      await warm.close();
    }
    stream = new SourceCommitStream({ kafka, admin, batchMs: 50, onBatch: (b) => batches.push(b) });
    await stream.start();
  });
  after(async function () {
    this.timeout(30000);
    if (stream) await stream.stop();
    if (admin) await admin.disconnect();
    if (cluster) await cluster.stop();
  });

  it('an idle group\'s expired offset arrives as offset null', async function () {
    this.timeout(120000);
    const group = 'idle';
    const mine = () => batches.flatMap((b) => b.changes.filter((c) => c.group === group && c.topic === 'expiry-t'));
    // retried while the coordinator is still loading the group's __consumer_offsets partition
    await env.eventually(async () => (await commitWithRetention(cluster.bootstrap, group, 'expiry-t', 0, 3n, RETENTION_MS)) === 0,
      { what: 'an OffsetCommit v2 with a retention time accepted' });
    await env.eventually(() => mine().some((c) => c.offset === 3n), { what: 'the commit of the idle group' });
    // nobody deletes anything: only the broker's expiry can take the offset away (RETENTION_MS after the commit)
    await env.eventually(() => mine().at(-1)?.offset === null, { timeout: 60000, interval: 500, what: 'the expiry of the idle group\'s offset' });
    assert.deepEqual(mine().map((c) => [c.partition, c.offset]), [[0, 3n], [0, null]]);
    const described = await admin.fetchOffsets({ groupId: group, topics: ['expiry-t'] });
    assert.equal(described[0].partitions[0].offset, '-1', 'the broker has no offset for the group any more');
    if (cluster.version.startsWith('4.')) {
      await env.eventually(() => batches.some((b) => b.deletedGroups.includes(group)), { what: 'the group record removed with its last offset' });
    } else {
      assert.ok(!batches.some((b) => b.deletedGroups.includes(group)), 'Kafka 3.9 writes no group tombstone for a group without a generation');
    }
  });

  it('records it does not understand are skipped and counted; the stream goes on', async function () {
    // only a client called __admin_client may write to an internal topic: an unknown record type
    // (key version 99) and a record too short to have a key version, as a future or broken broker might write them.
    // Last on this cluster of its own: Kafka 4.1's group coordinator stops serving the groups of the
    // partition it finds them on (NOT_COORDINATOR for each, for as long as the broker runs)
    const writer = new Kafka({ clientId: '__admin_client', brokers: [cluster.bootstrap], logLevel: logLevel.NOTHING }).producer();
    await writer.connect();
    const before = stream.stats.skipped;
    const parts = (await admin.fetchTopicOffsets('__consumer_offsets')).length;
    try {
      await writer.send({
        topic: '__consumer_offsets',
        acks: -1,
        messages: [
          { partition: 0, key: Buffer.from('0063000167', 'hex'), value: Buffer.from('0000', 'hex') },
          { partition: 0, key: Buffer.from('01', 'hex'), value: null },
        ],
      });
    } finally {
      await writer.disconnect();
    }
    await env.eventually(() => stream.stats.skipped >= before + 2, { what: 'the two records counted as skipped' });
    assert.ok(batches.some((b) => b.skipped > 0), 'a batch reports its skipped records');
    const committer = new AdminOffsetCommitter(kafka);
    // a group of another partition of __consumer_offsets (see above)
    let group;
    do group = env.unique('after-unknown');
    while (offsetsPartition(group, parts) === 0);
    try {
      assert.deepEqual(await committer.commit(group, [{ topic: 'expiry-t', partition: 0, offset: 2n }]), { ok: true });
      await env.eventually(() => batches.some((b) => b.changes.some((c) => c.group === group && c.offset === 2n)), { what: 'a commit after the unknown records' });
    } finally {
      await committer.close();
    }
  });
});
