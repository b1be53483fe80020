'use strict';
// Tests against two real Kafka clusters started by the root hooks.
// TEST_FILES=test/integration/x.test.js,... runs only those files (still with the clusters).
const { DEFAULT_KAFKA_VERSION } = require('../scripts/kafka/cluster');

module.exports = {
  // The suites that deploy the full failover example (its mirror copies every topic; node-red-package
  // deploys every example, that one too) run first, while the clusters hold no other suite's
  // topics; mocha drops the repeats of the glob.
  spec: process.env.TEST_FILES
    ? process.env.TEST_FILES.split(',')
    : ['test/integration/failover-e2e.test.js', 'test/integration/browser.test.js', 'test/integration/node-red-package.test.js', 'test/integration/**/*.test.js'],
  // The editor in Chromium, the demo's process handling, the runtime's language and the statuses
  // across redeploys of a whole example do not depend on the broker's version: on the other Kafka
  // versions the whole suite runs without them (TEST_FILES still runs any file).
  ignore: !process.env.TEST_FILES && (process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION) !== DEFAULT_KAFKA_VERSION
    ? ['test/integration/browser.test.js', 'test/integration/connect-export-editor.test.js', 'test/integration/demo-stop.test.js', 'test/integration/runtime-zh-cn.test.js', 'test/integration/redeploy-statuses.test.js']
    : [],
  require: ['test/harness/hooks.js'],
  timeout: 60000,
  slow: 5000,
  reporter: 'spec',
  exit: true,
};
