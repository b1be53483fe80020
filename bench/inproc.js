'use strict';
/**
 * `npm run bench:inproc`: the in-process benchmarks, no brokers (see bench/README.md):
 *   1. bench/state-memory.js: retained bytes per group partition by structure, allocation in steady state;
 *   2. bench/event-path.js: source commit -> checkpoint -> target OffsetCommit with injected latency.
 * Each runs in a child process of its own (a clean heap, nothing of the other one's on the event loop),
 * one after the other. Prints the figures, then a markdown block between `--- markdown ---` and
 * `--- end ---` with the targets of issue 24 beside them.
 */
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { progress, cpuModel } = require('./lib');
const { describe: describeMemory } = require('./state-memory');
const { describe: describeEvents } = require('./event-path');

const ONLY = (process.env.BENCH_INPROC_ONLY || 'memory,events').split(',').map((s) => s.trim());
const groups = process.env.BENCH_INPROC_GROUPS || '10000';
const parts = process.env.BENCH_INPROC_PARTITIONS || '10';

/** Issue 24's targets (this 2-core machine). */
const TARGETS = {
  retainedPerGp: 150,
  allocatedMiBs: 1,
  p99Ms: 800,
  requestsPerEvent: 3,
  periodicWithin: 0.1,
  loopDelayMs: 20,
  cpuPerMin: 5,
};

