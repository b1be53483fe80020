'use strict';
/** The pure helpers under the offset-syncs node: Batcher, ReportThrottle, status texts. */
const assert = require('node:assert/strict');
const { Batcher } = require('../../dist/core/coalescing');
const { ReportThrottle } = require('../../dist/core/report-throttle');
const { shortTime, loadPercent } = require('../../dist/nodes/shared/status-text');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Batcher', function () {
  it('flushes a full batch at once and a partial one after maxWaitMs, in order', async function () {
    const flushed = [];
    const b = new Batcher({ maxItems: 3, maxWaitMs: 20, onFlush: (items) => flushed.push(items) });
    [1, 2, 3, 4].forEach((i) => b.add(i));
    assert.deepEqual(flushed, [[1, 2, 3]]);
    assert.equal(b.size, 1);
    await sleep(60);
    assert.deepEqual(flushed, [[1, 2, 3], [4]]);
    assert.equal(b.size, 0);
  });

  it('arm() makes an empty flush due; flush() is immediate; clear() drops items and the timer', async function () {
    const flushed = [];
    const b = new Batcher({ maxItems: 10, maxWaitMs: 20, onFlush: (items) => flushed.push(items) });
    b.arm();
    await sleep(60);
    assert.deepEqual(flushed, [[]], 'an empty flush (the owner refreshes its view)');
    b.add('a');
    b.flush();
    assert.deepEqual(flushed, [[], ['a']]);
    b.add('b');
    b.clear();
    await sleep(60);
    assert.deepEqual(flushed, [[], ['a']], 'nothing after clear');
  });
});

describe('ReportThrottle', function () {
  it('reports the first at once, sums up the rest at the end of the period, with the last one', async function () {
    const out = [];
    const t = new ReportThrottle({ everyMs: 40, first: (x) => out.push(['first', x]), more: (n, x) => out.push(['more', n, x]) });
    t.report('a');
    t.report('b');
    t.report('c');
    assert.deepEqual(out, [['first', 'a']]);
    assert.equal(t.pending, 2);
    await sleep(100);
    assert.deepEqual(out, [['first', 'a'], ['more', 2, 'c']]);
    assert.equal(t.pending, 0);
  });

  it('flush() reports now and starts a new period; clear() forgets; a quiet period reports at once again', async function () {
    let now = 100000;
    const out = [];
    const t = new ReportThrottle({ everyMs: 1000, now: () => now, first: (x) => out.push(['first', x]), more: (n, x) => out.push(['more', n, x]) });
    t.report(1);
    t.report(2);
    t.flush();
    t.flush(); // nothing pending: nothing told
    assert.deepEqual(out, [['first', 1], ['more', 1, 2]]);
    now = 100500;
    t.report(3); // within the period that flush() started
    t.clear();
    assert.equal(t.pending, 0);
    now = 105000;
    t.report(4);
    assert.deepEqual(out, [['first', 1], ['more', 1, 2], ['first', 4]]);
  });
});

describe('status texts', function () {
  it('shortTime: HH:MM:SS today, MM-DD HH:MM on another day (local time)', function () {
    const t = new Date(2024, 2, 5, 7, 8, 9).getTime();
    assert.equal(shortTime(t, new Date(2024, 2, 5, 23, 0, 0).getTime()), '07:08:09');
    assert.equal(shortTime(t, new Date(2024, 2, 6, 0, 0, 1).getTime()), '03-05 07:08');
  });

  it('loadPercent: 0 with nothing to load, floors, never 100', function () {
    assert.equal(loadPercent(0n, 0n), 0);
    assert.equal(loadPercent(1n, 3n), 33);
    assert.equal(loadPercent(3n, 3n), 99);
    assert.equal(loadPercent(5n, 3n), 99);
  });
});
