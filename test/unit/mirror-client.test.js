'use strict';
const assert = require('node:assert/strict');
const mc = require('../../dist/core/mirror-client');
const { createReplicationPolicy } = require('../../dist/core/replication-policy');

const def = createReplicationPolicy({});
const identity = (alias) => createReplicationPolicy({ 'replication.policy.class': 'Identity', 'source.cluster.alias': alias });
const sorted = (a) => [...a].sort();

describe('mirror-client helpers (MirrorClient, ReplicationPolicyTest, MirrorClientTest)', () => {
  it('heartbeatTopics', () => {
    const topics = ['topic1', 'topic2', 'heartbeats', 'source1.heartbeats', 'source2.source1.heartbeats', 'source3.heartbeats'];
    assert.deepEqual(mc.heartbeatTopics(def, topics), ['heartbeats', 'source1.heartbeats', 'source2.source1.heartbeats', 'source3.heartbeats']);
  });

  it('checkpointTopics', () => {
    const topics = ['topic1', 'topic2', 'checkpoints.internal', 'source1.checkpoints.internal', 'source2.source1.checkpoints.internal', 'source3.checkpoints.internal'];
    assert.deepEqual(mc.checkpointTopics(def, topics), ['source1.checkpoints.internal', 'source2.source1.checkpoints.internal', 'source3.checkpoints.internal']);
  });

  it('countHopsForTopic', () => {
    /** @type {Array<[string, string, number]>} */
    const cases = [
      ['topic', 'source', -1], ['source', 'source', -1], ['sourcetopic', 'source', -1],
      ['source1.topic', 'source2', -1], ['source1.topic', 'source1', 1],
      ['source2.source1.topic', 'source2', 1], ['source2.source1.topic', 'source1', 2],
      ['source3.source2.source1.topic', 'source1', 3], ['source3.source2.source1.topic', 'source4', -1],
    ];
    for (const [topic, alias, hops] of cases) assert.equal(mc.countHopsForTopic(def, topic, alias), hops, `${topic} ${alias}`);
  });

  it('countHopsForTopic stops on a repeated alias (Identity cannot see cycles)', () => {
    assert.equal(mc.countHopsForTopic(identity('a'), 'topic', 'b'), -1);
    assert.equal(mc.countHopsForTopic(identity('a'), 'topic', 'a'), 1);
    assert.equal(mc.countHopsForTopic(def, 'a.b.a.t', 'c'), -1);
    assert.equal(mc.countHopsForTopic(def, 'a.b.a.t', 'b'), 2);
  });

  it('replicationHops', () => {
    const topics = ['topic1', 'topic2', 'heartbeats', 'source1.heartbeats', 'source1.source2.heartbeats', 'source3.heartbeats'];
    assert.equal(mc.replicationHops(def, topics, 'source1'), 1);
    assert.equal(mc.replicationHops(def, topics, 'source2'), 2);
    assert.equal(mc.replicationHops(def, topics, 'source3'), 1);
    assert.equal(mc.replicationHops(def, topics, 'source4'), -1);
    assert.equal(mc.replicationHops(def, [], 'source1'), -1);
    assert.equal(mc.replicationHops(def, ['b.a.heartbeats', 'a.heartbeats'], 'a'), 1);
  });

  it('upstreamClusters (Default)', () => {
    const topics = ['topic1', 'topic2', 'heartbeats', 'source1.heartbeats', 'source1.source2.heartbeats', 'source3.source4.source5.heartbeats'];
    const s = mc.upstreamClusters(def, topics);
    assert.deepEqual(sorted(s), ['source1', 'source2', 'source3', 'source4', 'source5']);
    assert.ok(!s.includes(''));
    assert.ok(!s.includes(null));
    assert.ok(!s.includes('sourceX'));
  });

  it('upstreamClusters (Identity) gives exactly the same five', () => {
    const topics = ['topic1', 'topic2', 'heartbeats', 'source1.heartbeats', 'source1.source2.heartbeats', 'source3.source4.source5.heartbeats'];
    const s = mc.upstreamClusters(identity('source'), topics);
    assert.deepEqual(sorted(s), ['source1', 'source2', 'source3', 'source4', 'source5']);
    assert.equal(s.length, 5);
  });

  it('upstreamClusters stops at a repeated alias', () => {
    assert.deepEqual(sorted(mc.upstreamClusters(def, ['a.b.a.heartbeats'])), ['a', 'b']);
  });

  it('remoteTopics (Default)', () => {
    const topics = ['topic1', 'topic2', 'topic3', 'source1.topic4', 'source1.source2.topic5', 'source3.source4.source5.topic6', 'source1.checkpoints.internal', '__consumer_offsets'];
    assert.deepEqual(mc.remoteTopics(def, topics), ['source1.topic4', 'source1.source2.topic5', 'source3.source4.source5.topic6']);
  });

  it('remoteTopics (Identity): plain topics count, heartbeats does not, backup.heartbeats does', () => {
    const topics = ['topic1', 'topic2', 'topic3', 'heartbeats', 'backup.heartbeats'];
    assert.deepEqual(mc.remoteTopics(identity('source'), topics), ['topic1', 'topic2', 'topic3', 'backup.heartbeats']);
  });

  it('remoteTopics with separator "__"', () => {
    const p = createReplicationPolicy({ 'replication.policy.separator': '__' });
    const topics = ['topic1', 'topic2', 'topic3', 'source1__topic4', 'source1__source2__topic5', 'source3__source4__source5__topic6', 'source1.topic7'];
    assert.deepEqual(mc.remoteTopics(p, topics), ['source1__topic4', 'source1__source2__topic5', 'source3__source4__source5__topic6']);
  });

  it('results have no duplicates and accept any iterable', () => {
    assert.deepEqual(mc.heartbeatTopics(def, new Set(['heartbeats', 'a.heartbeats'])), ['heartbeats', 'a.heartbeats']);
    assert.deepEqual(mc.remoteTopics(def, ['a.t', 'a.t']), ['a.t']);
  });
});
