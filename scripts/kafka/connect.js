'use strict';
/**
 * The real MirrorMaker 2 as a peer for conformance tests: Kafka's own connect-mirror connectors
 * and Connect runtime, resolved from Maven Central (cached like the broker jars), started as child
 * processes on loopback. Its version is the brokers' (KAFKA_VERSION) unless MM2_VERSION says
 * otherwise, or the repository does not serve connect-mirror at the brokers' version (mm2VersionFor).
 *
 *   const mm2 = await startMirrorMaker({ source: 'host:port', target: 'host:port', props: {...} });
 *   const worker = await startConnectWorker({ bootstrap: 'host:port' });   // worker.url = REST API
 *   const lines = consoleConsume({ bootstrap, topic, formatter: 'CheckpointFormatter' });
 *   await mm2.stop(); await worker.stop();
 */
const { spawn, spawnSync } = require('node:child_process');
const { cdsOptions } = require('./cds');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { DEFAULT_KAFKA_VERSION, freePort } = require('./cluster');

function cacheRoot() {
  return process.env.KAFKA_MM2_CACHE || path.join(os.homedir(), '.cache', 'kafka-mm2');
}

/** Versions as numbers to compare: '4.3.1' -> [4, 3, 1]. */
function versionParts(v) {
  return String(v).split('.').map((x) => Number.parseInt(x, 10) || 0);
}
function compareVersions(a, b) {
  const pa = versionParts(a);
  const pb = versionParts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if ((pa[i] || 0) !== (pb[i] || 0)) return (pa[i] || 0) - (pb[i] || 0);
  }
  return 0;
}

/**
 * The MirrorMaker 2 versions to try beside `brokerVersion` brokers, best first, from the versions
 * of connect-mirror the repository lists: the broker's own version when it is listed, then those
 * on the broker's line (major.minor) that are older, newest first, then older lines, newest first.
 * Pure: the listing is the caller's.
 * @param {string} brokerVersion
 * @param {string[]} listed
 * @returns {string[]}
 */
function mm2Candidates(brokerVersion, listed) {
  const plain = listed.filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  const older = plain.filter((v) => compareVersions(v, brokerVersion) < 0).sort((a, b) => compareVersions(b, a));
  const line = (v) => versionParts(v).slice(0, 2).join('.');
  return [
    ...(plain.includes(brokerVersion) ? [brokerVersion] : []),
    ...older.filter((v) => line(v) === line(brokerVersion)),
    ...older.filter((v) => line(v) !== line(brokerVersion)),
  ];
}

/** Versions to try when the repository's listing cannot be read: 4.4.0 -> 4.4.0, 4.3.3 ... 4.3.0. */
function guessedMm2Versions(brokerVersion) {
  const [major, minor, patch] = versionParts(brokerVersion);
  const out = [brokerVersion];
  for (let p = patch - 1; p >= 0 && out.length < 4; p--) out.push(`${major}.${minor}.${p}`);
  if (minor > 0) for (let p = 3; p >= 0 && out.length < 6; p--) out.push(`${major}.${minor - 1}.${p}`);
  return out;
}

/** The versions of connect-mirror Maven Central lists (its maven-metadata.xml), or null when it cannot be read. */
function listedMm2Versions() {
  const url = `${process.env.MAVEN_CENTRAL_URL || 'https://repo.maven.apache.org/maven2'}/org/apache/kafka/connect-mirror/maven-metadata.xml`;
  const script = `require('node:https').get(${JSON.stringify(url)}, { timeout: 20000 }, (r) => { let b = ''; r.on('data', (d) => (b += d)); r.on('end', () => { process.stdout.write(r.statusCode === 200 ? b : ''); }); }).on('error', () => process.exit(1)).on('timeout', function () { this.destroy(); process.exit(1); });`;
  const res = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30000 });
  if (res.status !== 0 || !res.stdout) return null;
  return [...res.stdout.matchAll(/<version>([^<]+)<\/version>/g)].map((m) => m[1]);
}

