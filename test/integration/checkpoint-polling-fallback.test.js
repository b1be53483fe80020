'use strict';
/**
 * mm2-checkpoint's polling fallback on real brokers: the source cluster runs KRaft's
 * StandardAuthorizer and the node logs in over SASL_PLAINTEXT as a principal that may not read
 * `__consumer_offsets`. The node polls, says so (status "· polling", a warning naming the ACLs),
 * and still writes exact checkpoints to the real target cluster; once the missing ACLs are granted,
 * the next group refresh follows `__consumer_offsets` again and a commit is checkpointed without
 * any cycle being asked for (every interval but the group refresh at 3600 s).
 *
 * ACLs the checkpoint node needs on the source to poll (found by taking each one away; the
 * principal is `User:<sasl user>`), with `<groups>` and `<topics>` what the node's filters select:
 *   - DESCRIBE on Group:<groups>  (ListGroups lists only the groups the principal may describe;
 *     FindCoordinator and OffsetFetch of each group)
 *   - DESCRIBE on Topic:<topics>  (OffsetFetch leaves out partitions of topics it may not describe)
 * Nothing on the cluster (no DESCRIBE on Cluster: ListGroups filters per group instead) and nothing
 * on the target side here (the target is the harness's plain cluster). To follow
 * `__consumer_offsets` (the event path) it needs, besides those:
 *   - READ and DESCRIBE on Topic:__consumer_offsets (literal)
 *   - READ on Group:__mm2-node-red-commits (prefixed; the stream's own throwaway consumer group)
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { useSecuredCluster } = require('../harness/secured');
const { produceSyncs, statusCalls, restored, following, pollingReason, checkpointRecords, commitOffsets } = require('../harness/checkpoint-node');
const { AdminOffsetCommitter } = require('../../dist/kafka/admin-offset-committer');
const { DEFAULT_KAFKA_VERSION } = require('../../scripts/kafka/cluster');

const USER = 'checkpointer';
const PRINCIPAL = `User:${USER}`;

/** The warnings this node logged, in order. */
function warnings(node) {
  return node.warn.getCalls().filter((c) => c.thisValue === node).map((c) => String(c.args[0]));
}

/** The last checkpoint on the target of each `group remoteTopic-partition` of groups starting with `prefix`: [upstream, downstream]. */
async function checkpointsOnTarget(prefix) {
  return new Map((await checkpointRecords(prefix)).map((c) => [`${c.group} ${c.topic}-${c.partition}`, [c.upstreamOffset, c.downstreamOffset]]));
}

