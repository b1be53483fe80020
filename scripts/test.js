'use strict';
/**
 * The whole test run, as CI does it (called by `npm test`, after the build):
 *   1. unit tests (pure logic, no broker)
 *   2. the package test (npm pack, npm install into a fresh Node-RED user directory, a real
 *      Node-RED; no broker, so once, not once per Kafka version)
 *   3. integration tests against two real Kafka clusters, once per Kafka version in
 *      KAFKA_VERSIONS (comma-separated; default: every version in TESTED_KAFKA_VERSIONS)
 * Prints one closing line `N passed, N failed, N skipped` over all runs and exits non-zero
 * on any failure. TEST_SUITES (comma-separated: unit, package, integration) runs those only.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { TESTED_KAFKA_VERSIONS, resolveKafka } = require('./kafka/cluster');

const root = path.join(__dirname, '..');
const mochaBin = require.resolve('mocha/bin/mocha.js');

function runMocha(config, extraEnv, label) {
  return new Promise((resolve) => {
    process.stdout.write(`\n=== ${label} ===\n`);
    const child = spawn(process.execPath, [mochaBin, '--config', config], {
      cwd: root,
      env: { ...process.env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.on('exit', (code) => {
      const num = (re) => {
        const m = out.match(re);
        return m ? Number(m[1]) : 0;
      };
      const passed = num(/^\s*(\d+) passing/m);
      const failed = num(/^\s*(\d+) failing/m);
      const skipped = num(/^\s*(\d+) pending/m);
      // a crash before the summary counts as a failure
      resolve({ label, passed, failed: failed || (code !== 0 ? Math.max(1, failed) : 0), skipped, code });
    });
  });
}

async function main() {
  const suites = (process.env.TEST_SUITES || 'unit,package,integration').split(',');
  const versions = (process.env.KAFKA_VERSIONS || TESTED_KAFKA_VERSIONS.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
  const results = [];
  const t0 = Date.now();
  if (suites.includes('unit')) results.push(await runMocha('test/.mocharc.unit.js', {}, 'unit tests'));
  if (suites.includes('package')) results.push(await runMocha('test/.mocharc.package.js', {}, 'package test'));
  if (suites.includes('integration')) {
    for (const v of versions) {
      resolveKafka(v); // fails loudly here, before mocha, if Maven or Java is missing
      results.push(await runMocha('test/.mocharc.integration.js', { KAFKA_VERSION: v }, `integration tests, Apache Kafka ${v}`));
    }
  }
  const total = results.reduce((a, r) => ({ passed: a.passed + r.passed, failed: a.failed + r.failed, skipped: a.skipped + r.skipped }), { passed: 0, failed: 0, skipped: 0 });
  console.log('\n=== summary ===');
  for (const r of results) console.log(`${r.label}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`);
  console.log(`total time: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  process.exit(total.failed > 0 || total.passed === 0 ? 1 : 0);
}

main().catch((e) => {
  console.error(e.stack || e.message);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
