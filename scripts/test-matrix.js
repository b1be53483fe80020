'use strict';
/**
 * What the whole run (scripts/test.js) runs on which Kafka version and on which Node-RED.
 *
 * Every integration file runs on the default version (DEFAULT_KAFKA_VERSION, the newest Kafka the
 * repository serves). A file runs on other versions only when what it tests can change with the
 * broker: the Kafka protocol and the records of `__consumer_offsets` (group and offset requests,
 * the commit stream, KIP-848 groups), authorizers and SASL, MirrorMaker 2 of that line as the peer.
 * What cannot change with the broker runs once: the editor, the demo's processes, the runtime's
 * language, Node-RED's deploy life cycle, settings refused before any broker is asked, scale runs,
 * the nodes' failure paths and drills (the whole run stays within CI's time).
 */
const { DEFAULT_KAFKA_VERSION } = require('./kafka/cluster');

const f = (name) => `test/integration/${name}.test.js`;

/** The Kafka protocol and MM2 of a line: run on every tested version. */
const PROTOCOL_FILES = [
  'failover-e2e',
  'event-pipeline-e2e',
  'source-commit-stream',
  'checkpoint-event-path',
  'checkpoint-polling-fallback',
  'group-requests',
  'kafka-adapter',
  'conformance-mm2-checkpoints',
  'conformance-mm2-source',
  'kip848-failover',
  'group-types',
  'share-membership',
].map(f);

/** Files that run once, on the default version only (nothing in them depends on the broker's version). */
const ONCE_FILES = [
  'browser',
  'connect-export-editor',
  'demo-stop',
  'runtime-zh-cn',
  'redeploy-statuses',
  'build-flow',
  'settings-refused',
  'quiet-logs',
  'scale-10k-groups',
  'config-nodes',
].map(f);

/** The oldest supported line: the protocol files and what else the broker's version can change
 * (authorizers, SASL and OAUTHBEARER, TLS, topic configs and ACLs the mirror copies), and the
 * files beside MM2 of that line (its replication policies, its group-offset sync after a rewind
 * and where its source connector keeps its progress). */
const OLDEST_LINE = '3.9.1';
const OLDEST_LINE_FILES = [
  ...PROTOCOL_FILES,
  ...['acl-per-node', 'oauthbearer', 'harness-security', 'tls-config-refused', 'mm2-mirror', 'mirror-topic-sync', 'conformance-mm2-policies', 'conformance-mm2-rewind-resume'].map(f),
];

/**
 * The integration runs: `files` null is every file.
 * @type {{ version: string, files: string[] | null }[]}
 */
const KAFKA_MATRIX = [
  { version: DEFAULT_KAFKA_VERSION, files: null },
  { version: OLDEST_LINE, files: OLDEST_LINE_FILES },
  { version: '4.1.1', files: PROTOCOL_FILES },
  { version: '4.2.2', files: PROTOCOL_FILES },
];

/** The Node-RED 5 run (Kafka DEFAULT_KAFKA_VERSION): every node type and every example's end-to-end path at least once. */
const NODE_RED_5_FILES = [
  // the failover suites first, as in the integration run, while the clusters hold no other suite's topics
  'failover-e2e', // full-failover: mm2-cluster, mm2-replication, mirror, offset syncs, checkpoint, group offsets, heartbeat
  'browser', // the editor, the readiness-dashboard example in FlowFuse Dashboard 2.0
  'node-red-package', // every node type registers, every example deploys
  'failback-e2e', // failback: mm2-failback
  'planned-switchover', // planned-switchover
  'active-active', // active-active: two replications in one flow
  'conformance-mm2-source', // checkpoints-beside-mm2: our checkpoints on a real MM2 source connector's syncs
  'mm2-connect', // deploy-to-kafka-connect: mm2-connect against a real Kafka Connect worker
].map(f);

/**
 * The default version's files that scripts/test.js runs in its second lane (after the other runs
 * there), as a run of their own with its own clusters, so that the two lanes end together: long
 * files that start clusters of their own anyway (measured 2026-12-04: acl-per-node 179 s,
 * oauthbearer 124 s, conformance-mm2-active-active 88 s of the 4.4.0 run's 38 min; the second lane
 * ended about 8 minutes before the first). With one lane they stay in the default version's run.
 */
const SECOND_LANE_FILES = ['acl-per-node', 'oauthbearer', 'conformance-mm2-active-active'].map(f);

/**
 * The files of the default version's whole run in the order mocha takes them
 * (test/.mocharc.integration.js: the full-failover suites first, then the rest by name).
 * @param {string} root the repository
 * @returns {string[]}
 */
function defaultRunFiles(root) {
  const fs = require('node:fs');
  const path = require('node:path');
  const first = ['failover-e2e', 'browser', 'node-red-package'].map(f);
  const all = fs.readdirSync(path.join(root, 'test', 'integration')).filter((n) => n.endsWith('.test.js')).sort().map((n) => `test/integration/${n}`);
  return [...first, ...all.filter((x) => !first.includes(x))];
}

/** Each example and the test that runs its end-to-end path (all of them in the Node-RED 5 run). */
const EXAMPLE_TESTS = {
  'full-failover.json': f('failover-e2e'),
  'readiness-dashboard.json': f('browser'),
  'failback.json': f('failback-e2e'),
  'planned-switchover.json': f('planned-switchover'),
  'active-active.json': f('active-active'),
  'checkpoints-beside-mm2.json': f('conformance-mm2-source'),
  'deploy-to-kafka-connect.json': f('mm2-connect'),
};

module.exports = { SECOND_LANE_FILES, defaultRunFiles, OLDEST_LINE_FILES, KAFKA_MATRIX, NODE_RED_5_FILES, EXAMPLE_TESTS, PROTOCOL_FILES, ONCE_FILES, OLDEST_LINE };
