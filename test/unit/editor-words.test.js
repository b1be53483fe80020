'use strict';
/**
 * Every word a user reads comes from the catalogs, in both languages (issue 11, item 4):
 *
 * - no visible text, title or aria-label hard-coded in the editor templates (nodes/*.html);
 * - paletteLabel, label, inputLabels and outputLabels go through the catalog;
 * - every catalog key (editor and runtime, common.json included) exists in en-US and zh-CN, and
 *   every node set has help in both;
 * - every key the editor asks for exists;
 * - plurals: en-US says "1 group", "2 groups", zh-CN says neither (i18next, as Node-RED runs it).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const root = path.join(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
const { catalogFiles, catalogPath, editorPath } = require('../harness/layout');
const sets = Object.keys(pkg['node-red'].nodes);
const LANGS = ['en-US', 'zh-CN'];

/**
 * Names, not words: shown as they are in every language (SASL mechanisms, MM2's connector classes).
 * Anything else with letters in a template must come from the catalog.
 */
const NAMES = new Set(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER', 'MirrorSourceConnector', 'MirrorCheckpointConnector', 'MirrorHeartbeatConnector']);

/** i18next's plural suffixes: `x_one` and `x_other` are the key `x` (a language has the forms it needs). */
const PLURAL = /_(zero|one|two|few|many|other)$/;

function keys(obj, prefix = '') {
  return Object.entries(obj).flatMap(([k, v]) => (v && typeof v === 'object' ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
}
const catalogKeys = (obj) => [...new Set(keys(obj).map((k) => k.replace(PLURAL, '')))].sort();
const readJson = (lang, file) => JSON.parse(fs.readFileSync(catalogPath(lang, file), 'utf8'));

function editorFile(set) {
  const html = fs.readFileSync(editorPath(set, true), 'utf8');
  const scripts = [...html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  const templates = [...html.matchAll(/<script type="text\/html" data-template-name="[^"]+">([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  return { html, scripts, templates };
}

/** The definition the editor file registers, run in a sandbox whose RED knows two clusters and a replication flow. */
function definition(set) {
  const { scripts } = editorFile(set);
  const fakes = {
    src: { id: 'src', type: 'mm2-cluster', alias: 'ALIAS1', bootstrap: 'HOST1:1' },
    tgt: { id: 'tgt', type: 'mm2-cluster', alias: 'ALIAS2', bootstrap: 'HOST2:2' },
  };
  const registered = [];
  const RED = {
    nodes: { registerType: (type, def) => registered.push({ type, def }), node: (id) => fakes[id] || null },
    validators: { number: () => () => true, regex: () => () => true, typedInput: () => () => true },
    _: (k) => k,
    settings: {},
  };
  const context = vm.createContext({ RED, $: () => ({ on() {}, val() {} }), console }); // one page: the scripts of a file share it
  for (const code of scripts) vm.runInContext(code, context);
  fakes.rep = { id: 'rep', source: 'src', target: 'tgt', name: 'FLOWNAME', _def: { label: () => 'FLOWNAME' } };
  return { def: registered[0].def, fakes };
}

/** What a label function shows, with every catalog text as «key» and the node's own values taken out. */
function shown(fn, def, fakes, arg) {
  const self = { _: (k) => `«${k}»`, name: '', replication: 'rep', source: 'src', target: 'tgt', _def: def };
  for (const [k, d] of Object.entries(def.defaults || {})) if (!(k in self)) self[k] = d.value;
  let text = String(fn.call(self, arg));
  const own = [...Object.values(self), ...Object.values(fakes).flatMap((n) => Object.values(n))]
    .filter((v) => typeof v === 'string' && v.length > 1)
    .sort((a, b) => b.length - a.length);
  text = text.replace(/«[\w.-]+»/g, '');
  for (const v of own) text = text.split(v).join('');
  return text;
}

/** The words of a template a user reads that do not come from the catalog. */
function hardCoded(template) {
  const found = [];
  // attributes a user reads: a title or aria-label is catalog text (data-i18n="[title]..."), always
  for (const m of template.matchAll(/\s(title|aria-label)="([^"]*)"/g)) found.push(`${m[1]}="${m[2]}"`);
  // a placeholder may show a value (a default, a pattern, a path), not a sentence
  for (const m of template.matchAll(/\splaceholder="([^"]*)"/g)) if (/[A-Za-z]{2,}\s+[A-Za-z]{2,}/.test(m[1])) found.push(`placeholder="${m[1]}"`);
  // text between tags: <code> and <pre> hold names and generated text, not words
  const text = template.replace(/<code[^>]*>[\s\S]*?<\/code>/g, ' ').replace(/<pre[^>]*>[\s\S]*?<\/pre>/g, ' ').replace(/<[^>]+>/g, '\n');
  for (const raw of text.split('\n')) {
    const s = raw.trim();
    if (/[A-Za-z\u4e00-\u9fff]/.test(s) && !NAMES.has(s)) found.push(s);
  }
  return found;
}

describe('every word in both languages (catalogs, not hard-coded)', function () {
  it('every catalog file has the same keys in en-US and zh-CN (plural forms are one key)', function () {
    const files = catalogFiles('en-US');
    assert.deepEqual(catalogFiles('zh-CN'), files);
    assert.ok(files.includes('common.json'));
    for (const f of files) {
      const en = catalogKeys(readJson('en-US', f));
      const zh = catalogKeys(readJson('zh-CN', f));
      assert.deepEqual(en.filter((k) => !zh.includes(k)), [], `${f}: keys only in en-US`);
      assert.deepEqual(zh.filter((k) => !en.includes(k)), [], `${f}: keys only in zh-CN`);
    }
  });

  it('no zh-CN text is left in English where en-US has words', function () {
    for (const f of catalogFiles('zh-CN')) {
      const zh = readJson('zh-CN', f);
      const flat = (o, p = '') => Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? flat(v, `${p}${k}.`) : [[`${p}${k}`, v]]));
      for (const [k, v] of flat(zh)) {
        if (/\.(paletteLabel|canvasLabel|inputLabel|outputLabel)$/.test(k) && k !== 'mm2-connect.paletteLabel') {
          assert.match(String(v), /[\u4e00-\u9fff]/, `${f} ${k} = "${v}" is not Chinese`);
        }
      }
    }
  });

  for (const set of sets) {
    describe(set, function () {
      it('has help in en-US and zh-CN', function () {
        for (const lang of LANGS) {
          const help = fs.readFileSync(catalogPath(lang, `${set}.html`), 'utf8');
          assert.ok(help.includes(`data-help-name="${set}"`), `${lang} help for ${set}`);
        }
      });

      it('shows no hard-coded text in its edit dialog', function () {
        const { templates } = editorFile(set);
        assert.ok(templates.length === 1);
        assert.deepEqual(hardCoded(templates[0]), [], `${set}.html: text not from the catalog`);
      });

      it('shows MM2 property names one way only: a monospace line under the field', function () {
        const [template] = editorFile(set).templates;
        const codes = template.match(/<code[\s>]/g) || [];
        const lines = template.match(/<div class="form-row mm2-property[\w -]*" style="margin-top:-8px"><label><\/label><code>[^<]+<\/code><\/div>/g) || [];
        assert.equal(codes.length, lines.length, 'every <code> is a property line under its field');
      });

      it('gives every select the whole width of its row, its label above it', function () {
        const [template] = editorFile(set).templates;
        for (const m of template.matchAll(/<select id="([\w-]+)"([^>]*)>/g)) {
          assert.match(m[2], /style="width:100%"/, `select ${m[1]} is full-width`);
          assert.match(template, new RegExp(`<label for="${m[1]}" style="width:100%">`), `the label of ${m[1]} is on its own line`);
        }
      });

      it('takes its palette, canvas, input and output labels from the catalog', function () {
        const { def, fakes } = definition(set);
        if (def.category !== 'config') {
          assert.equal(typeof def.paletteLabel, 'function', 'paletteLabel is a function of the catalog');
          assert.match(def.paletteLabel.call({ _: (k) => `«${k}»` }), /^«[\w.-]+»$/);
        }
        assert.equal(typeof def.label, 'function');
        assert.doesNotMatch(shown(def.label, def, fakes), /[A-Za-z]{2,}/, 'canvas label');
        for (const which of ['inputLabels', 'outputLabels']) {
          if (def[which] === undefined) continue;
          assert.equal(typeof def[which], 'function', `${which} is a function of the catalog`);
          for (let i = 0; i < Math.max(1, def.outputs || 0); i++) assert.doesNotMatch(shown(def[which], def, fakes, i), /[A-Za-z]{2,}/, `${which}(${i})`);
        }
      });

      it('asks only for keys its catalogs have', function () {
        const { html } = editorFile(set);
        const en = new Set(keys({ ...readJson('en-US', 'common.json'), ...readJson('en-US', `${set}.json`) }).map((k) => k.replace(PLURAL, '')));
        const used = [
          ...[...html.matchAll(/data-i18n="([^"]+)"/g)].flatMap((m) => m[1].split(';').map((k) => k.replace(/^\[[\w-]+\]/, ''))),
          ...[...html.matchAll(/\b(?:this|node|RED)\._\('([\w.-]+)'/g)].map((m) => m[1]),
        ].filter((k) => !k.startsWith('node-red:'));
        assert.ok(used.length > 0);
        // a key built in code ('x.outputs.' + which) needs some key under that prefix
        for (const k of used) assert.ok(k.endsWith('.') ? [...en].some((e) => e.startsWith(k)) : en.has(k), `${set}.html uses missing key ${k}`);
      });
    });
  }

  /**
   * The texts of node set `set` as Node-RED's i18next serves them (common.json merged, en-US the fallback).
   * @param {string} set
   * @returns {Promise<(lng: string) => (key: string, subs?: Record<string, unknown>) => string>}
   */
  async function served(set) {
    const i18next = require('i18next');
    /** @type {any} */
    const resources = {};
    for (const lang of LANGS) resources[lang] = { [set]: { ...readJson(lang, 'common.json'), ...readJson(lang, `${set}.json`) } };
    const i18n = i18next.createInstance();
    await i18n.init({ resources, ns: [set], defaultNS: set, fallbackLng: ['en-US'], interpolation: { prefix: '__', suffix: '__', escapeValue: false } });
    return (lng) => (key, subs) => String(i18n.t(key, { lng, ...subs }));
  }

  it('plurals: "1 group" and "2 groups" in en-US, no English in zh-CN (i18next as Node-RED runs it)', async function () {
    const { counted } = require('../../dist/nodes/shared/i18n');
    const cp = await served('mm2-checkpoint');
    assert.equal(counted(cp('en-US'), 'groups', 1), '1 group');
    assert.equal(counted(cp('en-US'), 'groups', 2), '2 groups');
    assert.equal(counted(cp('en-US'), 'partitions', 1), '1 partition');
    assert.equal(counted(cp('zh-CN'), 'groups', 1), '1 个群组');
    assert.equal(counted(cp('zh-CN'), 'groups', 5), '5 个群组');
    assert.equal(cp('en-US')('mm2-checkpoint.status.ready', { groups: counted(cp('en-US'), 'groups', 1) }), '1 group, waiting for the first cycle');
    assert.equal(cp('zh-CN')('mm2-checkpoint.status.ready', { groups: counted(cp('zh-CN'), 'groups', 1) }), '1 个群组，等待第一个周期');
    const mirror = await served('mm2-mirror');
    assert.equal(mirror('en-US')('mm2-mirror.status.mirroring', { count: 1, rate: '0' }), 'mirroring 1 topic, 0 rec/s');
    assert.equal(mirror('en-US')('mm2-mirror.status.mirroring', { count: 3, rate: '0' }), 'mirroring 3 topics, 0 rec/s');
    assert.equal(mirror('zh-CN')('mm2-mirror.status.mirroring', { count: 1, rate: '0' }), '正在镜像 1 个主题，0 条/秒');
    const go = await served('mm2-group-offsets');
    assert.equal(go('en-US')('mm2-group-offsets.status.synced', { count: 1, window: '60 s' }), '1 group synced in 60 s');
    assert.equal(go('zh-CN')('mm2-group-offsets.status.synced', { count: 1, window: '60 秒' }), '60 秒内已同步 1 个群组');
  });

  it('plurals without a runtime catalog (the en-US fallback of makeTranslate)', function () {
    const { makeTranslate, counted } = require('../../dist/nodes/shared/i18n');
    const t = makeTranslate(/** @type {any} */ ({ _: (/** @type {string} */ key) => key }), 'mm2-group-offsets');
    assert.equal(counted(t, 'groups', 1), '1 group');
    assert.equal(counted(t, 'groups', 0), '0 groups');
    assert.equal(t('mm2-group-offsets.status.synced', { count: 1, window: '60 s' }), '1 group synced in 60 s');
    assert.equal(t('mm2-group-offsets.status.synced', { count: 4, window: '60 s' }), '4 groups synced in 60 s');
  });
});
