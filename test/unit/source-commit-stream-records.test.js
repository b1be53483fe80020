'use strict';

// SourceCommitStream: what it delivers for the records a real broker wrote (the Kafka 4.4.0
// fixture of test/harness/capture-consumer-offsets.js), fed through its batch handler as kafkajs
// hands them over (the stream's reading of a live broker: source-commit-stream.test.js).

const assert = require('node:assert/strict');
const { SourceCommitStream } = require('../../dist/kafka/source-commit-stream');

const FIXTURE = JSON.parse(require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'fixtures', 'consumer-offsets-4.4.0.json'), 'utf8'));
const fromHex = (h) => (h === null ? null : Buffer.from(h, 'hex'));

/** A stream (never started) delivering every window at once; `feed(records)` hands them over as one fetched batch. */
function stream() {
  const batches = [];
  const s = new SourceCommitStream({ kafka: /** @type {any} */ ({}), admin: /** @type {any} */ ({}), batchMs: 0, onBatch: (b) => batches.push(b) });
  const feed = (records) => s['onBatch']({ batch: { messages: records.map((r) => ({ key: fromHex(r.key), value: fromHex(r.value), offset: r.offset })) } });
  return { batches, feed };
}

/** The records of the fixture naming `group`, in log order (one partition of __consumer_offsets). */
const recordsOf = (group) => FIXTURE.records.filter((r) => !r.aborted && r.kafka && new RegExp(`"(group|groupId)":"${group}"`).test(r.kafka.key));

describe('SourceCommitStream: group records as Kafka 4.4.0 writes them', () => {
  it('a classic group converted to a consumer group is not a deleted group: its offsets stay, its commits come through', async () => {
    const records = recordsOf('converted');
    // the conversion as the broker wrote it: the classic record's tombstone, then the consumer group's records
    const keys = records.map((r) => JSON.parse(r.kafka.key).type);
    const tomb = records.findIndex((r) => r.value === null && JSON.parse(r.kafka.key).type === '2');
    assert.ok(tomb > 0 && keys.slice(tomb + 1).includes('3'), keys.join());
    const { batches, feed } = stream();
    feed(records);
    assert.deepEqual(batches.flatMap((b) => b.deletedGroups), [], 'no deleted group');
    const last = new Map();
    for (const b of batches) for (const c of b.changes) last.set(`${c.group} ${c.topic}-${c.partition}`, c.offset);
    assert.deepEqual([...last].sort(), [['converted orders-0', 5n], ['converted orders-1', 5n], ['converted payments-0', 5n]]);
  });

  it('the same records split where the conversion starts: still no deleted group', async () => {
    const records = recordsOf('converted');
    const tomb = records.findIndex((r) => r.value === null && JSON.parse(r.kafka.key).type === '2');
    const { batches, feed } = stream();
    feed(records.slice(0, tomb));
    // the conversion's records are written together (one record batch): one fetched batch
    feed(records.slice(tomb));
    assert.deepEqual(batches.flatMap((b) => b.deletedGroups), []);
  });

  it('a deleted group stays deleted: its offsets tombstoned, the group in deletedGroups', async () => {
    const { batches, feed } = stream();
    feed(recordsOf('doomed'));
    assert.deepEqual(batches.flatMap((b) => b.deletedGroups), ['doomed']);
    const last = new Map();
    for (const b of batches) for (const c of b.changes) last.set(`${c.topic}-${c.partition}`, c.offset);
    assert.deepEqual([...last], [['payments-0', null]]);
  });
});
