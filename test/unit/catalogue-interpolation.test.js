'use strict';
/**
 * Every message of both catalogues (en-US, zh-CN) read through i18next configured as Node-RED
 * configures it (@node-red/util/lib/i18n.js: prefix and suffix `__`, escapeValue false), with
 * each placeholder it declares filled: no placeholder is left, each value appears, and the rest
 * of the text is as written (issue 26: `__consumer_offsets ... __reason__` read as one placeholder).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const i18next = require('i18next');
const { catalogFiles, catalogPath } = require('../harness/layout');

const LANGS = ['en-US', 'zh-CN'];
/** A placeholder as the catalogues declare them: `__name__`. */
const DECLARED = /__([A-Za-z][A-Za-z0-9]*)__/g;

/** @returns {Array<[string, string]>} every string leaf of a catalogue: [dotted key, text] */
function leaves(obj, prefix = '') {
  return Object.entries(obj).flatMap(([k, v]) => (typeof v === 'string' ? [[prefix + k, v]] : leaves(v, `${prefix}${k}.`)));
}

/** The value a placeholder is filled with: unique, and for `count` a number (i18next's plurals need one). */
function marker(name) {
  return name === 'count' ? 987654321 : `‹${name}›`;
}

describe('catalogue messages through Node-RED\'s i18next', function () {
  const sets = catalogFiles('en-US').map((f) => f.slice(0, -'.json'.length));
  /** @type {import('i18next').i18n} */
  let t;
  before(async function () {
    /** @type {Record<string, Record<string, unknown>>} */
    const resources = {};
    for (const lang of LANGS) {
      resources[lang] = {};
      for (const set of sets) resources[lang][set] = JSON.parse(fs.readFileSync(catalogPath(lang, `${set}.json`), 'utf8'));
    }
    t = i18next.createInstance();
    await t.init({
      resources, lng: 'en-US', fallbackLng: 'en-US', defaultNS: 'runtime', ns: sets, keySeparator: '.', nsSeparator: ':',
      interpolation: { unescapeSuffix: 'HTML', escapeValue: false, prefix: '__', suffix: '__' }, showSupportNotice: false,
    });
  });

  for (const lang of LANGS) {
    it(`${lang}: every message with its placeholders filled says what it is written to say`, function () {
      let checked = 0;
      const wrong = [];
      for (const set of sets) {
        const catalogue = JSON.parse(fs.readFileSync(catalogPath(lang, `${set}.json`), 'utf8'));
        const all = leaves(catalogue);
        const keys = new Set(all.map(([k]) => k));
        for (const [key, text] of all) {
          // a plural's base key is read through its _one/_other forms, which are checked themselves
          if (keys.has(`${key}_other`)) continue;
          const subs = {};
          for (const m of text.matchAll(DECLARED)) subs[m[1]] = marker(m[1]);
          const got = t.t(key, { ...subs, ns: set, lng: lang });
          const expected = text.replace(DECLARED, (_m, name) => String(marker(name)));
          checked++;
          if (got !== expected) wrong.push(`${set}:${key}\n    written:  ${text}\n    shown:    ${got}`);
          else {
            for (const v of Object.values(subs)) assert.ok(got.includes(String(v)), `${set}:${key}: ${v} not shown`);
            assert.doesNotMatch(got, DECLARED, `${set}:${key}: a placeholder is left: ${got}`);
          }
        }
      }
      assert.ok(checked > 300, `only ${checked} messages read`);
      assert.deepEqual(wrong, [], `messages not shown as written:\n${wrong.join('\n')}`);
    });
  }
});
