'use strict';
/**
 * core/record-batch and kafka/produce-request: the checkpoints topic's write as one record batch
 * (magic v2, no compression, CRC-32C) in one Produce v8 request, checked against independent
 * readers and writers: kafkajs's own RecordBatch encoder and decoder and its CRC-32C.
 */
const assert = require('node:assert/strict');
const Long = require('kafkajs/src/utils/long');
const { RecordBatch: kafkajsBatch } = require('kafkajs/src/protocol/recordBatch/v0');
const KafkajsEncoder = require('kafkajs/src/protocol/encoder');
const kafkajsRecord = require('kafkajs/src/protocol/recordBatch/record/v0');
const kafkajsCrc32C = require('kafkajs/src/protocol/recordBatch/crc32C');
const { encodeRecordBatch, recordBatchLength, crc32c, zigzagLength, writeZigzag } = require('../../dist/core/record-batch');
const { checkpointBatchRecords, checkpointRecordBytes, encodeCheckpoint, decodeCheckpoint } = require('../../dist/core/checkpoint');
const { encodeProduceV8, decodeProduceV8 } = require('../../dist/kafka/produce-request');
const { decodeBatch } = require('../harness/record-batches');

const { mulberry32: random } = require('./helpers/random');

/** Checkpoints of every shape a write sends: multi-byte UTF-8 names, metadata up to 32767 bytes (multi-byte varint lengths), offsets to 2^63-1, timestamps before and after the first. */
function checkpoints(n, seed = 7) {
  const rand = random(seed);
  const metas = ['', 'm', 'x'.repeat(200), 'é'.repeat(70), 'y'.repeat(20000), 'z'.repeat(32767)];
  return Array.from({ length: n }, (_, i) => ({
    group: i % 5 === 0 ? `grüppe-${i}-组` : `group-${i % 997}`,
    topic: i % 7 === 0 ? 'us-west.orders.é' : 'source.orders',
    partition: Math.floor(rand() * 1000),
    upstreamOffset: i === 3 ? (1n << 63n) - 1n : BigInt(Math.floor(rand() * 1e12)),
    downstreamOffset: BigInt(Math.floor(rand() * 1e15)),
    metadata: i % 11 === 0 ? metas[i % metas.length] : metas[i % 3],
    timestamp: 1700000000000 + Math.floor((rand() - 0.3) * 3600000),
  }));
}

/** The same records through kafkajs's RecordBatch encoder, with the header fields the Java producer writes without idempotence. */
async function kafkajsEncoding(list) {
  const base = list[0].timestamp;
  const records = list.map((c, i) => {
    const { key, value } = encodeCheckpoint(c);
    return kafkajsRecord({ offsetDelta: i, timestampDelta: c.timestamp - base, key, value, headers: {} });
  });
  const encoder = await kafkajsBatch({
    firstOffset: Long.fromInt(0),
    firstTimestamp: base,
    maxTimestamp: Math.max(...list.map((c) => c.timestamp)),
    partitionLeaderEpoch: -1,
    lastOffsetDelta: list.length - 1,
    producerId: Long.fromValue(-1),
    producerEpoch: -1,
    firstSequence: -1,
    records,
  });
  return encoder.buffer;
}

