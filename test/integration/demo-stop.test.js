'use strict';
/**
 * The demo stops cleanly: scripts/demo.js (what scripts/demo.sh execs after building) is started
 * as a child process with free ports and its own temporary folder; once it is up, a Ctrl-C (SIGINT
 * to its whole process group, as a terminal sends it) or a SIGTERM (to the demo alone, as a
 * service manager sends it) must close Node-RED, stop both brokers and remove their data folders
 * and Node-RED's user folder: no process and no folder is left.
 */
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const env = require('../harness/env');

const root = path.join(__dirname, '..', '..');

/**
 * Pids of the processes started with TMPDIR=`tmp`: the demo and everything it started (the
 * brokers, Node-RED; Node-RED renames its command line, its environment stays).
 */
function processesOf(tmp) {
  const pids = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let environ;
    try {
      environ = fs.readFileSync(`/proc/${d}/environ`, 'utf8');
    } catch {
      continue;
    }
    if (environ.split('\0').includes(`TMPDIR=${tmp}`)) pids.push(Number(d));
  }
  return pids;
}

function startDemo(tmp, extra = []) {
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'demo.js'), '--port', '0', '--kafka-ports', '0,0', ...extra], {
    cwd: root,
    env: { ...process.env, TMPDIR: tmp, KAFKA_KEEP_DATA: '', KAFKA_HEAP: '256m' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, as a terminal gives a foreground job
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return { child, get out() { return out; } };
}

describe('the demo stops cleanly', function () {
  this.timeout(240000);
  const tmps = [];
  const children = [];

  after(function () {
    // only if an assertion failed half-way: do not leave the demo running
    for (const c of children) {
      if (c.exitCode === null && c.signalCode === null) {
        try { process.kill(-c.pid, 'SIGKILL'); } catch { /* gone */ }
      }
    }
    for (const t of tmps) {
      for (const pid of processesOf(t)) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      }
      fs.rmSync(t, { recursive: true, force: true });
    }
  });

  for (const [how, signal, toGroup] of /** @type {Array<[string, NodeJS.Signals, boolean]>} */ ([['Ctrl-C (SIGINT to the process group)', 'SIGINT', true], ['SIGTERM to the demo alone', 'SIGTERM', false]])) {
    it(`${how}: Node-RED closed, brokers stopped, their folders and Node-RED's user folder removed`, async function () {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mm2-demo-stop-'));
      tmps.push(tmp);
      const demo = startDemo(tmp);
      children.push(demo.child);
      const exited = new Promise((resolve) => demo.child.once('exit', (code, sig) => resolve({ code, sig })));

      await env.eventually(() => {
        if (demo.child.exitCode !== null) throw new Error(`the demo exited early (${demo.child.exitCode}):\n${demo.out}`);
        return /Node-RED editor: http/.test(demo.out);
      }, { timeout: 180000, interval: 500, what: `the demo up:\n${demo.out}` });

      // what runs and what it wrote: two brokers and Node-RED, each with its folder in the demo's temp folder
      const folders = fs.readdirSync(tmp);
      assert.equal(folders.filter((f) => f.startsWith('kafka-mm2-source-')).length, 1, folders.join(', '));
      assert.equal(folders.filter((f) => f.startsWith('kafka-mm2-target-')).length, 1, folders.join(', '));
      assert.equal(folders.filter((f) => f.startsWith('mm2-node-red-')).length, 1, folders.join(', '));
      const before = processesOf(tmp);
      assert.ok(before.length >= 4, `the demo, two brokers and Node-RED run (${before.length} processes)`);

      if (toGroup) process.kill(-demo.child.pid, signal);
      else demo.child.kill(signal);
      const { code } = await exited;

      // the demo ran its own stop and said what each step waited for: never a silent wait (Node-RED's
      // warnings, which the demo prints, may come between a step and its 'done')
      assert.match(demo.out, /stopping the demo \(\d+ steps; each step says what it waits for\)/, demo.out.slice(-3000));
      for (const step of [/closing Node-RED and removing its user folder \(its nodes finish their writes first, up to 15 s\)\.\.\. (?:node-red \| [^\n]*\n)*done \(\d+\.\d s\)/, /stopping both Kafka brokers and removing their data folders .*\.\.\. (?:node-red \| [^\n]*\n)*done \(\d+\.\d s\)/]) {
        assert.match(demo.out, step, demo.out.slice(-3000));
      }
      assert.match(demo.out, /stopped: nothing of the demo runs any more and its folders are removed\./, demo.out.slice(-3000));
      assert.equal(code, signal === 'SIGINT' ? 130 : 143, demo.out.slice(-3000));
      await env.eventually(() => processesOf(tmp).length === 0, { timeout: 30000, what: `no process of the demo left (${processesOf(tmp)})` });
      assert.deepEqual(fs.readdirSync(tmp), [], 'no Kafka data folder and no Node-RED user folder left');
    });
  }

  it('--instances 2: two Node-REDs with the flow; one killed with kill -9, the demo says so and goes on; a Ctrl-C then stops the rest and leaves nothing', async function () {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mm2-demo-stop-'));
    tmps.push(tmp);
    const demo = startDemo(tmp, ['--instances', '2', '--example', 'full-failover']);
    children.push(demo.child);
    const exited = new Promise((resolve) => demo.child.once('exit', (code, sig) => resolve({ code, sig })));
    await env.eventually(() => {
      if (demo.child.exitCode !== null) throw new Error(`the demo exited early (${demo.child.exitCode}):\n${demo.out}`);
      return /Try: kill -9 \d+/.test(demo.out);
    }, { timeout: 240000, interval: 500, what: `the demo up with two instances:\n${demo.out}` });
    const editors = [...demo.out.matchAll(/Node-RED (\d) +: (http:\/\/127\.0\.0\.1:\d+\/) .*pid (\d+)/g)].map((m) => ({ n: Number(m[1]), url: m[2], pid: Number(m[3]) }));
    assert.deepEqual(editors.map((e) => e.n), [1, 2], demo.out);
    assert.notEqual(editors[0].url, editors[1].url);
    assert.equal(fs.readdirSync(tmp).filter((f) => f.startsWith('mm2-node-red-')).length, 2, 'a user folder each');
    const kill = Number(/Try: kill -9 (\d+)/.exec(demo.out)[1]);
    assert.equal(kill, editors[1].pid);
    process.kill(kill, 'SIGKILL');
    await env.eventually(() => /node-red 2 \(pid \d+\) exited \(SIGKILL\): the other instances take its share/.test(demo.out), { timeout: 30000, what: `the demo saying instance 2 exited:\n${demo.out.slice(-2000)}` });
    assert.equal(demo.child.exitCode, null, 'the demo goes on');
    process.kill(-demo.child.pid, 'SIGINT');
    const { code } = await exited;
    assert.equal(code, 130, demo.out.slice(-3000));
    assert.match(demo.out, /closing Node-RED 1 and removing its user folder .*\.\.\. (?:node-red \d \| [^\n]*\n)*done/, demo.out.slice(-3000));
    await env.eventually(() => processesOf(tmp).length === 0, { timeout: 30000, what: `no process of the demo left (${processesOf(tmp)})` });
    assert.deepEqual(fs.readdirSync(tmp), [], 'no Kafka data folder and no Node-RED user folder left');
  });
});
