'use strict';
/**
 * mm2-failback with nothing wired to its input (issue 26, hostile configuration trial): it used to
 * wait grey for ever ("waiting for the offset syncs"); it now says what to wire, in its status and
 * in a warning. Real clusters behind the config nodes, a real Node-RED runtime (the test helper).
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');

function failbackNode(over = {}) {
  return { id: 'fb', type: 'mm2-failback', name: '', replication: 'rep', groups: '', groupsExclude: '', topics: '', topicsExclude: '', syncGroupOffsetsIntervalSeconds: '', wires: [[]], ...over };
}

describe('mm2-failback with nothing wired to its input', function () {
  this.timeout(60000);
  before(() => nodes.startServer());
  after(() => nodes.stopServer());
  afterEach(() => nodes.helper.unload());

  it('says in its status (yellow) and a warning that no node is wired in, and what to wire', async function () {
    const alias = env.unique('fbnw');
    const warns = [];
    await nodes.load([failbackNode({ id: 'fb1' })], { over: { src: { alias } } });
    const logs = nodes.helper.log();
    const fb = nodes.helper.getNode('fb1');
    const statuses = () => fb.status.getCalls().filter((c) => c.thisValue === fb).map((c) => c.args[0]);
    await env.eventually(() => statuses().some((s) => s.text === 'not wired: wire mm2-offset-syncs to the input'), { what: `the not-wired status (${statuses().map((s) => s.text).join(' | ')})` });
    const last = statuses().at(-1);
    assert.deepEqual([last.fill, last.text], ['yellow', 'not wired: wire mm2-offset-syncs to the input']);
    for (const c of logs.getCalls()) if (c.args[0] && c.args[0].level === 30 && c.args[0].id === 'fb1') warns.push(String(c.args[0].msg));
    const warning = warns.find((w) => /nothing is wired to this node's input/.test(w));
    assert.ok(warning, `a warning: ${warns.join('\n')}`);
    assert.match(warning, new RegExp(`offset syncs of mm2-offset-syncs\\.target\\.internal never arrive .*wire the mm2-offset-syncs node of the same replication flow to its input`));
  });

  it('a node wired to its input: the plain wait for the offset syncs (grey), no warning', async function () {
    const alias = env.unique('fbw');
    await nodes.load([failbackNode({ id: 'fb2' }), { id: 'feed', type: 'helper', wires: [['fb2']] }], { over: { src: { alias } } });
    const logs = nodes.helper.log();
    const fb = nodes.helper.getNode('fb2');
    const statuses = () => fb.status.getCalls().filter((c) => c.thisValue === fb).map((c) => c.args[0]);
    await env.eventually(() => statuses().some((s) => /^waiting for the offset syncs of /.test(s.text ?? '')), { what: 'the waiting status' });
    assert.equal(statuses().find((s) => /^waiting for/.test(s.text ?? '')).fill, 'grey');
    assert.deepEqual(statuses().filter((s) => /not wired/.test(s.text ?? '')), []);
    assert.deepEqual(logs.getCalls().filter((c) => c.args[0] && c.args[0].id === 'fb2' && /nothing is wired/.test(String(c.args[0].msg))), []);
  });
});
