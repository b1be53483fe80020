'use strict';
const assert = require('node:assert/strict');
const { createReplicationPolicy, javaSplit, DEFAULT_SEPARATOR, HEARTBEATS_TOPIC } = require('../../dist/core/replication-policy');
const { ConfigError } = require('../../dist/core/errors');

const configError = (property) => (e) => {
  assert.ok(e instanceof ConfigError, `expected ConfigError, got ${e && e.name}: ${e && e.message}`);
  assert.ok(e.message.includes(property), `message "${e.message}" should name ${property}`);
  assert.equal(e.problems[0].property, property);
  return true;
};

describe('javaSplit (Java String.split with a literal separator)', () => {
  it('drops trailing empty strings and keeps a leading one', () => {
    assert.deepEqual(javaSplit('a.b.c', '.'), ['a', 'b', 'c']);
    assert.deepEqual(javaSplit('.foo', '.'), ['', 'foo']);
    assert.deepEqual(javaSplit('foo.', '.'), ['foo']);
    assert.deepEqual(javaSplit('foo...', '.'), ['foo']);
    assert.deepEqual(javaSplit('a..b', '.'), ['a', '', 'b']);
    assert.deepEqual(javaSplit('.', '.'), []);
    assert.deepEqual(javaSplit('..', '.'), []);
    assert.deepEqual(javaSplit('', '.'), ['']);
    assert.deepEqual(javaSplit('abc', '.'), ['abc']);
  });
  it('treats the separator literally (no regex) and matches left to right', () => {
    assert.deepEqual(javaSplit('a___b', '__'), ['a', '_b']);
    assert.deepEqual(javaSplit('__x', '__'), ['', 'x']);
    assert.deepEqual(javaSplit('a____b', '__'), ['a', '', 'b']);
    assert.deepEqual(javaSplit('axb', '.'), ['axb']);
    assert.deepEqual(javaSplit('a|b', '|'), ['a', 'b']);
    assert.deepEqual(javaSplit('a*b+c', '*'), ['a', 'b+c']);
  });
});

