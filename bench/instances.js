'use strict';
/**
 * Scale-out benchmark (issue 25): the same flow (mm2-checkpoint + mm2-group-offsets in mode
 * replication, on one replication) in 1, then N real Node-RED processes on the same two clusters,
 * in one run:
 *
 * 1. one instance: commit-to-visible p50 / p99 / max of sampled commits, its CPU and RSS;
 * 2. N fresh instances (the first one stopped): the same, per instance, with the share each owns
 *    (from its checkpoint node's status);
 * 3. kill -9 of one of the N, commits going on: the time from the kill until every group it owned
 *    has a commit made after the kill visible on the target.
 *
 * The mirror is simulated as in test/integration/share-drills.test.js: the source topic holds R
 * records per partition, the target's remote topic 100 more, and the bench writes the offset syncs
 * (u -> u + 100) itself, one per partition every BENCH_INSTANCES_SYNC_MS. Run with
 * `npm run bench:instances`; see bench/README.md. Everything it starts is stopped at the end, also
 * on failure. Progress goes to stderr; the figures go to stdout.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { AssignerProtocol } = require('kafkajs');

const root = path.join(__dirname, '..');
const { startClusters, DEFAULT_KAFKA_VERSION } = require(path.join(root, 'scripts', 'kafka', 'cluster'));
const { startNodeRed } = require(path.join(root, 'scripts', 'node-red-runner'));
const {
  envInt, progress, sleep, fmtInt, fmtMiB, mapLimit, onCleanup, rawKafka, createTopic, procStatus, printTable, cpuModel,
  commitRetrying, runBench, cpuSeconds, percentile, fmtS, whatElseRuns, otherJavaNode, othersCpuSince, sampleVisibility, sampleStats,
} = require('./lib');
const { ClusterConnection } = require(path.join(root, 'dist', 'kafka', 'connection'));
const { encodeOffsetSync } = require(path.join(root, 'dist', 'core', 'offset-sync'));
const { consumerOffsetsPartitionFor, shareGroupId } = require(path.join(root, 'dist', 'core', 'group-ownership'));

// ---- settings ---------------------------------------------------------------------------------

const S = {
  groups: envInt('BENCH_INSTANCES_GROUPS', 3000),
  partitions: envInt('BENCH_INSTANCES_PARTITIONS', 10),
  instances: envInt('BENCH_INSTANCES_N', 3),
  samples: envInt('BENCH_INSTANCES_SAMPLES', 200),
  sampleEveryMs: envInt('BENCH_INSTANCES_SAMPLE_EVERY_MS', 150),
  pollMs: envInt('BENCH_INSTANCES_POLL_MS', 50),
  sampleTimeoutS: envInt('BENCH_INSTANCES_SAMPLE_TIMEOUT_S', 120),
  minStep: BigInt(envInt('BENCH_INSTANCES_MIN_STEP', 16)),
  syncMs: envInt('BENCH_INSTANCES_SYNC_MS', 1000),
  records: envInt('BENCH_INSTANCES_RECORDS', 5000),
  offsetsPartitions: envInt('BENCH_INSTANCES_OFFSETS_PARTITIONS', 50),
  commitConcurrency: envInt('BENCH_INSTANCES_COMMIT_CONCURRENCY', 64),
  steadyTimeoutS: envInt('BENCH_INSTANCES_STEADY_TIMEOUT_S', 900),
  afterKillS: envInt('BENCH_INSTANCES_AFTER_KILL_S', 10),
  settleS: envInt('BENCH_INSTANCES_SETTLE_S', 15),
  timeoutS: envInt('BENCH_TIMEOUT_S', 3600),
  // the nodes' intervals (emit checkpoints, refresh groups, sync group offsets): seconds, or `default` (the fields left empty: 60 / 600 / 60 s)
  intervals: (process.env.BENCH_INSTANCES_INTERVALS || '1').trim(),
  // a folder: each Node-RED preloads bench/cpu-profile-preload.js and writes a V8 CPU profile of each sampling window it is in (<phase>-<label>/1.cpuprofile)
  nrCpuProf: process.env.BENCH_NR_CPU_PROF || '',
};
if (S.intervals !== 'default' && !/^[1-9]\d*$/.test(S.intervals)) throw new Error(`BENCH_INSTANCES_INTERVALS: ${S.intervals}: seconds (a whole number >= 1) or default`);
/** The intervals as the report says them. */
const intervalsText = S.intervals === 'default' ? 'the nodes\' default intervals (emit checkpoints 60 s, refresh groups 600 s, sync group offsets 60 s)' : `every interval ${S.intervals} s`;
const intervalField = S.intervals === 'default' ? '' : S.intervals;
if (S.instances < 2) throw new Error(`BENCH_INSTANCES_N: ${S.instances}: at least 2 (one of them is killed)`);
const KAFKA_VERSION = process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION;
const TOPIC = 'bench-inst';
const REMOTE = `source.${TOPIC}`;
const SYNCS_TOPIC = 'mm2-offset-syncs.target.internal';
const SHARE_GROUP = shareGroupId('source', 'target');
const SHIFT = 100;
const GROUP_PREFIX = 'bi-g';
const NAMES = 'abcdefghij'.split('');

