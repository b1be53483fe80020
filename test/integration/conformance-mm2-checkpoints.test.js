'use strict';
/**
 * Conformance 2 (issue 4): MirrorMaker 2's checkpoint connector on our offset syncs.
 *
 * Our mm2-mirror node (Node-RED test helper, its own cluster aliases) replicates a source topic
 * to <a>.<t> on the target and writes offset syncs to mm2-offset-syncs.<b>.internal. MM2's
 * MirrorCheckpointConnector (the connect-mirror jar of the Kafka version under test) runs alone
 * on a Connect worker (test/harness/checkpoint-peer.js says why not in dedicated mode), with
 * sync.group.offsets.enabled=true and 1 s intervals; our mm2-checkpoint node does not run.
 * Nothing but our mirror writes offset syncs, and nothing but MM2 writes checkpoints or target
 * group offsets.
 *
 * Source and target offsets differ: partition 0 starts at 20 (records deleted), partition 1
 * has transactions, one aborted (markers and aborted records leave gaps on the source only),
 * partition 2 is plain. More records arrive while MM2 runs. Consumer groups: one at the log
 * start, one halfway (with commit metadata), one that ends at the log end by admin commit, and a
 * real consumer that consumes everything while the mirror and MM2 run.
 *
 * Asserted, with MM2's checkpoint records decoded by our decoder:
 *   - every checkpoint names <a>.<t>, carries the group's commit metadata, and the series per
 *     (group, partition) is monotonic;
 *   - the latest checkpoint's upstream offset is the group's committed source offset, and its
 *     downstream offset is at least what our OffsetSyncStore translates from the same syncs (MM2
 *     may hold a higher one from before later syncs thinned the history) and never past the
 *     target position of the first record the group has not consumed;
 *   - groups at the log start resume at target offset 0, groups at the end at the target's end;
 *   - the target committed offsets equal the latest checkpoints and never decreased;
 *   - failover: each group consumes <a>.<t> on the target from those offsets and receives every
 *     record at or after its source position (none skipped); what it re-reads is exactly the
 *     records between the translated offset and its position.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const peer = require('../harness/checkpoint-peer');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
const { decodeOffsetSync } = require('../../dist/core/offset-sync');
const { fetchCommittedOffsets } = require('../../dist/kafka/group-client');
const { TopicReader } = require('../../dist/kafka/topic-reader');

const PARTITIONS = 3;
const OFFSET_LAG_MAX = 10;

/** Reads a whole data topic: [{partition, offset, value}] (read_committed), at least `expect` records. */
async function readAll(cluster, topic, expect) {
  const consumer = env.kafka(cluster).consumer({ groupId: env.unique('__c2-read'), maxWaitTimeInMs: 200 });
  const out = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: async ({ partition, message }) => { out.push({ partition, offset: BigInt(message.offset), value: message.value.toString() }); } });
  await env.eventually(() => out.length >= expect, { timeout: 30000, what: `${expect} records of ${topic} on ${cluster}` });
  await consumer.disconnect();
  return out;
}

async function endOffsets(cluster, topic) {
  const admin = await env.admin(cluster);
  return Object.fromEntries((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, { low: BigInt(o.low), high: BigInt(o.high) }]));
}

/**
 * Our translation of `offset` from every offset sync in the topic (log order, history kept):
 * `translate` is MM2's answer (mode 'mm2'); `explain(..., group)` the precise one (the load history held).
 */
async function translator(b) {
  const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: 'precise' });
  const reader = new TopicReader(env.kafka('source'), await env.admin('source'), {
    topic: peer.syncsTopicOf(b),
    tail: false,
    onRecord: (r) => store.apply(decodeOffsetSync(r.key, r.value)),
  });
  await reader.start();
  store.markLoaded();
  return store;
}

