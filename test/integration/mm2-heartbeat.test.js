'use strict';
/**
 * mm2-heartbeat against two real Kafka clusters: emission to the source's `heartbeats`
 * (bytes, partition, record timestamp), watching `<source>.heartbeats` on the target (we write
 * the replicated records ourselves, so this does not depend on a mirror), the stale/ok alarm,
 * malformed records, the input, and close/redeploy.
 *
 * Every test uses its own cluster aliases, so its heartbeat key and watched topic are its own.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { encodeHeartbeat, decodeHeartbeat } = require('../../dist/core/heartbeat');

/** Two fresh aliases: the watched topic is `<src>.heartbeats`, the heartbeat key (src, tgt). */
function aliases() {
  const id = env.unique('hb').replace(/-/g, '');
  return { src: `s${id}`, tgt: `t${id}` };
}

function over(a, rep = {}) {
  return { src: { alias: a.src }, tgt: { alias: a.tgt }, rep };
}

function hbNode(props = {}) {
  return {
    id: 'hb',
    type: 'mm2-heartbeat',
    replication: 'rep',
    emitHeartbeatsEnabled: true,
    emitHeartbeatsIntervalSeconds: '1',
    staleAfterSeconds: '30',
    watch: true,
    wires: [['out1'], ['out2']],
    ...props,
  };
}

const outputs = [
  { id: 'out1', type: 'helper' },
  { id: 'out2', type: 'helper' },
];

const admins = {};
/** One admin client per cluster for the whole file (closed by the harness at the end). */
async function adminOf(cluster) {
  if (!admins[cluster]) admins[cluster] = env.admin(cluster);
  return admins[cluster];
}

/** Every record of partition 0 of `topic` on `cluster` (empty if the topic does not exist). */
async function readAll(cluster, topic) {
  const admin = await adminOf(cluster);
  let offs;
  try {
    offs = await admin.fetchTopicOffsets(topic);
  } catch {
    return [];
  }
  const high = Number(offs.find((o) => o.partition === 0)?.high ?? 0);
  if (high === 0) return [];
  const consumer = env.kafka(cluster).consumer({ groupId: env.unique('hb-test-reader'), maxWaitTimeInMs: 200 });
  const out = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    let last = -1;
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        out.push({ partition, key: message.key, value: message.value, timestamp: Number(message.timestamp), offset: Number(message.offset) });
        last = Math.max(last, Number(message.offset));
      },
    });
    await env.eventually(() => last >= high - 1, { what: `reading ${topic} to offset ${high}` });
  } finally {
    await consumer.disconnect();
  }
  return out;
}

/** Our heartbeats (key = the test's aliases) in the source cluster's `heartbeats`, decoded. */
async function emittedFor(a) {
  const recs = await readAll('source', 'heartbeats');
  return recs
    .map((r) => {
      try {
        return { ...r, hb: decodeHeartbeat(r.key, r.value) };
      } catch {
        return null;
      }
    })
    .filter((r) => r && r.hb.sourceClusterAlias === a.src && r.hb.targetClusterAlias === a.tgt);
}

async function produce(topic, messages) {
  const producer = env.kafka('target').producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    await producer.send({ topic, messages: messages.map((m) => ({ partition: 0, ...m })) });
  } finally {
    await producer.disconnect();
  }
}

async function createTopic(cluster, topic) {
  const admin = await adminOf(cluster);
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }], waitForLeaders: true });
}

/** A replicated heartbeat record as the mirror would write it to `<source>.heartbeats`. */
function heartbeatRecord(a, timestamp) {
  const { key, value } = encodeHeartbeat({ sourceClusterAlias: a.src, targetClusterAlias: a.tgt, timestamp });
  return { key, value, timestamp: String(timestamp) };
}

function lastText(list) {
  const s = list[list.length - 1];
  return (s && s.text) || '';
}

/** Every status `node` has set, from the test helper's spy (also those set before the test looked). */
function statusHistory(node) {
  const spy = node.status;
  return () => spy.getCalls().filter((c) => c.thisValue === node).map((c) => c.args[0]);
}

