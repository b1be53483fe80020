'use strict';
/** The test harness's class-data-sharing options for the JVMs it starts (scripts/kafka/cds.js). */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { cdsOptions } = require('../../scripts/kafka/cds');

describe('harness: class data sharing for the JVMs', function () {
  let root;
  let libs;
  let saved;
  beforeEach(function () {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-test-'));
    libs = path.join(root, 'libs');
    fs.mkdirSync(libs);
    saved = process.env.MM2_NO_CDS;
    delete process.env.MM2_NO_CDS;
  });
  afterEach(function () {
    fs.rmSync(root, { recursive: true, force: true });
    if (saved === undefined) delete process.env.MM2_NO_CDS;
    else process.env.MM2_NO_CDS = saved;
  });

  const written = (args) => args.find((a) => a.startsWith('-XX:ArchiveClassesAtExit='))?.split('=')[1];
  const archive = () => path.join(root, 'cds-libs-kafka.Kafka.jsa');

  it('the first run writes the archive at exit under a name of its own; once it exited, the archive is in place and later runs map it', function () {
    const first = cdsOptions(libs, 'kafka.Kafka');
    assert.equal(first.writing, true);
    const fresh = written(first.args);
    assert.ok(fresh && fresh !== archive() && fresh.startsWith(archive()), first.args.join(' '));
    assert.ok(first.args.includes('-Xlog:all=warning:stderr'), 'JVM warnings go to stderr, never into a tool\'s parsed stdout');
    fs.writeFileSync(fresh, 'archive');
    first.settle(true);
    assert.equal(fs.readFileSync(archive(), 'utf8'), 'archive');
    assert.ok(!fs.existsSync(fresh));
    const later = cdsOptions(libs, 'kafka.Kafka');
    assert.equal(later.writing, false);
    assert.ok(later.args.includes(`-XX:SharedArchiveFile=${archive()}`), later.args.join(' '));
    assert.equal(written(later.args), undefined);
  });

  it('a JVM killed while writing leaves no archive behind, and the next run writes one again', function () {
    const first = cdsOptions(libs, 'kafka.Kafka');
    const fresh = written(first.args);
    fs.writeFileSync(fresh, 'half an arch');
    first.settle(false);
    assert.ok(!fs.existsSync(fresh) && !fs.existsSync(archive()));
    assert.equal(cdsOptions(libs, 'kafka.Kafka').writing, true);
  });

  it('two JVMs started at once write apart; the first to exit puts its archive in place, the other is dropped', function () {
    const a = cdsOptions(libs, 'kafka.Kafka');
    const b = cdsOptions(libs, 'kafka.Kafka');
    assert.notEqual(written(a.args), written(b.args));
    fs.writeFileSync(written(a.args), 'a');
    fs.writeFileSync(written(b.args), 'b');
    b.settle(true);
    a.settle(true);
    assert.equal(fs.readFileSync(archive(), 'utf8'), 'b');
    assert.deepEqual(fs.readdirSync(root).sort(), ['cds-libs-kafka.Kafka.jsa', 'libs']);
  });

  it('one archive per jar folder and main class; MM2_NO_CDS=1 turns it off', function () {
    assert.notEqual(written(cdsOptions(libs, 'kafka.Kafka').args).split('.jsa')[0], written(cdsOptions(path.join(root, 'connect-libs'), 'kafka.Kafka').args).split('.jsa')[0]);
    assert.notEqual(written(cdsOptions(libs, 'kafka.Kafka').args).split('.jsa')[0], written(cdsOptions(libs, 'kafka.tools.StorageTool').args).split('.jsa')[0]);
    process.env.MM2_NO_CDS = '1';
    const off = cdsOptions(libs, 'kafka.Kafka');
    assert.deepEqual(off.args, []);
    assert.equal(off.writing, false);
  });
});
