'use strict';
/**
 * Real Apache Kafka for tests and the demo: single-node KRaft clusters on loopback, started
 * from Kafka's own jars (resolved from Maven Central with Maven, cached), each in a temporary
 * folder, each a child process with a small heap. No Docker, no mock.
 *
 *   const { startClusters } = require('./scripts/kafka/cluster');
 *   const clusters = await startClusters(['source', 'target']);
 *   clusters.source.bootstrap  // '127.0.0.1:40123'
 *   await clusters.stop();
 *
 * CLI: node scripts/kafka/cluster.js up [--clusters source,target] [--version 4.1.1] [--security tls,authorizer]
 *      node scripts/kafka/cluster.js resolve [--version 4.1.1]
 *
 * Options: { version, heap, ports: { broker, sasl, controller, ssl, saslSsl, mtls, oauth, oauthSsl } } (fixed ports
 * for the demo; tests let the kernel pick free ones), `properties` (below), and `security` for secured clusters:
 *   security: {
 *     tls: true,         // three more listeners: SSL (server authenticated by a test CA), SASL_SSL
 *                        // (PLAIN and SCRAM over TLS) and MTLS (TLS with ssl.client.auth=required;
 *                        // the client certificate's CN is the principal: User:mm2-client)
 *     authorizer: true,  // KRaft's StandardAuthorizer, no ACL means no access
 *     users: { bob: 'bob-secret' },  // SASL users beside SASL_USERS (PLAIN and SCRAM), none super
 *     oauth: { jwksUrl, issuer, audience, allowedUrls },  // one more listener, OAUTH (SASL_PLAINTEXT
 *                        // with OAUTHBEARER only): JWTs validated by Kafka's OAuthBearerValidatorCallbackHandler
 *                        // against the JWKS at jwksUrl (which must answer before the broker starts), with
 *                        // the expected issuer and audience when given; the principal is User:<sub>.
 *                        // The JVM's org.apache.kafka.sasl.oauthbearer.allowed.urls lists jwksUrl and
 *                        // allowedUrls (e.g. the token endpoint). The broker makes a client authenticate
 *                        // again before its token expires (connections.max.reauth.ms on the listener).
 *                        // With tls too, another listener OAUTH_SSL: the same over SASL_SSL (the test CA).
 *   }
 * With the authorizer, the listeners that authenticate nobody (PLAINTEXT, SSL, and CONTROLLER,
 * which the broker uses to reach its controller) are the principal User:ANONYMOUS, a super user:
 * that is the harness's own admin (`bootstrap`), so setup needs no ACL. SASL user `admin` is a
 * super user too; every other principal (alice, the `users`, User:mm2-client) holds only the ACLs
 * a test gives it with `cluster.acl.create(...)`.
 * `properties: { 'offsets.retention.minutes': 1, ... }` (strings, numbers or booleans) adds lines to
 * the broker's server.properties; a setting the harness writes itself is replaced by the one given.
 * Settings (environment): KAFKA_VERSION (default below), KAFKA_MM2_CACHE (jar cache folder,
 * default ~/.cache/kafka-mm2), KAFKA_HEAP (default 512m), KAFKA_KEEP_DATA=1 (keep the folders),
 * MM2_NO_CDS=1 (no class archive, see ./cds.js: the formatter and the broker start about twice as fast with one).
 */
const { spawn, spawnSync } = require('node:child_process');
const { cdsOptions } = require('./cds');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const net = require('node:net');
const crypto = require('node:crypto');

/** The Kafka version the tests and the demo run against unless KAFKA_VERSION says otherwise. */
const DEFAULT_KAFKA_VERSION = '4.4.0';
/** Versions docs/development.md reports on; `npm test` with KAFKA_VERSIONS runs the integration suite once per version. */
const TESTED_KAFKA_VERSIONS = ['4.4.0', '3.9.1', '4.1.1', '4.2.2'];

/** SASL users created on every cluster's SASL listener (PLAIN and SCRAM). Test-only secrets. */
const SASL_USERS = { admin: 'admin-secret', alice: 'alice-secret' };

function cacheRoot() {
  return process.env.KAFKA_MM2_CACHE || path.join(os.homedir(), '.cache', 'kafka-mm2');
}

function log(msg) {
  if (process.env.KAFKA_QUIET !== '1') process.stderr.write(`[kafka] ${msg}\n`);
}

/**
 * Makes sure the jars of `version` are in the cache (runs Maven once; later runs are offline).
 * @returns {string} the folder holding the jars
 */
