/**
 * Kafka group requests that kafkajs 2.2.4 lacks, encoded and decoded here and sent over a
 * kafkajs broker connection (`broker.connectionPool.send`):
 * - OffsetFetch v8 (KIP-709): the committed offsets of many groups in one request;
 * - FindCoordinator v4 (KIP-699): the coordinators of many groups in one request;
 * - ListGroups v4/v5: every group of a broker with its state (v4) and type (v5).
 *
 * These versions are "flexible" (compact strings and arrays, tagged fields). kafkajs writes
 * request header v1 and reads response header v0; the flexible headers (v2 / v1) only add an
 * empty tagged-field section after the client id and after the correlation id, so the request
 * body starts with that section and the response decoder skips it.
 * Field layouts: clients/src/main/resources/common/message/*.json in apache/kafka.
 * The protocol types are core/wire's StructWriter/StructReader; a malformed or truncated
 * response throws MalformedRecordError naming the field and the response.
 */

import { MalformedRecordError } from '../core/errors';
import type { CommittedOffset } from '../core/types';
import { StructReader, StructWriter } from '../core/wire';

export const API_KEYS = { OffsetFetch: 9, FindCoordinator: 10, ListGroups: 16 } as const;

// ---------------------------------------------------------------- OffsetFetch v8

export interface OffsetFetchGroupRequest {
  groupId: string;
  /** null: every committed offset of the group. */
  topics: Array<{ topic: string; partitions: number[] }> | null;
}

export function encodeOffsetFetchV8(groups: readonly OffsetFetchGroupRequest[], requireStable = false): Buffer {
  return new StructWriter()
    .writeCompactArray(groups, (w, g) => {
      w.writeCompactString(g.groupId, 'groups.group_id')
        .writeCompactArray(g.topics, (w2, t) => {
          w2.writeCompactString(t.topic, 'topics.name')
            .writeCompactArray(t.partitions, (w3, p) => w3.writeInt32(p, 'partition_indexes'))
            .writeEmptyTaggedFields();
        })
        .writeEmptyTaggedFields();
    })
    .writeBool(requireStable, 'require_stable')
    .writeEmptyTaggedFields()
    .toBuffer();
}

/** A group of an OffsetFetch v8 answer as the group client hands it over: its offsets decoded straight into CommittedOffset. */
export interface OffsetFetchGroupOffsets {
  groupId: string;
  errorCode: number;
  /** The partitions without an error (a committed offset of -1: null, as fetchCommittedOffsets gives it). */
  offsets: CommittedOffset[];
  /** The last partition with an error, if any (the group's read then fails). */
  partitionError: { topic: string; partition: number; errorCode: number } | null;
}

/**
 * Decodes an OffsetFetch v8 answer straight into each group's CommittedOffset list: no
 * intermediate object per partition and per topic (at 10,000 groups x 10 partitions, a full read
 * made 100,000 of each besides the offsets themselves), and one string per topic name for the
 * groups of the answer that follow each other on it.
 */
export function decodeOffsetFetchV8Offsets(body: Buffer): { throttleTimeMs: number; groups: OffsetFetchGroupOffsets[] } {
  const r = new StructReader(body, 'OffsetFetch v8 response');
  const throttleTimeMs = r.readInt32('throttle_time_ms');
  // a topic named by the same bytes as the last one decoded is that string (the groups of one answer commit on the same topics)
  let lastTopic = '';
  let lastAt = -1;
  let lastLen = -1;
  const topicName = (r2: StructReader): string => {
    const at = r2.offset;
    const n = r2.readUnsignedVarint('topics.name length') - 1;
    const start = r2.offset;
    if (n === lastLen && lastAt >= 0 && n <= r2.remaining && body.compare(body, lastAt, lastAt + n, start, start + n) === 0) {
      r2.skip(n, 'topics.name');
      return lastTopic;
    }
    r2.rewind(at);
    lastTopic = r2.readCompactString('topics.name');
    lastAt = start;
    lastLen = n;
    return lastTopic;
  };
  const groups = r.readCompactArray((r1) => {
    const groupId = r1.readCompactString('groups.group_id');
    const offsets: CommittedOffset[] = [];
    let partitionError: OffsetFetchGroupOffsets['partitionError'] = null;
    const topics = r1.readUnsignedVarint('topics length') - 1;
    if (topics > r1.remaining) throw new MalformedRecordError(`Error reading field 'topics' of OffsetFetch v8 response: ${topics} items but ${r1.remaining} bytes left`);
    for (let t = 0; t < topics; t++) {
      const topic = topicName(r1);
      const partitions = r1.readUnsignedVarint('partitions length') - 1;
      if (partitions > r1.remaining) throw new MalformedRecordError(`Error reading field 'partitions' of OffsetFetch v8 response: ${partitions} items but ${r1.remaining} bytes left`);
      for (let i = 0; i < partitions; i++) {
        const partition = r1.readInt32('partition_index');
        const offset = r1.readInt64('committed_offset');
        r1.readInt32('committed_leader_epoch');
        const metadata = r1.readCompactNullableString('metadata');
        const errorCode = r1.readInt16('partitions.error_code');
        r1.skipTaggedFields();
        if (errorCode !== 0) partitionError = { topic, partition, errorCode };
        else offsets.push({ topic, partition, offset: offset < 0n ? null : offset, metadata: metadata ?? '' });
      }
      r1.skipTaggedFields();
    }
    const errorCode = r1.readInt16('groups.error_code');
    r1.skipTaggedFields();
    return { groupId, errorCode, offsets, partitionError };
  }, 'groups');
  r.skipTaggedFields();
  return { throttleTimeMs, groups };
}

