'use strict';
/**
 * The editor in a real browser (Debian's Chromium driven by playwright-core; no browser is ever
 * downloaded): Node-RED with this package starts, every node is in the palette, the full
 * failover example imports through the editor's Import dialog (its two bootstrap addresses set
 * to the test clusters), deploys, and the nodes' status turns connected/active. The palette is in
 * pipeline order; every dialog shows its selects whole (as wide as their row, the longest option
 * fits) and MM2 property names one way. Then the same editor in zh-CN: Chinese palette and canvas
 * labels. Saves the screenshots the README shows, in both languages, to docs/images/ (see
 * screenshotFile in test/harness/editor.js). Then the readiness-dashboard example, with FlowFuse
 * Dashboard 2.0 in Node-RED's user folder: its page fills the table with the groups' verdicts and
 * draws its charts (a group in the same colour in both group charts), and its screenshot goes
 * beside the others.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');

const { skipWithoutChromium, openEditor, openPage, screenshotFile } = require('../harness/editor');
const root = path.join(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
const FLOW_TYPES = Object.keys(pkg['node-red'].nodes).filter((t) => t !== 'mm2-cluster' && t !== 'mm2-replication');
/** The nodes of the full failover example: every flow node but mm2-connect and mm2-failback (Kafka Connect deploy and failback have their own examples). */
const FAILOVER_TYPES = FLOW_TYPES.filter((t) => t !== 'mm2-connect' && t !== 'mm2-failback');

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

  it('shows every flow node of the package in the palette, under the mm2 category, in pipeline order', async function () {
    for (const type of FLOW_TYPES) {
      const el = await page.$(`#red-ui-palette-mm2 .red-ui-palette-node[data-palette-type="${type}"]`);
      assert.ok(el, `palette has ${type} in the mm2 category`);
    }
    const order = await page.$$eval('#red-ui-palette-mm2 .red-ui-palette-node', (els) => els.map((e) => e.getAttribute('data-palette-type')));
    assert.deepEqual(order, ['mm2-mirror', 'mm2-offset-syncs', 'mm2-checkpoint', 'mm2-group-offsets', 'mm2-failback', 'mm2-heartbeat', 'mm2-connect']);
  });

  it("lists every example under Import > Examples (the editor's library API)", async function () {
    const list = await nr.request('GET', '/library/examples/flows/');
    assert.ok(list.json.includes('@kafka-mm2/node-red'));
    const names = fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));
    for (const name of ['full-failover', 'checkpoints-beside-mm2', 'readiness-dashboard', 'planned-switchover']) assert.ok(names.includes(name), name);
    for (const name of names) {
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
    await trayInView(page);
    const text = await page.textContent('.red-ui-tray-body');
    const names = await page.$$eval('.red-ui-tray-body .mm2-property code', (els) => els.map((e) => e.textContent));
    for (const p of ['groups', 'groups.exclude', 'topics', 'topics.exclude', 'emit.checkpoints.interval.seconds', 'refresh.groups.interval.seconds']) {
      assert.ok(names.includes(p), `${p} on the line under its field`);
    }
    assert.doesNotMatch(await page.getAttribute('#node-input-groupsExclude', 'title'), /groups\.exclude/, 'the tooltip explains, the line under the field names');
    assert.match(text, /Paste MM2 config/);
    const out = screenshotFile('checkpoint-dialog.png');
    await page.screenshot({ path: out });
    await closeDialog(page);
  });

  it('every dialog shows its selects whole: as wide as their row, the longest option fits', async function () {
    const ids = await page.evaluate((types) => {
      const z = RED.workspaces.active();
      const out = [];
      for (const t of types) {
        const n = RED.nodes.filterNodes({ type: t, z })[0];
        if (n) out.push({ type: t, id: n.id, config: false });
      }
      const rep = RED.nodes.node(RED.nodes.filterNodes({ type: 'mm2-checkpoint', z })[0].replication);
      out.push({ type: 'mm2-replication', id: rep.id, config: true }, { type: 'mm2-cluster', id: rep.source, config: true });
      return out;
    }, FAILOVER_TYPES);
    let selects = 0;
    for (const { type, id, config } of ids) {
      await openDialog(page, type, id, config);
      if (type === 'mm2-replication') {
        await page.click('#mm2-replication-export-button');
        await page.waitForSelector('#mm2-replication-export-format', { state: 'visible' });
      }
      for (const s of await selectsShown(page)) {
        selects++;
        if (!s.picker) assert.ok(Math.abs(s.width - s.rowWidth) <= 1, `${type} ${s.id}: ${s.width}px wide in a row of ${s.rowWidth}px`);
        assert.ok(s.widest <= s.room, `${type} ${s.id}: "${s.longest}" (${Math.round(s.widest)}px) is cut off in ${Math.round(s.room)}px`);
      }
      if (type === 'mm2-replication') {
        const label = await page.textContent('label[for="node-config-input-replicationFactor"]');
        assert.match(label, /Replicas of internal topics/);
        await page.screenshot({ path: screenshotFile('replication-dialog.png') });
      }
      await closeDialog(page);
    }
    assert.ok(selects >= 5, `checked ${selects} selects`);
  });

  it('in zh-CN: palette and canvas labels in Chinese, the dialogs too (screenshots for the README)', async function () {
    // without a Chinese font Chromium draws empty boxes: the screenshots would show nothing readable
    const fonts = require('node:child_process').spawnSync('fc-list', [':lang=zh'], { encoding: 'utf8' });
    if (!fonts.error) assert.ok(fonts.stdout.trim() !== '', "no Chinese font installed (Debian: fonts-wqy-zenhei; scripts/prereqs.sh's ensure_chromium installs it)");
    const zh = await openEditor(nr.url, { width: 1600, height: 900 }, 'zh-CN');
    try {
      const p = zh.page;
      const labels = await p.$$eval('#red-ui-palette-mm2 .red-ui-palette-node', (els) => els.map((e) => [e.getAttribute('data-palette-type'), e.textContent.trim()]));
      const byType = Object.fromEntries(labels);
      assert.equal(byType['mm2-offset-syncs'], '偏移同步');
      assert.equal(byType['mm2-heartbeat'], '心跳');
      for (const [type, text] of labels) if (type !== 'mm2-connect') assert.match(text, /[\u4e00-\u9fff]/, `${type} palette label "${text}" in Chinese`);
      await p.waitForFunction(() => RED.nodes.filterNodes({ type: 'mm2-checkpoint' }).length > 0);
      await p.evaluate(() => RED.workspaces.show(RED.nodes.filterNodes({ type: 'mm2-checkpoint' })[0].z));
      // the canvas label a node shows when it has no name of its own
      const unnamed = await p.evaluate(() => ['mm2-mirror', 'mm2-checkpoint', 'mm2-heartbeat'].map((t) => {
        const n = RED.nodes.filterNodes({ type: t })[0];
        return n._def.label.call(Object.assign({}, n, { name: '' }));
      }));
      for (const l of unnamed) assert.match(l, /[\u4e00-\u9fff]/, `canvas label "${l}" in Chinese`);
      await env.eventually(async () => {
        const fills = await p.evaluate(() => RED.nodes.filterNodes({ type: 'mm2-offset-syncs', z: RED.workspaces.active() }).map((n) => n.status && n.status.fill));
        return fills.length > 0 && fills.every((f) => f === 'green');
      }, { timeout: 60000, interval: 500, what: 'the zh-CN editor to show the statuses' });
      await p.evaluate(() => { document.querySelectorAll('.red-ui-notification').forEach((n) => n.remove()); });
      await p.evaluate(() => RED.actions.invoke('core:toggle-show-tips', false));
      await p.evaluate(() => RED.actions.invoke('core:toggle-sidebar', false));
      await p.screenshot({ path: screenshotFile('failover-flow.zh-CN.png') });

      const rep = await p.evaluate(() => RED.nodes.filterNodes({ type: 'mm2-checkpoint', z: RED.workspaces.active() })[0].replication);
      await openDialog(p, 'mm2-replication', rep, true);
      assert.match(await p.textContent('label[for="node-config-input-replicationFactor"]'), /内部主题的副本数/);
      for (const s of await selectsShown(p)) {
        if (!s.picker) assert.ok(Math.abs(s.width - s.rowWidth) <= 1, `zh-CN ${s.id}: ${s.width}px wide in a row of ${s.rowWidth}px`);
        assert.ok(s.widest <= s.room, `zh-CN ${s.id}: "${s.longest}" is cut off`);
      }
      await p.screenshot({ path: screenshotFile('replication-dialog.zh-CN.png') });
      await closeDialog(p);
      const out = screenshotFile('failover-flow.zh-CN.png');
      assert.ok(fs.statSync(out).size > 10000, 'zh-CN screenshot written');
    } finally {
      await zh.browser.close();
    }
  });
});

