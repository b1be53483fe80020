'use strict';
const assert = require('node:assert/strict');
const { isCycle, shouldReplicateTopic, identityCycleFlows, clusterConflicts } = require('../../dist/core/topic-selection');
const { createReplicationPolicy } = require('../../dist/core/replication-policy');
const { createTopicFilter } = require('../../dist/core/filters');

const rejectAll = { accept: () => false };
const acceptAll = { accept: () => true };

describe('isCycle (MirrorSourceConnector.shouldReplicateTopic)', () => {
  const p = createReplicationPolicy({});
  it('non-remote topics are never cycles', () => {
    assert.equal(isCycle(p, 'target', 'topic1'), false);
    assert.equal(isCycle(p, 'target', 'target'), false);
    assert.equal(isCycle(p, 'target', 'foo.'), false);
  });
  it('detects the target alias at any hop', () => {
    assert.equal(isCycle(p, 'target', 'target.topic1'), true);
    assert.equal(isCycle(p, 'target', 'source.target.topic1'), true);
    assert.equal(isCycle(p, 'target', 'a.b.c.target.topic1'), true);
    assert.equal(isCycle(p, 'target', 'source.topic1'), false);
    assert.equal(isCycle(p, 'target', 'source.other.topic1'), false);
    assert.equal(isCycle(p, 'target', 'targets.topic1'), false);
  });
  it('stops on Identity (upstream == topic) instead of looping', () => {
    const id = createReplicationPolicy({ 'replication.policy.class': 'Identity', 'source.cluster.alias': 'source' });
    assert.equal(isCycle(id, 'target', 'target.topic1'), false);
    assert.equal(isCycle(id, 'target', 'target.heartbeats'), true);
    assert.equal(isCycle(id, 'source', 'topic1'), true); // the configured alias is the topic source
  });
});

describe('shouldReplicateTopic: source connector topic selection (ReplicationPolicyTest, MirrorClientTest, source -> target)', () => {
  describe('DefaultReplicationPolicy', () => {
    const policy = createReplicationPolicy({});
    const opts = { policy, topicFilter: acceptAll, targetAlias: 'target' };

    it('replicates heartbeats even when the filter rejects everything', () => {
      const o = { ...opts, topicFilter: rejectAll };
      assert.equal(shouldReplicateTopic(o, 'heartbeats'), true);
      assert.equal(shouldReplicateTopic(o, 'us-west.heartbeats'), true);
      assert.equal(shouldReplicateTopic(o, 'source.heartbeats'), true);
      assert.equal(shouldReplicateTopic(o, 'topic1'), false);
    });

    it('does not treat us-west.heartbeats as heartbeats under separator "_"', () => {
      const o = { policy: createReplicationPolicy({ 'replication.policy.separator': '_' }), topicFilter: rejectAll, targetAlias: 'target' };
      assert.equal(shouldReplicateTopic(o, 'us-west.heartbeats'), false);
      assert.equal(shouldReplicateTopic(o, 'heartbeats'), true);
      assert.equal(shouldReplicateTopic(o, 'us-west_heartbeats'), true);
    });

    it('heartbeats.replication.enabled=false leaves heartbeats to the filter', () => {
      const o = { ...opts, topicFilter: rejectAll, heartbeatsReplicationEnabled: false };
      assert.equal(shouldReplicateTopic(o, 'heartbeats'), false);
      assert.equal(shouldReplicateTopic(o, 'us-west.heartbeats'), false);
      assert.equal(shouldReplicateTopic({ ...opts, heartbeatsReplicationEnabled: false }, 'heartbeats'), true);
    });

    it('rejects cycles', () => {
      for (const t of ['target.topic1', 'target.source.topic1', 'source.target.topic1', 'target.source.target.topic1', 'source.target.source.topic1']) {
        assert.equal(shouldReplicateTopic(opts, t), false, t);
      }
      assert.equal(shouldReplicateTopic(opts, 'target.heartbeats'), false);
      assert.equal(shouldReplicateTopic(opts, 'source.target.heartbeats'), false);
    });

    it('allows topic1 and source.topic1', () => {
      assert.equal(shouldReplicateTopic(opts, 'topic1'), true);
      assert.equal(shouldReplicateTopic(opts, 'source.topic1'), true);
    });

    it('never replicates internal topics, even when the filter accepts them', () => {
      for (const t of ['__consumer_offsets', '.hidden', 'mm2-offset-syncs.target.internal', 'source.checkpoints.internal', 'connect-offsets-internal']) {
        assert.equal(shouldReplicateTopic(opts, t), false, t);
      }
    });

    it('works with the real default topic filter', () => {
      const o = { ...opts, topicFilter: createTopicFilter({}) };
      assert.equal(shouldReplicateTopic(o, 'orders'), true);
      assert.equal(shouldReplicateTopic(o, 'orders.replica'), false);
      const none = { ...opts, topicFilter: createTopicFilter({ topics: '' }) };
      assert.equal(shouldReplicateTopic(none, 'orders'), false);
      assert.equal(shouldReplicateTopic(none, 'heartbeats'), true);
    });
  });

  describe('IdentityReplicationPolicy', () => {
    const policy = createReplicationPolicy({ 'replication.policy.class': 'IdentityReplicationPolicy', 'source.cluster.alias': 'source' });
    const opts = { policy, topicFilter: acceptAll, targetAlias: 'target' };

    it('allows everything that only looks like a cycle by name', () => {
      for (const t of ['topic1', 'source.topic1', 'target.topic1', 'target.source.topic1', 'source.target.topic1', 'target.source.target.topic1', 'source.target.source.topic1']) {
        assert.equal(shouldReplicateTopic(opts, t), true, t);
      }
    });

    it('rejects heartbeat cycles and allows other heartbeats', () => {
      for (const t of ['target.heartbeats', 'target.source.heartbeats', 'source.target.heartbeats', 'target.source.target.heartbeats', 'source.target.source.heartbeats']) {
        assert.equal(shouldReplicateTopic(opts, t), false, t);
      }
      assert.equal(shouldReplicateTopic(opts, 'heartbeats'), true);
      assert.equal(shouldReplicateTopic(opts, 'othersource.heartbeats'), true);
      assert.equal(shouldReplicateTopic({ ...opts, topicFilter: rejectAll }, 'othersource.heartbeats'), true);
    });
  });
});

