'use strict';
/**
 * mm2-mirror: MM2's MirrorSourceConnector/Task as a Node-RED node, against two real clusters.
 * Resuming after a re-import or a rename, beside the real MM2's source connector removed and
 * re-created (under its name, another name, after a worker restart): conformance-mm2-rewind-resume.test.js.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { decodeOffsetSync } = require('../../dist/core/offset-sync');
const { encodeHeartbeat } = require('../../dist/core/heartbeat');

const SYNCS_TOPIC = 'mm2-offset-syncs.target.internal'; // on the source (offset-syncs.topic.location=source)
/** The mirror's progress on the source: per replication flow, whatever the node id (core/mirror-progress). */
const FLOW_GROUP = '__mm2-node-red-mirror.source-target';

/** Every record of `topic` from its log start to the end offsets seen now, per partition, in order. */
async function readAll(clusterName, topic) {
  const admin = await env.admin(clusterName);
  const offs = await admin.fetchTopicOffsets(topic);
  const out = new Map(offs.map((o) => [o.partition, []]));
  const todo = offs.filter((o) => Number(o.high) > Number(o.low));
  if (todo.length === 0) return out;
  const consumer = env.kafka(clusterName).consumer({ groupId: env.unique('reader'), maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const need = new Map(todo.map((o) => [o.partition, BigInt(o.high) - 1n]));
  const done = new Set();
  let finish;
  const finished = new Promise((r) => (finish = r));
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      if (BigInt(message.offset) > (need.get(partition) ?? -1n)) return;
      out.get(partition).push({ offset: BigInt(message.offset), key: message.key, value: message.value, headers: message.headers, timestamp: message.timestamp });
      if (BigInt(message.offset) >= need.get(partition)) done.add(partition);
      if (done.size === need.size) finish();
    },
  });
  await Promise.race([finished, new Promise((_, rej) => setTimeout(() => rej(new Error(`reading ${topic} timed out`)), 30000))]);
  await consumer.disconnect();
  return out;
}

async function endOffsets(clusterName, topic) {
  const admin = await env.admin(clusterName);
  const offs = await admin.fetchTopicOffsets(topic);
  return new Map(offs.map((o) => [o.partition, { low: BigInt(o.low), high: BigInt(o.high) }]));
}

async function topicExists(clusterName, topic) {
  const admin = await env.admin(clusterName);
  return (await admin.listTopics()).includes(topic);
}

async function produce(clusterName, topic, messages) {
  const producer = env.kafka(clusterName).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages });
  await producer.disconnect();
}

/** Offset syncs of `topic` in the offset-syncs topic, per partition in log order. */
async function syncsOf(topic) {
  if (!(await topicExists('source', SYNCS_TOPIC))) return new Map();
  const all = await readAll('source', SYNCS_TOPIC);
  const out = new Map();
  for (const r of all.get(0) ?? []) {
    const s = decodeOffsetSync(r.key, r.value);
    if (s.topic !== topic) continue;
    if (!out.has(s.partition)) out.set(s.partition, []);
    out.get(s.partition).push(s);
  }
  return out;
}

/** Per partition: the number of records of `topic` on `cluster` (the topics here have no deleted records). */
async function counts(clusterName, topic) {
  return new Map([...(await endOffsets(clusterName, topic))].map(([p, o]) => [p, o.high - o.low]));
}

/**
 * Whether some mirror group of the flow on the source (the flow's, or a per-node one of an
 * earlier build: `<flow group>.<node id>`) has committed `topic` up to its end on every partition.
 */
async function committedToEnd(topic) {
  const admin = await env.admin('source');
  const ends = await endOffsets('source', topic);
  const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g === FLOW_GROUP || g.startsWith(`${FLOW_GROUP}.`));
  for (const groupId of groups) {
    const [t] = await admin.fetchOffsets({ groupId, topics: [topic] });
    if (t.partitions.length === ends.size && t.partitions.every((p) => BigInt(p.offset) === ends.get(p.partition).high)) return true;
  }
  return false;
}

/** The statuses node `id` set (from the helper's spy: also those set before the test could wrap it). */
function statusesOf(id) {
  const n = nodes.helper.getNode(id);
  return n.status.getCalls().filter((c) => c.thisValue === n).map((c) => c.args[0]);
}

function mirrorNode(over = {}) {
  return {
    id: 'm',
    type: 'mm2-mirror',
    name: '',
    replication: 'rep',
    topics: '',
    topicsExclude: '',
    heartbeatsReplicationEnabled: false,
    replicationFactor: '',
    offsetLagMax: '',
    emitOffsetSyncsEnabled: true,
    offsetFlushIntervalMs: '1000',
    refreshTopicsIntervalSeconds: '600',
    wires: [['out']],
    ...over,
  };
}

