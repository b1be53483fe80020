'use strict';
/**
 * Group discovery in a Node-RED whose checkpoint node is a member of its flow's sharing group
 * (issue 24, profiled in Node-RED): while the instance owns every group (alone in the sharing
 * group), the discovery gives back its last answer as it does without shares; while it owns a
 * part, or when its share changed during the discovery that made the answer, it discovers again.
 */
const assert = require('node:assert/strict');
const { CheckpointDiscovery } = require('../../dist/engines/checkpoint-discovery');
const { Shares, consumerOffsetsPartitionFor } = require('../../dist/core/group-ownership');
const { createGroupFilter } = require('../../dist/core/filters');

function discovery(shares, onRead = () => undefined) {
  const ids = Object.freeze(['g1', 'g2', 'g3']);
  const topics = new Map([['g1', ['t']], ['g2', ['t']], ['g3', ['u']]]);
  let reads = 0;
  const d = new CheckpointDiscovery(/** @type {any} */ ({
    source: { admin: async () => ({}) },
    groupFilter: createGroupFilter({}),
    topicFilter: { accept: (t) => t === 't' },
    shares,
    listing: { listIds: async () => ids, others: () => [] },
    fullReads: { fresh: () => true, forDiscovery: async () => ((reads += 1), onRead(), { topics, failed: new Map() }), invalidate: () => undefined },
    sourceOffsets: { shape: 1, followPartitions: async () => false },
    othersOfFlow: { of: async (names) => names.filter((g) => g !== 'g3') },
  }));
  return { d, reads: () => reads };
}

/** A GroupOwner over a Shares of 4 partitions (what replication-shares answers for a member). */
function owner(partitions) {
  const o = {
    shares: new Shares(partitions, 4),
    ready: async () => undefined,
    owns: (g) => o.shares.owns(g),
    ownsEvery: () => o.shares.every,
    offsetsPartitions: () => null,
  };
  return o;
}

describe('group discovery of a sharing-group member (engines/checkpoint-discovery, issue 24)', function () {
  it('Shares: every partition owned owns every group (no hash), a part owns the groups of its partitions', function () {
    const all = Shares.all(4);
    assert.equal(all.every, true);
    assert.equal(new Shares([0, 1, 2], 4).every, false);
    assert.equal(Shares.none(4).every, false);
    for (const g of ['g1', 'g2', 'g3', 'orders', '']) {
      assert.equal(all.owns(g), true);
      const p = consumerOffsetsPartitionFor(g, 4);
      assert.equal(new Shares([p], 4).owns(g), true);
      assert.equal(new Shares([(p + 1) % 4], 4).owns(g), false);
    }
  });

  it('owning every group: the last answer while nothing changed, as without shares', async function () {
    const o = owner([0, 1, 2, 3]);
    const { d, reads } = discovery(o);
    const a = await d.run();
    assert.deepEqual(a.result.groups, ['g1', 'g2']);
    assert.deepEqual(a.result.elsewhere, []);
    assert.equal(a.reused, false);
    const b = await d.run();
    assert.equal(b.reused, true);
    assert.equal(b.result, a.result);
    assert.equal(reads(), 1);
  });

  it('owning a part: a discovery every time; owning every group again: a discovery first, then the last answer', async function () {
    const p1 = consumerOffsetsPartitionFor('g1', 4);
    const o = owner([p1]);
    const { d, reads } = discovery(o);
    const a = await d.run();
    assert.equal(a.reused, false);
    assert.ok(a.result.groups.includes('g1'));
    assert.equal((await d.run()).reused, false);
    assert.equal(reads(), 2);
    o.shares = Shares.all(4); // the other instance left
    const c = await d.run();
    assert.equal(c.reused, false, 'the last answer was made owning a part');
    assert.deepEqual(c.result.groups, ['g1', 'g2']);
    assert.equal((await d.run()).reused, true);
    o.shares = new Shares([p1], 4); // another instance joined: read live, before any change event
    const e = await d.run();
    assert.equal(e.reused, false);
    assert.deepEqual(e.result.groups, a.result.groups);
  });

  it('a share that changed or an invalidate() during the discovery: its answer is not kept', async function () {
    const o = owner([0, 1, 2, 3]);
    let during = () => undefined;
    const { d } = discovery(o, () => during());
    during = () => (o.shares = new Shares([0], 4));
    await d.run();
    o.shares = Shares.all(4);
    during = () => undefined;
    assert.equal((await d.run()).reused, false, 'made while the share moved');
    d.invalidate(); // the next one reads
    during = () => d.invalidate();
    assert.equal((await d.run()).reused, false);
    during = () => undefined;
    assert.equal((await d.run()).reused, false, 'invalidated while it ran');
    assert.equal((await d.run()).reused, true);
  });
});
