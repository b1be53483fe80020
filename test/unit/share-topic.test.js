'use strict';
/**
 * The polling split (issue 25, core/share-topic): the topic the instances of a flow split where the
 * checkpoint node polls, how it is chosen, and the rule that keeps members splitting different
 * topics apart (the topic is a setting they compare: `shares.topic`).
 */
const assert = require('node:assert/strict');
const { shareTopicName, chooseShareTopic, needsOffsetsTopicLook, withShareTopic, SHARE_TOPIC_PARTITIONS, SHARE_TOPIC_SETTING } = require('../../dist/core/share-topic');
const { settingsFingerprint, assignShares, settingDifferenceText, consumerOffsetsPartitionFor, Shares } = require('../../dist/core/group-ownership');
const { createReplicationPolicy } = require('../../dist/core/replication-policy');
const { ReplicationShares } = require('../../dist/engines/replication-shares');
const { shareMembershipAcls } = require('../../dist/kafka/share-membership');

describe('share topic (the polling split, core/share-topic)', function () {
  it("is named like MM2's offset-syncs topic: mm2-node-red-shares.<target>.internal, with the policy's internal separator", function () {
    assert.equal(shareTopicName(createReplicationPolicy({}), 'target'), 'mm2-node-red-shares.target.internal');
    assert.equal(createReplicationPolicy({}).offsetSyncsTopic('target'), 'mm2-offset-syncs.target.internal');
    const dash = createReplicationPolicy({ 'replication.policy.separator': '_' });
    assert.equal(shareTopicName(dash, 'dr'), dash.offsetSyncsTopic('dr').replace('mm2-offset-syncs', 'mm2-node-red-shares'));
    assert.equal(shareTopicName(dash, 'dr'), 'mm2-node-red-shares_dr_internal');
    const off = createReplicationPolicy({ 'replication.policy.separator': '_', 'replication.policy.internal.topic.separator.enabled': 'false' });
    assert.equal(shareTopicName(off, 'dr'), 'mm2-node-red-shares.dr.internal');
    const identity = createReplicationPolicy({ 'replication.policy.class': 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy', 'source.cluster.alias': 'src' });
    assert.equal(shareTopicName(identity, 'dr'), 'mm2-node-red-shares.dr.internal');
    assert.throws(() => shareTopicName(createReplicationPolicy({}), ''), /targetAlias/);
  });

  it('is an internal topic MM2 and the default topic filters leave out', function () {
    const policy = createReplicationPolicy({});
    const topic = shareTopicName(policy, 'target');
    assert.equal(policy.isInternalTopic(topic), true);
    assert.match(topic, /^.*[-.]internal$/); // the default topics.exclude `.*[\-\.]internal`
  });

  it('has 50 partitions, as __consumer_offsets by default: a group is owned by the same partition number in either split', function () {
    assert.equal(SHARE_TOPIC_PARTITIONS, 50);
    for (const g of ['orders-consumer', 'a', 'polygenelubricants', '组-消费者']) {
      const p = consumerOffsetsPartitionFor(g, SHARE_TOPIC_PARTITIONS);
      assert.equal(new Shares([p], SHARE_TOPIC_PARTITIONS).owns(g), true, g);
    }
    assert.equal(consumerOffsetsPartitionFor('orders-consumer', SHARE_TOPIC_PARTITIONS), 40); // as Java computes it (group-ownership.test.js)
  });

  it('is chosen by the source offsets setting and whether __consumer_offsets may be described', function () {
    const POLL = 'mm2-node-red-shares.t.internal';
    // poll: always the flow's topic, without a look at __consumer_offsets
    assert.equal(needsOffsetsTopicLook('poll'), false);
    for (const access of /** @type {const} */ (['describable', 'not-authorized', 'unknown'])) assert.equal(chooseShareTopic('poll', access, POLL), POLL, access);
    // auto: __consumer_offsets where it may be described (also when the node polls for lack of READ), else the flow's topic
    assert.equal(needsOffsetsTopicLook('auto'), true);
    assert.equal(chooseShareTopic('auto', 'describable', POLL), '__consumer_offsets');
    assert.equal(chooseShareTopic('auto', 'not-authorized', POLL), POLL);
    // not created yet or a source away: __consumer_offsets, and the membership tries again later as before
    assert.equal(chooseShareTopic('auto', 'unknown', POLL), '__consumer_offsets');
  });

  it('is a setting the members compare: members splitting different topics never share, the newcomer is kept out naming shares.topic', function () {
    const flow = { groups: '.*', sourceOffsets: 'auto' };
    const onOffsets = withShareTopic(flow, '__consumer_offsets');
    const onTopic = withShareTopic(flow, 'mm2-node-red-shares.t.internal');
    assert.equal(SHARE_TOPIC_SETTING, 'shares.topic');
    assert.equal(onOffsets['shares.topic'], '__consumer_offsets');
    assert.notEqual(settingsFingerprint(onOffsets), settingsFingerprint(onTopic));
    assert.equal(settingsFingerprint(onTopic), settingsFingerprint(withShareTopic({ sourceOffsets: 'auto', groups: '.*' }, 'mm2-node-red-shares.t.internal')));
    assert.deepEqual(flow, { groups: '.*', sourceOffsets: 'auto' }, 'the flow settings are not changed');
    assert.throws(() => withShareTopic(flow, ''), /shares\.topic/);

    // the leader splits the internal topic; a member that splits __consumer_offsets gets nothing and is told why
    const leader = { fingerprint: settingsFingerprint(onTopic), settings: onTopic };
    const members = [
      { memberId: 'a', fingerprint: leader.fingerprint, settings: onTopic },
      { memberId: 'b', fingerprint: leader.fingerprint, settings: onTopic },
      { memberId: 'c', fingerprint: settingsFingerprint(onOffsets), settings: onOffsets },
    ];
    const out = assignShares(leader, members, Array.from({ length: 50 }, (_, i) => i));
    const [a, b, c] = out;
    assert.equal(a.partitions.length + b.partitions.length, 50);
    assert.deepEqual(a.partitions.filter((p) => b.partitions.includes(p)), []);
    assert.deepEqual(c.partitions, []);
    assert.equal(c.members, 2);
    assert.equal(c.refused, 1);
    assert.deepEqual(c.differs, { setting: 'shares.topic', ours: '__consumer_offsets', theirs: 'mm2-node-red-shares.t.internal' });
    assert.equal(settingDifferenceText(c.differs), 'setting shares.topic differs from the other instances: __consumer_offsets vs mm2-node-red-shares.t.internal');
  });

  it('the ACLs a membership names: DESCRIBE on __consumer_offsets, or CREATE and DESCRIBE on the split topic; READ on the sharing groups', function () {
    assert.deepEqual(shareMembershipAcls(), [
      { resource: 'Topic', name: '__consumer_offsets', operations: ['DESCRIBE'] },
      { resource: 'Group', name: '__mm2-node-red-shares.', prefixed: true, operations: ['READ'] },
    ]);
    assert.deepEqual(shareMembershipAcls('mm2-node-red-shares.t.internal')[0], { resource: 'Topic', name: 'mm2-node-red-shares.t.internal', operations: ['CREATE', 'DESCRIBE'] });
  });
});

describe('replication shares: the topic split', function () {
  /** A pollSplit that records what it was asked; `access` what the look answers, `ensure` what making the topic does. */
  function split(access, ensure = async () => 50) {
    const calls = [];
    return {
      calls,
      pollSplit: {
        topic: 'mm2-node-red-shares.t.internal',
        lookAtOffsetsTopic: async () => { calls.push('look'); return access; },
        ensureTopic: async () => { calls.push('ensure'); return ensure(); },
      },
    };
  }
  // a kafka client the membership cannot use: it fails when it starts, after the topic was chosen (its reason says so)
  const noKafka = /** @type {any} */ ({});

  async function joined(opts) {
    const shares = new ReplicationShares();
    const leave = shares.join({ kafka: noKafka, sourceAlias: 's', targetAlias: 't', settings: {}, firstAssignmentWaitMs: 5000, ...opts });
    await shares.ready();
    return { shares, leave };
  }

  it('poll: makes the flow topic, without a look at __consumer_offsets', async function () {
    const s = split('describable');
    const { shares, leave } = await joined({ sourceOffsets: 'poll', pollSplit: s.pollSplit });
    assert.deepEqual(s.calls, ['ensure']);
    assert.equal(shares.current.kind, 'solo'); // the fake client: the membership could not start
    await leave();
  });

  it('auto, __consumer_offsets not describable: makes the flow topic', async function () {
    const s = split('not-authorized');
    const { leave } = await joined({ sourceOffsets: 'auto', pollSplit: s.pollSplit });
    assert.deepEqual(s.calls, ['look', 'ensure']);
    await leave();
  });

  it('auto, __consumer_offsets describable: splits it, makes no topic', async function () {
    const s = split('describable');
    const { leave } = await joined({ sourceOffsets: 'auto', pollSplit: s.pollSplit });
    assert.deepEqual(s.calls, ['look']);
    await leave();
  });

  it('the flow topic may not be made: works alone, naming the ACLs the split needs; no retry', async function () {
    const refused = Object.assign(new Error('Not authorized to access topics: [Topic authorization failed]'), { type: 'TOPIC_AUTHORIZATION_FAILED' });
    const s = split('not-authorized', async () => { throw refused; });
    const { shares, leave } = await joined({ sourceOffsets: 'auto', pollSplit: s.pollSplit });
    assert.equal(shares.current.kind, 'solo');
    assert.match(shares.current.reason, /__mm2-node-red-shares\.s->t cannot be joined/);
    assert.match(shares.current.reason, /CREATE and DESCRIBE on Topic:mm2-node-red-shares\.t\.internal/);
    assert.equal(shares.owns('any'), true);
    assert.equal(shares.writable(), true);
    assert.equal(/** @type {any} */ (shares).retryTimer.pending, false, 'a refusal is not tried again until a redeploy');
    await leave();
    assert.deepEqual(shares.current, { kind: 'alone' });
  });
});