const plainHeaders = (h) => Object.fromEntries(Object.entries(h || {}).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : String(v)]));

describe('mm2-mirror (real clusters)', function () {
  this.timeout(60000);
  before(() => nodes.startServer());
  after(() => nodes.stopServer());
  afterEach(() => nodes.helper.unload());

  it('copies records to source.<topic>: same partition, order, key, value, headers, timestamp; stats and status', async function () {
    const base = env.unique('mir');
    const topic = `${base}-orders`;
    const srcAdmin = await env.admin('source');
    await srcAdmin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
    const messages = [];
    for (let i = 0; i < 90; i++) {
      messages.push({
        partition: i % 3,
        key: `k${i}`,
        value: i === 40 ? null : JSON.stringify({ i, text: 'é'.repeat(i % 5) }),
        headers: { trace: `t${i}`, bin: Buffer.from([i, 255 - i]) },
        timestamp: String(1600000000000 + i * 1000),
      });
    }
    await produce('source', topic, messages);

    await nodes.load([mirrorNode({ topics: `${base}-.*` }), { id: 'out', type: 'helper' }]);
    const m = nodes.helper.getNode('m');
    const out = nodes.collect(nodes.helper.getNode('out'));
    const statuses = nodes.statuses(m);
    const remote = `source.${topic}`;

    await env.eventually(async () => {
      if (!(await topicExists('target', remote))) return false;
      const offs = await endOffsets('target', remote);
      return [...offs.values()].reduce((a, o) => a + o.high, 0n) === 90n;
    }, { timeout: 30000, what: 'all 90 records on the target' });

    const src = await readAll('source', topic);
    const tgt = await readAll('target', remote);
    assert.equal(tgt.size, 3, 'remote topic created with the source partition count');
    for (let p = 0; p < 3; p++) {
      const a = src.get(p);
      const b = tgt.get(p);
      assert.equal(b.length, a.length);
      assert.equal(a.length, 30);
      for (let i = 0; i < a.length; i++) {
        assert.equal(b[i].offset, a[i].offset, 'fresh remote partition: same offsets');
        assert.deepEqual(b[i].key, a[i].key);
        assert.deepEqual(b[i].value, a[i].value);
        assert.equal(b[i].timestamp, a[i].timestamp);
        assert.deepEqual(plainHeaders(b[i].headers), plainHeaders(a[i].headers));
        assert.deepEqual(b[i].headers.bin, a[i].headers.bin);
      }
    }
    assert.equal(tgt.get(1).find((r) => r.key.toString() === 'k40').value, null, 'tombstone stays a tombstone');

    // the RF default 2 is lowered to the one broker the test cluster has, with a warning
    assert.ok(m.warn.getCalls().some((c) => /replication factor 1 instead of 2/.test(String(c.args[0]))), 'rf-lowered warning');

    const stats = await env.eventually(() => out.find((msg) => msg.payload.records >= 90), { timeout: 15000, what: 'stats message' });
    assert.equal(stats.topic, 'mm2/mirror');
    assert.deepEqual(stats.payload.topics, [topic]);
    assert.deepEqual(stats.payload.remoteTopics, { [topic]: remote });
    assert.equal(stats.payload.partitions, 3);
    assert.equal(stats.payload.records, 90);
    assert.ok(stats.payload.bytes > 90 * 10);
    assert.deepEqual(stats.payload.lagBySourcePartition, { [`${topic}-0`]: 0, [`${topic}-1`]: 0, [`${topic}-2`]: 0 });
    assert.equal(stats.payload.offsetSyncsTopic, SYNCS_TOPIC);
    assert.ok(stats.payload.syncsSent >= 3, `one urgent sync per partition at least, got ${stats.payload.syncsSent}`);
    assert.equal(stats.payload.error, null);
    assert.ok(statuses.some((s) => s.fill === 'green' && /^mirroring 1 topic, /.test(s.text)), JSON.stringify(statuses));

    // progress is committed in the mirror's own group on the source, at the end of each partition
    const committed = await env.eventually(async () => {
      const offs = await srcAdmin.fetchOffsets({ groupId: FLOW_GROUP, topics: [topic] });
      const ps = offs[0].partitions;
      return ps.length === 3 && ps.every((p) => p.offset === '30') ? ps : false;
    }, { timeout: 10000, what: 'source progress committed' });
    assert.equal(committed.length, 3);
  });

  it('selects topics as MM2: filter and exclude, never internal topics or cycles, heartbeats always; no syncs when disabled', async function () {
    const b = env.unique('sel');
    const srcAdmin = await env.admin('source');
    const keep = `${b}-keep`;
    const skip = `${b}-skip`;
    const internal = `${b}-x.internal`;
    const hidden = `__${b}-hidden`;
    const cycle = `target.${b}-back`;
    await srcAdmin.createTopics({ topics: [keep, skip, internal, hidden, cycle].map((topic) => ({ topic, numPartitions: 1 })), waitForLeaders: true });
    if (!(await topicExists('source', 'heartbeats'))) {
      await srcAdmin.createTopics({ topics: [{ topic: 'heartbeats', numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }], waitForLeaders: true });
    }
    for (const t of [keep, skip, internal, hidden, cycle]) await produce('source', t, [{ key: 'k', value: t }]);
    const hb = encodeHeartbeat({ sourceClusterAlias: b, targetClusterAlias: `${b}-elsewhere`, timestamp: BigInt(Date.now()) });
    await produce('source', 'heartbeats', [{ partition: 0, key: hb.key, value: hb.value }]);

    await nodes.load([
      mirrorNode({
        topics: `${b}-.*, __${b}-.*, target\\.${b}-.*`,
        topicsExclude: `${b}-skip`,
        heartbeatsReplicationEnabled: true,
        emitOffsetSyncsEnabled: false,
      }),
      { id: 'out', type: 'helper' },
    ]);
    const out = nodes.collect(nodes.helper.getNode('out'));

    await env.eventually(async () => (await topicExists('target', `source.${keep}`)) && (await endOffsets('target', `source.${keep}`)).get(0).high === 1n, { what: `source.${keep} mirrored` });
    const hbRecords = await env.eventually(async () => {
      if (!(await topicExists('target', 'source.heartbeats'))) return false;
      const recs = (await readAll('target', 'source.heartbeats')).get(0);
      return recs.some((r) => r.key.equals(hb.key)) ? recs : false;
    }, { what: 'heartbeat mirrored to source.heartbeats' });
    const mine = hbRecords.find((r) => r.key.equals(hb.key));
    assert.deepEqual(mine.value, hb.value);

    const stats = await env.eventually(() => out.find((msg) => msg.payload.records >= 2), { timeout: 15000, what: 'stats' });
    assert.ok(stats.payload.topics.includes(keep));
    assert.ok(stats.payload.topics.includes('heartbeats'));
    for (const t of [skip, internal, hidden, cycle]) assert.ok(!stats.payload.topics.includes(t), `${t} must not be selected`);
    const targetTopics = await (await env.admin('target')).listTopics();
    for (const t of [skip, internal, hidden, cycle]) assert.ok(!targetTopics.includes(`source.${t}`), `source.${t} must not exist on the target`);
    assert.ok(!targetTopics.includes(`source.target.${b}-back`));
    assert.equal(stats.payload.offsetSyncsTopic, null);
    assert.equal(stats.payload.syncsSent, 0);
    assert.equal((await syncsOf(keep)).size, 0, 'emit.offset-syncs.enabled=false writes no syncs');
  });

  it('offset syncs follow MM2 (urgent first record, offset.lag.max, flush) and name the real target offsets, also when offsets differ', async function () {
    const topic = env.unique('syn');
    const remote = `source.${topic}`;
    const srcAdmin = await env.admin('source');
    const tgtAdmin = await env.admin('target');
    await srcAdmin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    // partition 0: 20 records, of which the first 5 are deleted (source log starts at 5)
    await produce('source', topic, Array.from({ length: 20 }, (_, i) => ({ partition: 0, key: `a${i}`, value: `p0-${i}` })));
    await srcAdmin.fetchTopicMetadata({ topics: [topic] }); // the admin's metadata must know the new topic's leaders
    await srcAdmin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '5' }] });
    await produce('source', topic, Array.from({ length: 10 }, (_, i) => ({ partition: 1, key: `b${i}`, value: `p1-${i}` })));
    // the remote topic exists already and holds other records: target offsets differ from source offsets
    await tgtAdmin.createTopics({ topics: [{ topic: remote, numPartitions: 2 }], waitForLeaders: true });
    await produce('target', remote, [
      ...Array.from({ length: 7 }, (_, i) => ({ partition: 0, value: `junk${i}` })),
      ...Array.from({ length: 3 }, (_, i) => ({ partition: 1, value: `junk${i}` })),
    ]);

    await nodes.load([mirrorNode({ topics: topic, offsetLagMax: '3' }), { id: 'out', type: 'helper' }]);

    const lastUp = { 0: 19n, 1: 9n };
    const syncs = await env.eventually(async () => {
      const s = await syncsOf(topic);
      const ok = [0, 1].every((p) => (s.get(p) ?? []).some((x) => x.upstreamOffset === lastUp[p]));
      return ok ? s : false;
    }, { timeout: 20000, what: 'syncs up to the last record of both partitions (flush of delayed syncs)' });

    // urgent rule: first record, then every time d - (lastSyncDown + 1) >= offset.lag.max (3)
    const expectUrgent = {
      0: [[5n, 7n], [9n, 11n], [13n, 15n], [17n, 19n]],
      1: [[0n, 3n], [4n, 7n], [8n, 11n]],
    };
    const src = await readAll('source', topic);
    const tgt = await readAll('target', remote);
    for (const p of [0, 1]) {
      const list = syncs.get(p);
      assert.deepEqual([list[0].upstreamOffset, list[0].downstreamOffset], expectUrgent[p][0], `first record of partition ${p} is synced first`);
      const pairs = list.map((s) => `${s.upstreamOffset}:${s.downstreamOffset}`);
      for (const [u, d] of expectUrgent[p]) assert.ok(pairs.includes(`${u}:${d}`), `urgent sync ${u}:${d} in partition ${p}: ${pairs}`);
      // every sync names the target offset where that very source record landed
      for (const s of list) {
        const a = src.get(p).find((r) => r.offset === s.upstreamOffset);
        const b = tgt.get(p).find((r) => r.offset === s.downstreamOffset);
        assert.ok(a && b, `records for ${s.upstreamOffset}:${s.downstreamOffset}`);
        assert.deepEqual(b.key, a.key);
        assert.deepEqual(b.value, a.value);
      }
    }
    // the mirrored records follow the junk, in order
    assert.deepEqual(tgt.get(0).slice(7).map((r) => r.value.toString()), Array.from({ length: 15 }, (_, i) => `p0-${i + 5}`));
    assert.deepEqual(tgt.get(1).slice(3).map((r) => r.value.toString()), Array.from({ length: 10 }, (_, i) => `p1-${i}`));
  });

  it('follows a partition added on the source when a message asks for a refresh', async function () {
    const topic = env.unique('grow');
    const remote = `source.${topic}`;
    const srcAdmin = await env.admin('source');
    await srcAdmin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    await produce('source', topic, [{ partition: 0, key: 'x', value: 'before' }]);
    await nodes.load([mirrorNode({ topics: topic }), { id: 'out', type: 'helper' }]);
    const m = nodes.helper.getNode('m');
    const out = nodes.collect(nodes.helper.getNode('out'));
    await env.eventually(async () => (await topicExists('target', remote)) && (await endOffsets('target', remote)).get(0).high === 1n, { what: 'first record mirrored' });

    await srcAdmin.createPartitions({ topicPartitions: [{ topic, count: 3 }] });
    await env.eventually(async () => {
      const md = await srcAdmin.fetchTopicMetadata({ topics: [topic] });
      return md.topics[0].partitions.length === 3 && md.topics[0].partitions.every((p) => p.leader >= 0);
    }, { what: 'new source partitions have leaders' });
    await produce('source', topic, [
      { partition: 1, key: 'y', value: 'p1' },
      { partition: 2, key: 'z', value: 'p2' },
    ]);
    m.receive({ refreshTopics: true, _marker: 'refresh-1' });
    const reply = await env.eventually(() => out.find((msg) => msg._marker === 'refresh-1'), { what: 'refresh reply' });
    assert.equal(reply.topic, 'mm2/mirror');
    assert.equal(reply.payload.partitions, 3);
    // (a producer writing to a partition created a moment ago may write a record twice: compare with what the source holds)
    const srcEnd = await endOffsets('source', topic);
    await env.eventually(async () => {
      const offs = await endOffsets('target', remote);
      return offs.size === 3 && [0, 1, 2].every((p) => offs.get(p).high === srcEnd.get(p).high);
    }, { what: 'new partitions mirrored into new remote partitions' });
    const src = await readAll('source', topic);
    const tgt = await readAll('target', remote);
    for (const p of [1, 2]) {
      assert.ok(src.get(p).length >= 1);
      assert.deepEqual(tgt.get(p).map((r) => r.value.toString()), src.get(p).map((r) => r.value.toString()));
    }
    assert.equal(tgt.get(1)[0].value.toString(), 'p1');
    assert.equal(tgt.get(2)[0].value.toString(), 'p2');
  });

  it('picks up a new topic every refresh.topics.interval.seconds', async function () {
    const b = env.unique('newt');
    const srcAdmin = await env.admin('source');
    await srcAdmin.createTopics({ topics: [{ topic: `${b}-one`, numPartitions: 1 }], waitForLeaders: true });
    await nodes.load([mirrorNode({ topics: `${b}-.*`, refreshTopicsIntervalSeconds: '1' }), { id: 'out', type: 'helper' }]);
    const out = nodes.collect(nodes.helper.getNode('out'));
    await env.eventually(() => topicExists('target', `source.${b}-one`), { what: 'first topic created on the target' });
    await srcAdmin.createTopics({ topics: [{ topic: `${b}-two`, numPartitions: 2 }], waitForLeaders: true });
    await produce('source', `${b}-two`, [{ partition: 1, value: 'hello' }]);
    await env.eventually(async () => (await topicExists('target', `source.${b}-two`)) && (await endOffsets('target', `source.${b}-two`)).get(1).high === 1n, {
      what: 'new topic mirrored',
    });
    const stats = await env.eventually(() => out.find((msg) => msg.payload.topics.length === 2), { timeout: 15000, what: 'stats with two topics' });
    assert.deepEqual(stats.payload.topics, [`${b}-one`, `${b}-two`]);
    assert.equal(stats.payload.partitions, 3);
  });

  it('redeploy in the middle of a stream: every source record reaches the target, duplicates bounded', async function () {
    const topic = env.unique('redeploy');
    const remote = `source.${topic}`;
    const srcAdmin = await env.admin('source');
    await srcAdmin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    // offset.lag.max and the flush interval so large that only MM2's "first record of a task
    // lifetime" rule and the flush on close write syncs
    const flow = (name) => [...nodes.configNodes(), mirrorNode({ name, topics: topic, offsetLagMax: '1000000', offsetFlushIntervalMs: '600000' }), { id: 'out', type: 'helper' }];
    await nodes.load(flow('').slice(3));

    const producer = env.kafka('source').producer();
    await producer.connect();
    let n = 0;
    const produceSome = async (count) => {
      const msgs = [];
      for (let i = 0; i < count; i++, n++) msgs.push({ partition: n % 2, key: `k${n}`, value: `v${n}` });
      await producer.send({ topic, acks: -1, messages: msgs });
    };
    for (let i = 0; i < 10; i++) await produceSome(30);
    await env.eventually(async () => (await topicExists('target', remote)) && [...(await endOffsets('target', remote)).values()].reduce((a, o) => a + o.high, 0n) >= 100n, {
      what: 'mirroring under way',
    });
    // a "modified nodes" deploy: the mirror node is closed (removed=false) and a new one started
    const redeploy = nodes.helper.setFlows(flow('renamed'), 'nodes');
    for (let i = 0; i < 10; i++) {
      await produceSome(30);
      await new Promise((r) => setTimeout(r, 50));
    }
    await redeploy;
    for (let i = 0; i < 10; i++) await produceSome(30);
    await producer.disconnect();
    assert.equal(nodes.helper.getNode('m').name, 'renamed');

    await env.eventually(async () => [...(await endOffsets('target', remote)).values()].reduce((a, o) => a + o.high, 0n) >= BigInt(n), { timeout: 30000, what: 'all records on the target' });
    const tgt = await readAll('target', remote);
    const values = [...tgt.values()].flat().map((r) => r.value.toString());
    const unique = new Set(values);
    for (let i = 0; i < n; i++) assert.ok(unique.has(`v${i}`), `record v${i} lost`);
    const duplicates = values.length - unique.size;
    // progress is committed on close, so a clean redeploy repeats nothing or very little
    assert.ok(duplicates <= 60, `duplicates ${duplicates}`);
    // order is kept per partition (duplicates, if any, only repeat a suffix)
    for (const [p, recs] of tgt) {
      const firsts = [];
      const seen = new Set();
      for (const r of recs) if (!seen.has(r.value.toString())) (seen.add(r.value.toString()), firsts.push(Number(r.value.toString().slice(1))));
      assert.deepEqual(firsts, [...firsts].sort((a, b) => a - b), `partition ${p} in order`);
    }
    // offset-sync state resets with the node, as MM2's does with its task: the old node flushed its
    // last position on close (u-1) and the new one synced its first record (u) at once
    const syncs = await syncsOf(topic);
    for (const p of [0, 1]) {
      const list = syncs.get(p) ?? [];
      assert.deepEqual([list[0].upstreamOffset, list[0].downstreamOffset], [0n, 0n], `first record synced (partition ${p})`);
      const restartAt = list.findIndex((s, i) => i > 0 && s.upstreamOffset === list[i - 1].upstreamOffset + 1n);
      assert.ok(restartAt > 0, `partition ${p}: close flush then urgent first sync of the new node: ${list.map((s) => s.upstreamOffset)}`);
      for (const s of list) assert.ok(s.downstreamOffset - s.upstreamOffset <= BigInt(duplicates), 'downstream = upstream + duplicates before it');
    }
  });

  it('a copied or re-imported mirror (another node id) resumes where the last one stopped: N+M records on the target, not 2N+M', async function () {
    const topic = env.unique('reimport');
    const remote = `source.${topic}`;
    const srcAdmin = await env.admin('source');
    await srcAdmin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    await produce('source', topic, Array.from({ length: 40 }, (_, i) => ({ partition: i % 2, key: `k${i}`, value: `v${i}` })));

    await nodes.load([mirrorNode({ id: 'original', topics: topic }), { id: 'out', type: 'helper' }]);
    await env.eventually(async () => (await topicExists('target', remote)) && [...(await counts('target', remote)).values()].every((n) => n === 20n), {
      timeout: 30000, what: 'the first 40 records on the target',
    });
    await env.eventually(() => committedToEnd(topic), { timeout: 15000, what: 'the progress committed' });
    await nodes.helper.unload();

    // the flow exported and imported again: the mirror gets a new id
    await nodes.load([mirrorNode({ id: 'imported', topics: topic }), { id: 'out', type: 'helper' }]);
    await produce('source', topic, Array.from({ length: 30 }, (_, i) => ({ partition: i % 2, key: `k${40 + i}`, value: `v${40 + i}` })));
    await env.eventually(async () => [...(await counts('target', remote)).values()].reduce((a, n) => a + n, 0n) >= 70n && (await committedToEnd(topic)), {
      timeout: 30000, what: 'the 30 new records copied and committed',
    });
    const src = await readAll('source', topic);
    const tgt = await readAll('target', remote);
    for (const p of [0, 1]) {
      assert.deepEqual(tgt.get(p).map((r) => r.value.toString()), src.get(p).map((r) => r.value.toString()), `partition ${p}: each record once, in order (35 = 20 + 15)`);
    }
  });

  it('two mirror nodes of the same replication in one Node-RED: one copies, the other says who and waits, then takes over where it stopped', async function () {
    const topic = env.unique('twice');
    const remote = `source.${topic}`;
    const srcAdmin = await env.admin('source');
    await srcAdmin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    await produce('source', topic, Array.from({ length: 40 }, (_, i) => ({ partition: i % 2, value: `a${i}` })));
    const tabs = [{ id: 'tab-a', type: 'tab', label: 'Orders A' }, { id: 'tab-b', type: 'tab', label: 'Orders B' }];
    const flow = (withA) => [
      ...nodes.configNodes(),
      ...tabs,
      ...(withA ? [mirrorNode({ id: 'ma', z: 'tab-a', name: 'mirror A', topics: topic, wires: [[]] })] : []),
      mirrorNode({ id: 'mb', z: 'tab-b', name: 'mirror B', topics: topic, wires: [[]] }),
    ];
    await nodes.helper.load(nodes.modules, flow(true));

    const waiting = /^waiting: mirror ([AB]) on Orders ([AB]) copies source→target$/;
    const waiter = await env.eventually(() => ['ma', 'mb'].find((id) => statusesOf(id).some((s) => waiting.test(s.text))), { what: 'one of them waiting' });
    const holder = waiter === 'ma' ? 'mb' : 'ma';
    const [, holderLetter, tabLetter] = waiting.exec(statusesOf(waiter).find((s) => waiting.test(s.text)).text);
    assert.equal(`m${holderLetter.toLowerCase()}`, holder, 'the status names the node that copies');
    assert.equal(tabLetter, holderLetter, 'and its flow tab');
    const w = nodes.helper.getNode(waiter);
    const warned = w.warn.getCalls().filter((c) => c.thisValue === w).map((c) => String(c.args[0])).find((x) => x.startsWith('another mm2-mirror node'));
    assert.match(warned, new RegExp(`copies source → target: mirror ${holderLetter} \\(id ${holder}\\) on flow Orders ${holderLetter}\\. Two would share the progress \\(consumer group ${FLOW_GROUP.replace(/\./g, '\\.')} on the source\\)`));

    await env.eventually(async () => (await topicExists('target', remote)) && [...(await counts('target', remote)).values()].every((n) => n === 20n) && (await committedToEnd(topic)), {
      timeout: 30000, what: '40 records copied and committed',
    });
    assert.ok(statusesOf(holder).some((s) => s.fill === 'green'), 'the holder copies');
    assert.ok(!statusesOf(waiter).some((s) => s.fill === 'green'), 'the other never claims to');
    for (const p of [0, 1]) assert.equal((await counts('target', remote)).get(p), 20n, `partition ${p}: copied once`);

    // the copying node removed ("modified nodes" deploy): the waiting one takes over from where it stopped
    const keep = waiter === 'mb';
    if (keep) await nodes.helper.setFlows(flow(false), 'nodes');
    else await nodes.helper.setFlows(flow(true).filter((n) => n.id !== 'mb'), 'nodes');
    const left = keep ? 'mb' : 'ma';
    await env.eventually(() => statusesOf(left).some((s) => s.fill === 'green'), { timeout: 30000, what: 'the waiting node copies now' });
    await produce('source', topic, Array.from({ length: 20 }, (_, i) => ({ partition: i % 2, value: `b${i}` })));
    await env.eventually(async () => [...(await counts('target', remote)).values()].reduce((a, n) => a + n, 0n) >= 60n && (await committedToEnd(topic)), {
      timeout: 30000, what: 'the new records copied by the node that took over',
    });
    const src = await readAll('source', topic);
    const tgt = await readAll('target', remote);
    for (const p of [0, 1]) assert.deepEqual(tgt.get(p).map((r) => r.value.toString()), src.get(p).map((r) => r.value.toString()), `partition ${p}: each record once`);
  });

  it('takes over the progress of the per-node groups of an earlier build: resumes at the highest commit among them', async function () {
    const topic = env.unique('legacy');
    const remote = `source.${topic}`;
    const srcAdmin = await env.admin('source');
    await srcAdmin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    await produce('source', topic, Array.from({ length: 40 }, (_, i) => ({ partition: i % 2, value: `v${i}` })));
    // an earlier build's node copied 15 records of partition 0 and 12 of partition 1; a copy of it, 5 of partition 0
    await srcAdmin.setOffsets({ groupId: `${FLOW_GROUP}.a1b2c3d4e5f60718`, topic, partitions: [{ partition: 0, offset: '15' }, { partition: 1, offset: '12' }] });
    await srcAdmin.setOffsets({ groupId: `${FLOW_GROUP}.copy`, topic, partitions: [{ partition: 0, offset: '5' }] });

    await nodes.load([mirrorNode({ topics: topic }), { id: 'out', type: 'helper' }]);
    const m = nodes.helper.getNode('m');
    const expected = { 0: 5n, 1: 8n };
    await env.eventually(async () => {
      if (!(await topicExists('target', remote))) return false;
      const c = await counts('target', remote);
      return c.get(0) >= expected[0] && c.get(1) >= expected[1];
    }, { timeout: 30000, what: 'the records after the old commits copied' });
    const srcRecs = await readAll('source', topic);
    const tgt = await readAll('target', remote);
    assert.deepEqual(tgt.get(0).map((r) => r.value.toString()), srcRecs.get(0).slice(15).map((r) => r.value.toString()), 'partition 0 from offset 15');
    assert.deepEqual(tgt.get(1).map((r) => r.value.toString()), srcRecs.get(1).slice(12).map((r) => r.value.toString()), 'partition 1 from offset 12');
    assert.ok(m.log.getCalls().some((c) => /2 partition\(s\) without progress in __mm2-node-red-mirror\.source-target start where the per-node group\(s\) of an earlier build stopped \(the highest commit of __mm2-node-red-mirror\.source-target\.a1b2c3d4e5f60718, __mm2-node-red-mirror\.source-target\.copy\)/.test(String(c.args[0]))), 'logged');
  });

  it('an unreachable target shows what to fix in the status, keeps retrying and closes cleanly', async function () {
    const topic = env.unique('down');
    const srcAdmin = await env.admin('source');
    await srcAdmin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    await nodes.load([mirrorNode({ topics: topic }), { id: 'out', type: 'helper' }], { over: { tgt: { bootstrap: '127.0.0.1:1' } } });
    const m = nodes.helper.getNode('m');
    const seen = () => m.status.getCalls().filter((c) => c.thisValue === m).map((c) => c.args[0]);
    const red = await env.eventually(() => seen().find((s) => s.fill === 'red' && /connection refused/.test(s.text)), { timeout: 30000, what: 'red status' });
    assert.match(red.text, /^target: connection refused/);
    // nothing is copied before both clusters said their cluster id: the log says what the mirror waits for
    await env.eventually(() => m.warn.getCalls().some((c) => c.thisValue === m && /waiting for both clusters to say their cluster id before copying: .*connection refused.*\(retrying\)/.test(String(c.args[0]))), { what: 'the wait for the cluster ids warned' });
    assert.equal(await topicExists('target', `source.${topic}`), false);
  });

  it('a remote topic name Kafka refuses (the alias prefix makes it longer than 249 characters): the failure says why', async function () {
    const base = env.unique('long');
    const topic = base + 'x'.repeat(245 - base.length); // 245 characters: fine on the source, 252 as source.<topic>
    const srcAdmin = await env.admin('source');
    await srcAdmin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    await nodes.load([mirrorNode({ topics: topic, emitOffsetSyncsEnabled: false }), { id: 'out', type: 'helper' }]);
    const m = nodes.helper.getNode('m');
    const warned = await env.eventually(
      () => m.warn.getCalls().map((c) => (c.thisValue === m ? String(c.args[0]) : '')).find((w) => w.includes(`cannot create source.${topic} on target`)),
      { timeout: 30000, what: 'the failed creation warned' },
    );
    assert.match(warned, /topic name 'source\.long-[^']*…' is longer than Kafka's 249 characters/);
    assert.doesNotMatch(warned, /replication\.policy\.separator/, 'the separator is not to blame');
  });

  it('never green while the target stopped answering: red within the probe time, then green again and nothing skipped', async function () {
    this.timeout(180000);
    const topic = env.unique('hang');
    const srcAdmin = await env.admin('source');
    await srcAdmin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    await nodes.load([mirrorNode({ topics: topic }), { id: 'out', type: 'helper' }]);
    const m = nodes.helper.getNode('m');
    const tgtAdmin = await env.admin('target');
    const copied = async () => Number((await tgtAdmin.fetchTopicOffsets(`source.${topic}`))[0].high);
    const seen = () => m.status.getCalls().filter((c) => c.thisValue === m).map((c) => c.args[0]);
    const last = () => seen()[seen().length - 1] || {};
    await env.eventually(() => last().fill === 'green', { timeout: 30000, what: 'green while mirroring' });
    const producer = env.kafka('source').producer();
    await producer.connect();
    try {
      await producer.send({ topic, messages: [{ value: 'a' }] });
      await env.eventually(async () => (await copied()) === 1, { what: 'first record copied' });
      // every status the node sets from the outage's start until the target answers again
      let during = [];
      await env.whileUnresponsive('target', async () => {
        const n = seen().length;
        await producer.send({ topic, messages: [{ value: 'b' }, { value: 'c' }] });
        await env.eventually(() => seen().slice(n).some((s) => s.fill === 'red'), { timeout: 45000, what: 'red while the target does not answer' });
        during = seen().slice(n);
      });
      assert.deepEqual(during.filter((s) => s.fill === 'green'), [], `no green while the target did not answer: ${JSON.stringify(during)}`);
      await env.eventually(() => last().fill === 'green', { timeout: 60000, what: 'green again' });
      await env.eventually(async () => (await copied()) === 3, { timeout: 60000, what: 'every record copied' });
    } finally {
      await producer.disconnect();
    }
  });

  it('reports invalid settings by their MM2 names without starting', async function () {
    await nodes.load([mirrorNode({ topics: 'orders(', offsetLagMax: 'many' }), { id: 'out', type: 'helper' }]);
    const m = nodes.helper.getNode('m');
    const errors = m.error.getCalls().map((c) => String(c.args[0]));
    assert.ok(errors.some((e) => /invalid settings: .*topics: .*offset\.lag\.max: 'many' is not a whole number/.test(e)), errors.join('\n'));
    await nodes.helper.unload();
    // an unset ${VAR} is reported by the MM2 property (it used to stay in the value as written)
    await nodes.load([mirrorNode({ topics: '${MM2_MIRROR_TEST_NOPE}-.*' }), { id: 'out', type: 'helper' }]);
    const errors2 = nodes.helper.getNode('m').error.getCalls().map((c) => String(c.args[0]));
    assert.deepEqual(errors2, ['invalid settings: topics: environment variable MM2_MIRROR_TEST_NOPE is not set']);
  });
});
