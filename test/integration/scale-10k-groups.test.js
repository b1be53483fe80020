'use strict';
/**
 * 10,000 consumer groups x 10 partitions through the full failover example in a real Node-RED:
 * deploy, steady state (target offsets written for the groups), a redeploy in the middle of the
 * work and an undeploy all finish within Node-RED's close timeout (the runner sets 15 s), and
 * Node-RED never logs "Close timed out". No timing is asserted beyond that limit, which is
 * Node-RED's own.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { AdminOffsetCommitter, fetchCommittedOffsets } = require('../../dist/kafka/groups');

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

  it('never times out a close, and writes target offsets for the groups', async function () {
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
      const results = await committer.commitMany(groups.map((group, i) => ({
        group,
        offsets: Array.from({ length: PARTITIONS }, (_, p) => ({ topic, partition: p, offset: BigInt(100 + ((i + p) % 200)) })),
      })));
      assert.equal([...results.values()].filter((r) => !r.ok).length, 0, 'every setup commit succeeded');

      nr = await startNodeRed({ flows: flow(topic), quiet: true, logLevel: 'warn' });
      const sample = [groups[0], groups[Math.floor(GROUPS / 2)], groups[GROUPS - 1]];
      const target = await env.admin('target');
      const written = async () => {
        for (const g of sample) {
          const t = (await fetchCommittedOffsets(target, g)).filter((o) => o.topic === `source.${topic}` && o.offset !== null);
          if (t.length !== PARTITIONS) return false;
        }
        return true;
      };
      await env.eventually(written, { timeout: 600000, interval: 2000, what: `target offsets for ${sample.join(', ')}` });

      // a source commit storm while a redeploy closes every node
      const storm = committer.commitMany(groups.slice(0, 2000).map((group) => ({ group, offsets: [{ topic, partition: 0, offset: 299n }] })));
      const redeployed = flow(topic).map((n) => (n.type === 'mm2-checkpoint' ? { ...n, name: 'checkpoint (redeployed)' } : n));
      await nr.deploy(redeployed);
      await storm;
      await env.eventually(written, { timeout: 600000, interval: 2000, what: 'target offsets still there after the redeploy' });
      // undeploy
      await nr.deploy([]);
      assert.doesNotMatch(nr.log, /Close timed out/i, 'no node took longer than Node-RED\'s close timeout');
      assert.doesNotMatch(nr.log, /Error stopping node/i);
    } finally {
      await committer.close();
    }
  });
});
