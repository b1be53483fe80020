'use strict';
/**
 * Bad settings are errors, never defaults or busy loops (real brokers, a real Node-RED runtime):
 *
 * - an interval above what a JavaScript timer can wait (3e9 s) used to become a 1 ms loop
 *   (thousands of heartbeats, Connect REST requests, group-offset cycles in seconds): each node
 *   now refuses it naming the property and does nothing;
 * - a replication factor of -1 used to become 3 (then lowered to the broker count with a
 *   warning): it now creates the internal topics with the broker's default.replication.factor;
 * - a list setting with a duplicate or an empty item (`orders,orders,,billing,`) used to be
 *   accepted silently (and exported to MM2, which refuses it from Kafka 4.2): the nodes, the
 *   paste endpoint and the Connect export now refuse it naming the property and the item.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { decodeHeartbeat } = require('../../dist/core/heartbeat');
const { ourReads } = require('../harness/mm2-reads');

const HUGE = '3000000000'; // seconds: 3e12 ms, far above setTimeout's 2^31-1 ms

function aliases() {
  const id = env.unique('sr').replace(/-/g, '');
  return { src: `s${id}`, tgt: `t${id}` };
}

/** How many heartbeats keyed (source alias, target alias) the source's `heartbeats` topic holds. */
async function heartbeatsFor(a) {
  const decode = (k, v) => {
    try {
      return decodeHeartbeat(k, v);
    } catch {
      return null;
    }
  };
  const all = await ourReads('source', 'heartbeats', decode);
  return all.filter((hb) => hb && hb.sourceClusterAlias === a.src && hb.targetClusterAlias === a.tgt).length;
}

function errorsOf(node) {
  return node.error.getCalls().filter((c) => c.thisValue === node).map((c) => String(c.args[0]));
}

function lastStatus(node) {
  const calls = node.status.getCalls().filter((c) => c.thisValue === node);
  return calls.length > 0 ? calls[calls.length - 1].args[0] : undefined;
}

