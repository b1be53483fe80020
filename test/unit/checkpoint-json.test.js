'use strict';
const assert = require('node:assert/strict');
const { parseCheckpointJson, checkpointToJson, parseInt64 } = require('../../dist/core/checkpoint-json');

describe('checkpoint-json', function () {
  it('parses a message entry, offsets as decimal strings, and round-trips', function () {
    const e = { group: 'g', topic: 'source.t', partition: 3, upstreamOffset: '9223372036854775807', downstreamOffset: '201', metadata: 'm' };
    const cp = parseCheckpointJson(e, 'g');
    assert.deepEqual(cp, { group: 'g', topic: 'source.t', partition: 3, upstreamOffset: 9223372036854775807n, downstreamOffset: 201n, metadata: 'm' });
    assert.deepEqual(checkpointToJson(cp), e);
  });

  it('is lenient where safe: numbers, numeric-string partition, missing group/metadata/upstream', function () {
    assert.deepEqual(parseCheckpointJson({ topic: 't', partition: '2', downstreamOffset: 5 }, 'g'), {
      group: 'g', topic: 't', partition: 2, upstreamOffset: -1n, downstreamOffset: 5n, metadata: '',
    });
  });

  it('rejects what would write a wrong offset', function () {
    const ok = { group: 'g', topic: 't', partition: 0, upstreamOffset: '1', downstreamOffset: '1', metadata: '' };
    assert.ok(parseCheckpointJson(ok, 'g'));
    for (const [what, bad] of /** @type {Array<[string, object]>} */ ([
      ['negative downstream', { ...ok, downstreamOffset: '-1' }],
      ['downstream beyond int64', { ...ok, downstreamOffset: '9223372036854775808' }],
      ['fractional downstream', { ...ok, downstreamOffset: '1.5' }],
      ['unsafe number', { ...ok, downstreamOffset: 2 ** 60 }],
      ['missing downstream', { ...ok, downstreamOffset: undefined }],
      ['negative partition', { ...ok, partition: -1 }],
      ['empty topic', { ...ok, topic: '' }],
      ['group differs from its key', { ...ok, group: 'other' }],
      ['bad upstream', { ...ok, upstreamOffset: 'x' }],
    ])) {
      assert.equal(parseCheckpointJson(bad, 'g'), null, what);
    }
    assert.equal(parseCheckpointJson(null), null);
    assert.equal(parseCheckpointJson([ok]), null);
    assert.equal(parseCheckpointJson({ ...ok, group: undefined }), null, 'no group and no key');
  });

  it('parseInt64 bounds', function () {
    assert.equal(parseInt64('-9223372036854775808'), -(2n ** 63n));
    assert.equal(parseInt64(' 42 '), 42n);
    assert.equal(parseInt64('1e3'), null);
    assert.equal(parseInt64(true), null);
  });
});
