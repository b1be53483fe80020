'use strict';
/**
 * A secured Kafka cluster for one test file, beside the two plain ones the root hooks start:
 * TLS listeners (SSL, SASL_SSL, MTLS), an OAUTHBEARER listener (OAUTH; with TLS also OAUTH_SSL) and/or KRaft's StandardAuthorizer
 * (scripts/kafka/cluster.js, option `security`). Call it inside a describe(): the cluster starts
 * in before() and stops in after(), also when a test fails; clients made through it are
 * disconnected before the cluster stops.
 *
 *   const { useSecuredCluster } = require('../harness/secured');
 *   describe('...', function () {
 *     const secured = useSecuredCluster('authz', { tls: true, authorizer: true });
 *     it('...', async function () {
 *       await secured.cluster.acl.create({ principal: 'User:alice', resourceType: 'TOPIC', resourceName: t, operation: 'READ' });
 *       const consumer = secured.kafka('SASL_SSL', { user: 'alice' }).consumer({ groupId: g });
 *       secured.closeLater(() => consumer.disconnect());
 *     });
 *   });
 */
const { Kafka, logLevel } = require('kafkajs');
const { startCluster } = require('../../scripts/kafka/cluster');

/**
 * The kafkajs connection settings (brokers, ssl, sasl) for one listener of a secured cluster.
 * opts.user: the SASL user (SASL_PLAINTEXT, SASL_SSL; its password comes from the cluster);
 * opts.mechanism: 'scram-sha-512' (default), 'scram-sha-256' or 'plain'; opts.password: another
 * password than the user's (to be refused); opts.cert: false to leave the client certificate out on
 * MTLS; opts.ca: false to trust the system's CAs instead of the test CA; opts.oauthBearerProvider: the
 * token provider for the OAUTH and OAUTH_SSL listeners (security.oauth).
 * @param {Awaited<ReturnType<typeof startCluster>>} cluster
 * @param {'PLAINTEXT'|'SASL_PLAINTEXT'|'SSL'|'SASL_SSL'|'MTLS'|'OAUTH'|'OAUTH_SSL'} listener
 * @param {{ user?: string, password?: string, mechanism?: 'plain'|'scram-sha-256'|'scram-sha-512', cert?: boolean, ca?: boolean, oauthBearerProvider?: () => Promise<{ value: string }> }} [opts]
 */
function connectionFor(cluster, listener, opts = {}) {
  const broker = cluster.listeners[listener];
  if (!broker) throw new Error(`cluster '${cluster.name}' has no ${listener} listener (listeners: ${Object.keys(cluster.listeners).join(', ')}; SSL, SASL_SSL and MTLS need security.tls)`);
  /** @type {any} kafkajs KafkaConfig parts */
  const config = { brokers: [broker] };
  if (listener === 'SSL' || listener === 'SASL_SSL' || listener === 'MTLS' || listener === 'OAUTH_SSL') {
    config.ssl = opts.ca === false ? {} : { ca: [cluster.tls.ca] };
    if (listener === 'MTLS' && opts.cert !== false) Object.assign(config.ssl, { cert: cluster.tls.cert, key: cluster.tls.key });
  }
  if (listener === 'OAUTH' || listener === 'OAUTH_SSL') {
    if (!opts.oauthBearerProvider) throw new Error('the OAUTH and OAUTH_SSL listeners need opts.oauthBearerProvider (an async function giving { value: <JWT> })');
    config.sasl = { mechanism: 'oauthbearer', oauthBearerProvider: opts.oauthBearerProvider };
  } else if (listener === 'SASL_PLAINTEXT' || listener === 'SASL_SSL') {
    const user = opts.user || 'admin';
    if (!(user in cluster.saslUsers)) throw new Error(`cluster '${cluster.name}' has no SASL user '${user}' (users: ${Object.keys(cluster.saslUsers).join(', ')}; add one with security.users)`);
    config.sasl = { mechanism: opts.mechanism || 'scram-sha-512', username: user, password: opts.password === undefined ? cluster.saslUsers[user] : opts.password };
  }
  return config;
}

/**
 * Starts a secured cluster for the enclosing describe() (see the header).
 * @param {string} name the cluster's name (its temporary folder and log lines carry it)
 * @param {SecurityOptions | (() => SecurityOptions)} [security] a function is called in before(),
 *   after the before() hooks registered ahead of this call (e.g. one that starts the JWKS server)
 * @typedef {{ tls?: boolean, authorizer?: boolean, users?: Record<string, string>, oauth?: { jwksUrl: string, issuer?: string, audience?: string, allowedUrls?: string[] } }} SecurityOptions
 */
function useSecuredCluster(name, security = { tls: true, authorizer: true }) {
  const toClose = [];
  const handle = {
    /** @type {Awaited<ReturnType<typeof startCluster>>} set in before() */
    cluster: null,
    /** kafkajs connection settings for `listener` (see connectionFor). */
    connection: (listener, opts) => connectionFor(handle.cluster, listener, opts),
    /**
     * A quiet kafkajs client for `listener` (see connectionFor for opts), with few retries so that
     * a refusal shows at once; `extra` goes into the Kafka config as it is.
     * @param {Parameters<typeof connectionFor>[1]} listener
     * @param {Parameters<typeof connectionFor>[2]} [opts]
     * @param {Partial<import('kafkajs').KafkaConfig>} [extra]
     */
    kafka: (listener, opts, extra = {}) => new Kafka({
      clientId: `test-${name}`,
      logLevel: logLevel.NOTHING,
      retry: { retries: 2, initialRetryTime: 100 },
      connectionTimeout: 5000,
      ...connectionFor(handle.cluster, listener, opts),
      ...extra,
    }),
    /** Runs `fn` (e.g. () => consumer.disconnect()) in after(), before the cluster stops. */
    closeLater: (fn) => { toClose.push(fn); },
  };
  before(async function () {
    this.timeout(120000);
    handle.cluster = await startCluster(name, { security: typeof security === 'function' ? security() : security });
  });
  after(async function () {
    this.timeout(30000);
    while (toClose.length) {
      try { await toClose.pop()(); } catch { /* a client that never connected */ }
    }
    if (handle.cluster) await handle.cluster.stop();
    handle.cluster = null;
  });
  return handle;
}

module.exports = { useSecuredCluster, connectionFor };
