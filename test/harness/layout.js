'use strict';
/**
 * Where the package keeps each node's files: one folder per node type, src/nodes/<type>/, with its
 * editor file (<type>.html) and its catalogs and help (locales/<lang>/<type>.json, <type>.html);
 * the catalog every node shares is src/nodes/shared/locales/<lang>/common.json. The build lays
 * them beside the compiled node, dist/nodes/<type>/ (scripts/build-assets.js).
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');
const nodesSrc = path.join(root, 'src', 'nodes');
const COMMON = 'common.json';

/** The source of catalog or help file `file` (`common.json`, `<type>.json`, `<type>.html`) in language `lang`. */
function catalogPath(lang, file) {
  if (file === COMMON) return path.join(nodesSrc, 'shared', 'locales', lang, COMMON);
  return path.join(nodesSrc, file.replace(/\.(json|html)$/, ''), 'locales', lang, file);
}

/** The catalog files (`common.json` and every node's `<type>.json`) of language `lang`, as the sources hold them. */
function catalogFiles(lang) {
  const files = [];
  for (const dir of fs.readdirSync(nodesSrc)) {
    const langDir = dir === 'shared' ? null : path.join(nodesSrc, dir, 'locales', lang);
    if (langDir && fs.existsSync(langDir)) files.push(...fs.readdirSync(langDir).filter((f) => f.endsWith('.json')));
  }
  if (fs.existsSync(catalogPath(lang, COMMON))) files.push(COMMON);
  return files.sort();
}

/** The editor file of node type `type`, as written (src) or as the build lays it out for Node-RED (dist). */
function editorPath(type, built = false) {
  return built ? path.join(root, 'dist', 'nodes', type, `${type}.html`) : path.join(nodesSrc, type, `${type}.html`);
}

/** The node types whose folder holds an editor file. */
function editorTypes() {
  return fs.readdirSync(nodesSrc).filter((d) => fs.existsSync(editorPath(d))).sort();
}

module.exports = { catalogPath, catalogFiles, editorPath, editorTypes };
