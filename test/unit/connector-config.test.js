'use strict';
const assert = require('node:assert/strict');
const {
  parseConnectorConfig,
  analyzeConnectorConfig,
  formatConnectorConfig,
  detectConfigFormat,
  secretPlaceholder,
  DEFAULT_SECRETS_FILE,
} = require('../../dist/core/connector-config');
const { parseJavaProperties } = require('../../dist/core/java-properties');
const {
  CONFIG_PROPERTIES,
  CONFIG_DEFAULTS,
  getPropertyDef,
  isSecretProperty,
  isPassThroughKey,
  propertiesFor,
  connectorKindOfClass,
} = require('../../dist/core/config-properties');
const { ConfigError } = require('../../dist/core/errors');

// Google Cloud's sample connector config file (MirrorMaker 2.0 Checkpoint), placeholders filled in.
const GOOGLE_YAML = `connector.class: "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"
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

const SAMPLE_FLAT = {
  'connector.class': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector',
  'emit.checkpoints.interval.seconds': '10',
  groups: 'orders-.*,billing',
  'groups.exclude': 'console-consumer-.*,connect-.*,__.*',
  'source.cluster.alias': 'source',
  'source.cluster.bootstrap.servers': '127.0.0.1:19092',
  'sync.group.offsets.enabled': 'true',
  'sync.group.offsets.interval.seconds': '10',
  'target.cluster.alias': 'target',
  'target.cluster.bootstrap.servers': '127.0.0.1:29092',
  'tasks.max': '3',
};

// The values the sample sets, normalised.
const SAMPLE_VALUES = {
  'connector.class': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector',
  'emit.checkpoints.interval.seconds': 10,
  groups: 'orders-.*, billing',
  'groups.exclude': 'console-consumer-.*, connect-.*, __.*',
  'source.cluster.alias': 'source',
  'source.cluster.bootstrap.servers': '127.0.0.1:19092',
  'sync.group.offsets.enabled': true,
  'sync.group.offsets.interval.seconds': 10,
  'target.cluster.alias': 'target',
  'target.cluster.bootstrap.servers': '127.0.0.1:29092',
  'tasks.max': 3,
};

// MM2's defaults as listed in MirrorConnectorConfig defaults (normalised forms).
const SPEC_DEFAULTS = {
  'tasks.max': 1,
  enabled: true,
  'target.cluster.alias': 'target',
  'admin.timeout.ms': 60000,
  'replication.policy.class': 'org.apache.kafka.connect.mirror.DefaultReplicationPolicy',
  'replication.policy.separator': '.',
  'replication.policy.internal.topic.separator.enabled': true,
  'forwarding.admin.class': 'org.apache.kafka.clients.admin.ForwardingAdmin',
  'metric.reporters': 'org.apache.kafka.common.metrics.JmxReporter',
  topics: '.*',
  'topics.exclude': '.*[\\-\\.]internal, .*\\.replica, __.*',
  'topic.filter.class': 'org.apache.kafka.connect.mirror.DefaultTopicFilter',
  'config.properties.exclude':
    'follower\\.replication\\.throttled\\.replicas, leader\\.replication\\.throttled\\.replicas, message\\.timestamp\\.difference\\.max\\.ms, message\\.timestamp\\.type, unclean\\.leader\\.election\\.enable, min\\.insync\\.replicas',
  'config.property.filter.class': 'org.apache.kafka.connect.mirror.DefaultConfigPropertyFilter',
  'offset.lag.max': 100,
  'emit.offset-syncs.enabled': true,
  'offset-syncs.topic.location': 'source',
  'offset-syncs.topic.replication.factor': 3,
  'heartbeats.replication.enabled': true,
  'replication.factor': 2,
  'consumer.poll.timeout.ms': 1000,
  'refresh.topics.enabled': true,
  'refresh.topics.interval.seconds': 600,
  'sync.topic.configs.enabled': true,
  'sync.topic.configs.interval.seconds': 600,
  'sync.topic.acls.enabled': true,
  'sync.topic.acls.interval.seconds': 600,
  groups: '.*',
  'groups.exclude': 'console-consumer-.*, connect-.*, __.*',
  'group.filter.class': 'org.apache.kafka.connect.mirror.DefaultGroupFilter',
  'refresh.groups.enabled': true,
  'refresh.groups.interval.seconds': 600,
  'emit.checkpoints.enabled': true,
  'emit.checkpoints.interval.seconds': 60,
  'sync.group.offsets.enabled': false,
  'sync.group.offsets.interval.seconds': 60,
  'checkpoints.topic.replication.factor': 3,
  'emit.heartbeats.enabled': true,
  'emit.heartbeats.interval.seconds': 1,
  'heartbeats.topic.replication.factor': 3,
  'security.protocol': 'PLAINTEXT',
  'source.cluster.security.protocol': 'PLAINTEXT',
  'target.cluster.security.protocol': 'PLAINTEXT',
};

function expectedSampleSettings() {
  return { ...SPEC_DEFAULTS, ...SAMPLE_VALUES };
}

function problemProperties(a) {
  return a.problems.map((p) => p.property).sort();
}

describe('config-properties catalogue', () => {
  it('has MM2 defaults for exactly the MirrorConnectorConfig defaults properties, frozen', () => {
    assert.deepEqual({ ...CONFIG_DEFAULTS }, SPEC_DEFAULTS);
    assert.ok(Object.isFrozen(CONFIG_DEFAULTS));
    assert.ok(Object.isFrozen(CONFIG_PROPERTIES));
    assert.throws(() => {
      'use strict';
      /** @type {any} the write the freeze refuses */ (CONFIG_DEFAULTS)['tasks.max'] = 7;
    }, TypeError);
  });

  it('describes every property with a type, connectors, a group and a one-line description', () => {
    const types = new Set(['string', 'boolean', 'int', 'long', 'short', 'list', 'class', 'password']);
    const names = new Set();
    for (const d of CONFIG_PROPERTIES) {
      assert.ok(!names.has(d.name), `duplicate ${d.name}`);
      names.add(d.name);
      assert.ok(types.has(d.type), d.name);
      assert.ok(d.connectors.length > 0, d.name);
      assert.ok(['connect', 'mm2', 'client'].includes(d.group), d.name);
      assert.equal(typeof d.description, 'string');
      assert.ok(d.description.length > 10 && !d.description.includes('\n'), d.name);
    }
    assert.equal(getPropertyDef('source.cluster.alias').required, true);
    assert.equal(CONFIG_PROPERTIES.filter((d) => d.required).length, 1);
  });

  it('uses the MM2 types of MirrorConnectorConfig defaults', () => {
    const expected = {
      'emit.checkpoints.interval.seconds': 'long',
      'checkpoints.topic.replication.factor': 'short',
      'offset-syncs.topic.replication.factor': 'short',
      'heartbeats.topic.replication.factor': 'short',
      'replication.factor': 'int',
      'tasks.max': 'int',
      'offset.lag.max': 'long',
      groups: 'list',
      'topics.exclude': 'list',
      'replication.policy.class': 'class',
      'offset-syncs.topic.location': 'string',
      'sync.group.offsets.enabled': 'boolean',
      'source.cluster.sasl.jaas.config': 'password',
      'target.cluster.sasl.jaas.config': 'password',
    };
    for (const [name, type] of Object.entries(expected)) assert.equal(getPropertyDef(name).type, type, name);
  });

  it('records which connectors read each property', () => {
    assert.deepEqual([...getPropertyDef('groups').connectors], ['checkpoint']);
    assert.deepEqual([...getPropertyDef('topics').connectors], ['source', 'checkpoint']);
    assert.deepEqual([...getPropertyDef('offset-syncs.topic.location').connectors], ['source', 'checkpoint']);
    assert.deepEqual([...getPropertyDef('emit.heartbeats.interval.seconds').connectors], ['heartbeat']);
    assert.deepEqual([...getPropertyDef('offset.lag.max').connectors], ['source']);
    const cp = propertiesFor('checkpoint').map((d) => d.name);
    assert.ok(cp.includes('sync.group.offsets.enabled'));
    assert.ok(cp.includes('source.cluster.alias'));
    assert.ok(!cp.includes('emit.heartbeats.enabled'));
    assert.ok(!cp.includes('replication.factor'));
  });

  it('classifies secrets and pass-through client overrides', () => {
    assert.equal(isSecretProperty('source.cluster.sasl.jaas.config'), true);
    assert.equal(isSecretProperty('target.cluster.ssl.keystore.password'), true);
    assert.equal(isSecretProperty('source.consumer.sasl.jaas.config'), true);
    assert.equal(isSecretProperty('source.cluster.sasl.mechanism'), false);
    assert.equal(isSecretProperty('groups'), false);
    assert.equal(isPassThroughKey('source.consumer.fetch.max.bytes'), true);
    assert.equal(isPassThroughKey('target.admin.request.timeout.ms'), true);
    assert.equal(isPassThroughKey('emit.checkpoint.interval.seconds'), false);
    assert.equal(isPassThroughKey('groups'), false);
  });

  it('maps every accepted connector.class spelling to its connector', () => {
    for (const kind of ['Source', 'Checkpoint', 'Heartbeat']) {
      const expected = kind.toLowerCase();
      assert.equal(connectorKindOfClass(`org.apache.kafka.connect.mirror.Mirror${kind}Connector`), expected);
      assert.equal(connectorKindOfClass(`Mirror${kind}Connector`), expected);
      assert.equal(connectorKindOfClass(`Mirror${kind}`), expected);
    }
    assert.equal(connectorKindOfClass('io.confluent.connect.replicator.ReplicatorSourceConnector'), undefined);
    assert.equal(connectorKindOfClass(undefined), undefined);
  });
});

describe('parseConnectorConfig / analyzeConnectorConfig', () => {
  describe("Google Cloud's YAML connector config file", () => {
    it('reads every value of the sample and applies MM2 defaults to the rest', () => {
      const a = analyzeConnectorConfig(GOOGLE_YAML);
      assert.equal(a.format, 'yaml');
      assert.equal(a.connector, 'checkpoint');
      assert.deepEqual(a.problems, []);
      assert.deepEqual(a.unknown, []);
      assert.deepEqual(a.secrets, []);
      const s = a.settings;
      assert.equal(s['connector.class'], 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector');
      assert.equal(s['emit.checkpoints.interval.seconds'], 10);
      assert.equal(s.groups, 'orders-.*, billing');
      assert.equal(s['groups.exclude'], 'console-consumer-.*, connect-.*, __.*');
      assert.equal(s['source.cluster.alias'], 'source');
      assert.equal(s['source.cluster.bootstrap.servers'], '127.0.0.1:19092');
      assert.equal(s['sync.group.offsets.enabled'], true);
      assert.equal(s['sync.group.offsets.interval.seconds'], 10);
      assert.equal(s['target.cluster.alias'], 'target');
      assert.equal(s['target.cluster.bootstrap.servers'], '127.0.0.1:29092');
      assert.equal(s['tasks.max'], 3);
      // the rest: MM2's defaults
      assert.equal(s.enabled, true);
      assert.equal(s['emit.checkpoints.enabled'], true);
      assert.equal(s['emit.offset-syncs.enabled'], true);
      assert.equal(s['refresh.groups.enabled'], true);
      assert.equal(s['refresh.groups.interval.seconds'], 600);
      assert.equal(s['checkpoints.topic.replication.factor'], 3);
      assert.equal(s['offset-syncs.topic.location'], 'source');
      assert.equal(s['consumer.poll.timeout.ms'], 1000);
      assert.equal(s['replication.policy.class'], 'org.apache.kafka.connect.mirror.DefaultReplicationPolicy');
      assert.equal(s['replication.policy.separator'], '.');
      assert.equal(s['replication.policy.internal.topic.separator.enabled'], true);
      assert.equal(s.topics, '.*');
      assert.equal(s['topics.exclude'], '.*[\\-\\.]internal, .*\\.replica, __.*');
      assert.equal(s['admin.timeout.ms'], 60000);
      assert.equal(s['emit.heartbeats.interval.seconds'], 1);
      // nothing else, and no value for properties without a default
      assert.deepEqual(s, expectedSampleSettings());
      assert.equal('name' in s, false);
      assert.equal('source.cluster.sasl.jaas.config' in s, false);
    });

    it('parseConnectorConfig returns the same settings', () => {
      assert.deepEqual(parseConnectorConfig(GOOGLE_YAML), expectedSampleSettings());
    });

    it('accepts the nested configs: map of the Google API and config: of Kafka Connect', () => {
      const indented = GOOGLE_YAML.trim()
        .split('\n')
        .map((l) => '  ' + l)
        .join('\n');
      for (const wrapper of ['configs', 'config']) {
        const a = analyzeConnectorConfig(`name: "mm2-checkpoint"\n${wrapper}:\n${indented}\n`);
        assert.deepEqual(a.problems, []);
        assert.equal(a.format, 'yaml');
        assert.deepEqual(a.settings, { ...expectedSampleSettings(), name: 'mm2-checkpoint' });
      }
    });

    it('tolerates unquoted YAML values, comments and CRLF line ends', () => {
      const text =
        '# checkpoint connector\r\nconnector.class: MirrorCheckpointConnector\r\nsource.cluster.alias: us-west # the source\r\n' +
        'tasks.max: 2\r\nsync.group.offsets.enabled: TRUE\r\ngroups: [orders-.*, billing]\r\n';
      const a = analyzeConnectorConfig(text);
      assert.equal(a.format, 'yaml');
      assert.deepEqual(a.problems, []);
      assert.equal(a.connector, 'checkpoint');
      assert.equal(a.settings['connector.class'], 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector');
      assert.equal(a.settings['source.cluster.alias'], 'us-west');
      assert.equal(a.settings['tasks.max'], 2);
      assert.equal(a.settings['sync.group.offsets.enabled'], true);
      assert.equal(a.settings.groups, 'orders-.*, billing');
    });
  });

  describe('Kafka Connect REST JSON', () => {
    it('reads the {"name", "config"} body', () => {
      const body = JSON.stringify({ name: 'mm2-checkpoint', config: { ...SAMPLE_FLAT, name: 'mm2-checkpoint' } }, null, 2);
      const a = analyzeConnectorConfig(body);
      assert.equal(a.format, 'json');
      assert.equal(a.connector, 'checkpoint');
      assert.deepEqual(a.problems, []);
      assert.deepEqual(a.settings, { ...expectedSampleSettings(), name: 'mm2-checkpoint' });
    });

    it('reads a GET /connectors/<name> response (tasks and type are ignored)', () => {
      const body = JSON.stringify({ name: 'cp', config: SAMPLE_FLAT, tasks: [{ connector: 'cp', task: 0 }], type: 'source' });
      const a = analyzeConnectorConfig(body);
      assert.deepEqual(a.problems, []);
      assert.deepEqual(a.unknown, []);
      assert.deepEqual(a.settings, { ...expectedSampleSettings(), name: 'cp' });
    });

    it('reads a flat JSON map, also with JSON numbers and booleans', () => {
      assert.deepEqual(parseConnectorConfig(JSON.stringify(SAMPLE_FLAT)), expectedSampleSettings());
      const typed = { ...SAMPLE_FLAT, 'tasks.max': 3, 'sync.group.offsets.enabled': true, 'emit.checkpoints.interval.seconds': 10 };
      const a = analyzeConnectorConfig(JSON.stringify(typed));
      assert.equal(a.format, 'json');
      assert.deepEqual(a.problems, []);
      assert.deepEqual(a.settings, expectedSampleSettings());
    });

    it('reports a name that differs between the body and its config', () => {
      const a = analyzeConnectorConfig(JSON.stringify({ name: 'a', config: { ...SAMPLE_FLAT, name: 'b' } }));
      assert.deepEqual(problemProperties(a), ['name']);
      assert.match(a.problems[0].reason, /'a'.*'b'/);
    });
  });

  describe('Java .properties', () => {
    it('reads the sample written with =, : and space separators, comments and continuations', () => {
      const text = [
        '# MirrorMaker 2 checkpoint connector',
        '! a Java-style comment',
        'connector.class=org.apache.kafka.connect.mirror.MirrorCheckpointConnector',
        'emit.checkpoints.interval.seconds = 10',
        'groups: orders-.*,\\',
        '        billing',
        'groups.exclude    console-consumer-.*,connect-.*,__.*',
        'source.cluster.alias=\\u0073ource',
        'source.cluster.bootstrap.servers=127.0.0.1\\:19092',
        '',
        '   sync.group.offsets.enabled=true',
        'sync.group.offsets.interval.seconds=10',
        'target.cluster.alias=target',
        'target.cluster.bootstrap.servers=127.0.0.1:29092',
        'tasks.max=3',
      ].join('\n');
      const a = analyzeConnectorConfig(text);
      assert.equal(a.format, 'properties');
      assert.deepEqual(a.problems, []);
      assert.equal(a.connector, 'checkpoint');
      assert.deepEqual(a.settings, expectedSampleSettings());
    });

    it('parses like java.util.Properties.load', () => {
      const r = parseJavaProperties(
        [
          'a\\=b=c\\:d',
          'key\\ with\\ spaces = value with spaces  ',
          'empty=',
          'alone',
          'tab\\tand\\nnewline=x\\ty\\nz',
          'multi=one \\',
          '   two \\',
          '   three',
          'back=slash\\\\',
          'uni=caf\\u00e9 \\u4e2d',
          '  # indented comment',
          'colon:value',
          'space value=with equals',
          'hash=#not a comment',
        ].join('\r\n'),
      );
      assert.deepEqual(r.problems, []);
      assert.deepEqual(r.entries, [
        ['a=b', 'c:d'],
        ['key with spaces', 'value with spaces  '],
        ['empty', ''],
        ['alone', ''],
        ['tab\tand\nnewline', 'x\ty\nz'],
        ['multi', 'one two three'],
        ['back', 'slash\\'],
        ['uni', 'café 中'],
        ['colon', 'value'],
        ['space', 'value=with equals'],
        ['hash', '#not a comment'],
      ]);
    });

    it('reports a malformed \\u escape naming the property and line', () => {
      const a = analyzeConnectorConfig('source.cluster.alias=src\ngroups=caf\\u00zz\n');
      assert.equal(a.format, 'properties');
      assert.equal(a.problems.length, 1);
      assert.equal(a.problems[0].property, 'groups');
      assert.match(a.problems[0].reason, /line 2: malformed \\uXXXX escape/);
    });
  });

  it('accepts an already-parsed object, including its own output settings', () => {
    const a = analyzeConnectorConfig(SAMPLE_FLAT);
    assert.equal(a.format, 'object');
    assert.deepEqual(a.problems, []);
    assert.deepEqual(a.settings, expectedSampleSettings());
    assert.deepEqual(parseConnectorConfig(a.settings), a.settings);
  });

  it('detects the format of text', () => {
    assert.equal(detectConfigFormat(GOOGLE_YAML), 'yaml');
    assert.equal(detectConfigFormat('{"groups": "a"}'), 'json');
    assert.equal(detectConfigFormat('{groups: a}'), 'yaml');
    assert.equal(detectConfigFormat('{"groups": }'), 'json');
    assert.equal(detectConfigFormat('groups=a\ntopics=b'), 'properties');
    assert.equal(detectConfigFormat('groups a'), 'properties');
    assert.equal(detectConfigFormat('groups:a'), 'properties');
    assert.equal(detectConfigFormat('! comment\ngroups: a'), 'properties');
    assert.equal(detectConfigFormat('groups: a\ntopics: b'), 'yaml');
    assert.equal(detectConfigFormat('groups: a,\\\n  b'), 'properties');
  });

  it('reads `key: value` lines that YAML rejects as .properties', () => {
    const a = analyzeConnectorConfig('source.cluster.alias: src\nsource.consumer.client.id: a: b\n');
    assert.equal(a.format, 'properties');
    assert.deepEqual(a.problems, []);
    assert.equal(a.settings['source.consumer.client.id'], 'a: b');
  });

  describe('defaults of an empty config', () => {
    for (const [label, input] of [
      ['empty text', ''],
      ['only comments', '# nothing here\n'],
      ['an empty object', {}],
      ['an empty JSON object', '{}'],
    ]) {
      it(`${label}: every MM2 default, and only the required alias is a problem`, () => {
        const a = analyzeConnectorConfig(input);
        assert.deepEqual(a.settings, SPEC_DEFAULTS);
        assert.deepEqual(a.problems, [{ property: 'source.cluster.alias', reason: 'is required' }]);
        assert.equal(a.connector, undefined);
        assert.deepEqual(a.unknown, []);
      });
    }

    it('parseConnectorConfig throws a ConfigError naming the missing alias', () => {
      assert.throws(
        () => parseConnectorConfig(''),
        (e) => e instanceof ConfigError && e.message === 'source.cluster.alias: is required' && e.problems.length === 1,
      );
    });

    it('with only the alias there are no problems', () => {
      assert.deepEqual(parseConnectorConfig('source.cluster.alias: "src"'), { ...SPEC_DEFAULTS, 'source.cluster.alias': 'src' });
    });
  });

  describe('bad values', () => {
    const BAD = {
      'connector.class': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector',
      'source.cluster.alias': 'source',
      'emit.checkpoints.interval.seconds': 'ten', // not a number
      'sync.group.offsets.interval.seconds': '-5', // negative interval
      'refresh.groups.interval.seconds': '0', // zero interval
      'offset-syncs.topic.location': 'middle', // only source|target
      'sync.group.offsets.enabled': 'yes', // not a boolean
      groups: 'orders-.*, billing-(', // unbalanced group
      'topics.exclude': '.*\\.internal, [z-a]', // bad range
      'replication.policy.class': 'com.example.MyReplicationPolicy',
      'checkpoints.topic.replication.factor': '0',
      'tasks.max': '0',
      'consumer.poll.timeout.ms': '1.5',
      'offset-syncs.topic.replication.factor': '40000', // above a short
      'target.cluster.bootstrap.servers': 'broker-1, broker-2:9092',
      'source.cluster.security.protocol': 'TLS',
    };
    const BAD_NAMES = Object.keys(BAD).filter((k) => k !== 'connector.class' && k !== 'source.cluster.alias').sort();

    for (const [label, input] of [
      ['YAML', Object.entries(BAD).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join('\n')],
      ['JSON', JSON.stringify({ name: 'bad', config: BAD })],
      ['properties', Object.entries(BAD).map(([k, v]) => `${k}=${v.replace(/\\/g, '\\\\')}`).join('\n')],
      ['object', BAD],
    ]) {
      it(`${label}: every bad property is reported at once`, () => {
        const a = analyzeConnectorConfig(input);
        assert.deepEqual(problemProperties(a), BAD_NAMES);
        assert.throws(
          () => parseConnectorConfig(input),
          (e) => {
            assert.ok(e instanceof ConfigError);
            for (const name of BAD_NAMES) assert.ok(e.message.includes(`${name}: `), `message names ${name}: ${e.message}`);
            assert.equal(e.problems.length, BAD_NAMES.length);
            return true;
          },
        );
      });
    }

    it('says why each value is bad', () => {
      const a = analyzeConnectorConfig(BAD);
      const why = Object.fromEntries(a.problems.map((p) => [p.property, p.reason]));
      assert.match(why['emit.checkpoints.interval.seconds'], /'ten' is not a whole number/);
      assert.match(why['sync.group.offsets.interval.seconds'], /must be a positive number of seconds \(got -5\)/);
      assert.match(why['refresh.groups.interval.seconds'], /must be a positive number of seconds \(got 0\)/);
      assert.match(why['offset-syncs.topic.location'], /'middle' is not one of 'source', 'target'/);
      assert.match(why['sync.group.offsets.enabled'], /'yes' is not a boolean/);
      assert.match(why.groups, /'billing-\(' is not a valid regular expression/);
      assert.match(why['topics.exclude'], /'\[z-a\]' is not a valid regular expression/);
      assert.match(why['replication.policy.class'], /'com\.example\.MyReplicationPolicy' is not one of/);
      assert.match(why['replication.policy.class'], /'org\.apache\.kafka\.connect\.mirror\.IdentityReplicationPolicy'/);
      assert.match(why['checkpoints.topic.replication.factor'], /at least 1, or -1/);
      assert.match(why['tasks.max'], /at least 1/);
      assert.match(why['consumer.poll.timeout.ms'], /'1\.5' is not a whole number/);
      assert.match(why['offset-syncs.topic.replication.factor'], /out of range for a short/);
      assert.match(why['target.cluster.bootstrap.servers'], /'broker-1' is not host:port/);
      assert.match(why['source.cluster.security.protocol'], /'TLS' is not one of/);
      // an invalid value is kept as given so an editor can show it
      assert.equal(a.settings['emit.checkpoints.interval.seconds'], 'ten');
      assert.equal(a.settings['offset-syncs.topic.location'], 'middle');
    });

    it('accepts every spelling of the two replication policies and -1 replication factors', () => {
      const pkg = 'org.apache.kafka.connect.mirror.';
      for (const [given, full] of [
        ['DefaultReplicationPolicy', pkg + 'DefaultReplicationPolicy'],
        [pkg + 'DefaultReplicationPolicy', pkg + 'DefaultReplicationPolicy'],
        ['IdentityReplicationPolicy', pkg + 'IdentityReplicationPolicy'],
        [pkg + 'IdentityReplicationPolicy', pkg + 'IdentityReplicationPolicy'],
      ]) {
        const s = parseConnectorConfig({
          'source.cluster.alias': 'a',
          'replication.policy.class': ` ${given} `,
          'checkpoints.topic.replication.factor': '-1',
          'replication.factor': '-1',
        });
        assert.equal(s['replication.policy.class'], full);
        assert.equal(s['checkpoints.topic.replication.factor'], -1);
        assert.equal(s['replication.factor'], -1);
      }
    });

    it('reads booleans in any case and trims values as Kafka does', () => {
      const s = parseConnectorConfig({
        'source.cluster.alias': '  src  ',
        'sync.group.offsets.enabled': ' TRUE ',
        'emit.checkpoints.enabled': 'True',
        'refresh.groups.enabled': 'FALSE',
        'emit.checkpoints.interval.seconds': ' +15 ',
        'offset-syncs.topic.location': 'target',
        'source.cluster.security.protocol': 'sasl_ssl',
      });
      assert.equal(s['source.cluster.alias'], 'src');
      assert.equal(s['sync.group.offsets.enabled'], true);
      assert.equal(s['emit.checkpoints.enabled'], true);
      assert.equal(s['refresh.groups.enabled'], false);
      assert.equal(s['emit.checkpoints.interval.seconds'], 15);
      assert.equal(s['offset-syncs.topic.location'], 'target');
      assert.equal(s['source.cluster.security.protocol'], 'SASL_SSL');
    });

    it('rejects aliases and separators that cannot be part of a topic name', () => {
      const a = analyzeConnectorConfig({ 'source.cluster.alias': 'us west', 'target.cluster.alias': '', 'replication.policy.separator': '/' });
      assert.deepEqual(problemProperties(a), ['replication.policy.separator', 'source.cluster.alias', 'target.cluster.alias']);
    });

    it('rejects a connector.class that is not an MM2 connector', () => {
      const a = analyzeConnectorConfig({ 'source.cluster.alias': 'a', 'connector.class': 'FileStreamSource' });
      assert.deepEqual(problemProperties(a), ['connector.class']);
      assert.equal(a.connector, undefined);
    });

    it('reports deprecated aliases Kafka 4.0 removed', () => {
      const a = analyzeConnectorConfig({ 'source.cluster.alias': 'a', 'groups.blacklist': 'test-.*' });
      assert.deepEqual(a.problems, [
        { property: 'groups.blacklist', reason: 'was removed in Kafka 4.0 (MM2 ignores it); rename it to groups.exclude' },
      ]);
      assert.deepEqual(a.unknown, ['groups.blacklist']);
    });

    it('reports syntax errors with property ""', () => {
      for (const [text, format] of [
        ['{"source.cluster.alias": }', 'json'],
        ['source.cluster.alias: [unclosed\n  - x: y\n', 'yaml'],
      ]) {
        const a = analyzeConnectorConfig(text);
        assert.equal(a.format, format);
        assert.ok(a.problems.length >= 1, text);
        for (const p of a.problems) {
          assert.equal(p.property, '');
          assert.match(p.reason, format === 'json' ? /^JSON syntax error: / : /^YAML syntax error: .*\(line \d+\)$/);
        }
        assert.throws(() => parseConnectorConfig(text), ConfigError);
      }
      const dup = analyzeConnectorConfig('source.cluster.alias: a\ngroups: x\ngroups: y\n');
      assert.deepEqual(dup.problems, [{ property: '', reason: 'YAML: Map keys must be unique (line 3)' }]);
    });

    it('reports nested maps and lists where a single value is needed', () => {
      const a = analyzeConnectorConfig({ 'source.cluster.alias': 'a', 'tasks.max': [1, 2], 'source.consumer': { x: 1 } });
      assert.deepEqual(problemProperties(a), ['source.consumer', 'tasks.max']);
    });
  });

  describe('checkpoint connector validation (MirrorCheckpointConfig, MirrorCheckpointConnectorTest)', () => {
    const base = { 'connector.class': 'MirrorCheckpointConnector', 'source.cluster.alias': 'src' };

    it('rejects emit.checkpoints.enabled=false and emit.offset-syncs.enabled=false while enabled', () => {
      const a = analyzeConnectorConfig({ ...base, 'emit.checkpoints.enabled': 'false', 'emit.offset-syncs.enabled': 'false' });
      assert.deepEqual(problemProperties(a), ['emit.checkpoints.enabled', 'emit.offset-syncs.enabled']);
      assert.match(a.problems.find((p) => p.property === 'emit.checkpoints.enabled').reason, /can't run with emit.checkpoints.enabled set to false/);
      assert.match(a.problems.find((p) => p.property === 'emit.offset-syncs.enabled').reason, /can't run without offset syncs/);
      const b = analyzeConnectorConfig({ ...base, 'enabled': 'true', 'emit.offset-syncs.enabled': 'FALSE' });
      assert.deepEqual(problemProperties(b), ['emit.offset-syncs.enabled']);
    });

    it('accepts both when the connector is disabled (enabled=false)', () => {
      const a = analyzeConnectorConfig({ ...base, enabled: 'false', 'emit.checkpoints.enabled': 'false', 'emit.offset-syncs.enabled': 'false' });
      assert.deepEqual(a.problems, []);
      assert.equal(a.settings.enabled, false);
    });

    it('does not apply to the source connector', () => {
      const a = analyzeConnectorConfig({
        'connector.class': 'MirrorSourceConnector',
        'source.cluster.alias': 'src',
        'emit.offset-syncs.enabled': 'false',
        'emit.checkpoints.enabled': 'false',
      });
      assert.deepEqual(a.problems, []);
      assert.equal(a.connector, 'source');
    });
  });

  describe('unknown properties', () => {
    it('are listed in input order and passed through as strings, untrimmed', () => {
      const text = [
        'source.cluster.alias: "src"',
        'source.consumer.fetch.max.bytes: "1048576"',
        'emit.checkpoint.interval.seconds: "5"',
        'target.admin.request.timeout.ms: 30000',
        'my.custom: "  spaced  "',
      ].join('\n');
      const a = analyzeConnectorConfig(text);
      assert.deepEqual(a.problems, []);
      assert.deepEqual(a.unknown, [
        'source.consumer.fetch.max.bytes',
        'emit.checkpoint.interval.seconds',
        'target.admin.request.timeout.ms',
        'my.custom',
      ]);
      assert.equal(a.settings['source.consumer.fetch.max.bytes'], '1048576');
      assert.equal(a.settings['emit.checkpoint.interval.seconds'], '5');
      assert.equal(a.settings['target.admin.request.timeout.ms'], '30000');
      assert.equal(a.settings['my.custom'], '  spaced  ');
      // the typo did not change the real property
      assert.equal(a.settings['emit.checkpoints.interval.seconds'], 60);
      assert.deepEqual(
        a.unknown.filter((k) => !isPassThroughKey(k)),
        ['emit.checkpoint.interval.seconds', 'my.custom'],
      );
    });
  });
});

describe('formatConnectorConfig', () => {
  const JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="mm2" password="s3cr=t:#!";';

  // Tricky values everywhere: =, :, #, !, spaces (leading, trailing, inner), unicode, backslashes, controls.
  const TRICKY = parseConnectorConfig({
    name: 'mm2 checkpoint: 中文 #1',
    'connector.class': 'MirrorCheckpointConnector',
    'source.cluster.alias': 'us-west',
    'target.cluster.alias': 'us_east.2',
    'source.cluster.bootstrap.servers': 'b1:9092,b2:9092',
    groups: 'orders-\\d+, caf\u00e9-.*, 订单-.*, a=b, c:d, #e, !f',
    'groups.exclude': '',
    'topics.exclude': '.*[\\-\\.]internal, .*\\\\.*',
    'sync.group.offsets.enabled': 'true',
    'emit.checkpoints.interval.seconds': '5',
    'replication.policy.class': 'IdentityReplicationPolicy',
    'replication.policy.separator': '_',
    'source.cluster.security.protocol': 'SASL_SSL',
    'source.cluster.sasl.mechanism': 'PLAIN',
    'source.cluster.sasl.jaas.config': JAAS,
    'target.cluster.ssl.truststore.location': 'C:\\kafka\\trust store.jks',
    'target.cluster.ssl.endpoint.identification.algorithm': '',
    'source.consumer.client.id': '  lead & trail  ',
    'x.equals': 'a=b=c',
    'x.colon': 'host:1: two',
    'x.hash': '# not a comment',
    'x.bang': '! not a comment',
    'x.backslash': 'C:\\path\\to\\ \\u0041 \\',
    'x.unicode': 'héllo 世界 😀 \u00a0nbsp',
    'x.controls': 'line1\nline2\ttab\r\u0001\u007f\u2028',
    'x.quotes': `it's "quoted"`,
    'x.empty': '',
    'key with spaces=and:colons#hash': 'v',
    'true': 'yaml reserved word as key',
  });

  it('the tricky settings parse without problems', () => {
    const a = analyzeConnectorConfig(TRICKY);
    assert.deepEqual(a.problems, []);
    assert.equal(TRICKY.groups, 'orders-\\d+, café-.*, 订单-.*, a=b, c:d, #e, !f');
    assert.equal(TRICKY['groups.exclude'], '');
    assert.equal(TRICKY['source.cluster.bootstrap.servers'], 'b1:9092, b2:9092');
  });

  for (const format of /** @type {const} */ (['yaml', 'json', 'properties'])) {
    describe(format, () => {
      it('round trips the Google sample exactly', () => {
        const s = parseConnectorConfig(GOOGLE_YAML);
        const text = formatConnectorConfig(s, format);
        const a = analyzeConnectorConfig(text);
        assert.equal(a.format, format);
        assert.deepEqual(a.problems, []);
        assert.deepEqual(a.settings, s);
      });

      it('round trips =, :, #, spaces, unicode and backslashes exactly (secrets included)', () => {
        const text = formatConnectorConfig(TRICKY, format, { includeSecrets: true });
        const a = analyzeConnectorConfig(text);
        assert.equal(a.format, format);
        assert.deepEqual(a.problems, []);
        assert.deepEqual(a.settings, TRICKY);
        assert.deepEqual(a.secrets, ['source.cluster.sasl.jaas.config']);
        assert.ok(text.includes(format === 'properties' ? 'password\\="s3cr\\=t\\:\\#\\!"' : 's3cr=t:#!'));
      });

      it('round trips exactly with onlyNonDefault, writing only what differs', () => {
        const s = parseConnectorConfig(GOOGLE_YAML);
        const text = formatConnectorConfig(s, format, { onlyNonDefault: true });
        assert.deepEqual(parseConnectorConfig(text), s);
        assert.ok(!text.includes('groups.exclude'));
        assert.ok(!text.includes('refresh.groups.interval.seconds'));
        assert.ok(text.includes('connector.class'));
        assert.ok(text.includes('source.cluster.alias'));
        assert.ok(text.includes('emit.checkpoints.interval.seconds'));
        const tricky = formatConnectorConfig(TRICKY, format, { onlyNonDefault: true, includeSecrets: true });
        assert.deepEqual(parseConnectorConfig(tricky), TRICKY);
      });

      it('does not write secrets in clear by default', () => {
        const text = formatConnectorConfig(TRICKY, format);
        assert.ok(!text.includes('s3cr'), text);
        assert.ok(!text.includes('PlainLoginModule'), text);
        const placeholder = secretPlaceholder('source.cluster.sasl.jaas.config');
        assert.equal(placeholder, '${file:/path/to/secrets.properties:source.cluster.sasl.jaas.config}');
        assert.equal(DEFAULT_SECRETS_FILE, '/path/to/secrets.properties');
        const back = parseConnectorConfig(text);
        assert.equal(back['source.cluster.sasl.jaas.config'], placeholder);
        // everything else is unchanged
        assert.deepEqual({ ...back, 'source.cluster.sasl.jaas.config': JAAS }, TRICKY);
        if (format !== 'json') assert.match(text, /^# Secrets are not written in clear/);
      });

      it('uses the given secrets file, hides client-override secrets and keeps existing references', () => {
        const s = parseConnectorConfig({
          'source.cluster.alias': 'a',
          'target.cluster.ssl.keystore.password': 'ks-pass',
          'target.cluster.sasl.jaas.config': '${file:/etc/kafka/target.properties:jaas}',
          'source.consumer.sasl.jaas.config': 'consumer-jaas-secret',
        });
        const text = formatConnectorConfig(s, format, { secretsFile: '/etc/mm2/secrets.properties' });
        assert.ok(!text.includes('ks-pass'));
        assert.ok(!text.includes('consumer-jaas-secret'));
        const back = parseConnectorConfig(text);
        assert.equal(back['target.cluster.ssl.keystore.password'], '${file:/etc/mm2/secrets.properties:target.cluster.ssl.keystore.password}');
        assert.equal(back['source.consumer.sasl.jaas.config'], '${file:/etc/mm2/secrets.properties:source.consumer.sasl.jaas.config}');
        assert.equal(back['target.cluster.sasl.jaas.config'], '${file:/etc/kafka/target.properties:jaas}');
      });
    });
  }

  it('writes JSON as the Connect REST body when there is a name, else a flat map, all values strings', () => {
    const s = parseConnectorConfig(GOOGLE_YAML);
    const flat = JSON.parse(formatConnectorConfig(s, 'json', { onlyNonDefault: true }));
    assert.deepEqual(flat, {
      'connector.class': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector',
      'tasks.max': '3',
      'source.cluster.alias': 'source',
      'source.cluster.bootstrap.servers': '127.0.0.1:19092',
      'target.cluster.bootstrap.servers': '127.0.0.1:29092',
      groups: 'orders-.*, billing',
      'emit.checkpoints.interval.seconds': '10',
      'sync.group.offsets.enabled': 'true',
      'sync.group.offsets.interval.seconds': '10',
    });
    const body = JSON.parse(formatConnectorConfig({ ...s, name: 'cp' }, 'json'));
    assert.deepEqual(Object.keys(body), ['name', 'config']);
    assert.equal(body.name, 'cp');
    assert.equal(body.config.name, 'cp');
    for (const v of Object.values(body.config)) assert.equal(typeof v, 'string');
    assert.equal(body.config['sync.group.offsets.enabled'], 'true');
    assert.equal(body.config['emit.checkpoints.interval.seconds'], '10');
  });

  it("writes YAML as Google Cloud's flat key: \"value\" file", () => {
    const text = formatConnectorConfig(parseConnectorConfig(GOOGLE_YAML), 'yaml', { onlyNonDefault: true });
    assert.equal(
      text,
      [
        'connector.class: "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"',
        'tasks.max: "3"',
        'source.cluster.alias: "source"',
        'source.cluster.bootstrap.servers: "127.0.0.1:19092"',
        'target.cluster.bootstrap.servers: "127.0.0.1:29092"',
        'groups: "orders-.*, billing"',
        'emit.checkpoints.interval.seconds: "10"',
        'sync.group.offsets.enabled: "true"',
        'sync.group.offsets.interval.seconds: "10"',
        '',
      ].join('\n'),
    );
  });

  it('writes .properties as escaped key=value lines in ASCII', () => {
    const text = formatConnectorConfig(
      { 'source.cluster.alias': 'a', 'x y': ' lead=1:2#3!4\\ 中', 'connector.class': 'MirrorHeartbeatConnector' },
      'properties',
      { onlyNonDefault: true },
    );
    assert.equal(
      text,
      [
        'connector.class=org.apache.kafka.connect.mirror.MirrorHeartbeatConnector',
        'source.cluster.alias=a',
        'x\\ y=\\ lead\\=1\\:2\\#3\\!4\\\\ \\u4E2D',
        '',
      ].join('\n'),
    );
    assert.ok(/^[\x20-\x7e\n]*$/.test(formatConnectorConfig(TRICKY, 'properties', { includeSecrets: true })));
  });

  it('leaves out another connector\'s defaults in a full export but keeps everything the connector reads', () => {
    const s = parseConnectorConfig(GOOGLE_YAML);
    const text = formatConnectorConfig(s, 'properties');
    assert.ok(!text.includes('emit.heartbeats'));
    assert.ok(!text.includes('offset.lag.max'));
    assert.ok(!text.includes('security.protocol'));
    for (const d of propertiesFor('checkpoint')) {
      if (d.default !== undefined && d.group !== 'client') assert.ok(text.includes(`\n${d.name}=`), d.name);
    }
  });
});

