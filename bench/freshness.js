'use strict';
/**
 * Freshness benchmark: how soon a commit on the source is visible, translated, on the target,
 * for our flow (examples/checkpoints-beside-mm2.json in a real Node-RED) and for the real
 * MirrorMaker 2 (dedicated mode) side by side on the same two clusters, with the same offset
 * syncs (written by MM2's source connector, read by both) and twin groups committed to the same
 * offsets at the same moment. Run with `npm run bench:freshness`; see bench/README.md.
 *
 * Everything it starts (clusters, MM2, Node-RED, Kafka clients) is stopped at the end, also on
 * failure. Progress goes to stderr; the figures go to stdout.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const root = path.join(__dirname, '..');
const { startClusters, DEFAULT_KAFKA_VERSION } = require(path.join(root, 'scripts', 'kafka', 'cluster'));
const { startMirrorMaker } = require(path.join(root, 'scripts', 'kafka', 'connect'));
const { startNodeRed } = require(path.join(root, 'scripts', 'node-red-runner'));
const {
  envList, envInt, progress, sleep, fmtInt, fmtMiB, mapLimit, onCleanup,
  rawKafka, createTopic, procStatus, printTable, cpuModel, commitRetrying,
  runBench, cpuSeconds, measureProcesses, percentile, fmtS, ratio, whatElseRuns,
} = require('./lib');
const { ClusterConnection } = require(path.join(root, 'dist', 'kafka', 'connection'));
const { decodeOffsetSync } = require(path.join(root, 'dist', 'core', 'offset-sync'));
const { decodeCheckpoint } = require(path.join(root, 'dist', 'core', 'checkpoint'));

// ---- settings ---------------------------------------------------------------------------------

const S = {
  groups: process.env.BENCH_GROUPS === '0' ? [] : envList('BENCH_GROUPS', '100,1000,10000'),
  partitions: envInt('BENCH_GROUP_PARTITIONS', 10),
  samples: envInt('BENCH_SAMPLES', 200),
  sampleEveryMs: envInt('BENCH_SAMPLE_EVERY_MS', 150),
  sampleTimeoutS: envInt('BENCH_SAMPLE_TIMEOUT_S', 120),
  pollMs: envInt('BENCH_POLL_MS', 50),
  steadySeconds: envInt('BENCH_STEADY_SECONDS', 30),
  steadyTimeoutS: envInt('BENCH_STEADY_TIMEOUT_S', 900),
  pollFallbackGroups: process.env.BENCH_POLL_FALLBACK_GROUPS === '0' ? [] : envList('BENCH_POLL_FALLBACK_GROUPS', '1000'),
  // ours alone: MM2 runs only its source connector (the offset syncs), its checkpoint connector
  // off, so that no MM2 group polling loads the brokers (at 10,000 groups it saturates them)
  aloneGroups: process.env.BENCH_ALONE_GROUPS === '0' ? [] : envList('BENCH_ALONE_GROUPS', '10000'),
  commitConcurrency: envInt('BENCH_COMMIT_CONCURRENCY', 64),
  trafficMs: envInt('BENCH_TRAFFIC_MS', 1000),
  // MM2 ran out of its harness default of 512 MiB at 10,000 groups (OutOfMemoryError in its checkpoint task)
  mm2Heap: process.env.BENCH_MM2_HEAP || '2g',
  timeoutS: envInt('BENCH_TIMEOUT_S', 5400),
  // a file: every sample's commit time and latencies, and the example's debug nodes (one line per
  // cycle of each node: epoch ms, cycle, duration, counts) from Node-RED's log, as JSON lines
  trace: process.env.BENCH_TRACE || '',
  // a folder: Node-RED runs with --cpu-prof and writes its CPU profile there when it stops
  nrCpuProf: process.env.BENCH_NR_CPU_PROF || '',
  // a folder: Node-RED's memory figures every 2 s (bench/nr-memory-preload.js) as n<N>-<variant>/memory.jsonl,
  // and with BENCH_NR_HEAP_SNAPSHOT=1 its heap snapshot at the end of the steady window (default: BENCH_NR_CPU_PROF, else a temporary folder)
  // with BENCH_NR_CPU_PROF: profile the catch-up too (from the setup commits to the steady state: 1.cpuprofile / 1.heapprofile; the steady window is then 2, sampling 3)
  profileCatchUp: process.env.BENCH_NR_PROFILE_CATCHUP === '1' && !!process.env.BENCH_NR_CPU_PROF,
  nrMemoryDir: process.env.BENCH_NR_MEMORY_DIR || process.env.BENCH_NR_CPU_PROF || path.join(os.tmpdir(), `kafka-mm2-bench-freshness-${process.pid}`),
};
const KAFKA_VERSION = process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION;
const TOPIC = 'bench-fresh';
const REMOTE = `source.${TOPIC}`; // DefaultReplicationPolicy, aliases source and target (as in the example flow)
const SYNCS_TOPIC = 'mm2-offset-syncs.target.internal'; // MM2's default location: the source cluster
const FLOW = 'source->target';
/** Least step of a sampled commit, in records (see the sample loop). */
const MIN_STEP = BigInt(envInt('BENCH_MIN_STEP', 32));
// ---- small helpers ----------------------------------------------------------------------------

