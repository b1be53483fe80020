'use strict';
/**
 * Precision benchmark: how many records a failover would re-read, for groups at random positions,
 * with our checkpoint emitter in 'precise' and in 'mm2' translation and with the real MirrorMaker 2
 * checkpoint connector, on the same data in the same run. Run with `npm run bench:precision`.
 *
 * One randomized workload (seeded): a topic on the source with BENCH_PARTITIONS partitions and about
 * BENCH_RECORDS records each, written in batches and transactions, some of them aborted (gaps on the
 * source that the target does not have); the real MM2 (dedicated mode, offset.lag.max
 * BENCH_LAG_MAX) mirrors it and writes the offset syncs. Once everything is mirrored, BENCH_GROUPS
 * idle groups commit at random positions on every partition; MM2's checkpoint task (running all
 * along) translates them, and so do two of our emitters started then (as after a restart: they read
 * the offset-syncs topic from its start), one per mode, each writing its own checkpoints topic.
 *
 * Then every group moves forward BENCH_MOVES times (a random part of the way to the partition's end,
 * each move checkpointed by our sides before the next; MM2 checkpoints the last positions): a group
 * that keeps moving far behind passes syncs that left MM2's 64 slots long ago.
 *
 * Re-read of a group partition = the target offset of the copy of the first record at or after the
 * group's source position (aborted ones included: the real MM2 copies them) minus the checkpoint's
 * target offset. The bound for 'precise' is
 * the target records between the two syncs around the position, + 1. Then the memory of a precise
 * store at 1,000 groups x 10 partitions, measured in this process (node --expose-gc); with
 * BENCH_MEMORY_ONLY=1 only that (no Kafka).
 *
 * Everything it starts is stopped at the end, also on failure. Progress on stderr, figures on stdout.
 */
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

if (typeof global.gc !== 'function') {
  // the memory figure needs a collection before each reading
  const r = require('node:child_process').spawnSync(process.execPath, ['--expose-gc', __filename, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status === null ? 1 : r.status);
}

const root = path.join(__dirname, '..');
const { startClusters, DEFAULT_KAFKA_VERSION } = require(path.join(root, 'scripts', 'kafka', 'cluster'));
const { startMirrorMaker } = require(path.join(root, 'scripts', 'kafka', 'connect'));
const { envInt, progress, sleep, fmtInt, onCleanup, rawKafka, createTopic, printTable, cpuModel, runBench } = require('./lib');
const { ClusterConnection } = require(path.join(root, 'dist', 'kafka', 'connection'));
const { CheckpointEmitter } = require(path.join(root, 'dist', 'engines', 'checkpoint-emitter'));
const { TopicReader } = require(path.join(root, 'dist', 'kafka', 'topic-reader'));
const { AdminOffsetCommitter } = require(path.join(root, 'dist', 'kafka', 'groups'));
const { ensureInternalTopic } = require(path.join(root, 'dist', 'kafka', 'internal-topics'));
const { decodeOffsetSync } = require(path.join(root, 'dist', 'core', 'offset-sync'));
const { decodeCheckpoint } = require(path.join(root, 'dist', 'core', 'checkpoint'));
const { OffsetSyncStore } = require(path.join(root, 'dist', 'core', 'offset-sync-store'));
const { createReplicationPolicy } = require(path.join(root, 'dist', 'core', 'replication-policy'));
const { createGroupFilter, createTopicFilter } = require(path.join(root, 'dist', 'core', 'filters'));

const S = {
  partitions: envInt('BENCH_PARTITIONS', 6),
  records: envInt('BENCH_RECORDS', 6000),
  groups: envInt('BENCH_GROUPS', 20),
  lagMax: envInt('BENCH_LAG_MAX', 100),
  seed: envInt('BENCH_SEED', 1),
  memGroups: envInt('BENCH_MEM_GROUPS', 1000),
  memPartitions: envInt('BENCH_MEM_PARTITIONS', 10),
  moves: envInt('BENCH_MOVES', 3),
  memoryOnly: envInt('BENCH_MEMORY_ONLY', 0) === 1,
  timeoutS: envInt('BENCH_TIMEOUT_S', 1800),
};
const KAFKA_VERSION = process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION;
const TOPIC = 'bench-precision';
const REMOTE = `source.${TOPIC}`;
const SYNCS_TOPIC = 'mm2-offset-syncs.target.internal';
const FLOW = 'source->target';
/** @param {number} i */
const GROUP = (i) => `bench-g${String(i).padStart(3, '0')}`;

/** seeded: the workload is the same for the same BENCH_SEED */
const { seededRandom: rng } = require(path.join(root, 'scripts', 'seeded-random'));

/** Every record of a topic: `partition/value` -> offset, once `expect` are read. */
async function offsetsByValue(kafka, topic, expect, readUncommitted = false) {
  const out = new Map();
  const consumer = kafka.consumer({ groupId: `__bench-precision-read-${process.pid}-${topic}`, readUncommitted });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({ eachMessage: async ({ partition, message }) => { out.set(`${partition}/${message.value.toString()}`, BigInt(message.offset)); } });
    for (let deadline = Date.now() + 300000; out.size < expect; ) {
      if (Date.now() > deadline) throw new Error(`read ${out.size} of ${expect} records of ${topic} in 300 s`);
      await sleep(200);
    }
  } finally {
    await consumer.disconnect();
  }
  return out;
}

