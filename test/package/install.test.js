'use strict';
/**
 * The package as a Node-RED user gets it, by the README's own steps ("From a clone"): its
 * `npm pack` in a copy of the sources without a build, named as the clone is (the tarball is built
 * by `prepack`), then its `npm install <tarball>` in a fresh Node-RED user directory, and a real
 * Node-RED started on that directory. Asserts: the README's steps are these (clone, npm ci,
 * npm pack, npm install of the tarball npm pack wrote), npm printed no warning (in particular none
 * about install scripts), the tarball holds what the README and the Flow Library show (README,
 * CHANGELOG, the README's images, the examples) and the README's links are absolute (to files of
 * the repository that exist), every node type of the package loads (GET /nodes), and every example
 * is listed under Import > Examples (the library API). Needs no Kafka broker: it runs once per test run.
 */
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { links, section, codeBlocks } = require('../harness/markdown');

const root = path.join(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
const { editorTypes } = require('../harness/layout');
const repo = /github\.com[/:]([^/]+\/[^/.]+)/.exec(pkg.repository.url)[1];
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

/**
 * The README's install steps from a clone, read from its first shell block under "From a clone":
 * `git clone <this repository> <dir>`, `cd <dir>`, `npm ci`, `npm pack`, `cd ~/.node-red`,
 * `npm install <path>/<dir>/<tarball>`; throws naming the step that differs.
 */
function cloneSteps(readme) {
  const part = section(readme, 'From a clone');
  assert.ok(part, 'the README has a section "From a clone"');
  const block = codeBlocks(part).find((b) => /^(sh|bash|shell|console)$/.test(b.lang));
  assert.ok(block, 'the section "From a clone" has a shell block');
  const cmds = block.lines.map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l && !l.startsWith('#')).map((l) => l.split(/\s+/));
  assert.equal(cmds.length, 6, block.lines.join('\n'));
  const [clone, cdClone, ci, pack, cdUser, install] = cmds;
  assert.deepEqual(clone.slice(0, 3), ['git', 'clone', `https://github.com/${repo}.git`], 'git clone of the repository');
  assert.equal(clone.length, 4, 'git clone names the folder');
  const dir = clone[3];
  assert.deepEqual(cdClone, ['cd', dir]);
  assert.deepEqual(ci, ['npm', 'ci'], 'npm ci in the clone (the build needs the devDependencies)');
  assert.deepEqual(pack.slice(0, 2), ['npm', 'pack']);
  assert.deepEqual(cdUser, ['cd', '~/.node-red'], 'then into the Node-RED user directory');
  assert.deepEqual(install.slice(0, 2), ['npm', 'install']);
  assert.equal(install.length, 3, 'npm install <tarball>');
  const installPath = install[2];
  assert.equal(path.posix.basename(path.posix.dirname(installPath)), dir, `${installPath}: the tarball npm pack wrote in the clone`);
  return { dir, packArgs: pack.slice(2), tarball: path.posix.basename(installPath) };
}

