'use strict';
/**
 * The status an mm2-heartbeat node shows (nodes/mm2-heartbeat/mm2-heartbeat-status), with the en-US texts:
 * green only while the last heartbeat is not overdue (issue 26, item 7: it re-rendered a green
 * "latency … / N s ago" every second while the target had stopped answering).
 */
const assert = require('node:assert/strict');
const { heartbeatStatus, heartbeatOverdueMs, clockTime } = require('../../dist/nodes/mm2-heartbeat/mm2-heartbeat-status');
const { makeTranslate } = require('../../dist/nodes/shared/i18n');

const t = makeTranslate(/** @type {any} */ ({ _: (/** @type {string} */ key) => key }), 'mm2-heartbeat');
const now = 1_800_000_000_000;

/**
 * A node that emits every second and watches; the last heartbeat arrived `arrivedAgo` ms ago, the last one was written `emittedAgo` ms ago.
 * @param {number} arrivedAgo
 * @param {number} [emittedAgo]
 * @returns {any} a HeartbeatNodeView
 */
function view(arrivedAgo, emittedAgo = 200) {
  const arrival = now - arrivedAgo;
  return {
    intervalMs: 1000,
    emitError: null,
    emitStalledMs: null,
    emit: { emitted: 7, lastEmitted: now - emittedAgo },
    watch: {
      phase: 'watching', error: null, loadPercent: 100, malformed: 0, topic: 'src.heartbeats',
      snapshot: { health: 'ok', lastSeen: arrival - 120, ageMs: arrivedAgo + 120, lastLatencyMs: 120, lastArrival: arrival, count: 3, runningMs: 60000, staleAfterMs: 30000 },
    },
  };
}

describe('mm2-heartbeat status', function () {
  it('overdue: the interval plus a margin of the interval, at least 3 s', function () {
    assert.equal(heartbeatOverdueMs(1000), 4000);
    assert.equal(heartbeatOverdueMs(60000), 120000);
  });

  it('green with the latency and the clock time it arrived: the same text until the next heartbeat', function () {
    const a = heartbeatStatus(t, view(500), now);
    assert.deepEqual(a, { fill: 'green', shape: 'dot', text: `latency 120 ms at ${clockTime(now - 500)}` });
    // three seconds later (no new heartbeat, still within the bound): the same, so nothing is set again
    assert.deepEqual(heartbeatStatus(t, { ...view(500), emit: { emitted: 9, lastEmitted: now + 2800 } }, now + 3000), a);
  });

  it('no heartbeat for longer than the bound: yellow at once, saying since when', function () {
    const v = heartbeatStatus(t, view(4001), now);
    assert.deepEqual(v, { fill: 'yellow', shape: 'ring', text: `no heartbeat for 4 s (last at ${clockTime(now - 4001)})` });
  });

  it('heartbeats arrive but none was written here for longer than the bound: yellow, before the stall turns it red', function () {
    const v = heartbeatStatus(t, view(300, 4500), now);
    assert.deepEqual(v, { fill: 'yellow', shape: 'ring', text: `no heartbeat written for 4 s (last at ${clockTime(now - 4500)})` });
    const stalled = heartbeatStatus(t, { ...view(300, 6000), emitStalledMs: 6000 }, now);
    assert.equal(stalled.fill, 'red');
  });

  it('emitting only: green with the count and the time of the last one, yellow when it is overdue', function () {
    const only = (/** @type {number} */ ago) => /** @type {any} */ ({ intervalMs: 1000, emitError: null, emitStalledMs: null, emit: { emitted: 42, lastEmitted: now - ago } });
    assert.deepEqual(heartbeatStatus(t, only(900), now), { fill: 'green', shape: 'dot', text: `emitted 42, last at ${clockTime(now - 900)}` });
    assert.equal(heartbeatStatus(t, only(4100), now).fill, 'yellow');
  });

  it('clockTime is the host clock HH:MM:SS', function () {
    assert.match(clockTime(now), /^\d\d:\d\d:\d\d$/);
    const d = new Date(now);
    assert.equal(clockTime(now), [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':'));
  });
});
