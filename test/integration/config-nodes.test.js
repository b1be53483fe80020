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

  it('connection and request timeouts: empty keeps 5000/30000 ms, a good value (also ${VAR}) reaches the client, a bad one is refused naming the field', async function () {
    process.env.MM2_CN_TEST_REQ = '45000';
    try {
      await nodes.load([], { over: { src: { connectionTimeoutMs: '1500', requestTimeoutMs: '${MM2_CN_TEST_REQ}' }, tgt: { connectionTimeoutMs: '', requestTimeoutMs: '' } } });
      const src = nodes.helper.getNode('src');
      assert.deepEqual(src.problems, []);
      assert.equal(src.connection.settings.connectionTimeoutMs, 1500);
      assert.equal(src.connection.settings.requestTimeoutMs, 45000);
      assert.ok(Array.isArray(await (await src.connection.admin()).listTopics()), 'connects with the given timeouts');
      const tgt = nodes.helper.getNode('tgt');
      assert.equal(tgt.connection.settings.connectionTimeoutMs, 5000, "empty: today's default");
      assert.equal(tgt.connection.settings.requestTimeoutMs, 30000, "empty: today's default");
    } finally {
      delete process.env.MM2_CN_TEST_REQ;
    }
    await nodes.helper.unload();
    for (const [field, value] of [['connectionTimeoutMs', '50'], ['connectionTimeoutMs', 'abc'], ['requestTimeoutMs', '1.5'], ['requestTimeoutMs', '700000']]) {
      await nodes.load([], { over: { src: { [field]: value } } });
      const src = nodes.helper.getNode('src');
      assert.equal(src.connection, null, `${field} = ${value}: no connection with a refused setting`);
      assert.equal(src.problems.length, 1, JSON.stringify(src.problems));
      assert.match(src.problems[0], new RegExp(`^${field}: '${value.replace('.', '\\.')}' is not a whole number of milliseconds from \\d+ to \\d+`));
      await nodes.helper.unload();
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
    assert.match(src.connection.state.error, /wrong username 'alice' or password for PLAIN: check the username and password/);

    const rep = nodes.helper.getNode('rep');
    const tgt = nodes.helper.getNode('tgt');
    const topic = env.unique('rep') + '.checkpoints.internal';
    const st = await rep.ensureTopic(tgt.connection, topic); // RF 1 on a one-broker cluster
    assert.equal(st.created, true);
    assert.equal(st.cleanupPolicy, 'compact');
  });

  it('a separator Kafka does not allow in topic names is refused naming replication.policy.separator; no topic is named with another one', async function () {
    await nodes.load([], { over: { rep: { separator: '/' } } });
    const rep = nodes.helper.getNode('rep');
    assert.equal(rep.policy, null, 'no policy is built from a refused separator');
    assert.equal(rep.checkpointsTopic(), '');
    assert.equal(rep.problems.length, 1, rep.problems.join('; '));
    assert.match(rep.problems[0], /replication\.policy\.separator.*'\/' is used in topic names, so it may contain only ASCII letters, digits, '\.', '_' and '-'/);
    assert.ok(rep.error.getCalls().some((c) => /replication\.policy\.separator/.test(String(c.args[0]))), 'the refusal is logged');
  });

  it('an internal topic name Kafka refuses: the creation failure names replication.policy.separator', async function () {
    await nodes.load([]);
    const rep = nodes.helper.getNode('rep');
    const tgt = nodes.helper.getNode('tgt');
    const { ensureInternalTopic } = require('../../dist/kafka/internal-topics');
    const admin = await tgt.connection.admin();
    const topic = 'source/checkpoints/internal';
    await assert.rejects(
      () => ensureInternalTopic(admin, topic, 1, '/'),
      (/** @type {Error} */ e) => {
        assert.match(e.message, /^cannot create internal topic source\/checkpoints\/internal: topic name '.*' has characters Kafka does not allow \('\/'; only letters, digits, '\.', '_' and '-'\): it is built with replication\.policy\.separator '\/'; set replication\.policy\.separator to characters Kafka allows in topic names/);
        return true;
      },
    );
    assert.ok(rep.policy, 'the flow itself is fine');
  });

  describe('diagnoses that name the cause, against the SASL and plaintext listeners', function () {
    const { explainKafkaError } = require('../../dist/kafka/client');
    /** Connects the source cluster node with `src` settings and returns the explained failure. */
    async function refusal(src, credentials) {
      await nodes.load([], { over: { src }, credentials: credentials ? { src: credentials } : {} });
      const node = nodes.helper.getNode('src');
      /** @type {Error} */
      let err;
      await node.connection.admin().then(() => assert.fail('connected'), (e) => (err = e));
      assert.equal(node.connection.state.state, 'error');
      assert.equal(node.connection.state.error, err.message, 'the status and the error say the same');
      // an explanation explained again stays what it was (a node that explains what it caught)
      assert.equal(explainKafkaError(err, node.connection.settings), err.message);
      return err.message;
    }

    it('a wrong SCRAM password and an unknown SCRAM user: the login was refused, not the mechanism', async function () {
      const sasl = env.cluster('source');
      for (const [username, password] of [['alice', 'wrong'], ['nobody', 'whatever']]) {
        const text = await refusal({ bootstrap: sasl.saslBootstrap, saslMechanism: 'scram-sha-512' }, { username, password });
        assert.match(text, new RegExp(`^SASL login refused \\(source: ${sasl.saslBootstrap}\\): the broker has no SCRAM-SHA-512 user '${username}' or the password is wrong`), text);
        assert.doesNotMatch(text, /mechanism refused|choose one the listener enables/);
        await nodes.helper.unload();
      }
    });

    it('a client without SASL on the SASL listener is told the listener wants SASL, with its mechanisms', async function () {
      const sasl = env.cluster('source');
      await nodes.load([], { over: { src: { bootstrap: sasl.saslBootstrap, saslMechanism: 'none' } } });
      const connection = nodes.helper.getNode('src').connection;
      // kafkajs connects (the broker answers ApiVersions before SASL), the first request finds the
      // connection closed: what a node reports through reportError
      const admin = await connection.admin();
      const err = await admin.listTopics().then(() => assert.fail('listed topics without SASL'), (e) => e);
      assert.match(err.message, /Closed connection/);
      connection.reportError(err);
      const expected = `the listener wants SASL (it enables PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) (source: ${sasl.saslBootstrap}): set the SASL mechanism, username and password in the cluster node, or use the broker's plaintext port`;
      await env.eventually(() => connection.state.error === expected, { what: "the connection state saying the listener wants SASL" });
      assert.equal(connection.state.state, 'error');
      assert.equal(connection.reportError(err), expected, 'the answer is kept: the next report says it at once');
    });

    it('a SASL client on the plaintext listener is told the listener does not use SASL', async function () {
      const plain = env.cluster('source');
      const text = await refusal({ bootstrap: plain.bootstrap, saslMechanism: 'plain' }, { username: 'alice', password: plain.saslUsers.alice });
      assert.match(text, /^this listener does not use SASL \(source: .*\): set the SASL mechanism to none, or give the address of the broker's SASL listener$/);
    });
  });
});
