'use strict';
/**
 * The build's other half: `npm run build` is `build-assets --clean`, `tsc` (src/ -> dist/), then
 * `build-assets`, which lays out beside the compiled node files what Node-RED loads with them:
 * each node set's editor file (nodes/<set>.html -> dist/nodes/<set>.html), its message catalogs
 * and help (src/locales/<lang>/ -> dist/nodes/locales/<lang>/, common.json merged into each
 * node set's catalog) and the icons (icons/ -> dist/nodes/icons/).
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');

if (process.argv.includes('--clean')) {
  // nothing of an earlier build (a moved or deleted source file) may answer a require
  fs.rmSync(dist, { recursive: true, force: true });
  process.exit(0);
}

const nodesDir = path.join(dist, 'nodes');
const pkg = require(path.join(root, 'package.json'));
const nodeSets = Object.keys(pkg['node-red'].nodes);

fs.rmSync(path.join(nodesDir, 'icons'), { recursive: true, force: true });
fs.cpSync(path.join(root, 'icons'), path.join(nodesDir, 'icons'), { recursive: true });

for (const set of nodeSets) {
  const editor = path.join(root, 'nodes', `${set}.html`);
  if (!fs.existsSync(editor)) throw new Error(`missing editor file ${editor}`);
  fs.copyFileSync(editor, path.join(nodesDir, `${set}.html`));
}

const srcLocales = path.join(root, 'src', 'locales');
for (const lang of fs.readdirSync(srcLocales)) {
  const from = path.join(srcLocales, lang);
  const to = path.join(nodesDir, 'locales', lang);
  fs.rmSync(to, { recursive: true, force: true });
  fs.mkdirSync(to, { recursive: true });
  const common = JSON.parse(fs.readFileSync(path.join(from, 'common.json'), 'utf8'));
  for (const set of nodeSets) {
    const own = path.join(from, `${set}.json`);
    if (!fs.existsSync(own)) throw new Error(`missing message catalog ${own}`);
    const merged = { ...common, ...JSON.parse(fs.readFileSync(own, 'utf8')) };
    fs.writeFileSync(path.join(to, `${set}.json`), JSON.stringify(merged, null, 4) + '\n');
    const help = path.join(from, `${set}.html`);
    if (!fs.existsSync(help)) throw new Error(`missing help text ${help}`);
    fs.copyFileSync(help, path.join(to, `${set}.html`));
  }
}
