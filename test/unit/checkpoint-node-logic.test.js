'use strict';
/** Pure logic behind the mm2-checkpoint node: settings mapping, paste analysis, cycle coalescing, group discovery. */
const assert = require('node:assert/strict');
const settings = require('../../dist/nodes/shared/settings');
const { CoalescingRunner } = require('../../dist/core/coalescing');
const { findCheckpointGroups } = require('../../dist/core/group-discovery');
const { mapLimit } = require('../../dist/core/worker-pool');
const { createGroupFilter, createTopicFilter } = require('../../dist/core/filters');

const CP = settings.NODE_SETTINGS['mm2-checkpoint'];

describe('node settings <-> MM2 properties', function () {
  it('names fields as the camelCase of the MM2 property', function () {
    assert.equal(settings.fieldName('emit.checkpoints.interval.seconds'), 'emitCheckpointsIntervalSeconds');
    assert.equal(settings.fieldName('groups.exclude'), 'groupsExclude');
    assert.equal(settings.fieldName('offset.lag.max'), 'offsetLagMax');
    assert.equal(settings.fieldName('offset-syncs.topic.location'), 'offsetSyncsTopicLocation');
    assert.deepEqual(settings.settingSpecs(CP).map((s) => s.field), [
      'groups', 'groupsExclude', 'topics', 'topicsExclude', 'emitCheckpointsIntervalSeconds', 'refreshGroupsIntervalSeconds',
    ]);
  });

  it('empty fields take MM2 defaults; values are normalised', function () {
    const r = settings.resolveNodeSettings({ groups: '', groupsExclude: undefined, topics: ' a , b ', emitCheckpointsIntervalSeconds: '5' }, CP);
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.values, {
      groups: '.*',
      'groups.exclude': 'console-consumer-.*, connect-.*, __.*',
      topics: 'a, b',
      'topics.exclude': '.*[\\-\\.]internal, .*\\.replica, __.*',
      'emit.checkpoints.interval.seconds': 5,
      'refresh.groups.interval.seconds': 600,
    });
    assert.deepEqual(r.defaulted, ['groups', 'groups.exclude', 'topics.exclude', 'refresh.groups.interval.seconds']);
  });

  it('substitutes ${VAR} inside a field and reports unset variables', function () {
    const env = { TEAM: 'payments', SECS: '15' };
    const r = settings.resolveNodeSettings({ groups: '${TEAM}-.*', emitCheckpointsIntervalSeconds: '${SECS}', topics: 'x-${NOPE}' }, CP, (n) => env[n]);
    assert.equal(r.values.groups, 'payments-.*');
    assert.equal(r.values['emit.checkpoints.interval.seconds'], 15);
    assert.deepEqual(r.problems, [{ property: 'topics', reason: 'environment variable NOPE is not set' }]);
    assert.deepEqual(r.missingEnv, ['NOPE']);
  });

  it('reports a bad regex and a non-positive interval by MM2 property name', function () {
    const r = settings.resolveNodeSettings({ groups: 'ok, [', refreshGroupsIntervalSeconds: '0' }, CP);
    assert.equal(r.problems.length, 2);
    assert.equal(r.problems[0].property, 'groups');
    assert.match(settings.problemText(r.problems[0]), /^groups: '\[' is not a valid regular expression/);
    assert.equal(r.problems[1].property, 'refresh.groups.interval.seconds');
    assert.match(r.problems[1].reason, /must be a positive number of seconds/);
  });
});

