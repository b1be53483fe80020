'use strict';
/**
 * The event path in-process, without brokers: a commit on the source -> checkpoint -> OffsetCommit
 * on the target, through the real emitter, node classes and writer (bench/inproc-harness.js), with
 * an injected latency per Kafka request. One scenario per run:
 *
 *   node bench/event-path.js          (after npm run build; settings from the environment, see bench/README.md)
 *   node bench/event-path.js --json   (one JSON line: what bench/inproc.js reads)
 *
 * Figures of the sampling window (from the first sampled commit until the last one is visible):
 * commit-to-visible p50 / p99 / max, target requests per event by API, event-loop delay p99,
 * CPU seconds per minute, heap allocated per second.
 */
const { performance, monitorEventLoopDelay } = require('node:perf_hooks');
/**
 * BENCH_INPROC_PROF=<prefix>: a V8 CPU profile and a sampling allocation profile (collected objects
 * included) of each phase's window, <prefix>-<latency>-<on|off>.cpuprofile / .heapprofile
 * (bench/cpu-profile-summary.js and bench/heap-profile-summary.js summarise them).
 */
async function startProfiles() {
  const session = new (require('node:inspector').Session)();
  session.connect();
  const post = (m, p) => new Promise((resolve, reject) => session.post(m, p, (e, r) => (e ? reject(e) : resolve(r))));
  await post('Profiler.enable');
  await post('Profiler.start');
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  return {
    async stop(prefix) {
      const fs = require('node:fs');
      fs.writeFileSync(`${prefix}.cpuprofile`, JSON.stringify((await post('Profiler.stop')).profile));
      fs.writeFileSync(`${prefix}.heapprofile`, JSON.stringify((await post('HeapProfiler.stopSampling')).profile));
      session.disconnect();
    },
  };
}

const { memoryCluster, buildFlow, initialSyncs, prng, percentile, allocationMeter, waitFor, APIS, TOPIC } = require('./inproc-harness');

/** "0" or "100-200" (ms per request, uniform) -> [lo, hi]. */
function parseLatency(v) {
  const m = /^\s*(\d+)\s*(?:-\s*(\d+))?\s*$/.exec(String(v));
  if (!m) throw new Error(`BENCH_INPROC_LATENCY: '${v}' is not a latency in ms ("0", "150" or "100-200")`);
  const lo = Number(m[1]);
  const hi = m[2] === undefined ? lo : Number(m[2]);
  if (hi < lo) throw new Error(`BENCH_INPROC_LATENCY: '${v}': the upper bound is below the lower one`);
  return [lo, hi];
}

/** "0:off,0:on,100-200:off" -> phases ({ latency, periodic }). */
function parsePhases(v) {
  return String(v)
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((x) => {
      const m = /^([\d\s-]+):(on|off)$/.exec(x);
      if (!m) throw new Error(`BENCH_INPROC_PHASES: '${x}' is not <latency ms>:<on|off> (e.g. 100-200:on)`);
      return { latency: parseLatency(m[1]), periodic: m[2] === 'on' };
    });
}

