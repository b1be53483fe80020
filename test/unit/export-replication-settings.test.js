'use strict';
/**
 * The export (flows/read-flow, the admin endpoint, the mm2-connect deploy) reads the mm2-replication
 * node's fields with the runtime's reader (core/replication-settings): `${VAR}` substituted as the
 * node does it, a bad value refused with the runtime's words and written as given, never replaced
 * by MM2's default.
 */
const assert = require('node:assert/strict');
const { exportConnectors } = require('../../dist/flows/export-connectors');
const { readReplicationSettings } = require('../../dist/nodes/mm2-replication/mm2-replication-settings');
const { problemText } = require('../../dist/nodes/shared/settings');

const byKind = (r, kind) => r.connectors.find((c) => c.kind === kind);

/** A flow whose replication node has the given fields. */
function flowWith(replication) {
  return {
    replication: { id: 'rep', ...replication },
    source: { id: 'src', alias: 'east', bootstrap: 'k1:9092' },
    target: { id: 'tgt', alias: 'west', bootstrap: 'k2:9092' },
    nodes: [],
  };
}

/** What the mm2-replication node itself refuses for these fields (its problem texts). */
function runtimeProblems(replication, lookup) {
  return readReplicationSettings(replication, { source: 'east', target: 'west' }, lookup).problems;
}

