'use strict';
/**
 * Node-RED 5 on Node.js 22 for the tests, beside the system's Node.js and the project's own
 * Node-RED 4.1 (node_modules), neither of which it touches: both come from the npm registry
 * (Node.js as the npm `node` package, whose binary ships in a registry package) and are installed
 * with `npm install --prefix` into a private folder of the cache, once:
 *
 *   <cache>/node-red-<NODE_RED_VERSION>-node-<NODE_VERSION>/node/       node@NODE_VERSION
 *   <cache>/node-red-<NODE_RED_VERSION>-node-<NODE_VERSION>/node-red/   node-red@NODE_RED_VERSION
 *
 * (<cache> is KAFKA_MM2_CACHE or ~/.cache/kafka-mm2, as for Kafka's jars.) Node-RED is installed by
 * npm running on that Node.js 22, so its engines field (node >= 22.9) is checked against it.
 *
 *   const { ensureNodeRed5 } = require('./node-red-5');
 *   const { node, nodeRedDir } = ensureNodeRed5();   // installs when missing; throws when it cannot
 *
 * The tests pick which Node-RED and which Node.js run it from the environment (see
 * `selectedNodeRed` below): MM2_NODE_RED_DIR (a folder holding Node-RED's package, with red.js) and
 * MM2_NODE_BIN (the Node.js executable for the Node-RED process). scripts/test.js sets both for
 * its Node-RED 5 run; unset, the tests run the Node-RED in node_modules on the Node.js running them.
 *
 * CLI: node scripts/node-red-5.js   (installs when missing, prints the two paths)
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { cacheRoot } = require('./kafka/cluster');

/** The Node-RED 5 and Node.js 22 releases the suite runs (docs/development.md's version table says the same). */
const NODE_RED_VERSION = '5.0.7';
const NODE_VERSION = '22.23.3';

function prefixRoot() {
  return path.join(cacheRoot(), `node-red-${NODE_RED_VERSION}-node-${NODE_VERSION}`);
}

function paths() {
  const root = prefixRoot();
  return {
    root,
    node: path.join(root, 'node', 'node_modules', 'node', 'bin', 'node'),
    nodeRedDir: path.join(root, 'node-red', 'node_modules', 'node-red'),
    marker: path.join(root, '.complete'),
  };
}

/** `npm install --prefix <prefix> <spec>` into an emptied `prefix`; throws, saying what failed. */
function npmInstall(prefix, spec, env) {
  fs.rmSync(prefix, { recursive: true, force: true });
  fs.mkdirSync(prefix, { recursive: true });
  const res = spawnSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', spec], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env,
  });
  if (res.error) throw new Error(`cannot run npm to install ${spec}: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`npm could not install ${spec} into ${prefix} (exit ${res.status})`);
}

/** The installed Node.js's version (`v22.x.y`), or throws. */
function versionOf(node) {
  const res = spawnSync(node, ['--version'], { encoding: 'utf8' });
  if (res.error || res.status !== 0) throw new Error(`${node} does not run: ${res.error ? res.error.message : res.stderr}`);
  return res.stdout.trim();
}

/**
 * Makes sure Node.js NODE_VERSION and Node-RED NODE_RED_VERSION are installed in the private
 * prefix (npm runs once; later runs use the cache). Throws, saying what failed, when they cannot
 * be installed: a run that needs them fails instead of skipping.
 * @returns {{ node: string, nodeRedDir: string, nodeVersion: string, nodeRedVersion: string }}
 */
function ensureNodeRed5() {
  const p = paths();
  if (!fs.existsSync(p.marker)) {
    process.stderr.write(`[node-red-5] installing Node.js ${NODE_VERSION} and Node-RED ${NODE_RED_VERSION} into ${p.root} (first run only)\n`);
    npmInstall(path.join(p.root, 'node'), `node@${NODE_VERSION}`, process.env);
    if (versionOf(p.node) !== `v${NODE_VERSION}`) throw new Error(`the npm node package installed ${versionOf(p.node)}, not v${NODE_VERSION}`);
    // npm itself runs on the new Node.js, so Node-RED's engines field is checked against it
    const env = { ...process.env, PATH: `${path.dirname(p.node)}${path.delimiter}${process.env.PATH || ''}` };
    npmInstall(path.join(p.root, 'node-red'), `node-red@${NODE_RED_VERSION}`, env);
    fs.writeFileSync(p.marker, new Date().toISOString() + '\n');
  }
  const nodeVersion = versionOf(p.node);
  if (nodeVersion !== `v${NODE_VERSION}`) throw new Error(`${p.node} is ${nodeVersion}, not v${NODE_VERSION}: remove ${p.root} to reinstall`);
  const nodeRedVersion = JSON.parse(fs.readFileSync(path.join(p.nodeRedDir, 'package.json'), 'utf8')).version;
  if (nodeRedVersion !== NODE_RED_VERSION) throw new Error(`${p.nodeRedDir} holds Node-RED ${nodeRedVersion}, not ${NODE_RED_VERSION}: remove ${p.root} to reinstall`);
  return { node: p.node, nodeRedDir: p.nodeRedDir, nodeVersion, nodeRedVersion };
}

/**
 * The Node-RED the tests start and the Node.js that runs it: MM2_NODE_RED_DIR and MM2_NODE_BIN when
 * set (each checked, so a wrong path fails instead of falling back), else the Node-RED of
 * node_modules on the Node.js running the caller.
 * @returns {{ nodeRedDir: string, redJs: string, node: string, version: string }}
 */
function selectedNodeRed() {
  const dir = process.env.MM2_NODE_RED_DIR;
  const nodeRedDir = dir ? path.resolve(dir) : path.dirname(require.resolve('node-red/package.json'));
  const redJs = path.join(nodeRedDir, 'red.js');
  if (!fs.existsSync(redJs)) throw new Error(`MM2_NODE_RED_DIR=${dir}: no Node-RED there (no red.js)`);
  const node = process.env.MM2_NODE_BIN ? path.resolve(process.env.MM2_NODE_BIN) : process.execPath;
  if (!fs.existsSync(node)) throw new Error(`MM2_NODE_BIN=${process.env.MM2_NODE_BIN}: no such file`);
  const version = JSON.parse(fs.readFileSync(path.join(nodeRedDir, 'package.json'), 'utf8')).version;
  return { nodeRedDir, redJs, node, version };
}

module.exports = { NODE_RED_VERSION, NODE_VERSION, ensureNodeRed5, selectedNodeRed, npmInstall };

if (require.main === module) {
  try {
    const r = ensureNodeRed5();
    console.log(`Node.js ${r.nodeVersion}: ${r.node}`);
    console.log(`Node-RED ${r.nodeRedVersion}: ${r.nodeRedDir}`);
  } catch (e) {
    console.error(`cannot install Node.js ${NODE_VERSION} and Node-RED ${NODE_RED_VERSION}: ${e.message}`);
    process.exit(1);
  }
}
