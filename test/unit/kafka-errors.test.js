'use strict';
/**
 * explainKafkaError on errors that do not come from a broker answer: kafkajs failing inside
 * (a TypeError on an answer it did not expect) and an explanation handed on by the shared
 * connection (explained once, never again). The broker-side refusals (SASL, listeners) are
 * tested against the real brokers in test/integration/config-nodes.test.js.
 */
const assert = require('node:assert/strict');
const { explainKafkaError, ExplainedKafkaError, unreachableExplanation } = require('../../dist/kafka/client');

const S = { alias: 'src', bootstrapServers: ['h:9092'] };

function kafkajsTypeError(message) {
  const e = new TypeError(message);
  e.stack = `TypeError: ${message}\n    at Object.fetchTopicOffsets (/app/node_modules/kafkajs/src/admin/index.js:656:15)`;
  return e;
}

describe('explainKafkaError: kafkajs internals and explanations handed on', function () {
  it("kafkajs' `Cannot destructure property 'partitions' of 'low.pop(...)'` becomes an explanation", function () {
    const text = explainKafkaError(kafkajsTypeError("Cannot destructure property 'partitions' of 'low.pop(...)' as it is undefined."), S);
    assert.equal(
      text,
      "the broker returned no offsets for a topic (src: h:9092): it was probably deleted, re-created or had no leader during the request; the next cycle tries again (inside kafkajs: Cannot destructure property 'partitions' of 'low.pop(...)' as it is undefined.)",
    );
  });

  it('another TypeError from inside kafkajs is explained as the client failing on an unexpected answer', function () {
    const text = explainKafkaError(kafkajsTypeError("Cannot read properties of undefined (reading 'leader')"), S);
    assert.match(text, /^the Kafka client failed on an unexpected answer \(src: h:9092\): probably a topic deleted or re-created during the request; the next cycle tries again \(inside kafkajs: Cannot read properties of undefined \(reading 'leader'\)\)$/);
  });

  it('a TypeError of our own code is not blamed on kafkajs', function () {
    const e = new TypeError('x is not a function');
    e.stack = 'TypeError: x is not a function\n    at run (/app/kafka/mirror.js:1:1)';
    assert.equal(explainKafkaError(e, S), 'x is not a function (src: h:9092)');
  });

  it('an explanation is handed on unchanged, not read again as a cause', function () {
    const first = explainKafkaError(Object.assign(new Error('SASL PLAIN authentication failed: Authentication failed: Invalid username or password'), { name: 'KafkaJSSASLAuthenticationError' }), { ...S, sasl: { mechanism: 'plain', username: 'u', password: 'p' } });
    assert.equal(first, "SASL login refused (src: h:9092): wrong username 'u' or password for PLAIN: check the username and password");
    const handed = new ExplainedKafkaError(first);
    assert.equal(explainKafkaError(handed, S), first);
    assert.equal(explainKafkaError(handed), first);
    // also when a caller passed it on in a plain Error (`new Error(connection.reportError(e))`)
    assert.equal(explainKafkaError(new Error(first), S), first);
  });

  it('a broker closing the connection without SASL set is not called a SASL problem for sure', function () {
    const e = Object.assign(new Error('Closed connection'), { name: 'KafkaJSConnectionClosedError' });
    assert.equal(explainKafkaError(e, S), 'the broker closed the connection (src: h:9092): a broker restarting, or a listener that wants SASL or TLS (then set them in the cluster node)');
  });
});

