'use strict';
/**
 * The status an mm2-mirror node shows (nodes/mm2-mirror/mm2-mirror-status), with the en-US texts: green only
 * on fresh evidence that it copies, yellow at once when records or a probe wait too long (issue 26,
 * item 7: it re-rendered green on its stats timer while the target had stopped answering).
 */
const assert = require('node:assert/strict');
const { mirrorStatus, MIRROR_WAIT_MS } = require('../../dist/nodes/mm2-mirror/mm2-mirror-status');
const { makeTranslate } = require('../../dist/nodes/shared/i18n');

const t = makeTranslate(/** @type {any} */ ({ _: (/** @type {string} */ key) => key }), 'mm2-mirror');
const now = 1_800_000_000_000;

/** @param {any} o */
function input(o = {}) {
  return { problems: [], subscribed: ['orders'], recordsPerSecond: 0.2, outstanding: null, fresh: true, ...o };
}

describe('mm2-mirror status', function () {
  it('green with the rate on fresh evidence (records acknowledged, a probe answered)', function () {
    assert.deepEqual(mirrorStatus(t, input(), now), { activity: { fill: 'green', shape: 'dot', text: 'mirroring 1 topic, 0.2 rec/s' } });
  });

  it('no fresh evidence since the last green: nothing new (a timer alone never sets green again)', function () {
    assert.equal(mirrorStatus(t, input({ fresh: false }), now), null);
    // a wait that is still short changes nothing either
    assert.equal(mirrorStatus(t, input({ fresh: false, outstanding: { kind: 'ack', alias: 'tgt', since: now - MIRROR_WAIT_MS + 1 } }), now), null);
  });

  it('records the target has not acknowledged for the bound: yellow at once, even with fresh evidence', function () {
    for (const fresh of [true, false]) {
      const v = mirrorStatus(t, input({ fresh, outstanding: { kind: 'ack', alias: 'tgt', since: now - 4500 } }), now);
      assert.deepEqual(v, { activity: { fill: 'yellow', shape: 'ring', text: 'no acknowledgement from tgt for 4 s' } });
    }
  });

  it('a probe a cluster has not answered for the bound: yellow, naming the cluster', function () {
    const v = mirrorStatus(t, input({ outstanding: { kind: 'answer', alias: 'src', since: now - MIRROR_WAIT_MS } }), now);
    assert.deepEqual(v, { activity: { fill: 'yellow', shape: 'ring', text: 'src has not answered for 3 s' } });
  });

  it('a problem is red whatever else; before the subscription and without topics: yellow', function () {
    assert.deepEqual(mirrorStatus(t, input({ problems: ['a', 'the target did not answer'], outstanding: { kind: 'ack', alias: 'tgt', since: 0 } }), now), { fail: 'the target did not answer' });
    assert.deepEqual(mirrorStatus(t, input({ subscribed: null, fresh: false }), now), { activity: { fill: 'yellow', shape: 'ring', text: 'starting' } });
    assert.deepEqual(mirrorStatus(t, input({ subscribed: [] }), now), { activity: { fill: 'yellow', shape: 'ring', text: 'no topics selected' } });
  });
});
