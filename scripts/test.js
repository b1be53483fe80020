'use strict';
/**
 * The whole test run, as CI does it (called by `npm test`, after the build):
 *   1. unit tests (pure logic, no broker)
 *   2. the package test (npm pack, npm install into a fresh Node-RED user directory, a real
 *      Node-RED; no broker, so once, not once per Kafka version)
 *   3. integration tests against two real Kafka clusters, by KAFKA_MATRIX below: every file on the
 *      default version (the newest Kafka the repository serves); on the oldest supported line every
 *      file whose behaviour can depend on the broker; on the lines between, the files that test
 *      the broker's protocol and MirrorMaker 2 of that line. What does not depend on the version
 *      (the editor, the demo, the runtime's language, settings refused before any broker is asked)
 *      runs once. KAFKA_VERSIONS (comma-separated) instead runs every file once per version given.
 *   4. the files of NODE_RED_5_FILES once more, on Node-RED 5 run by Node.js 22 (mocha too runs on
 *      that Node.js), both installed into a private prefix by scripts/node-red-5.js (installed there
 *      when missing; when they cannot be, the run fails, it is never skipped), Kafka DEFAULT_KAFKA_VERSION
 * Prints one closing line `N passed, N failed, N skipped` over all runs and exits non-zero
 * on any failure. TEST_SUITES (comma-separated: unit, package, integration, node-red-5; default all
 * four) picks the runs, e.g. TEST_SUITES=node-red-5 runs the Node-RED 5 run only.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { DEFAULT_KAFKA_VERSION, resolveKafka } = require('./kafka/cluster');
const { mm2VersionFor } = require('./kafka/connect');
const { KAFKA_MATRIX } = require('./test-matrix');
const { ensureNodeRed5, NODE_RED_VERSION, NODE_VERSION } = require('./node-red-5');

const { NODE_RED_5_FILES } = require('./test-matrix');

const root = path.join(__dirname, '..');
const mochaBin = require.resolve('mocha/bin/mocha.js');

function runMocha(config, extraEnv, label, node = process.execPath) {
  return new Promise((resolve) => {
    process.stdout.write(`\n=== ${label} ===\n`);
    const child = spawn(node, [mochaBin, '--config', config], {
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
  const SUITES = ['unit', 'package', 'integration', 'node-red-5'];
  const suites = (process.env.TEST_SUITES || SUITES.join(',')).split(',').map((s) => s.trim());
  const unknown = suites.filter((s) => !SUITES.includes(s));
  if (unknown.length) throw new Error(`TEST_SUITES: unknown ${unknown.join(', ')} (use ${SUITES.join(', ')})`);
  const matrix = process.env.KAFKA_VERSIONS
    ? process.env.KAFKA_VERSIONS.split(',').map((s) => s.trim()).filter(Boolean).map((version) => ({ version, files: null }))
    : KAFKA_MATRIX;
  const results = [];
  const t0 = Date.now();
  if (suites.includes('unit')) results.push(await runMocha('test/.mocharc.unit.js', {}, 'unit tests'));
  if (suites.includes('package')) results.push(await runMocha('test/.mocharc.package.js', {}, 'package test'));
  if (suites.includes('integration')) {
    for (const { version, files } of matrix) {
      resolveKafka(version); // fails loudly here, before mocha, if Maven or Java is missing
      const mm2 = mm2VersionFor(version);
      const what = files ? `${files.length} files` : 'every file';
      results.push(await runMocha('test/.mocharc.integration.js', {
        KAFKA_VERSION: version,
        ...(files ? { TEST_FILES: files.join(',') } : {}),
      }, `integration tests, Apache Kafka ${version} (MirrorMaker 2 ${mm2}; ${what})`));
    }
  }
  if (suites.includes('node-red-5')) {
    const label = `Node-RED ${NODE_RED_VERSION} on Node.js ${NODE_VERSION}, Apache Kafka ${DEFAULT_KAFKA_VERSION} (${NODE_RED_5_FILES.length} files)`;
    let nr5;
    try {
      resolveKafka(DEFAULT_KAFKA_VERSION);
      nr5 = ensureNodeRed5();
    } catch (e) {
      // no Node-RED 5 or no Node.js 22 is a failed run, never a skipped one
      process.stdout.write(`\n=== ${label} ===\nFAILED: cannot install what this run needs: ${e.message}\n`);
      results.push({ label, passed: 0, failed: 1, skipped: 0, code: 1 });
    }
    if (nr5) {
      results.push(await runMocha('test/.mocharc.integration.js', {
        KAFKA_VERSION: DEFAULT_KAFKA_VERSION,
        TEST_FILES: NODE_RED_5_FILES.join(','),
        MM2_NODE_RED_DIR: nr5.nodeRedDir,
        MM2_NODE_BIN: nr5.node,
        // the README's screenshots stay those of the main run; this run's go beside the other test output
        MM2_SCREENSHOT_DIR: path.join(root, 'test-results', 'node-red-5'),
      }, label, nr5.node));
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
