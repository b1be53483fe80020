'use strict';
// Pure-logic tests: no broker, milliseconds each.
module.exports = {
  spec: ['test/unit/**/*.test.js'],
  timeout: 5000,
  reporter: 'spec',
};
