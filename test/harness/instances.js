'use strict';
/**
 * Several real Node-RED processes running one flow, for the tests of a flow shared among instances
 * (issue 25). Each instance has its own user folder, its statuses watched (as the editor sees them),
 * and its outputs in files of its own, `<dir>/<name>-<what>.jsonl`, written by Node-RED's file node
 * (fileNode), which tells which instance wrote what.
 *
 *   const nrs = nodeRedInstances('mm2-share-');
 *   const a = await nrs.start('a', flowOf('a'), { credentials: { 'c-src': { username, password } } });
 *   nrs.status('a', 'cp').text; nrs.lines('a', 'checkpoints'); nrs.kill('a'); await nrs.stopAll();
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startNodeRed } = require('../../scripts/node-red-runner');

/** @param {string} prefix the temporary folder's prefix */
function nodeRedInstances(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  /** @type {Record<string, { nr: any, watch: any, userDir: string }>} */
  const instances = {};
  const handle = {
    dir,
    instances,
    /** A file node `id` writing each message of its input as one JSON line to `<name>-<what>.jsonl`. */
    fileNode: (name, id, what, z = 'tab') => ({ id, type: 'file', z, name: '', filename: path.join(dir, `${name}-${what}.jsonl`), filenameType: 'str', appendNewline: true, createDir: true, overwriteFile: 'false', encoding: 'none', wires: [[]] }),
    /**
     * Starts instance `name` with `flows`; `credentials` (node id -> its credentials) go into its
     * flows_cred.json (the runner's settings have credentialSecret false: plain JSON).
     * @param {string} name
     * @param {object[]} flows
     * @param {{ credentials?: Record<string, object> }} [opts]
     */
    async start(name, flows, opts = {}) {
      const userDir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}${name}-`));
      if (opts.credentials) fs.writeFileSync(path.join(userDir, 'flows_cred.json'), JSON.stringify(opts.credentials));
      const nr = await startNodeRed({ flows, userDir, quiet: true, logLevel: 'info' });
      const watch = await nr.watchStatuses();
      instances[name] = { nr, watch, userDir };
      return instances[name];
    },
    /** Every line of an instance's output file `what`, parsed. */
    lines(name, what) {
      const f = path.join(dir, `${name}-${what}.jsonl`);
      if (!fs.existsSync(f)) return [];
      return fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
    },
    /** The last status of node `id` in instance `name` ({} when none, or the instance is gone). */
    status: (name, id) => (instances[name] ? instances[name].watch.get(id) || {} : {}),
    /** The end of every instance's log, for a failure's message. */
    logs: () => Object.entries(instances).map(([n, i]) => `--- ${n}:\n${i.nr.log.slice(-6000)}`).join('\n'),
    /** kill -9 of an instance: no leave, no close; stopAll() still reaps it. */
    kill(name) {
      instances[name].nr.process.kill('SIGKILL');
      instances[name].watch.close();
    },
    /** Stops an instance as a shutdown does (its nodes close). */
    async stop(name) {
      const i = instances[name];
      delete instances[name];
      i.watch.close();
      await i.nr.stop();
      fs.rmSync(i.userDir, { recursive: true, force: true });
    },
    /** Stops every instance left, removes the folders. */
    async stopAll() {
      for (const name of Object.keys(instances)) await handle.stop(name);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return handle;
}

module.exports = { nodeRedInstances };
