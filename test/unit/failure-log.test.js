'use strict';
/**
 * The one mechanism nodes log repeated failures with (nodes/shared/flow-node FailureLog): once per
 * change, not every cycle; and a node replaced by a redeploy neither logs nor shows the failures
 * of its old configuration (its registration with the shared connection is removed, not the one
 * of the node that replaced it under the same id).
 */
const assert = require('node:assert/strict');
const { EventEmitter } = require('node:events');
const { FailureLog, setupFlowNode } = require('../../dist/nodes/shared/flow-node');
const { ClusterConnection } = require('../../dist/kafka/connection');

/**
 * @typedef {import('../../dist/nodes/shared/red').Node & EventEmitter & {
 *   logged: Array<[string, unknown]>, statuses: Array<import('../../dist/nodes/shared/red').NodeStatus>
 * }} FakeNode
 */

/** @returns {FakeNode} */
function fakeNode(id = 'n1') {
  const node = /** @type {FakeNode} */ (/** @type {unknown} */ (new EventEmitter()));
  node.id = id;
  node.logged = [];
  node.statuses = [];
  node.warn = (m) => node.logged.push(['warn', m]);
  node.error = (m) => node.logged.push(['error', m]);
  node.debug = () => undefined;
  node.log = () => undefined;
  node.status = (s) => node.statuses.push(s);
  return node;
}

function close(node) {
  return new Promise((resolve) => node.emit('close', false, resolve));
}

