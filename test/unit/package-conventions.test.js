'use strict';
/**
 * Static checks of what Node-RED and the Flow Library read from the package: the editor HTML of
 * every node set (evaluated in a vm sandbox with a stub RED), catalogs and help in en-US and
 * zh-CN with the same keys, icons, example flows (well-formed, every flow node used: scorecard
 * N02), and the package.json fields the scorecard checks (P01-P07, D01).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const root = path.join(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
const { catalogPath, editorPath } = require('../harness/layout');
const sets = Object.keys(pkg['node-red'].nodes);
const CONFIG_TYPES = new Set(['mm2-cluster', 'mm2-replication']);

function editorDefinitions(set) {
  const html = fs.readFileSync(editorPath(set, true), 'utf8');
  const scripts = [...html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  const registered = [];
  const validators = { number: () => () => true, regex: () => () => true, typedInput: () => () => true };
  const RED = {
    nodes: { registerType: (type, def) => registered.push({ type, def }), node: () => null },
    validators,
    _: (k) => k,
    settings: {},
    httpAdmin: {},
  };
  const context = vm.createContext({ RED, $: () => ({ on() {}, val() {} }), console }); // one page: the scripts of a file share it
  for (const code of scripts) vm.runInContext(code, context);
  return { html, registered, scripts };
}

function keys(obj, prefix = '') {
  return Object.entries(obj).flatMap(([k, v]) => (v && typeof v === 'object' ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
}

describe('package conventions (Node-RED and Flow Library)', function () {
  it('package.json has what the scorecard checks', function () {
    assert.match(pkg.name, /^@[a-z\d][\w-.]+\/[a-z\d][\w-.]*$/); // P04 scoped
    assert.ok(pkg.license); // P01
    assert.ok(pkg.repository && pkg.bugs); // P03
    assert.ok(pkg.keywords.includes('node-red')); // P05
    assert.equal(pkg['node-red'].version, '>=4.0.0'); // P06: contains 4.1.x and 5.x
    assert.equal(pkg.engines.node, '>=18.5'); // P07: contains 22.9.0
    assert.ok(Object.keys(pkg.dependencies).length <= 6); // D01
    assert.equal(pkg.dependencies.kafkajs, '2.2.4', 'kafkajs pinned exactly (src/kafka/kafkajs-cluster.ts uses its internals)');
    for (const f of ['dist/', 'icons/', 'examples/']) assert.ok(pkg.files.includes(f), f);
  });

  for (const set of sets) {
    describe(set, function () {
      it('registers exactly its type with literal category, color, defaults, inputs, outputs, icon', function () {
        const { registered, html } = editorDefinitions(set);
        assert.equal(registered.length, 1);
        const { type, def } = registered[0];
        assert.equal(type, set);
        assert.match(html, new RegExp(`RED\\.nodes\\.registerType\\(\\s*'${set}'\\s*,\\s*\\{`), 'literal registerType for static tools');
        assert.ok(def.defaults && typeof def.defaults === 'object');
        assert.ok(html.includes(`data-template-name="${set}"`));
        if (CONFIG_TYPES.has(set)) {
          assert.equal(def.category, 'config');
        } else {
          assert.equal(def.category, 'mm2');
          assert.equal(def.color, '#8FB8DE');
          assert.equal(def.defaults.replication.type, 'mm2-replication');
          assert.equal(def.defaults.replication.required, true);
          assert.equal(typeof def.inputs, 'number');
          assert.equal(typeof def.outputs, 'number');
          assert.ok(def.icon, 'icon');
          assert.ok(fs.existsSync(path.join(root, 'icons', def.icon)), `icons/${def.icon} exists`);
        }
      });

      it('has en-US and zh-CN catalogs with the same keys, and help in both', function () {
        const en = JSON.parse(fs.readFileSync(catalogPath('en-US', `${set}.json`), 'utf8'));
        const zh = JSON.parse(fs.readFileSync(catalogPath('zh-CN', `${set}.json`), 'utf8'));
        const plain = (/** @type {string[]} */ ks) => [...new Set(ks.map((k) => k.replace(/_(zero|one|two|few|many|other)$/, '')))].sort(); // i18next plural forms are one key
        assert.deepEqual(plain(keys(zh)), plain(keys(en)));
        for (const lang of ['en-US', 'zh-CN']) {
          const help = fs.readFileSync(catalogPath(lang, `${set}.html`), 'utf8');
          assert.ok(help.includes(`data-help-name="${set}"`), `${lang} help for ${set}`);
        }
        if (!CONFIG_TYPES.has(set)) {
          const help = fs.readFileSync(catalogPath('en-US', `${set}.html`), 'utf8');
          for (const section of ['Details']) assert.ok(help.includes(`<h3>${section}</h3>`), `${set} help has ${section}`);
          assert.ok(/<h3>(Inputs|Outputs)<\/h3>/.test(help), `${set} help has Inputs or Outputs`);
        }
      });

      it('every i18n key the editor uses exists in the catalog', function () {
        const { html } = editorDefinitions(set);
        const en = JSON.parse(fs.readFileSync(catalogPath('en-US', `${set}.json`), 'utf8'));
        const common = JSON.parse(fs.readFileSync(catalogPath('en-US', 'common.json'), 'utf8'));
        const all = new Set([...keys(en), ...keys(common)]);
        const used = [...html.matchAll(/data-i18n="(?:\[[a-z]+\])?([\w.-]+)"/g)].map((m) => m[1]).filter((k) => !k.startsWith('node-red:'));
        for (const k of used) assert.ok(all.has(k), `${set}.html uses missing key ${k}`);
      });
    });
  }

  it('example flows are well formed and use every flow node (scorecard N02)', function () {
    const dir = path.join(root, 'examples');
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
    assert.ok(files.length >= 2, 'at least two examples');
    const used = new Set();
    for (const f of files) {
      const flow = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
      assert.ok(Array.isArray(flow), `${f} is an array`);
      const ids = new Set(flow.map((n) => n.id));
      assert.equal(ids.size, flow.length, `${f}: ids unique`);
      const tabs = new Set(flow.filter((n) => n.type === 'tab').map((n) => n.id));
      for (const n of flow) {
        used.add(n.type);
        for (const out of n.wires || []) for (const w of out) assert.ok(ids.has(w), `${f}: ${n.id} wires to missing ${w}`);
        if (n.z) assert.ok(tabs.has(n.z), `${f}: ${n.id} on missing tab ${n.z}`);
        if (n.replication) assert.ok(ids.has(n.replication), `${f}: ${n.id} references missing replication node`);
        if (n.type === 'mm2-cluster') assert.equal(n.credentials, undefined, `${f}: no credentials in examples`);
      }
    }
    for (const set of sets.filter((s) => !CONFIG_TYPES.has(s))) assert.ok(used.has(set), `some example uses ${set}`);
  });

  it('example flows set only fields the nodes define, and every field the editor would set', function () {
    const defs = Object.fromEntries(sets.map((set) => [set, editorDefinitions(set).registered[0].def]));
    const dir = path.join(root, 'examples');
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.json'))) {
      for (const n of JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))) {
        const def = defs[n.type];
        if (!def) continue;
        const structural = new Set(['id', 'type', 'z', 'x', 'y', 'wires', 'g', 'd', 'credentials', 'info']); // d: Node-RED's disabled flag
        for (const k of Object.keys(n)) if (!structural.has(k)) assert.ok(k in def.defaults, `${f}: ${n.type} ${n.id} sets unknown field ${k}`);
        for (const k of Object.keys(def.defaults)) assert.ok(k in n, `${f}: ${n.type} ${n.id} lacks field ${k}`);
      }
    }
  });
});
