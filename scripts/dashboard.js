'use strict';
/**
 * FlowFuse Dashboard 2.0 (`@flowfuse/node-red-dashboard`), what the readiness-dashboard example
 * needs: a dependency of that example, not of this package. Installed from the npm registry with
 * `npm install --prefix` into a private folder of the cache, once, and linked into the Node-RED
 * user directory of the demo and the tests (scripts/node-red-runner.js, option `dashboard`):
 *
 *   <cache>/node-red-dashboard-<DASHBOARD_VERSION>/node_modules/@flowfuse/node-red-dashboard
 *
 * (<cache> is KAFKA_MM2_CACHE or ~/.cache/kafka-mm2, as for Kafka's jars.)
 *
 *   const { ensureDashboard, linkDashboard } = require('./dashboard');
 *   ensureDashboard();          // installs when missing; throws when it cannot
 *   linkDashboard(userDir);     // the package in userDir/node_modules, as `npm install` puts it
 *
 * CLI: node scripts/dashboard.js   (installs when missing, prints the path)
 */
const fs = require('node:fs');
const path = require('node:path');
const { cacheRoot } = require('./kafka/cluster');
const { npmInstall } = require('./node-red-5');

const DASHBOARD_PACKAGE = '@flowfuse/node-red-dashboard';
/** The release the demo and the tests install (docs/development.md says the same). */
const DASHBOARD_VERSION = '1.31.0';

function paths() {
  const root = path.join(cacheRoot(), `node-red-dashboard-${DASHBOARD_VERSION}`);
  return { root, dir: path.join(root, 'node_modules', ...DASHBOARD_PACKAGE.split('/')), marker: path.join(root, '.complete') };
}

/**
 * Makes sure DASHBOARD_PACKAGE@DASHBOARD_VERSION is in the cache (npm runs once; later runs use
 * the cache). Throws, saying what failed, when it cannot be installed: whatever needs it fails
 * instead of skipping.
 * @returns {{ dir: string, version: string }}
 */
function ensureDashboard() {
  const p = paths();
  if (!fs.existsSync(p.marker)) {
    process.stderr.write(`[dashboard] installing ${DASHBOARD_PACKAGE}@${DASHBOARD_VERSION} into ${p.root} (first run only)\n`);
    npmInstall(p.root, `${DASHBOARD_PACKAGE}@${DASHBOARD_VERSION}`, process.env);
    fs.writeFileSync(p.marker, new Date().toISOString() + '\n');
  }
  const version = JSON.parse(fs.readFileSync(path.join(p.dir, 'package.json'), 'utf8')).version;
  if (version !== DASHBOARD_VERSION) throw new Error(`${p.dir} holds ${DASHBOARD_PACKAGE} ${version}, not ${DASHBOARD_VERSION}: remove ${p.root} to reinstall`);
  return { dir: p.dir, version };
}

/**
 * Installs the dashboard when missing and links it into `userDir`'s node_modules, where Node-RED
 * finds the packages a user installed (its own dependencies resolve from the cache).
 * @param {string} userDir
 */
function linkDashboard(userDir) {
  const { dir } = ensureDashboard();
  const link = path.join(userDir, 'node_modules', ...DASHBOARD_PACKAGE.split('/'));
  fs.mkdirSync(path.dirname(link), { recursive: true });
  if (!fs.existsSync(link)) fs.symlinkSync(dir, link, 'dir');
}

module.exports = { DASHBOARD_PACKAGE, DASHBOARD_VERSION, ensureDashboard, linkDashboard };

if (require.main === module) {
  try {
    const r = ensureDashboard();
    console.log(`${DASHBOARD_PACKAGE} ${r.version}: ${r.dir}`);
  } catch (e) {
    console.error(`cannot install ${DASHBOARD_PACKAGE}@${DASHBOARD_VERSION}: ${e.message}`);
    process.exit(1);
  }
}
