'use strict';
/**
 * The polling split (issue 25, core/share-topic): the source runs KRaft's StandardAuthorizer and
 * the instances log in over SASL as a principal with no ACL at all on `__consumer_offsets` (no
 * READ, no DESCRIBE): the checkpoint node polls, and the instances split the groups by the same
 * hash over the partitions of the flow's own topic `mm2-node-red-shares.<target>.internal`, which
 * the first instance creates (compacted, 50 partitions, nothing written). Two real Node-RED
 * processes split 20 groups disjointly; kill -9 of one: the other takes every group, and its
 * status says it works alone.
 *
 * ACLs of the principal on the source (polling, the offset-syncs reader, the split):
 *   DESCRIBE on Group:<P> and Topic:<P> (prefixed), READ on Topic:mm2-offset-syncs.<target>.internal,
 *   READ on Group:__mm2-node-red-reader (prefixed), READ on Group:__mm2-node-red-shares. (prefixed),
 *   CREATE and DESCRIBE on Topic:mm2-node-red-shares.<target>.internal.
 * The target is the harness's plain cluster.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { useSecuredCluster } = require('../harness/secured');
const { nodeRedInstances } = require('../harness/instances');
const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');
const { encodeOffsetSync } = require('../../dist/core/offset-sync');

const USER = 'sharer';
const PRINCIPAL = `User:${USER}`;

describe('share polling: instances that may not read __consumer_offsets split the groups over the flow\'s own topic (authorizer on, real Node-RED processes)', function () {
  this.timeout(480000);
  const secured = useSecuredCluster('share-poll', { authorizer: true, users: { [USER]: 'sharer-secret' } });
  const S = env.unique('sps');
  const T = env.unique('spt');
  const P = env.unique('spg');
  const TOPIC = `${P}-orders`;
  const REMOTE = `${S}.${TOPIC}`;
  const SYNCS = `mm2-offset-syncs.${T}.internal`;
  const SPLIT = `mm2-node-red-shares.${T}.internal`;
  const nrs = nodeRedInstances('mm2-share-poll-');
  const { instances } = nrs;
  let committer;
  let superAdmin;
  let syncProducer;

  function flow(name) {
    return [
      { id: 'tab', type: 'tab', label: 'share-poll', disabled: false, info: '' },
      { id: 'c-src', type: 'mm2-cluster', alias: S, bootstrap: secured.cluster.listeners.SASL_PLAINTEXT, saslMechanism: 'scram-sha-512' },
      { id: 'c-tgt', type: 'mm2-cluster', alias: T, bootstrap: env.cluster('target').bootstrap, saslMechanism: 'none' },
      { id: 'rep', type: 'mm2-replication', source: 'c-src', target: 'c-tgt', policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', replicationFactor: '1' },
      {
        id: 'cp', type: 'mm2-checkpoint', z: 'tab', replication: 'rep', groups: `${P}-.*`, groupsExclude: '', topics: TOPIC, topicsExclude: '',
        emitCheckpointsIntervalSeconds: '2', refreshGroupsIntervalSeconds: '2', sourceOffsets: 'auto', wires: [['cp-out'], []],
      },
      nrs.fileNode(name, 'cp-out', 'checkpoints'),
    ];
  }

  // the source's SASL login is in each instance's credentials
  const start = (name) => nrs.start(name, flow(name), { credentials: { 'c-src': { username: USER, password: secured.cluster.saslUsers[USER] } } });
  const checkpointed = (name, upstream) => new Set(nrs.lines(name, 'checkpoints').flatMap((p) => p.checkpoints.filter((c) => c.upstreamOffset === upstream).map((c) => c.group)));
  const status = (name) => nrs.status(name, 'cp');
  const logs = nrs.logs;

  async function commitAll(groups, offset) {
    for (const g of groups) {
      await env.eventually(async () => (await committer.commit(g, [{ topic: TOPIC, partition: 0, offset: BigInt(offset) }])).ok, { timeout: 30000, what: `commit of ${g}` });
    }
  }

  before(async function () {
    const superKafka = secured.kafka('PLAINTEXT', {}, { retry: { retries: 8, initialRetryTime: 200 } }); // User:ANONYMOUS, a super user
    superAdmin = superKafka.admin();
    await superAdmin.connect();
    secured.closeLater(() => superAdmin.disconnect());
    await superAdmin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }, { topic: SYNCS, numPartitions: 1 }], waitForLeaders: true });
    const target = await env.admin('target');
    await target.createTopics({ topics: [{ topic: REMOTE, numPartitions: 1 }], waitForLeaders: true });
    const sp = superKafka.producer({ allowAutoTopicCreation: false });
    syncProducer = sp;
    await sp.connect();
    secured.closeLater(() => sp.disconnect());
    await sp.send({ topic: TOPIC, messages: Array.from({ length: 20 }, (_, i) => ({ value: `r${i}` })) });
    const { key, value } = encodeOffsetSync({ topic: TOPIC, partition: 0, upstreamOffset: 0n, downstreamOffset: 100n });
    await sp.send({ topic: SYNCS, messages: [{ key, value, partition: 0 }] });
    const tp = env.kafka('target').producer({ allowAutoTopicCreation: false });
    await tp.connect();
    await tp.send({ topic: REMOTE, messages: Array.from({ length: 200 }, (_, i) => ({ value: `r${i}` })) });
    await tp.disconnect();
    committer = new AdminOffsetCommitter(superKafka);
    secured.closeLater(() => committer.close());
    await secured.cluster.acl.create([
      { principal: PRINCIPAL, resourceType: 'GROUP', resourceName: P, patternType: 'PREFIXED', operation: 'DESCRIBE' },
      { principal: PRINCIPAL, resourceType: 'TOPIC', resourceName: P, patternType: 'PREFIXED', operation: 'DESCRIBE' },
      { principal: PRINCIPAL, resourceType: 'TOPIC', resourceName: SYNCS, patternType: 'LITERAL', operation: 'READ' },
      { principal: PRINCIPAL, resourceType: 'GROUP', resourceName: '__mm2-node-red-reader', patternType: 'PREFIXED', operation: 'READ' },
      // the polling split: the sharing group, and the flow's topic (made by the first instance)
      { principal: PRINCIPAL, resourceType: 'GROUP', resourceName: '__mm2-node-red-shares.', patternType: 'PREFIXED', operation: 'READ' },
      { principal: PRINCIPAL, resourceType: 'TOPIC', resourceName: SPLIT, patternType: 'LITERAL', operation: 'CREATE' },
      { principal: PRINCIPAL, resourceType: 'TOPIC', resourceName: SPLIT, patternType: 'LITERAL', operation: 'DESCRIBE' },
    ]);
    // __consumer_offsets exists (a commit made it): the principal is refused it, not told it is missing
    await commitAll([`warm-${P}`], 0);
  });

  after(async function () {
    if (this.currentTest && this.currentTest.state === 'failed') console.log(logs());
    await nrs.stopAll();
  });

  it('two instances split 20 groups disjointly over mm2-node-red-shares.<target>.internal; kill -9 of one: the other takes every group and its status shows it', async function () {
    await start('a');
    await start('b');
    const sharing = (n) => /of 50 partitions, 2 instances/.test(status(n).text || '');
    try {
      await env.eventually(() => sharing('a') && sharing('b'), { timeout: 120000, what: 'both checkpoint nodes showing a share of 50 partitions, 2 instances' });
    } catch (e) {
      throw new Error(`${e.message}: a ${JSON.stringify(status('a'))}, b ${JSON.stringify(status('b'))}\n${logs()}`);
    }
    // polling (no READ on __consumer_offsets), splitting the flow's own topic, made as MM2 makes its internal topics
    for (const n of ['a', 'b']) assert.match(instances[n].nr.log, /not following __consumer_offsets on the source, polling.*TOPIC_AUTHORIZATION_FAILED/, `${n} polls`);
    const [md] = (await superAdmin.fetchTopicMetadata({ topics: [SPLIT] })).topics;
    assert.equal(md.partitions.length, 50);
    const cfg = await superAdmin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: SPLIT, configNames: ['cleanup.policy'] }] });
    assert.equal(cfg.resources[0].configEntries[0].configValue, 'compact');
    const offsets = await superAdmin.fetchTopicOffsets(SPLIT);
    assert.ok(offsets.every((o) => o.high === '0'), 'nothing is written to the split topic');
    const group = await superAdmin.describeGroups([`__mm2-node-red-shares.${S}->${T}`]);
    assert.equal(group.groups[0].members.length, 2);
    for (const n of ['a', 'b']) assert.doesNotMatch(instances[n].nr.log, /works alone on the whole flow/, `${n} shares, not alone`);

    // 20 groups: each checkpointed by exactly one instance, all covered
    const groups = Array.from({ length: 20 }, (_, i) => `${P}-g${i}`);
    await commitAll(groups, 5);
    await env.eventually(() => groups.every((g) => checkpointed('a', '5').has(g) || checkpointed('b', '5').has(g)), { timeout: 90000, what: 'every group checkpointed by one of the instances' });
    const [ca, cb] = [checkpointed('a', '5'), checkpointed('b', '5')];
    assert.deepEqual([...ca].filter((g) => cb.has(g)), [], 'no group checkpointed by both instances');
    assert.ok(ca.size > 0 && cb.size > 0, `each instance has a share of the groups: a ${ca.size}, b ${cb.size}`);
    assert.equal(ca.size + cb.size, 20);
    await env.eventually(() => {
      const owned = ['a', 'b'].map((n) => /^([\d,]+) of 20 groups/.exec(status(n).text || ''));
      return owned.every(Boolean) && Number(owned[0][1]) + Number(owned[1][1]) === 20;
    }, { timeout: 60000, what: `the two statuses' groups adding up to 20 (${status('a').text} / ${status('b').text})` });
    // and each says it polls, with its share
    await env.eventually(() => ['a', 'b'].every((n) => /^\d+ of 20 groups, 25 of 50 partitions, 2 instances · .* · polling$/.test(status(n).text || '')), { timeout: 60000, what: `both statuses: share and polling (${status('a').text} / ${status('b').text})` });

    // kill -9 b: no leave; after the session timeout a owns every partition of the split topic
    nrs.kill('b');
    await env.eventually(() => /\d/.test(status('a').text || '') && !/instances/.test(status('a').text || ''), { timeout: 120000, what: `a alone, its status without a share (${status('a').text})` });
    // a newer sync (source 7 is target 107), then every group commits 7: a new checkpoint for each (7 -> 107)
    const next = encodeOffsetSync({ topic: TOPIC, partition: 0, upstreamOffset: 7n, downstreamOffset: 107n });
    await syncProducer.send({ topic: SYNCS, messages: [{ key: next.key, value: next.value, partition: 0 }] });
    await commitAll(groups, 7);
    try {
      await env.eventually(() => groups.every((g) => checkpointed('a', '7').has(g)), { timeout: 90000, what: "a checkpointing every group, b's included, alone" });
    } catch (e) {
      throw new Error(`${e.message}: a checkpointed ${[...checkpointed('a', '7')].length} at 7; status ${status('a').text}; last output ${JSON.stringify(nrs.lines('a', 'checkpoints').at(-1)).slice(0, 1500)}`);
    }
    for (const g of cb) assert.ok(checkpointed('a', '7').has(g), `${g} (b's) taken over by a`);
    assert.match(status('a').text, /^20 groups/, `a's status: ${status('a').text}`);
  });
});