describe('the readiness dashboard (examples/readiness-dashboard.json, FlowFuse Dashboard 2.0) in Chromium', function () {
  this.timeout(240000);
  const flow = JSON.parse(fs.readFileSync(path.join(root, 'examples', 'readiness-dashboard.json'), 'utf8'));
  const base = flow.find((n) => n.type === 'ui-base');
  const uiPage = flow.find((n) => n.type === 'ui-page');
  // names of this suite only (the clusters are this run's: fixed names read well in the screenshot)
  const topic = 'dashboard-orders';
  const groups = [{ id: 'orders-fulfilment', share: 1 }, { id: 'orders-analytics', share: 0.4 }, { id: 'orders-audit', share: 0.1 }];
  const charts = flow.filter((n) => n.type === 'ui-chart').map((n) => ({ id: n.id, colors: n.colors }));
  let nr;
  let browser;
  let page;
  let producer;
  let admin;
  let stopTraffic = () => undefined;

  before(async function () {
    skipWithoutChromium(this);
    admin = await env.admin('source');
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
    producer = env.kafka('source').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    // traffic as in the demo, smaller: 3 records every 100 ms, and the groups committing at their
    // share of the end offsets (each round awaited before the next: a group is never set twice at once)
    let n = 0;
    const produce = () => producer.send({ topic, messages: [0, 1, 2].map((partition) => ({ partition, value: `order-${n++}` })) });
    const commit = async () => {
      const ends = await admin.fetchTopicOffsets(topic);
      for (const g of groups) {
        const partitions = ends.map((e) => ({ partition: e.partition, offset: String(Math.max(1, Math.floor(Number(e.high) * g.share))) }));
        await admin.setOffsets({ groupId: g.id, topic, partitions });
      }
    };
    await produce();
    await commit();
    const loops = [repeat(100, produce), repeat(500, commit)];
    stopTraffic = () => loops.forEach((stop) => stop());
    const deployed = flow.map((n) => {
      const c = { ...n };
      if (c.type === 'mm2-cluster') c.bootstrap = env.cluster(c.alias === 'source' ? 'source' : 'target').bootstrap;
      // only this suite's topic and groups; a cycle every 2 s instead of 10 s, so the charts fill sooner
      if (c.type === 'mm2-mirror') c.topics = topic;
      if (c.type === 'mm2-checkpoint') Object.assign(c, { groups: 'orders-.*', topics: topic, emitCheckpointsIntervalSeconds: '2' });
      if (c.type === 'mm2-group-offsets') c.groups = 'orders-.*';
      return c;
    });
    nr = await startNodeRed({ flows: deployed, dashboard: true, quiet: true, logLevel: 'warn' });
    ({ browser, page } = await openPage(`${nr.url.replace(/\/$/, '')}${base.path}${uiPage.path}`, { width: 1600, height: 1120 }));
  });

  after(async function () {
    stopTraffic();
    if (browser) await browser.close();
    if (nr) await nr.stop();
    if (producer) await producer.disconnect();
  });

  it("fills the table with every group's verdict and re-read bound", async function () {
    const rows = await env.eventually(async () => {
      const r = await page.$$eval('#nrdb-ui-widget-rd-table tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => (td.textContent || '').trim())));
      return r.length === groups.length && r.every((cells) => /^\d+$/.test(cells[2])) && r;
    }, { timeout: 120000, interval: 1000, what: 'the table to show a row with a re-read bound for each group' });
    assert.deepEqual(rows.map((cells) => cells[0]).sort(), groups.map((g) => g.id).sort());
    for (const cells of rows) {
      assert.match(cells[1], /^(ready|at risk)$/, `${cells[0]}: a verdict (${cells.join(' | ')})`);
      assert.match(cells[3], new RegExp(`^${topic}-[0-2]$`), `${cells[0]}: the partition the verdict comes from`);
      assert.match(cells[4], /^\d+ \/ \d+ \/ \d+$/, `${cells[0]}: partitions ready / at risk / not covered`);
    }
  });

  it("draws every chart: its series' lines in the plot area, for the groups (each in its colour in both group charts), the heartbeats and the mirror", async function () {
    // pixels of the series colours below the legend: drawn data, not axes or grid (lines of equal
    // values lie on each other, so any series colour counts)
    const drawn = () => page.evaluate((charts) => charts.map(({ id, colors }) => {
      const rgb = colors.map((c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)));
      const canvas = /** @type {HTMLCanvasElement | null} */ (document.querySelector(`#nrdb-ui-widget-${id} canvas`));
      const ctx = canvas && canvas.getContext('2d');
      if (!canvas || !ctx || canvas.height < 50) return { id, pixels: 0 };
      const top = Math.floor(canvas.height * 0.2);
      const data = ctx.getImageData(0, top, canvas.width, canvas.height - top).data;
      let pixels = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] > 200 && rgb.some((c) => Math.abs(c[0] - data[i]) < 24 && Math.abs(c[1] - data[i + 1]) < 24 && Math.abs(c[2] - data[i + 2]) < 24)) pixels++;
      }
      return { id, pixels };
    }), charts);
    // this flow's new mirror copies `heartbeats` from its start: the earlier suites' heartbeats
    // arrive late (true latencies, not this flow's steady state); the chart starts again from now,
    // as its Clear button does, once the mirror runs (the table filled: offset syncs came)
    const cleared = await nr.request('POST', '/dashboard/chart/rd-chart-heartbeat/clear');
    assert.equal(cleared.status, 200, cleared.text);
    let seen = [];
    await env.eventually(async () => {
      seen = await drawn();
      return seen.every((c) => c.pixels >= 100);
    }, { timeout: 120000, interval: 1000, what: 'every chart to draw a line' }).catch(() => undefined);
    // a chart that drew nothing: was there anything to draw? (the mirror-rate line lies on the axis
    // when the mirror copies nothing: the records produced and those on the target say which)
    let copied = '';
    if (seen.some((c) => c.pixels < 100)) {
      const ends = async (cluster, t) => (await (await env.admin(cluster)).fetchTopicOffsets(t).catch(() => [])).map((o) => `${o.partition}:${o.high}`).join(' ');
      copied = `; ${topic} on the source ${await ends('source', topic)}, source.${topic} on the target ${await ends('target', `source.${topic}`)}`;
    }
    for (const c of seen) assert.ok(c.pixels >= 100, `${c.id}: ${c.pixels} pixels of its series (${JSON.stringify(seen)}${copied})`);
    // each group in the colour its name gives, in both group charts (its legend swatch, its line):
    // the colours the function node sends, asked of its code with the groups' names
    const fn = flow.find((n) => n.type === 'function' && n.name === 'readiness per group');
    const context = new Map();
    const readiness = { listedAt: Date.now(), thresholds: { maxReread: 1000, maxAgeSeconds: 300 }, ready: groups.length, atRisk: 0, notCovered: 0, groups: groups.map((g) => ({ group: g.id, verdict: 'ready', why: null, reread: 1, topic, partition: 0, ready: 1, atRisk: 0, notCovered: 0 })) };
    // eslint-disable-next-line no-new-func
    const sent = new Function('msg', 'node', 'context', 'env', fn.func)(
      { payload: { entries: [], readiness } }, { status: () => undefined, error: () => undefined }, { get: (k) => context.get(k), set: (k, v) => context.set(k, v) }, { get: () => undefined },
    );
    /** @type {string[]} */
    const colours = sent[2].find((m) => m.ui_update).ui_update.chartOptions.color;
    assert.equal(new Set(colours).size, groups.length, `a colour per group: ${colours}`);
    const byColour = await page.evaluate(({ ids, colours }) => ids.map((id) => {
      const canvas = /** @type {HTMLCanvasElement | null} */ (document.querySelector(`#nrdb-ui-widget-${id} canvas`));
      const ctx = canvas && canvas.getContext('2d');
      if (!canvas || !ctx) return { id, pixels: colours.map(() => 0) };
      const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      return { id, pixels: colours.map((c) => {
        const rgb = [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
        let n = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 200 && rgb.every((v, j) => Math.abs(v - data[i + j]) < 24)) n++;
        return n;
      }) };
    }), { ids: ['rd-chart-notcopied', 'rd-chart-reread'], colours });
    for (const c of byColour) {
      c.pixels.forEach((n, i) => assert.ok(n >= 20, `${c.id}: ${groups[i].id} in ${colours[i]}, ${n} pixels (${JSON.stringify(byColour)})`));
    }
    const out = screenshotFile('readiness-dashboard.png');
    await page.screenshot({ path: out });
    assert.ok(fs.statSync(out).size > 10000, 'screenshot written');
  });
});

