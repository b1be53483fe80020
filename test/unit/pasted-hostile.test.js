'use strict';
/**
 * Hostile pasted configurations (issue 26's trial against a real Node-RED): what the editor's
 * "Paste MM2 config" (POST /mm2/config/parse) and "Build flow from configs" (POST /mm2/flow/build)
 * endpoints do with texts made to hurt them.
 */
const assert = require('node:assert/strict');
const { readPastedConfigs, MAX_CLUSTER_ALIASES } = require('../../dist/core/pasted-configs');
const { registerBuildFlowEndpoint } = require('../../dist/nodes/mm2-replication/build-flow-endpoint');
const { registerPasteEndpoint } = require('../../dist/nodes/shared/paste-endpoint');

/** An mm2.properties of `n` clusters, each with its bootstrap servers, one flow enabled, every other flow given a setting. */
function manyAliases(n) {
  const aliases = Array.from({ length: n }, (_, i) => `dc${i}`);
  const lines = [`clusters = ${aliases.join(', ')}`];
  for (const a of aliases) lines.push(`${a}.bootstrap.servers = ${a}.example:9092`);
  for (let i = 0; i + 1 < n; i += 2) lines.push(`${aliases[i]}->${aliases[i + 1]}.topics = t${i}`);
  lines.push('dc0->dc1.enabled = true', 'groups = orders-.*');
  return lines.join('\n') + '\n';
}

/** An mm2.properties that lists `n` clusters and enables one flow, nothing else. */
function aliasList(n) {
  return `clusters = ${Array.from({ length: n }, (_, i) => `dc${i}`).join(', ')}\ndc0->dc1.enabled = true\n`;
}

/**
 * The work readPastedConfigs does for `text`, counted as calls of the string, map and set
 * operations a reader of keys is made of (no clock: the count is the same on a loaded machine).
 */
function work(text) {
  /** @type {Array<[Record<string, Function>, string]>} */
  const counted = /** @type {any} */ ([
    [String.prototype, 'startsWith'], [String.prototype, 'endsWith'], [String.prototype, 'indexOf'], [String.prototype, 'slice'],
    [Map.prototype, 'get'], [Map.prototype, 'has'], [Set.prototype, 'has'], [Array.prototype, 'includes'],
  ]);
  let calls = 0;
  const saved = counted.map(([o, name]) => o[name]);
  counted.forEach(([o, name], i) => {
    o[name] = function (...args) {
      calls++;
      return saved[i].apply(this, args);
    };
  });
  let read;
  try {
    read = readPastedConfigs(text);
    // the flow a caller picks is read too
    for (const c of read.flows[0]?.connectors ?? []) void Object.keys(c.config).length;
  } finally {
    counted.forEach(([o, name], i) => { o[name] = saved[i]; });
  }
  return { calls, read };
}

