'use strict';
/**
 * Failback, end to end, with the failback example flow as a user imports it (the two bootstrap
 * addresses changed, the topic and group filters narrowed to this test's names: the clusters
 * hold the other suites' topics and groups; and its 10 s cycles made 2 s ones, CYCLE_S), deployed into a real Node-RED process, against real brokers.
 *
 * Fail over: consumer groups at random positions on the source (seeded) get their translated
 * offsets on the target; Node-RED stops (the source "fails"); each group consumes a random number
 * of further records per partition on the target, and one group that never existed on the source
 * consumes there from the beginning; records written to the source meanwhile are never replicated
 * before the failure. Fail back: Node-RED starts again (the source is back), the mirror catches up,
 * and the failback node translates the groups' target offsets back to the source. Then each group
 * consumes on the source. Asserts: every record after the group's target position is consumed on
 * the source (nothing skipped); what is read again stays within the records between the two offset
 * syncs around the position; source group offsets never moved backwards; the failback node is
 * green, every group in step.
 *
 * It runs on a cluster pair of its own; FAILBACK_SHARED=1 runs it on the suite's shared pair
 * instead (after other files, with their topics, groups, offset syncs and checkpoints there).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { seededRandom } = require('../../scripts/seeded-random');
const { AdminOffsetCommitter, fetchCommittedOffsets } = require('../../dist/kafka/group-client');
const { startClusters } = require('../../scripts/kafka/cluster');
const { decodeOffsetSync } = require('../../dist/core/offset-sync');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');
const { ourReads } = require('../harness/mm2-reads');
const { readTopic } = require('../harness/records');

const TOPIC = `fb-orders-${Date.now().toString(36)}`;
const REMOTE = `source.${TOPIC}`;
const PARTITIONS = 4;
const SEED = Number(process.env.FAILBACK_SEED || 20261201);
const GROUPS = ['fb-g0', 'fb-g1', 'fb-g2', 'fb-g3', 'fb-g4'];
const TARGET_ONLY = 'fb-target-only'; // consumes only on the target, after the failover
const ALL = [...GROUPS, TARGET_ONLY];
/** The example's checkpoint, group-offset and failback cycles (10 s there), in seconds. */
const CYCLE_S = 2;

function exampleFlow() {
  const flow = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'failback.json'), 'utf8'));
  for (const n of flow) {
    if (n.type === 'mm2-cluster' && n.alias === 'source') n.bootstrap = env.cluster('source').bootstrap;
    if (n.type === 'mm2-cluster' && n.alias === 'target') n.bootstrap = env.cluster('target').bootstrap;
    if (n.type === 'mm2-mirror' || n.type === 'mm2-checkpoint' || n.type === 'mm2-failback') n.topics = TOPIC;
    if (n.type === 'mm2-checkpoint' || n.type === 'mm2-group-offsets' || n.type === 'mm2-failback') n.groups = 'fb-.*';
    if (n.type === 'mm2-checkpoint') n.emitCheckpointsIntervalSeconds = String(CYCLE_S);
    if (n.type === 'mm2-group-offsets' || n.type === 'mm2-failback') n.syncGroupOffsetsIntervalSeconds = String(CYCLE_S);
  }
  return flow;
}

/** Every offset sync of the flow (the example keeps them on the source), in log order. */
const readSyncs = () => ourReads('source', 'mm2-offset-syncs.target.internal', decodeOffsetSync);

const asText = (x) => JSON.stringify(x, (_k, v) => (typeof v === 'bigint' ? String(v) : v));

/**
 * When the failover step does not settle: what the flow shows (every node's status), what the
 * checkpoints topic holds for this test's groups, their offsets on both clusters, the offset syncs
 * of the test topic, and the end of Node-RED's log.
 */
