'use strict';
// Tests against two real Kafka clusters started by the root hooks.
// TEST_FILES=test/integration/x.test.js,... runs only those files (still with the clusters).
const { DEFAULT_KAFKA_VERSION } = require('../scripts/kafka/cluster');
const { ONCE_FILES } = require('../scripts/test-matrix');

module.exports = {
  // The suites that deploy the full failover example (its mirror copies every topic; node-red-package
  // deploys every example, that one too) run first, while the clusters hold no other suite's
  // topics; mocha drops the repeats of the glob.
  spec: process.env.TEST_FILES
    ? process.env.TEST_FILES.split(',')
    : ['test/integration/failover-e2e.test.js', 'test/integration/browser.test.js', 'test/integration/node-red-package.test.js', 'test/integration/**/*.test.js'],
  // What does not depend on the broker's version (scripts/test-matrix.js ONCE_FILES: the editor, the
  // demo's processes, the runtime's language, ...) runs on the default version only: on the others
  // the whole suite runs without those files (TEST_FILES still runs any file).
  ignore: !process.env.TEST_FILES && (process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION) !== DEFAULT_KAFKA_VERSION ? ONCE_FILES : [],
  require: ['test/harness/hooks.js'],
  timeout: 60000,
  slow: 5000,
  reporter: 'test/harness/spec-with-times.js',
  exit: true,
};