/** The sharing session timeout the code uses (what a kill waits for), or null when not readable. */
function sessionTimeoutMs() {
  try {
    const shares = require(path.join(root, 'dist', 'engines', 'replication-shares'));
    for (const [k, v] of Object.entries(shares)) if (/SESSION_TIMEOUT/.test(k) && typeof v === 'number') return { ms: v, from: `replication-shares ${k}` };
    const { ShareMembership } = require(path.join(root, 'dist', 'kafka', 'share-membership'));
    return { ms: new ShareMembership({ kafka: {}, sourceAlias: 's', targetAlias: 't', settings: {} }).sessionTimeoutMs, from: 'ShareMembership default' };
  } catch {
    return null;
  }
}

/** Each instance's Kafka client id names it (`bench-inst-<label>`): the sharing group's members say which instance each is (not a setting the instances must agree on). */
function flow(clusters, label) {
  const groups = `${GROUP_PREFIX}.*`;
  return [
    { id: 'tab', type: 'tab', label: 'bench instances', disabled: false, info: '' },
    { id: 'c-src', type: 'mm2-cluster', alias: 'source', bootstrap: clusters.source.bootstrap, saslMechanism: 'none', clientId: `bench-inst-${label}` },
    { id: 'c-tgt', type: 'mm2-cluster', alias: 'target', bootstrap: clusters.target.bootstrap, saslMechanism: 'none', clientId: `bench-inst-${label}` },
    { id: 'rep', type: 'mm2-replication', source: 'c-src', target: 'c-tgt', policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', replicationFactor: '1' },
    {
      id: 'cp', type: 'mm2-checkpoint', z: 'tab', replication: 'rep', groups, groupsExclude: '', topics: TOPIC, topicsExclude: '',
      emitCheckpointsIntervalSeconds: intervalField, refreshGroupsIntervalSeconds: intervalField, sourceOffsets: 'auto', wires: [[], []],
    },
    { id: 'go', type: 'mm2-group-offsets', z: 'tab', replication: 'rep', mode: 'replication', syncGroupOffsetsIntervalSeconds: intervalField, groups, groupsExclude: '', wires: [[]] },
  ];
}

/** The share in a checkpoint node's status text, e.g. `1,020 of 3,000 groups, 17 of 50 partitions, 3 instances · ...`; null when it shows none (alone). */
function parseShare(text) {
  const m = /([\d,]+) of ([\d,]+) groups, ([\d,]+) of ([\d,]+) partitions, (\d+) instances/.exec(text || '');
  if (!m) return null;
  const n = (s) => Number(s.replace(/,/g, ''));
  return { groups: n(m[1]), totalGroups: n(m[2]), parts: n(m[3]), totalParts: n(m[4]), instances: n(m[5]) };
}

// ---- the run ----------------------------------------------------------------------------------

const R = { before: null, after: null, phases: [], kill: null, session: sessionTimeoutMs(), others: [] };

async function main() {
  const G = S.groups;
  const P = S.partitions;
  progress(`Kafka ${KAFKA_VERSION}; ${fmtInt(G)} groups × ${P} partitions; ${intervalsText}; 1 then ${S.instances} instances; ${S.samples} samples per phase; sharing session timeout ${R.session ? `${R.session.ms} ms (${R.session.from})` : 'unknown'}`);
  R.before = whatElseRuns();
  R.others = otherJavaNode();
  const clusters = await startClusters(['source', 'target'], { version: KAFKA_VERSION, properties: { 'offsets.topic.num.partitions': String(S.offsetsPartitions) } });
  onCleanup('Kafka clusters', () => clusters.stop());
  const srcKafka = rawKafka(clusters.source, 'bench-inst');
  const tgtKafka = rawKafka(clusters.target, 'bench-inst');
  const srcAdmin = srcKafka.admin();
  const tgtAdmin = tgtKafka.admin();
  await Promise.all([srcAdmin.connect(), tgtAdmin.connect()]);
  onCleanup('admins', () => Promise.all([srcAdmin.disconnect(), tgtAdmin.disconnect()]));
  await createTopic(srcAdmin, TOPIC, P);
  await createTopic(srcAdmin, SYNCS_TOPIC, 1);
  await createTopic(tgtAdmin, REMOTE, P);

  // the simulated mirror: R records per source partition, 100 + R on the target's remote topic
  progress(`  ${fmtInt(S.records)} records per partition on the source, ${fmtInt(S.records + SHIFT)} on the target`);
  const srcProducer = srcKafka.producer({ allowAutoTopicCreation: false });
  const tgtProducer = tgtKafka.producer({ allowAutoTopicCreation: false });
  await Promise.all([srcProducer.connect(), tgtProducer.connect()]);
  onCleanup('producers', () => Promise.all([srcProducer.disconnect(), tgtProducer.disconnect()]));
  const fill = async (producer, topic, n) => {
    for (let p = 0; p < P; p++) {
      for (let i = 0; i < n; i += 2000) await producer.send({ topic, acks: -1, messages: Array.from({ length: Math.min(2000, n - i) }, (_, j) => ({ partition: p, value: `r${i + j}` })) });
    }
  };
  await Promise.all([fill(srcProducer, TOPIC, S.records), fill(tgtProducer, REMOTE, S.records + SHIFT)]);

  // offset syncs: one per partition every S.syncMs, u -> u + 100; a sync is "settled" 500 ms after its write
  /** @type {Array<Array<{ up: bigint, at: number }>>} */
  const syncs = Array.from({ length: P }, () => []);
  let head = 0n;
  const writeSyncs = async () => {
    const messages = [];
    for (let p = 0; p < P; p++) {
      const { key, value } = encodeOffsetSync({ topic: TOPIC, partition: p, upstreamOffset: head, downstreamOffset: head + BigInt(SHIFT) });
      messages.push({ key, value, partition: 0 });
    }
    await srcProducer.send({ topic: SYNCS_TOPIC, acks: -1, messages });
    const at = performance.now();
    for (let p = 0; p < P; p++) {
      syncs[p].push({ up: head, at });
      if (syncs[p].length > 20) syncs[p].shift();
    }
  };
  await writeSyncs();
  let syncing = true;
  const syncLoop = (async () => {
    while (syncing) {
      const t = performance.now();
      if (head < BigInt(S.records - 1)) {
        head++;
        await writeSyncs().catch((e) => progress(`  offset sync not written: ${e.message}`));
      }
      await sleep(Math.max(0, S.syncMs - (performance.now() - t)));
    }
  })();
  onCleanup('offset-sync writer', async () => {
    syncing = false;
    await syncLoop;
  });
  const settledSync = (p) => {
    const now = performance.now();
    for (let i = syncs[p].length - 1; i >= 0; i--) if (now - syncs[p][i].at >= 500) return syncs[p][i];
    return undefined;
  };
  await sleep(600);

  // the groups, committed on the settled sync of every partition (this also creates the source's __consumer_offsets)
  const source = new ClusterConnection({ alias: 'source', bootstrapServers: [clusters.source.bootstrap], clientId: 'bench-inst' });
  const target = new ClusterConnection({ alias: 'target', bootstrapServers: [clusters.target.bootstrap], clientId: 'bench-inst' });
  onCleanup('bench connections', () => Promise.all([source.close(), target.close()]));
  const committer = source.committer();
  const fetcher = target.offsetFetcher();
  const name = (i) => `${GROUP_PREFIX}${String(i).padStart(5, '0')}`;
  const groups = Array.from({ length: G }, (_, i) => name(i));
  const index = new Map(groups.map((g, i) => [g, i]));
  const start = Array.from({ length: P }, (_, p) => settledSync(p).up);
  const cur = Array.from({ length: G }, () => start.slice());
  const tc = performance.now();
  const setup = await mapLimit(groups, S.commitConcurrency, (g) => commitRetrying(committer, g, start.map((o, p) => ({ topic: TOPIC, partition: p, offset: o }))));
  const bad = setup.filter((r) => !r.ok);
  if (bad.length > 0) throw new Error(`${bad.length} setup commits failed, e.g. ${bad[0].errorType}: ${bad[0].message}`);
  progress(`  committed ${fmtInt(G)} groups × ${P} partitions in ${fmtS(performance.now() - tc)}`);

  const targetOffsets = async (group) => {
    const m = new Map();
    for (const o of await fetcher.fetch(group)) if (o.topic === REMOTE && o.offset !== null) m.set(o.partition, o.offset);
    return m;
  };
  /** group -> Map partition -> target offset, for many groups (one OffsetFetch v8 per coordinator) */
  const targetMany = async (list) => {
    const out = new Map();
    for (let i = 0; i < list.length; i += 2000) {
      const { offsets } = await fetcher.fetchMany(list.slice(i, i + 2000));
      for (const g of list.slice(i, i + 2000)) {
        const m = new Map();
        for (const o of offsets.get(g) ?? []) if (o.topic === REMOTE && o.offset !== null) m.set(o.partition, o.offset);
        out.set(g, m);
      }
    }
    return out;
  };

  /** Waits until every partition of every group has an offset on the target. */
  const allOnTarget = async (what) => {
    const t = performance.now();
    const left = new Set(groups);
    for (const deadline = t + S.steadyTimeoutS * 1000; left.size > 0; ) {
      const m = await targetMany([...left]);
      for (const [g, offs] of m) if (offs.size === P) left.delete(g);
      if (left.size === 0) break;
      if (performance.now() > deadline) throw new Error(`${what}: ${left.size} of ${G} groups not on the target after ${S.steadyTimeoutS} s`);
      await sleep(500);
    }
    return performance.now() - t;
  };

  /**
   * One commit for each of `list` (a partition not in `inFlight`, moved to its settled sync), then
   * waits until each is visible on the target; times from `from` (default: the first commit).
   * @returns {Promise<{ commitMs: number, visibleAt: Map<string, number>, lastMs: number, notVisible: number }>}
   */
  const sweep = async (list, inFlight, from, timeoutMs) => {
    const before = await targetMany(list);
    const t0 = from ?? performance.now();
    /** @type {Map<string, number>} group -> the partition committed */
    const moved = new Map();
    await mapLimit(list, S.commitConcurrency, async (g) => {
      const i = index.get(g);
      let best = -1;
      // the partition whose settled sync is furthest past the group's commit (the syncs advance one a
      // second): the sync committed on is in every offset-sync store (the newest ones are), so any step moves the translation
      for (const waitUntil = performance.now() + 120000; ; ) {
        let gap = -1n;
        best = -1;
        for (let p = 0; p < P; p++) {
          const s = settledSync(p);
          if (!s || inFlight.has(`${g}/${p}`)) continue;
          if (s.up - cur[i][p] > gap) {
            gap = s.up - cur[i][p];
            best = p;
          }
        }
        if (best >= 0 && gap >= 1n) break;
        if (performance.now() > waitUntil) return; // nothing to move (left out, counted as not visible)
        await sleep(250);
      }
      inFlight.add(`${g}/${best}`);
      const up = settledSync(best).up;
      cur[i][best] = up;
      const r = await commitRetrying(committer, g, [{ topic: TOPIC, partition: best, offset: up }]);
      if (!r.ok) throw new Error(`sweep commit of ${g} failed: ${r.errorType}: ${r.message}`);
      moved.set(g, best);
    });
    const commitMs = performance.now() - t0;
    const visibleAt = new Map();
    const open = new Set(moved.keys());
    for (const deadline = performance.now() + timeoutMs; open.size > 0 && performance.now() < deadline; ) {
      const m = await targetMany([...open]);
      const now = performance.now();
      for (const [g, offs] of m) {
        const p = moved.get(g);
        if ((offs.get(p) ?? -1n) > (before.get(g).get(p) ?? -1n)) {
          visibleAt.set(g, now - t0);
          open.delete(g);
          inFlight.delete(`${g}/${p}`);
        }
      }
      if (open.size > 0) await sleep(200);
    }
    for (const g of open) inFlight.delete(`${g}/${moved.get(g)}`);
    return { commitMs, visibleAt, lastMs: Math.max(0, ...visibleAt.values()), notVisible: list.length - visibleAt.size };
  };

  /** Samples (bench/lib sampleVisibility) on random group partitions moved to a settled sync at least BENCH_INSTANCES_MIN_STEP past their commit. */
  const sampler = (count, inFlight) => {
    const sv = sampleVisibility({
      count, everyMs: S.sampleEveryMs, pollMs: S.pollMs, timeoutMs: S.sampleTimeoutS * 1000, targetOffsets,
      pick: (busy) => {
        for (let attempt = 0; attempt < 50; attempt++) {
          const i = Math.floor(Math.random() * G);
          const p = Math.floor(Math.random() * P);
          const s = settledSync(p);
          if (!busy.has(`${name(i)}/${p}`) && !(inFlight && inFlight.has(`${name(i)}/${p}`)) && s && s.up - cur[i][p] >= S.minStep) return { group: name(i), p, i, up: s.up };
        }
        return undefined;
      },
      commit: async (s) => {
        cur[s.i][s.p] = s.up;
        const r = await commitRetrying(committer, s.group, [{ topic: TOPIC, partition: s.p, offset: s.up }]);
        if (!r.ok) throw new Error(`sample commit failed: ${r.errorType}: ${r.message}`);
      },
    });
    return sv;
  };

  // ---- Node-RED instances ---------------------------------------------------------------------
  /** @type {Map<string, { nr: any, watch: any, pid: number, label: string, stop: () => Promise<void> }>} */
  const live = new Map();
  const startInstance = async (label, phaseName) => {
    const nr = await startNodeRed({ quiet: true, logLevel: 'warn', flows: flow(clusters, label),
      ...(S.nrCpuProf ? { env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${path.join(__dirname, 'cpu-profile-preload.js')}`.trim(), BENCH_CPU_PROF_DIR: path.resolve(S.nrCpuProf, `${phaseName}-${label}`) } } : {}) });
    const stop = onCleanup(`Node-RED ${label}`, () => nr.stop());
    const loadErrors = ((await nr.request('GET', '/nodes', undefined, { Accept: 'application/json' })).json ?? [])
      .filter((m) => m.module === '@kafka-mm2/node-red' && m.err).map((m) => `${m.name}: ${String(m.err).split('\n')[0]}`);
    if (loadErrors.length > 0) throw new Error(`our nodes did not load in Node-RED: ${loadErrors.join('; ')}`);
    const watch = await nr.watchStatuses();
    const closeWatch = onCleanup(`status watch ${label}`, () => watch.close());
    const inst = { nr, watch, pid: nr.process.pid, label, stop: async () => { await closeWatch(); await stop(); } };
    live.set(label, inst);
    if (!R.nodeRedNode) R.nodeRedNode = require('node:child_process').execFileSync(nr.node, ['--version'], { encoding: 'utf8' }).trim();
    progress(`  Node-RED ${label} started (pid ${inst.pid}, port ${nr.port})`);
    return inst;
  };
  const cpText = (inst) => (inst.watch.get('cp') || {}).text || '';
  /** Waits until each live instance's checkpoint node shows a share of `n` instances (n > 1) adding up to every group, or (n = 1) a status with no share. */
  const shareSettled = async (n) => {
    const t = performance.now();
    let lastLog = t;
    for (const deadline = t + S.steadyTimeoutS * 1000; ; ) {
      const shares = [...live.values()].map((x) => parseShare(cpText(x)));
      if (n === 1 ? shares.every((s) => s === null) && [...live.values()].every((x) => /\d/.test(cpText(x))) : shares.every((s) => s && s.instances === n && s.totalGroups === G) && shares.reduce((a, s) => a + s.groups, 0) === G) {
        return performance.now() - t;
      }
      if (performance.now() - lastLog > 15000) {
        lastLog = performance.now();
        progress(`    statuses: ${[...live.values()].map((x) => `${x.label}: ${cpText(x) || '-'}`).join(' | ')}`);
      }
      if (performance.now() > deadline) throw new Error(`the checkpoint nodes did not show a share of ${n} instances within ${S.steadyTimeoutS} s: ${[...live.values()].map((x) => `${x.label}: ${cpText(x)}`).join(' | ')}`);
      await sleep(250);
    }
  };

  /** The sharing group's members: memberId -> the instance (from its client id) and its partitions of `__consumer_offsets`. */
  const described = async () => {
    const { groups: [d] } = await srcAdmin.describeGroups([SHARE_GROUP]);
    return new Map((d?.members ?? []).map((m) => [m.memberId, {
      label: /^bench-inst-(\w+)$/.exec(m.clientId)?.[1] ?? m.clientId,
      parts: /** @type {number[]} */ (((AssignerProtocol.MemberAssignment.decode(m.memberAssignment) || {}).assignment || {}).__consumer_offsets ?? []),
    }]));
  };
  /** group -> the label of the instance that owns it by `members` (described()); undefined: no member has its partition. */
  const ownerOf = (members) => {
    const byPart = new Map();
    for (const { label, parts } of members.values()) for (const p of parts) byPart.set(p, label);
    return (g) => byPart.get(consumerOffsetsPartitionFor(g, S.offsetsPartitions));
  };

  /** One measured phase with the live instances: steady state, a sweep of every group, then the samples (CPU and RSS of each instance over their window). */
  const phase = async (label) => {
    const n = live.size;
    const row = { label, n, before: whatElseRuns() };
    R.phases.push(row);
    progress(`${label}: waiting for the share of ${n} instance${n > 1 ? 's' : ''} in the statuses`);
    row.shareMs = await shareSettled(n);
    progress(`  share settled after ${fmtS(row.shareMs)}; waiting for every group on the target`);
    row.allOnTargetMs = await allOnTarget(label);
    const sw = await sweep(groups, new Set(), undefined, S.steadyTimeoutS * 1000);
    if (sw.notVisible > 0) throw new Error(`${label}: ${sw.notVisible} of ${G} groups' sweep commits not visible on the target after ${S.steadyTimeoutS} s`);
    row.sweepMs = sw.lastMs;
    progress(`  a commit of every group visible ${fmtS(sw.lastMs)} after the first (commits took ${fmtS(sw.commitMs)}); ${S.settleS} s settling, then ${S.samples} samples, one every ${S.sampleEveryMs} ms`);
    await sleep(S.settleS * 1000); // past the start's first full cycles: the samples measure the steady state
    const insts = [...live.values()];
    const c0 = insts.map((x) => cpuSeconds(x.pid));
    const othersEnd = othersCpuSince();
    /** BENCH_NR_CPU_PROF: each instance's profiler on / off (and written) around the window */
    const toggleProfiles = () => {
      if (S.nrCpuProf) for (const x of insts) process.kill(x.pid, 'SIGWINCH');
    };
    toggleProfiles();
    const t = performance.now();
    const sv = sampler(S.samples);
    await sv.done;
    toggleProfiles();
    const s = (performance.now() - t) / 1000;
    row.windowS = s;
    row.stats = sampleStats(sv.samples);
    row.skipped = sv.skipped;
    row.instances = insts.map((x, k) => ({ label: x.label, cpuPerMin: ((cpuSeconds(x.pid) - c0[k]) / s) * 60, rssKb: procStatus(x.pid).rssKb, share: parseShare(cpText(x)), status: cpText(x) }));
    if (n > 1) {
      // the samples of each instance's groups (the assignment after the window: the shares did not move during it, the statuses say so)
      const owner = ownerOf(await described());
      for (const x of row.instances) x.stats = sampleStats(sv.samples.filter((smp) => owner(smp.group) === x.label));
    }
    row.others = othersEnd();
    row.after = whatElseRuns();
    progress(`  p50 ${fmtS(row.stats.p50)} p99 ${fmtS(row.stats.p99)} max ${fmtS(row.stats.max)}${row.stats.timedOut ? `, ${row.stats.timedOut} timed out` : ''}; ` +
      row.instances.map((x) => `${x.label}: ${x.cpuPerMin.toFixed(1)} CPU s/min, ${fmtMiB(x.rssKb)}, ${x.share ? `${fmtInt(x.share.groups)} groups` : 'all groups'}`).join('; '));
    return row;
  };

  // ---- phase 1: one instance ------------------------------------------------------------------
  const one = await startInstance('a', 'n1');
  await phase('1 instance');
  if (S.nrCpuProf) await sleep(3000); // the profile written
  progress('  stopping it (it leaves the sharing group)');
  await one.stop();
  live.delete('a');

  // ---- phase 2: N fresh instances -------------------------------------------------------------
  for (let k = 0; k < S.instances; k++) await startInstance(NAMES[k], `n${S.instances}`);
  await phase(`${S.instances} instances`);

  // ---- phase 3: kill -9 of one of them, commits going on -------------------------------------
  const victim = live.get(NAMES[1]);
  const survivors = [...live.values()].filter((x) => x !== victim);
  const kill = { victim: victim.label, share: parseShare(cpText(victim)), before: whatElseRuns() };
  R.kill = kill;
  const membersBefore = await described();
  const inFlight = new Set();
  const sv = sampler(1e9, inFlight);
  await sleep(3000);
  progress(`kill -9 of ${victim.label} (pid ${victim.pid}, ${cpText(victim)})`);
  const othersEnd = othersCpuSince();
  const killAt = performance.now();
  const samplesBeforeKill = sv.samples.length;
  victim.nr.process.kill('SIGKILL');
  await victim.stop();
  live.delete(victim.label);
  const takeover = (async () => {
    for (const deadline = killAt + S.steadyTimeoutS * 1000; performance.now() < deadline; ) {
      const sh = survivors.map((x) => parseShare(cpText(x)));
      const n = S.instances - 1;
      if (n === 1 ? sh.every((s) => s === null) : sh.every((s) => s && s.instances === n && s.totalGroups === G)) return performance.now() - killAt;
      await sleep(100);
    }
    return NaN;
  })();
  // the sweep avoids the samples' group partitions in flight, and the samples the sweep's
  const busy = { has: (k) => inFlight.has(k) || sv.inFlight.has(k), add: (k) => inFlight.add(k), delete: (k) => inFlight.delete(k) };
  const sw = await sweep(groups, busy, killAt, S.steadyTimeoutS * 1000);
  kill.takeoverMs = await takeover;
  kill.sweepCommitMs = sw.commitMs;
  await sleep(S.afterKillS * 1000); // samples after the takeover too
  const killSamples = sv.samples.slice(samplesBeforeKill);
  await sv.stop();
  // the victim's member: the one gone from the group; its partitions of __consumer_offsets -> its groups
  const membersAfter = await described();
  const gone = [...membersBefore.keys()].filter((m) => !membersAfter.has(m));
  const victimParts = new Set([...membersBefore.values()].filter((m) => m.label === victim.label).flatMap((m) => m.parts));
  kill.goneMembers = gone.map((m) => membersBefore.get(m).label);
  if (kill.goneMembers.join() !== victim.label) progress(`  the members gone from the sharing group: ${kill.goneMembers.join(', ') || 'none'} (expected ${victim.label} alone)`);
  kill.victimParts = victimParts.size;
  const orphaned = new Set(groups.filter((g) => victimParts.has(consumerOffsetsPartitionFor(g, S.offsetsPartitions))));
  kill.orphaned = orphaned.size;
  const times = (pred) => [...sw.visibleAt].filter(([g]) => pred(g)).map(([, ms]) => ms);
  const orphanTimes = times((g) => orphaned.has(g));
  const otherTimes = times((g) => !orphaned.has(g));
  kill.orphanFreshMs = orphanTimes.length === orphaned.size ? Math.max(0, ...orphanTimes) : NaN;
  const sortedOrphan = orphanTimes.slice().sort((a, b) => a - b);
  kill.orphanFirstMs = sortedOrphan[0];
  kill.orphanMedianMs = percentile(sortedOrphan, 0.5);
  kill.orphanNotVisible = orphaned.size - orphanTimes.length;
  kill.otherFreshMs = Math.max(0, ...otherTimes);
  kill.otherNotVisible = G - orphaned.size - otherTimes.length;
  kill.samplesOrphaned = sampleStats(killSamples.filter((x) => orphaned.has(x.group)));
  kill.samplesOther = sampleStats(killSamples.filter((x) => !orphaned.has(x.group)));
  kill.survivors = survivors.map((x) => ({ label: x.label, status: cpText(x), share: parseShare(cpText(x)) }));
  kill.others = othersEnd();
  kill.after = whatElseRuns();
  progress(`  survivors show ${S.instances - 1} instances ${fmtS(kill.takeoverMs)} after the kill; ${victim.label}'s ${fmtInt(orphaned.size)} groups fresh ${fmtS(kill.orphanFreshMs)} after it, the others ${fmtS(kill.otherFreshMs)}`);
  R.after = whatElseRuns();
}

// ---- report -----------------------------------------------------------------------------------

function report() {
  const env = `Kafka ${KAFKA_VERSION} (single-node KRaft, two clusters on this host, \`__consumer_offsets\` with ${S.offsetsPartitions} partitions), kafkajs 2.2.4, Node-RED on Node.js ${R.nodeRedNode ?? '?'}, ${os.cpus().length} cores (${cpuModel()}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${new Date().toISOString().slice(0, 10)}`;
  const session = R.session ? `${R.session.ms / 1000} s` : 'unknown';
  process.stdout.write(`\n=== one flow in 1 and ${S.instances} Node-RED instances: ${fmtInt(S.groups)} groups × ${S.partitions} partitions, ${intervalsText} ===\n${env}\nsharing session timeout ${session}${R.session ? ` (${R.session.from})` : ''}\n`);
  const rows = [];
  for (const ph of R.phases) {
    if (!ph.instances) continue;
    ph.instances.forEach((x, k) => {
      const owned = x.share ? `${fmtInt(x.share.groups)} (${(100 * x.share.groups / S.groups).toFixed(0)}%)` : `${fmtInt(S.groups)} (all)`;
      const parts = x.share ? `${x.share.parts} of ${x.share.totalParts}` : `${S.offsetsPartitions} of ${S.offsetsPartitions}`;
      rows.push([k === 0 ? ph.label : '', x.label, owned, parts, x.cpuPerMin.toFixed(1), fmtMiB(x.rssKb),
        k === 0 ? fmtS(ph.stats.p50) : '', k === 0 ? fmtS(ph.stats.p99) : '', k === 0 ? fmtS(ph.stats.max) : '', k === 0 ? `${ph.stats.timedOut}` : '',
        x.stats ? `${fmtS(x.stats.p50)} / ${fmtS(x.stats.p99)} (${x.stats.n})` : '']);
    });
    if (ph.instances.length > 1) {
      rows.push(['', 'sum', fmtInt(ph.instances.reduce((a, x) => a + (x.share ? x.share.groups : 0), 0)), '', ph.instances.reduce((a, x) => a + x.cpuPerMin, 0).toFixed(1), fmtMiB(ph.instances.reduce((a, x) => a + x.rssKb, 0)), '', '', '', '', '']);
    }
  }
  const headers = ['run', 'instance', 'groups owned', '__consumer_offsets partitions', 'CPU s/min', 'RSS', 'p50', 'p99', 'max', 'timed out', 'its groups: p50 / p99 (samples)'];
  printTable(`commit on the source -> translated offset visible on the target (${S.samples} samples per run, one every ${S.sampleEveryMs} ms, target polled every ${S.pollMs} ms); CPU and RSS of each Node-RED over the sampling window`, headers, rows, [0, 1]);
  /** the other processes' CPU over a window, busiest first, e.g. `java kafka.Kafka .../server.properties 30.2` */
  const othersText = (list, sep = '; ') => {
    if (!list) return '-';
    const busy = list.filter((o) => o.cpuPerMin >= 0.5);
    const total = list.reduce((a, o) => a + o.cpuPerMin, 0);
    return `${total.toFixed(1)} CPU s/min in all (${list.length} running from its start to its end)${busy.length ? `: ${busy.map((o) => `${o.what} ${o.cpuPerMin.toFixed(1)}`).join(sep)}` : ''}`;
  };
  for (const ph of R.phases) {
    process.stdout.write(`  ${ph.label}: share settled ${fmtS(ph.shareMs)} after the start, every group on the target ${fmtS(ph.allOnTargetMs)} later, a commit of every group visible within ${fmtS(ph.sweepMs)}; window ${ph.windowS ? ph.windowS.toFixed(0) : '-'} s; load before ${ph.before.load}, after ${ph.after ? ph.after.load : '-'}\n    other java/node processes meanwhile: ${othersText(ph.others)}\n`);
  }
  const k = R.kill;
  const killLine = k && k.orphaned !== undefined
    ? `kill -9 of ${k.victim} (owned ${k.share ? fmtInt(k.share.groups) : '?'} groups, ${k.victimParts} partitions; ${fmtInt(k.orphaned)} groups by the sharing group's assignment): the survivors show ${S.instances - 1} instances ${fmtS(k.takeoverMs)} after the kill; a commit of every group made after the kill (all committed within ${fmtS(k.sweepCommitMs)}) visible: its groups ${fmtS(k.orphanFreshMs)} (the first ${fmtS(k.orphanFirstMs)}, half ${fmtS(k.orphanMedianMs)})${k.orphanNotVisible ? ` (${k.orphanNotVisible} never)` : ''}, the others ${fmtS(k.otherFreshMs)}${k.otherNotVisible ? ` (${k.otherNotVisible} never)` : ''}; samples meanwhile: its groups p50 ${fmtS(k.samplesOrphaned.p50)} p99 ${fmtS(k.samplesOrphaned.p99)} (${k.samplesOrphaned.n}), the others p50 ${fmtS(k.samplesOther.p50)} p99 ${fmtS(k.samplesOther.p99)} (${k.samplesOther.n})`
    : 'kill -9: not reached';
  process.stdout.write(`\n${killLine}\n`);
  if (k && k.survivors) for (const x of k.survivors) process.stdout.write(`  ${x.label} after: ${x.status}\n`);
  if (k && k.others) process.stdout.write(`  other java/node processes from the kill on: ${othersText(k.others)}\n`);
  const others = R.others.map((o) => `${o.what} (pid ${o.pid}, ${o.pcpu}% CPU since its start, ${fmtMiB(o.rssKb)})`);
  process.stdout.write(`\nload average: before ${R.before ? R.before.load : '-'}, after ${R.after ? R.after.load : '-'}\nother java/node processes at the start (not this bench's): ${others.length ? `\n  ${others.join('\n  ')}` : 'none'}\n`);

  const md = [];
  md.push(`Measured with \`npm run bench:instances\` on ${env}; flow: \`mm2-checkpoint\` + \`mm2-group-offsets\` (mode replication), ${intervalsText}; the mirror simulated (offset syncs written by the bench, one per partition each second); sharing session timeout ${session}. CPU and RSS of each Node-RED process over the sampling window (${S.samples} commits, one every ${S.sampleEveryMs} ms).`, '');
  md.push('| run | instance | groups owned | `__consumer_offsets` partitions | CPU s/min | RSS | commit-to-visible p50 | p99 | max | its groups: p50 / p99 (samples) |');
  md.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) md.push(`| ${[...r.slice(0, 9), r[10]].join(' | ')} |`);
  if (k && k.orphaned !== undefined) {
    md.push('', `kill -9 of one of the ${S.instances} (${k.victim}), commits going on: a commit of every group made right after the kill (all ${fmtInt(S.groups)} committed within ${fmtS(k.sweepCommitMs)}), times from the kill until it is visible on the target; samples = the sampled commits meanwhile (one every ${S.sampleEveryMs} ms, until ${S.afterKillS} s after the last group was fresh).`, '');
    md.push(`| groups it owned | survivors show ${S.instances - 1} instances | its groups fresh: first | half | all | the other groups: all | samples, its groups: p50 / p99 | samples, others: p50 / p99 |`);
    md.push('|---|---|---|---|---|---|---|---|');
    md.push(`| ${fmtInt(k.orphaned)} (${k.victimParts} of ${S.offsetsPartitions} partitions) | ${fmtS(k.takeoverMs)} | ${fmtS(k.orphanFirstMs)} | ${fmtS(k.orphanMedianMs)} | ${fmtS(k.orphanFreshMs)}${k.orphanNotVisible ? ` (${k.orphanNotVisible} never)` : ''} | ${fmtS(k.otherFreshMs)}${k.otherNotVisible ? ` (${k.otherNotVisible} never)` : ''} | ${fmtS(k.samplesOrphaned.p50)} / ${fmtS(k.samplesOrphaned.p99)} (${k.samplesOrphaned.n}) | ${fmtS(k.samplesOther.p50)} / ${fmtS(k.samplesOther.p99)} (${k.samplesOther.n}) |`);
  } else {
    md.push('', killLine + '.');
  }
  md.push('');
  md.push(`Beside it (java and node processes not the bench's, CPU s/min over each window; load average before ${R.before ? R.before.load : '-'}, after ${R.after ? R.after.load : '-'}):`, '');
  for (const ph of R.phases) if (ph.others) md.push(`- ${ph.label} (load ${ph.before.load} -> ${ph.after.load}): ${othersText(ph.others, ', ')}`);
  if (k && k.others) md.push(`- kill -9 (load ${k.before.load} -> ${k.after.load}): ${othersText(k.others, ', ')}`);
  process.stdout.write(`\n--- markdown ---\n${md.join('\n')}\n--- end ---\n`);
}

runBench(main, report, S.timeoutS);
