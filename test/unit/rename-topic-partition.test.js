'use strict';

const assert = require('node:assert/strict');
const { renameTopicPartition } = require('../../dist/core/rename-topic-partition');

/** A tiny DefaultReplicationPolicy look-alike with separator '.'. */
function fakeDefaultPolicy() {
  const topicSource = (t) => {
    const i = t.indexOf('.');
    return i < 0 || i === t.length - 1 ? null : t.slice(0, i);
  };
  const upstreamTopic = (t) => (topicSource(t) === null ? null : t.slice(t.indexOf('.') + 1));
  return {
    formatRemoteTopic: (alias, t) => `${alias}.${t}`,
    topicSource,
    originalTopic: (t) => {
      let cur = t;
      for (let up = upstreamTopic(cur); up !== null && up !== cur; up = upstreamTopic(cur)) cur = up;
      return cur;
    },
  };
}

/** A tiny IdentityReplicationPolicy look-alike (source.cluster.alias = `alias`). */
function fakeIdentityPolicy(alias) {
  const d = fakeDefaultPolicy();
  const isHb = (t) => d.originalTopic(t) === 'heartbeats';
  return {
    formatRemoteTopic: (a, t) => (isHb(t) ? d.formatRemoteTopic(a, t) : t),
    topicSource: (t) => (isHb(t) ? d.topicSource(t) : alias),
    originalTopic: (t) => (isHb(t) ? d.originalTopic(t) : t),
  };
}

describe('renameTopicPartition (MirrorCheckpointTask.renameTopicPartition)', function () {
  const policy = fakeDefaultPolicy();

  it('prefixes a local source topic with the source alias', function () {
    assert.deepEqual(renameTopicPartition(policy, 'source1', 'target2', 'topic3', 4), { topic: 'source1.topic3', partition: 4 });
  });

  it('maps a topic that came from the target back to its original name', function () {
    assert.deepEqual(renameTopicPartition(policy, 'source1', 'target2', 'target2.topic3', 5), { topic: 'topic3', partition: 5 });
  });

  it('prefixes a topic from a third cluster again', function () {
    assert.deepEqual(renameTopicPartition(policy, 'source1', 'target2', 'source6.topic7', 8), {
      topic: 'source1.source6.topic7',
      partition: 8,
    });
  });

  it('uses originalTopic, which strips every hop, for a multi-hop topic from the target', function () {
    assert.deepEqual(renameTopicPartition(policy, 'source1', 'target2', 'target2.other.topic9', 0), { topic: 'topic9', partition: 0 });
  });

  it('keeps plain topic names under an identity policy, and renames heartbeats', function () {
    const identity = fakeIdentityPolicy('source1');
    assert.deepEqual(renameTopicPartition(identity, 'source1', 'target2', 'topic3', 1), { topic: 'topic3', partition: 1 });
    assert.deepEqual(renameTopicPartition(identity, 'source1', 'target2', 'heartbeats', 0), {
      topic: 'source1.heartbeats',
      partition: 0,
    });
  });
});
