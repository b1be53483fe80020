'use strict';
/**
 * A failed checkpoint write is sent again (MM2 forgets it until the group moves or the task
 * restarts): the checkpoints topic disappears while the emitter runs, the write fails and is
 * reported, the topic comes back, and the next cycle writes the same checkpoint without the
 * group having moved. Uses the Node-RED-free CheckpointEmitter against the real clusters.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { ClusterConnection } = require('../../dist/kafka/connection');
const { CheckpointEmitter } = require('../../dist/engines/checkpoint-emitter');
const { ensureInternalTopic } = require('../../dist/kafka/internal-topics');
const { AdminOffsetCommitter } = require('../../dist/kafka/admin-offset-committer');
const { createReplicationPolicy } = require('../../dist/core/replication-policy');
const { createGroupFilter, createTopicFilter } = require('../../dist/core/filters');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');

async function readCheckpoints(topic) {
  const admin = await env.admin('target');
  const [p0] = await admin.fetchTopicOffsets(topic);
  const want = Number(p0.high) - Number(p0.low);
  const out = [];
  if (want === 0) return out;
  const c = env.kafka('target').consumer({ groupId: env.unique('__retry-read') });
  await c.connect();
  await c.subscribe({ topics: [topic], fromBeginning: true });
  await c.run({ eachMessage: async ({ message }) => { out.push(decodeCheckpoint(message.key, message.value)); } });
  await env.eventually(() => out.length >= want, { what: `${want} checkpoints` });
  await c.disconnect();
  return out;
}

describe('checkpoint writes that fail are sent again (real brokers)', function () {
  it('re-sends a checkpoint whose write failed once the topic is back, without the group moving', async function () {
    const alias = env.unique('retry');
    const topic = env.unique('retry-t');
    const group = env.unique('retry-g');
    const checkpointsTopic = `${alias}.checkpoints.internal`;
    const sourceAdmin = await env.admin('source');
    const targetAdmin = await env.admin('target');
    await sourceAdmin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    const source = new ClusterConnection({ alias, bootstrapServers: [env.cluster('source').bootstrap] });
    const target = new ClusterConnection({ alias: 'target', bootstrapServers: [env.cluster('target').bootstrap], requestTimeoutMs: 5000 });
    const committer = new AdminOffsetCommitter(env.kafka('source'));
    assert.equal((await committer.commit(group, [{ topic, partition: 0, offset: 10n }])).ok, true);
    const emitter = new CheckpointEmitter({
      source, target, sourceAlias: alias, targetAlias: 'target',
      policy: createReplicationPolicy({}), checkpointsTopic,
      groupFilter: createGroupFilter({ groups: group }), topicFilter: createTopicFilter({}),
      ensureTopic: async (c, t) => ensureInternalTopic(await c.admin(), t, 1),
      sourceOffsets: 'poll', // cycles only when asked: the test counts what each cycle writes
    });
    try {
      await emitter.start();
      emitter.handleSyncEvent({ event: 'syncs', syncs: [{ topic, partition: 0, upstreamOffset: 5n, downstreamOffset: 3n }] });
      emitter.handleSyncEvent({ event: 'loaded' });
      await env.eventually(async () => (await emitter.cycle({ refreshGroups: true })).groups.includes(group), { what: 'group selected' });
      assert.equal((await readCheckpoints(checkpointsTopic)).length, 1, 'first checkpoint written');

      // the group moves, but the checkpoints topic is gone: the write fails and is reported
      emitter.handleSyncEvent({ event: 'syncs', syncs: [{ topic, partition: 0, upstreamOffset: 12n, downstreamOffset: 8n }] });
      assert.equal((await committer.commit(group, [{ topic, partition: 0, offset: 12n }])).ok, true);
      await targetAdmin.deleteTopics({ topics: [checkpointsTopic] });
      await env.eventually(async () => !(await targetAdmin.listTopics()).includes(checkpointsTopic), { what: 'topic deleted' });
      /** @type {{ ok?: object, err?: unknown }} */
      const failed = await emitter.cycle().then((r) => ({ ok: r }), (e) => ({ err: e }));
      assert.ok(failed.err, 'the write failed');
      assert.equal(target.state.state, 'error');

      // the topic is back; the group has not moved since: the next cycle still writes 12 -> 8
      await ensureInternalTopic(targetAdmin, checkpointsTopic, 1);
      const r = await emitter.cycle();
      assert.deepEqual(r.written.map((c) => [c.group, c.topic, c.partition, c.upstreamOffset, c.downstreamOffset]), [[group, `${alias}.${topic}`, 0, 12n, 8n]]);
      const after = await readCheckpoints(checkpointsTopic);
      assert.deepEqual(after.map((c) => [c.upstreamOffset, c.downstreamOffset]), [[12n, 8n]]);
      // and once written it is not written again
      assert.deepEqual((await emitter.cycle()).written, []);
      assert.equal(target.state.state, 'connected');
    } finally {
      await emitter.stop();
      await committer.close();
      await source.close();
      await target.close();
    }
  });
});
