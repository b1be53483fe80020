'use strict';
/**
 * Mocha root hooks for the integration suites: two real single-node KRaft Kafka clusters,
 * `source` and `target`, started once per test run from Kafka's own jars
 * (scripts/kafka/cluster.js) and stopped at the end, also when tests fail.
 * Tests reach them through `require('../harness/env')`.
 */
const { startClusters } = require('../../scripts/kafka/cluster');
const env = require('./env');

exports.mochaHooks = {
  async beforeAll() {
    this.timeout(240000);
    const clusters = await startClusters(['source', 'target']);
    env.setClusters(clusters);
  },
  async afterAll() {
    this.timeout(30000);
    await env.stopAll();
  },
};
