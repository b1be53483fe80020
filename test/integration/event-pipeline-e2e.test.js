'use strict';
/**
 * The event-driven pipeline end to end: the full failover example in a real Node-RED, with every
 * interval set to 600 s, so that nothing below can come from a timer. A commit on the source
 * (seen in `__consumer_offsets`) must reach the target's group offsets through mirror, offset
 * syncs, checkpoint and group offsets: for a group that existed at deploy, and for a group
 * first seen after it; and a later commit must move the target again.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { AdminOffsetCommitter, fetchCommittedOffsets } = require('../../dist/kafka/group-client');

const PARTITIONS = 3;
const LONG = '600';

function flowWithLongIntervals(topic, groupsPrefix) {
  const flow = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'full-failover.json'), 'utf8'));
  for (const n of flow) {
    if (n.type === 'mm2-cluster' && n.alias === 'source') n.bootstrap = env.cluster('source').bootstrap;
    if (n.type === 'mm2-cluster' && n.alias === 'target') n.bootstrap = env.cluster('target').bootstrap;
    // only this file's topic and groups: the other suites' topics and groups stay out
    if (n.type === 'mm2-mirror') n.topics = topic;
    if (n.type === 'mm2-checkpoint' || n.type === 'mm2-group-offsets') n.groups = `${groupsPrefix}.*`;
    if (n.type === 'mm2-checkpoint') {
      n.topics = topic;
      n.emitCheckpointsIntervalSeconds = LONG;
      n.refreshGroupsIntervalSeconds = LONG;
      n.sourceOffsets = 'auto';
    }
    if (n.type === 'mm2-group-offsets') n.syncGroupOffsetsIntervalSeconds = LONG;
  }
  return flow;
}

describe('event-driven pipeline: a source commit reaches the target without waiting for an interval (real Node-RED, real brokers)', function () {
  this.timeout(240000);
  let nr = null;
  const topic = env.unique('ev-orders');
  const remote = `source.${topic}`;

  after(async function () {
    if (nr) await nr.stop();
  });

  /** The target offsets of `group` on the remote topic, by partition. */
  async function targetOffsets(group) {
    const target = await env.admin('target');
    const out = new Map();
    for (const o of await fetchCommittedOffsets(target, group)) if (o.topic === remote && o.offset !== null) out.set(o.partition, o.offset);
    return out;
  }

  it('translates commits as they happen, for a group known at deploy and for a new one', async function () {
    const admin = await env.admin('source');
    await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });
    const producer = env.kafka('source').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    for (let p = 0; p < PARTITIONS; p++) {
      await producer.send({ topic, messages: Array.from({ length: 400 }, (_, i) => ({ partition: p, value: `p${p}-${i}` })) });
    }
    await producer.disconnect();
    const committer = new AdminOffsetCommitter(env.kafka('source'));
    const commitAll = async (group, offset) => {
      const r = await committer.commit(group, Array.from({ length: PARTITIONS }, (_, p) => ({ topic, partition: p, offset: BigInt(offset) })));
      assert.equal(r.ok, true, `commit of ${group}: ${r.message ?? ''}`);
    };
    const prefix = env.unique('ev');
    const before = `${prefix}-known`;
    await commitAll(before, 150);

    nr = await startNodeRed({ flows: flowWithLongIntervals(topic, prefix), quiet: !process.env.E2E_LOG, logLevel: process.env.E2E_LOG || 'warn' });
    try {
      // the mirror copies the topic and writes offset syncs; the known group gets target offsets
      // (the checkpoint node's first full cycle runs when the stream stands, not after 600 s)
      await env.eventually(async () => {
        const t = await targetOffsets(before);
        return t.size === PARTITIONS && [...t.values()].every((o) => o > 0n && o <= 150n);
      }, { timeout: 120000, interval: 500, what: `${before} to have target offsets on every partition of ${remote}` });

      // a later commit moves the target again, with every interval at 600 s
      const first = await targetOffsets(before);
      await commitAll(before, 380);
      await env.eventually(async () => {
        const t = await targetOffsets(before);
        return [...t].every(([p, o]) => o > first.get(p) && o <= 380n);
      }, { timeout: 60000, interval: 250, what: `${before}'s target offsets to follow its commit at 380` });

      // a group first seen after the deploy is selected and written at once
      const fresh = `${prefix}-new`;
      await commitAll(fresh, 260);
      await env.eventually(async () => {
        const t = await targetOffsets(fresh);
        return t.size === PARTITIONS && [...t.values()].every((o) => o > 0n && o <= 260n);
      }, { timeout: 60000, interval: 250, what: `${fresh} (first committed after deploy) to have target offsets` });
    } finally {
      await committer.close();
    }
  });
});
