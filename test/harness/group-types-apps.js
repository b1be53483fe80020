'use strict';
/**
 * Real members of the group types MirrorMaker 2 never checkpoints (Kafka 4.2+): a Kafka Streams
 * application with group.protocol=streams (a streams group, KIP-1071) and a share consumer (a
 * share group, KIP-932), from test/fixtures/java/GroupTypesApp.java compiled with javac against
 * Kafka's own jars: the broker version's libs (kafka-clients) and kafka-streams of that version
 * from Maven Central (cached beside them, first run only).
 *
 *   const apps = require('../harness/group-types-apps');
 *   const app = apps.start('streams', { version, bootstrap, group, topic });
 *   await app.waitFor(/^consumed /);
 *   await app.stop();
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const SOURCE = path.join(__dirname, '..', 'fixtures', 'java', 'GroupTypesApp.java');

function cacheRoot() {
  return process.env.KAFKA_MM2_CACHE || path.join(os.homedir(), '.cache', 'kafka-mm2');
}

/** kafka-streams-<version>.jar in the cache (Maven, first run only); returns its folder. */
function resolveStreams(version) {
  const dir = path.join(cacheRoot(), `kafka-${version}`, 'streams-libs');
  const jar = path.join(dir, `kafka-streams-${version}.jar`);
  if (fs.existsSync(jar)) return dir;
  fs.mkdirSync(dir, { recursive: true });
  process.stderr.write(`[group-types] resolving kafka-streams ${version} from Maven Central into ${dir} (first run only)\n`);
  const res = spawnSync('mvn', ['-B', '-q', 'dependency:copy', `-Dartifact=org.apache.kafka:kafka-streams:${version}`, `-DoutputDirectory=${dir}`], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (res.error) throw new Error(`cannot run Maven (mvn): ${res.error.message}`);
  if (res.status !== 0 || !fs.existsSync(jar)) throw new Error(`Maven could not resolve kafka-streams ${version} (exit ${res.status})`);
  return dir;
}

const compiled = new Map();

/** The class path of GroupTypesApp for `version`, compiled once per process. */
function classPath(version) {
  let cp = compiled.get(version);
  if (cp) return cp;
  const { resolveKafka } = require('../../scripts/kafka/cluster');
  const libs = resolveKafka(version);
  const streams = resolveStreams(version);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mm2-group-types-'));
  const deps = [path.join(libs, '*'), path.join(streams, '*')].join(path.delimiter);
  const res = spawnSync('javac', ['-d', out, '-cp', deps, SOURCE], { encoding: 'utf8' });
  if (res.error) throw new Error(`cannot run javac: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`javac failed on ${SOURCE}:\n${res.stderr}`);
  cp = [out, deps].join(path.delimiter);
  compiled.set(version, cp);
  return cp;
}

/**
 * Starts GroupTypesApp in `mode` ('streams' or 'share'). Its stdout lines are kept; `waitFor`
 * resolves with the first line matching, or rejects when the process exits first or `timeout` passes.
 */
function start(mode, { version, bootstrap, group, topic, timeout = 120000 }) {
  const cp = classPath(version);
  const args = ['-Xmx192m', '-XX:TieredStopAtLevel=1', '-cp', cp, 'GroupTypesApp', mode, bootstrap, group, topic];
  let stateDir = null;
  if (mode === 'streams') {
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mm2-streams-state-'));
    args.push(stateDir);
  }
  const child = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = [];
  const errLines = [];
  let exited = null;
  const waiters = new Set();
  const notify = () => {
    for (const w of waiters) w();
  };
  let buf = '';
  child.stdout.on('data', (d) => {
    buf += d;
    const parts = buf.split('\n');
    buf = parts.pop();
    lines.push(...parts.map((l) => l.trim()).filter(Boolean));
    notify();
  });
  child.stderr.on('data', (d) => {
    errLines.push(...String(d).split('\n').filter(Boolean));
    if (errLines.length > 200) errLines.splice(0, errLines.length - 200);
  });
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    notify();
  });
  return {
    lines,
    get exited() {
      return exited;
    },
    waitFor(re, ms = timeout) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = lines.find((l) => re.test(l));
          if (hit !== undefined) return done(null, hit);
          if (exited) return done(new Error(`GroupTypesApp ${mode} exited (${JSON.stringify(exited)}) before printing ${re}; stderr:\n${errLines.slice(-30).join('\n')}`));
          return undefined;
        };
        const timer = setTimeout(() => done(new Error(`GroupTypesApp ${mode} printed no ${re} in ${ms} ms; stdout:\n${lines.slice(-20).join('\n')}\nstderr:\n${errLines.slice(-30).join('\n')}`)), ms);
        const done = (err, v) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (err) reject(err);
          else resolve(v);
        };
        waiters.add(check);
        check();
      });
    },
    /** Closes its stdin (it shuts down cleanly), then kills it if it is still running after 20 s. */
    async stop() {
      if (!exited) {
        child.stdin.end();
        await new Promise((resolve) => {
          const t = setTimeout(() => {
            child.kill('SIGKILL');
          }, 20000);
          child.on('exit', () => {
            clearTimeout(t);
            resolve();
          });
          if (exited) {
            clearTimeout(t);
            resolve();
          }
        });
      }
      if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** Whether brokers of `version` have streams and share groups on by default (Kafka 4.2 and later). */
function hasStreamsAndShareGroups(version) {
  const [major, minor] = String(version).split('.').map(Number);
  return major > 4 || (major === 4 && minor >= 2);
}

module.exports = { start, resolveStreams, hasStreamsAndShareGroups };