// ---------------------------------------------------------------- FindCoordinator v4

/** Key type 0: consumer groups. */
export function encodeFindCoordinatorV4(groupIds: readonly string[]): Buffer {
  return new StructWriter()
    .writeInt8(0, 'key_type')
    .writeCompactArray(groupIds, (w, g) => w.writeCompactString(g, 'coordinator_keys'))
    .writeEmptyTaggedFields()
    .toBuffer();
}

export interface CoordinatorResult {
  key: string;
  nodeId: number;
  host: string;
  port: number;
  errorCode: number;
  errorMessage: string | null;
}

export function decodeFindCoordinatorV4(body: Buffer): { throttleTimeMs: number; coordinators: CoordinatorResult[] } {
  const r = new StructReader(body, 'FindCoordinator v4 response');
  const throttleTimeMs = r.readInt32('throttle_time_ms');
  const coordinators = r.readCompactArray((r1) => {
    const c = {
      key: r1.readCompactString('key'),
      nodeId: r1.readInt32('node_id'),
      host: r1.readCompactString('host'),
      port: r1.readInt32('port'),
      errorCode: r1.readInt16('error_code'),
      errorMessage: r1.readCompactNullableString('error_message'),
    };
    r1.skipTaggedFields();
    return c;
  }, 'coordinators');
  r.skipTaggedFields();
  return { throttleTimeMs, coordinators };
}

// ---------------------------------------------------------------- ListGroups v4 / v5

/** Empty filters: every group (v4: states, v5 also types). */
export function encodeListGroups(version: 4 | 5): Buffer {
  const w = new StructWriter().writeCompactArray([], () => undefined, 'states_filter');
  if (version >= 5) w.writeCompactArray([], () => undefined, 'types_filter');
  return w.writeEmptyTaggedFields().toBuffer();
}

export interface ListedGroup {
  groupId: string;
  protocolType: string;
  state: string;
  /** v5 only: classic, consumer, share, streams. */
  type?: string;
}

/** A decoded ListGroups answer, with where each group's bytes start in `body` (and where the last ends). */
export interface ListGroupsDecoding {
  throttleTimeMs: number;
  errorCode: number;
  groups: ListedGroup[];
  body: Buffer;
  starts: number[];
}

/** The few states, protocol types and group types, one string each (kept per listed group). */
const smallStrings = new Map<string, string>();
function shared(s: string): string {
  const had = smallStrings.get(s);
  if (had !== undefined) return had;
  if (smallStrings.size < 64) smallStrings.set(s, s);
  return s;
}

const NEAR = [0, 1, -1, 2];

/** Skips one listed group (its strings and tags), returning where it ends. */
function skipListedGroup(r: StructReader, version: 4 | 5): number {
  const fields = version >= 5 ? 4 : 3;
  for (let i = 0; i < fields; i++) {
    const n = r.readUnsignedVarint('group field length');
    if (n === 0) throw new MalformedRecordError(`Error reading a listed group of ListGroups v${version} response: null for a non-nullable string`);
    r.skip(n - 1, 'group field');
  }
  r.skipTaggedFields();
  return r.offset;
}

/**
 * Decodes a ListGroups v4/v5 answer. With `previous` (the same broker's last decoding), a group
 * whose bytes are the same as in the last answer near the same place (the same index, or one or
 * two off: groups added or removed before it) is the last answer's object, not decoded again: a
 * listing of 20,000 groups every second where a few change decodes those few. Anything else is
 * decoded; a reused group is never a different one (its bytes are compared whole).
 */
