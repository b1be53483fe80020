'use strict';
/**
 * The editor refuses what the runtime refuses (issue 11, item 7): the table of numeric fields the
 * build lays into every dialog (core/field-bounds) against each node's own settings reader, at
 * and beyond every bound, and the validators of the built editor files themselves.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { FIELD_BOUNDS, numberFieldProblem } = require('../../dist/core/field-bounds');
const { makeTranslate } = require('../../dist/nodes/shared/i18n');
const { resolveReplicationSettings } = require('../../dist/nodes/shared/settings');
const { readClusterTimeouts } = require('../../dist/nodes/mm2-cluster/mm2-cluster-settings');
const { readMirrorSettings } = require('../../dist/nodes/mm2-mirror/mm2-mirror-settings');
const { readCheckpointSettings } = require('../../dist/nodes/mm2-checkpoint/mm2-checkpoint-settings');
const { readGroupOffsetsSettings } = require('../../dist/nodes/mm2-group-offsets/mm2-group-offsets-settings');
const { readFailbackSettings } = require('../../dist/nodes/mm2-failback/mm2-failback-settings');
const { readHeartbeatSettings } = require('../../dist/nodes/mm2-heartbeat/mm2-heartbeat-settings');
const { readConnectSettings } = require('../../dist/nodes/mm2-connect/mm2-connect-settings');
const { editorPath } = require('../harness/layout');

const root = path.join(__dirname, '..', '..');
const none = () => undefined;
/** @param {string} set */
const tr = (set) => makeTranslate(/** @type {any} */ ({ _: (/** @type {string} */ k) => k }), set);

/**
 * The problems the runtime reader of `type` has with `field` set to `value` (the other fields empty).
 * @type {Record<string, (field: string, value: string) => unknown[]>}
 */
const RUNTIME = {
  'mm2-cluster': (field, value) => readClusterTimeouts({ connectionTimeoutMs: '', requestTimeoutMs: '', [field]: value }, tr('mm2-cluster')).problems,
  'mm2-replication': (field, value) => resolveReplicationSettings({ [field]: value }, none).problems,
  'mm2-mirror': (field, value) => readMirrorSettings({ [field]: value }, none, tr('mm2-mirror')).problems,
  'mm2-checkpoint': (field, value) => readCheckpointSettings({ [field]: value }, none).problems,
  'mm2-group-offsets': (field, value) => readGroupOffsetsSettings({ [field]: value }, none, tr('mm2-group-offsets')).problems,
  'mm2-failback': (field, value) => readFailbackSettings({ [field]: value }, none).problems,
  'mm2-heartbeat': (field, value) => readHeartbeatSettings({ [field]: value }, none, tr('mm2-heartbeat')).problems,
  'mm2-connect': (field, value) => readConnectSettings({ url: 'http://127.0.0.1:8083', [field]: value }, none, () => '', tr('mm2-connect')).problems,
};

/** Values at and around the bounds of `b`, as typed. */
function probes(b) {
  const step = b.integer ? 1 : 0.001;
  const out = [b.min, b.max, b.min - step, b.max + step, ...(b.also || [])].map((n) => String(Number(n.toFixed(3))));
  if (b.integer) out.push(String(b.min + 0.5));
  out.push('abc', '12x', '1e3');
  return [...new Set(out)];
}

describe('numeric fields: the editor refuses what the runtime refuses', function () {
  it('the table covers every node type of the package', function () {
    const pkg = require(path.join(root, 'package.json'));
    assert.deepEqual(Object.keys(FIELD_BOUNDS).sort(), Object.keys(pkg['node-red'].nodes).filter((t) => t !== 'mm2-offset-syncs').sort());
  });

  for (const [type, fields] of Object.entries(FIELD_BOUNDS)) {
    for (const [field, b] of Object.entries(fields)) {
      it(`${type} ${field}: the runtime accepts exactly what the table accepts (${b.min}..${b.max}${b.integer ? ', whole' : ''}${b.also ? `, or ${b.also}` : ''})`, function () {
        for (const v of probes(b)) {
          const editor = numberFieldProblem(b, v) === undefined;
          const problems = RUNTIME[type](field, v);
          assert.equal(problems.length === 0, editor, `${type} ${field} = '${v}': editor ${editor ? 'accepts' : 'refuses'}, runtime ${JSON.stringify(problems)}`);
        }
      });
    }
  }

  it('every field whose dialog shows a number is in the table', function () {
    const pkg = require(path.join(root, 'package.json'));
    let numbers = 0;
    for (const type of Object.keys(pkg['node-red'].nodes)) {
      const html = fs.readFileSync(editorPath(type), 'utf8');
      for (const m of html.matchAll(/id="node-(?:config-)?input-(\w+)" placeholder="-?[0-9.]+"/g)) {
        numbers++;
        assert.ok(FIELD_BOUNDS[type] && FIELD_BOUNDS[type][m[1]], `${type} ${m[1]} (a number) has bounds in core/field-bounds`);
      }
    }
    assert.ok(numbers >= 12, `found ${numbers} numeric fields`);
  });

  it('empty takes the default, ${VAR} is left to the runtime, a required field must not be empty', function () {
    assert.equal(numberFieldProblem(FIELD_BOUNDS['mm2-mirror'].offsetLagMax, ''), undefined);
    assert.equal(numberFieldProblem(FIELD_BOUNDS['mm2-mirror'].offsetLagMax, '${LAG}'), undefined);
    assert.equal(numberFieldProblem(FIELD_BOUNDS['mm2-replication'].replicationFactor, ''), 'required');
    assert.equal(numberFieldProblem(FIELD_BOUNDS['mm2-heartbeat'].staleAfterSeconds, '0.5'), 'range');
    assert.equal(numberFieldProblem(FIELD_BOUNDS['mm2-connect'].tasksMax, '1.5'), 'integer');
  });

  it('every numeric field of every built dialog validates through the table, with a message naming the field and the range', function () {
    for (const type of Object.keys(FIELD_BOUNDS)) {
      const html = fs.readFileSync(editorPath(type, true), 'utf8');
      const registered = [];
      const RED = { nodes: { registerType: (/** @type {string} */ t, /** @type {any} */ def) => registered.push(def), node: () => null }, validators: {}, _: (/** @type {string} */ k) => k, settings: {} };
      const context = vm.createContext({ RED, $: () => ({ on() {}, val() {} }), console });
      for (const m of html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)) vm.runInContext(m[1], context);
      const def = registered[0];
      for (const [field, b] of Object.entries(FIELD_BOUNDS[type])) {
        const validate = def.defaults[field] && def.defaults[field].validate;
        assert.equal(typeof validate, 'function', `${type} ${field} has a validator`);
        const node = { _: (/** @type {string} */ k, /** @type {any} */ s) => `${k} ${JSON.stringify(s)}` };
        for (const v of probes(b)) assert.equal(validate.call(node, v) === true, numberFieldProblem(b, v) === undefined, `${type} ${field} = ${v}`);
        const msg = validate.call(node, String(b.max * 2 + 3), {});
        assert.match(msg, new RegExp(`^mm2-common\\.validate\\.(whole|number) .*"field":"${field}".*"min":${b.min},"max":${b.max}`), msg);
      }
    }
  });
});
