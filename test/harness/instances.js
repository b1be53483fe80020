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
 *   nrs.pause('b'); nrs.resume('b'); // SIGSTOP, SIGCONT (stop() and stopAll() resume a paused one first)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const assert = require('node:assert/strict');
const env = require('./env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');
const { encodeOffsetSync } = require('../../dist/core/offset-sync');

/** @param {string} prefix the temporary folder's prefix */
function nodeRedInstances(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  /** @type {Record<string, { nr: any, watch: any, userDir: string, paused?: boolean }>} */
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
    /** SIGSTOP of an instance: it holds still (no leave, no heartbeat) until resume(). */
    pause(name) {
      instances[name].nr.process.kill('SIGSTOP');
      instances[name].paused = true;
    },
    /** SIGCONT of a paused instance. */
    resume(name) {
      instances[name].nr.process.kill('SIGCONT');
      instances[name].paused = false;
    },
    /** Stops an instance as a shutdown does (its nodes close); a paused one is resumed first. */
    async stop(name) {
      const i = instances[name];
      delete instances[name];
      if (i.paused) i.nr.process.kill('SIGCONT');
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

/**
 * The clusters of a shared flow before its instances start: on the source `topic` (one partition,
 * r0..r19) and `syncs` holding the mirror's offset sync 0 -> 100 (a commit at 5 checkpoints 101), on
 * the target `remote` (200 records); then a first commit (group `warmGroup`) so that
 * __consumer_offsets exists on the source before the instances start (without it an instance works
 * alone and tries to share again 30 s later).
 * @param {{ topic: string, syncs: string, remote: string, warmGroup: string }} t
 * @returns {Promise<AdminOffsetCommitter>} a committer on the source (to close in after())
 */
async function seedSharedFlow({ topic, syncs, remote, warmGroup }) {
  const source = await env.admin('source');
  const target = await env.admin('target');
  await source.createTopics({ topics: [{ topic, numPartitions: 1 }, { topic: syncs, numPartitions: 1 }], waitForLeaders: true });
  await target.createTopics({ topics: [{ topic: remote, numPartitions: 1 }], waitForLeaders: true });
  const sp = env.kafka('source').producer({ allowAutoTopicCreation: false });
  const tp = env.kafka('target').producer({ allowAutoTopicCreation: false });
  await Promise.all([sp.connect(), tp.connect()]);
  await sp.send({ topic, messages: Array.from({ length: 20 }, (_, i) => ({ value: `r${i}` })) });
  await tp.send({ topic: remote, messages: Array.from({ length: 200 }, (_, i) => ({ value: `r${i}` })) });
  const { key, value } = encodeOffsetSync({ topic, partition: 0, upstreamOffset: 0n, downstreamOffset: 100n });
  await sp.send({ topic: syncs, messages: [{ key, value, partition: 0 }] });
  await Promise.all([sp.disconnect(), tp.disconnect()]);
  const committer = new AdminOffsetCommitter(env.kafka('source'));
  assert.equal((await committer.commit(warmGroup, [{ topic, partition: 0, offset: 0n }])).ok, true);
  await env.eventually(async () => (await source.listTopics()).includes('__consumer_offsets'), { what: '__consumer_offsets on the source' });
  return committer;
}

/**
 * The first nodes of a shared flow's test: its tab, the plain clusters `source` and `target` of the
 * test brokers (aliases `S` and `T`), and replication `rep` between them (offset syncs on the source).
 * @param {string} S @param {string} T @param {string} label the tab's label
 */
const sharedFlowBase = (S, T, label) => [
  { id: 'tab', type: 'tab', label, disabled: false, info: '' },
  { id: 'c-src', type: 'mm2-cluster', alias: S, bootstrap: env.cluster('source').bootstrap, saslMechanism: 'none' },
  { id: 'c-tgt', type: 'mm2-cluster', alias: T, bootstrap: env.cluster('target').bootstrap, saslMechanism: 'none' },
  { id: 'rep', type: 'mm2-replication', source: 'c-src', target: 'c-tgt', policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', replicationFactor: '1' },
];

module.exports = { nodeRedInstances, seedSharedFlow, sharedFlowBase };
