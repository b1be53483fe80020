'use strict';
/**
 * mm2-group-offsets against two real Kafka clusters (the writes all go to the target):
 * checkpoints in, committed target offsets out, asserted exactly with fetchCommittedOffsets.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { AdminOffsetCommitter, describeGroupState, fetchCommittedOffsets, listConsumerGroups } = require('../../dist/kafka/groups');
const { GroupOffsetSyncer } = require('../../dist/kafka/group-offset-syncer');
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
    const consumer = env.kafka('target').consumer({ groupId: gActive });
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({ autoCommit: false, eachMessage: async () => {} });
    await env.eventually(async () => (await describeGroupState(target, gActive)).state === 'Stable', { what: 'active group to be Stable' });
    await consumer.commitOffsets([{ topic, partition: 0, offset: '1' }]);
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
    assert.ok(statuses.some((s) => s.text && /^4 groups synced, skipped 1 active \/ \d+ s ago$/.test(s.text)), JSON.stringify(statuses));

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

    // The real target admin, except that describe answers as if the group were still Empty:
    // the situation of a consumer joining right after the describe.
    const stale = Object.create(target);
    stale.describeGroups = async (ids) => ({ groups: ids.map((groupId) => ({ groupId, state: 'Empty', members: [], protocol: '', protocolType: 'consumer', errorCode: 0 })) });
    const committer = new AdminOffsetCommitter(env.kafka('target'));
    let oks = 0;
    const syncer = new GroupOffsetSyncer({
      connection: { admin: async () => stale, committer: () => committer, reportOk: () => { oks++; } },
      groupFilter: createGroupFilter({}),
    });
    syncer.applyCheckpointsJson({ [group]: [cp(group, topic, 0, 7)] });
    const r = await syncer.sync();
    await committer.close();
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
