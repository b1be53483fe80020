'use strict';
/**
 * A bad setting is refused naming its MM2 property, never replaced by a default; -1 (the
 * broker's default.replication.factor) is honoured. Before: an unknown offset-syncs location or
 * policy class, a replication factor of `abc` or `0`, a blank separator were replaced silently
 * and -1 became 3.
 */
const assert = require('node:assert/strict');
const { resolveReplicationSettings } = require('../../dist/nodes/shared/settings');
const { exportConnectors } = require('../../dist/flows/export-connectors');
const { parseMirrorSettings } = require('../../dist/core/mirror-settings');
const { getPropertyDef, normaliseValue } = require('../../dist/core/config-properties');

const GOOD = { policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', replicationFactor: 3 };

function problemsOf(over) {
  return resolveReplicationSettings({ ...GOOD, ...over }, () => undefined).problems;
}

describe('refused settings: the replication flow', function () {
  it('reads a good flow, short or full policy names', function () {
    const r = resolveReplicationSettings({ ...GOOD, policy: 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy', separator: '_', offsetSyncsLocation: 'target', replicationFactor: '2' });
    const { given, ...values } = r;
    assert.deepEqual(values, { policy: 'IdentityReplicationPolicy', separator: '_', internalSeparator: true, offsetSyncsLocation: 'target', replicationFactor: 2, problems: [] });
    assert.equal(given['replication.policy.class'], 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy', 'the fields as given are kept for the export');
    const d = resolveReplicationSettings({}, () => undefined);
    assert.deepEqual({ ...d, given: undefined }, { policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', replicationFactor: 3, problems: [], given: undefined }, 'absent fields take MM2 defaults');
    assert.deepEqual(Object.values(d.given), ['', '', '', '', ''], 'nothing given');
  });

  it('honours -1: the broker default replication factor', function () {
    const r = resolveReplicationSettings({ ...GOOD, replicationFactor: '-1' });
    assert.deepEqual(r.problems, []);
    assert.equal(r.replicationFactor, -1);
    assert.equal(resolveReplicationSettings({ ...GOOD, replicationFactor: -1 }).replicationFactor, -1);
  });

  /** @type {Array<[string, object, string, RegExp]>} */
  const cases = [
    ['an unknown offset-syncs location', { offsetSyncsLocation: 'middle' }, 'offset-syncs.topic.location', /'middle' is not one of 'source', 'target'/],
    ['an unknown policy class', { policy: 'com.example.MyPolicy' }, 'replication.policy.class', /'com\.example\.MyPolicy' is not one of/],
    ['a replication factor of abc', { replicationFactor: 'abc' }, 'checkpoints.topic.replication.factor', /'abc' is not a whole number/],
    ['a replication factor of 0', { replicationFactor: '0' }, 'checkpoints.topic.replication.factor', /must be at least 1, or -1/],
    ['a replication factor of -2', { replicationFactor: -2 }, 'checkpoints.topic.replication.factor', /must be at least 1, or -1/],
    ['a replication factor of 1.5', { replicationFactor: '1.5' }, 'checkpoints.topic.replication.factor', /not a whole number/],
    ['a replication factor with junk', { replicationFactor: '3x' }, 'checkpoints.topic.replication.factor', /not a whole number/],
    ['an empty separator', { separator: '' }, 'replication.policy.separator', /must not be empty or blank/],
    ['a blank separator', { separator: '  ' }, 'replication.policy.separator', /must not be empty or blank/],
    ['a separator with a character topic names cannot hold', { separator: '/' }, 'replication.policy.separator', /may contain only/],
    ['an internal-separator flag that is not a boolean', { internalSeparator: 'maybe' }, 'replication.policy.internal.topic.separator.enabled', /not a boolean/],
  ];
  for (const [what, over, property, reason] of cases) {
    it(`refuses ${what}, naming ${property}`, function () {
      const p = problemsOf(over);
      assert.equal(p.length, 1, JSON.stringify(p));
      assert.equal(p[0].property, property);
      assert.match(p[0].reason, reason);
    });
  }
});

describe('refused settings: aliases too long for the topic names they make (Kafka allows 249 characters)', function () {
  const { readReplicationSettings } = require('../../dist/nodes/mm2-replication/mm2-replication-settings');
  const read = (aliases, over = {}) => readReplicationSettings({ ...GOOD, ...over }, aliases, () => undefined);

  it('a 245-character source alias (its checkpoints topic: 266 characters) is refused naming the field and the longest alias allowed', function () {
    const r = read({ source: 'a'.repeat(245), target: 'west' });
    assert.equal(r.values.policy, null, 'no policy: the flow nodes refuse to start instead of waiting for a topic Kafka cannot create');
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0], /^source\.cluster\.alias: the alias 'a{40}…' \(245 characters, the source mm2-cluster's Alias\) makes the topic 'a{40}…' 266 characters long, and Kafka allows 249: give that cluster an alias of at most 228 characters$/);
  });

  it('a target alias too long for the offset-syncs topic on the source; 228 and 223 characters fit', function () {
    const r = read({ source: 'east', target: 'b'.repeat(230) });
    assert.deepEqual(r.problems.map((p) => p.split(':')[0]), ['target.cluster.alias']);
    assert.match(r.problems[0], /'mm2-offset-syncs\.b+…' 256 characters long.*at most 223 characters$/);
    assert.deepEqual(read({ source: 'a'.repeat(228), target: 'b'.repeat(223) }).problems, []);
    // with the offset syncs on the target, the topic is named after the source
    assert.deepEqual(read({ source: 'east', target: 'b'.repeat(230) }, { offsetSyncsLocation: 'target' }).problems, []);
  });
});

describe('refused settings: export and the other nodes', function () {
  const flow = (rf) => ({
    replication: { ...GOOD, replicationFactor: rf },
    source: { id: 'src', alias: 'east', bootstrap: 'k1:9092' },
    target: { id: 'tgt', alias: 'west', bootstrap: 'k2:9092' },
    nodes: [{ id: 'cp', type: 'mm2-checkpoint' }, { id: 'hb', type: 'mm2-heartbeat' }, { id: 'm', type: 'mm2-mirror' }],
  });

  it('the Kafka Connect export carries -1 as the user wrote it', function () {
    const r = exportConnectors(flow('-1'));
    assert.deepEqual(r.problems, []);
    const cfg = (kind) => r.connectors.find((c) => c.kind === kind).config;
    assert.equal(cfg('checkpoint')['checkpoints.topic.replication.factor'], '-1');
    assert.equal(cfg('heartbeat')['heartbeats.topic.replication.factor'], '-1');
    assert.equal(cfg('source')['offset-syncs.topic.replication.factor'], '-1');
  });

  it('the export reports a bad replication factor instead of writing 3', function () {
    for (const rf of ['abc', '0']) {
      const r = exportConnectors(flow(rf));
      assert.ok(r.problems.some((p) => p.property === 'checkpoints.topic.replication.factor'), rf);
    }
  });

  it('numbers with junk, a negative offset.lag.max and a bad mirror replication factor are refused', function () {
    assert.throws(() => parseMirrorSettings({ offsetLagMax: '-1' }), /offset\.lag\.max: must be 0 or more records/);
    assert.throws(() => parseMirrorSettings({ offsetLagMax: '10 records' }), /offset\.lag\.max: '10 records' is not a whole number/);
    assert.throws(() => parseMirrorSettings({ replicationFactor: '0' }), /replication\.factor: must be at least 1, or -1/);
    assert.throws(() => parseMirrorSettings({ offsetFlushIntervalMs: '1e3' }), /offset\.flush\.interval\.ms: '1e3' is not a number/);
    assert.equal(parseMirrorSettings({ replicationFactor: '-1' }).replicationFactor, -1);
    assert.equal(normaliseValue(getPropertyDef('offset.lag.max'), '-5').ok, false, 'the catalogue refuses it too (paste, export)');
  });
});

describe('offsetTranslation (mm2-replication, ours, not an MM2 property)', function () {
  const { readReplicationSettings } = require('../../dist/nodes/mm2-replication/mm2-replication-settings');
  const read = (over) => readReplicationSettings({ ...GOOD, ...over }, { source: 'east', target: 'west' }, () => undefined);

  it("is 'precise' when absent or empty, and takes 'mm2'", function () {
    assert.equal(read({}).values.offsetTranslation, 'precise');
    assert.equal(read({ offsetTranslation: '' }).values.offsetTranslation, 'precise');
    assert.equal(read({ offsetTranslation: 'mm2' }).values.offsetTranslation, 'mm2');
    assert.deepEqual(read({ offsetTranslation: 'mm2' }).problems, []);
  });

  it('refuses an unknown value, naming the field and the choices', function () {
    const r = read({ offsetTranslation: 'exact' });
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0], /offsetTranslation/);
    assert.match(r.problems[0], /"exact" is not one of precise, mm2/);
    assert.equal(r.values.policy, null, 'a refused flow makes no policy');
  });

  it('is never in the MM2 property map, nor in any export format', function () {
    assert.ok(!Object.keys(read({ offsetTranslation: 'mm2' }).values.props).some((k) => /translation/i.test(k)));
    const flow = {
      replication: { ...GOOD, offsetTranslation: 'mm2' },
      source: { id: 'src', alias: 'east', bootstrap: 'k1:9092' },
      target: { id: 'tgt', alias: 'west', bootstrap: 'k2:9092' },
      nodes: [{ id: 'cp', type: 'mm2-checkpoint' }, { id: 'm', type: 'mm2-mirror' }],
    };
    const r = exportConnectors(flow);
    assert.deepEqual(r.problems, []);
    assert.ok(r.connectors.length >= 2);
    for (const c of r.connectors) assert.ok(!Object.keys(c.config).some((k) => /translation/i.test(k)), c.kind);
    assert.doesNotMatch(JSON.stringify(r.mm2Properties), /translation/i);
  });
});
