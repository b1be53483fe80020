'use strict';
/**
 * mm2-group-offsets against two real Kafka clusters (the writes all go to the target):
 * checkpoints in, committed target offsets out, asserted exactly with fetchCommittedOffsets.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { AdminOffsetCommitter, GroupOffsetFetcher, fetchCommittedOffsets } = require('../../dist/kafka/group-client');
const { describeGroupState, listConsumerGroups } = require('../../dist/kafka/group-listing');
const { GroupOffsetSyncer } = require('../../dist/engines/group-offset-syncer');
const { encodeCheckpoint } = require('../../dist/core/checkpoint');
const { createGroupFilter } = require('../../dist/core/filters');

/** A topic on the target with `partitions` partitions of `perPartition` records each. */
async function remoteTopic(admin, name, partitions, perPartition) {
  await admin.createTopics({ topics: [{ topic: name, numPartitions: partitions }], waitForLeaders: true });
  const producer = env.kafka('target').producer();
  await producer.connect();
  const messages = [];
  for (let p = 0; p < partitions; p++) for (let i = 0; i < perPartition; i++) messages.push({ partition: p, value: `v${p}-${i}` });
  await producer.send({ topic: name, messages });
  await producer.disconnect();
}

/** Committed offsets of a group as {"topic/partition": "offset|metadata"}, for exact comparisons. */
async function committed(admin, group) {
  const out = {};
  for (const o of await fetchCommittedOffsets(admin, group)) {
    if (o.offset !== null) out[`${o.topic}/${o.partition}`] = `${o.offset}|${o.metadata}`;
  }
  return out;
}

function cp(group, topic, partition, downstream, metadata = '') {
  return { group, topic, partition, upstreamOffset: String(downstream * 2), downstreamOffset: String(downstream), metadata };
}

/** A CheckpointsMessage as mm2-checkpoint sends it. */
function checkpointsMessage(list, extra = {}) {
  const latest = {};
  for (const c of list) (latest[c.group] = latest[c.group] || []).push(c);
  return {
    topic: 'mm2/checkpoints',
    payload: { checkpoints: list, latest, cycle: 1, sourceCluster: 'source', targetCluster: 'target', checkpointsTopic: 'source.checkpoints.internal' },
    ...extra,
  };
}

function goNode(over = {}) {
  return {
    id: 'go', type: 'mm2-group-offsets', name: '', replication: 'rep', mode: 'input',
    syncGroupOffsetsIntervalSeconds: '3600', groups: '', groupsExclude: '', wires: [['out']], ...over,
  };
}

/** A group with a live consumer on the target (Stable) that committed partition 0 of `topic` at `offset`. */
async function activeGroup(target, consumers, topic, groupId, offset) {
  const consumer = env.kafka('target').consumer({ groupId });
  consumers.push(consumer);
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ autoCommit: false, eachMessage: async () => {} });
  await env.eventually(async () => (await describeGroupState(target, groupId)).state === 'Stable', { what: 'active group to be Stable' });
  await consumer.commitOffsets([{ topic, partition: 0, offset }]);
  return consumer;
}

/** `n` groups with checkpoints on a new 2-partition topic of the target (`make` gives a group's checkpoints; its topic is filled in). */
async function manyGroups(target, name, n, make) {
  const topic = `source.${env.unique(name)}`;
  await remoteTopic(target, topic, 2, 5);
  const prefix = env.unique(`${name}-g`);
  /** @type {Record<string, unknown>} */
  const latest = {};
  for (let i = 0; i < n; i++) latest[`${prefix}-${i}`] = make(`${prefix}-${i}`, i).map((c) => ({ ...c, topic }));
  return { topic, prefix, latest };
}

/** A syncer on the real target with its own reader and committer (requests counted). */
function realSyncer(target) {
  const fetcher = new GroupOffsetFetcher(env.kafka('target'));
  const committer = new AdminOffsetCommitter(env.kafka('target'));
  const syncer = new GroupOffsetSyncer({
    connection: { admin: async () => target, committer: () => committer, offsetFetcher: () => fetcher, reportOk: () => undefined },
    groupFilter: createGroupFilter({}),
  });
  return { fetcher, committer, syncer };
}

const byGroup = (a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0);