describe(`mm2-checkpoint polling fallback: a principal without READ on __consumer_offsets (Kafka ${process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION})`, function () {
  this.timeout(180000);
  const secured = useSecuredCluster('cp-fallback', { authorizer: true, users: { [USER]: 'checkpointer-secret' } });
  let superKafka;
  let committer;

  before(async function () {
    await nodes.startServer();
    superKafka = secured.kafka('PLAINTEXT', {}, { retry: { retries: 8, initialRetryTime: 200 } }); // User:ANONYMOUS, a super user
    committer = new AdminOffsetCommitter(superKafka);
    secured.closeLater(() => committer.close());
  });
  after(async function () {
    await nodes.helper.unload();
    await nodes.stopServer();
  });

  /** A commit as the super user (asked again while the fresh cluster's coordinator loads). */
  const commit = (group, offsets) => commitOffsets(committer, group, offsets, 30000);

  it('polls, says why and which ACL, still checkpoints; follows __consumer_offsets once the ACLs are granted', async function () {
    const { acl } = secured.cluster;
    const prefix = env.unique('fb');
    const topic = `${prefix}-t`;
    const group = `${prefix}-g`;
    const admin = superKafka.admin();
    secured.closeLater(() => admin.disconnect());
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: false });
    await env.eventually(async () => {
      const [m] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
      return m.partitions.length === 2 && m.partitions.every((p) => p.leader >= 0);
    }, { what: `leaders for ${topic}` });
    await commit(group, [[topic, 0, 10], [topic, 1, 5]]); // also creates __consumer_offsets

    // what polling needs, and nothing of __consumer_offsets
    await acl.create([
      { principal: PRINCIPAL, resourceType: 'GROUP', resourceName: prefix, patternType: 'PREFIXED', operation: 'DESCRIBE' },
      { principal: PRINCIPAL, resourceType: 'TOPIC', resourceName: prefix, patternType: 'PREFIXED', operation: 'DESCRIBE' },
      // the replication flow's reader of the offset syncs (as MM2's checkpoint task reads them)
      { principal: PRINCIPAL, resourceType: 'TOPIC', resourceName: 'mm2-offset-syncs.target.internal', patternType: 'LITERAL', operation: 'READ' },
      { principal: PRINCIPAL, resourceType: 'GROUP', resourceName: '__mm2-node-red-reader', patternType: 'PREFIXED', operation: 'READ' },
    ]);

    await nodes.load([
      {
        id: 'cp', type: 'mm2-checkpoint', name: '', replication: 'rep',
        groups: `${prefix}-.*`, groupsExclude: '', topics: topic, topicsExclude: '',
        emitCheckpointsIntervalSeconds: '3600', // only the event path can checkpoint a commit between cycles
        refreshGroupsIntervalSeconds: '2', // each refresh tries to follow __consumer_offsets again
        sourceOffsets: 'auto',
        wires: [['out1'], ['out2']],
      },
      { id: 'out1', type: 'helper' },
      { id: 'out2', type: 'helper' },
    ], {
      over: { src: { bootstrap: secured.cluster.listeners.SASL_PLAINTEXT, saslMechanism: 'scram-sha-512' } },
      credentials: { src: { username: USER, password: secured.cluster.saslUsers[USER] } },
    });
    const cp = nodes.helper.getNode('cp');
    const out1 = nodes.collect(nodes.helper.getNode('out1'));
    const out2 = nodes.collect(nodes.helper.getNode('out2'));
    const restore = await restored(cp, 60000);
    assert.equal(restore.ok, true, JSON.stringify(restore));

    // ---- polling, and why (the log): not authorized, the ACLs it lacks named ----
    const reason = await env.eventually(() => pollingReason(cp), { what: 'the node falling back to polling (its warning)', timeout: 60000 });
    assert.match(reason, /TOPIC_AUTHORIZATION_FAILED/);
    assert.equal(following(cp), false, 'never followed __consumer_offsets');
    const warning = await env.eventually(() => warnings(cp).find((w) => w.includes('polling every group')), { what: 'the polling warning' });
    assert.match(warning, /READ and DESCRIBE on Topic:__consumer_offsets/, warning);
    assert.match(warning, /READ on Group:__mm2-node-red-commits \(prefixed\)/, warning);
    assert.ok(warning.includes(`for principal ${PRINCIPAL}`), `the warning names the principal that lacks them: ${warning}`);

    // ---- still delivering: the syncs, then a cycle (the one the loaded syncs start, or asked for) ----
    await produceSyncs('mm2-offset-syncs.target.internal', [[topic, 0, 10, 110], [topic, 1, 5, 205]], superKafka);
    await env.eventually(() => out1.some((m) => m.payload.full && m.payload.checkpoints.some((c) => c.group === group)), { what: 'a full cycle checkpointing the group' });
    assert.equal(following(cp), false, 'still polling: it did not say it follows __consumer_offsets');
    const status = await env.eventually(() => {
      const s = statusCalls(cp).at(-1);
      return s && / · polling$/.test(s.text) ? s : null;
    }, { what: 'the status saying polling' });
    assert.equal(status.fill, 'green', JSON.stringify(status)); // delivering, every selected group checkpointed
    assert.match(status.text, /^1 group ready, 2 new \/ \d+ s ago · polling$/);
    const written = await env.eventually(async () => {
      const m = await checkpointsOnTarget(prefix);
      return m.size === 2 ? m : null;
    }, { what: 'the checkpoints on the target' });
    assert.deepEqual([...written].sort(), [[`${group} source.${topic}-0`, [10n, 110n]], [`${group} source.${topic}-1`, [5n, 205n]]]);
    assert.ok(out2.length >= 1, 'a coverage message per full cycle');

    // a commit while polling is checkpointed by the next cycle only (a cycle asked for here)
    await commit(group, [[topic, 0, 10], [topic, 1, 6]]);
    const before = out2.length;
    cp.receive({ payload: 'now' });
    await env.eventually(() => out2.length > before, { what: 'the cycle asked for' });
    await env.eventually(async () => {
      const w = (await checkpointsOnTarget(prefix)).get(`${group} source.${topic}-1`);
      return w && w[0] === 6n && w[1] === 206n;
    }, { what: 'partition 1 checkpointed at 6 -> 206 by the polling cycle' });

    // ---- the ACLs the warning names: the next group refresh follows __consumer_offsets ----
    const coverageBefore = out2.length;
    await acl.create([
      { principal: PRINCIPAL, resourceType: 'TOPIC', resourceName: '__consumer_offsets', operation: 'READ' },
      { principal: PRINCIPAL, resourceType: 'TOPIC', resourceName: '__consumer_offsets', operation: 'DESCRIBE' },
      { principal: PRINCIPAL, resourceType: 'GROUP', resourceName: '__mm2-node-red-commits', patternType: 'PREFIXED', operation: 'READ' },
    ]);
    await env.eventually(() => following(cp), { what: 'the node following __consumer_offsets after the retry (its log)', timeout: 90000 });
    // following: a full cycle as the stream stands (what was committed meanwhile), and the status drops "polling"
    await env.eventually(() => out2.length > coverageBefore, { what: 'the full cycle that starts with the stream' });
    await env.eventually(() => {
      const s = statusCalls(cp).at(-1);
      return s && s.fill === 'green' && !/polling/.test(s.text);
    }, { what: 'the status without polling' });

    // a commit now is checkpointed by the event path: no cycle asked for, the emit interval is an hour
    const cyclesAsked = out2.length;
    await commit(group, [[topic, 0, 12], [topic, 1, 6]]);
    const event = await env.eventually(() => out1.find((m) => m.payload.full === false && m.payload.checkpoints.some((c) => c.group === group && c.partition === 0 && c.upstreamOffset === '12')), { what: 'the commit checkpointed by the event path' });
    assert.deepEqual(event.payload.checkpoints.filter((c) => c.group === group).map((c) => [c.partition, c.upstreamOffset, c.downstreamOffset]), [[0, '12', '111']]);
    await env.eventually(async () => {
      const w = (await checkpointsOnTarget(prefix)).get(`${group} source.${topic}-0`);
      return w && w[0] === 12n && w[1] === 111n;
    }, { what: 'partition 0 checkpointed at 12 -> 111 on the target' });
    assert.equal(out2.length, cyclesAsked, 'no full cycle delivered the commit');
  });
});
