'use strict';
/**
 * Checkpoints in the checkpoints topic that decode but make no sense (a negative partition or
 * offset: MM2 never writes one) are skipped and counted at restore like malformed records, so
 * a forged one never becomes the "latest checkpoint" of its group (issue 7 item 7).
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { encodeCheckpoint } = require('../../dist/core/checkpoint');
const { restored: restoreLogged } = require('../harness/checkpoint-node');

const CHECKPOINTS_TOPIC = 'source.checkpoints.internal';

function checkpointNode(groups) {
  return {
    id: 'cp', type: 'mm2-checkpoint', name: '', replication: 'rep', groups, groupsExclude: '', topics: '', topicsExclude: '',
    emitCheckpointsIntervalSeconds: '3600', refreshGroupsIntervalSeconds: '3600', wires: [[], []],
  };
}

/** Loads the node and waits until its log says the restore is over: the node and what its log said ({ok, restored, read, malformed}). */
async function restored(groups) {
  await nodes.load([checkpointNode(groups)]);
  const cp = nodes.helper.getNode('cp');
  const report = await restoreLogged(cp, 30000);
  return { cp, report };
}

describe('absurd checkpoints in the checkpoints topic (real brokers)', function () {
  this.timeout(90000);
  before(() => nodes.startServer());
  after(() => nodes.stopServer());
  afterEach(() => nodes.helper.unload());

  it('a checkpoint with a negative offset is skipped and counted at restore; the sensible one is restored', async function () {
    const g = env.unique('absurd-g');
    await restored(g); // creates the checkpoints topic
    await nodes.helper.unload();
    const producer = env.kafka('target').producer();
    await producer.connect();
    const rec = (cp) => ({ ...encodeCheckpoint(cp), partition: 0 });
    try {
      await producer.send({
        topic: CHECKPOINTS_TOPIC,
        messages: [
          rec({ group: g, topic: 'source.t', partition: 0, upstreamOffset: 10n, downstreamOffset: 8n, metadata: '' }),
          rec({ group: g, topic: 'source.t', partition: 1, upstreamOffset: 10n, downstreamOffset: -1n, metadata: '' }),
          rec({ group: g, topic: 'source.t', partition: 2, upstreamOffset: -7n, downstreamOffset: 3n, metadata: '' }),
        ],
      });
    } finally {
      await producer.disconnect();
    }
    const { cp, report } = await restored(g);
    assert.equal(report.ok, true, JSON.stringify(report));
    assert.equal(report.restored, 1, 'only the sensible checkpoint');
    assert.ok(report.malformed >= 2, `both absurd ones counted, got ${report.malformed}`);
    // what the flow's group-offsets nodes read (the replication runtime's public view): the sensible checkpoint alone
    const runtime = nodes.helper.getNode('rep').runtime;
    assert.deepEqual((runtime.get(g) ?? []).map((c) => [c.topic, c.partition, c.upstreamOffset, c.downstreamOffset]), [['source.t', 0, 10n, 8n]]);
    assert.ok(cp.warn.getCalls().some((c) => c.thisValue === cp && /skipped \d+ record\(s\) of source\.checkpoints\.internal/.test(String(c.args[0]))));
  });
});
