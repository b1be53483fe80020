'use strict';
/** mm2-group-offsets runs and their status (nodes/mm2-group-offsets/mm2-group-offsets-cycles), without a broker. */
const assert = require('node:assert/strict');
const { GroupOffsetsCycles } = require('../../dist/nodes/mm2-group-offsets/mm2-group-offsets-cycles');
const { emptyCycle } = require('../../dist/core/group-offsets-cycle');

describe('mm2-group-offsets cycles: mode replication', function () {
  it('once the checkpoint node of the replication is gone, the periodic re-render never brings the last green status back', async function () {
    const shown = [];
    const ctx = { closing: false, log: { ok() {}, warn() {}, error() {}, limited() {} }, status: { show: (v) => shown.push(v), activity: (a) => shown.push({ activity: a }), fail: (f) => shown.push({ fail: f }) } };
    const result = { ...emptyCycle(1, false, { groups: 1, partitions: 1, received: 1, malformed: 0 }, 0), written: [{ group: 'g', offsets: [{ topic: 'source.t', partition: 0, offset: 5n }] }] };
    const syncer = { stats: { malformed: 0 }, sync: async () => result };
    const cycles = new GroupOffsetsCycles(/** @type {any} */ ({
      node: { send() {}, error() {} }, ctx, t: (k) => k, syncer, connection: { settings: {} }, mode: 'replication',
      intervalMs: 60000, checkpointsTopic: 'source.checkpoints.internal', origin: { sourceCluster: 'source', targetCluster: 'target', checkpointsTopic: 'source.checkpoints.internal' },
    }));
    cycles.ready = true;
    cycles.run(null, null, null);
    await new Promise((r) => setImmediate(r));
    const green = shown.at(-1);
    assert.equal(green.activity.fill, 'green', JSON.stringify(green));
    // the checkpoint node went away: the node says it waits (set by the runtime follower) and is not ready
    cycles.ready = false;
    ctx.status.activity({ fill: 'grey', shape: 'ring', text: 'waiting' });
    const before = shown.length;
    cycles.render();
    assert.equal(shown.length, before, 'nothing rendered over the waiting status');
    cycles.ready = true;
    cycles.render();
    assert.equal(shown.at(-1).activity.fill, 'green', 'ready again: the runs speak again');
  });
});
