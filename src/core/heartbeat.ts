import type { EncodedRecord, Heartbeat } from './types';
import { StructReader, StructWriter, decoding } from './wire';

/**
 * Heartbeat records (the `heartbeats` topic): MM2's Heartbeat (recordKey, recordValue, deserializeRecord).
 *
 * key   = sourceClusterAlias STRING, targetClusterAlias STRING
 * value = version INT16 (written as 0), then v0: timestamp INT64 (epoch ms)
 *
 * Version policy: same as checkpoints — write 0, parse any version with the v0 layout as
 * production MM2 does (its `assert version == 0` is disabled). `heartbeatValueVersion`
 * exposes the header for callers that care.
 */

/** The value-header version MM2 writes. */
export const HEARTBEAT_VERSION = 0;

/** Input accepted by encodeHeartbeat: the timestamp may be a bigint or a safe-integer number of ms. */
export interface HeartbeatInput {
  sourceClusterAlias: string;
  targetClusterAlias: string;
  timestamp: bigint | number;
}

/** Serializes a heartbeat exactly as MM2's Heartbeat does. Throws TypeError/RangeError on bad input. */
export function encodeHeartbeat(hb: HeartbeatInput): EncodedRecord {
  if (hb === null || typeof hb !== 'object') {
    throw new TypeError('encodeHeartbeat: expected an object {sourceClusterAlias, targetClusterAlias, timestamp}');
  }
  const key = new StructWriter()
    .writeString(hb.sourceClusterAlias, 'sourceClusterAlias')
    .writeString(hb.targetClusterAlias, 'targetClusterAlias')
    .toBuffer();
  const value = new StructWriter()
    .writeInt16(HEARTBEAT_VERSION, 'version')
    .writeInt64(hb.timestamp, 'timestamp')
    .toBuffer();
  return { key, value };
}

/**
 * Parses a heartbeat record; `timestamp` comes back as a bigint. Any input it cannot read
 * throws MalformedRecordError. Trailing bytes are ignored.
 */
export function decodeHeartbeat(key: Buffer | Uint8Array | null | undefined, value: Buffer | Uint8Array | null | undefined): Heartbeat {
  return decoding('heartbeat', () => {
    const v = new StructReader(value as Buffer, 'heartbeat value');
    v.readInt16('version');
    const timestamp = v.readInt64('timestamp');
    const k = new StructReader(key as Buffer, 'heartbeat key');
    const sourceClusterAlias = k.readString('sourceClusterAlias');
    const targetClusterAlias = k.readString('targetClusterAlias');
    return { sourceClusterAlias, targetClusterAlias, timestamp };
  });
}

/** Reads only the INT16 version header of a heartbeat value. Throws MalformedRecordError if unreadable. */
export function heartbeatValueVersion(value: Buffer | Uint8Array | null | undefined): number {
  return decoding('heartbeat value', () => new StructReader(value as Buffer, 'heartbeat value').readInt16('version'));
}
