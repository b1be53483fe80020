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
 * CLI: node scripts/kafka/cluster.js up [--clusters source,target] [--version 4.1.1]
 *      node scripts/kafka/cluster.js resolve [--version 4.1.1]
 *
 * Options: { version, heap, ports: { broker, sasl, controller } } (fixed ports for the demo;
 * tests let the kernel pick free ones), properties: { name: value } (broker settings added or
 * replacing the defaults, e.g. an authorizer).
 * Settings (environment): KAFKA_VERSION (default below), KAFKA_MM2_CACHE (jar cache folder,
 * default ~/.cache/kafka-mm2), KAFKA_HEAP (default 512m), KAFKA_KEEP_DATA=1 (keep the folders).
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const net = require('node:net');
const crypto = require('node:crypto');

/** The Kafka version the tests and the demo run against unless KAFKA_VERSION says otherwise. */
const DEFAULT_KAFKA_VERSION = '4.1.1';
/** Versions the README reports on; `npm test` with KAFKA_VERSIONS runs the integration suite once per version. */
const TESTED_KAFKA_VERSIONS = ['4.1.1', '3.9.1'];

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

/** A free TCP port on 127.0.0.1 (the kernel picks it, so parallel runs do not collide). */
function freePort() {
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

function jaasPlain() {
  const users = Object.entries(SASL_USERS).map(([u, p]) => `user_${u}="${p}"`).join(' ');
  return `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${SASL_USERS.admin}" ${users};`;
}

function serverProperties({ dataDir, brokerPort, saslPort, controllerPort, properties = {} }) {
  const lines = {
    'process.roles': 'broker,controller',
    'node.id': '1',
    'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
    'listeners': `PLAINTEXT://127.0.0.1:${brokerPort},SASL_PLAINTEXT://127.0.0.1:${saslPort},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${brokerPort},SASL_PLAINTEXT://127.0.0.1:${saslPort}`,
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
    'listener.name.sasl_plaintext.plain.sasl.jaas.config': jaasPlain(),
    'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config':
      'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config':
      'org.apache.kafka.common.security.scram.ScramLoginModule required;',
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
    ...properties,
  };
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

function javaArgs(libs, dataDir, heap) {
  return [
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
 * Starts one single-node KRaft cluster.
 * kill() and restart() are for fault-injection tests: kill -9 the broker, start it again on the same
 * data directory and ports.
 * @returns {Promise<{name, version, bootstrap, saslBootstrap, brokerPort, saslPort, dataDir, logFile, saslUsers, stop(): Promise<void>, kill(): Promise<void>, restart(): Promise<void>}>}
 */
async function startCluster(name, opts = {}) {
  const version = opts.version || process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION;
  const heap = opts.heap || process.env.KAFKA_HEAP || '512m';
  const libs = resolveKafka(version);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `kafka-mm2-${name}-`));
  const fixed = opts.ports || {};
  const brokerPort = fixed.broker || (await freePort());
  const saslPort = fixed.sasl || (await freePort());
  const controllerPort = fixed.controller || (await freePort());
  const props = path.join(dataDir, 'server.properties');
  fs.writeFileSync(props, serverProperties({ dataDir, brokerPort, saslPort, controllerPort, properties: opts.properties }));
  fs.writeFileSync(path.join(dataDir, 'log4j.properties'), LOG4J1);
  fs.writeFileSync(path.join(dataDir, 'log4j2.properties'), LOG4J2);
  const logFile = path.join(dataDir, 'server.log');

  const scram = [];
  for (const [user, pass] of Object.entries(SASL_USERS)) {
    scram.push('--add-scram', `SCRAM-SHA-256=[name=${user},password=${pass}]`);
    scram.push('--add-scram', `SCRAM-SHA-512=[name=${user},password=${pass}]`);
  }
  runSync(
    'java',
    [...javaArgs(libs, dataDir, '256m'), 'kafka.tools.StorageTool', 'format', `--cluster-id=${kraftClusterId()}`, '-c', props, ...scram],
    `formatting the storage of cluster '${name}'`,
  );

  const launch = () => {
    const out = fs.openSync(path.join(dataDir, 'stdout.log'), 'a');
    const c = spawn('java', [...javaArgs(libs, dataDir, heap), 'kafka.Kafka', props], {
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    hookExit();
    running.set(c, dataDir);
    c.once('exit', () => running.delete(c));
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
  log(`cluster '${name}' (Kafka ${version}) up at ${bootstrap} (SASL_PLAINTEXT ${saslPort}), data in ${dataDir}`);

  let stopped;
  const stop = () => {
    if (!stopped) {
      stopped = new Promise((resolve) => {
        const done = () => {
          removeData(dataDir);
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        const killTimer = setTimeout(() => child.kill('SIGKILL'), 8000);
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
    dataDir, logFile, saslUsers: { ...SASL_USERS }, process: child, stop, kill, restart,
  };
  return cluster;
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
  const res = spawnSync('java', ['-Xmx256m', '-XX:TieredStopAtLevel=1', '-Dlog4j2.level=warn', '-cp', path.join(libs, '*'), className, ...args], { encoding: 'utf8' });
  if (res.error) throw new Error(`${className}: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`${className} failed (exit ${res.status}):\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

module.exports = { freePort, runKafkaTool, startCluster, startClusters, resolveKafka, DEFAULT_KAFKA_VERSION, TESTED_KAFKA_VERSIONS, SASL_USERS };

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
    startClusters(names, { version }).then((cs) => {
      for (const n of names) console.log(`${n}=${cs[n].bootstrap}`);
      console.log('Press Ctrl-C to stop.');
      setInterval(() => {}, 1 << 30);
    }, (e) => { console.error(e.message); process.exit(1); });
  } else {
    console.error('usage: cluster.js up [--clusters a,b] [--version V] | resolve [--version V]');
    process.exit(2);
  }
}
