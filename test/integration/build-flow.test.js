'use strict';
/**
 * "Build flow from configs": the mm2.properties this package exports for a replication flow
 * (aliases and addresses of the test clusters) goes through POST /mm2/flow/build of a real
 * Node-RED process; the flow it answers is deployed there as it is (plus a tab), and it works:
 * the mirror replicates, the offset-syncs reader and the checkpoint node translate, and the
 * group-offsets node writes the group's offsets on the target. Then the editor side (Debian's
 * Chromium driven by playwright-core): the checkpoint dialog's Paste MM2 config leaves the fields
 * a text does not set alone and asks which of several flows; the mm2-replication dialog's button
 * imports the same flow into a new tab.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { AdminOffsetCommitter, fetchCommittedOffsets } = require('../../dist/kafka/group-client');
const { exportConnectors } = require('../../dist/flows/export-connectors');
const { exportText } = require('../../dist/core/export/connectors');

const { skipWithoutChromium, openEditor } = require('../harness/editor');
const PARTITIONS = 2;

describe('Build flow from configs (real Node-RED, real brokers)', function () {
  this.timeout(180000);
  const S = env.unique('bs');
  const T = env.unique('bt');
  const TOPIC = env.unique('bf-orders');
  const GROUP = env.unique('bf-group');
  let nr;
  let text;

  before(async function () {
    const admin = await env.admin('source');
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }], waitForLeaders: true });
    const producer = env.kafka('source').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    for (let p = 0; p < PARTITIONS; p++) {
      await producer.send({ topic: TOPIC, messages: Array.from({ length: 20 }, (_, i) => ({ partition: p, value: `p${p}-${i}` })) });
    }
    await producer.disconnect();
    const committer = new AdminOffsetCommitter(env.kafka('source'));
    const c = await committer.commit(GROUP, Array.from({ length: PARTITIONS }, (_, p) => ({ topic: TOPIC, partition: p, offset: 10n })));
    assert.equal(c.ok, true);

    // what a user of dedicated mode has: the mm2.properties of the flow
    const exported = exportConnectors({
      replication: { policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', replicationFactor: '1' },
      source: { alias: S, bootstrap: env.cluster('source').bootstrap },
      target: { alias: T, bootstrap: env.cluster('target').bootstrap },
      nodes: [
        { type: 'mm2-mirror', topics: TOPIC, replicationFactor: '1', refreshTopicsIntervalSeconds: '2' },
        { type: 'mm2-checkpoint', groups: GROUP, topics: TOPIC, emitCheckpointsIntervalSeconds: '1', refreshGroupsIntervalSeconds: '2' },
        { type: 'mm2-group-offsets', syncGroupOffsetsIntervalSeconds: '1' },
        { type: 'mm2-heartbeat', emitHeartbeatsIntervalSeconds: '1' },
      ],
    });
    text = exportText(exported, 'mm2');
    nr = await startNodeRed({ quiet: true, logLevel: 'warn', flows: [{ id: 'tab-empty', type: 'tab', label: 'empty', disabled: false, info: '' }] });
  });

  after(async function () {
    if (nr) await nr.stop();
  });

  it('the endpoint answers an importable flow, refuses what it cannot build, and asks which of several flows', async function () {
    assert.equal((await nr.request('POST', '/mm2/flow/build', {})).status, 400);
    const r = await nr.request('POST', '/mm2/flow/build', { text });
    assert.equal(r.status, 200);
    assert.equal(r.json.format, 'mm2.properties');
    assert.equal(r.json.flow, `${S}->${T}`);
    assert.deepEqual(r.json.problems, []);
    assert.deepEqual(r.json.nodes.filter((n) => n.type.startsWith('mm2-')).map((n) => n.type), [
      'mm2-cluster', 'mm2-cluster', 'mm2-replication', 'mm2-mirror', 'mm2-offset-syncs', 'mm2-checkpoint', 'mm2-group-offsets', 'mm2-heartbeat',
    ]);
    const cp = r.json.nodes.find((n) => n.type === 'mm2-checkpoint');
    assert.equal(cp.groups, GROUP);
    assert.equal(cp.emitCheckpointsIntervalSeconds, '1');

    const both = text.replace(`${T}->${S}.enabled=false`, `${T}->${S}.enabled=true`);
    const ask = await nr.request('POST', '/mm2/flow/build', { text: both });
    assert.equal(ask.json.choose, true);
    assert.deepEqual(ask.json.flows.map((f) => f.id), [`${S}->${T}`, `${T}->${S}`]);
    assert.deepEqual(ask.json.nodes, []);

    const placeholder = await nr.request('POST', '/mm2/flow/build', { text: text.replace(`.groups=${GROUP}`, '.groups=CONSUMER_GROUP_LIST') });
    assert.deepEqual(placeholder.json.nodes, []);
    assert.deepEqual(placeholder.json.problems.map((p) => p.property), ['groups']);
  });

  it('deployed as answered, the flow runs: the group gets its offsets on the target', async function () {
    const r = await nr.request('POST', '/mm2/flow/build', { text });
    const tab = { id: 'tab-built', type: 'tab', label: 'built from mm2.properties', disabled: false, info: '' };
    const flow = [tab, ...r.json.nodes.map((n) => (n.x !== undefined ? { ...n, z: tab.id } : n))];
    await nr.deploy(flow);
    const target = await env.admin('target');
    await env.eventually(async () => {
      const offsets = (await fetchCommittedOffsets(target, GROUP).catch(() => [])).filter((o) => o.topic === `${S}.${TOPIC}` && o.offset !== null);
      return offsets.length === PARTITIONS;
    }, { timeout: 120000, interval: 500, what: `${GROUP}'s offsets on ${S}.${TOPIC} on the target` });
    // the built flow is valid: no node refused its settings (a transient broker failure on a
    // loaded machine may be logged once before the flow delivers; it is shown, not failed on)
    const errors = nr.log.split('\n').filter((l) => l.includes('[error]'));
    if (errors.length > 0) console.log(`      logged before delivery:\n${errors.map((l) => `        ${l}`).join('\n')}`);
    assert.deepEqual(errors.filter((l) => /invalid|misconfigured|refused its settings|not a valid/.test(l)), [], 'no node refused its settings');
  });

  describe('in the editor (playwright-core + Debian Chromium)', function () {
    let browser;
    let page;

    before(async function () {
      skipWithoutChromium(this);
      ({ browser, page } = await openEditor(nr.url, { width: 1600, height: 1000 }));
    });

    after(async function () {
      if (browser) await browser.close();
    });

    it('Paste MM2 config sets only the fields the text sets, and asks which flow of several', async function () {
      const id = await page.evaluate(() => RED.nodes.filterNodes({ type: 'mm2-checkpoint' })[0].id);
      await page.evaluate((nodeId) => RED.editor.edit(RED.nodes.node(nodeId)), id);
      await page.waitForSelector('#node-input-emitCheckpointsIntervalSeconds', { state: 'visible' });
      await page.fill('#node-input-emitCheckpointsIntervalSeconds', '10');
      await page.fill('#node-input-refreshGroupsIntervalSeconds', '60');
      // a Strimzi resource whose checkpoint connector sets neither interval
      const strimzi = [
        'apiVersion: kafka.strimzi.io/v1beta2', 'kind: KafkaMirrorMaker2', 'metadata: {name: mm2}', 'spec:', '  connectCluster: b', '  clusters:',
        '  - {alias: a, bootstrapServers: "a:9092"}', '  - {alias: b, bootstrapServers: "b:9092"}', '  mirrors:', '  - sourceCluster: a', '    targetCluster: b',
        '    checkpointConnector: {config: {sync.group.offsets.enabled: "true"}}', '    groupsPattern: "team-a-.*"',
      ].join('\n');
      await page.fill('#mm2-checkpoint-paste-text', strimzi);
      await page.click('#mm2-checkpoint-paste-apply');
      await page.waitForFunction(() => /Set 1 field/.test(document.getElementById('mm2-checkpoint-paste-result').textContent));
      assert.equal(await page.inputValue('#node-input-groups'), 'team-a-.*');
      assert.equal(await page.inputValue('#node-input-emitCheckpointsIntervalSeconds'), '10', 'not MM2\'s 60');
      assert.equal(await page.inputValue('#node-input-refreshGroupsIntervalSeconds'), '60', 'not MM2\'s 600');
      // two enabled flows: a choice, nothing filled until one is chosen
      await page.fill('#mm2-checkpoint-paste-text', 'clusters = a, b\na->b.enabled = true\nb->a.enabled = true\na->b.groups = east-.*\nb->a.groups = west-.*\n');
      await page.click('#mm2-checkpoint-paste-apply');
      await page.waitForSelector('#mm2-checkpoint-paste-flow', { state: 'visible' });
      assert.equal(await page.inputValue('#node-input-groups'), 'team-a-.*');
      await page.selectOption('#mm2-checkpoint-paste-flow', 'b->a');
      await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('node-input-groups')).value === 'west-.*');
      await page.click('#node-dialog-cancel');
    });

    it('the mm2-replication dialog builds the flow and imports it into a new tab', async function () {
      const before = await page.evaluate(() => ({ checkpoints: RED.nodes.filterNodes({ type: 'mm2-checkpoint' }).length, tabs: RED.nodes.getWorkspaceOrder().length }));
      const repId = await page.evaluate(() => { let id; RED.nodes.eachConfig((n) => { if (n.type === 'mm2-replication') id = n.id; }); return id; });
      await page.evaluate((rid) => RED.editor.editConfig('', 'mm2-replication', rid), repId);
      await page.waitForSelector('#mm2-replication-build-button', { state: 'visible' });
      await page.click('#mm2-replication-build-button');
      await page.fill('#mm2-replication-build-text', text);
      await page.click('#mm2-replication-build-apply');
      await page.waitForFunction((n) => RED.nodes.filterNodes({ type: 'mm2-checkpoint' }).length === n + 1, before.checkpoints, { timeout: 30000 });
      const after = await page.evaluate(() => ({ tabs: RED.nodes.getWorkspaceOrder().length, text: document.getElementById('mm2-replication-build-result').textContent }));
      assert.equal(after.tabs, before.tabs + 1, 'a new tab');
      assert.match(after.text, /^Imported \d+ node\(s\) for /);
      const imported = await page.evaluate(() => {
        const z = RED.workspaces.active();
        return RED.nodes.filterNodes({ z }).map((n) => n.type).filter((t) => t.startsWith('mm2-')).sort();
      });
      assert.deepEqual(imported, ['mm2-checkpoint', 'mm2-group-offsets', 'mm2-heartbeat', 'mm2-mirror', 'mm2-offset-syncs']);
    });
  });
});
