'use strict';
/**
 * The group-offset writer's re-read of the target spread over the period (issue 24, core/spread-reads):
 * a full run re-reads about a SPREAD_SLOTS-th of the groups, the oldest, or none; no group's last read
 * gets older than the period plus one interval; a group never read is due at once.
 */
const assert = require('node:assert/strict');
const { readPhase, rereadDueAt, SPREAD_SLOTS } = require('../../dist/core/spread-reads');

describe('core/spread-reads: the re-read of the target spread over the period', function () {
  it('due at the first moment of its phase after the last read: never later than one period after it; never read: at once', function () {
    const P = 60000;
    for (const g of ['a', 'b', 'group-1', 'group-2', '']) {
      const phase = readPhase(g, P);
      assert.ok(phase >= 0 && phase < P, `${g}: ${phase}`);
      for (const readAt of [0, 1, phase, phase + 1, 123456789, -5]) {
        const due = rereadDueAt(g, readAt, P);
        assert.ok(due > readAt && due <= readAt + P, `${g} read at ${readAt}: due ${due}`);
        assert.ok(Math.abs(((due - phase) % P + P) % P) < 1e-6 || Math.abs(((due - phase) % P + P) % P - P) < 1e-6, 'at its phase');
      }
      assert.equal(rereadDueAt(g, undefined, P), -Infinity, 'never read: due at once');
      assert.equal(rereadDueAt(g, 500, 0), 500, 'a period of 0: every full run');
    }
  });

  it('10,000 groups read at once, a full run every interval: SPREAD_SLOTS runs a period re-read about a SPREAD_SLOTS-th each, the oldest, the others none; none beyond the bound', function () {
    const N = 10000;
    const P = 60000;
    const I = 1000;
    const groups = Array.from({ length: N }, (_, i) => `consumer-group-${i}`);
    const readAt = new Float64Array(N).fill(NaN);
    const counts = [];
    for (let now = 0; now <= 4 * P; now += I) {
      const due = [];
      for (let i = 0; i < N; i++) {
        const last = Number.isNaN(readAt[i]) ? undefined : readAt[i];
        if (now >= rereadDueAt(groups[i], last, P)) due.push(i);
        // the bound: before this run reads, no last read is older than the period plus one interval
        else assert.ok(now - readAt[i] < P + I, `group ${i} at ${now}: read at ${readAt[i]}`);
      }
      if (now === 0) assert.equal(due.length, N, 'new groups first: every group never read is due');
      else {
        counts.push(due.length);
        if (now > P) {
          // the oldest: every group re-read now was read no later than any group left
          const dueSet = new Set(due);
          let youngestDue = -Infinity;
          let oldestLeft = Infinity;
          for (let i = 0; i < N; i++) {
            if (dueSet.has(i)) youngestDue = Math.max(youngestDue, readAt[i]);
            else oldestLeft = Math.min(oldestLeft, readAt[i]);
          }
          assert.ok(youngestDue <= oldestLeft, `at ${now}: ${youngestDue} > ${oldestLeft}`);
        }
      }
      for (const i of due) readAt[i] = now;
    }
    const share = N / SPREAD_SLOTS; // 2,500
    const busy = counts.filter((c) => c > 0);
    // after the first period: SPREAD_SLOTS runs a period re-read (each about a slot's share), every other run none
    const periods = (4 * P) / P;
    assert.ok(busy.length >= SPREAD_SLOTS * (periods - 1) && busy.length <= SPREAD_SLOTS * periods + 1, `${busy.length} runs re-read in ${periods} periods`);
    for (const c of busy.slice(SPREAD_SLOTS)) assert.ok(Math.abs(c - share) < 0.1 * share, `a run re-read ${c} (a slot: ${share})`);
    assert.ok(Math.max(...counts) < 1.2 * share, `at most ${Math.max(...counts)} in one run (all at once: ${N})`);
  });

  it('runs late or early: a group is re-read at most once per period at its phase, and its last read stays within the period plus the gap', function () {
    const P = 5000;
    const g = 'late';
    let readAt;
    let reads = 0;
    for (let now = 0, k = 0; now < 100000; now += [700, 1100, 1500][k++ % 3]) {
      if (readAt !== undefined) assert.ok(now - readAt < P + 1500, `at ${now}: read at ${readAt}`);
      if (now >= rereadDueAt(g, readAt, P)) {
        readAt = now;
        reads++;
      }
    }
    assert.ok(reads <= Math.ceil(100000 / P) + 1, `${reads} reads`);
  });
});
