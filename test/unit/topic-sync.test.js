'use strict';
/** What MM2's MirrorSourceConnector copies to a remote topic besides records: topic configs (DefaultConfigPropertyFilter) and topic ACLs (core/topic-sync). */
const assert = require('node:assert/strict');
const {
  CONFIG_SOURCE,
  createConfigPropertyFilter,
  remoteTopicCreateConfigs,
  remoteTopicConfigSync,
  plannedRemoteConfigs,
  remoteTopicAcls,
} = require('../../dist/core/topic-sync');
const { ConfigError } = require('../../dist/core/errors');

const { DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG } = CONFIG_SOURCE;
const e = (name, value, source, extra = {}) => ({ name, value, source, ...extra });

describe('topic config sync (MM2 syncTopicConfigs, DefaultConfigPropertyFilter)', function () {
  it("config.properties.exclude: MM2's default list, names and Java regexes matched in full; a bad regex is refused naming the property", function () {
    const f = createConfigPropertyFilter();
    for (const p of ['follower.replication.throttled.replicas', 'leader.replication.throttled.replicas', 'message.timestamp.difference.max.ms', 'message.timestamp.type', 'unclean.leader.election.enable', 'min.insync.replicas']) {
      assert.equal(f.shouldReplicateConfigProperty(p), false, p);
    }
    for (const p of ['retention.ms', 'cleanup.policy', 'segment.bytes', 'min.insync.replicasX']) assert.equal(f.shouldReplicateConfigProperty(p), true, p);
    const own = createConfigPropertyFilter('segment\\..*, retention.ms');
    assert.equal(own.shouldReplicateConfigProperty('segment.bytes'), false);
    assert.equal(own.shouldReplicateConfigProperty('retention.ms'), false);
    assert.equal(own.shouldReplicateConfigProperty('min.insync.replicas'), true, 'an own list replaces the default one');
    assert.equal(f.shouldReplicateSourceDefault('retention.ms'), false, "use.defaults.from=target (MM2's default)");
    assert.throws(() => createConfigPropertyFilter('retention.(ms'), (err) => err instanceof ConfigError && /config\.properties\.exclude/.test(err.message));
  });

  const source = [
    e('retention.ms', '3600000', DYNAMIC_TOPIC_CONFIG),
    e('cleanup.policy', 'delete', DEFAULT_CONFIG),
    e('max.message.bytes', '2000000', DYNAMIC_BROKER_CONFIG),
    e('segment.bytes', '1073741824', STATIC_BROKER_CONFIG),
    e('min.insync.replicas', '2', DYNAMIC_TOPIC_CONFIG),
    e('ssl.secret', null, DYNAMIC_TOPIC_CONFIG, { sensitive: true }),
    e('some.read.only', 'x', DYNAMIC_TOPIC_CONFIG, { readOnly: true }),
  ];

  it('a new remote topic gets the copyable configs not at their default: no default, static broker, sensitive, read-only or excluded one', function () {
    assert.deepEqual(remoteTopicCreateConfigs(source, createConfigPropertyFilter()), [
      { name: 'max.message.bytes', value: '2000000' },
      { name: 'retention.ms', value: '3600000' },
    ]);
    // DescribeConfigs v0 (no source): the isDefault flag decides
    assert.deepEqual(remoteTopicCreateConfigs([{ name: 'retention.ms', value: '1', isDefault: false }, { name: 'cleanup.policy', value: 'delete', isDefault: true }], createConfigPropertyFilter()), [{ name: 'retention.ms', value: '1' }]);
  });

  it('a sync sets the non-default copyable configs and resets those at their default on the source (incremental SET / DELETE)', function () {
    assert.deepEqual(remoteTopicConfigSync(source, createConfigPropertyFilter()), {
      set: [{ name: 'retention.ms', value: '3600000' }, { name: 'max.message.bytes', value: '2000000' }],
      reset: ['cleanup.policy'],
    });
  });

  it("the remote topic's whole topic-level set: its own untouched configs kept, synced ones set, reset ones left out; unchanged is no write", function () {
    const sync = remoteTopicConfigSync(source, createConfigPropertyFilter());
    const remote = [
      e('retention.ms', '100', DYNAMIC_TOPIC_CONFIG),
      e('cleanup.policy', 'compact', DYNAMIC_TOPIC_CONFIG),
      e('min.insync.replicas', '1', DYNAMIC_TOPIC_CONFIG), // the target's own choice: never copied, so it stays
      e('segment.bytes', '1073741824', DEFAULT_CONFIG),
    ];
    const plan = plannedRemoteConfigs(sync, remote);
    assert.deepEqual(plan, {
      changed: true,
      configs: [{ name: 'max.message.bytes', value: '2000000' }, { name: 'min.insync.replicas', value: '1' }, { name: 'retention.ms', value: '3600000' }],
    });
    const after = plan.configs.map((c) => e(c.name, c.value, DYNAMIC_TOPIC_CONFIG));
    assert.deepEqual(plannedRemoteConfigs(sync, after), { changed: false, configs: plan.configs });
    // a kept config whose value the target hides cannot be written back: no plan
    assert.equal(plannedRemoteConfigs(sync, [e('x.secret', null, DYNAMIC_TOPIC_CONFIG, { sensitive: true })]), null);
  });
});

describe('topic ACL sync (MM2 syncTopicAcls: shouldReplicateAcl, targetAclBinding)', function () {
  const b = (resourceName, operation, permissionType = 'ALLOW', extra = {}) => ({
    resourceType: 'TOPIC', resourceName, patternType: 'LITERAL', principal: 'User:alice', host: '*', operation, permissionType, ...extra,
  });
  const remote = (t) => `east.${t}`;

  it('copies literal topic ACLs of replicated topics to the remote topic: never ALLOW WRITE, ALLOW ALL as READ, DENY and other operations as they are', function () {
    const got = remoteTopicAcls(
      [
        b('orders', 'READ'),
        b('orders', 'WRITE'),
        b('orders', 'ALL', 'ALLOW', { principal: 'User:bob' }),
        b('orders', 'WRITE', 'DENY', { principal: 'User:eve' }),
        b('orders', 'DESCRIBE', 'ALLOW', { host: '10.0.0.1' }),
        b('ord', 'READ', 'ALLOW', { patternType: 'PREFIXED' }),
        b('other', 'READ'),
        b('orders', 'READ', 'ALLOW', { resourceType: 'GROUP' }),
      ],
      (t) => t === 'orders',
      remote,
    );
    assert.deepEqual(got.map((x) => `${x.principal} ${x.host} ${x.permissionType} ${x.operation} ${x.resourceType}:${x.patternType}:${x.resourceName}`).sort(), [
      'User:alice * ALLOW READ TOPIC:LITERAL:east.orders',
      'User:alice 10.0.0.1 ALLOW DESCRIBE TOPIC:LITERAL:east.orders',
      'User:bob * ALLOW READ TOPIC:LITERAL:east.orders',
      'User:eve * DENY WRITE TOPIC:LITERAL:east.orders',
    ]);
  });

  it('the same binding twice (ALL and READ of one principal) is created once', function () {
    const got = remoteTopicAcls([b('orders', 'ALL'), b('orders', 'READ')], () => true, remote);
    assert.equal(got.length, 1);
    assert.equal(got[0].operation, 'READ');
  });
});
