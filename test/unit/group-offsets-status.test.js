'use strict';
/** The status an mm2-group-offsets node shows (nodes/mm2-group-offsets/mm2-group-offsets-status), with the en-US texts. */
const assert = require('node:assert/strict');
const { GroupOffsetsRuns, runsStatus } = require('../../dist/nodes/mm2-group-offsets/mm2-group-offsets-status');
const { makeTranslate } = require('../../dist/nodes/shared/i18n');

// the runtime's catalog missing (RED._ gives the key back): our en-US texts
const t = makeTranslate(/** @type {any} */ ({ _: (/** @type {string} */ key) => key }), 'mm2-group-offsets');

/**
 * A run's result with only what the status reads.
 * @param {boolean} partial @param {string[]} written @param {Array<[string, string]>} skipped group and code
 * @returns {any}
 */
function run(partial, written, skipped = []) {
  return {
    cycle: 1, partial, partitionsSkipped: [], clamped: [], deferred: 0, durationMs: 1,
    checkpoints: { groups: 0, partitions: 0, received: 0, malformed: 0 },
    written: written.map((group) => ({ group, offsets: [] })),
    skipped: skipped.map(([group, code]) => ({ group, code, reason: `${code} reason` })),
  };
}

describe('mm2-group-offsets status: what either path wrote', function () {
  const t0 = 1_800_000_000_000;
  const interval = 60000;

  it('counts the groups the partial runs wrote: a full run that finds them up to date does not make it "0 synced"', function () {
    const runs = new GroupOffsetsRuns();
    runs.record(run(false, ['a', 'b']), t0);
    // the checkpoints of a and b move: the partial runs write them between the full runs
    runs.record(run(true, ['a']), t0 + 10000);
    runs.record(run(true, ['b']), t0 + 20000);
    // the next full run: both already hold their offsets
    runs.record(run(false, [], [['a', 'up-to-date'], ['b', 'up-to-date']]), t0 + 30000);
    const v = /** @type {any} */ (runsStatus(t, runs, interval, 0, t0 + 32000));
    assert.deepEqual([v.activity.fill, v.activity.text], ['green', '2 groups synced in 60 s / last 12 s ago']);
    // one write inside the window, the other older than the interval
    runs.record(run(true, ['a']), t0 + 80000);
    const w = /** @type {any} */ (runsStatus(t, runs, interval, 0, t0 + 85000));
    assert.equal(w.activity.text, '1 group synced in 60 s / last 5 s ago');
  });

  it('nothing written in the interval: says so, how many are up to date and when a run last checked', function () {
    const runs = new GroupOffsetsRuns();
    runs.record(run(false, ['a', 'b', 'c']), t0);
    runs.record(run(false, [], [['a', 'up-to-date'], ['b', 'up-to-date'], ['c', 'group-active']]), t0 + 60000);
    const v = /** @type {any} */ (runsStatus(t, runs, interval, 0, t0 + 62000));
    assert.equal(v.activity.fill, 'green');
    assert.match(v.activity.text, /^0 groups synced in 60 s, 2 up to date, .* \/ checked 2 s ago$/, 'a long list is shortened, never the time');
    assert.ok(v.activity.text.length <= 60, v.activity.text);
    runs.record(run(false, [], [['a', 'up-to-date'], ['b', 'up-to-date']]), t0 + 70000);
    assert.equal(/** @type {any} */ (runsStatus(t, runs, interval, 0, t0 + 72000)).activity.text, '0 groups synced in 60 s, 2 up to date / checked 2 s ago');
  });

  it('a partial run updates the outcome of its groups only: a failure is yellow, every group failing is red', function () {
    const runs = new GroupOffsetsRuns();
    runs.record(run(false, ['a', 'b']), t0);
    runs.record(run(true, [], [['a', 'error']]), t0 + 1000);
    const v = /** @type {any} */ (runsStatus(t, runs, interval, 0, t0 + 2000));
    assert.deepEqual([v.activity.fill, v.activity.text], ['yellow', '2 groups synced in 60 s, 1 failed / last 2 s ago']);
    runs.record(run(true, [], [['b', 'error']]), t0 + 3000);
    assert.deepEqual(runsStatus(t, runs, interval, 0, t0 + 3000), { fail: 'target unreachable: error reason' });
  });

  it('no run yet: nothing to show; runs that stop completing are not green', function () {
    const runs = new GroupOffsetsRuns();
    assert.equal(runsStatus(t, runs, interval, 0, t0), null);
    runs.record(run(false, ['a']), t0);
    const v = /** @type {any} */ (runsStatus(t, runs, interval, 0, t0 + 2 * interval + 31000));
    assert.equal(v.activity.fill, 'yellow');
    assert.match(v.activity.text, /^last completed sync/);
  });

  it('a full run keeps exactly the groups it listed: one a partial run added since and one the previous full run had are dropped; the same full run again changes nothing', function () {
    const runs = new GroupOffsetsRuns();
    runs.record(run(false, ['a', 'b'], [['c', 'group-active']]), t0);
    runs.record(run(true, [], [['d', 'error']]), t0 + 1000);
    assert.deepEqual(runs.view(t0 + 2000, interval), { synced: 2, lastWriteAt: t0, considered: 4, written: 2, active: 1, upToDate: 0, failed: 1, firstError: 'error reason' });
    // a listed twice (written, then skipped) counts once, with its last outcome
    const again = run(false, ['a'], [['a', 'up-to-date'], ['b', 'up-to-date']]);
    runs.record(again, t0 + 3000);
    assert.deepEqual(runs.view(t0 + 4000, interval), { synced: 2, lastWriteAt: t0 + 3000, considered: 2, written: 0, active: 0, upToDate: 2, failed: 0, firstError: '' });
    runs.record(again, t0 + 5000);
    assert.deepEqual(runs.view(t0 + 6000, interval), { synced: 2, lastWriteAt: t0 + 5000, considered: 2, written: 0, active: 0, upToDate: 2, failed: 0, firstError: '' });
  });
});

