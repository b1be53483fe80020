'use strict';
/** core/mirror-positions: the mirror's restart points, commits and lag, and its longest wait, without a broker. */
const assert = require('node:assert/strict');
const { SourcePositions, oldestOutstanding, tpKey } = require('../../dist/core/mirror-positions');

describe('core/mirror-positions', function () {
  it('an acknowledgement sets the restart point after the last record and the lag behind the high watermark', function () {
    const p = new SourcePositions();
    p.acknowledged('orders', 0, '41', '100');
    p.acknowledged('orders', 1, '9', '5'); // a watermark read before the records: never a negative lag
    assert.deepEqual([...p.nextByPartition()], [[tpKey('orders', 0), 42n], [tpKey('orders', 1), 10n]]);
    assert.deepEqual(p.lagBySourcePartition(), { 'orders-0': 58, 'orders-1': 0 });
  });

  it('dirty lists what is not committed yet; a commit clears it until the next acknowledgement', function () {
    const p = new SourcePositions();
    p.acknowledged('t', 0, '4', '5');
    p.acknowledged('t', 1, '7', '8');
    assert.deepEqual(p.dirty(), [{ topic: 't', partition: 0, next: 5n }, { topic: 't', partition: 1, next: 8n }]);
    p.markCommitted(p.dirty());
    assert.deepEqual(p.dirty(), []);
    assert.equal(p.committedPartitions, 2);
    p.acknowledged('t', 1, '9', '10');
    assert.deepEqual(p.dirty(), [{ topic: 't', partition: 1, next: 10n }]);
  });

  it('forgets the progress of topics no longer subscribed, and of partitions now assigned to another member', function () {
    const p = new SourcePositions();
    p.acknowledged('a', 0, '1', '2');
    p.acknowledged('a', 1, '1', '2');
    p.acknowledged('b', 0, '1', '2');
    p.keepTopics(new Map([['a', 2]]));
    assert.deepEqual([...p.nextByPartition().keys()], ['a-0', 'a-1']);
    assert.deepEqual(Object.keys(p.lagBySourcePartition()), ['a-0', 'a-1']);
    p.keepAssigned({ a: [1] });
    assert.deepEqual([...p.nextByPartition().keys()], ['a-1']);
  });

  it('oldestOutstanding: the older of an unacknowledged send and an unanswered probe; null when nothing waits', function () {
    assert.equal(oldestOutstanding([], []), null);
    assert.deepEqual(oldestOutstanding([300, 200], [['source', 250]]), { kind: 'ack', cluster: 'target', since: 200 });
    assert.deepEqual(oldestOutstanding([300], [['target', 400], ['source', 100]]), { kind: 'answer', cluster: 'source', since: 100 });
  });
});