/** Our checkpoint side in one mode: an emitter fed by a reader of the offset-syncs topic from its start. */
async function ourSide(clusters, mode) {
  const source = new ClusterConnection({ alias: 'source', bootstrapServers: [clusters.source.bootstrap] });
  const target = new ClusterConnection({ alias: 'target', bootstrapServers: [clusters.target.bootstrap] });
  const props = { 'source.cluster.alias': 'source', 'target.cluster.alias': 'target', topics: TOPIC, groups: 'bench-.*' };
  const emitter = new CheckpointEmitter({
    source,
    target,
    sourceAlias: 'source',
    targetAlias: 'target',
    policy: createReplicationPolicy(props),
    checkpointsTopic: `source.${mode}-mode.checkpoints.internal`,
    groupFilter: createGroupFilter(props),
    topicFilter: createTopicFilter(props),
    ensureTopic: async (c, t) => ensureInternalTopic(await c.admin(), t, 1),
    sourceOffsets: 'poll',
    offsetTranslation: mode,
  });
  let read = 0;
  const reader = new TopicReader(source.kafka, await source.admin(), {
    topic: SYNCS_TOPIC,
    tail: true,
    maxWaitTimeMs: 100,
    onRecord: (r) => {
      read++;
      emitter.handleSyncEvent({ event: 'syncs', syncs: [decodeOffsetSync(r.key, r.value)] });
    },
    onLoaded: () => emitter.handleSyncEvent({ event: 'loaded' }),
  });
  await Promise.all([reader.start(), emitter.start()]);
  onCleanup(`our ${mode} side`, async () => {
    await reader.stop();
    await emitter.stop();
    await source.close();
    await target.close();
  });
  return { emitter, read: () => read };
}

const report = { phases: [], memory: null, env: null };

/** Our two sides translate every group once more (two full cycles: the second writes nothing new); their latest checkpoints per group and partition. */
async function ourLatest(sides) {
  const latest = {};
  for (const mode of ['precise', 'mm2']) {
    const { emitter } = sides[mode];
    let r = await emitter.cycle({ refreshGroups: true });
    r = await emitter.cycle({});
    if (r.groups.length !== S.groups) throw new Error(`our ${mode} side selected ${r.groups.length} of ${S.groups} groups`);
    latest[mode] = new Map([...r.latest].map(([g, l]) => [g, new Map(l.map((c) => [c.partition, c.downstreamOffset]))]));
  }
  return latest;
}

/**
 * MM2's latest checkpoint of every group partition, once MM2 has checkpointed them at `position`: read
 * until all are there, or the count of those there stands for 10 s (MM2 writes no checkpoint for a
 * move that its translation does not carry past the last one; that last one is where a failover resumes).
 */
async function mm2AtPositions(tgt, mm2Admin, position) {
  const mm2Latest = new Map();
  let lastCount = -1;
  let countSince = Date.now();
  for (let deadline = Date.now() + 180000; ; ) {
    mm2Latest.clear();
    let have = 0;
    const reader = new TopicReader(tgt, mm2Admin, {
      topic: 'source.checkpoints.internal',
      tail: false,
      onRecord: (r) => {
        const c = decodeCheckpoint(r.key, r.value);
        if (position[c.group] === undefined) return;
        (mm2Latest.get(c.group) ?? mm2Latest.set(c.group, new Map()).get(c.group)).set(c.partition, c);
      },
    });
    await reader.start().catch(() => undefined);
    for (const [g, m] of mm2Latest) for (const [p, c] of m) if (c.upstreamOffset === position[g][p].offset) have++;
    if (have >= S.groups * S.partitions) break;
    if (have > 0 && have === lastCount && Date.now() - countSince >= 10000) break;
    if (have !== lastCount) {
      lastCount = have;
      countSince = Date.now();
    }
    if (Date.now() > deadline) throw new Error(`MM2 checkpointed ${have} of ${S.groups * S.partitions} group partitions in 180 s`);
    await sleep(1000);
  }
  return new Map([...mm2Latest].map(([g, m]) => [g, new Map([...m].map(([p, c]) => [p, c.downstreamOffset]))]));
}