describe('DefaultReplicationPolicy', () => {
  const p = createReplicationPolicy({});

  it('has the defaults', () => {
    assert.equal(p.kind, 'default');
    assert.equal(p.separator, '.');
    assert.equal(DEFAULT_SEPARATOR, '.');
    assert.equal(p.internalSeparator, '.');
    assert.equal(p.sourceClusterAlias, null);
    assert.equal(p.heartbeatsTopic(), 'heartbeats');
    assert.equal(HEARTBEATS_TOPIC, 'heartbeats');
    assert.deepEqual(createReplicationPolicy().separator, '.');
  });

  it('formats remote topics as alias + sep + topic', () => {
    assert.equal(p.formatRemoteTopic('us-west', 'orders'), 'us-west.orders');
    assert.equal(p.formatRemoteTopic('b', 'a.t'), 'b.a.t');
  });

  it('names the internal topics (ReplicationPolicy internal topic names)', () => {
    assert.equal(p.offsetSyncsTopic('us-east'), 'mm2-offset-syncs.us-east.internal');
    assert.equal(p.checkpointsTopic('us-west'), 'us-west.checkpoints.internal');
  });

  // DefaultReplicationPolicy edge-case table, verified upstream
  /** @type {Array<[string, string | null, string | null, string, boolean, boolean]>} */
  const table = [
    // topic, topicSource, upstreamTopic, originalTopic, isHeartbeats, isInternal
    ['a.b.c', 'a', 'b.c', 'c', false, false],
    ['.foo', '', 'foo', 'foo', false, true],
    ['foo.', null, null, 'foo.', false, false],
    ['a..b', 'a', '.b', 'b', false, false],
    ['.', null, null, '.', false, true],
    ['', null, null, '', false, false],
    ['heartbeats', null, null, 'heartbeats', true, false],
    ['x.heartbeats', 'x', 'heartbeats', 'heartbeats', true, false],
    ['source.checkpoints.internal', 'source', 'checkpoints.internal', 'internal', false, true],
  ];
  for (const [topic, src, up, orig, hb, internal] of table) {
    it(`DefaultReplicationPolicy table: ${JSON.stringify(topic)}`, () => {
      assert.equal(p.topicSource(topic), src);
      assert.equal(p.upstreamTopic(topic), up);
      assert.equal(p.originalTopic(topic), orig);
      assert.equal(p.isHeartbeatsTopic(topic), hb);
      assert.equal(p.isInternalTopic(topic), internal);
    });
  }

  it('isCheckpointsTopic needs the leading separator', () => {
    assert.equal(p.isCheckpointsTopic('source.checkpoints.internal'), true);
    assert.equal(p.isCheckpointsTopic('source1.checkpoints.internal'), true);
    for (const t of ['checkpoints.internal', 'checkpoints-internal', 'checkpoints.internal!', '!checkpoints.internal', 'source1checkpointsinternal']) {
      assert.equal(p.isCheckpointsTopic(t), false, t);
    }
  });

  it('isHeartbeatsTopic (ReplicationPolicyTest, MirrorClientTest)', () => {
    for (const t of ['heartbeats', 'source1.heartbeats', 'source2.source1.heartbeats']) assert.equal(p.isHeartbeatsTopic(t), true, t);
    for (const t of ['heartbeats!', '!heartbeats', 'source1heartbeats', 'source1-heartbeats']) assert.equal(p.isHeartbeatsTopic(t), false, t);
  });

  it('isInternalTopic (ReplicationPolicyTest, MirrorClientTest)', () => {
    for (const t of ['__consumer_offsets', '.hiddentopic', 'mm2-offsets.CLUSTER.internal', 'mm2-offsets-CLUSTER-internal']) {
      assert.equal(p.isInternalTopic(t), true, t);
    }
    assert.equal(p.isInternalTopic('mm2-offsets_CLUSTER_internal'), false);
    assert.equal(p.isInternalTopic('orders'), false);
  });

  it('isMM2InternalTopic is a suffix test on isep + internal', () => {
    assert.equal(p.isMM2InternalTopic('mm2-offset-syncs.x.internal'), true);
    assert.equal(p.isMM2InternalTopic('x.internal'), true);
    assert.equal(p.isMM2InternalTopic('x-internal'), false);
    assert.equal(p.isMM2InternalTopic('internal'), false);
  });

  it('multi-hop names resolve hop by hop', () => {
    assert.equal(p.topicSource('c.b.a.t'), 'c');
    assert.equal(p.upstreamTopic('c.b.a.t'), 'b.a.t');
    assert.equal(p.originalTopic('c.b.a.t'), 't');
    assert.equal(p.originalTopic('plain'), 'plain');
  });
});

