'use strict';
/** A node's status: connection states beside its own activity. */
const assert = require('node:assert/strict');
const { StatusReporter } = require('../../dist/nodes/shared/flow-node');

function reporter(t) {
  const shown = [];
  const node = { id: 'n1', status: (s) => shown.push(s) };
  return { shown, status: new StatusReporter(/** @type {any} */ (node), t) };
}

describe('StatusReporter', function () {
  it('a connected cluster alone is not green: the node has not said it does its job', function () {
    const { shown, status } = reporter();
    status.connectionStateFor('target')({ state: 'connected' });
    assert.deepEqual(shown.at(-1), { fill: 'grey', shape: 'dot', text: 'connected' });
    status.activity({ fill: 'green', shape: 'dot', text: '3 groups' });
    assert.equal(shown.at(-1).fill, 'green');
  });

  it('connecting is yellow, an error red and before the node\'s own status', function () {
    const { shown, status } = reporter();
    status.connectionStateFor('source')({ state: 'connecting' });
    assert.equal(shown.at(-1).fill, 'yellow');
    status.activity({ fill: 'green', shape: 'dot', text: 'ok' });
    status.connectionStateFor('source')({ state: 'error', error: 'refused' });
    assert.deepEqual(shown.at(-1), { fill: 'red', shape: 'ring', text: 'source: refused' });
  });

  it('words the connection states with the node\'s catalog (a text, never a key the editor must resolve)', function () {
    const { shown, status } = reporter((key) => ({ 'mm2-common.status.connecting': '连接中', 'mm2-common.status.connected': '已连接' })[key]);
    status.connectionStateFor('source')({ state: 'connecting' });
    assert.deepEqual(shown.at(-1), { fill: 'yellow', shape: 'ring', text: '连接中' });
    status.connectionStateFor('source')({ state: 'connected' });
    assert.deepEqual(shown.at(-1), { fill: 'grey', shape: 'dot', text: '已连接' });
  });
});
