'use strict';
/**
 * Conformance: active/active, ours beside the real MirrorMaker 2 (dedicated mode, Kafka's own
 * connect-mirror jars) on the same two clusters, east ('source') and west ('target').
 *
 * MM2 runs both directions (east->west and west->east, DefaultReplicationPolicy) with aliases
 * `<id>a` (east) and `<id>b` (west) over the topics `<id>mm2-*`; ours is the active-active
 * example (two mm2-replication flows in opposite directions) with aliases `<id>east` and
 * `<id>west` over `<id>nr-*`. Kept apart by topic and group names, and by heartbeats: MM2
 * replicates the `heartbeats` topics (as it always does), ours does not (heartbeats replication
 * off, no heartbeat node; test/integration/active-active.test.js covers ours). Two replicators with
 * different aliases that both replicated heartbeats would copy each other's remote heartbeats
 * topics back and forth (`<b>.<c>.heartbeats`, `<c>.<b>.<c>.heartbeats`, ...): the cycle check only
 * knows its own aliases.
 *
 * With each alias replaced by its cluster's role and each topic prefix by `<T>`, both leave the
 * same topic names on each cluster (remote topics `<east>.X` on west and `<west>.Y` on east, never
 * `<east>.<west>.*` / `<west>.<east>.*`, checkpoints topics `<east>.checkpoints.internal` on west
 * and `<west>.checkpoints.internal` on east, offset-syncs topics `mm2-offset-syncs.<west>.internal`
 * on east and `mm2-offset-syncs.<east>.internal` on west), with the same partition counts, and
 * every record once on the other side.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { exampleFlow } = require('../harness/active-active');
const { readTopic } = require('../harness/records');
const { startMirrorMaker } = require('../../scripts/kafka/connect');
const { DEFAULT_KAFKA_VERSION } = require('../../scripts/kafka/cluster');

const N = 30;
/** Kafka Connect's own topics of MM2's dedicated mode (mm2-configs/-offsets/-status.<alias>.internal): MM2 runs on Connect, ours does not. */
const CONNECT_INTERNAL = /^mm2-(configs|offsets|status)\./;