describe('mm2-group-offsets (real clusters)', function () {
  let target;
  const consumers = [];
  before(async () => {
    await nodes.startServer();
    target = await env.admin('target');
  });
  after(() => nodes.stopServer());
  afterEach(async () => {
    await nodes.helper.unload();
    while (consumers.length) await consumers.pop().disconnect().catch(() => undefined);
  });

  it('writes new groups, skips active ones untouched, never rewinds, clamps to the log end, skips missing topics', async function () {
    const topic = `source.${env.unique('orders')}`;
    const missingTopic = `source.${env.unique('gone')}`;
    await remoteTopic(target, topic, 2, 10);
    const gNew = env.unique('g-new');
    const gActive = env.unique('g-active');
    const gAhead = env.unique('g-ahead');
    const gClamp = env.unique('g-clamp');
    const gMissing = env.unique('g-missing');
    const gOnlyMissing = env.unique('g-only-missing');
    const gExcluded = env.unique('console-consumer');

    // gAhead already committed further on the target (partition 0 at 8)
    const committer = new AdminOffsetCommitter(env.kafka('target'));
    assert.deepEqual(await committer.commit(gAhead, [{ topic, partition: 0, offset: 8n, metadata: 'target-own' }]), { ok: true });
    await committer.close();

    // gActive has a live consumer on the target that committed partition 0 at 1
    const consumer = await activeGroup(target, consumers, topic, gActive, '1');
    const activeBefore = await committed(target, gActive);
    assert.deepEqual(activeBefore, { [`${topic}/0`]: '1|' });

    await nodes.load([goNode(), { id: 'out', type: 'helper' }]);
    const go = nodes.helper.getNode('go');
    const statuses = nodes.statuses(go);
    const out = nodes.collect(nodes.helper.getNode('out'));

    go.receive(checkpointsMessage([
      cp(gNew, topic, 0, 4, 'm-new'), cp(gNew, topic, 1, 6),
      cp(gActive, topic, 0, 5), cp(gActive, topic, 1, 5),
      cp(gAhead, topic, 0, 5), cp(gAhead, topic, 1, 2),
      cp(gClamp, topic, 0, 50, 'm-clamp'),
      cp(gMissing, missingTopic, 0, 3), cp(gMissing, topic, 1, 1),
      cp(gOnlyMissing, missingTopic, 0, 3),
      cp(gExcluded, topic, 0, 3),
    ], { sync: true }));
    await env.eventually(() => out.length >= 1, { what: 'the first group-offsets message' });
    const first = out[0];
    assert.equal(first.topic, 'mm2/group-offsets');
    const p = first.payload;
    assert.equal(p.cycle, 1);
    assert.deepEqual(p.written.slice().sort(byGroup), [
      { group: gAhead, offsets: [{ topic, partition: 1, offset: '2' }] },
      { group: gClamp, offsets: [{ topic, partition: 0, offset: '10' }] },
      { group: gMissing, offsets: [{ topic, partition: 1, offset: '1' }] },
      { group: gNew, offsets: [{ topic, partition: 0, offset: '4' }, { topic, partition: 1, offset: '6' }] },
    ].sort(byGroup));
    const skipped = Object.fromEntries(p.skipped.map((s) => [s.group, s]));
    assert.deepEqual(Object.keys(skipped).sort(), [gActive, gOnlyMissing].sort());
    assert.equal(skipped[gActive].code, 'group-active');
    assert.equal(skipped[gActive].state, 'Stable');
    assert.match(skipped[gActive].reason, /active members/);
    assert.equal(skipped[gOnlyMissing].code, 'nothing-to-write');
    const ps = p.partitionsSkipped.map((s) => `${s.group} ${s.topic}/${s.partition} ${s.code}`).sort();
    assert.deepEqual(ps, [
      `${gAhead} ${topic}/0 target-ahead`,
      `${gMissing} ${missingTopic}/0 topic-missing-on-target`,
      `${gOnlyMissing} ${missingTopic}/0 topic-missing-on-target`,
    ].sort());
    assert.match(p.partitionsSkipped.find((s) => s.group === gAhead).reason, /target offset 8 is ahead of 5; it is never moved backwards/);
    assert.match(p.partitionsSkipped.find((s) => s.group === gMissing).reason, new RegExp(`topic ${missingTopic.replace(/\./g, '\\.')} does not exist on the target`));
    assert.equal(p.clamped.length, 1);
    assert.deepEqual({ ...p.clamped[0], reason: undefined }, { group: gClamp, topic, partition: 0, checkpointOffset: '50', offset: '10', reason: undefined });
    assert.deepEqual(p.checkpoints, { groups: 7, partitions: 11, received: 11, malformed: 0 });

    // what the target really holds now
    assert.deepEqual(await committed(target, gNew), { [`${topic}/0`]: '4|m-new', [`${topic}/1`]: '6|' });
    assert.deepEqual(await committed(target, gActive), activeBefore, 'the active group is untouched');
    assert.deepEqual(await committed(target, gAhead), { [`${topic}/0`]: '8|target-own', [`${topic}/1`]: '2|' });
    assert.deepEqual(await committed(target, gClamp), { [`${topic}/0`]: '10|m-clamp' });
    assert.deepEqual(await committed(target, gMissing), { [`${topic}/1`]: '1|' });
    assert.deepEqual(await committed(target, gOnlyMissing), {});
    assert.deepEqual(await committed(target, gExcluded), {}, 'groups.exclude default keeps console-consumer-* out');
    assert.ok(!(await listConsumerGroups(target)).includes(gExcluded));
    assert.ok(statuses.some((s) => s.text && /^4 groups synced in 60 min, skipped 1 active \/ last \d+ s ago$/.test(s.text)), JSON.stringify(statuses));

    // any other message syncs now, on the same message; everything is up to date
    go.receive({ payload: 'now', keep: 'me' });
    await env.eventually(() => out.length >= 2, { what: 'the second group-offsets message' });
    const second = out[1];
    assert.equal(second.keep, 'me', 'the triggering message is reused');
    assert.equal(second.payload.cycle, 2);
    assert.deepEqual(second.payload.written, []);
    assert.deepEqual(
      second.payload.skipped.map((s) => `${s.group} ${s.code}`).sort(),
      [`${gActive} group-active`, `${gAhead} up-to-date`, `${gClamp} up-to-date`, `${gMissing} nothing-to-write`, `${gNew} up-to-date`, `${gOnlyMissing} nothing-to-write`].sort(),
    );

    // the consumer leaves: the group is Empty, and its offsets are written (never backwards)
    await consumer.disconnect();
    await env.eventually(async () => (await describeGroupState(target, gActive)).state === 'Empty', { what: 'group to become Empty' });
    go.receive({ payload: 'again' });
    await env.eventually(() => out.length >= 3, { what: 'the third group-offsets message' });
    assert.deepEqual(out[2].payload.written, [{ group: gActive, offsets: [{ topic, partition: 0, offset: '5' }, { topic, partition: 1, offset: '5' }] }]);
    assert.deepEqual(await committed(target, gActive), { [`${topic}/0`]: '5|', [`${topic}/1`]: '5|' });
  });

  it('a changes message (payload.full false) is written at once, no timer; active groups untouched, never backwards', async function () {
    const topic = `source.${env.unique('changes')}`;
    await remoteTopic(target, topic, 1, 20);
    const g = env.unique('ch-g');
    const gAhead = env.unique('ch-ahead');
    const gActive = env.unique('ch-active');
    const committer = new AdminOffsetCommitter(env.kafka('target'));
    assert.deepEqual(await committer.commit(gAhead, [{ topic, partition: 0, offset: 15n }]), { ok: true });
    await committer.close();
    const consumer = await activeGroup(target, consumers, topic, gActive, '1');

    // no floor here: the changed group is written right after the full run (the floor has its own test)
    await nodes.load([goNode({ syncGroupOffsetsIntervalSeconds: '3600', minWriteIntervalMs: '0' }), { id: 'out', type: 'helper' }]);
    const go = nodes.helper.getNode('go');
    const out = nodes.collect(nodes.helper.getNode('out'));
    // the whole state first (an old sender: no `full`): one full run at once
    go.receive(checkpointsMessage([cp(g, topic, 0, 3), cp(gAhead, topic, 0, 5), cp(gActive, topic, 0, 4)]));
    await env.eventually(async () => (await committed(target, g))[`${topic}/0`] === '3|', { what: 'the first full run' });
    await env.eventually(() => out.length >= 1, { what: 'its message' });
    // only what changed, with a one-hour interval: written now
    const changes = checkpointsMessage([cp(g, topic, 0, 9), cp(gAhead, topic, 0, 12), cp(gActive, topic, 0, 10)]);
    changes.payload.full = false;
    go.receive(changes);
    await env.eventually(async () => (await committed(target, g))[`${topic}/0`] === '9|', { what: 'the changed group written at once' });
    const msg = await env.eventually(() => out.find((m) => m.payload.written.some((w) => w.group === g && w.offsets[0].offset === '9')), { what: 'the partial run message' });
    assert.deepEqual(Object.keys(msg.payload).sort(), ['checkpoints', 'clamped', 'cycle', 'durationMs', 'partitionsSkipped', 'rewound', 'skipped', 'written'], 'the message keeps its shape');
    const skipped = Object.fromEntries(msg.payload.skipped.map((x) => [x.group, x.code]));
    assert.deepEqual(skipped, { [gAhead]: 'up-to-date', [gActive]: 'group-active' });
    assert.deepEqual(await committed(target, gAhead), { [`${topic}/0`]: '15|' }, 'never backwards');
    assert.deepEqual(await committed(target, gActive), { [`${topic}/0`]: '1|' }, 'the active group is untouched');
  });

  it('the status counts what the partial runs wrote: a full run that finds every group up to date does not say 0 synced', async function () {
    const topic = `source.${env.unique('counted')}`;
    await remoteTopic(target, topic, 1, 20);
    const g1 = env.unique('cnt-a');
    const g2 = env.unique('cnt-b');
    await nodes.load([goNode({ syncGroupOffsetsIntervalSeconds: '3600', minWriteIntervalMs: '0' }), { id: 'out', type: 'helper' }]);
    const go = nodes.helper.getNode('go');
    const statuses = nodes.statuses(go);
    const out = nodes.collect(nodes.helper.getNode('out'));
    // the whole state: a full run writes g1 only (g2 has no checkpoint yet)
    go.receive(checkpointsMessage([cp(g1, topic, 0, 3)]));
    await env.eventually(() => out.length >= 1, { what: 'the first full run' });
    // the checkpoints move (what the demo's consumers do every 10 s): the partial runs write them at once
    const changes = checkpointsMessage([cp(g1, topic, 0, 9), cp(g2, topic, 0, 7)]);
    changes.payload.full = false;
    go.receive(changes);
    await env.eventually(async () => (await committed(target, g1))[`${topic}/0`] === '9|' && (await committed(target, g2))[`${topic}/0`] === '7|', { what: 'the partial run' });
    await env.eventually(() => out.length >= 2, { what: 'the partial run message' });
    // the next full run finds both up to date: it writes nothing, but two groups were synced in the interval
    go.receive({ payload: 'now' });
    await env.eventually(() => out.length >= 3, { what: 'the second full run' });
    assert.deepEqual(out[2].payload.written, []);
    assert.deepEqual(out[2].payload.skipped.map((x) => `${x.group} ${x.code}`).sort(), [`${g1} up-to-date`, `${g2} up-to-date`].sort());
    const last = statuses[statuses.length - 1];
    assert.equal(last.fill, 'green', JSON.stringify(statuses));
    assert.match(last.text, /^2 groups synced in 60 min \/ last \d+ s ago$/, JSON.stringify(statuses));
    assert.ok(!statuses.some((x) => /^0 groups synced/.test(x.text || '')), `never "0 groups synced" while groups are written: ${JSON.stringify(statuses)}`);
  });

  it('a group asked again within minWriteIntervalMs is written once when it ends, with the latest offset', async function () {
    const topic = `source.${env.unique('floor')}`;
    await remoteTopic(target, topic, 1, 50);
    const g = env.unique('fl-g');
    await nodes.load([goNode({ syncGroupOffsetsIntervalSeconds: '3600', minWriteIntervalMs: '1500' }), { id: 'out', type: 'helper' }]);
    const go = nodes.helper.getNode('go');
    const out = nodes.collect(nodes.helper.getNode('out'));
    const changes = (n) => {
      const m = checkpointsMessage([cp(g, topic, 0, n)]);
      m.payload.full = false;
      return m;
    };
    go.receive(changes(1));
    await env.eventually(async () => (await committed(target, g))[`${topic}/0`] === '1|', { what: 'the first write' });
    for (let n = 2; n <= 6; n++) go.receive(changes(n));
    await env.eventually(async () => (await committed(target, g))[`${topic}/0`] === '6|', { what: 'the latest offset when the floor ended' });
    await env.eventually(() => out.some((m) => m.payload.written.some((w) => w.offsets[0].offset === '6')), { what: 'the deferred run reported' });
    const writes = out.flatMap((m) => m.payload.written.filter((w) => w.group === g).map((w) => w.offsets[0].offset));
    assert.deepEqual(writes, ['1', '6'], 'five changes within the floor: one write');
  });

  it('minWriteIntervalMs outside 0..60000 or not a whole number is refused, naming the field', async function () {
    for (const bad of ['60001', '-1', '1.5', 'soon']) {
      await nodes.load([goNode({ minWriteIntervalMs: bad }), { id: 'out', type: 'helper' }]);
      const errors = nodes.helper.getNode('go').error.getCalls().map((c) => String(c.args[0]));
      assert.equal(errors.length, 1, bad);
      assert.match(errors[0], new RegExp(`^minWriteIntervalMs: '${bad.replace('.', '\\.')}' is not a whole number of milliseconds from 0 to 60000`));
      await nodes.helper.unload();
    }
  });

  it('1,200 groups: written in a few batched reads, one listing, one commit per group; a second full run writes nothing', async function () {
    const { topic, prefix, latest } = await manyGroups(target, 'many', 1200, (g, i) => [cp(g, '', 0, 1 + (i % 4)), cp(g, '', 1, 2)]);
    const { fetcher, committer, syncer } = realSyncer(target);
    try {
      syncer.applyCheckpointsJson(latest);
      const r = await syncer.sync();
      assert.equal(r.written.length, 1200);
      assert.deepEqual(r.skipped, []);
      const brokers = (await target.describeCluster()).brokers.length;
      assert.equal(fetcher.requests.ListGroups, brokers, 'one ListGroups per broker');
      assert.ok(fetcher.requests.OffsetFetch <= 3 * brokers, `OffsetFetch ${fetcher.requests.OffsetFetch}`);
      assert.ok(fetcher.requests.FindCoordinator <= 2, `FindCoordinator ${fetcher.requests.FindCoordinator}`);
      assert.equal(committer.requests.OffsetCommit, 1200);
      assert.ok(committer.requests.FindCoordinator <= 2, `the committer's coordinators in batched lookups: ${committer.requests.FindCoordinator}`);
      console.log(`      1,200 groups x 2 partitions, first full run: ${r.durationMs} ms, requests ${JSON.stringify(fetcher.requests)}, committer ${JSON.stringify(committer.requests)}`);
      const some = `${prefix}-7`;
      assert.deepEqual(await committed(target, some), { [`${topic}/0`]: '4|', [`${topic}/1`]: '2|' });
      const again = await syncer.sync();
      assert.equal(again.written.length, 0);
      assert.equal(again.skipped.filter((x) => x.code === 'up-to-date').length, 1200);
      assert.equal(committer.requests.OffsetCommit, 1200, 'nothing moved: no commit');
      console.log(`      second full run (nothing moved): ${again.durationMs} ms, requests ${JSON.stringify(fetcher.requests)}`);
    } finally {
      await syncer.close();
      await fetcher.close();
      await committer.close();
    }
  });

  it('close mid-run at 10,000 groups: no request after close, close resolves, the run is abandoned', async function () {
    const { latest } = await manyGroups(target, 'close', 10000, (g) => [cp(g, '', 0, 3)]);
    const { fetcher, committer, syncer } = realSyncer(target);
    syncer.applyCheckpointsJson(latest);
    const run = syncer.sync();
    run.catch(() => undefined);
    await env.eventually(() => committer.requests.OffsetCommit > 0, { what: 'the commits to start' });
    await syncer.close();
    const atClose = committer.requests.OffsetCommit;
    await run.then(() => undefined, () => undefined);
    assert.equal(committer.requests.OffsetCommit, atClose, 'no commit sent after close resolved');
    assert.ok(atClose < 10000, `abandoned: ${atClose} of 10000 commits sent`);
    await fetcher.close();
    await committer.close();
  });

  it('undeploy during the first full sync of 10,000 groups: the node closes in time, no commit after close', async function () {
    const { latest } = await manyGroups(target, 'undeploy', 10000, (g) => [cp(g, '', 0, 2)]);
    await nodes.load([goNode({ syncGroupOffsetsIntervalSeconds: '3600' }), { id: 'out', type: 'helper' }]);
    const go = nodes.helper.getNode('go');
    const committer = nodes.helper.getNode('tgt').connection.committer();
    const logs = nodes.helper.log();
    go.receive({ topic: 'mm2/checkpoints', payload: { checkpoints: [], latest, cycle: 1, sourceCluster: 'source', targetCluster: 'target', checkpointsTopic: 'source.checkpoints.internal' } });
    await env.eventually(() => committer.requests.OffsetCommit > 0, { what: 'the first full sync to commit', timeout: 60000 });
    await nodes.helper.unload();
    const atClose = committer.requests.OffsetCommit;
    assert.ok(atClose < 10000, `closed mid-sync: ${atClose} of 10000 commits sent`);
    const texts = logs.getCalls().map((c) => JSON.stringify(c.args[0]));
    assert.ok(!texts.some((t) => /Close timed out|Error stopping node/.test(t)), texts.filter((t) => /timed out|stopping/.test(t)).join('\n'));
    // the abandoned run sends nothing more (its connections are closed with the node)
    await new Promise((r) => setImmediate(r));
    assert.equal(committer.requests.OffsetCommit, atClose);
  });

  it('refuses checkpoints that say they come from another replication flow: nothing written, counted, warned once per cause, status yellow (issue 26)', async function () {
    const topic = `source.${env.unique('foreign')}`;
    await remoteTopic(target, topic, 1, 10);
    const alias = env.unique('ours');
    const gForeign = env.unique('g-foreign');
    const gOurs = env.unique('g-ours');
    await nodes.load([goNode(), { id: 'out', type: 'helper' }], { over: { src: { alias } } });
    const go = nodes.helper.getNode('go');
    const statuses = nodes.statuses(go);
    const warns = [];
    go.on('call:warn', (c) => warns.push(String(c.args[0])));
    const out = nodes.collect(nodes.helper.getNode('out'));
    const ours = { sourceCluster: alias, targetCluster: 'target', checkpointsTopic: `${alias}.checkpoints.internal` };
    /** A CheckpointsMessage of gForeign's checkpoint at `at`, from the flow `where`, asking for a sync now. */
    const from = (where, at) => ({ topic: 'mm2/checkpoints', sync: true, payload: { checkpoints: [], latest: { [gForeign]: [cp(gForeign, topic, 0, at)] }, cycle: 1, ...where } });

    // another flow's messages, each cause twice: the checkpoints of none are taken, a sync still runs
    const causes = [
      { ...ours, sourceCluster: 'east' },
      { ...ours, targetCluster: 'west' },
      { ...ours, checkpointsTopic: 'east.checkpoints.internal' },
    ];
    for (const where of [...causes, ...causes]) go.receive(from(where, 7));
    await env.eventually(() => out.length === 6, { what: 'the six syncs the messages asked for' });
    for (const m of out) assert.deepEqual(m.payload.written, [], 'nothing of another flow written');
    // (a new cluster's coordinator may still be loading: read once it answers)
    const read = await env.eventually(async () => committed(target, gForeign).then((v) => ({ v }), () => false), { what: 'the target to answer' });
    assert.deepEqual(read.v, {});
    const refusals = warns.filter((w) => /another replication flow refused/.test(w));
    assert.equal(refusals.length, 3, `one warning per cause:\n${refusals.join('\n')}`);
    assert.match(refusals.find((w) => /sourceCluster/.test(w)) ?? '', new RegExp(`sourceCluster is 'east', this node's replication flow has '${alias}'`));
    assert.match(refusals.find((w) => /targetCluster/.test(w)) ?? '', /targetCluster is 'west', this node's replication flow has 'target'/);
    assert.match(refusals.find((w) => /checkpointsTopic/.test(w)) ?? '', new RegExp(`checkpointsTopic is 'east\\.checkpoints\\.internal', this node's replication flow has '${alias}\\.checkpoints\\.internal'`));
    const last = await env.eventually(() => {
      const s = statuses[statuses.length - 1];
      return s && /^6 foreign refused, /.test(s.text) && s;
    }, { what: 'the status to count the refused messages' });
    assert.equal(last.fill, 'yellow');

    // our own flow's messages (and one that does not say where it comes from) are written
    go.receive({ topic: 'mm2/checkpoints', sync: true, payload: { checkpoints: [], latest: { [gOurs]: [cp(gOurs, topic, 0, 4)] }, cycle: 2, ...ours } });
    go.receive({ topic: 'mm2/checkpoints', sync: true, payload: { checkpoints: [], latest: { [gForeign]: [cp(gForeign, topic, 0, 3)] }, cycle: 3 } });
    await env.eventually(async () => (await committed(target, gOurs))[`${topic}/0`] === '4|' && (await committed(target, gForeign))[`${topic}/0`] === '3|', { what: 'our checkpoints written' });
    assert.equal(warns.filter((w) => /another replication flow refused/.test(w)).length, 3);
    // the refusals stay in the status (the wiring is still wrong): never green
    const after = await env.eventually(() => {
      const s = statuses[statuses.length - 1];
      return s && /synced/.test(s.text) && s;
    }, { what: 'the status after our sync' });
    assert.equal(after.fill, 'yellow');
    assert.match(after.text, /^6 foreign refused, /);
  });

  it('syncs on its own every interval, with ${ENV} in the settings and the groups filter applied', async function () {
    const topic = `source.${env.unique('periodic')}`;
    await remoteTopic(target, topic, 1, 5);
    const prefix = env.unique('per');
    process.env.MM2_GO_TEST_INTERVAL = '1';
    process.env.MM2_GO_TEST_PREFIX = prefix;
    const gIn = `${prefix}-in`;
    const gOut = env.unique('other');
    await nodes.load([
      goNode({ syncGroupOffsetsIntervalSeconds: '${MM2_GO_TEST_INTERVAL}', groups: '${MM2_GO_TEST_PREFIX}-.*' }),
      { id: 'out', type: 'helper' },
    ]);
    const go = nodes.helper.getNode('go');
    const out = nodes.collect(nodes.helper.getNode('out'));
    go.receive(checkpointsMessage([cp(gIn, topic, 0, 3, 'meta'), cp(gOut, topic, 0, 2)])); // no msg.sync: no cycle now
    const msg = await env.eventually(() => out.find((m) => m.payload.written.length > 0), { what: 'a periodic cycle that writes' });
    assert.deepEqual(msg.payload.written, [{ group: gIn, offsets: [{ topic, partition: 0, offset: '3' }] }]);
    assert.deepEqual(msg.payload.skipped, [], 'the group outside `groups` is not even looked at');
    assert.deepEqual(await committed(target, gIn), { [`${topic}/0`]: '3|meta' });
    assert.deepEqual(await committed(target, gOut), {});
    // later checkpoints are merged; the next tick writes them
    go.receive(checkpointsMessage([cp(gIn, topic, 0, 5, 'meta2')]));
    await env.eventually(async () => (await committed(target, gIn))[`${topic}/0`] === '5|meta2', { what: 'the next periodic sync' });
    delete process.env.MM2_GO_TEST_INTERVAL;
    delete process.env.MM2_GO_TEST_PREFIX;
  });

  it('an unset ${VAR} in the settings is an error naming every unset variable; a bad regex names its property', async function () {
    await nodes.load([goNode({ syncGroupOffsetsIntervalSeconds: '${MM2_GO_TEST_NOPE1}', groups: '${MM2_GO_TEST_NOPE2}-.*, ${MM2_GO_TEST_NOPE1}' }), { id: 'out', type: 'helper' }]);
    let errors = nodes.helper.getNode('go').error.getCalls().map((c) => String(c.args[0]));
    assert.deepEqual(errors, ['environment variable(s) MM2_GO_TEST_NOPE1, MM2_GO_TEST_NOPE2 used in the settings are not set']);
    await nodes.helper.unload();
    await nodes.load([goNode({ groups: 'ok, [' }), { id: 'out', type: 'helper' }]);
    errors = nodes.helper.getNode('go').error.getCalls().map((c) => String(c.args[0]));
    assert.equal(errors.length, 1);
    assert.match(errors[0], /^invalid regular expression: groups: '\[' is not a valid regular expression/);
  });

  it('a group that becomes active between the check and the commit is refused by the broker and reported as active', async function () {
    const topic = `source.${env.unique('race')}`;
    await remoteTopic(target, topic, 1, 10);
    const group = env.unique('g-race');
    const consumer = env.kafka('target').consumer({ groupId: group });
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({ autoCommit: false, eachMessage: async () => {} });
    await env.eventually(async () => (await describeGroupState(target, group)).state === 'Stable', { what: 'group Stable' });
    await consumer.commitOffsets([{ topic, partition: 0, offset: '2' }]);

    // The real target reader, except that the group listing answers as if the group were still
    // Empty: the situation of a consumer joining right after the listing.
    const fetcher = new GroupOffsetFetcher(env.kafka('target'));
    const stale = Object.create(fetcher);
    stale.listGroupStates = async () => new Map([[group, { state: 'Empty', protocolType: 'consumer' }]]);
    const committer = new AdminOffsetCommitter(env.kafka('target'));
    let oks = 0;
    const syncer = new GroupOffsetSyncer({
      connection: { admin: async () => target, committer: () => committer, offsetFetcher: () => stale, reportOk: () => { oks++; } },
      groupFilter: createGroupFilter({}),
    });
    syncer.applyCheckpointsJson({ [group]: [cp(group, topic, 0, 7)] });
    const r = await syncer.sync();
    await committer.close();
    await fetcher.close();
    assert.deepEqual(r.written, []);
    assert.equal(r.skipped.length, 1);
    assert.equal(r.skipped[0].code, 'group-active');
    assert.match(r.skipped[0].reason, /UNKNOWN_MEMBER_ID/);
    assert.equal(oks, 1);
    assert.deepEqual(await committed(target, group), { [`${topic}/0`]: '2|' }, 'untouched');
  });

  it('mode topic: reads the checkpoints topic on the target (last wins), skips and counts a malformed record, and follows new records', async function () {
    const alias = env.unique('src');
    const cpTopic = `${alias}.checkpoints.internal`;
    const topic = `${alias}.${env.unique('orders')}`;
    await remoteTopic(target, topic, 1, 10);
    await target.createTopics({ topics: [{ topic: cpTopic, numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }], waitForLeaders: true });
    const g1 = env.unique('t-g1');
    const g2 = env.unique('t-g2');
    const producer = env.kafka('target').producer();
    await producer.connect();
    const bad = encodeCheckpoint({ group: g1, topic, partition: 0, upstreamOffset: 1, downstreamOffset: 1 });
    await producer.send({
      topic: cpTopic,
      messages: [
        { partition: 0, ...encodeCheckpoint({ group: g1, topic, partition: 0, upstreamOffset: 30, downstreamOffset: 3, metadata: 'a' }) },
        { partition: 0, key: bad.key, value: Buffer.from([0, 0, 1]) }, // value too short: malformed
        { partition: 0, ...encodeCheckpoint({ group: g1, topic, partition: 0, upstreamOffset: 50, downstreamOffset: 5, metadata: 'b' }) },
        { partition: 0, ...encodeCheckpoint({ group: g2, topic, partition: 0, upstreamOffset: 70, downstreamOffset: 7 }) },
      ],
    });

    await nodes.load([goNode({ mode: 'topic', syncGroupOffsetsIntervalSeconds: '1' }), { id: 'out', type: 'helper' }], { over: { src: { alias } } });
    const go = nodes.helper.getNode('go');
    const statuses = nodes.statuses(go);
    const warns = [];
    go.on('call:warn', (c) => warns.push(String(c.args[0])));
    const out = nodes.collect(nodes.helper.getNode('out'));
    const msg = await env.eventually(() => out.find((m) => m.payload.written.length === 2), { what: 'a cycle writing both groups' });
    assert.deepEqual(msg.payload.written.slice().sort(byGroup), [
      { group: g1, offsets: [{ topic, partition: 0, offset: '5' }] },
      { group: g2, offsets: [{ topic, partition: 0, offset: '7' }] },
    ].sort(byGroup));
    assert.deepEqual(msg.payload.checkpoints, { groups: 2, partitions: 2, received: 3, malformed: 1 });
    assert.deepEqual(await committed(target, g1), { [`${topic}/0`]: '5|b' });
    assert.deepEqual(await committed(target, g2), { [`${topic}/0`]: '7|' });
    await env.eventually(() => warns.some((w) => /malformed checkpoint record at offset 1 of/.test(w)), { what: 'the malformed warning' });
    await env.eventually(() => statuses.some((s) => s.text && /1 malformed/.test(s.text)), { what: 'the malformed count in the status' });

    // a checkpoint written later is followed
    await producer.send({ topic: cpTopic, messages: [{ partition: 0, ...encodeCheckpoint({ group: g1, topic, partition: 0, upstreamOffset: 90, downstreamOffset: 9, metadata: 'c' }) }] });
    await producer.disconnect();
    await env.eventually(async () => (await committed(target, g1))[`${topic}/0`] === '9|c', { what: 'the tailed checkpoint to be synced' });
  });

  it('mode topic: a new checkpoint record is written within the batching window, not at the next interval', async function () {
    const alias = env.unique('fast');
    const cpTopic = `${alias}.checkpoints.internal`;
    const topic = `${alias}.${env.unique('orders')}`;
    await remoteTopic(target, topic, 1, 10);
    await target.createTopics({ topics: [{ topic: cpTopic, numPartitions: 1 }], waitForLeaders: true });
    const g = env.unique('fast-g');
    const producer = env.kafka('target').producer();
    await producer.connect();
    await producer.send({ topic: cpTopic, messages: [{ partition: 0, ...encodeCheckpoint({ group: g, topic, partition: 0, upstreamOffset: 2, downstreamOffset: 2 }) }] });
    await nodes.load([goNode({ mode: 'topic', syncGroupOffsetsIntervalSeconds: '3600' }), { id: 'out', type: 'helper' }], { over: { src: { alias } } });
    // the load is followed by one full run
    await env.eventually(async () => (await committed(target, g))[`${topic}/0`] === '2|', { what: 'the full run after the load' });
    // a new record: written now (the interval is an hour)
    await producer.send({ topic: cpTopic, messages: [{ partition: 0, ...encodeCheckpoint({ group: g, topic, partition: 0, upstreamOffset: 8, downstreamOffset: 8 }) }] });
    await producer.disconnect();
    await env.eventually(async () => (await committed(target, g))[`${topic}/0`] === '8|', { what: 'the new record written at once' });
  });

  it('mode topic: waits for a missing checkpoints topic, refuses "sync now" until loaded (Catch sees it), then starts', async function () {
    const alias = env.unique('late');
    const cpTopic = `${alias}.checkpoints.internal`;
    const topic = `${alias}.${env.unique('orders')}`;
    await remoteTopic(target, topic, 1, 4);
    await nodes.load([goNode({ mode: 'topic', syncGroupOffsetsIntervalSeconds: '1' }), { id: 'out', type: 'helper' }], { over: { src: { alias } } });
    const go = nodes.helper.getNode('go');
    const statuses = nodes.statuses(go);
    const errors = [];
    go.on('call:error', (c) => errors.push(c.args));
    const out = nodes.collect(nodes.helper.getNode('out'));
    await env.eventually(() => statuses.some((s) => s.text === `waiting for topic ${cpTopic}`), { what: 'waiting status' });
    go.receive({ payload: 'now', _msgid: 'm1' });
    await env.eventually(() => errors.length > 0, { what: 'done(err)' });
    assert.match(String(errors[0][0]), /cannot sync yet: the checkpoints topic .* is still loading or does not exist/);
    assert.equal(errors[0][1]._msgid, 'm1', 'reported with the message, so a Catch node sees it');
    assert.equal(out.length, 0);

    await target.createTopics({ topics: [{ topic: cpTopic, numPartitions: 1 }], waitForLeaders: true });
    const group = env.unique('late-g');
    const producer = env.kafka('target').producer();
    await producer.connect();
    await producer.send({ topic: cpTopic, messages: [{ partition: 0, ...encodeCheckpoint({ group, topic, partition: 0, upstreamOffset: 2, downstreamOffset: 2 }) }] });
    await producer.disconnect();
    await env.eventually(async () => (await committed(target, group))[`${topic}/0`] === '2|', { what: 'sync after the topic appeared', timeout: 30000 });
  });

  it('closes cleanly and redeploys: the old reader leaves, the target connection is shared by the new node only', async function () {
    const alias = env.unique('redeploy');
    const cpTopic = `${alias}.checkpoints.internal`;
    await target.createTopics({ topics: [{ topic: cpTopic, numPartitions: 1 }], waitForLeaders: true });
    const flow = (interval) => [goNode({ mode: 'topic', syncGroupOffsetsIntervalSeconds: interval }), { id: 'out', type: 'helper' }];
    await nodes.load(flow('1'), { over: { src: { alias } } });
    const prefix = '__mm2-node-red-group-offsets-go-';
    const readers = async () => (await listConsumerGroups(target)).filter((g) => g.startsWith(prefix));
    const activeReaders = async () => {
      const list = [];
      for (const g of await readers()) if ((await describeGroupState(target, g)).members > 0) list.push(g);
      return list;
    };
    const first = await env.eventually(async () => { const a = await activeReaders(); return a.length === 1 && a; }, { what: 'one active reader' });
    const out = nodes.collect(nodes.helper.getNode('out'));
    await env.eventually(() => out.length > 0, { what: 'a cycle' });

    // redeploy only the changed node: the config nodes (and the shared connection) stay
    try {
      await nodes.helper.setFlows([...nodes.configNodes({ src: { alias } }), ...flow('2')], 'nodes');
    } catch (e) {
      if (!/timeout waiting event/.test(e.message)) throw e; // the helper may miss the started event
    }
    const second = await env.eventually(async () => {
      const a = await activeReaders();
      return a.length === 1 && a[0] !== first[0] && a;
    }, { what: 'the old reader gone and a new one running' });
    assert.notEqual(second[0], first[0]);
    const tgt = nodes.helper.getNode('tgt');
    assert.equal(tgt.connection.userCount, 1, 'the old node deregistered from the target connection');
    const go = nodes.helper.getNode('go');
    const out2 = nodes.collect(nodes.helper.getNode('out'));
    await env.eventually(() => out2.length > 0, { what: 'a cycle of the redeployed node' });
    assert.ok(go);

    await nodes.helper.unload();
    await env.eventually(async () => (await activeReaders()).length === 0, { what: 'no reader left after close' });
  });
});
