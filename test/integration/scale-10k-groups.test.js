'use strict';
/**
 * 10,000 consumer groups x 10 partitions through the full failover example in a real Node-RED:
 * deploy, steady state (a checkpoint for every group partition in the checkpoints topic), a
 * redeploy in the middle of the work (a commit storm on the source, the group-offsets node
 * writing 10,000 groups) and an undeploy all finish within Node-RED's close timeout (the runner
 * sets 15 s), and Node-RED never logs "Close timed out". No timing is asserted beyond that
 * limit, which is Node-RED's own. (Target offsets at 10,000 groups: mm2-group-offsets.test.js.)
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');

const GROUPS = Number(process.env.SCALE_GROUPS || 10000);
const PARTITIONS = 10;

function flow(topicsPattern) {
  const f = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'full-failover.json'), 'utf8'));
  for (const n of f) {
    if (n.type === 'mm2-cluster' && n.alias === 'source') n.bootstrap = env.cluster('source').bootstrap;
    if (n.type === 'mm2-cluster' && n.alias === 'target') n.bootstrap = env.cluster('target').bootstrap;
    // only this file's topic: the other suites' topics stay out of the mirror and the checkpoints
    if (n.type === 'mm2-mirror' || n.type === 'mm2-checkpoint') n.topics = topicsPattern;
  }
  return f;
}

describe(`${GROUPS} groups x ${PARTITIONS} partitions: deploy, steady state, redeploy and undeploy within the close timeout (real Node-RED, real brokers)`, function () {
  this.timeout(900000);
  let nr = null;
  const topic = env.unique('scale');
  const prefix = env.unique('sg');
  const groups = Array.from({ length: GROUPS }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`);

  after(async function () {
    if (nr) await nr.stop();
  });

  it('checkpoints every group partition, and a redeploy in a commit storm and an undeploy never time out a close', async function () {
    const admin = await env.admin('source');
    await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });
    const producer = env.kafka('source').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    for (let p = 0; p < PARTITIONS; p++) {
      await producer.send({ topic, messages: Array.from({ length: 300 }, (_, i) => ({ partition: p, value: `v${i}` })) });
    }
    await producer.disconnect();
    const committer = new AdminOffsetCommitter(env.kafka('source'));
    try {
      const results = await committer.commitMany(groups.map((group) => ({
        group,
        // at the end of each partition: at or above the newest offset sync, so every group partition
        // translates (one further below may be older than the oldest sync MM2's store keeps)
        offsets: Array.from({ length: PARTITIONS }, (_, p) => ({ topic, partition: p, offset: 300n })),
      })));
      assert.equal([...results.values()].filter((r) => !r.ok).length, 0, 'every setup commit succeeded');

      nr = await startNodeRed({ flows: flow(topic), quiet: !process.env.SCALE_LOG, logLevel: process.env.SCALE_LOG || 'warn' });
      const target = await env.admin('target');
      // steady state: the checkpoints topic holds (at least) one checkpoint per group partition
      const checkpointed = async () => {
        const [p0] = await target.fetchTopicOffsets('source.checkpoints.internal');
        return BigInt(p0.high) - BigInt(p0.low) >= BigInt(GROUPS * PARTITIONS);
      };
      await env.eventually(checkpointed, { timeout: 600000, interval: 2000, what: `${GROUPS * PARTITIONS} checkpoints in source.checkpoints.internal` });

      const before = BigInt((await target.fetchTopicOffsets('source.checkpoints.internal'))[0].high);
      // a source commit storm while a redeploy closes every node
      const more = env.kafka('source').producer({ allowAutoTopicCreation: false });
      await more.connect();
      await more.send({ topic, messages: Array.from({ length: 150 }, (_, i) => ({ partition: 0, value: `w${i}` })) });
      await more.disconnect();
      const storm = committer.commitMany(groups.slice(0, 2000).map((group) => ({ group, offsets: [{ topic, partition: 0, offset: 450n }] })));
      const redeployed = flow(topic).map((n) => (n.type === 'mm2-checkpoint' ? { ...n, name: 'checkpoint (redeployed)' } : n));
      await nr.deploy(redeployed);
      await storm;
      // the redeployed nodes work: the storm's commits (partition 0 moved to 450, past new offset
      // syncs of the 150 new records) are checkpointed
      await env.eventually(async () => {
        const [p0] = await target.fetchTopicOffsets('source.checkpoints.internal');
        return BigInt(p0.high) > before;
      }, { timeout: 600000, interval: 2000, what: 'new checkpoints for the storm after the redeploy' });
      // undeploy
      await nr.deploy([]);
      assert.doesNotMatch(nr.log, /Close timed out/i, 'no node took longer than Node-RED\'s close timeout');
      assert.doesNotMatch(nr.log, /Error stopping node/i);
    } finally {
      await committer.close();
    }
  });
});
