'use strict';
/**
 * OAUTHBEARER "for managed Kafka" as managed Kafka runs it (issue 26, item 17): SASL_SSL with
 * OAUTHBEARER and KRaft's StandardAuthorizer, on both clusters. Each cluster has its own
 * self-signed test CA (made with openssl when the cluster starts, scripts/kafka/cluster.js) that
 * the mm2-cluster nodes trust through Node-RED's tls-config nodes (the CA file's path); the
 * tokens come from a client-credentials token endpoint served here (test/harness/oauth-server.js)
 * and the brokers validate them from its JWKS. The token's principal (User:<client id>) holds
 * exactly the ACLs the table in docs/security.md lists for mirror, offset syncs, checkpoints,
 * group offsets and heartbeats, nothing more (the harness's own admin is the super user on the
 * PLAINTEXT listener).
 *
 * The failover path runs over it: records are mirrored, offset syncs written, a source group's
 * commits checkpointed and written to the target group, and a consumer failing over to the target
 * resumes from there without skipping a record; every node is green. Then one documented ACL is
 * taken away (WRITE on Topic:heartbeats on the source): the heartbeat node turns red naming it,
 * its log names the token's principal, and green again once it is granted back.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { useSecuredCluster } = require('../harness/secured');
const { startOAuthServer } = require('../harness/oauth-server');
const { statusCalls } = require('../harness/checkpoint-node');
const { DEFAULT_KAFKA_VERSION } = require('../../scripts/kafka/cluster');
const tlsModule = require('@node-red/nodes/core/network/05-tls.js');

const CLIENT = 'mm2-managed';
const SECRET = 'managed-s3cret';
const PRINCIPAL = `User:${CLIENT}`;
const TOPIC = 'orders';
const PARTITIONS = 2;
const GROUP = 'shop-billing';
const GROUP_PREFIX = 'shop-';
const OFFSET_LAG_MAX = 100;

/**
 * The ACLs of docs/security.md's table ("ACLs per node"), per node, for this flow: `<topics>` is
 * `orders` and `heartbeats` (the mirror's filter selects both), `<groups>` the prefix `shop-`.
 * [side, resource type, name, operation, pattern type]
 */
const DOCUMENTED = {
  'mm2-mirror': [
    ['source', 'TOPIC', TOPIC, 'READ'], ['source', 'TOPIC', 'heartbeats', 'READ'],
    ['source', 'GROUP', '__mm2-node-red-mirror.', 'READ', 'PREFIXED'],
    ['source', 'TOPIC', 'mm2-offset-syncs.target.internal', 'CREATE'], ['source', 'TOPIC', 'mm2-offset-syncs.target.internal', 'WRITE'], ['source', 'TOPIC', 'mm2-offset-syncs.target.internal', 'DESCRIBE_CONFIGS'],
    ['source', 'TOPIC', TOPIC, 'DESCRIBE_CONFIGS'], ['source', 'TOPIC', 'heartbeats', 'DESCRIBE_CONFIGS'],
    ['source', 'CLUSTER', 'kafka-cluster', 'DESCRIBE'],
    ['target', 'TOPIC', `source.${TOPIC}`, 'CREATE'], ['target', 'TOPIC', `source.${TOPIC}`, 'WRITE'],
    ['target', 'TOPIC', 'source.heartbeats', 'CREATE'], ['target', 'TOPIC', 'source.heartbeats', 'WRITE'],
    ['target', 'TOPIC', `source.${TOPIC}`, 'ALTER_CONFIGS'], ['target', 'TOPIC', 'source.heartbeats', 'ALTER_CONFIGS'],
    ['target', 'CLUSTER', 'kafka-cluster', 'ALTER'],
  ],
  'mm2-offset-syncs': [
    ['source', 'TOPIC', 'mm2-offset-syncs.target.internal', 'READ'],
    ['source', 'GROUP', '__mm2-node-red-reader', 'READ', 'PREFIXED'],
  ],
  'mm2-checkpoint': [
    ['source', 'GROUP', GROUP_PREFIX, 'DESCRIBE', 'PREFIXED'], ['source', 'TOPIC', TOPIC, 'DESCRIBE'],
    ['source', 'TOPIC', '__consumer_offsets', 'READ'], ['source', 'GROUP', '__mm2-node-red-commits', 'READ', 'PREFIXED'],
    ['target', 'TOPIC', 'source.checkpoints.internal', 'CREATE'], ['target', 'TOPIC', 'source.checkpoints.internal', 'WRITE'],
    ['target', 'TOPIC', 'source.checkpoints.internal', 'DESCRIBE_CONFIGS'], ['target', 'TOPIC', 'source.checkpoints.internal', 'READ'],
    ['target', 'GROUP', '__mm2-node-red-checkpoints-restore', 'READ', 'PREFIXED'],
    // optional: readiness's membersOnTarget (covered by mm2-group-offsets' READ below anyway)
    ['target', 'GROUP', GROUP_PREFIX, 'DESCRIBE', 'PREFIXED'],
  ],
  'mm2-group-offsets': [
    ['target', 'TOPIC', 'source.checkpoints.internal', 'READ'],
    ['target', 'GROUP', '__mm2-node-red-group-offsets-', 'READ', 'PREFIXED'],
    ['target', 'GROUP', GROUP_PREFIX, 'READ', 'PREFIXED'], ['target', 'TOPIC', `source.${TOPIC}`, 'READ'],
  ],
  'mm2-heartbeat': [
    ['source', 'TOPIC', 'heartbeats', 'CREATE'], ['source', 'TOPIC', 'heartbeats', 'WRITE'], ['source', 'TOPIC', 'heartbeats', 'DESCRIBE_CONFIGS'],
    ['target', 'TOPIC', 'source.heartbeats', 'READ'], ['target', 'GROUP', '__mm2-node-red-heartbeats', 'READ', 'PREFIXED'],
  ],
};
const entry = ([side, resourceType, resourceName, operation, patternType = 'LITERAL']) => ({ side, principal: PRINCIPAL, resourceType, resourceName, operation, patternType });