describe('pasting an MM2 config: exactly what the text sets (core/pasted-configs, parseConfigForNode)', () => {
  const { parseConfigForNode } = require('../../dist/nodes/shared/settings');
  const { readPastedConfigs, placeholderReason } = require('../../dist/core/pasted-configs');
  const paste = (text, options, type = 'mm2-checkpoint') => parseConfigForNode(text, type, undefined, options);
  const ignoredKeys = (r) => r.ignored.map((i) => i.key);

  // Strimzi's examples/mirror-maker/kafka-mirror-maker-2-tls.yaml (v1beta2), with a groups pattern of its own
  const STRIMZI_V1BETA2 = `apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaMirrorMaker2
metadata:
  name: my-mirror-maker-2
spec:
  version: 4.0.0
  replicas: 1
  connectCluster: "cluster-b" # Must be the target custer
  clusters:
  - alias: "cluster-a" # Source cluster
    bootstrapServers: cluster-a-kafka-bootstrap:9093
    tls:
      trustedCertificates:
        - secretName: cluster-a-cluster-ca-cert
          pattern: "*.crt"
  - alias: "cluster-b" # Target cluster
    bootstrapServers: cluster-b-kafka-bootstrap:9093
    tls:
      trustedCertificates:
        - secretName: cluster-b-cluster-ca-cert
          pattern: "*.crt"
    config:
      config.storage.replication.factor: -1
      offset.storage.replication.factor: -1
      status.storage.replication.factor: -1
  mirrors:
  - sourceCluster: "cluster-a"
    targetCluster: "cluster-b"
    sourceConnector:
      tasksMax: 1
      config:
        replication.factor: -1
        offset-syncs.topic.replication.factor: -1
        sync.topic.acls.enabled: "false"
        refresh.topics.interval.seconds: 600
    checkpointConnector:
      tasksMax: 1
      config:
        checkpoints.topic.replication.factor: -1
        sync.group.offsets.enabled: "false"
        refresh.groups.interval.seconds: 600
    topicsPattern: "orders.*"
    groupsPattern: "team-a-.*, billing"
    groupsExcludePattern: "team-a-test"
status:
  conditions: []
`;

  it('Strimzi KafkaMirrorMaker2 (v1beta2): the checkpoint connector and the mirror patterns, nothing else; the emit interval keeps its value', () => {
    const r = paste(STRIMZI_V1BETA2);
    assert.equal(r.format, 'strimzi');
    assert.equal(r.flow, 'cluster-a->cluster-b');
    assert.equal(r.origin, 'spec.mirrors[0].checkpointConnector');
    assert.deepEqual(r.fields, { groups: 'team-a-.*, billing', groupsExclude: 'team-a-test', topics: 'orders.*', refreshGroupsIntervalSeconds: '600' });
    assert.deepEqual(r.set.map((s) => s.property), ['groups', 'groups.exclude', 'topics', 'refresh.groups.interval.seconds']);
    assert.equal('emitCheckpointsIntervalSeconds' in r.fields, false, 'not in the resource: not MM2\'s 60 either');
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.replication.fields, { sourceAlias: 'cluster-a', targetAlias: 'cluster-b', replicationFactor: -1 });
    assert.equal(r.settings['source.cluster.security.protocol'], 'SSL');
    assert.equal(r.settings['target.cluster.bootstrap.servers'], 'cluster-b-kafka-bootstrap:9093');
    assert.deepEqual(ignoredKeys(r).sort(), [
      'spec.clusters[0].tls.trustedCertificates',
      'spec.clusters[1].config.config.storage.replication.factor',
      'spec.clusters[1].config.offset.storage.replication.factor',
      'spec.clusters[1].config.status.storage.replication.factor',
      'spec.clusters[1].tls.trustedCertificates',
      'spec.replicas',
      'spec.version',
      'status',
    ]);
    // the mirror node gets the source connector's
    const m = paste(STRIMZI_V1BETA2, {}, 'mm2-mirror');
    assert.deepEqual(m.fields, { topics: 'orders.*', refreshTopicsIntervalSeconds: '600', replicationFactor: '-1', syncTopicAclsEnabled: 'false' });
  });

  it('Strimzi v1 (spec.target, mirrors[].source) with SCRAM: two mirrors are two flows to choose from', () => {
    const cr = `apiVersion: kafka.strimzi.io/v1
kind: KafkaMirrorMaker2
metadata: {name: mm2}
spec:
  target:
    alias: dr
    bootstrapServers: dr-kafka-bootstrap:9092
    groupId: mm2-group
  mirrors:
  - source:
      alias: east
      bootstrapServers: east:9093
      tls: {}
      authentication:
        type: scram-sha-512
        username: mm2-user
        passwordSecret: {secretName: east-user, password: password}
    checkpointConnector:
      config:
        emit.checkpoints.interval.seconds: 10
      state: running
    groupsPattern: "east-.*"
  - source: {alias: west, bootstrapServers: west:9092}
    checkpointConnector: {}
    groupsPattern: "west-.*"
`;
    const ask = paste(cr);
    assert.equal(ask.choose, true);
    assert.deepEqual(ask.flows.map((f) => [f.id, f.connectors]), [['east->dr', ['checkpoint']], ['west->dr', ['checkpoint']]]);
    assert.deepEqual(ask.fields, {});
    const east = paste(cr, { flow: 'east->dr' });
    assert.deepEqual(east.fields, { groups: 'east-.*', emitCheckpointsIntervalSeconds: '10' });
    assert.equal(east.settings['source.cluster.security.protocol'], 'SASL_SSL');
    assert.equal(east.settings['source.cluster.sasl.mechanism'], 'SCRAM-SHA-512');
    assert.ok(ignoredKeys(east).includes('spec.mirrors[0].source.authentication.passwordSecret'));
    assert.ok(ignoredKeys(east).includes('spec.mirrors[0].checkpointConnector.state'));
    assert.ok(ignoredKeys(east).includes('spec.target.groupId'));
    assert.deepEqual(paste(cr, { flow: 'west->dr' }).fields, { groups: 'west-.*' });
    const wrong = paste(cr, { flow: 'north->dr' });
    assert.equal(wrong.choose, true);
    assert.match(wrong.problems[0].reason, /no flow 'north->dr'/);
  });

  const MM2_PROPERTIES = `# dedicated mode
clusters = primary, backup
primary.bootstrap.servers = p1:9092
backup.bootstrap.servers = b1:9092
security.protocol = SSL
primary->backup.enabled = true
primary->backup.groups = orders-.*, billing
backup->primary.enabled = false
backup->primary.groups = ignored-.*
emit.checkpoints.interval.seconds = 30
primary->backup.emit.checkpoints.interval.seconds = 15
refresh.groups.interval.seconds = 120
replication.factor = 3
tasks.max = 2
offset.storage.replication.factor = 1
no.such.setting = x
`;

  it('dedicated mm2.properties: the flow\'s A->B keys over the top-level ones (MirrorMakerConfig), cluster keys as source/target.cluster.', () => {
    const r = paste(MM2_PROPERTIES);
    assert.equal(r.format, 'mm2.properties');
    assert.equal(r.flow, 'primary->backup');
    assert.deepEqual(r.fields, { groups: 'orders-.*, billing', emitCheckpointsIntervalSeconds: '15', refreshGroupsIntervalSeconds: '120' });
    assert.deepEqual(r.replication.fields, { sourceAlias: 'primary', targetAlias: 'backup' });
    assert.equal(r.settings['source.cluster.bootstrap.servers'], 'p1:9092');
    assert.equal(r.settings['target.cluster.security.protocol'], 'SSL', 'a top-level client setting is every cluster\'s default');
    assert.deepEqual(r.problems, []);
    assert.deepEqual(Object.fromEntries(r.ignored.map((i) => [i.key, i.reason.split(' ').slice(0, 4).join(' ')])), {
      'backup->primary.groups': 'the flow backup->primary is',
      'offset.storage.replication.factor': 'a setting of the',
      'no.such.setting': 'not a connector property:',
    });
  });

  it('dedicated mm2.properties with two enabled flows asks which; a flow keeps only its own keys', () => {
    const text = MM2_PROPERTIES.replace('backup->primary.enabled = false', 'backup->primary.enabled = true');
    const ask = paste(text);
    assert.equal(ask.choose, true);
    assert.deepEqual(ask.flows.map((f) => f.id), ['primary->backup', 'backup->primary']);
    assert.deepEqual(ask.fields, {});
    assert.deepEqual(paste(text, { flow: 'backup->primary' }).fields, { groups: 'ignored-.*', emitCheckpointsIntervalSeconds: '30', refreshGroupsIntervalSeconds: '120' });
    // `key: value` separators (java.util.Properties reads them too)
    const colons = paste('clusters: a, b\na->b.enabled: true\na->b.groups: colon-.*\n');
    assert.equal(colons.format, 'mm2.properties');
    assert.deepEqual(colons.fields, { groups: 'colon-.*' });
    // aliases with dots, as MirrorMakerConfig finds flow keys: by the `A->B.` prefix
    const dotted = paste('clusters = us.east, us.west\nus.east->us.west.enabled = true\nus.east->us.west.groups = g-.*\nus.east.bootstrap.servers = e:9092\n');
    assert.equal(dotted.flow, 'us.east->us.west');
    assert.deepEqual(dotted.fields, { groups: 'g-.*' });
    assert.equal(dotted.settings['source.cluster.bootstrap.servers'], 'e:9092');
    // a top-level connector property applies to every flow unless the flow sets its own
    const hb = 'clusters = a, b\na->b.enabled = true\nemit.heartbeats.enabled = false\nemit.heartbeats.interval.seconds = 2\nb->a.emit.heartbeats.enabled = true\n';
    const hbr = paste(hb, {}, 'mm2-heartbeat');
    assert.deepEqual(hbr.fields, { emitHeartbeatsEnabled: 'false', emitHeartbeatsIntervalSeconds: '2' });
    assert.deepEqual(ignoredKeys(hbr), ['b->a.emit.heartbeats.enabled']);
    assert.match(hbr.ignored[0].reason, /heartbeat connector MM2 runs for the disabled flow b->a/);
    const none = paste('clusters = a, b\na.bootstrap.servers = a:9092\n');
    assert.deepEqual(none.fields, {});
    assert.match(none.problems[0].reason, /no replication flow is enabled/);
  });

  it('Kafka Connect REST JSON: a {name, config} body, a bare config, an array and the expand=info map', () => {
    const cp = { 'connector.class': 'MirrorCheckpointConnector', 'source.cluster.alias': 'a', 'target.cluster.alias': 'b', groups: 'g1', 'emit.checkpoints.interval.seconds': '7' };
    const src = { 'connector.class': 'MirrorSourceConnector', 'source.cluster.alias': 'a', 'target.cluster.alias': 'b', topics: 't1' };
    const expect = { groups: 'g1', emitCheckpointsIntervalSeconds: '7' };
    assert.deepEqual(paste(JSON.stringify({ name: 'cp', config: cp })).fields, expect);
    assert.deepEqual(paste(JSON.stringify(cp)).fields, expect);
    const arr = paste(JSON.stringify([{ name: 'src', config: src }, { name: 'cp', config: cp }]));
    assert.equal(arr.format, 'json');
    assert.equal(arr.origin, 'config 2');
    assert.deepEqual(arr.fields, expect, 'the checkpoint connector of the set, not the source connector\'s topics');
    const info = paste(JSON.stringify({ src: { info: { name: 'src', config: src, tasks: [], type: 'source' }, status: {} }, cp: { info: { name: 'cp', config: cp, tasks: [], type: 'source' } } }));
    assert.equal(info.origin, 'cp');
    assert.deepEqual(info.fields, expect);
    // two flows in one array: choose
    const other = { ...cp, 'source.cluster.alias': 'b', 'target.cluster.alias': 'a', groups: 'g2' };
    const two = paste(JSON.stringify([cp, other]));
    assert.equal(two.choose, true);
    assert.deepEqual(paste(JSON.stringify([cp, other]), { flow: 'b->a' }).fields, { groups: 'g2', emitCheckpointsIntervalSeconds: '7' });
    assert.match(paste('[{"groups": ').problems[0].reason, /^JSON syntax error/);
  });

  it("Google Cloud's YAML sample sets its three checkpoint fields and nothing else", () => {
    const r = paste(GOOGLE_YAML);
    assert.equal(r.format, 'yaml');
    assert.deepEqual(r.fields, { groups: 'orders-.*, billing', groupsExclude: 'console-consumer-.*, connect-.*, __.*', emitCheckpointsIntervalSeconds: '10' });
    assert.deepEqual(r.problems, []);
    assert.deepEqual(paste('{}').fields, {});
    assert.deepEqual(paste('source.cluster.alias: a\n').fields, {}, 'a config without node fields changes none');
  });

  it('placeholders and unresolvable references are refused, naming the key; the field keeps its value', () => {
    const google = GOOGLE_YAML.replace('"orders-.*,billing"', '"CONSUMER_GROUP_LIST"').replace('127.0.0.1:19092', 'bootstrap.SOURCE_CLUSTER_ID.REGION.managedkafka.PROJECT_ID.cloud.goog:9092');
    const r = paste(google);
    assert.equal('groups' in r.fields, false);
    assert.equal(r.fields.emitCheckpointsIntervalSeconds, '10');
    const byKey = Object.fromEntries(r.problems.map((p) => [p.property, p.reason]));
    assert.match(byKey.groups, /'CONSUMER_GROUP_LIST' looks like a placeholder/);
    assert.match(byKey['source.cluster.bootstrap.servers'], /'SOURCE_CLUSTER_ID' looks like a placeholder/);
    const lookup = (n) => (n === 'TEAM' ? 'orders' : undefined);
    const refs = paste('groups=${file:/etc/mm2.properties:groups}\ntopics=${UNSET_TOPICS}\ngroups.exclude=${TEAM}-test\n', { lookup });
    assert.deepEqual(refs.fields, { groupsExclude: '${TEAM}-test' }, 'a set variable stays a reference, as in any field');
    assert.deepEqual(refs.problems.map((p) => p.property), ['groups', 'topics']);
    assert.match(refs.problems[0].reason, /config-provider reference/);
    assert.match(refs.problems[1].reason, /environment variable UNSET_TOPICS is not set/);
    assert.equal(placeholderReason('SASL_SSL', undefined, 'source.cluster.security.protocol'), undefined);
    assert.equal(placeholderReason('<password>'), "'<password>' looks like a placeholder of a documentation sample: replace it with the real value (a name really spelled so can be written as the regex ^<password>$)");
    assert.equal(placeholderReason('orders_v2, ORDERS'), undefined);
  });

  it('readPastedConfigs gives each connector exactly the keys the text sets', () => {
    const r = readPastedConfigs('name=a\nconnector.class=MirrorSourceConnector\ntopics=t\nname=b\nconnector.class=MirrorCheckpointConnector\ngroups=g\n');
    assert.equal(r.format, 'properties');
    assert.deepEqual(r.flows[0].connectors.map((c) => [c.kind, c.config]), [
      ['source', { name: 'a', 'connector.class': 'MirrorSourceConnector', topics: 't' }],
      ['checkpoint', { name: 'b', 'connector.class': 'MirrorCheckpointConnector', groups: 'g' }],
    ]);
    // one file with a key given twice: the last wins, as java.util.Properties reads it
    const one = readPastedConfigs('name=a\nconnector.class=MirrorCheckpointConnector\ngroups=g1\nname=b\ngroups=g2\n');
    assert.deepEqual(one.flows[0].connectors.map((c) => c.config), [{ name: 'b', 'connector.class': 'MirrorCheckpointConnector', groups: 'g2' }]);
  });
});
