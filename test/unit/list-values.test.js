'use strict';
/**
 * List settings as Kafka 4.2+ checks them (ConfigDef.ValidList.anyNonDuplicateValues on topics,
 * topics.exclude, groups, groups.exclude, config.properties.exclude, ...): a duplicate or an
 * empty item is refused naming the property, the item and the fix, in the one rule every
 * reader uses: the nodes' fields, the filters, the paste/import and the Connect export.
 * Before: `orders,orders,,billing,` was accepted silently (the empties dropped, the duplicate
 * kept), and the export handed MM2 4.2+ a config it refuses.
 */
const assert = require('node:assert/strict');
const { listItemsProblem } = require('../../dist/core/list-values');
const { getPropertyDef, normaliseValue } = require('../../dist/core/config-properties');
const { createGroupFilter, createTopicFilter } = require('../../dist/core/filters');
const { createConfigPropertyFilter } = require('../../dist/core/topic-sync');
const { resolveNodeSettings } = require('../../dist/core/setting-fields');
const { parseMirrorSettings } = require('../../dist/core/mirror-settings');
const { analyzeConnectorConfig } = require('../../dist/core/connector-config');
const { exportConnectors } = require('../../dist/flows/export-connectors');
const { buildFlowFromText } = require('../../dist/flows/build-flow');

const LISTS = ['topics', 'topics.exclude', 'groups', 'groups.exclude', 'config.properties.exclude'];