describe('DefaultReplicationPolicy with separator "__"', () => {
  const p = createReplicationPolicy({ 'replication.policy.separator': '__' });

  it('splits literally on "__"', () => {
    assert.equal(p.topicSource('a___b'), 'a');
    assert.equal(p.upstreamTopic('a___b'), '_b');
    assert.equal(p.topicSource('__x'), '');
    assert.equal(p.upstreamTopic('__x'), 'x');
    assert.equal(p.topicSource('a.b'), null);
    assert.equal(p.topicSource('x__'), null);
    assert.equal(p.originalTopic('c__b__t'), 't');
    assert.equal(p.formatRemoteTopic('src', 't'), 'src__t');
  });

  it('internal separator enabled (default) uses "__" in internal names', () => {
    assert.equal(p.internalSeparator, '__');
    assert.equal(p.offsetSyncsTopic('CLUSTER'), 'mm2-offset-syncs__CLUSTER__internal');
    assert.equal(p.checkpointsTopic('CLUSTER'), 'CLUSTER__checkpoints__internal');
    assert.equal(p.heartbeatsTopic(), 'heartbeats');
    assert.equal(p.isCheckpointsTopic('CLUSTER__checkpoints__internal'), true);
    assert.equal(p.isCheckpointsTopic('CLUSTER.checkpoints.internal'), false);
    assert.equal(p.isMM2InternalTopic('mm2-offset-syncs__CLUSTER__internal'), true);
  });

  it('internal separator disabled uses "." in internal names', () => {
    for (const flag of [false, 'false', 'FALSE']) {
      const q = createReplicationPolicy({ 'replication.policy.separator': '__', 'replication.policy.internal.topic.separator.enabled': flag });
      assert.equal(q.separator, '__');
      assert.equal(q.internalSeparator, '.');
      assert.equal(q.offsetSyncsTopic('CLUSTER'), 'mm2-offset-syncs.CLUSTER.internal');
      assert.equal(q.checkpointsTopic('CLUSTER'), 'CLUSTER.checkpoints.internal');
      assert.equal(q.heartbeatsTopic(), 'heartbeats');
      assert.equal(q.formatRemoteTopic('a', 't'), 'a__t');
    }
    const on = createReplicationPolicy({ 'replication.policy.separator': '__', 'replication.policy.internal.topic.separator.enabled': 'true' });
    assert.equal(on.internalSeparator, '__');
  });

  it('the internal flag is ignored when the separator is not explicitly set (ReplicationPolicy internal topic names)', () => {
    const q = createReplicationPolicy({ 'replication.policy.internal.topic.separator.enabled': false });
    assert.equal(q.internalSeparator, '.');
    const r = createReplicationPolicy({ 'replication.policy.internal.topic.separator.enabled': 'not-a-boolean' });
    assert.equal(r.separator, '.');
    // explicit "." with the flag off: same names either way
    const s = createReplicationPolicy({ 'replication.policy.separator': '.', 'replication.policy.internal.topic.separator.enabled': false });
    assert.equal(s.checkpointsTopic('X'), 'X.checkpoints.internal');
  });

  it('separator "_": us-west.heartbeats is not a heartbeats topic', () => {
    const q = createReplicationPolicy({ 'replication.policy.separator': '_' });
    assert.equal(q.isHeartbeatsTopic('us-west.heartbeats'), false);
    assert.equal(q.isHeartbeatsTopic('us-west_heartbeats'), true);
    assert.equal(q.isHeartbeatsTopic('heartbeats'), true);
  });
});

describe('IdentityReplicationPolicy (IdentityReplicationPolicy)', () => {
  const p = createReplicationPolicy({ 'replication.policy.class': 'IdentityReplicationPolicy', 'source.cluster.alias': 'primary' });

  it('is identity', () => {
    assert.equal(p.kind, 'identity');
    assert.equal(p.sourceClusterAlias, 'primary');
  });

  it('IdentityReplicationPolicy table with alias primary', () => {
    assert.equal(p.formatRemoteTopic('primary', 'topic1'), 'topic1');
    assert.equal(p.topicSource('topic1'), 'primary');
    assert.equal(p.upstreamTopic('topic1'), 'topic1');
    assert.equal(p.originalTopic('topic1'), 'topic1');
    assert.equal(p.formatRemoteTopic('primary', 'heartbeats'), 'primary.heartbeats');
    assert.equal(p.topicSource('heartbeats'), null);
    assert.equal(p.topicSource('backup.heartbeats'), 'backup');
    assert.equal(p.upstreamTopic('backup.heartbeats'), 'heartbeats');
    assert.equal(p.formatRemoteTopic('primary', 'myheartbeats'), 'primary.myheartbeats');
    assert.equal(p.topicSource('myheartbeats'), null);
    assert.equal(p.formatRemoteTopic('backup', 'heartbeats'), 'backup.heartbeats');
  });

  it('originalTopic: plain topics are themselves, heartbeats follow Default', () => {
    assert.equal(p.originalTopic('a.b.c'), 'a.b.c');
    assert.equal(p.originalTopic('b.a.heartbeats'), 'heartbeats');
    assert.equal(p.isHeartbeatsTopic('b.a.heartbeats'), true);
    assert.equal(p.isHeartbeatsTopic('x.myheartbeats'), false);
  });

  it('internal topic names are the same as Default', () => {
    assert.equal(p.offsetSyncsTopic('b'), 'mm2-offset-syncs.b.internal');
    assert.equal(p.checkpointsTopic('primary'), 'primary.checkpoints.internal');
    assert.equal(p.heartbeatsTopic(), 'heartbeats');
    assert.equal(p.isInternalTopic('__consumer_offsets'), true);
  });

  it('without source.cluster.alias, topicSource of a plain topic is null', () => {
    const q = createReplicationPolicy({ 'replication.policy.class': 'Identity' });
    assert.equal(q.sourceClusterAlias, null);
    assert.equal(q.topicSource('topic1'), null);
    assert.equal(q.upstreamTopic('topic1'), 'topic1');
    assert.equal(q.topicSource('backup.heartbeats'), 'backup');
  });

  it('honours a custom separator for heartbeats', () => {
    const q = createReplicationPolicy({ 'replication.policy.class': 'identity', 'replication.policy.separator': '__', 'source.cluster.alias': 'p' });
    assert.equal(q.formatRemoteTopic('p', 'heartbeats'), 'p__heartbeats');
    assert.equal(q.topicSource('b__heartbeats'), 'b');
    assert.equal(q.checkpointsTopic('p'), 'p__checkpoints__internal');
  });
});