describe('core/record-batch: checkpoints as one record batch (magic v2)', function () {
  it('CRC-32C: the check value of "123456789", and kafkajs\'s on random data of every length up to 300', function () {
    assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
    assert.equal(crc32c(Buffer.alloc(0)), 0);
    const rand = random(3);
    for (let n = 0; n <= 300; n++) {
      const b = Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
      assert.equal(crc32c(b), kafkajsCrc32C(b) >>> 0, `${n} bytes`);
      if (n > 4) assert.equal(crc32c(b, 2, n - 1), kafkajsCrc32C(b.subarray(2, n - 1)) >>> 0, `${n} bytes, a slice`);
    }
  });

  it('zigzag VARINT/VARLONG: the bytes and sizes of kafkajs\'s encoder, to 2^40 (timestamp deltas of years)', function () {
    const values = [0, -1, 1, 63, -64, 64, 300, -3600000, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 40, -(2 ** 40)];
    const rand = random(5);
    for (let k = 0; k < 200; k++) values.push(Math.floor((rand() - 0.5) * 2 ** (1 + (k % 40))));
    for (const n of values) {
      const b = Buffer.alloc(10);
      const end = writeZigzag(b, 0, n);
      const theirs = new KafkajsEncoder().writeVarLong(n).buffer;
      assert.deepEqual([...b.subarray(0, end)], [...theirs], String(n));
      assert.equal(zigzagLength(n), theirs.length, String(n));
    }
  });

  it('byte for byte what kafkajs\'s RecordBatch encoder writes for the same records (each key and value as encodeCheckpoint makes it)', async function () {
    for (const n of [1, 2, 17, 300]) {
      const list = checkpoints(n, n);
      const ours = encodeRecordBatch(checkpointBatchRecords(list));
      assert.equal(ours.length, recordBatchLength(checkpointBatchRecords(list)));
      const theirs = await kafkajsEncoding(list);
      assert.ok(ours.equals(theirs), `${n} records: the batches differ`);
    }
  });

  it('read back by kafkajs\'s decoder: every record\'s key and value decode to the checkpoint, its timestamp and offset; the header is the Java producer\'s; the CRC holds', async function () {
    const list = checkpoints(500);
    const batch = encodeRecordBatch(checkpointBatchRecords(list));
    const records = await decodeBatch(batch);
    assert.equal(records.length, list.length);
    records.forEach((r, i) => {
      const c = list[i];
      const { timestamp, ...cp } = c;
      assert.deepEqual(decodeCheckpoint(r.key, r.value), cp);
      const { key, value } = encodeCheckpoint(c);
      assert.ok(r.key.equals(key) && r.value.equals(value), `record ${i}: the bytes of encodeCheckpoint`);
      assert.equal(r.timestamp, String(timestamp));
      assert.equal(r.offset, String(i));
      assert.deepEqual(r.headers, {});
      assert.equal(r.isControlRecord, false);
    });
    const ctx = records[0].batchContext;
    assert.deepEqual(
      { magic: ctx.magicByte, epoch: ctx.partitionLeaderEpoch, producerId: ctx.producerId, producerEpoch: ctx.producerEpoch, seq: ctx.firstSequence, tx: ctx.inTransaction, last: ctx.lastOffsetDelta },
      { magic: 2, epoch: -1, producerId: '-1', producerEpoch: -1, seq: -1, tx: false, last: list.length - 1 },
    );
    assert.equal(ctx.firstTimestamp, String(list[0].timestamp));
    assert.equal(ctx.maxTimestamp, String(Math.max(...list.map((c) => c.timestamp))));
    assert.equal(batch.readUInt16BE(21), 0, 'attributes: no compression, CreateTime');
    assert.equal(batch.readUInt32BE(17), kafkajsCrc32C(batch.subarray(21)) >>> 0, 'CRC-32C of attributes..end');
    assert.equal(batch.readInt32BE(8), batch.length - 12, 'batchLength');
  });

  it('checkpointRecordBytes is the key + value bytes of encodeCheckpoint; bad input is refused as encodeCheckpoint refuses it', function () {
    for (const c of checkpoints(60)) {
      const { key, value } = encodeCheckpoint(c);
      assert.equal(checkpointRecordBytes(c), key.length + value.length);
    }
    const good = checkpoints(1)[0];
    /** @type {Array<[any, Function]>} */
    const bad = [
      [{ ...good, partition: 2 ** 31 }, RangeError],
      [{ ...good, partition: 1.5 }, TypeError],
      [{ ...good, group: null }, TypeError],
      [{ ...good, metadata: 'x'.repeat(32768) }, RangeError],
      [{ ...good, upstreamOffset: 1n << 63n }, RangeError],
      [{ ...good, downstreamOffset: '5' }, TypeError],
    ];
    for (const [c, type] of bad) {
      assert.throws(() => encodeCheckpoint(c), type);
      assert.throws(() => checkpointBatchRecords([good, c]), type);
    }
    assert.throws(() => encodeRecordBatch(checkpointBatchRecords([])), RangeError);
  });

  it('encodeCheckpoint: MM2\'s layout, key and value exactly their bytes', function () {
    const { key, value } = encodeCheckpoint({ group: 'g', topic: 'src.t', partition: 2, upstreamOffset: 5, downstreamOffset: 7n });
    assert.equal(key.toString('hex'), '00016700057372632e7400000002');
    assert.equal(value.toString('hex'), '0000' + '0000000000000005' + '0000000000000007' + '0000');
  });
});

