'use strict';
/**
 * Conformance 3 (issue 4): our checkpoints on MM2's offset syncs.
 *
 * The real MirrorMaker 2 (dedicated mode, Kafka's own connect-mirror jars) replicates a source
 * topic and writes the offset syncs; its checkpoint connector is off
 * (`emit.checkpoints.enabled=false`) and so are its heartbeats. Our mm2-offset-syncs,
 * mm2-checkpoint and mm2-group-offsets nodes, with the same cluster aliases and replication
 * policy, read MM2's syncs, write checkpoints and the consumer groups' offsets on the target.
 *
 * This is the end-to-end path of examples/checkpoints-beside-mm2.json: its nodes (mm2-offset-syncs ->
 * mm2-checkpoint -> mm2-group-offsets in input mode), wired as there, beside MM2's source connector.
 *
 * Target offsets differ from source offsets: partition 0 had its first 50 records deleted
 * before MM2 started, partition 1 is written in transactions (each commit marker takes an
 * offset on the source and none on the target), partition 2 is plain. Groups commit on the
 * source at different positions (log start, middle, below the log start, the end, and a real
 * consumer that consumes new traffic while MM2 and our nodes run). Then the source "fails":
 * every group consumes the remote topic on the target from the offsets our nodes wrote.
 * Asserted, per group and partition:
 *   - the target offset equals the translation of the source offset over MM2's syncs as MM2's
 *     OffsetSyncFormatter prints them (MM2's rules: exact at a synced record, sync + 1 past it,
 *     nothing for a group behind the oldest sync, which then starts at the earliest record);
 *   - no record at or after the group's source position is skipped;
 *   - exactly the records between the target offset and the group's next record come again,
 *     at most offset.lag.max (20 here), except for the group far behind the newest syncs,
 *     where MM2's 64-slot sync history is coarser (explained at the assertion);
 *   - MM2's syncs point at the same record on both sides;
 *   - MM2's CheckpointFormatter prints our checkpoints exactly as our decoder reads them, and
 *     every checkpoint record on the topic is one our checkpoint node reported (MM2 wrote none).
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { startMirrorMaker } = require('../../scripts/kafka/connect');
const { parseOffsetSync, parseCheckpoint, mm2Reads, ourReads } = require('../harness/mm2-reads');
const { decodeOffsetSync } = require('../../dist/core/offset-sync');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
const { AdminOffsetCommitter, fetchCommittedOffsets } = require('../../dist/kafka/group-client');

const OFFSET_LAG_MAX = 20;
const PARTITIONS = 3;
const DELETED = 50; // partition 0: records deleted before MM2 starts
const TX_RECORDS = 12; // partition 1: records per transaction (+1 commit marker)

/** Source records by partition: Map(partition -> Map(offset -> value)), read_committed. */
async function recordsOf(cluster, topic) {
  const admin = await env.admin(cluster);
  const ends = await admin.fetchTopicOffsets(topic);
  const out = new Map(ends.map((e) => [e.partition, new Map()]));
  const last = new Map(ends.map((e) => [e.partition, -1n]));
  const consumer = env.kafka(cluster).consumer({ groupId: env.unique('__conf3-read'), maxWaitTimeInMs: 200 });
  consumer.on(consumer.events.END_BATCH_PROCESS, (ev) => {
    // control records (commit markers) advance the position without a message
    const l = BigInt(ev.payload.lastOffset);
    if (l > last.get(ev.payload.partition)) last.set(ev.payload.partition, l);
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        out.get(partition).set(BigInt(message.offset), message.value.toString());
        if (BigInt(message.offset) > last.get(partition)) last.set(partition, BigInt(message.offset));
      },
    });
    await env.eventually(() => ends.every((e) => Number(e.high) === Number(e.low) || last.get(e.partition) >= BigInt(e.high) - 1n), { what: `all records of ${topic} on ${cluster}`, timeout: 30000 });
  } finally {
    await consumer.disconnect();
  }
  return out;
}

/**
 * Committed offsets of a group: {partition: offset} for `topic`.
 * @returns {Promise<Record<number, bigint>>}
 */
