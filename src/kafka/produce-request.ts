/**
 * Produce v8 (non-flexible: kafkajs's request header v1 and response header v0 as they are), one
 * record batch to one partition, encoded into one buffer of the exact size with the batch written
 * in place (core/record-batch), and its answer decoded. v8 is what Kafka 2.4 up to 4.x accept
 * (Kafka 4.0 removed Produce v0-v2 only); it adds the error message of a refused partition.
 *
 * Request: transactional_id NULLABLE_STRING, acks INT16, timeout_ms INT32,
 *   topic_data [name STRING, partition_data [index INT32, records RECORDS (INT32 length + batch)]]
 * Response: responses [name STRING, partition_responses [index INT32, error_code INT16,
 *   base_offset INT64, log_append_time_ms INT64, log_start_offset INT64,
 *   record_errors [batch_index INT32, batch_index_error_message NULLABLE_STRING],
 *   error_message NULLABLE_STRING]], throttle_time_ms INT32
 * Field layouts: clients/src/main/resources/common/message/Produce{Request,Response}.json in apache/kafka.
 */
import { recordBatchLength, writeRecordBatch, type BatchRecords } from '../core/record-batch';
import { StructReader, stringLength, writeStringAt } from '../core/wire';
import type { KafkajsProtocolRequest } from './group-requests';

export const PRODUCE_API_KEY = 0;
export const PRODUCE_VERSION = 8;

/** The Produce v8 request body sending `records` as one batch to `partition` of `topic`. */
export function encodeProduceV8(topic: string, partition: number, records: BatchRecords, acks: number, timeoutMs: number): Buffer {
  const topicBytes = stringLength(topic, 'topic_data.name');
  const batchBytes = recordBatchLength(records);
  const buf = Buffer.allocUnsafe(2 + 2 + 4 + 4 + 2 + topicBytes + 4 + 4 + 4 + batchBytes);
  let p = buf.writeInt16BE(-1, 0); // transactional_id: null
  p = buf.writeInt16BE(acks, p);
  p = buf.writeInt32BE(timeoutMs, p);
  p = buf.writeInt32BE(1, p); // one topic
  p = writeStringAt(buf, p, topic, topicBytes);
  p = buf.writeInt32BE(1, p); // one partition
  p = buf.writeInt32BE(partition, p);
  p = buf.writeInt32BE(batchBytes, p);
  const end = writeRecordBatch(records, buf, p);
  if (end !== buf.length) throw new Error(`Produce v8: the batch took ${end - p} bytes, not the ${batchBytes} counted`);
  return buf;
}

export interface ProducedPartition {
  topic: string;
  partition: number;
  errorCode: number;
  baseOffset: bigint;
  errorMessage: string | null;
}

export function decodeProduceV8(body: Buffer): { partitions: ProducedPartition[]; throttleTimeMs: number } {
  const r = new StructReader(body, 'Produce v8 response');
  const partitions: ProducedPartition[] = [];
  const topics = r.readInt32('responses length');
  for (let t = 0; t < topics; t++) {
    const topic = r.readString('responses.name');
    const n = r.readInt32('partition_responses length');
    for (let i = 0; i < n; i++) {
      const partition = r.readInt32('index');
      const errorCode = r.readInt16('error_code');
      const baseOffset = r.readInt64('base_offset');
      r.readInt64('log_append_time_ms');
      r.readInt64('log_start_offset');
      const errors = r.readInt32('record_errors length');
      let firstRecordError: string | null = null;
      for (let k = 0; k < errors; k++) {
        r.readInt32('batch_index');
        const m = r.readNullableString('batch_index_error_message');
        firstRecordError ??= m;
      }
      const errorMessage = r.readNullableString('error_message') ?? firstRecordError;
      partitions.push({ topic, partition, errorCode, baseOffset, errorMessage });
    }
  }
  const throttleTimeMs = r.readInt32('throttle_time_ms');
  return { partitions, throttleTimeMs };
}

/**
 * The request object for kafkajs's connection (`connectionPool.send`): the body as it is (kafkajs
 * copies it behind its header; an object with kafkajs Encoder's `buf`/`buffer`, no copy of ours).
 */
export function produceRequest(body: Buffer): KafkajsProtocolRequest<ReturnType<typeof decodeProduceV8>> {
  const encoded = { buf: body, offset: body.length, buffer: body };
  return {
    request: { apiKey: PRODUCE_API_KEY, apiVersion: PRODUCE_VERSION, apiName: 'Produce', encode: async () => encoded },
    response: { decode: async (payload: Buffer) => decodeProduceV8(payload), parse: async (data) => data },
  };
}
