'use strict';
/**
 * The ACLs each node needs, on real brokers with KRaft's StandardAuthorizer: every node runs with
 * exactly the ACLs the README and its help list, and with each one of them taken away says which
 * ACL is missing (operation and resource), in its status and its log.
 *
 * One secured cluster pair for the file: the source is reached over SASL_SSL with SCRAM-SHA-512
 * as User:src-user, the target over mutual TLS as the client certificate's principal
 * User:mm2-client. Each node gets its ACLs, is shown working, then each ACL is removed in turn
 * (the flow redeployed, the refusal awaited, the ACL restored); at the end of each node all ACLs
 * of both principals are removed, so a node never runs with another node's ACLs.
 *
 * `expect` says where a removal shows: 'status+log' (a red status and a log line naming the ACL),
 * or 'log' where the node goes on without it and its log names it: the event path of
 * mm2-checkpoint falls back to polling (status "· polling"); its restore of the previous
 * checkpoints is skipped, as MM2 does; a topic or group the principal may not DESCRIBE is not
 * listed at all (status "no topics selected" / "0 groups"), so the hint names the operation and
 * the resource type with a placeholder name.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { useSecuredCluster } = require('../harness/secured');
const { statusCalls } = require('../harness/checkpoint-node');
const { encodeCheckpoint } = require('../../dist/core/checkpoint');
const { encodeHeartbeat } = require('../../dist/core/heartbeat');
const { encodeOffsetSync, decodeOffsetSync } = require('../../dist/core/offset-sync');
const { TopicReader } = require('../../dist/kafka/topic-reader');
const { DEFAULT_KAFKA_VERSION } = require('../../scripts/kafka/cluster');
const tlsModule = require('@node-red/nodes/core/network/05-tls.js');

const SRC_USER = 'mm2src';
const SRC = `User:${SRC_USER}`;
/** The MTLS listener's principal (the CN of the harness's client certificate). */
const TGT = 'User:mm2-client';
const SYNCS_TOPIC = 'mm2-offset-syncs.target.internal';
const CHECKPOINTS_TOPIC = 'source.checkpoints.internal';

/** An ACL on `side` ('source' | 'target'), as cluster.acl takes it. */
const acl = (side, resourceType, resourceName, operation, patternType = 'LITERAL', expect = 'status+log') =>
  ({ side, principal: side === 'source' ? SRC : TGT, resourceType, resourceName, operation, patternType, expect });

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const TYPES = { TOPIC: 'Topic', GROUP: 'Group', CLUSTER: 'Cluster', TRANSACTIONAL_ID: 'TransactionalId' };

/**
 * Whether `text` names the ACL `a`: its operation among those listed for its resource
 * (`CREATE and WRITE on Topic:x`), the resource's name (a prefixed ACL: the prefix, or a name
 * that starts with it); for the selection hints the resource type with a placeholder name.
 */
function namesAcl(text, a) {
  const ops = `(?:[A-Z_]+(?:, | and ))*${a.operation}(?:(?:, | and )[A-Z_]+)*`;
  const name = a.expect === 'log' && a.hint ? '<[a-z]+>' : `${escape(a.resourceName)}${a.patternType === 'PREFIXED' ? '\\S*' : '(?![\\w.-])'}`;
  return new RegExp(`\\b${ops} on ${TYPES[a.resourceType]}:${name}`).test(text);
}