async function main() {
  if (S.memoryOnly) {
    report.memory = measureMemory(S.memGroups, S.memPartitions);
    return;
  }
  const rand = rng(S.seed);
  const P = S.partitions;
  report.env = { cpu: cpuModel(), cores: os.cpus().length, loadBefore: os.loadavg().map((x) => x.toFixed(2)).join(' ') };
  progress(`two clusters (Kafka ${KAFKA_VERSION})`);
  const clusters = await startClusters(['source', 'target'], { version: KAFKA_VERSION });
  onCleanup('Kafka clusters', () => clusters.stop());
  const src = rawKafka(clusters.source, 'bench-precision');
  const tgt = rawKafka(clusters.target, 'bench-precision');
  const admin = src.admin();
  await admin.connect();
  onCleanup('source admin', () => admin.disconnect());
  await createTopic(admin, TOPIC, P);

  progress(`MirrorMaker 2 (dedicated mode, offset.lag.max ${S.lagMax}, intervals 1 s)`);
  const mm2 = await startMirrorMaker({
    source: clusters.source.bootstrap,
    target: clusters.target.bootstrap,
    version: KAFKA_VERSION,
    props: {
      [`${FLOW}.topics`]: TOPIC,
      [`${FLOW}.groups`]: 'bench-.*',
      [`${FLOW}.offset.lag.max`]: S.lagMax,
      [`${FLOW}.emit.checkpoints.interval.seconds`]: 1,
      [`${FLOW}.refresh.groups.interval.seconds`]: 1,
      [`${FLOW}.refresh.topics.interval.seconds`]: 1,
    },
  });
  onCleanup('MirrorMaker 2', () => mm2.stop());

  progress(`workload: about ${fmtInt(S.records)} records on each of ${P} partitions, batches and transactions (some aborted), seed ${S.seed}`);
  const producer = src.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  onCleanup('producer', () => producer.disconnect());
  const tx = src.producer({ transactionalId: `bench-precision-${process.pid}`, maxInFlightRequests: 1, idempotent: true });
  await tx.connect();
  onCleanup('transactional producer', () => tx.disconnect());
  let seq = 0;
  let committed = 0;
  const written = new Array(P).fill(0);
  while (written.some((n) => n < S.records)) {
    const p = Math.floor(rand() * P);
    if (written[p] >= S.records) continue;
    const n = 1 + Math.floor(rand() * 200);
    const messages = Array.from({ length: n }, () => ({ partition: p, value: `v${seq++}` }));
    if (rand() < 0.3) {
      const t = await tx.transaction();
      await t.send({ topic: TOPIC, messages });
      if (rand() < 0.3) await t.abort();
      else {
        await t.commit();
        committed += n;
      }
    } else {
      await producer.send({ topic: TOPIC, acks: -1, messages });
      committed += n;
    }
    written[p] += n;
  }
  progress(`  ${fmtInt(seq)} records written, ${fmtInt(committed)} committed; waiting for MM2 to mirror them`);
  const tadmin = tgt.admin();
  await tadmin.connect();
  onCleanup('target admin', () => tadmin.disconnect());
  for (let deadline = Date.now() + 600000; ; ) {
    const ends = await tadmin.fetchTopicOffsets(REMOTE).catch(() => []);
    let n = 0;
    for (const o of ends) n += Number(o.high) - Number(o.low);
    if (n >= committed) break;
    if (Date.now() > deadline) throw new Error(`MM2 mirrored ${n} of ${committed} records in 600 s`);
    await sleep(500);
  }

  // the groups, idle at random positions (anywhere between the partition's start and end)
  const ends = Object.fromEntries((await admin.fetchTopicOffsets(TOPIC)).map((o) => [o.partition, { low: BigInt(o.low), high: BigInt(o.high) }]));
  const committer = new AdminOffsetCommitter(src);
  onCleanup('committer', () => committer.close());
  const position = {};
  for (let g = 0; g < S.groups; g++) {
    const offsets = [];
    for (let p = 0; p < P; p++) {
      const { low, high } = ends[p];
      const at = low + BigInt(Math.floor(rand() * Number(high - low + 1n)));
      offsets.push({ topic: TOPIC, partition: p, offset: at });
    }
    position[GROUP(g)] = offsets;
    const r = await committer.commit(GROUP(g), offsets);
    if (!r.ok) throw new Error(`committing ${GROUP(g)}: ${JSON.stringify(r)}`);
  }
  progress(`  ${S.groups} groups committed at random positions; our two sides start (they read the offset syncs from the start)`);

  const sides = {};
  for (const mode of ['precise', 'mm2']) sides[mode] = await ourSide(clusters, mode);
  const [syncsEnd] = await admin.fetchTopicOffsets(SYNCS_TOPIC);
  for (const mode of ['precise', 'mm2']) {
    const { emitter, read } = sides[mode];
    for (let deadline = Date.now() + 120000; read() < Number(syncsEnd.high) - Number(syncsEnd.low); ) {
      if (Date.now() > deadline) throw new Error(`our ${mode} side read ${read()} offset syncs in 120 s`);
      await sleep(200);
    }
    for (let deadline = Date.now() + 120000; !emitter.syncsLoaded; ) {
      if (Date.now() > deadline) throw new Error(`our ${mode} side did not finish loading the offset syncs in 120 s`);
      await sleep(200);
    }
  }
  const mm2Admin = tgt.admin();
  await mm2Admin.connect();
  onCleanup('target admin 2', () => mm2Admin.disconnect());
  const phases = [];
  {
    const latest = await ourLatest(sides);
    progress('  waiting for MM2 to checkpoint the group partitions at their positions (until its count stands for 10 s)');
    latest.real = await mm2AtPositions(tgt, mm2Admin, position);
    phases.push({ title: `${S.groups} idle groups at random positions`, position, latest });
  }
  if (S.moves > 0) {
    // every group moves forward a random part of the way to the end, BENCH_MOVES times, each move translated by our sides
    let at = position;
    let moved;
    for (let m = 0; m < S.moves; m++) {
      const next = {};
      for (const [g, offsets] of Object.entries(at)) {
        next[g] = offsets.map((o) => ({ ...o, offset: o.offset + BigInt(Math.floor(rand() * Number(ends[o.partition].high - o.offset) * 0.4)) }));
        const r = await committer.commit(g, next[g]);
        if (!r.ok) throw new Error(`committing ${g}: ${JSON.stringify(r)}`);
      }
      at = next;
      progress(`  move ${m + 1} of ${S.moves}: every group a random part of the way further; our sides translate them`);
      moved = await ourLatest(sides);
    }
    progress('  waiting for MM2 to checkpoint the moved group partitions');
    moved.real = await mm2AtPositions(tgt, mm2Admin, at);
    phases.push({ title: `the same groups after ${S.moves} moves forward (each translated; the syncs they pass left MM2's slots long before)`, position: at, latest: moved });
  }
  report.env.loadDuring = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  try {
    report.env.top = execFileSync('ps', ['-eo', 'pcpu,comm', '--sort=-pcpu'], { encoding: 'utf8' }).split('\n').slice(1, 6).map((l) => l.trim()).join(', ');
  } catch {
    report.env.top = '?';
  }

  // where each group would resume on the target, and the syncs around its position
  progress('  reading both copies of the topic and the offset syncs');
  // the source with its aborted records too: a group at the offset of one would go on after it, so the
  // ideal resume point on the target is the copy of the record at the group's offset, whatever it is
  const srcOffsets = await offsetsByValue(src, TOPIC, seq, true);
  // every record of the target copy (its producer is not transactional: no gaps; MM2 may have copied aborted records too)
  const tgtRanges = await tadmin.fetchTopicOffsets(REMOTE);
  /** @type {Record<number, bigint>} */
  const tgtEnds = Object.fromEntries(tgtRanges.map((o) => [o.partition, BigInt(o.high)]));
  const tgtOffsets = await offsetsByValue(tgt, REMOTE, tgtRanges.reduce((a, o) => a + Number(o.high) - Number(o.low), 0));
  /** per partition: [source offset, target offset], in source order */
  const pairs = Array.from({ length: P }, () => []);
  for (const [k, so] of srcOffsets) {
    const to = tgtOffsets.get(k);
    if (to !== undefined) pairs[Number(k.split('/')[0])].push([so, to]);
  }
  for (const l of pairs) l.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const resumeAt = (p, pos) => {
    const next = pairs[p].find(([so]) => so >= pos);
    return next ? next[1] : tgtEnds[p];
  };
  /** @type {Array<Array<{ upstreamOffset: bigint, downstreamOffset: bigint }>>} */
  const syncs = Array.from({ length: P }, () => []);
  {
    const reader = new TopicReader(src, admin, { topic: SYNCS_TOPIC, tail: false, onRecord: (r) => { const s = decodeOffsetSync(r.key, r.value); if (s.topic === TOPIC) syncs[s.partition].push(s); } });
    await reader.start();
  }
  for (const { title, position, latest } of phases) {
    const rows = [];
    const notes = [];
    report.phases.push({ title, rows, notes });
    const stats = {};
    for (const side of ['precise', 'mm2', 'real']) stats[side] = { total: 0n, perPartitionMax: 0n, overBound: 0, covered: 0 };
    let boundTotal = 0n;
    let notAll = 0;
    const overCases = [];
    for (const [g, offsets] of Object.entries(position)) {
      for (const { partition: p, offset: pos } of offsets) {
        const at = resumeAt(p, pos);
        const below = syncs[p].filter((s) => s.upstreamOffset <= pos).pop();
        const above = syncs[p].find((s) => s.upstreamOffset > pos);
        const bound = below === undefined ? null : (above ? above.downstreamOffset : tgtEnds[p]) - below.downstreamOffset + 1n;
        if (bound !== null) boundTotal += bound;
        const downs = ['precise', 'mm2', 'real'].map((side) => latest[side].get(g)?.get(p));
        for (const [i, side] of ['precise', 'mm2', 'real'].entries()) if (downs[i] !== undefined) stats[side].covered++;
        // the totals compare the group partitions all three checkpointed
        if (downs.some((d) => d === undefined)) {
          notAll++;
          continue;
        }
        for (const [i, side] of ['precise', 'mm2', 'real'].entries()) {
          const down = downs[i];
          const reread = at - down;
          if (reread < 0n) throw new Error(`${side}: ${g} partition ${p} resumes at ${down}, past ${at}: a skipped record`);
          const st = stats[side];
          st.total += reread;
          if (reread > st.perPartitionMax) st.perPartitionMax = reread;
          if (bound !== null && reread > bound) {
            st.overBound++;
            if (side === 'precise') overCases.push(`${g} p${p} at ${pos}: resumes at ${down}, next record at ${at}; syncs around ${below.upstreamOffset}->${below.downstreamOffset} and ${above ? `${above.upstreamOffset}->${above.downstreamOffset}` : 'the end'}`);
          }
        }
      }
    }
    const label = { precise: "ours, 'precise'", mm2: "ours, 'mm2'", real: 'MM2 checkpoint connector' };
    for (const side of ['precise', 'mm2', 'real']) {
      const st = stats[side];
      rows.push([label[side], fmtInt(st.covered), fmtInt(Number(st.total)), fmtInt(Number(st.perPartitionMax)), fmtInt(st.overBound)]);
    }
    for (const c of overCases.slice(0, 10)) notes.push(`precise over the bound: ${c}`);
    notes.push(`group partitions not checkpointed by all three (left out of the totals): ${notAll}`);
    notes.push(`syncs per partition: ${syncs.map((l) => l.length).join(', ')}; sum of the bounds (target records between the syncs around each position, +1): ${fmtInt(Number(boundTotal))}`);
    const ratio = Number(stats.real.total) / Math.max(1, Number(stats.precise.total));
    notes.push(`MM2's total / precise's total: ${ratio.toFixed(1)}x`);
    const same = [...latest.mm2].every(([g, m]) => [...m].every(([p, d]) => latest.real.get(g)?.get(p) === d));
    notes.push(`ours in 'mm2' mode wrote exactly MM2's target offsets: ${same ? 'yes' : 'NO'}`);
  }

  // memory of the store at 1,000 groups x 10 partitions (no Kafka: the store alone)
  progress(`memory: a precise store, ${S.memGroups} groups x ${S.memPartitions} partitions`);
  report.memory = measureMemory(S.memGroups, S.memPartitions);
}

