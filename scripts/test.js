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
 * Runs 2-4 go into two lanes side by side (see main(); TEST_LANES=1 runs them one after the other).
 * TEST_DRY_RUN=1 prints which runs go into which lane and runs nothing (the unit tests apart).
 * Prints one closing line `N passed, N failed, N skipped` over all runs and exits non-zero
 * on any failure. TEST_SUITES (comma-separated: unit, package, integration, node-red-5; default all
 * four) picks the runs, e.g. TEST_SUITES=node-red-5 runs the Node-RED 5 run only.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { DEFAULT_KAFKA_VERSION, resolveKafka } = require('./kafka/cluster');
const { mm2VersionFor, resolveConnect } = require('./kafka/connect');
const { KAFKA_MATRIX, SECOND_LANE_FILES, defaultRunFiles } = require('./test-matrix');
const { ensureNodeRed5, NODE_RED_VERSION, NODE_VERSION } = require('./node-red-5');

const { NODE_RED_5_FILES } = require('./test-matrix');

const root = path.join(__dirname, '..');
const mochaBin = require.resolve('mocha/bin/mocha.js');

/**
 * Runs one mocha process. `live` streams its output as it comes; otherwise the output is held and
 * printed as one block when the run ends (a run in the second lane, beside a live one).
 */
function runMocha(config, extraEnv, label, { node = process.execPath, live = true } = {}) {
  return new Promise((resolve) => {
    const header = `\n=== ${label} ===\n`;
    if (live) process.stdout.write(header);
    const started = Date.now();
    const child = spawn(node, [mochaBin, '--config', config], {
      cwd: root,
      env: { ...process.env, ...extraEnv },
      stdio: ['ignore', 'pipe', live ? 'inherit' : 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (live) process.stdout.write(d);
    });
    if (!live) child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      const seconds = (Date.now() - started) / 1000;
      if (!live) {
        process.stdout.write(`${header}(ran beside the run above; its whole output, ${seconds.toFixed(0)} s)\n${out}`);
        if (err) process.stdout.write(`--- its standard error ---\n${err}`);
        process.stdout.write(`=== end of ${label} ===\n`);
      }
      const num = (re) => {
        const m = out.match(re);
        return m ? Number(m[1]) : 0;
      };
      const passed = num(/^\s*(\d+) passing/m);
      const failed = num(/^\s*(\d+) failing/m);
      const skipped = num(/^\s*(\d+) pending/m);
      // a crash before the summary counts as a failure
      resolve({ label, passed, failed: failed || (code !== 0 ? Math.max(1, failed) : 0), skipped, code, seconds });
    });
  });
}

/**
 * The runs after the unit tests go into TEST_LANES lanes (default 2) that run side by side, each
 * with its own two Kafka clusters: lane 1 the default version's whole integration run (the longest,
 * its output live), lane 2 everything else one after the other (the package test, the other
 * versions, Node-RED 5; each run's output printed whole when it ends). The tests wait on conditions,
 * never on time, so two runs on two cores slow each other down without changing a result; the
 * whole run then fits CI's time. TEST_LANES=1 runs everything one after the other, live.
 */