describe('paste an MM2 config (parseConfigForNode)', function () {
  const yaml = [
    'connector.class: "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"',
    'emit.checkpoints.interval.seconds: "10"',
    'groups: "orders-.*,billing"',
    'groups.exclude: "console-consumer-.*,connect-.*,__.*"',
    'source.cluster.alias: "east"',
    'source.cluster.bootstrap.servers: "east-1:9092"',
    'sync.group.offsets.enabled: "true"',
    'target.cluster.alias: "west"',
    'target.cluster.sasl.jaas.config: "org.apache.kafka.common.security.plain.PlainLoginModule required password=\\"s3cret\\";"',
    'replication.policy.class: "IdentityReplicationPolicy"',
    'tasks.max: "3"',
    'emit.checkpoint.interval.seconds: "5"',
  ].join('\n');

  it('fills the fields, derives the replication settings and notes everything else', function () {
    const r = settings.parseConfigForNode(yaml, 'mm2-checkpoint', {
      sourceAlias: 'east', targetAlias: 'target', policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', replicationFactor: 3,
    });
    assert.equal(r.format, 'yaml');
    assert.equal(r.connector, 'checkpoint');
    assert.deepEqual(r.fields, {
      groups: 'orders-.*, billing',
      groupsExclude: 'console-consumer-.*, connect-.*, __.*',
      emitCheckpointsIntervalSeconds: '10',
    }, 'exactly what the config sets: topics, topics.exclude and refresh.groups.interval.seconds keep their values');
    assert.deepEqual(r.replication.differences, [
      { property: 'target.cluster.alias', field: 'targetAlias', config: 'west', current: 'target' },
      { property: 'replication.policy.class', field: 'policy', config: 'IdentityReplicationPolicy', current: 'DefaultReplicationPolicy' },
    ]);
    assert.deepEqual(r.unknown, ['emit.checkpoint.interval.seconds']);
    assert.deepEqual(r.secrets, ['target.cluster.sasl.jaas.config']);
    assert.equal(r.settings['target.cluster.sasl.jaas.config'], '***');
    assert.ok(!JSON.stringify(r).includes('s3cret'), 'the secret is never echoed');
    const notes = Object.fromEntries(r.notes.map((n) => [n.property, n.code]));
    assert.deepEqual(notes, {
      'source.cluster.bootstrap.servers': 'cluster',
      'sync.group.offsets.enabled': 'group-offsets',
      'target.cluster.sasl.jaas.config': 'secret',
      'tasks.max': 'not-needed',
      'emit.checkpoint.interval.seconds': 'unknown',
    });
  });

  it('reports syntax errors and invalid values without throwing', function () {
    const bad = settings.parseConfigForNode('{"groups": "[", "emit.checkpoints.interval.seconds": "-1"', 'mm2-checkpoint');
    assert.equal(bad.problems.length, 1);
    assert.match(bad.problems[0].reason, /^JSON syntax error/);
    const invalid = settings.parseConfigForNode('groups=[\nemit.checkpoints.interval.seconds=-1\nsource.cluster.alias=a\n', 'mm2-checkpoint');
    assert.equal(invalid.format, 'properties');
    assert.deepEqual(invalid.problems.map((p) => p.property), ['groups', 'emit.checkpoints.interval.seconds']);
    assert.deepEqual(invalid.fields, {}, 'an invalid value never replaces a field; the problem names it');
    assert.match(invalid.problems[0].reason, /'\[' is not a valid regular expression/);
    assert.equal(settings.parseConfigForNode(42, 'mm2-checkpoint').problems.length, 1);
  });
});

describe('CoalescingRunner', function () {
  it('never overlaps runs and coalesces requests made during a run into one more run', async function () {
    let active = 0;
    let maxActive = 0;
    const runs = [];
    const gates = [];
    const runner = new CoalescingRunner(async (opts) => {
      active++;
      maxActive = Math.max(maxActive, active);
      runs.push(opts);
      await new Promise((r) => gates.push(r));
      active--;
      return runs.length;
    }, (a, b) => ({ refresh: a.refresh || b.refresh }));
    const p1 = runner.run({ refresh: false });
    const p2 = runner.run({ refresh: false });
    const p3 = runner.run({ refresh: true });
    assert.equal(runner.queued, true);
    assert.equal(p2, p3, 'requests during a run share the follow-up run');
    gates.shift()();
    assert.equal(await p1, 1);
    await new Promise((r) => setImmediate(r));
    gates.shift()();
    assert.equal(await p2, 2);
    assert.deepEqual(runs, [{ refresh: false }, { refresh: true }]);
    assert.equal(maxActive, 1);
    assert.equal(runner.busy, false);
  });

  it('a failed run rejects its requesters and the next request runs normally', async function () {
    let n = 0;
    const runner = new CoalescingRunner(async () => {
      n++;
      if (n === 1) throw new Error('boom');
      return n;
    }, (a) => a);
    await assert.rejects(runner.run({}), /boom/);
    assert.equal(await runner.run({}), 2);
    await runner.idle();
    assert.equal(runner.busy, false);
  });
});