describe(`conformance: active/active as the real MM2 does it (Kafka ${process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION})`, function () {
  this.timeout(300000);
  let mm2;
  let producers = [];
  before(() => nodes.startServer());
  after(async () => {
    await nodes.helper.unload();
    if (mm2) await mm2.stop();
    for (const p of producers) await p.disconnect().catch(() => undefined);
    await nodes.stopServer();
  });

  it('both directions leave the same remote, checkpoints and offset-syncs topic names on each side, with the same partitions, each record once', async function () {
    const east = await env.admin('source');
    const west = await env.admin('target');
    const id = env.unique('aaconf').replace(/-/g, '');
    const [a, b] = ['a', 'b'].map((x) => `${id}${x}`);
    // ours: the example's aliases, `<tag>east` and `<tag>west`
    const [c, d] = ['east', 'west'].map((x) => `${id}${x}`);
    const sides = {
      mm2: { prefix: `${id}mm2-`, roles: { [a]: '<east>', [b]: '<west>' }, east: a, west: b },
      ours: { prefix: `${id}nr-`, roles: { [c]: '<east>', [d]: '<west>' }, east: c, west: d },
    };
    // one topic per cluster and side, a different partition count per direction; a group on each
    for (const s of Object.values(sides)) {
      await east.createTopics({ waitForLeaders: true, topics: [{ topic: `${s.prefix}orders`, numPartitions: 3, replicationFactor: 1 }] });
      await west.createTopics({ waitForLeaders: true, topics: [{ topic: `${s.prefix}payments`, numPartitions: 2, replicationFactor: 1 }] });
    }
    const produce = async (name, topic) => {
      const producer = env.kafka(name).producer({ allowAutoTopicCreation: false });
      await producer.connect();
      producers.push(producer);
      const values = Array.from({ length: N }, (_, i) => `${topic}-${i}`);
      await producer.send({ topic, acks: -1, messages: values.map((value, i) => ({ value, partition: i % (name === 'source' ? 3 : 2) })) });
      return values;
    };
    const commit = (admin, group, topic, partitions) => env.eventually(async () => {
      await admin.setOffsets({ groupId: group, topic, partitions: Array.from({ length: partitions }, (_, p) => ({ partition: p, offset: '5' })) });
      return true;
    }, { what: `a commit for ${group}`, timeout: 30000 });
    const produced = {};
    for (const s of Object.values(sides)) {
      produced[`${s.prefix}orders`] = await produce('source', `${s.prefix}orders`);
      produced[`${s.prefix}payments`] = await produce('target', `${s.prefix}payments`);
      await commit(east, `${s.prefix}g-east`, `${s.prefix}orders`, 3);
      await commit(west, `${s.prefix}g-west`, `${s.prefix}payments`, 2);
    }

    const both = (x) => [`${a}->${b}.${x}`, `${b}->${a}.${x}`];
    const perFlow = (x, v) => Object.fromEntries(both(x).map((k) => [k, v]));
    mm2 = await startMirrorMaker({
      source: env.cluster('source').bootstrap,
      target: env.cluster('target').bootstrap,
      aliases: [a, b],
      props: {
        // both directions (the harness starts one), each with its heartbeats
        [`${b}->${a}.enabled`]: 'true',
        [`${b}->${a}.emit.heartbeats.enabled`]: 'true',
        [`${a}.offset.flush.interval.ms`]: 1000,
        ...perFlow('topics', `${id}mm2-.*`),
        ...perFlow('groups', `${id}mm2-.*`),
        ...perFlow('refresh.topics.interval.seconds', 2),
        ...perFlow('refresh.groups.interval.seconds', 2),
        ...perFlow('emit.checkpoints.interval.seconds', 2),
        ...perFlow('sync.topic.acls.enabled', 'false'),
      },
    });
    await nodes.helper.load(nodes.modules, exampleFlow(id, `${id}nr-`, {
      'mm2-mirror': { topics: `${id}nr-.*`, heartbeatsReplicationEnabled: false, syncTopicAclsEnabled: false },
      'mm2-checkpoint': { groups: `${id}nr-.*`, topics: `.*${id}nr-.*` },
      'mm2-group-offsets': { groups: `${id}nr-.*` },
    }, ['mm2-heartbeat']));

    /** Every topic name of `admin`'s cluster of side `s`, its aliases replaced by their roles and its topic prefix by <T>. */
    const namesOf = (names, s) => names
      .filter((n) => !CONNECT_INTERNAL.test(n))
      .filter((n) => n.split('.').some((part) => part in s.roles || part.startsWith(s.prefix)))
      .map((n) => n.split('.').map((part) => s.roles[part] ?? (part.startsWith(s.prefix) ? `<T>${part.slice(s.prefix.length)}` : part)).join('.'))
      .sort();
    const expected = {
      east: ['<T>orders', '<west>.<T>payments', '<west>.checkpoints.internal', 'mm2-offset-syncs.<west>.internal'],
      west: ['<T>payments', '<east>.<T>orders', '<east>.checkpoints.internal', 'mm2-offset-syncs.<east>.internal'],
    };
    const listed = {};
    await env.eventually(async () => {
      listed.east = await east.listTopics();
      listed.west = await west.listTopics();
      return Object.values(sides).every((s) => ['east', 'west'].every((k) => expected[k].every((x) => namesOf(listed[k], s).includes(x))));
    }, {
      timeout: 120000,
      what: `every topic on both sides (${JSON.stringify(Object.fromEntries(Object.entries(sides).map(([k, s]) => [k, { east: namesOf(listed.east || [], s), west: namesOf(listed.west || [], s) }])))})`,
    });

    // each record once on the other side, then nothing more arrives there or back
    const counted = async (admin, t) => (await admin.fetchTopicOffsets(t)).reduce((sum, p) => sum + Number(p.high), 0);
    const remotes = (s) => [
      { cluster: 'target', admin: west, topic: `${s.east}.${s.prefix}orders`, of: `${s.prefix}orders`, partitions: 3 },
      { cluster: 'source', admin: east, topic: `${s.west}.${s.prefix}payments`, of: `${s.prefix}payments`, partitions: 2 },
    ];
    for (const s of Object.values(sides)) {
      for (const r of remotes(s)) {
        await env.eventually(async () => (await counted(r.admin, r.topic)) >= N, { timeout: 90000, what: `${N} records on ${r.topic}` });
        const got = await readTopic(r.cluster, r.topic, N, { timeout: 60000 });
        assert.deepEqual(got.map((x) => x.value).sort(), [...produced[r.of]].sort(), `${r.topic} holds each record of ${r.of} once`);
        const [meta] = (await r.admin.fetchTopicMetadata({ topics: [r.topic] })).topics;
        assert.equal(meta.partitions.length, r.partitions, `${r.topic} has the partitions of ${r.of}`);
        // the record of a source partition is in the same remote partition
        for (const x of got) assert.equal(x.partition, Number(x.value.split('-').pop()) % r.partitions, `${x.value} in partition ${x.partition} of ${r.topic}`);
      }
    }

    // MM2's own heartbeats went one hop each way, never back
    await env.eventually(async () => (await west.listTopics()).includes(`${a}.heartbeats`) && (await east.listTopics()).includes(`${b}.heartbeats`), { timeout: 90000, what: 'MM2\'s remote heartbeats topics' });

    // the same names on each cluster, and no remote topic of a remote topic (east.west.* / west.east.*) on either
    listed.east = await east.listTopics();
    listed.west = await west.listTopics();
    for (const k of ['east', 'west']) {
      const theirs = namesOf(listed[k], sides.mm2).filter((n) => !/(^|\.)heartbeats$/.test(n));
      const mine = namesOf(listed[k], sides.ours);
      assert.deepEqual(mine, theirs, `on ${k}: ours ${JSON.stringify(mine)}, MM2 ${JSON.stringify(theirs)}`);
      assert.deepEqual(theirs, [...expected[k]].sort(), `on ${k}`);
      for (const n of [...namesOf(listed[k], sides.mm2), ...mine]) assert.ok(!/<(east|west)>\.<(east|west)>\./.test(n), `no loop on ${k}: ${n}`);
    }
    // MM2 copies every heartbeats topic of a cluster, so other flows' remote heartbeats topics left on
    // the suite's shared clusters (`<alias>.heartbeats`) arrive too, under MM2's alias of where they
    // came from: one hop, and never one of MM2's own aliases after the first
    for (const [k, from] of [['west', '<east>'], ['east', '<west>']]) {
      const hb = namesOf(listed[k], sides.mm2).filter((n) => /heartbeats/.test(n));
      assert.ok(hb.includes(`${from}.heartbeats`), `on ${k}: ${from}.heartbeats among ${JSON.stringify(hb)}`);
      for (const n of hb) assert.ok(n.startsWith(`${from}.`) && !/<(east|west)>/.test(n.slice(from.length + 1)), `on ${k}: ${n} went one hop from ${from}, never back`);
    }
    // still each record once after all that time
    for (const s of Object.values(sides)) {
      for (const r of remotes(s)) assert.equal(await counted(r.admin, r.topic), N, `${r.topic} still holds ${N} records`);
    }
  });
});
