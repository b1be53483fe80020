'use strict';
const assert = require('node:assert/strict');
const { HeartbeatMonitor, compactDuration } = require('../../dist/core/heartbeat-monitor');

describe('HeartbeatMonitor (stale / ok alarm from replicated heartbeats)', function () {
  const T0 = 1_700_000_000_000;

  it('raises stale once when nothing arrives within the stale time since start, and never repeats it', function () {
    const m = new HeartbeatMonitor(10_000, T0);
    assert.equal(m.check(T0 + 5_000), null);
    assert.equal(m.check(T0 + 10_000), null, 'exactly the stale time is not yet stale');
    assert.deepEqual(m.check(T0 + 10_001), { state: 'stale', lastSeen: null, ageMs: null, staleAfterMs: 10_000 });
    assert.equal(m.check(T0 + 20_000), null);
    assert.equal(m.check(T0 + 99_000), null);
    assert.equal(m.state, 'stale');
  });

  it('clears with ok exactly once when a fresh heartbeat arrives after a stale', function () {
    const m = new HeartbeatMonitor(10_000, T0);
    assert.equal(m.check(T0 + 11_000).state, 'stale');
    const o = m.observe(T0 + 11_500, T0 + 12_000);
    assert.equal(o.latencyMs, 500);
    assert.deepEqual(o.alarm, { state: 'ok', lastSeen: T0 + 11_500, ageMs: 500, staleAfterMs: 10_000 });
    assert.equal(m.observe(T0 + 12_500, T0 + 13_000).alarm, null);
    assert.equal(m.check(T0 + 14_000), null);
    assert.equal(m.state, 'ok');
  });

  it('sends no ok without a prior stale', function () {
    const m = new HeartbeatMonitor(10_000, T0);
    const o = m.observe(T0 + 900, T0 + 1_000);
    assert.equal(o.alarm, null);
    assert.equal(o.latencyMs, 100);
    assert.equal(m.state, 'ok');
  });

  it('judges by the age of the newest heartbeat: a lagging mirror is stale even while heartbeats trickle in', function () {
    const m = new HeartbeatMonitor(10_000, T0);
    assert.equal(m.observe(T0, T0 + 100).alarm, null);
    // heartbeats keep arriving, but each is 30 s old
    const late = m.observe(T0 + 1_000, T0 + 31_000);
    assert.equal(late.latencyMs, 30_000);
    assert.deepEqual(late.alarm, { state: 'stale', lastSeen: T0 + 1_000, ageMs: 30_000, staleAfterMs: 10_000 });
    assert.equal(m.observe(T0 + 2_000, T0 + 32_000).alarm, null, 'still stale, not repeated');
    // caught up
    assert.equal(m.observe(T0 + 32_500, T0 + 33_000).alarm.state, 'ok');
  });

  it('an older heartbeat arriving late does not make the newest one older', function () {
    const m = new HeartbeatMonitor(10_000, T0);
    m.observe(T0 + 5_000, T0 + 5_100);
    const o = m.observe(T0 + 1_000, T0 + 5_200);
    assert.equal(o.latencyMs, 4_200);
    const s = m.snapshot(T0 + 6_000);
    assert.equal(s.lastSeen, T0 + 5_000);
    assert.equal(s.ageMs, 1_000);
    assert.equal(s.lastLatencyMs, 4_200);
    assert.equal(s.lastArrival, T0 + 5_200);
    assert.equal(s.count, 2);
  });

  it('a backlog heartbeat (seed) sets freshness without counting as an arrival', function () {
    const old = new HeartbeatMonitor(10_000, T0);
    old.seed(T0 - 86_400_000); // the mirror died a day ago
    assert.deepEqual(old.check(T0 + 1), { state: 'stale', lastSeen: T0 - 86_400_000, ageMs: 86_400_001, staleAfterMs: 10_000 });
    const fresh = new HeartbeatMonitor(10_000, T0);
    fresh.seed(T0 - 500);
    assert.equal(fresh.check(T0), null);
    assert.equal(fresh.state, 'ok');
    const s = fresh.snapshot(T0 + 1_000);
    assert.equal(s.count, 0);
    assert.equal(s.lastArrival, null);
    assert.equal(s.lastLatencyMs, null);
    assert.equal(s.ageMs, 1_500);
  });

  it('reports negative latency for a writer clock ahead of ours, and such a heartbeat is fresh', function () {
    const m = new HeartbeatMonitor(10_000, T0);
    const o = m.observe(T0 + 2_000, T0 + 1_000);
    assert.equal(o.latencyMs, -1_000);
    assert.equal(m.check(T0 + 11_000), null);
  });

  it('rejects a non-positive stale time', function () {
    assert.throws(() => new HeartbeatMonitor(0, T0), RangeError);
    assert.throws(() => new HeartbeatMonitor(-1, T0), RangeError);
    assert.throws(() => new HeartbeatMonitor(NaN, T0), RangeError);
  });
});

describe('compactDuration', function () {
  it('picks the unit and truncates', function () {
    assert.deepEqual(compactDuration(0), { n: 0, unit: 'ms' });
    assert.deepEqual(compactDuration(120.7), { n: 120, unit: 'ms' });
    assert.deepEqual(compactDuration(999), { n: 999, unit: 'ms' });
    assert.deepEqual(compactDuration(1_000), { n: 1, unit: 's' });
    assert.deepEqual(compactDuration(45_900), { n: 45, unit: 's' });
    assert.deepEqual(compactDuration(119_999), { n: 119, unit: 's' });
    assert.deepEqual(compactDuration(120_000), { n: 2, unit: 'min' });
    assert.deepEqual(compactDuration(7_199_999), { n: 119, unit: 'min' });
    assert.deepEqual(compactDuration(7_200_000), { n: 2, unit: 'h' });
    assert.deepEqual(compactDuration(2 * 86_400_000), { n: 2, unit: 'd' });
  });
  it('keeps the sign of negative durations', function () {
    assert.deepEqual(compactDuration(-250), { n: -250, unit: 'ms' });
    assert.deepEqual(compactDuration(-3_000), { n: -3, unit: 's' });
    assert.deepEqual(compactDuration(-0.4), { n: 0, unit: 'ms' });
  });
});
