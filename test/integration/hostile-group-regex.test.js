'use strict';
/**
 * Issue 26 (hostile trial): a replication whose `groups` filter is catastrophic for a
 * backtracking engine, `(a+)+$`, and a consumer group on the source named `aaaa...a!` (40 a's):
 * JavaScript's RegExp took minutes on that name, blocking Node-RED's event loop (the checkpoint
 * node stayed yellow "waiting for offset syncs", nothing else ran). With the linear-time matcher
 * the flow keeps working in a real Node-RED against real brokers: the normal group matching the
 * filter is checkpointed and its offset written on the target, the checkpoint node turns green,
 * the admin API answers throughout; the hostile group, which does not match, is left alone.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');
const { TopicReader } = require('../../dist/kafka/topic-reader');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');
const { commitOffsets } = require('../harness/checkpoint-node');

/** Everything this file creates carries a tag (the suite's clusters are shared). */
const TAG = env.unique('hx');
const TOPIC = `${TAG}-orders`;
const SOURCE = `${TAG}-source`;
/** The filter: the catastrophic part, after the tag so that only this file's groups can match. */
const GROUPS = `${TAG}-(a+)+$`;
const HOSTILE = `${TAG}-${'a'.repeat(40)}!`;
const NORMAL = `${TAG}-aaaa`;