function child(script, env) {
  const r = spawnSync(process.execPath, [path.join(__dirname, script), '--json'], { env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${script} failed (exit ${r.status})`);
  const line = r.stdout.trim().split('\n').pop();
  return JSON.parse(line);
}

const loadavg = () => os.loadavg().map((x) => x.toFixed(2)).join(', ');
const f0 = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '-');
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');
const sec = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '-');
const met = (ok) => (ok ? 'met' : 'not met');

function main() {
  const started = new Date();
  const loadBefore = loadavg();
  progress(`in-process benchmarks: ${groups} groups x ${parts} partitions (${ONLY.join(', ')}); load average ${loadBefore}`);
  let mem = null;
  let ev = null;
  const t0 = Date.now();
  if (ONLY.includes('memory')) {
    progress('memory: retained state by structure, steady-state allocation');
    mem = child('state-memory.js', { BENCH_MEM_GROUPS: process.env.BENCH_MEM_GROUPS || groups, BENCH_MEM_PARTITIONS: process.env.BENCH_MEM_PARTITIONS || parts });
    process.stdout.write(`\n## Retained state\n${describeMemory(mem)}\n`);
  }
  if (ONLY.includes('events')) {
    progress('event path: commit -> checkpoint -> target OffsetCommit, per phase');
    ev = child('event-path.js', { BENCH_INPROC_GROUPS: groups, BENCH_INPROC_PARTITIONS: parts });
    process.stdout.write(`\n## Event path\n${describeEvents(ev)}\n`);
  }
  const seconds = (Date.now() - t0) / 1000;
  const loadAfter = loadavg();
  progress(`done in ${seconds.toFixed(0)} s; load average ${loadAfter}`);

  const md = [];
  md.push(`Measured with \`npm run bench:inproc\` on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpuModel()}, Node.js ${process.version}; load average ${loadBefore} before, ${loadAfter} after (${seconds.toFixed(0)} s).`, '');
  if (mem) {
    const s = mem.settings;
    md.push(`**Retained state**, ${f0(s.groups)} groups × ${s.parts} partitions (${f0(mem.groupPartitions)} group partitions): ${f1(mem.retained / 1048576)} MiB, **${f0(mem.retainedPerGroupPartition)} B per group partition** (target ≤ ${TARGETS.retainedPerGp} B: ${met(mem.retainedPerGroupPartition <= TARGETS.retainedPerGp)}).`, '');
    md.push('| structure (released in this order) | MiB | B per group partition |', '|---|---|---|');
    for (const b of mem.breakdown) md.push(`| ${b.label} | ${f1(b.bytes / 1048576)} | ${f0(b.perGroupPartition)} |`);
    md.push('');
    md.push(
      `**Steady state** (a full checkpoint cycle, group refresh and full group-offset run every ${s.intervalMs} ms, the 60 s periods at their defaults, ${f1(mem.steady.seconds)} s): allocated **${f1(mem.steady.allocatedMiBPerSecond)} MiB/s** (target ≤ ${TARGETS.allocatedMiBs} MiB/s: ${met(mem.steady.allocatedMiBPerSecond <= TARGETS.allocatedMiBs)}), CPU ${f1(mem.steady.cpuSecondsPerMinute)} s/min.`,
      '',
    );
  }
  if (ev) {
    const s = ev.settings;
    md.push(
      `**Event path**, ${f0(s.groups)} groups × ${s.parts} partitions: per phase ${s.events} sampled commits, one every ${s.eventEveryMs} ms; periodic work (when on): every ${s.intervalMs} ms, the 60 s periods every ${s.periodMs} ms. Targets: p99 ≤ ${TARGETS.p99Ms / 1000} s at 100-200 ms with ≤ ${TARGETS.requestsPerEvent} target round trips per event, within ${TARGETS.periodicWithin * 100}% of that with the periodic work on; event-loop delay p99 ≤ ${TARGETS.loopDelayMs} ms; CPU ≤ ${TARGETS.cpuPerMin} s/min.`,
      '',
    );
    md.push('| latency per request | periodic work | p50 / p99 / max | target requests, isolated commit | target requests per event (window) | event-loop delay p99 | CPU s/min | allocated MiB/s |', '|---|---|---|---|---|---|---|---|');
    for (const p of ev.phases) {
      md.push(
        `| ${p.latency[0] === p.latency[1] ? `${p.latency[0]} ms` : `${p.latency[0]}-${p.latency[1]} ms`} | ${p.periodic ? 'on' : 'off'} | ${sec(p.p50Ms)} / ${sec(p.p99Ms)} / ${sec(p.maxMs)}${p.visible < p.events ? ` (${p.visible} of ${p.events} visible)` : ''} | ${p.isolated.events > 0 ? f1(p.isolated.requestsPerEvent) : '-'} | ${f2(p.targetRequestsPerEvent)} | ${f0(p.loopDelayP99Ms)} ms | ${f1(p.cpuSecondsPerMinute)} | ${f1(p.allocatedMiBPerSecond)} |`,
      );
    }
    const slow = ev.phases.find((p) => p.latency[0] >= 100 && !p.periodic);
    const slowOn = ev.phases.find((p) => p.latency[0] >= 100 && p.periodic);
    if (slow) {
      md.push('');
      const parts2 = [`at 100-200 ms p99 ${sec(slow.p99Ms)} (${met(slow.p99Ms <= TARGETS.p99Ms)}), ${f1(slow.isolated.requestsPerEvent)} target requests per isolated commit (${met(slow.isolated.requestsPerEvent <= TARGETS.requestsPerEvent)})`];
      if (slowOn) parts2.push(`with the periodic work on p99 ${sec(slowOn.p99Ms)}, ${f2(slowOn.p99Ms / slow.p99Ms)}x (${met(slowOn.p99Ms <= slow.p99Ms * (1 + TARGETS.periodicWithin))})`);
      const worstDelay = Math.max(...ev.phases.map((p) => p.loopDelayP99Ms));
      const worstCpu = Math.max(...ev.phases.map((p) => p.cpuSecondsPerMinute));
      parts2.push(`event-loop delay p99 up to ${f0(worstDelay)} ms (${met(worstDelay <= TARGETS.loopDelayMs)})`, `CPU up to ${f1(worstCpu)} s/min (${met(worstCpu <= TARGETS.cpuPerMin)})`);
      md.push(`Against the targets: ${parts2.join('; ')}.`);
    }
  }
  process.stdout.write(`\n--- markdown ---\n${md.join('\n')}\n--- end ---\n`);
}

try {
  main();
} catch (e) {
  console.error(e);
  process.exit(1);
}