describe('mm2-group-offsets status: outcomes kept as small codes (issue 24 step g)', function () {
  const t0 = 1_800_000_000_000;
  const interval = 60000;

  it('over many full runs a group a partial run added stays only when the next full run lists it; an error reason goes with a later outcome', function () {
    const runs = new GroupOffsetsRuns();
    for (let k = 0; k < 5; k++) {
      runs.record(run(false, ['a'], [['b', 'up-to-date']]), t0 + k * 1000);
      runs.record(run(true, [], [[`p${k}`, 'error']]), t0 + k * 1000 + 500);
      // the partial run's group counts until the next full run
      assert.equal(runs.view(t0 + k * 1000 + 600, interval).considered, 3);
    }
    runs.record(run(false, ['a'], [['b', 'up-to-date'], ['p4', 'error']]), t0 + 6000);
    assert.deepEqual(runs.view(t0 + 6000, interval), { synced: 1, lastWriteAt: t0 + 6000, considered: 3, written: 1, active: 0, upToDate: 1, failed: 1, firstError: 'error reason' });
    // p4 written by a partial run: its reason is gone; the next full run without it drops it
    runs.record(run(true, ['p4']), t0 + 7000);
    assert.deepEqual(runs.view(t0 + 7000, interval), { synced: 2, lastWriteAt: t0 + 7000, considered: 3, written: 2, active: 0, upToDate: 1, failed: 0, firstError: '' });
    runs.record(run(false, [], [['a', 'fenced'], ['b', 'group-active']]), t0 + 8000);
    assert.deepEqual(runs.view(t0 + 8000, interval), { synced: 2, lastWriteAt: t0 + 7000, considered: 2, written: 0, active: 1, upToDate: 0, failed: 0, firstError: '' });
  });
});
