'use strict';
const assert = require('node:assert/strict');
const { partitionKey, internName, flatten } = require('../../dist/core/partition-key');

describe('partition keys and shared names (core/partition-key)', function () {
  it('keys read partition:topic, the same for the same partition, distinct otherwise', function () {
    assert.equal(partitionKey('orders', 3), '3:orders');
    assert.equal(partitionKey('orders', 3), partitionKey('orders', 3));
    assert.notEqual(partitionKey('orders', 3), partitionKey('orders', 30));
    assert.notEqual(partitionKey('a:1', 2), partitionKey('a', 1)); // '2:a:1' vs '1:a'
  });

  it('names and flattened strings keep their value', function () {
    const t = 'source';
    const built = `${t}.${'orders'.repeat(3)}`;
    assert.equal(internName(built), 'source.ordersordersorders');
    assert.equal(internName(built), internName('source.ordersordersorders'));
    assert.equal(flatten(`checkpoint ${10n} → ${11n}`), 'checkpoint 10 → 11');
  });
});