describe('invalidTopicNameReason: names replication.policy.separator when it made a topic name invalid', function () {
  const { invalidTopicNameReason } = require('../../dist/kafka/internal-topics');
  it('valid names pass; invalid ones say why, and name the separator when it is the cause', function () {
    assert.equal(invalidTopicNameReason('us-west.checkpoints.internal', '.'), null);
    assert.equal(invalidTopicNameReason('a_b-c.D9', '_'), null);
    assert.equal(
      invalidTopicNameReason('us-west:orders', ':'),
      "topic name 'us-west:orders' has characters Kafka does not allow (':'; only letters, digits, '.', '_' and '-'): it is built with replication.policy.separator ':'; set replication.policy.separator to characters Kafka allows in topic names (MM2's default is '.')",
    );
    assert.match(invalidTopicNameReason('x'.repeat(250), '.'), /longer than Kafka's 249 characters$/);
    assert.equal(invalidTopicNameReason('..'), "'..' is not a topic name");
  });
});

describe('authorization refusals: one explanation naming the ACL', function () {
  const { notAuthorized, explainNotAuthorized, authorizationFailure, refusalSummary, aclText, NotAuthorizedError } = require('../../dist/kafka/client');
  /** @type {any} */
  const SASL = { ...S, sasl: { mechanism: 'scram-sha-512', username: 'alice', password: 'x' } };
  /** @type {any[]} */
  const needs = [
    { resource: 'Topic', name: 'heartbeats', operations: ['WRITE'] },
    { resource: 'Group', name: '__mm2-node-red-reader', prefixed: true, operations: ['READ'] },
  ];
  /** A kafkajs protocol error as kafkajs builds it from the broker's error code. */
  const refusal = (type, message) => Object.assign(new Error(message), { name: 'KafkaJSProtocolError', type });

  it('finds each of the four refusal codes in kafkajs errors, their causes and their per-resource errors', function () {
    for (const type of ['TOPIC_AUTHORIZATION_FAILED', 'GROUP_AUTHORIZATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED']) {
      assert.equal(authorizationFailure(refusal(type, 'refused')), type);
      assert.equal(authorizationFailure({ name: 'KafkaJSNumberOfRetriesExceeded', message: 'retries', cause: refusal(type, 'refused') }), type);
    }
    // createTopics: one error per topic
    assert.equal(authorizationFailure({ name: 'KafkaJSAggregateError', message: 'Topic creation errors', errors: [refusal('TOPIC_AUTHORIZATION_FAILED', 'x')] }), 'TOPIC_AUTHORIZATION_FAILED');
    // kafkajs's words only (an error re-thrown as text)
    assert.equal(authorizationFailure(new Error('Not authorized to access group: Group authorization failed')), 'GROUP_AUTHORIZATION_FAILED');
    assert.equal(authorizationFailure(new Error('connection refused')), null);
  });

  it('names the ACLs of the refused resource type and the SASL principal', function () {
    const e = notAuthorized(refusal('TOPIC_AUTHORIZATION_FAILED', 'Not authorized to access topics: [Topic authorization failed]'), needs, SASL);
    assert.ok(e instanceof NotAuthorizedError);
    assert.equal(e.code, 'NOT_AUTHORIZED');
    assert.equal(e.denied, 'TOPIC_AUTHORIZATION_FAILED');
    assert.equal(e.message, 'not authorized (src: h:9092) (TOPIC_AUTHORIZATION_FAILED): needs WRITE on Topic:heartbeats for principal User:alice');
    const g = notAuthorized(refusal('GROUP_AUTHORIZATION_FAILED', 'x'), needs, SASL);
    assert.equal(g.message, 'not authorized (src: h:9092) (GROUP_AUTHORIZATION_FAILED): needs READ on Group:__mm2-node-red-reader (prefixed) for principal User:alice');
    // explained once: passed on as it is
    assert.equal(notAuthorized(g, [], S), g);
    assert.equal(explainKafkaError(g, S), g.message);
    assert.equal(notAuthorized(new Error('connection refused'), needs, S), null);
  });

  it('over mutual TLS names the client certificate, and without a matching need names the resource type', function () {
    /** @type {any} */
    const mtls = { ...S, tls: { cert: 'PEM', key: 'PEM' } };
    assert.match(explainKafkaError(refusal('TOPIC_AUTHORIZATION_FAILED', 'x'), mtls, needs), /needs WRITE on Topic:heartbeats for the client certificate's principal$/);
    assert.equal(
      explainKafkaError(refusal('CLUSTER_AUTHORIZATION_FAILED', 'x'), SASL),
      "not authorized (src: h:9092) (CLUSTER_AUTHORIZATION_FAILED): the broker refused an ACL on the Cluster for principal User:alice; grant the ACLs the node's help lists",
    );
  });

  it('lists several operations on one resource, and gives the status its short form', function () {
    assert.equal(aclText({ resource: /** @type {const} */ ('Topic'), name: 't', operations: ['CREATE', 'WRITE', 'DESCRIBE_CONFIGS'] }), 'CREATE, WRITE and DESCRIBE_CONFIGS on Topic:t');
    const text = explainNotAuthorized('TOPIC_AUTHORIZATION_FAILED', [{ resource: /** @type {const} */ ('Topic'), name: 'source.orders', operations: ['CREATE', 'WRITE'] }], 'User:bob', ' (target: h:1)');
    assert.equal(refusalSummary(`cannot create source.orders: ${text} (retrying)`), 'not authorized: needs CREATE and WRITE on Topic:source.orders');
    assert.equal(refusalSummary('connection refused (src: h:9092)'), null);
  });

  it('unreachableExplanation: a cluster that does not answer, without its place (a status has room for the fix); null for other failures', function () {
    const refused = explainKafkaError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { name: 'KafkaJSConnectionError' }), S);
    assert.equal(refused, 'connection refused (src: h:9092): check the bootstrap servers and that the brokers run');
    assert.equal(unreachableExplanation(refused), 'connection refused: check the bootstrap servers and that the brokers run');
    assert.equal(unreachableExplanation(explainKafkaError(new Error('getaddrinfo ENOTFOUND nowhere'), S)), 'unknown host: check the bootstrap servers');
    assert.equal(unreachableExplanation('not authorized (src: h:9092): needs CREATE on Topic:x'), null);
    assert.equal(unreachableExplanation('topic does not exist (src: h:9092)'), null);
  });
});
