'use strict';
/**
 * What the checkpoint machinery retains per group partition, in-process, without brokers, by
 * structure, and what it allocates per second in steady state: the flow of bench/inproc-harness.js
 * (an `mm2-checkpoint` node's emitter and node classes, output 1 to an `mm2-group-offsets` node in
 * mode "input" and a debug node) for BENCH_MEM_GROUPS groups x BENCH_MEM_PARTITIONS partitions,
 * from clusters answering from memory without latency.
 *
 *   node bench/state-memory.js          (after npm run build; re-runs itself with --expose-gc)
 *   node bench/state-memory.js --json   (one JSON line: what bench/inproc.js reads)
 *
 * 1. The flow starts and writes every group on the target; its timers run (a full checkpoint
 *    cycle, a group refresh and a full group-offset run every BENCH_MEM_INTERVAL_MS, the 60 s
 *    periods at their defaults) for two intervals.
 * 2. Steady state: heap allocated over BENCH_MEM_STEADY_S seconds of that (v8.GCProfiler: the
 *    heap used at the end, minus at the start, plus what each collection freed), and CPU. The heap
 *    is collected in full first: a major collection in the window would otherwise count the set-up's
 *    garbage it frees (up to ~0.4-1 MiB/s more over 60 s, depending on when V8 ran it).
 * 3. The timers stop; retained = heap used after a full collection, minus before the flow was
 *    built (the harness's own tables are allocated before).
 * 4. Breakdown: the structures are released one at a time, in the order of STEPS below, the heap
 *    collected after each: what it freed is what that structure alone kept alive. An object held
 *    by two structures counts with the later one (the group names, for instance, with the last
 *    holder). The coverage entries' JSON (output 2) is made when a receiver reads the message's
 *    entries and kept by nothing after the message: not part of the retained state; what one
 *    read holds while its message lives is measured apart (`coverageJsonOnRead`).
 */
const path = require('node:path');

if (require.main === module && typeof global.gc !== 'function') {
  const r = require('node:child_process').spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=12288', __filename, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status === null ? 1 : r.status);
}