/**
 * Runs `fn` again `ms` after each run ends (a failed run too), until the returned function is called.
 * @param {number} ms
 * @param {() => Promise<unknown>} fn
 */
function repeat(ms, fn) {
  let stopped = false;
  let timer;
  const next = () => {
    if (!stopped) timer = setTimeout(() => fn().catch(() => undefined).then(next), ms);
  };
  next();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * Opens the edit dialog of node `id` (a config node: `config`) and waits until its template shows.
 * @param {import('playwright-core').Page} page
 * @param {string} type
 * @param {string} id
 * @param {boolean} config
 */
async function openDialog(page, type, id, config) {
  await page.evaluate(({ type, id, config }) => {
    if (config) RED.editor.editConfig('', type, id);
    else RED.editor.edit(RED.nodes.node(id));
  }, { type, id, config });
  await page.waitForSelector(config ? '.red-ui-tray-body [id^="node-config-input-"]' : '.red-ui-tray-body #node-input-name', { state: 'visible' });
  await trayInView(page);
}

/** Waits until the trays have slid in: the top one wholly inside the window (for the screenshots). @param {import('playwright-core').Page} page */
async function trayInView(page) {
  await page.waitForFunction(() => {
    const trays = document.querySelectorAll('.red-ui-tray');
    const top = trays[trays.length - 1];
    return !!top && top.getBoundingClientRect().right <= window.innerWidth + 1;
  });
}

/** Cancels the open dialog(s) and waits until no tray is left. @param {import('playwright-core').Page} page */
async function closeDialog(page) {
  await env.eventually(() => page.evaluate(() => {
    if (document.querySelectorAll('.red-ui-tray').length === 0) return true;
    const cancel = /** @type {HTMLElement | null} */ (document.querySelector('#node-config-dialog-cancel') || document.querySelector('#node-dialog-cancel'));
    if (cancel) cancel.click();
    return false;
  }), { timeout: 20000, interval: 300, what: 'the dialog to close' });
}

/**
 * The visible selects of the open dialog: their width, their row's, and whether their longest option fits.
 * @param {import('playwright-core').Page} page
 */
function selectsShown(page) {
  return page.evaluate(() => {
    const ctx = /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
    const out = [];
    for (const sel of Array.from(/** @type {NodeListOf<HTMLSelectElement>} */ (document.querySelectorAll('.red-ui-tray-body select')))) {
      if (!sel.offsetParent) continue;
      const row = /** @type {HTMLElement} */ (sel.closest('.form-row'));
      const rs = getComputedStyle(row);
      const ss = getComputedStyle(sel);
      ctx.font = `${ss.fontStyle} ${ss.fontWeight} ${ss.fontSize} ${ss.fontFamily}`;
      const texts = Array.from(sel.options).map((o) => o.text);
      const widths = texts.map((t) => ctx.measureText(t).width);
      const i = widths.indexOf(Math.max(...widths));
      out.push({
        id: sel.id,
        // a config-node picker (Node-RED's select with its edit button beside it) keeps the editor's own width
        picker: !!(sel.nextElementSibling && sel.nextElementSibling.matches('a.red-ui-button')),
        width: sel.getBoundingClientRect().width,
        rowWidth: row.clientWidth - parseFloat(rs.paddingLeft) - parseFloat(rs.paddingRight),
        longest: texts[i],
        widest: widths[i],
        // the text box: the select less its padding, border and drop-down arrow (about 20 px)
        room: sel.clientWidth - parseFloat(ss.paddingLeft) - parseFloat(ss.paddingRight) - 20,
      });
    }
    return out;
  });
}
