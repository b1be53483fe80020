import type { Checkpoint, EncodedRecord } from './types';
import { AbsurdRecordError, positionProblem } from './errors';
import { StructReader, StructWriter, decoding } from './wire';

/**
 * Checkpoint records (the `<source>.checkpoints.internal` topic): MM2's Checkpoint (recordKey, recordValue, deserializeRecord).
 *
 * key   = group STRING, topic STRING (remote/renamed name), partition INT32
 * value = version INT16 (written as 0), then v0: upstreamOffset INT64, offset INT64, metadata STRING
 *
 * Version policy (Checkpoint checks the version only with a JVM assert, off in production): we always write version 0. On read we do what
 * production MM2 does (JVM assertions off): read the INT16 version and parse the rest with
 * the v0 layout whatever the version is. A reader that wants to treat non-zero versions
 * specially can inspect the header with `checkpointValueVersion(value)`; decodeCheckpoint
 * itself keeps returning the plain Checkpoint shape.
 */

/** The value-header version MM2 writes. */
export const CHECKPOINT_VERSION = 0;

/** Input accepted by encodeCheckpoint: offsets may be safe-integer numbers; metadata may be absent. */
export interface CheckpointInput {
  group: string;
  topic: string;
  partition: number;
  upstreamOffset: bigint | number;
  downstreamOffset: bigint | number;
  /** null/undefined encode as "" (the Java client never has a null metadata). */
  metadata?: string | null;
}

/** Serializes a checkpoint exactly as MM2's Checkpoint does. Throws TypeError/RangeError on bad input. */
export function encodeCheckpoint(cp: CheckpointInput): EncodedRecord {
  if (cp === null || typeof cp !== 'object') {
    throw new TypeError('encodeCheckpoint: expected an object {group, topic, partition, upstreamOffset, downstreamOffset, metadata}');
  }
  const key = new StructWriter()
    .writeString(cp.group, 'group')
    .writeString(cp.topic, 'topic')
    .writeInt32(cp.partition, 'partition')
    .toBuffer();
  const value = new StructWriter()
    .writeInt16(CHECKPOINT_VERSION, 'version')
    .writeInt64(cp.upstreamOffset, 'upstreamOffset')
    .writeInt64(cp.downstreamOffset, 'offset')
    .writeString(cp.metadata ?? '', 'metadata')
    .toBuffer();
  return { key, value };
}

/**
 * Parses a checkpoint record. Any version is parsed with the v0 layout (upstream behaviour).
 * Any input it cannot read throws MalformedRecordError. Trailing bytes are ignored.
 */
export function decodeCheckpoint(key: Buffer | Uint8Array | null | undefined, value: Buffer | Uint8Array | null | undefined): Checkpoint {
  return decoding('checkpoint', () => {
    const v = new StructReader(value as Buffer, 'checkpoint value');
    v.readInt16('version');
    const upstreamOffset = v.readInt64('upstreamOffset');
    const downstreamOffset = v.readInt64('offset');
    const metadata = v.readString('metadata');
    const k = new StructReader(key as Buffer, 'checkpoint key');
    const group = k.readString('group');
    const topic = k.readString('topic');
    const partition = k.readInt32('partition');
    return { group, topic, partition, upstreamOffset, downstreamOffset, metadata };
  });
}

/** Reads only the INT16 version header of a checkpoint value. Throws MalformedRecordError if unreadable. */
export function checkpointValueVersion(value: Buffer | Uint8Array | null | undefined): number {
  return decoding('checkpoint value', () => new StructReader(value as Buffer, 'checkpoint value').readInt16('version'));
}

/**
 * Why a decoded checkpoint makes no sense, or null when it does. MM2 never writes a checkpoint
 * it could not translate (it drops those whose downstream offset is negative), so a negative
 * partition or offset comes from a forged or broken record: readers skip it and count it like
 * a malformed record.
 */
export function checkpointProblem(cp: Checkpoint): string | null {
  return positionProblem(cp);
}

/** decodeCheckpoint, then {@link checkpointProblem}: throws AbsurdRecordError (a MalformedRecordError) for a checkpoint that makes no sense. */
export function decodeValidCheckpoint(key: Buffer | Uint8Array | null | undefined, value: Buffer | Uint8Array | null | undefined): Checkpoint {
  const cp = decodeCheckpoint(key, value);
  const problem = checkpointProblem(cp);
  if (problem) throw new AbsurdRecordError(`checkpoint ${cp.group} ${cp.topic}-${cp.partition}: ${problem}`);
  return cp;
}