describe('FailureLog: a failure is logged once per change', function () {
  it('the same failure every cycle is logged once; numbers in it do not make it new; another text is logged', function () {
    const node = fakeNode();
    const log = new FailureLog(node);
    for (let i = 0; i < 5; i++) log.error('cycle', `checkpoint cycle failed: connection refused after ${300 + i * 7} ms`);
    assert.deepEqual(node.logged, [['error', 'checkpoint cycle failed: connection refused after 300 ms']]);
    log.error('cycle', 'checkpoint cycle failed: not authorized');
    log.warn('topic', 'cannot create the topic');
    log.warn('topic', 'cannot create the topic');
    assert.equal(node.logged.length, 3);
  });

  it('after ok() the same failure is logged again; a lasting one again after the reminder period', function () {
    let now = 0;
    const node = fakeNode();
    const log = new FailureLog(node, 1000, () => now);
    assert.equal(log.warn('poll', 'unreachable'), true);
    assert.equal(log.warn('poll', 'unreachable'), false);
    log.ok('poll');
    assert.equal(log.warn('poll', 'unreachable'), true);
    now = 999;
    assert.equal(log.warn('poll', 'unreachable'), false);
    now = 1000;
    assert.equal(log.warn('poll', 'unreachable'), true, 'reminded while it lasts');
  });

  it('limited(): a counter through the core ReportThrottle: at once, then the last text of the period when it ends', async function () {
    const node = fakeNode();
    const log = new FailureLog(node);
    let logged = 0;
    const counted = () => (logged += 1);
    assert.equal(log.limited('malformed', '1 skipped', 30, counted), true);
    assert.equal(log.limited('malformed', '7 skipped', 30, counted), false);
    assert.equal(log.limited('malformed', '9 skipped', 30, counted), false);
    assert.deepEqual(node.logged.map((l) => l[1]), ['1 skipped']);
    for (let i = 0; i < 500 && node.logged.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(node.logged.map((l) => l[1]), ['1 skipped', '9 skipped'], 'the held-back count is not lost');
    assert.equal(logged, 2, 'the caller hears of each warning logged');
  });

  it('after close nothing is logged, also not a held-back counter', async function () {
    const node = fakeNode();
    const log = new FailureLog(node);
    log.limited('malformed', '1 skipped', 20);
    log.limited('malformed', '2 skipped', 20);
    log.close();
    assert.equal(log.warn('x', 'a failure'), false);
    assert.equal(log.limited('malformed', '3 skipped', 20), false);
    // a log that stays open, with the same period started later: once its held-back text is out,
    // the closed one's would have been too
    const ref = fakeNode();
    const open = new FailureLog(ref);
    open.limited('malformed', '1 skipped', 20);
    open.limited('malformed', '2 skipped', 20);
    for (let i = 0; i < 500 && ref.logged.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(ref.logged.length, 2);
    assert.deepEqual(node.logged.map((l) => l[1]), ['1 skipped']);
  });
});

describe('a node replaced by a redeploy', function () {
  // only the slice of the runtime API that setupFlowNode reads
  const RED = /** @type {import('../../dist/nodes/shared/red').NodeAPI} */ (/** @type {unknown} */ ({ nodes: { getNode: () => ({ type: 'mm2-replication', problems: [], policy: {}, sourceNode: { problems: [] }, targetNode: { problems: [] } }) } }));
  const t = (k) => k;

  it('logs and shows nothing of its old configuration once it closes, while its close work still runs', async function () {
    const conn = new ClusterConnection({ alias: 'tgt', bootstrapServers: ['127.0.0.1:1'] });
    const node = fakeNode();
    const ctx = setupFlowNode(RED, node, 'rep', t);
    ctx.use(conn);
    /** @type {() => void} */
    let finishClose;
    ctx.onClose(() => new Promise((r) => (finishClose = r))); // e.g. a consumer that takes its time to stop
    conn.reportError(new Error('connect ECONNREFUSED 127.0.0.1:1'));
    assert.match(node.statuses.at(-1).text, /connection refused/);
    const closed = close(node);
    const shown = node.statuses.length;
    conn.reportError(new Error('SASL PLAIN authentication failed'));
    ctx.status.fail('checkpoint cycle failed');
    assert.equal(ctx.log.error('cycle', 'checkpoint cycle failed: connection refused'), false);
    assert.equal(node.statuses.length, shown, 'no status after close');
    assert.deepEqual(node.logged, [], 'no log after close');
    await new Promise((r) => setImmediate(r)); // the close work started
    finishClose();
    await closed;
    assert.deepEqual(node.statuses.at(-1), {}, 'the status is cleared when the close is done');
  });

  it('its late deregistration leaves the registration of the node that replaced it (same id)', async function () {
    const conn = new ClusterConnection({ alias: 'tgt', bootstrapServers: ['127.0.0.1:1'] });
    const oldNode = fakeNode('same');
    const oldCtx = setupFlowNode(RED, oldNode, 'rep', t);
    oldCtx.use(conn);
    /** @type {() => void} */
    let finishClose;
    oldCtx.onClose(() => new Promise((r) => (finishClose = r)));
    const closed = close(oldNode);
    // the close timed out for Node-RED: the new node (same id) starts before the old one is done
    const newNode = fakeNode('same');
    const newCtx = setupFlowNode(RED, newNode, 'rep', t);
    newCtx.use(conn);
    await new Promise((r) => setImmediate(r)); // the close work started
    finishClose();
    await closed;
    assert.equal(conn.userCount, 1, 'the new node is still registered');
    const before = newNode.statuses.length;
    conn.reportError(new Error('connect ECONNREFUSED 127.0.0.1:1'));
    assert.equal(newNode.statuses.length, before + 1, 'and sees the connection state');
    assert.match(newNode.statuses.at(-1).text, /connection refused/);
    await close(newNode);
    assert.equal(conn.userCount, 0);
  });
});

describe('a flow node pointed at another config node', function () {
  it('an mm2-cluster chosen as its replication flow: the status and the error name the node, its type and what to choose', function () {
    const cluster = { id: 'c1', type: 'mm2-cluster', name: 'east', alias: 'east', problems: [] };
    const RED = /** @type {import('../../dist/nodes/shared/red').NodeAPI} */ (/** @type {unknown} */ ({ nodes: { getNode: (id) => (id === 'c1' ? cluster : null) } }));
    const t = (k, subs) => `${k} ${JSON.stringify(subs ?? {})}`;
    const node = fakeNode();
    assert.equal(setupFlowNode(RED, node, 'c1', t), null);
    const text = 'mm2-common.errors.not-replication {"node":"east","type":"mm2-cluster"}';
    assert.deepEqual(node.logged, [['error', text]]);
    assert.equal(node.statuses.at(-1).fill, 'red');
    // the status holds what fits (60 characters), the log the whole text
    assert.ok(text.startsWith(node.statuses.at(-1).text.replace(/…$/, '')), node.statuses.at(-1).text);
  });
});
