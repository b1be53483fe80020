'use strict';
/**
 * Benchmark: speed and memory of this package against real Kafka, on this machine.
 * Run with `npm run bench` (builds first). See bench/README.md for what each figure means.
 *
 *   1. checkpoint cycles (CheckpointEmitter) for BENCH_GROUPS consumer groups × BENCH_GROUP_PARTITIONS
 *   2. mirror throughput (Mirror, offset syncs on) for BENCH_RECORDS records of each BENCH_RECORD_SIZES
 *   3. Node-RED memory: empty, and with examples/full-failover.json under light traffic
 *
 * Everything it starts (two KRaft clusters, Kafka clients, Node-RED children) is stopped at the
 * end, also on failure. Progress goes to stderr; the figures go to stdout.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { performance } = require('node:perf_hooks');

const root = path.join(__dirname, '..');
const { startClusters, DEFAULT_KAFKA_VERSION } = require(path.join(root, 'scripts', 'kafka', 'cluster'));
const { startNodeRed } = require(path.join(root, 'scripts', 'node-red-runner'));
const {
  envList, envInt, progress, sleep, fmtInt, fmtMs, fmtMiB, mapLimit, onCleanup,
  rawKafka, connectedAdmin, createTopic, endOffsetSum, commitRetrying, procStatus, cpuMs, printTable, cpuModel,
  runBench,
} = require('./lib');
const mm2 = require(root);
const { ClusterConnection } = require(path.join(root, 'dist', 'kafka', 'connection'));
const { CheckpointEmitter, CHECKPOINT_CHUNK_RECORDS, CHECKPOINT_CHUNK_BYTES } = require(path.join(root, 'dist', 'engines', 'checkpoint-emitter'));
const { chunkBySize } = require(path.join(root, 'dist', 'core', 'chunks'));
const { Mirror } = require(path.join(root, 'dist', 'engines', 'mirror-task'));
const { ensureInternalTopic } = require(path.join(root, 'dist', 'kafka', 'internal-topics'));

// ---- settings ---------------------------------------------------------------------------------

const S = {
  only: new Set((process.env.BENCH_ONLY || 'checkpoint,mirror,nodered').split(',').map((s) => s.trim()).filter(Boolean)),
  groups: envList('BENCH_GROUPS', '100,1000'),
  groupPartitions: envInt('BENCH_GROUP_PARTITIONS', 10),
  records: envInt('BENCH_RECORDS', 100000),
  recordSizes: envList('BENCH_RECORD_SIZES', '1024,100'),
  mirrorPartitions: envInt('BENCH_MIRROR_PARTITIONS', 4),
  mirrorTimeoutS: envInt('BENCH_MIRROR_TIMEOUT_S', 150),
  nrSeconds: envInt('BENCH_NODE_RED_SECONDS', 20),
  nrEmptySeconds: envInt('BENCH_NODE_RED_EMPTY_SECONDS', 10),
  nrRate: envInt('BENCH_NODE_RED_RATE', 200), // records/s produced while the flow runs
  timeoutS: envInt('BENCH_TIMEOUT_S', 900),
};
for (const k of S.only) {
  if (!['checkpoint', 'mirror', 'nodered'].includes(k)) throw new Error(`BENCH_ONLY: unknown part '${k}' (checkpoint, mirror, nodered)`);
}
const KAFKA_VERSION = process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION;

// ---- request accounting -----------------------------------------------------------------------

/**
 * Counts kafkajs network requests (instrumentation event REQUEST, emitted when a response
 * arrives) on the clients a ClusterConnection hands out, per client and API name.
 */
class RequestRecorder {
  constructor() {
    this.active = false;
    this.entries = [];
    this.removers = [];
    /** @type {Array<{ obj: { requests: Record<string, number> }, label: string, base: Record<string, number> }> | undefined} set by attachCounter */
    this.counters = undefined;
  }
  attach(client, label) {
    this.removers.push(
      client.on(client.events.REQUEST, (ev) => {
        if (!this.active) return;
        const p = ev.payload;
        this.entries.push({ label, api: p.apiName, sentAt: p.sentAt, createdAt: p.createdAt, duration: p.duration, size: p.size });
      }),
    );
  }
  /** Also count requests that an object tallies itself in `obj.requests` ({api: count}), e.g. the GroupOffsetFetcher. */
  attachCounter(obj, label) {
    (this.counters ??= []).push({ obj, label, base: {} });
  }
  begin() {
    this.entries = [];
    for (const c of this.counters ?? []) c.base = { ...c.obj.requests };
    this.active = true;
  }
  end() {
    this.active = false;
    for (const c of this.counters ?? []) {
      for (const [api, n] of Object.entries(c.obj.requests)) {
        for (let i = 0; i < n - (c.base[api] ?? 0); i++) this.entries.push({ label: c.label, api });
      }
    }
    return this.entries;
  }
  detach() {
    for (const r of this.removers) r();
    this.removers = [];
  }
}