describe('kafka/produce-request: Produce v8', function () {
  it('the request body: no transactional id, acks, timeout, one topic, one partition, the batch in place', async function () {
    const list = checkpoints(40);
    const body = encodeProduceV8('source.checkpoints.internal', 0, checkpointBatchRecords(list), -1, 30000);
    let p = 0;
    assert.equal(body.readInt16BE(p), -1); p += 2;
    assert.equal(body.readInt16BE(p), -1); p += 2;
    assert.equal(body.readInt32BE(p), 30000); p += 4;
    assert.equal(body.readInt32BE(p), 1); p += 4;
    const n = body.readInt16BE(p); p += 2;
    assert.equal(body.toString('utf8', p, p + n), 'source.checkpoints.internal'); p += n;
    assert.equal(body.readInt32BE(p), 1); p += 4;
    assert.equal(body.readInt32BE(p), 0); p += 4;
    const len = body.readInt32BE(p); p += 4;
    assert.equal(p + len, body.length, 'the request is exactly its bytes');
    assert.ok(body.subarray(p).equals(encodeRecordBatch(checkpointBatchRecords(list))));
    assert.equal((await decodeBatch(body.subarray(p))).length, 40);
  });

  it('the response: each partition\'s error code, base offset and error message (or the first record error\'s)', function () {
    const str = (s) => { const b = Buffer.alloc(2 + Buffer.byteLength(s)); b.writeInt16BE(Buffer.byteLength(s)); b.write(s, 2); return b; };
    const int = (bytes, v) => { const b = Buffer.alloc(bytes); if (bytes === 2) b.writeInt16BE(v); else if (bytes === 4) b.writeInt32BE(v); else b.writeBigInt64BE(BigInt(v)); return b; };
    const nullStr = int(2, -1);
    const partition = (index, code, base, errors, message) => Buffer.concat([int(4, index), int(2, code), int(8, base), int(8, -1), int(8, 0), int(4, errors.length), ...errors.flatMap((m, k) => [int(4, k), m === null ? nullStr : str(m)]), message === null ? nullStr : str(message)]);
    const body = Buffer.concat([
      int(4, 1), str('cp'), int(4, 3),
      partition(0, 0, 41, [], null),
      partition(1, 29, -1, [], 'Not authorized'),
      partition(2, 87, -1, ['bad record'], null),
      int(4, 5),
    ]);
    const { partitions, throttleTimeMs } = decodeProduceV8(body);
    assert.equal(throttleTimeMs, 5);
    assert.deepEqual(partitions, [
      { topic: 'cp', partition: 0, errorCode: 0, baseOffset: 41n, errorMessage: null },
      { topic: 'cp', partition: 1, errorCode: 29, baseOffset: -1n, errorMessage: 'Not authorized' },
      { topic: 'cp', partition: 2, errorCode: 87, baseOffset: -1n, errorMessage: 'bad record' },
    ]);
    assert.throws(() => decodeProduceV8(body.subarray(0, body.length - 3)), { name: 'MalformedRecordError' });
  });
});
