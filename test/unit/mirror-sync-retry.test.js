'use strict';
/**
 * mm2-mirror's config and ACL syncs: a failed one is shown and tried again after a back-off,
 * not only at the next sync.topic.*.interval.seconds (10 minutes by default). No broker: the
 * mirror's topic client is replaced by one whose answers the test chooses.
 */
const assert = require('node:assert/strict');
const { Mirror } = require('../../dist/engines/mirror-task');

const waitFor = async (cond, what) => {
  const until = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

function mirrorWith(answers) {
  const events = [];
  const calls = { configs: 0, acls: 0 };
  const m = new Mirror(/** @type {any} */ ({
    offsetLagMax: 100n, offsetSyncs: null, groupId: 'g', onEvent: (e) => events.push(e), syncRetryMs: { first: 20, max: 40 },
  }));
  /** @type {any} */ (m).topics = {
    syncConfigs: async () => { calls.configs++; const a = answers.configs.shift(); if (a) throw new Error(a); },
    syncAcls: async () => { calls.acls++; const a = answers.acls.shift(); if (a) throw new Error(a); },
  };
  return { m, events, calls };
}

describe('mm2-mirror: a failed config or ACL sync is tried again with a back-off', function () {
  it('red while it fails, tried again by itself until it works, then recovered', async function () {
    const { m, events, calls } = mirrorWith({ configs: ['target did not answer', 'still not', null], acls: [] });
    await m.syncConfigs();
    assert.deepEqual(events.filter((e) => e.where === 'configs').map((e) => [e.type, e.error]), [['error', 'target did not answer']]);
    await waitFor(() => events.some((e) => e.type === 'recovered' && e.where === 'configs'), 'the configs to recover without a new interval');
    assert.equal(calls.configs, 3);
    assert.deepEqual(events.filter((e) => e.where === 'configs').map((e) => e.type), ['error', 'error', 'recovered']);
    // once it works, nothing more is tried until the caller's interval asks
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(calls.configs, 3);
    assert.equal(calls.acls, 0, 'the ACL sync is separate');
    await m.stop();
  });

  it('stop() cancels a retry that is waiting', async function () {
    const { m, calls } = mirrorWith({ configs: [], acls: ['refused', 'refused', 'refused'] });
    await m.syncAcls();
    assert.equal(calls.acls, 1);
    await m.stop();
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(calls.acls, 1, 'not tried again after stop');
  });
});
