'use strict';
/**
 * Export of a replication flow as MM2 connector configs (Connect REST JSON, Google Cloud YAML,
 * .properties, dedicated-mode mm2.properties) and the way back (import).
 */
const assert = require('node:assert/strict');
const { exportConnectors } = require('../../dist/flows/export-connectors');
const { exportText } = require('../../dist/core/export/connectors');
const { flowFromConnectorConfigs } = require('../../dist/flows/import-connectors');
const { connectorConfigsFromMm2Properties } = require('../../dist/core/export/mm2-properties');
const { jaasConfig, parseJaasConfig } = require('../../dist/core/export/jaas');
const { FLOW_NODE_PROPERTIES } = require('../../dist/flows/node-types');
const { BYTE_ARRAY_CONVERTER, CONNECTOR_KINDS } = require('../../dist/core/export/model');
const { parseConnectorConfig, analyzeConnectorConfig } = require('../../dist/core/connector-config');
const { parseJavaProperties } = require('../../dist/core/java-properties');
const { CONFIG_DEFAULTS, propertiesFor, getPropertyDef } = require('../../dist/core/config-properties');
const { fieldName } = require('../../dist/core/setting-fields');
const { NODE_SETTINGS, parseConfigForNode } = require('../../dist/nodes/shared/settings');

const GOOGLE_SAMPLE = `connector.class: "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"
emit.checkpoints.interval.seconds: "10"
groups: "orders-.*,billing"
groups.exclude: "console-consumer-.*,connect-.*,__.*"
source.cluster.alias: "source"
source.cluster.bootstrap.servers: "127.0.0.1:19092"
sync.group.offsets.enabled: "true"
sync.group.offsets.interval.seconds: "10"
target.cluster.alias: "target"
target.cluster.bootstrap.servers: "127.0.0.1:29092"
tasks.max: "3"
`;

const PASSWORD = 's3cr"et\\pw';

/**
 * A flow where every field is set to a non-default value.
 * @returns {Parameters<typeof exportConnectors>[0]}
 */
function fullFlow(over = {}) {
  return {
    replication: { policy: 'IdentityReplicationPolicy', separator: '_', internalSeparator: false, offsetSyncsLocation: 'target', replicationFactor: '2' },
    source: { id: 'src', alias: 'east', bootstrap: 'k1:9092, k2:9092', saslMechanism: 'scram-sha-512', username: 'alice', password: PASSWORD, tls: { ca: '/etc/ca.pem' } },
    target: { id: 'tgt', alias: 'west', bootstrap: '10.0.0.1:9093' },
    nodes: [
      {
        id: 'mirror', type: 'mm2-mirror', topics: 'orders, billing', topicsExclude: 'tmp-.*', offsetLagMax: '7', refreshTopicsIntervalSeconds: '30',
        heartbeatsReplicationEnabled: false, replicationFactor: '-1', emitOffsetSyncsEnabled: true, offsetFlushIntervalMs: '2000',
        syncTopicConfigsEnabled: true, syncTopicConfigsIntervalSeconds: '120', configPropertiesExclude: 'segment\\.bytes, min\\.insync\\.replicas',
        syncTopicAclsEnabled: false, syncTopicAclsIntervalSeconds: '300',
      },
      {
        id: 'cp', type: 'mm2-checkpoint', groups: 'orders-.*', groupsExclude: 'test-.*', topics: 'orders, billing', topicsExclude: 'tmp-.*',
        emitCheckpointsIntervalSeconds: '5', refreshGroupsIntervalSeconds: '20',
      },
      { id: 'go', type: 'mm2-group-offsets', mode: 'input', syncGroupOffsetsIntervalSeconds: '4', groups: '', groupsExclude: '' },
      { id: 'hb', type: 'mm2-heartbeat', emitHeartbeatsEnabled: true, emitHeartbeatsIntervalSeconds: '3', watch: true, staleAfterSeconds: '30' },
      { id: 'syncs', type: 'mm2-offset-syncs' },
      ...(over.nodes || []),
    ],
  };
}

const byKind = (r, kind) => r.connectors.find((c) => c.kind === kind);