function mavenResolveConnect(version, libs) {
  return spawnSync(
    'mvn',
    ['-B', '-q', '-f', path.join(__dirname, 'pom-connect.xml'), 'dependency:copy-dependencies', `-Dkafka.version=${version}`, `-DoutputDirectory=${libs}`, '-DincludeScope=runtime'],
    { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' },
  );
}

/**
 * Which MirrorMaker 2 (connect-mirror, connect-runtime and the Kafka jars they need) runs beside
 * `brokerVersion` brokers: MM2_VERSION when set (never replaced: a version Maven cannot resolve
 * fails); else the broker's own version when the repository serves it; else the newest
 * connect-mirror the repository serves on the broker's line, or before it (Maven Central lists
 * brokers of a release some days before its connect-mirror, or without it). The choice is kept in
 * the cache, so later runs are offline.
 * @param {string} [brokerVersion]
 * @returns {string}
 */
function mm2VersionFor(brokerVersion = process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION) {
  if (process.env.MM2_VERSION) return process.env.MM2_VERSION;
  const choice = path.join(cacheRoot(), `kafka-${brokerVersion}`, 'mm2-version');
  if (fs.existsSync(choice)) return fs.readFileSync(choice, 'utf8').trim();
  if (fs.existsSync(path.join(cacheRoot(), `kafka-${brokerVersion}`, '.connect-complete'))) return brokerVersion;
  const listed = listedMm2Versions();
  // the repository may list a version some of whose jars it does not serve: the next one then
  // without the listing (the repository's metadata unreadable): the broker's version, then guesses
  // below it on its line and the line before (each tried with Maven; one that resolves wins)
  const candidates = listed ? mm2Candidates(brokerVersion, listed).slice(0, 4) : guessedMm2Versions(brokerVersion);
  if (!candidates.length) throw new Error(`Maven Central lists no connect-mirror at or before ${brokerVersion}: set MM2_VERSION`);
  const failures = [];
  for (const version of candidates) {
    try {
      resolveConnect(version);
    } catch (e) {
      failures.push(e.message);
      continue;
    }
    if (version !== brokerVersion) process.stderr.write(`[connect] connect-mirror ${brokerVersion} is not served; MirrorMaker 2 ${version} runs beside Kafka ${brokerVersion} brokers (MM2_VERSION sets another)\n`);
    fs.mkdirSync(path.dirname(choice), { recursive: true });
    fs.writeFileSync(choice, version + '\n');
    return version;
  }
  throw new Error(`no MirrorMaker 2 to run beside Kafka ${brokerVersion}: ${failures.join('; ')}`);
}

/** Makes sure connect-mirror, connect-runtime and their dependencies of MirrorMaker 2 `version` are cached. */
function resolveConnect(version = mm2VersionFor()) {
  const dir = path.join(cacheRoot(), `kafka-${version}`);
  const libs = path.join(dir, 'connect-libs');
  const marker = path.join(dir, '.connect-complete');
  if (fs.existsSync(marker)) return libs;
  fs.mkdirSync(dir, { recursive: true });
  fs.rmSync(libs, { recursive: true, force: true });
  process.stderr.write(`[connect] resolving MirrorMaker 2 and Kafka Connect ${version} from Maven Central (first run only)\n`);
  const res = mavenResolveConnect(version, libs);
  if (res.error) throw new Error(`cannot run Maven (mvn): ${res.error.message}`);
  if (res.status !== 0) {
    fs.rmSync(libs, { recursive: true, force: true });
    const why = /Could not resolve dependencies[^:]*: ([^\n]*?) was not found/.exec(String(res.stdout || '') + String(res.stderr || ''));
    throw new Error(`Maven could not resolve connect-mirror ${version} (exit ${res.status})${why ? `: ${why[1]} is not served` : ''}`);
  }
  fs.writeFileSync(marker, new Date().toISOString() + '\n');
  return libs;
}

const LOG4J1 = (file, loud) => [
  'log4j.rootLogger=WARN, file',
  'log4j.appender.file=org.apache.log4j.FileAppender',
  `log4j.appender.file.File=${file}`,
  'log4j.appender.file.layout=org.apache.log4j.PatternLayout',
  'log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n',
  ...loud.map((l) => `log4j.logger.${l}=INFO`),
  '',
].join('\n');

const LOG4J2 = (file, loud) => [
  'status = warn',
  'appender.file.type = File',
  'appender.file.name = FILE',
  `appender.file.fileName = ${file}`,
  'appender.file.layout.type = PatternLayout',
  'appender.file.layout.pattern = [%d] %p %m (%c)%n',
  'rootLogger.level = WARN',
  'rootLogger.appenderRef.file.ref = FILE',
  ...loud.flatMap((l, i) => [`logger.l${i}.name = ${l}`, `logger.l${i}.level = INFO`]),
  '',
].join('\n');

function props(obj) {
  return Object.entries(obj).map(([k, v]) => `${k}=${String(v).replace(/\\/g, '\\\\')}`).join('\n') + '\n';
}

const running = new Set();
process.on('exit', () => {
  for (const c of running) {
    try { c.kill('SIGKILL'); } catch { /* ignore */ }
  }
});

function startJava({ name, version, mainClass, args, loudLoggers, heap = '512m' }) {
  // `version` is the brokers' version: the MirrorMaker 2 beside them is mm2VersionFor's
  const libs = resolveConnect(mm2VersionFor(version || undefined));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `kafka-mm2-${name}-`));
  const logFile = path.join(dir, `${name}.log`);
  fs.writeFileSync(path.join(dir, 'log4j.properties'), LOG4J1(logFile, loudLoggers));
  fs.writeFileSync(path.join(dir, 'log4j2.properties'), LOG4J2(logFile, loudLoggers));
  const out = fs.openSync(path.join(dir, 'stdout.log'), 'a');
  const cds = cdsOptions(libs, mainClass);
  const child = spawn(
    'java',
    [
      ...cds.args,
      `-Xmx${heap}`, '-XX:+UseG1GC', '-XX:TieredStopAtLevel=1', '-Djava.awt.headless=true',
      `-Dlog4j.configuration=file:${path.join(dir, 'log4j.properties')}`,
      `-Dlog4j2.configurationFile=${path.join(dir, 'log4j2.properties')}`,
      '-cp', path.join(libs, '*'), mainClass, ...args(dir),
    ],
    { stdio: ['ignore', out, out] },
  );
  fs.closeSync(out);
  running.add(child);
  child.once('exit', (_code, signal) => {
    running.delete(child);
    cds.settle(signal === null);
  });
  const log = () => {
    try {
      return fs.readFileSync(logFile, 'utf8') + fs.readFileSync(path.join(dir, 'stdout.log'), 'utf8');
    } catch {
      return '';
    }
  };
  let stopped;
  const stop = () => {
    if (!stopped) {
      stopped = new Promise((resolve) => {
        const done = () => {
          if (process.env.KAFKA_KEEP_DATA !== '1') fs.rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        // writing the class archive at exit (the first run) takes a few seconds more
        const t = setTimeout(() => child.kill('SIGKILL'), cds.writing ? 40000 : 15000);
        child.once('exit', () => { clearTimeout(t); done(); });
        child.kill('SIGTERM');
      });
    }
    return stopped;
  };
  return { child, dir, logFile, log, stop };
}

