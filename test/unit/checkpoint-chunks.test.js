'use strict';
/** Checkpoint writes are split into produce-sized chunks (a cycle can write tens of thousands). */
const assert = require('node:assert/strict');
const { chunkCheckpoints, CHECKPOINT_CHUNK_RECORDS, CHECKPOINT_CHUNK_BYTES } = require('../../dist/core/checkpoint-cycle');
const { decodeCheckpoint, encodeCheckpoint } = require('../../dist/core/checkpoint');
const { recordsOf } = require('../harness/record-batches');

/** A chunk's key + value bytes (what the cut counts). */
const bytesOf = (chunk) => chunk.checkpoints.reduce((a, c) => { const r = encodeCheckpoint(c); return a + r.key.length + r.value.length; }, 0);

function cps(n, metadata = '') {
  return Array.from({ length: n }, (_, i) => ({
    group: `group-${i % 997}`, topic: 'source.orders', partition: i % 10,
    upstreamOffset: BigInt(i), downstreamOffset: BigInt(i + 1), metadata, timestamp: 1700000000000 + i,
  }));
}

describe('chunkCheckpoints', function () {
  it('keeps order and every record, with at most CHECKPOINT_CHUNK_RECORDS per chunk, each chunk one record batch (timestamp: the listing time)', async function () {
    const list = cps(25000);
    const chunks = chunkCheckpoints(list);
    assert.equal(chunks.length, Math.ceil(25000 / CHECKPOINT_CHUNK_RECORDS));
    const flat = [];
    for (const c of chunks) {
      assert.equal(c.records.count, c.checkpoints.length);
      flat.push(...(await recordsOf(c.records)));
    }
    assert.equal(flat.length, 25000);
    for (const [i, r] of flat.entries()) {
      assert.equal(r.timestamp, String(1700000000000 + i));
      assert.equal(decodeCheckpoint(r.key, r.value).upstreamOffset, BigInt(i));
    }
    assert.deepEqual(chunks.flatMap((c) => c.checkpoints), list);
  });

  it('also cuts by size: large metadata gives smaller chunks, each under CHECKPOINT_CHUNK_BYTES', function () {
    const chunks = chunkCheckpoints(cps(3000, 'm'.repeat(1000)));
    assert.ok(chunks.length > 2);
    for (const c of chunks) {
      const bytes = bytesOf(c);
      assert.ok(bytes <= CHECKPOINT_CHUNK_BYTES, `${bytes} bytes`);
    }
    assert.equal(chunks.reduce((a, c) => a + c.checkpoints.length, 0), 3000);
  });

  it('near-maximal metadata (30,000 bytes; MM2 strings hold 32,767) packs 8 to a chunk; no checkpoints, no chunks', function () {
    const chunks = chunkCheckpoints(cps(20, 'x'.repeat(30000)));
    assert.deepEqual(chunks.map((c) => c.records.count), [8, 8, 4]);
    assert.deepEqual(chunkCheckpoints([]), []);
  });

  it('checkpointChunks reads a chunk only when it is taken, and cuts exactly as core/chunks (mixed sizes)', async function () {
    const { checkpointChunks } = require('../../dist/core/checkpoint-cycle');
    const { chunkBySize } = require('../../dist/core/chunks');
    const sizesOf = [0, 10, 20000, 100, 5, 32000, 3, 0, 31000, 7];
    const list = Array.from({ length: 9000 }, (_, i) => ({
      group: `group-${i % 997}`, topic: 'source.orders', partition: i % 10,
      upstreamOffset: BigInt(i), downstreamOffset: BigInt(i + 1), metadata: 'm'.repeat(sizesOf[i % sizesOf.length] * (i % 7 === 0 ? 1 : 0)), timestamp: 1700000000000 + i,
    }));
    list[4000] = { ...list[4000], metadata: 'x'.repeat(32767) };
    const sizes = list.map((c) => { const r = encodeCheckpoint(c); return r.key.length + r.value.length; });
    const expected = chunkBySize(sizes, CHECKPOINT_CHUNK_RECORDS, CHECKPOINT_CHUNK_BYTES);
    const got = [];
    let at = 0;
    for (const chunk of checkpointChunks(list)) {
      got.push([at, at + chunk.records.count]);
      assert.deepEqual(chunk.checkpoints, list.slice(at, at + chunk.records.count));
      (await recordsOf(chunk.records)).forEach((rec, k) => assert.deepEqual(decodeCheckpoint(rec.key, rec.value).downstreamOffset, list[at + k].downstreamOffset));
      at += chunk.records.count;
    }
    assert.deepEqual(got, expected);
    assert.ok(expected.length > 5, `${expected.length} chunks`);
    assert.deepEqual(chunkCheckpoints(list).map((c) => c.records.count), expected.map(([a, b]) => b - a));
  });
});