describe('group discovery (MirrorCheckpointConnector.findConsumerGroups, MirrorCheckpointConnectorTest.findConsumerGroups)', function () {
  it('keeps groups the group filter accepts that have offsets on accepted topics', async function () {
    const offsets = { g1: ['t1', 't2'], g2: ['t2', 't3'], g3: ['t3'], g4: ['t2'] };
    const r = await findCheckpointGroups(
      { listGroups: async () => ['g4', 'g3', 'g2', 'g1'], committedTopics: async (gs) => ({ topics: new Map(gs.map((g) => [g, offsets[g]])), failed: new Map() }) },
      createGroupFilter({ groups: 'g[1-3]' }),
      createTopicFilter({ topics: 't2' }),
    );
    assert.deepEqual(r.groups, ['g1', 'g2']);
    assert.deepEqual(r.rejectedByGroupFilter, ['g4']);
    assert.deepEqual(r.noReplicatedTopics, ['g3']);
    const none = await findCheckpointGroups(
      { listGroups: async () => ['g1'], committedTopics: async (gs) => ({ topics: new Map(gs.map((g) => [g, ['t1']])), failed: new Map() }) },
      createGroupFilter({}),
      createTopicFilter({ topics: '' }),
    );
    assert.deepEqual(none.groups, []);
  });

  it('keeps (and reports) a group whose offsets cannot be fetched', async function () {
    const r = await findCheckpointGroups(
      { listGroups: async () => ['a', 'b'], committedTopics: async (gs) => ({ topics: new Map(gs.filter((g) => g !== 'b').map((g) => [g, ['t']])), failed: new Map([['b', 'GROUP_AUTHORIZATION_FAILED']]) }) },
      createGroupFilter({}),
      createTopicFilter({}),
    );
    assert.deepEqual(r.groups, ['a', 'b']);
    assert.deepEqual(r.errors, [{ group: 'b', error: 'GROUP_AUTHORIZATION_FAILED' }]);
  });

  it('shared by several instances (owns): reads and selects only this instance\'s groups; the others\' accepted groups are listed apart, unread', async function () {
    const asked = [];
    const offsets = { g1: ['t2'], g2: ['t2'], g3: ['t3'], g4: ['t2'], h1: ['t2'] };
    const r = await findCheckpointGroups(
      {
        listGroups: async () => ['g1', 'g2', 'g3', 'g4', 'h1'],
        committedTopics: async (gs) => (asked.push(...gs), { topics: new Map(gs.map((g) => [g, offsets[g]])), failed: new Map() }),
        owns: (g) => g === 'g1' || g === 'g3',
      },
      createGroupFilter({ groups: 'g.*' }),
      createTopicFilter({ topics: 't2' }),
    );
    assert.deepEqual(asked, ['g1', 'g3'], 'only the owned groups are read');
    assert.deepEqual(r.groups, ['g1']);
    assert.deepEqual(r.noReplicatedTopics, ['g3']);
    assert.deepEqual(r.rejectedByGroupFilter, ['h1']);
    assert.deepEqual(r.elsewhere, ['g2', 'g4'], 'accepted groups other instances own, not read');
    const alone = await findCheckpointGroups(
      { listGroups: async () => ['g1', 'g2'], committedTopics: async (gs) => ({ topics: new Map(gs.map((g) => [g, ['t2']])), failed: new Map() }) },
      createGroupFilter({}),
      createTopicFilter({}),
    );
    assert.deepEqual(alone.elsewhere, [], 'alone: nothing elsewhere');
  });

  it('mapLimit keeps input order and bounds concurrency', async function () {
    let inFlight = 0;
    let peak = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (x) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, x));
      inFlight--;
      return x * 10;
    });
    assert.deepEqual(out, [50, 10, 40, 20, 30]);
    assert.equal(peak, 2);
  });
});