/** "source admin: FindCoordinator 100, OffsetFetch 100; target producer: Produce 1" */
function requestBreakdown(entries) {
  const byLabel = new Map();
  for (const e of entries) {
    const m = byLabel.get(e.label) ?? new Map();
    m.set(e.api, (m.get(e.api) ?? 0) + 1);
    byLabel.set(e.label, m);
  }
  return [...byLabel]
    .map(([label, m]) => `${label}: ${[...m].sort((a, b) => b[1] - a[1]).map(([api, n]) => `${api} ${fmtInt(n)}`).join(', ')}`)
    .join('; ');
}

/** Where a cycle's wall time went, from the request timestamps (kafkajs uses Date.now()). */
function cyclePhases(entries, startedAt, endedAt) {
  const fetches = entries.filter((e) => e.label === 'source admin');
  const produces = entries.filter((e) => e.label === 'target producer' && e.api === 'Produce');
  const out = {};
  if (fetches.length > 0) {
    const fetchEnd = Math.max(...fetches.map((e) => e.sentAt + e.duration));
    out.fetchMs = fetchEnd - startedAt;
    const avg = (api) => {
      const l = fetches.filter((e) => e.api === api);
      return l.length ? l.reduce((a, e) => a + e.duration, 0) / l.length : undefined;
    };
    out.avgFindCoordinatorMs = avg('GroupCoordinator') ?? avg('FindCoordinator'); // kafkajs names FindCoordinator 'GroupCoordinator'
    out.avgOffsetFetchMs = avg('OffsetFetch');
    if (produces.length > 0) {
      const firstCreated = Math.min(...produces.map((e) => e.createdAt));
      const produceEnd = Math.max(...produces.map((e) => e.sentAt + e.duration));
      out.computeMs = firstCreated - fetchEnd;
      out.produceMs = produceEnd - firstCreated;
      out.tailMs = endedAt - produceEnd;
    } else {
      out.computeMs = endedAt - fetchEnd;
    }
  }
  return out;
}

function phaseText(p) {
  if (p.fetchMs === undefined) return '';
  const parts = [`offset fetch phase ${fmtMs(p.fetchMs)} ms`];
  if (p.avgFindCoordinatorMs !== undefined) parts.push(`avg GroupCoordinator ${p.avgFindCoordinatorMs.toFixed(1)} ms`);
  if (p.avgOffsetFetchMs !== undefined) parts.push(`avg OffsetFetch ${p.avgOffsetFetchMs.toFixed(1)} ms`);
  parts.push(`translate+encode ${fmtMs(Math.max(0, p.computeMs))} ms`);
  if (p.produceMs !== undefined) parts.push(`produce ${fmtMs(p.produceMs)} ms`);
  return parts.join(', ');
}

// ---- results ----------------------------------------------------------------------------------

const results = { checkpoint: [], checkpointSetup: [], inProcess: [], mirror: [], nodered: [], notes: [] };

// ---- 1. checkpoint cycles ---------------------------------------------------------------------

/**
 * The cycle's CPU work without Kafka, on the same data: checkpointsForGroup over N groups × P
 * offsets (first: every checkpoint new; again: nothing changed), then encodeCheckpoint of the
 * N × P records. What is left of the cycle's "translate+encode" gap is kafkajs building the
 * Produce request (record batch encoding).
 */
function inProcessCycle(N, P, topic, syncs, policy) {
  const store = new mm2.OffsetSyncStore({ keepHistoryOnLoad: true });
  for (const sy of syncs) store.apply(sy);
  store.markLoaded();
  const checkpoints = new mm2.CheckpointStore();
  checkpoints.markLoaded(true);
  const topicFilter = mm2.createTopicFilter({});
  const offsets = Array.from({ length: P }, (_, p) => ({ topic, partition: p, offset: 100n, metadata: '' }));
  const run = () => {
    const out = [];
    const t = performance.now();
    for (let i = 0; i < N; i++) {
      const r = mm2.checkpointsForGroup({ group: `g${i}`, offsets, topicFilter, store, checkpoints, policy, sourceAlias: 'source', targetAlias: 'target' });
      for (const c of r.checkpoints) out.push(c);
    }
    return { ms: performance.now() - t, out };
  };
  const first = run();
  const again = run();
  const t = performance.now();
  let bytes = 0;
  const records = [];
  for (const c of first.out) {
    const rec = mm2.encodeCheckpoint(c);
    bytes += rec.key.length + rec.value.length;
    records.push(rec);
  }
  return { translateMs: first.ms, unchangedMs: again.ms, written: first.out.length, encodeMs: performance.now() - t, bytes, records };
}


