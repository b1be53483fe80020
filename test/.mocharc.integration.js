'use strict';
// Tests against two real Kafka clusters started by the root hooks.
// TEST_FILES=test/integration/x.test.js,... runs only those files (still with the clusters).
module.exports = {
  spec: process.env.TEST_FILES ? process.env.TEST_FILES.split(',') : ['test/integration/**/*.test.js'],
  require: ['test/harness/hooks.js'],
  timeout: 60000,
  slow: 5000,
  reporter: 'spec',
  exit: true,
};