describe('connector export (flow -> MM2 connector configs)', function () {
  it('the checkpoint node fields are the ones nodes/shared/settings declares', function () {
    assert.deepEqual([...FLOW_NODE_PROPERTIES['mm2-checkpoint']], [...NODE_SETTINGS['mm2-checkpoint']]);
    for (const list of Object.values(FLOW_NODE_PROPERTIES)) for (const p of list) assert.ok(getPropertyDef(p), `${p} is catalogued`);
  });

  it('exports the three connectors with names, classes and ByteArrayConverter for keys, values and headers', function () {
    const r = exportConnectors(fullFlow());
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.connectors.map((c) => [c.kind, c.name]), [
      ['source', 'mm2-east-west-source'],
      ['checkpoint', 'mm2-east-west-checkpoint'],
      ['heartbeat', 'mm2-east-west-heartbeat'],
    ]);
    for (const c of r.connectors) {
      assert.equal(c.config['connector.class'], `org.apache.kafka.connect.mirror.Mirror${c.kind[0].toUpperCase()}${c.kind.slice(1)}Connector`);
      for (const k of ['key.converter', 'value.converter', 'header.converter']) assert.equal(c.config[k], BYTE_ARRAY_CONVERTER);
      assert.equal(c.config.name, c.name);
      assert.deepEqual(c.rest, { name: c.name, config: c.config });
      assert.deepEqual(JSON.parse(c.json), c.rest);
      assert.deepEqual(c.from, { source: ['mirror'], checkpoint: ['cp', 'go'], heartbeat: ['hb'] }[c.kind]);
    }
  });

  it('every node setting maps to its MM2 property in the right connector', function () {
    const r = exportConnectors(fullFlow());
    const src = byKind(r, 'source').config;
    const cp = byKind(r, 'checkpoint').config;
    const hb = byKind(r, 'heartbeat').config;
    // mirror node -> MirrorSourceConnector
    assert.equal(src.topics, 'orders, billing');
    assert.equal(src['topics.exclude'], 'tmp-.*');
    assert.equal(src['offset.lag.max'], '7');
    assert.equal(src['refresh.topics.interval.seconds'], '30');
    assert.equal(src['heartbeats.replication.enabled'], 'false');
    assert.equal(src['replication.factor'], '-1');
    assert.equal(src['emit.offset-syncs.enabled'], 'true');
    assert.equal(src['offset.flush.interval.ms'], undefined, 'a worker setting, not a connector property');
    assert.ok(r.notes.some((n) => n.code === 'worker-setting' && n.property === 'offset.flush.interval.ms'));
    // checkpoint + group-offsets nodes -> MirrorCheckpointConnector
    assert.equal(cp.groups, 'orders-.*');
    assert.equal(cp['groups.exclude'], 'test-.*');
    assert.equal(cp.topics, 'orders, billing');
    assert.equal(cp['topics.exclude'], 'tmp-.*');
    assert.equal(cp['emit.checkpoints.interval.seconds'], '5');
    assert.equal(cp['refresh.groups.interval.seconds'], '20');
    assert.equal(cp['sync.group.offsets.enabled'], 'true');
    assert.equal(cp['sync.group.offsets.interval.seconds'], '4');
    // heartbeat node -> MirrorHeartbeatConnector
    assert.equal(hb['emit.heartbeats.enabled'], 'true');
    assert.equal(hb['emit.heartbeats.interval.seconds'], '3');
    // replication node -> every connector (policy) and the internal topics
    for (const c of [src, cp, hb]) {
      assert.equal(c['replication.policy.class'], 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy');
      assert.equal(c['replication.policy.separator'], '_');
      assert.equal(c['replication.policy.internal.topic.separator.enabled'], 'false');
      assert.equal(c['source.cluster.alias'], 'east');
      assert.equal(c['target.cluster.alias'], 'west');
      assert.equal(c['source.cluster.bootstrap.servers'], 'k1:9092, k2:9092');
      assert.equal(c['target.cluster.bootstrap.servers'], '10.0.0.1:9093');
      // cluster security (SASL over TLS with the tls-config node's CA file)
      assert.equal(c['source.cluster.security.protocol'], 'SASL_SSL');
      assert.equal(c['source.cluster.sasl.mechanism'], 'SCRAM-SHA-512');
      assert.equal(c['source.cluster.ssl.truststore.type'], 'PEM');
      assert.equal(c['source.cluster.ssl.truststore.location'], '/etc/ca.pem');
      assert.equal(c['target.cluster.security.protocol'], undefined, 'PLAINTEXT is the default');
    }
    assert.equal(src['offset-syncs.topic.location'], 'target');
    assert.equal(cp['offset-syncs.topic.location'], 'target');
    assert.equal(src['offset-syncs.topic.replication.factor'], '2');
    assert.equal(cp['checkpoints.topic.replication.factor'], '2');
    assert.equal(hb['heartbeats.topic.replication.factor'], '2');
    // nothing of one connector leaks into another
    assert.equal(hb.groups, undefined);
    assert.equal(cp['offset.lag.max'], undefined);
    assert.equal(src['emit.heartbeats.interval.seconds'], undefined);
  });

  it('empty fields take MM2 defaults, written explicitly; a flow without nodes exports the flow-wide settings', function () {
    const r = exportConnectors({
      replication: {},
      source: { alias: 'a', bootstrap: 'h:1' },
      target: { alias: 'b', bootstrap: 'h:2' },
      nodes: [{ id: 'cp', type: 'mm2-checkpoint', groups: '', emitCheckpointsIntervalSeconds: '' }],
    });
    const cp = byKind(r, 'checkpoint').settings;
    assert.equal(cp.groups, CONFIG_DEFAULTS.groups);
    assert.equal(cp['emit.checkpoints.interval.seconds'], 60);
    assert.equal(cp['checkpoints.topic.replication.factor'], 3);
    assert.equal(cp['replication.policy.class'], 'org.apache.kafka.connect.mirror.DefaultReplicationPolicy');
    assert.equal(byKind(r, 'source').from.length, 0);
    assert.ok(r.notes.some((n) => n.code === 'no-node' && n.connector === 'source'));
    assert.equal(byKind(r, 'checkpoint').config['sync.group.offsets.enabled'], undefined, 'no group-offsets node: MM2 default (off)');
  });

  it('round trip: every connector text parses back (parseConnectorConfig) to the same settings, in all three formats', function () {
    for (const includeSecrets of [false, true]) {
      const r = exportConnectors(fullFlow(), { includeSecrets, tasksMax: 2 });
      for (const c of r.connectors) {
        const expected = analyzeConnectorConfig(c.settings).settings;
        for (const format of /** @type {const} */ (['json', 'yaml', 'properties'])) {
          const back = parseConnectorConfig(c[format]);
          assert.deepEqual(back, expected, `${c.kind} ${format} includeSecrets=${includeSecrets}`);
        }
        assert.deepEqual(parseConnectorConfig(c.config), expected);
        assert.equal(c.settings['tasks.max'], 2);
      }
    }
  });

  it('round trip: export -> import -> export gives the same connector configs', function () {
    const r1 = exportConnectors(fullFlow(), { includeSecrets: true, tasksMax: { source: 4, checkpoint: 2 } });
    const flow = flowFromConnectorConfigs(r1.connectors.map((c) => c.yaml));
    assert.deepEqual(flow.problems, []);
    assert.deepEqual(flow.connectors, ['source', 'checkpoint', 'heartbeat']);
    const r2 = exportConnectors(flow, { ...flow.options, includeSecrets: true });
    for (const kind of CONNECTOR_KINDS) assert.deepEqual(byKind(r2, kind).config, byKind(r1, kind).config, kind);
    assert.equal(flow.source.username, 'alice');
    assert.equal(flow.source.password, PASSWORD);
    assert.deepEqual(flow.source.tls, { ca: '/etc/ca.pem' });
    assert.equal(flow.replication.policy, 'IdentityReplicationPolicy');
    assert.equal(flow.replication.replicationFactor, 2);
  });

  describe('secrets', function () {
    it('are never written in clear by default: config-provider references, a template without the password, a comment', function () {
      const r = exportConnectors(fullFlow());
      const ref = '${file:/path/to/secrets.properties:source.cluster.sasl.jaas.config}';
      for (const c of r.connectors) {
        assert.equal(c.config['source.cluster.sasl.jaas.config'], ref);
        assert.equal(parseConnectorConfig(c.yaml)['source.cluster.sasl.jaas.config'], ref);
        for (const text of [c.json, c.yaml, c.properties]) assert.ok(!text.includes('s3cr'), `${c.kind}: no password`);
        assert.match(c.yaml, /^# Secrets are \$\{file:/m);
      }
      assert.ok(!r.mm2Properties.includes('s3cr'));
      const mm2 = Object.fromEntries(parseJavaProperties(r.mm2Properties).entries);
      assert.equal(mm2['east.sasl.jaas.config'], '${file:/path/to/secrets.properties:east.sasl.jaas.config}');
      assert.equal(mm2['config.providers'], 'file');
      assert.equal(mm2['config.providers.file.class'], 'org.apache.kafka.common.config.provider.FileConfigProvider');
      assert.equal(r.secrets.included, false);
      assert.deepEqual(r.secrets.properties, ['source.cluster.sasl.jaas.config', 'east.sasl.jaas.config']);
      assert.ok(!r.secrets.template.includes('s3cr'));
      const tpl = Object.fromEntries(parseJavaProperties(r.secrets.template).entries);
      assert.equal(tpl['source.cluster.sasl.jaas.config'], 'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="<password>";');
      assert.equal(r.warning, undefined);
      assert.equal(r.notes[0].code, 'secrets-referenced');
      assert.ok(!JSON.stringify(r).includes('s3cr'), 'nowhere in the result');
    });

    it('a custom secrets file is named in the references', function () {
      const r = exportConnectors(fullFlow(), { secretsFile: '/etc/kafka/mm2-secrets.properties' });
      assert.equal(byKind(r, 'source').config['source.cluster.sasl.jaas.config'], '${file:/etc/kafka/mm2-secrets.properties:source.cluster.sasl.jaas.config}');
    });

    it('with includeSecrets: the JAAS line in clear, a warning comment in every text and a warning field', function () {
      const r = exportConnectors(fullFlow(), { includeSecrets: true });
      const jaas = jaasConfig('scram-sha-512', 'alice', PASSWORD);
      assert.equal(jaas, 'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="s3cr\\"et\\\\pw";');
      assert.deepEqual(parseJaasConfig(jaas), { module: 'org.apache.kafka.common.security.scram.ScramLoginModule', username: 'alice', password: PASSWORD });
      for (const c of r.connectors) {
        assert.equal(c.config['source.cluster.sasl.jaas.config'], jaas);
        assert.match(c.yaml, /^# WARNING: this export contains passwords in clear/);
        assert.match(c.properties, /^# WARNING: this export contains passwords in clear/);
        assert.equal(parseConnectorConfig(c.properties)['source.cluster.sasl.jaas.config'], jaas);
      }
      assert.match(r.mm2Properties, /^# WARNING: this export contains passwords in clear/m);
      assert.equal(Object.fromEntries(parseJavaProperties(r.mm2Properties).entries)['east.sasl.jaas.config'], jaas);
      assert.ok(!r.mm2Properties.includes('config.providers'));
      assert.match(r.warning, /passwords in clear/);
      assert.equal(r.secrets.included, true);
      assert.equal(r.secrets.template, '');
      assert.equal(r.notes[0].code, 'secrets-included');
    });

    it('PLAIN and SCRAM-SHA-256 get their login modules; no SASL means no secret at all', function () {
      assert.match(jaasConfig('plain', 'u', 'p'), /^org\.apache\.kafka\.common\.security\.plain\.PlainLoginModule required/);
      assert.match(jaasConfig('scram-sha-256', 'u', 'p'), /ScramLoginModule/);
      const r = exportConnectors({ replication: {}, source: { alias: 'a', bootstrap: 'h:1' }, target: { alias: 'b', bootstrap: 'h:2', tls: true } });
      assert.deepEqual(r.secrets.properties, []);
      assert.equal(byKind(r, 'source').config['target.cluster.security.protocol'], 'SSL');
      assert.ok(!r.mm2Properties.includes('config.providers'));
    });
  });

  describe('mm2.properties (dedicated mode)', function () {
    it('parses as .properties with clusters, bootstraps, the enabled flow and the per-flow settings', function () {
      const r = exportConnectors(fullFlow());
      const { entries, problems } = parseJavaProperties(r.mm2Properties);
      assert.deepEqual(problems, []);
      const p = Object.fromEntries(entries);
      assert.equal(p.clusters, 'east, west');
      assert.equal(p['east.bootstrap.servers'], 'k1:9092, k2:9092');
      assert.equal(p['west.bootstrap.servers'], '10.0.0.1:9093');
      assert.equal(p['east.security.protocol'], 'SASL_SSL');
      assert.equal(p['east.sasl.mechanism'], 'SCRAM-SHA-512');
      assert.equal(p['east.ssl.truststore.location'], '/etc/ca.pem');
      assert.equal(p['east->west.enabled'], 'true');
      assert.equal(p['west->east.enabled'], 'false');
      assert.equal(p['east->west.topics'], 'orders, billing');
      assert.equal(p['east->west.groups'], 'orders-.*');
      assert.equal(p['east->west.offset.lag.max'], '7');
      assert.equal(p['east->west.sync.group.offsets.enabled'], 'true');
      assert.equal(p['east->west.emit.checkpoints.interval.seconds'], '5');
      assert.equal(p['east->west.offset-syncs.topic.location'], 'target');
      assert.equal(p['replication.policy.class'], 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy');
      assert.equal(p['replication.policy.separator'], '_');
      // the reverse herder's heartbeats land in the source cluster, as the mm2-heartbeat node's do
      assert.equal(p['west->east.emit.heartbeats.interval.seconds'], '3');
      assert.equal(p['east->west.emit.heartbeats.interval.seconds'], '3');
      assert.equal(p['offset.flush.interval.ms'], '2000');
      for (const k of ['checkpoints', 'heartbeats', 'offset-syncs']) assert.equal(p[`${k}.topic.replication.factor`], '2');
      for (const k of ['offset', 'status', 'config']) assert.equal(p[`${k}.storage.replication.factor`], '2');
    });

    it('gives each connector the same settings as its Connect config (as MirrorMakerConfig derives them)', function () {
      const r = exportConnectors(fullFlow(), { includeSecrets: true, tasksMax: 2 });
      const d = connectorConfigsFromMm2Properties(r.mm2Properties);
      assert.deepEqual(d.problems, []);
      assert.equal(d.source, 'east');
      assert.equal(d.target, 'west');
      for (const kind of CONNECTOR_KINDS) {
        const dedicated = analyzeConnectorConfig(d.configs[kind]).settings;
        const connect = byKind(r, kind).settings;
        for (const def of propertiesFor(kind)) {
          if (def.name === 'name') continue;
          assert.deepEqual(dedicated[def.name], connect[def.name], `${kind}: ${def.name}`);
        }
      }
    });

    it('one `topics` per flow: when the mirror and checkpoint nodes differ, the mirror wins and a note says so', function () {
      const flow = fullFlow();
      flow.nodes[1].topics = 'orders';
      const r = exportConnectors(flow);
      assert.equal(Object.fromEntries(parseJavaProperties(r.mm2Properties).entries)['east->west.topics'], 'orders, billing');
      assert.ok(r.notes.some((n) => n.code === 'dedicated-topics'));
      assert.equal(byKind(r, 'checkpoint').config.topics, 'orders', 'the Connect configs keep each node');
    });

    it('connectors not exported are switched off in dedicated mode', function () {
      const r = exportConnectors(fullFlow(), { connectors: ['checkpoint'] });
      assert.deepEqual(r.connectors.map((c) => c.kind), ['checkpoint']);
      const p = Object.fromEntries(parseJavaProperties(r.mm2Properties).entries);
      assert.equal(p['east->west.emit.heartbeats.enabled'], 'false');
      assert.equal(p['west->east.emit.heartbeats.enabled'], 'false');
      assert.equal(p['east->west.emit.offset-syncs.enabled'], 'true');
    });
  });

  describe('choices and problems', function () {
    it('an enabled node before a disabled one, a heartbeat node that emits before a watcher; notes name the choice', function () {
      const r = exportConnectors(fullFlow({
        nodes: [
          { id: 'cp-off', type: 'mm2-checkpoint', d: true, groups: 'other' },
          { id: 'hb-watch', type: 'mm2-heartbeat', emitHeartbeatsEnabled: false, emitHeartbeatsIntervalSeconds: '9' },
        ],
      }));
      assert.equal(byKind(r, 'checkpoint').config.groups, 'orders-.*');
      assert.equal(byKind(r, 'heartbeat').config['emit.heartbeats.interval.seconds'], '3');
      assert.equal(r.notes.filter((n) => n.code === 'several-nodes').length, 2);
      const only = exportConnectors({ ...fullFlow(), nodes: [{ id: 'cp-off', type: 'mm2-checkpoint', d: true, groups: 'other' }] });
      assert.equal(byKind(only, 'checkpoint').config.groups, 'other', 'a disabled node still describes the flow');
    });

    it('a fractional group-offsets interval is rounded up; a narrower group-offsets filter is a note', function () {
      const flow = fullFlow();
      flow.nodes[2].syncGroupOffsetsIntervalSeconds = '2.5';
      flow.nodes[2].groups = 'orders-1';
      const r = exportConnectors(flow);
      assert.equal(byKind(r, 'checkpoint').config['sync.group.offsets.interval.seconds'], '3');
      assert.ok(r.notes.some((n) => n.code === 'interval-rounded'));
      assert.ok(r.notes.some((n) => n.code === 'group-filter'));
    });

    it('${VAR} is substituted from the lookup; unset variables and bad values are problems named by property', function () {
      const flow = fullFlow();
      flow.source.bootstrap = '${KAFKA_HOST}:9092';
      flow.nodes[1].groups = '${TEAM}-.*';
      const ok = exportConnectors(flow, { lookup: (n) => ({ KAFKA_HOST: 'kafka.example', TEAM: 'blue' })[n] });
      assert.deepEqual(ok.problems, []);
      assert.equal(byKind(ok, 'source').config['source.cluster.bootstrap.servers'], 'kafka.example:9092');
      assert.equal(byKind(ok, 'checkpoint').config.groups, 'blue-.*');
      const bad = exportConnectors(flow);
      assert.ok(bad.problems.some((p) => p.property === 'source.cluster.bootstrap.servers' && /KAFKA_HOST/.test(p.reason)));
      assert.ok(bad.problems.some((p) => p.property === 'groups' && /TEAM/.test(p.reason)));
      flow.nodes[1].groups = '[';
      flow.target.alias = 'east';
      const worse = exportConnectors(flow, { lookup: () => 'x' });
      assert.ok(worse.problems.some((p) => p.property === 'groups'));
      assert.ok(worse.problems.some((p) => p.property === 'target.cluster.alias'));
    });

    it('TLS client certificates and uploaded certificates are notes, host name verification off is exported', function () {
      const r = exportConnectors({
        replication: {},
        source: { alias: 'a', bootstrap: 'h:1', tls: { cert: '/c.pem', key: '/k.pem', verifyServerCert: false, uploaded: true } },
        target: { alias: 'b', bootstrap: 'h:2' },
      });
      assert.equal(byKind(r, 'source').config['source.cluster.ssl.endpoint.identification.algorithm'], '');
      for (const code of ['tls-client-cert', 'tls-uploaded', 'tls-no-verify']) assert.ok(r.notes.some((n) => n.code === code), code);
    });
  });

  it('exportText: JSON array of REST bodies, YAML documents, .properties files, mm2.properties', function () {
    const r = exportConnectors(fullFlow());
    assert.deepEqual(JSON.parse(exportText(r, 'json')), r.connectors.map((c) => c.rest));
    const yaml = exportText(r, 'yaml');
    assert.equal(yaml.split('\n---\n').length, 3);
    for (const [i, doc] of yaml.split('\n---\n').entries()) assert.equal(parseConnectorConfig(doc).name, r.connectors[i].name);
    assert.match(exportText(r, 'properties'), /# ---- mm2-east-west-heartbeat\.properties/);
    assert.equal(exportText(r, 'mm2'), r.mm2Properties);
    assert.throws(() => exportText(r, /** @type {any} */ ('xml')), /unknown export format/);
  });
});

describe('connector import (Google Cloud sample -> flow)', function () {
  it('configures the same flow: replication, clusters, checkpoint and group-offsets nodes, tasks.max', function () {
    const f = flowFromConnectorConfigs([GOOGLE_SAMPLE]);
    assert.deepEqual(f.problems, []);
    assert.deepEqual(f.connectors, ['checkpoint']);
    assert.equal(f.source.alias, 'source');
    assert.equal(f.source.bootstrap, '127.0.0.1:19092');
    assert.equal(f.target.alias, 'target');
    assert.equal(f.target.bootstrap, '127.0.0.1:29092');
    assert.deepEqual(f.replication, {
      policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', replicationFactor: 3,
    });
    const cp = f.nodes.find((n) => n.type === 'mm2-checkpoint');
    assert.equal(cp.groups, 'orders-.*, billing');
    assert.equal(cp.groupsExclude, 'console-consumer-.*, connect-.*, __.*');
    assert.equal(cp.emitCheckpointsIntervalSeconds, '10');
    const go = f.nodes.find((n) => n.type === 'mm2-group-offsets');
    assert.equal(go.syncGroupOffsetsIntervalSeconds, '10');
    assert.deepEqual(f.options, { tasksMax: { checkpoint: 3 } });
    assert.deepEqual(f.notes, []);
  });

  it('its values round-trip through export (export -> parse -> the same values)', function () {
    const f = flowFromConnectorConfigs([GOOGLE_SAMPLE]);
    const r = exportConnectors(f, { ...f.options, connectors: f.connectors });
    const sample = parseConnectorConfig(GOOGLE_SAMPLE);
    for (const format of /** @type {const} */ (['json', 'yaml', 'properties'])) {
      const back = parseConnectorConfig(r.connectors[0][format]);
      for (const k of Object.keys(sample)) assert.deepEqual(back[k], sample[k], `${format}: ${k}`);
      // the only additions: the connector name and the converters MM2 needs on Connect
      const added = Object.keys(back).filter((k) => !(k in sample));
      assert.deepEqual(added.sort(), ['header.converter', 'key.converter', 'name', 'value.converter']);
    }
    assert.equal(r.connectors[0].config['tasks.max'], '3');
    assert.equal(r.connectors[0].config.groups, 'orders-.*, billing');
  });

  it('the paste endpoint (parseConfigForNode) fills the checkpoint node the same way and points sync.group.offsets.* at the group-offsets node', function () {
    const r = parseConfigForNode(GOOGLE_SAMPLE, 'mm2-checkpoint');
    const f = flowFromConnectorConfigs([GOOGLE_SAMPLE]);
    const cp = f.nodes.find((n) => n.type === 'mm2-checkpoint');
    const given = ['groups', 'groups.exclude', 'emit.checkpoints.interval.seconds'];
    for (const p of NODE_SETTINGS['mm2-checkpoint']) assert.equal(r.fields[fieldName(p)], given.includes(p) ? cp[fieldName(p)] : undefined, p);
    assert.deepEqual(r.problems, []);
    assert.equal(r.replication.fields.sourceAlias, f.source.alias);
    assert.equal(r.replication.fields.targetAlias, f.target.alias);
    const where = Object.fromEntries(r.notes.map((n) => [n.property, n.code]));
    assert.equal(where['sync.group.offsets.enabled'], 'group-offsets');
    assert.equal(where['sync.group.offsets.interval.seconds'], 'group-offsets');
  });

  it('reads JSON REST bodies and .properties too; properties no node holds are kept for the export', function () {
    const json = JSON.stringify({ name: 'my-source', config: { 'connector.class': 'MirrorSourceConnector', 'source.cluster.alias': 'a', topics: 't1', 'sync.topic.acls.enabled': 'false', 'consumer.poll.timeout.ms': '500' } });
    const props = 'connector.class=MirrorHeartbeatConnector\nname=hb\nsource.cluster.alias=a\nemit.heartbeats.interval.seconds=5\n';
    const f = flowFromConnectorConfigs([json, props]);
    assert.deepEqual(f.problems, []);
    assert.deepEqual(f.options.names, { source: 'my-source', heartbeat: 'hb' });
    // sync.topic.acls.enabled is a field of the mirror node; consumer.poll.timeout.ms no node holds
    assert.deepEqual(f.options.extraProperties, { source: { 'consumer.poll.timeout.ms': '500' } });
    assert.equal(f.nodes.find((n) => n.type === 'mm2-mirror').syncTopicAclsEnabled, false);
    assert.equal(f.nodes.find((n) => n.type === 'mm2-mirror').topics, 't1');
    assert.equal(f.nodes.find((n) => n.type === 'mm2-heartbeat').emitHeartbeatsIntervalSeconds, '5');
    assert.equal(f.notes.filter((n) => n.code === 'not-imported').length, 1);
    const r = exportConnectors(f, { ...f.options, connectors: f.connectors });
    assert.equal(byKind(r, 'source').name, 'my-source');
    assert.equal(byKind(r, 'source').config['sync.topic.acls.enabled'], 'false');
    assert.equal(byKind(r, 'source').config['consumer.poll.timeout.ms'], '500');
  });

  it('configs that disagree on a flow-wide setting, or are not MM2 connectors, are problems', function () {
    const f = flowFromConnectorConfigs([
      'connector.class=MirrorSourceConnector\nsource.cluster.alias=a\nreplication.policy.separator=_\n',
      'connector.class=MirrorCheckpointConnector\nsource.cluster.alias=a\n',
      'connector.class=FileStreamSource\nsource.cluster.alias=a\n',
    ]);
    assert.ok(f.problems.some((p) => p.property === 'replication.policy.separator' && /disagree/.test(p.reason)));
    assert.ok(f.problems.some((p) => p.property === 'connector.class' && /config 3/.test(p.reason)));
  });
});

describe('the export pasted back (parseConfigForNode): every format round-trips', function () {
  const r = exportConnectors(fullFlow());
  const flow = fullFlow();
  const nodeOf = (type) => flow.nodes.find((n) => n.type === type);
  // what each node type reads back: its own fields (the group-offsets node's filters are the checkpoint node's, as exported)
  const expected = {
    'mm2-mirror': (() => { const m = nodeOf('mm2-mirror'); return Object.fromEntries(NODE_SETTINGS['mm2-mirror'].map((p) => [fieldName(p), String(m[fieldName(p)])])); })(),
    'mm2-checkpoint': (() => { const c = nodeOf('mm2-checkpoint'); return Object.fromEntries(NODE_SETTINGS['mm2-checkpoint'].map((p) => [fieldName(p), String(c[fieldName(p)])])); })(),
    'mm2-heartbeat': { emitHeartbeatsEnabled: 'true', emitHeartbeatsIntervalSeconds: '3' },
    'mm2-group-offsets': { syncGroupOffsetsIntervalSeconds: '4', groups: 'orders-.*', groupsExclude: 'test-.*' },
  };
  for (const format of /** @type {const} */ (['json', 'yaml', 'properties', 'mm2'])) {
    it(`${format}: every node's fields, the replication settings, no problems`, function () {
      const text = exportText(r, format);
      for (const [type, fields] of Object.entries(expected)) {
        const p = parseConfigForNode(text, type);
        assert.equal(p.format, format === 'mm2' ? 'mm2.properties' : format);
        assert.equal(p.choose, false);
        assert.equal(p.flow, 'east->west');
        assert.deepEqual(p.fields, fields, `${format} ${type}`);
        assert.deepEqual(p.problems, [], `${format} ${type}`);
      }
      const cp = parseConfigForNode(text, 'mm2-checkpoint');
      assert.deepEqual(cp.replication.fields, {
        sourceAlias: 'east', targetAlias: 'west', policy: 'IdentityReplicationPolicy', separator: '_', internalSeparator: false, offsetSyncsLocation: 'target', replicationFactor: 2,
      });
    });
  }
  it('a single connector\'s text (ExportedConnector.json / .yaml / .properties) too', function () {
    const c = byKind(r, 'checkpoint');
    for (const format of /** @type {const} */ (['json', 'yaml', 'properties'])) assert.deepEqual(parseConfigForNode(c[format], 'mm2-checkpoint').fields, expected['mm2-checkpoint'], format);
  });
});

describe('build an importable Node-RED flow from configs (nodes/mm2-replication/build-flow-endpoint)', function () {
  const { buildFlowFromText } = require('../../dist/flows/build-flow');
  const plainFlow = () => {
    const f = fullFlow();
    f.source = { alias: 'east', bootstrap: 'k1:9092, k2:9092' }; // no secrets: the export carries no references
    return f;
  };
  /** The export input of built nodes, as export-flow reads a deployed flow. */
  function exportInputOf(nodes) {
    const byId = Object.fromEntries(nodes.map((n) => [n.id, n]));
    const rep = nodes.find((n) => n.type === 'mm2-replication');
    const cluster = (id) => ({ alias: byId[id].alias, bootstrap: byId[id].bootstrap, saslMechanism: byId[id].saslMechanism, ...(byId[id].usetls ? { tls: true } : {}) });
    return { replication: rep, source: cluster(rep.source), target: cluster(rep.target), nodes: nodes.filter((n) => n.replication === rep.id) };
  }

  for (const format of /** @type {const} */ (['json', 'yaml', 'properties', 'mm2'])) {
    it(`${format} export -> flow: config nodes, wired flow nodes, positions; exporting it gives the same connector configs`, function () {
      const original = exportConnectors(plainFlow());
      let n = 0;
      const b = buildFlowFromText(exportText(original, format), { newId: () => `id${++n}` });
      assert.deepEqual(b.problems, []);
      assert.equal(b.flow, 'east->west');
      const types = b.nodes.map((x) => x.type);
      assert.deepEqual(types.filter((t) => t.startsWith('mm2-')), ['mm2-cluster', 'mm2-cluster', 'mm2-replication', 'mm2-mirror', 'mm2-offset-syncs', 'mm2-checkpoint', 'mm2-group-offsets', 'mm2-heartbeat']);
      const ids = new Set(b.nodes.map((x) => x.id));
      assert.equal(ids.size, b.nodes.length, 'unique ids');
      for (const x of b.nodes) {
        for (const out of /** @type {string[][]} */ (x.wires ?? [])) for (const to of out) assert.ok(ids.has(to), `${x.type} wires to ${to}`);
        if (x.type !== 'mm2-cluster' && x.type !== 'mm2-replication' && x.type !== 'tls-config') {
          assert.equal(typeof x.x, 'number');
          assert.equal(typeof x.y, 'number');
        }
        if (x.replication !== undefined) assert.equal(b.nodes.find((r) => r.id === x.replication).type, 'mm2-replication');
      }
      const byType = (t) => b.nodes.find((x) => x.type === t);
      // the nodes share the syncs and the checkpoints through the replication node: no wire carries them
      assert.deepEqual(byType('mm2-offset-syncs').wires, [[]]);
      assert.equal(byType('mm2-group-offsets').mode, 'replication');
      const checkpointWires = /** @type {string[][]} */ (byType('mm2-checkpoint').wires);
      assert.ok(!checkpointWires.flat().includes(byType('mm2-group-offsets').id));
      assert.deepEqual(checkpointWires.map((out) => out.map((id) => b.nodes.find((x) => x.id === id).type)), [['debug'], ['debug']], 'its outputs are reports for debug nodes');
      const again = exportConnectors(exportInputOf(b.nodes), { connectors: CONNECTOR_KINDS });
      for (const kind of format === 'mm2' ? ['checkpoint', 'heartbeat'] : CONNECTOR_KINDS) {
        const want = { ...byKind(original, kind).config };
        const got = { ...byKind(again, kind).config };
        assert.deepEqual(got, want, `${format} ${kind}`);
      }
    });
  }

  it('POST /mm2/flow/build needs mm2-replication.write and answers 400 without text, 413 above 1 MB', function () {
    const { registerBuildFlowEndpoint } = require('../../dist/nodes/mm2-replication/build-flow-endpoint');
    const routes = [];
    // only the slice of the runtime API the endpoint registration uses
    const RED = /** @type {Parameters<typeof registerBuildFlowEndpoint>[0]} */ (/** @type {unknown} */ ({
      httpAdmin: { post: (path, perm, handler) => routes.push({ path, perm, handler }) },
      auth: { needsPermission: (p) => `permission:${p}` },
      util: { getSetting: () => undefined },
    }));
    registerBuildFlowEndpoint(RED, (key) => key);
    assert.deepEqual(routes.map((r) => [r.path, r.perm]), [['/mm2/flow/build', 'permission:mm2-replication.write']]);
    const call = (body) => {
      const res = { code: 200, body: undefined, status(c) { this.code = c; return this; }, json(b) { this.body = b; } };
      routes[0].handler({ body }, res);
      return res;
    };
    assert.deepEqual([call({}).code, call({}).body], [400, { error: 'mm2-replication.build.no-text' }]);
    assert.equal(call({ text: 'x'.repeat(1024 * 1024 + 1) }).code, 413);
    const ok = call({ text: exportText(exportConnectors(plainFlow()), 'json') });
    assert.equal(ok.code, 200);
    assert.equal(ok.body.flow, 'east->west');
    assert.ok(ok.body.nodes.length > 0);
  });

  it('several flows: nothing built until one is chosen; placeholders and missing aliases build nothing', function () {
    const two = 'clusters = a, b\na.bootstrap.servers = a:9092\nb.bootstrap.servers = b:9092\na->b.enabled = true\nb->a.enabled = true\n';
    const ask = buildFlowFromText(two);
    assert.equal(ask.choose, true);
    assert.deepEqual(ask.nodes, []);
    const ba = buildFlowFromText(two, { flow: 'b->a' });
    assert.equal(ba.flow, 'b->a');
    const clusters = ba.nodes.filter((x) => x.type === 'mm2-cluster');
    assert.deepEqual(clusters.map((c) => [c.alias, c.bootstrap]), [['b', 'b:9092'], ['a', 'a:9092']]);
    const noHeartbeats = buildFlowFromText(two.replace('b->a.enabled = true\n', 'emit.heartbeats.enabled = false\n'));
    assert.deepEqual(noHeartbeats.problems, []);
    assert.deepEqual(noHeartbeats.nodes.filter((x) => x.type.startsWith('mm2-')).map((x) => x.type), ['mm2-cluster', 'mm2-cluster', 'mm2-replication', 'mm2-mirror', 'mm2-offset-syncs', 'mm2-checkpoint'], 'dedicated mode with heartbeats off: no heartbeat node');
    const placeholder = buildFlowFromText(GOOGLE_SAMPLE.replace('"orders-.*,billing"', '"CONSUMER_GROUP_LIST"'));
    assert.deepEqual(placeholder.nodes, []);
    assert.deepEqual(placeholder.problems.map((p) => p.property), ['groups']);
    const noAlias = buildFlowFromText('connector.class=MirrorCheckpointConnector\ngroups=g\n');
    assert.deepEqual(noAlias.nodes, []);
    assert.ok(noAlias.problems.some((p) => p.property === 'source.cluster.alias'));
  });
});

describe('connector export in the public API', function () {
  it('require("@kafka-mm2/node-red") exports the export, import and Connect REST client', function () {
    const api = require('../../dist');
    for (const name of ['exportConnectors', 'exportText', 'flowFromConnectorConfigs', 'connectorConfigsFromMm2Properties', 'ConnectRestClient', 'ConnectRestError']) {
      assert.equal(typeof api[name], 'function', name);
    }
  });
});

describe('Kafka Connect REST helpers', function () {
  const { traceSummary, parseConnectUrl, ConnectRestClient } = require('../../dist/kafka/connect-rest');

  it('traceSummary: the exception line and its root cause, shortened', function () {
    const trace = 'org.apache.kafka.connect.errors.ConnectException: Failed to start task\n\tat org.apache.kafka.X.run(X.java:1)\nCaused by: java.lang.IllegalStateException: mid\n\tat y\nCaused by: org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment\n';
    assert.equal(traceSummary(trace), 'org.apache.kafka.connect.errors.ConnectException: Failed to start task (caused by org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment)');
    assert.equal(traceSummary('java.lang.NullPointerException\n\tat a'), 'java.lang.NullPointerException');
    assert.equal(traceSummary(undefined), undefined);
    assert.equal(traceSummary('x'.repeat(500)).length, 300);
  });

  it('parseConnectUrl and the client: http(s) only, credentials out of the display URL', function () {
    assert.match(/** @type {{ error: string }} */ (parseConnectUrl('')).error, /empty/);
    assert.match(/** @type {{ error: string }} */ (parseConnectUrl('connect:8083')).error, /must start with http/);
    assert.match(/** @type {{ error: string }} */ (parseConnectUrl('not a url')).error, /is not a URL/);
    const c = new ConnectRestClient({ url: 'https://admin:pw@connect.example:8443/kafka-connect/' });
    assert.equal(c.displayUrl, 'https://connect.example:8443/kafka-connect');
    assert.throws(() => new ConnectRestClient({ url: 'ftp://x' }), /must start with http/);
  });

  it('a checkpoint connector without offset syncs is refused by the export (as MM2 would refuse it)', function () {
    const flow = fullFlow();
    flow.nodes[0].emitOffsetSyncsEnabled = false;
    const r = exportConnectors(flow);
    assert.ok(r.problems.some((p) => p.property === 'emit.offset-syncs.enabled' && /can't run without offset syncs/.test(p.reason)));
    assert.ok(r.notes.some((n) => n.code === 'no-offset-syncs'));
    assert.deepEqual(exportConnectors(flow, { connectors: ['source', 'heartbeat'] }).problems, []);
  });
});