async function benchCheckpoints(clusters) {
  const P = S.groupPartitions;
  const topic = 'bench-cp';
  const setupKafka = rawKafka(clusters.source, 'bench-setup');
  const setupAdmin = await connectedAdmin(setupKafka, 'checkpoint setup admin');
  await createTopic(setupAdmin, topic, P);
  const producer = setupKafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const closeProducer = onCleanup('checkpoint setup producer', () => producer.disconnect());
  const value = Buffer.alloc(100, 'x');
  for (let p = 0; p < P; p++) {
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 250 }, (_, i) => ({ partition: p, key: `k${i}`, value })) });
  }
  await closeProducer();

  // The committer of a separate connection: setup traffic never shows in the counted clients.
  const setupConn = new ClusterConnection({ alias: 'source', bootstrapServers: [clusters.source.bootstrap], clientId: 'bench-setup' });
  const closeSetupConn = onCleanup('checkpoint setup connection', () => setupConn.close());
  const committer = setupConn.committer();
  const commitAll = async (groups, offset) => {
    const t = performance.now();
    // A fresh cluster creates __consumer_offsets on the first commit: retry the coordinator errors.
    const res = await mapLimit(groups, 16, (g) => commitRetrying(committer, g, Array.from({ length: P }, (_, p) => ({ topic, partition: p, offset: BigInt(offset) }))));
    const bad = res.filter((r) => !r.ok);
    if (bad.length > 0) throw new Error(`${bad.length} admin commits failed, e.g. ${bad[0].errorType}: ${bad[0].message}`);
    return performance.now() - t;
  };

  const policy = mm2.createReplicationPolicy({});
  // Offset syncs at upstream 0, 100 and 200 of every partition (downstream = upstream + 7, as
  // if the target had 7 extra records): a group at 100 translates to 107, at 200 to 207.
  const syncs = [];
  for (const u of [0, 100, 200]) for (let p = 0; p < P; p++) syncs.push({ topic, partition: p, upstreamOffset: BigInt(u), downstreamOffset: BigInt(u + 7) });

  for (const N of S.groups) {
    progress(`checkpoints: ${N} groups × ${P} partitions`);
    const prefix = `bench-n${N}-`;
    const groups = Array.from({ length: N }, (_, i) => `${prefix}g${String(i).padStart(5, '0')}`);
    const commitMs = await commitAll(groups, 100);
    results.checkpointSetup.push({ N, commitMs });
    progress(`  committed offsets for ${N} groups (one admin OffsetCommit each) in ${fmtInt(commitMs)} ms`);

    const checkpointsTopic = `bench-n${N}.checkpoints.internal`;
    const makeEmitter = async (tag) => {
      const source = new ClusterConnection({ alias: 'source', bootstrapServers: [clusters.source.bootstrap], clientId: `bench-${tag}` });
      const target = new ClusterConnection({ alias: 'target', bootstrapServers: [clusters.target.bootstrap], clientId: `bench-${tag}` });
      const closeConns = onCleanup(`connections ${tag}`, () => Promise.all([source.close(), target.close()]));
      // Connect the shared clients first (in Node-RED they are shared with other nodes and
      // normally connected already) and count what they send.
      const rec = new RequestRecorder();
      rec.attach(await source.admin(), 'source admin');
      rec.attachCounter(source.offsetFetcher(), 'source offset fetcher');
      rec.attachCounter(target.batchProducer(), 'target producer'); // the checkpoints' Produce requests (kafka/batch-producer): counted, not timed
      rec.attach(await target.admin(), 'target admin');
      let discovered;
      const firstDiscovery = new Promise((resolve, reject) => {
        discovered = { resolve, reject };
      });
      const emitter = new CheckpointEmitter({
        source,
        target,
        sourceAlias: 'source',
        targetAlias: 'target',
        policy,
        checkpointsTopic,
        groupFilter: mm2.createGroupFilter({ groups: `${prefix}.*` }),
        topicFilter: mm2.createTopicFilter({}),
        ensureTopic: async (c, t) => ensureInternalTopic(await c.admin(), t, 1),
        events: {
          discovered: (d) => discovered.resolve(d),
          discoveryFailed: (e) => discovered.reject(new Error(`group discovery failed: ${e}`)),
        },
      });
      const stopEmitter = onCleanup(`emitter ${tag}`, () => emitter.stop());
      return {
        emitter,
        rec,
        firstDiscovery,
        close: async () => {
          await stopEmitter();
          rec.detach();
          await closeConns();
        },
      };
    };

    const measure = async (rec, step, fn, extra = {}) => {
      const cpu0 = process.cpuUsage();
      rec.begin();
      const startedAt = Date.now();
      const t = performance.now();
      const r = await fn();
      const ms = performance.now() - t;
      const endedAt = Date.now();
      const entries = rec.end();
      const row = {
        N,
        step,
        ms,
        cpuMs: cpuMs(cpu0),
        written: r && Array.isArray(r.written) ? r.written.length : undefined,
        requests: entries.length,
        breakdown: requestBreakdown(entries),
        phases: r && Array.isArray(r.written) ? cyclePhases(entries, startedAt, endedAt) : {},
        ...extra,
      };
      if (r && r.failedGroups && r.failedGroups.length > 0) throw new Error(`${step}: ${r.failedGroups.length} groups failed, e.g. ${JSON.stringify(r.failedGroups[0])}`);
      if (r && r.skipped) throw new Error(`${step}: cycle skipped (${r.skipped})`);
      results.checkpoint.push(row);
      progress(`  ${step}: ${fmtMs(ms)} ms, ${row.written ?? '-'} written, ${entries.length} requests`);
      return r;
    };

    const a = await makeEmitter(`n${N}`);
    // Offset syncs first (buffered until the restore is done), then start.
    a.emitter.handleSyncEvent({ event: 'syncs', syncs });
    a.emitter.handleSyncEvent({ event: 'loaded' });
    await measure(a.rec, 'start: checkpoints topic + restore (empty) + discovery', async () => {
      await Promise.all([a.emitter.start(), a.firstDiscovery]);
    });
    if (!a.emitter.restoreReport || !a.emitter.restoreReport.ok) throw new Error(`restore failed: ${JSON.stringify(a.emitter.restoreReport)}`);
    if ((a.emitter.groups || []).length !== N) throw new Error(`discovery found ${(a.emitter.groups || []).length} groups, expected ${N}`);
    if (!a.emitter.syncsLoaded) throw new Error('offset syncs not loaded');

    const expectN = (r, n, step) => {
      if (r.written.length !== n) throw new Error(`${step}: wrote ${r.written.length} checkpoints, expected ${n}`);
    };
    let r = await measure(a.rec, '(a) first cycle', () => a.emitter.cycle());
    expectN(r, N * P, '(a)');
    if (r.written[0].downstreamOffset !== 107n) throw new Error(`(a): unexpected translation ${r.written[0].downstreamOffset}`);
    r = await measure(a.rec, '(b) cycle, nothing changed', () => a.emitter.cycle());
    expectN(r, 0, '(b)');
    const moveMs = await commitAll(groups, 200);
    progress(`  moved every group to offset 200 in ${fmtInt(moveMs)} ms`);
    r = await measure(a.rec, '(c) cycle, every group moved', () => a.emitter.cycle());
    expectN(r, N * P, '(c)');
    if (r.written[0].downstreamOffset !== 207n) throw new Error(`(c): unexpected translation ${r.written[0].downstreamOffset}`);
    await measure(a.rec, 'group re-discovery (refresh.groups)', () => a.emitter.refreshGroups());
    await a.close();

    // A restart: a new emitter restores the 2×N×P checkpoints written above.
    const b = await makeEmitter(`n${N}-restart`);
    b.emitter.handleSyncEvent({ event: 'syncs', syncs });
    b.emitter.handleSyncEvent({ event: 'loaded' });
    await measure(b.rec, `restart: restore ${fmtInt(2 * N * P)} checkpoints + discovery`, async () => {
      await Promise.all([b.emitter.start(), b.firstDiscovery]);
    });
    const rep = b.emitter.restoreReport;
    if (!rep || !rep.ok || rep.read !== 2 * N * P || rep.restored !== N * P) throw new Error(`restore after restart: ${JSON.stringify(rep)}`);
    r = await measure(b.rec, 'first cycle after restart', () => b.emitter.cycle());
    expectN(r, 0, 'after restart');
    await b.close();
    const ip = inProcessCycle(N, P, topic, syncs, policy);
    // kafkajs alone: producer.send of the same N×P encoded records (acks=all, partition 0), in the
    // emitter's chunks, split at the moment the first Produce request is queued (record batch built and encoded).
    {
      const tKafka = rawKafka(clusters.target, 'bench-encode');
      const encTopic = `bench-encode-n${N}`;
      const tAdmin = await connectedAdmin(tKafka, 'encode admin');
      await createTopic(tAdmin, encTopic, 1);
      const prod = tKafka.producer({ allowAutoTopicCreation: false });
      await prod.connect();
      const closeProd = onCleanup('encode producer', () => prod.disconnect());
      const rec = new RequestRecorder();
      rec.attach(prod, 'producer');
      const messages = ip.records.map((r) => ({ key: r.key, value: r.value, partition: 0, timestamp: String(Date.now()) }));
      await prod.send({ topic: encTopic, acks: -1, messages: messages.slice(0, 10) }); // metadata, warm-up
      // The same produce requests as the emitter's: one request per chunk (a single request of
      // N x P records exceeds the broker's message.max.bytes at 5,000 groups), sent one after the other.
      const chunks = chunkBySize(ip.records.map((r) => r.key.length + r.value.length), CHECKPOINT_CHUNK_RECORDS, CHECKPOINT_CHUNK_BYTES);
      rec.begin();
      const start = Date.now();
      const tt = performance.now();
      for (const [from, to] of chunks) await prod.send({ topic: encTopic, acks: -1, messages: messages.slice(from, to) });
      ip.kafkajsSendMs = performance.now() - tt;
      ip.kafkajsRequests = chunks.length;
      const produce = rec.end().filter((e) => e.api === 'Produce');
      if (produce.length > 0) {
        ip.kafkajsBuildMs = Math.min(...produce.map((e) => e.createdAt)) - start;
        ip.kafkajsRoundTripMs = Math.max(...produce.map((e) => e.sentAt + e.duration)) - Math.min(...produce.map((e) => e.createdAt));
      }
      rec.detach();
      await closeProd();
    }
    delete ip.records;
    results.inProcess.push({ N, ...ip });
    progress(`  in-process: checkpointsForGroup ${fmtMs(ip.translateMs)} ms (unchanged: ${fmtMs(ip.unchangedMs)} ms), encodeCheckpoint ${fmtMs(ip.encodeMs)} ms; kafkajs send ${fmtMs(ip.kafkajsSendMs)} ms`);
  }
  await closeSetupConn();
}

