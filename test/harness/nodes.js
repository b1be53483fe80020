'use strict';
/**
 * Node-RED test-helper glue for our nodes: loads the compiled node modules and builds the
 * config nodes (two mm2-cluster nodes pointing at the real test clusters, one mm2-replication)
 * that every flow-node test needs.
 *
 *   const nodes = require('../harness/nodes');
 *   await nodes.load([{ id: 'cp', type: 'mm2-checkpoint', replication: 'rep', wires: [['out']] }, { id: 'out', type: 'helper' }]);
 *   const cp = nodes.helper.getNode('cp');
 */
const path = require('node:path');
const helper = require('node-red-node-test-helper');
const env = require('./env');
const { selectedNodeRed } = require('../../scripts/node-red-5');

// the Node-RED of node_modules, or the one MM2_NODE_RED_DIR points at (scripts/node-red-5.js)
helper.init(require.resolve(selectedNodeRed().nodeRedDir), {
  // fast close timeout so a node that misses `done` fails the test instead of hanging it
  nodeCloseTimeout: 10000,
  logging: { console: { level: process.env.NODE_RED_LOG || 'off' } },
});

const root = path.join(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
/** Every node module of the package, as Node-RED would load them. */
const modules = Object.values(pkg['node-red'].nodes).map((p) => require(path.join(root, p)));

/**
 * Config nodes for the two test clusters and one replication flow (id 'rep'). `over` overrides fields.
 * @param {{ src?: object, tgt?: object, rep?: object }} [over]
 */
function configNodes(over = {}) {
  return [
    { id: 'src', type: 'mm2-cluster', alias: 'source', bootstrap: env.cluster('source').bootstrap, saslMechanism: 'none', ...(over.src || {}) },
    { id: 'tgt', type: 'mm2-cluster', alias: 'target', bootstrap: env.cluster('target').bootstrap, saslMechanism: 'none', ...(over.tgt || {}) },
    { id: 'rep', type: 'mm2-replication', source: 'src', target: 'tgt', policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', offsetTranslation: 'precise', replicationFactor: 1, ...(over.rep || {}) },
  ];
}

/**
 * Loads a flow made of `flowNodes` plus the config nodes.
 * @param {object[]} flowNodes
 * @param {{ over?: { src?: object, tgt?: object, rep?: object }, credentials?: Record<string, object> }} [options]
 */
async function load(flowNodes, { over, credentials } = {}) {
  await helper.load(modules, [...configNodes(over), ...flowNodes], credentials || {});
}

/** Starts the helper's HTTP server once (needed for admin endpoints and the runtime). */
function startServer() {
  return new Promise((resolve) => helper.startServer(resolve));
}
function stopServer() {
  return new Promise((resolve) => helper.stopServer(resolve));
}

/** Collects the messages a helper node receives. */
function collect(node) {
  const msgs = [];
  node.on('input', (msg) => msgs.push(msg));
  return msgs;
}

/** Records every status a node sets (the test helper stubs nothing; we wrap node.status). */
function statuses(node) {
  const list = [];
  const orig = node.status.bind(node);
  node.status = (s) => {
    list.push(s);
    return orig(s);
  };
  return list;
}

module.exports = { helper, modules, configNodes, load, startServer, stopServer, collect, statuses };