describe('export: the replication node read as the runtime reads it', function () {
  it('${LOC} with LOC=target exports offset-syncs.topic.location=target (connectors and mm2.properties)', function () {
    const r = exportConnectors(flowWith({ offsetSyncsLocation: '${LOC}' }), { lookup: (n) => ({ LOC: 'target' })[n] });
    assert.deepEqual(r.problems, []);
    assert.equal(byKind(r, 'source').config['offset-syncs.topic.location'], 'target');
    assert.equal(byKind(r, 'checkpoint').config['offset-syncs.topic.location'], 'target');
    assert.match(r.mm2Properties, /^east->west\.offset-syncs\.topic\.location=target$/m);
  });

  it("'middle' is refused naming offset-syncs.topic.location in the runtime's words, and written as given (never 'source')", function () {
    const rep = { offsetSyncsLocation: 'middle' };
    const r = exportConnectors(flowWith(rep));
    assert.deepEqual(r.problems.map(problemText), runtimeProblems(rep, () => undefined));
    assert.deepEqual(r.problems.map(problemText), ["offset-syncs.topic.location: 'middle' is not one of 'source', 'target'"]);
    assert.equal(byKind(r, 'source').config['offset-syncs.topic.location'], 'middle');
    assert.equal(byKind(r, 'checkpoint').config['offset-syncs.topic.location'], 'middle');
    // the same through ${VAR}
    const viaEnv = exportConnectors(flowWith({ offsetSyncsLocation: '${LOC}' }), { lookup: (n) => ({ LOC: 'middle' })[n] });
    assert.deepEqual(viaEnv.problems.map(problemText), ["offset-syncs.topic.location: 'middle' is not one of 'source', 'target'"]);
  });

  it('policy, separator, internal separator flag and replication factor from ${VAR}', function () {
    const env = { P: 'IdentityReplicationPolicy', S: '_', I: 'false', RF: '-1' };
    const r = exportConnectors(
      flowWith({ policy: '${P}', separator: '${S}', internalSeparator: '${I}', replicationFactor: '${RF}' }),
      { lookup: (n) => env[n] },
    );
    assert.deepEqual(r.problems, []);
    for (const kind of ['source', 'checkpoint', 'heartbeat']) {
      const c = byKind(r, kind).config;
      assert.equal(c['replication.policy.class'], 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy', kind);
      assert.equal(c['replication.policy.separator'], '_', kind);
      assert.equal(c['replication.policy.internal.topic.separator.enabled'], 'false', kind);
    }
    assert.equal(byKind(r, 'source').config['offset-syncs.topic.replication.factor'], '-1');
    assert.equal(byKind(r, 'checkpoint').config['checkpoints.topic.replication.factor'], '-1');
    assert.equal(byKind(r, 'heartbeat').config['heartbeats.topic.replication.factor'], '-1');
    assert.match(r.mm2Properties, /^checkpoints\.topic\.replication\.factor=-1$/m);
  });

  describe('every field: a value the runtime refuses is refused by the export with the same words, once, and written as given', function () {
    /** @type {Array<[string, Record<string, string>, string]>} */
    const cases = [
      ['replication.policy.class', { policy: 'FancyPolicy' }, 'FancyPolicy'],
      ['replication.policy.class', { policy: '${P}' }, '${P}'],
      ['replication.policy.separator', { separator: 'a b' }, 'a b'],
      ['replication.policy.separator', { separator: '${S}' }, '${S}'],
      ['replication.policy.internal.topic.separator.enabled', { internalSeparator: 'maybe' }, 'maybe'],
      ['offset-syncs.topic.location', { offsetSyncsLocation: '${LOC}' }, '${LOC}'],
      ['checkpoints.topic.replication.factor', { replicationFactor: '0' }, '0'],
      ['checkpoints.topic.replication.factor', { replicationFactor: '${RF}' }, '${RF}'],
    ];
    for (const [property, rep, written] of cases) {
      it(`${property} = ${JSON.stringify(Object.values(rep)[0])}`, function () {
        const r = exportConnectors(flowWith(rep));
        const expected = runtimeProblems(rep, () => undefined);
        assert.equal(expected.length, 1, 'the runtime refuses it');
        assert.ok(expected[0].startsWith(`${property}: `));
        assert.deepEqual(r.problems.map(problemText), expected);
        if (property === 'checkpoints.topic.replication.factor') {
          assert.equal(byKind(r, 'checkpoint').config[property], written);
          assert.equal(byKind(r, 'source').config['offset-syncs.topic.replication.factor'], written);
          assert.equal(byKind(r, 'heartbeat').config['heartbeats.topic.replication.factor'], written);
        } else {
          assert.equal(byKind(r, 'checkpoint').config[property], written);
        }
      });
    }
  });
});

/**
 * A deployed flow as the runtime holds it, for the admin endpoint and the mm2-connect export: only
 * the slice of Node-RED's API they use. `env` is each running node's env (its flow's), as
 * RED.util.getSetting(node, name) answers it.
 */
function fakeRuntime(defs, env) {
  const routes = [];
  const running = new Map(defs.filter((d) => d.type !== 'mm2-mirror').map((d) => [d.id, { id: d.id }]));
  const RED = /** @type {any} */ ({
    httpAdmin: {
      get: (path, perm, handler) => routes.push({ method: 'get', path, handler }),
      post: (path, perm, handler) => routes.push({ method: 'post', path, handler }),
    },
    auth: { needsPermission: (p) => `permission:${p}` },
    nodes: { eachNode: (cb) => defs.forEach(cb), getNode: (id) => running.get(id) ?? null, getCredentials: () => undefined },
    util: { getSetting: (node, name) => (node && env[node.id] ? env[node.id][name] : undefined) },
  });
  const get = (query) => {
    const res = { code: 200, body: undefined, status(c) { this.code = c; return this; }, json(b) { this.body = b; } };
    routes.find((r) => r.method === 'get').handler({ params: { id: 'rep' }, query }, res);
    return res;
  };
  return { RED, get };
}

const DEPLOYED = (replication) => [
  { id: 'rep', type: 'mm2-replication', source: 'src', target: 'tgt', ...replication },
  { id: 'src', type: 'mm2-cluster', alias: '${SRC_ALIAS}', bootstrap: 'k1:9092', saslMechanism: 'none' },
  { id: 'tgt', type: 'mm2-cluster', alias: 'west', bootstrap: 'k2:9092', saslMechanism: 'none' },
  { id: 'cp', type: 'mm2-checkpoint', replication: 'rep', groups: '${GROUPS}' },
];

describe('export of the deployed flow: each node\'s ${VAR} as that node resolves it', function () {
  const { registerExportEndpoint } = require('../../dist/nodes/shared/export-flow');
  const { currentExport } = require('../../dist/nodes/mm2-connect/mm2-connect-export');
  // the replication and cluster nodes live in a flow whose env differs from the checkpoint node's
  const env = { rep: { LOC: 'target', RF: '-1' }, src: { SRC_ALIAS: 'east' }, cp: { GROUPS: 'orders-.*' } };

  it('the admin endpoint (GET /mm2/export/:id)', function () {
    const rt = fakeRuntime(DEPLOYED({ offsetSyncsLocation: '${LOC}', replicationFactor: '${RF}' }), env);
    registerExportEndpoint(rt.RED);
    const res = rt.get({ format: 'json' });
    assert.equal(res.code, 200);
    assert.deepEqual(res.body.problems, []);
    const [source, checkpoint] = JSON.parse(res.body.text);
    assert.equal(source.config['offset-syncs.topic.location'], 'target');
    assert.equal(checkpoint.config['offset-syncs.topic.location'], 'target');
    assert.equal(checkpoint.config['checkpoints.topic.replication.factor'], '-1');
    assert.equal(source.config['source.cluster.alias'], 'east');
    assert.equal(checkpoint.config.groups, 'orders-.*');
    // a value the replication node refuses: the endpoint says so, in the node's words, and exports it as given
    const middle = fakeRuntime(DEPLOYED({ offsetSyncsLocation: '${LOC}' }), { ...env, rep: { LOC: 'middle' } });
    registerExportEndpoint(middle.RED);
    const refused = middle.get({ format: 'properties', connectors: 'checkpoint' });
    assert.deepEqual(refused.body.problems, [{ property: 'offset-syncs.topic.location', reason: "'middle' is not one of 'source', 'target'" }]);
    assert.match(refused.body.text, /^offset-syncs\.topic\.location=middle$/m);
  });

  it("mm2-connect's deploy (currentExport): the connect node's own env does not hide the replication node's", function () {
    /** @type {import('../../dist/nodes/mm2-connect/mm2-connect-settings').ConnectSettings} */
    const settings = { url: 'http://connect:8083', kinds: ['source', 'checkpoint', 'heartbeat'], namePrefix: '', includeSecrets: false, pollMs: 0, deployOnStart: false };
    const connectNodeLookup = () => undefined; // the mm2-connect node's flow sets none of them
    const rt = fakeRuntime(DEPLOYED({ offsetSyncsLocation: '${LOC}', replicationFactor: '${RF}' }), env);
    const ex = currentExport(rt.RED, 'rep', settings, connectNodeLookup, (k) => k);
    assert.deepEqual(ex.problems, []);
    assert.equal(ex.connectors.find((c) => c.kind === 'source').config['offset-syncs.topic.location'], 'target');
    assert.equal(ex.connectors.find((c) => c.kind === 'heartbeat').config['heartbeats.topic.replication.factor'], '-1');
    assert.equal(ex.sourceAlias, 'east');
    const middle = fakeRuntime(DEPLOYED({ offsetSyncsLocation: 'middle' }), env);
    const refused = currentExport(middle.RED, 'rep', settings, connectNodeLookup, (k) => k);
    assert.deepEqual(refused.problems, [{ property: 'offset-syncs.topic.location', reason: "'middle' is not one of 'source', 'target'" }]);
  });
});

describe('export: the cluster nodes read as the runtime reads them', function () {
  /** A flow whose source cluster has the given fields. */
  const withSource = (source) => ({ ...flowWith({}), source: { id: 'src', alias: 'east', bootstrap: 'k1:9092', ...source } });
  const problemsOf = (flow, options) => exportConnectors(flow, options).problems;

  it('an alias, a bootstrap list or a SASL mechanism the mm2-cluster node refuses is refused, in its words, by MM2 property', function () {
    assert.deepEqual(problemsOf(withSource({ alias: 'east coast' })), [
      { property: 'source.cluster.alias', reason: "cluster alias 'east coast' must be non-empty and use only letters, digits, '.', '_' and '-'" },
    ]);
    assert.deepEqual(problemsOf(withSource({ bootstrap: 'k1:9092, k2' })), [{ property: 'source.cluster.bootstrap.servers', reason: "bootstrap server 'k2' is not host:port" }]);
    assert.deepEqual(problemsOf(withSource({ bootstrap: '' })), [{ property: 'source.cluster.bootstrap.servers', reason: 'bootstrap servers are empty: give host:port of at least one broker' }]);
    const gssapi = exportConnectors(withSource({ saslMechanism: 'gssapi', username: 'alice' }));
    assert.deepEqual(gssapi.problems, [
      { property: 'source.cluster.sasl.mechanism', reason: "SASL mechanism 'gssapi' is not supported (use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER)" },
    ]);
    assert.deepEqual(problemsOf(withSource({ saslMechanism: 'plain' })), [{ property: 'source.cluster.sasl.jaas.config', reason: 'SASL is on but the username is empty' }]);
  });

  it('${VAR} in alias and bootstrap: substituted; unset, one problem by MM2 property (not also the text left as written)', function () {
    const flow = withSource({ alias: '${SRC}', bootstrap: '${HOST}:9092' });
    const ok = exportConnectors(flow, { lookup: (n) => ({ SRC: 'east', HOST: 'kafka.example' })[n] });
    assert.deepEqual(ok.problems, []);
    assert.equal(byKind(ok, 'source').config['source.cluster.alias'], 'east');
    assert.equal(byKind(ok, 'source').config['source.cluster.bootstrap.servers'], 'kafka.example:9092');
    assert.deepEqual(problemsOf(flow), [
      { property: 'source.cluster.alias', reason: 'environment variable SRC is not set' },
      { property: 'source.cluster.bootstrap.servers', reason: 'environment variable HOST is not set' },
    ]);
  });

  it('OAUTHBEARER: a token endpoint and extensions the node refuses are refused; the client secret only checked when exported', function () {
    const oauth = { saslMechanism: 'oauthbearer', oauthTokenEndpoint: 'idp.example/token', oauthClientId: 'mm2', oauthExtensions: 'auth=x' };
    const problems = problemsOf(withSource(oauth));
    assert.deepEqual(problems.map((p) => p.property), ['source.cluster.sasl.jaas.config', 'source.cluster.sasl.oauthbearer.token.endpoint.url']);
    assert.match(problems[0].reason, /^OAUTHBEARER SASL extensions/);
    assert.match(problems[1].reason, /^OAUTHBEARER token endpoint URL/);
    const good = { ...oauth, oauthTokenEndpoint: 'https://idp.example/token', oauthExtensions: '' };
    assert.deepEqual(problemsOf(withSource(good)), [], 'without secrets the client secret is a reference, not read');
    const secretProblems = problemsOf(withSource(good), { includeSecrets: true });
    assert.deepEqual(secretProblems.map((p) => p.property), ['source.cluster.sasl.jaas.config']);
    assert.match(secretProblems[0].reason, /^OAUTHBEARER client secret/);
  });

  it('credentials are used as stored, never substituted (as the node uses them); without secrets they are file references', function () {
    const flow = withSource({ saslMechanism: 'plain', username: 'alice', password: '${PW}' });
    const lookup = (n) => ({ PW: 'substituted-secret' })[n];
    const withSecrets = exportConnectors(flow, { lookup, includeSecrets: true });
    assert.deepEqual(withSecrets.problems, []);
    const jaas = byKind(withSecrets, 'source').config['source.cluster.sasl.jaas.config'];
    assert.match(jaas, /password="\$\{PW\}"/);
    assert.doesNotMatch(JSON.stringify(withSecrets), /substituted-secret/);
    const without = exportConnectors({ ...flow, source: { ...flow.source, password: undefined } }, { lookup });
    assert.deepEqual(without.problems, []);
    assert.match(byKind(without, 'source').config['source.cluster.sasl.jaas.config'], /^\$\{file:[^}]*:source\.cluster\.sasl\.jaas\.config\}$/);
  });
});
