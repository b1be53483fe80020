'use strict';
const assert = require('node:assert/strict');
const { Timer, Sleeps, within, deadline } = require('../../dist/core/timers');

const tick = () => new Promise((r) => setImmediate(r));
/** Resolves once `cond()` holds (checked on each turn of the event loop). */
async function until(cond) {
  while (!cond()) await new Promise((r) => setTimeout(r, 1));
}
/** Resolves once a timer due `ms` from now has run: every timer due earlier has run before it (Node runs due timers in order). */
const pastTimersDueIn = (ms) => new Promise((r) => setTimeout(r, ms));

describe('core/timers: the engines\' timers, one way', () => {
  it('Timer.after runs once; starting it again replaces what was pending', async () => {
    const t = new Timer();
    const ran = [];
    t.after(1, () => ran.push('a'));
    t.after(1, () => ran.push('b'));
    assert.equal(t.pending, true);
    await until(() => ran.length > 0);
    assert.deepEqual(ran, ['b']);
    assert.equal(t.pending, false, 'nothing pending once it ran');
  });

  it('Timer.stop cancels: nothing runs, also for a repeat', async () => {
    const t = new Timer();
    let n = 0;
    t.every(1, () => n++);
    await until(() => n >= 2);
    t.stop();
    const at = n;
    await pastTimersDueIn(5);
    assert.equal(n, at, 'the repeat ran no more after stop');
    assert.equal(t.pending, false);
    t.after(1, () => n++);
    t.stop();
    await pastTimersDueIn(5);
    assert.equal(n, at);
  });

  it('a delay past what a JavaScript timer can wait is clamped, not fired at once', async () => {
    const t = new Timer(true);
    let ran = false;
    t.after(2 ** 40, () => (ran = true));
    await tick();
    await pastTimersDueIn(5);
    assert.equal(ran, false, 'a raw setTimeout of 2^40 ms fires after 1 ms');
    t.stop();
  });

  it('Sleeps: a sleep ends after its time, or at once on wakeAll', async () => {
    const s = new Sleeps();
    await s.sleep(1);
    let woke = false;
    const long = s.sleep(60_000).then(() => (woke = true));
    await tick();
    assert.equal(woke, false);
    s.wakeAll();
    await long;
    assert.equal(woke, true);
  });

  it('within: true when the work settles in time (fulfilled or rejected), false when the time runs out', async () => {
    assert.equal(await within(Promise.resolve(1), 1000), true);
    assert.equal(await within(Promise.reject(new Error('x')), 1000), true);
    assert.equal(await within(new Promise(() => undefined), 1), false);
  });

  it('deadline: the work\'s outcome, or the error made when it is late', async () => {
    assert.equal(await deadline(Promise.resolve(7), 1000, () => new Error('late')), 7);
    await assert.rejects(deadline(Promise.reject(new Error('own')), 1000, () => new Error('late')), /own/);
    await assert.rejects(deadline(new Promise(() => undefined), 1, () => new Error('did not start within 1 ms')), /did not start within 1 ms/);
  });
});
