'use strict';
/**
 * Mocha root hooks for the integration suites: two real single-node KRaft Kafka clusters,
 * `source` and `target`, started once per test run from Kafka's own jars
 * (scripts/kafka/cluster.js) and stopped at the end, also when tests fail.
 * Tests reach them through `require('../harness/env')`.
 */
const { startClusters, STOP_WAIT_ARCHIVE_MS } = require('../../scripts/kafka/cluster');
const env = require('./env');

exports.mochaHooks = {
  async beforeAll() {
    this.timeout(240000);
    const clusters = await startClusters(['source', 'target']);
    env.setClusters(clusters);
  },
  async afterAll() {
    // the two brokers stop at once; on a Kafka version's first run each writes its class archive
    // at exit, which the harness allows STOP_WAIT_ARCHIVE_MS: the hook allows that and the clients' closing
    this.timeout(STOP_WAIT_ARCHIVE_MS + 20000);
    await env.stopAll();
  },
};