function flow() {
  return [
    { id: 'tab', type: 'tab', label: 'hostile group regex' },
    { id: 'c-src', type: 'mm2-cluster', alias: SOURCE, bootstrap: env.cluster('source').bootstrap, saslMechanism: 'none' },
    { id: 'c-tgt', type: 'mm2-cluster', alias: `${TAG}-target`, bootstrap: env.cluster('target').bootstrap, saslMechanism: 'none' },
    { id: 'rep', type: 'mm2-replication', source: 'c-src', target: 'c-tgt', policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', offsetTranslation: 'precise', replicationFactor: '1' },
    { id: 'mirror', type: 'mm2-mirror', z: 'tab', replication: 'rep', topics: `${TAG}-.*`, topicsExclude: '.*[\\-\\.]internal, .*\\.replica, __.*', heartbeatsReplicationEnabled: false, replicationFactor: '1', offsetLagMax: '0', emitOffsetSyncsEnabled: true, offsetFlushIntervalMs: '1000', refreshTopicsIntervalSeconds: '5', syncTopicConfigsEnabled: false, syncTopicAclsEnabled: false, wires: [[]] },
    { id: 'syncs', type: 'mm2-offset-syncs', z: 'tab', replication: 'rep', wires: [['checkpoint']] },
    { id: 'checkpoint', type: 'mm2-checkpoint', z: 'tab', replication: 'rep', groups: GROUPS, groupsExclude: '', topics: `${TAG}-.*`, topicsExclude: '', emitCheckpointsIntervalSeconds: '2', refreshGroupsIntervalSeconds: '2', sourceOffsets: 'auto', readyMaxReread: '1000', readyMaxAgeSeconds: '300', wires: [['groupoffsets'], []] },
    { id: 'groupoffsets', type: 'mm2-group-offsets', z: 'tab', replication: 'rep', mode: 'input', syncGroupOffsetsIntervalSeconds: '2', minWriteIntervalMs: '', followRewinds: true, groups: GROUPS, groupsExclude: '', wires: [[]] },
  ];
}

/** Every checkpoint on the target's checkpoints topic of this file's source alias. */
async function checkpoints() {
  const admin = await env.admin('target');
  const out = [];
  const reader = new TopicReader(env.kafka('target'), admin, {
    topic: `${SOURCE}.checkpoints.internal`,
    tail: false,
    onRecord: (r) => {
      try {
        out.push(decodeCheckpoint(r.key, r.value));
      } catch {
        /* not a checkpoint */
      }
    },
  });
  await reader.start();
  return out;
}

describe('a catastrophic groups regex against a hostile group name (real Node-RED, real brokers; issue 26)', function () {
  this.timeout(300000);
  let nr;
  let watch;

  after(async function () {
    if (watch) watch.close();
    if (nr) await nr.stop();
  });

  it(`groups ${'(a+)+$'} and a source group named aaaa...a! (40 a's): the normal group is checkpointed, the node turns green, the admin API answers`, async function () {
    const admin = await env.admin('source');
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }], waitForLeaders: true });
    const producer = env.kafka('source').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    await producer.send({ topic: TOPIC, messages: Array.from({ length: 10 }, (_, i) => ({ value: `r${i}` })) });
    await producer.disconnect();
    const committer = new AdminOffsetCommitter(env.kafka('source'));
    await commitOffsets(committer, HOSTILE, [[TOPIC, 0, 5]]);
    await commitOffsets(committer, NORMAL, [[TOPIC, 0, 7]]);
    await committer.close();
    // the hostile name is on the source, where the filters will meet it
    const listed = (await admin.listGroups()).groups.map((g) => g.groupId);
    assert.ok(listed.includes(HOSTILE), 'the hostile group exists on the source');

    nr = await startNodeRed({ flows: flow(), quiet: true, logLevel: 'warn' });
    watch = await nr.watchStatuses();

    /** Node-RED's admin API answers (a blocked event loop answers nothing). */
    const adminAnswers = async () => {
      let timer;
      const r = await Promise.race([
        nr.request('GET', '/flows', undefined, { 'Node-RED-API-Version': 'v2' }),
        new Promise((_, reject) => { timer = setTimeout(() => reject(new Error("Node-RED's admin API did not answer within 60 s: its event loop is blocked")), 60000); }),
      ]).finally(() => clearTimeout(timer));
      assert.equal(r.status, 200);
      return r;
    };

    let found = [];
    await env.eventually(async () => {
      await adminAnswers();
      found = (await checkpoints().catch(() => [])).filter((c) => c.group.startsWith(TAG));
      return found.some((c) => c.group === NORMAL && c.topic === `${SOURCE}.${TOPIC}` && c.upstreamOffset === 7n);
    }, { timeout: 150000, interval: 1000, what: `a checkpoint of ${NORMAL} at upstream offset 7` }).catch((e) => {
      throw new Error(`${e.message}; checkpoints ${JSON.stringify(found, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}; statuses ${JSON.stringify(watch.all())}; log ${nr.log.slice(-3000)}`);
    });

    await env.eventually(async () => {
      await adminAnswers();
      const s = watch.get('checkpoint');
      return s && s.fill === 'green';
    }, { timeout: 120000, interval: 500, what: 'the checkpoint node green' }).catch((e) => {
      throw new Error(`${e.message}; its latest status: ${JSON.stringify(watch.get('checkpoint'))}`);
    });

    // the group-offsets node, behind the same filter, writes the normal group on the target
    const target = await env.admin('target');
    await env.eventually(async () => {
      await adminAnswers();
      const offsets = await target.fetchOffsets({ groupId: NORMAL, topics: [`${SOURCE}.${TOPIC}`] });
      return offsets.some((t) => t.partitions.some((p) => Number(p.offset) === 7));
    }, { timeout: 120000, interval: 1000, what: `${NORMAL}'s offset written on the target` });

    // the hostile group does not match (Java: '!' is not an 'a'): never checkpointed
    found = (await checkpoints()).filter((c) => c.group.startsWith(TAG));
    assert.deepEqual([...new Set(found.map((c) => c.group))], [NORMAL]);
    await adminAnswers();
    const statuses = Object.fromEntries(['mirror', 'syncs', 'checkpoint', 'groupoffsets'].map((id) => [id, watch.get(id)]));
    for (const [id, s] of Object.entries(statuses)) assert.notEqual(s && s.fill, 'red', `${id} is not red: ${JSON.stringify(statuses)}`);
  });
});
