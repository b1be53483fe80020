'use strict';
/**
 * Conformance: topic config sync, ours beside the real MirrorMaker 2 (dedicated mode, Kafka's own
 * connect-mirror jars) on the same source topic. MM2 replicates it as `<a>.<topic>`, our mm2-mirror
 * (other aliases on the same two clusters) as `<c>.<topic>`; both with MM2's defaults
 * (config.properties.exclude, use.defaults.from=target) and a short sync.topic.configs.interval.seconds.
 * The source topic has configs of its own, one of them excluded by default (min.insync.replicas);
 * after creation, and again after a change on the source (one config changed, one set, one back
 * to its default), the two remote topics hold the same topic-level configs.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { startMirrorMaker } = require('../../scripts/kafka/connect');
const { DEFAULT_KAFKA_VERSION } = require('../../scripts/kafka/cluster');

const TOPIC_RESOURCE = 2;

describe(`conformance: topic config sync as the real MM2 does it (Kafka ${process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION})`, function () {
  this.timeout(300000);
  let mm2;
  before(() => nodes.startServer());
  after(async () => {
    await nodes.helper.unload();
    if (mm2) await mm2.stop();
    await nodes.stopServer();
  });

  it('the remote topics of MM2 and of mm2-mirror hold the same configs after creation and after a change on the source', async function () {
    const source = await env.admin('source');
    const target = await env.admin('target');
    const id = env.unique('cfgconf').replace(/-/g, '');
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((x) => `${id}${x}`);
    const topic = `${id}-orders`;
    await source.createTopics({
      waitForLeaders: true,
      topics: [{ topic, numPartitions: 2, replicationFactor: 1, configEntries: [
        { name: 'retention.ms', value: '3600000' },
        { name: 'max.message.bytes', value: '2000000' },
        { name: 'min.insync.replicas', value: '1' },
        { name: 'segment.ms', value: '7200000' },
      ] }],
    });

    const flow = `${a}->${b}`;
    mm2 = await startMirrorMaker({
      source: env.cluster('source').bootstrap,
      target: env.cluster('target').bootstrap,
      aliases: [a, b],
      props: {
        [`${flow}.topics`]: topic,
        [`${flow}.emit.checkpoints.enabled`]: 'false',
        [`${flow}.emit.heartbeats.enabled`]: 'false',
        [`${flow}.sync.group.offsets.enabled`]: 'false',
        [`${flow}.sync.topic.acls.enabled`]: 'false',
        [`${flow}.sync.topic.configs.interval.seconds`]: 2,
        [`${flow}.refresh.topics.interval.seconds`]: 2,
      },
    });
    await nodes.load([
      {
        id: 'm', type: 'mm2-mirror', name: '', replication: 'rep', topics: topic, topicsExclude: '', heartbeatsReplicationEnabled: false, replicationFactor: '1',
        offsetLagMax: '', emitOffsetSyncsEnabled: false, offsetFlushIntervalMs: '1000', refreshTopicsIntervalSeconds: '2',
        syncTopicConfigsEnabled: true, syncTopicConfigsIntervalSeconds: '2', configPropertiesExclude: '', syncTopicAclsEnabled: false, syncTopicAclsIntervalSeconds: '', wires: [[]],
      },
    ], { over: { src: { alias: c }, tgt: { alias: d } } });

    const theirs = `${a}.${topic}`;
    const ours = `${c}.${topic}`;
    await env.eventually(async () => {
      const names = await target.listTopics();
      return names.includes(theirs) && names.includes(ours);
    }, { timeout: 120000, what: `${theirs} and ${ours} on the target` });
    const created = await env.topicConfigs(target, theirs);
    assert.equal(created['retention.ms'], '3600000', `MM2 copied the source's configs: ${JSON.stringify(created)}`);
    assert.deepEqual(await env.topicConfigs(target, ours), created, 'created with the same configs as MM2');

    // the source changes: retention changed, compaction set, max.message.bytes back to its default (segment.ms and min.insync.replicas stay)
    await source.alterConfigs({ validateOnly: false, resources: [{ type: TOPIC_RESOURCE, name: topic, configEntries: [
      { name: 'retention.ms', value: '5400000' }, { name: 'cleanup.policy', value: 'compact,delete' },
      { name: 'min.insync.replicas', value: '1' }, { name: 'segment.ms', value: '7200000' },
    ] }] });
    let mine;
    let mm2s;
    await env.eventually(async () => {
      mm2s = await env.topicConfigs(target, theirs);
      mine = await env.topicConfigs(target, ours);
      const synced = (x) => x['retention.ms'] === '5400000' && x['cleanup.policy'] === 'compact,delete' && !('max.message.bytes' in x);
      return synced(mm2s) && synced(mine);
    }, { timeout: 120000, what: `the change on both remote topics (MM2: ${JSON.stringify(mm2s)}; ours: ${JSON.stringify(mine)})` });
    assert.deepEqual(await env.topicConfigs(target, ours), await env.topicConfigs(target, theirs));
  });
});