function warnings(node) {
  const list = [];
  node.on('call:warn', (call) => list.push(String(call.args[0])));
  return list;
}

/** A watching-only node on fresh aliases whose `<src>.heartbeats` exists, with its statuses, outputs and warnings. */
async function watchOnly(staleAfterSeconds) {
  const a = aliases();
  const topic = `${a.src}.heartbeats`;
  await createTopic('target', topic);
  await nodes.load([hbNode({ emitHeartbeatsEnabled: false, staleAfterSeconds }), ...outputs], { over: over(a) });
  const hb = nodes.helper.getNode('hb');
  return {
    a, topic, hb,
    st: nodes.statuses(hb),
    out1: nodes.collect(nodes.helper.getNode('out1')),
    out2: nodes.collect(nodes.helper.getNode('out2')),
    warns: warnings(hb),
  };
}

describe('mm2-heartbeat (Node-RED runtime, real brokers)', function () {
  before(() => nodes.startServer());
  after(() => nodes.stopServer());
  afterEach(() => nodes.helper.unload());

  it('emits Heartbeat(source, target, now) to partition 0 of the source cluster\'s compacted heartbeats topic, record timestamp = heartbeat timestamp', async function () {
    const a = aliases();
    const started = Date.now();
    await nodes.load([hbNode({ watch: false }), ...outputs], { over: over(a) });
    const hb = nodes.helper.getNode('hb');
    const st = nodes.statuses(hb);
    const recs = await env.eventually(async () => {
      const r = await emittedFor(a);
      return r.length >= 3 && r;
    }, { what: '3 heartbeats from the node' });
    for (const r of recs) {
      assert.equal(r.partition, 0);
      assert.deepEqual(Object.keys(r.hb).sort(), ['sourceClusterAlias', 'targetClusterAlias', 'timestamp']);
      assert.equal(typeof r.hb.timestamp, 'bigint');
      assert.equal(r.timestamp, Number(r.hb.timestamp), 'record timestamp equals the heartbeat timestamp');
      assert.ok(r.timestamp >= started && r.timestamp <= Date.now(), `timestamp ${r.timestamp} is the emission time`);
      // byte-exact: re-encoding the decoded heartbeat gives the same key and value
      const again = encodeHeartbeat(r.hb);
      assert.deepEqual(again.key, r.key);
      assert.deepEqual(again.value, r.value);
      assert.equal(r.value.length, 10);
    }
    for (let i = 1; i < recs.length; i++) assert.ok(recs[i].timestamp > recs[i - 1].timestamp, 'one heartbeat per interval, in order');

    const admin = await adminOf('source');
    const md = await admin.fetchTopicMetadata({ topics: ['heartbeats'] });
    assert.equal(md.topics[0].partitions.length, 1);
    const cfg = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: 'heartbeats', configNames: ['cleanup.policy'] }] });
    assert.equal(cfg.resources[0].configEntries[0].configValue, 'compact');

    await env.eventually(() => /^emitted \d+, last at \d\d:\d\d:\d\d$/.test(lastText(st)), { what: `emitting status, got '${lastText(st)}'` });
    // the node emitted nothing on its outputs (it does not watch)
    assert.equal(nodes.collect(nodes.helper.getNode('out1')).length, 0);
  });

  it('an input message emits one heartbeat now; with emit.heartbeats.enabled=false it is refused with an error a Catch node sees and nothing is written', async function () {
    const a = aliases();
    await nodes.load(
      [
        hbNode({ watch: false, emitHeartbeatsIntervalSeconds: '3600', wires: [[], []] }),
        { id: 'inj', type: 'helper', wires: [['hb']] },
        { id: 'cmp', type: 'complete', scope: ['hb'], uncaught: false, wires: [['completed']] },
        { id: 'completed', type: 'helper' },
      ],
      { over: over(a) },
    );
    const completed = nodes.collect(nodes.helper.getNode('completed'));
    // the first heartbeat is written at start, the next in an hour
    await env.eventually(async () => (await emittedFor(a)).length === 1, { what: 'the heartbeat written at start' });
    nodes.helper.getNode('hb').receive({ payload: 'now' });
    await env.eventually(() => completed.length === 1, { what: 'done() for the input message' });
    const recs = await emittedFor(a);
    assert.equal(recs.length, 2, 'exactly one more heartbeat for one message');
    assert.ok(recs[1].hb.timestamp > recs[0].hb.timestamp);
    await nodes.helper.unload();

    // emitting off (and watching off): nothing written, input refused
    const b = aliases();
    await nodes.load(
      [
        hbNode({ watch: false, emitHeartbeatsEnabled: false, wires: [[], []] }),
        { id: 'ct', type: 'catch', scope: ['hb'], uncaught: false, wires: [['caught']] },
        { id: 'caught', type: 'helper' },
      ],
      { over: over(b) },
    );
    const hb = nodes.helper.getNode('hb');
    // the status was set while the node was built: read it from the test helper's spy
    const idle = statusHistory(hb)();
    assert.deepEqual(idle[idle.length - 1], { fill: 'grey', shape: 'ring', text: 'idle: emitting and watching are both off' });
    const caught = nodes.collect(nodes.helper.getNode('caught'));
    hb.receive({ payload: 'now' });
    await env.eventually(() => caught.length === 1, { what: 'the refusal at the Catch node' });
    assert.match(caught[0].error.message, /emit\.heartbeats\.enabled is false/);
    assert.equal(caught[0].error.source.id, 'hb');
    await new Promise((r) => setTimeout(r, 2500)); // more than two intervals of the default 1 s
    assert.deepEqual(await emittedFor(b), []);
  });

  it('reports each replicated heartbeat with its end-to-end latency, after skipping the backlog', async function () {
    const a = aliases();
    const topic = `${a.src}.heartbeats`;
    await createTopic('target', topic);
    const backlogTs = Date.now() - 1000;
    await produce(topic, [heartbeatRecord(a, backlogTs)]);

    await nodes.load([hbNode({ emitHeartbeatsEnabled: false }), ...outputs], { over: over(a) });
    const hb = nodes.helper.getNode('hb');
    const st = nodes.statuses(hb);
    const out1 = nodes.collect(nodes.helper.getNode('out1'));
    const out2 = nodes.collect(nodes.helper.getNode('out2'));
    await env.eventually(() => lastText(st) === `waiting for heartbeats on ${topic}`, { what: `loaded status, got '${lastText(st)}'` });

    const t1 = Date.now() - 5000;
    await produce(topic, [heartbeatRecord(a, t1)]);
    await env.eventually(() => out1.length === 1, { what: 'first heartbeat on output 1' });
    const t2 = Date.now();
    await produce(topic, [heartbeatRecord(a, t2)]);
    await env.eventually(() => out1.length === 2, { what: 'second heartbeat on output 1' });
    const now = Date.now();

    assert.equal(out1[0].topic, 'mm2/heartbeat');
    const p1 = out1[0].payload;
    assert.deepEqual(Object.keys(p1).sort(), ['heartbeatsTopic', 'latencyMs', 'sourceClusterAlias', 'targetClusterAlias', 'timestamp']);
    assert.equal(p1.sourceClusterAlias, a.src);
    assert.equal(p1.targetClusterAlias, a.tgt);
    assert.equal(p1.timestamp, t1);
    assert.equal(p1.heartbeatsTopic, topic);
    assert.ok(p1.latencyMs >= 5000 && p1.latencyMs <= now - t1, `latency ${p1.latencyMs} within [5000, ${now - t1}]`);
    const p2 = out1[1].payload;
    assert.equal(p2.timestamp, t2);
    assert.ok(p2.latencyMs >= 0 && p2.latencyMs <= now - t2, `latency ${p2.latencyMs} within [0, ${now - t2}]`);
    assert.ok(!out1.some((m) => m.payload.timestamp === backlogTs), 'the backlog is not replayed');
    assert.deepEqual(out2, [], 'no alarm: heartbeats were fresh all along');
    // green with the last latency and the time it arrived (yellow once the next one is overdue: none follows here)
    const latency = p2.latencyMs < 1000 ? `${p2.latencyMs} ms` : `${Math.floor(p2.latencyMs / 1000)} s`;
    await env.eventually(() => st.some((s) => s.fill === 'green' && s.text.startsWith(`latency ${latency} at `) && /at \d\d:\d\d:\d\d$/.test(s.text)), { what: `latency status, got ${JSON.stringify(st)}` });
  });

  it('raises a stale alarm once when nothing arrives within staleAfterSeconds, clears it once when heartbeats come back, and re-arms', async function () {
    const { a, topic, st, out1, out2, warns } = await watchOnly('2');

    await env.eventually(() => out2.length === 1, { what: 'stale alarm' });
    assert.deepEqual(out2[0], { _msgid: out2[0]._msgid, topic: 'mm2/heartbeat-alarm', payload: { state: 'stale', lastSeen: null, ageMs: null, staleAfterMs: 2000 } });
    assert.match(lastText(st), /^stale: no heartbeat in \d+ s$/);
    assert.equal(st[st.length - 1].fill, 'red');
    assert.ok(warns.some((w) => w.includes(`no heartbeat has arrived in ${topic}`)), warns.join('\n'));
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(out2.length, 1, 'stale is not repeated');

    const t1 = Date.now();
    await produce(topic, [heartbeatRecord(a, t1)]);
    await env.eventually(() => out2.length === 2, { what: 'ok alarm' });
    assert.equal(out2[1].payload.state, 'ok');
    assert.equal(out2[1].payload.lastSeen, t1);
    assert.ok(out2[1].payload.ageMs >= 0 && out2[1].payload.ageMs <= 2000);
    assert.equal(out2[1].payload.staleAfterMs, 2000);
    assert.equal(out1.length, 1);
    await produce(topic, [heartbeatRecord(a, Date.now())]);
    await env.eventually(() => out1.length === 2, { what: 'second heartbeat' });
    assert.equal(out2.length, 2, 'ok is not repeated');

    // heartbeats stop again: a new stale alarm, with the newest heartbeat in it
    await env.eventually(() => out2.length === 3, { what: 'second stale alarm' });
    assert.equal(out2[2].payload.state, 'stale');
    assert.equal(out2[2].payload.lastSeen, out1[1].payload.timestamp);
    assert.ok(out2[2].payload.ageMs > 2000);
    await env.eventually(() => /^stale: no heartbeat for \d+ s$/.test(lastText(st)), { what: `stale status, got '${lastText(st)}'` });
  });

  it('waits for a missing topic (status says so, the alarm still fires), then picks heartbeats up once it exists; the Identity policy still watches <source>.heartbeats; ${VAR} inside a setting', async function () {
    const a = aliases();
    const topic = `${a.src}.heartbeats`;
    process.env.MM2_HB_TEST_STALE = '2';
    // `${VAR}` inside a value is substituted too (Node-RED itself only replaces whole values): 2.5 s
    await nodes.load([hbNode({ emitHeartbeatsEnabled: false, staleAfterSeconds: '${MM2_HB_TEST_STALE}.5' }), ...outputs], { over: over(a, { policy: 'IdentityReplicationPolicy' }) });
    const hb = nodes.helper.getNode('hb');
    const st = nodes.statuses(hb);
    const out2 = nodes.collect(nodes.helper.getNode('out2'));
    await env.eventually(() => st.some((s) => s.text === `waiting for topic ${topic}`), { what: `waiting-for-topic status, got '${lastText(st)}'` });
    await env.eventually(() => out2.length === 1, { what: 'stale alarm while the topic is missing' });
    assert.deepEqual(out2[0].payload, { state: 'stale', lastSeen: null, ageMs: null, staleAfterMs: 2500 });
    await env.eventually(() => lastText(st) === `stale: waiting for topic ${topic}`, { what: `stale waiting status, got '${lastText(st)}'` });

    await createTopic('target', topic);
    const t1 = Date.now();
    await produce(topic, [heartbeatRecord(a, t1)]);
    await env.eventually(() => out2.length === 2, { what: 'ok once the topic exists' });
    assert.equal(out2[1].payload.state, 'ok');
    assert.equal(out2[1].payload.lastSeen, t1);
  });

  it('skips, counts and reports malformed records (garbage and a tombstone) and keeps reading', async function () {
    const a = aliases();
    const topic = `${a.src}.heartbeats`;
    await createTopic('target', topic);
    await nodes.load([hbNode({ emitHeartbeatsEnabled: false }), ...outputs], { over: over(a) });
    const hb = nodes.helper.getNode('hb');
    const st = nodes.statuses(hb);
    const out1 = nodes.collect(nodes.helper.getNode('out1'));
    const warns = warnings(hb);
    await env.eventually(() => lastText(st) === `waiting for heartbeats on ${topic}`, { what: `loaded status, got '${lastText(st)}'` });

    const t1 = Date.now();
    await produce(topic, [
      { key: Buffer.from('not a heartbeat'), value: Buffer.from([0, 0, 1]) },
      { key: encodeHeartbeat({ sourceClusterAlias: a.src, targetClusterAlias: a.tgt, timestamp: 1 }).key, value: null },
      heartbeatRecord(a, t1),
    ]);
    await env.eventually(() => out1.length === 1, { what: 'the good heartbeat after the bad records' });
    assert.equal(out1[0].payload.timestamp, t1);
    await env.eventually(() => / \(2 malformed\)$/.test(lastText(st)), { what: `malformed count in status, got '${lastText(st)}'` });
    // set when the good heartbeat arrived (later it is overdue: none follows)
    const withCount = st.find((s) => / \(2 malformed\)$/.test(s.text || ''));
    assert.match(withCount.text, /^latency \d+ (ms|s) at \d\d:\d\d:\d\d \(2 malformed\)$/);
    assert.equal(withCount.fill, 'green');
    // one warning (rate-limited), naming the topic and the first bad offset
    const w = warns.filter((x) => x.includes('malformed'));
    assert.equal(w.length, 1, w.join('\n'));
    assert.match(w[0], new RegExp(`skipped 1 malformed record\\(s\\) in ${topic.replace(/\./g, '\\.')} \\(1 since start; last at offset 0: `));
  });

  it('skips and counts heartbeats whose timestamp makes no sense (before the epoch, far in the future): they neither count as seen nor keep a stale flow fresh', async function () {
    const { a, topic, st, out1, out2, warns } = await watchOnly('2');
    await env.eventually(() => out2.some((m) => m.payload.state === 'stale'), { what: 'the stale alarm (nothing arrived)' });

    const now = Date.now();
    // the record timestamp stays sensible (brokers refuse negative or far-future ones); the heartbeat's own does not
    const absurd = (ts) => ({ ...heartbeatRecord(a, ts), timestamp: String(now) });
    await produce(topic, [absurd(-5n), absurd(-9223372036854775808n), absurd(BigInt(now + 3600 * 1000)), absurd(9223372036854775807n)]);
    await env.eventually(() => / \(4 malformed\)$/.test(lastText(st)), { what: `4 skipped in the status, got '${lastText(st)}'` });
    assert.match(lastText(st), /^stale: /, 'still stale: none of them counts as a fresh heartbeat');
    assert.equal(out1.length, 0, 'no heartbeat message, no absurd latency');
    assert.equal(out2.filter((m) => m.payload.state === 'ok').length, 0, 'no ok alarm');
    const w = warns.filter((x) => x.includes('malformed'));
    assert.match(w.join('\n'), /before the epoch/);

    // a sensible one still clears the alarm
    await produce(topic, [heartbeatRecord(a, Date.now())]);
    await env.eventually(() => out1.length === 1 && out2.some((m) => m.payload.state === 'ok'), { what: 'the good heartbeat clears the alarm' });
  });

  it('never green while the target stopped answering (watching) or while no heartbeat gets written (emitting): red, then green again', async function () {
    this.timeout(150000);
    const a = aliases();
    const topic = `${a.src}.heartbeats`;
    await createTopic('target', topic);
    // stale-after long enough that only the unreachable cluster can make it red
    await nodes.load([hbNode({ staleAfterSeconds: '600' }), ...outputs], { over: over(a) });
    const hb = nodes.helper.getNode('hb');
    const st = nodes.statuses(hb);
    const out1 = nodes.collect(nodes.helper.getNode('out1'));
    await env.eventually(() => /^emitted|^waiting for heartbeats/.test(lastText(st)) || (st.length > 0 && st[st.length - 1].fill === 'blue'), { what: `watching, got '${lastText(st)}'` });
    await produce(topic, [heartbeatRecord(a, Date.now())]);
    await env.eventually(() => st.length > 0 && st[st.length - 1].fill === 'green', { what: `green with a latency, got '${lastText(st)}'` });

    // every status the node sets from an outage's start until the cluster answers again: none green
    let during = [];
    await env.whileUnresponsive('target', async () => {
      const n = st.length;
      await env.eventually(() => st.slice(n).some((s) => s.fill === 'red'), { timeout: 40000, what: 'red while the target does not answer' });
      during = st.slice(n);
    });
    assert.deepEqual(during.filter((s) => s.fill === 'green'), [], `no green while the target did not answer: ${JSON.stringify(during)}`);
    // green again only on a fresh heartbeat (no mirror here: the test writes one, until the watcher reads again);
    // each one read before the next is written, so that none is still on its way when the source stops
    const written = [];
    await env.eventually(async () => {
      const ts = Date.now();
      await produce(topic, [heartbeatRecord(a, ts)]);
      written.push(ts);
      try {
        await env.eventually(() => out1.some((m) => m.payload.timestamp === ts), { timeout: 5000, what: 'the heartbeat read' });
      } catch {
        return false;
      }
      return st[st.length - 1].fill === 'green';
    }, { timeout: 60000, interval: 1000, what: `green again on a fresh heartbeat, got '${lastText(st)}'` });
    // every heartbeat the test wrote has arrived (one the watcher read late would otherwise set a
    // green latency after the source stopped: evidence of the target, read before the node could
    // know that the source stopped taking heartbeats)
    await env.eventually(() => written.every((ts) => out1.some((m) => m.payload.timestamp === ts)), { timeout: 60000, what: 'every heartbeat the test wrote read' });

    await env.whileUnresponsive('source', async () => {
      const n = st.length;
      await env.eventually(() => st.slice(n).some((s) => s.fill === 'red' && /no heartbeat written for|emit failed/.test(s.text || '')), { timeout: 40000, what: 'red while no heartbeat can be written' });
      during = st.slice(n);
    });
    assert.deepEqual(during.filter((s) => s.fill === 'green'), [], `no green while the source did not answer: ${JSON.stringify(during)}`);
  });

  it('a receiver of the alarm deployed on its own after the last change gets the current state again (resent), the others are left alone', async function () {
    const { a, out2 } = await watchOnly('2');
    await env.eventually(() => out2.some((m) => m.payload.state === 'stale'), { what: 'the stale alarm' });
    const hb = nodes.helper.getNode('hb');
    // a "modified nodes" deploy that replaces only the receiver of the alarm output
    const flow = [...nodes.configNodes(over(a)), hbNode({ emitHeartbeatsEnabled: false, staleAfterSeconds: '2' }), outputs[0], { ...outputs[1], name: 'replaced' }];
    await nodes.helper.setFlows(flow, 'nodes');
    assert.equal(nodes.helper.getNode('hb'), hb, 'the heartbeat node kept running');
    // what the node sent on its alarm output (the new receiver may get it before a test listener is attached)
    const alarmsSent = () => hb.send.getCalls().filter((c) => c.thisValue === hb && Array.isArray(c.args[0]) && c.args[0][1]).map((c) => c.args[0][1]);
    await env.eventually(() => alarmsSent().some((m) => m.payload.resent === true), { what: 'the current state sent again' });
    const resent = alarmsSent().filter((m) => m.payload.resent === true);
    assert.equal(resent.length, 1);
    assert.equal(resent[0].payload.state, 'stale');
    assert.equal(alarmsSent().filter((m) => m.payload.resent !== true).length, 1, 'the edge itself was sent once');
    assert.equal(out2.filter((m) => m.payload.resent !== true).length, 1);
  });

  it('an unset ${VAR} in a setting is an error naming the setting and the variable, never a silent default', async function () {
    const a = aliases();
    await nodes.load([hbNode({ emitHeartbeatsIntervalSeconds: '${MM2_HB_TEST_NOPE}', staleAfterSeconds: '${MM2_HB_TEST_NOPE}0' }), ...outputs], { over: over(a) });
    const hb = nodes.helper.getNode('hb');
    const errors = hb.error.getCalls().map((c) => String(c.args[0]));
    assert.deepEqual(errors, [
      'the heartbeat node is misconfigured: emit.heartbeats.interval.seconds: environment variable MM2_HB_TEST_NOPE is not set; ' +
        'staleAfterSeconds: environment variable MM2_HB_TEST_NOPE is not set',
    ]);
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(await emittedFor(a), [], 'nothing is emitted');
  });

  it('an unreachable source shows an error status and a warning that say what to fix', async function () {
    const a = aliases();
    const o = over(a);
    o.src.bootstrap = '127.0.0.1:1'; // nothing listens there
    await nodes.load([hbNode({ watch: false }), ...outputs], { over: o });
    const hb = nodes.helper.getNode('hb');
    const st = statusHistory(hb);
    const warns = warnings(hb);
    await env.eventually(() => st().some((s) => s.fill === 'red' && s.text.startsWith(`${a.src}: connection refused`)), {
      what: `an error status, got '${lastText(st())}'`,
      timeout: 30000,
    });
    await env.eventually(() => warns.some((w) => w.startsWith(`cannot write heartbeats to heartbeats on ${a.src}: connection refused`)), { what: 'a warning' });
    assert.match(warns[0], /check the bootstrap servers and that the brokers run/);
  });

  it('closes cleanly and redeploys: the old emitter stops, its reader leaves its group, the new node runs, and no timers are left after unload', async function () {
    const a = aliases();
    const topic = `${a.src}.heartbeats`;
    await createTopic('target', topic);
    const target = await adminOf('target');
    const readerGroups = async () => (await target.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith('__mm2-node-red-heartbeats-'));
    const groupsBefore = new Set(await readerGroups());
    const timeoutsBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

    await nodes.load([hbNode(), ...outputs], { over: over(a) });
    const old = nodes.helper.getNode('hb');
    const oldSt = nodes.statuses(old);
    await env.eventually(() => lastText(oldSt) === `waiting for heartbeats on ${topic}`, { what: `the old node watching, got '${lastText(oldSt)}'` });
    await env.eventually(async () => (await emittedFor(a)).length >= 1, { what: 'first heartbeat' });
    const oldGroups = await env.eventually(async () => {
      const g = (await readerGroups()).filter((x) => !groupsBefore.has(x));
      return g.length === 1 && g;
    }, { what: "the old node's reader group" });

    // redeploy the node with emitting off: from now on nothing may be written with this key
    await nodes.helper.setFlows([...nodes.configNodes(over(a)), hbNode({ emitHeartbeatsEnabled: false }), ...outputs], 'nodes');
    const fresh = nodes.helper.getNode('hb');
    assert.notEqual(fresh, old);
    assert.deepEqual(oldSt[oldSt.length - 1], {}, 'the old node cleared its status on close');
    const oldStatusCount = oldSt.length;
    const count = (await emittedFor(a)).length;
    const st = statusHistory(fresh);
    await env.eventually(() => lastText(st()) === `waiting for heartbeats on ${topic}`, { what: `the new node watching, got '${lastText(st())}'` });
    await new Promise((r) => setTimeout(r, 2500)); // more than two emission intervals
    assert.equal((await emittedFor(a)).length, count, 'the old emitter stopped');
    assert.equal(oldSt.length, oldStatusCount, 'the old node does not touch its status after close');
    const described = await target.describeGroups(oldGroups);
    assert.deepEqual(described.groups.map((g) => [g.groupId, g.members.length]), [[oldGroups[0], 0]], 'the old reader left its group');

    await nodes.helper.unload();
    await env.eventually(() => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length <= timeoutsBefore, {
      what: 'timers back to the level before the node was loaded',
      timeout: 15000,
    });
  });
});
