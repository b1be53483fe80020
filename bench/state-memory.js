'use strict';
/**
 * What the checkpoint emitter and the group-offset writer retain per group partition, in-process,
 * without brokers: both built for BENCH_MEM_GROUPS groups x BENCH_MEM_PARTITIONS partitions from
 * connections answering from memory, a few full cycles run (the first translates everything, the
 * others find nothing moved), then heap used after a collection.
 *
 *   node bench/state-memory.js        (after npm run build; re-runs itself with --expose-gc)
 *
 * Prints the retained heap of each, per group partition, and the heap allocated by one
 * steady-state full cycle of the emitter (what V8's heap grows with under churn).
 */
const path = require('node:path');

if (typeof global.gc !== 'function') {
  const r = require('node:child_process').spawnSync(process.execPath, ['--expose-gc', __filename, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status === null ? 1 : r.status);
}

const root = path.join(__dirname, '..');
const { envInt } = require('./lib');
const { CheckpointEmitter } = require(path.join(root, 'dist', 'engines', 'checkpoint-emitter'));
const { GroupOffsetSyncer } = require(path.join(root, 'dist', 'engines', 'group-offset-syncer'));
const { createReplicationPolicy } = require(path.join(root, 'dist', 'core', 'replication-policy'));
const { createGroupFilter, createTopicFilter } = require(path.join(root, 'dist', 'core', 'filters'));

const GROUPS = envInt('BENCH_MEM_GROUPS', 10000);
const PARTS = envInt('BENCH_MEM_PARTITIONS', 10);
const CYCLES = envInt('BENCH_MEM_CYCLES', 3);
/** also build the node's coverage message of each cycle (mm2-checkpoint output 2) */
const withMessages = envInt('BENCH_MEM_MESSAGES', 1) === 1;
const { coveragePayload } = require(path.join(root, 'dist', 'nodes', 'shared', 'contracts'));
const TOPIC = 'bench-fresh';
const CP_TOPIC = 'source.checkpoints.internal';

/** offsets as a broker's answer would build them: new strings per answer (as decoded from the wire) */
function answer(g) {
  const list = [];
  for (let p = 0; p < PARTS; p++) list.push({ topic: `${TOPIC}`.slice(0), partition: p, offset: BigInt(1000 + ((g * 7 + p) % 50)), metadata: '' });
  return list;
}
const groupName = (i) => `bench-fresh-g${String(i).padStart(5, '0')}`;
const names = Array.from({ length: GROUPS }, (_, i) => groupName(i));

function memoryConnection() {
  const admin = {
    listGroups: async () => ({ groups: names.map((n) => ({ groupId: `${n}`.slice(0), protocolType: 'consumer' })) }),
    listTopics: async () => [CP_TOPIC, `source.${TOPIC}`],
    // the checkpoints topic is empty; the remote topic has every partition, its log end past every checkpoint
    fetchTopicOffsets: async (topic) =>
      topic === CP_TOPIC ? [{ partition: 0, offset: '0', high: '0', low: '0' }] : Array.from({ length: PARTS }, (_, partition) => ({ partition, offset: '100000', high: '100000', low: '0' })),
  };
  return {
    alias: 'x',
    kafka: null,
    admin: async () => admin,
    producer: async () => ({ send: async () => undefined }),
    offsetFetcher: () => ({
      fetchMany: async (gs) => {
        const offsets = new Map();
        for (const g of gs) offsets.set(g, answer(names.indexOf(g) >= 0 ? Number(g.slice(-5)) : 0));
        return { offsets, failed: new Map() };
      },
      listGroupStates: async () => new Map(names.map((n) => [n, { state: 'Empty', protocolType: 'consumer' }])),
      coordinatorFailures: async () => new Map(),
    }),
    committer: () => ({ commitMany: async (commits) => new Map(commits.map((c) => [c.group, { ok: true }])) }),
    reportOk: () => undefined,
    reportError: (e) => String(e && e.message),
  };
}

function heap() {
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed;
}
const mib = (b) => (b / 1048576).toFixed(1);

/** The group-offset writer holding every checkpoint of the emitter, after two full runs (their results dropped, as the node does once sent). */
async function writer(emitter, target) {
  const syncer = new GroupOffsetSyncer({ connection: target, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0 });
  for (const [, list] of emitter.latestState()) for (const cp of list) syncer.put(cp);
  for (let i = 0; i < 2; i++) (await syncer.sync()).written.length;
  return syncer;
}

async function main() {
  const base = heap();
  const source = memoryConnection();
  const target = memoryConnection();
  const names2 = { sourceAlias: 'source', targetAlias: 'target', checkpointsTopic: CP_TOPIC };
  const filters = { groupFilter: createGroupFilter({}), topicFilter: createTopicFilter({}) };
  const emitter = new CheckpointEmitter({ source, target, ...names2, ...filters, policy: createReplicationPolicy({}), ensureTopic: async () => undefined, sourceOffsets: 'poll' });
  await emitter.start();
  const syncs = [];
  for (let p = 0; p < PARTS; p++) for (let u = 0; u <= 1100; u += 100) syncs.push({ topic: TOPIC, partition: p, upstreamOffset: BigInt(u), downstreamOffset: BigInt(u) });
  emitter.handleSyncEvent({ event: 'syncs', syncs });
  emitter.handleSyncEvent({ event: 'loaded' });
  await emitter.refreshGroups();
  let last;
  const t0 = process.cpuUsage();
  // as the node does with each completed cycle: the coverage message (its JSON entries are cached per entry)
  for (let i = 0; i < CYCLES; i++) {
    last = await emitter.cycle({});
    if (withMessages) coveragePayload(last);
  }
  const cpu = process.cpuUsage(t0);
  const written = last.written.length;
  last = null;
  const afterEmitter = heap();
  if (process.env.BENCH_MEM_SNAPSHOT) require("node:v8").writeHeapSnapshot(process.env.BENCH_MEM_SNAPSHOT);
  // one steady-state cycle: what it allocates (the heap before collection)
  global.gc();
  const before = process.memoryUsage().heapUsed;
  const h0 = require('node:v8').getHeapStatistics().total_heap_size;
  const steady = await emitter.cycle({});
  if (withMessages) coveragePayload(steady);
  const churn = process.memoryUsage().heapUsed - before;
  void steady;

  const syncer = await writer(emitter, target);
  const afterSyncer = heap();
  if (process.env.BENCH_MEM_SNAPSHOT2) require("node:v8").writeHeapSnapshot(process.env.BENCH_MEM_SNAPSHOT2);
  const gp = GROUPS * PARTS;
  console.log(`groups ${GROUPS} x ${PARTS} partitions (${gp} group partitions), ${CYCLES} full cycles (last wrote ${written})${withMessages ? ', with the coverage message of each' : ''}`);
  console.log(`emitter retained: ${mib(afterEmitter - base)} MiB (${Math.round((afterEmitter - base) / gp)} B per group partition)`);
  console.log(`writer retained:  ${mib(afterSyncer - afterEmitter)} MiB (${Math.round((afterSyncer - afterEmitter) / gp)} B per group partition)`);
  console.log(`one steady full cycle allocated ${mib(churn)} MiB; cpu of the ${CYCLES} cycles ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s; total heap ${mib(h0)} MiB`);
  await emitter.stop();
  await syncer.close?.();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
