'use strict';
/** GroupOffsetSyncer's own logic with an in-memory admin (the real-broker behaviour is in test/integration/mm2-group-offsets.test.js). */
const assert = require('node:assert/strict');
const { GroupOffsetSyncer } = require('../../dist/kafka/group-offset-syncer');
const { createGroupFilter } = require('../../dist/core/filters');
const { encodeCheckpoint } = require('../../dist/core/checkpoint');

/** A connection whose admin answers from memory (no broker): only the syncer's own logic is under test. */
function fakeConnection({ delayMs = 0, state = 'Empty' } = {}) {
  const calls = { describe: 0, commits: [], inFlight: 0, maxInFlight: 0 };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  /** @type {Partial<import('kafkajs').Admin>} */
  const admin = {
    describeGroups: async (ids) => {
      calls.describe++;
      calls.inFlight++;
      calls.maxInFlight = Math.max(calls.maxInFlight, calls.inFlight);
      await sleep(delayMs);
      calls.inFlight--;
      return { groups: ids.map((groupId) => /** @type {import('kafkajs').GroupDescription} */ ({ groupId, state, members: [] })) };
    },
    fetchOffsets: async () => [],
    fetchTopicOffsets: async () => [{ partition: 0, offset: '100', high: '100', low: '0' }],
    listTopics: async () => ['t'], // the topic exists (fetchEndOffsets looks it up first)
  };
  return {
    calls,
    connection: {
      admin: async () => /** @type {import('kafkajs').Admin} */ (admin),
      committer: () => ({ commit: async (group, offsets) => { calls.commits.push({ group, offsets }); return { ok: true }; } }),
      reportOk: () => undefined,
    },
  };
}

describe('GroupOffsetSyncer (no broker)', function () {
  it('never overlaps cycles: requests during a cycle share one follow-up cycle', async function () {
    const { calls, connection } = fakeConnection({ delayMs: 30 });
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}), concurrency: 1 });
    s.applyCheckpointsJson({ g: [{ topic: 't', partition: 0, downstreamOffset: '5' }] });
    const a = s.sync();
    assert.equal(s.busy, true);
    const b = s.sync();
    const c = s.sync();
    assert.equal(b, c, 'queued requests share the follow-up cycle');
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    assert.equal(ra.cycle, 1);
    assert.equal(rb.cycle, 2);
    assert.equal(rc.cycle, 2);
    assert.equal(calls.describe, 2);
    assert.equal(calls.maxInFlight, 1);
    assert.equal(s.busy, false);
  });

  it('last checkpoint wins per group and partition; malformed records are counted, not thrown', function () {
    const { connection } = fakeConnection();
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}) });
    const r1 = encodeCheckpoint({ group: 'g', topic: 't', partition: 0, upstreamOffset: 10, downstreamOffset: 9 });
    const r2 = encodeCheckpoint({ group: 'g', topic: 't', partition: 0, upstreamOffset: 5, downstreamOffset: 4 });
    assert.equal(s.applyRecord(r1), null);
    const err = s.applyRecord({ key: r1.key, value: null });
    assert.equal(err.name, 'MalformedRecordError');
    assert.equal(s.applyRecord({ key: null, value: null }).name, 'MalformedRecordError');
    assert.equal(s.applyRecord(r2), null);
    assert.deepEqual(s.checkpointsOf('g').map((c) => c.downstreamOffset), [4n], 'log order wins, not the largest');
    assert.deepEqual(s.stats, { groups: 1, partitions: 1, received: 2, malformed: 2 });
    assert.deepEqual(s.applyCheckpointsJson({ g: [{ topic: 't', partition: 1, downstreamOffset: '1' }, { topic: '' }], h: 'nope' }), { accepted: 1, malformed: 2 });
    assert.deepEqual(s.stats, { groups: 1, partitions: 2, received: 3, malformed: 4 });
  });

  it('a checkpoint record with a negative offset is skipped and counted, never stored (it would be written to the target)', function () {
    const { connection } = fakeConnection();
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({}) });
    const good = encodeCheckpoint({ group: 'g', topic: 't', partition: 0, upstreamOffset: 10, downstreamOffset: 9 });
    const forged = encodeCheckpoint({ group: 'g', topic: 't', partition: 0, upstreamOffset: 20, downstreamOffset: -5 });
    assert.equal(s.applyRecord(good), null);
    const err = s.applyRecord(forged);
    assert.equal(err.name, 'AbsurdRecordError');
    assert.match(err.message, /negative/);
    assert.deepEqual(s.checkpointsOf('g').map((c) => c.downstreamOffset), [9n], 'the forged record does not replace the good one');
    assert.deepEqual(s.stats, { groups: 1, partitions: 1, received: 1, malformed: 1 });
  });

  it('writes only groups the filter accepts, and rejects after close', async function () {
    const { calls, connection } = fakeConnection();
    const s = new GroupOffsetSyncer({ connection, groupFilter: createGroupFilter({ groups: 'keep-.*' }) });
    s.applyCheckpointsJson({
      'keep-1': [{ topic: 't', partition: 0, downstreamOffset: '7', metadata: 'm' }],
      'drop-1': [{ topic: 't', partition: 0, downstreamOffset: '7' }],
    });
    const r = await s.sync();
    assert.deepEqual(r.written, [{ group: 'keep-1', offsets: [{ topic: 't', partition: 0, offset: 7n }] }]);
    assert.deepEqual(calls.commits, [{ group: 'keep-1', offsets: [{ topic: 't', partition: 0, offset: 7n, metadata: 'm' }] }]);
    await s.close();
    await assert.rejects(() => s.sync(), /closed/);
  });
});
