'use strict';
/**
 * The in-process benchmarks (npm run bench:inproc) at a tiny size: their harness drives the real
 * emitter, node classes and writer, and produces every figure. Figures are checked for being
 * there and consistent, never for how fast anything was.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { runEventPath, parsePhases, parseLatency } = require('../../bench/event-path');
const { STEPS } = require('../../bench/state-memory');

const APIS = ['produce', 'metadata', 'listGroups', 'offsetFetch', 'findCoordinator', 'listOffsets', 'offsetCommit'];

describe('bench:inproc harness (tiny size)', function () {
  this.timeout(60000);

  it('event path: every sampled commit reaches the target, the requests are counted by API, the periodic work and its shortened periods run', async () => {
    const events = 20;
    const r = await runEventPath({
      groups: 20,
      parts: 2,
      phases: parsePhases('0:off,0:on'),
      events,
      eventEveryMs: 25,
      isolated: 1,
      intervalMs: 100,
      periodMs: 150,
      minWriteIntervalMs: 200,
      settleMs: 100,
      timeoutMs: 30000,
      seed: 7,
    });
    assert.equal(r.phases.length, 2);
    for (const p of r.phases) {
      assert.equal(p.timedOut, false);
      assert.equal(p.events, events);
      assert.equal(p.visible, events, 'every sampled commit visible on the target');
      for (const a of APIS) assert.ok(Number.isInteger(p.targetRequests[a]) && p.targetRequests[a] >= 0, `${a} counted`);
      // every sampled commit was written by at least one OffsetCommit, its checkpoint by a produce
      assert.ok(p.targetRequests.offsetCommit >= 1);
      assert.ok(p.targetRequests.produce >= 1);
      assert.ok(p.targetRequestsPerEvent > 0);
      assert.ok(Number.isFinite(p.p50Ms) && Number.isFinite(p.p99Ms) && p.p50Ms <= p.p99Ms && p.p99Ms <= p.maxMs);
      assert.ok(Number.isFinite(p.loopDelayP99Ms) && p.loopDelayP99Ms >= 0);
      assert.ok(p.cpuSecondsPerMinute > 0);
      assert.ok(p.allocatedMiBPerSecond > 0);
    }
    const [off, on] = r.phases;
    // an isolated commit alone: exactly one checkpoint produce and one OffsetCommit, and the writer's reads
    assert.equal(off.isolated.events, 1);
    assert.equal(off.isolated.requests.produce, 1);
    assert.equal(off.isolated.requests.offsetCommit, 1);
    assert.ok(off.isolated.requests.offsetFetch >= 1 && off.isolated.requests.listOffsets >= 1);
    // without the timers: no full cycle, no full run, no whole state in the window
    assert.equal(off.counters.fullCycles, 0);
    assert.equal(off.counters.writerFullRuns, 0);
    assert.equal(off.counters.out1Whole, 0);
    // with them: full cycles and full runs; the whole state (60 s by default) and the full read of
    // the source's offsets (60 s by default) come every periodMs
    assert.ok(on.counters.fullCycles > 0);
    assert.ok(on.counters.writerFullRuns > 0);
    assert.ok(on.counters.out1Whole <= 1, 'the whole state goes out on the first full cycle only: the writer reads the runtime, nothing is repaired over the wire');
    assert.ok(on.sourceRequests.offsetFetch > 0, 'the source offsets were read in full within the window (fullSourceReadEveryMs)');
  });

  it('memory: the retained heap, its breakdown by structure and the steady-state allocation', () => {
    const script = path.join(__dirname, '..', '..', 'bench', 'state-memory.js');
    const r = spawnSync(process.execPath, [script, '--json'], {
      env: { ...process.env, BENCH_MEM_GROUPS: '20', BENCH_MEM_PARTITIONS: '2', BENCH_MEM_STEADY_S: '1', BENCH_MEM_INTERVAL_MS: '200' },
      encoding: 'utf8',
      timeout: 55000,
    });
    assert.equal(r.status, 0, r.stderr);
    const m = JSON.parse(r.stdout.trim().split('\n').pop());
    assert.equal(m.groupPartitions, 40);
    assert.equal(m.checkpoints, 40, 'every group partition checkpointed');
    assert.ok(m.retained > 0);
    const keys = m.breakdown.map((b) => b.key);
    for (const s of STEPS) assert.ok(keys.includes(s.key), `breakdown has ${s.key}`);
    for (const k of ['rest', 'notReleased']) assert.ok(keys.includes(k), `breakdown has ${k}`);
    const sum = m.breakdown.reduce((a, b) => a + b.bytes, 0);
    assert.equal(sum, m.retained, 'the rows add up to the retained heap');
    const bytes = Object.fromEntries(m.breakdown.map((b) => [b.key, b.bytes]));
    for (const k of ['checkpointStore', 'sourceOffsets', 'coverage', 'targetOffsets']) assert.ok(bytes[k] > 0, `${k} holds something`);
    assert.ok(m.coverageJsonOnRead > 0, "output 2's entries, made when read, measured");
    // the writer reads the checkpoint store in the replication's runtime: no copy of its own
    assert.equal(m.writerOwnCheckpoints, 0);
    assert.ok(m.steady.allocatedMiBPerSecond > 0);
    assert.ok(m.steady.counters.fullCycles > 0 && m.steady.counters.writerFullRuns > 0, 'the timers ran in the steady window');
  });

  it('settings: latencies and phases are read, bad ones named', () => {
    assert.deepEqual(parseLatency('0'), [0, 0]);
    assert.deepEqual(parseLatency('100-200'), [100, 200]);
    assert.throws(() => parseLatency('fast'), /BENCH_INPROC_LATENCY: 'fast'/);
    assert.deepEqual(parsePhases('0:off,100-200:on'), [
      { latency: [0, 0], periodic: false },
      { latency: [100, 200], periodic: true },
    ]);
    assert.throws(() => parsePhases('100-200'), /BENCH_INPROC_PHASES: '100-200'/);
  });
});