/** Does the checkpoint node offer `sourceOffsets` (auto / poll)? Read from its editor definition, which is what Node-RED knows. */
function checkpointNodeKnowsSourceOffsets() {
  const html = path.join(root, 'dist', 'nodes', 'mm2-checkpoint', 'mm2-checkpoint.html');
  if (!fs.existsSync(html)) return false;
  return /\bsourceOffsets\s*:/.test(fs.readFileSync(html, 'utf8'));
}

/** Every record of a checkpoints topic (one partition) with its timestamp, decoded; undecodable ones left out. */
async function checkpointRecords(cluster, topic) {
  const kafka = rawKafka(cluster, 'bench-fresh-trace');
  const admin = kafka.admin();
  await admin.connect();
  const end = BigInt((await admin.fetchTopicOffsets(topic)).find((o) => o.partition === 0).high);
  await admin.disconnect();
  const out = [];
  if (end === 0n) return out;
  const consumer = kafka.consumer({ groupId: `__bench-fresh-trace-${process.pid}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  let last = -1n;
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      last = BigInt(message.offset);
      try {
        out.push({ timestamp: Number(message.timestamp), cp: decodeCheckpoint(message.key, message.value) });
      } catch {
        /* not a checkpoint */
      }
    },
  });
  for (const deadline = Date.now() + 120000; last < end - 1n && Date.now() < deadline; ) await sleep(200);
  await consumer.disconnect();
  return out;
}

// ---- the flow --------------------------------------------------------------------------------

function benchFlow(clusters, variant) {
  const flows = JSON.parse(fs.readFileSync(path.join(root, 'examples', 'checkpoints-beside-mm2.json'), 'utf8'));
  const one = (pred, what) => {
    const l = flows.filter(pred);
    if (l.length !== 1) throw new Error(`examples/checkpoints-beside-mm2.json: expected one ${what}, found ${l.length}`);
    return l[0];
  };
  one((n) => n.id === 'c-src', 'source cluster node c-src').bootstrap = clusters.source.bootstrap;
  one((n) => n.id === 'c-tgt', 'target cluster node c-tgt').bootstrap = clusters.target.bootstrap;
  const rep = one((n) => n.type === 'mm2-replication', 'mm2-replication');
  if (rep.offsetSyncsLocation !== 'source') throw new Error(`the example reads offset syncs from '${rep.offsetSyncsLocation}', the bench expects MM2's default (source)`);
  const cp = one((n) => n.type === 'mm2-checkpoint', 'mm2-checkpoint');
  cp.groups = 'ours-.*';
  cp.emitCheckpointsIntervalSeconds = '1';
  cp.refreshGroupsIntervalSeconds = '1';
  if (variant === 'poll') cp.sourceOffsets = 'poll';
  const go = one((n) => n.type === 'mm2-group-offsets', 'mm2-group-offsets');
  go.groups = 'ours-.*';
  go.syncGroupOffsetsIntervalSeconds = '1';
  if (S.trace) {
    const summary = {
      'dbg-cp': '"cp", "cycle": payload.cycle, "full": payload.full, "checkpoints": $count(payload.checkpoints)',
      'dbg-cov': '"cov", "cycle": payload.cycle, "groups": payload.groups, "partitions": payload.partitions, "durationMs": payload.durationMs',
      'dbg-go': '"go", "cycle": payload.cycle, "written": $count(payload.written), "skipped": $count(payload.skipped), "durationMs": payload.durationMs',
    };
    for (const [id, fields] of Object.entries(summary)) {
      const d = one((n) => n.id === id, `debug node ${id}`);
      Object.assign(d, { console: true, tosidebar: false, targetType: 'jsonata', complete: `"TRACE " & $string({"t": $millis(), "node": ${fields}})` });
    }
  }
  return flows;
}

// ---- one run: N twin groups ------------------------------------------------------------------

const results = [];

async function runOne(N, variant) {
  const P = S.partitions;
  const row = { N, variant, startedAt: performance.now(), before: whatElseRuns() };
  results.push(row);
  const stops = [];
  const later = (what, fn) => stops.push(onCleanup(what, fn));
  try {
    progress(`N=${N}${variant === 'poll' ? ' (polling fallback)' : variant === 'alone' ? ' (ours alone)' : ''}: two clusters`);
    const clusters = await startClusters(['source', 'target'], { version: KAFKA_VERSION });
    later('Kafka clusters', () => clusters.stop());
    const srcKafka = rawKafka(clusters.source, 'bench-fresh');
    const srcAdmin = srcKafka.admin();
    await srcAdmin.connect();
    later('source admin', () => srcAdmin.disconnect());
    await createTopic(srcAdmin, TOPIC, P);

    // Traffic: one record per partition every BENCH_TRAFFIC_MS, so MM2 keeps writing fresh offset syncs.
    const producer = srcKafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    let traffic = true;
    let seq = 0;
    const trafficLoop = (async () => {
      while (traffic) {
        const t = Date.now();
        await producer.send({ topic: TOPIC, acks: -1, messages: Array.from({ length: P }, (_, p) => ({ partition: p, value: `r${seq++}` })) }).catch(() => undefined);
        await sleep(Math.max(0, S.trafficMs - (Date.now() - t)));
      }
    })();
    later('traffic', async () => {
      traffic = false;
      await trafficLoop;
      await producer.disconnect();
    });

    progress('  MirrorMaker 2 (dedicated mode, every interval 1 s, sync.group.offsets.enabled=true)');
    const mm2 = await startMirrorMaker({
      source: clusters.source.bootstrap,
      target: clusters.target.bootstrap,
      version: KAFKA_VERSION,
      heap: S.mm2Heap,
      props: {
        [`${FLOW}.topics`]: TOPIC,
        [`${FLOW}.groups`]: 'mm2-.*',
        [`${FLOW}.emit.checkpoints.interval.seconds`]: 1,
        [`${FLOW}.sync.group.offsets.enabled`]: variant === 'alone' ? 'false' : 'true',
        ...(variant === 'alone' ? { [`${FLOW}.emit.checkpoints.enabled`]: 'false' } : {}),
        [`${FLOW}.sync.group.offsets.interval.seconds`]: 1,
        [`${FLOW}.refresh.groups.interval.seconds`]: 1,
        [`${FLOW}.refresh.topics.interval.seconds`]: 1,
        [`${FLOW}.emit.heartbeats.interval.seconds`]: 1,
        // a sync for every record: each sampled commit lands exactly on a sync, so its
        // translation is exact (and distinct from the previous one)
        [`${FLOW}.offset.lag.max`]: 0,
      },
    });
    later('MirrorMaker 2', () => mm2.stop());

    // The offset syncs as MM2 writes them: the bench commits on them.
    /** @type {Map<number, Array<{ up: bigint, down: bigint, seenAt: number }>>} */
    const syncs = new Map();
    for (let deadline = Date.now() + 120000; !(await srcAdmin.listTopics()).includes(SYNCS_TOPIC); ) {
      if (Date.now() > deadline) throw new Error(`MM2 did not create ${SYNCS_TOPIC} within 120 s`);
      await sleep(250);
    }
    const syncReader = srcKafka.consumer({ groupId: `__bench-fresh-syncs-${process.pid}`, maxWaitTimeInMs: 100 });
    await syncReader.connect();
    later('offset-sync reader', () => syncReader.disconnect());
    await syncReader.subscribe({ topics: [SYNCS_TOPIC], fromBeginning: true });
    await syncReader.run({
      eachMessage: async ({ message }) => {
        let s;
        try {
          s = decodeOffsetSync(message.key, message.value);
        } catch {
          return;
        }
        if (s.topic !== TOPIC) return;
        const l = syncs.get(s.partition) ?? [];
        l.push({ up: s.upstreamOffset, down: s.downstreamOffset, seenAt: performance.now() });
        if (l.length > 50) l.shift();
        syncs.set(s.partition, l);
      },
    });
    /** The newest sync of partition p seen at least 300 ms ago (so both readers have it too). */
    const settledSync = (p) => {
      const l = syncs.get(p) ?? [];
      const now = performance.now();
      for (let i = l.length - 1; i >= 0; i--) if (now - l[i].seenAt >= 300) return l[i];
      return undefined;
    };
    for (let deadline = Date.now() + 120000; ; ) {
      if (Array.from({ length: P }, (_, p) => settledSync(p)).every(Boolean)) break;
      if (Date.now() > deadline) throw new Error('no offset sync for every partition within 120 s');
      await sleep(200);
    }

    progress('  Node-RED with examples/checkpoints-beside-mm2.json (intervals 1 s, groups ours-.*)');
    const memoryFile = path.resolve(S.nrMemoryDir, `n${N}-${variant}`, 'memory.jsonl');
    fs.rmSync(memoryFile, { force: true });
    const preloads = [path.join(__dirname, 'nr-memory-preload.js'), ...(S.nrCpuProf ? [path.join(__dirname, 'cpu-profile-preload.js')] : [])];
    const nr = await startNodeRed({ quiet: true, logLevel: S.trace ? 'info' : 'warn', flows: benchFlow(clusters, variant),
      env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${preloads.map((f) => `--require ${f}`).join(' ')}`.trim(), BENCH_NR_MEMORY_FILE: memoryFile,
        ...(S.nrCpuProf ? { BENCH_CPU_PROF_DIR: path.resolve(S.nrCpuProf, `n${N}-${variant}`) } : {}), ...(S.profileCatchUp ? { BENCH_NR_WINDOW_END_SIGNAL: '4' } : {}) } });
    // our nodes must have loaded (a build running while Node-RED starts leaves them missing): fail now, not after the steady-state timeout
    const loadErrors = ((await nr.request('GET', '/nodes', undefined, { Accept: 'application/json' })).json ?? [])
      .filter((m) => m.module === '@kafka-mm2/node-red' && m.err)
      .map((m) => `${m.name}: ${String(m.err).split('\n')[0]}`);
    if (loadErrors.length > 0) throw new Error(`our nodes did not load in Node-RED: ${loadErrors.join('; ')}`);
    /** SIGWINCH: BENCH_NR_CPU_PROF starts / stops (and writes) Node-RED's CPU profile (1.cpuprofile = steady state, 2 = sampling);
     * the second one (end of the steady window) takes the heap snapshot with BENCH_NR_HEAP_SNAPSHOT=1 (bench/nr-memory-preload.js). */
    const toggleProfile = () => process.kill(nr.process.pid, 'SIGWINCH');
    let closeTimedOut = false;
    later('Node-RED', async () => {
      await nr.stop();
      closeTimedOut = /Close timed out/.test(nr.log);
    });

    // Twin groups, committed on the settled sync of every partition.
    const source = new ClusterConnection({ alias: 'source', bootstrapServers: [clusters.source.bootstrap], clientId: 'bench-fresh' });
    const target = new ClusterConnection({ alias: 'target', bootstrapServers: [clusters.target.bootstrap], clientId: 'bench-fresh' });
    later('bench connections', () => Promise.all([source.close(), target.close()]));
    const committer = source.committer();
    const fetcher = target.offsetFetcher();
    const name = (side, i) => `${side}-g${String(i).padStart(5, '0')}`;
    const start = Array.from({ length: P }, (_, p) => settledSync(p));
    /** committed upstream offset of twin i, partition p (the same for both twins) */
    const cur = Array.from({ length: N }, () => start.map((s) => s.up));
    const tc = performance.now();
    if (S.profileCatchUp) toggleProfile(); // BENCH_NR_PROFILE_CATCHUP: 1.cpuprofile / 1.heapprofile = from the setup commits to the steady state
    // alone: only our groups (MM2 checkpoints nothing)
    const setup = await mapLimit(Array.from({ length: variant === 'alone' ? N : 2 * N }, (_, k) => k), S.commitConcurrency, (k) =>
      variant === 'alone'
        ? commitRetrying(committer, name('ours', k), start.map((s, p) => ({ topic: TOPIC, partition: p, offset: s.up })))
        : commitRetrying(committer, name(k % 2 === 0 ? 'mm2' : 'ours', k >> 1), start.map((s, p) => ({ topic: TOPIC, partition: p, offset: s.up }))),
    );
    const bad = setup.filter((r) => !r.ok);
    if (bad.length > 0) throw new Error(`${bad.length} setup commits failed, e.g. ${bad[0].errorType}: ${bad[0].message}`);
    const tcEnd = performance.now();
    row.setupCommitMs = tcEnd - tc;
    progress(`  committed ${fmtInt(variant === 'alone' ? N : 2 * N)} groups × ${P} partitions in ${fmtInt(row.setupCommitMs)} ms (${S.commitConcurrency} OffsetCommits in flight)`);

    /** Target offset of (group, partition p) from one OffsetFetch; -1n when none. */
    const targetOffsets = async (group) => {
      const offs = await fetcher.fetch(group);
      const m = new Map();
      for (const o of offs) if (o.topic === REMOTE && o.offset !== null) m.set(o.partition, o.offset);
      return m;
    };

    // Steady state: every partition of every group of both sides has an offset on the target.
    // (Not "at the translation of the sync committed on": MM2's offset-sync store, and ours with
    // it, keeps only exponentially spaced older syncs, so a commit on a sync that was since
    // superseded may translate to an older sync + 1.)
    progress(`  waiting for steady state (every group of ${variant === 'alone' ? 'ours' : 'both sides'} on the target)`);
    const pendingSteady = { mm2: new Set(variant === 'alone' ? [] : Array.from({ length: N }, (_, i) => i)), ours: new Set(Array.from({ length: N }, (_, i) => i)) };
    row.allVisibleMs = {};
    let lastLogCheck = performance.now();
    for (const steadyDeadline = performance.now() + S.steadyTimeoutS * 1000; ; ) {
      for (const side of ['mm2', 'ours']) {
        // One OffsetFetch v8 per coordinator for many groups (the product's GroupOffsetFetcher.fetchMany):
        // one request per group, 32 in flight, cost 20,000 requests a pass at 10,000 twin groups and
        // took CPU from both sides during the wait.
        const left = [...pendingSteady[side]];
        const { offsets, failed } = await fetcher.fetchMany(left.map((i) => name(side, i)));
        if (process.env.BENCH_DEBUG) for (const [g, reason] of failed) progress(`    ${g}: ${reason}`);
        for (const i of left) {
          const have = new Set((offsets.get(name(side, i)) ?? []).filter((o) => o.topic === REMOTE && o.offset !== null).map((o) => o.partition));
          if (start.every((_, p) => have.has(p))) pendingSteady[side].delete(i);
        }
        if (pendingSteady[side].size === 0 && row.allVisibleMs[side] === undefined && (side === 'ours' || variant !== 'alone')) {
          row.allVisibleMs[side] = performance.now() - tcEnd;
          progress(`    ${side}: all ${fmtInt(N)} groups visible ${fmtS(row.allVisibleMs[side])} after the setup commits`);
        }
      }
      if (process.env.BENCH_DEBUG) progress(`    not yet on the target: MM2 ${pendingSteady.mm2.size}, ours ${pendingSteady.ours.size}`);
      if (pendingSteady.mm2.size === 0 && pendingSteady.ours.size === 0) break;
      if (performance.now() - lastLogCheck > 10000 && ((lastLogCheck = performance.now()), /OutOfMemoryError/.test(mm2.log()))) throw new Error(`MM2 ran out of heap (-Xmx${S.mm2Heap}, BENCH_MM2_HEAP) with ${pendingSteady.mm2.size} of its groups not on the target`);
      row.pendingSteady = { mm2: pendingSteady.mm2.size, ours: pendingSteady.ours.size };
      if (performance.now() > steadyDeadline) {
        // ours is there and MM2 is not: measure ours alone and say so (MM2's row: no steady state)
        if (pendingSteady.ours.size === 0) {
          row.mm2NotSteady = pendingSteady.mm2.size;
          progress(`    MM2: ${fmtInt(pendingSteady.mm2.size)} of its groups still not on the target after ${S.steadyTimeoutS} s: sampling ours alone`);
          break;
        }
        throw new Error(`no steady state within ${S.steadyTimeoutS} s: ${pendingSteady.mm2.size} MM2 and ${pendingSteady.ours.size} of our groups not on the target`);
      }
      try {
        row.lastSeen = { nodeRed: procStatus(nr.process.pid).rssKb, mm2: procStatus(mm2.child.pid).rssKb };
      } catch {
        /* a process exited: the next checks say so */
      }
      await sleep(500);
    }

    const pids = { nodeRed: nr.process.pid, mm2: mm2.child.pid };
    /** the sides sampled: both, or ours alone when MM2 reached no steady state */
    const sides = row.mm2NotSteady || variant === 'alone' ? ['ours'] : ['mm2', 'ours'];
    const allSeen = (s) => sides.every((x) => s.seen[x] !== undefined);
    progress(`  steady state: CPU and RSS over ${S.steadySeconds} s`);
    if (S.profileCatchUp) toggleProfile();
    toggleProfile();
    const windowFrom = Date.now();
    row.steady = await measureProcesses(pids, S.steadySeconds);
    const windowTo = Date.now();
    toggleProfile();
    row.nrMemory = memoryOver(memoryFile, windowFrom, windowTo);
    progress(`  Node-RED RSS over the window max ${fmtMiB(row.steady.nodeRed.rssMaxKb)} median ${fmtMiB(row.steady.nodeRed.rssMedianKb)} min ${fmtMiB(row.steady.nodeRed.rssMinKb)} last ${fmtMiB(row.steady.nodeRed.rssKb)}` +
      (row.nrMemory ? `; ${row.nrMemory.text}` : ''));
    if (process.env.BENCH_NR_HEAP_SNAPSHOT === '1') progress(`  heap snapshot: ${path.join(path.dirname(memoryFile), 'steady.heapsnapshot')} (node bench/heap-snapshot-summary.js FILE)`);

    // Samples: a random twin pair's random partition moved to a newer settled sync, both twins at once.
    progress(`  ${S.samples} sampled commits, one every ${S.sampleEveryMs} ms, target polled every ${S.pollMs} ms`);
    /** `before`: the twin's target offset just before the commit; visible = the target moved past it.
     * @type {Array<{ i: number, p: number, before: Record<string, bigint>, at: Record<string, number>, seen: Record<string, number> }>} */
    const samples = [];
    const inFlight = new Set(); // `${i}/${p}`
    let polling = true;
    const cpuStart = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
    const tSampling = performance.now();
    toggleProfile();
    const poller = (async () => {
      while (polling) {
        const t = performance.now();
        const open = samples.filter((s) => sides.some((x) => s.seen[x] === undefined && s.at[x] !== undefined));
        const byGroup = new Map();
        for (const s of open) {
          for (const side of sides) {
            if (s.seen[side] !== undefined || s.at[side] === undefined) continue;
            const g = name(side, s.i);
            byGroup.set(g, [...(byGroup.get(g) ?? []), { s, side }]);
          }
        }
        await mapLimit([...byGroup], 32, async ([g, list]) => {
          const m = await targetOffsets(g).catch(() => null);
          if (!m) return;
          const now = performance.now();
          for (const { s, side } of list) {
            if ((m.get(s.p) ?? -1n) > s.before[side]) {
              s.seen[side] = now;
              if (allSeen(s)) inFlight.delete(`${s.i}/${s.p}`);
            }
          }
        });
        const now = performance.now();
        for (const s of open) {
          for (const side of sides) {
            if (s.seen[side] === undefined && s.at[side] !== undefined && now - s.at[side] > S.sampleTimeoutS * 1000) {
              s.seen[side] = Infinity;
              if (allSeen(s)) inFlight.delete(`${s.i}/${s.p}`);
            }
          }
        }
        await sleep(Math.max(0, S.pollMs - (performance.now() - t)));
      }
    })();
    later('poller', async () => {
      polling = false;
      await poller;
    });
    let skipped = 0;
    let lastPick = performance.now();
    for (let k = 0; k < S.samples; ) {
      const tick = performance.now();
      let pick;
      for (let attempt = 0; attempt < 50 && !pick; attempt++) {
        const i = Math.floor(Math.random() * N);
        const p = Math.floor(Math.random() * P);
        const s = settledSync(p);
        // a step of at least MIN_STEP records: some sync between the old and the new commit is
        // still in the offset-sync stores when the nodes translate it, so the translation moves
        if (!inFlight.has(`${i}/${p}`) && s && s.up - cur[i][p] >= MIN_STEP) pick = { i, p, s };
      }
      if (!pick) {
        skipped++;
        if (performance.now() - lastPick > 180000) throw new Error(`no pair to move for 180 s (no settled sync ${MIN_STEP} records past a committed offset)`);
      } else {
        lastPick = performance.now();
        const { i, p, s } = pick;
        cur[i][p] = s.up;
        inFlight.add(`${i}/${p}`);
        /** @type {{ i: number, p: number, before: Record<string, bigint>, at: Record<string, number>, seen: Record<string, number> }} */
        const sample = { i, p, before: {}, at: {}, seen: {} };
        for (const side of sides) sample.before[side] = (await targetOffsets(name(side, i))).get(p) ?? -1n;
        // both twins at the same moment; each latency counts from its own commit's answer
        const results2 = await Promise.all(sides.map(async (side) => {
          const r = await commitRetrying(committer, name(side, i), [{ topic: TOPIC, partition: p, offset: s.up }]);
          sample.at[side] = performance.now();
          return r;
        }));
        const failed = results2.find((r) => !r.ok);
        if (failed) throw new Error(`sample commit failed: ${failed.errorType}: ${failed.message}`);
        samples.push(sample);
        k++;
      }
      await sleep(Math.max(0, S.sampleEveryMs - (performance.now() - tick)));
    }
    for (const deadline = performance.now() + (S.sampleTimeoutS + 5) * 1000; inFlight.size > 0 && performance.now() < deadline; ) await sleep(100);
    polling = false;
    await poller;
    const samplingS = (performance.now() - tSampling) / 1000;
    toggleProfile();
    row.sampling = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, { cpuPerMin: ((cpuSeconds(pid) - cpuStart[k]) / samplingS) * 60, rssKb: procStatus(pid).rssKb }]));
    row.samplingSeconds = samplingS;
    row.skipped = skipped;
    for (const side of sides) {
      const lat = samples.map((s) => s.seen[side] - s.at[side]);
      const done = lat.filter(Number.isFinite).sort((a, b) => a - b);
      row[side] = { n: done.length, timedOut: lat.length - done.length, p50: percentile(done, 0.5), p99: percentile(done, 0.99), max: done.length ? done[done.length - 1] : NaN };
    }
    progress(`  ours p50 ${fmtS(row.ours.p50)} p99 ${fmtS(row.ours.p99)} max ${fmtS(row.ours.max)}; ` +
      (row.mm2 ? `MM2 p50 ${fmtS(row.mm2.p50)} p99 ${fmtS(row.mm2.p99)} max ${fmtS(row.mm2.max)}` : 'MM2 not sampled (no steady state)') +
      `${row.ours.timedOut + (row.mm2?.timedOut ?? 0) > 0 ? `; timed out: ours ${row.ours.timedOut}, MM2 ${row.mm2?.timedOut ?? '-'}` : ''}`);
    if (S.trace) {
      const epoch = Date.now() - performance.now(); // performance.now() -> epoch ms
      const lines = samples.map((x) => JSON.stringify({ sample: true, N, variant, i: x.i, p: x.p, commitAt: { ours: Math.round(epoch + x.at.ours), mm2: Math.round(epoch + x.at.mm2) }, latencyMs: { ours: Math.round(x.seen.ours - x.at.ours), mm2: Math.round(x.seen.mm2 - x.at.mm2) } }));
      for (const l of nr.log.split('\n')) {
        const m = /TRACE (\{.*\})/.exec(l);
        if (m) lines.push(JSON.stringify({ N, variant, ...JSON.parse(m[1]) }));
      }
      // a slow sample (over 5 s): when its checkpoint reached the checkpoints topic, to tell the
      // checkpoint node's delay from the group-offset writer's
      const slow = samples.filter((x) => x.seen.ours - x.at.ours > 5000);
      if (slow.length > 0) {
        const records = await checkpointRecords(clusters.target, 'source.checkpoints.internal');
        for (const x of slow) {
          const g = name('ours', x.i);
          const mine = records.filter((r) => r.cp.group === g && r.cp.partition === x.p).map((r) => ({ at: r.timestamp - Math.round(epoch + x.at.ours), up: String(r.cp.upstreamOffset), down: String(r.cp.downstreamOffset) }));
          lines.push(JSON.stringify({ slow: true, N, variant, group: g, p: x.p, latencyMs: Math.round(x.seen.ours - x.at.ours), before: String(x.before.ours), committed: String(cur[x.i][x.p]), checkpointsMsAfterCommit: mine.slice(-6) }));
        }
      }
      fs.appendFileSync(S.trace, lines.join('\n') + '\n');
      progress(`  trace: ${lines.length} lines appended to ${S.trace}`);
    }
    row.warnings = nr.log.split('\n').filter((l) => /\[(warn|error)\]/.test(l)).slice(0, 5).map((l) => l.slice(0, 300));
    row.after = whatElseRuns();
    // stop everything of this run, newest first
    while (stops.length > 0) await stops.pop()();
    row.closeTimedOut = closeTimedOut;
  } catch (e) {
    row.error = e && e.message ? e.message : String(e);
    while (stops.length > 0) await stops.pop()().catch(() => undefined);
    throw e;
  } finally {
    row.wallS = (performance.now() - row.startedAt) / 1000;
  }
}

// ---- report -----------------------------------------------------------------------------------

/** VmRSS over the steady window: max / median / last */
const rssOver = (p) => `${fmtMiB(p.rssMaxKb)} / ${fmtMiB(p.rssMedianKb)} / ${fmtMiB(p.rssKb)}`;

/** Node-RED's own figures (bench/nr-memory-preload.js) over [from, to] epoch ms: max and median of each, MiB. */
function memoryOver(file, from, to) {
  let rows;
  try {
    rows = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((x) => x.t >= from && x.t <= to);
  } catch {
    return undefined;
  }
  if (rows.length === 0) return undefined;
  const MiB = 2 ** 20;
  const stat = (f) => {
    const v = rows.map(f).filter(Number.isFinite).sort((a, b) => a - b);
    return { max: v[v.length - 1] / MiB, median: percentile(v, 0.5) / MiB, last: f(rows[rows.length - 1]) / MiB };
  };
  const out = {
    samples: rows.length, rss: stat((x) => x.rss), heapTotal: stat((x) => x.heapTotal), heapUsed: stat((x) => x.heapUsed), external: stat((x) => x.external),
    arrayBuffers: stat((x) => x.arrayBuffers), oldSize: stat((x) => x.old?.size), oldUsed: stat((x) => x.old?.used), loSize: stat((x) => x.lo?.size), newSize: stat((x) => x.new?.size),
  };
  // what old space and large objects gained between readings, summed (a full GC in between counts as 0): what was promoted, roughly
  let grown = 0;
  for (let i = 1; i < rows.length; i++) grown += Math.max(0, (rows[i].old?.used ?? 0) + (rows[i].lo?.used ?? 0) - (rows[i - 1].old?.used ?? 0) - (rows[i - 1].lo?.used ?? 0));
  out.oldGrownMiB = grown / MiB;
  out.oldGrownMiBPerS = grown / MiB / Math.max(1, (rows[rows.length - 1].t - rows[0].t) / 1000);
  const f = (s) => `${s.max.toFixed(0)}/${s.median.toFixed(0)}`;
  out.text = `MiB max/median of ${rows.length} readings: rss ${f(out.rss)}, heapTotal ${f(out.heapTotal)}, heapUsed ${f(out.heapUsed)}, old space ${f(out.oldSize)} (used ${f(out.oldUsed)}), ` +
    `large objects ${f(out.loSize)}, new space ${f(out.newSize)}, external ${f(out.external)} (arrayBuffers ${f(out.arrayBuffers)}); ` +
    `old space and large objects grew by ${out.oldGrownMiB.toFixed(0)} MiB (${out.oldGrownMiBPerS.toFixed(2)} MiB/s: promoted, roughly)`;
  return out;
}

function report(notes) {
  const env = `Kafka ${KAFKA_VERSION} (single-node KRaft, two clusters on this host), MM2 ${KAFKA_VERSION} dedicated mode, kafkajs 2.2.4, Node.js ${process.version}, ${os.cpus().length} cores (${cpuModel()}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${new Date().toISOString().slice(0, 10)}`;
  process.stdout.write(`\n=== commit on source -> translated offset visible on target: ours (Node-RED) vs MM2 ===\n${env}\n`);
  const done = results.filter((r) => r.ours);
  /** an MM2 figure, or why there is none */
  const m = (r, f) => (r.mm2 ? f(r.mm2) : r.variant === 'alone' ? '-' : 'no steady state');
  const label = (r) => `${fmtInt(r.N)} × ${S.partitions}${r.variant === 'poll' ? ' (polling fallback)' : r.variant === 'alone' ? ' (ours alone: MM2 only writes the offset syncs)' : ''}`;
  const cpu = (r, k) => (r.steady ? r.steady[k].cpuPerMin.toFixed(1) : '-');
  printTable(
    `samples: ${S.samples} per run (commit answered -> target OffsetFetch shows the translated offset; polled every ${S.pollMs} ms)`,
    ['groups', 'ours p50', 'p99', 'max', 'MM2 p50', 'p99', 'max', 'p50 ours/MM2', 'p99 ours/MM2', 'timed out ours/MM2'],
    done.map((r) => [label(r), fmtS(r.ours.p50), fmtS(r.ours.p99), fmtS(r.ours.max), m(r, (x) => fmtS(x.p50)), m(r, (x) => fmtS(x.p99)), m(r, (x) => fmtS(x.max)), m(r, (x) => ratio(r.ours.p50, x.p50)), m(r, (x) => ratio(r.ours.p99, x.p99)), `${r.ours.timedOut}/${m(r, (x) => x.timedOut)}`]),
  );
  printTable(
    `processes at steady state (${S.steadySeconds} s window, nothing committed) and while sampling; CPU s/min from /proc/<pid>/stat, RSS = VmRSS read every 1 s over the window: max / median / last`,
    ['groups', 'Node-RED CPU s/min', 'RSS', 'MM2 CPU s/min', 'RSS', 'CPU ours/MM2', 'sampling: Node-RED CPU', 'MM2 CPU', 'setup commits', 'all visible ours', 'MM2', 'run'],
    done.map((r) => [
      label(r), cpu(r, 'nodeRed'), rssOver(r.steady.nodeRed), cpu(r, 'mm2'), rssOver(r.steady.mm2), (r.variant === 'alone' ? '-' : ratio(r.steady.nodeRed.cpuPerMin, r.steady.mm2.cpuPerMin)),
      r.sampling.nodeRed.cpuPerMin.toFixed(1), r.sampling.mm2.cpuPerMin.toFixed(1), fmtS(r.setupCommitMs), fmtS(r.allVisibleMs.ours), fmtS(r.allVisibleMs.mm2), `${fmtInt(r.wallS)} s`,
    ]),
  );
  for (const r of results) {
    process.stdout.write(`  ${label(r)}: load before ${r.before.load}, after ${r.after ? r.after.load : '-'}; top CPU before: ${r.before.top}\n`);
    if (r.error) {
      process.stdout.write(`    FAILED: ${r.error}\n`);
      const part = [];
      if (r.setupCommitMs !== undefined) part.push(`setup commits ${fmtS(r.setupCommitMs)}`);
      for (const side of ['ours', 'mm2']) if (r.allVisibleMs && r.allVisibleMs[side] !== undefined) part.push(`all visible ${side} ${fmtS(r.allVisibleMs[side])}`);
      if (r.pendingSteady) part.push(`groups not yet on the target: ours ${r.pendingSteady.ours}, MM2 ${r.pendingSteady.mm2}`);
      if (r.lastSeen) part.push(`last seen: Node-RED VmRSS ${fmtMiB(r.lastSeen.nodeRed)}, MM2 VmRSS ${fmtMiB(r.lastSeen.mm2)}`);
      if (part.length > 0) process.stdout.write(`    before it failed: ${part.join('; ')}\n`);
    }
    if (r.nrMemory) process.stdout.write(`    Node-RED over the steady window: ${r.nrMemory.text}\n`);
    if (r.closeTimedOut) process.stdout.write('    Node-RED logged "Close timed out" when stopped\n');
    if (r.mm2NotSteady) process.stdout.write(`    MM2 reached no steady state: ${fmtInt(r.mm2NotSteady)} of its groups were not on the target after ${S.steadyTimeoutS} s (BENCH_STEADY_TIMEOUT_S); ours was sampled alone, MM2's CPU and RSS are those of it still catching up\n`);
    if (r.skipped) process.stdout.write(`    ${r.skipped} sample ticks found no pair to move (no newer settled sync)\n`);
    for (const w of r.warnings ?? []) process.stdout.write(`    Node-RED: ${w}\n`);
  }
  for (const n of notes) process.stdout.write(`  - ${n}\n`);

  const md = [];
  md.push(`Measured with \`npm run bench:freshness\` on ${env}; every interval 1 s on both sides; ${S.samples} sampled commits per row.`, '');
  md.push('| groups × partitions | ours p50 | ours p99 | ours max | MM2 p50 | MM2 p99 | MM2 max | p99 ours/MM2 | Node-RED CPU s/min | MM2 CPU s/min | CPU ours/MM2 | Node-RED RSS max / median / last | MM2 RSS max / median / last |');
  md.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of done) {
    md.push(`| ${label(r)} | ${fmtS(r.ours.p50)} | ${fmtS(r.ours.p99)} | ${fmtS(r.ours.max)} | ${m(r, (x) => fmtS(x.p50))} | ${m(r, (x) => fmtS(x.p99))} | ${m(r, (x) => fmtS(x.max))} | ${m(r, (x) => ratio(r.ours.p99, x.p99))} | ` +
      `${cpu(r, 'nodeRed')} | ${cpu(r, 'mm2')} | ${(r.variant === 'alone' ? '-' : ratio(r.steady.nodeRed.cpuPerMin, r.steady.mm2.cpuPerMin))} | ${rssOver(r.steady.nodeRed)} | ${rssOver(r.steady.mm2)} |`);
  }
  for (const n of notes) md.push('', n);
  process.stdout.write(`\n--- markdown ---\n${md.join('\n')}\n--- end ---\n`);
}

// ---- main -------------------------------------------------------------------------------------

const notes = [];
async function main() {
  progress(`Kafka ${KAFKA_VERSION}; groups ${S.groups.join(',')} × ${S.partitions}; ${S.samples} samples; polling fallback at ${S.pollFallbackGroups.join(',') || 'none'}; ours alone at ${S.aloneGroups.join(',') || 'none'}`);
  const canPoll = checkpointNodeKnowsSourceOffsets();
  for (const N of S.groups) {
    await runOne(N, 'auto');
    if (S.pollFallbackGroups.includes(N)) {
      if (canPoll) await runOne(N, 'poll');
      else notes.push(`polling fallback at ${fmtInt(N)} groups: not available (mm2-checkpoint has no \`sourceOffsets\` setting in this build)`);
    }
  }
  for (const N of S.aloneGroups) await runOne(N, 'alone');
  for (const N of S.pollFallbackGroups) {
    if (!S.groups.includes(N)) notes.push(`polling fallback at ${fmtInt(N)} groups: not run (${N} is not in BENCH_GROUPS)`);
  }
}

runBench(main, () => report(notes), S.timeoutS);
