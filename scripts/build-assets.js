'use strict';
/**
 * Second half of `npm run build` (after tsc): lays out what Node-RED loads beside the compiled
 * node files. Node-RED looks for icons in nodes/icons/ and for message catalogs and help in
 * nodes/locales/<lang>/<node>.{json,html}. Sources: icons/ and src/locales/<lang>/, where
 * common.json holds the keys every node set shares (merged into each node's catalog).
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const nodesDir = path.join(root, 'nodes');

fs.rmSync(path.join(nodesDir, 'icons'), { recursive: true, force: true });
fs.cpSync(path.join(root, 'icons'), path.join(nodesDir, 'icons'), { recursive: true });

const pkg = require(path.join(root, 'package.json'));
const nodeSets = Object.keys(pkg['node-red'].nodes);
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
