'use strict';
/**
 * mm2-checkpoint against two real clusters: offset syncs written to a real offset-syncs topic (one
 * per test: a target alias of its own names it) that the replication's feed reads, group
 * offsets committed on a real source topic, cycles run on demand, and the checkpoints topic on
 * the target decoded and compared with exact values.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { CHECKPOINTS_TOPIC, syncsMsg, loadedMsg, feedSyncs, produceSyncs, statusCalls, lastStatusText, logged, restored, restoreOutcome, syncsLoaded, following, pollingReason, checkpointRecords, commitOffsets } = require('../harness/checkpoint-node');
const { AdminOffsetCommitter } = require('../../dist/kafka/admin-offset-committer');
const { describeGroupState } = require('../../dist/kafka/group-listing');
const { ensureInternalTopic } = require('../../dist/kafka/internal-topics');
const { encodeCheckpoint } = require('../../dist/core/checkpoint');

function checkpointNode(over = {}) {
  return {
    id: 'cp',
    type: 'mm2-checkpoint',
    name: '',
    replication: 'rep',
    groups: '',
    groupsExclude: '',
    topics: '',
    topicsExclude: '',
    emitCheckpointsIntervalSeconds: '3600',
    refreshGroupsIntervalSeconds: '3600',
    // cycles only when asked: these tests check each cycle's exact answers (the event path,
    // which checkpoints between cycles, is tested in checkpoint-event-path.test.js)
    sourceOffsets: 'poll',
    wires: [['out1'], ['out2']],
    ...over,
  };
}

/** Loads the flow; `syncsAlias` (the target's alias) names its offset-syncs topic: a new one per test, the same one again after a restart. */
async function loadFlow(over, rep, syncsAlias = env.unique('cpt')) {
  await nodes.load([checkpointNode(over), { id: 'out1', type: 'helper' }, { id: 'out2', type: 'helper' }], { over: { rep: rep || {}, tgt: { alias: syncsAlias } } });
  const cp = nodes.helper.getNode('cp');
  return { cp, out1: nodes.collect(nodes.helper.getNode('out1')), out2: nodes.collect(nodes.helper.getNode('out2')), syncsAlias, syncsTopic: `mm2-offset-syncs.${syncsAlias}.internal` };
}

/** Sends a message that asks for a cycle and returns the coverage message of that cycle. */
async function cycle(f, msg = { payload: 'now' }) {
  const before = f.out2.length;
  f.cp.receive(msg);
  await env.eventually(() => f.out2.length > before, { what: 'a coverage message', timeout: 20000 });
  return f.out2[f.out2.length - 1];
}

/** Waits until the node's log says its restore is over; returns what it said (harness/checkpoint-node restoreOutcome). */
function ready(cp) {
  return restored(cp, 30000);
}
/** Whether the node warned that its restore failed (it then keeps only the latest offset sync per partition during the initial load, as MM2). */
const restoreFailedWarned = (cp) => logged(cp, 'warn').some((m) => /^could not restore the previous checkpoints/.test(m));

function brief(c) {
  return [c.group, c.topic, c.partition, Number(c.upstreamOffset), Number(c.downstreamOffset)];
}

function byGroupPartition(cov) {
  return Object.fromEntries(cov.payload.entries.map((e) => [`${e.group}/${e.topic}-${e.partition}`, e]));
}