/** Defaults that let MM2 run against single-broker test clusters. */
const SINGLE_BROKER = {
  'replication.factor': 1,
  'checkpoints.topic.replication.factor': 1,
  'heartbeats.topic.replication.factor': 1,
  'offset-syncs.topic.replication.factor': 1,
  'offset.storage.replication.factor': 1,
  'status.storage.replication.factor': 1,
  'config.storage.replication.factor': 1,
};

/**
 * MirrorMaker 2 in dedicated mode (`connect-mirror-maker`) for the flow source -> target.
 * `props` are added to (and override) the generated mm2.properties, e.g.
 * { 'source->target.emit.checkpoints.interval.seconds': 1 }.
 * `heap` is the JVM's -Xmx (default 512m; the benchmark needs more at thousands of groups).
 * @param {{ source: string, target: string, props?: Record<string, string | number | boolean>, version?: string, aliases?: string[], heap?: string }} options
 */
async function startMirrorMaker({ source, target, props: extra = {}, version, aliases = ['source', 'target'], heap }) {
  const [s, t] = aliases;
  const cfg = {
    clusters: `${s}, ${t}`,
    [`${s}.bootstrap.servers`]: source,
    [`${t}.bootstrap.servers`]: target,
    [`${s}->${t}.enabled`]: 'true',
    [`${t}->${s}.enabled`]: 'false',
    // the reverse herder still emits heartbeats unless told not to; keep the peer to one direction
    [`${t}->${s}.emit.heartbeats.enabled`]: 'false',
    ...SINGLE_BROKER,
    'offset.flush.interval.ms': 1000,
    // dedicated mode builds the flow's worker from the TARGET cluster's properties and takes
    // only a few top-level keys (converters, *.storage.*): without this the flush (and with it
    // MM2's delayed offset syncs, spec §5.3) stays at Connect's default of 60 s
    [`${t}.offset.flush.interval.ms`]: 1000,
    ...extra,
  };
  const p = startJava({
    name: 'mm2',
    version,
    mainClass: 'org.apache.kafka.connect.mirror.MirrorMaker',
    loudLoggers: ['org.apache.kafka.connect.mirror.MirrorMaker'],
    ...(heap ? { heap } : {}),
    args: (dir) => {
      const file = path.join(dir, 'mm2.properties');
      fs.writeFileSync(file, props(cfg));
      return [file];
    },
  });
  const deadline = Date.now() + 90000;
  while (!/Kafka MirrorMaker started/.test(p.log())) {
    if (p.child.exitCode !== null) throw new Error(`MirrorMaker exited (${p.child.exitCode}):\n${p.log().slice(-4000)}`);
    if (Date.now() > deadline) {
      await p.stop();
      throw new Error(`MirrorMaker did not start within 90 s:\n${p.log().slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { ...p, config: cfg };
}

function rest(port, method, p, body) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      { host: '127.0.0.1', port, method, path: p, headers: data ? { 'content-type': 'application/json', 'content-length': data.length } : {} },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json;
          try { json = JSON.parse(text); } catch { json = undefined; }
          resolve({ status: res.statusCode, text, json });
        });
      },
    );
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

/**
 * A distributed Kafka Connect worker (its internal topics on `bootstrap`) with MM2's connectors, REST on loopback.
 * @param {{ bootstrap: string, version?: string, groupId?: string }} options
 */
async function startConnectWorker({ bootstrap, version, groupId = `mm2-connect-${process.pid}-${Date.now()}` }) {
  const port = await freePort();
  const cfg = {
    'bootstrap.servers': bootstrap,
    'group.id': groupId,
    'listeners': `http://127.0.0.1:${port}`,
    'rest.advertised.host.name': '127.0.0.1',
    'rest.advertised.port': port,
    'config.storage.topic': `${groupId}-configs`,
    'offset.storage.topic': `${groupId}-offsets`,
    'status.storage.topic': `${groupId}-status`,
    'config.storage.replication.factor': 1,
    'offset.storage.replication.factor': 1,
    'status.storage.replication.factor': 1,
    'offset.storage.partitions': 1,
    'status.storage.partitions': 1,
    // MM2's records are bytes: ByteArrayConverter keeps them as MM2's formats (spec 2.6)
    'key.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
    'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
    'header.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
    'offset.flush.interval.ms': 1000,
    'scheduled.rebalance.max.delay.ms': 1000,
  };
  const p = startJava({
    name: 'connect',
    version,
    mainClass: 'org.apache.kafka.connect.cli.ConnectDistributed',
    loudLoggers: ['org.apache.kafka.connect.runtime.Connect'],
    args: (dir) => {
      const file = path.join(dir, 'worker.properties');
      fs.writeFileSync(file, props(cfg));
      return [file];
    },
  });
  const deadline = Date.now() + 120000;
  for (;;) {
    if (p.child.exitCode !== null) throw new Error(`Connect worker exited (${p.child.exitCode}):\n${p.log().slice(-4000)}`);
    try {
      const r = await rest(port, 'GET', '/connector-plugins');
      if (r.status === 200 && Array.isArray(r.json) && r.json.some((x) => /MirrorCheckpointConnector/.test(x.class))) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      await p.stop();
      throw new Error(`Connect worker did not answer within 120 s:\n${p.log().slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return { ...p, port, url: `http://127.0.0.1:${port}`, config: cfg, rest: (m, pth, b) => rest(port, m, pth, b) };
}

/**
 * Kafka's console consumer with one of MM2's formatters (OffsetSyncFormatter, CheckpointFormatter,
 * HeartbeatFormatter): reads `topic` from the beginning and returns the printed lines.
 * @param {{ bootstrap: string, topic: string, formatter: string, maxMessages?: number, timeoutMs?: number, version?: string }} options
 */
function consoleConsume({ bootstrap, topic, formatter, maxMessages, timeoutMs = 15000, version }) {
  const libs = resolveConnect(mm2VersionFor(version || undefined));
  const cds = cdsOptions(libs, 'org.apache.kafka.tools.consumer.ConsoleConsumer');
  const args = [
    ...cds.args, '-Xmx256m', '-XX:TieredStopAtLevel=1', '-cp', path.join(libs, '*'),
    'org.apache.kafka.tools.consumer.ConsoleConsumer',
    '--bootstrap-server', bootstrap, '--topic', topic, '--from-beginning',
    '--formatter', `org.apache.kafka.connect.mirror.formatters.${formatter}`,
    '--timeout-ms', String(timeoutMs),
  ];
  if (maxMessages) args.push('--max-messages', String(maxMessages));
  const res = spawnSync('java', args, { encoding: 'utf8', timeout: timeoutMs + 60000 });
  cds.settle(res.signal === null);
  if (res.error) throw new Error(`console consumer: ${res.error.message}`);
  return res.stdout.split('\n').map((l) => l.trim()).filter((l) => /^(OffsetSync|Checkpoint|Heartbeat)\{/.test(l));
}

module.exports = { resolveConnect, mm2VersionFor, mm2Candidates, guessedMm2Versions, startMirrorMaker, startConnectWorker, consoleConsume, SINGLE_BROKER };
