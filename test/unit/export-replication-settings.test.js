'use strict';
/**
 * The export (flows/read-flow, the admin endpoint, the mm2-connect deploy) reads the mm2-replication
 * node's fields with the runtime's reader (core/replication-settings): `${VAR}` substituted as the
 * node does it, a bad value refused with the runtime's words and written as given, never replaced
 * by MM2's default.
 */
const assert = require('node:assert/strict');
const { exportConnectors } = require('../../dist/flows/export-connectors');
const { readReplicationSettings } = require('../../dist/nodes/lib/settings/replication');
const { problemText } = require('../../dist/nodes/lib/settings');

const byKind = (r, kind) => r.connectors.find((c) => c.kind === kind);

/** A flow whose replication node has the given fields. */
function flowWith(replication) {
  return {
    replication: { id: 'rep', ...replication },
    source: { id: 'src', alias: 'east', bootstrap: 'k1:9092' },
    target: { id: 'tgt', alias: 'west', bootstrap: 'k2:9092' },
    nodes: [],
  };
}

/** What the mm2-replication node itself refuses for these fields (its problem texts). */
function runtimeProblems(replication, lookup) {
  return readReplicationSettings(replication, { source: 'east', target: 'west' }, lookup).problems;
}

describe('export: the replication node read as the runtime reads it', function () {
  it('${LOC} with LOC=target exports offset-syncs.topic.location=target (connectors and mm2.properties)', function () {
    const r = exportConnectors(flowWith({ offsetSyncsLocation: '${LOC}' }), { lookup: (n) => ({ LOC: 'target' })[n] });
    assert.deepEqual(r.problems, []);
    assert.equal(byKind(r, 'source').config['offset-syncs.topic.location'], 'target');
    assert.equal(byKind(r, 'checkpoint').config['offset-syncs.topic.location'], 'target');
    assert.match(r.mm2Properties, /^east->west\.offset-syncs\.topic\.location=target$/m);
  });

  it("'middle' is refused naming offset-syncs.topic.location in the runtime's words, and written as given (never 'source')", function () {
    const rep = { offsetSyncsLocation: 'middle' };
    const r = exportConnectors(flowWith(rep));
    assert.deepEqual(r.problems.map(problemText), runtimeProblems(rep, () => undefined));
    assert.deepEqual(r.problems.map(problemText), ["offset-syncs.topic.location: 'middle' is not one of 'source', 'target'"]);
    assert.equal(byKind(r, 'source').config['offset-syncs.topic.location'], 'middle');
    assert.equal(byKind(r, 'checkpoint').config['offset-syncs.topic.location'], 'middle');
    // the same through ${VAR}
    const viaEnv = exportConnectors(flowWith({ offsetSyncsLocation: '${LOC}' }), { lookup: (n) => ({ LOC: 'middle' })[n] });
    assert.deepEqual(viaEnv.problems.map(problemText), ["offset-syncs.topic.location: 'middle' is not one of 'source', 'target'"]);
  });

  it('policy, separator, internal separator flag and replication factor from ${VAR}', function () {
    const env = { P: 'IdentityReplicationPolicy', S: '_', I: 'false', RF: '-1' };
    const r = exportConnectors(
      flowWith({ policy: '${P}', separator: '${S}', internalSeparator: '${I}', replicationFactor: '${RF}' }),
      { lookup: (n) => env[n] },
    );
    assert.deepEqual(r.problems, []);
    for (const kind of ['source', 'checkpoint', 'heartbeat']) {
      const c = byKind(r, kind).config;
      assert.equal(c['replication.policy.class'], 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy', kind);
      assert.equal(c['replication.policy.separator'], '_', kind);
      assert.equal(c['replication.policy.internal.topic.separator.enabled'], 'false', kind);
    }
    assert.equal(byKind(r, 'source').config['offset-syncs.topic.replication.factor'], '-1');
    assert.equal(byKind(r, 'checkpoint').config['checkpoints.topic.replication.factor'], '-1');
    assert.equal(byKind(r, 'heartbeat').config['heartbeats.topic.replication.factor'], '-1');
    assert.match(r.mm2Properties, /^checkpoints\.topic\.replication\.factor=-1$/m);
  });

  describe('every field: a value the runtime refuses is refused by the export with the same words, once, and written as given', function () {
    /** @type {Array<[string, Record<string, string>, string]>} */
    const cases = [
      ['replication.policy.class', { policy: 'FancyPolicy' }, 'FancyPolicy'],
      ['replication.policy.class', { policy: '${P}' }, '${P}'],
      ['replication.policy.separator', { separator: 'a b' }, 'a b'],
      ['replication.policy.separator', { separator: '${S}' }, '${S}'],
      ['replication.policy.internal.topic.separator.enabled', { internalSeparator: 'maybe' }, 'maybe'],
      ['offset-syncs.topic.location', { offsetSyncsLocation: '${LOC}' }, '${LOC}'],
      ['checkpoints.topic.replication.factor', { replicationFactor: '0' }, '0'],
      ['checkpoints.topic.replication.factor', { replicationFactor: '${RF}' }, '${RF}'],
    ];
    for (const [property, rep, written] of cases) {
      it(`${property} = ${JSON.stringify(Object.values(rep)[0])}`, function () {
        const r = exportConnectors(flowWith(rep));
        const expected = runtimeProblems(rep, () => undefined);
        assert.equal(expected.length, 1, 'the runtime refuses it');
        assert.ok(expected[0].startsWith(`${property}: `));
        assert.deepEqual(r.problems.map(problemText), expected);
        if (property === 'checkpoints.topic.replication.factor') {
          assert.equal(byKind(r, 'checkpoint').config[property], written);
          assert.equal(byKind(r, 'source').config['offset-syncs.topic.replication.factor'], written);
          assert.equal(byKind(r, 'heartbeat').config['heartbeats.topic.replication.factor'], written);
        } else {
          assert.equal(byKind(r, 'checkpoint').config[property], written);
        }
      });
    }
  });
});
