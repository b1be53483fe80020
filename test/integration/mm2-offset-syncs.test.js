'use strict';
/** mm2-offset-syncs: the offset-syncs reader node, in a real Node-RED runtime against the two real clusters. */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { statusCalls, lastStatusText, syncsLoaded } = require('../harness/checkpoint-node');
const { encodeOffsetSync } = require('../../dist/core/offset-sync');
const { ensureInternalTopic } = require('../../dist/kafka/internal-topics');

const FLOW = [
  { id: 'os', type: 'mm2-offset-syncs', name: '', replication: 'rep', wires: [['out']] },
  { id: 'out', type: 'helper' },
];

/** Unique cluster aliases, so every test has its own offset-syncs topic. */
function aliases() {
  return { s: env.unique('src'), t: env.unique('tgt') };
}
function overFor(a, rep = {}, src = {}) {
  return { src: { alias: a.s, ...src }, tgt: { alias: a.t }, rep };
}

/** Sync i of a deterministic sequence over 3 topics x 2 partitions. */
function syncAt(i) {
  return { topic: `t${i % 3}`, partition: Math.floor(i / 3) % 2, upstreamOffset: BigInt(i * 10), downstreamOffset: BigInt(i * 7) };
}
function json(s) {
  return { topic: s.topic, partition: s.partition, upstreamOffset: String(s.upstreamOffset), downstreamOffset: String(s.downstreamOffset) };
}
function record(s) {
  const { key, value } = encodeOffsetSync(s);
  return { key, value };
}

const producers = {};
async function produce(cluster, topic, records) {
  if (!producers[cluster]) {
    producers[cluster] = env.kafka(cluster).producer();
    await producers[cluster].connect();
  }
  await producers[cluster].send({ topic, messages: records.map((r) => ({ partition: 0, key: r.key, value: r.value })) });
}

async function createTopic(cluster, topic) {
  const st = await ensureInternalTopic(await env.admin(cluster), topic, 1);
  assert.equal(st.partitions, 1);
}

function syncsOf(msgs) {
  return msgs.filter((m) => m.payload.event === 'syncs').flatMap((m) => m.payload.syncs);
}
function events(msgs) {
  return msgs.map((m) => m.payload.event);
}
function loadedIndex(msgs) {
  return msgs.findIndex((m) => m.payload.event === 'loaded');
}
/** First arguments of the calls of a spied Node method (warn, error, log) made by this node. */
function callsOf(node, method) {
  return node[method].getCalls().filter((c) => c.thisValue === node).map((c) => String(c.args[0]));
}

async function membersOf(cluster, groupIds) {
  const admin = await env.admin(cluster);
  const { groups } = await admin.describeGroups(groupIds);
  return groups.map((g) => g.members.length);
}

