'use strict';
/**
 * A failed checkpoint write is sent again (MM2 forgets it until the group moves or the task
 * restarts): the checkpoints topic disappears while an mm2-checkpoint node runs (a real fault: the
 * topic deleted on the target), the cycle asked for fails and says so (its message's error, a red
 * status), the topic comes back, and the next cycle writes the same checkpoint without the group
 * having moved. Observed as a user observes it: the node's outputs, log and status, and the
 * checkpoints topic read back from the target.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { ensureInternalTopic } = require('../../dist/kafka/internal-topics');
const { AdminOffsetCommitter } = require('../../dist/kafka/admin-offset-committer');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');
const { ourReads } = require('../harness/mm2-reads');
const { produceSyncs, restored, syncsLoaded, statusCalls, lastStatusText, logged } = require('../harness/checkpoint-node');

describe('checkpoint writes that fail are sent again (real brokers)', function () {
  this.timeout(180000);
  before(() => nodes.startServer());
  after(() => nodes.stopServer());
  afterEach(() => nodes.helper.unload());

  it('re-sends a checkpoint whose write failed once the topic is back, without the group moving', async function () {
    // a source alias of its own names the node's checkpoints topic, a target alias of its own its offset-syncs topic
    const alias = env.unique('retry');
    const targetAlias = env.unique('retryt');
    const topic = env.unique('retry-t');
    const group = env.unique('retry-g');
    const checkpointsTopic = `${alias}.checkpoints.internal`;
    const syncsTopic = `mm2-offset-syncs.${targetAlias}.internal`;
    const sourceAdmin = await env.admin('source');
    const targetAdmin = await env.admin('target');
    await sourceAdmin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    const committer = new AdminOffsetCommitter(env.kafka('source'));
    try {
      assert.equal((await committer.commit(group, [{ topic, partition: 0, offset: 10n }])).ok, true);
      await produceSyncs(syncsTopic, [[topic, 0, 5, 3]]);
      await nodes.load([
        {
          id: 'cp', type: 'mm2-checkpoint', name: '', replication: 'rep', groups: group, groupsExclude: '', topics: '', topicsExclude: '',
          emitCheckpointsIntervalSeconds: '3600', refreshGroupsIntervalSeconds: '3600',
          sourceOffsets: 'poll', // cycles only when asked: the test counts what each cycle writes
          wires: [['out1'], ['out2']],
        },
        { id: 'out1', type: 'helper' },
        { id: 'out2', type: 'helper' },
        // the flow's offset-syncs node reports what the replication's one reader of the syncs hands to both nodes
        { id: 'os', type: 'mm2-offset-syncs', name: '', replication: 'rep', wires: [['osout']] },
        { id: 'osout', type: 'helper' },
      ], { over: { src: { alias }, tgt: { alias: targetAlias } } });
      const cp = nodes.helper.getNode('cp');
      const out1 = nodes.collect(nodes.helper.getNode('out1'));
      const out2 = nodes.collect(nodes.helper.getNode('out2'));
      const osout = nodes.collect(nodes.helper.getNode('osout'));
      const syncReported = (up) => osout.some((m) => m.payload.event === 'syncs' && (m.payload.syncs ?? []).some((x) => x.topic === topic && x.upstreamOffset === String(up)));
      assert.equal((await restored(cp)).ok, true);
      await env.eventually(() => syncsLoaded(cp), { what: `the syncs loaded (status: ${lastStatusText(cp)})` });
      /** Asks for a cycle; resolves with the coverage message it sent, or null when it failed (the node's error). */
      const cycle = async () => {
        const [covs, errors] = [out2.length, logged(cp, 'error').length];
        cp.receive({ payload: 'now' });
        await env.eventually(() => out2.length > covs || logged(cp, 'error').length > errors, { what: 'the cycle asked for to end' });
        return out2.length > covs ? out2[out2.length - 1] : null;
      };
      const written = () => out1.at(-1).payload.checkpoints.map((c) => [c.group, c.topic, c.partition, c.upstreamOffset, c.downstreamOffset]);

      // the first cycle writes 10 -> 4 (+1 above the sync 5 -> 3)
      assert.ok(await cycle(), 'the first cycle completed');
      assert.deepEqual(written(), [[group, `${alias}.${topic}`, 0, '10', '4']]);
      assert.equal((await ourReads('target', checkpointsTopic, decodeCheckpoint)).length, 1, 'first checkpoint written');

      // the group moves, but the checkpoints topic is gone: the write fails and is reported
      await produceSyncs(syncsTopic, [[topic, 0, 12, 8]]);
      assert.equal((await committer.commit(group, [{ topic, partition: 0, offset: 12n }])).ok, true);
      await targetAdmin.deleteTopics({ topics: [checkpointsTopic] });
      await env.eventually(async () => !(await targetAdmin.listTopics()).includes(checkpointsTopic), { what: 'topic deleted' });
      // the new sync reached the checkpoint node (the offset-syncs node, fed by the same reader, reported it): 12 -> 8 is to be written
      await env.eventually(() => syncReported(12), { what: 'the sync 12 -> 8 handed out by the replication\'s reader' });
      const statusesBefore = statusCalls(cp).length;
      const outputsBefore = out1.length;
      const failed = await cycle();
      assert.equal(failed, null, 'the write failed: no coverage for that cycle');
      assert.match(logged(cp, 'error').at(-1), /checkpoint cycle failed: topic does not exist/, `the message that asked for the cycle gets the error: ${logged(cp, 'error').at(-1)}`);
      assert.equal(out1.length, outputsBefore, 'nothing reported as written');
      await env.eventually(() => statusCalls(cp).slice(statusesBefore).some((s) => s.fill === 'red'), { what: `a red status (${lastStatusText(cp)})` });

      // the topic is back; the group has not moved since: the next cycle still writes 12 -> 8
      await ensureInternalTopic(targetAdmin, checkpointsTopic, 1);
      assert.ok(await cycle(), 'the cycle after the topic came back completed');
      assert.deepEqual(written(), [[group, `${alias}.${topic}`, 0, '12', '8']]);
      const after = await ourReads('target', checkpointsTopic, decodeCheckpoint);
      assert.deepEqual(after.map((c) => [c.upstreamOffset, c.downstreamOffset]), [[12n, 8n]]);
      // and once written it is not written again; the status is no longer red
      assert.ok(await cycle());
      assert.deepEqual(written(), []);
      assert.notEqual(statusCalls(cp).at(-1).fill, 'red', `not red once the writes work (${lastStatusText(cp)})`);
    } finally {
      await committer.close();
    }
  });
});
