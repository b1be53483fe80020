'use strict';
/** core/log-end-cache: log ends read earlier serve a group's write only when they clamp nothing it holds. */
const assert = require('node:assert/strict');
const { LogEndCache } = require('../../dist/core/log-end-cache');

const cp = (partition, down, topic = 'source.t') => ({ group: 'g', topic, partition, upstreamOffset: BigInt(down), downstreamOffset: BigInt(down), metadata: '' });
const ends = (...offsets) => offsets.map((o, partition) => ({ topic: 'source.t', partition, offset: BigInt(o) }));

describe('core/log-end-cache', function () {
  it('serves the ends read earlier when every checkpoint of the group is at or below them', function () {
    const c = new LogEndCache(60000);
    c.put('source.t', ends(100, 50), 1000);
    assert.deepEqual(c.serves('source.t', [cp(0, 100), cp(1, 7)], 2000), ends(100, 50));
    // checkpoints of another topic do not count
    assert.ok(c.serves('source.t', [cp(0, 1), cp(0, 999, 'other')], 2000));
  });

  it('a checkpoint beyond the end read (the log grew since) or on a partition not read needs a fresh read', function () {
    const c = new LogEndCache(60000);
    c.put('source.t', ends(100, 50), 1000);
    assert.equal(c.serves('source.t', [cp(0, 101)], 2000), undefined);
    assert.equal(c.serves('source.t', [cp(2, 0)], 2000), undefined);
    assert.equal(c.serves('other', [cp(0, 0, 'other')], 2000), undefined);
  });

  it('a read older than maxAgeMs, or a topic forgotten, is not used', function () {
    const c = new LogEndCache(60000);
    c.put('source.t', ends(100), 1000);
    assert.ok(c.serves('source.t', [cp(0, 1)], 61000));
    assert.equal(c.serves('source.t', [cp(0, 1)], 61001), undefined);
    c.put('source.t', ends(100), 61001);
    c.forget('source.t');
    assert.equal(c.serves('source.t', [cp(0, 1)], 61002), undefined);
    assert.equal(c.size, 0);
  });

  it('is due for a read beside the runs once older than half of maxAgeMs (it still serves until maxAgeMs)', function () {
    const c = new LogEndCache(60000);
    assert.equal(c.due('source.t', 0), false, 'nothing held: nothing to refresh');
    c.put('source.t', ends(100), 1000);
    assert.equal(c.due('source.t', 31000), false);
    assert.equal(c.due('source.t', 31001), true);
    assert.ok(c.serves('source.t', [cp(0, 1)], 31001));
  });

  it('keeps only the ends of the topic it is given', function () {
    const c = new LogEndCache(60000);
    c.put('source.t', [...ends(5), { topic: 'x', partition: 0, offset: 9n }], 0);
    assert.deepEqual(c.serves('source.t', [cp(0, 5)], 0), ends(5));
  });
});
