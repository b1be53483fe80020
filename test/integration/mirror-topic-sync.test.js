'use strict';
/**
 * Remote topics follow their source, on real brokers, as MM2's MirrorSourceConnector makes them:
 * a remote topic is created with the source's non-default configs (not those of
 * config.properties.exclude); a later config change on the source shows on the remote topic
 * within sync.topic.configs.interval.seconds (a config back at its default is reset there, one
 * set only on the remote topic for an excluded property stays); new partitions of the source
 * show within refresh.topics.interval.seconds; without an authorizer the ACL sync is skipped and
 * said once. With KRaft's StandardAuthorizer on both clusters, a READ and a WRITE ACL on the source
 * topic give only the READ one on the remote topic (sync.topic.acls.*).
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { useSecuredCluster } = require('../harness/secured');
const { DEFAULT_KAFKA_VERSION } = require('../../scripts/kafka/cluster');

const TOPIC_RESOURCE = 2;

const mirrorNode = (topics, extra = {}) => ({
  id: 'm', type: 'mm2-mirror', name: '', replication: 'rep', topics, topicsExclude: '', heartbeatsReplicationEnabled: false, replicationFactor: '1',
  offsetLagMax: '', emitOffsetSyncsEnabled: false, offsetFlushIntervalMs: '1000', refreshTopicsIntervalSeconds: '2',
  syncTopicConfigsEnabled: true, syncTopicConfigsIntervalSeconds: '2', configPropertiesExclude: '', syncTopicAclsEnabled: true, syncTopicAclsIntervalSeconds: '2',
  wires: [['out']], ...extra,
});

describe(`mm2-mirror: remote topics follow their source (configs, partitions, ACLs) (Kafka ${process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION})`, function () {
  this.timeout(240000);
  before(() => nodes.startServer());
  afterEach(() => nodes.helper.unload());
  after(() => nodes.stopServer());

  describe('topic configs and partitions', function () {
    it('created with the non-default configs but no excluded one; a change, a reset and new partitions of the source follow within the intervals; an own excluded config of the remote topic stays', async function () {
      const source = await env.admin('source');
      const target = await env.admin('target');
      const t = env.unique('tsync');
      const remote = `source.${t}`;
      await source.createTopics({
        waitForLeaders: true,
        topics: [{ topic: t, numPartitions: 1, replicationFactor: 1, configEntries: [
          { name: 'retention.ms', value: '3600000' },
          { name: 'max.message.bytes', value: '2000000' },
          { name: 'min.insync.replicas', value: '1' },
        ] }],
      });
      await nodes.load([mirrorNode(t), { id: 'out', type: 'helper' }]);
      const m = nodes.helper.getNode('m');

      await env.eventually(async () => (await target.listTopics()).includes(remote), { timeout: 60000, what: `${remote} created` });
      assert.deepEqual(await env.topicConfigs(target, remote), { 'retention.ms': '3600000', 'max.message.bytes': '2000000' }, 'created with the source configs, min.insync.replicas (excluded) not copied');

      // the target's own choice for an excluded property
      await target.alterConfigs({ validateOnly: false, resources: [{ type: TOPIC_RESOURCE, name: remote, configEntries: [
        { name: 'retention.ms', value: '3600000' }, { name: 'max.message.bytes', value: '2000000' }, { name: 'min.insync.replicas', value: '1' },
      ] }] });
      // the source changes: retention changed, compaction set, max.message.bytes and min.insync.replicas back to their defaults
      await source.alterConfigs({ validateOnly: false, resources: [{ type: TOPIC_RESOURCE, name: t, configEntries: [
        { name: 'retention.ms', value: '7200000' }, { name: 'cleanup.policy', value: 'compact,delete' },
      ] }] });
      let last;
      await env.eventually(async () => {
        last = await env.topicConfigs(target, remote);
        return last['retention.ms'] === '7200000' && last['cleanup.policy'] === 'compact,delete' && !('max.message.bytes' in last);
      }, { timeout: 60000, what: `the source's change on ${remote} (last: ${JSON.stringify(last)})` });
      assert.deepEqual(await env.topicConfigs(target, remote), { 'retention.ms': '7200000', 'cleanup.policy': 'compact,delete', 'min.insync.replicas': '1' });

      // new partitions on the source: the remote topic grows, records of a new partition arrive in the same partition
      await source.createPartitions({ topicPartitions: [{ topic: t, count: 3 }] });
      await env.eventually(async () => (await target.fetchTopicMetadata({ topics: [remote] })).topics[0].partitions.length === 3, { timeout: 60000, what: `${remote} with 3 partitions` });
      const producer = env.kafka('source').producer({ allowAutoTopicCreation: false });
      await producer.connect();
      try {
        await env.eventually(async () => {
          await producer.send({ topic: t, acks: -1, messages: [{ key: 'k', value: 'in-2', partition: 2 }] });
          return true;
        }, { timeout: 30000, what: `a record in ${t}-2` });
      } finally {
        await producer.disconnect();
      }
      await env.eventually(async () => {
        const offs = await target.fetchTopicOffsets(remote);
        return Number(offs.find((p) => p.partition === 2).high) >= 1;
      }, { timeout: 60000, what: `the record in ${remote}-2` });

      // no authorizer here: the ACL sync says so once and is no failure (no status about ACLs or configs; green now)
      const logs = m.log.getCalls().filter((c) => c.thisValue === m).map((c) => String(c.args[0]));
      assert.equal(logs.filter((l) => /no ACL sync/.test(l)).length, 1, logs.join(' | '));
      const statuses = m.status.getCalls().filter((c) => c.thisValue === m).map((c) => c.args[0]);
      assert.ok(statuses.every((s) => !/ACL|config/.test(s.text || '')), JSON.stringify(statuses));
      const lastStatus = () => m.status.getCalls().filter((c) => c.thisValue === m).pop().args[0];
      await env.eventually(() => lastStatus().fill === 'green', { timeout: 30000, what: 'the mirror green' });
    });

    it('a bad config.properties.exclude or sync interval is refused naming the property; nothing is mirrored', async function () {
      const target = await env.admin('target');
      const source = await env.admin('source');
      const t = env.unique('tsyncbad');
      await source.createTopics({ waitForLeaders: true, topics: [{ topic: t, numPartitions: 1, replicationFactor: 1 }] });
      await nodes.load([mirrorNode(t, { configPropertiesExclude: 'retention.(ms', syncTopicAclsIntervalSeconds: '0' }), { id: 'out', type: 'helper' }]);
      const m = nodes.helper.getNode('m');
      const errors = m.error.getCalls().filter((c) => c.thisValue === m).map((c) => String(c.args[0]));
      assert.ok(errors.some((e) => /config\.properties\.exclude/.test(e) && /sync\.topic\.acls\.interval\.seconds/.test(e)), errors.join(' | '));
      assert.ok(!(await target.listTopics()).includes(`source.${t}`));
    });
  });

  describe('topic ACLs, with an authorizer on both clusters', function () {
    const src = useSecuredCluster('tsync-acl-src', { authorizer: true });
    const tgt = useSecuredCluster('tsync-acl-tgt', { authorizer: true });

    it('a READ and a WRITE ACL on the source topic: only the READ one appears for the remote topic', async function () {
      const t = env.unique('tsyncacl');
      const remote = `source.${t}`;
      // PLAINTEXT is the harness's super user: the mirror itself may do anything, the ACLs are data
      const admin = src.kafka('PLAINTEXT').admin();
      await admin.connect();
      src.closeLater(() => admin.disconnect());
      await admin.createTopics({ waitForLeaders: true, topics: [{ topic: t, numPartitions: 1, replicationFactor: 1 }] });
      await src.cluster.acl.create([
        { principal: 'User:alice', resourceType: 'TOPIC', resourceName: t, operation: 'READ' },
        { principal: 'User:alice', resourceType: 'TOPIC', resourceName: t, operation: 'WRITE' },
      ]);
      await nodes.helper.load(nodes.modules, [
        ...nodes.configNodes({ src: { bootstrap: src.cluster.bootstrap }, tgt: { bootstrap: tgt.cluster.bootstrap } }),
        mirrorNode(t), { id: 'out', type: 'helper' },
      ]);
      let acls = [];
      await env.eventually(async () => {
        acls = await tgt.cluster.acl.list({ resourceType: 'TOPIC', resourceName: remote });
        return acls.length > 0;
      }, { timeout: 90000, what: `ACLs of ${remote}` }).catch((e) => {
        const m = nodes.helper.getNode('m');
        const said = ['log', 'warn', 'error'].flatMap((l) => m[l].getCalls().filter((c) => c.thisValue === m).map((c) => `${l}: ${c.args[0]}`));
        throw new Error(`${e.message}; the mirror said: ${said.join(' | ')}`);
      });
      assert.deepEqual(acls.map((a) => `${a.principal} ${a.host} ${a.permission} ${a.operation} ${a.patternType}:${a.resourceName}`), [`User:alice * ALLOW READ LITERAL:${remote}`]);
      const m = nodes.helper.getNode('m');
      await env.eventually(() => m.log.getCalls().some((c) => c.thisValue === m && /topic ACL\(s\) of the source now on the remote topics/.test(String(c.args[0]))), { timeout: 30000, what: 'the ACL sync logged' });
    });
  });
});
