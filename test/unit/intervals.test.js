'use strict';
/**
 * The one bound of every interval (core/intervals): 1 s to 24 days, refused with the property
 * named, never clamped. Before it, 3e9 s became a 1 ms timer (setTimeout's limit is 2^31-1 ms)
 * and 0.0001 s was accepted.
 */
const assert = require('node:assert/strict');
const { intervalMs, intervalProblem, assertTimerMs, MAX_INTERVAL_SECONDS, MAX_TIMER_MS, MIN_INTERVAL_MS, MAX_INTERVAL_MS } = require('../../dist/core/intervals');
const { ConfigError } = require('../../dist/core/errors');
const { getPropertyDef, normaliseValue } = require('../../dist/core/config-properties');
const { resolveNodeSettings } = require('../../dist/core/setting-fields');
const { parseMirrorSettings } = require('../../dist/core/mirror-settings');

function refusal(fn) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected a ConfigError, got ${e}`);
    return e;
  }
  assert.fail('expected a ConfigError');
}

describe('intervals: one bound for every node timer', function () {
  it('the longest interval stays below the JavaScript timer limit, the shortest is 1 s', function () {
    assert.equal(MAX_TIMER_MS, 2147483647);
    assert.ok(MAX_INTERVAL_MS < MAX_TIMER_MS);
    assert.equal(MAX_INTERVAL_SECONDS, 2073600);
    assert.equal(MIN_INTERVAL_MS, 1000);
  });

  it('reads seconds and milliseconds; empty takes the default', function () {
    assert.equal(intervalMs('x', '60', 10), 60000);
    assert.equal(intervalMs('x', ' 1.5 ', 10), 1500);
    assert.equal(intervalMs('x', '', 10), 10000);
    assert.equal(intervalMs('x', undefined, 10), 10000);
    assert.equal(intervalMs('x', 2073600, 10), MAX_INTERVAL_MS);
    assert.equal(intervalMs('x', '1000', 60000, { unit: 'milliseconds' }), 1000);
    assert.equal(intervalMs('x', '0', 10, { off: 0 }), 0);
  });

  it('refuses out-of-range values naming the property, the range and the fix', function () {
    const big = refusal(() => intervalMs('emit.heartbeats.interval.seconds', '3e9', 1, { offHint: 'set emit.heartbeats.enabled to false' }));
    assert.equal(big.problems[0].property, 'emit.heartbeats.interval.seconds');
    assert.match(big.message, /not a number; use 1\.\.2073600 s/);
    const above = refusal(() => intervalMs('emit.heartbeats.interval.seconds', '3000000000', 1, { offHint: 'set emit.heartbeats.enabled to false' }));
    assert.match(above.message, /^emit\.heartbeats\.interval\.seconds: 3000000000 is above the longest interval .*1\.\.2073600 s \(1 s to 24 days\); to turn the job off set emit\.heartbeats\.enabled to false$/);
    assert.match(refusal(() => intervalMs('staleAfterSeconds', '0.0001', 30)).message, /^staleAfterSeconds: 0\.0001 is below the shortest interval/);
    assert.match(refusal(() => intervalMs('staleAfterSeconds', '0', 30)).message, /below the shortest interval/);
    assert.match(refusal(() => intervalMs('staleAfterSeconds', '-5', 30)).message, /below the shortest interval/);
    for (const junk of ['abc', '10s', '0x10', 'Infinity', '1,5', '--1']) {
      assert.match(refusal(() => intervalMs('pollSeconds', junk, 10)).message, /^pollSeconds: '.*' is not a number/, junk);
    }
    assert.match(refusal(() => intervalMs('offset.flush.interval.ms', '999', 60000, { unit: 'milliseconds' })).message, /999 is below .*1000\.\.2073600000 ms/);
    assert.match(refusal(() => intervalMs('offset.flush.interval.ms', '1500.5', 60000, { unit: 'milliseconds', integer: true })).message, /not a whole number of milliseconds/);
    assert.equal(intervalProblem(NaN) !== undefined, true);
    assert.equal(intervalProblem(Infinity) !== undefined, true);
  });

  it('the catalogue bounds every MM2 interval property the same way', function () {
    for (const p of [
      'emit.checkpoints.interval.seconds',
      'refresh.groups.interval.seconds',
      'sync.group.offsets.interval.seconds',
      'emit.heartbeats.interval.seconds',
      'refresh.topics.interval.seconds',
      'sync.topic.configs.interval.seconds',
      'sync.topic.acls.interval.seconds',
    ]) {
      const d = getPropertyDef(p);
      assert.deepEqual(normaliseValue(d, '2073600'), { ok: true, value: 2073600 }, p);
      const r = normaliseValue(d, '3000000000');
      assert.equal(r.ok, false, p);
      // the property that turns the job off, by name (the checkpoint connector refuses emit.checkpoints.enabled=false: none)
      if (p === 'emit.checkpoints.interval.seconds') assert.match(r.reason, /above the longest interval.*\(1 s to 24 days\)$/, p);
      else assert.match(r.reason, new RegExp(`above the longest interval.*; to turn the job off set ${p.replace('.interval.seconds', '.enabled').replace(/\./g, '\\.')} to false$`), p);
      assert.match(/** @type {{ reason: string }} */ (normaliseValue(d, '0')).reason, /must be a positive number of seconds \(got 0\), at most 2073600/, p);
    }
  });

  it('a node reading its settings gets the refusal by MM2 property name', function () {
    const r = resolveNodeSettings({ emitHeartbeatsIntervalSeconds: '3000000000' }, ['emit.heartbeats.interval.seconds']);
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0].property, 'emit.heartbeats.interval.seconds');
    assert.equal(r.values['emit.heartbeats.interval.seconds'], undefined);
  });

  it('the mirror refuses a refresh or flush interval above the timer limit', function () {
    const e = refusal(() => parseMirrorSettings({ refreshTopicsIntervalSeconds: '3000000000', offsetFlushIntervalMs: '3000000000' }));
    assert.deepEqual(e.problems.map((p) => p.property).sort(), ['offset.flush.interval.ms', 'refresh.topics.interval.seconds']);
  });

  it('the last guard before a timer refuses what setTimeout would turn into 1 ms', function () {
    assert.equal(assertTimerMs(1000), 1000);
    assert.throws(() => assertTimerMs(2 ** 31), RangeError);
    assert.throws(() => assertTimerMs(NaN), RangeError);
    assert.throws(() => assertTimerMs(-1), RangeError);
  });
});
