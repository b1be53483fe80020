'use strict';

const assert = require('node:assert/strict');
const { StagedRunner } = require('../../dist/core/coalescing');

/** A promise with its resolve / reject. */
function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('StagedRunner (an event cycle makes way for the next before its write ends)', function () {
  it('the next run starts at release, while the first still ends; each request gets its own run result', async function () {
    const started = [];
    const ends = [];
    const runner = new StagedRunner(async (opts, release) => {
      started.push(opts.n);
      const end = deferred();
      ends.push(end);
      release();
      return end.promise;
    }, (a, b) => ({ n: Math.max(a.n, b.n) }));
    const r1 = runner.run({ n: 1 });
    await tick();
    const r2 = runner.run({ n: 2 });
    await tick();
    assert.deepEqual(started, [1, 2], 'the second run did not wait for the first one to end');
    assert.equal(runner.busy, true);
    ends[1].resolve('second');
    assert.equal(await r2, 'second');
    assert.equal(runner.busy, true, 'the first run has not ended yet');
    let idle = false;
    const idleP = runner.idle().then(() => (idle = true));
    await tick();
    assert.equal(idle, false, 'idle() waits for a run that made way');
    ends[0].resolve('first');
    assert.equal(await r1, 'first');
    await idleP;
    assert.equal(runner.busy, false);
  });

  it('without release it coalesces as CoalescingRunner: requests during a run share one more run, options merged', async function () {
    const seen = [];
    const gates = [];
    const runner = new StagedRunner(async (opts) => {
      seen.push(opts.groups.slice().sort());
      const g = deferred();
      gates.push(g);
      await g.promise;
      return seen.length;
    }, (a, b) => ({ groups: [...a.groups, ...b.groups] }));
    const r1 = runner.run({ groups: ['a'] });
    await tick();
    const r2 = runner.run({ groups: ['b'] });
    const r3 = runner.run({ groups: ['c'] });
    await tick();
    assert.deepEqual(seen, [['a']], 'no second run while the first holds its turn');
    gates[0].resolve();
    assert.equal(await r1, 1);
    await tick();
    assert.deepEqual(seen, [['a'], ['b', 'c']]);
    gates[1].resolve();
    assert.equal(await r2, 2);
    assert.equal(await r3, 2);
  });

  it('a release before the job\'s first await works; a job failing after or before release rejects its callers', async function () {
    const runner = new StagedRunner(async (opts, release) => {
      if (opts.early) release();
      await tick();
      throw new Error(`failed ${opts.n}`);
    }, (a) => a);
    await assert.rejects(runner.run({ n: 1, early: true }), /failed 1/);
    await assert.rejects(runner.run({ n: 2, early: false }), /failed 2/);
    await runner.idle();
    assert.equal(runner.busy, false);
  });
});