describe('list settings: duplicate and empty items refused as MM2 4.2+ refuses them', function () {
  it('names each duplicated item with its count, and each empty item by position', function () {
    const p = listItemsProblem('orders,orders,,billing,');
    assert.match(p, /^values must not be duplicated: 'orders' is listed 2 times; list each item once/);
    assert.match(p, /values must not be empty: items 3, 5 of 5 are empty \(a doubled, leading or trailing comma\); remove the extra commas/);
    assert.match(listItemsProblem('a, b ,a , b'), /'a' is listed 2 times, 'b' is listed 2 times/);
    assert.match(listItemsProblem(',a'), /^values must not be empty: item 1 of 2 is empty.*remove the extra comma \(/);
    assert.match(listItemsProblem(['g1', ' g1 ']), /'g1' is listed 2 times/, 'array items are trimmed as the export writes them');
    assert.match(listItemsProblem(' , '), /values must not be empty: items 1, 2 of 2/);
  });

  it('accepts distinct items, spaces around commas, and the empty list', function () {
    for (const ok of ['', '   ', 'orders', ' orders , billing ', 'a.*, a', 'A,a', [], ['x', 'y']]) assert.equal(listItemsProblem(ok), undefined, JSON.stringify(ok));
  });

  it('the catalogue refuses it for every MM2 list property (nodes, paste and export read through it)', function () {
    for (const name of [...LISTS, 'metric.reporters', 'source.cluster.bootstrap.servers']) {
      const d = getPropertyDef(name);
      assert.equal(d.type, 'list', name);
      const dup = name.includes('bootstrap') ? 'h:1,h:1' : name === 'metric.reporters' ? 'a.B,a.B' : 'x,x';
      const r = normaliseValue(d, dup);
      assert.equal(r.ok, false, name);
      assert.match(r.reason, /values must not be duplicated/);
      assert.equal(normaliseValue(d, dup.split(',')[0] + ',').ok, false, `${name}: trailing comma`);
    }
    assert.deepEqual(normaliseValue(getPropertyDef('groups'), ' a ,  b '), { ok: true, value: 'a, b' });
    assert.deepEqual(normaliseValue(getPropertyDef('groups'), ''), { ok: true, value: '' });
  });

  it('the filters refuse it naming the property (createGroupFilter, createTopicFilter, config.properties.exclude)', function () {
    assert.throws(() => createGroupFilter({ groups: 'orders,orders,,billing,' }), (/** @type {any} */ e) => {
      assert.equal(e.name, 'ConfigError');
      assert.equal(e.problems[0].property, 'groups');
      assert.match(e.message, /^groups: values must not be duplicated: 'orders'.*values must not be empty/);
      return true;
    });
    assert.throws(() => createGroupFilter({ 'groups.exclude': 'x,' }), /^ConfigError: groups\.exclude: values must not be empty/);
    assert.throws(() => createTopicFilter({ topics: ['t', 't'] }), /topics: values must not be duplicated: 't'/);
    assert.throws(() => createTopicFilter({ 'topics.exclude': ',,' }), /topics\.exclude: values must not be empty: items 1, 2, 3 of 3/);
    assert.throws(() => createConfigPropertyFilter('retention\\.ms, retention\\.ms'), /config\.properties\.exclude: values must not be duplicated: 'retention\\\.ms'/);
  });

  it("a node's fields (checkpoint, group-offsets, mirror) are refused naming the MM2 property", function () {
    const r = resolveNodeSettings({ groups: 'orders,orders', groupsExclude: 'x,,y' }, ['groups', 'groups.exclude'], () => undefined);
    assert.deepEqual(r.problems.map((p) => p.property).sort(), ['groups', 'groups.exclude']);
    assert.match(r.problems.find((p) => p.property === 'groups').reason, /'orders' is listed 2 times/);
    assert.match(r.problems.find((p) => p.property === 'groups.exclude').reason, /item 2 of 3 is empty/);
    assert.throws(() => parseMirrorSettings({ topics: 'orders,,billing' }), /topics: values must not be empty: item 2 of 3/);
    assert.throws(() => parseMirrorSettings({ configPropertiesExclude: 'a,a' }), /config\.properties\.exclude: values must not be duplicated/);
    // ${VAR} is substituted first: the value the node would use is checked
    const env = resolveNodeSettings({ topics: '${T}' }, ['topics'], (n) => (n === 'T' ? 'a,a' : undefined));
    assert.match(env.problems[0].reason, /'a' is listed 2 times/);
  });

  it('an mm2-cluster node refuses a bootstrap server listed twice (exported as bootstrap.servers, which Kafka 4.2+ refuses)', function () {
    const { validateClusterSettings } = require('../../dist/kafka/client');
    const problems = validateClusterSettings({ alias: 'east', bootstrapServers: ['k1:9092', 'k2:9092', 'k1:9092'] });
    assert.equal(problems.length, 1, problems.join('; '));
    assert.match(problems[0], /^bootstrap servers: values must not be duplicated: 'k1:9092' is listed 2 times/);
    assert.deepEqual(validateClusterSettings({ alias: 'east', bootstrapServers: ['k1:9092', 'k2:9092'] }), []);
  });

  it('a pasted connector config, mm2.properties or Strimzi resource is refused naming the property', function () {
    const a = analyzeConnectorConfig({ 'connector.class': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector', 'source.cluster.alias': 'a', 'target.cluster.alias': 'b', groups: 'orders,orders,,billing,' });
    assert.deepEqual(a.problems.map((p) => p.property), ['groups']);
    assert.match(a.problems[0].reason, /'orders' is listed 2 times.*items 3, 5 of 5 are empty/);
    const props = ['clusters = a, b', 'a.bootstrap.servers = h:1', 'b.bootstrap.servers = h:2', 'a->b.enabled = true', 'a->b.topics = orders,,billing'].join('\n');
    const b = buildFlowFromText(props);
    assert.ok(b.problems.some((p) => p.property.endsWith('topics') && /values must not be empty/.test(p.reason)), JSON.stringify(b.problems));
    assert.equal(b.nodes.length, 0, 'no flow is built from a config MM2 refuses');
  });

  it('the Connect export reports the property instead of writing a config MM2 4.2+ refuses', function () {
    const flow = (cp) => ({
      replication: { policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', replicationFactor: 3 },
      source: { id: 'src', alias: 'east', bootstrap: 'k1:9092' },
      target: { id: 'tgt', alias: 'west', bootstrap: 'k2:9092' },
      nodes: [{ id: 'cp', type: 'mm2-checkpoint', ...cp }, { id: 'm', type: 'mm2-mirror', topics: 'orders, orders' }],
    });
    const r = exportConnectors(flow({ groups: 'orders,orders,,billing,' }));
    const props = r.problems.map((p) => p.property);
    assert.ok(props.includes('groups'), JSON.stringify(r.problems));
    assert.ok(props.includes('topics'), JSON.stringify(r.problems));
    assert.match(r.problems.find((p) => p.property === 'groups').reason, /'orders' is listed 2 times/);
    const clean = exportConnectors({ ...flow({ groups: 'orders, billing' }), nodes: [{ id: 'cp', type: 'mm2-checkpoint', groups: 'orders, billing' }, { id: 'm', type: 'mm2-mirror', topics: 'orders' }] });
    assert.deepEqual(clean.problems, []);
    assert.equal(clean.connectors.find((c) => c.kind === 'checkpoint').config.groups, 'orders, billing');
  });
});