async function main() {
  const SUITES = ['unit', 'package', 'integration', 'node-red-5'];
  const suites = (process.env.TEST_SUITES || SUITES.join(',')).split(',').map((s) => s.trim());
  const unknown = suites.filter((s) => !SUITES.includes(s));
  if (unknown.length) throw new Error(`TEST_SUITES: unknown ${unknown.join(', ')} (use ${SUITES.join(', ')})`);
  const lanesWanted = Number(process.env.TEST_LANES || 2);
  if (!Number.isInteger(lanesWanted) || lanesWanted < 1 || lanesWanted > 2) throw new Error(`TEST_LANES must be 1 or 2 (got ${process.env.TEST_LANES})`);
  const matrix = process.env.KAFKA_VERSIONS
    ? process.env.KAFKA_VERSIONS.split(',').map((s) => s.trim()).filter(Boolean).map((version) => ({ version, files: null }))
    : KAFKA_MATRIX;
  const results = [];
  const t0 = Date.now();
  if (suites.includes('unit')) results.push(await runMocha('test/.mocharc.unit.js', {}, 'unit tests'));

  /** @type {{ label: string, whole?: boolean, last?: boolean, run: (live: boolean) => Promise<any> }[]} */
  const runs = [];
  if (suites.includes('package')) runs.push({ label: 'package test', run: (live) => runMocha('test/.mocharc.package.js', {}, 'package test', { live }) });
  if (suites.includes('integration')) {
    for (const { version, files } of matrix) {
      // everything a run downloads is fetched here, before the lanes start: a failure is loud and
      // early, and two lanes never fill one cache folder at once
      resolveKafka(version); // fails loudly here, before mocha, if Maven or Java is missing
      const mm2 = mm2VersionFor(version);
      resolveConnect(mm2);
      const what = files ? `${files.length} files` : 'every file';
      const label = `integration tests, Apache Kafka ${version} (MirrorMaker 2 ${mm2}; ${what})`;
      if (!files && lanesWanted === 2 && !process.env.KAFKA_VERSIONS && !process.env.TEST_FILES && version === DEFAULT_KAFKA_VERSION) {
        // the default version's whole run in two parts: SECOND_LANE_FILES go to the second lane
        const all = defaultRunFiles(root);
        const second = SECOND_LANE_FILES.filter((x) => all.includes(x));
        const firstPart = all.filter((x) => !second.includes(x));
        const label1 = `integration tests, Apache Kafka ${version} (MirrorMaker 2 ${mm2}; every file but ${second.length}: ${firstPart.length} files)`;
        const label2 = `integration tests, Apache Kafka ${version} (MirrorMaker 2 ${mm2}; the other ${second.length} files)`;
        runs.push({ label: label1, whole: true, run: (live) => runMocha('test/.mocharc.integration.js', { KAFKA_VERSION: version, TEST_FILES: firstPart.join(',') }, label1, { live }) });
        runs.push({ label: label2, last: true, run: (live) => runMocha('test/.mocharc.integration.js', { KAFKA_VERSION: version, TEST_FILES: second.join(',') }, label2, { live }) });
        continue;
      }
      runs.push({
        label,
        whole: !files,
        run: (live) => runMocha('test/.mocharc.integration.js', { KAFKA_VERSION: version, ...(files ? { TEST_FILES: files.join(',') } : {}) }, label, { live }),
      });
    }
  }
  if (suites.includes('node-red-5')) {
    const label = `Node-RED ${NODE_RED_VERSION} on Node.js ${NODE_VERSION}, Apache Kafka ${DEFAULT_KAFKA_VERSION} (${NODE_RED_5_FILES.length} files)`;
    let nr5;
    try {
      resolveKafka(DEFAULT_KAFKA_VERSION);
      resolveConnect(mm2VersionFor(DEFAULT_KAFKA_VERSION));
      nr5 = ensureNodeRed5();
    } catch (e) {
      // no Node-RED 5 or no Node.js 22 is a failed run, never a skipped one
      process.stdout.write(`\n=== ${label} ===\nFAILED: cannot install what this run needs: ${e.message}\n`);
      results.push({ label, passed: 0, failed: 1, skipped: 0, code: 1 });
    }
    if (nr5) {
      const env = {
        KAFKA_VERSION: DEFAULT_KAFKA_VERSION,
        TEST_FILES: NODE_RED_5_FILES.join(','),
        MM2_NODE_RED_DIR: nr5.nodeRedDir,
        MM2_NODE_BIN: nr5.node,
        // the README's screenshots stay those of the main run; this run's go beside the other test output
        MM2_SCREENSHOT_DIR: path.join(root, 'test-results', 'node-red-5'),
      };
      runs.push({ label, run: (live) => runMocha('test/.mocharc.integration.js', env, label, { node: nr5.node, live }) });
    }
  }

  // lane 1: the whole run of the default version when there is one (the longest); lane 2: the rest
  // (a run marked last goes to the end of the second lane)
  const first = runs.findIndex((r) => r.whole);
  const rest = runs.filter((_, i) => i !== (first >= 0 ? first : 0));
  const ordered = [...rest.filter((r) => !r.last), ...rest.filter((r) => r.last)];
  const lanes = lanesWanted === 1 || runs.length < 2 ? [runs] : [[runs[first >= 0 ? first : 0]], ordered];
  if (process.env.TEST_DRY_RUN === '1') {
    // what would run where, without running it
    lanes.forEach((lane, i) => process.stdout.write(`lane ${i + 1}: ${lane.map((r) => r.label).join('; then ')}\n`));
    process.exit(0);
  }
  if (lanes.length > 1) process.stdout.write(`\n${runs.length} runs in 2 lanes side by side (TEST_LANES=1: one after the other): [${lanes[0].map((r) => r.label).join('; ')}] beside [${lanes[1].map((r) => r.label).join('; ')}]\n`);
  const laneResults = await Promise.all(
    lanes.map(async (lane, i) => {
      const out = [];
      for (const r of lane) out.push(await r.run(i === 0));
      return out;
    })
  );
  for (const r of runs) {
    const found = laneResults.flat().find((x) => x.label === r.label);
    if (found) results.push(found);
  }

  const total = results.reduce((a, r) => ({ passed: a.passed + r.passed, failed: a.failed + r.failed, skipped: a.skipped + r.skipped }), { passed: 0, failed: 0, skipped: 0 });
  console.log('\n=== summary ===');
  for (const r of results) console.log(`${r.label}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped${r.seconds ? ` (${r.seconds.toFixed(0)} s)` : ''}`);
  console.log(`total time: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  process.exit(total.failed > 0 || total.passed === 0 ? 1 : 0);
}

main().catch((e) => {
  console.error(e.stack || e.message);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