// ---- 2. mirror throughput ---------------------------------------------------------------------

async function benchMirror(clusters) {
  const N = S.records;
  const P = S.mirrorPartitions;
  const srcKafka = rawKafka(clusters.source, 'bench-mirror-setup');
  const srcAdmin = await connectedAdmin(srcKafka, 'mirror setup source admin');
  const tgtAdmin = await connectedAdmin(rawKafka(clusters.target, 'bench-mirror-setup'), 'mirror setup target admin');
  const policy = mm2.createReplicationPolicy({});

  for (const size of S.recordSizes) {
    const topic = `bench-mirror-s${size}`;
    const remote = policy.formatRemoteTopic('source', topic);
    progress(`mirror: ${fmtInt(N)} records of ${size} B, ${P} partitions`);
    await createTopic(srcAdmin, topic, P);

    // Pre-produce (also a baseline: what one kafkajs producer does on this machine).
    const producer = srcKafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const closeProducer = onCleanup('mirror setup producer', () => producer.disconnect());
    const value = crypto.randomBytes(size);
    const perRequest = Math.max(P, Math.min(20000, Math.floor((768 * 1024) / (size + 40))));
    const t = performance.now();
    const sends = [];
    for (let start = 0; start < N; start += perRequest) {
      const end = Math.min(N, start + perRequest);
      const messages = [];
      for (let i = start; i < end; i++) messages.push({ partition: i % P, key: `key-${i}`, value });
      sends.push(messages);
    }
    await mapLimit(sends, 2, (messages) => producer.send({ topic, acks: -1, messages }));
    const produceMs = performance.now() - t;
    await closeProducer();
    const onSource = await endOffsetSum(srcAdmin, topic);
    if (onSource !== N) throw new Error(`source ${topic} has ${onSource} records, expected ${N}`);
    const payloadBytes = N * (size + `key-${N}`.length);
    progress(`  pre-produced in ${fmtInt(produceMs)} ms (${fmtInt(N / (produceMs / 1000))} records/s)`);

    const source = new ClusterConnection({ alias: 'source', bootstrapServers: [clusters.source.bootstrap], clientId: 'bench-mirror' });
    const target = new ClusterConnection({ alias: 'target', bootstrapServers: [clusters.target.bootstrap], clientId: 'bench-mirror' });
    const closeConns = onCleanup(`mirror connections ${size}`, () => Promise.all([source.close(), target.close()]));
    const syncsTopic = `mm2-offset-syncs.bench-s${size}.internal`;
    const errors = [];
    const mirror = new Mirror({
      source,
      target,
      sourceAlias: 'source',
      targetAlias: 'target',
      policy,
      topicFilter: mm2.createTopicFilter({ topics: topic }),
      heartbeatsReplicationEnabled: false,
      offsetLagMax: 100n,
      replicationFactor: 1,
      offsetSyncs: { connection: source, topic: syncsTopic, ensure: async () => ensureInternalTopic(await source.admin(), syncsTopic, 1) },
      groupId: `__bench-mirror-s${size}`,
      onEvent: (e) => {
        if (e.type === 'error') errors.push(`${e.where}: ${e.error}`);
      },
    });
    const stopMirror = onCleanup(`mirror ${size}`, () => mirror.stop());
    // The node flushes every offset.flush.interval.ms (5 s in the example flow).
    const flushTimer = setInterval(() => mirror.flush().catch(() => undefined), 5000);
    const clearFlush = onCleanup('mirror flush timer', () => clearInterval(flushTimer));

    const cpu0 = process.cpuUsage();
    const tStart = performance.now();
    await mirror.start();
    const tStarted = performance.now();
    let tFirst = null;
    let tDone = null;
    let peakRss = 0;
    const deadline = tStart + S.mirrorTimeoutS * 1000;
    for (;;) {
      const st = mirror.stats();
      if (tFirst === null && st.records > 0) tFirst = performance.now();
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      if (st.records >= N) {
        tDone = performance.now();
        break;
      }
      if (performance.now() > deadline) break;
      await sleep(10);
    }
    const cpu = cpuMs(cpu0);
    const stats = mirror.stats();
    const onTarget = await endOffsetSum(tgtAdmin, remote).catch(() => -1);
    await clearFlush();
    await stopMirror();
    const syncsOnSource = await endOffsetSum(srcAdmin, syncsTopic).catch(() => -1);
    await closeConns();
    if (tDone === null) {
      results.notes.push(`mirror ${size} B: only ${stats.records} of ${N} records mirrored within ${S.mirrorTimeoutS} s`);
    }
    const endMs = (tDone ?? performance.now()) - tStart;
    const steadyMs = (tDone ?? performance.now()) - (tFirst ?? tStart);
    const row = {
      size,
      N,
      mirrored: stats.records,
      onTarget,
      produceMs,
      startMs: tStarted - tStart,
      firstMs: (tFirst ?? NaN) - tStart,
      endMs,
      steadyMs,
      recPerS: stats.records / (steadyMs / 1000),
      mbPerS: (stats.bytes / 1e6) / (steadyMs / 1000),
      mbPerSEnd: (stats.bytes / 1e6) / (endMs / 1000),
      produceRecPerS: N / (produceMs / 1000),
      produceMbPerS: payloadBytes / 1e6 / (produceMs / 1000),
      syncsSent: stats.syncsSent,
      syncsFailed: stats.syncsFailed,
      syncsOnSource,
      cpuPct: (cpu / endMs) * 100,
      peakRssMb: peakRss / 1048576,
      errors: [...new Set(errors)],
      complete: tDone !== null,
    };
    results.mirror.push(row);
    progress(`  mirrored ${fmtInt(stats.records)} in ${fmtInt(endMs)} ms from start (${fmtInt(row.recPerS)} records/s, ${row.mbPerS.toFixed(1)} MB/s steady); target has ${fmtInt(onTarget)}; ${stats.syncsSent} syncs`);
    if (onTarget !== N) results.notes.push(`mirror ${size} B: the target topic ${remote} has ${onTarget} records, expected ${N}`);
  }
}

