import type { Checkpoint, EncodedRecord } from './types';
import { AbsurdRecordError, positionProblem } from './errors';
import type { BatchRecords } from './record-batch';
import { StructReader, checkedInt32, decoding, stringLength, toInt64, writeStringAt } from './wire';

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

/** Key bytes: group STRING, topic STRING, partition INT32. */
const keyLength = (groupBytes: number, topicBytes: number): number => 2 + groupBytes + 2 + topicBytes + 4;
/** Value bytes: version INT16, upstreamOffset INT64, offset INT64, metadata STRING. */
const valueLength = (metadataBytes: number): number => 2 + 8 + 8 + 2 + metadataBytes;

function notAnObject(cp: unknown): void {
  if (cp === null || typeof cp !== 'object') {
    throw new TypeError('encodeCheckpoint: expected an object {group, topic, partition, upstreamOffset, downstreamOffset, metadata}');
  }
}

/**
 * Checks a checkpoint's fields in MM2's field order (TypeError/RangeError as StructWriter would
 * throw them) and puts its strings' UTF-8 lengths (group, topic, metadata) at `lens[at..at+2]`.
 */
function check(cp: CheckpointInput, lens: Int32Array, at: number): void {
  notAnObject(cp);
  lens[at] = stringLength(cp.group, 'group');
  lens[at + 1] = stringLength(cp.topic, 'topic');
  checkedInt32(cp.partition, 'partition');
  toInt64(cp.upstreamOffset, 'upstreamOffset');
  toInt64(cp.downstreamOffset, 'offset');
  lens[at + 2] = stringLength(cp.metadata ?? '', 'metadata');
}

/** Writes a checked checkpoint's key at `at` (its strings' lengths at `lens[l..l+1]`). */
function writeKey(cp: CheckpointInput, lens: Int32Array, l: number, buf: Buffer, at: number): void {
  let p = writeStringAt(buf, at, cp.group, lens[l]);
  p = writeStringAt(buf, p, cp.topic, lens[l + 1]);
  buf.writeInt32BE(cp.partition, p);
}

/** A view of a buffer for its INT64s (DataView.setBigInt64 makes no intermediate BigInt, Buffer.writeBigInt64BE makes four). */
const viewOf = (buf: Buffer): DataView => new DataView(buf.buffer, buf.byteOffset, buf.byteLength);

/** Writes a checked checkpoint's value at `at` of `buf` (`view`: a DataView of it; its metadata's length at `lens[l+2]`). */
function writeValue(cp: CheckpointInput, lens: Int32Array, l: number, buf: Buffer, view: DataView, at: number): void {
  buf.writeInt16BE(CHECKPOINT_VERSION, at);
  view.setBigInt64(at + 2, typeof cp.upstreamOffset === 'bigint' ? cp.upstreamOffset : BigInt(cp.upstreamOffset));
  view.setBigInt64(at + 10, typeof cp.downstreamOffset === 'bigint' ? cp.downstreamOffset : BigInt(cp.downstreamOffset));
  writeStringAt(buf, at + 18, cp.metadata ?? '', lens[l + 2]);
}

/**
 * Serializes a checkpoint exactly as MM2's Checkpoint does: key and value written into one
 * buffer of their exact size (two views of it). Throws TypeError/RangeError on bad input.
 */
export function encodeCheckpoint(cp: CheckpointInput): EncodedRecord {
  const lens = new Int32Array(3);
  check(cp, lens, 0);
  const k = keyLength(lens[0], lens[1]);
  const buf = Buffer.allocUnsafe(k + valueLength(lens[2]));
  writeKey(cp, lens, 0, buf, 0);
  writeValue(cp, lens, 0, buf, viewOf(buf), k);
  return { key: buf.subarray(0, k), value: buf.subarray(k) };
}

/** Key + value bytes of a checkpoint's record (what encodeCheckpoint makes), without encoding it. Throws as encodeCheckpoint. */
export function checkpointRecordBytes(cp: CheckpointInput): number {
  notAnObject(cp);
  return keyLength(stringLength(cp.group, 'group'), stringLength(cp.topic, 'topic')) + valueLength(stringLength(cp.metadata ?? '', 'metadata'));
}

/**
 * Checkpoints as the records of one record batch (core/record-batch), each key and value exactly
 * as encodeCheckpoint makes them, written straight into the batch (no buffer per record); the
 * record timestamp is `timestamp` (when the group's offsets were listed). Checked here: throws as
 * encodeCheckpoint does.
 */
export function checkpointBatchRecords(list: ReadonlyArray<CheckpointInput & { timestamp: number }>): BatchRecords {
  const lens = new Int32Array(list.length * 3);
  for (let i = 0; i < list.length; i++) check(list[i], lens, i * 3);
  // the view of the buffer the batch is written into (one per batch written)
  let viewed: Buffer | null = null;
  let view: DataView | null = null;
  const viewOfBatch = (buf: Buffer): DataView => {
    if (viewed !== buf || view === null) {
      viewed = buf;
      view = viewOf(buf);
    }
    return view;
  };
  return {
    count: list.length,
    keyLength: (i) => keyLength(lens[i * 3], lens[i * 3 + 1]),
    valueLength: (i) => valueLength(lens[i * 3 + 2]),
    timestamp: (i) => list[i].timestamp,
    writeKey: (i, buf, at) => writeKey(list[i], lens, i * 3, buf, at),
    writeValue: (i, buf, at) => writeValue(list[i], lens, i * 3, buf, viewOfBatch(buf), at),
  };
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