function settingsFromEnv(env = process.env) {
  const get = (name, def) => {
    const v = env[name];
    if (v === undefined || String(v).trim() === '') return def;
    const n = Number(String(v).replace(/_/g, ''));
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name}: '${v}' is not a non-negative integer`);
    return n;
  };
  return {
    groups: get('BENCH_INPROC_GROUPS', 10000),
    parts: get('BENCH_INPROC_PARTITIONS', 10),
    phases: parsePhases(env.BENCH_INPROC_PHASES || '0:off,0:on,100-200:off,100-200:on'),
    events: get('BENCH_INPROC_EVENTS', 100),
    eventEveryMs: get('BENCH_INPROC_EVENT_EVERY_MS', 50),
    isolated: get('BENCH_INPROC_ISOLATED', 2),
    intervalMs: get('BENCH_INPROC_INTERVAL_MS', 1000),
    periodMs: get('BENCH_INPROC_PERIOD_MS', 5000),
    minWriteIntervalMs: get('BENCH_INPROC_MIN_WRITE_INTERVAL_MS', 200),
    settleMs: get('BENCH_INPROC_SETTLE_MS', 500),
    timeoutMs: get('BENCH_INPROC_TIMEOUT_MS', 120000),
    seed: get('BENCH_INPROC_SEED', 24),
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const total = (o) => Object.values(o).reduce((a, b) => a + b, 0);
const diff = (now, before) => Object.fromEntries(APIS.map((a) => [a, now[a] - before[a]]));

/**
 * The flow set up once (at 0 ms: every group committed on the source, the flow started, every group
 * written on the target by the start's full cycle and full run), then one measurement per phase:
 * the phase's latency set on both clusters and its timers on or off, `settleMs` to settle, then
 *
 * - `isolated` commits one at a time (each waits until the previous one is visible and 1.1 s more,
 *   past the writer's floor and its 1 s reuse of the target's group listing): the target requests
 *   one event makes on its own, the comparable of "an event makes 6-7 target requests in series";
 * - `events` sampled commits, one every `eventEveryMs`, each of a random group partition not
 *   already waiting: the window (first sampled commit until the last one is visible) gives
 *   commit-to-visible p50 / p99 / max, target requests per event (what the window sent, the
 *   periodic work's included, over the events), event-loop delay, CPU, heap allocated.
 *
 * Every sampled commit goes to a new offset O above every other (O = 2,000,000 + 100 k), with an
 * offset sync at O (-> O + 7) handed to the emitter first (as the offset-syncs node does once the
 * mirror wrote it): visible when the target's committed offset of that group partition reaches O + 7.
 */
async function runEventPath(s) {
  const { groups, parts } = s;
  const source = memoryCluster({ role: 'source', groups, parts, latency: [0, 0], seed: s.seed, initial: true });
  const target = memoryCluster({ role: 'target', groups, parts, latency: [0, 0], seed: s.seed + 1 });
  const flow = buildFlow({
    source,
    target,
    periodic: false,
    emitMs: s.intervalMs,
    refreshMs: s.intervalMs,
    syncMs: s.intervalMs,
    periodMs: s.periodMs,
    minWriteIntervalMs: s.minWriteIntervalMs,
    debugWire: true,
  });
  const open = new Map();
  target.onCommit((gi, offsets) => {
    const now = performance.now();
    for (const o of offsets) {
      const k = gi * parts + o.partition;
      const sample = open.get(k);
      if (sample && o.offset >= sample.expected) {
        sample.visibleAt = now;
        open.delete(k);
      }
    }
  });
  const rand = prng(s.seed + 2);
  let k = 0;
  /** One sampled commit: a sync at a new offset, then the commit there. */
  const commitOne = () => {
    let gi;
    let p;
    do {
      gi = Math.floor(rand() * groups);
      p = Math.floor(rand() * parts);
    } while (open.has(gi * parts + p));
    const offset = 2000000n + 100n * BigInt(k++);
    flow.emitter.handleSyncEvent({ event: 'syncs', syncs: [{ topic: TOPIC, partition: p, upstreamOffset: offset, downstreamOffset: offset + 7n }] });
    const sample = { at: performance.now(), expected: offset + 7n, visibleAt: undefined };
    open.set(gi * parts + p, sample);
    source.commit(gi, p, offset);
    return sample;
  };
  const t0 = performance.now();
  const result = { settings: { ...s }, phases: [] };
  try {
    await flow.start(initialSyncs(parts));
    // the writer may finish before the start's checkpoints are all produced (it reads the store as
    // soon as the cycle translated): the emitter idle too, so that no start-up write is measured
    await waitFor(() => target.presentCount === groups && !flow.syncer.busy && !flow.emitter.busy, `every group on the target after the start (${target.presentCount} of ${groups})`, s.timeoutMs);
    result.startupMs = performance.now() - t0;
    for (const phase of s.phases) {
      source.setLatency(phase.latency);
      target.setLatency(phase.latency);
      if (phase.periodic) flow.startTimers();
      else flow.stopTimers();
      await sleep(s.settleMs);
      if (!phase.periodic) await waitFor(() => !flow.syncer.busy && !flow.emitter.busy, 'the writer and the emitter idle', s.timeoutMs);

      // isolated events
      const iso = [];
      const isoCounts0 = { ...target.counts };
      // without the periodic work only: with it, what it sends meanwhile would count as the event's
      for (let i = 0; i < (phase.periodic ? 0 : s.isolated); i++) {
        const sample = commitOne();
        iso.push(sample);
        await waitFor(() => sample.visibleAt !== undefined, 'an isolated commit visible on the target', s.timeoutMs, 2);
        await sleep(1100);
      }
      const isoRequests = diff(target.counts, isoCounts0);

      // the sampled window
      const samples = [];
      const counts0 = { target: { ...target.counts }, source: { ...source.counts } };
      const c0 = { ...flow.counters };
      const h = monitorEventLoopDelay({ resolution: 10 });
      h.enable();
      const prof = process.env.BENCH_INPROC_PROF ? await startProfiles() : null;
      const alloc = allocationMeter();
      const cpu0 = process.cpuUsage();
      const w0 = performance.now();
      for (let i = 0; i < s.events; i++) {
        const tick = performance.now();
        samples.push(commitOne());
        const wait = s.eventEveryMs - (performance.now() - tick);
        if (wait > 0) await sleep(wait);
      }
      let timedOut = false;
      await waitFor(() => open.size === 0, 'every sampled commit visible on the target', s.timeoutMs, 2).catch(() => (timedOut = true));
      const windowMs = performance.now() - w0;
      const cpu = process.cpuUsage(cpu0);
      const allocated = alloc.stop();
      if (prof) await prof.stop(`${process.env.BENCH_INPROC_PROF}-${String(phase.latency).replace(/[^0-9]+/g, "_")}-${phase.periodic ? 'on' : 'off'}`);
      h.disable();
      open.clear();
      const targetRequests = diff(target.counts, counts0.target);
      const lat = samples.filter((x) => x.visibleAt !== undefined).map((x) => x.visibleAt - x.at).sort((a, b) => a - b);
      const isoLat = iso.map((x) => x.visibleAt - x.at);
      result.phases.push({
        latency: phase.latency,
        periodic: phase.periodic,
        isolated: { events: iso.length, requests: isoRequests, requestsPerEvent: iso.length ? total(isoRequests) / iso.length : NaN, meanMs: isoLat.reduce((a, b) => a + b, 0) / Math.max(1, isoLat.length) },
        windowMs,
        events: samples.length,
        visible: lat.length,
        timedOut,
        p50Ms: percentile(lat, 0.5),
        p99Ms: percentile(lat, 0.99),
        maxMs: lat.length ? lat[lat.length - 1] : NaN,
        targetRequests,
        targetRequestsPerEvent: total(targetRequests) / samples.length,
        sourceRequests: diff(source.counts, counts0.source),
        // the histogram records the interval of its 10 ms timer: the delay is what exceeds it
        loopDelayP99Ms: Math.max(0, h.percentile(99) / 1e6 - 10),
        loopDelayMaxMs: Math.max(0, h.max / 1e6 - 10),
        cpuSecondsPerMinute: ((cpu.user + cpu.system) / 1e6 / (windowMs / 1000)) * 60,
        allocatedMiBPerSecond: allocated.bytes / 1048576 / (windowMs / 1000),
        gcs: allocated.gcs,
        counters: Object.fromEntries(Object.keys(c0).filter((x) => typeof c0[x] === 'number').map((x) => [x, flow.counters[x] - c0[x]])),
      });
    }
    return result;
  } finally {
    await flow.stop();
  }
}

const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');

const perEventText = (req, n) => APIS.filter((a) => req[a] > 0).map((a) => `${a} ${fmt(req[a] / n, 2)}`).join(', ') || 'none';

function describe(r) {
  const s = r.settings;
  const out = [`${s.groups} groups x ${s.parts} partitions; set up in ${fmt(r.startupMs / 1000, 1)} s; ${s.events} sampled commits per phase, one every ${s.eventEveryMs} ms; periodic work: every ${s.intervalMs} ms, 60 s periods every ${s.periodMs} ms`];
  for (const p of r.phases) {
    out.push(
      `latency ${p.latency[0]}-${p.latency[1]} ms per request, periodic work ${p.periodic ? 'on' : 'off'}`,
      p.isolated.events > 0 ? `  ${p.isolated.events} isolated commits: ${fmt(p.isolated.requestsPerEvent, 1)} target requests each (${perEventText(p.isolated.requests, p.isolated.events)}), ${fmt(p.isolated.meanMs)} ms to visible on average` : '  (no isolated commits with the periodic work on)',
      `  ${p.visible} of ${p.events} sampled commits visible${p.timedOut ? ' (TIMED OUT)' : ''} in a window of ${fmt(p.windowMs / 1000, 1)} s`,
      `  commit-to-visible p50 ${fmt(p.p50Ms)} ms, p99 ${fmt(p.p99Ms)} ms, max ${fmt(p.maxMs)} ms`,
      `  target requests per event ${fmt(p.targetRequestsPerEvent, 2)} (${perEventText(p.targetRequests, p.events)})`,
      `  event-loop delay p99 ${fmt(p.loopDelayP99Ms, 1)} ms (max ${fmt(p.loopDelayMaxMs, 1)}), CPU ${fmt(p.cpuSecondsPerMinute, 1)} s/min, allocated ${fmt(p.allocatedMiBPerSecond, 1)} MiB/s`,
      `  in the window: ${p.counters.partialCycles} partial and ${p.counters.fullCycles} full checkpoint cycles, ${p.counters.out1} output-1 messages (${p.counters.out1Whole} whole state), ${p.counters.writerRuns} writer runs (${p.counters.writerFullRuns} full)`,
    );
  }
  return out.join('\n');
}

if (require.main === module) {
  runEventPath(settingsFromEnv())
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

module.exports = { runEventPath, settingsFromEnv, parseLatency, parsePhases, describe };
