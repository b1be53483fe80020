'use strict';
/**
 * Preloaded into Node-RED by bench/freshness.js (NODE_OPTIONS=--require this file): every
 * BENCH_NR_MEMORY_EVERY_MS (2000) appends one JSON line to BENCH_NR_MEMORY_FILE with the epoch ms,
 * process.memoryUsage() (rss, heapTotal, heapUsed, external, arrayBuffers) and the V8 heap spaces
 * (size and used of new, old, large-object and code space), so the bench reports the whole steady
 * window (max, median, last) instead of one reading at its end. The timer is unref'd; reading the
 * figures costs microseconds.
 *
 * BENCH_NR_HEAP_SNAPSHOT=1: at the second SIGWINCH (the bench sends one at the start and one at the end
 * of the steady-state window; SIGWINCH is ignored by default) it writes the figures before, a heap
 * snapshot (`steady.heapsnapshot` in the folder of BENCH_NR_MEMORY_FILE; V8 runs a full GC first) and
 * the figures after it (`steady.memory.json`: before minus after = garbage the heap was carrying).
 * Summarise the snapshot with `node bench/heap-snapshot-summary.js FILE`. BENCH_NR_FULL_GC=1: at that
 * point a full GC first (its figures as `afterFullGc`, and `fiveSecondsAfterFullGc`), to tell the
 * garbage V8 carries from what is live.
 */
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');

const file = process.env.BENCH_NR_MEMORY_FILE;
if (file) {
  const SPACES = { new_space: 'new', old_space: 'old', large_object_space: 'lo', code_space: 'code' };
  const figures = () => {
    const m = process.memoryUsage();
    const out = { t: Date.now(), rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
    for (const s of v8.getHeapSpaceStatistics()) if (SPACES[s.space_name]) out[SPACES[s.space_name]] = { size: s.space_size, used: s.space_used_size };
    return out;
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const every = Number(process.env.BENCH_NR_MEMORY_EVERY_MS || 2000);
  setInterval(() => {
    try {
      fs.appendFileSync(file, JSON.stringify(figures()) + '\n');
    } catch {
      /* a full disk must not stop Node-RED */
    }
  }, every).unref();
  let signals = 0;
  process.on('SIGWINCH', () => {
    // the end of the steady window: the second signal (the fourth with BENCH_NR_PROFILE_CATCHUP, whose first two frame the catch-up)
    if (++signals !== Number(process.env.BENCH_NR_WINDOW_END_SIGNAL || 2)) return;
    const out = { before: figures() };
    if (process.env.BENCH_NR_FULL_GC === '1') {
      // what a full GC gives back (V8's heap and the Buffers it held), and RSS a few seconds later
      v8.setFlagsFromString('--expose-gc');
      require('node:vm').runInNewContext('gc')();
      out.afterFullGc = figures();
      setTimeout(() => {
        out.fiveSecondsAfterFullGc = figures();
        fs.writeFileSync(path.join(path.dirname(file), 'steady.memory.json'), JSON.stringify(out, null, 2));
      }, 5000);
    }
    if (process.env.BENCH_NR_HEAP_SNAPSHOT === '1') {
      v8.writeHeapSnapshot(path.join(path.dirname(file), 'steady.heapsnapshot'));
      out.afterSnapshotGc = figures();
    }
    fs.writeFileSync(path.join(path.dirname(file), 'steady.memory.json'), JSON.stringify(out, null, 2));
  });
}
