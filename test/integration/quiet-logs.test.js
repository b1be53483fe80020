'use strict';
/**
 * Node-RED's log as a user sees it, with no environment variable set: a real Node-RED process
 * runs a flow whose nodes produce on both clusters (the mirror copies records to the target and
 * writes offset syncs on the source, the heartbeat node emits, the checkpoint node writes), and
 * its log holds no kafkajs partitioner warning and no `kafkajs undefined:` prefix.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');

describe('quiet logs: no partitioner warning, no undefined prefix (real Node-RED, real brokers, nothing set)', function () {
  this.timeout(120000);
  const S = env.unique('qs');
  const T = env.unique('qt');
  const TOPIC = env.unique('quiet-orders');
  const GROUP = env.unique('quiet-group');
  let nr;

  before(async function () {
    const admin = await env.admin('source');
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }], waitForLeaders: true });
    const producer = env.kafka('source').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    await producer.send({ topic: TOPIC, messages: Array.from({ length: 10 }, (_, i) => ({ value: `r${i}` })) });
    await producer.disconnect();
    const c = await new AdminOffsetCommitter(env.kafka('source')).commit(GROUP, [{ topic: TOPIC, partition: 0, offset: 5n }]);
    assert.equal(c.ok, true);
  });

  after(async function () {
    if (nr) await nr.stop();
  });

  it('a flow that produces on both clusters logs neither', async function () {
    const flow = [
      { id: 'tab', type: 'tab', label: 'quiet', disabled: false, info: '' },
      { id: 'c-src', type: 'mm2-cluster', alias: S, bootstrap: env.cluster('source').bootstrap, saslMechanism: 'none' },
      { id: 'c-tgt', type: 'mm2-cluster', alias: T, bootstrap: env.cluster('target').bootstrap, saslMechanism: 'none' },
      { id: 'rep', type: 'mm2-replication', source: 'c-src', target: 'c-tgt', policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', replicationFactor: '1' },
      { id: 'mirror', type: 'mm2-mirror', z: 'tab', replication: 'rep', topics: TOPIC, topicsExclude: '', heartbeatsReplicationEnabled: false, replicationFactor: '1', offsetLagMax: '1', emitOffsetSyncsEnabled: true, offsetFlushIntervalMs: '1000', refreshTopicsIntervalSeconds: '5', wires: [[]] },
      { id: 'syncs', type: 'mm2-offset-syncs', z: 'tab', replication: 'rep', wires: [['checkpoint']] },
      { id: 'checkpoint', type: 'mm2-checkpoint', z: 'tab', replication: 'rep', groups: GROUP, groupsExclude: '', topics: TOPIC, topicsExclude: '', emitCheckpointsIntervalSeconds: '1', refreshGroupsIntervalSeconds: '5', sourceOffsets: 'auto', wires: [[], []] },
      { id: 'heartbeat', type: 'mm2-heartbeat', z: 'tab', replication: 'rep', emitHeartbeatsEnabled: true, emitHeartbeatsIntervalSeconds: '1', staleAfterSeconds: '30', watch: true, wires: [[], []] },
    ];
    const target = await env.admin('target');
    const source = await env.admin('source');
    const high = async (admin, topic) => {
      const offs = await admin.fetchTopicOffsets(topic).catch(() => []);
      return offs.reduce((a, o) => a + Number(o.high), 0);
    };
    const heartbeatsBefore = await high(source, 'heartbeats'); // other suites' heartbeats may be there
    // nothing set by the user: not even when the shell running the tests has it
    nr = await startNodeRed({ flows: flow, quiet: true, logLevel: 'info', env: { KAFKAJS_NO_PARTITIONER_WARNING: undefined } });

    try {
      // the mirror's producer on the target, the shared producer on the source (offset syncs), the checkpoint writer on the target
      await env.eventually(async () => (await high(target, `${S}.${TOPIC}`)) >= 10, { timeout: 60000, what: `the mirror's copy of ${TOPIC} on the target` });
      await env.eventually(async () => (await high(source, `mm2-offset-syncs.${T}.internal`)) > 0, { timeout: 60000, what: 'offset syncs on the source' });
      await env.eventually(async () => (await high(target, `${S}.checkpoints.internal`)) > 0, { timeout: 60000, what: 'a checkpoint on the target' });
      await env.eventually(async () => (await high(source, 'heartbeats')) > heartbeatsBefore, { timeout: 60000, what: 'heartbeats on the source' });
    } catch (e) {
      throw new Error(`${e.message}\nNode-RED's log:\n${nr.log}`);
    }

    const log = nr.log;
    assert.match(log, /Started flows/, 'the log was captured');
    assert.doesNotMatch(log, /partitioner/i, `kafkajs's partitioner warning in the log:\n${log}`);
    assert.doesNotMatch(log, /kafkajs undefined|undefined:/, `an undefined prefix in the log:\n${log}`);
  });
});