describe('mm2-offset-syncs (Node-RED runtime, real brokers)', function () {
  this.timeout(60000);
  before(() => nodes.startServer());
  after(async () => {
    for (const p of Object.values(producers)) await p.disconnect();
    await nodes.stopServer();
  });
  afterEach(() => nodes.helper.unload());

  it('sends the pre-existing syncs in log order in batches of at most 500, one loaded, then tails', async function () {
    const a = aliases();
    const topic = `mm2-offset-syncs.${a.t}.internal`;
    await createTopic('source', topic);
    const pre = Array.from({ length: 1200 }, (_, i) => syncAt(i));
    // a 64-bit offset that a JS number cannot hold must arrive exactly
    pre.splice(600, 0, { topic: 'big', partition: 3, upstreamOffset: 2n ** 62n + 1n, downstreamOffset: 2n ** 53n + 1n });
    await produce('source', topic, pre.map(record));

    await nodes.load(FLOW, { over: overFor(a) });
    const os = nodes.helper.getNode('os');
    const sts = nodes.statuses(os);
    const msgs = nodes.collect(nodes.helper.getNode('out'));
    await env.eventually(() => loadedIndex(msgs) >= 0, { timeout: 30000, what: "'loaded'" });

    const li = loadedIndex(msgs);
    const before = msgs.slice(0, li);
    assert.ok(before.every((m) => m.payload.event === 'syncs'), `only syncs before loaded, got ${events(before)}`);
    assert.ok(before.length >= 3, `1201 syncs need at least 3 batches, got ${before.length}`);
    for (const m of before) {
      assert.ok(m.payload.syncs.length >= 1 && m.payload.syncs.length <= 500, `batch of ${m.payload.syncs.length}`);
      assert.equal(m.topic, 'mm2/offset-syncs');
      assert.equal(m.payload.stats.loaded, false);
    }
    assert.deepEqual(syncsOf(before), pre.map(json));
    assert.deepEqual(syncsOf(before)[600], { topic: 'big', partition: 3, upstreamOffset: '4611686018427387905', downstreamOffset: '9007199254740993' });
    const loaded = msgs[li];
    assert.equal(loaded.topic, 'mm2/offset-syncs');
    assert.deepEqual(loaded.payload.source, { topic, cluster: a.s });
    assert.deepEqual(loaded.payload.stats, { read: 1201, malformed: 0, loaded: true });
    assert.equal(loaded.payload.syncs, undefined);
    assert.ok(sts.some((s) => /^loading \d+%$/.test(s.text || '')), `a loading status, got ${JSON.stringify(sts.map((s) => s.text))}`);

    // tailing: later syncs arrive after 'loaded', in order, and no second 'loaded'
    const later = [syncAt(5000), syncAt(5001), syncAt(5002)];
    await produce('source', topic, later.map(record));
    await env.eventually(() => syncsOf(msgs.slice(li + 1)).length === 3, { what: 'tailed syncs' });
    assert.deepEqual(syncsOf(msgs.slice(li + 1)), later.map(json));
    assert.ok(msgs.slice(li + 1).every((m) => m.payload.event === 'syncs' && m.payload.stats.loaded === true));
    assert.deepEqual(msgs[msgs.length - 1].payload.stats, { read: 1204, malformed: 0, loaded: true });
    assert.equal(events(msgs).filter((e) => e === 'loaded').length, 1);
    const last = await env.eventually(() => sts.find((s) => /^1204 syncs, 7 partitions, last \d\d:\d\d:\d\d$/.test(s.text || '')), { what: 'summary status' });
    assert.deepEqual({ fill: last.fill, shape: last.shape }, { fill: 'green', shape: 'dot' });
  });

  it('offset-syncs.topic.location=target reads mm2-offset-syncs.<source>.internal on the target', async function () {
    const a = aliases();
    const topic = `mm2-offset-syncs.${a.s}.internal`;
    await createTopic('target', topic);
    const pre = [syncAt(1), syncAt(2)];
    await produce('target', topic, pre.map(record));

    await nodes.load(FLOW, { over: overFor(a, { offsetSyncsLocation: 'target' }) });
    const msgs = nodes.collect(nodes.helper.getNode('out'));
    await env.eventually(() => loadedIndex(msgs) >= 0, { what: "'loaded'" });
    assert.deepEqual(syncsOf(msgs.slice(0, loadedIndex(msgs))), pre.map(json));
    assert.deepEqual(msgs[loadedIndex(msgs)].payload.source, { topic, cluster: a.t });
    assert.equal((await (await env.admin('source')).listTopics()).includes(topic), false, 'nothing on the source');
    assert.ok(nodes.helper.getNode('os').readerGroupIds.length >= 1);
    assert.deepEqual(await membersOf('target', nodes.helper.getNode('os').readerGroupIds), [1], 'the reader group lives on the target');
  });

  it('skips, counts and reports malformed records (short key, tombstone, short value) and keeps reading', async function () {
    const a = aliases();
    const topic = `mm2-offset-syncs.${a.t}.internal`;
    await createTopic('source', topic);
    const good = [syncAt(0), syncAt(3), syncAt(6)]; // partitions t0-0, t0-1, t0-0
    const validKey = record(syncAt(1)).key;
    await produce('source', topic, [
      record(good[0]),
      { key: Buffer.from('abc'), value: Buffer.alloc(16) }, // offset 1: 3-byte key
      record(good[1]),
      { key: validKey, value: null }, // offset 3: tombstone
      { key: validKey, value: Buffer.alloc(4) }, // offset 4: short value
      record(good[2]),
    ]);

    await nodes.load(FLOW, { over: overFor(a) });
    const os = nodes.helper.getNode('os');
    const sts = nodes.statuses(os);
    const msgs = nodes.collect(nodes.helper.getNode('out'));
    await env.eventually(() => loadedIndex(msgs) >= 0, { what: "'loaded'" });
    const li = loadedIndex(msgs);
    assert.deepEqual(syncsOf(msgs.slice(0, li)), good.map(json));
    assert.deepEqual(msgs[li].payload.stats, { read: 6, malformed: 3, loaded: true });

    const warns = callsOf(os, 'warn');
    assert.ok(warns.some((w) => /skipped a malformed record at offset 1 of mm2-offset-syncs\..*: .*'topic'/.test(w)), `first malformed warned: ${warns}`);
    assert.ok(warns.some((w) => /skipped 2 more malformed records .*last at offset 4: .*needs 8 bytes/.test(w)), `the rest summed up: ${warns}`);
    const st = await env.eventually(() => sts.find((s) => /^3 syncs, 2 partitions, last \S+, 3 malformed$/.test(s.text || '')), { what: 'malformed in status' });
    assert.equal(st.fill, 'yellow');

    // after the load: a malformed record then a good one; the good one still arrives
    await produce('source', topic, [{ key: Buffer.from([0, 9, 1]), value: Buffer.alloc(16) }, record(syncAt(9))]);
    await env.eventually(() => syncsOf(msgs.slice(li + 1)).length === 1, { what: 'the good record after a malformed one' });
    assert.deepEqual(syncsOf(msgs.slice(li + 1)), [json(syncAt(9))]);
    assert.deepEqual(msgs[msgs.length - 1].payload.stats, { read: 8, malformed: 4, loaded: true });
    await env.eventually(() => sts.some((s) => /^4 syncs, 2 partitions, last \S+, 4 malformed$/.test(s.text || '')), { what: 'status with 4 malformed' });
  });

  it('waits for a missing topic without creating it, then loads once it exists', async function () {
    const a = aliases();
    const topic = `mm2-offset-syncs.${a.t}.internal`;
    await nodes.load(FLOW, { over: overFor(a) });
    const os = nodes.helper.getNode('os');
    const sts = nodes.statuses(os);
    const msgs = nodes.collect(nodes.helper.getNode('out'));
    const waitingStatus = await env.eventually(() => sts.find((s) => s.text === `waiting for topic ${topic}`), { what: 'waiting status' });
    assert.deepEqual({ fill: waitingStatus.fill, shape: waitingStatus.shape }, { fill: 'yellow', shape: 'ring' });
    assert.ok(callsOf(os, 'warn').some((w) => w.includes(`topic ${topic} does not exist on cluster ${a.s}`)));
    await new Promise((r) => setTimeout(r, 3500)); // at least one more look-up
    const admin = await env.admin('source');
    assert.equal((await admin.listTopics()).includes(topic), false, 'the reader must not create the topic');
    assert.deepEqual(msgs, []);

    await createTopic('source', topic);
    const pre = [syncAt(3), syncAt(4)];
    await produce('source', topic, pre.map(record));
    await env.eventually(() => loadedIndex(msgs) >= 0 && syncsOf(msgs).length === 2, { timeout: 20000, what: 'load after the topic appeared' });
    assert.deepEqual(syncsOf(msgs), pre.map(json));
    assert.equal(events(msgs).filter((e) => e === 'loaded').length, 1);
    await env.eventually(() => sts.some((s) => /^2 syncs, 2 partitions, last /.test(s.text || '')), { what: 'summary status' });
  });

  it('a wrong bootstrap address shows the explanation in red and is retried, without crashing', async function () {
    const a = aliases();
    await nodes.load(FLOW, { over: overFor(a, {}, { bootstrap: '127.0.0.1:1' }) });
    const os = nodes.helper.getNode('os');
    const sts = nodes.statuses(os);
    const msgs = nodes.collect(nodes.helper.getNode('out'));
    const red = await env.eventually(() => sts.find((s) => s.fill === 'red' && /connection refused/.test(s.text || '')), { timeout: 20000, what: 'red status' });
    assert.equal(red.shape, 'ring');
    assert.match(red.text, new RegExp(`^${a.s}: connection refused`));
    await env.eventually(() => callsOf(os, 'error').some((e) => /cannot read mm2-offset-syncs\..*connection refused .*127\.0\.0\.1:1.*check the bootstrap servers.*retrying in \d+ s/.test(e)), { what: 'logged explanation' });
    // it retries (after 1 s, then backing off): the connection goes through 'connecting' again
    const n = sts.indexOf(red);
    await env.eventually(() => sts.slice(n + 1).some((s) => s.fill === 'yellow'), { timeout: 20000, what: 'a second attempt' });
    assert.deepEqual(msgs, []);
  });

  it('never green while the cluster stopped answering: red within the probe time, green again once it answers', async function () {
    this.timeout(150000);
    const a = aliases();
    const topic = `mm2-offset-syncs.${a.t}.internal`;
    await createTopic('source', topic);
    await produce('source', topic, [syncAt(0)].map(record));
    await nodes.load(FLOW, { over: overFor(a) });
    const os = nodes.helper.getNode('os');
    const sts = nodes.statuses(os);
    await env.eventually(() => sts.length > 0 && sts[sts.length - 1].fill === 'green', { what: 'green while tailing' });
    await env.whileUnresponsive('source', async () => {
      const n = sts.length;
      // the probe asks every 10 s and waits 10 s for an answer
      await env.eventually(() => sts.slice(n).some((s) => s.fill === 'red'), { timeout: 40000, what: 'a red status while the source does not answer' });
      const red = sts.slice(n).find((s) => s.fill === 'red');
      assert.match(red.text, new RegExp(`^${a.s}: `));
      assert.equal(sts[sts.length - 1].fill, 'red', 'and it stays red');
    });
    await env.eventually(() => sts[sts.length - 1].fill === 'green', { timeout: 60000, what: 'green again once the source answers' });
  });

  it('a refused SASL login shows what to fix', async function () {
    const a = aliases();
    const sasl = env.cluster('source');
    await nodes.load(FLOW, {
      over: overFor(a, {}, { bootstrap: sasl.saslBootstrap, saslMechanism: 'plain' }),
      credentials: { src: { username: 'alice', password: 'wrong' } },
    });
    const os = nodes.helper.getNode('os');
    const sts = nodes.statuses(os);
    const red = await env.eventually(() => sts.find((s) => s.fill === 'red' && /SASL login refused/.test(s.text || '')), { timeout: 20000, what: 'red SASL status' });
    assert.match(red.text, new RegExp(`^${a.s}: SASL login refused`));
    await env.eventually(() => callsOf(os, 'error').some((e) => /SASL login refused.*wrong username 'alice' or password for PLAIN: check the username and password/.test(e)), { what: 'logged SASL explanation' });
  });

  it('redeploy closes the reader (its consumer leaves the group) and a new start re-reads from the beginning', async function () {
    const a = aliases();
    const topic = `mm2-offset-syncs.${a.t}.internal`;
    await createTopic('source', topic);
    const pre = [syncAt(0), syncAt(1), syncAt(2)];
    await produce('source', topic, pre.map(record));
    const over = overFor(a);
    await nodes.load(FLOW, { over });
    const first = nodes.helper.getNode('os');
    let msgs = nodes.collect(nodes.helper.getNode('out'));
    await env.eventually(() => loadedIndex(msgs) >= 0, { what: "first 'loaded'" });
    const firstGroups = [...first.readerGroupIds];
    assert.deepEqual(await membersOf('source', firstGroups), [1]);

    // full redeploy of the same flow: close(removed=false), then a fresh start
    await nodes.helper.setFlows([...nodes.configNodes(over), ...FLOW], 'full');
    const second = nodes.helper.getNode('os');
    msgs = nodes.collect(nodes.helper.getNode('out'));
    assert.notEqual(second, first);
    assert.deepEqual(await membersOf('source', firstGroups), [0], 'old consumer left its group');
    await env.eventually(() => loadedIndex(msgs) >= 0, { what: "second 'loaded'" });
    assert.deepEqual(syncsOf(msgs.slice(0, loadedIndex(msgs))), pre.map(json));
    assert.deepEqual(msgs[loadedIndex(msgs)].payload.stats, { read: 3, malformed: 0, loaded: true });
    assert.equal(events(msgs).filter((e) => e === 'loaded').length, 1);
    const secondGroups = [...second.readerGroupIds];
    assert.equal(secondGroups.some((g) => firstGroups.includes(g)), false, 'a new throwaway group');

    // removing the node: close(removed=true), nothing lingers either
    await nodes.helper.setFlows(nodes.configNodes(over), 'full');
    assert.deepEqual(await membersOf('source', secondGroups), [0], 'removed node left its group');
    assert.equal(nodes.helper.getNode('os'), null);
  });
  describe('the replication flow\'s one reader: mm2-offset-syncs reports it, mm2-checkpoint takes the syncs without a wire', function () {
    const flow = (cpName, osName = '') => [
      { id: 'os', type: 'mm2-offset-syncs', name: osName, replication: 'rep', wires: [['out']] },
      { id: 'cp', type: 'mm2-checkpoint', name: cpName, replication: 'rep', emitCheckpointsIntervalSeconds: '60', wires: [[], []] },
      { id: 'out', type: 'helper' },
    ];

    async function loaded(a, pre, cpName = 'first') {
      const topic = `mm2-offset-syncs.${a.t}.internal`;
      await createTopic('source', topic);
      await produce('source', topic, pre.map(record));
      const over = overFor(a);
      await nodes.load(flow(cpName), { over });
      const os = nodes.helper.getNode('os');
      const msgs = nodes.collect(nodes.helper.getNode('out'));
      const cp = nodes.helper.getNode('cp');
      await env.eventually(() => syncsLoaded(cp) && loadedIndex(msgs) >= 0, { what: `the checkpoint node has the history (its status: ${lastStatusText(cp)}), the offset-syncs node reported it` });
      return { over, os, msgs, cp, topic };
    }

    it('one reader for both nodes; a checkpoint node redeployed on its own ("modified nodes") gets the whole history from the feed, the reporter is not disturbed', async function () {
      const a = aliases();
      const pre = [syncAt(0), syncAt(1), syncAt(2), syncAt(3)];
      const { over, os, msgs, cp, topic } = await loaded(a, pre);
      assert.equal(os.readerGroupIds.length, 1, 'one reader');
      assert.deepEqual(await membersOf('source', os.readerGroupIds), [1], 'one consumer for the two nodes');
      const readers = [...os.readerGroupIds];
      const before = msgs.length;

      await nodes.helper.setFlows([...nodes.configNodes(over), ...flow('second')], 'nodes');
      const cp2 = nodes.helper.getNode('cp');
      assert.notEqual(cp2, cp, 'the checkpoint node was replaced');
      assert.equal(nodes.helper.getNode('os'), os, 'the offset-syncs node kept running');
      await env.eventually(() => syncsLoaded(cp2), { what: 'the redeployed checkpoint node has the history again (its status)' });
      assert.deepEqual([...os.readerGroupIds], readers, 'the topic was not read again');
      // a sync written now reaches both
      await produce('source', topic, [record(syncAt(9))]);
      await env.eventually(() => syncsOf(msgs.slice(before)).length === 1, { what: 'the tailed sync reported' });
      assert.deepEqual(events(msgs.slice(before)), ['syncs'], 'no reset, no history sent again to the wire');
      assert.doesNotMatch(callsOf(os, 'warn').join('\n'), /recreated/);
    });

    it('the reporter redeployed on its own sends the whole history and one loaded again, as at a fresh start; the checkpoint node keeps its store', async function () {
      const a = aliases();
      const pre = [syncAt(0), syncAt(1), syncAt(2)];
      const { over, os, cp, msgs } = await loaded(a, pre);
      const before = msgs.length;
      const statusesBefore = statusCalls(cp).length;
      await nodes.helper.setFlows([...nodes.configNodes(over), ...flow('first', 'renamed')], 'nodes');
      const os2 = nodes.helper.getNode('os');
      assert.notEqual(os2, os, 'the offset-syncs node was replaced');
      assert.equal(nodes.helper.getNode('cp'), cp, 'the checkpoint node kept running');
      await env.eventually(() => loadedIndex(msgs.slice(before)) >= 0, { what: "the new node's 'loaded'" });
      const again = msgs.slice(before);
      const li = loadedIndex(again);
      assert.deepEqual(syncsOf(again.slice(0, li)), pre.map(json), 'every sync again, in log order, before loaded');
      assert.ok(again.slice(0, li).every((m) => m.payload.event === 'syncs' && m.payload.stats.loaded === false));
      assert.deepEqual(again[li].payload.stats, { read: 3, malformed: 0, loaded: true });
      assert.equal(events(again).filter((e) => e === 'loaded').length, 1);
      assert.equal(events(again).includes('reset'), false, 'no reset: nothing was dropped');
      assert.equal(syncsLoaded(cp), true, `the checkpoint node kept its store (status: ${lastStatusText(cp)})`);
      assert.deepEqual(statusCalls(cp).slice(statusesBefore).filter((s) => /^waiting for offset syncs$|^loading checkpoints/.test(s.text)), [], 'never waiting for the syncs again');
      await env.eventually(() => os2.status.getCalls().some((c) => c.thisValue === os2 && /^3 syncs, 3 partitions/.test(c.args[0].text || '')), { what: 'the summary status of the new node' });
    });

    it('an OffsetSyncsMessage wired into the checkpoint node (a flow of an older version) is left aside: done, no error, the store untouched', async function () {
      const a = aliases();
      const pre = [syncAt(0), syncAt(1)];
      const { cp, msgs } = await loaded(a, pre);
      const last = msgs[msgs.length - 1];
      const statusesBefore = statusCalls(cp).length;
      // a 'reset' would drop the store if the node still took syncs from its input
      cp.receive({ topic: 'mm2/offset-syncs', payload: { ...last.payload, event: 'reset' } });
      cp.receive({ topic: 'mm2/offset-syncs', payload: { ...last.payload, event: 'syncs', syncs: [json(syncAt(9))] } });
      await env.eventually(() => callsOf(cp, 'log').some((l) => /left aside/.test(l)), { what: 'the log says the message was left aside' });
      assert.equal(syncsLoaded(cp), true, `still loaded: the reset on the wire was not applied (status: ${lastStatusText(cp)})`);
      assert.deepEqual(statusCalls(cp).slice(statusesBefore).filter((s) => /^waiting for offset syncs$/.test(s.text)), [], 'never waiting for the syncs again');
      assert.deepEqual(callsOf(cp, 'error'), []);
      assert.equal(callsOf(cp, 'log').filter((l) => /left aside/.test(l)).length, 1, 'said once');
    });
  });
});
