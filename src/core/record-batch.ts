/**
 * Kafka's record batch, magic v2 (org.apache.kafka.common.record.DefaultRecordBatch and
 * DefaultRecord), without compression, transactions or headers: what a producer sends in a
 * Produce request. Written in place into a buffer of the exact size, from the records' sizes,
 * with no object per record (issue 24: kafkajs's producer made several per record, promoted to
 * V8's old space during the catch-up's 100,000 checkpoints). No I/O: kafka/produce-request sends it.
 *
 * Batch header (61 bytes): baseOffset INT64 (0), batchLength INT32 (what follows it),
 * partitionLeaderEpoch INT32 (-1), magic INT8 (2), crc UINT32 (CRC-32C of everything after it),
 * attributes INT16 (0: no compression, CreateTime), lastOffsetDelta INT32, baseTimestamp INT64,
 * maxTimestamp INT64, producerId INT64 (-1), producerEpoch INT16 (-1), baseSequence INT32 (-1),
 * record count INT32. Each record: length VARINT (what follows it), attributes INT8 (0),
 * timestampDelta VARLONG, offsetDelta VARINT, key length VARINT + key, value length VARINT +
 * value, header count VARINT (0). VARINT/VARLONG are zigzag-encoded, 7 bits a byte, low bits first.
 */

/** The bytes of a batch header (up to and including the record count). */
export const RECORD_BATCH_OVERHEAD = 61;
/** Where the CRC-32C covers from (the attributes). */
const CRC_FROM = 21;
const CRC_AT = 17;

/** The records of one batch, read by index (no object per record). Keys and values are never null. */
export interface BatchRecords {
  readonly count: number;
  keyLength(i: number): number;
  valueLength(i: number): number;
  /** The record's timestamp (ms since the epoch; CreateTime). */
  timestamp(i: number): number;
  /** Writes the key's `keyLength(i)` bytes at `at`. */
  writeKey(i: number, buf: Buffer, at: number): void;
  /** Writes the value's `valueLength(i)` bytes at `at`. */
  writeValue(i: number, buf: Buffer, at: number): void;
}

/** Bytes of `n` as a zigzag VARINT/VARLONG (n a safe integer). */
export function zigzagLength(n: number): number {
  let z = n >= 0 ? n * 2 : -n * 2 - 1;
  let bytes = 1;
  while (z >= 0x80) {
    z = Math.floor(z / 0x80);
    bytes++;
  }
  return bytes;
}

/** Writes `n` as a zigzag VARINT/VARLONG at `at`; returns where it ends. */
export function writeZigzag(buf: Buffer, at: number, n: number): number {
  let z = n >= 0 ? n * 2 : -n * 2 - 1;
  while (z >= 0x80) {
    buf[at++] = (z % 0x80) | 0x80;
    z = Math.floor(z / 0x80);
  }
  buf[at++] = z;
  return at;
}

/** The bytes of record `i` after its length field, at offset and timestamp deltas `offsetDelta`, `timestampDelta`. */
function recordBodyLength(r: BatchRecords, i: number, timestampDelta: number): number {
  const k = r.keyLength(i);
  const v = r.valueLength(i);
  return 1 + zigzagLength(timestampDelta) + zigzagLength(i) + zigzagLength(k) + k + zigzagLength(v) + v + 1;
}

/** The first record's timestamp (the batch's base) and the largest. */
function timestamps(r: BatchRecords): { base: number; max: number } {
  const base = r.count > 0 ? r.timestamp(0) : -1;
  let max = base;
  for (let i = 1; i < r.count; i++) max = Math.max(max, r.timestamp(i));
  return { base, max };
}

/** The exact bytes of the batch of `r`'s records. */
export function recordBatchLength(r: BatchRecords): number {
  const { base } = timestamps(r);
  let n = RECORD_BATCH_OVERHEAD;
  for (let i = 0; i < r.count; i++) {
    const body = recordBodyLength(r, i, r.timestamp(i) - base);
    n += zigzagLength(body) + body;
  }
  return n;
}

/**
 * Writes the batch of `r`'s records at `at` (offsets 0..count-1 relative to the base offset the
 * broker assigns); returns where it ends. `buf` must hold recordBatchLength(r) bytes from `at`.
 */
export function writeRecordBatch(r: BatchRecords, buf: Buffer, at: number): number {
  if (r.count === 0) throw new RangeError('a record batch holds at least one record');
  const { base, max } = timestamps(r);
  let p = at + RECORD_BATCH_OVERHEAD;
  for (let i = 0; i < r.count; i++) {
    const delta = r.timestamp(i) - base;
    const body = recordBodyLength(r, i, delta);
    p = writeZigzag(buf, p, body);
    buf[p++] = 0; // attributes
    p = writeZigzag(buf, p, delta);
    p = writeZigzag(buf, p, i);
    const k = r.keyLength(i);
    p = writeZigzag(buf, p, k);
    r.writeKey(i, buf, p);
    p += k;
    const v = r.valueLength(i);
    p = writeZigzag(buf, p, v);
    r.writeValue(i, buf, p);
    p += v;
    buf[p++] = 0; // no headers
  }
  buf.writeBigInt64BE(0n, at); // baseOffset
  buf.writeInt32BE(p - at - 12, at + 8); // batchLength
  buf.writeInt32BE(-1, at + 12); // partitionLeaderEpoch
  buf.writeInt8(2, at + 16); // magic
  buf.writeInt16BE(0, at + 21); // attributes
  buf.writeInt32BE(r.count - 1, at + 23); // lastOffsetDelta
  buf.writeBigInt64BE(BigInt(base), at + 27);
  buf.writeBigInt64BE(BigInt(max), at + 35);
  buf.writeBigInt64BE(-1n, at + 43); // producerId
  buf.writeInt16BE(-1, at + 51); // producerEpoch
  buf.writeInt32BE(-1, at + 53); // baseSequence
  buf.writeInt32BE(r.count, at + 57);
  buf.writeUInt32BE(crc32c(buf, at + CRC_FROM, p), at + CRC_AT);
  return p;
}

/** The batch of `r`'s records in a buffer of its exact size. */
export function encodeRecordBatch(r: BatchRecords): Buffer {
  const buf = Buffer.allocUnsafe(recordBatchLength(r));
  writeRecordBatch(r, buf, 0);
  return buf;
}

// ---------------------------------------------------------------- CRC-32C (Castagnoli)

/** Slicing-by-8 tables of the reflected polynomial 0x82F63B78. */
const CRC_TABLES: Int32Array[] = (() => {
  const t = Array.from({ length: 8 }, () => new Int32Array(256));
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[0][n] = c;
  }
  for (let n = 0; n < 256; n++) {
    for (let k = 1; k < 8; k++) t[k][n] = (t[k - 1][n] >>> 8) ^ t[0][t[k - 1][n] & 0xff];
  }
  return t;
})();

/** CRC-32C of `buf[start, end)` (as java.util.zip.CRC32C), unsigned. */
export function crc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = CRC_TABLES;
  let crc = -1;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    crc ^= buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24);
    crc =
      t7[crc & 0xff] ^
      t6[(crc >>> 8) & 0xff] ^
      t5[(crc >>> 16) & 0xff] ^
      t4[crc >>> 24] ^
      t3[buf[i + 4]] ^
      t2[buf[i + 5]] ^
      t1[buf[i + 6]] ^
      t0[buf[i + 7]];
  }
  for (; i < end; i++) crc = t0[(crc ^ buf[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
