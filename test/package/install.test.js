'use strict';
/**
 * The package as a Node-RED user gets it: `npm pack` on a copy of the sources without a build
 * (the tarball is built by `prepack`), then `npm install <tarball>` in a fresh Node-RED user
 * directory, as a user runs it there, and a real Node-RED started on that directory. Asserts:
 * npm printed no warning (in particular none about install scripts), the tarball holds what the
 * README and the Flow Library show (README, CHANGELOG, the README's images, the examples), every
 * node type of the package loads (GET /nodes), and every example is listed under
 * Import > Examples (the library API). Needs no Kafka broker: it runs once per test run.
 */
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startNodeRed } = require('../../scripts/node-red-runner');

const root = path.join(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
const npmCli = process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath) ? process.env.npm_execpath : null;

/** npm as a user runs it from a shell: none of the npm_* variables a surrounding `npm test` sets. */
function npm(args, cwd) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const [cmd, argv] = npmCli ? [process.execPath, [npmCli, ...args]] : ['npm', args];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`npm ${args.join(' ')} failed (${err.code}):\n${stdout}\n${stderr}`));
      else resolve({ stdout, stderr, output: `${stdout}\n${stderr}` });
    });
  });
}

/** The sources as a clone has them: no dist/, no node_modules of its own (linked, as the build needs tsc). */
function copySources(to) {
  const skip = new Set(['node_modules', 'dist', '.git', '.cache', 'test-results']);
  fs.cpSync(root, to, { recursive: true, filter: (src) => !skip.has(path.basename(src)) || path.dirname(src) !== root });
  fs.symlinkSync(fs.realpathSync(path.join(root, 'node_modules')), path.join(to, 'node_modules'), 'dir');
}

describe('the package installed from its tarball into a fresh Node-RED user directory', function () {
  this.timeout(240000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mm2-package-'));
  const userDir = path.join(tmp, 'user');
  const installed = path.join(userDir, 'node_modules', '@kafka-mm2', 'node-red');
  let tarball;
  let install;
  let nr;

  before(async function () {
    const src = path.join(tmp, 'src');
    copySources(src);
    assert.equal(fs.existsSync(path.join(src, 'dist')), false, 'packed from sources without a build');
    const packed = await npm(['pack', '--json', '--pack-destination', tmp], src);
    const json = packed.stdout.slice(packed.stdout.indexOf('['));
    tarball = path.join(tmp, JSON.parse(json)[0].filename);
    fs.mkdirSync(userDir);
    fs.writeFileSync(path.join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-project', description: 'A Node-RED Project', version: '0.0.1', private: true }, null, 2));
    install = await npm(['install', '--no-audit', '--no-fund', tarball], userDir);
    nr = await startNodeRed({ userDir, linkPackage: false, quiet: true, logLevel: 'warn' });
  });

  after(async function () {
    if (nr) await nr.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('npm installs it without a warning (no install scripts: the build runs at prepack)', function () {
    assert.doesNotMatch(install.output, /install.scripts|allowScripts/i, install.output);
    assert.doesNotMatch(install.output, /npm warn/i, install.output);
    assert.equal(pkg.scripts.prepare, undefined, 'no prepare script');
    assert.equal(pkg.scripts.prepack, 'npm run build');
    assert.equal(fs.lstatSync(installed).isSymbolicLink(), false, 'a copy from the tarball, not a link');
    assert.equal(JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')).version, pkg.version);
  });

  it("the tarball holds the README, the CHANGELOG, the README's images and every example", function () {
    for (const f of ['README.md', 'CHANGELOG.md', 'LICENSE']) assert.ok(fs.existsSync(path.join(installed, f)), f);
    const readme = fs.readFileSync(path.join(installed, 'README.md'), 'utf8');
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)/g)].map((m) => m[1]);
    assert.ok(images.length > 0, 'the README shows images');
    // the repository of package.json's repository field, as raw files of its default branch
    const repo = /github\.com[/:]([^/]+\/[^/.]+)/.exec(pkg.repository.url)[1];
    const base = new RegExp(`^https://raw\\.githubusercontent\\.com/${repo}/main/`);
    for (const url of images) {
      assert.match(url, base, `${url}: an absolute address (npm and the Flow Library do not resolve relative ones)`);
      const file = url.replace(base, '');
      assert.ok(fs.existsSync(path.join(installed, file)), `${file} is in the package`);
    }
    const examples = fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.json')).sort();
    assert.deepEqual(fs.readdirSync(path.join(installed, 'examples')).filter((f) => f.endsWith('.json')).sort(), examples);
  });

  it('every node type of the package loads in Node-RED (GET /nodes)', async function () {
    const r = await nr.request('GET', '/nodes', undefined, { accept: 'application/json' });
    assert.equal(r.status, 200, r.text);
    const sets = r.json.filter((s) => s.module === pkg.name);
    const types = Object.keys(pkg['node-red'].nodes).sort();
    // every editor file of the package is a node type listed in package.json
    assert.deepEqual(types, fs.readdirSync(path.join(root, 'nodes')).filter((f) => f.endsWith('.html')).map((f) => f.slice(0, -'.html'.length)).sort());
    assert.deepEqual(sets.flatMap((s) => s.types).sort(), types, JSON.stringify(sets));
    for (const s of sets) {
      assert.equal(s.enabled, true, `${s.id} enabled`);
      assert.equal(s.err, undefined, `${s.id} failed to load: ${s.err}`);
      assert.equal(s.version, pkg.version);
    }
    // the editor side: every type's editor file is served and registers its type
    const html = await nr.request('GET', '/nodes', undefined, { accept: 'text/html' });
    assert.equal(html.status, 200);
    for (const type of types) assert.match(html.text, new RegExp(`RED\\.nodes\\.registerType\\(\\s*'${type}'`), `${type}'s editor`);
    // nothing of ours warns or fails; Node-RED's own notes on the runner's settings are expected
    const noted = nr.log.split('\n').filter((l) => /\[(error|warn)\]/.test(l) && !/Projects disabled|Using unencrypted credentials/.test(l));
    assert.deepEqual(noted, [], nr.log);
  });

  it('every example is listed under Import > Examples', async function () {
    const r = await nr.request('GET', `/library/examples/flows/${pkg.name}`);
    assert.equal(r.status, 200, r.text);
    const examples = fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
    assert.ok(Array.isArray(r.json), r.text);
    assert.deepEqual(r.json.map((e) => e.fn).sort(), examples, r.text);
  });
});
