'use strict';
/**
 * Helpers shared by the bench scripts (bench/run.js, bench/freshness.js): settings from the
 * environment, progress on stderr, bounded cleanups, small Kafka and /proc helpers, tables.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { execFileSync } = require('node:child_process');
const { Kafka, logLevel } = require('kafkajs');

// ---- settings ---------------------------------------------------------------------------------

function envList(name, def) {
  const v = process.env[name];
  const list = (v === undefined || v.trim() === '' ? def : v).split(',').map((s) => s.trim()).filter(Boolean);
  return list.map((s) => {
    const n = Number(s.replace(/_/g, ''));
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${name}: '${s}' is not a positive integer`);
    return n;
  });
}
function envInt(name, def) {
  const v = process.env[name];
  if (v === undefined || v.trim() === '') return def;
  const n = Number(v.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name}: '${v}' is not a non-negative integer`);
  return n;
}


// ---- small helpers ----------------------------------------------------------------------------

const t0 = performance.now();
function progress(msg) {
  const s = ((performance.now() - t0) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[bench ${s}s] ${msg}\n`);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
const fmtMs = (ms) => (ms >= 100 ? fmtInt(ms) : ms.toFixed(1));
const fmtMiB = (kb) => `${(kb / 1024).toFixed(1)} MiB`;

async function mapLimit(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/** Resources to release at the end, newest first; each bounded so a hung one cannot stall the exit. */
const cleanups = [];
function onCleanup(what, fn) {
  const entry = { what, fn };
  cleanups.push(entry);
  return async () => {
    const i = cleanups.indexOf(entry);
    if (i >= 0) cleanups.splice(i, 1);
    await fn();
  };
}
async function runCleanups() {
  while (cleanups.length > 0) {
    const { what, fn } = cleanups.pop();
    let timer;
    try {
      await Promise.race([
        Promise.resolve().then(fn),
        new Promise((_, rej) => { timer = setTimeout(() => rej(new Error('timed out after 30 s')), 30000); }),
      ]);
    } catch (e) {
      progress(`cleanup of ${what} failed: ${e.message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

function rawKafka(cluster, clientId) {
  return new Kafka({ clientId, brokers: [cluster.bootstrap], logLevel: logLevel.NOTHING });
}

async function connectedAdmin(kafka, what) {
  const admin = kafka.admin();
  await admin.connect();
  onCleanup(what, () => admin.disconnect());
  return admin;
}

async function createTopic(admin, topic, numPartitions, configEntries = []) {
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions, replicationFactor: 1, configEntries }] });
}

async function endOffsetSum(admin, topic) {
  const offs = await admin.fetchTopicOffsets(topic);
  return offs.reduce((a, o) => a + Number(o.high), 0);
}

/**
 * One admin OffsetCommit (AdminOffsetCommitter) of a group; a fresh cluster creates
 * __consumer_offsets on the first commit, so coordinator errors are tried again (up to 30 times).
 * @param {{ commit(group: string, offsets: Array<{ topic: string, partition: number, offset: bigint }>): Promise<{ ok: boolean, errorType?: string, message?: string }> }} committer
 * @param {string} group
 * @param {Array<{ topic: string, partition: number, offset: bigint }>} offsets
 */
async function commitRetrying(committer, group, offsets) {
  for (let attempt = 0; ; attempt++) {
    const r = await committer.commit(group, offsets);
    if (r.ok || attempt >= 30 || !/COORDINATOR|LOAD_IN_PROGRESS/.test(r.errorType || '')) return r;
    await sleep(200);
  }
}

function procStatus(pid) {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => {
    const m = new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) : NaN;
  };
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}

function cpuMs(prev) {
  const d = process.cpuUsage(prev);
  return (d.user + d.system) / 1000;
}


// ---- processes: CPU, RSS, what else runs ------------------------------------------------------

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process, in seconds (/proc/<pid>/stat fields 14 and 15). */
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** CPU seconds per minute and the RSS at the end, of each pid, over `seconds`. */
/**
 * CPU per minute of each process over `seconds`, and its VmRSS read every `everyMs` over the window:
 * rssKb = the last reading (at the end), rssMaxKb, rssMedianKb, rssMinKb (V8's heap swings by
 * 100-300 MiB between full GCs, so one reading says little).
 */
async function measureProcesses(pids, seconds, everyMs = 1000) {
  const c0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const rss = Object.fromEntries(Object.keys(pids).map((k) => [k, []]));
  const read = () => {
    for (const [k, pid] of Object.entries(pids)) {
      try {
        rss[k].push(procStatus(pid).rssKb);
      } catch {
        /* exited: the caller finds out */
      }
    }
  };
  const t = performance.now();
  read();
  for (const end = t + seconds * 1000; performance.now() + everyMs < end; ) {
    await sleep(everyMs);
    read();
  }
  await sleep(Math.max(0, t + seconds * 1000 - performance.now()));
  const s = (performance.now() - t) / 1000;
  const out = {};
  for (const [k, pid] of Object.entries(pids)) {
    const last = procStatus(pid).rssKb;
    const all = [...rss[k], last].sort((a, b) => a - b);
    out[k] = { cpuPerMin: ((cpuSeconds(pid) - c0[k]) / s) * 60, rssKb: last, rssMaxKb: all[all.length - 1], rssMedianKb: percentile(all, 0.5), rssMinKb: all[0], rssSamples: all.length };
  }
  return out;
}

function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
const fmtS = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '-');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : '-');

/** The load average and the top CPU users of the machine (`ps`). */
function whatElseRuns() {
  let load = '?';
  try {
    load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    /* ignore */
  }
  let top = '';
  try {
    top = execFileSync('ps', ['-eo', 'pid,pcpu,rss,comm', '--sort=-pcpu'], { encoding: 'utf8' }).split('\n').slice(1, 6).map((l) => l.trim()).filter(Boolean).join(' | ');
  } catch {
    /* ignore */
  }
  return { load, top };
}

/**
 * The java and node processes of the machine that are not this process or one of its
 * descendants (its brokers, its Node-REDs): other work that shares the cores. One short line each:
 * pid, %CPU since start, RSS, and what it is (a broker's or MM2's main class and config, a node script).
 */
function otherJavaNode() {
  let rows;
  try {
    rows = execFileSync('ps', ['-eo', 'pid=,ppid=,pcpu=,rss=,comm=,args='], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).split('\n').filter(Boolean).map((l) => {
      const m = /^\s*(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(l);
      return m ? { pid: Number(m[1]), ppid: Number(m[2]), pcpu: Number(m[3]), rssKb: Number(m[4]), comm: m[5], args: m[6] } : null;
    }).filter(Boolean);
  } catch {
    return [];
  }
  const mine = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of rows) if (!mine.has(r.pid) && mine.has(r.ppid)) { mine.add(r.pid); grew = true; }
  }
  const what = (r) => {
    const a = r.args.split(/\s+/);
    let cwd = '';
    try {
      cwd = ` in ${path.basename(fs.readlinkSync(`/proc/${r.pid}/cwd`))}`;
    } catch {
      /* not ours to read */
    }
    if (r.comm === 'java') {
      const cls = a.find((x) => /^(kafka\.|org\.apache\.)[\w.]+$/.test(x) && !x.startsWith('-')) ?? '?';
      const conf = a.find((x) => /\.properties$/.test(x) && !/log4j/.test(x));
      return `java ${cls.replace(/^org\.apache\.kafka\./, 'o.a.k.')}${conf ? ` ${path.basename(path.dirname(conf))}/${path.basename(conf)}` : ''}${cwd}`;
    }
    if (r.comm === 'node-red') return `Node-RED${cwd}`;
    const script = a.slice(1).find((x) => !x.startsWith('-')) ?? '';
    const bin = /node_modules\/\.bin\/(.+)$/.exec(script);
    return `${bin ? bin[1] : `node ${script.split('/').slice(-3).join('/')}`} ${a.slice(a.indexOf(script) + 1).join(' ').slice(0, 50)}`.trim() + cwd;
  };
  return rows.filter((r) => !mine.has(r.pid) && (r.comm === 'java' || r.comm === 'node' || r.comm === 'node-red'))
    .map((r) => ({ pid: r.pid, pcpu: r.pcpu, rssKb: r.rssKb, what: what(r) }));
}

/**
 * Starts measuring the CPU of the other java and node processes (otherJavaNode); the function it
 * returns gives each one's CPU s/min since then (processes alive at both ends), busiest first.
 * @returns {() => Array<{ pid: number, what: string, cpuPerMin: number, rssKb: number }>}
 */
function othersCpuSince() {
  const t = performance.now();
  const start = otherJavaNode().map((o) => {
    try {
      return { ...o, c0: cpuSeconds(o.pid) };
    } catch {
      return null;
    }
  }).filter(Boolean);
  return () => {
    const s = (performance.now() - t) / 1000;
    const out = [];
    for (const o of start) {
      try {
        out.push({ pid: o.pid, what: o.what, cpuPerMin: ((cpuSeconds(o.pid) - o.c0) / s) * 60, rssKb: procStatus(o.pid).rssKb });
      } catch {
        /* gone meanwhile */
      }
    }
    return out.sort((a, b) => b.cpuPerMin - a.cpuPerMin);
  };
}

// ---- commit-to-visible samples --------------------------------------------------------------

/**
 * Sampled commits and the time until each is visible on the target (what bench/freshness.js
 * measures for twin groups, here for one side): every `everyMs` one `pick()` (a group partition not
 * in flight and the offset to commit it to; undefined: none this tick), its target offset read
 * just before (`targetOffsets(group)` -> Map partition -> offset), the commit (`commit(sample)`),
 * and a poller that reads the target every `pollMs` for the groups with a sample in flight (32
 * in flight): a sample is visible when its partition's target offset is above the one read before.
 * Its time runs from the commit's answer to the poll answer that shows it; not visible after
 * `timeoutMs`: timed out (Infinity). Runs until `count` samples were made (or `stop()` is called)
 * and every one is visible or timed out.
 * @param {{ count: number, everyMs: number, pollMs: number, timeoutMs: number,
 *   pick: (inFlight: Set<string>) => ({ group: string, p: number } & Record<string, any>) | undefined,
 *   commit: (s: any) => Promise<void>, targetOffsets: (group: string) => Promise<Map<number, bigint>>,
 *   stallMs?: number }} o
 */
function sampleVisibility(o) {
  /** @type {Array<{ group: string, p: number, before: bigint, at: number, seen?: number }>} */
  const samples = [];
  const inFlight = new Set();
  let stopped = false;
  let skipped = 0;
  const key = (s) => `${s.group}/${s.p}`;
  const done = (async () => {
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const t = performance.now();
        const open = samples.filter((s) => s.seen === undefined);
        const byGroup = new Map();
        for (const s of open) byGroup.set(s.group, [...(byGroup.get(s.group) ?? []), s]);
        await mapLimit([...byGroup], 32, async ([g, list]) => {
          const m = await o.targetOffsets(g).catch(() => null);
          if (!m) return;
          const now = performance.now();
          for (const s of list) {
            if (s.seen === undefined && (m.get(s.p) ?? -1n) > s.before) {
              s.seen = now;
              inFlight.delete(key(s));
            }
          }
        });
        const now = performance.now();
        for (const s of open) {
          if (s.seen === undefined && now - s.at > o.timeoutMs) {
            s.seen = Infinity;
            inFlight.delete(key(s));
          }
        }
        await sleep(Math.max(0, o.pollMs - (performance.now() - t)));
      }
    })();
    try {
      let lastPick = performance.now();
      for (let k = 0; k < o.count && !stopped; ) {
        const tick = performance.now();
        const pick = o.pick(inFlight);
        if (!pick) {
          skipped++;
          if (performance.now() - lastPick > (o.stallMs ?? 180000)) throw new Error(`no group partition to move for ${((o.stallMs ?? 180000) / 1000).toFixed(0)} s`);
        } else {
          lastPick = performance.now();
          inFlight.add(key(pick));
          const before = (await o.targetOffsets(pick.group)).get(pick.p) ?? -1n;
          await o.commit(pick);
          samples.push({ group: pick.group, p: pick.p, before, at: performance.now() });
          k++;
        }
        await sleep(Math.max(0, o.everyMs - (performance.now() - tick)));
      }
      for (const deadline = performance.now() + o.timeoutMs + 5000; samples.some((s) => s.seen === undefined) && performance.now() < deadline; ) await sleep(100);
    } finally {
      polling = false;
      await poller;
    }
  })();
  return {
    samples,
    inFlight,
    get skipped() {
      return skipped;
    },
    /** Makes no more samples; the promise resolves once the ones made are visible or timed out. */
    stop() {
      stopped = true;
      return done;
    },
    done,
  };
}

/** p50 / p99 / max of the visible samples (ms), and how many timed out. */
function sampleStats(samples) {
  const lat = samples.map((s) => s.seen - s.at);
  const ok = lat.filter(Number.isFinite).sort((a, b) => a - b);
  return { n: ok.length, timedOut: lat.length - ok.length, p50: percentile(ok, 0.5), p99: percentile(ok, 0.99), max: ok.length ? ok[ok.length - 1] : NaN };
}

/** `left`: indexes of left-aligned (text) columns; the others are right-aligned (numbers). */
function printTable(title, headers, rows, left = [0]) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (left.includes(i) ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ').trimEnd();
  process.stdout.write(`\n${title}\n${line(headers)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const r of rows) process.stdout.write(line(r) + '\n');
}


function cpuModel() {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
    return m ? m[1].trim() : os.cpus()[0]?.model ?? '?';
  } catch {
    return '?';
  }
}


/**
 * Runs a bench script's `main`, then `report` (also after a failure: a partial report), and
 * stops everything registered with onCleanup at the end, after `timeoutS` (watchdog) and on
 * Ctrl-C / SIGTERM. Exits 1 when anything failed.
 * @param {() => Promise<void>} main
 * @param {() => void} report
 * @param {number} timeoutS
 */
function runBench(main, report, timeoutS) {
  let exitCode = 0;
  const watchdog = setTimeout(() => {
    progress(`giving up after BENCH_TIMEOUT_S=${timeoutS} s`);
    runCleanups().finally(() => process.exit(1));
  }, timeoutS * 1000);
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => {
      progress(`${sig}: stopping everything`);
      runCleanups().finally(() => process.exit(1));
    });
  }
  main()
    .then(() => report())
    .catch((e) => {
      exitCode = 1;
      progress(`FAILED: ${e && e.stack ? e.stack : e}`);
      try {
        report();
      } catch {
        /* partial report only */
      }
    })
    .finally(async () => {
      progress('stopping everything');
      await runCleanups();
      clearTimeout(watchdog);
      progress(`done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      process.exit(exitCode);
    });
}

module.exports = {
  runBench,
  envList, envInt, t0, progress, sleep, fmtInt, fmtMs, fmtMiB, mapLimit, onCleanup, runCleanups,
  rawKafka, connectedAdmin, createTopic, endOffsetSum, commitRetrying, procStatus, cpuMs, printTable, cpuModel,
  CLK_TCK, cpuSeconds, measureProcesses, percentile, fmtS, ratio, whatElseRuns, otherJavaNode, othersCpuSince, sampleVisibility, sampleStats,
};