export function decodeListGroups(version: 4 | 5, body: Buffer, previous?: ListGroupsDecoding): ListGroupsDecoding {
  const r = new StructReader(body, `ListGroups v${version} response`);
  const throttleTimeMs = r.readInt32('throttle_time_ms');
  const errorCode = r.readInt16('error_code');
  const starts: number[] = [];
  const last = previous !== undefined && previous.errorCode === 0 ? previous : undefined;
  let k = 0;
  const sameAsLast = (start: number, end: number, i: number): boolean => {
    if (last === undefined || i < 0 || i + 1 >= last.starts.length) return false;
    const ps = last.starts[i];
    const pe = last.starts[i + 1];
    return pe - ps === end - start && body.compare(last.body, ps, pe, start, end) === 0;
  };
  const groups = r.readCompactArray((r1) => {
    const start = r1.offset;
    starts.push(start);
    if (last !== undefined) {
      const end = skipListedGroup(r1, version);
      // where the last answer had it: here, one further (one removed before), one back (one added before), two further
      for (const d of NEAR) {
        if (sameAsLast(start, end, k + d)) {
          k += d + 1;
          return last.groups[k - 1];
        }
      }
      // not the last answer's: decoded below (taken for the one it replaced)
      k++;
      r1.rewind(start);
    }
    const g: ListedGroup = {
      groupId: r1.readCompactString('group_id'),
      protocolType: shared(r1.readCompactString('protocol_type')),
      state: shared(r1.readCompactString('group_state')),
    };
    if (version >= 5) g.type = shared(r1.readCompactString('group_type'));
    r1.skipTaggedFields();
    return g;
  }, 'groups');
  starts.push(r.offset);
  r.skipTaggedFields();
  return { throttleTimeMs, errorCode, groups, body, starts };
}

// ---------------------------------------------------------------- kafkajs framing

/** The request object kafkajs's connection sends (its encode must return a kafkajs Encoder). */
export interface KafkajsProtocolRequest<T> {
  request: { apiKey: number; apiVersion: number; apiName: string; encode(): Promise<unknown> };
  response: { decode(payload: Buffer): Promise<T>; parse(data: T): Promise<T> };
}

// kafkajs's Encoder (a pinned internal of kafkajs 2.2.4, like the cluster factory in kafkajs-cluster.ts)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const KafkajsEncoder = require('kafkajs/src/protocol/encoder') as new () => { writeBuffer(b: Buffer): unknown };

/**
 * A flexible-version request for kafkajs's connection: request header v2 (the empty tagged
 * fields after the client id, first in the body) and response header v1 (tagged fields after
 * the correlation id, skipped before `decode`).
 */
export function flexibleRequest<T>(apiName: keyof typeof API_KEYS, apiVersion: number, body: Buffer, decode: (body: Buffer) => T): KafkajsProtocolRequest<T> {
  const framed = Buffer.concat([Buffer.from([0]), body]);
  return {
    request: {
      apiKey: API_KEYS[apiName],
      apiVersion,
      apiName,
      encode: async () => {
        const e = new KafkajsEncoder();
        e.writeBuffer(framed);
        return e;
      },
    },
    response: {
      decode: async (payload: Buffer) => decode(skipResponseHeaderTags(payload)),
      parse: async (data: T) => data,
    },
  };
}

/** The response body after response header v1's tagged fields. */
export function skipResponseHeaderTags(payload: Buffer): Buffer {
  const r = new StructReader(payload, 'response header v1');
  r.skipTaggedFields();
  return payload.subarray(r.offset);
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const kafkaErrors = (require('kafkajs/src/protocol/error') as { errorCodes: Array<{ type: string; code: number; message: string }> }).errorCodes;

/** The Kafka error name of a protocol error code (NONE for 0). */
export function errorType(code: number): string {
  if (code === 0) return 'NONE';
  return kafkaErrors.find((e) => e.code === code)?.type ?? `KAFKA_ERROR_${code}`;
}

/** A Kafka error code as an Error with `type` (as kafkajs's protocol errors carry it). */
export function protocolError(code: number, context: string, message?: string | null): Error & { type: string; code: number } {
  const type = errorType(code);
  const known = kafkaErrors.find((e) => e.code === code)?.message;
  const e = new Error(`${context}: ${type}${message ? ` (${message})` : known ? ` (${known})` : ''}`) as Error & { type: string; code: number };
  e.type = type;
  e.code = code;
  return e;
}