describe(`ACLs per node: each works with exactly its ACLs and names the one missing (Kafka ${process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION})`, function () {
  this.timeout(300000);
  const src = useSecuredCluster('acl-src', { tls: true, authorizer: true, users: { [SRC_USER]: 'mm2src-secret' } });
  const tgt = useSecuredCluster('acl-tgt', { tls: true, authorizer: true });
  const admins = {};
  const P = env.unique('acl'); // every topic and group of this file starts with it

  before(async function () {
    await nodes.startServer();
    for (const side of /** @type {const} */ (['source', 'target'])) {
      const c = side === 'source' ? src : tgt;
      // PLAINTEXT is User:ANONYMOUS, the harness's super user
      const kafka = c.kafka('PLAINTEXT', {}, { retry: { retries: 8, initialRetryTime: 200 } });
      const admin = kafka.admin();
      await admin.connect();
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      await producer.connect();
      c.closeLater(() => admin.disconnect());
      c.closeLater(() => producer.disconnect());
      admins[side] = { admin, producer, cluster: () => c.cluster };
    }
  });
  afterEach(async function () {
    await nodes.helper.unload();
    // no ACL of one node is left for the next
    for (const side of ['source', 'target']) await admins[side].cluster().acl.delete({ principal: side === 'source' ? SRC : TGT });
  });
  after(() => nodes.stopServer());

  const setAcls = (list, fn) => Promise.all(['source', 'target'].map((side) => {
    const mine = list.filter((a) => a.side === side).map(({ principal, resourceType, resourceName, operation, patternType }) => ({ principal, resourceType, resourceName, operation, patternType }));
    return mine.length ? admins[side].cluster().acl[fn](mine) : undefined;
  }));

  async function topic(side, name, partitions = 1) {
    const { admin } = admins[side];
    await admin.createTopics({ topics: [{ topic: name, numPartitions: partitions }], waitForLeaders: false });
    await env.eventually(async () => {
      const [m] = (await admin.fetchTopicMetadata({ topics: [name] })).topics;
      return m.partitions.length === partitions && m.partitions.every((p) => p.leader >= 0);
    }, { what: `leaders for ${name}` });
  }
  async function deleteTopic(side, name) {
    const { admin } = admins[side];
    if (!(await admin.listTopics()).includes(name)) return;
    await admin.deleteTopics({ topics: [name] });
    await env.eventually(async () => !(await admin.listTopics()).includes(name), { what: `${name} deleted` });
  }
  /** Commits `offset` of partition 0 of `t` for `group` on the source (asked again while the fresh coordinator loads). */
  const commit = (group, t, offset) => env.eventually(async () => {
    await admins.source.admin.setOffsets({ groupId: group, topic: t, partitions: [{ partition: 0, offset: String(offset) }] });
    return true;
  }, { what: `a commit for ${group}`, timeout: 30000 });

  /** Writes one offset sync of partition 0 of `t` to the offset-syncs topic on the source (the replication flow's reader loads it). */
  async function writeSync(t, upstreamOffset, downstreamOffset) {
    if (!(await admins.source.admin.listTopics()).includes(SYNCS_TOPIC)) await topic('source', SYNCS_TOPIC);
    const { key, value } = encodeOffsetSync({ topic: t, partition: 0, upstreamOffset: BigInt(upstreamOffset), downstreamOffset: BigInt(downstreamOffset) });
    await admins.source.producer.send({ topic: SYNCS_TOPIC, messages: [{ key, value, partition: 0 }] });
  }

  /** Deploys `flow` (plus outputs) with the secured config nodes; returns the node `id`. */
  async function deploy(flow, id) {
    const tls = (tid) => ({ id: tid, type: 'tls-config', cert: '', key: '', ca: '', verifyservercert: true });
    await nodes.helper.load([tlsModule, ...nodes.modules], [
      tls('tls-src'), tls('tls-tgt'),
      ...nodes.configNodes({
        src: { bootstrap: src.cluster.listeners.SASL_SSL, saslMechanism: 'scram-sha-512', usetls: true, tls: 'tls-src' },
        tgt: { bootstrap: tgt.cluster.listeners.MTLS, saslMechanism: 'none', usetls: true, tls: 'tls-tgt' },
      }),
      ...flow, { id: 'out1', type: 'helper' }, { id: 'out2', type: 'helper' },
    ], {
      src: { username: SRC_USER, password: src.cluster.saslUsers[SRC_USER] },
      'tls-src': { cadata: src.cluster.tls.ca },
      'tls-tgt': { cadata: tgt.cluster.tls.ca, certdata: tgt.cluster.tls.cert, keydata: tgt.cluster.tls.key },
    });
    return { node: nodes.helper.getNode(id), out1: nodes.collect(nodes.helper.getNode('out1')), out2: nodes.collect(nodes.helper.getNode('out2')) };
  }

  const logsOf = (node) => ['warn', 'error'].flatMap((l) => node[l].getCalls().filter((c) => c.thisValue === node).map((c) => String(c.args[0])));

  /**
   * The node deployed by `run` (which also prepares what the round needs) works with every ACL of
   * `list` (`works` resolves truthy); then, for each ACL, without it the node names it.
   */
  async function exactly(list, run, works) {
    await setAcls(list, 'create');
    const ok = await run(null);
    await env.eventually(() => works(ok), { what: 'the node working with its ACLs', timeout: 60000 })
      .catch((e) => assert.fail(`${e.message}; statuses: ${statusCalls(ok.node).map((s) => s.text).join(' | ')}; logs: ${logsOf(ok.node).join(' | ')}`));
    for (const a of list) {
      await setAcls([a], 'delete');
      await nodes.helper.unload();
      const round = await run(a);
      const { node } = round;
      const what = `${a.operation} on ${a.resourceType}:${a.resourceName}${a.patternType === 'PREFIXED' ? ' (prefixed)' : ''}`;
      const logged = await env.eventually(() => logsOf(node).find((t) => namesAcl(t, a)), { what: `a log naming ${what} (logs: ${logsOf(node).join(' | ')})`, timeout: 60000 })
        .catch((e) => assert.fail(`without ${what}: ${e.message}; statuses: ${statusCalls(node).map((s) => s.text).join(' | ')}`));
      assert.ok(logged);
      if (a.expect === 'status+log') {
        const st = await env.eventually(() => statusCalls(node).find((s) => s.fill === 'red' && namesAcl(s.text, a)), { what: `a red status naming ${what}`, timeout: 30000 })
          .catch((e) => assert.fail(`without ${what}: ${e.message}; statuses: ${statusCalls(node).map((s) => s.text).join(' | ')}`));
        assert.ok(st);
      }
      await setAcls([a], 'create');
      await nodes.helper.unload();
    }
  }

  it('mm2-mirror: source READ on its topics and its group, CREATE/WRITE/DESCRIBE_CONFIGS on the offset-syncs topic; DESCRIBE_CONFIGS on the source topics; target CREATE and WRITE on the remote topics; config sync ALTER_CONFIGS on the remote ones; ACL sync DESCRIBE on the source Cluster and ALTER on the target Cluster', async function () {
    const list = [
      acl('source', 'TOPIC', `${P}-m`, 'READ', 'PREFIXED'),
      acl('source', 'GROUP', '__mm2-node-red-mirror.', 'READ', 'PREFIXED'),
      acl('source', 'TOPIC', SYNCS_TOPIC, 'CREATE'),
      acl('source', 'TOPIC', SYNCS_TOPIC, 'WRITE'),
      acl('source', 'TOPIC', SYNCS_TOPIC, 'DESCRIBE_CONFIGS'),
      acl('target', 'TOPIC', `source.${P}-m`, 'CREATE', 'PREFIXED'),
      acl('target', 'TOPIC', `source.${P}-m`, 'WRITE', 'PREFIXED'),
      // the remote topic is created with the source topic's configs (MM2's createNewTopics): not created without
      acl('source', 'TOPIC', `${P}-m`, 'DESCRIBE_CONFIGS', 'PREFIXED'),
      // sync.topic.configs.enabled (MM2's default; ALTER_CONFIGS includes DESCRIBE_CONFIGS)
      acl('target', 'TOPIC', `source.${P}-m`, 'ALTER_CONFIGS', 'PREFIXED'),
      // sync.topic.acls.enabled (MM2's default)
      acl('source', 'CLUSTER', 'kafka-cluster', 'DESCRIBE'),
      acl('target', 'CLUSTER', 'kafka-cluster', 'ALTER'),
    ];
    // the source topic hint names READ on Topic:<name>: nothing is listed to name
    list[0].hint = true;
    list[0].expect = 'log';
    let n = 0;
    await exactly(list, async (without) => {
      // a new topic each round: its remote topic is created, its records copied, its syncs written, its configs and its ACL copied
      const t = `${P}-m${++n}`;
      await topic('source', t);
      await admins.source.cluster().acl.create({ principal: 'User:reader', resourceType: 'TOPIC', resourceName: t, operation: 'READ' });
      await admins.source.producer.send({ topic: t, messages: [{ value: 'a' }, { value: 'b' }] });
      if (without && without.resourceName === SYNCS_TOPIC && without.operation === 'CREATE') await deleteTopic('source', SYNCS_TOPIC);
      return deploy([{
        id: 'm', type: 'mm2-mirror', name: '', replication: 'rep', topics: t, topicsExclude: '', heartbeatsReplicationEnabled: false,
        replicationFactor: '', offsetLagMax: '', emitOffsetSyncsEnabled: true, offsetFlushIntervalMs: '1000', refreshTopicsIntervalSeconds: '600',
        syncTopicConfigsEnabled: true, syncTopicConfigsIntervalSeconds: '2', configPropertiesExclude: '', syncTopicAclsEnabled: true, syncTopicAclsIntervalSeconds: '2', wires: [['out1']],
      }], 'm');
    }, async ({ node, out1 }) => {
      const calls = statusCalls(node);
      const copied = node.log.getCalls().some((c) => c.thisValue === node && /topic ACL\(s\) of the source now on the remote topics/.test(String(c.args[0])));
      return out1.some((m) => m.payload.records >= 2 && m.payload.syncsSent >= 1) && copied && calls.length > 0 && calls[calls.length - 1].fill === 'green';
    });
  });

  it('mm2-mirror: offset syncs refused for want of WRITE are all written, the first one included and in order, once WRITE is granted', async function () {
    const t = `${P}-w`;
    const list = [
      acl('source', 'TOPIC', t, 'READ'),
      acl('source', 'GROUP', '__mm2-node-red-mirror.', 'READ', 'PREFIXED'),
      acl('source', 'TOPIC', SYNCS_TOPIC, 'CREATE'),
      acl('source', 'TOPIC', SYNCS_TOPIC, 'DESCRIBE_CONFIGS'),
      // (WRITE includes DESCRIBE: without WRITE the topic must still be seen, for the mirror to start)
      acl('source', 'TOPIC', SYNCS_TOPIC, 'DESCRIBE'),
      acl('source', 'TOPIC', t, 'DESCRIBE_CONFIGS'),
      acl('target', 'TOPIC', `source.${t}`, 'CREATE'),
      acl('target', 'TOPIC', `source.${t}`, 'WRITE'),
    ];
    const write = acl('source', 'TOPIC', SYNCS_TOPIC, 'WRITE');
    await topic('source', t);
    if (!(await admins.source.admin.listTopics()).includes(SYNCS_TOPIC)) await topic('source', SYNCS_TOPIC);
    const RECORDS = 20;
    await admins.source.producer.send({ topic: t, messages: Array.from({ length: RECORDS }, (_, i) => ({ value: `r${i}` })) });
    await setAcls(list, 'create');
    const { node, out1 } = await deploy([{
      id: 'm', type: 'mm2-mirror', name: '', replication: 'rep', topics: t, topicsExclude: '', heartbeatsReplicationEnabled: false,
      replicationFactor: '', offsetLagMax: '5', emitOffsetSyncsEnabled: true, offsetFlushIntervalMs: '1000', refreshTopicsIntervalSeconds: '600',
      syncTopicConfigsEnabled: false, syncTopicAclsEnabled: false, wires: [['out1']],
    }], 'm');
    // the records are copied; their syncs are refused, the status says why
    await env.eventually(() => out1.some((m) => m.payload.records >= RECORDS), { what: `the records copied (${statusCalls(node).map((st) => st.text).join(' | ')})`, timeout: 60000 });
    await env.eventually(() => statusCalls(node).some((st) => st.fill === 'red' && namesAcl(st.text, write)), { what: `a red status naming WRITE on ${SYNCS_TOPIC} (${statusCalls(node).map((st) => st.text).join(' | ')})`, timeout: 60000 });
    await setAcls([write], 'create');
    /** This topic's syncs in the offset-syncs topic, in log order (read as the super user). */
    const superKafka = src.kafka('PLAINTEXT', {}, { retry: { retries: 8, initialRetryTime: 200 } });
    const syncsOfT = async () => {
      const out = [];
      const reader = new TopicReader(superKafka, admins.source.admin, { topic: SYNCS_TOPIC, tail: false, onRecord: (r) => out.push(decodeOffsetSync(r.key, r.value)) });
      await reader.start();
      return out.filter((x) => x.topic === t);
    };
    let syncs = [];
    await env.eventually(async () => (syncs = await syncsOfT()).some((x) => x.upstreamOffset === BigInt(RECORDS - 1)), { what: 'the sync of the last record once WRITE is granted', timeout: 60000 });
    const ups = syncs.map((x) => Number(x.upstreamOffset));
    assert.equal(ups[0], 0, `the first record's sync is written (syncs: ${ups.join(', ')})`);
    assert.deepEqual(ups, [...ups].sort((a, b) => a - b), `in order (${ups.join(', ')})`);
    assert.ok(ups.length >= RECORDS / 5, `every urgent sync of offset.lag.max 5 (${ups.join(', ')})`);
    for (const x of syncs) assert.equal(x.downstreamOffset, x.upstreamOffset, 'each points at the same record (the remote topic starts at 0 too)');
    await env.eventually(() => statusCalls(node).at(-1)?.fill === 'green', { what: `green again (${statusCalls(node).map((st) => st.text).join(' | ')})`, timeout: 30000 });
  });

  it('mm2-offset-syncs: source READ on the offset-syncs topic and on its reader group', async function () {
    const list = [
      acl('source', 'TOPIC', SYNCS_TOPIC, 'READ'),
      acl('source', 'GROUP', '__mm2-node-red-reader', 'READ', 'PREFIXED'),
    ];
    // a sync to load (the mirror's test wrote some already when it ran first)
    if (!(await admins.source.admin.listTopics()).includes(SYNCS_TOPIC)) await topic('source', SYNCS_TOPIC);
    const { key, value } = encodeOffsetSync({ topic: `${P}-os`, partition: 0, upstreamOffset: 1, downstreamOffset: 1 });
    await admins.source.producer.send({ topic: SYNCS_TOPIC, messages: [{ key, value, partition: 0 }] });
    await exactly(list, () => deploy([{ id: 'os', type: 'mm2-offset-syncs', name: '', replication: 'rep', wires: [['out1']] }], 'os'),
      ({ out1 }) => out1.some((m) => m.payload.event === 'loaded' && m.payload.stats.read >= 1));
  });

  it('mm2-checkpoint: source DESCRIBE on its groups and topics (READ on __consumer_offsets and the stream group for the event path); target CREATE/WRITE/DESCRIBE_CONFIGS/READ on the checkpoints topic and READ on its restore group', async function () {
    const t = `${P}-c`;
    await topic('source', t);
    const list = [
      acl('source', 'GROUP', `${P}-cg`, 'DESCRIBE', 'PREFIXED', 'log'),
      acl('source', 'TOPIC', t, 'DESCRIBE', 'LITERAL', 'log'),
      acl('source', 'TOPIC', '__consumer_offsets', 'READ', 'LITERAL', 'log'),
      acl('source', 'GROUP', '__mm2-node-red-commits', 'READ', 'PREFIXED', 'log'),
      acl('target', 'TOPIC', CHECKPOINTS_TOPIC, 'CREATE'),
      acl('target', 'TOPIC', CHECKPOINTS_TOPIC, 'WRITE'),
      acl('target', 'TOPIC', CHECKPOINTS_TOPIC, 'DESCRIBE_CONFIGS'),
      acl('target', 'TOPIC', CHECKPOINTS_TOPIC, 'READ', 'LITERAL', 'log'),
      acl('target', 'GROUP', '__mm2-node-red-checkpoints-restore', 'READ', 'PREFIXED', 'log'),
      // the replication flow's reader of the offset syncs (as MM2's checkpoint task reads them)
      acl('source', 'TOPIC', SYNCS_TOPIC, 'READ', 'LITERAL', 'log'),
      acl('source', 'GROUP', '__mm2-node-red-reader', 'READ', 'PREFIXED', 'log'),
    ];
    list[0].hint = true;
    list[1].hint = true;
    let n = 0;
    let group;
    await exactly(list, async (without) => {
      // a new group each round, committed on the source: a new checkpoint to write
      group = `${P}-cg${++n}`;
      await commit(group, t, 5);
      if (without && without.operation === 'CREATE') await deleteTopic('target', CHECKPOINTS_TOPIC);
      else if ((await admins.target.admin.listTopics()).includes(CHECKPOINTS_TOPIC)) {
        // a checkpoint of another group, so that the restore has records to read (an empty topic needs no READ)
        const { key, value } = encodeCheckpoint({ group: `${P}-x`, topic: `source.${t}`, partition: 0, upstreamOffset: 1, downstreamOffset: 1, metadata: '' });
        await admins.target.producer.send({ topic: CHECKPOINTS_TOPIC, messages: [{ key, value, partition: 0 }] });
      }
      return deployCheckpoint();
    }, ({ out1 }) => out1.some((m) => m.payload.checkpoints.some((c) => c.group === group && c.upstreamOffset === '5' && c.downstreamOffset === '101')));

    // readiness: without DESCRIBE on the groups on the target the node cannot know whether they have
    // members there ('unknown', not false: the listing leaves out what the principal may not describe);
    // with that optional ACL a group not on the target has none
    await nodes.helper.unload();
    const round = await deployCheckpoint();
    /** @param {any[]} out2 the group's entry in the newest coverage message of a full cycle that translated it */
    const entryOf = (out2) => {
      for (let i = out2.length - 1; i >= 0; i--) {
        const e = out2[i].payload.readiness && out2[i].payload.entries.find((x) => x.group === group && (x.status === 'emitted' || x.status === 'unchanged'));
        if (e) return { e, rd: out2[i].payload.readiness };
      }
      return null;
    };
    await env.eventually(() => entryOf(round.out2)?.e.membersOnTarget === 'unknown', { what: `membersOnTarget 'unknown' without DESCRIBE on the groups on the target (${JSON.stringify(entryOf(round.out2))})`, timeout: 60000 });
    assert.equal(entryOf(round.out2).rd.targetGroupsError, undefined, 'the listing itself succeeded');
    assert.ok(entryOf(round.out2).rd.membersUnknown >= 1);
    await setAcls([acl('target', 'GROUP', `${P}-cg`, 'DESCRIBE', 'PREFIXED')], 'create');
    await env.eventually(() => entryOf(round.out2)?.e.membersOnTarget === false, { what: `membersOnTarget false with DESCRIBE on the groups on the target (${JSON.stringify(entryOf(round.out2))})`, timeout: 60000 });

    async function deployCheckpoint() {
      await writeSync(t, 0, 100);
      const r = await deploy([{
        id: 'cp', type: 'mm2-checkpoint', name: '', replication: 'rep', groups: `${P}-cg.*`, groupsExclude: '', topics: t, topicsExclude: '',
        emitCheckpointsIntervalSeconds: '2', refreshGroupsIntervalSeconds: '2', sourceOffsets: 'auto', wires: [['out1'], ['out2']],
      }], 'cp');
      return r;
    }
  });

  it('mm2-group-offsets: target READ on the checkpoints topic, on its reader group, on the groups it writes and on their topics', async function () {
    const remote = `source.${P}-g`;
    await topic('target', remote);
    if (!(await admins.target.admin.listTopics()).includes(CHECKPOINTS_TOPIC)) await topic('target', CHECKPOINTS_TOPIC);
    await admins.target.producer.send({ topic: remote, messages: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
    const list = [
      acl('target', 'TOPIC', CHECKPOINTS_TOPIC, 'READ'),
      acl('target', 'GROUP', '__mm2-node-red-group-offsets-', 'READ', 'PREFIXED'),
      acl('target', 'GROUP', `${P}-gg`, 'READ', 'PREFIXED'),
      acl('target', 'TOPIC', remote, 'READ'),
    ];
    let n = 0;
    let group;
    await exactly(list, async () => {
      // a new group each round with a checkpoint on the target: an offset to write
      group = `${P}-gg${++n}`;
      const { key, value } = encodeCheckpoint({ group, topic: remote, partition: 0, upstreamOffset: 7, downstreamOffset: 2, metadata: '' });
      await admins.target.producer.send({ topic: CHECKPOINTS_TOPIC, messages: [{ key, value, partition: 0 }] });
      return deploy([{
        id: 'go', type: 'mm2-group-offsets', name: '', replication: 'rep', mode: 'topic', syncGroupOffsetsIntervalSeconds: '2',
        groups: `${P}-gg.*`, groupsExclude: '', wires: [['out1']],
      }], 'go');
    }, async () => {
      const [o] = await admins.target.admin.fetchOffsets({ groupId: group, topics: [remote] });
      return o && o.partitions[0].offset === '2';
    });
  });

  it('mm2-group-offsets mode input: READ on the groups it writes and their topics; READ on the checkpoints topic and its reader group only to follow rewinds over a restart (without them: said in the log, the node goes on)', async function () {
    const remote = `source.${P}-gi`;
    await topic('target', remote);
    if (!(await admins.target.admin.listTopics()).includes(CHECKPOINTS_TOPIC)) await topic('target', CHECKPOINTS_TOPIC);
    await admins.target.producer.send({ topic: remote, messages: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
    const list = [
      acl('target', 'GROUP', `${P}-gi`, 'READ', 'PREFIXED'),
      acl('target', 'TOPIC', remote, 'READ'),
      acl('target', 'TOPIC', CHECKPOINTS_TOPIC, 'READ', 'LITERAL', 'log'),
      acl('target', 'GROUP', '__mm2-node-red-group-offsets-', 'READ', 'PREFIXED', 'log'),
    ];
    let n = 0;
    let group;
    const written = async () => {
      const [o] = await admins.target.admin.fetchOffsets({ groupId: group, topics: [remote] });
      return o && o.partitions[0].offset === '2';
    };
    await exactly(list, async (without) => {
      // a new group each round, its checkpoint from the input: an offset to write
      group = `${P}-gi${++n}`;
      const round = await deploy([{
        id: 'goi', type: 'mm2-group-offsets', name: '', replication: 'rep', mode: 'input', syncGroupOffsetsIntervalSeconds: '2',
        groups: `${P}-gi.*`, groupsExclude: '', wires: [['out1']],
      }], 'goi');
      round.node.receive({ payload: { full: true, latest: { [group]: [{ topic: remote, partition: 0, upstreamOffset: '7', downstreamOffset: '2' }] } } });
      if (without && without.expect === 'log') {
        // without the checkpoints topic's ACLs the node still writes its group from the input, says why once, never red
        await env.eventually(written, { what: `${group} written without ${without.operation} on ${without.resourceName}`, timeout: 60000 });
        await env.eventually(() => logsOf(round.node).some((t) => namesAcl(t, without)), { what: `a log naming ${without.resourceName}`, timeout: 60000 });
        assert.deepEqual(statusCalls(round.node).filter((st) => st.fill === 'red').map((st) => st.text), [], `never red without ${without.resourceName}`);
        assert.equal(logsOf(round.node).filter((t) => /rewind/.test(t)).length, 1, 'said once');
      }
      return round;
    }, written);
  });

  it('mm2-heartbeat: source CREATE/WRITE/DESCRIBE_CONFIGS on heartbeats; target READ on <source>.heartbeats and on its reader group', async function () {
    await topic('target', 'source.heartbeats');
    const list = [
      acl('source', 'TOPIC', 'heartbeats', 'CREATE'),
      acl('source', 'TOPIC', 'heartbeats', 'WRITE'),
      acl('source', 'TOPIC', 'heartbeats', 'DESCRIBE_CONFIGS'),
      acl('target', 'TOPIC', 'source.heartbeats', 'READ'),
      acl('target', 'GROUP', '__mm2-node-red-heartbeats', 'READ', 'PREFIXED'),
    ];
    const ends = async () => {
      const { admin } = admins.source;
      if (!(await admin.listTopics()).includes('heartbeats')) return 0;
      return Number((await admin.fetchTopicOffsets('heartbeats'))[0].high);
    };
    let before = 0;
    await exactly(list, async (without) => {
      if (without && without.operation === 'CREATE') await deleteTopic('source', 'heartbeats');
      before = await ends();
      return deploy([{
        id: 'hb', type: 'mm2-heartbeat', replication: 'rep', emitHeartbeatsEnabled: true, emitHeartbeatsIntervalSeconds: '1',
        staleAfterSeconds: '30', watch: true, wires: [['out1'], ['out2']],
      }], 'hb');
    }, async ({ out1 }) => {
      if (out1.length === 0) {
        // a replicated heartbeat, as the mirror would copy it, until the watch reports one
        const { key, value } = encodeHeartbeat({ sourceClusterAlias: 'source', targetClusterAlias: 'target', timestamp: Date.now() });
        await admins.target.producer.send({ topic: 'source.heartbeats', messages: [{ key, value, partition: 0 }] });
        return false;
      }
      return (await ends()) > before;
    });
  });

  it('mm2-failback: target DESCRIBE on its groups and on the remote topics (the groups\' offsets); source READ on the groups and the source topics (the commits)', async function () {
    const t = `${P}-f`;
    const remote = `source.${t}`;
    await topic('source', t);
    await topic('target', remote);
    // records on both: the translated source offset (3) is below the source's log end
    const five = ['a', 'b', 'c', 'd', 'e'].map((value) => ({ value }));
    await admins.source.producer.send({ topic: t, messages: five });
    await admins.target.producer.send({ topic: remote, messages: five });
    const list = [
      acl('target', 'GROUP', `${P}-fg`, 'DESCRIBE', 'PREFIXED', 'log'),
      acl('target', 'TOPIC', remote, 'DESCRIBE', 'LITERAL', 'log'),
      acl('source', 'GROUP', `${P}-fg`, 'READ', 'PREFIXED'),
      acl('source', 'TOPIC', t, 'READ'),
      // the replication flow's reader of the offset syncs
      acl('source', 'TOPIC', SYNCS_TOPIC, 'READ', 'LITERAL', 'log'),
      acl('source', 'GROUP', '__mm2-node-red-reader', 'READ', 'PREFIXED', 'log'),
    ];
    await writeSync(t, 3, 3);
    // a group or topic the target principal may not DESCRIBE is not listed: the hint names the operation and the resource type
    list[0].hint = true;
    list[1].hint = true;
    let n = 0;
    let group;
    await exactly(list, async () => {
      // a new group each round, committed on the target's remote topic: an offset to write on the source
      group = `${P}-fg${++n}`;
      await env.eventually(async () => {
        await admins.target.admin.setOffsets({ groupId: group, topic: remote, partitions: [{ partition: 0, offset: '3' }] });
        return true;
      }, { what: `a commit for ${group} on the target`, timeout: 30000 });
      const round = await deploy([{
        id: 'fb', type: 'mm2-failback', name: '', replication: 'rep', groups: `${P}-fg.*`, groupsExclude: '', topics: t, topicsExclude: '',
        syncGroupOffsetsIntervalSeconds: '2', wires: [['out1']],
      }], 'fb');
      return round;
    }, async () => {
      const [o] = await admins.source.admin.fetchOffsets({ groupId: group, topics: [t] });
      return o && o.partitions[0].offset === '3';
    });
  });
});