describe('mm2-checkpoint (real clusters)', function () {
  this.timeout(60000);
  let committer;
  let sourceAdmin;

  before(async function () {
    await nodes.startServer();
    committer = new AdminOffsetCommitter(env.kafka('source'));
    sourceAdmin = await env.admin('source');
  });
  after(async function () {
    await committer.close();
    await nodes.stopServer();
  });
  afterEach(() => nodes.helper.unload());

  async function topic(name, partitions = 1) {
    await sourceAdmin.createTopics({ topics: [{ topic: name, numPartitions: partitions }], waitForLeaders: true });
    return name;
  }
  const commit = (group, offsets) => commitOffsets(committer, group, offsets);

  it('translates exactly and with the +1 rule into source.<topic>, and explains every partition without a checkpoint', async function () {
    const p = env.unique('cpa');
    const t = await topic(`${p}-orders`, 3);
    const ti = await topic(`${p}-x-internal`);
    const [g1, g2, g3] = [`${p}-g1`, `${p}-g2`, `${p}-g3`];
    await commit(g1, [[t, 0, 150], [t, 1, 150], [t, 2, 7], [ti, 0, 5]]);
    await commit(g2, [[t, 0, 50]]);
    await commit(g3, [[t, 0, -1]]);

    const f = await loadFlow({ groups: `${p}-g.*` });
    // the offset-syncs topic does not exist yet: the feed waits for it, nothing is loaded
    const outcome = await ready(f.cp);
    assert.equal(outcome.ok, true, `the restore succeeded (${JSON.stringify(outcome)})`);
    assert.equal(restoreFailedWarned(f.cp), false, 'no failed restore: the sync history is kept during the initial load');
    await env.eventually(() => lastStatusText(f.cp) === 'waiting for offset syncs', { what: 'status waiting for offset syncs' });
    assert.ok(statusCalls(f.cp).some((s) => /^loading checkpoints/.test(s.text)), 'the status showed the restore');
    // OffsetSyncsMessages on the input (a wire kept from an older flow) are left aside: done without
    // an error, the store untouched (a 'loaded' there does not make the node translate), said once in the log
    f.cp.receive(syncsMsg([[t, 0, 100, 200], [t, 1, 150, 251]]));
    f.cp.receive({ ...syncsMsg([[t, 2, 0, 0]]), payload: { ...syncsMsg([[t, 2, 0, 0]]).payload, source: { topic: 'mm2-offset-syncs.elsewhere.internal', cluster: 'x' } } });
    f.cp.receive(loadedMsg);

    // the sync history has not been read to its end: no translation yet
    let cov = await cycle(f);
    let e = byGroupPartition(cov);
    assert.equal(cov.topic, 'mm2/coverage');
    assert.equal(cov.payload.groups, 3);
    assert.equal(e[`${g1}/${t}-0`].status, 'store-loading');
    assert.equal(e[`${g1}/${t}-1`].status, 'store-loading');
    assert.equal(e[`${g1}/${ti}-0`].status, 'topic-not-replicated');
    assert.equal(e[`${g3}/${t}-0`].status, 'no-committed-offset');
    // every completed cycle sends the whole state on output 1: here, nothing yet
    assert.equal(f.out1.length, 1);
    assert.deepEqual(f.out1[0].payload.checkpoints, []);
    assert.deepEqual(f.out1[0].payload.latest, {});
    assert.equal(statusCalls(f.cp).at(-1).fill, 'yellow', 'no group checkpointed: not green');
    assert.deepEqual(f.cp.error.getCalls().filter((c) => c.thisValue === f.cp).map((c) => String(c.args[0])), [], 'no message refused');
    assert.equal(f.cp.log.getCalls().filter((c) => c.thisValue === f.cp && /offset-syncs message arrived on the input and was left aside/.test(String(c.args[0]))).length, 1, 'said once');

    // MM2 writes the syncs: the replication's feed reads them from the topic, loaded, then translation
    await feedSyncs(f, [[t, 0, 100, 200], [t, 1, 150, 251]]);
    const before = Date.now();
    cov = await cycle(f);
    const after = Date.now();
    e = byGroupPartition(cov);
    assert.deepEqual(
      Object.entries(e).map(([k, v]) => [k, v.status, v.downstreamOffset ?? null, v.remoteTopic]).sort(),
      [
        [`${g1}/${t}-0`, 'emitted', '201', `source.${t}`],
        [`${g1}/${t}-1`, 'emitted', '251', `source.${t}`],
        [`${g1}/${t}-2`, 'no-sync', null, `source.${t}`],
        [`${g1}/${ti}-0`, 'topic-not-replicated', null, null],
        [`${g2}/${t}-0`, 'older-than-oldest-sync', null, `source.${t}`],
        [`${g3}/${t}-0`, 'no-committed-offset', null, `source.${t}`],
      ].sort(),
    );
    assert.deepEqual(cov.payload.summary, { emitted: 2, 'no-sync': 1, 'topic-not-replicated': 1, 'older-than-oldest-sync': 1, 'no-committed-offset': 1 });
    assert.deepEqual(cov.payload.failedGroups, []);
    assert.equal(f.out1.length, 2);
    const cpMsg = f.out1[1];
    assert.equal(cpMsg.topic, 'mm2/checkpoints');
    assert.equal(cpMsg.payload.checkpointsTopic, CHECKPOINTS_TOPIC);
    assert.deepEqual(cpMsg.payload.checkpoints.map((c) => [c.group, c.topic, c.partition, c.upstreamOffset, c.downstreamOffset, c.metadata]).sort(), [
      [g1, `source.${t}`, 0, '150', '201', ''],
      [g1, `source.${t}`, 1, '150', '251', ''],
    ]);
    assert.deepEqual(Object.keys(cpMsg.payload.latest), [g1]);

    const recs = await checkpointRecords(p);
    assert.deepEqual(recs.map(brief).sort(), [
      [g1, `source.${t}`, 0, 150, 201],
      [g1, `source.${t}`, 1, 150, 251],
    ]);
    for (const r of recs) {
      assert.equal(r.metadata, '');
      assert.ok(r.timestamp >= before - 5 && r.timestamp <= after + 5, 'record timestamp = when the offsets were listed');
    }
    // readiness: g1 has a partition without a sync, g2 is older than the oldest sync, g3 never committed
    assert.deepEqual([cov.payload.readiness.ready, cov.payload.readiness.notCovered], [0, 3]);
    assert.ok(lastStatusText(f.cp).startsWith(`0 ready, 3 not covered: ${g1} has no`), lastStatusText(f.cp));
    // no group can resume from the target: not green
    assert.equal(statusCalls(f.cp).at(-1).fill, 'yellow');

    // nothing changed: no new records, coverage says unchanged
    cov = await cycle(f);
    e = byGroupPartition(cov);
    assert.equal(e[`${g1}/${t}-0`].status, 'unchanged');
    assert.equal(e[`${g1}/${t}-1`].status, 'unchanged');
    // nothing new, still the whole state (a receiver that lost the previous message repairs itself)
    assert.equal(f.out1.length, 3);
    assert.deepEqual(f.out1[2].payload.checkpoints, []);
    assert.deepEqual(
      f.out1[2].payload.latest[g1].map((c) => [c.topic, c.partition, c.upstreamOffset, c.downstreamOffset]).sort(),
      [[`source.${t}`, 0, '150', '201'], [`source.${t}`, 1, '150', '251']],
    );
    assert.equal((await checkpointRecords(p)).length, 2);
  });

  it('takes the offset syncs from its replication flow, with no mm2-offset-syncs node and no wire; redeployed on its own ("modified nodes") it gets the whole history again and translates', async function () {
    const p = env.unique('cpf');
    const t = await topic(`${p}-t`);
    const g = `${p}-g`;
    await commit(g, [[t, 0, 150]]);
    const alias = env.unique('cpt');
    await produceSyncs(`mm2-offset-syncs.${alias}.internal`, [[t, 0, 100, 200], [t, 0, 200, 300]]);
    const f = await loadFlow({ groups: g }, undefined, alias);
    await ready(f.cp);
    await env.eventually(() => syncsLoaded(f.cp), { what: `the syncs loaded from the feed (status: ${lastStatusText(f.cp)})` });
    let e = byGroupPartition(await cycle(f))[`${g}/${t}-0`];
    assert.deepEqual([e.status, e.downstreamOffset], ['emitted', '201']);

    // only the checkpoint node changed: Node-RED restarts it alone; the config node and its feed keep running
    // (it was the feed's only node: the reader stops with it and starts again for the new one, a fresh load)
    const rep = nodes.helper.getNode('rep');
    await nodes.helper.setFlows([...nodes.configNodes({ rep: {}, tgt: { alias } }), checkpointNode({ groups: g, name: 'renamed' }), { id: 'out1', type: 'helper' }, { id: 'out2', type: 'helper' }], 'nodes');
    const cp2 = nodes.helper.getNode('cp');
    assert.notEqual(cp2, f.cp, 'the checkpoint node was replaced');
    assert.equal(nodes.helper.getNode('rep'), rep, 'the config node kept running');
    await ready(cp2);
    await env.eventually(() => syncsLoaded(cp2), { what: 'the redeployed node has the whole history and loaded (its status)' });
    await commit(g, [[t, 0, 250]]);
    e = byGroupPartition(await cycle({ ...f, cp: cp2 }))[`${g}/${t}-0`];
    assert.deepEqual([e.status, e.downstreamOffset], ['emitted', '301'], 'translated with the history it got from the feed');
    assert.deepEqual((await checkpointRecords(p)).map(brief), [
      [g, `source.${t}`, 0, 150, 201],
      [g, `source.${t}`, 0, 250, 301],
    ]);
  });

  for (const offsetTranslation of ['mm2', 'precise']) it(`keeps checkpoints monotonic and emits an upstream rewind (MirrorCheckpointTaskTest), ${offsetTranslation} translation`, async function () {
    const precise = offsetTranslation === 'precise';
    const p = env.unique('cpm');
    const t = await topic(`${p}-t`);
    const g = `${p}-g`;
    await commit(g, [[t, 0, 13]]);
    const f = await loadFlow({ groups: g }, { offsetTranslation });
    await ready(f.cp);
    await feedSyncs(f, [[t, 0, 11, 4], [t, 0, 12, 5]]);
    let cov = await cycle(f);
    assert.equal(cov.payload.entries[0].status, 'emitted');
    assert.equal(cov.payload.entries[0].downstreamOffset, '6');

    // newer syncs evict 12->5: MM2's translate(13) becomes 5, which would move backwards: not emitted;
    // precise keeps 13->6 for the group (it was at 13 when that sync came): exactly 6, unchanged
    await feedSyncs(f, [13, 14, 15, 16, 17].map((u) => [t, 0, u, u - 7]));
    cov = await cycle(f);
    assert.equal(cov.payload.entries[0].status, 'unchanged');
    assert.equal(cov.payload.entries[0].downstreamOffset, precise ? '6' : '5');
    assert.match(cov.payload.entries[0].reason, precise ? /unchanged: downstream offset 6 was already checkpointed/ : /behind the last checkpoint 6/);

    // the group rewinds to 12: emitted even though downstream goes back
    await commit(g, [[t, 0, 12]]);
    cov = await cycle(f);
    assert.equal(cov.payload.entries[0].status, 'emitted');
    assert.equal(cov.payload.entries[0].downstreamOffset, '5');
    assert.deepEqual((await checkpointRecords(p)).map(brief), [
      [g, `source.${t}`, 0, 13, 6],
      [g, `source.${t}`, 0, 12, 5],
    ]);
  });

  for (const offsetTranslation of ['mm2', 'precise']) it(`readiness: a group far behind the newest sync, first translated after a start, is at risk with its re-read in mm2 translation and ready in precise; one at a sync is ready (${offsetTranslation})`, async function () {
    const precise = offsetTranslation === 'precise';
    const p = env.unique('cpr');
    const t = await topic(`${p}-t`);
    const [far, at] = [`${p}-far`, `${p}-at`];
    await commit(far, [[t, 0, 11151]]);
    await commit(at, [[t, 0, 100000]]);
    const f = await loadFlow({ groups: `${p}-.*`, readyMaxReread: '1000' }, { offsetTranslation });
    await ready(f.cp);
    // the initial load: a sync every 100 records up to 100,000, every record copied (downstream = upstream + 7)
    const syncs = [];
    for (let u = 0; u <= 100000; u += 100) syncs.push([t, 0, u, u + 7]);
    await feedSyncs(f, syncs);
    const cov = await cycle(f);
    const e = byGroupPartition(cov);
    const farEntry = e[`${far}/${t}-0`];
    const atEntry = e[`${at}/${t}-0`];
    assert.equal(farEntry.status, 'emitted');
    // every record was copied: a failover from the checkpoint re-reads exactly the copies of 11,151 + 7 minus it
    const rereads = 11158 - Number(farEntry.downstreamOffset);
    assert.equal(farEntry.reread, rereads);
    if (precise) {
      assert.deepEqual([farEntry.downstreamOffset, farEntry.readiness, farEntry.reread], ['11108', 'ready', 50], 'from the sync at 11,100');
    } else {
      assert.ok(rereads > 1000, `MM2's slots translate it from far below (${farEntry.downstreamOffset})`);
      assert.equal(farEntry.readiness, 'at-risk');
    }
    assert.deepEqual([atEntry.downstreamOffset, atEntry.readiness, atEntry.reread, atEntry.membersOnTarget], ['100007', 'ready', 0, false], 'no such group on the target');
    const rd = cov.payload.readiness;
    // written this cycle: they reflect this cycle's listing
    for (const x of [farEntry, atEntry]) assert.equal(x.checkpointAt, rd.listedAt, 'when the offsets were listed');
    assert.ok(rd.listedAt > 0);
    assert.deepEqual([rd.ready, rd.atRisk, rd.notCovered], precise ? [2, 0, 0] : [1, 1, 0]);
    assert.deepEqual(rd.thresholds, { maxReread: 1000, maxAgeSeconds: 300 });
    if (precise) {
      assert.equal(rd.worst, null);
      await env.eventually(() => /^2 groups ready, 2 new \//.test(lastStatusText(f.cp) || ''), { what: `the status says every group is ready (${lastStatusText(f.cp)})` });
    } else {
      assert.deepEqual([rd.worst.group, rd.worst.verdict, rd.worst.why, rd.worst.reread], [far, 'at-risk', 'reread', rereads]);
      await env.eventually(() => (lastStatusText(f.cp) || '').startsWith(`1 ready, 1 at risk: ${far}`.slice(0, 50)), { what: `the status names the group at risk (${lastStatusText(f.cp)})` });
      const last = statusCalls(f.cp).pop();
      assert.equal(last.fill, 'yellow');
    }
    // restored after a restart: the checkpoint keeps the time its offsets were listed (the record timestamp)
    await nodes.helper.unload();
    const g = await loadFlow({ groups: `${p}-.*` }, { offsetTranslation });
    await ready(g.cp);
    const listed = cov.payload.entries.find((x) => x.group === at).checkpointAt;
    await feedSyncs(g, [[t, 0, 100000, 100007]]);
    const again = byGroupPartition(await cycle(g))[`${at}/${t}-0`];
    assert.deepEqual([again.status, again.readiness, again.checkpointAt], ['unchanged', 'ready', listed]);
  });

  it('readiness: a group with a consumer joined on the target has membersOnTarget true on each entry, false once it left', async function () {
    const p = env.unique('cpm');
    const t = await topic(`${p}-t`, 2);
    const [joined, alone] = [`${p}-joined`, `${p}-alone`];
    await commit(joined, [[t, 0, 5], [t, 1, 5]]);
    await commit(alone, [[t, 0, 5]]);
    const targetAdmin = await env.admin('target');
    const remote = `source.${t}`;
    await targetAdmin.createTopics({ topics: [{ topic: remote, numPartitions: 2 }], waitForLeaders: true });
    const consumer = env.kafka('target').consumer({ groupId: joined });
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [remote], fromBeginning: true });
      await consumer.run({ autoCommit: false, eachMessage: async () => {} });
      await env.eventually(async () => (await describeGroupState(targetAdmin, joined)).state === 'Stable', { what: 'the consumer to join its group on the target', timeout: 30000 });
      const f = await loadFlow({ groups: `${p}-.*` });
      await ready(f.cp);
      await feedSyncs(f, [[t, 0, 5, 3], [t, 1, 5, 4]]);
      let cov = await cycle(f);
      const members = (c) => c.payload.entries.map((e) => [e.group, e.topic, e.partition, e.membersOnTarget]);
      assert.deepEqual(members(cov), [[alone, t, 0, false], [joined, t, 0, true], [joined, t, 1, true]]);
      for (const e of cov.payload.entries) assert.equal(/members on the target/.test(e.reason), e.group === joined, e.reason);
      const groupsOf = (c) => c.payload.readiness.groups.map((g) => [g.group, g.verdict, g.membersOnTarget]);
      assert.deepEqual(groupsOf(cov), [[alone, 'ready', false], [joined, 'ready', true]]);
      assert.deepEqual([cov.payload.readiness.withMembersOnTarget, cov.payload.readiness.membersUnknown], [1, 0]);
      // the consumer leaves: the next cycle (nothing moved on the source: the same entries, reused) says false
      await consumer.disconnect();
      await env.eventually(async () => (await describeGroupState(targetAdmin, joined)).state === 'Empty', { what: 'the group on the target to be Empty', timeout: 30000 });
      cov = await cycle(f);
      assert.deepEqual(cov.payload.entries.map((e) => e.status), ['unchanged', 'unchanged', 'unchanged']);
      assert.deepEqual(members(cov), [[alone, t, 0, false], [joined, t, 0, false], [joined, t, 1, false]]);
      assert.ok(cov.payload.entries.every((e) => !/members on the target/.test(e.reason)));
      assert.deepEqual(groupsOf(cov), [[alone, 'ready', false], [joined, 'ready', false]]);
      assert.equal(cov.payload.readiness.withMembersOnTarget, 0);
    } finally {
      await consumer.disconnect();
    }
  });

  it('restores the last checkpoints at restart and does not move them backwards (CheckpointStore, KAFKA-15905), skipping malformed records', async function () {
    const p = env.unique('cpr');
    const t = await topic(`${p}-t`);
    const g = `${p}-g`;
    await commit(g, [[t, 0, 250]]);
    let f = await loadFlow({ groups: g });
    await ready(f.cp);
    await feedSyncs(f, [[t, 0, 100, 100], [t, 0, 200, 200], [t, 0, 300, 300]]);
    let cov = await cycle(f);
    assert.equal(cov.payload.entries[0].downstreamOffset, '201');
    assert.equal(cov.payload.entries[0].status, 'emitted');

    // a record that is not a checkpoint, then restart
    const producer = env.kafka('target').producer();
    await producer.connect();
    await producer.send({ topic: CHECKPOINTS_TOPIC, messages: [{ key: Buffer.from('x'), value: Buffer.from('y'), partition: 0 }] });
    await producer.disconnect();
    await nodes.helper.unload();

    // the restarted flow reads an offset-syncs topic that holds these syncs: the feed's initial load
    // may reach the node before its restore has finished (buffered, applied afterwards)
    const again = env.unique('cpt');
    await produceSyncs(`mm2-offset-syncs.${again}.internal`, [175, 275, 375, 475].map((u) => [t, 0, u, u]));
    f = await loadFlow({ groups: g }, undefined, again);
    const report = await ready(f.cp);
    await env.eventually(() => syncsLoaded(f.cp), { what: 'the syncs loaded (the status)' });
    assert.equal(report.ok, true);
    assert.ok(report.malformed >= 1, 'the malformed record was skipped and counted');
    assert.equal(report.restored, 1);
    assert.equal(restoreFailedWarned(f.cp), false, 'restore OK: the sync history is kept during the initial load');
    assert.ok(f.cp.warn.getCalls().some((c) => c.thisValue === f.cp && /skipped \d+ record\(s\) of source\.checkpoints\.internal/.test(String(c.args[0]))));

    // keep-history: translate(250) = 176 (not -1), which is behind the restored 201: not emitted
    cov = await cycle(f);
    assert.equal(cov.payload.entries[0].status, 'unchanged');
    assert.equal(cov.payload.entries[0].downstreamOffset, '176');
    assert.match(cov.payload.entries[0].reason, /behind the last checkpoint 201/);
    // after the restart, a cycle that wrote nothing still sends the restored state
    assert.equal(f.out1.length, 1);
    assert.deepEqual(f.out1[0].payload.checkpoints, []);
    assert.deepEqual(f.out1[0].payload.latest[g].map((c) => [c.upstreamOffset, c.downstreamOffset]), [['250', '201']]);
    // the group moves on to 370: MM2's slots no longer hold 275 (they translate it to 176, behind 201);
    // precise translation (the default) retained the syncs above the group from those read at the start
    await commit(g, [[t, 0, 370]]);
    cov = await cycle(f);
    assert.equal(cov.payload.entries[0].status, 'emitted');
    assert.equal(cov.payload.entries[0].downstreamOffset, '276');
    await commit(g, [[t, 0, 400]]);
    cov = await cycle(f);
    assert.equal(cov.payload.entries[0].status, 'emitted');
    assert.equal(cov.payload.entries[0].downstreamOffset, '376');
    assert.equal(f.out1.length, 3);
    assert.deepEqual(f.out1[2].payload.latest[g].map((c) => [c.topic, c.upstreamOffset, c.downstreamOffset]), [[`source.${t}`, '400', '376']]);
    assert.deepEqual((await checkpointRecords(p)).map(brief), [
      [g, `source.${t}`, 0, 250, 201],
      [g, `source.${t}`, 0, 370, 276],
      [g, `source.${t}`, 0, 400, 376],
    ]);
  });

  it('selects groups with the group filter and groups with offsets on accepted topics; msg.refreshGroups finds new ones', async function () {
    const p = env.unique('cpf');
    const t = await topic(`${p}-t`);
    const u = await topic(`${p}-skip-topic`);
    await commit(`${p}-f1`, [[t, 0, 10], [u, 0, 10]]);
    await commit(`${p}-fx1`, [[t, 0, 10]]);
    await commit(`${p}-f2`, [[u, 0, 10]]);
    const f = await loadFlow({ groups: `${p}-f.*`, groupsExclude: `${p}-fx.*`, topicsExclude: '.*-skip-topic' });
    await ready(f.cp);
    await feedSyncs(f, [[t, 0, 10, 1000]]);
    let cov = await cycle(f);
    // the groups the cycle covered: f1 only (fx1 excluded, f2 has offsets on an excluded topic only)
    assert.equal(cov.payload.groups, 1);
    assert.deepEqual([...new Set(cov.payload.entries.map((x) => x.group))], [`${p}-f1`]);
    assert.deepEqual(cov.payload.entries.map((x) => [x.group, x.topic, x.status, x.downstreamOffset ?? null]).sort(), [
      [`${p}-f1`, t, 'emitted', '1000'],
      [`${p}-f1`, u, 'topic-not-replicated', null],
    ].sort());

    await commit(`${p}-f3`, [[t, 0, 11]]);
    cov = await cycle(f);
    assert.equal(cov.payload.groups, 1, 'a new group waits for the next refresh');
    cov = await cycle(f, { payload: 'now', refreshGroups: true });
    assert.equal(cov.payload.groups, 2);
    const f3 = cov.payload.entries.find((x) => x.group === `${p}-f3`);
    assert.equal(f3.status, 'emitted');
    assert.equal(f3.downstreamOffset, '1001');
    assert.deepEqual((await checkpointRecords(p)).map(brief), [
      [`${p}-f1`, `source.${t}`, 0, 10, 1000],
      [`${p}-f3`, `source.${t}`, 0, 11, 1001],
    ]);
  });

  it('stops cleanly while the restore is still running', async function () {
    this.timeout(180000);
    // a checkpoints topic of its own (a source alias of its own names it) holding many records: the restore takes a while
    const alias = env.unique('cps');
    const topicName = `${alias}.checkpoints.internal`;
    await ensureInternalTopic(await env.admin('target'), topicName, 1);
    const producer = env.kafka('target').producer();
    await producer.connect();
    try {
      for (let i = 0; i < 200000; i += 10000) {
        const messages = [];
        for (let j = i; j < i + 10000; j++) messages.push({ ...encodeCheckpoint({ group: `${alias}-g${j}`, topic: 'source.t', partition: 0, upstreamOffset: 10n, downstreamOffset: 8n, metadata: '' }), partition: 0 });
        await producer.send({ topic: topicName, messages });
      }
    } finally {
      await producer.disconnect();
    }
    await nodes.load([checkpointNode({ groups: `${alias}-.*` }), { id: 'out1', type: 'helper' }, { id: 'out2', type: 'helper' }], { over: { src: { alias }, tgt: { alias: env.unique('cpt') } } });
    const cp = nodes.helper.getNode('cp');
    const out2 = nodes.collect(nodes.helper.getNode('out2'));
    // a cycle asked for meanwhile is skipped, and the log says why
    cp.receive({ payload: 'now' });
    const skipped = 'checkpoint cycle skipped: the previous checkpoints are still being restored';
    await env.eventually(() => logged(cp, 'warn').includes(skipped) || out2.length > 0, { what: 'the cycle asked for to be skipped' });
    assert.ok(logged(cp, 'warn').includes(skipped), `skipped while restoring (${JSON.stringify(logged(cp, 'warn'))})`);
    assert.equal(restoreOutcome(cp), null, 'still restoring when the node closes');
    // Node-RED closes the node (a close that times out logs an error on the node): done well before that;
    // the test helper's spies go with the flow: keep them to read what the node logged while closing
    const spies = { debug: cp.debug, warn: cp.warn, error: cp.error };
    const said = (level) => spies[level].getCalls().filter((c) => c.thisValue === cp).map((c) => String(c.args[0]));
    const outcome = await Promise.race([
      nodes.helper.unload().then(() => 'stopped'),
      new Promise((r) => setTimeout(() => r('still running'), 15000)),
    ]);
    assert.equal(outcome, 'stopped');
    assert.deepEqual(said('debug').filter((m) => /^restored /.test(m)), [], 'the aborted restore reported nothing');
    assert.deepEqual(said('warn').filter((m) => /^could not restore/.test(m)), [], 'nor a failed restore');
    assert.equal(out2.length, 0, 'no cycle delivered');
    assert.deepEqual(said('error'), [], 'no error on close (a close that timed out would say so)');
  });

  it('the target unreachable: red naming the cause and the fix from the first failed attempt on, never back to "loading checkpoints" while it retries (issue 26)', async function () {
    this.timeout(180000);
    const { freePort } = require('../../scripts/kafka/cluster');
    const closed = await freePort();
    await nodes.load([checkpointNode({ emitCheckpointsIntervalSeconds: '2', sourceOffsets: 'auto' }), { id: 'out1', type: 'helper' }, { id: 'out2', type: 'helper' }], { over: { tgt: { bootstrap: `127.0.0.1:${closed}` } } });
    const cp = nodes.helper.getNode('cp');
    const tgt = nodes.helper.getNode('tgt');
    // every attempt to reach the target: the connection goes "connecting" again
    const attempts = [];
    const spy = { id: 'attempts-spy', onConnectionState: (s) => attempts.push(s.state) };
    tgt.connection.register(spy);
    const unreachable = (s) => s.fill === 'red' && /^target unreachable: connection refused: check the bootstrap servers and that the brokers run$/.test(s.text);
    await env.eventually(() => statusCalls(cp).some(unreachable), { what: `the status to say the target is unreachable (${statusCalls(cp).map((s) => s.text).join(' | ')})`, timeout: 60000 });
    const first = statusCalls(cp).findIndex(unreachable);
    const seen = attempts.length;
    // three more attempts (2 s apart): none of them shows anything but red
    await env.eventually(() => attempts.slice(seen).filter((s) => s === 'connecting').length >= 3, { what: 'three more attempts to reach the target', timeout: 90000 });
    const since = statusCalls(cp).slice(first);
    assert.deepEqual(since.filter((s) => s.fill !== 'red'), [], `red while the target does not answer: ${JSON.stringify(since)}`);
    await tgt.connection.deregister(spy);
  });

  it('a bad regex: red status naming the property, an error, and nothing else', async function () {
    const f = await loadFlow({ groups: 'ok, [' });
    const text = lastStatusText(f.cp);
    assert.match(text, /^error: groups: '\[' is not a valid regular expression/);
    assert.equal(statusCalls(f.cp).at(-1).fill, 'red');
    assert.ok(f.cp.error.getCalls().some((c) => c.thisValue === f.cp && /groups: '\[' is not a valid regular expression/.test(String(c.args[0]))));
    assert.equal(statusCalls(f.cp).some((s) => /^loading checkpoints/.test(s.text)), false, 'no Kafka activity: no restore started');
    assert.equal(restoreOutcome(f.cp), null, 'no Kafka activity: nothing restored');
    f.cp.receive({ payload: 'now' });
    await env.eventually(() => f.cp.error.getCalls().filter((c) => c.thisValue === f.cp).length >= 2, { what: 'done(err) for the message' });
    assert.equal(f.out2.length, 0);
  });

  it('the paste endpoint fills the fields from an MM2 config and reports what it cannot use', async function () {
    await loadFlow({});
    const yaml = [
      'connector.class: "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"',
      'emit.checkpoints.interval.seconds: "10"',
      'groups: "orders-.*, billing"',
      'source.cluster.alias: "source"',
      'target.cluster.alias: "dr"',
      'source.cluster.bootstrap.servers: "east-1:9092"',
      'sync.group.offsets.enabled: "true"',
      'emit.checkpoint.interval.seconds: "5"',
    ].join('\n');
    const current = { sourceAlias: 'source', targetAlias: 'target', policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', replicationFactor: 1 };
    const ok = await nodes.helper.request().post('/mm2/config/parse').send({ text: yaml, current }).expect(200);
    assert.equal(ok.body.format, 'yaml');
    assert.deepEqual(ok.body.fields, { groups: 'orders-.*, billing', emitCheckpointsIntervalSeconds: '10' }, 'only what the config sets: no MM2 defaults for the rest');
    assert.deepEqual(ok.body.set.map((x) => x.property), ['groups', 'emit.checkpoints.interval.seconds']);
    assert.deepEqual(ok.body.unknown, ['emit.checkpoint.interval.seconds']);
    assert.deepEqual(ok.body.problems, []);
    assert.deepEqual(ok.body.replication.differences, [
      { property: 'target.cluster.alias', field: 'targetAlias', config: 'dr', current: 'target' },
    ]);
    assert.deepEqual(ok.body.notes.map((n) => [n.property, n.code]), [
      ['source.cluster.bootstrap.servers', 'cluster'],
      ['sync.group.offsets.enabled', 'group-offsets'],
      ['emit.checkpoint.interval.seconds', 'unknown'],
    ]);

    const bad = await nodes.helper.request().post('/mm2/config/parse').send({ text: 'groups=[\nemit.checkpoints.interval.seconds=0\n' }).expect(200);
    assert.deepEqual(bad.body.problems.map((x) => x.property), ['groups', 'emit.checkpoints.interval.seconds']);
    assert.match(bad.body.problems[0].reason, /'\[' is not a valid regular expression/);
    assert.deepEqual(bad.body.fields, {}, 'a bad value never replaces the field');

    // a text with two flows fills nothing until the request names one
    const two = 'clusters = a, b\na->b.enabled = true\nb->a.enabled = true\na->b.groups = east-.*\nb->a.groups = west-.*\n';
    const ask = await nodes.helper.request().post('/mm2/config/parse').send({ text: two }).expect(200);
    assert.equal(ask.body.choose, true);
    assert.deepEqual(ask.body.flows.map((f) => f.id), ['a->b', 'b->a']);
    assert.deepEqual(ask.body.fields, {});
    const chosen = await nodes.helper.request().post('/mm2/config/parse').send({ text: two, flow: 'b->a' }).expect(200);
    assert.deepEqual(chosen.body.fields, { groups: 'west-.*' });

    const broken = await nodes.helper.request().post('/mm2/config/parse').send({ text: '{"groups": ' }).expect(200);
    assert.match(broken.body.problems[0].reason, /^JSON syntax error/);
    await nodes.helper.request().post('/mm2/config/parse').send({}).expect(400);
  });
});