const root = path.join(__dirname, '..');
const { envInt } = require('./lib');
const { memoryCluster, buildFlow, initialSyncs, allocationMeter, waitFor } = require('./inproc-harness');
const { TranslationCache } = require(path.join(root, 'dist', 'core', 'translation-cache'));
const { coveragePayload } = require(path.join(root, 'dist', 'nodes', 'shared', 'contracts'));
const { GroupOffsetsRuns } = require(path.join(root, 'dist', 'nodes', 'mm2-group-offsets', 'mm2-group-offsets-status'));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** The JS heap and the typed arrays' buffers (off the heap: compact rows keep their values there). */
function heap() {
  global.gc();
  global.gc();
  // the typed arrays' backing stores are outside the JS heap (arrayBuffers): counted too, or rows in typed arrays would look free
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** The structures, released in this order (see the header). `of` names the owner in the breakdown. */
const STEPS = [
  { key: 'lastResult', of: 'nodes', label: "mm2-checkpoint: the last full cycle's result, kept for its status", release: (f) => (f.state.last = null) },
  { key: 'carried', of: 'nodes', label: 'mm2-checkpoint: what output 1 carried per group', release: (f) => (f.cycles.carried = new Map()) },
  { key: 'runs', of: 'nodes', label: "mm2-group-offsets: each group's last outcome and write time, for its status", release: (f) => (f.goCycles.runs = new GroupOffsetsRuns()) },
  { key: 'lastFull', of: 'emitter', label: "the last full cycle's lists (coverage list, readiness summaries, latest map)", release: (f) => (f.emitter.lastFull = null) },
  {
    key: 'coverage',
    of: 'emitter',
    label: 'coverage rows (per group rows of variable-length integers: values, no sentence, no JSON), readiness per group, its fields as columns by group number (the translation cache)',
    release: (f) => {
      // the reconcile layout reads a skipped group's rows and summary from it (nothing of its own per group)
      f.emitter.translations = new TranslationCache();
    },
  },
  {
    key: 'listings',
    of: 'emitter',
    label: "group listings (source and target: the compact listing each client's GroupListingKeeper made, names and a state code a group; as the engines keep them) and members on the target",
    release: (f, c) => {
      f.emitter.targetMembers.current = { members: new Map() };
      f.emitter.targetMembers.reuse = null; // the answer kept for reuse, with the listing it was made from
      if (f.syncer.quiet.last) f.syncer.quiet.last.states = null; // the writer's last clean full run: the target listing it judged from
      f.emitter.listing.listedStates = null;
      f.emitter.listing.otherTypes = [];
      f.syncer.listing.forget();
      c.source.dropListing();
      c.target.dropListing();
    },
  },
  {
    key: 'sourceOffsets',
    of: 'emitter',
    label: 'source offsets (rows per group partition, per partition index; groups numbered by the runtime interner)',
    release: async (f) => {
      await f.emitter.sourceOffsets.stop(); // the stream holds it too
      f.emitter.sourceOffsets = { stop: async () => undefined, release: () => undefined };
      f.emitter.fullReads = null; // and the full reads of the source (they merge into it)
      const d = f.emitter.discovery && f.emitter.discovery.d; // group discovery reads both (engines/checkpoint-discovery)
      if (d) {
        d.sourceOffsets = f.emitter.sourceOffsets;
        d.fullReads = null;
      }
    },
  },
  {
    key: 'syncStore',
    of: 'emitter',
    label: 'offset-sync store (precise: the sync kept per group partition)',
    release: (f) => {
      f.emitter.syncStore = null;
      f.emitter.layout.key = []; // the reconcile layout's key holds the stores (compared by identity)
    },
  },
  {
    key: 'checkpointStore',
    of: 'runtime',
    label: "checkpoint store (the latest checkpoint per group partition; the replication runtime's, the emitter writes it and the writer reads it)",
    release: (f) => {
      f.emitter.checkpointStore = null;
      f.runtime.stores.splice(0);
    },
  },
  { key: 'writerSkips', of: 'writer', label: "writer: its up-to-date skip entries", release: (f) => (f.syncer.targets.skips !== undefined ? (f.syncer.targets.skips = []) : f.syncer.targets.upToDateSkips.clear()) },
  {
    key: 'targetOffsets',
    of: 'writer',
    label: 'writer: target offsets as last read or written, when read, when written',
    release: (f) => {
      const t = f.syncer.targets;
      if (t.times !== undefined) {
        // typed arrays by group number (core/group-times, core/group-offset-rows) and their interner:
        // dropped whole (the timers are stopped: nothing reads them again), no new code compiled meanwhile
        t.known = null;
        t.times = null;
        t.names = null;
      } else {
        t.known.clear();
        t.readAt.clear();
        t.lastWrite.clear();
      }
    },
  },
  {
    key: 'writerCopies',
    of: 'writer',
    label: 'writer: its own checkpoints (none: it reads the runtime\'s store in place) and rewind marks',
    release: (f) => {
      f.syncer.replaceCheckpoints([]);
      f.syncer.targets.rewinds.clear();
    },
  },
  {
    key: 'groupNames',
    of: 'runtime',
    label: "group names: the replication runtime's interner (name -> number), shared by the source offsets, kept syncs, checkpoint store and target offsets",
    release: (f) => {
      f.runtime.names = null; // the tables above are gone: only the writer's options hold it besides
      f.syncer.opts.names = undefined;
    },
  },
];

/**
 * The coverage JSON (output 2's entries, made when a receiver reads them): what one read holds
 * while its message lives. A function of its own: what it made is garbage once it returns (a
 * temporary of the caller's frame would stay alive until that frame moves on).
 */
function coverageJsonOnRead(flow) {
  const last = flow.state.last;
  const list = flow.emitter.lastFull.coverage;
  // the emitter's compact rows per group (core/coverage-rows) or, before them, its entries
  const rows = list.length > 0 && typeof list[0].statusOf === 'function';
  const r = { cycle: last.cycle, groups: last.groups, failedGroups: last.failedGroups, readiness: last.readiness, durationMs: last.durationMs, coverage: list, ...(rows ? { coverageRows: list } : {}), membersOnTarget: flow.emitter.targetMembers.members };
  const payload = coveragePayload(r);
  const j0 = heap();
  const n = payload.entries.length;
  const bytes = heap() - j0;
  return n > 0 ? bytes : 0;
}

/** Latest checkpoints held, all groups. */
function checkpointCount(flow) {
  let n = 0;
  for (const list of (flow.emitter.latestState() ?? new Map()).values()) n += list.length;
  return n;
}

/** BENCH_MEM_HEAP_PROF=<file>: a sampling allocation profile of the steady-state window, collected objects included (bench/heap-profile-summary.js reads it). */
async function startHeapSampling(promotedOnly = false) {
  const inspector = require('node:inspector');
  const session = new inspector.Session();
  session.connect();
  const post = (m, p) => new Promise((resolve, reject) => session.post(m, p, (e, r) => (e ? reject(e) : resolve(r))));
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !promotedOnly });
  return {
    async stop(file) {
      const r = await post('HeapProfiler.stopSampling');
      require('node:fs').writeFileSync(file, JSON.stringify(r.profile));
      session.disconnect();
    },
  };
}

