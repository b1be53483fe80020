'use strict';
/**
 * Mocha's spec reporter, and after its summary the wall time of each test file (its hooks
 * included), slowest first: what the run's time is made of, to decide what runs once and what
 * once per Kafka version (scripts/test.js). The lines never read "N passing".
 */
const Mocha = require('mocha');
const path = require('node:path');

const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_RUN_END } = Mocha.Runner.constants;

class SpecWithTimes extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    /** @type {Map<string, number>} file -> milliseconds */
    const times = new Map();
    /** @type {Map<object, number>} */
    const started = new Map();
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent && suite.parent.root) started.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const t0 = started.get(suite);
      if (t0 === undefined) return;
      started.delete(suite);
      const file = path.relative(process.cwd(), suite.file);
      times.set(file, (times.get(file) || 0) + Date.now() - t0);
    });
    runner.once(EVENT_RUN_END, () => {
      if (!times.size) return;
      const rows = [...times].sort((a, b) => b[1] - a[1]);
      const total = rows.reduce((a, [, ms]) => a + ms, 0);
      process.stdout.write(`  time per file (${(total / 1000).toFixed(0)} s in files):\n`);
      for (const [file, ms] of rows) process.stdout.write(`    ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}\n`);
      process.stdout.write('\n');
    });
  }
}

module.exports = SpecWithTimes;
