'use strict';
/** mm2-group-offsets' followRewinds setting (issue 26): default on, false turns it off, anything else is refused naming the field. */
const assert = require('node:assert/strict');
const { readGroupOffsetsSettings } = require('../../dist/nodes/mm2-group-offsets/mm2-group-offsets-settings');
const { makeTranslate } = require('../../dist/nodes/shared/i18n');
const fs = require('node:fs');
const path = require('node:path');
const { catalogPath } = require('../harness/layout');

const none = () => undefined;
const en = JSON.parse(fs.readFileSync(catalogPath('en-US', 'mm2-group-offsets.json'), 'utf8'))['mm2-group-offsets'];
const t = makeTranslate(
  /** @type {any} */ ({
    _: (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => {
      const text = k.replace(/^mm2-group-offsets\./, '').split('.').reduce((o, p) => (o ? o[p] : undefined), en);
      return typeof text === 'string' ? text.replace(/__(\w+)__/g, (_, n) => v[n]) : k;
    },
  }),
  'mm2-group-offsets',
);

describe('mm2-group-offsets settings: followRewinds', function () {
  it('is on when absent or empty (existing flows) and when true', function () {
    for (const followRewinds of [undefined, '', true, 'true']) {
      const r = readGroupOffsetsSettings({ followRewinds }, none, t);
      assert.equal(r.values?.followRewinds, true, String(followRewinds));
    }
  });

  it("false turns it off (MM2's behaviour)", function () {
    for (const followRewinds of [false, 'false']) assert.equal(readGroupOffsetsSettings({ followRewinds }, none, t).values?.followRewinds, false);
  });

  it('anything else is refused with an error naming the field', function () {
    const r = readGroupOffsetsSettings({ followRewinds: 'yes' }, none, t);
    assert.equal(r.values, null);
    assert.match(String(r.problems[0]), /followRewinds: 'yes' is neither true nor false/);
  });
});
