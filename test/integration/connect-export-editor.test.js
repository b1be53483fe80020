'use strict';
/**
 * "Export for Kafka Connect" in the real editor (Debian's Chromium driven by playwright-core):
 * the deploy-to-kafka-connect example runs in a real Node-RED process; the mm2-replication
 * dialog's button shows the three connector configs built from the flow's (disabled) mirror,
 * checkpoint and group-offsets nodes, follows an undeployed edit of the dialog, switches to
 * mm2.properties and warns when secrets are included; the mm2-connect dialog previews the
 * connector names. Saves docs/images/connect-export.png.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { freePort } = require('../../scripts/kafka/cluster');

const { skipWithoutChromium, openEditor } = require('../harness/editor');
const root = path.join(__dirname, '..', '..');

describe('Export for Kafka Connect in the editor (playwright-core + Debian Chromium)', function () {
  this.timeout(180000);
  let nr;
  let browser;
  let page;
  const S = env.unique('xs');
  const T = env.unique('xt');

  before(async function () {
    skipWithoutChromium(this);
    // the example, with its own aliases (so it shares no topic with other tests) and the test clusters
    const flows = JSON.parse(fs.readFileSync(path.join(root, 'examples', 'deploy-to-kafka-connect.json'), 'utf8'));
    const closedPort = await freePort();
    for (const n of flows) {
      if (n.id === 'k-src') Object.assign(n, { alias: S, bootstrap: env.cluster('source').bootstrap });
      if (n.id === 'k-tgt') Object.assign(n, { alias: T, bootstrap: env.cluster('target').bootstrap });
      if (n.type === 'mm2-connect') n.url = `http://127.0.0.1:${closedPort}`;
    }
    nr = await startNodeRed({ quiet: true, logLevel: 'warn', flows });
    ({ browser, page } = await openEditor(nr.url, { width: 1600, height: 1000 }));
  });

  after(async function () {
    if (browser) await browser.close();
    if (nr) await nr.stop();
  });

  it('shows the mm2-connect node in the palette, and its status says Connect is unreachable', async function () {
    assert.ok(await page.$('#red-ui-palette-mm2 .red-ui-palette-node[data-palette-type="mm2-connect"]'));
    await page.waitForFunction(() => {
      const n = RED.nodes.node('k-connect');
      return n && n.status && n.status.fill === 'red';
    }, null, { timeout: 30000 });
    const st = await page.evaluate(() => RED.nodes.node('k-connect').status);
    assert.equal(st.text, 'unreachable: connection refused');
  });

  it('the replication dialog exports the flow as Connect REST JSON, follows an undeployed edit, and writes mm2.properties', async function () {
    await page.evaluate(() => RED.editor.editConfig('', 'mm2-replication', 'k-rep'));
    await page.waitForSelector('#mm2-replication-export-button', { state: 'visible' });
    await page.click('#mm2-replication-export-button');
    await page.waitForFunction(() => /^\[/.test(/** @type {HTMLTextAreaElement} */ (document.getElementById('mm2-replication-export-text')).value));
    const bodies = JSON.parse(await page.inputValue('#mm2-replication-export-text'));
    assert.deepEqual(bodies.map((b) => b.name), [`mm2-${S}-${T}-source`, `mm2-${S}-${T}-checkpoint`, `mm2-${S}-${T}-heartbeat`]);
    const [source, checkpoint] = bodies.map((b) => b.config);
    assert.equal(source.topics, 'orders, billing', 'from the disabled mirror node');
    assert.equal(checkpoint['emit.checkpoints.interval.seconds'], '10', 'from the disabled checkpoint node');
    assert.equal(checkpoint['sync.group.offsets.enabled'], 'true', 'from the disabled group-offsets node');
    assert.equal(checkpoint['source.cluster.bootstrap.servers'], env.cluster('source').bootstrap);
    assert.equal(checkpoint['value.converter'], 'org.apache.kafka.connect.converters.ByteArrayConverter');
    assert.match(await page.textContent('#mm2-replication-export-info'), /Worker setting:|Heartbeats:/);

    // an edit that is not deployed yet, then the dedicated-mode file
    await page.fill('#node-config-input-separator', '_');
    await page.selectOption('#mm2-replication-export-format', 'mm2');
    await page.waitForFunction(() => /^clusters=/m.test(/** @type {HTMLTextAreaElement} */ (document.getElementById('mm2-replication-export-text')).value));
    const mm2 = await page.inputValue('#mm2-replication-export-text');
    assert.match(mm2, new RegExp(`^clusters=${S}, ${T}$`, 'm'));
    assert.match(mm2, new RegExp(`^${S}->${T}\\.enabled=true$`, 'm'));
    assert.match(mm2, /^replication\.policy\.separator=_$/m);

    // secrets: the warning shows (these clusters have no SASL, so the text has no password either way)
    assert.equal(await page.isVisible('#mm2-replication-export-warning'), false);
    await page.check('#mm2-replication-export-secrets');
    await page.waitForSelector('#mm2-replication-export-warning', { state: 'visible' });
    assert.match(await page.textContent('#mm2-replication-export-warning'), /passwords in clear/);
    await page.uncheck('#mm2-replication-export-secrets');
    await page.selectOption('#mm2-replication-export-format', 'yaml');
    await page.waitForFunction(() => /^connector\.class: /m.test(/** @type {HTMLTextAreaElement} */ (document.getElementById('mm2-replication-export-text')).value));
    await page.evaluate(() => document.getElementById('mm2-replication-export-format').scrollIntoView());
    const out = path.join(root, 'docs', 'images', 'connect-export.png');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    await page.screenshot({ path: out });
    await page.click('#node-config-dialog-cancel');
  });

  it('the mm2-connect dialog previews the connector names', async function () {
    await page.evaluate(() => RED.editor.edit(RED.nodes.node('k-connect')));
    await page.waitForSelector('#mm2-connect-names', { state: 'visible' });
    assert.equal(await page.textContent('#mm2-connect-names'), [`mm2-${S}-${T}-source`, `mm2-${S}-${T}-checkpoint`, `mm2-${S}-${T}-heartbeat`].join('\n'));
    await page.uncheck('#node-input-deployHeartbeat');
    assert.equal(await page.textContent('#mm2-connect-names'), [`mm2-${S}-${T}-source`, `mm2-${S}-${T}-checkpoint`].join('\n'));
    await page.click('#node-dialog-cancel');
  });
});
