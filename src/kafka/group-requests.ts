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
 */

export const API_KEYS = { OffsetFetch: 9, FindCoordinator: 10, ListGroups: 16 } as const;

/** Writes the primitive and compact types of the Kafka protocol. */
export class ProtocolWriter {
  private readonly parts: Buffer[] = [];

  int8(v: number): this {
    const b = Buffer.alloc(1);
    b.writeInt8(v);
    return this.raw(b);
  }
  int16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    return this.raw(b);
  }
  int32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    return this.raw(b);
  }
  bool(v: boolean): this {
    return this.int8(v ? 1 : 0);
  }
  uvarint(v: number): this {
    const bytes: number[] = [];
    let n = v >>> 0;
    while (n >= 0x80) {
      bytes.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    bytes.push(n);
    return this.raw(Buffer.from(bytes));
  }
  /** COMPACT_STRING: length + 1 as an unsigned varint, then UTF-8. */
  compactString(s: string): this {
    const b = Buffer.from(s, 'utf8');
    return this.uvarint(b.length + 1).raw(b);
  }
  /** COMPACT_NULLABLE_STRING: 0 for null. */
  compactNullableString(s: string | null): this {
    return s === null ? this.uvarint(0) : this.compactString(s);
  }
  /** COMPACT_ARRAY (null: 0, else length + 1). */
  compactArray<T>(items: readonly T[] | null, each: (w: this, item: T) => void): this {
    if (items === null) return this.uvarint(0);
    this.uvarint(items.length + 1);
    for (const it of items) each(this, it);
    return this;
  }
  /** An empty tagged-field section. */
  noTags(): this {
    return this.uvarint(0);
  }
  raw(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
  toBuffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Reads the primitive and compact types of the Kafka protocol; a short buffer throws. */
export class ProtocolReader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}

  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new Error(`truncated response: ${n} more bytes wanted at ${this.pos} of ${this.buf.length}`);
  }
  int8(): number {
    this.need(1);
    return this.buf.readInt8(this.pos++);
  }
  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  int64(): bigint {
    this.need(8);
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }
  uvarint(): number {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = this.buf[this.pos];
      if (b === undefined) throw new Error('truncated response: varint');
      this.pos++;
      if (shift > 28) throw new Error('malformed response: varint too long');
      v += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return v;
      shift += 7;
    }
  }
  compactNullableString(): string | null {
    const n = this.uvarint();
    if (n === 0) return null;
    this.need(n - 1);
    const s = this.buf.toString('utf8', this.pos, this.pos + n - 1);
    this.pos += n - 1;
    return s;
  }
  compactString(): string {
    const s = this.compactNullableString();
    if (s === null) throw new Error('malformed response: null where a string is required');
    return s;
  }
  compactArray<T>(each: (r: this) => T): T[] {
    const n = this.uvarint();
    const out: T[] = [];
    for (let i = 1; i < n; i++) out.push(each(this));
    return out;
  }
  /** Skips a tagged-field section (tags we do not know are ignored, as the protocol says). */
  skipTags(): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint(); // tag
      const size = this.uvarint();
      this.need(size);
      this.pos += size;
    }
  }
  get remaining(): number {
    return this.buf.length - this.pos;
  }
}

// ---------------------------------------------------------------- OffsetFetch v8

export interface OffsetFetchGroupRequest {
  groupId: string;
  /** null: every committed offset of the group. */
  topics: Array<{ topic: string; partitions: number[] }> | null;
}

export function encodeOffsetFetchV8(groups: readonly OffsetFetchGroupRequest[], requireStable = false): Buffer {
  return new ProtocolWriter()
    .compactArray(groups, (w, g) => {
      w.compactString(g.groupId)
        .compactArray(g.topics, (w2, t) => {
          w2.compactString(t.topic).compactArray(t.partitions, (w3, p) => w3.int32(p)).noTags();
        })
        .noTags();
    })
    .bool(requireStable)
    .noTags()
    .toBuffer();
}

export interface OffsetFetchGroupResult {
  groupId: string;
  errorCode: number;
  topics: Array<{
    topic: string;
    partitions: Array<{ partition: number; offset: bigint; leaderEpoch: number; metadata: string | null; errorCode: number }>;
  }>;
}

export function decodeOffsetFetchV8(body: Buffer): { throttleTimeMs: number; groups: OffsetFetchGroupResult[] } {
  const r = new ProtocolReader(body);
  const throttleTimeMs = r.int32();
  const groups = r.compactArray((r1) => {
    const groupId = r1.compactString();
    const topics = r1.compactArray((r2) => {
      const topic = r2.compactString();
      const partitions = r2.compactArray((r3) => {
        const p = { partition: r3.int32(), offset: r3.int64(), leaderEpoch: r3.int32(), metadata: r3.compactNullableString(), errorCode: r3.int16() };
        r3.skipTags();
        return p;
      });
      r2.skipTags();
      return { topic, partitions };
    });
    const errorCode = r1.int16();
    r1.skipTags();
    return { groupId, errorCode, topics };
  });
  r.skipTags();
  return { throttleTimeMs, groups };
}

// ---------------------------------------------------------------- FindCoordinator v4

/** Key type 0: consumer groups. */
export function encodeFindCoordinatorV4(groupIds: readonly string[]): Buffer {
  return new ProtocolWriter()
    .int8(0)
    .compactArray(groupIds, (w, g) => w.compactString(g))
    .noTags()
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
  const r = new ProtocolReader(body);
  const throttleTimeMs = r.int32();
  const coordinators = r.compactArray((r1) => {
    const c = { key: r1.compactString(), nodeId: r1.int32(), host: r1.compactString(), port: r1.int32(), errorCode: r1.int16(), errorMessage: r1.compactNullableString() };
    r1.skipTags();
    return c;
  });
  r.skipTags();
  return { throttleTimeMs, coordinators };
}

// ---------------------------------------------------------------- ListGroups v4 / v5

/** Empty filters: every group (v4: states, v5 also types). */
export function encodeListGroups(version: 4 | 5): Buffer {
  const w = new ProtocolWriter().compactArray([], () => undefined);
  if (version >= 5) w.compactArray([], () => undefined);
  return w.noTags().toBuffer();
}

export interface ListedGroup {
  groupId: string;
  protocolType: string;
  state: string;
  /** v5 only: classic, consumer, share, streams. */
  type?: string;
}

export function decodeListGroups(version: 4 | 5, body: Buffer): { throttleTimeMs: number; errorCode: number; groups: ListedGroup[] } {
  const r = new ProtocolReader(body);
  const throttleTimeMs = r.int32();
  const errorCode = r.int16();
  const groups = r.compactArray((r1) => {
    const g: ListedGroup = { groupId: r1.compactString(), protocolType: r1.compactString(), state: r1.compactString() };
    if (version >= 5) g.type = r1.compactString();
    r1.skipTags();
    return g;
  });
  r.skipTags();
  return { throttleTimeMs, errorCode, groups };
}

// ---------------------------------------------------------------- kafkajs framing

/** The request object kafkajs's connection sends (its encode must return a kafkajs Encoder). */
export interface KafkajsProtocolRequest<T> {
  request: { apiKey: number; apiVersion: number; apiName: string; encode(): Promise<unknown> };
  response: { decode(payload: Buffer): Promise<T>; parse(data: T): Promise<T> };
}

// kafkajs's Encoder (a pinned internal of kafkajs 2.2.4, like the cluster factory in groups.ts)
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
  const r = new ProtocolReader(payload);
  r.skipTags();
  return payload.subarray(payload.length - r.remaining);
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