describe('conformance 2: MM2\'s checkpoint connector on the offset syncs of our mirror node', function () {
  this.timeout(240000);
  const a = env.unique('sa2');
  const b = env.unique('sb2');
  const T = `${a}-orders`;
  const R = `${a}.${T}`;
  const G = (n) => `${a}-g-${n}`;
  const GROUPS = ['start', 'half', 'end', 'live'].map(G);
  let committer;
  let producer;
  let txProducer;
  let live;
  let mm2;
  let seq = 0;
  let produced = 0; // committed records still in the source topic

  async function produce(partition, n) {
    const messages = [];
    for (let i = 0; i < n; i++) messages.push({ partition, key: `k${seq % 5}`, value: `p${partition}-n${seq++}` });
    await producer.send({ topic: T, acks: -1, messages });
    produced += n;
  }

  before(async function () {
    await nodes.startServer();
    committer = new peer.AdminOffsetCommitter(env.kafka('source'));
    await peer.createTopics('source', [{ topic: T, partitions: PARTITIONS }]);
    producer = env.kafka('source').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    await produce(0, 60);
    env.deleteRecordsBefore('source', T, 0, 20);
    produced -= 20;
    txProducer = env.kafka('source').producer({ transactionalId: env.unique('c2-tx'), maxInFlightRequests: 1, idempotent: true });
    await txProducer.connect();
    for (const commit of [true, false, true, true]) {
      const tx = await txProducer.transaction();
      const messages = Array.from({ length: 8 }, () => ({ partition: 1, value: `p1-n${seq++}${commit ? '' : '-aborted'}` }));
      await tx.send({ topic: T, messages });
      if (commit) {
        await tx.commit();
        produced += messages.length;
      } else {
        await tx.abort();
      }
    }
    await produce(2, 45);
  });

  after(async function () {
    if (live) await live.disconnect().catch(() => undefined);
    if (mm2) await mm2.close();
    await nodes.helper.unload();
    await nodes.stopServer();
    if (producer) await producer.disconnect();
    if (txProducer) await txProducer.disconnect();
    if (committer) await committer.close();
  });

  it('MM2 translates our syncs into checkpoints and target group offsets; the groups fail over with no record skipped', async function () {
    const source = await env.admin('source');
    // our mirror replicates and writes offset syncs
    await nodes.load(
      [
        {
          id: 'm', type: 'mm2-mirror', name: '', replication: 'rep', topics: T, topicsExclude: '', heartbeatsReplicationEnabled: false,
          replicationFactor: '', offsetLagMax: String(OFFSET_LAG_MAX), emitOffsetSyncsEnabled: true, offsetFlushIntervalMs: '1000',
          refreshTopicsIntervalSeconds: '600', wires: [[]],
        },
      ],
      { over: { src: { alias: a }, tgt: { alias: b } } },
    );
    const srcEnds = await endOffsets('source', T);
    assert.equal(srcEnds[0].low, 20n);

    // groups on the source, before MM2 starts (its group discovery runs at start)
    await peer.commitOnSource(committer, G('start'), [...Array(PARTITIONS).keys()].map((p) => [T, p, srcEnds[p].low]));
    await peer.commitOnSource(committer, G('half'), [...Array(PARTITIONS).keys()].map((p) => [T, p, (srcEnds[p].low + srcEnds[p].high) / 2n, `half-${p}`]));
    await peer.commitOnSource(committer, G('end'), [...Array(PARTITIONS).keys()].map((p) => [T, p, srcEnds[p].low + 3n]));
    live = env.kafka('source').consumer({ groupId: G('live'), maxWaitTimeInMs: 200 });
    await live.connect();
    await live.subscribe({ topics: [T], fromBeginning: true });
    await live.run({ autoCommitInterval: 300, eachMessage: async () => {} });
    await env.eventually(async () => (await fetchCommittedOffsets(source, G('live'))).length === PARTITIONS, { what: 'the live consumer to commit' });

    const watch = peer.watchTargetOffsets(GROUPS);
    mm2 = await peer.startCheckpointPeer({ a, b, props: { topics: T, groups: `${a}-g-.*`, 'sync.group.offsets.enabled': 'true' } });
    await mm2.start();

    // traffic while the mirror and MM2 run; then the source "fails"
    for (let round = 0; round < 3; round++) {
      await produce(0, 9);
      await produce(2, 13);
      await new Promise((r) => setTimeout(r, 700));
    }
    const finalEnds = await endOffsets('source', T);
    await env.eventually(async () => {
      const c = await fetchCommittedOffsets(source, G('live'));
      return c.length === PARTITIONS && c.every((o) => o.offset === finalEnds[o.partition].high);
    }, { timeout: 30000, what: 'the live consumer to consume everything' });
    await live.disconnect();
    live = null;
    await peer.commitOnSource(committer, G('end'), [...Array(PARTITIONS).keys()].map((p) => [T, p, finalEnds[p].high]));

    // everything is on the target
    const srcRecords = await readAll('source', T, produced);
    const total = produced;
    assert.equal(srcRecords.length, total);
    await env.eventually(async () => Object.values(await endOffsets('target', R).catch(() => ({}))).reduce((n, o) => n + Number(o.high), 0) === total, { timeout: 30000, what: 'the mirror to copy every record' });
    const tgtRecords = await readAll('target', R, total);
    assert.equal(tgtRecords.length, total);
    assert.ok(!tgtRecords.some((r) => r.value.endsWith('-aborted')));
    const tgtEnds = await endOffsets('target', R);
    const tgtOffsetOf = new Map(tgtRecords.map((r) => [r.value, r.offset]));

    // source positions, and where the first record at or after them landed on the target
    const position = {};
    for (const g of GROUPS) {
      position[g] = Object.fromEntries((await fetchCommittedOffsets(source, g)).map((o) => [o.partition, o]));
      assert.equal(Object.keys(position[g]).length, PARTITIONS, g);
    }
    const resumeAt = (g, p) => {
      const next = srcRecords.filter((r) => r.partition === p && r.offset >= position[g][p].offset).sort((x, y) => (x.offset < y.offset ? -1 : 1))[0];
      return next ? tgtOffsetOf.get(next.value) : tgtEnds[p].high;
    };

    // wait until MM2 has checkpointed every group partition at its final position and synced it to the target
    const store = async () => translator(b);
    let latest;
    await env.eventually(async () => {
      const s = await store();
      latest = peer.latestOf(await peer.readCheckpoints(peer.checkpointsTopicOf(a)).catch(() => []));
      for (const g of GROUPS) {
        const t = await peer.targetOffsets(g);
        for (let p = 0; p < PARTITIONS; p++) {
          const l = latest[`${g} ${R}-${p}`];
          const want = s.translate(T, p, position[g][p].offset);
          if (!l || want === undefined || BigInt(l[1]) < want) return false;
          if (t[`${R}-${p}`] !== l[1]) return false;
        }
      }
      return true;
    }, { timeout: 90000, interval: 1000, what: 'MM2 to checkpoint and sync every group partition' });
    await mm2.stop();
    const { regressions, last } = await watch.stop();
    assert.deepEqual(regressions, [], 'target group offsets never decreased');

    // MM2's checkpoints, decoded by us
    const records = await peer.readCheckpoints(peer.checkpointsTopicOf(a));
    assert.ok(records.length >= GROUPS.length * PARTITIONS);
    peer.assertMonotonic(records, 'MM2\'s checkpoints');
    const s = await store();
    for (const c of records) {
      assert.equal(c.topic, R, 'remote topic name');
      assert.ok(GROUPS.includes(c.group), `only our groups: ${c.group}`);
      assert.equal(c.metadata, c.group === G('half') ? `half-${c.partition}` : '', 'the commit metadata is copied');
    }
    latest = peer.latestOf(records);
    for (const g of GROUPS) {
      for (let p = 0; p < PARTITIONS; p++) {
        const [up, down] = latest[`${g} ${R}-${p}`].map((x, i) => (i < 2 ? BigInt(x) : x));
        const pos = position[g][p].offset;
        const ours = s.translate(T, p, up);
        assert.ok(up <= pos, `${g} ${p}: checkpoint upstream ${up} <= committed ${pos}`);
        assert.ok(down >= ours, `${g} ${p}: MM2's ${down} >= our translation ${ours} of the same syncs`);
        // precise translation of the same position: never below MM2's, never past the next record to consume
        const t = s.explain(T, p, up, g);
        assert.equal(t.kind, 'translated', `${g} ${p}: precise translation of ${up}`);
        const precise = /** @type {any} */ (t).downstreamOffset;
        assert.ok(precise >= down, `${g} ${p}: precise ${precise} is not below MM2's ${down}`);
        assert.ok(precise <= resumeAt(g, p), `${g} ${p}: precise ${precise} skips no record (next record to consume at ${resumeAt(g, p)})`);
        assert.ok(down <= resumeAt(g, p), `${g} ${p}: ${down} is not past the target offset ${resumeAt(g, p)} of the next record to consume`);
        assert.equal(last[`${g} ${R}-${p}`], String(down), `${g} ${p}: the target group offset is the latest checkpoint`);
      }
    }
    for (let p = 0; p < PARTITIONS; p++) {
      assert.deepEqual(latest[`${G('start')} ${R}-${p}`].slice(0, 2), [String(srcEnds[p].low), '0'], `a group at the log start resumes at 0 (partition ${p})`);
      for (const g of [G('end'), G('live')]) {
        assert.deepEqual(latest[`${g} ${R}-${p}`].slice(0, 2), [String(finalEnds[p].high), String(tgtEnds[p].high)], `${g} at the end resumes at the target's end (partition ${p})`);
      }
    }

    // failover: each group consumes the target from the offsets MM2 wrote
    await nodes.helper.unload();
    for (const g of GROUPS) {
      const start = await peer.targetOffsets(g);
      const consumed = [];
      const c = env.kafka('target').consumer({ groupId: g, maxWaitTimeInMs: 200 });
      await c.connect();
      await c.subscribe({ topics: [R], fromBeginning: false });
      await c.run({ autoCommit: false, eachMessage: async ({ partition, message }) => { consumed.push({ partition, offset: BigInt(message.offset), value: message.value.toString() }); } });
      const expected = tgtRecords.filter((r) => r.offset >= BigInt(start[`${R}-${r.partition}`]));
      await env.eventually(() => consumed.length >= expected.length, { timeout: 30000, what: `${g} to consume from its target offsets` });
      await c.disconnect();
      for (let p = 0; p < PARTITIONS; p++) {
        const pos = position[g][p].offset;
        const mine = new Set(consumed.filter((x) => x.partition === p).map((x) => x.value));
        const skipped = srcRecords.filter((r) => r.partition === p && r.offset >= pos && !mine.has(r.value)).map((r) => r.offset);
        assert.deepEqual(skipped, [], `${g} partition ${p}: no record at or after source position ${pos} skipped`);
        const reread = consumed.filter((x) => x.partition === p && x.offset < resumeAt(g, p)).length;
        assert.equal(BigInt(reread), resumeAt(g, p) - BigInt(start[`${R}-${p}`]), `${g} partition ${p}: re-reads exactly the records between the checkpoint and the position`);
      }
    }
  });
});
