import type { EncodedRecord, OffsetSync } from './types';
import { AbsurdRecordError, positionProblem } from './errors';
import { StructReader, StructWriter, decoding } from './wire';

/**
 * Offset-sync records (the `mm2-offset-syncs.<alias>.internal` topic): MM2's OffsetSync (recordKey, recordValue, deserializeRecord).
 *
 * key   = topic STRING, partition INT32
 * value = upstreamOffset INT64, offset (downstream) INT64
 *
 * There is no version header. The value is always 16 bytes.
 */

/** Input accepted by encodeOffsetSync: offsets may also be safe-integer numbers. */
export interface OffsetSyncInput {
  topic: string;
  partition: number;
  upstreamOffset: bigint | number;
  downstreamOffset: bigint | number;
}

/** Serializes an offset sync exactly as MM2's OffsetSync does. Throws TypeError/RangeError on bad input. */
export function encodeOffsetSync(sync: OffsetSyncInput): EncodedRecord {
  if (sync === null || typeof sync !== 'object') {
    throw new TypeError('encodeOffsetSync: expected an object {topic, partition, upstreamOffset, downstreamOffset}');
  }
  const key = new StructWriter()
    .writeString(sync.topic, 'topic')
    .writeInt32(sync.partition, 'partition')
    .toBuffer();
  const value = new StructWriter()
    .writeInt64(sync.upstreamOffset, 'upstreamOffset')
    .writeInt64(sync.downstreamOffset, 'offset')
    .toBuffer();
  return { key, value };
}

/**
 * Parses an offset-sync record. Any input it cannot read (null key or value, non-buffer,
 * short buffer, bad string length) throws MalformedRecordError. Trailing bytes are ignored.
 */
export function decodeOffsetSync(key: Buffer | Uint8Array | null | undefined, value: Buffer | Uint8Array | null | undefined): OffsetSync {
  return decoding('offset sync', () => {
    const k = new StructReader(key as Buffer, 'offset sync key');
    const topic = k.readString('topic');
    const partition = k.readInt32('partition');
    const v = new StructReader(value as Buffer, 'offset sync value');
    const upstreamOffset = v.readInt64('upstreamOffset');
    const downstreamOffset = v.readInt64('offset');
    return { topic, partition, upstreamOffset, downstreamOffset };
  });
}

/**
 * Why a decoded offset sync makes no sense, or null when it does. MM2 writes syncs only for
 * real records: partition, upstream and downstream offsets are never negative. A sync with a
 * negative offset would sit in the offset-sync store as the newest sync of its partition and
 * block translation there, so readers skip it (and count it like a malformed record).
 */
export function offsetSyncProblem(sync: OffsetSync): string | null {
  return positionProblem(sync);
}

/** decodeOffsetSync, then {@link offsetSyncProblem}: throws AbsurdRecordError (a MalformedRecordError) for a sync that makes no sense. */
export function decodeValidOffsetSync(key: Buffer | Uint8Array | null | undefined, value: Buffer | Uint8Array | null | undefined): OffsetSync {
  const sync = decodeOffsetSync(key, value);
  const problem = offsetSyncProblem(sync);
  if (problem) throw new AbsurdRecordError(`offset sync ${sync.topic}-${sync.partition}: ${problem}`);
  return sync;
}
