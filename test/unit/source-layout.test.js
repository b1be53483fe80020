'use strict';
/**
 * The source layout the code rules describe (docs/development.md, Layout): MM2's rules in
 * src/core (no kafkajs, no Node-RED), Kafka I/O in the src/kafka adapters, the engines that
 * orchestrate them in src/engines (no Node-RED), the nodes in src/nodes, one folder per node;
 * every import points down that list, never up. And no two source files share a name, so each
 * concept has one obvious file, and none is over 600 lines.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const src = path.join(__dirname, '..', '..', 'src');

/** Every .ts file under `dir`, relative to src/. */
function sources(dir = src) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') ? [path.relative(src, p).split(path.sep).join('/')] : [];
  });
}

/** The modules a source file imports: relative ones as paths under src/ (first folder = its floor), packages by name. */
function imports(file) {
  const text = fs.readFileSync(path.join(src, file), 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s+'([^']+)'|\brequire\(\s*'([^']+)'\s*\)|\bimport\(\s*'([^']+)'\s*\)/g)]
    .map((m) => m[1] || m[2] || m[3])
    .map((spec) => (spec.startsWith('.') ? path.relative(src, path.join(src, path.dirname(file), spec)).split(path.sep).join('/') : spec));
}

const ANY_FLOOR = ['yaml'];
const floorOf = (rel) => (rel.includes('/') ? rel.split('/')[0] : rel);
/** What each floor may import, besides itself, Node's own modules and the parsers every floor may use. */
const ALLOWED = {
  core: [],
  flows: ['core'],
  kafka: ['core', 'kafkajs'],
  engines: ['core', 'kafka', 'kafkajs'],
  nodes: ['core', 'flows', 'kafka', 'engines', 'kafkajs'],
};

describe('source layout', function () {
  const files = sources();

  it('reads the sources (the check below looks at something)', function () {
    for (const floor of Object.keys(ALLOWED)) assert.ok(files.some((f) => floorOf(f) === floor), `src/${floor} has sources`);
    assert.ok(files.length > 100, `${files.length} sources`);
    const engines = files.filter((f) => floorOf(f) === 'engines').flatMap(imports);
    assert.ok(engines.includes('kafka/connection') && engines.includes('core/checkpoint-store'), 'the engines\' imports are read');
  });

  it('no two source files share a name', function () {
    const byName = new Map();
    for (const f of files) byName.set(path.posix.basename(f), [...(byName.get(path.posix.basename(f)) ?? []), f]);
    const twice = [...byName.values()].filter((list) => list.length > 1);
    assert.deepEqual(twice, [], 'rename one of each so that each concept has one obvious file');
  });

  it('no file in src/ is over 600 lines (split a longer one by concept)', function () {
    /** Every file under `dir` (sources, editor files, catalogs, help), relative to src/. */
    const all = (dir = src) =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? all(path.join(dir, e.name)) : [path.relative(src, path.join(dir, e.name))]));
    const lines = (f) => {
      const text = fs.readFileSync(path.join(src, f), 'utf8');
      return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    };
    const every = all();
    assert.ok(every.length > files.length && every.some((f) => f.endsWith('.ts') && lines(f) > 300), 'every file is read and its lines counted');
    const long = every.filter((f) => lines(f) > 600).map((f) => `src/${f}: ${lines(f)} lines`);
    assert.deepEqual(long, []);
  });

  it('every import points down the floors: core <- flows, kafka <- engines <- nodes', function () {
    const wrong = [];
    for (const f of files) {
      const floor = floorOf(f);
      if (!(floor in ALLOWED)) continue;
      for (const target of imports(f)) {
        if (target.startsWith('node:')) continue;
        const to = target.startsWith('@') ? target.split('/').slice(0, 2).join('/') : floorOf(target);
        if (to !== floor && !ALLOWED[floor].includes(to) && !ANY_FLOOR.includes(to)) wrong.push(`${f} imports ${target}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('each node type has its folder: shell, editor file, en-US and zh-CN catalogs and help', function () {
    const pkg = JSON.parse(fs.readFileSync(path.join(src, '..', 'package.json'), 'utf8'));
    for (const type of Object.keys(pkg['node-red'].nodes)) {
      for (const f of [`${type}.ts`, `${type}.html`, ...['en-US', 'zh-CN'].flatMap((l) => [`locales/${l}/${type}.json`, `locales/${l}/${type}.html`])]) {
        assert.ok(fs.existsSync(path.join(src, 'nodes', type, f)), `src/nodes/${type}/${f}`);
      }
    }
  });
});