describe('mm2-checkpoint: the source broker killed (its own source cluster, real brokers)', function () {
  this.timeout(300000);
  const { startCluster } = require('../../scripts/kafka/cluster');
  const { Kafka, logLevel } = require('kafkajs');
  let source = null;
  let committer = null;

  before(async function () {
    this.timeout(180000);
    source = await startCluster('cp-kill-source');
    await nodes.startServer();
  });
  // each test loads its own flow
  afterEach(async function () {
    this.timeout(60000);
    await nodes.helper.unload();
  });
  after(async function () {
    this.timeout(60000);
    await nodes.helper.unload().catch(() => undefined);
    await nodes.stopServer();
    if (committer) await committer.close().catch(() => undefined);
    if (source) await source.stop();
  });

  it('yellow at the first failed fetch of the followed commits, not once the client gives up; never green again until a cycle or a followed commit gets an answer', async function () {
    const kafka = new Kafka({ brokers: [source.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const p = env.unique('cpk');
    const t = `${p}-t`;
    const g = `${p}-g`;
    await admin.createTopics({ topics: [{ topic: t, numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();
    committer = new AdminOffsetCommitter(kafka);
    await commitOffsets(committer, g, [[t, 0, 100]]);
    // the offset syncs on this source (offset-syncs.topic.location=source), read by the replication's feed
    await produceSyncs('mm2-offset-syncs.target.internal', [[t, 0, 100, 100]], kafka);
    // following the source's commits, a cycle every 5 s (the demo's setting)
    await nodes.load([checkpointNode({ groups: `${p}-.*`, sourceOffsets: 'auto', emitCheckpointsIntervalSeconds: '5' }), { id: 'out1', type: 'helper' }, { id: 'out2', type: 'helper' }], { over: { src: { bootstrap: source.bootstrap } } });
    const cp = nodes.helper.getNode('cp');
    await ready(cp);
    await env.eventually(() => following(cp), { what: 'following the source commits (its log)', timeout: 60000 });
    await env.eventually(() => statusCalls(cp).at(-1)?.fill === 'green', { what: `green (${statusCalls(cp).map((s) => s.text).join(' | ')})`, timeout: 30000 });

    const n = statusCalls(cp).length;
    await source.kill();
    // the first status after the kill that is not green: yellow, before the client's retries run out (they end in red)
    await env.eventually(() => statusCalls(cp).slice(n).some((s) => s.fill !== 'green'), { what: 'a status other than green after the kill', timeout: 90000 });
    const after = statusCalls(cp).slice(n);
    const firstNotGreen = after.findIndex((s) => s.fill !== 'green');
    assert.equal(after[firstNotGreen].fill, 'yellow', `yellow as soon as the source stops answering: ${JSON.stringify(after)}`);
    assert.match(after[firstNotGreen].text, /^source stopped answering /);
    // the cycles (every 5 s) go on while it is down: none of them may turn it green; the client gives up: red
    await env.eventually(() => statusCalls(cp).slice(n).some((s) => s.fill === 'red'), { what: 'red once the cycle read fails', timeout: 120000 });
    const down = statusCalls(cp).slice(n + firstNotGreen);
    assert.deepEqual(down.filter((s) => s.fill === 'green'), [], `no green while the source is down: ${JSON.stringify(down)}`);

    await source.restart();
    await env.eventually(() => statusCalls(cp).at(-1)?.fill === 'green', { what: `green again once the source answers (${statusCalls(cp).slice(-3).map((s) => s.text).join(' | ')})`, timeout: 120000 });
  });
  it('polling (sourceOffsets poll): yellow as soon as the source stops answering, before the client gives up; never green again until a cycle reads the source (issue 26)', async function () {
    const kafka = new Kafka({ brokers: [source.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await env.eventually(async () => admin.connect().then(() => true), { what: 'the source to answer', timeout: 60000 });
    const p = env.unique('cpp');
    const t = `${p}-t`;
    const g = `${p}-g`;
    await admin.createTopics({ topics: [{ topic: t, numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();
    const pollCommitter = new AdminOffsetCommitter(kafka);
    await commitOffsets(pollCommitter, g, [[t, 0, 100]]);
    await pollCommitter.close();
    await produceSyncs('mm2-offset-syncs.target.internal', [[t, 0, 100, 100]], kafka);
    // polling (as when __consumer_offsets may not be read), a cycle every 5 s
    await nodes.load([checkpointNode({ groups: `${p}-.*`, sourceOffsets: 'poll', emitCheckpointsIntervalSeconds: '5' }), { id: 'out1', type: 'helper' }, { id: 'out2', type: 'helper' }], { over: { src: { bootstrap: source.bootstrap } } });
    const cp = nodes.helper.getNode('cp');
    await ready(cp);
    await env.eventually(() => statusCalls(cp).at(-1)?.fill === 'green', { what: `green (${statusCalls(cp).map((s) => s.text).join(' | ')})`, timeout: 60000 });
    // polling as asked: it never said it follows the commits, nor that it polls for want of something
    assert.equal(following(cp), false, 'not following __consumer_offsets');
    assert.equal(pollingReason(cp), null, 'polling because it was asked to');

    const n = statusCalls(cp).length;
    await source.kill();
    await env.eventually(() => statusCalls(cp).slice(n).some((s) => s.fill !== 'green'), { what: 'a status other than green after the kill', timeout: 90000 });
    const after = statusCalls(cp).slice(n);
    const firstNotGreen = after.findIndex((s) => s.fill !== 'green');
    assert.equal(after[firstNotGreen].fill, 'yellow', `yellow as soon as the source stops answering: ${JSON.stringify(after)}`);
    assert.match(after[firstNotGreen].text, /^source stopped answering /);
    // the client gives up: red; no green in between, whatever the cycles did
    await env.eventually(() => statusCalls(cp).slice(n).some((s) => s.fill === 'red'), { what: 'red once the cycle read fails', timeout: 120000 });
    const down = statusCalls(cp).slice(n + firstNotGreen);
    assert.deepEqual(down.filter((s) => s.fill === 'green'), [], `no green while the source is down: ${JSON.stringify(down)}`);

    await source.restart();
    await env.eventually(() => statusCalls(cp).at(-1)?.fill === 'green', { what: `green again once a cycle reads the source (${statusCalls(cp).slice(-3).map((s) => s.text).join(' | ')})`, timeout: 120000 });
  });
});

describe('mm2-checkpoint: a restore the target refuses (a principal that may not READ the checkpoints topic, real brokers)', function () {
  this.timeout(240000);
  const { useSecuredCluster } = require('../harness/secured');
  const USER = 'cp-restore';
  // the target: a cluster with an authorizer, of its own
  const secured = useSecuredCluster('cp-restore-target', { authorizer: true, users: { [USER]: 'cp-restore-secret' } });
  let committer;
  before(async function () {
    await nodes.startServer();
    committer = new AdminOffsetCommitter(env.kafka('source'));
  });
  after(async function () {
    await nodes.helper.unload().catch(() => undefined);
    await nodes.stopServer();
    if (committer) await committer.close();
  });

  it('a failed restore keeps only the latest sync of the initial load, as MM2 (mustReadToEnd)', async function () {
    const p = env.unique('cpx');
    const t = `${p}-t`;
    const g = `${p}-g`;
    const sourceAdmin = await env.admin('source');
    await sourceAdmin.createTopics({ topics: [{ topic: t, numPartitions: 1 }], waitForLeaders: true });
    await commitOffsets(committer, g, [[t, 0, 250]]);
    // the syncs the replication's feed reads at start (offset-syncs.topic.location=source): its initial load
    const targetAlias = env.unique('cpxt');
    await produceSyncs(`mm2-offset-syncs.${targetAlias}.internal`, [175, 275, 375, 475].map((u) => [t, 0, u, u]));
    // a checkpoints topic with a record in it (an empty one is restored without reading), written by the super user
    const superKafka = secured.kafka('PLAINTEXT');
    const superAdmin = superKafka.admin();
    await superAdmin.connect();
    const producer = superKafka.producer();
    try {
      await ensureInternalTopic(superAdmin, CHECKPOINTS_TOPIC, 1);
      await producer.connect();
      await producer.send({ topic: CHECKPOINTS_TOPIC, messages: [{ ...encodeCheckpoint({ group: g, topic: `source.${t}`, partition: 0, upstreamOffset: 100n, downstreamOffset: 100n, metadata: '' }), partition: 0 }] });
    } finally {
      await producer.disconnect();
      await superAdmin.disconnect();
    }
    // the node's principal may do anything on the target but READ its checkpoints topic (a DENY wins over the ALLOWs)
    const principal = `User:${USER}`;
    await secured.cluster.acl.create([
      { principal, resourceType: 'TOPIC', resourceName: '*', operation: 'ALL' },
      { principal, resourceType: 'GROUP', resourceName: '*', operation: 'ALL' },
      { principal, resourceType: 'CLUSTER', resourceName: 'kafka-cluster', operation: 'ALL' },
      { principal, resourceType: 'TOPIC', resourceName: CHECKPOINTS_TOPIC, operation: 'READ', permission: 'DENY' },
    ]);
    await nodes.load([checkpointNode({ groups: g }), { id: 'out1', type: 'helper' }, { id: 'out2', type: 'helper' }], {
      over: { tgt: { alias: targetAlias, bootstrap: secured.cluster.listeners.SASL_PLAINTEXT, saslMechanism: 'scram-sha-512' } },
      credentials: { tgt: { username: USER, password: secured.cluster.saslUsers[USER] } },
    });
    const f = { cp: nodes.helper.getNode('cp'), out1: nodes.collect(nodes.helper.getNode('out1')), out2: nodes.collect(nodes.helper.getNode('out2')) };
    // the log says the restore failed, why, and that only the latest sync per partition is kept during the initial load
    const report = await restored(f.cp, 90000);
    assert.equal(report.ok, false, JSON.stringify(report));
    assert.match(report.error, /authoriz/i);
    // the status names the ACL it lacks
    await env.eventually(() => statusCalls(f.cp).some((s) => /needs READ on Topic:source\.checkpoints\.internal/.test(s.text)), { what: `the status naming the missing ACL (${lastStatusText(f.cp)})` });
    // only 475 was kept of the initial load (once the feed has handed it over: cycles until the store is loaded):
    // 250 cannot be translated, nothing is written
    const cov = await env.eventually(async () => {
      const c = await cycle(f);
      return c.payload.entries.length > 0 && c.payload.entries[0].status !== 'store-loading' ? c : null;
    }, { what: 'a cycle with the sync history loaded', interval: 1000 });
    assert.equal(cov.payload.groups, 1);
    assert.equal(cov.payload.entries.length, 1);
    assert.equal(cov.payload.entries[0].status, 'older-than-oldest-sync', 'only 475 is kept: 250 cannot be translated');
    assert.match(cov.payload.entries[0].reason, /oldest retained offset sync \(upstream 475\)/);
    assert.deepEqual(f.out1.at(-1).payload.checkpoints, []);
  });
});