async function measureMemory(o) {
  if (typeof global.gc !== 'function') throw new Error('measureMemory needs node --expose-gc (run bench/state-memory.js, which restarts itself with it)');
  const { groups, parts } = o;
  const gp = groups * parts;
  const clusters = {
    source: memoryCluster({ role: 'source', groups, parts, initial: true }),
    target: memoryCluster({ role: 'target', groups, parts }),
  };
  const syncs = initialSyncs(parts);
  const base = heap();
  let flow = buildFlow({
    ...clusters,
    periodic: false,
    emitMs: o.intervalMs,
    refreshMs: o.intervalMs,
    syncMs: o.intervalMs,
    periodMs: undefined, // the 60 s periods at their defaults
    minWriteIntervalMs: 200,
    debugWire: true,
  });
  // BENCH_MEM_SETUP_PROF=<file>: what the set-up (the catch-up) promoted (objects a scavenge collected left out)
  const setupProf = process.env.BENCH_MEM_SETUP_PROF ? await startHeapSampling(true) : null;
  const t0 = Date.now();
  await flow.start(syncs);
  await waitFor(() => clusters.target.presentCount === groups && !flow.syncer.busy, 'every group on the target', o.timeoutMs);
  if (setupProf) await setupProf.stop(process.env.BENCH_MEM_SETUP_PROF);
  const startupMs = Date.now() - t0;
  flow.startTimers();
  await sleep(2 * o.intervalMs + 200);
  // steady: two more full cycles and writer runs completed (on a loaded machine the first ones after the setup take longer)
  const w0 = { ...flow.counters };
  await waitFor(() => flow.counters.fullCycles >= w0.fullCycles + 2 && flow.counters.writerFullRuns >= w0.writerFullRuns + 2, 'two full cycles and writer runs', o.timeoutMs);
  const c0 = { ...flow.counters };
  const heapProf = process.env.BENCH_MEM_HEAP_PROF ? await startHeapSampling() : null;
  // what the set-up left as garbage goes now, not counted by a collection in the window (see the header)
  global.gc();
  global.gc();
  const alloc = allocationMeter();
  const cpu0 = process.cpuUsage();
  const s0 = Date.now();
  await sleep(o.steadyS * 1000);
  const steadyMs = Date.now() - s0;
  const cpu = process.cpuUsage(cpu0);
  const allocated = alloc.stop();
  if (heapProf) await heapProf.stop(process.env.BENCH_MEM_HEAP_PROF);
  const steadyCounters = Object.fromEntries(Object.keys(c0).filter((k) => typeof c0[k] === 'number').map((k) => [k, flow.counters[k] - c0[k]]));
  flow.stopTimers();
  // quiet: no cycle, run, discovery or message in flight, and the heap the same twice
  const idle = () => !flow.syncer.busy && !flow.emitter.busy && flow.emitter.discoveryP === null;
  let settled = 0;
  for (let i = 0; i < 10; i++) {
    await waitFor(idle, 'the cycles to end', o.timeoutMs);
    await sleep(200);
    const h1 = heap();
    await sleep(200);
    await waitFor(idle, 'the cycles to end', o.timeoutMs);
    settled = heap();
    if (Math.abs(settled - h1) < 0.002 * (settled - base)) break;
  }
  const retained = settled - base;
  const checkpoints = checkpointCount(flow);
  // the writer's own store: empty while it reads the runtime's in place
  let writerOwnCheckpoints = 0;
  for (const g of flow.syncer.own.groups()) writerOwnCheckpoints += flow.syncer.own.get(g).length;

  const coverageJson = coverageJsonOnRead(flow);
  let prev = heap();
  // nothing may have grown since the retained figure was taken (the breakdown would not add up)
  const drift = prev - base - retained;
  const breakdown = [];
  for (const step of STEPS) {
    await step.release(flow, clusters);
    const h = heap();
    const bytes = prev - h;
    breakdown.push({ key: step.key, of: step.of, label: step.label, bytes });
    prev = h;
  }
  flow = null;
  const h = heap();
  // what is left: a heap snapshot shows it (BENCH_MEM_SNAPSHOT=<file>)
  if (process.env.BENCH_MEM_SNAPSHOT) require('node:v8').writeHeapSnapshot(process.env.BENCH_MEM_SNAPSHOT);
  breakdown.push({ key: 'rest', of: 'all', label: 'the rest (group selection, the engines and node objects themselves, what they shared)', bytes: prev - h });
  const sum = breakdown.reduce((a, b) => a + b.bytes, 0);
  breakdown.push({ key: 'notReleased', of: 'all', label: 'left when all of the above went (retained minus the rows above): code V8 compiled meanwhile (a heap snapshot: ~2.5 MiB of code and feedback, ~40 KiB of shapes, no group names; fixed, not per group)', bytes: retained - sum });
  return {
    settings: { ...o },
    groupPartitions: gp,
    checkpoints,
    writerOwnCheckpoints,
    startupMs,
    retained,
    retainedPerGroupPartition: retained / gp,
    coverageJsonOnRead: coverageJson,
    driftBeforeBreakdown: drift,
    breakdown: breakdown.map((b) => ({ ...b, perGroupPartition: b.bytes / gp })),
    steady: {
      seconds: steadyMs / 1000,
      allocatedMiBPerSecond: allocated.bytes / 1048576 / (steadyMs / 1000),
      // per full checkpoint cycle (with its share of the group refreshes and writer runs): what a loaded machine changes least
      allocatedMiBPerFullCycle: allocated.bytes / 1048576 / Math.max(1, steadyCounters.fullCycles),
      gcs: allocated.gcs,
      cpuSecondsPerMinute: ((cpu.user + cpu.system) / 1e6 / (steadyMs / 1000)) * 60,
      counters: steadyCounters,
    },
  };
}