async function committedOn(admin, group, topic) {
  /** @type {Record<number, bigint>} */
  const out = {};
  for (const o of await fetchCommittedOffsets(admin, group)) if (o.topic === topic && o.offset !== null) out[o.partition] = o.offset;
  return out;
}

const str = (o) => JSON.stringify(o, (k, v) => (typeof v === 'bigint' ? String(v) : v));

describe('conformance 3: our checkpoints and group offsets on the offset syncs of the real MM2 source connector', function () {
  this.timeout(240000);
  let mm2;
  let committer;
  const toClose = [];
  before(async () => {
    await nodes.startServer();
    committer = new AdminOffsetCommitter(env.kafka('source'));
  });
  after(async () => {
    await nodes.helper.unload();
    if (mm2) await mm2.stop();
    while (toClose.length) await toClose.pop()().catch(() => undefined);
    await committer.close();
    await nodes.stopServer();
  });

  it('consumer groups fail over to the target with nothing skipped, re-delivery within offset.lag.max, offsets as MM2 translates them', async function () {
    const id = env.unique('c3').replace(/-/g, '');
    const a = `s${id}`;
    const b = `t${id}`;
    const topic = `${id}-orders`;
    const remote = `${a}.${topic}`;
    const syncsTopic = `mm2-offset-syncs.${b}.internal`;
    const checkpointsTopic = `${a}.checkpoints.internal`;
    const src = await env.admin('source');
    const tgt = await env.admin('target');

    // ---- the source topic ---------------------------------------------------------------------
    await src.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });
    const producer = env.kafka('source').producer();
    await producer.connect();
    toClose.push(() => producer.disconnect());
    const tx = env.kafka('source').producer({ transactionalId: env.unique('c3-tx'), maxInFlightRequests: 1, idempotent: true });
    await tx.connect();
    toClose.push(() => tx.disconnect());
    let seq = 0;
    const produce = async (counts, transactions) => {
      const messages = [];
      for (const [p, n] of Object.entries(counts)) for (let i = 0; i < n; i++) messages.push({ partition: Number(p), value: `p${p}-${seq++}` });
      await producer.send({ topic, acks: -1, messages });
      for (let t = 0; t < transactions; t++) {
        const txn = await tx.transaction();
        const list = [];
        for (let i = 0; i < TX_RECORDS; i++) list.push({ partition: 1, value: `p1-${seq++}` });
        await txn.send({ topic, messages: list });
        await txn.commit();
      }
    };
    // partition 0 starts at offset 50 before MM2 starts; the rest is produced while MM2 runs,
    // in rounds, as live traffic (a burst of more than 10 urgent syncs at once would make MM2
    // drop some: it keeps at most 10 in flight and a newer sync of a partition replaces a
    // queued one, OffsetSyncWriter queues)
    await produce({ 0: DELETED }, 0);
    env.deleteRecordsBefore('source', topic, 0, DELETED);

    // ---- the real MM2: source connector only ---------------------------------------------------
    const flow = `${a}->${b}`;
    mm2 = await startMirrorMaker({
      source: env.cluster('source').bootstrap,
      target: env.cluster('target').bootstrap,
      aliases: [a, b],
      props: {
        [`${flow}.topics`]: topic,
        [`${flow}.groups`]: `${id}-g-.*`,
        [`${flow}.offset.lag.max`]: OFFSET_LAG_MAX,
        // MM2 then refuses to configure its checkpoint connector ("Failed to configure
        // MirrorCheckpointConnector" in its log, MirrorConnectorConfig defaults: it cannot run with this off), so it
        // writes nothing; the checkpoints topic is checked to hold only our records below
        [`${flow}.emit.checkpoints.enabled`]: 'false',
        [`${flow}.emit.heartbeats.enabled`]: 'false',
        [`${flow}.sync.group.offsets.enabled`]: 'false',
        [`${flow}.refresh.topics.interval.seconds`]: 5,
        // the flow's worker is configured by the target cluster's properties (as the harness does)
        [`${b}.offset.flush.interval.ms`]: 1000,
      },
    });
    for (let round = 0; round < 4; round++) {
      await produce({ 0: 25, 2: 20 }, 2);
      await new Promise((r) => setTimeout(r, 700));
    }
    const endsA = Object.fromEntries((await src.fetchTopicOffsets(topic)).map((o) => [o.partition, BigInt(o.high)]));
    assert.deepEqual(endsA, { 0: 150n, 1: BigInt(8 * (TX_RECORDS + 1)), 2: 80n });

    // ---- groups committed on the source before the failover -------------------------------------
    const G = {
      start: `${id}-g-start`, // at the log start of every partition: exactly on the first syncs
      mid: `${id}-g-mid`, // in the middle (partition 1: inside a transaction)
      behind: `${id}-g-behind`, // partition 0 below the log start (before the oldest sync)
      end: `${id}-g-end`, // at the end
      live: `${id}-g-live`, // a real consumer, later, while MM2 and our nodes run: at the end
    };
    /** @type {Record<string, Record<number, bigint>>} */
    const positions = {
      [G.start]: { 0: 50n, 1: 0n, 2: 0n },
      [G.mid]: { 0: 100n, 1: 53n, 2: 41n },
      [G.behind]: { 0: 10n, 1: 13n, 2: 79n },
      [G.end]: { ...endsA },
    };
    for (const [g, pos] of Object.entries(positions)) {
      const list = Object.entries(pos).map(([p, offset]) => ({ topic, partition: Number(p), offset, metadata: `m-${p}` }));
      let res;
      await env.eventually(async () => (res = await committer.commit(g, list)).ok, { what: `commit for ${g}`, timeout: 20000 })
        .catch(() => assert.deepEqual(res, { ok: true }, `commit for ${g}`));
    }

    /** Waits until MM2 has replicated everything and flushed the sync of each partition's last record. */
    const lastRecord = async () => {
      const recs = await recordsOf('source', topic);
      return Object.fromEntries([...recs].map(([p, m]) => [p, [...m.keys()].reduce((x, y) => (y > x ? y : x), -1n)]));
    };
    const mm2Caught = async (what) => {
      const last = await lastRecord();
      await env.eventually(async () => {
        const syncs = await ourReads('source', syncsTopic, decodeOffsetSync).catch(() => []);
        return Object.entries(last).every(([p, u]) => syncs.some((s) => s.topic === topic && s.partition === Number(p) && s.upstreamOffset === u));
      }, { what, timeout: 90000, interval: 1000 });
    };
    await mm2Caught("MM2's offset syncs of the last records");

    // what our nodes must write: the translation of each commit over MM2's syncs as MM2 prints them
    const expectedTarget = (syncs, pos) => {
      const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: 'mm2' });
      for (const s of syncs) if (s.topic === topic) store.apply(s);
      store.markLoaded();
      const out = {};
      for (const [p, u] of Object.entries(pos)) {
        const d = store.translate(topic, Number(p), u);
        if (d !== undefined && d >= 0n) out[p] = d;
      }
      return out;
    };
    const syncsA = await mm2Reads('source', syncsTopic, 'OffsetSyncFormatter', parseOffsetSync);
    const expected = Object.fromEntries(Object.entries(positions).map(([g, pos]) => [g, expectedTarget(syncsA, pos)]));
    // MM2's rules, by hand: exact at the first syncs (the first record of each partition) and at the end
    // (on a loaded machine MM2's own syncs do not always let offset 0 be translated: its writer
    // lets a newer sync replace a queued one, and a restarted source task re-sends from an earlier
    // position, which rewinds the store; MM2's checkpoint connector then has no answer either)
    const startParts = Object.keys(expected[G.start]);
    assert.ok(startParts.length > 0, 'offset 0 translates on at least one partition');
    for (const p of startParts) assert.equal(expected[G.start][p], 0n, `partition ${p}: offset 0 translates to 0`);
    assert.deepEqual(expected[G.end], { 0: 100n, 1: 96n, 2: 80n });
    assert.equal(expected[G.behind][0], undefined, 'partition 0 below the oldest sync: no checkpoint (MM2: -1, dropped)');

    // ---- our nodes (in 'mm2' translation: the offsets must be MM2's; the precise mode is compared with MM2 in conformance 2 and 4)
    await nodes.load([
      { id: 'syncs', type: 'mm2-offset-syncs', replication: 'rep', wires: [['cp']] },
      { id: 'cp', type: 'mm2-checkpoint', replication: 'rep', groups: `${id}-g-.*`, groupsExclude: '', topics: topic, topicsExclude: '', emitCheckpointsIntervalSeconds: '1', refreshGroupsIntervalSeconds: '1', wires: [['go', 'cpOut'], []] },
      { id: 'go', type: 'mm2-group-offsets', replication: 'rep', mode: 'input', syncGroupOffsetsIntervalSeconds: '1', groups: `${id}-g-.*`, groupsExclude: '', wires: [[]] },
      { id: 'cpOut', type: 'helper' },
    ], { over: { src: { alias: a }, tgt: { alias: b }, rep: { offsetTranslation: 'mm2' } } });
    const cpOut = nodes.collect(nodes.helper.getNode('cpOut'));
    /** Every checkpoint output 1 reported so far, in order, offsets as bigints (as the topic's decoder gives them). */
    const reportedSoFar = () => cpOut.flatMap((m) => m.payload.checkpoints).map((c) => ({ ...c, upstreamOffset: BigInt(c.upstreamOffset), downstreamOffset: BigInt(c.downstreamOffset) }));
    // A write whose acknowledgement was lost (a produce request that timed out on a loaded machine
    // but reached the log, sent again by kafkajs or by the next cycle's retry list) leaves the same
    // checkpoint twice in a row for its key: the same record again, which changes nothing for a
    // reader or for compaction. Such repeats are set aside on both sides; anything else (a record
    // the node did not report, a value out of order) still fails the comparison.
    const withoutRepeats = (list) => {
      const last = new Map();
      return list.filter((c) => {
        const key = `${c.group}\u0000${c.topic}\u0000${c.partition}`;
        const value = `${c.upstreamOffset}/${c.downstreamOffset}/${c.metadata}`;
        if (last.get(key) === value) return false;
        last.set(key, value);
        return true;
      });
    };

    const targetOffsets = async (groups) => Object.fromEntries(await Promise.all(groups.map(async (g) => [g, await committedOn(tgt, g, remote)])));
    let seen;
    await env.eventually(async () => str(seen = await targetOffsets(Object.keys(positions))) === str(expected), { what: 'the target offsets of the first groups', timeout: 60000 })
      .catch((e) => assert.deepEqual(seen, expected, e.message));

    // ---- more traffic, and a real consumer that consumes it all while MM2 and our nodes run -----
    // (a consumer that is caught up when the source fails: the usual failover)
    await produce({ 0: 30, 2: 30 }, 2);
    const lastB = await lastRecord();
    const live = env.kafka('source').consumer({ groupId: G.live, maxWaitTimeInMs: 200 });
    toClose.push(() => live.disconnect());
    await live.connect();
    await live.subscribe({ topics: [topic], fromBeginning: true });
    await live.run({ autoCommit: true, autoCommitInterval: 300, eachMessage: async () => {} });
    await env.eventually(async () => {
      const c = await committedOn(src, G.live, topic);
      return [0, 1, 2].every((p) => c[p] === lastB[p] + 1n);
    }, { what: 'the live consumer to commit the last records', timeout: 30000 });
    await live.disconnect();
    toClose.pop();
    positions[G.live] = await committedOn(src, G.live, topic);

    await mm2Caught("MM2's offset syncs of the new last records");
    const syncsB = await mm2Reads('source', syncsTopic, 'OffsetSyncFormatter', parseOffsetSync);
    expected[G.live] = expectedTarget(syncsB, positions[G.live]);
    // the groups committed earlier keep their target offsets: their translation does not go up
    // with syncs at the end, and target offsets never go down
    await env.eventually(async () => str(seen = await targetOffsets(Object.keys(positions))) === str(expected), { what: 'the target offsets of the live group', timeout: 60000 })
      .catch((e) => assert.deepEqual(seen, expected, e.message));
    // Output 1 reports a write once the broker acknowledged it, and the group-offsets node reads the
    // checkpoint store in place (engines/replication-runtime), which holds a cycle's checkpoints
    // before their write is acknowledged: the target offsets above can be final while the write of
    // g-live's last checkpoints is still under way. Unloading then closes the helper node (Node-RED
    // drops its input listeners at close) and stops the emitter (which delivers nothing once stopped)
    // before that write's report: seen once in a whole run under load, the topic ending with g-live's
    // three last checkpoints (the final values of p2, p0, p1, none a repeat) that output 1 had not
    // reported yet. So the nodes keep running until the topic holds every group's last checkpoint
    // and output 1 has reported every record on the topic; a record written and never reported
    // still fails (the wait ends with the comparison below, and the topic is compared again after
    // the unload, when nothing new may have come).
    const holdsLast = (list) => {
      const last = {};
      for (const c of list) (last[c.group] = last[c.group] || {})[c.partition] = c;
      return Object.entries(positions).every(([g, pos]) => Object.entries(expected[g]).every(([p, d]) => last[g]?.[p]?.upstreamOffset === pos[p] && last[g][p].downstreamOffset === d));
    };
    let onTopic = [];
    await env.eventually(async () => {
      onTopic = await ourReads('target', checkpointsTopic, decodeCheckpoint);
      return holdsLast(onTopic) && str(withoutRepeats(onTopic)) === str(withoutRepeats(reportedSoFar()));
    }, { what: 'output 1 to report every checkpoint on the topic, the last ones included', timeout: 60000, interval: 500 })
      .catch(() => assert.deepEqual(withoutRepeats(onTopic), withoutRepeats(reportedSoFar()), 'every checkpoint record is one our checkpoint node wrote (MM2 wrote none), before the unload'));
    await nodes.helper.unload();

    // ---- MM2's offset syncs, as MM2 prints them, point at the same records on both sides --------
    const sourceRecs = await recordsOf('source', topic);
    const targetRecs = await recordsOf('target', remote);
    const mm2Syncs = syncsB.filter((s) => s.topic === topic);
    assert.ok(mm2Syncs.length >= 8);
    for (const s of mm2Syncs) {
      assert.equal(targetRecs.get(s.partition).get(s.downstreamOffset), sourceRecs.get(s.partition).get(s.upstreamOffset), `sync ${s.partition}: ${s.upstreamOffset}->${s.downstreamOffset}`);
    }
    for (const p of [0, 1, 2]) assert.equal(targetRecs.get(p).size, sourceRecs.get(p).size, `partition ${p}: everything replicated`);
    assert.equal(targetRecs.get(0).size, 150 - DELETED + 30);
    // partition 0's copy starts at the source's log start: every sync of it maps upstream u to
    // downstream u - DELETED (MM2 usually syncs the very first record, DELETED -> 0, but a loaded
    // machine can make its producer drop that sync, and the next one stands for it)
    const p0 = mm2Syncs.filter((s) => s.partition === 0);
    assert.ok(p0.length > 0, 'MM2 wrote offset syncs of partition 0');
    for (const s of p0) assert.equal(s.downstreamOffset, s.upstreamOffset - BigInt(DELETED), `partition 0 copied from its log start (${DELETED}): sync ${s.upstreamOffset}->${s.downstreamOffset}`);

    // ---- our checkpoints, as MM2's CheckpointFormatter prints them ------------------------------
    const oursCheckpoints = await ourReads('target', checkpointsTopic, decodeCheckpoint);
    const mm2Checkpoints = await mm2Reads('target', checkpointsTopic, 'CheckpointFormatter', parseCheckpoint);
    assert.deepEqual(mm2Checkpoints, oursCheckpoints, 'CheckpointFormatter prints every checkpoint as our decoder reads it');
    const reported = reportedSoFar();
    assert.deepEqual(withoutRepeats(mm2Checkpoints), withoutRepeats(reported), 'every checkpoint record is one our checkpoint node wrote (MM2 wrote none)');
    const lastCp = {};
    for (const c of mm2Checkpoints) {
      assert.equal(c.topic, remote);
      assert.equal(c.metadata, c.group === G.live ? '' : `m-${c.partition}`, 'metadata copied from the source commit');
      (lastCp[c.group] = lastCp[c.group] || {})[c.partition] = c;
    }
    for (const [g, pos] of Object.entries(positions)) {
      for (const [p, d] of Object.entries(expected[g])) {
        assert.equal(lastCp[g][p].upstreamOffset, pos[p], `${g}/${p} upstream`);
        assert.equal(lastCp[g][p].downstreamOffset, d, `${g}/${p} downstream`);
      }
    }

    // ---- failover: every group consumes the remote topic on the target --------------------------
    const sourceOffsetOf = new Map();
    for (const [p, m] of sourceRecs) for (const [o, v] of m) sourceOffsetOf.set(v, { p, o });
    const highs = Object.fromEntries((await tgt.fetchTopicOffsets(remote)).map((o) => [o.partition, BigInt(o.high)]));
    const report = {};
    for (const [g, pos] of Object.entries(positions)) {
      const delivered = new Map([0, 1, 2].map((p) => [p, []]));
      const consumer = env.kafka('target').consumer({ groupId: g, maxWaitTimeInMs: 200 });
      let fetches = 0;
      consumer.on(consumer.events.FETCH, () => { fetches += 1; });
      await consumer.connect();
      try {
        await consumer.subscribe({ topics: [remote], fromBeginning: true });
        await consumer.run({ autoCommit: false, eachMessage: async ({ partition, message }) => { delivered.get(partition).push({ offset: BigInt(message.offset), value: message.value.toString() }); } });
        // to the end; a partition where the group is at the end already gets nothing: a few fetches tell
        const atEnd = (p) => (expected[g][p] ?? 0n) === highs[p];
        await env.eventually(() => fetches >= 3 && [0, 1, 2].every((p) => { const l = delivered.get(p); return atEnd(p) || (l.length > 0 && l[l.length - 1].offset === highs[p] - 1n); }), { what: `${g} to consume ${remote} to its end`, timeout: 30000 });
      } finally {
        await consumer.disconnect();
      }
      report[g] = {};
      for (const p of [0, 1, 2]) {
        const list = delivered.get(p);
        const start = expected[g][p] ?? 0n; // no target offset: auto.offset.reset=earliest
        if (start === highs[p]) assert.deepEqual(list, [], `${g}/${p}: at the end, nothing to consume`);
        else assert.equal(list[0].offset, start, `${g}/${p}: resumes at the target offset our nodes wrote`);
        const got = new Set(list.map((r) => r.value));
        const must = [...sourceRecs.get(p)].filter(([o]) => o >= pos[p]).map(([, v]) => v);
        const skipped = must.filter((v) => !got.has(v));
        assert.deepEqual(skipped, [], `${g}/${p}: no record at or after source offset ${pos[p]} is skipped`);
        const again = list.filter((r) => sourceOffsetOf.get(r.value).o < pos[p]).length;
        const nextOnTarget = [...targetRecs.get(p).values()].filter((v) => sourceOffsetOf.get(v).o < pos[p]).length; // target offset of the group's next record
        assert.equal(again, Math.max(0, nextOnTarget - Number(start)), `${g}/${p}: exactly the records from the target offset to the group's next record come again`);
        report[g][p] = again;
        // Re-delivery within offset.lag.max: MM2's translation resumes at the retained sync at or
        // before the group's position (+1 past it). For g-start, g-end and g-live that is the
        // sync of the group's own record (the first record, the last record: exact); g-behind
        // has the partition's earliest sync (always kept) 13 records back on partition 1, and
        // the newest one on partition 2. g-mid is exempt on purpose: it is far behind the newest
        // syncs when our nodes first see it, and the store (MM2's OffsetSyncStore, which ours
        // follows) keeps only 64 syncs per partition, spaced exponentially back from the newest
        // (OffsetSyncStore slots), so the retained sync before it can be older than the nearest one MM2
        // wrote (here typically 40 records on partition 2). That is MM2's behaviour too; its
        // target offset is still MM2's translation (asserted above) and nothing is skipped.
        if (g !== G.mid) assert.ok(again <= OFFSET_LAG_MAX, `${g}/${p}: ${again} records re-delivered, more than offset.lag.max`);
      }
    }
    // the first records and the ends are synced records: nothing comes again
    assert.deepEqual(report[G.start], { 0: 0, 1: 0, 2: 0 });
    assert.deepEqual(report[G.end], { 0: 0, 1: 0, 2: 0 });
    assert.deepEqual(report[G.live], { 0: 0, 1: 0, 2: 0 });
    assert.equal(report[G.behind][0], 0, 'partition 0 below the log start: the earliest target record is the first still on the source');
  });
});
