'use strict';

const assert = require('node:assert/strict');
const { RunQueue } = require('../../dist/core/coalescing');

/** A promise with its resolve / reject. */
function deferred() {
  /** @type {(v?: any) => void} */ let resolve = () => undefined;
  /** @type {(e?: any) => void} */ let reject = () => undefined;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

/** A queue whose runs end when the test says; what ran, in order. */
function queue(maxPartials = 2) {
  /** @type {Array<{ job: any, end: ReturnType<typeof deferred> }>} */
  const runs = [];
  let closed = false;
  let changes = 0;
  const q = new RunQueue(
    {
      run: (job) => {
        const end = deferred();
        runs.push({ job, end });
        return end.promise;
      },
      closed: () => closed,
      partialChanged: () => changes++,
    },
    maxPartials,
  );
  return { q, runs, close: () => (closed = true), changes: () => changes };
}

describe('RunQueue (the group-offset writer: full runs on a chain, the event lane beside them)', function () {
  it('full runs go one at a time; requests made while one waits share it', async function () {
    const { q, runs } = queue();
    const a = q.full();
    const b = q.full();
    await tick();
    assert.equal(runs.length, 1, 'the first full run started');
    const c = q.full(); // queued behind the running one
    const d = q.full(); // shares c
    assert.equal(c, d);
    assert.equal(a, b);
    runs[0].end.resolve('first');
    assert.equal(await a, 'first');
    await tick();
    assert.equal(runs.length, 2, 'the follow-up full run started after the first ended');
    assert.equal(runs[1].job.full, true);
    runs[1].end.resolve('second');
    assert.equal(await c, 'second');
    assert.equal(q.busy, false);
  });

  it('a partial run never waits behind a full one; up to the bound run side by side, later requests join one waiting for a slot', async function () {
    const { q, runs, changes } = queue(2);
    q.full();
    await tick();
    const p1 = q.partial(['g1']);
    const p2 = q.partial(['g2']);
    assert.equal(runs.length, 3, 'both partial runs started beside the full run');
    assert.equal(q.partials, 2);
    const p3 = q.partial(['g3']);
    const p4 = q.partial(['g4', 'g3']);
    assert.equal(p3, p4, 'requests made while every slot is taken join one run');
    assert.equal(runs.length, 3);
    runs[1].end.resolve('p1');
    assert.equal(await p1, 'p1');
    await tick();
    assert.equal(runs.length, 4, 'the waiting run took the free slot');
    assert.deepEqual([...runs[3].job.groups].sort(), ['g3', 'g4']);
    runs[2].end.resolve('p2');
    runs[3].end.resolve('p3');
    assert.equal(await p2, 'p2');
    assert.equal(await p4, 'p3');
    runs[0].end.resolve('full');
    await tick();
    assert.equal(q.busy, false);
    assert.equal(changes(), 6, 'told at each partial run\'s start and end');
  });

  it('a failed run rejects its callers only; the chain goes on', async function () {
    const { q, runs } = queue();
    const a = q.full();
    await tick();
    const b = q.full();
    runs[0].end.reject(new Error('target unreachable'));
    await assert.rejects(a, /target unreachable/);
    await tick();
    runs[1].end.resolve('ok');
    assert.equal(await b, 'ok');
  });

  it('closed: the partial run waiting for a slot is rejected, no full run starts, close waits for the runs in flight', async function () {
    const { q, runs, close } = queue(1);
    const p1 = q.partial(['g1']);
    const waiting = q.partial(['g2']);
    close();
    let settled = false;
    const closing = q.close().then(() => (settled = true));
    await assert.rejects(waiting, /closed/);
    await assert.rejects(q.full(), /closed/);
    await tick();
    assert.equal(settled, false, 'the partial run in flight is still going');
    runs[0].end.resolve('p1');
    await closing;
    assert.equal(await p1, 'p1');
    assert.equal(runs.length, 1, 'nothing started after close');
  });
});
