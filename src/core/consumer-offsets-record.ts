import { AbsurdRecordError, MalformedRecordError } from './errors';
import { StructReader, decoding } from './wire';

/**
 * Records of a cluster's `__consumer_offsets` topic, as the group coordinator writes them
 * (Kafka 3.9 and 4.x: the formats are the generated messages of the group coordinator, the
 * record type first).
 *
 * key   = INT16 record type (Kafka calls it the key version), then the key fields of that type
 *         (non-flexible Struct: STRING = INT16 length + UTF-8 bytes). Every group-keyed type
 *         starts with the group id.
 * value = INT16 value version, then the value fields of that version; a null value is a tombstone.
 *
 * Record types (both versions agree on the numbers; 9 and 18 were written by 4.0 only):
 *   0, 1  offset commit          key: group, topic, partition INT32
 *   2     classic group metadata key: group
 *   3-8   consumer groups (KIP-848), 16 their regular expressions
 *   9-15  share groups, 17-23 streams groups
 *
 * Offset commit values:
 *   v0, v2  offset INT64, metadata STRING, commitTimestamp INT64
 *   v1      the same + expireTimestamp INT64 (older clients asking for a retention)
 *   v3      offset INT64, leaderEpoch INT32, metadata STRING, commitTimestamp INT64
 *   v4      v3 flexible: metadata COMPACT_STRING, then tagged fields (4.1: topicId)
 * Classic group metadata values v0-v3 (v4 = flexible): protocolType, generation INT32, protocol
 *   and leader NULLABLE_STRING, currentStateTimestamp INT64 (v2+), members ARRAY.
 *
 * "Unknown" means a record type or value version that neither Kafka version writes: the
 * decoder throws MalformedRecordError and the reader skips and counts the record.
 */
export type ConsumerOffsetsRecord =
  | { type: 'offset-commit'; group: string; topic: string; partition: number; offset: bigint; leaderEpoch: number; metadata: string; commitTimestamp: bigint }
  /** Tombstone of an offset key: deleted (OffsetDelete, group deletion) or expired. */
  | { type: 'offset-delete'; group: string; topic: string; partition: number }
  /** Classic group metadata value. */
  | { type: 'group-metadata'; group: string; protocolType: string; generation: number; members: number }
  /** Tombstone of a group's metadata key (classic, consumer or streams group): deleted, removed, or converted to the other protocol. */
  | { type: 'group-delete'; group: string }
  /** Known record types carrying no offsets (KIP-848 consumer-group records, share and streams groups). */
  | { type: 'ignored'; keyVersion: number; group?: string };

/** Record types that are offset commits. */
const OFFSET_COMMIT_TYPES = new Set([0, 1]);
const GROUP_METADATA_TYPE = 2;
/** Group-metadata types of the new protocols (consumer, streams) whose tombstone means the group is gone. */
const GROUP_TOMBSTONE_TYPES = new Set([3, 17]);
/** Highest record type either supported Kafka version writes (3-23: consumer, share and streams groups). */
const LAST_KNOWN_TYPE = 23;
/** Highest offset-commit and group-metadata value versions (v4 is the first flexible one). */
const LAST_VALUE_VERSION = 4;

/** Decodes one `__consumer_offsets` record (a null value is a tombstone); throws MalformedRecordError for what it cannot read. */
export function decodeConsumerOffsetsRecord(key: Buffer | null, value: Buffer | null): ConsumerOffsetsRecord {
  if (key === null || key === undefined) throw new MalformedRecordError('__consumer_offsets record has no key');
  return decoding('__consumer_offsets record', () => {
    const k = new StructReader(key, '__consumer_offsets key');
    const type = k.readInt16('key version');
    if (OFFSET_COMMIT_TYPES.has(type)) {
      const group = k.readString('group');
      const topic = k.readString('topic');
      const partition = k.readInt32('partition');
      if (partition < 0) throw new AbsurdRecordError(`offset commit of group ${group} for ${topic}-${partition}: partition ${partition} is negative`);
      if (value === null || value === undefined) return { type: 'offset-delete', group, topic, partition };
      return { type: 'offset-commit', group, topic, partition, ...offsetCommitValue(value, group, topic, partition) };
    }
    if (type === GROUP_METADATA_TYPE) {
      const group = k.readString('group');
      if (value === null || value === undefined) return { type: 'group-delete', group };
      return { type: 'group-metadata', group, ...groupMetadataValue(value) };
    }
    if (type >= 3 && type <= LAST_KNOWN_TYPE) {
      const group = k.readString('group');
      if ((value === null || value === undefined) && GROUP_TOMBSTONE_TYPES.has(type)) return { type: 'group-delete', group };
      return { type: 'ignored', keyVersion: type, group };
    }
    throw new MalformedRecordError(
      `__consumer_offsets key version ${type} is unknown (offset commits are 0-1, group metadata 2, other group records 3-${LAST_KNOWN_TYPE}): skipped`,
    );
  });
}

function valueVersion(v: StructReader, what: string): number {
  const version = v.readInt16('version');
  if (version < 0 || version > LAST_VALUE_VERSION) {
    throw new MalformedRecordError(`${what} value version ${version} is unknown (0-${LAST_VALUE_VERSION} are known): skipped`);
  }
  return version;
}

function offsetCommitValue(value: Buffer, group: string, topic: string, partition: number) {
  const v = new StructReader(value, 'offset commit value');
  const version = valueVersion(v, 'offset commit');
  const offset = v.readInt64('offset');
  const leaderEpoch = version >= 3 ? v.readInt32('leaderEpoch') : -1;
  const metadata = version >= 4 ? v.readCompactString('metadata') : v.readString('metadata');
  const commitTimestamp = v.readInt64('commitTimestamp');
  if (version === 1) v.readInt64('expireTimestamp');
  if (version >= 4) v.skipTaggedFields();
  if (offset < 0n) throw new AbsurdRecordError(`offset commit of group ${group} for ${topic}-${partition}: offset ${offset} is negative`);
  return { offset, leaderEpoch, metadata, commitTimestamp };
}

function groupMetadataValue(value: Buffer) {
  const v = new StructReader(value, 'group metadata value');
  const version = valueVersion(v, 'group metadata');
  const flexible = version >= 4;
  const protocolType = flexible ? v.readCompactString('protocolType') : v.readString('protocolType');
  const generation = v.readInt32('generation');
  if (flexible) {
    v.readCompactNullableString('protocol');
    v.readCompactNullableString('leader');
  } else {
    v.readNullableString('protocol');
    v.readNullableString('leader');
  }
  if (version >= 2) v.readInt64('currentStateTimestamp');
  const members = flexible ? v.readUnsignedVarint('members length') - 1 : v.readInt32('members length');
  if (members < 0) throw new MalformedRecordError(`group metadata value: members array length ${members} cannot be negative (null)`);
  return { protocolType, generation, members };
}
