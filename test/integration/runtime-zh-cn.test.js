'use strict';
/**
 * A Node-RED whose runtime language is zh-CN (its `lang` setting): the nodes' statuses and the
 * warnings and errors they log are in Chinese, as the editor already is (browser.test.js). The
 * full failover example is deployed twice in a real Node-RED process: pointed at the test clusters
 * (every mm2 node's status, as the editor sees it, until each shows one that is not red), then with
 * its target at a port where no broker listens (statuses and log lines of a cluster that does not
 * answer). Every status text seen and every line our nodes log at warn or error carries Chinese
 * text: a message missing from the zh-CN catalogue would show in English (or as its key).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { freePort } = require('../../scripts/kafka/cluster');

const root = path.join(__dirname, '..', '..');
const CJK = /[\u4e00-\u9fff]/;
/** a catalogue key shown as text: `mm2-checkpoint.status.x` */
const KEY = /\bmm2-[a-z-]+\.[a-zA-Z]+\.[a-zA-Z.]+/;

describe('a Node-RED started in zh-CN: node statuses and log lines in Chinese', function () {
  this.timeout(240000);
  let nr;
  let statuses;

  before(async function () {
    nr = await startNodeRed({ quiet: true, logLevel: 'info', lang: 'zh-CN' });
    statuses = await nr.watchStatuses();
  });

  after(async function () {
    if (statuses) statuses.close();
    if (nr) await nr.stop();
  });

  /** The full failover example, its aliases unique, its clusters where `where` says. */
  function example(tag, where) {
    const flow = JSON.parse(fs.readFileSync(path.join(root, 'examples', 'full-failover.json'), 'utf8'));
    for (const n of flow) {
      if (n.type === 'mm2-cluster') Object.assign(n, { alias: `${tag}-${n.alias}`, bootstrap: where(n.alias) });
      // its own topics and groups only: the suite's clusters hold other files' (the example selects every one)
      if (n.type === 'mm2-mirror') n.topics = `${tag}-.*`;
      if (n.type === 'mm2-checkpoint') Object.assign(n, { groups: `${tag}-.*`, topics: `${tag}-.*` });
      if (n.type === 'mm2-group-offsets') n.groups = `${tag}-.*`;
    }
    const watched = flow.filter((n) => n.z && n.type.startsWith('mm2-') && !n.d);
    assert.ok(watched.length >= 5, 'the example has mm2 flow nodes');
    return { flow, watched };
  }

  /** Deploys `flow` and collects every status text its mm2 nodes show until `settled(now)` holds. */
  async function deployAndWatch(flow, watched, settled, what) {
    const seen = new Map(watched.map((n) => [n.id, new Set()]));
    statuses.reset();
    const before = nr.log.length;
    await nr.deploy(flow);
    try {
      await env.eventually(() => {
        const now = Object.fromEntries(watched.map((n) => [n.id, statuses.get(n.id)]));
        for (const n of watched) if (now[n.id] && now[n.id].text) seen.get(n.id).add(now[n.id].text);
        return watched.every((n) => now[n.id] && now[n.id].fill) && settled(now);
      }, { timeout: 120000, interval: 200, what });
    } catch (e) {
      // what the nodes showed when the wait ended, and what Node-RED logged
      throw new Error(`${e.message}: ${JSON.stringify(statuses.all())}; Node-RED's log ends: ${nr.log.slice(-3000)}`);
    }
    return { seen, log: nr.log.slice(before) };
  }

  function assertChinese(seen, where) {
    for (const [id, texts] of seen) {
      assert.ok(texts.size > 0, `${where}: ${id} showed a status`);
      for (const t of texts) {
        assert.match(t, CJK, `${where}: ${id}'s status '${t}' is not in Chinese`);
        assert.doesNotMatch(t, KEY, `${where}: ${id}'s status '${t}' shows a catalogue key`);
      }
    }
  }

  /** Our nodes' warning and error lines: `... - [warn] [mm2-checkpoint:name] text`. */
  function ourWarnings(log) {
    return log.split('\n').filter((l) => /- \[(warn|error)\] \[mm2-/.test(l));
  }

  it('the example against the test clusters: every status it shows, and every warning it logs, in Chinese', async function () {
    const { flow, watched } = example(env.unique('zh'), (alias) => env.cluster(alias === 'source' ? 'source' : 'target').bootstrap);
    // settled once the mirror, the offset syncs and the heartbeats are green and the other nodes have
    // moved on from their first status without turning red (they show what they do, not only 'starting')
    const mustBeGreen = new Set(['mm2-mirror', 'mm2-offset-syncs', 'mm2-heartbeat']);
    const texts = new Map(watched.map((n) => [n.id, new Set()]));
    const settled = (now) => watched.every((n) => {
      texts.get(n.id).add(now[n.id].text);
      return mustBeGreen.has(n.type) ? now[n.id].fill === 'green' : now[n.id].fill !== 'red' && texts.get(n.id).size >= 2;
    });
    const { seen, log } = await deployAndWatch(flow, watched, settled, 'the mirror, the offset syncs and the heartbeats green, the other nodes past their first status and not red');
    assertChinese(seen, 'clusters up');
    for (const line of ourWarnings(log)) assert.match(line.replace(/^.*?\] \[mm2-[^\]]*\]/, ''), CJK, `not in Chinese: ${line}`);
    console.log(`      ${[...seen].map(([id, t]) => `${id}: ${[...t].join(' | ')}`).join('\n      ')}`);
  });

  it('the example with its target unreachable: the statuses and warnings that say so, in Chinese', async function () {
    const closed = await freePort();
    const { flow, watched } = example(env.unique('zhdown'), (alias) => (alias === 'source' ? env.cluster('source').bootstrap : `127.0.0.1:${closed}`));
    // settled once the nodes that need the target say that it does not answer (a status that is not green)
    const needTarget = watched.filter((n) => n.type !== 'mm2-offset-syncs');
    const start = nr.log.length;
    const { seen } = await deployAndWatch(flow, watched, (now) => needTarget.every((n) => now[n.id].fill !== 'green'), 'the nodes that need the target not green');
    assertChinese(seen, 'target unreachable');
    await env.eventually(() => ourWarnings(nr.log.slice(start)).length > 0, { timeout: 60000, what: 'a warning or error logged by a node of ours' });
    const lines = ourWarnings(nr.log.slice(start));
    for (const line of lines) assert.match(line.replace(/^.*?\] \[mm2-[^\]]*\]/, ''), CJK, `not in Chinese: ${line}`);
    console.log(`      ${lines.slice(0, 5).join('\n      ')}`);
  });
});