describe('createReplicationPolicy: configuration', () => {
  it('accepts every spelling of the two classes', () => {
    const cases = {
      default: ['DefaultReplicationPolicy', 'org.apache.kafka.connect.mirror.DefaultReplicationPolicy', 'Default', 'default', 'DEFAULT', ' Default ', undefined, null],
      identity: ['IdentityReplicationPolicy', 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy', 'Identity', 'identity', 'IDENTITY'],
    };
    for (const [kind, values] of Object.entries(cases)) {
      for (const v of values) assert.equal(createReplicationPolicy({ 'replication.policy.class': v }).kind, kind, String(v));
    }
  });

  it('rejects any other class with a ConfigError naming replication.policy.class', () => {
    for (const v of ['LegacyReplicationPolicy', 'org.apache.kafka.connect.mirror.Foo', 'org.apache.kafka.connect.mirror.defaultreplicationpolicy', '', 42, {}]) {
      assert.throws(() => createReplicationPolicy({ 'replication.policy.class': v }), configError('replication.policy.class'));
    }
  });

  it('rejects an empty or non-string separator', () => {
    assert.throws(() => createReplicationPolicy({ 'replication.policy.separator': '' }), configError('replication.policy.separator'));
    assert.throws(() => createReplicationPolicy({ 'replication.policy.separator': 5 }), configError('replication.policy.separator'));
  });

  it('an undefined or null separator counts as absent (so the internal flag is not read)', () => {
    for (const sep of [undefined, null]) {
      const p = createReplicationPolicy({ 'replication.policy.separator': sep, 'replication.policy.internal.topic.separator.enabled': 'junk' });
      assert.equal(p.separator, '.');
      assert.equal(p.internalSeparator, '.');
    }
  });

  it('an undefined or null internal flag counts as absent (default true)', () => {
    for (const flag of [undefined, null]) {
      const p = createReplicationPolicy({ 'replication.policy.separator': '_', 'replication.policy.internal.topic.separator.enabled': flag });
      assert.equal(p.internalSeparator, '_');
    }
  });

  it('rejects a non-boolean internal separator flag when the separator is set', () => {
    for (const v of ['yes', '', 1, {}]) {
      assert.throws(
        () => createReplicationPolicy({ 'replication.policy.separator': '_', 'replication.policy.internal.topic.separator.enabled': v }),
        configError('replication.policy.internal.topic.separator.enabled'),
      );
    }
  });

  it('rejects a non-string source.cluster.alias for Identity', () => {
    assert.throws(() => createReplicationPolicy({ 'replication.policy.class': 'Identity', 'source.cluster.alias': 7 }), configError('source.cluster.alias'));
  });

  it('ignores unrelated properties', () => {
    const p = createReplicationPolicy({ 'topics': 'x', 'source.cluster.alias': 'a' });
    assert.equal(p.kind, 'default');
    assert.equal(p.topicSource('topic1'), null);
  });
});
