'use strict';
/** The status an mm2-checkpoint node shows (nodes/lib/checkpoint/status), with the en-US texts. */
const assert = require('node:assert/strict');
const { checkpointStatus } = require('../../dist/nodes/lib/checkpoint/status');
const { makeTranslate } = require('../../dist/nodes/lib/i18n');

// the runtime's catalog missing (RED._ gives the key back): our en-US texts
const t = makeTranslate(/** @type {any} */ ({ _: (/** @type {string} */ key) => key }), 'mm2-checkpoint');

/**
 * A node state after one completed full cycle over `groups` groups, all checkpointed, `written` new checkpoints.
 * @param {{ groups: number, written: number, failed?: number, sourceMode: any, now: number }} o
 * @returns {any} a CheckpointNodeState (its cycle result holds only what the status reads)
 */
function stateAfterCycle({ groups, written, failed = 0, sourceMode, now }) {
  const names = Array.from({ length: groups }, (_, i) => `g${i}`);
  return {
    phase: { kind: 'ready' },
    last: {
      cycle: 1, full: true, groups: names, written: new Array(written).fill({}), coverage: [],
      failedGroups: Array.from({ length: failed }, (_, i) => ({ group: `g${i}`, error: 'x' })),
      latest: new Map(names.map((g) => [g, []])), startedAt: now, durationMs: 1, syncsLoaded: true,
    },
    lastAt: now - 59000,
    error: null,
    groups,
    sourceMode,
  };
}

describe('mm2-checkpoint status', function () {
  const now = 1_800_000_000_000;
  const polling = { kind: 'poll', reason: 'not authorized to follow __consumer_offsets', notAuthorized: true };

  it("says 'polling' when following was wanted but failed, also when the cycle's text is long", function () {
    for (const [groups, written, failed] of [[1, 2, 0], [10000, 100000, 0], [10000, 100000, 9999]]) {
      const v = /** @type {any} */ (checkpointStatus(t, stateAfterCycle({ groups, written, failed, sourceMode: polling, now }), true, 600000, now));
      assert.ok('activity' in v, JSON.stringify(v));
      assert.match(v.activity.text, / · polling$/, `${groups} groups: ${v.activity.text}`);
      assert.ok(v.activity.text.length <= 60, v.activity.text);
      assert.match(v.activity.text, new RegExp(`^${groups} ${groups === 1 ? 'group' : 'groups'}, `), 'the cycle text is what is shortened (and 1 group is not "1 groups")');
    }
  });

  it("no 'polling' while following, nor when set to poll", function () {
    for (const sourceMode of [{ kind: 'events' }, { kind: 'poll' }]) {
      const v = /** @type {any} */ (checkpointStatus(t, stateAfterCycle({ groups: 3, written: 2, sourceMode, now }), true, 600000, now));
      assert.equal(v.activity.text, '3 groups, 3 checkpointed, 2 new / 59 s ago');
      assert.equal(v.activity.fill, 'green');
    }
  });
});