async function showFailoverState(source, target, statuses, log) {
  const lines = [`node statuses: ${asText(statuses.all())}`];
  const checkpoints = await ourReads('target', 'source.checkpoints.internal', decodeCheckpoint).catch((e) => e);
  lines.push(checkpoints instanceof Error ? `checkpoints: ${checkpoints.message}`
    : `checkpoints (${checkpoints.length} in all): ${asText(checkpoints.filter((c) => ALL.includes(c.group)))}`);
  for (const [side, admin] of [['source', source], ['target', target]]) {
    for (const g of ALL) lines.push(`${g} on the ${side}: ${asText(await fetchCommittedOffsets(admin, g).catch((e) => e.message))}`);
  }
  const syncs = await readSyncs().catch((e) => e);
  lines.push(syncs instanceof Error ? `offset syncs: ${syncs.message}` : `offset syncs (${syncs.length} in all) of ${TOPIC}: ${asText(syncs.filter((x) => x.topic === TOPIC))}`);
  lines.push(`${REMOTE} on the target: ${asText(await target.fetchTopicOffsets(REMOTE).catch((e) => e.message))}`);
  lines.push(`Node-RED log (end):\n${log.slice(-8000)}`);
  console.log(lines.join('\n'));
}

/** Reads a whole topic (read_committed): [{partition, offset, value}]. */
const readAll = (kafkaName, topic, expectAtLeast) => readTopic(kafkaName, topic, expectAtLeast, { timeout: 60000 });

/** The committed offset of `group` per partition of `topic` on `admin`'s cluster (partition -> bigint). */
async function positions(admin, group, topic) {
  const m = new Map();
  for (const o of await fetchCommittedOffsets(admin, group)) if (o.topic === topic && o.offset !== null) m.set(o.partition, o.offset);
  return m;
}

/**
 * Waits until every group of `groups` has an offset on each partition of `topic` on `admin`'s
 * cluster and they stay the same over one interval (longer than one cycle of the flow),
 * `also()` holding meanwhile.
 */
async function untilStable(admin, groups, topic, what, timeout, also = () => true) {
  let last = '';
  await env.eventually(async () => {
    if (!also()) {
      last = '';
      return false;
    }
    const all = [];
    for (const g of groups) {
      const m = await positions(admin, g, topic);
      if (m.size !== PARTITIONS) return false;
      all.push(...[...m].map(([p, o]) => `${g}:${p}:${o}`));
    }
    const now = all.sort().join(',');
    const stable = now === last;
    last = now;
    return stable;
  }, { timeout, interval: CYCLE_S * 1000 + 1500, what });
}

