import type { EncodedRecord, OffsetSync } from './types';
import { StructReader, StructWriter, decoding } from './wire';

/**
 * Offset-sync records (the `mm2-offset-syncs.<alias>.internal` topic), spec §2.2.
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