// ---- 3. Node-RED memory -----------------------------------------------------------------------

async function benchNodeRed(clusters) {
  // Empty Node-RED: this package installed, no flow.
  progress('node-red: empty');
  {
    const nr = await startNodeRed({ quiet: true, logLevel: 'warn' });
    const stop = onCleanup('empty Node-RED', () => nr.stop());
    await sleep(S.nrEmptySeconds * 1000);
    const st = procStatus(nr.process.pid);
    results.nodered.push({ what: 'Node-RED, empty (this package installed, no flow)', seconds: S.nrEmptySeconds, ...st });
    progress(`  VmRSS ${fmtMiB(st.rssKb)}, VmHWM ${fmtMiB(st.hwmKb)}`);
    await stop();
  }

  // The full failover example against the bench clusters, with traffic.
  progress(`node-red: examples/full-failover.json, ${S.nrRate} records/s of 1 KiB for ${S.nrSeconds} s`);
  const flows = JSON.parse(fs.readFileSync(path.join(root, 'examples', 'full-failover.json'), 'utf8'));
  const src = flows.find((n) => n.id === 'c-src');
  const tgt = flows.find((n) => n.id === 'c-tgt');
  if (!src || !tgt) throw new Error('examples/full-failover.json: cluster nodes c-src / c-tgt not found');
  src.bootstrap = clusters.source.bootstrap;
  tgt.bootstrap = clusters.target.bootstrap;

  const kafka = rawKafka(clusters.source, 'bench-traffic');
  const admin = await connectedAdmin(kafka, 'traffic admin');
  await createTopic(admin, 'orders', 4);
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const closeProducer = onCleanup('traffic producer', () => producer.disconnect());
  const consumer = kafka.consumer({ groupId: 'orders-app', maxWaitTimeInMs: 500 });
  await consumer.connect();
  const closeConsumer = onCleanup('traffic consumer', () => consumer.disconnect());
  let consumed = 0;
  await consumer.subscribe({ topics: ['orders'], fromBeginning: true });
  await consumer.run({ autoCommitInterval: 1000, eachMessage: async () => { consumed++; } });

  // Traffic starts before Node-RED, so orders-app has committed offsets when the checkpoint
  // node discovers the groups at start (the next discovery is refresh.groups.interval, 60 s).
  let produced = 0;
  let running = true;
  const value = crypto.randomBytes(1024);
  const perTick = Math.max(1, Math.round(S.nrRate / 10));
  const traffic = (async () => {
    while (running) {
      const t = Date.now();
      await producer.send({ topic: 'orders', messages: Array.from({ length: perTick }, (_, i) => ({ key: `order-${produced + i}`, value })) }).catch(() => undefined);
      produced += perTick;
      await sleep(Math.max(0, 100 - (Date.now() - t)));
    }
  })();
  const stopTraffic = onCleanup('traffic', async () => {
    running = false;
    await traffic;
  });
  const committedDeadline = Date.now() + 30000;
  for (;;) {
    const offs = await admin.fetchOffsets({ groupId: 'orders-app', topics: ['orders'] });
    if (offs.some((t) => t.partitions.some((p) => Number(p.offset) > 0))) break;
    if (Date.now() > committedDeadline) throw new Error('the traffic consumer orders-app committed nothing within 30 s');
    await sleep(250);
  }

  const nr = await startNodeRed({ quiet: true, flows, logLevel: 'warn' });
  const stop = onCleanup('Node-RED with the full failover flow', () => nr.stop());
  const afterStart = procStatus(nr.process.pid);
  const samples = [];
  const end = Date.now() + S.nrSeconds * 1000;
  while (Date.now() < end) {
    await sleep(1000);
    samples.push(procStatus(nr.process.pid).rssKb);
  }
  const st = procStatus(nr.process.pid);
  await stopTraffic();

  // Sanity: the flow did its work.
  const tAdmin = await connectedAdmin(rawKafka(clusters.target, 'bench-traffic'), 'traffic target admin');
  const mirrored = await endOffsetSum(tAdmin, 'source.orders').catch(() => -1);
  const checkpoints = await endOffsetSum(tAdmin, 'source.checkpoints.internal').catch(() => -1);
  // mm2-group-offsets writes on its own 10 s timer: give it up to 15 s more (after the memory reading).
  let synced = false;
  const syncDeadline = Date.now() + 15000;
  while (!synced && Date.now() < syncDeadline) {
    const tGroups = await tAdmin.fetchOffsets({ groupId: 'orders-app', topics: ['source.orders'] }).catch(() => []);
    synced = tGroups.some((t) => t.partitions.some((p) => Number(p.offset) > 0));
    if (!synced) await sleep(500);
  }
  const warnLines = nr.log.split('\n').filter((l) => /\[(warn|error)\]/.test(l) && /\[mm2-|kafkajs/.test(l));
  results.nodered.push({
    what: 'Node-RED, examples/full-failover.json + traffic',
    seconds: S.nrSeconds,
    ...st,
    afterStartKb: afterStart.rssKb,
    minKb: Math.min(...samples),
    maxKb: Math.max(...samples),
    produced,
    consumed,
    mirrored,
    checkpoints,
    synced,
    warnings: warnLines.length,
  });
  progress(`  VmRSS ${fmtMiB(st.rssKb)}, VmHWM ${fmtMiB(st.hwmKb)}; produced ${produced}, mirrored ${mirrored}, checkpoint records ${checkpoints}, orders-app synced to target: ${synced}`);
  if (warnLines.length > 0) {
    progress(`  the flow logged ${warnLines.length} warning/error lines, first ones:`);
    for (const l of warnLines.slice(0, 5)) progress(`    ${l.slice(0, 300)}`);
  }
  if (mirrored <= 0) results.notes.push('Node-RED: the flow mirrored nothing to source.orders — the memory figure is not representative');
  await stop();
  await closeConsumer();
  await closeProducer();
}

// ---- report -----------------------------------------------------------------------------------

function report() {
  const env = `Kafka ${KAFKA_VERSION} (single-node KRaft, 512 MB heap, two clusters on this host), kafkajs 2.2.4, Node.js ${process.version}, ${os.cpus().length} cores (${cpuModel()}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${new Date().toISOString().slice(0, 10)}`;
  process.stdout.write(`\n=== @kafka-mm2/node-red benchmark ===\n${env}\n`);

  if (results.checkpoint.length > 0) {
    printTable(
      `1. Checkpoint emitter (groups × ${S.groupPartitions} partitions; a full cycle fetches the source offsets with one batched OffsetFetch per group coordinator); requests = kafkajs network requests of the shared clients`,
      ['groups', 'step', 'ms', 'node CPU ms', 'checkpoints', 'requests', 'requests by client and API'],
      results.checkpoint.map((r) => [fmtInt(r.N), r.step, fmtMs(r.ms), fmtMs(r.cpuMs), r.written === undefined ? '-' : fmtInt(r.written), fmtInt(r.requests), r.breakdown]),
      [1, 6],
    );
    process.stdout.write('\nWhere the cycle time goes (from request timestamps):\n');
    for (const r of results.checkpoint.filter((x) => x.phases && x.phases.fetchMs !== undefined)) {
      process.stdout.write(`  ${fmtInt(r.N).padStart(5)} groups, ${r.step}: ${phaseText(r.phases)}\n`);
    }
    for (const ip of results.inProcess) {
      process.stdout.write(
        `  ${fmtInt(ip.N).padStart(5)} groups, the same work without Kafka: checkpointsForGroup ${fmtMs(ip.translateMs)} ms for ${fmtInt(ip.written)} new checkpoints, ` +
          `${fmtMs(ip.unchangedMs)} ms when nothing changed; encodeCheckpoint ${fmtMs(ip.encodeMs)} ms (${(ip.bytes / 1024).toFixed(0)} KiB of keys+values)\n`,
      );
      if (ip.kafkajsSendMs !== undefined) {
        process.stdout.write(
          `  ${fmtInt(ip.N).padStart(5)} groups, kafkajs alone: producer.send of those ${fmtInt(ip.written)} records in ${fmtInt(ip.kafkajsRequests ?? 0)} chunk(s) ${fmtMs(ip.kafkajsSendMs)} ms ` +
            `(building the first request ${fmtMs(ip.kafkajsBuildMs ?? NaN)} ms, first request queued → last answer ${fmtMs(ip.kafkajsRoundTripMs ?? NaN)} ms)\n`,
        );
      }
    }
    for (const s of results.checkpointSetup) {
      process.stdout.write(`  setup: ${fmtInt(s.N)} admin OffsetCommits (16 in parallel) took ${fmtInt(s.commitMs)} ms\n`);
    }
  }

  if (results.mirror.length > 0) {
    printTable(
      `2. Mirror throughput (${S.mirrorPartitions} partitions, offset syncs on, offset.lag.max 100; steady = first record mirrored → last)`,
      ['record', 'records', 'on target', 'start→done ms', 'start→1st ms', 'records/s', 'MB/s', 'MB/s incl. start', 'syncs', 'node CPU', 'baseline produce rec/s', 'MB/s'],
      results.mirror.map((r) => [
        `${r.size} B`, fmtInt(r.mirrored), fmtInt(r.onTarget), fmtInt(r.endMs), fmtInt(r.firstMs), fmtInt(r.recPerS), r.mbPerS.toFixed(1), r.mbPerSEnd.toFixed(1),
        fmtInt(r.syncsSent), `${r.cpuPct.toFixed(0)}%`, fmtInt(r.produceRecPerS), r.produceMbPerS.toFixed(1),
      ]),
    );
    for (const r of results.mirror) if (r.errors.length > 0) process.stdout.write(`  ${r.size} B: mirror reported ${r.errors.join(' | ')}\n`);
  }

  if (results.nodered.length > 0) {
    printTable(
      '3. Node-RED memory (/proc/<pid>/status of the Node-RED child)',
      ['what', 'after s', 'VmRSS', 'VmHWM', 'RSS range while running', 'traffic check'],
      results.nodered.map((r) => [
        r.what, r.seconds, fmtMiB(r.rssKb), fmtMiB(r.hwmKb),
        r.minKb !== undefined ? `${fmtMiB(r.minKb)} – ${fmtMiB(r.maxKb)}` : '-',
        r.produced !== undefined ? `produced ${fmtInt(r.produced)}, mirrored ${fmtInt(r.mirrored)}, checkpoint records ${fmtInt(r.checkpoints)}, target group synced ${r.synced ? 'yes' : 'no'}` : '-',
      ]),
      [0, 5],
    );
  }

  if (results.notes.length > 0) {
    process.stdout.write('\nNotes:\n');
    for (const n of results.notes) process.stdout.write(`  - ${n}\n`);
  }

  // The markdown version, for docs/figures.md.
  const md = [];
  md.push(`Measured with \`npm run bench\` on ${env}.`, '');
  md.push('| measurement | result | details |', '|---|---|---|');
  for (const r of results.checkpoint) {
    const result = r.written === undefined ? `${fmtMs(r.ms)} ms` : `${fmtMs(r.ms)} ms, ${fmtInt(r.written)} checkpoints`;
    md.push(`| checkpoints, ${fmtInt(r.N)} groups × ${S.groupPartitions} partitions: ${r.step} | ${result} | ${fmtInt(r.requests)} requests (${r.breakdown || 'none'}) |`);
  }
  for (const r of results.mirror) {
    md.push(
      `| mirror, ${fmtInt(r.N)} records of ${r.size} B, ${S.mirrorPartitions} partitions, offset syncs on | ${fmtInt(r.recPerS)} records/s, ${r.mbPerS.toFixed(1)} MB/s | ` +
        `${fmtInt(r.endMs)} ms from start() until all acknowledged (first record after ${fmtInt(r.firstMs)} ms); ${fmtInt(r.syncsSent)} offset syncs; kafkajs producer baseline ${fmtInt(r.produceRecPerS)} records/s |`,
    );
  }
  for (const r of results.nodered) {
    const traffic = r.produced !== undefined
      ? `; ${fmtInt(S.nrRate)} records/s of 1 KiB: ${fmtInt(r.mirrored)} records mirrored, ${fmtInt(r.checkpoints)} checkpoint records, target group offsets synced: ${r.synced ? 'yes' : 'no'}`
      : '';
    md.push(`| ${r.what}, after ${r.seconds} s | VmRSS ${fmtMiB(r.rssKb)} | VmHWM ${fmtMiB(r.hwmKb)}${traffic} |`);
  }
  process.stdout.write(`\n--- markdown ---\n${md.join('\n')}\n--- end ---\n`);
}

// ---- main -------------------------------------------------------------------------------------

async function main() {
  progress(`Kafka ${KAFKA_VERSION}; parts: ${[...S.only].join(', ')}; groups ${S.groups.join(',')} × ${S.groupPartitions}; records ${S.records} × sizes ${S.recordSizes.join(',')}`);
  const clusters = await startClusters(['source', 'target'], { version: KAFKA_VERSION });
  onCleanup('Kafka clusters', () => clusters.stop());
  // Node-RED first, on clean clusters: the example flow mirrors every topic (`.*`), so it would
  // otherwise copy the benchmark's own topics.
  if (S.only.has('nodered')) await benchNodeRed(clusters);
  if (S.only.has('checkpoint')) await benchCheckpoints(clusters);
  if (S.only.has('mirror')) await benchMirror(clusters);
}

runBench(main, report, S.timeoutS);
