'use strict';
/**
 * Group types as MirrorMaker 2 selects them, on brokers with streams and share groups on by
 * default (Kafka 4.2+; the suite's 4.4.0): a real Kafka Streams application
 * (group.protocol=streams, KIP-1071), whose members commit plain offsets under its application
 * id, and a real share consumer (KIP-932) read the replicated topic beside a classic group. MM2
 * 4.x's discovery lists classic and consumer groups only: the event path and the polling path
 * select the classic group and never the streams or share group; neither is checkpointed nor
 * written on the target; both are named in the coverage output with why.
 * Before: the event path selected the streams group at its first commit and checkpointed it.
 * Older brokers have no such groups: the test skips itself there, saying so.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const apps = require('../harness/group-types-apps');
const { ourReads } = require('../harness/mm2-reads');
const { AdminOffsetCommitter } = require('../../dist/kafka/admin-offset-committer');
const { GroupOffsetFetcher } = require('../../dist/kafka/group-offset-fetcher');
const { CheckpointEmitter } = require('../../dist/engines/checkpoint-emitter');
const { GroupOffsetSyncer } = require('../../dist/engines/group-offset-syncer');
const { ClusterConnection } = require('../../dist/kafka/connection');
const { ensureInternalTopic } = require('../../dist/kafka/internal-topics');
const { createReplicationPolicy } = require('../../dist/core/replication-policy');
const { createGroupFilter, createTopicFilter } = require('../../dist/core/filters');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');
const { coveragePayload, checkpointsPayload } = require('../../dist/nodes/shared/contracts');

describe('group types as MirrorMaker 2 selects them (a real Kafka Streams application and a real share consumer, Kafka 4.2+ brokers)', function () {
  this.timeout(420000);
  /** @type {Array<() => Promise<unknown>>} */
  const cleanups = [];
  after(async function () {
    while (cleanups.length > 0) await cleanups.pop()().catch(() => undefined);
  });

  before(function () {
    const version = env.cluster('source').version;
    if (!apps.hasStreamsAndShareGroups(version)) {
      process.stderr.write(`      skipped: Kafka ${version} brokers have no streams or share groups (on by default from 4.2); run with KAFKA_VERSION=4.4.0\n`);
      this.skip();
    }
  });

  it('neither the streams group nor the share group is checkpointed or written on the target, both are named with why; the classic group beside them is', async function () {
    const version = env.cluster('source').version;
    const prefix = env.unique('gty');
    const topic = `${prefix}-t`;
    const streamsGroup = `${prefix}-streams`;
    const shareGroup = `${prefix}-share`;
    const classicGroup = `${prefix}-classic`;
    const PARTITIONS = 2;
    const sadmin = await env.admin('source');
    const tadmin = await env.admin('target');
    await sadmin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });
    // the remote topic on the target, as the mirror makes it (records at the same offsets)
    await tadmin.createTopics({ topics: [{ topic: `source.${topic}`, numPartitions: PARTITIONS }], waitForLeaders: true });
    for (const [name, t] of [['source', topic], ['target', `source.${topic}`]]) {
      const producer = env.kafka(name).producer({ allowAutoTopicCreation: false });
      await producer.connect();
      for (let p = 0; p < PARTITIONS; p++) await producer.send({ topic: t, messages: Array.from({ length: 20 }, (_, i) => ({ partition: p, key: `k${i}`, value: `v${i}` })) });
      await producer.disconnect();
    }

    const source = new ClusterConnection({ alias: 'source', bootstrapServers: [env.cluster('source').bootstrap] });
    const target = new ClusterConnection({ alias: 'target', bootstrapServers: [env.cluster('target').bootstrap] });
    const committer = new AdminOffsetCommitter(env.kafka('source'));
    cleanups.push(() => committer.close(), () => source.close(), () => target.close());
    /** @type {any[]} */
    const delivered = [];
    /** @type {any[]} */
    const modes = [];
    const checkpointsTopic = `${prefix}.checkpoints.internal`;
    const emitter = (sourceOffsets) =>
      new CheckpointEmitter({
        source, target, sourceAlias: 'source', targetAlias: 'target',
        policy: createReplicationPolicy({}),
        checkpointsTopic,
        groupFilter: createGroupFilter({ groups: `${prefix}-.*` }),
        topicFilter: createTopicFilter({ topics: topic }),
        ensureTopic: async (c, t) => ensureInternalTopic(await c.admin(), t, 1),
        sourceOffsets,
        events: { delivered: (r) => delivered.push(r), sourceMode: (m) => modes.push(m) },
      });
    // __consumer_offsets exists (a fresh cluster creates it with its first group) before the stream follows it
    const first = await committer.commit(classicGroup, [{ topic, partition: 0, offset: 5n }, { topic, partition: 1, offset: 5n }]);
    assert.equal(first.ok, true, first.message);
    const events = emitter('auto');
    cleanups.push(() => events.stop());
    for (let p = 0; p < PARTITIONS; p++) events.handleSyncEvent({ event: 'syncs', syncs: [{ topic, partition: p, upstreamOffset: 0n, downstreamOffset: 0n }] });
    events.handleSyncEvent({ event: 'loaded' });
    await events.start();
    assert.deepEqual(modes.map((m) => m.kind), ['events'], `following __consumer_offsets (${JSON.stringify(modes)})`);
    // the stream is fetching: a first classic commit arrives as an event
    await env.eventually(async () => {
      const r = await committer.commit(classicGroup, [{ topic, partition: 0, offset: 10n }, { topic, partition: 1, offset: 12n }]);
      assert.equal(r.ok, true, r.message);
      return delivered.some((d) => !d.full && d.groups.includes(classicGroup));
    }, { timeout: 60000, interval: 2000, what: 'a commit of the classic group delivered by the event path' });

    // a Kafka Streams application (streams group) and a share consumer (share group) read the topic
    const streams = apps.start('streams', { version, bootstrap: env.cluster('source').bootstrap, group: streamsGroup, topic });
    const share = apps.start('share', { version, bootstrap: env.cluster('source').bootstrap, group: shareGroup, topic });
    cleanups.push(() => streams.stop(), () => share.stop());
    await streams.waitFor(/^consumed 40$/, 240000);
    await share.waitFor(/^subscribed$/, 120000);
    // the broker lists them with their types
    const fetcher = new GroupOffsetFetcher(env.kafka('source'));
    cleanups.push(() => fetcher.close());
    await env.eventually(async () => {
      const states = await fetcher.listGroupStates();
      return states.get(streamsGroup)?.type === 'streams' && states.get(shareGroup)?.type === 'share';
    }, { timeout: 120000, interval: 1000, what: 'the streams and share groups listed with their types' });
    // the streams group's commits (plain offset records under its application id) are on the source,
    // in __consumer_offsets where the event path reads them (asked here with the test's own client)
    let streamsCommitted = null;
    await env.eventually(async () => {
      streamsCommitted = await sadmin.fetchOffsets({ groupId: streamsGroup, topics: [topic] });
      const parts = streamsCommitted.flatMap((t) => t.partitions);
      return parts.length === PARTITIONS && parts.every((x) => x.offset === '20');
    }, { timeout: 120000, interval: 1000, what: `the streams group committed 20 on each partition (${JSON.stringify(streamsCommitted)})` });
    // a classic commit written after them, delivered by the event path: the stream has read past the
    // streams group's commits (the deliveries of the commits above ended minutes ago, while the apps started)
    const mark = delivered.length;
    await env.eventually(async () => {
      const r = await committer.commit(classicGroup, [{ topic, partition: 0, offset: 11n }, { topic, partition: 1, offset: 13n }]);
      assert.equal(r.ok, true, r.message);
      return delivered.slice(mark).some((d) => !d.full && d.groups.includes(classicGroup));
    }, { timeout: 60000, interval: 2000, what: 'a later commit of the classic group delivered by the event path' });
    assert.ok(!delivered.some((d) => d.groups.includes(streamsGroup)), 'the event path did not select the streams group at its commits');
    // the selection as it stands (a full cycle without a new discovery): the classic group only
    const standing = await events.cycle();
    assert.deepEqual(standing.groups, [classicGroup], 'the streams group was not selected by its commits');

    // a full cycle with a new discovery (the polling path's rule): the classic group only
    const full = await events.cycle({ refreshGroups: true });
    assert.deepEqual(full.groups, [classicGroup]);
    assert.ok((full.latest.get(classicGroup) ?? []).length === PARTITIONS, 'the classic group is checkpointed');
    assert.ok(!full.latest.has(streamsGroup) && !full.latest.has(shareGroup));
    const coverage = coveragePayload(full);
    assert.deepEqual(coverage.notReplicatedGroups.map((g) => [g.group, g.type]), [[shareGroup, 'share'], [streamsGroup, 'streams']]);
    assert.match(coverage.notReplicatedGroups[1].reason, /^a streams group \(Kafka Streams with group\.protocol=streams, KIP-1071\): MirrorMaker 2 checkpoints classic and consumer groups only/);
    assert.match(coverage.notReplicatedGroups[0].reason, /^a share group \(KIP-932\): its progress is kept in __share_group_state/);
    assert.ok(!coverage.entries.some((c) => c.group !== classicGroup));
    assert.ok(coverage.entries.some((c) => c.group === classicGroup));

    // polling only (sourceOffsets 'poll'): the same selection
    const polling = emitter('poll');
    cleanups.push(() => polling.stop());
    for (let p = 0; p < PARTITIONS; p++) polling.handleSyncEvent({ event: 'syncs', syncs: [{ topic, partition: p, upstreamOffset: 0n, downstreamOffset: 0n }] });
    polling.handleSyncEvent({ event: 'loaded' });
    await polling.start();
    const polled = await polling.cycle({ refreshGroups: true });
    assert.deepEqual(polled.groups, [classicGroup]);
    assert.deepEqual(polled.notReplicatedGroups.map((g) => g.group), [shareGroup, streamsGroup]);
    await polling.stop();

    // nothing of either group in the checkpoints topic; the classic group's checkpoints are
    const written = await ourReads('target', checkpointsTopic, decodeCheckpoint);
    assert.deepEqual([...new Set(written.map((c) => c.group))], [classicGroup]);
    assert.ok(!delivered.some((d) => d.written.some((c) => c.group !== classicGroup)));

    // the group offsets written on the target from the checkpoints: the classic group's only
    const tfetcher = new GroupOffsetFetcher(env.kafka('target'));
    const tcommitter = new AdminOffsetCommitter(env.kafka('target'));
    cleanups.push(() => tfetcher.close(), () => tcommitter.close());
    const syncer = new GroupOffsetSyncer({
      connection: { admin: async () => tadmin, committer: () => tcommitter, offsetFetcher: () => tfetcher, reportOk: () => undefined },
      groupFilter: createGroupFilter({ groups: `${prefix}-.*` }),
    });
    syncer.applyCheckpointsJson(/** @type {any} */ (checkpointsPayload(full, { sourceCluster: 'source', targetCluster: 'target', checkpointsTopic })).latest);
    const synced = await syncer.sync();
    assert.deepEqual(synced.written.map((w) => w.group), [classicGroup]);
    const onTarget = await tadmin.fetchOffsets({ groupId: streamsGroup });
    assert.ok(onTarget.every((t) => t.partitions.every((p) => p.offset === '-1')), `nothing written for the streams group on the target: ${JSON.stringify(onTarget)}`);
    const targetGroups = (await tadmin.listGroups()).groups.map((g) => g.groupId);
    assert.ok(!targetGroups.includes(streamsGroup) && !targetGroups.includes(shareGroup), 'neither group exists on the target');
    assert.ok(targetGroups.includes(classicGroup));
  });
});
