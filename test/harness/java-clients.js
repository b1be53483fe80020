'use strict';
/**
 * Kafka's own Java clients for the tests, from test/harness/java/*.java compiled with javac
 * against a Kafka version's cached jars (once per version and source, into the jar cache):
 *
 *   const c = javaConsumer({ bootstrap, group, topic, max, protocol: 'consumer', stay: true, version });
 *   await c.committed;        // it read `max` records and committed them (c.records: [{ partition, offset, value }])
 *   c.leave(); await c.done;  // with `stay`: it keeps its membership until told to leave
 *
 *   await runJava('share', { bootstrap, group, topic, max, version })      // a share consumer
 *   await runStreamsApp({ bootstrap, applicationId, topic, max, version }) // a Kafka Streams app (streams group)
 *
 * Asynchronous (a child process): the test's own event loop keeps running meanwhile.
 */
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { spawn, spawnSync } = require('node:child_process');
const { cacheRoot, resolveKafka, DEFAULT_KAFKA_VERSION } = require('../../scripts/kafka/cluster');

const SOURCES = path.join(__dirname, 'java');

/** kafka-streams (not among the broker's jars) of `version`, resolved with Maven into the cache once. */
function resolveStreams(version) {
  const dir = path.join(cacheRoot(), `kafka-${version}`, 'streams-libs');
  const jar = path.join(dir, `kafka-streams-${version}.jar`);
  if (fs.existsSync(jar)) return dir;
  fs.mkdirSync(dir, { recursive: true });
  const res = spawnSync('mvn', ['-B', '-q', 'dependency:copy', `-Dartifact=org.apache.kafka:kafka-streams:${version}`, `-DoutputDirectory=${dir}`], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (res.error || res.status !== 0) throw new Error(`Maven could not resolve kafka-streams ${version} (${res.error?.message ?? `exit ${res.status}`})`);
  return dir;
}

/** The class path (jars, compiled classes) for `version`; compiles the sources when they changed. */
function classPath(version, withStreams) {
  const libs = resolveKafka(version);
  const jars = [path.join(libs, '*')];
  if (withStreams) jars.push(path.join(resolveStreams(version), '*'));
  const files = fs.readdirSync(SOURCES).filter((f) => f.endsWith('.java') && (withStreams || f !== 'StreamsApp.java')).sort();
  const hash = crypto.createHash('sha256');
  for (const f of files) hash.update(f).update(fs.readFileSync(path.join(SOURCES, f)));
  const out = path.join(cacheRoot(), `kafka-${version}`, `java-clients-${withStreams ? 's-' : ''}${hash.digest('hex').slice(0, 12)}`);
  if (!fs.existsSync(path.join(out, '.complete'))) {
    // compiled into a folder of this process, then renamed into place: two test runs in parallel
    // (scripts/test.js lanes) never read each other's half-written classes
    const tmp = `${out}.tmp-${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp, { recursive: true });
    const res = spawnSync('javac', ['-nowarn', '-d', tmp, '-cp', jars.join(path.delimiter), ...files.map((f) => path.join(SOURCES, f))], { encoding: 'utf8' });
    if (res.error || res.status !== 0) throw new Error(`javac of ${files.join(', ')} against Kafka ${version} failed: ${res.error?.message ?? res.stderr}`);
    fs.writeFileSync(path.join(tmp, '.complete'), new Date().toISOString() + '\n');
    try {
      fs.renameSync(tmp, out);
    } catch (e) {
      // another run finished first (its folder is complete) or a stale folder without .complete is in the way
      if (!fs.existsSync(path.join(out, '.complete'))) {
        fs.rmSync(out, { recursive: true, force: true });
        fs.renameSync(tmp, out);
      } else fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  return [out, ...jars].join(path.delimiter);
}

/**
 * Starts a Java main class; `lines` its standard output lines so far, `waitFor(re)` resolves with
 * the first line matching, `done` when it exits 0 (rejects otherwise, with its output).
 */
function startJava(mainClass, args, { version = process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION, withStreams = false } = {}) {
  const cp = classPath(version, withStreams);
  const child = spawn('java', ['-Xmx256m', '-XX:TieredStopAtLevel=1', '-Dlog4j.configuration=file:/dev/null', '-cp', cp, mainClass, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = [];
  const waiters = [];
  let stderr = '';
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(line);
      for (const w of waiters.slice()) {
        if (w.re.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-20000);
  });
  const done = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const err = new Error(`${mainClass} ${args.join(' ')} exited ${code ?? signal}:\n${lines.slice(-20).join('\n')}\n${stderr}`);
      for (const w of waiters.splice(0)) w.reject(err);
      if (code === 0) resolve(lines);
      else reject(err);
    });
  });
  done.catch(() => undefined);
  const waitFor = (re) => {
    const seen = lines.find((l) => re.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    if (child.exitCode !== null) return Promise.reject(new Error(`${mainClass} exited before printing ${re}`));
    return new Promise((resolve, reject) => waiters.push({ re, resolve, reject }));
  };
  return {
    child, lines, done, waitFor,
    get stderr() {
      return stderr;
    },
    /** Closes its standard input (a `stay` consumer leaves its group then). */
    leave() {
      child.stdin.end();
    },
    kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

const parseRecords = (lines) => lines.filter((l) => l.startsWith('record ')).map((l) => {
  const [, partition, offset, ...value] = l.split(' ');
  return { partition: Number(partition), offset: BigInt(offset), value: value.join(' ') };
});

/**
 * A KafkaConsumer (group.protocol `protocol`: 'consumer' is KIP-848, 'classic' the old one) reading
 * `max` records of `topic` in `group` from its committed offsets (earliest without), committing them.
 */
function javaConsumer({ bootstrap, group, topic, max, protocol = 'consumer', stay = false, version }) {
  const p = startJava('GroupClients', ['consumer', bootstrap, group, topic, String(max), protocol, ...(stay ? ['stay'] : [])], { version });
  // (Object.assign would read a getter once: defined as properties)
  return Object.defineProperties(p, {
    committed: { value: p.waitFor(/^committed$/), enumerable: true },
    records: { get: () => parseRecords(p.lines), enumerable: true },
  });
}

/** Runs GroupClients `mode` ('consumer' without stay, or 'share') to its end; resolves with the records it read. */
async function runJava(mode, { bootstrap, group, topic, max, protocol = 'consumer', version }) {
  const args = mode === 'share' ? ['share', bootstrap, group, topic, String(max)] : ['consumer', bootstrap, group, topic, String(max), protocol];
  return parseRecords(await startJava('GroupClients', args, { version }).done);
}

/** Runs the Kafka Streams application (group.protocol `protocol`, 'streams' by default) until it has seen `max` records and closed. */
async function runStreamsApp({ bootstrap, applicationId, topic, max, protocol = 'streams', version }) {
  return parseRecords(await startJava('StreamsApp', [bootstrap, applicationId, topic, String(max), protocol], { version, withStreams: true }).done);
}

module.exports = { javaConsumer, runJava, runStreamsApp, startJava };
