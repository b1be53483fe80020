'use strict';
/**
 * How a refused interval says the job is turned off (issue 26, hostile configuration trial: the
 * failback interval's refusal named "the matching .enabled property", which mm2-failback does not
 * have): the property is named when the node has it, the node's own way otherwise, nothing when
 * there is none.
 */
const assert = require('node:assert/strict');
const { readFailbackSettings, FAILBACK_PROPERTIES } = require('../../dist/nodes/mm2-failback/mm2-failback-settings');
const { readCheckpointSettings } = require('../../dist/nodes/mm2-checkpoint/mm2-checkpoint-settings');
const { NODE_SETTINGS } = require('../../dist/nodes/shared/settings');
const { resolveNodeSettings } = require('../../dist/core/setting-fields');
const { normaliseValue } = require('../../dist/core/config-properties');

const none = () => undefined;

describe('a refused interval: how to turn the job off', function () {
  it('mm2-failback names no property it does not have, and says how to turn it off: disable the node', function () {
    for (const v of ['0', '-3', '99999999']) {
      const [p] = readFailbackSettings({ syncGroupOffsetsIntervalSeconds: v }, none).problems;
      assert.match(p, /^sync\.group\.offsets\.interval\.seconds: /);
      assert.doesNotMatch(p, /\.enabled/, p);
      assert.match(p, /; to turn the job off disable this node \(the Enabled switch at the bottom of its dialog\) or delete it$/, p);
      /** @type {readonly string[]} */ const own = FAILBACK_PROPERTIES;
      for (const m of p.matchAll(/\b([a-z]+(?:\.[a-z-]+)+)\b/g)) assert.ok(own.includes(m[1]), `names ${m[1]}: ${p}`);
    }
  });

  it('a node without the .enabled property of an interval leaves the hint out; one with it names it', function () {
    const cp = readCheckpointSettings({ refreshGroupsIntervalSeconds: '0', emitCheckpointsIntervalSeconds: '0' }, none).problems;
    assert.equal(cp.length, 2);
    for (const p of cp) assert.doesNotMatch(p, /enabled|turn the job off/, p);
    const mirror = resolveNodeSettings({ refreshTopicsIntervalSeconds: '0', syncTopicConfigsIntervalSeconds: '0' }, NODE_SETTINGS['mm2-mirror'], none).problems;
    assert.doesNotMatch(mirror.find((p) => p.property === 'refresh.topics.interval.seconds').reason, /enabled/);
    assert.match(mirror.find((p) => p.property === 'sync.topic.configs.interval.seconds').reason, /; to turn the job off set sync\.topic\.configs\.enabled to false$/);
    const hb = resolveNodeSettings({ emitHeartbeatsIntervalSeconds: '0' }, NODE_SETTINGS['mm2-heartbeat'], none).problems;
    assert.match(hb[0].reason, /set emit\.heartbeats\.enabled to false$/);
  });

  it('MM2\'s catalogue (Connect export, pasted configs) names the real property, never "the matching .enabled property"', function () {
    const r = normaliseValue(require('../../dist/core/config-properties').getPropertyDef('sync.group.offsets.interval.seconds'), '0');
    assert.equal(r.ok, false);
    assert.match(/** @type {{ reason: string }} */ (r).reason, /; to turn the job off set sync\.group\.offsets\.enabled to false$/);
    const e = /** @type {{ reason: string }} */ (normaliseValue(require('../../dist/core/config-properties').getPropertyDef('emit.checkpoints.interval.seconds'), '0'));
    assert.doesNotMatch(e.reason, /enabled/, 'the checkpoint connector refuses emit.checkpoints.enabled=false');
  });
});