describe('active/active with IdentityReplicationPolicy (identityCycleFlows)', () => {
  const flow = (id, sourceAlias, targetAlias, identity = false) => ({ id, sourceAlias, targetAlias, identity });
  it('an opposite flow over the same two aliases is refused when either of the two uses the Identity policy', () => {
    assert.deepEqual(identityCycleFlows(flow('a', 'east', 'west', true), [flow('b', 'west', 'east')]).map((f) => f.id), ['b']);
    assert.deepEqual(identityCycleFlows(flow('a', 'east', 'west'), [flow('b', 'west', 'east', true)]).map((f) => f.id), ['b']);
  });
  it('Default on both, the same direction twice, other clusters or the flow itself are fine', () => {
    assert.deepEqual(identityCycleFlows(flow('a', 'east', 'west'), [flow('b', 'west', 'east')]), []);
    assert.deepEqual(identityCycleFlows(flow('a', 'east', 'west', true), [flow('b', 'east', 'west', true), flow('c', 'west', 'north', true), flow('a', 'west', 'east', true)]), []);
    assert.deepEqual(identityCycleFlows(flow('a', '', 'west', true), [flow('b', 'west', '', true)]), []);
  });
});

describe('flows that copy records round in circles, by cluster id (clusterConflicts)', () => {
  const flow = (id, sourceAlias, targetAlias, sourceClusterId, targetClusterId, identity = false) => ({
    id, sourceAlias, targetAlias, identity, sourceNode: `${id}-src`, targetNode: `${id}-tgt`, sourceClusterId, targetClusterId,
  });

  it('source and target one cluster under two aliases: refused, whatever the aliases', () => {
    assert.deepEqual(clusterConflicts(flow('a', 'left', 'right', 'C1', 'C1'), []), [{ kind: 'same-cluster', clusterId: 'C1' }]);
  });

  it('opposite flows over the same clusters with aliases that differ (east -> west beside west2 -> east2): a loop, also with DefaultReplicationPolicy', () => {
    const b = flow('b', 'west2', 'east2', 'W', 'E');
    assert.deepEqual(clusterConflicts(flow('a', 'east', 'west', 'E', 'W'), [b]), [{ kind: 'opposite-loop', other: b, why: 'aliases' }]);
    // one alias the same, the other not: still a loop
    const c = flow('c', 'west', 'east2', 'W', 'E');
    assert.deepEqual(clusterConflicts(flow('a', 'east', 'west', 'E', 'W'), [c]).map((x) => ('why' in x ? x.why : x.kind)), ['aliases']);
  });

  it('opposite flows with IdentityReplicationPolicy on either: a loop, even with matching aliases', () => {
    const b = flow('b', 'west', 'east', 'W', 'E');
    assert.deepEqual(clusterConflicts(flow('a', 'east', 'west', 'E', 'W', true), [b]).map((x) => ('why' in x ? x.why : x.kind)), ['identity']);
    assert.deepEqual(clusterConflicts(flow('a', 'east', 'west', 'E', 'W'), [flow('b', 'west2', 'east2', 'W', 'E', true)]).map((x) => ('why' in x ? x.why : x.kind)), ['identity']);
  });

  it("active/active as MM2 runs it (DefaultReplicationPolicy, each flow's aliases the other's reversed) is safe", () => {
    assert.deepEqual(clusterConflicts(flow('a', 'east', 'west', 'E', 'W'), [flow('b', 'west', 'east', 'W', 'E')]), []);
  });

  it('flows between other clusters, the same direction, or the flow itself do not count', () => {
    const a = flow('a', 'east', 'west', 'E', 'W', true);
    assert.deepEqual(clusterConflicts(a, [a, flow('b', 'x', 'y', 'X', 'Y', true), flow('c', 'east2', 'west2', 'E', 'W', true), flow('d', 'w', 'x', 'W', 'X', true)]), []);
  });

  it('a cluster id not known yet decides nothing', () => {
    assert.deepEqual(clusterConflicts(flow('a', 'l', 'r', '', ''), []), []);
    assert.deepEqual(clusterConflicts(flow('a', 'east', 'west', 'E', 'W'), [flow('b', 'west2', 'east2', '', 'E')]), []);
  });
});
