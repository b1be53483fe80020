'use strict';
/**
 * The editor in a real browser (Debian's Chromium driven by playwright-core; no browser is ever
 * downloaded): Node-RED with this package starts, every node is in the palette, the full
 * failover example imports through the editor's Import dialog (its two bootstrap addresses set
 * to the test clusters), deploys, and the nodes' status turns connected/active. Saves a
 * screenshot of the deployed flow to docs/images/failover-flow.png (shown in the README; see
 * screenshotFile in test/harness/editor.js).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');

const { skipWithoutChromium, openEditor, screenshotFile } = require('../harness/editor');
const root = path.join(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
const FLOW_TYPES = Object.keys(pkg['node-red'].nodes).filter((t) => t !== 'mm2-cluster' && t !== 'mm2-replication');
/** The nodes of the full failover example: every flow node but mm2-connect (Kafka Connect deploy has its own example). */
const FAILOVER_TYPES = FLOW_TYPES.filter((t) => t !== 'mm2-connect');

describe('editor in a real browser (playwright-core + Debian Chromium)', function () {
  this.timeout(180000);
  let nr;
  let browser;
  let page;

  before(async function () {
    skipWithoutChromium(this);
    nr = await startNodeRed({ quiet: true, logLevel: 'warn' });
    ({ browser, page } = await openEditor(nr.url, { width: 1600, height: 900 }));
  });

  after(async function () {
    if (browser) await browser.close();
    if (nr) await nr.stop();
  });

  it('shows every flow node of the package in the palette, under the mm2 category', async function () {
    for (const type of FLOW_TYPES) {
      const el = await page.$(`#red-ui-palette-mm2 .red-ui-palette-node[data-palette-type="${type}"]`);
      assert.ok(el, `palette has ${type} in the mm2 category`);
    }
  });

  it("lists both examples under Import > Examples (the editor's library API)", async function () {
    const list = await nr.request('GET', '/library/examples/flows/');
    assert.ok(list.json.includes('@kafka-mm2/node-red'));
    for (const name of ['full-failover', 'checkpoints-beside-mm2']) {
      const r = await nr.request('GET', `/library/examples/flows/@kafka-mm2/node-red/${name}`);
      assert.equal(r.status, 200, name);
      assert.deepEqual(r.json, JSON.parse(fs.readFileSync(path.join(root, 'examples', `${name}.json`), 'utf8')));
    }
  });

  it('imports the full failover example through the Import dialog, deploys it, and the nodes connect', async function () {
    const flow = JSON.parse(fs.readFileSync(path.join(root, 'examples', 'full-failover.json'), 'utf8'));
    for (const n of flow) {
      if (n.type === 'mm2-cluster' && n.alias === 'source') n.bootstrap = env.cluster('source').bootstrap;
      if (n.type === 'mm2-cluster' && n.alias === 'target') n.bootstrap = env.cluster('target').bootstrap;
    }
    await page.click('#red-ui-header-button-sidemenu');
    await page.click('#menu-item-import');
    await page.waitForSelector('#red-ui-clipboard-dialog-import-text', { state: 'visible' });
    await page.fill('#red-ui-clipboard-dialog-import-text', JSON.stringify(flow));
    await page.press('#red-ui-clipboard-dialog-import-text', 'End'); // the dialog validates on keyup
    await page.waitForSelector('#red-ui-clipboard-dialog-ok:not([disabled])');
    await page.click('#red-ui-clipboard-dialog-ok');
    // the example brings its own tab: the editor switches to it
    await page.waitForFunction(() => RED.nodes.filterNodes({ type: 'mm2-checkpoint' }).length > 0);
    await page.evaluate(() => RED.workspaces.show(RED.nodes.filterNodes({ type: 'mm2-checkpoint' })[0].z));
    const imported = await page.evaluate(() => RED.nodes.filterNodes({ z: RED.workspaces.active() }).map((n) => n.type));
    for (const type of FAILOVER_TYPES) assert.ok(imported.includes(type), `imported flow has ${type}`);
    // drop anything still attached to the mouse, then deploy
    await page.mouse.click(1200, 800);
    await page.click('#red-ui-header-button-deploy');
    const confirm = await page.waitForSelector('#node-dialog-confirm-deploy-deploy', { timeout: 2000 }).catch(() => null);
    if (confirm) await confirm.click();

    // every mm2 node gets a status, none of them red, the reader and the checkpoint emitter green
    const statusOf = () =>
      page.evaluate((types) => {
        const out = {};
        RED.nodes.eachNode((n) => {
          if (types.includes(n.type) && n.z === RED.workspaces.active()) out[n.type] = n.status ? { fill: n.status.fill, text: n.status.text } : null;
        });
        return out;
      }, FAILOVER_TYPES);
    let statuses = {};
    const deadline = Date.now() + 60000;
    for (;;) {
      statuses = await statusOf();
      const ok = FAILOVER_TYPES.every((t) => statuses[t] && statuses[t].fill && statuses[t].fill !== 'red') &&
        statuses['mm2-offset-syncs'] && statuses['mm2-offset-syncs'].fill === 'green';
      if (ok) break;
      if (Date.now() > deadline) assert.fail(`mm2 nodes did not all connect within 60 s: ${JSON.stringify(statuses)}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    for (const t of FAILOVER_TYPES) assert.notEqual(statuses[t].fill, 'red', `${t}: ${statuses[t].text}`);

    // let the flow run a little (heartbeats replicated, a cycle done), notifications fade, tips closed
    await env.eventually(async () => {
      const s = await statusOf();
      return s['mm2-heartbeat'] && s['mm2-heartbeat'].fill === 'green';
    }, { timeout: 60000, interval: 1000, what: 'heartbeats to arrive on the target' }).catch(() => undefined);
    await page.evaluate(() => { document.querySelectorAll('.red-ui-notification').forEach((n) => n.remove()); });
    await page.evaluate(() => RED.actions.invoke('core:toggle-show-tips', false));
    await page.evaluate(() => RED.actions.invoke('core:toggle-sidebar', false)); // the whole flow in view
    const out = screenshotFile('failover-flow.png');
    await page.screenshot({ path: out });
    assert.ok(fs.statSync(out).size > 10000, 'screenshot written');
  });

  it('the checkpoint node edit dialog shows MM2 property names and the paste-config box', async function () {
    const id = await page.evaluate(() => RED.nodes.filterNodes({ type: 'mm2-checkpoint', z: RED.workspaces.active() })[0].id);
    await page.evaluate((nodeId) => RED.editor.edit(RED.nodes.node(nodeId)), id);
    await page.waitForSelector('#node-input-emitCheckpointsIntervalSeconds', { state: 'visible' });
    const text = await page.textContent('.red-ui-tray-body');
    assert.match(text, /emit\.checkpoints\.interval\.seconds/);
    assert.match(text, /refresh\.groups\.interval\.seconds/);
    assert.match(await page.getAttribute('#node-input-groupsExclude', 'title'), /^groups\.exclude:/);
    assert.match(await page.getAttribute('#node-input-topicsExclude', 'title'), /^topics\.exclude:/);
    assert.match(text, /Paste MM2 config/);
    const out = screenshotFile('checkpoint-dialog.png');
    await page.screenshot({ path: out });
    await page.click('#node-dialog-cancel');
  });
});
