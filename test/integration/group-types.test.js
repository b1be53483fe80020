'use strict';
/**
 * Group types as MirrorMaker 2 selects them, on brokers with streams and share groups on by
 * default (Kafka 4.2+; the suite's 4.4.0), as a user of a flow sees it: a real Kafka Streams
 * application (group.protocol=streams, KIP-1071), whose members commit plain offsets under its
 * application id, and a real share consumer (KIP-932) read the replicated topic beside a classic
 * group while a flow of an mm2-checkpoint node and an mm2-group-offsets node runs in Node-RED.
 * MM2 4.x's discovery lists classic and consumer groups only: following the source's commits
 * (the event path) and polling them, the checkpoint node selects the classic group and never the
 * streams or share group; neither is in the checkpoints topic nor written on the target; both are
 * named in the coverage (output 2) with why. Observed on the nodes' outputs and log, the
 * checkpoints topic and the target's committed offsets.
 * Before: the event path selected the streams group at its first commit and checkpointed it.
 * Older brokers have no such groups: the test skips itself there, saying so.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const apps = require('../harness/group-types-apps');
const { ourReads } = require('../harness/mm2-reads');
const { produceSyncs, restored, following, pollingReason, commitOffsets } = require('../harness/checkpoint-node');
const { AdminOffsetCommitter, GroupOffsetFetcher } = require('../../dist/kafka/group-client');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');

const PARTITIONS = 2;

describe('group types as MirrorMaker 2 selects them (a real Kafka Streams application and a real share consumer, Kafka 4.2+ brokers, a real flow)', function () {
  this.timeout(420000);
  /** @type {Array<() => Promise<unknown>>} */
  const cleanups = [];
  let started = false;
  before(async function () {
    const version = env.cluster('source').version;
    if (!apps.hasStreamsAndShareGroups(version)) {
      process.stderr.write(`      skipped: Kafka ${version} brokers have no streams or share groups (on by default from 4.2); run with KAFKA_VERSION=4.4.0\n`);
      this.skip();
    }
    await nodes.startServer();
    started = true;
  });
  after(async function () {
    if (!started) return;
    await nodes.helper.unload().catch(() => undefined);
    while (cleanups.length > 0) await cleanups.pop()().catch(() => undefined);
    await nodes.stopServer();
  });

  it('neither the streams group nor the share group is checkpointed or written on the target, both are named with why; the classic group beside them is', async function () {
    const version = env.cluster('source').version;
    const prefix = env.unique('gty');
    const topic = `${prefix}-t`;
    const streamsGroup = `${prefix}-streams`;
    const shareGroup = `${prefix}-share`;
    const classicGroup = `${prefix}-classic`;
    // aliases of its own: its own remote topic, checkpoints topic and offset-syncs topic
    const alias = env.unique('gtys');
    const syncsAlias = env.unique('gtyt');
    const remote = `${alias}.${topic}`;
    const checkpointsTopic = `${alias}.checkpoints.internal`;
    const sadmin = await env.admin('source');
    const tadmin = await env.admin('target');
    await sadmin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });
    // the remote topic on the target, as the mirror makes it (records at the same offsets)
    await tadmin.createTopics({ topics: [{ topic: remote, numPartitions: PARTITIONS }], waitForLeaders: true });
    for (const [name, t] of [['source', topic], ['target', remote]]) {
      const producer = env.kafka(name).producer({ allowAutoTopicCreation: false });
      await producer.connect();
      for (let p = 0; p < PARTITIONS; p++) await producer.send({ topic: t, messages: Array.from({ length: 20 }, (_, i) => ({ partition: p, key: `k${i}`, value: `v${i}` })) });
      await producer.disconnect();
    }
    // the mirror's offset syncs (0 -> 0 on each partition), read by the replication's feed
    await produceSyncs(`mm2-offset-syncs.${syncsAlias}.internal`, Array.from({ length: PARTITIONS }, (_, p) => [topic, p, 0, 0]));

    const committer = new AdminOffsetCommitter(env.kafka('source'));
    cleanups.push(() => committer.close());
    // __consumer_offsets exists (a fresh cluster creates it with its first group) before the node follows it
    await commitOffsets(committer, classicGroup, [[topic, 0, 5], [topic, 1, 5]]);
    // Commits of the classic group that always change its checkpoint (one delivery each on the event
    // path): back to 0 (0 -> 0, an upstream rewind MM2 checkpoints) and on to 10/12 (-> 1 by the +1 rule)
    let flip = false;
    const commitClassic = async () => {
      flip = !flip;
      const r = await committer.commit(classicGroup, [{ topic, partition: 0, offset: flip ? 0n : 10n }, { topic, partition: 1, offset: flip ? 0n : 12n }]);
      assert.equal(r.ok, true, r.message);
    };

    /** The flow: a checkpoint node (groups of the test, its topic) and a group-offsets node reading its checkpoints in place. */
    async function deploy(sourceOffsets) {
      await nodes.load([
        {
          id: 'cp', type: 'mm2-checkpoint', name: '', replication: 'rep', groups: `${prefix}-.*`, groupsExclude: '', topics: topic, topicsExclude: '',
          emitCheckpointsIntervalSeconds: '3600', refreshGroupsIntervalSeconds: '3600', sourceOffsets, wires: [['out1'], ['out2']],
        },
        { id: 'out1', type: 'helper' },
        { id: 'out2', type: 'helper' },
        { id: 'go', type: 'mm2-group-offsets', name: '', replication: 'rep', mode: 'replication', syncGroupOffsetsIntervalSeconds: '3600', groups: '', groupsExclude: '', wires: [['goout']] },
        { id: 'goout', type: 'helper' },
      ], { over: { src: { alias }, tgt: { alias: syncsAlias } } });
      const f = {
        cp: nodes.helper.getNode('cp'),
        go: nodes.helper.getNode('go'),
        out1: nodes.collect(nodes.helper.getNode('out1')),
        out2: nodes.collect(nodes.helper.getNode('out2')),
        goout: nodes.collect(nodes.helper.getNode('goout')),
      };
      assert.equal((await restored(f.cp)).ok, true, 'the checkpoint node restored its checkpoints');
      return f;
    }
    /** Asks the checkpoint node for a cycle; returns its coverage (output 2) and its whole state (output 1). */
    async function cycle(f, refreshGroups) {
      const [b1, b2] = [f.out1.length, f.out2.length];
      f.cp.receive({ payload: 'now', refreshGroups });
      await env.eventually(() => f.out2.length > b2, { timeout: 60000, what: 'the coverage of the cycle asked for' });
      const state = f.out1.slice(b1).find((m) => m.payload.full);
      assert.ok(state, 'the cycle asked for sent the whole state on output 1');
      return { coverage: f.out2[f.out2.length - 1].payload, latest: state.payload.latest };
    }
    /** Asks the group-offsets node for a sync now; returns its report (mm2/group-offsets). */
    async function sync(f) {
      const before = f.goout.length;
      f.go.receive({ payload: 'sync' });
      await env.eventually(() => f.goout.length > before, { timeout: 60000, what: 'the group-offsets report of the sync asked for' });
      return f.goout[f.goout.length - 1].payload;
    }
    /** Whether the event path (output 1, `full: false`) wrote checkpoints of `group` in the messages from `from` on. */
    const eventWrote = (f, group, from = 0) => f.out1.slice(from).some((m) => !m.payload.full && m.payload.checkpoints.some((c) => c.group === group));
    /** Every group a message of output 1 carried (written or in its state). */
    const carried = (f) => new Set(f.out1.flatMap((m) => [...m.payload.checkpoints.map((c) => c.group), ...Object.keys(m.payload.latest)]));
    /** Every group the group-offsets node wrote on the target. */
    const writtenOnTarget = (f) => new Set(f.goout.flatMap((m) => m.payload.written.map((w) => w.group)));

    // --- the event path: the node follows the source's __consumer_offsets
    const events = await deploy('auto');
    await env.eventually(() => following(events.cp), { timeout: 60000, what: 'the node following __consumer_offsets (its log)' });
    assert.equal(pollingReason(events.cp), null, 'never fell back to polling');
    // the first full cycle checkpoints the classic group (5 -> 1)
    await env.eventually(() => events.out1.some((m) => m.payload.full && (m.payload.latest[classicGroup] ?? []).length === PARTITIONS), { timeout: 60000, what: 'the classic group checkpointed by the first full cycle' });
    // the stream is fetching: a commit of the classic group is checkpointed as it happens
    await env.eventually(async () => {
      await commitClassic();
      return eventWrote(events, classicGroup);
    }, { timeout: 60000, interval: 2000, what: 'a commit of the classic group checkpointed by the event path' });

    // a Kafka Streams application (streams group) and a share consumer (share group) read the topic
    const streams = apps.start('streams', { version, bootstrap: env.cluster('source').bootstrap, group: streamsGroup, topic });
    const share = apps.start('share', { version, bootstrap: env.cluster('source').bootstrap, group: shareGroup, topic });
    cleanups.push(() => streams.stop(), () => share.stop());
    await streams.waitFor(/^consumed 40$/, 240000);
    await share.waitFor(/^subscribed$/, 120000);
    // the broker lists them with their types (asked with the test's own client)
    const fetcher = new GroupOffsetFetcher(env.kafka('source'));
    cleanups.push(() => fetcher.close());
    await env.eventually(async () => {
      const states = await fetcher.listGroupStates();
      return states.get(streamsGroup)?.type === 'streams' && states.get(shareGroup)?.type === 'share';
    }, { timeout: 120000, interval: 1000, what: 'the streams and share groups listed with their types' });
    // the streams group's commits (plain offset records under its application id) are on the source,
    // in __consumer_offsets where the event path reads them
    let streamsCommitted = null;
    await env.eventually(async () => {
      streamsCommitted = await sadmin.fetchOffsets({ groupId: streamsGroup, topics: [topic] });
      const parts = streamsCommitted.flatMap((t) => t.partitions);
      return parts.length === PARTITIONS && parts.every((x) => x.offset === '20');
    }, { timeout: 120000, interval: 1000, what: `the streams group committed 20 on each partition (${JSON.stringify(streamsCommitted)})` });
    // a commit of the classic group made after them, checkpointed by the event path: the node has
    // read past the streams group's commits
    const mark = events.out1.length;
    await env.eventually(async () => {
      await commitClassic();
      return eventWrote(events, classicGroup, mark);
    }, { timeout: 60000, interval: 2000, what: 'a later commit of the classic group checkpointed by the event path' });
    assert.ok(!eventWrote(events, streamsGroup), 'the event path did not select the streams group at its commits');
    assert.deepEqual([...carried(events)], [classicGroup], 'output 1 carried the classic group only');

    // the selection as it stands (a cycle without a new discovery): the classic group only
    const standing = await cycle(events, false);
    assert.equal(standing.coverage.groups, 1, 'one group selected: the streams group was not selected by its commits');
    assert.deepEqual([...new Set(standing.coverage.entries.map((e) => e.group))], [classicGroup]);
    assert.deepEqual(Object.keys(standing.latest), [classicGroup]);

    // a cycle with a new discovery (the polling path's rule): the classic group only, both named with why
    const full = await cycle(events, true);
    assert.equal(full.coverage.groups, 1);
    assert.deepEqual(Object.keys(full.latest), [classicGroup]);
    assert.equal(full.latest[classicGroup].length, PARTITIONS, 'the classic group is checkpointed');
    const named = full.coverage.notReplicatedGroups;
    assert.deepEqual(named.map((g) => [g.group, g.type]), [[shareGroup, 'share'], [streamsGroup, 'streams']]);
    assert.match(named[1].reason, /^a streams group \(Kafka Streams with group\.protocol=streams, KIP-1071\): MirrorMaker 2 checkpoints classic and consumer groups only/);
    assert.match(named[0].reason, /^a share group \(KIP-932\): its progress is kept in __share_group_state/);
    assert.deepEqual([...new Set(full.coverage.entries.map((e) => e.group))], [classicGroup]);
    assert.equal(full.coverage.entries.length, PARTITIONS);

    // the group-offsets node writes the classic group on the target, never the other two
    await sync(events);
    await env.eventually(async () => {
      const offsets = (await tadmin.fetchOffsets({ groupId: classicGroup, topics: [remote] })).flatMap((t) => t.partitions);
      return offsets.length === PARTITIONS && offsets.every((p) => p.offset !== '-1');
    }, { timeout: 60000, what: 'the classic group\'s offsets written on the target' });
    assert.deepEqual([...writtenOnTarget(events)], [classicGroup]);

    // --- the polling path: the node polls every group's offsets each cycle (redeployed with 'poll')
    await nodes.helper.unload();
    const polling = await deploy('poll');
    const polled = await env.eventually(async () => {
      const c = await cycle(polling, true);
      return c.coverage.entries.length > 0 && c.coverage.entries.every((e) => e.status !== 'store-loading') ? c : null;
    }, { timeout: 120000, interval: 1000, what: 'a polling cycle with the sync history loaded' });
    assert.equal(following(polling.cp), false, 'polling: the commits are not followed');
    assert.equal(pollingReason(polling.cp), null);
    assert.equal(polled.coverage.groups, 1);
    assert.deepEqual(Object.keys(polled.latest), [classicGroup]);
    assert.deepEqual([...new Set(polled.coverage.entries.map((e) => e.group))], [classicGroup]);
    assert.deepEqual(polled.coverage.notReplicatedGroups.map((g) => g.group), [shareGroup, streamsGroup]);
    await sync(polling);
    assert.deepEqual([...carried(polling)], [classicGroup]);
    assert.ok([...writtenOnTarget(polling)].every((g) => g === classicGroup), `the group-offsets node wrote the classic group only (${JSON.stringify([...writtenOnTarget(polling)])})`);
    await nodes.helper.unload();

    // nothing of either group in the checkpoints topic; the classic group's checkpoints are
    const written = await ourReads('target', checkpointsTopic, decodeCheckpoint);
    assert.deepEqual([...new Set(written.map((c) => c.group))], [classicGroup]);

    // on the target: the classic group's offsets only
    for (const group of [streamsGroup, shareGroup]) {
      const onTarget = await tadmin.fetchOffsets({ groupId: group, topics: [remote] });
      assert.ok(onTarget.every((t) => t.partitions.every((p) => p.offset === '-1')), `nothing written for ${group} on the target: ${JSON.stringify(onTarget)}`);
    }
    const targetGroups = (await tadmin.listGroups()).groups.map((g) => g.groupId);
    assert.ok(!targetGroups.includes(streamsGroup) && !targetGroups.includes(shareGroup), 'neither group exists on the target');
    assert.ok(targetGroups.includes(classicGroup));
  });
});
