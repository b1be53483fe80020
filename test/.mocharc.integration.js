'use strict';
// Tests against two real Kafka clusters started by the root hooks.
module.exports = {
  spec: ['test/integration/**/*.test.js'],
  require: ['test/harness/hooks.js'],
  timeout: 60000,
  slow: 5000,
  reporter: 'spec',
  exit: true,
};