describe(`OAUTHBEARER over SASL_SSL with StandardAuthorizer: the failover path with exactly the documented ACLs (Kafka ${process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION})`, function () {
  this.timeout(300000);
  /** @type {Awaited<ReturnType<typeof startOAuthServer>>} */
  let auth;
  // the JWKS must answer before the brokers start: this before() runs ahead of the clusters'
  before(async function () {
    auth = await startOAuthServer({ clients: { [CLIENT]: SECRET }, lifetimeSeconds: 60 });
  });
  const oauth = () => ({ tls: true, authorizer: true, oauth: { jwksUrl: auth.jwksUrl, issuer: auth.issuer, audience: auth.audience, allowedUrls: [auth.tokenUrl] } });
  const src = useSecuredCluster('oauth-ssl-src', oauth);
  const tgt = useSecuredCluster('oauth-ssl-tgt', oauth);
  const sides = { source: src, target: tgt };
  const admins = {};

  before(async function () {
    await nodes.startServer();
    for (const side of /** @type {const} */ (['source', 'target'])) {
      // PLAINTEXT is User:ANONYMOUS, the harness's super user
      const kafka = sides[side].kafka('PLAINTEXT', {}, { retry: { retries: 8, initialRetryTime: 200 } });
      const admin = kafka.admin();
      await admin.connect();
      sides[side].closeLater(() => admin.disconnect());
      admins[side] = { kafka, admin };
    }
  });
  after(async function () {
    await nodes.helper.unload();
    await nodes.stopServer();
    if (auth) await auth.stop();
  });

  const acls = (list) => Object.entries(DOCUMENTED).flatMap(([, l]) => l).filter((a) => list === undefined || list.includes(a)).map(entry);
  /** Creates (or deletes) ACL entries on their side's cluster. */
  const setAcls = (entries, fn) => Promise.all(['source', 'target'].map((side) => {
    const mine = entries.filter((a) => a.side === side).map(({ side: _s, ...rest }) => rest);
    return mine.length ? sides[side].cluster.acl[fn](mine) : undefined;
  }));

  const clusterNode = (id, alias, side, tlsId) => ({
    id, type: 'mm2-cluster', name: '', alias, bootstrap: sides[side].cluster.listeners.OAUTH_SSL, clientId: '', usetls: true, tls: tlsId,
    saslMechanism: 'oauthbearer', oauthTokenEndpoint: auth.tokenUrl, oauthClientId: CLIENT, oauthScope: 'kafka', oauthExtensions: '',
    connectionTimeoutMs: '', requestTimeoutMs: '',
  });
  /** The full failover example's nodes and settings (examples/full-failover.json), its clusters on OAUTH_SSL. */
  function flow() {
    return [
      { id: 'tls-src', type: 'tls-config', name: 'source CA', cert: '', key: '', ca: src.cluster.tls.caFile, verifyservercert: true },
      { id: 'tls-tgt', type: 'tls-config', name: 'target CA', cert: '', key: '', ca: tgt.cluster.tls.caFile, verifyservercert: true },
      clusterNode('c-src', 'source', 'source', 'tls-src'),
      clusterNode('c-tgt', 'target', 'target', 'tls-tgt'),
      { id: 'rep', type: 'mm2-replication', name: '', source: 'c-src', target: 'c-tgt', policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', offsetTranslation: 'precise', replicationFactor: '1' },
      {
        id: 'mirror', type: 'mm2-mirror', name: '', replication: 'rep', topics: '.*', topicsExclude: '.*[\\-\\.]internal, .*\\.replica, __.*', heartbeatsReplicationEnabled: true,
        replicationFactor: '1', offsetLagMax: String(OFFSET_LAG_MAX), emitOffsetSyncsEnabled: true, offsetFlushIntervalMs: '5000', refreshTopicsIntervalSeconds: '30',
        syncTopicConfigsEnabled: true, syncTopicConfigsIntervalSeconds: '', configPropertiesExclude: '', syncTopicAclsEnabled: true, syncTopicAclsIntervalSeconds: '', wires: [[]],
      },
      { id: 'syncs', type: 'mm2-offset-syncs', name: '', replication: 'rep', wires: [['checkpoint']] },
      {
        id: 'checkpoint', type: 'mm2-checkpoint', name: '', replication: 'rep', groups: '.*', groupsExclude: 'console-consumer-.*, connect-.*, __.*', topics: '.*', topicsExclude: '.*[\\-\\.]internal, .*\\.replica, __.*',
        emitCheckpointsIntervalSeconds: '10', refreshGroupsIntervalSeconds: '60', sourceOffsets: 'auto', readyMaxReread: '1000', readyMaxAgeSeconds: '300', wires: [['groupoffsets'], []],
      },
      { id: 'groupoffsets', type: 'mm2-group-offsets', name: '', replication: 'rep', mode: 'input', syncGroupOffsetsIntervalSeconds: '10', minWriteIntervalMs: '', followRewinds: true, groups: '.*', groupsExclude: 'console-consumer-.*, connect-.*, __.*', wires: [[]] },
      { id: 'heartbeat', type: 'mm2-heartbeat', name: '', replication: 'rep', emitHeartbeatsEnabled: true, emitHeartbeatsIntervalSeconds: '1', staleAfterSeconds: '30', watch: true, wires: [[], []] },
    ];
  }
  const FLOW_NODES = ['mirror', 'syncs', 'checkpoint', 'groupoffsets', 'heartbeat'];
  const logsOf = (node) => ['warn', 'error'].flatMap((l) => node[l].getCalls().filter((c) => c.thisValue === node).map((c) => String(c.args[0])));
  const lastStatus = (id) => statusCalls(nodes.helper.getNode(id)).at(-1) ?? {};
  const shown = () => FLOW_NODES.map((id) => `${id}: ${JSON.stringify(lastStatus(id))}; logs ${logsOf(nodes.helper.getNode(id)).slice(-3).join(' | ')}`).join('\n');

  /** Committed offsets of `group` on `side` for `topic`, by partition. */
  async function committed(side, group, topic) {
    const [r] = await admins[side].admin.fetchOffsets({ groupId: group, topics: [topic] });
    return Object.fromEntries((r ? r.partitions : []).map((p) => [p.partition, Number(p.offset)]));
  }

  it('mirror, offset syncs, checkpoints, group offsets and heartbeats work with exactly the documented ACLs; a consumer failing over resumes without skipping', async function () {
    const { admin } = admins.source;
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }], waitForLeaders: false });
    await env.eventually(async () => {
      const [m] = (await admin.fetchTopicMetadata({ topics: [TOPIC] })).topics;
      return m.partitions.length === PARTITIONS && m.partitions.every((p) => p.leader >= 0);
    }, { what: `leaders for ${TOPIC}` });
    const producer = admins.source.kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    src.closeLater(() => producer.disconnect());
    const perPartition = 300;
    for (let p = 0; p < PARTITIONS; p++) {
      await producer.send({ topic: TOPIC, messages: Array.from({ length: perPartition }, (_, i) => ({ partition: p, value: `p${p}-r${i}` })) });
    }
    // the source group's position: the failover must resume at or before it
    const position = { 0: 137, 1: 251 };
    await env.eventually(async () => {
      await admin.setOffsets({ groupId: GROUP, topic: TOPIC, partitions: Object.entries(position).map(([partition, offset]) => ({ partition: Number(partition), offset: String(offset) })) });
      return true;
    }, { what: `the commits of ${GROUP} on the source`, timeout: 30000 });

    // exactly the documented ACLs of the five nodes for the token's principal, nothing else
    await setAcls(acls(), 'create');
    const granted = await Promise.all(['source', 'target'].map((side) => sides[side].cluster.acl.list({ principal: PRINCIPAL })));
    assert.equal(granted.flat().length, new Set(acls().map((a) => JSON.stringify(a))).size, 'the principal holds the documented ACLs only');

    await nodes.helper.load([tlsModule, ...nodes.modules], flow(), { 'c-src': { oauthClientSecret: SECRET }, 'c-tgt': { oauthClientSecret: SECRET } });

    // the failover path: the target group at the translated position of the source group
    const remote = `source.${TOPIC}`;
    let target = {};
    await env.eventually(async () => {
      target = await committed('target', GROUP, remote);
      return Object.keys(position).every((p) => target[p] >= position[p] - OFFSET_LAG_MAX && target[p] > 0);
    }, { what: `${GROUP}'s offsets written on the target`, timeout: 180000 })
      .catch((e) => assert.fail(`${e.message}: ${JSON.stringify(target)}\n${shown()}`));
    for (const p of Object.keys(position)) {
      assert.ok(target[p] <= position[p], `partition ${p}: the target offset ${target[p]} is not past the source position ${position[p]} (nothing skipped)`);
    }
    // a consumer failing over reads, from there, the source's records from its position on (the remote topic has the same offsets: nothing was deleted)
    const consumer = admins.target.kafka.consumer({ groupId: GROUP, allowAutoTopicCreation: false });
    tgt.closeLater(() => consumer.disconnect());
    const first = {};
    await consumer.connect();
    await consumer.subscribe({ topics: [remote], fromBeginning: false });
    await consumer.run({ autoCommit: false, eachMessage: async ({ partition, message }) => { if (!(partition in first)) first[partition] = message.value.toString(); } });
    await env.eventually(() => Object.keys(first).length === PARTITIONS, { what: 'a record of each partition read on the target', timeout: 60000 });
    await consumer.disconnect();
    for (const p of Object.keys(position)) {
      const n = Number(/r(\d+)$/.exec(first[p])[1]);
      assert.ok(n <= position[p] && n >= position[p] - OFFSET_LAG_MAX, `partition ${p}: resumes at record ${n}, at or before the source position ${position[p]}`);
    }

    // every node green: the heartbeats made the round trip, the checkpoint node covers the group
    await env.eventually(() => FLOW_NODES.every((id) => lastStatus(id).fill === 'green'), { what: 'every node green', timeout: 90000 })
      .catch((e) => assert.fail(`${e.message}\n${shown()}`));
    // nothing refused, not even what a node goes on without (ACL sync, config sync, the event path, the restore)
    for (const id of FLOW_NODES) {
      assert.deepEqual(logsOf(nodes.helper.getNode(id)).filter((t) => /not authorized|AUTHORIZATION_FAILED|polling .* instead/.test(t)), [], `${id} was never refused`);
    }
    assert.ok(!/polling/.test(lastStatus('checkpoint').text || ''), `the checkpoint node follows the commits (event path): ${lastStatus('checkpoint').text}`);
  });

  it('without one documented ACL (WRITE on Topic:heartbeats on the source) the heartbeat node is red naming it, its log the token\'s principal; green once granted back', async function () {
    assert.ok(nodes.helper.getNode('heartbeat'), 'the flow the test before deployed is running');
    const write = entry(['source', 'TOPIC', 'heartbeats', 'WRITE']);
    const hb = nodes.helper.getNode('heartbeat');
    const from = statusCalls(hb).length;
    await setAcls([write], 'delete');
    try {
      const red = await env.eventually(() => statusCalls(hb).slice(from).find((s) => s.fill === 'red' && /not authorized: needs (?:[A-Z_]+(?:, | and ))*WRITE(?:(?:, | and )[A-Z_]+)* on Topic:heartbeats/.test(s.text)), { what: 'a red status naming WRITE on Topic:heartbeats', timeout: 60000 })
        .catch((e) => assert.fail(`${e.message}: ${JSON.stringify(statusCalls(hb).slice(from))}`));
      assert.ok(red);
      const line = await env.eventually(() => logsOf(hb).find((t) => /WRITE.* on Topic:heartbeats/.test(t) && t.includes(`OAuth client '${CLIENT}'`)), { what: "a log line naming the ACL and the token's principal", timeout: 30000 })
        .catch((e) => assert.fail(`${e.message}: ${logsOf(hb).join(' | ')}`));
      assert.ok(line);
    } finally {
      await setAcls([write], 'create');
    }
    const back = statusCalls(hb).length;
    await env.eventually(() => statusCalls(hb).slice(back).some((s) => s.fill === 'green'), { what: 'green again once granted', timeout: 60000 });
  });
});
