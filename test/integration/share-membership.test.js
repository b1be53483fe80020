'use strict';
/**
 * Instances of one replication flow splitting the source's __consumer_offsets partitions through
 * Kafka's group protocol (kafka/share-membership, issue 25), against the real source cluster.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { ShareMembership } = require('../../dist/kafka/share-membership');
const { consumerOffsetsPartitionFor, javaStringHashCode } = require('../../dist/core/group-ownership');
const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');

const OFFSETS = '__consumer_offsets';

describe('share membership (real brokers)', function () {
  this.timeout(180000);
  let admin;
  let kafka;
  let partitionCount;
  const memberships = [];

  /** The end offset of every __consumer_offsets partition. */
  async function offsetsEnds() {
    const ends = await admin.fetchTopicOffsets(OFFSETS);
    return new Map(ends.map((e) => [e.partition, BigInt(e.high)]));
  }

  function membership(source, target, settings) {
    const m = new ShareMembership({ kafka, sourceAlias: source, targetAlias: target, settings, heartbeatIntervalMs: 500, sessionTimeoutMs: 10000 });
    memberships.push(m);
    return m;
  }

  before(async function () {
    admin = await env.admin('source');
    kafka = env.kafka('source');
    // make sure __consumer_offsets exists, then read how many partitions this broker gives it
    const topic = env.unique('shares-warm');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await new AdminOffsetCommitter(kafka).commit(env.unique('warm'), [{ topic, partition: 0, offset: 0n }]);
    const md = await admin.fetchTopicMetadata({ topics: [OFFSETS] });
    partitionCount = md.topics[0].partitions.length;
    assert.ok(partitionCount >= 2, `${OFFSETS} has ${partitionCount} partitions: the split needs at least 2`);
  });

  after(async function () {
    await Promise.all(memberships.map((m) => m.stop()));
  });

  it("the broker keeps a group's commits in the partition consumerOffsetsPartitionFor names (not the masked-hash one)", async function () {
    const topic = env.unique('shares-commit');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    // groups whose negative hash makes Utils.abs and `& 0x7fffffff` name different partitions
    const masked = (g) => (javaStringHashCode(g) & 0x7fffffff) % partitionCount;
    const groups = [];
    for (let i = 0; groups.length < 3; i++) {
      const g = `shares-check-${Date.now().toString(36)}-${i}`;
      if (consumerOffsetsPartitionFor(g, partitionCount) !== masked(g)) groups.push(g);
    }
    for (const g of groups) {
      const before = await offsetsEnds();
      await new AdminOffsetCommitter(kafka).commit(g, [{ topic, partition: 0, offset: 1n }]);
      const p = consumerOffsetsPartitionFor(g, partitionCount);
      const after = await env.eventually(async () => {
        const now = await offsetsEnds();
        return now.get(p) > before.get(p) ? now : null;
      }, { what: `${g}'s commit in ${OFFSETS} partition ${p}` });
      assert.equal(after.get(masked(g)), before.get(masked(g)), `${g}: nothing written to the masked-hash partition ${masked(g)}`);
    }
  });

  it('two instances of a flow split every partition with no overlap; a third with other settings gets none and reads which; a leaving one hands its share over', async function () {
    const source = env.unique('src');
    const settings = { groups: '.*', 'groups.exclude': '__.*', 'emit.checkpoints.interval.seconds': '60' };
    const all = Array.from({ length: partitionCount }, (_, i) => i);

    const a = membership(source, 'target', settings);
    const first = await a.start();
    assert.deepEqual(first.shares.partitions, all, 'alone, it owns every partition');
    assert.equal(first.members, 1);
    assert.equal(first.differs, null);
    assert.ok(Number.isInteger(first.generationId) && first.generationId >= 1, `generation ${first.generationId}`);

    // key order does not matter: the same settings
    const b = membership(source, 'target', { 'emit.checkpoints.interval.seconds': '60', 'groups.exclude': '__.*', groups: '.*' });
    assert.equal(b.fingerprint, a.fingerprint);
    const changes = [];
    a.on('change', (s) => changes.push(s));
    await b.start();
    const split = await env.eventually(() => {
      const [sa, sb] = [a.state, b.state];
      return sa && sb && sa.generationId === sb.generationId && sa.members === 2 && sb.members === 2 ? [sa, sb] : null;
    }, { what: 'both instances in one generation of 2 members' });
    const [sa, sb] = split;
    assert.ok(sa.generationId > first.generationId, `a new generation: ${first.generationId} -> ${sa.generationId}`);
    assert.ok(sa.shares.size > 0 && sb.shares.size > 0, `each has a share: ${sa.shares.partitions} / ${sb.shares.partitions}`);
    assert.deepEqual(sa.shares.partitions.filter((p) => sb.shares.ownsPartition(p)), [], 'no partition owned twice');
    assert.deepEqual([...sa.shares.partitions, ...sb.shares.partitions].sort((x, y) => x - y), all, 'every partition owned');
    assert.equal(Math.abs(sa.shares.size - sb.shares.size) <= 1, true, 'round-robin: sizes within one');
    assert.ok(changes.some((s) => s.generationId === sa.generationId), 'a change event for the new generation');
    assert.deepEqual(a.partitions, sa.shares.partitions);
    assert.equal(a.memberCount, 2);
    // every group is owned by exactly one of them
    for (const g of ['orders-consumer', 'groupé', 'pay\uD83D\uDE00ments', env.unique('g')]) {
      assert.equal(Number(sa.shares.owns(g)) + Number(sb.shares.owns(g)), 1, g);
    }

    // a third instance whose group filter differs: kept out, told which setting
    const c = membership(source, 'target', { ...settings, groups: 'orders-.*' });
    assert.notEqual(c.fingerprint, a.fingerprint);
    const refused = await c.start();
    assert.deepEqual(refused.shares.partitions, [], 'the instance that disagrees owns nothing');
    assert.deepEqual(refused.differs, { setting: 'groups', ours: 'orders-.*', theirs: '.*' });
    assert.equal(refused.differsText, 'setting groups differs from the other instances: orders-.* vs .*');
    assert.equal(refused.members, 2);
    assert.equal(refused.refused, 1);
    const withC = await env.eventually(() => {
      const [xa, xb] = [a.state, b.state];
      return xa && xb && xa.generationId === refused.generationId && xb.generationId === refused.generationId ? [xa, xb] : null;
    }, { what: 'a and b in the generation c joined' });
    assert.deepEqual([...withC[0].shares.partitions, ...withC[1].shares.partitions].sort((x, y) => x - y), all, 'the two still cover everything');
    assert.deepEqual(withC.map((s) => [s.members, s.refused, s.differs]), [[2, 1, null], [2, 1, null]]);

    // b leaves (a close): a owns everything after the rebalance, c still nothing
    await b.stop();
    assert.equal(b.state, null);
    // the rebalance b's leave starts ends when every remaining member (a and c) rejoined, which the
    // coordinator waits for up to the rebalance timeout (kafkajs's 60 s); on a loaded machine a
    // member's rejoin can take longer than 30 s (a whole run on Kafka 3.9.1 timed out at 30 s once,
    // at 43.8 s for this file against 21-26 s alone): wait the protocol's own bound, not less
    const alone = await env.eventually(() => (a.state && a.state.members === 1 && a.state.generationId > withC[0].generationId ? a.state : null), {
      what: 'a alone after b left',
      timeout: 75000,
    });
    assert.deepEqual(alone.shares.partitions, all, 'the one left owns every partition');
    assert.equal(alone.refused, 1);
    const cAfter = await env.eventually(() => (c.state && c.state.generationId === alone.generationId ? c.state : null), { what: 'c in the same generation' });
    assert.deepEqual(cAfter.shares.partitions, []);
    assert.equal(cAfter.differs.setting, 'groups');

    // members only: not one record fetched, though every member heartbeat and rejoined
    for (const m of [a, b, c]) {
      assert.ok(m.stats.joins >= 1 && m.stats.heartbeats >= 1, JSON.stringify(m.stats));
      assert.equal(m.stats.fetchRequests, 0, `no Fetch request: ${JSON.stringify(m.stats)}`);
    }
  });

  it('kill -9 of an instance: the other takes its share once the session times out', async function () {
    const { spawn } = require('node:child_process');
    const path = require('node:path');
    const source = env.unique('src');
    const settings = { groups: '.*' };
    const all = Array.from({ length: partitionCount }, (_, i) => i);
    const a = membership(source, 'target', settings);
    await a.start();
    // the other instance in a process of its own, killed without leaving the group
    const script = `
      const { Kafka, logLevel } = require('kafkajs');
      const { ShareMembership } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'dist', 'kafka', 'share-membership'))});
      const kafka = new Kafka({ clientId: 'killed', brokers: [${JSON.stringify(env.cluster('source').bootstrap)}], logLevel: logLevel.NOTHING });
      const m = new ShareMembership({ kafka, sourceAlias: ${JSON.stringify(source)}, targetAlias: 'target', settings: ${JSON.stringify(settings)}, heartbeatIntervalMs: 500, sessionTimeoutMs: 6000 });
      m.on('change', (s) => console.log(JSON.stringify({ generationId: s.generationId, partitions: s.shares.partitions, members: s.members })));
      m.start().catch((e) => { console.error(e); process.exit(1); });`;
    const child = spawn(process.execPath, ['-e', script], { cwd: path.join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'inherit'] });
    /** @type {{ generationId: number, partitions: number[], members: number } | null} */
    let childState = null;
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const lines = out.split('\n');
      out = lines.pop();
      for (const l of lines) if (l.trim()) childState = JSON.parse(l);
    });
    try {
      const [shared, peer] = await env.eventually(() => (a.state && a.state.members === 2 && childState && childState.generationId === a.state.generationId ? [a.state, childState] : null), {
        what: 'a and the child process sharing',
        timeout: 30000,
      });
      assert.ok(peer.partitions.length > 0 && shared.shares.size < partitionCount, `split: ${shared.shares.partitions} / ${peer.partitions}`);
      assert.deepEqual([...shared.shares.partitions, ...peer.partitions].sort((x, y) => x - y), all);
      child.kill('SIGKILL');
      // no leave: the coordinator notices when the child's session (6 s) times out
      const alone = await env.eventually(() => (a.state && a.state.members === 1 && a.state.generationId > shared.generationId ? a.state : null), {
        what: 'a alone after the child was killed',
        timeout: 45000,
      });
      assert.deepEqual(alone.shares.partitions, all);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('another flow (other aliases) is another group: it owns everything itself', async function () {
    const source = env.unique('src');
    const x = membership(source, 'target', { groups: '.*' });
    const y = membership(source, 'other-target', { groups: '.*' });
    const [sx, sy] = await Promise.all([x.start(), y.start()]);
    assert.notEqual(x.groupId, y.groupId);
    assert.equal(x.groupId, `__mm2-node-red-shares.${source}->target`);
    assert.equal(sx.shares.size, partitionCount);
    assert.equal(sy.shares.size, partitionCount);
  });
});
