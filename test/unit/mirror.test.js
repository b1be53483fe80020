'use strict';
/** Pure parts of the mirror node: settings (MM2 names and defaults) and the remote-topic / batching decisions. */
const assert = require('node:assert/strict');
const { parseMirrorSettings, DEFAULT_OFFSET_FLUSH_INTERVAL_MS, MIRROR_SETTING_PROPERTIES } = require('../../dist/core/mirror-settings');
const { planRemoteTopics, sameSubscription, recordBytes, downstreamOffsets, formatRate, checkDelivery } = require('../../dist/core/mirror-plan');
const { chunkBySize } = require('../../dist/core/chunks');
const { CONFIG_DEFAULTS } = require('../../dist/core/config-properties');
const { ConfigError } = require('../../dist/core/errors');

describe('mirror settings', function () {
  it('empty fields take the MM2 defaults', function () {
    const s = parseMirrorSettings({ topics: '', topicsExclude: ' ', offsetLagMax: '', refreshTopicsIntervalSeconds: undefined, replicationFactor: null });
    assert.equal(s.topics, CONFIG_DEFAULTS.topics);
    assert.equal(s.topics, '.*');
    assert.equal(s.topicsExclude, '.*[\\-\\.]internal, .*\\.replica, __.*');
    assert.equal(s.offsetLagMax, 100n);
    assert.equal(s.refreshTopicsIntervalSeconds, 600);
    assert.equal(s.heartbeatsReplicationEnabled, true);
    assert.equal(s.replicationFactor, 2);
    assert.equal(s.emitOffsetSyncsEnabled, true);
    assert.equal(s.offsetFlushIntervalMs, DEFAULT_OFFSET_FLUSH_INTERVAL_MS);
    assert.equal(s.offsetFlushIntervalMs, 60000);
    assert.deepEqual(s.props, {
      topics: '.*',
      'topics.exclude': '.*[\\-\\.]internal, .*\\.replica, __.*',
      'offset.lag.max': '100',
      'refresh.topics.interval.seconds': '600',
      'heartbeats.replication.enabled': 'true',
      'replication.factor': '2',
      'emit.offset-syncs.enabled': 'true',
      'sync.topic.configs.enabled': 'true',
      'sync.topic.configs.interval.seconds': '600',
      'config.properties.exclude': 'follower\\.replication\\.throttled\\.replicas, leader\\.replication\\.throttled\\.replicas, message\\.timestamp\\.difference\\.max\\.ms, message\\.timestamp\\.type, unclean\\.leader\\.election\\.enable, min\\.insync\\.replicas',
      'sync.topic.acls.enabled': 'true',
      'sync.topic.acls.interval.seconds': '600',
      'offset.flush.interval.ms': '60000',
    });
    assert.equal(s.topicFilter.accept('orders'), true);
    assert.equal(s.topicFilter.accept('x.internal'), false);
    assert.equal(s.topicFilter.accept('__consumer_offsets'), false);
    assert.equal(s.syncTopicConfigsEnabled, true);
    assert.equal(s.syncTopicConfigsIntervalSeconds, 600);
    assert.equal(s.syncTopicAclsEnabled, true);
    assert.equal(s.syncTopicAclsIntervalSeconds, 600);
    assert.equal(s.configPropertyFilter.shouldReplicateConfigProperty('min.insync.replicas'), false);
    assert.equal(s.configPropertyFilter.shouldReplicateConfigProperty('retention.ms'), true);
  });

  it('maps every node field to its MM2 property name', function () {
    assert.deepEqual(MIRROR_SETTING_PROPERTIES, {
      topics: 'topics',
      topicsExclude: 'topics.exclude',
      offsetLagMax: 'offset.lag.max',
      refreshTopicsIntervalSeconds: 'refresh.topics.interval.seconds',
      heartbeatsReplicationEnabled: 'heartbeats.replication.enabled',
      replicationFactor: 'replication.factor',
      emitOffsetSyncsEnabled: 'emit.offset-syncs.enabled',
      syncTopicConfigsEnabled: 'sync.topic.configs.enabled',
      syncTopicConfigsIntervalSeconds: 'sync.topic.configs.interval.seconds',
      configPropertiesExclude: 'config.properties.exclude',
      syncTopicAclsEnabled: 'sync.topic.acls.enabled',
      syncTopicAclsIntervalSeconds: 'sync.topic.acls.interval.seconds',
      offsetFlushIntervalMs: 'offset.flush.interval.ms',
    });
  });

  it('parses given values, booleans from checkboxes or text, and substitutes ${VAR} inside text', function () {
    const env = { PREFIX: 'orders', LAG: '7' };
    const s = parseMirrorSettings(
      {
        topics: '${PREFIX}-.*, audit',
        topicsExclude: '${PREFIX}-tmp',
        offsetLagMax: '${LAG}',
        refreshTopicsIntervalSeconds: 30,
        heartbeatsReplicationEnabled: 'false',
        replicationFactor: '-1',
        emitOffsetSyncsEnabled: false,
        offsetFlushIntervalMs: '1000',
      },
      (n) => env[n],
    );
    assert.equal(s.topics, 'orders-.*, audit');
    assert.equal(s.offsetLagMax, 7n);
    assert.equal(s.refreshTopicsIntervalSeconds, 30);
    assert.equal(s.heartbeatsReplicationEnabled, false);
    assert.equal(s.replicationFactor, -1);
    assert.equal(s.emitOffsetSyncsEnabled, false);
    assert.equal(s.offsetFlushIntervalMs, 1000);
    assert.equal(s.topicFilter.accept('orders-eu'), true);
    assert.equal(s.topicFilter.accept('audit'), true);
    assert.equal(s.topicFilter.accept('orders-tmp'), false);
    assert.equal(s.topicFilter.accept('payments'), false);
  });

  it('reports a ${VAR} that is not set by the MM2 property, also in offset.flush.interval.ms', function () {
    const env = { X: '1' };
    assert.throws(
      () => parseMirrorSettings({ topics: 'a-${X}-${Y}', offsetLagMax: '${LAG}', offsetFlushIntervalMs: '${FLUSH}000' }, (n) => env[n]),
      (e) => {
        assert.ok(e instanceof ConfigError);
        assert.deepEqual(e.problems, [
          { property: 'topics', reason: 'environment variable Y is not set' },
          { property: 'offset.lag.max', reason: 'environment variable LAG is not set' },
          { property: 'offset.flush.interval.ms', reason: 'environment variable FLUSH is not set' },
        ]);
        return true;
      },
    );
    assert.equal(parseMirrorSettings({ offsetFlushIntervalMs: '${FLUSH}000' }, (n) => (n === 'FLUSH' ? '5' : undefined)).offsetFlushIntervalMs, 5000);
  });

  it('names every bad property by its MM2 name in one ConfigError', function () {
    assert.throws(
      () => parseMirrorSettings({ topics: 'a(', offsetLagMax: 'many', replicationFactor: '0', offsetFlushIntervalMs: '-5', refreshTopicsIntervalSeconds: '0', heartbeatsReplicationEnabled: 'maybe' }),
      (e) => {
        assert.ok(e instanceof ConfigError);
        assert.deepEqual(e.problems.map((p) => p.property).sort(), [
          'heartbeats.replication.enabled',
          'offset.flush.interval.ms',
          'offset.lag.max',
          'refresh.topics.interval.seconds',
          'replication.factor',
          'topics',
        ]);
        assert.match(e.message, /offset\.lag\.max: 'many' is not a whole number/);
        return true;
      },
    );
    assert.throws(() => parseMirrorSettings({ offsetLagMax: '-1' }), /offset\.lag\.max: must be 0 or more/);
  });
});

