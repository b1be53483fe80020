'use strict';
/**
 * Reading what the product sends as a record batch (core/record-batch) with an independent reader:
 * kafkajs's own RecordBatch decoder (what its consumer reads fetched batches with), for the unit
 * tests' fake target connections (`batchProducer().produce(topic, partition, records)`).
 */
const path = require('node:path');
const Decoder = require('kafkajs/src/protocol/decoder');
const decodeRecordBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder');

const dist = (p) => require(path.join(__dirname, '..', '..', 'dist', p));

/**
 * The records of an encoded batch as kafkajs decodes them: `{ key, value, timestamp, offset }` (Buffers, strings).
 * @param {Buffer} batch
 */
async function decodeBatch(batch) {
  const decoded = await decodeRecordBatch(new Decoder(batch));
  return decoded.records;
}

/**
 * The records handed to a fake `produce`, encoded as the product encodes them and read back.
 * @param {any} records core/record-batch BatchRecords
 */
async function recordsOf(records) {
  return decodeBatch(dist('core/record-batch').encodeRecordBatch(records));
}

/**
 * The checkpoints handed to a fake `produce` (decoded from the batch's records, as MM2 reads them).
 * @param {any} records core/record-batch BatchRecords
 */
async function checkpointsOf(records) {
  const { decodeCheckpoint } = dist('core/checkpoint');
  return (await recordsOf(records)).map((r) => decodeCheckpoint(r.key, r.value));
}

module.exports = { decodeBatch, recordsOf, checkpointsOf };
