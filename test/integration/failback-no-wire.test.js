'use strict';
/**
 * mm2-failback with nothing wired to its input: it takes the offset syncs from its replication
 * flow's feed (the config node's one reader of the offset-syncs topic), so it needs no wire. It
 * used to wait grey for ever, then to say "not wired" (issue 26); now it runs. A wire kept from an
 * older flow is harmless: an OffsetSyncsMessage on the input is left aside. Real clusters behind
 * the config nodes, a real Node-RED runtime (the test helper).
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { produceSyncs, loadedMsg } = require('../harness/checkpoint-node');

function failbackNode(over = {}) {
  return { id: 'fb', type: 'mm2-failback', name: '', replication: 'rep', groups: '', groupsExclude: '', topics: '', topicsExclude: '', syncGroupOffsetsIntervalSeconds: '', wires: [['out']], ...over };
}
const statusesOf = (n) => n.status.getCalls().filter((c) => c.thisValue === n).map((c) => c.args[0]);
const logsOf = (n, method) => n[method].getCalls().filter((c) => c.thisValue === n).map((c) => String(c.args[0]));

describe('mm2-failback with nothing wired to its input', function () {
  this.timeout(60000);
  before(() => nodes.startServer());
  after(() => nodes.stopServer());
  afterEach(() => nodes.helper.unload());

  it('takes the offset syncs from its replication flow and runs its first cycle: no "not wired" status or warning', async function () {
    // a target alias of its own: an offset-syncs topic of its own (mm2-offset-syncs.<alias>.internal on the source)
    const alias = env.unique('fbnw');
    await produceSyncs(`mm2-offset-syncs.${alias}.internal`, [[env.unique('fbt'), 0, 10, 7]]);
    await nodes.load([failbackNode({ id: 'fb1', wires: [['out']] }), { id: 'out', type: 'helper' }], { over: { tgt: { alias } } });
    const fb = nodes.helper.getNode('fb1');
    const out = nodes.collect(nodes.helper.getNode('out'));
    await env.eventually(() => out.some((m) => m.topic === 'mm2/failback'), { what: `a failback cycle (${statusesOf(fb).map((s) => s.text).join(' | ')})`, timeout: 30000 });
    assert.deepEqual(statusesOf(fb).filter((s) => /not wired/.test(s.text ?? '')), []);
    assert.deepEqual(logsOf(fb, 'warn').filter((w) => /wired/.test(w)), []);
  });

  it('an OffsetSyncsMessage wired in (a flow of an older version) is left aside: no error, a loaded on the wire does not make it run', async function () {
    const alias = env.unique('fbw'); // no offset-syncs topic: the feed waits for it
    await nodes.load([failbackNode({ id: 'fb2' }), { id: 'feed', type: 'helper', wires: [['fb2']] }, { id: 'out', type: 'helper' }], { over: { tgt: { alias } } });
    const fb = nodes.helper.getNode('fb2');
    const out = nodes.collect(nodes.helper.getNode('out'));
    await env.eventually(() => statusesOf(fb).some((s) => /^waiting for the offset syncs of /.test(s.text ?? '')), { what: 'the waiting status' });
    nodes.helper.getNode('feed').send(loadedMsg);
    await env.eventually(() => logsOf(fb, 'log').some((l) => /left aside/.test(l)), { what: 'the log says the message was left aside' });
    assert.deepEqual(logsOf(fb, 'error'), [], 'not refused');
    assert.equal(statusesOf(fb).at(-1).fill, 'grey', 'still waiting for the syncs of its own topic');
    assert.match(statusesOf(fb).at(-1).text, new RegExp(`^waiting for the offset syncs of mm2-offset-syncs\\.${alias}\\.internal`));
    assert.deepEqual(out, [], 'no cycle ran');
  });
});