describe('the package installed from its tarball into a fresh Node-RED user directory', function () {
  this.timeout(240000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mm2-package-'));
  const userDir = path.join(tmp, 'user');
  const installed = path.join(userDir, 'node_modules', '@kafka-mm2', 'node-red');
  let steps;
  let packedName;
  let tarball;
  let install;
  let nr;

  before(async function () {
    // the README's steps: its clone (a copy of the sources, node_modules linked as `npm ci` makes
    // it), its `npm pack` in the clone, its `npm install <tarball>` in the user directory
    steps = cloneSteps(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
    const src = path.join(tmp, steps.dir);
    copySources(src);
    assert.equal(fs.existsSync(path.join(src, 'dist')), false, 'packed from sources without a build');
    const packed = await npm(['pack', ...steps.packArgs, '--json'], src);
    const json = packed.stdout.slice(packed.stdout.indexOf('['));
    packedName = JSON.parse(json)[0].filename;
    tarball = path.join(src, steps.tarball);
    assert.equal(steps.tarball, packedName, `the README installs ${steps.tarball}; npm pack wrote ${packedName}`);
    fs.mkdirSync(userDir);
    fs.writeFileSync(path.join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-project', description: 'A Node-RED Project', version: '0.0.1', private: true }, null, 2));
    install = await npm(['install', '--no-audit', '--no-fund', tarball], userDir);
    nr = await startNodeRed({ userDir, linkPackage: false, quiet: true, logLevel: 'warn' });
  });

  after(async function () {
    if (nr) await nr.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("the README's clone steps are the ones run here: npm pack writes the tarball npm install is given", function () {
    assert.equal(steps.tarball, packedName, `the README installs ${steps.tarball}; npm pack wrote ${packedName}`);
    assert.ok(fs.existsSync(tarball), `${tarball} written by npm pack in the clone`);
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
    const base = new RegExp(`^https://raw\\.githubusercontent\\.com/${repo}/main/`);
    for (const url of images) {
      assert.match(url, base, `${url}: an absolute address (npm and the Flow Library do not resolve relative ones)`);
      const file = url.replace(base, '');
      assert.ok(fs.existsSync(path.join(installed, file)), `${file} is in the package`);
    }
    // the README's other links: absolute too, and those to this repository's files name files that exist
    for (const url of links(readme).filter((u) => !u.startsWith('#'))) {
      assert.match(url, /^https:\/\//, `${url}: an absolute address (npm and the Flow Library do not resolve relative ones)`);
      const own = new RegExp(`^https://github\\.com/${repo}/(?:blob|tree)/main/([^#?]+)`).exec(url);
      if (own) assert.ok(fs.existsSync(path.join(root, own[1])), `${own[1]} (linked from the README) is in the repository`);
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
    assert.deepEqual(types, editorTypes());
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

  it("every node type's catalog (common.json merged), help and icon are served from the node's folder", async function () {
    const types = Object.keys(pkg['node-red'].nodes);
    const help = await nr.request('GET', '/nodes', undefined, { accept: 'text/html' });
    for (const type of types) {
      for (const lang of ['en-US', 'zh-CN']) {
        const r = await nr.request('GET', `/locales/${pkg.name}/${type}?lng=${lang}`, undefined, { accept: 'application/json' });
        assert.equal(r.status, 200, `${type} ${lang}: ${r.text}`);
        assert.equal(typeof r.json[type], 'object', `${type} ${lang}: the node's own catalog (${Object.keys(r.json).join(', ')})`);
        assert.equal(typeof r.json['mm2-common'], 'object', `${type} ${lang}: common.json merged in`);
        if (lang === 'zh-CN') assert.match(JSON.stringify(r.json[type]), /[\u4e00-\u9fff]/, `${type}: the zh-CN catalog is served for zh-CN`);
      }
      assert.match(help.text, new RegExp(`data-help-name="${type}"`), `${type}'s help`);
      if (fs.existsSync(path.join(root, 'icons', `${type}.svg`))) {
        const icon = await nr.request('GET', `/icons/${pkg.name}/${type}.svg`);
        assert.equal(icon.status, 200, `${type}.svg`);
        // Node-RED answers an icon it cannot find with its default icon: the bytes must be ours
        assert.equal(icon.text, fs.readFileSync(path.join(root, 'icons', `${type}.svg`), 'utf8'), `${type}.svg is served from the package`);
      }
    }
  });

  it('every example is listed under Import > Examples', async function () {
    const r = await nr.request('GET', `/library/examples/flows/${pkg.name}`);
    assert.equal(r.status, 200, r.text);
    const examples = fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
    assert.ok(Array.isArray(r.json), r.text);
    assert.deepEqual(r.json.map((e) => e.fn).sort(), examples, r.text);
  });
});
