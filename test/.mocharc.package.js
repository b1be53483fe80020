'use strict';
// The package as a Node-RED user installs it (npm pack, npm install into a fresh user directory,
// a real Node-RED): no broker, so it runs once per test run, not once per Kafka version.
module.exports = {
  spec: ['test/package/**/*.test.js'],
  timeout: 240000,
  slow: 30000,
  reporter: 'spec',
  exit: true,
};