describe('hostile pasted configs', function () {
  describe('an mm2.properties with many cluster aliases', function () {
    it('is read in work linear in the number of aliases (3,000 aliases: about ten times 300)', function () {
      this.timeout(60000); // the counted operations are slow to call; the test asserts on their number, not on time
      const small = work(manyAliases(300));
      const double = work(manyAliases(600));
      // linear: twice the aliases, about twice the work (a quadratic reader is 4x, the old cubic one 8x)
      assert.ok(double.calls < 2.5 * small.calls, `600 aliases cost ${double.calls} operations, 300 cost ${small.calls}`);
      const big = work(manyAliases(3000));
      assert.ok(big.calls < 12 * small.calls, `3,000 aliases cost ${big.calls} operations, 300 cost ${small.calls}`);
      assert.equal(big.read.format, 'mm2.properties');
      assert.deepEqual(big.read.problems, []);
      assert.deepEqual(big.read.flows.map((f) => f.id), ['dc0->dc1']);
      const config = big.read.flows[0].connectors[0].config;
      assert.equal(config['source.cluster.bootstrap.servers'], 'dc0.example:9092');
      assert.equal(config['target.cluster.bootstrap.servers'], 'dc1.example:9092');
      assert.equal(config.topics, 't0');
      assert.equal(config.groups, 'orders-.*');
      // the keys of clusters in no enabled flow, and of flows not enabled, are each said to be unused
      assert.equal(big.read.ignored.filter((i) => / is in no enabled flow$/.test(i.reason)).length, 2998);
      assert.equal(big.read.ignored.filter((i) => /is not enabled/.test(i.reason)).length, 1499);
    });

    it('reads aliases with dots and arrows as MirrorMakerConfig does, flows in clusters order, a repeated alias once', function () {
      const text = [
        'clusters = b.x, a, a->b, b', 'a->b.x.enabled = true', 'b->a.enabled = true', 'a->b->b.enabled = true', 'a->b.enabled = true',
        'a->b.x.topics = one', 'a.bootstrap.servers = a:9092', 'b.x.bootstrap.servers = bx:9092', 'b.bootstrap.servers = b:9092',
      ].join('\n');
      const read = readPastedConfigs(text);
      assert.deepEqual(read.flows.map((f) => f.id), ['a->b.x', 'a->b', 'a->b->b', 'b->a']);
      const ax = read.flows[0].connectors[0].config;
      assert.equal(ax['target.cluster.bootstrap.servers'], 'bx:9092');
      assert.equal(ax.topics, 'one');
      assert.equal(read.flows[1].connectors[0].config['x.topics'], 'one', 'a->b.x.topics read for a->b as MirrorMakerConfig does (prefix a->b.)');
      // MirrorMakerConfig reads clusters into a set: a repeated alias is one cluster, its flow one flow
      assert.deepEqual(readPastedConfigs('clusters = a, a, b\na->b.enabled = true\n').flows.map((f) => f.id), ['a->b']);
    });

    it('a key of 300,000 characters of arrows and no dot is read at once, and said to be unused', function () {
      // the flow-key pattern used to backtrack over such a key in quadratic time (120,000 characters: 7 s; this one: minutes)
      this.timeout(30000);
      const key = 'a->'.repeat(100000);
      const read = readPastedConfigs(`clusters = a, b\na->b.enabled = true\n${key} = 1\n`);
      assert.deepEqual(read.flows.map((f) => f.id), ['a->b']);
      assert.deepEqual(read.ignored.map((i) => i.key), [key]);
    });

    it(`refuses more than ${MAX_CLUSTER_ALIASES} aliases, naming clusters and the limit`, function () {
      assert.throws(() => readPastedConfigs(aliasList(5000)), { name: 'PastedConfigLimitError', message: /^clusters: lists 5000 cluster aliases; at most 4096 are accepted/ });
    });
  });

  /**
   * The POST endpoints as registered, over the slice of the runtime API they use.
   * @param {(name: string) => string | undefined} [getSetting] the environment Node-RED's getSetting answers from
   */
  function endpoints(getSetting = (_name) => undefined) {
    const routes = new Map();
    // only the slice of the runtime API the endpoint registration uses
    const RED = /** @type {Parameters<typeof registerBuildFlowEndpoint>[0]} */ (/** @type {unknown} */ ({
      httpAdmin: { post: (path, perm, handler) => routes.set(path, handler) },
      auth: { needsPermission: (p) => p },
      util: { getSetting: (_node, name) => getSetting(name) },
    }));
    const t = (key, subs) => `${key} ${JSON.stringify(subs ?? {})}`;
    registerBuildFlowEndpoint(RED, t);
    registerPasteEndpoint(RED, t);
    return (path, body) => {
      const res = { code: 200, body: undefined, status(c) { this.code = c; return this; }, json(b) { this.body = b; } };
      routes.get(path)({ body }, res);
      return res;
    };
  }

  it('both endpoints answer 413 naming clusters and the limit for 5,000 aliases', function () {
    const call = endpoints();
    const text = aliasList(5000);
    const built = call('/mm2/flow/build', { text });
    assert.equal(built.code, 413);
    assert.equal(built.body.error, 'mm2-replication.build.too-many-clusters {"aliases":5000,"limit":4096}');
    const pasted = call('/mm2/config/parse', { text });
    assert.equal(pasted.code, 413);
    assert.equal(pasted.body.error, 'mm2-checkpoint.paste.too-many-clusters {"aliases":5000,"limit":4096}');
  });

  describe('${VAR} in a pasted value: one rule for both endpoints', function () {
    const env = { SECRET: 'hunter2[', PATTERN: 'orders-.*', ONE: 'x', SECONDS: '12' };
    const text = (groups, interval) => [
      'clusters = a, b', 'a.bootstrap.servers = a:9092', 'b.bootstrap.servers = b:9092', 'a->b.enabled = true',
      `a->b.groups = ${groups}`, 'a->b.topics = ${PATTERN}', `a->b.emit.checkpoints.interval.seconds = ${interval}`,
    ].join('\n');

    it('a substituted value that is not valid is refused by both, quoted as written, its value never echoed', function () {
      const call = endpoints((name) => env[name]);
      for (const path of ['/mm2/flow/build', '/mm2/config/parse']) {
        const r = call(path, { text: text('${SECRET}', '${ONE}') });
        assert.equal(r.code, 200, path);
        const problems = (/** @type {any} */ b) => b.problems;
        const words = JSON.stringify(problems(r.body));
        assert.ok(!words.includes('hunter2'), `${path} echoes the value of SECRET: ${words}`);
        assert.ok(!/\bx\b/.test(words), `${path} echoes the value of ONE: ${words}`);
        assert.deepEqual(problems(r.body).map((p) => p.property), ['groups', 'emit.checkpoints.interval.seconds'], path);
        assert.match(problems(r.body)[0].reason, /^'\$\{SECRET\}' is not a valid regular expression .*\(with SECRET substituted; the value is not shown\)$/, path);
        assert.match(problems(r.body)[1].reason, /^'\$\{ONE\}' is not a whole number .*\(with ONE substituted; the value is not shown\)$/, path);
      }
      assert.deepEqual(call('/mm2/flow/build', { text: text('${SECRET}', '5') }).body.nodes, [], 'nothing built');
    });

    it('a valid substituted value is taken by both, kept as written (the node substitutes it)', function () {
      const call = endpoints((name) => env[name]);
      const built = call('/mm2/flow/build', { text: text('${PATTERN}', '${SECONDS}') });
      assert.deepEqual(built.body.problems, []);
      const cp = built.body.nodes.find((n) => n.type === 'mm2-checkpoint');
      assert.deepEqual([cp.groups, cp.topics, cp.emitCheckpointsIntervalSeconds], ['${PATTERN}', '${PATTERN}', '${SECONDS}']);
      const pasted = call('/mm2/config/parse', { text: text('${PATTERN}', '${SECONDS}') });
      assert.deepEqual(pasted.body.problems, []);
      assert.deepEqual(pasted.body.fields, { groups: '${PATTERN}', topics: '${PATTERN}', emitCheckpointsIntervalSeconds: '${SECONDS}' });
      // a variable that is not set: the same refusal from both
      const unset = [call('/mm2/flow/build', { text: text('${NOPE}', '5') }), call('/mm2/config/parse', { text: text('${NOPE}', '5') })];
      for (const r of unset) assert.deepEqual(r.body.problems, [{ property: 'groups', reason: "'${NOPE}' cannot be resolved: environment variable NOPE is not set" }]);
    });
  });

  it('a paste for a type without MM2 settings (__proto__, an object, another node) is a 400 naming the field', function () {
    const call = endpoints();
    const text = 'groups = orders-.*\n';
    for (const type of ['__proto__', 'constructor', 'mm2-cluster', { a: 1 }, 7]) {
      const r = call('/mm2/config/parse', { text, type });
      assert.equal(r.code, 400, JSON.stringify(type));
      assert.equal(r.body.error, `mm2-checkpoint.paste.bad-type ${JSON.stringify({ type: JSON.stringify(type), types: 'mm2-mirror, mm2-checkpoint, mm2-group-offsets, mm2-heartbeat' })}`);
    }
    // no type: mm2-checkpoint's fields, as the checkpoint dialog asks
    assert.deepEqual(call('/mm2/config/parse', { text }).body.fields, { groups: 'orders-.*' });
    assert.deepEqual(call('/mm2/config/parse', { text: 'topics = a\n', type: 'mm2-mirror' }).body.fields, { topics: 'a' });
  });

  describe('a flow from a cluster to itself', function () {
    const { buildFlowFromText } = require('../../dist/flows/build-flow');

    it('a->a.enabled = true is said to enable a flow MM2 never runs, not to be "not enabled"', function () {
      const alone = readPastedConfigs('clusters = a\na.bootstrap.servers = a:9092\na->a.enabled = true\na->a.topics = x\n');
      assert.deepEqual(alone.flows, []);
      assert.deepEqual(alone.problems.map((p) => p.property), ['a->a.enabled']);
      assert.match(alone.problems[0].reason, /^enables a flow from a cluster to itself, which MM2 never runs .*: enable a flow between two different clusters/);
      assert.deepEqual(alone.ignored.find((i) => i.key === 'a->a.topics'), { key: 'a->a.topics', reason: 'for a->a, a flow from a cluster to itself, which MM2 never runs' });
      // beside a real flow: that flow is read, the other only said to be unused
      const beside = readPastedConfigs('clusters = a, b\na->a.enabled = true\na->b.enabled = true\n');
      assert.deepEqual(beside.flows.map((f) => f.id), ['a->b']);
      assert.deepEqual(beside.problems, []);
      assert.ok(beside.ignored.some((i) => i.key === 'a->a.enabled' && /cluster to itself/.test(i.reason)));
    });

    it('connector configs whose source and target aliases are one build nothing, naming target.cluster.alias', function () {
      const config = JSON.stringify({ 'connector.class': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector', 'source.cluster.alias': 'a', 'target.cluster.alias': 'a', 'source.cluster.bootstrap.servers': 'a:9092', 'target.cluster.bootstrap.servers': 'a:9092' });
      const built = buildFlowFromText(config);
      assert.deepEqual(built.nodes, [], 'nothing the mm2-replication node would refuse at deploy');
      assert.deepEqual(built.problems.map((p) => p.property), ['target.cluster.alias']);
      assert.match(built.problems[0].reason, /^is the same as source\.cluster\.alias \('a'\)/);
    });
  });
});