describe('failback end to end with the failback example (real Node-RED, real brokers)', function () {
  this.timeout(720000);
  let nr = null;
  let producer;
  let txProducer;
  let seq = 0;
  let aborted = 0;
  const DELETED = 30;
  /** Committed records on the source (what a read_committed consumer reads). */
  const committedRecords = () => seq - aborted - DELETED;
  const rand = seededRandom(SEED);

  async function produce(partition, n, tag = '') {
    const messages = [];
    for (let i = 0; i < n; i++) messages.push({ partition, key: `k${seq % 7}`, value: `p${partition}-n${seq++}${tag}` });
    await producer.send({ topic: TOPIC, messages });
  }

  // Its own pair of clusters (FAILBACK_SHARED=1: the run's shared pair instead, to run it after
  // other files). In one full suite run (both Kafka versions) the failover step did not settle
  // within 6 minutes on the shared pair. Likely cause (seen on the event-pipeline test on the
  // shared pair, not yet on this one): the mirror also copies every heartbeats topic the other
  // files left on the source; with 10 offset syncs in flight the urgent syncs of a partition
  // queued meanwhile replace each other (MM2's pending map), so a partition can lose its first
  // syncs, and a group below the first one left is never translated. On a timeout of that step
  // the test prints the flow's state (showFailoverState).
  let own = null;
  let shared = null;
  before(async function () {
    this.timeout(300000);
    if (!process.env.FAILBACK_SHARED) {
      own = await startClusters(['failback-source', 'failback-target']);
      shared = env.setClusters({ source: own['failback-source'], target: own['failback-target'] });
    }
    const admin = await env.admin('source');
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }], waitForLeaders: true });
    const kafka = env.kafka('source');
    producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    // partition 0: its first 30 records deleted (source offsets start at 30, target at 0)
    await produce(0, 120);
    env.deleteRecordsBefore('source', TOPIC, 0, DELETED);
    // partition 1: transactions, some aborted (markers and aborted records leave gaps on the source only)
    txProducer = kafka.producer({ transactionalId: env.unique('fb-tx'), maxInFlightRequests: 1, idempotent: true });
    await txProducer.connect();
    for (let i = 0; i < 8; i++) {
      const commit = rand() > 0.3;
      const tx = await txProducer.transaction();
      const messages = [];
      const n = 5 + Math.floor(rand() * 15);
      for (let j = 0; j < n; j++) messages.push({ partition: 1, value: `p1-n${seq++}${commit ? '' : '-aborted'}` });
      await tx.send({ topic: TOPIC, messages });
      if (commit) await tx.commit();
      else {
        await tx.abort();
        aborted += n;
      }
    }
    // partitions 2, 3: plain, more than offset.lag.max so that syncs lie between the positions
    await produce(2, 260);
    await produce(3, 180);
  });

  after(async function () {
    if (nr) await nr.stop();
    if (producer) await producer.disconnect();
    if (txProducer) await txProducer.disconnect();
    if (shared) env.setClusters(shared);
    if (own) await own.stop();
  });

  it('groups fail over, consume on the target, fail back and consume on the source: nothing skipped, the re-read bounded, source offsets never backwards', async function () {
    const source = await env.admin('source');
    const target = await env.admin('target');
    const flow = exampleFlow();
    const failbackNode = flow.find((n) => n.type === 'mm2-failback');
    const mirrorGroup = '__mm2-node-red-mirror.source-target'; // the flow's progress, whatever the node id (core/mirror-progress)

    // the groups at random positions on the source (admin commits, as stopped consumers leave them),
    // from the first record a read_committed consumer gets (partition 1 starts with an aborted
    // transaction: below its first committed record there is no offset sync, and a group there is
    // older than the oldest sync, which MM2 does not translate either) to the end; the partitions in
    // order, so that the seed alone decides the positions (the broker lists them in any order)
    const committer = new AdminOffsetCommitter(env.kafka('source'));
    const ends = (await source.fetchTopicOffsets(TOPIC)).sort((x, y) => x.partition - y.partition);
    /** @type {Map<number, bigint>} */
    const firstRecord = new Map();
    for (const r of await readAll('source', TOPIC, committedRecords())) if (!firstRecord.has(r.partition) || r.offset < firstRecord.get(r.partition)) firstRecord.set(r.partition, r.offset);
    /** @type {Map<string, Map<number, bigint>>} */
    const sourceStart = new Map();
    for (const g of GROUPS) {
      const offsets = ends.map((e) => {
        const lo = firstRecord.get(e.partition);
        const hi = BigInt(e.high);
        return { topic: TOPIC, partition: e.partition, offset: lo + BigInt(Math.floor(rand() * Number(hi - lo + 1n))) };
      });
      assert.equal((await committer.commit(g, offsets)).ok, true);
      sourceStart.set(g, new Map(offsets.map((o) => [o.partition, o.offset])));
    }

    // watch the source offsets of every group: they must never go backwards
    const seen = new Map();
    const regressions = [];
    let watching = true;
    const watch = (async () => {
      while (watching) {
        for (const g of ALL) {
          for (const [p, off] of await positions(source, g, TOPIC).catch(() => new Map())) {
            const k = `${g} ${p}`;
            const prev = seen.get(k);
            if (prev !== undefined && off < prev) regressions.push(`${k}: ${prev} -> ${off}`);
            seen.set(k, off);
          }
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    })();

    // ---- fail over: the flow translates the groups to the target ----
    nr = await startNodeRed({ flows: flow, quiet: true, logLevel: 'warn' });
    const failoverStatuses = await nr.watchStatuses();
    await untilStable(target, GROUPS, REMOTE, 'target group offsets written and stable over one sync interval', 360000).catch(async (e) => {
      await showFailoverState(source, target, failoverStatuses, nr.log);
      throw e;
    });
    // the mirror has committed everything it copied (a restart resumes at the end, copying nothing twice)
    const lastRecord = new Map();
    for (const r of await readAll('source', TOPIC, committedRecords())) if ((lastRecord.get(r.partition) ?? -1n) < r.offset) lastRecord.set(r.partition, r.offset);
    await env.eventually(async () => {
      const c = await positions(source, mirrorGroup, TOPIC);
      return [...lastRecord].every(([p, o]) => (c.get(p) ?? -1n) > o);
    }, { timeout: 60000, what: `the mirror (${mirrorGroup}) to commit its source positions past the last records` });
    await nr.stop();
    nr = null; // the source "fails": no mirror, no offset syncs, no failback

    // ---- on the target: every group consumes some more records per partition from where the flow put it ----
    const targetEnds = new Map((await target.fetchTopicOffsets(REMOTE)).map((o) => [o.partition, BigInt(o.high)]));
    /** @type {Map<string, Map<number, bigint>>} */
    const targetPos = new Map();
    for (const g of ALL) {
      const start = await positions(target, g, REMOTE);
      /** @type {Map<number, number>} */
      const want = new Map();
      for (let p = 0; p < PARTITIONS; p++) {
        const from = start.get(p) ?? 0n;
        const left = Number((targetEnds.get(p) ?? 0n) - from);
        const min = g === TARGET_ONLY ? 1 : 0; // the target-only group needs a position everywhere
        want.set(p, Math.min(left, min + Math.floor(rand() * (left + 1))));
      }
      const got = new Map();
      const c = env.kafka('target').consumer({ groupId: g });
      await c.connect();
      await c.subscribe({ topics: [REMOTE], fromBeginning: true });
      await c.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          const n = got.get(partition) ?? 0;
          if (n >= (want.get(partition) ?? 0)) return; // read no further: the position stays
          got.set(partition, n + 1);
          if (n + 1 === want.get(partition)) await c.commitOffsets([{ topic: REMOTE, partition, offset: String(BigInt(message.offset) + 1n) }]);
        },
      });
      await env.eventually(() => [...want].every(([p, n]) => (got.get(p) ?? 0) >= n), { timeout: 60000, what: `${g} to consume its records on the target` });
      await env.eventually(async () => {
        const now = await positions(target, g, REMOTE);
        return [...want].every(([p, n]) => n === 0 || now.get(p) === (start.get(p) ?? 0n) + BigInt(n));
      }, { timeout: 30000, what: `${g}'s commits on the target` });
      await c.disconnect();
      targetPos.set(g, await positions(target, g, REMOTE));
      assert.equal(targetPos.get(g).size, PARTITIONS, `${g} has a position on every partition of ${REMOTE}`);
    }

    // written on the source just before it failed: never replicated
    for (let p = 0; p < PARTITIONS; p++) await produce(p, 3 + Math.floor(rand() * 5), '-late');

    // ---- fail back: the source is back; the flow starts again ----
    nr = await startNodeRed({ flows: flow, quiet: true, logLevel: 'warn' });
    const statuses = await nr.watchStatuses();
    // the mirror copies what it had not (the late records)
    await env.eventually(async () => (await target.fetchTopicOffsets(REMOTE)).reduce((n, o) => n + Number(o.high), 0) >= committedRecords(),
      { timeout: 120000, what: 'the mirror to copy the late records' });
    // every group in step on the source, said by the failback node, and the source offsets stable
    const inStep = () => {
      const st = statuses.get(failbackNode.id);
      return Boolean(st && st.fill === 'green' && new RegExp(`^${ALL.length}/${ALL.length} groups in step`).test(st.text));
    };
    await untilStable(source, ALL, TOPIC, 'the failback node green with every group in step, and the source offsets stable', 180000, inStep).catch((e) => {
      throw new Error(`${e.message} (the failback node's status: ${JSON.stringify(statuses.get(failbackNode.id))})`);
    });
    watching = false;
    await watch;
    await nr.stop();
    nr = null;
    assert.deepEqual(regressions, [], 'source group offsets never moved backwards');

    // ---- what each record is: its source offset, its first copy on the target ----
    const srcRecords = await readAll('source', TOPIC, committedRecords());
    const tgtRecords = await readAll('target', REMOTE, srcRecords.length);
    const copyOf = new Map();
    for (const r of tgtRecords) if (!copyOf.has(r.value) || copyOf.get(r.value) > r.offset) copyOf.set(r.value, r.offset);
    assert.ok(srcRecords.every((r) => copyOf.has(r.value)), 'every committed source record has a copy on the target');
    assert.ok(!srcRecords.some((r) => r.value.endsWith('-aborted')));
    const syncs = (await readSyncs()).filter((x) => x.topic === TOPIC);

    let movedByFailback = 0;
    for (const g of ALL) {
      const sourceNow = await positions(source, g, TOPIC);
      const consumed = [];
      const c = env.kafka('source').consumer({ groupId: g });
      await c.connect();
      await c.subscribe({ topics: [TOPIC], fromBeginning: true });
      await c.run({ autoCommit: false, eachMessage: async ({ partition, message }) => { consumed.push({ partition, value: String(message.value) }); } });
      // the records the group has not read: those it did not read on the source before the failover (below its
      // source position then), nor on the target after it (below its target position)
      const before = sourceStart.get(g);
      const expected = srcRecords.filter((r) => copyOf.get(r.value) >= targetPos.get(g).get(r.partition) && (before === undefined || r.offset >= before.get(r.partition)));
      // (on a timeout the assertions below say which records were skipped)
      await env.eventually(() => expected.every((r) => consumed.some((x) => x.value === r.value)), { timeout: 60000, what: `${g} to read on the source every record after its target position` }).catch(() => undefined);
      await c.disconnect();
      for (let p = 0; p < PARTITIONS; p++) {
        const D = targetPos.get(g).get(p);
        const mine = new Set(consumed.filter((x) => x.partition === p).map((x) => x.value));
        const skipped = expected.filter((r) => r.partition === p && !mine.has(r.value)).map((r) => r.value);
        assert.deepEqual(skipped, [], `${g} partition ${p}: no record after target position ${D} skipped (source offset ${sourceNow.get(p)}, before the failover ${before?.get(p)})`);
        const reread = [...mine].filter((v) => copyOf.get(v) < D).length;
        // the two syncs around the target position: the re-read is at most the records between them
        const here = syncs.filter((x) => x.partition === p);
        const below = here.filter((x) => x.downstreamOffset <= D).reduce((a, x) => (a === null || x.upstreamOffset > a.upstreamOffset ? x : a), null);
        assert.ok(below, `${g} partition ${p}: a sync at or below target position ${D}`);
        const above = here.filter((x) => x.downstreamOffset > D && x.upstreamOffset > below.upstreamOffset).reduce((a, x) => (a === null || x.downstreamOffset < a.downstreamOffset ? x : a), null);
        const gap = srcRecords.filter((r) => r.partition === p && r.offset >= below.upstreamOffset && (above === null || r.offset < above.upstreamOffset)).length;
        assert.ok(reread <= gap, `${g} partition ${p}: ${reread} records read again, within the ${gap} between the syncs ${below.upstreamOffset}:${below.downstreamOffset} and ${above ? `${above.upstreamOffset}:${above.downstreamOffset}` : 'the end'} around ${D}`);
        if (before === undefined || sourceNow.get(p) > before.get(p)) movedByFailback++;
      }
    }
    assert.ok(movedByFailback >= PARTITIONS, `the failback wrote source offsets (${movedByFailback} group partitions moved forward or were new)`);
    await committer.close();
  });
});
