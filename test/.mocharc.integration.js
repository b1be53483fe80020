'use strict';
// Tests against two real Kafka clusters started by the root hooks.
// TEST_FILES=test/integration/x.test.js,... runs only those files (still with the clusters).
module.exports = {
  // The suites that deploy the full failover example (its mirror copies every topic; node-red-package
  // deploys every example, that one too) run first, while the clusters hold no other suite's
  // topics; mocha drops the repeats of the glob.
  spec: process.env.TEST_FILES
    ? process.env.TEST_FILES.split(',')
    : ['test/integration/failover-e2e.test.js', 'test/integration/browser.test.js', 'test/integration/node-red-package.test.js', 'test/integration/**/*.test.js'],
  require: ['test/harness/hooks.js'],
  timeout: 60000,
  slow: 5000,
  reporter: 'spec',
  exit: true,
};
