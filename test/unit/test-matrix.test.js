'use strict';
/** Which MirrorMaker 2 runs beside which brokers, and what the whole run runs where (scripts/test-matrix.js). */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { mm2Candidates, guessedMm2Versions } = require('../../scripts/kafka/connect');
const { KAFKA_MATRIX, NODE_RED_5_FILES, EXAMPLE_TESTS, PROTOCOL_FILES, ONCE_FILES, OLDEST_LINE_FILES, OLDEST_LINE, SECOND_LANE_FILES, defaultRunFiles } = require('../../scripts/test-matrix');
const { DEFAULT_KAFKA_VERSION } = require('../../scripts/kafka/cluster');

const root = path.join(__dirname, '..', '..');

describe('the MirrorMaker 2 beside a broker version (scripts/kafka/connect.js)', function () {
  // what Maven Central listed for connect-mirror on 2026-12-04 (4.4.0 and 4.3.2 not among them)
  const listed = ['3.8.1', '3.9.0', '3.9.1', '4.0.0', '4.0.2', '4.1.0', '4.1.1', '4.1.2', '4.2.0', '4.2.1', '4.3.0', '4.3.1', '4.4.0-rc1'];

  it("the broker's own version first when it is listed", function () {
    assert.deepEqual(mm2Candidates('4.1.1', listed).slice(0, 2), ['4.1.1', '4.1.0']);
    assert.deepEqual(mm2Candidates('3.9.1', listed), ['3.9.1', '3.9.0', '3.8.1']);
  });

  it('else the newest older one on the same line, then older lines; never a newer one, never a pre-release', function () {
    assert.deepEqual(mm2Candidates('4.4.0', listed).slice(0, 3), ['4.3.1', '4.3.0', '4.2.1']);
    assert.deepEqual(mm2Candidates('4.3.2', listed).slice(0, 3), ['4.3.1', '4.3.0', '4.2.1']);
    assert.deepEqual(mm2Candidates('4.2.2', listed).slice(0, 3), ['4.2.1', '4.2.0', '4.1.2']);
    assert.deepEqual(mm2Candidates('3.8.0', listed), []);
  });

  it("without the repository's listing: the broker's version, then older patches of its line and of the line before", function () {
    assert.deepEqual(guessedMm2Versions('4.4.0'), ['4.4.0', '4.3.3', '4.3.2', '4.3.1', '4.3.0']);
    assert.deepEqual(guessedMm2Versions('4.2.2'), ['4.2.2', '4.2.1', '4.2.0', '4.1.3', '4.1.2', '4.1.1']);
  });
});

describe('the test matrix (scripts/test-matrix.js)', function () {
  const exists = (file) => fs.existsSync(path.join(root, file));

  it('every file it names exists', function () {
    for (const file of [...PROTOCOL_FILES, ...ONCE_FILES, ...NODE_RED_5_FILES, ...OLDEST_LINE_FILES]) assert.ok(exists(file), file);
  });

  it("the default version's run, split over two lanes, still runs every file once, the full-failover suites first", function () {
    const all = defaultRunFiles(root);
    const onDisk = fs.readdirSync(path.join(root, 'test', 'integration')).filter((n) => n.endsWith('.test.js')).map((n) => `test/integration/${n}`);
    assert.deepEqual([...all].sort(), onDisk.sort(), 'every integration file once');
    assert.deepEqual(all.slice(0, 3), ['failover-e2e', 'browser', 'node-red-package'].map((n) => `test/integration/${n}.test.js`));
    assert.ok(SECOND_LANE_FILES.length > 0);
    for (const file of SECOND_LANE_FILES) {
      assert.ok(all.includes(file), `${file} exists`);
      assert.ok(!all.slice(0, 3).includes(file), `${file} is not one of the suites that run first`);
    }
  });

  it('the conformance files beside MM2 run on the oldest line too (MM2 of that line as the peer)', function () {
    const run = KAFKA_MATRIX.find((r) => r.version === OLDEST_LINE);
    for (const name of ['conformance-mm2-policies', 'conformance-mm2-rewind-resume']) assert.ok(run && run.files && run.files.includes(`test/integration/${name}.test.js`), `${name} on ${OLDEST_LINE}`);
  });

  it('every file runs on the default version, and the protocol files on every version', function () {
    assert.deepEqual(KAFKA_MATRIX[0], { version: DEFAULT_KAFKA_VERSION, files: null });
    for (const run of KAFKA_MATRIX.slice(1)) {
      if (run.files) for (const file of PROTOCOL_FILES) assert.ok(run.files.includes(file), `${file} on ${run.version}`);
      if (run.files) for (const file of ONCE_FILES) assert.ok(!run.files.includes(file), `${file} only once`);
    }
    for (const file of PROTOCOL_FILES) assert.ok(!ONCE_FILES.includes(file), file);
  });

  it('the Node-RED 5 run runs every example end to end and every node type', function () {
    const examples = fs.readdirSync(path.join(root, 'examples')).filter((n) => n.endsWith('.json')).sort();
    assert.deepEqual(Object.keys(EXAMPLE_TESTS).sort(), examples, 'each example has its end-to-end test');
    for (const [example, file] of Object.entries(EXAMPLE_TESTS)) {
      assert.ok(NODE_RED_5_FILES.includes(file), `${file} (${example}) runs on Node-RED 5`);
      assert.ok(fs.readFileSync(path.join(root, file), 'utf8').includes(example.replace(/\.json$/, '')), `${file} names ${example}`);
    }
    // the node types the examples use, each in an example whose test runs on Node-RED 5
    const types = Object.keys(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))['node-red'].nodes);
    const used = new Set(examples.flatMap((n) => JSON.parse(fs.readFileSync(path.join(root, 'examples', n), 'utf8')).map((/** @type {{ type: string }} */ node) => node.type)));
    for (const type of types) assert.ok(used.has(type), `${type} is in an example`);
  });
});
