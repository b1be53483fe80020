'use strict';
/**
 * Preloaded into Node-RED by bench/freshness.js with BENCH_NR_CPU_PROF (NODE_OPTIONS=--require this
 * file; --cpu-prof is not allowed in NODE_OPTIONS): SIGWINCH (ignored by default; Node-RED exits on SIGUSR2) starts the V8 CPU profiler, the next
 * SIGWINCH stops it and writes `<BENCH_CPU_PROF_DIR>/<n>.cpuprofile` (n = 1, 2, ...), so the bench
 * profiles exactly its measurement windows. Summarise with `node bench/cpu-profile-summary.js FILE`.
 */
const fs = require('node:fs');
const path = require('node:path');
const inspector = require('node:inspector');

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  let running = false;
  let n = 0;
  process.on('SIGWINCH', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', () => session.post('Profiler.start'));
      // BENCH_NR_HEAP_SNAPSHOT=1: a sampling allocation profile too, counting what is collected again
      // (where the allocation bursts that grow the heap come from); written as <n>.heapprofile.
      // BENCH_NR_HEAP_PROMOTED=1: objects a scavenge collected left out, so the profile shows what
      // lived long enough to be promoted to old space (what grows it between full GCs)
      if (process.env.BENCH_NR_HEAP_SNAPSHOT === '1')
        session.post('HeapProfiler.enable', () =>
          session.post('HeapProfiler.startSampling', { samplingInterval: 65536, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: process.env.BENCH_NR_HEAP_PROMOTED !== '1' }),
        );
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, res) => {
      if (err) return;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${++n}.cpuprofile`), JSON.stringify(res.profile));
      if (process.env.BENCH_NR_HEAP_SNAPSHOT === '1')
        session.post('HeapProfiler.stopSampling', (e2, r2) => {
          if (!e2) fs.writeFileSync(path.join(dir, `${n}.heapprofile`), JSON.stringify(r2.profile));
        });
      // the heap snapshot at the end of the steady-state window: bench/nr-memory-preload.js
    });
  });
}
