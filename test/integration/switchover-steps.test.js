'use strict';
/**
 * The steps of a planned switchover in each node (node-red-node-test-helper, real brokers): what
 * mm2-heartbeat adds and where it sends it, and the requests mm2-checkpoint and
 * mm2-group-offsets refuse (with the message, so a Catch node sees them). The whole switchover
 * runs in planned-switchover.test.js.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');

describe('planned switchover: the steps in each node', function () {
  this.timeout(60000);
  before(() => nodes.startServer());
  after(() => nodes.stopServer());
  afterEach(() => nodes.helper.unload());

  /** The errors a node ended messages with: [text, msg]. */
  function errorsOf(node) {
    const errors = [];
    node.on('call:error', (c) => errors.push([String(c.args[0]).replace(/^Error: /, ''), c.args[1]]));
    return errors;
  }

  it('mm2-heartbeat adds the heartbeat state and passes the request on as it came, on output 2 only (not watching: watched false)', async function () {
    const alias = env.unique('hbso');
    await nodes.load([
      { id: 'hb', type: 'mm2-heartbeat', replication: 'rep', emitHeartbeatsEnabled: true, emitHeartbeatsIntervalSeconds: '3600', watch: false, staleAfterSeconds: '30', wires: [['out1'], ['out2']] },
      { id: 'out1', type: 'helper' },
      { id: 'out2', type: 'helper' },
    ], { over: { src: { alias } } });
    const out1 = nodes.collect(nodes.helper.getNode('out1'));
    const out2 = nodes.collect(nodes.helper.getNode('out2'));
    nodes.helper.getNode('hb').receive({ action: 'switchover', groups: ['g'], payload: 'go', _msgid: 's1' });
    await env.eventually(() => out2.length === 1, { what: 'the request on output 2' });
    const m = out2[0];
    assert.equal(m._msgid, 's1');
    assert.deepEqual(m.groups, ['g']);
    assert.equal(m.payload, 'go', 'the request is passed on as it came');
    assert.deepEqual(m.switchover.heartbeat, { watched: false, lastSeen: null, ageMs: null, staleAfterMs: 30000, topic: `${alias}.heartbeats` });
    assert.equal(out1.length, 0);
  });

  it('mm2-checkpoint refuses msg.groups that is no array of group ids, naming the field', async function () {
    await nodes.load([{ id: 'cp', type: 'mm2-checkpoint', replication: 'rep', groups: `${env.unique('none')}-.*`, emitCheckpointsIntervalSeconds: '3600', wires: [['out'], []] }, { id: 'out', type: 'helper' }]);
    const cp = nodes.helper.getNode('cp');
    const errors = errorsOf(cp);
    const out = nodes.collect(nodes.helper.getNode('out'));
    cp.receive({ action: 'switchover', groups: 'orders-app', _msgid: 's2' });
    await env.eventually(() => errors.length > 0, { what: 'done(err)' });
    assert.equal(errors[0][0], 'msg.groups must be an array of group ids (or absent: every selected group)');
    assert.equal(errors[0][1]._msgid, 's2', 'reported with the message, so a Catch node sees it');
    // the refused request goes no further (the node's own cycle reports may come out at any time)
    assert.deepEqual(out.filter((m) => m._msgid === 's2' || m.action === 'switchover'), [], JSON.stringify(out.map((m) => m.topic)));
  });

  it('mm2-group-offsets refuses a switchover request that carries no plan, and syncs nothing for it', async function () {
    await nodes.load([{ id: 'go', type: 'mm2-group-offsets', replication: 'rep', mode: 'input', syncGroupOffsetsIntervalSeconds: '3600', groups: `${env.unique('none')}-.*`, wires: [['out']] }, { id: 'out', type: 'helper' }]);
    const go = nodes.helper.getNode('go');
    const errors = errorsOf(go);
    const out = nodes.collect(nodes.helper.getNode('out'));
    go.receive({ action: 'switchover', payload: { latest: {}, full: true }, _msgid: 's3' });
    await env.eventually(() => errors.length > 0, { what: 'done(err)' });
    assert.match(errors[0][0], /^switchover: the message carries no plan \(msg\.switchover\.plan\)/);
    assert.equal(errors[0][1]._msgid, 's3');
    assert.equal(out.length, 0);
  });
});