describe('refused settings (Node-RED runtime, real brokers)', function () {
  before(() => nodes.startServer());
  after(() => nodes.stopServer());
  afterEach(() => nodes.helper.unload());

  it('a heartbeat interval of 3e9 s is refused naming emit.heartbeats.interval.seconds and the range; nothing is emitted while a good node beside it emits', async function () {
    const bad = aliases();
    const good = aliases();
    await nodes.load(
      [
        { id: 'hb', type: 'mm2-heartbeat', replication: 'rep', emitHeartbeatsEnabled: true, emitHeartbeatsIntervalSeconds: HUGE, staleAfterSeconds: '30', watch: false, wires: [[], []] },
        // an independent flow whose heartbeats show that time passed (a 1 ms loop would have written thousands)
        { id: 'src2', type: 'mm2-cluster', alias: good.src, bootstrap: env.cluster('source').bootstrap, saslMechanism: 'none' },
        { id: 'tgt2', type: 'mm2-cluster', alias: good.tgt, bootstrap: env.cluster('target').bootstrap, saslMechanism: 'none' },
        { id: 'rep2', type: 'mm2-replication', source: 'src2', target: 'tgt2', policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', replicationFactor: 1 },
        { id: 'hb2', type: 'mm2-heartbeat', replication: 'rep2', emitHeartbeatsEnabled: true, emitHeartbeatsIntervalSeconds: '1', staleAfterSeconds: '30', watch: false, wires: [[], []] },
      ],
      { over: { src: { alias: bad.src }, tgt: { alias: bad.tgt } } },
    );
    const hb = nodes.helper.getNode('hb');
    const errors = errorsOf(hb);
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0], /emit\.heartbeats\.interval\.seconds: 3000000000 is above the longest interval/);
    assert.match(errors[0], /1\.\.2073600 s \(1 s to 24 days\)/);
    assert.equal(lastStatus(hb).fill, 'red');
    const good2 = nodes.helper.getNode('hb2');
    const emitted = () => {
      const m = /^emitted (\d+)\b/.exec((lastStatus(good2) || {}).text || '');
      return m ? Number(m[1]) : 0;
    };
    await env.eventually(() => emitted() >= 3, { what: 'three heartbeats of the good node', timeout: 30000 });
    assert.ok((await heartbeatsFor(good)) >= 3, 'the good node wrote its heartbeats');
    assert.equal(await heartbeatsFor(bad), 0, 'the refused node wrote no heartbeat');
  });

  it('a Connect poll interval of 3e9 s is refused naming pollSeconds; the node sends no request while a good node polls', async function () {
    const requests = { bad: 0, good: 0 };
    const servers = {};
    for (const which of ['bad', 'good']) {
      servers[which] = http.createServer((req, res) => {
        requests[which]++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[]');
      });
      await new Promise((r) => servers[which].listen(0, '127.0.0.1', r));
    }
    const url = (which) => `http://127.0.0.1:${servers[which].address().port}`;
    try {
      await nodes.load([
        { id: 'bad', type: 'mm2-connect', replication: 'rep', url: url('bad'), urlType: 'str', pollSeconds: HUGE, wires: [[]] },
        // a good node polling its own worker shows that time passed (a 1 ms loop would have sent thousands)
        { id: 'good', type: 'mm2-connect', replication: 'rep', url: url('good'), urlType: 'str', pollSeconds: '1', wires: [[]] },
      ]);
      const bad = nodes.helper.getNode('bad');
      const errors = errorsOf(bad);
      assert.equal(errors.length, 1, errors.join('\n'));
      assert.match(errors[0], /^pollSeconds \(the status poll interval; 0 = off\): 3000000000 is above the longest interval/);
      assert.equal(lastStatus(bad).fill, 'red');
      await env.eventually(() => requests.good >= 3, { what: 'three polls of the good node', timeout: 30000 });
      assert.equal(requests.bad, 0, 'the refused node sent no request');
    } finally {
      for (const s of Object.values(servers)) await new Promise((r) => s.close(r));
    }
  });

  it('a group-offsets interval of 3e9 s or 0.0001 s is refused naming sync.group.offsets.interval.seconds, an unknown mode naming mode, with a red status', async function () {
    await nodes.load([
      { id: 'big', type: 'mm2-group-offsets', replication: 'rep', mode: 'input', syncGroupOffsetsIntervalSeconds: HUGE, groups: '', groupsExclude: '', wires: [[]] },
      { id: 'tiny', type: 'mm2-group-offsets', replication: 'rep', mode: 'input', syncGroupOffsetsIntervalSeconds: '0.0001', groups: '', groupsExclude: '', wires: [[]] },
      // an unknown mode used to run as 'input'
      { id: 'mode', type: 'mm2-group-offsets', replication: 'rep', mode: 'topics', syncGroupOffsetsIntervalSeconds: '60', groups: '', groupsExclude: '', wires: [[]] },
    ]);
    for (const [id, re] of /** @type {Array<[string, RegExp]>} */ ([
      ['big', /^sync\.group\.offsets\.interval\.seconds: .*above the longest interval/],
      ['tiny', /^sync\.group\.offsets\.interval\.seconds: .*below the shortest interval/],
      ['mode', /^mode: 'topics' is none of 'replication' .* 'input' .* or 'topic'/],
    ])) {
      const n = nodes.helper.getNode(id);
      const errors = errorsOf(n);
      assert.equal(errors.length, 1, errors.join('\n'));
      assert.match(errors[0], re);
      assert.equal(lastStatus(n).fill, 'red', id);
    }
  });

  it('replication factor -1 creates the internal topics with the broker default, without lowering, and the flow carries -1', async function () {
    await nodes.load([], { over: { rep: { replicationFactor: '-1' } } });
    const rep = nodes.helper.getNode('rep');
    assert.deepEqual(rep.problems, []);
    assert.equal(rep.replicationFactor, -1);
    assert.equal(rep.props['checkpoints.topic.replication.factor'], '-1');
    const warnings = [];
    rep.on('call:warn', (call) => warnings.push(String(call.args[0])));
    const tgt = nodes.helper.getNode('tgt');
    const topic = env.unique('rf') + '.checkpoints.internal';
    const st = await rep.ensureTopic(tgt.connection, topic);
    assert.equal(st.created, true);
    assert.equal(st.cleanupPolicy, 'compact');
    assert.deepEqual(warnings, [], 'nothing lowered: the broker chose the factor');
    const tadmin = await env.admin('target');
    {
      const brokerId = String((await tadmin.describeCluster()).brokers[0].nodeId);
      const cfg = await tadmin.describeConfigs({ includeSynonyms: false, resources: [{ type: 4 /* BROKER */, name: brokerId, configNames: ['default.replication.factor'] }] });
      const dflt = Number(cfg.resources[0].configEntries.find((c) => c.configName === 'default.replication.factor').configValue);
      const md = await tadmin.fetchTopicMetadata({ topics: [topic] });
      assert.equal(md.topics[0].partitions.length, 1);
      assert.equal(md.topics[0].partitions[0].replicas.length, dflt);
    }
  });

  it('replication factor abc or 0, an unknown policy or location, a blank separator: the flow is refused naming the property and its nodes do not run', async function () {
    /** @type {Array<[object, RegExp]>} */
    const cases = [
      [{ replicationFactor: 'abc' }, /checkpoints\.topic\.replication\.factor: 'abc' is not a whole number/],
      [{ replicationFactor: '0' }, /checkpoints\.topic\.replication\.factor: must be at least 1, or -1/],
      [{ policy: 'MyPolicy' }, /replication\.policy\.class: 'MyPolicy' is not one of/],
      [{ offsetSyncsLocation: 'middle' }, /offset-syncs\.topic\.location: 'middle' is not one of/],
      [{ separator: ' ' }, /replication\.policy\.separator: must not be empty or blank/],
    ];
    for (const [over, re] of cases) {
      await nodes.load([{ id: 'hb', type: 'mm2-heartbeat', replication: 'rep', emitHeartbeatsIntervalSeconds: '1', watch: false, wires: [[], []] }], { over: { rep: over } });
      const rep = nodes.helper.getNode('rep');
      assert.match(rep.problems.join('; '), re, JSON.stringify(over));
      const hb = nodes.helper.getNode('hb');
      assert.match(errorsOf(hb).join('\n'), re, 'the flow node names it too');
      assert.equal(lastStatus(hb).fill, 'red');
      await nodes.helper.unload();
    }
  });

  it('a list with a duplicate or an empty item is refused by the nodes, the paste endpoint and the export, naming the property and the item', async function () {
    const a = aliases();
    await nodes.load(
      [
        { id: 'cp', type: 'mm2-checkpoint', replication: 'rep', groups: 'orders,orders,,billing,', groupsExclude: '', topics: '', topicsExclude: '', emitCheckpointsIntervalSeconds: '1', wires: [[], []] },
        { id: 'm', type: 'mm2-mirror', replication: 'rep', topics: `${a.src}-t, ${a.src}-t`, topicsExclude: '', offsetFlushIntervalMs: '1000', wires: [[]] },
        { id: 'go', type: 'mm2-group-offsets', replication: 'rep', mode: 'input', syncGroupOffsetsIntervalSeconds: '60', groups: '', groupsExclude: '__.*,', wires: [[]] },
      ],
      { over: { src: { alias: a.src }, tgt: { alias: a.tgt } } },
    );
    for (const [id, re] of /** @type {Array<[string, RegExp]>} */ ([
      ['cp', /groups: values must not be duplicated: 'orders' is listed 2 times; list each item once.*values must not be empty: items 3, 5 of 5 are empty/],
      ['m', /topics: values must not be duplicated: 's\w+-t' is listed 2 times/],
      ['go', /groups\.exclude: values must not be empty: item 2 of 2 is empty \(a doubled, leading or trailing comma\); remove the extra comma/],
    ])) {
      const n = nodes.helper.getNode(id);
      assert.match(errorsOf(n).join('\n'), re, id);
      assert.equal(lastStatus(n).fill, 'red', id);
    }
    // the export of the deployed flow reports them instead of handing MM2 a config it refuses
    const exported = await nodes.helper.request().get('/mm2/export/rep?format=json').expect(200);
    const problems = exported.body.problems.map((p) => `${p.property}: ${p.reason}`).join('\n');
    assert.match(problems, /^groups: mm2-checkpoint: values must not be duplicated: 'orders' is listed 2 times/m);
    assert.match(problems, /^topics: mm2-mirror: values must not be duplicated/m);
    assert.match(problems, /^groups\.exclude: mm2-group-offsets: values must not be empty: item 2 of 2/m);
    // the paste endpoint (checkpoint dialog) fills nothing from such a config
    const pasted = await nodes.helper.request().post('/mm2/config/parse').send({ text: 'groups=orders,orders,,billing,\ntopics=a, b\n' }).expect(200);
    assert.deepEqual(pasted.body.problems.map((p) => p.property), ['groups']);
    assert.match(pasted.body.problems[0].reason, /'orders' is listed 2 times.*items 3, 5 of 5 are empty/);
    assert.equal(pasted.body.fields.groups, undefined, 'a refused value never fills the field');
  });
});
