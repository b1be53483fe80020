'use strict';
/**
 * `${VAR}` substitution inside text (core/env-substitution), the one implementation every node and
 * config node uses, and the Node-RED lookup (nodeEnvLookup in nodes/shared/settings).
 */
const assert = require('node:assert/strict');
const { substituteEnv, substituteEnvValue, missingEnvReason } = require('../../dist/core/env-substitution');
const { nodeEnvLookup, resolveNodeSettings } = require('../../dist/nodes/shared/settings');

const from = (env) => (name) => env[name];

describe('env substitution (core)', function () {
  it('replaces every ${NAME} inside the text, several per value', function () {
    const r = substituteEnv('${HOST}:${PORT}, ${HOST}-2:${PORT}', from({ HOST: 'kafka', PORT: '9092' }));
    assert.deepEqual(r, { value: 'kafka:9092, kafka-2:9092', missing: [] });
  });

  it('leaves unknown references as written and names each once, in order', function () {
    assert.deepEqual(substituteEnv('a-${X}-${Y}-${Z}-${Y}', from({ X: '1' })), { value: 'a-1-${Y}-${Z}-${Y}', missing: ['Y', 'Z'] });
  });

  it('an empty variable is set (replaced by nothing), an unset one is not', function () {
    assert.deepEqual(substituteEnv('x${E}y', from({ E: '' })), { value: 'xy', missing: [] });
    assert.deepEqual(substituteEnv('x${E}y', from({})), { value: 'x${E}y', missing: ['E'] });
  });

  it('only environment variable names are references; anything else stays as written', function () {
    const lookup = () => 'V';
    assert.deepEqual(substituteEnv('${A_1}${_b}', lookup), { value: 'VV', missing: [] });
    for (const text of ['${1X}', '${A.B}', '${A-B}', '${ A}', '${}', '$A', '{A}', '$(A)', 'a$', '.*${']) {
      assert.deepEqual(substituteEnv(text, lookup), { value: text, missing: [] }, text);
    }
  });

  it('values that are not text pass through untouched', function () {
    const lookup = from({ N: '5' });
    assert.deepEqual(substituteEnvValue(5, lookup), { value: 5, missing: [] });
    assert.deepEqual(substituteEnvValue(true, lookup), { value: true, missing: [] });
    assert.deepEqual(substituteEnvValue(undefined, lookup), { value: undefined, missing: [] });
    assert.deepEqual(substituteEnvValue('${N}.5', lookup), { value: '5.5', missing: [] });
    assert.deepEqual(substituteEnvValue('${M}', lookup), { value: '${M}', missing: ['M'] });
  });

  it('words the problem for one or several unset variables', function () {
    assert.equal(missingEnvReason(['A']), 'environment variable A is not set');
    assert.equal(missingEnvReason(['A', 'B']), 'environment variables A, B are not set');
  });

  it('resolveNodeSettings lists every unset variable once across fields, each field as a problem', function () {
    const r = resolveNodeSettings({ groups: '${A}-.*, ${B}', groupsExclude: '${A}' }, ['groups', 'groups.exclude'], from({}));
    assert.deepEqual(r.missingEnv, ['A', 'B']);
    assert.deepEqual(r.problems, [
      { property: 'groups', reason: 'environment variables A, B are not set' },
      { property: 'groups.exclude', reason: 'environment variable A is not set' },
    ]);
  });
});

describe('nodeEnvLookup (Node-RED)', function () {
  const KEY = 'MM2_UNIT_ENV_LOOKUP';
  afterEach(() => delete process.env[KEY]);

  it("asks RED.util.getSetting with the node (flow/group/global env, NR_NODE_*)", function () {
    const node = { id: 'n1' };
    const seen = [];
    const RED = { util: { getSetting: (n, name) => (seen.push([n, name]), name === 'NR_NODE_ID' ? n.id : name === 'PORT' ? 9092 : undefined) } };
    const lookup = nodeEnvLookup(RED, node);
    assert.equal(lookup('NR_NODE_ID'), 'n1');
    assert.equal(lookup('PORT'), '9092', 'values come back as text');
    assert.deepEqual(seen[0], [node, 'NR_NODE_ID']);
  });

  it('falls back to process.env when getSetting has no value, throws, or does not exist', function () {
    process.env[KEY] = 'from-process';
    assert.equal(nodeEnvLookup({ util: { getSetting: () => undefined } }, {})(KEY), 'from-process');
    assert.equal(nodeEnvLookup({ util: { getSetting: () => null } }, {})(KEY), 'from-process');
    assert.equal(nodeEnvLookup({ util: { getSetting: () => { throw new Error('no flow'); } } }, {})(KEY), 'from-process');
    assert.equal(nodeEnvLookup({ util: {} }, {})(KEY), 'from-process');
    assert.equal(nodeEnvLookup(undefined, {})(KEY), 'from-process');
    delete process.env[KEY];
    assert.equal(nodeEnvLookup({ util: {} }, {})(KEY), undefined);
  });
});