describe('mirror plan', function () {
  const remote = (t) => `src.${t}`;

  it('creates missing remote topics, grows smaller ones, leaves equal or larger ones', function () {
    const plan = planRemoteTopics(
      [
        { topic: 'a', partitions: 3 },
        { topic: 'b', partitions: 4 },
        { topic: 'c', partitions: 2 },
        { topic: 'd', partitions: 1 },
      ],
      new Map([
        ['src.b', 2],
        ['src.c', 2],
        ['src.d', 5],
      ]),
      remote,
    );
    assert.deepEqual(plan.create, [{ topic: 'a', remote: 'src.a', partitions: 3 }]);
    assert.deepEqual(plan.grow, [{ topic: 'b', remote: 'src.b', from: 2, to: 4 }]);
    assert.deepEqual(plan.ready, [
      { topic: 'c', remote: 'src.c', partitions: 2 },
      { topic: 'd', remote: 'src.d', partitions: 1 },
    ]);
  });

  it('sameSubscription compares topics and partition counts', function () {
    assert.equal(sameSubscription(new Map([['a', 1], ['b', 2]]), new Map([['b', 2], ['a', 1]])), true);
    assert.equal(sameSubscription(new Map([['a', 1]]), new Map([['a', 2]])), false);
    assert.equal(sameSubscription(new Map([['a', 1]]), new Map([['a', 1], ['b', 1]])), false);
    assert.equal(sameSubscription(new Map(), new Map()), true);
  });

  it('chunks records by count and bytes, a single oversized record alone', function () {
    assert.deepEqual(chunkBySize([1, 1, 1, 1, 1], 2, 100), [[0, 2], [2, 4], [4, 5]]);
    assert.deepEqual(chunkBySize([40, 40, 40, 500, 10], 10, 100), [[0, 2], [2, 3], [3, 4], [4, 5]]);
    assert.deepEqual(chunkBySize([], 10, 100), []);
  });

  it('record size counts key, value and headers; null parts are 0', function () {
    assert.equal(recordBytes(Buffer.from('ab'), null, { h: Buffer.from('xyz'), rep: [Buffer.from('1'), Buffer.from('22')] }), 2 + 1 + 3 + 3 + 3);
    assert.equal(recordBytes(null, 'é', undefined), 2);
  });

  it('downstream offsets are the ack base offset plus the index in the request', function () {
    assert.deepEqual(downstreamOffsets('7', 3), [7n, 8n, 9n]);
    assert.deepEqual(downstreamOffsets(9007199254740993n, 2), [9007199254740993n, 9007199254740994n]);
  });

  it('formats rates for the status line', function () {
    assert.equal(formatRate(0), '0');
    assert.equal(formatRate(2.5), '2.5');
    assert.equal(formatRate(950.4), '950');
    assert.equal(formatRate(1234), '1.2k');
    assert.equal(formatRate(34567), '35k');
    assert.equal(formatRate(1500000), '1.5M');
  });
});

describe('mirror delivery check (never green while nothing is copied)', function () {
  it('a partition with records waiting at the same restart point at two checks is stalled; progress or a caught-up partition is not', function () {
    const ends = new Map([['a-0', 10n], ['b-0', 5n], ['c-0', 8n]]);
    const first = checkDelivery(new Map([['a-0', 4n], ['b-0', 5n], ['c-0', 7n]]), ends, new Map());
    assert.equal(first.stalled, 0, 'nothing to compare with yet');
    assert.deepEqual([...first.waiting], [['a-0', 4n]], 'b-0 caught up; c-0 only a possible transaction marker behind');
    const second = checkDelivery(new Map([['a-0', 4n], ['b-0', 5n], ['c-0', 7n]]), new Map([...ends, ['a-0', 12n]]), first.waiting);
    assert.deepEqual({ stalled: second.stalled, records: second.records }, { stalled: 1, records: 8n });
    const moved = checkDelivery(new Map([['a-0', 6n]]), ends, second.waiting);
    assert.equal(moved.stalled, 0, 'copied something since');
    assert.equal(checkDelivery(new Map([['x-0', 1n]]), ends, new Map([['x-0', 1n]])).stalled, 0, 'no end known');
  });
});