/**
 * Heap bytes of a store after 10,000 syncs per partition (one every 100 offsets), in mm2 mode and in
 * precise mode with every group partition tracked from the start at a random position in the first
 * tenth, each moving forward (to at most half the way) and translated again every 1,000 syncs: the
 * groups far behind keep every sync above the lowest of them retained, so each partition reaches the
 * cap of retained syncs and is thinned (the most a partition retains).
 */
function measureMemory(groups, partitions) {
  const SYNCS = 10000;
  // the groups' names and positions (start, and the step of each move) outside the heap measured
  const r = rng(7);
  const names = Array.from({ length: groups }, (_, g) => `group-${g}`);
  const start = Array.from({ length: groups * partitions }, () => Math.floor(r() * SYNCS * 10));
  const step = Array.from({ length: groups * partitions }, () => Math.floor(r() * 5000));
  const build = (translation, retainedSyncsPerPartition) => {
    const store = new OffsetSyncStore({ keepHistoryOnLoad: false, translation, retainedSyncsPerPartition });
    store.markLoaded();
    const translate = (moves) => {
      if (translation === 'mm2') return;
      for (let g = 0; g < groups; g++) {
        for (let p = 0; p < partitions; p++) store.explain('t', p, BigInt(start[g * partitions + p] + moves * step[g * partitions + p]), names[g]);
      }
    };
    for (let u = 0; u < SYNCS; u++) {
      for (let p = 0; p < partitions; p++) store.apply({ topic: 't', partition: p, upstreamOffset: BigInt(u * 100), downstreamOffset: BigInt(u * 90) });
      if (u % 1000 === 0) translate(u / 1000);
    }
    return store;
  };
  const heap = () => {
    global.gc();
    global.gc();
    return process.memoryUsage().heapUsed;
  };
  heap(); // settle what the start allocated
  const h0 = heap();
  const mm2 = build('mm2');
  const mm2Bytes = heap() - h0;
  const h1 = heap();
  const precise = build('precise');
  const preciseBytes = heap() - h1;
  // the same with (nearly) nothing retained: what the retained syncs take
  const h2 = heap();
  const few = build('precise', 4);
  const fewBytes = heap() - h2;
  const fewRetained = few.retainedSyncs;
  const tracked = precise.trackedGroupPartitions;
  const retained = precise.retainedSyncs;
  const spacing = Array.from({ length: partitions }, (_, p) => precise.retention('t', p)?.spacing ?? 0n).reduce((a, b) => (b > a ? b : a), 0n);
  void mm2.partitions();
  const perGroupPartition = (fewBytes - mm2Bytes) / tracked;
  const perRetained = (preciseBytes - fewBytes) / Math.max(1, retained - fewRetained);
  return { groups, partitions, tracked, retained, spacing, cap: precise.retainedSyncsPerPartition, mm2Bytes, preciseBytes, perGroupPartition, perRetained };
}

