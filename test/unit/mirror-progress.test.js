'use strict';
/** core/mirror-progress: the flow's group, and where it starts after the per-node groups of earlier builds. */
const assert = require('node:assert/strict');
const { mirrorGroupId, isLegacyMirrorGroup, legacyResumePoints } = require('../../dist/core/mirror-progress');
const { claimMirror, mirrorClaimKey } = require('../../dist/nodes/mm2-mirror/mm2-mirror-claims');

describe('mirror progress (core/mirror-progress)', function () {
  it('the group is the replication flow, not the node: a copied or re-imported node resumes', function () {
    assert.equal(mirrorGroupId('source', 'target'), '__mm2-node-red-mirror.source-target');
    assert.equal(mirrorGroupId('east', 'west'), '__mm2-node-red-mirror.east-west');
  });

  it('knows the per-node groups of earlier builds of the same flow only', function () {
    assert.equal(isLegacyMirrorGroup('__mm2-node-red-mirror.source-target.a1b2c3d4e5f60718', 'source', 'target'), true);
    assert.equal(isLegacyMirrorGroup('__mm2-node-red-mirror.source-target.m', 'source', 'target'), true);
    assert.equal(isLegacyMirrorGroup('__mm2-node-red-mirror.source-target', 'source', 'target'), false, 'the flow group itself');
    assert.equal(isLegacyMirrorGroup('__mm2-node-red-mirror.source-target.', 'source', 'target'), false, 'no node id');
    assert.equal(isLegacyMirrorGroup('__mm2-node-red-mirror.source-targetx.m', 'source', 'target'), false);
    assert.equal(isLegacyMirrorGroup('__mm2-node-red-mirror.target-source.m', 'source', 'target'), false, 'the other direction');
  });

  it('resumes a partition without progress at the highest commit of the old groups, ignoring no-commit (-1) and partitions not asked', function () {
    const missing = [{ topic: 'orders', partition: 0 }, { topic: 'orders', partition: 1 }, { topic: 'billing', partition: 0 }, { topic: 'fresh', partition: 0 }];
    const original = [
      { topic: 'orders', partition: 0, offset: 14232n },
      { topic: 'orders', partition: 1, offset: 900n },
      { topic: 'orders', partition: 2, offset: 7n }, // the flow's group has a commit there already
    ];
    const copy = [
      { topic: 'orders', partition: 0, offset: 3000n }, // a copy that started over and is behind
      { topic: 'orders', partition: 1, offset: 1200n },
      { topic: 'billing', partition: 0, offset: -1n },
    ];
    assert.deepEqual(legacyResumePoints(missing, [original, copy]), [
      { topic: 'orders', partition: 0, offset: 14232n },
      { topic: 'orders', partition: 1, offset: 1200n },
    ]);
    assert.deepEqual(legacyResumePoints(missing, []), []);
    assert.deepEqual(legacyResumePoints([], [original]), []);
  });
});

describe('one mirror node per replication flow in a Node-RED (nodes/mm2-mirror/mm2-mirror-claims)', function () {
  const who = (id) => ({ id, name: `n-${id}`, flow: 'Flow 1' });

  it('the first claimant starts, the others wait told who holds it; the first in line takes over on release', function () {
    const key = mirrorClaimKey('__mm2-node-red-mirror.s-t', ['b:9092', 'A:9092']);
    const log = [];
    const claim = (id) => claimMirror(key, who(id), () => log.push(`${id} starts`), (h) => log.push(`${id} waits for ${h.id}`));
    const a = claim('a');
    const b = claim('b');
    const c = claim('c');
    assert.deepEqual(log, ['a starts', 'b waits for a', 'c waits for a']);
    assert.equal(a.holding, true);
    assert.equal(b.holding, false);
    log.length = 0;
    c.release(); // a waiting node leaving changes nothing for the others
    assert.deepEqual(log, []);
    a.release();
    assert.deepEqual(log, ['b starts']);
    assert.equal(b.holding, true);
    a.release(); // twice: nothing
    assert.deepEqual(log, ['b starts']);
    b.release();
    log.length = 0;
    const d = claim('d');
    assert.deepEqual(log, ['d starts'], 'free again once everybody left');
    d.release();
  });

  it('the key is the group on the source cluster: the same aliases on another cluster are another flow', function () {
    assert.equal(mirrorClaimKey('g', ['b:1', 'a:1']), mirrorClaimKey('g', ['A:1', ' b:1']));
    assert.notEqual(mirrorClaimKey('g', ['a:1']), mirrorClaimKey('g', ['a:2']));
    const log = [];
    const x = claimMirror(mirrorClaimKey('g', ['a:1']), who('x'), () => log.push('x starts'), () => log.push('x waits'));
    const y = claimMirror(mirrorClaimKey('g', ['a:2']), who('y'), () => log.push('y starts'), () => log.push('y waits'));
    assert.deepEqual(log, ['x starts', 'y starts']);
    x.release();
    y.release();
  });
});
