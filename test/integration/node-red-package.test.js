'use strict';
/**
 * The package in a real Node-RED process, installed as a user installs it (scripts/node-red-runner.js;
 * the Node-RED of node_modules, or the one MM2_NODE_RED_DIR / MM2_NODE_BIN select, which is how
 * scripts/test.js runs this file on Node-RED 5 and Node.js 22): every node type of package.json
 * registers, enabled and without a load error, and every flow in examples/ deploys (its two
 * bootstrap addresses set to the test clusters, its aliases made unique so it shares no topic with
 * other suites), its flows start with no error and no missing type, and each mm2 flow node shows a status that is not
 * red, as the editor sees it (the runtime's comms WebSocket); the mm2-connect node, pointed at a
 * port where no Kafka Connect listens, says so in red. FlowFuse Dashboard 2.0 is in the user dir
 * (the readiness-dashboard example's dependency): that example's page is served.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { freePort } = require('../../scripts/kafka/cluster');

const root = path.join(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
const TYPES = Object.keys(pkg['node-red'].nodes);
const EXAMPLES = fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.json')).sort();

describe('the package in a real Node-RED process: node types register, every example deploys and runs', function () {
  this.timeout(180000);
  let nr;
  let statuses;

  before(async function () {
    // with FlowFuse Dashboard 2.0 in the user dir: the readiness-dashboard example needs it
    nr = await startNodeRed({ quiet: true, logLevel: 'info', dashboard: true });
    statuses = await nr.watchStatuses();
  });

  after(async function () {
    if (statuses) statuses.close();
    if (nr) await nr.stop();
  });

  it('runs the Node-RED and the Node.js it was asked to run', async function () {
    const version = JSON.parse(fs.readFileSync(path.join(nr.nodeRedDir, 'package.json'), 'utf8')).version;
    const node = execFileSync(nr.node, ['--version'], { encoding: 'utf8' }).trim();
    const settings = await nr.request('GET', '/settings');
    // (a Node-RED run from inside a git checkout, as node_modules is here, adds "-git")
    assert.equal(settings.json.version.replace(/-git$/, ''), version, 'the runtime answers with the version of the package it was started from');
    // the runtime's own start-up lines name what it runs on
    assert.match(nr.log, new RegExp(`Node-RED version: v${version.replace(/\./g, '\\.')}(-git)?\\s`));
    assert.match(nr.log, new RegExp(`Node\\.js\\s+version: ${node.replace(/\./g, '\\.')}\\b`));
    console.log(`      Node-RED ${version} on Node.js ${node}`);
  });

  it(`registers all ${TYPES.length} node types of the package, enabled, without a load error`, async function () {
    const r = await nr.request('GET', '/nodes', undefined, { Accept: 'application/json' });
    assert.equal(r.status, 200, r.text);
    const sets = r.json.filter((s) => s.module === pkg.name);
    const types = sets.flatMap((s) => s.types).sort();
    assert.deepEqual(types, [...TYPES].sort());
    for (const s of sets) {
      assert.equal(s.err, undefined, `${s.id}: ${s.err}`);
      assert.equal(s.enabled, true, `${s.id} enabled`);
      assert.equal(s.version, pkg.version, `${s.id} from this package's version`);
    }
  });

  for (const file of EXAMPLES) {
    it(`deploys examples/${file}: its flows start, each mm2 flow node shows a status that is not red`, async function () {
      const flow = JSON.parse(fs.readFileSync(path.join(root, 'examples', file), 'utf8'));
      const closedPort = await freePort();
      const tag = env.unique('ex');
      for (const n of flow) {
        if (n.type === 'mm2-cluster') {
          const which = n.alias === 'source' || n.alias === 'east' ? 'source' : 'target';
          Object.assign(n, { alias: `${tag}-${n.alias}`, bootstrap: env.cluster(which).bootstrap });
        }
        if (n.type === 'mm2-connect') n.url = `http://127.0.0.1:${closedPort}`;
      }
      const tabs = new Set(flow.filter((n) => n.type === 'tab').map((n) => n.id));
      const running = flow.filter((n) => n.z && tabs.has(n.z) && !n.d && n.type !== 'comment');
      const watched = running.filter((n) => n.type.startsWith('mm2-'));
      assert.ok(watched.length > 0, `${file} has mm2 flow nodes`);

      const before = nr.log.length;
      statuses.reset(); // the examples share node ids: only statuses published after this deploy count
      await nr.deploy(flow);
      await env.eventually(() => nr.log.slice(before).includes('Started flows'), { timeout: 60000, what: `${file}: flows started` });
      const started = nr.log.slice(before);
      assert.doesNotMatch(started, /Waiting for missing types|\[error\]/, started);

      const expectRed = (n) => n.type === 'mm2-connect';
      const seen = await env.eventually(() => {
        const now = Object.fromEntries(watched.map((n) => [n.id, statuses.get(n.id)]));
        const ok = watched.every((n) => {
          const s = now[n.id];
          if (!s || !s.fill) return false;
          return expectRed(n) ? s.fill === 'red' : s.fill !== 'red';
        });
        return ok && now;
      }, { timeout: 90000, interval: 500, what: `${file}: a status on every mm2 node (${JSON.stringify(statuses.all())})` });
      for (const n of watched) {
        if (expectRed(n)) assert.equal(seen[n.id].text, 'unreachable: connection refused', `${file}: ${n.id}`);
      }
      // a dashboard page of the example is served where its ui-base and ui-page say
      for (const p of flow.filter((n) => n.type === 'ui-page')) {
        const base = flow.find((n) => n.id === p.ui);
        const r = await nr.request('GET', `${base.path}${p.path}`);
        assert.equal(r.status, 200, `${file}: ${base.path}${p.path} answers ${r.status}`);
        assert.match(r.text, /<div id="app"/, `${file}: ${base.path}${p.path} is the dashboard's page`);
      }
      console.log(`      ${file}: ${watched.map((n) => `${n.type} ${seen[n.id].fill} "${seen[n.id].text}"`).join('; ')}`);
    });
  }
});
