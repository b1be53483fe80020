'use strict';
const assert = require('node:assert/strict');
const { Backoff, backoffDelay } = require('../../dist/core/backoff');

describe('core/backoff: the one back-off of every retry', () => {
  it('doubles from the first wait up to the longest, and stays there', () => {
    const b = new Backoff(1000, 30000);
    assert.deepEqual(Array.from({ length: 8 }, () => b.next()), [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it('starts again from the first wait after a success; delayMs tells the next wait without taking it', () => {
    const b = new Backoff(500, 4000);
    b.next();
    b.next();
    assert.equal(b.delayMs, 2000);
    assert.equal(b.delayMs, 2000);
    b.reset();
    assert.equal(b.next(), 500);
  });

  it('a first wait equal to the longest waits that long every time', () => {
    const b = new Backoff(1000, 1000);
    assert.deepEqual([b.next(), b.next(), b.next()], [1000, 1000, 1000]);
  });

  it('never overflows: a long run of failures stays at the longest wait', () => {
    const b = new Backoff(1, Number.MAX_SAFE_INTEGER);
    for (let i = 0; i < 200; i++) b.next();
    assert.ok(Number.isFinite(b.next()));
    assert.equal(backoffDelay(5000, 100, 60000), 60000);
    assert.equal(backoffDelay(0, 100, 60000), 100);
    assert.equal(backoffDelay(3, 50, Infinity), 400);
  });

  it('refuses a wait that is not a number, negative, or a longest wait below the first', () => {
    assert.throws(() => new Backoff(Number.NaN, 10), /first wait must be a number of ms >= 0 \(got NaN\)/);
    assert.throws(() => new Backoff(-1, 10), /first wait/);
    assert.throws(() => new Backoff(100, 50), /longest wait \(50 ms\) must not be shorter than the first \(100 ms\)/);
  });
});
