'use strict';
/**
 * Proves the secured clusters of the harness (scripts/kafka/cluster.js `security`,
 * test/harness/secured.js) with a plain kafkajs client: TLS with the server verified by the test
 * CA, mutual TLS that refuses a client without a certificate, SASL_SSL with SCRAM, and KRaft's
 * StandardAuthorizer refusing a principal without READ until an ACL grants it.
 * One broker for the whole file, TLS and the authorizer together.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { useSecuredCluster } = require('../harness/secured');
const { DEFAULT_KAFKA_VERSION } = require('../../scripts/kafka/cluster');

/** Error types of a kafkajs error and of the errors it wraps (retries wrap the broker's answer). */
function errorTypes(e) {
  const types = [];
  for (let x = e; x; x = x.originalError || x.cause) {
    if (x.type) types.push(x.type);
    if (types.length > 10) break;
  }
  return types;
}

describe(`test harness: secured cluster (Kafka ${process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION})`, function () {
  const secured = useSecuredCluster('secured', { tls: true, authorizer: true, users: { bob: 'bob-secret' } });

  /** Makes a topic as the harness's admin (PLAINTEXT: the super user ANONYMOUS). */
  async function topic(prefix) {
    const t = env.unique(prefix);
    const admin = secured.kafka('PLAINTEXT', {}, { retry: { retries: 8, initialRetryTime: 200 } }).admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: t, numPartitions: 1 }], waitForLeaders: false });
      // kafkajs's waitForLeaders gives up when the broker does not know the new topic yet (a loaded machine)
      await env.eventually(async () => {
        const [m] = (await admin.fetchTopicMetadata({ topics: [t] })).topics;
        return m.partitions.length === 1 && m.partitions[0].leader >= 0;
      }, { what: `a leader for ${t}` });
    } finally {
      await admin.disconnect();
    }
    return t;
  }

  /** Writes one record with `kafka`; returns its value. */
  async function produce(kafka, t, value = env.unique('v')) {
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    secured.closeLater(() => producer.disconnect());
    await producer.connect();
    await producer.send({ topic: t, messages: [{ value }] });
    await producer.disconnect();
    return value;
  }

  /**
   * Consumes `t` from the beginning in group `groupId` until `want` is read (a value, or a test of
   * the values read so far; resolves with the values read) or the consumer crashes (rejects with
   * the crash's error). A refusal (not retriable) stops it at once; after a retriable error (a group
   * coordinator still loading on a fresh broker) kafkajs restarts it.
   * @param {import('kafkajs').Kafka} kafka
   * @param {string} t
   * @param {string} groupId
   * @param {string | ((got: string[]) => boolean)} want
   */
  async function consumeUntil(kafka, t, groupId, want) {
    const done = typeof want === 'function' ? want : (got) => got.includes(want);
    const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, retry: { retries: 8, initialRetryTime: 200 } });
    secured.closeLater(() => consumer.disconnect());
    const got = [];
    let crash;
    // kafkajs restarts the consumer after a retriable error (a coordinator still loading), not after a refusal
    consumer.on(consumer.events.CRASH, (ev) => { if (!ev.payload.restart) crash = ev.payload.error; });
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [t], fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => { got.push(message.value ? message.value.toString() : ''); } });
      await env.eventually(() => crash || done(got), { timeout: 30000, what: `${typeof want === 'function' ? 'the records wanted' : `'${want}'`} read from ${t} or the consumer refused` });
    } finally {
      await consumer.disconnect();
    }
    if (crash && !done(got)) throw crash;
    return got;
  }

  /**
   * Waits until `attempt` is refused with the kafkajs error type `type` (the broker applies a new
   * ACL within moments); fails naming the last refusal if it never is, or if `attempt` succeeds.
   */
  async function refusedWith(type, attempt) {
    let refusal;
    await env.eventually(async () => {
      try {
        await attempt();
        refusal = new Error('it was not refused');
        return false;
      } catch (e) {
        refusal = e;
        return errorTypes(e).includes(type);
      }
    }, { timeout: 40000, what: `a refusal with ${type}` }).catch((e) => {
      throw new Error(`${e.message} (last: ${refusal && `${refusal.name} ${errorTypes(refusal).join(' <- ')} ${refusal.message}`})`);
    });
  }

  it('starts every listener and exposes what a client needs', function () {
    const c = secured.cluster;
    assert.deepEqual(Object.keys(c.listeners).sort(), ['MTLS', 'PLAINTEXT', 'SASL_PLAINTEXT', 'SASL_SSL', 'SSL']);
    assert.match(c.tls.ca, /BEGIN CERTIFICATE/);
    assert.match(c.tls.cert, /BEGIN CERTIFICATE/);
    assert.match(c.tls.key, /BEGIN PRIVATE KEY/);
    assert.equal(c.tls.clientPrincipal, 'User:mm2-client');
    assert.equal(c.saslUsers.bob, 'bob-secret');
    assert.equal(c.authorizer, true);
    assert.deepEqual(c.superUsers, ['User:ANONYMOUS', 'User:admin']);
  });

  it('TLS: a client that trusts the test CA writes and reads; one that does not is refused', async function () {
    const t = await topic('tls');
    const kafka = secured.kafka('SSL');
    const value = await produce(kafka, t);
    const got = await consumeUntil(kafka, t, env.unique('tls-g'), value);
    assert.deepEqual(got, [value]);

    // The same listener, trusting only the system's CAs: the broker's certificate is not verified.
    const untrusting = secured.kafka('SSL', { ca: false }).admin();
    secured.closeLater(() => untrusting.disconnect());
    await assert.rejects(untrusting.connect(), (/** @type {any} */ e) => /certificate/i.test(String(e.message)));
  });

  it('mutual TLS: a client without a certificate is refused; with one it is User:mm2-client', async function () {
    this.timeout(120000); // its own waits for the broker to apply an ACL, on a loaded machine
    const withoutCert = secured.kafka('MTLS', { cert: false }).admin();
    secured.closeLater(() => withoutCert.disconnect());
    await assert.rejects(withoutCert.connect(), (/** @type {any} */ e) => /certificate|alert/i.test(String(e.message)));

    // With the certificate the handshake succeeds, and the principal is the certificate's CN: it may
    // not write until an ACL for User:mm2-client allows it.
    const t = await topic('mtls');
    const kafka = secured.kafka('MTLS');
    await assert.rejects(produce(kafka, t), (e) => errorTypes(e).includes('TOPIC_AUTHORIZATION_FAILED'));
    await secured.cluster.acl.create({ principal: secured.cluster.tls.clientPrincipal, resourceType: 'TOPIC', resourceName: t, operation: 'WRITE' });
    const value = await env.eventually(async () => produce(kafka, t), { what: 'User:mm2-client writing after its ACL' });
    assert.ok(value);
  });

  it('SASL_SSL with SCRAM: the right password connects (SHA-256 and SHA-512), a wrong one is refused', async function () {
    this.timeout(120000); // its own waits for the broker to apply an ACL, on a loaded machine
    const t = await topic('sasl-ssl');
    for (const mechanism of /** @type {const} */ (['scram-sha-256', 'scram-sha-512'])) {
      const kafka = secured.kafka('SASL_SSL', { user: 'admin', mechanism });
      const value = await produce(kafka, t);
      const got = await consumeUntil(kafka, t, env.unique('sasl-ssl-g'), value);
      assert.ok(got.includes(value), `${mechanism}: read back what it wrote`);
    }
    const wrong = secured.kafka('SASL_SSL', { user: 'alice', password: 'not-alice-secret' }).admin();
    secured.closeLater(() => wrong.disconnect());
    await assert.rejects(wrong.connect(), (/** @type {any} */ e) => e.name === 'KafkaJSSASLAuthenticationError');
  });

  it('authorizer: a principal without READ on a topic is refused with TOPIC_AUTHORIZATION_FAILED, and reads once an ACL grants READ', async function () {
    this.timeout(120000); // its own waits for the broker to apply an ACL, on a loaded machine
    const { acl } = secured.cluster;
    const t = await topic('authz');
    const groupId = env.unique('authz-g');
    const value = await produce(secured.kafka('PLAINTEXT'), t);
    // bob may use the group and see the topic, not read it.
    await acl.create([
      { principal: 'User:bob', resourceType: 'GROUP', resourceName: groupId, operation: 'READ' },
      { principal: 'User:bob', resourceType: 'TOPIC', resourceName: t, operation: 'DESCRIBE' },
    ]);
    const bob = secured.kafka('SASL_SSL', { user: 'bob' });
    // create() resolves once the broker lists them
    assert.equal((await acl.list({ principal: 'User:bob' })).length, 2);
    await refusedWith('TOPIC_AUTHORIZATION_FAILED', () => consumeUntil(bob, t, groupId, value));

    await acl.create({ principal: 'User:bob', resourceType: 'TOPIC', resourceName: t, operation: 'READ' });
    const got = await env.eventually(async () => consumeUntil(bob, t, groupId, value), { timeout: 40000, what: 'bob reading after READ is granted' });
    assert.deepEqual(got, [value]);

    // delete removes exactly bob's ACLs; list shows what is left.
    assert.equal(await acl.delete({ principal: 'User:bob', resourceType: 'TOPIC', resourceName: t }), 2);
    assert.deepEqual(await acl.list({ principal: 'User:bob' }), [
      { principal: 'User:bob', host: '*', resourceType: 'GROUP', resourceName: groupId, patternType: 'LITERAL', operation: 'READ', permission: 'ALLOW' },
    ]);
  });

  it("authorizer: reading __consumer_offsets (the offset-commit stream) needs READ on that topic; without it TOPIC_AUTHORIZATION_FAILED", async function () {
    this.timeout(120000); // its own waits for the broker to apply an ACL, on a loaded machine
    const { acl } = secured.cluster;
    // a commit as the harness's admin, so that __consumer_offsets holds a record
    const t = await topic('commits');
    const admin = secured.kafka('PLAINTEXT').admin();
    secured.closeLater(() => admin.disconnect());
    await admin.connect();
    await admin.setOffsets({ groupId: env.unique('committer'), topic: t, partitions: [{ partition: 0, offset: '0' }] });
    await admin.disconnect();

    const groupId = env.unique('offsets-reader');
    await acl.create([
      { principal: 'User:alice', resourceType: 'GROUP', resourceName: groupId, operation: 'READ' },
      { principal: 'User:alice', resourceType: 'TOPIC', resourceName: '__consumer_offsets', operation: 'DESCRIBE' },
    ]);
    const alice = secured.kafka('SASL_PLAINTEXT', { user: 'alice', mechanism: 'scram-sha-256' });
    await refusedWith('TOPIC_AUTHORIZATION_FAILED', () => consumeUntil(alice, '__consumer_offsets', groupId, (got) => got.length > 0));

    await acl.create({ principal: 'User:alice', resourceType: 'TOPIC', resourceName: '__consumer_offsets', operation: 'READ' });
    const got = await env.eventually(async () => consumeUntil(alice, '__consumer_offsets', groupId, (g) => g.length > 0), { timeout: 40000, what: 'alice reading __consumer_offsets after READ is granted' });
    assert.ok(got.length > 0);
    assert.equal(await acl.delete({ principal: 'User:alice' }), 3);
  });
});
