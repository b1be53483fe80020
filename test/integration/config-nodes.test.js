'use strict';
/** mm2-cluster and mm2-replication config nodes, loaded in a real Node-RED runtime. */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');

describe('config nodes (Node-RED runtime, real brokers)', function () {
  before(() => nodes.startServer());
  after(() => nodes.stopServer());
  afterEach(() => nodes.helper.unload());

  it('mm2-replication derives MM2 topic names from the two clusters', async function () {
    await nodes.load([]);
    const rep = nodes.helper.getNode('rep');
    assert.equal(rep.sourceAlias, 'source');
    assert.equal(rep.targetAlias, 'target');
    assert.deepEqual(rep.problems, []);
    assert.equal(rep.checkpointsTopic(), 'source.checkpoints.internal');
    const os = rep.offsetSyncs();
    assert.equal(os.topic, 'mm2-offset-syncs.target.internal');
    assert.equal(os.alias, 'source');
    assert.equal(rep.policy.formatRemoteTopic('source', 'orders'), 'source.orders');
    assert.equal(rep.props['replication.policy.class'], 'DefaultReplicationPolicy');
  });

  it('offset-syncs location target, custom separator and Identity policy', async function () {
    await nodes.load([], { over: { rep: { offsetSyncsLocation: 'target', separator: '__', policy: 'IdentityReplicationPolicy' } } });
    const rep = nodes.helper.getNode('rep');
    const os = rep.offsetSyncs();
    assert.equal(os.topic, 'mm2-offset-syncs__source__internal');
    assert.equal(os.alias, 'target');
    assert.equal(rep.checkpointsTopic(), 'source__checkpoints__internal');
    assert.equal(rep.policy.formatRemoteTopic('source', 'orders'), 'orders');
  });

  it('rejects equal aliases and a malformed bootstrap address with a clear message', async function () {
    await nodes.load([], { over: { tgt: { alias: 'source', bootstrap: 'not-an-address' } } });
    const rep = nodes.helper.getNode('rep');
    const tgt = nodes.helper.getNode('tgt');
    assert.match(rep.problems.join(), /same alias 'source'/);
    assert.match(tgt.problems.join(), /bootstrap server 'not-an-address' is not host:port/);
    assert.equal(tgt.connection, null);
  });

  it('substitutes ${VAR} inside alias, bootstrap and client id (Node-RED only replaces a whole value); an unset one is a problem', async function () {
    const [host, port] = env.cluster('source').bootstrap.split(/:(?=\d+$)/);
    process.env.MM2_CN_TEST_HOST = host;
    process.env.MM2_CN_TEST_SITE = 'east';
    try {
      await nodes.load([], {
        over: {
          src: { alias: 'src-${MM2_CN_TEST_SITE}', bootstrap: `\${MM2_CN_TEST_HOST}:${port}`, clientId: 'mm2-${MM2_CN_TEST_SITE}-test' },
          tgt: { alias: 'target', bootstrap: '${MM2_CN_TEST_NOPE}:9092' },
        },
      });
      const src = nodes.helper.getNode('src');
      assert.deepEqual(src.problems, []);
      assert.equal(src.alias, 'src-east');
      assert.deepEqual(src.connection.settings.bootstrapServers, [`${host}:${port}`]);
      assert.equal(src.connection.settings.clientId, 'mm2-east-test');
      assert.ok(Array.isArray(await (await src.connection.admin()).listTopics()), 'connects to the substituted address');
      assert.equal(nodes.helper.getNode('rep').sourceAlias, 'src-east');
      assert.equal(nodes.helper.getNode('rep').checkpointsTopic(), 'src-east.checkpoints.internal');

      const tgt = nodes.helper.getNode('tgt');
      assert.equal(tgt.problems[0], 'bootstrap: environment variable MM2_CN_TEST_NOPE is not set');
      assert.equal(tgt.connection, null);
    } finally {
      delete process.env.MM2_CN_TEST_HOST;
      delete process.env.MM2_CN_TEST_SITE;
    }
  });

  it('keeps SASL secrets in credentials and logs in with them', async function () {
    const sasl = env.cluster('source');
    await nodes.load([], {
      over: { src: { bootstrap: sasl.saslBootstrap, saslMechanism: 'scram-sha-512' } },
      credentials: { src: { username: 'alice', password: sasl.saslUsers.alice } },
    });
    const src = nodes.helper.getNode('src');
    assert.equal(src.credentials.password, sasl.saslUsers.alice);
    const admin = await src.connection.admin();
    const topics = await admin.listTopics();
    assert.ok(Array.isArray(topics));
    assert.equal(src.connection.state.state, 'connected');
  });

  it('a refused SASL login puts the connection in error with what to fix, and creates the internal topic otherwise', async function () {
    const sasl = env.cluster('source');
    await nodes.load([], {
      over: { src: { bootstrap: sasl.saslBootstrap, saslMechanism: 'plain' } },
      credentials: { src: { username: 'alice', password: 'wrong' } },
    });
    const src = nodes.helper.getNode('src');
    await assert.rejects(() => src.connection.admin(), /SASL login refused/);
    assert.equal(src.connection.state.state, 'error');
    assert.match(src.connection.state.error, /check the username, password and mechanism/);

    const rep = nodes.helper.getNode('rep');
    const tgt = nodes.helper.getNode('tgt');
    const topic = env.unique('rep') + '.checkpoints.internal';
    const st = await rep.ensureTopic(tgt.connection, topic); // RF 1 on a one-broker cluster
    assert.equal(st.created, true);
    assert.equal(st.cleanupPolicy, 'compact');
  });
});
