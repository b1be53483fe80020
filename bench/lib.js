'use strict';
/**
 * Helpers shared by the bench scripts (bench/run.js, bench/freshness.js): settings from the
 * environment, progress on stderr, bounded cleanups, small Kafka and /proc helpers, tables.
 */
const fs = require('node:fs');
const os = require('node:os');
const { performance } = require('node:perf_hooks');
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
};