function resolveKafka(version = process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION) {
  const dir = path.join(cacheRoot(), `kafka-${version}`);
  const libs = path.join(dir, 'libs');
  const marker = path.join(dir, '.complete');
  if (fs.existsSync(marker)) return libs;
  fs.mkdirSync(dir, { recursive: true });
  fs.rmSync(libs, { recursive: true, force: true });
  log(`resolving Apache Kafka ${version} jars from Maven Central into ${libs} (first run only)`);
  const pom = path.join(__dirname, 'pom.xml');
  const res = spawnSync(
    'mvn',
    [
      '-B', '-q', '-f', pom,
      'dependency:copy-dependencies',
      `-Dkafka.version=${version}`,
      `-DoutputDirectory=${libs}`,
      '-DincludeScope=runtime',
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (res.error) throw new Error(`cannot run Maven (mvn): ${res.error.message}. Install Maven and Java 17.`);
  if (res.status !== 0) throw new Error(`Maven could not resolve Apache Kafka ${version} (exit ${res.status})`);
  fs.writeFileSync(marker, new Date().toISOString() + '\n');
  return libs;
}

/** Ports freePort handed out in this process: the kernel may offer a port again once it is closed. */
const handedOut = new Set();

/**
 * A free TCP port on 127.0.0.1 (the kernel picks it, so parallel runs do not collide), never one
 * this process was given before: a broker's listeners are asked for one after the other, and a
 * port the kernel offered twice makes the broker refuse two listeners on one port.
 */
async function freePort() {
  for (let i = 0; ; i++) {
    const port = await kernelPort();
    if (!handedOut.has(port) || i >= 20) {
      handedOut.add(port);
      return port;
    }
  }
}

function kernelPort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

function kraftClusterId() {
  // 16 random bytes, URL-safe base64 without padding: the form `kafka-storage random-uuid` prints.
  // One starting with '-' would be read as an option by the storage tool: draw again.
  for (;;) {
    const id = crypto.randomBytes(16).toString('base64url');
    if (/^[A-Za-z0-9]/.test(id)) return id;
  }
}

function jaasPlain(all = SASL_USERS) {
  const users = Object.entries(all).map(([u, p]) => `user_${u}="${p}"`).join(' ');
  return `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${SASL_USERS.admin}" ${users};`;
}

/** The CN of the client certificate made for the MTLS listener; with the mapping rule below it is the principal. */
const TLS_CLIENT_CN = 'mm2-client';
/**
 * Principals the authorizer lets do anything: the harness's own admin and the broker itself (see
 * the header). The broker reaches its controller over the PLAINTEXT CONTROLLER listener, as
 * User:ANONYMOUS: without it in super.users the broker is refused by its own controller and never
 * opens its listeners (seen on 4.1.1 and 3.9.1).
 */
const SUPER_USERS = ['User:ANONYMOUS', 'User:admin'];

/**
 * Makes a test CA, a broker certificate (SAN localhost and 127.0.0.1) and a client certificate
 * (CN mm2-client) with openssl, in `dir`, as PEM files (keys unencrypted PKCS#8, EC P-256: quick to
 * make). Valid two days: certificates of a test run only.
 * @returns {{ dir: string, caFile: string, certFile: string, keyFile: string, brokerKeystoreFile: string }}
 */
function makeCertificates(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const f = (n) => path.join(dir, n);
  const ssl = (args, what) => runSync('openssl', args, `openssl: ${what}`);
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(['req', '-x509', ...newKey, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=mm2-test-ca',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], 'the test CA');
  const issue = (name, subject, ext) => {
    fs.writeFileSync(f(`${name}.ext`), ext);
    ssl(['req', '-new', ...newKey, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', subject], `the ${name} key`);
    ssl(['x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial',
      '-out', f(`${name}.pem`), '-days', '2', '-extfile', f(`${name}.ext`)], `the ${name} certificate`);
  };
  issue('broker', '/CN=localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
  issue('client', `/CN=${TLS_CLIENT_CN}`, 'extendedKeyUsage=clientAuth\n');
  // Kafka's PEM key store: the private key, then the certificate chain, in one file.
  const brokerKeystoreFile = f('broker-keystore.pem');
  fs.writeFileSync(brokerKeystoreFile, fs.readFileSync(f('broker.key'), 'utf8') + fs.readFileSync(f('broker.pem'), 'utf8') + fs.readFileSync(f('ca.pem'), 'utf8'));
  return { dir, caFile: f('ca.pem'), certFile: f('client.pem'), keyFile: f('client.key'), brokerKeystoreFile };
}

/** Kafka's classes for OAUTHBEARER on the broker (in 3.9.1 and 4.1.1). */
const OAUTH_LOGIN_MODULE = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule';
const OAUTH_VALIDATOR = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler';

function serverProperties({ dataDir, brokerPort, saslPort, controllerPort, tlsPorts, certs, authorizer, users, oauth, extra }) {
  const scramJaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
  const listeners = [`PLAINTEXT://127.0.0.1:${brokerPort}`, `SASL_PLAINTEXT://127.0.0.1:${saslPort}`];
  const protocols = ['PLAINTEXT:PLAINTEXT', 'SASL_PLAINTEXT:SASL_PLAINTEXT', 'CONTROLLER:PLAINTEXT'];
  if (tlsPorts) {
    listeners.push(`SSL://127.0.0.1:${tlsPorts.ssl}`, `SASL_SSL://127.0.0.1:${tlsPorts.saslSsl}`, `MTLS://127.0.0.1:${tlsPorts.mtls}`);
    protocols.push('SSL:SSL', 'SASL_SSL:SASL_SSL', 'MTLS:SSL');
  }
  if (oauth) {
    listeners.push(`OAUTH://127.0.0.1:${oauth.port}`);
    protocols.push('OAUTH:SASL_PLAINTEXT');
    if (oauth.sslPort) {
      listeners.push(`OAUTH_SSL://127.0.0.1:${oauth.sslPort}`);
      protocols.push('OAUTH_SSL:SASL_SSL');
    }
  }
  const lines = {
    'process.roles': 'broker,controller',
    'node.id': '1',
    'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
    'listeners': [...listeners, `CONTROLLER://127.0.0.1:${controllerPort}`].join(','),
    'advertised.listeners': listeners.join(','),
    'listener.security.protocol.map': protocols.join(','),
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
  };
  for (const l of tlsPorts ? ['sasl_plaintext', 'sasl_ssl'] : ['sasl_plaintext']) {
    lines[`listener.name.${l}.plain.sasl.jaas.config`] = jaasPlain(users);
    lines[`listener.name.${l}.scram-sha-256.sasl.jaas.config`] = scramJaas;
    lines[`listener.name.${l}.scram-sha-512.sasl.jaas.config`] = scramJaas;
  }
  if (oauth) {
    // OAUTH (SASL_PLAINTEXT) and, with TLS, OAUTH_SSL (SASL_SSL): OAUTHBEARER only, alike
    for (const l of oauth.sslPort ? ['oauth', 'oauth_ssl'] : ['oauth']) {
      Object.assign(lines, {
        [`listener.name.${l}.sasl.enabled.mechanisms`]: 'OAUTHBEARER',
        [`listener.name.${l}.oauthbearer.sasl.jaas.config`]: `${OAUTH_LOGIN_MODULE} required;`,
        [`listener.name.${l}.oauthbearer.sasl.server.callback.handler.class`]: OAUTH_VALIDATOR,
        // a session lasts at most until the token expires (and at most an hour): the client must
        // authenticate again with a new token on its open connections
        [`listener.name.${l}.oauthbearer.connections.max.reauth.ms`]: '3600000',
      });
    }
    Object.assign(lines, {
      'sasl.oauthbearer.jwks.endpoint.url': oauth.jwksUrl,
      // Kafka 4.1's default JWT validator (DefaultJwtValidator, made without a key resolver) checks
      // no signature at all: a token signed by any key passes (seen on 4.1.1; 4.2 picks the broker's
      // validator when a JWKS URL is set). The broker's validator verifies the signature with the
      // JWKS; 3.9 verifies it without this setting.
      ...(oauth.brokerValidator ? { 'sasl.oauthbearer.jwt.validator.class': 'org.apache.kafka.common.security.oauthbearer.BrokerJwtValidator' } : {}),
      ...(oauth.issuer ? { 'sasl.oauthbearer.expected.issuer': oauth.issuer } : {}),
      ...(oauth.audience ? { 'sasl.oauthbearer.expected.audience': oauth.audience } : {}),
    });
  }
  if (tlsPorts) {
    Object.assign(lines, {
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': certs.brokerKeystoreFile,
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': certs.caFile,
      'ssl.client.auth': 'none',
      'listener.name.mtls.ssl.client.auth': 'required',
      // The client certificate's subject is CN=mm2-client: the principal is User:mm2-client.
      'ssl.principal.mapping.rules': 'RULE:^CN=([^,]+)$/$1/,DEFAULT',
    });
  }
  if (authorizer) {
    Object.assign(lines, {
      'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
      'super.users': SUPER_USERS.join(';'),
      'allow.everyone.if.no.acl.found': 'false',
    });
  }
  Object.assign(lines, {
    'log.dirs': path.join(dataDir, 'data'),
    'num.partitions': '1',
    'default.replication.factor': '1',
    'offsets.topic.replication.factor': '1',
    'offsets.topic.num.partitions': '5',
    'transaction.state.log.replication.factor': '1',
    'transaction.state.log.min.isr': '1',
    'share.coordinator.state.topic.replication.factor': '1',
    'share.coordinator.state.topic.min.isr': '1',
    'group.initial.rebalance.delay.ms': '0',
    'auto.create.topics.enable': 'false',
    'log.segment.bytes': String(16 * 1024 * 1024),
    'log.cleaner.backoff.ms': '1000',
    'num.network.threads': '2',
    'num.io.threads': '2',
    'num.recovery.threads.per.data.dir': '1',
    'log.retention.check.interval.ms': '60000',
  });
  Object.assign(lines, extra);
  return Object.entries(lines).map(([k, v]) => `${k}=${v}`).join('\n') + '\n';
}

const LOG4J1 = [
  'log4j.rootLogger=WARN, file',
  'log4j.appender.file=org.apache.log4j.FileAppender',
  'log4j.appender.file.File=${kafka.logs.dir}/server.log',
  'log4j.appender.file.layout=org.apache.log4j.PatternLayout',
  'log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n',
  'log4j.logger.kafka.server.KafkaRaftServer=INFO',
  'log4j.logger.kafka.server.BrokerServer=INFO',
  '',
].join('\n');

const LOG4J2 = [
  'status = warn',
  'appender.file.type = File',
  'appender.file.name = FILE',
  'appender.file.fileName = ${sys:kafka.logs.dir}/server.log',
  'appender.file.layout.type = PatternLayout',
  'appender.file.layout.pattern = [%d] %p %m (%c)%n',
  'rootLogger.level = WARN',
  'rootLogger.appenderRef.file.ref = FILE',
  'logger.raft.name = kafka.server.KafkaRaftServer',
  'logger.raft.level = INFO',
  'logger.broker.name = kafka.server.BrokerServer',
  'logger.broker.level = INFO',
  '',
].join('\n');

function javaArgs(libs, dataDir, heap, systemProperties = {}) {
  return [
    ...Object.entries(systemProperties).map(([k, v]) => `-D${k}=${v}`),
    `-Xmx${heap}`, `-Xms${heap === '512m' ? '256m' : heap}`,
    '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-XX:TieredStopAtLevel=1', '-Xss512k',
    '-Djava.awt.headless=true',
    `-Dkafka.logs.dir=${dataDir}`,
    `-Dlog4j.configuration=file:${path.join(dataDir, 'log4j.properties')}`,
    `-Dlog4j2.configurationFile=${path.join(dataDir, 'log4j2.properties')}`,
    '-cp', path.join(libs, '*'),
  ];
}

function runSync(cmd, args, what) {
  const res = spawnSync(cmd, args, { encoding: 'utf8' });
  if (res.error) throw new Error(`${what}: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`${what} failed (exit ${res.status}):\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

function waitForPort(port, child, timeoutMs, logFile) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) {
        reject(new Error(`broker exited with code ${child.exitCode}; see ${logFile}`));
        return;
      }
      const sock = net.connect({ host: '127.0.0.1', port });
      sock.once('connect', () => { sock.destroy(); resolve(); });
      sock.once('error', () => {
        sock.destroy();
        if (Date.now() > deadline) reject(new Error(`broker did not open port ${port} within ${timeoutMs} ms; see ${logFile}`));
        else setTimeout(attempt, 200);
      });
    };
    attempt();
  });
}

/** Waits until the broker answers metadata requests and can create a topic (the controller is up). */
async function waitForBroker(bootstrap, timeoutMs) {
  const { Kafka, logLevel } = require('kafkajs');
  const kafka = new Kafka({ clientId: 'mm2-harness', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  const admin = kafka.admin();
  const deadline = Date.now() + timeoutMs;
  let lastErr;
  while (Date.now() < deadline) {
    try {
      await admin.connect();
      await admin.describeCluster();
      await admin.disconnect();
      return;
    } catch (e) {
      lastErr = e;
      try { await admin.disconnect(); } catch { /* ignore */ }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`broker at ${bootstrap} did not become ready: ${lastErr && lastErr.message}`);
}

/** Brokers running now -> their data folder. */
const running = new Map();
/** How long a stop waits for a broker to exit after SIGTERM before SIGKILL: a broker that writes the class archive at exit (its version's first run) gets longer. */
const STOP_WAIT_MS = 8000;
const STOP_WAIT_ARCHIVE_MS = 40000;
/** Brokers that write the class archive at exit (./cds.js): their stop waits longer. */
const writingArchive = new WeakSet();
let exitHooked = false;
function removeData(dataDir) {
  if (process.env.KAFKA_KEEP_DATA !== '1') fs.rmSync(dataDir, { recursive: true, force: true });
}
function killAll() {
  for (const [c, dataDir] of running) {
    try { c.kill('SIGKILL'); } catch { /* ignore */ }
    try { removeData(dataDir); } catch { /* ignore */ }
  }
}
function hookExit() {
  if (exitHooked) return;
  exitHooked = true;
  // Last line of defence: never leave a broker or its folder behind, whatever happens to the parent.
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(sig, () => {
      // A program that handles the signal itself (the demo) stops the brokers in order and removes
      // their folders: leave it to that. Without another handler, exit as the signal would have.
      if (process.listenerCount(sig) > 0) return;
      killAll();
      process.exit(sig === 'SIGINT' ? 130 : sig === 'SIGTERM' ? 143 : 129);
    });
  }
}

/**
 * opts.properties checked: an object of broker setting names to strings, numbers or booleans (one
 * line of server.properties each). Anything else is refused, naming the setting.
 * @returns {Record<string, string>}
 */
function brokerProperties(props) {
  if (props === undefined) return {};
  if (props === null || typeof props !== 'object' || Array.isArray(props)) {
    throw new Error(`startCluster: properties must be an object of broker settings, e.g. { 'offsets.retention.minutes': 1 }`);
  }
  /** @type {Record<string, string>} */
  const out = {};
  for (const [k, v] of Object.entries(props)) {
    if (!/^[A-Za-z0-9._-]+$/.test(k)) throw new Error(`startCluster: properties: '${k}' is not a broker setting name (letters, digits, '.', '_', '-')`);
    if (!['string', 'number', 'boolean'].includes(typeof v) || /[\r\n]/.test(String(v))) {
      throw new Error(`startCluster: properties['${k}'] must be a string, number or boolean on one line, not ${JSON.stringify(v)}`);
    }
    out[k] = String(v);
  }
  return out;
}

/**
 * Starts one single-node KRaft cluster.
 * kill() and restart() are for fault-injection tests: kill -9 the broker, start it again on the same
 * data directory and ports.
 * opts.security adds TLS listeners and the authorizer, opts.properties extra broker settings (see the header).
 * @returns {Promise<{name, version, bootstrap, saslBootstrap, brokerPort, saslPort, dataDir, logFile, saslUsers, listeners, tls, authorizer, superUsers, acl: ReturnType<typeof aclHelper>, stop(): Promise<void>, kill(): Promise<void>, restart(): Promise<void>}>}
 */
async function startCluster(name, opts = {}) {
  const version = opts.version || process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION;
  const heap = opts.heap || process.env.KAFKA_HEAP || '512m';
  const extra = brokerProperties(opts.properties);
  const libs = resolveKafka(version);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `kafka-mm2-${name}-`));
  const fixed = opts.ports || {};
  const brokerPort = fixed.broker || (await freePort());
  const saslPort = fixed.sasl || (await freePort());
  const controllerPort = fixed.controller || (await freePort());
  const security = opts.security || {};
  const users = { ...SASL_USERS, ...(security.users || {}) };
  let tlsPorts = null;
  let certs = null;
  if (security.tls) {
    tlsPorts = { ssl: fixed.ssl || (await freePort()), saslSsl: fixed.saslSsl || (await freePort()), mtls: fixed.mtls || (await freePort()) };
    try {
      certs = makeCertificates(path.join(dataDir, 'tls'));
    } catch (e) {
      removeData(dataDir);
      throw e;
    }
  }
  let oauth = null;
  /** @type {Record<string, string>} JVM system properties of the broker */
  const sysProps = {};
  if (security.oauth) {
    const o = security.oauth;
    if (!o.jwksUrl) {
      removeData(dataDir);
      throw new Error('startCluster: security.oauth needs jwksUrl (the JWKS the broker validates tokens with)');
    }
    const [major, minor] = version.split('.').map(Number);
    oauth = {
      port: fixed.oauth || (await freePort()),
      sslPort: security.tls ? fixed.oauthSsl || (await freePort()) : null,
      jwksUrl: o.jwksUrl, issuer: o.issuer, audience: o.audience, brokerValidator: major > 4 || (major === 4 && minor >= 1),
    };
    // Kafka reads OAuth URLs only when this JVM property lists them (4.x; also enforced in 3.9.1)
    sysProps['org.apache.kafka.sasl.oauthbearer.allowed.urls'] = [o.jwksUrl, ...(o.allowedUrls || [])].join(',');
  }
  const props = path.join(dataDir, 'server.properties');
  fs.writeFileSync(props, serverProperties({ dataDir, brokerPort, saslPort, controllerPort, tlsPorts, certs, authorizer: !!security.authorizer, users, oauth, extra }));
  fs.writeFileSync(path.join(dataDir, 'log4j.properties'), LOG4J1);
  fs.writeFileSync(path.join(dataDir, 'log4j2.properties'), LOG4J2);
  const logFile = path.join(dataDir, 'server.log');

  const scram = [];
  for (const [user, pass] of Object.entries(users)) {
    scram.push('--add-scram', `SCRAM-SHA-256=[name=${user},password=${pass}]`);
    scram.push('--add-scram', `SCRAM-SHA-512=[name=${user},password=${pass}]`);
  }
  const formatCds = cdsOptions(libs, 'kafka.tools.StorageTool');
  try {
    runSync(
      'java',
      [...formatCds.args, ...javaArgs(libs, dataDir, '256m'), 'kafka.tools.StorageTool', 'format', `--cluster-id=${kraftClusterId()}`, '-c', props, ...scram],
      `formatting the storage of cluster '${name}'`,
    );
    formatCds.settle(true);
  } catch (e) {
    formatCds.settle(false);
    removeData(dataDir);
    throw e;
  }

  const launch = () => {
    const out = fs.openSync(path.join(dataDir, 'stdout.log'), 'a');
    const cds = cdsOptions(libs, 'kafka.Kafka');
    const c = spawn('java', [...cds.args, ...javaArgs(libs, dataDir, heap, sysProps), 'kafka.Kafka', props], {
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    hookExit();
    running.set(c, dataDir);
    if (cds.writing) writingArchive.add(c);
    c.once('exit', (_code, signal) => {
      running.delete(c);
      cds.settle(signal === null);
    });
    return c;
  };
  let child = launch();

  const bootstrap = `127.0.0.1:${brokerPort}`;
  try {
    await waitForPort(brokerPort, child, 60000, logFile);
    await waitForBroker(bootstrap, 60000);
  } catch (e) {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)));
    removeData(dataDir);
    throw new Error(`cluster '${name}' (Kafka ${version}) did not start: ${e.message}`);
  }
  const secured = [tlsPorts && `SSL ${tlsPorts.ssl}, SASL_SSL ${tlsPorts.saslSsl}, MTLS ${tlsPorts.mtls}`, oauth && `OAUTH ${oauth.port}${oauth.sslPort ? `, OAUTH_SSL ${oauth.sslPort}` : ''}`, security.authorizer && 'StandardAuthorizer'].filter(Boolean);
  log(`cluster '${name}' (Kafka ${version}) up at ${bootstrap} (SASL_PLAINTEXT ${saslPort}${secured.length ? `; ${secured.join('; ')}` : ''}), data in ${dataDir}`);

  let stopped;
  const stop = () => {
    if (!stopped) {
      stopped = new Promise((resolve) => {
        const done = () => {
          removeData(dataDir);
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        // writing the class archive at exit (the broker's first run) takes a few seconds more
        const killTimer = setTimeout(() => child.kill('SIGKILL'), writingArchive.has(child) ? STOP_WAIT_ARCHIVE_MS : STOP_WAIT_MS);
        child.once('exit', () => { clearTimeout(killTimer); done(); });
        child.kill('SIGTERM');
      });
    }
    return stopped;
  };
  /** Fault injection for tests: SIGKILL the broker (kill -9), its data directory stays. */
  const kill = () => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
  /** Starts the broker again on the same data directory and ports (after kill()); resolves when it answers. */
  const restart = async () => {
    if (stopped) throw new Error(`cluster '${name}' was stopped`);
    await kill();
    child = launch();
    cluster.process = child;
    await waitForPort(brokerPort, child, 60000, logFile);
    await waitForBroker(bootstrap, 60000);
    log(`cluster '${name}' restarted at ${bootstrap} on ${dataDir}`);
  };
  const cluster = {
    name, version, bootstrap, saslBootstrap: `127.0.0.1:${saslPort}`, brokerPort, saslPort,
    dataDir, logFile, saslUsers: users, process: child, stop, kill, restart,
    /** Bootstrap address per listener name (SSL, SASL_SSL and MTLS only with security.tls, OAUTH with security.oauth, OAUTH_SSL with both). */
    listeners: {
      PLAINTEXT: bootstrap,
      SASL_PLAINTEXT: `127.0.0.1:${saslPort}`,
      ...(tlsPorts ? { SSL: `127.0.0.1:${tlsPorts.ssl}`, SASL_SSL: `127.0.0.1:${tlsPorts.saslSsl}`, MTLS: `127.0.0.1:${tlsPorts.mtls}` } : {}),
      ...(oauth ? { OAUTH: `127.0.0.1:${oauth.port}` } : {}),
      ...(oauth && oauth.sslPort ? { OAUTH_SSL: `127.0.0.1:${oauth.sslPort}` } : {}),
    },
    /**
     * With security.tls: the test CA and the client certificate as file paths and PEM text, ready for
     * kafkajs (`ssl: { ca: [tls.ca], cert: tls.cert, key: tls.key }`); null without.
     */
    tls: certs && {
      caFile: certs.caFile, certFile: certs.certFile, keyFile: certs.keyFile,
      ca: fs.readFileSync(certs.caFile, 'utf8'), cert: fs.readFileSync(certs.certFile, 'utf8'), key: fs.readFileSync(certs.keyFile, 'utf8'),
      clientPrincipal: `User:${TLS_CLIENT_CN}`,
    },
    authorizer: !!security.authorizer,
    superUsers: security.authorizer ? [...SUPER_USERS] : [],
    acl: aclHelper(bootstrap),
  };
  return cluster;
}

/**
 * ACLs of one cluster, written and read through its PLAINTEXT listener (the super user ANONYMOUS
 * when the authorizer is on) with kafkajs's admin client. An entry names its parts as Kafka does:
 *   { principal: 'User:alice', resourceType: 'TOPIC', resourceName: 'orders', operation: 'READ',
 *     patternType: 'LITERAL' (or 'PREFIXED'), permission: 'ALLOW' (or 'DENY'), host: '*' }
 * (the last three are optional, with those defaults). create(entries) and delete(entries) take one
 * entry or an array; delete also takes 'ANY' for the operation, resource type or pattern type, and
 * leaving out principal or resourceName matches every one. list(filter) returns the matching
 * entries in the same form. The controller takes a change at once and the broker's authorizer a
 * moment later: create and delete resolve only once the broker lists the change (its authorizer is
 * what answers the listing), so a test can rely on it right after.
 */
function aclHelper(bootstrap) {
  const { Kafka, logLevel, AclResourceTypes, AclOperationTypes, ResourcePatternTypes, AclPermissionTypes } = require('kafkajs');
  const pick = (table, value, field, dflt) => {
    const key = String(value === undefined ? dflt : value).toUpperCase();
    if (key === 'UNDEFINED' || !(key in table) || typeof table[key] !== 'number') {
      throw new Error(`acl: ${field} '${value}' is not one of ${Object.keys(table).filter((k) => isNaN(Number(k))).join(', ')}`);
    }
    return table[key];
  };
  const toKafka = (e, filter) => ({
    principal: filter ? e.principal : required(e.principal, 'principal'),
    host: e.host === undefined ? (filter ? undefined : '*') : e.host,
    resourceType: pick(AclResourceTypes, e.resourceType, 'resourceType', filter ? 'ANY' : undefined),
    resourceName: filter ? e.resourceName : required(e.resourceName, 'resourceName'),
    resourcePatternType: pick(ResourcePatternTypes, e.patternType, 'patternType', filter ? 'ANY' : 'LITERAL'),
    operation: pick(AclOperationTypes, e.operation, 'operation', filter ? 'ANY' : undefined),
    permissionType: pick(AclPermissionTypes, e.permission, 'permission', filter ? 'ANY' : 'ALLOW'),
  });
  const required = (v, field) => {
    if (typeof v !== 'string' || v === '') throw new Error(`acl: ${field} is required (e.g. principal 'User:alice', resourceName 'orders')`);
    return v;
  };
  const name = (table, n) => Object.keys(table).find((k) => table[k] === n);
  const withAdmin = async (fn) => {
    const admin = new Kafka({ clientId: 'mm2-harness-acl', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 100 } }).admin();
    await admin.connect();
    try {
      return await fn(admin);
    } finally {
      await admin.disconnect();
    }
  };
  const list = (e) => (Array.isArray(e) ? e : [e]);
  /** Polls until every filter matches (`present`) or none does (!present) on the broker. */
  const settle = async (admin, filters, present) => {
    const deadline = Date.now() + 30000;
    for (;;) {
      const counts = await Promise.all(filters.map((f) => admin.describeAcls(f).then((r) => r.resources.reduce((n, x) => n + x.acls.length, 0))));
      const waiting = filters.filter((_, i) => (present ? counts[i] === 0 : counts[i] > 0));
      if (waiting.length === 0) return;
      if (Date.now() > deadline) {
        throw new Error(`acl: the broker still ${present ? 'lacks' : 'lists'} ${waiting.map((f) => JSON.stringify(f)).join(', ')} 30 s after the change`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const describe = (admin, filter) => admin.describeAcls(/** @type {any} */ (toKafka(filter, true)));
  return {
    create: (entries) => withAdmin(async (a) => {
      const acl = list(entries).map((e) => toKafka(e, false));
      await a.createAcls({ acl });
      await settle(a, acl, true);
    }),
    delete: (entries) => withAdmin(async (a) => {
      const filters = list(entries).map((e) => toKafka(e, true));
      const res = await a.deleteAcls({ filters });
      await settle(a, filters, false);
      return res.filterResponses.reduce((n, r) => n + r.matchingAcls.length, 0);
    }),
    list: (filter = {}) => withAdmin((a) => describe(a, filter)).then((res) => res.resources.flatMap((r) => r.acls.map((acl) => ({
      principal: acl.principal, host: acl.host,
      resourceType: name(AclResourceTypes, r.resourceType), resourceName: r.resourceName,
      patternType: name(ResourcePatternTypes, r.resourcePatternType),
      operation: name(AclOperationTypes, acl.operation), permission: name(AclPermissionTypes, acl.permissionType),
    })))),
  };
}

/**
 * Starts several clusters, one after the other (two cores: starting them in parallel is not faster).
 * @returns {Promise<Record<string, Awaited<ReturnType<typeof startCluster>>> & { stop(): Promise<void> }>}
 */
async function startClusters(names, opts = {}) {
  /** @type {any} filled below into the declared return type (clusters by name, plus a hidden stop) */
  const result = {};
  try {
    for (const n of names) result[n] = await startCluster(n, { ...opts, ports: opts.ports && opts.ports[n] });
  } catch (e) {
    await Promise.all(Object.values(result).map((c) => c.stop()));
    throw e;
  }
  Object.defineProperty(result, 'stop', {
    enumerable: false,
    value: () => Promise.all(names.filter((n) => result[n]).map((n) => result[n].stop())).then(() => undefined),
  });
  return result;
}

/**
 * Runs one of Kafka's own command-line tools (a main class from the resolved jars), e.g.
 * runKafkaTool('org.apache.kafka.tools.DeleteRecordsCommand', [...]). Returns stdout.
 */
function runKafkaTool(className, args, version = process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION) {
  const libs = resolveKafka(version);
  const cds = cdsOptions(libs, className);
  const res = spawnSync('java', [...cds.args, '-Xmx256m', '-XX:TieredStopAtLevel=1', '-Dlog4j2.level=warn', '-cp', path.join(libs, '*'), className, ...args], { encoding: 'utf8' });
  cds.settle(res.status === 0);
  if (res.error) throw new Error(`${className}: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`${className} failed (exit ${res.status}):\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

module.exports = { cacheRoot, freePort, runKafkaTool, startCluster, startClusters, resolveKafka, DEFAULT_KAFKA_VERSION, TESTED_KAFKA_VERSIONS, SASL_USERS, SUPER_USERS, STOP_WAIT_ARCHIVE_MS, makeCertificates };

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (n, d) => {
    const i = args.indexOf(n);
    return i >= 0 ? args[i + 1] : d;
  };
  const version = opt('--version', process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION);
  if (args[0] === 'resolve') {
    console.log(resolveKafka(version));
  } else if (args[0] === 'up') {
    const names = opt('--clusters', 'source,target').split(',');
    const wanted = opt('--security', '').split(',').filter(Boolean);
    const unknown = wanted.filter((w) => w !== 'tls' && w !== 'authorizer');
    if (unknown.length > 0) {
      console.error(`--security takes tls and/or authorizer, not ${unknown.join(', ')}`);
      process.exit(2);
    }
    const security = wanted.length > 0 ? { tls: wanted.includes('tls'), authorizer: wanted.includes('authorizer') } : undefined;
    startClusters(names, { version, security }).then((cs) => {
      for (const n of names) {
        console.log(`${n}=${cs[n].bootstrap}`);
        for (const [l, b] of Object.entries(cs[n].listeners)) if (l !== 'PLAINTEXT') console.log(`${n}.${l}=${b}`);
        if (cs[n].tls) console.log(`${n}.ca=${cs[n].tls.caFile}\n${n}.client.cert=${cs[n].tls.certFile}\n${n}.client.key=${cs[n].tls.keyFile}`);
      }
      console.log('Press Ctrl-C to stop.');
      setInterval(() => {}, 1 << 30);
    }, (e) => { console.error(e.message); process.exit(1); });
  } else {
    console.error('usage: cluster.js up [--clusters a,b] [--version V] [--security tls,authorizer] | resolve [--version V]');
    process.exit(2);
  }
}