const mib = (b) => (b / 1048576).toFixed(1);

function describe(r) {
  const s = r.settings;
  const lines = [
    `${s.groups} groups x ${s.parts} partitions (${r.groupPartitions} group partitions, ${r.checkpoints} checkpoints); set up in ${(r.startupMs / 1000).toFixed(1)} s`,
    `retained: ${mib(r.retained)} MiB, ${Math.round(r.retainedPerGroupPartition)} B per group partition`,
  ];
  const w = Math.max(...r.breakdown.map((b) => b.label.length));
  for (const b of r.breakdown) lines.push(`  ${b.label.padEnd(w)}  ${mib(b.bytes).padStart(7)} MiB  ${String(Math.round(b.perGroupPartition)).padStart(5)} B`);
  lines.push(`output 2's entries (JSON, sentences), made when a receiver reads them, held by that message only: ${mib(r.coverageJsonOnRead)} MiB, ${Math.round(r.coverageJsonOnRead / r.groupPartitions)} B per group partition`);
  const c = r.steady.counters;
  lines.push(
    `steady state (every interval ${s.intervalMs} ms, 60 s periods at their defaults), ${r.steady.seconds.toFixed(1)} s: allocated ${r.steady.allocatedMiBPerSecond.toFixed(1)} MiB/s, ${r.steady.allocatedMiBPerFullCycle.toFixed(2)} MiB per full checkpoint cycle (${r.steady.gcs} collections), CPU ${r.steady.cpuSecondsPerMinute.toFixed(1)} s/min; ${c.fullCycles} full checkpoint cycles, ${c.writerFullRuns} full writer runs, ${c.out1} output-1 messages (${c.out1Whole} whole state)`,
  );
  return lines.join('\n');
}

function settingsFromEnv() {
  return {
    groups: envInt('BENCH_MEM_GROUPS', 10000),
    parts: envInt('BENCH_MEM_PARTITIONS', 10),
    intervalMs: envInt('BENCH_MEM_INTERVAL_MS', 1000),
    steadyS: envInt('BENCH_MEM_STEADY_S', 5),
    timeoutMs: envInt('BENCH_MEM_TIMEOUT_MS', 600000),
  };
}

if (require.main === module) {
  measureMemory(settingsFromEnv())
    .then((r) => {
      if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(r)}\n`);
      else process.stdout.write(`${describe(r)}\n`);
      process.exit(0);
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}

module.exports = { measureMemory, describe, settingsFromEnv, STEPS };