function printReport() {
  const e = report.env;
  if (e === null) {
    // BENCH_MEMORY_ONLY: no workload
    printMemory();
    return;
  }
  console.log(`\nPrecision: records a failover would re-read (${S.groups} idle groups at random positions, ${S.partitions} partitions, ~${fmtInt(S.records)} records each, offset.lag.max ${S.lagMax}, seed ${S.seed}, Kafka ${KAFKA_VERSION})`);
  console.log(`machine: ${e.cpu}, ${e.cores} cores; load before ${e.loadBefore}, during ${e.loadDuring}; busiest processes at the end: ${e.top}`);
  for (const { title, rows, notes } of report.phases) {
    printTable(`re-read per side: ${title}`, ['side', 'group partitions', 're-read total', 'max per partition', 'over the bound'], rows);
    for (const n of notes) console.log(n);
  }
  printMemory();
}

function printMemory() {
  if (report.memory) {
    const m = report.memory;
    console.log(`store memory, 10,000 syncs per partition: mm2 mode ${fmtInt(m.mm2Bytes / 1024)} KiB; precise with ${fmtInt(m.tracked)} group partitions tracked (${m.groups} groups x ${m.partitions} partitions, moving far behind) ${fmtInt(m.preciseBytes / 1024)} KiB with ${fmtInt(m.retained)} syncs retained (cap ${fmtInt(m.cap)} per partition, thinned to one per ${m.spacing} offsets at most); about ${fmtInt(m.perGroupPartition)} bytes per group partition and ${fmtInt(m.perRetained)} per retained sync`);
  }
}

runBench(main, printReport, S.timeoutS);
