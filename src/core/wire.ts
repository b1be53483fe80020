import { MalformedRecordError } from './errors';

/**
 * The one reader/writer of Kafka's protocol types (org.apache.kafka.common.protocol.types),
 * for MirrorMaker 2's internal records (Struct/Schema), the `__consumer_offsets` records and
 * the request/response bodies we encode ourselves (kafka/group-requests):
 *
 * - fields are written back to back, in schema order, with no names, padding or overall
 *   length prefix;
 * - INT8 / INT16 / INT32 / INT64 are big-endian two's complement; BOOLEAN is one byte;
 * - STRING is an INT16 byte count N (UTF-8 bytes, 0..32767, never null) followed by N bytes;
 * - flexible versions add UNSIGNED_VARINT, COMPACT_(NULLABLE_)STRING (length + 1 as an
 *   unsigned varint, 0 = null), COMPACT_ARRAY (count + 1, 0 = null) and tagged-field sections.
 *
 * Error policy:
 * - Encoding bad input (a value out of range, a string too long, a wrong type) is a
 *   programming error: the writer throws RangeError or TypeError.
 * - Decoding bad input (null buffer, too short, negative or oversized string length) is
 *   malformed data: the reader throws MalformedRecordError naming the field and nothing else
 *   (a malformed broker response included).
 * - Like upstream, the reader never checks that the whole buffer was consumed; trailing
 *   bytes are ignored.
 */

export const INT16_MIN = -0x8000;
export const INT16_MAX = 0x7fff;
export const INT32_MIN = -0x80000000;
export const INT32_MAX = 0x7fffffff;
export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;
/** Largest STRING payload in bytes (the length prefix is a signed INT16). */
export const STRING_MAX_BYTES = INT16_MAX;

/** Number of bytes `s` takes in UTF-8 (what the STRING length prefix counts). */
export function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/**
 * Validates an int64 value for writing and returns it as a bigint. A number is accepted
 * when it is a safe integer (Number.isSafeInteger); anything else is a TypeError, and a
 * bigint outside [-2^63, 2^63-1] is a RangeError.
 */
export function toInt64(value: bigint | number, field = 'value'): bigint {
  if (typeof value === 'bigint') {
    if (value < INT64_MIN || value > INT64_MAX) {
      throw new RangeError(`${field}: ${value} is outside the INT64 range [-2^63, 2^63-1]`);
    }
    return value;
  }
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) {
      throw new TypeError(`${field}: ${value} is not an integer`);
    }
    if (!Number.isSafeInteger(value)) {
      throw new RangeError(`${field}: ${value} is not a safe integer; pass a bigint for values beyond 2^53-1`);
    }
    return BigInt(value);
  }
  throw new TypeError(`${field}: expected a bigint or an integer number, got ${describe(value)}`);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v;
}

function checkInt(value: unknown, min: number, max: number, type: string, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${field}: expected an integer ${type}, got ${typeof value === 'number' ? value : describe(value)}`);
  }
  if (value < min || value > max) {
    throw new RangeError(`${field}: ${value} is outside the ${type} range [${min}, ${max}]`);
  }
  return value;
}

/** A string's UTF-8 bytes, refused (TypeError, RangeError) when not a string or longer than 32767 bytes. */
function stringBytes(value: unknown, field: string, type: string): Buffer {
  if (typeof value !== 'string') {
    throw new TypeError(`${field}: expected a string, got ${describe(value)} (${type} is not nullable)`);
  }
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length > STRING_MAX_BYTES) {
    throw new RangeError(`${field}: string is ${bytes.length} UTF-8 bytes, longer than the maximum of ${STRING_MAX_BYTES}`);
  }
  return bytes;
}

/** A STRING's UTF-8 byte count, refused as StructWriter.writeString refuses it (TypeError, RangeError): for writers into an exact buffer. */
export function stringLength(value: unknown, field = 'STRING'): number {
  if (typeof value !== 'string') {
    throw new TypeError(`${field}: expected a string, got ${describe(value)} (STRING is not nullable)`);
  }
  const n = Buffer.byteLength(value, 'utf8');
  if (n > STRING_MAX_BYTES) {
    throw new RangeError(`${field}: string is ${n} UTF-8 bytes, longer than the maximum of ${STRING_MAX_BYTES}`);
  }
  return n;
}

/** An INT32 checked as StructWriter.writeInt32 checks it. */
export function checkedInt32(value: unknown, field = 'INT32'): number {
  return checkInt(value, INT32_MIN, INT32_MAX, 'INT32', field);
}

/** Writes a STRING of `length` UTF-8 bytes (stringLength) at `at`; returns where it ends. */
export function writeStringAt(buf: Buffer, at: number, value: string, length: number): number {
  buf.writeInt16BE(length, at);
  if (length > 0) buf.write(value, at + 2, length, 'utf8');
  return at + 2 + length;
}

/** Builds a Struct by appending fields; `toBuffer()` returns the exact bytes. */
export class StructWriter {
  private readonly parts: Buffer[] = [];
  private size = 0;

  writeInt16(value: number, field = 'INT16'): this {
    const v = checkInt(value, INT16_MIN, INT16_MAX, 'INT16', field);
    const b = Buffer.allocUnsafe(2);
    b.writeInt16BE(v, 0);
    return this.push(b);
  }

  writeInt32(value: number, field = 'INT32'): this {
    const v = checkInt(value, INT32_MIN, INT32_MAX, 'INT32', field);
    const b = Buffer.allocUnsafe(4);
    b.writeInt32BE(v, 0);
    return this.push(b);
  }

  writeInt64(value: bigint | number, field = 'INT64'): this {
    const v = toInt64(value, field);
    const b = Buffer.allocUnsafe(8);
    b.writeBigInt64BE(v, 0);
    return this.push(b);
  }

  writeInt8(value: number, field = 'INT8'): this {
    const v = checkInt(value, -0x80, 0x7f, 'INT8', field);
    const b = Buffer.allocUnsafe(1);
    b.writeInt8(v, 0);
    return this.push(b);
  }

  writeBool(value: boolean, field = 'BOOLEAN'): this {
    if (typeof value !== 'boolean') throw new TypeError(`${field}: expected a boolean, got ${describe(value)}`);
    return this.push(Buffer.from([value ? 1 : 0]));
  }

  /** Writes an UNSIGNED_VARINT (0..2^32-1, 7 bits a byte, low bits first). */
  writeUnsignedVarint(value: number, field = 'UNSIGNED_VARINT'): this {
    let n = checkInt(value, 0, 0xffffffff, 'UNSIGNED_VARINT', field);
    const bytes: number[] = [];
    while (n >= 0x80) {
      bytes.push((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    bytes.push(n);
    return this.push(Buffer.from(bytes));
  }

  /**
   * Writes a non-nullable STRING. Lone UTF-16 surrogates are encoded as U+FFFD (Node's
   * UTF-8 encoder); Java would write '?'. Kafka names never contain them.
   */
  writeString(value: string, field = 'STRING'): this {
    const bytes = stringBytes(value, field, 'STRING');
    const len = Buffer.allocUnsafe(2);
    len.writeInt16BE(bytes.length, 0);
    this.push(len);
    return this.push(bytes);
  }

  /** Writes a COMPACT_STRING (UTF-8 byte count + 1 as an UNSIGNED_VARINT, then the bytes; at most 32767 bytes, as Kafka). */
  writeCompactString(value: string, field = 'COMPACT_STRING'): this {
    const bytes = stringBytes(value, field, 'COMPACT_STRING');
    return this.writeUnsignedVarint(bytes.length + 1, `${field} length`).push(bytes);
  }

  /** Writes a COMPACT_NULLABLE_STRING (0 for null). */
  writeCompactNullableString(value: string | null, field = 'COMPACT_NULLABLE_STRING'): this {
    return value === null ? this.writeUnsignedVarint(0, field) : this.writeCompactString(value, field);
  }

  /** Writes a COMPACT_ARRAY: null as 0, else the count + 1 and `each` for every item. */
  writeCompactArray<T>(items: readonly T[] | null, each: (w: this, item: T) => void, field = 'COMPACT_ARRAY'): this {
    if (items === null) return this.writeUnsignedVarint(0, `${field} length`);
    this.writeUnsignedVarint(items.length + 1, `${field} length`);
    for (const item of items) each(this, item);
    return this;
  }

  /** Writes an empty tagged-field section (a count of 0). */
  writeEmptyTaggedFields(): this {
    return this.writeUnsignedVarint(0, '_tagged_fields count');
  }

  /** Appends bytes as they are (the caller's encoding). */
  writeBytes(bytes: Buffer | Uint8Array): this {
    return this.push(Buffer.from(bytes));
  }

  /** Total bytes written so far. */
  get length(): number {
    return this.size;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.parts, this.size);
  }

  private push(b: Buffer): this {
    this.parts.push(b);
    this.size += b.length;
    return this;
  }
}

/**
 * Returns `input` as a Buffer sharing its memory, or throws MalformedRecordError when it is
 * not a Buffer/Uint8Array (null and undefined included; `what` names it in the message).
 */
export function asBuffer(input: unknown, what = 'buffer'): Buffer {
  if (input === null || input === undefined) {
    throw new MalformedRecordError(`${what} is ${input === null ? 'null' : 'undefined'} (a tombstone cannot be decoded)`);
  }
  if (Buffer.isBuffer(input)) return input;
  if (input instanceof Uint8Array) {
    return Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  }
  throw new MalformedRecordError(`${what} is not a Buffer or Uint8Array (got ${describe(input)})`);
}

/** Reads Struct fields sequentially from a buffer. */
export class StructReader {
  private readonly buf: Buffer;
  private pos = 0;
  private readonly what: string;

  /** @param what names the buffer in error messages, e.g. "checkpoint key". */
  constructor(input: Buffer | Uint8Array, what = 'buffer') {
    this.buf = asBuffer(input, what);
    this.what = what;
  }

  /** Current read position (bytes consumed). */
  get offset(): number {
    return this.pos;
  }

  /** Bytes left after the current position (trailing bytes are allowed and ignored). */
  get remaining(): number {
    return this.buf.length - this.pos;
  }

  readInt8(field = 'INT8'): number {
    this.need(1, field);
    return this.buf.readInt8(this.pos++);
  }

  /** Reads a BOOLEAN (any byte but 0 is true, as in Java). */
  readBool(field = 'BOOLEAN'): boolean {
    return this.readInt8(field) !== 0;
  }

  readInt16(field = 'INT16'): number {
    this.need(2, field);
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  readInt32(field = 'INT32'): number {
    this.need(4, field);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  readInt64(field = 'INT64'): bigint {
    this.need(8, field);
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  /** Reads a STRING. Invalid UTF-8 becomes U+FFFD, as with Java's decoder (no error). */
  readString(field = 'STRING'): string {
    const len = this.readInt16(`${field} length`);
    if (len < 0) {
      throw new MalformedRecordError(
        `Error reading field '${field}' of ${this.what}: string length ${len} cannot be negative`,
      );
    }
    return this.utf8(len, field);
  }

  /** The next `len` bytes as UTF-8 (a string's payload after its length). */
  private utf8(len: number, field: string): string {
    if (len > this.remaining) {
      throw new MalformedRecordError(
        `Error reading field '${field}' of ${this.what}: string length ${len} is larger than the remaining ${this.remaining} bytes`,
      );
    }
    const s = this.buf.toString('utf8', this.pos, this.pos + len);
    this.pos += len;
    return s;
  }

  /** Reads a NULLABLE_STRING (INT16 length, -1 = null). */
  readNullableString(field = 'NULLABLE_STRING'): string | null {
    const len = this.readInt16(`${field} length`);
    if (len === -1) return null;
    this.pos -= 2;
    return this.readString(field);
  }

  /** Reads an UNSIGNED_VARINT (flexible versions: compact lengths, tagged-field counts), at most 5 bytes. */
  readUnsignedVarint(field = 'UNSIGNED_VARINT'): number {
    let value = 0;
    for (let i = 0; i < 5; i++) {
      this.need(1, field);
      const b = this.buf[this.pos++];
      value += (b & 0x7f) * 2 ** (7 * i);
      if ((b & 0x80) === 0) {
        if (value > 0xffffffff) break;
        return value;
      }
    }
    throw new MalformedRecordError(`Error reading field '${field}' of ${this.what}: varint is longer than 5 bytes or above 2^32-1`);
  }

  /** Reads a COMPACT_NULLABLE_STRING (UNSIGNED_VARINT length + 1, 0 = null). */
  readCompactNullableString(field = 'COMPACT_STRING'): string | null {
    const n = this.readUnsignedVarint(`${field} length`);
    if (n === 0) return null;
    return this.utf8(n - 1, field);
  }

  /** Reads a COMPACT_STRING (not nullable). */
  readCompactString(field = 'COMPACT_STRING'): string {
    const s = this.readCompactNullableString(field);
    if (s === null) throw new MalformedRecordError(`Error reading field '${field}' of ${this.what}: null for a non-nullable string`);
    return s;
  }

  /**
   * Reads a COMPACT_ARRAY with `each` for every item; null (0) reads as an empty array. Every
   * item of a flexible version takes a byte at least, so a count above the bytes left is refused.
   */
  readCompactArray<T>(each: (r: this) => T, field = 'COMPACT_ARRAY'): T[] {
    const n = this.readUnsignedVarint(`${field} length`);
    if (n - 1 > this.remaining) {
      throw new MalformedRecordError(
        `Error reading field '${field}' of ${this.what}: truncated: array length ${n - 1} is larger than the remaining ${this.remaining} bytes`,
      );
    }
    const out: T[] = [];
    for (let i = 1; i < n; i++) out.push(each(this));
    return out;
  }

  /** Goes back to `offset` (at or before the current position), to read again what was skipped. */
  rewind(offset: number): void {
    if (offset < 0 || offset > this.pos) throw new RangeError(`cannot rewind ${this.what} to ${offset} from ${this.pos}`);
    this.pos = offset;
  }

  /** Skips `n` bytes (a field the caller does not need). */
  skip(n: number, field = 'bytes'): void {
    if (n < 0) throw new MalformedRecordError(`Error reading field '${field}' of ${this.what}: length ${n} cannot be negative`);
    this.need(n, field);
    this.pos += n;
  }

  /** Skips a tagged-field section of a flexible version (count, then tag, size, bytes for each). */
  skipTaggedFields(field = '_tagged_fields'): void {
    const count = this.readUnsignedVarint(`${field} count`);
    for (let i = 0; i < count; i++) {
      this.readUnsignedVarint(`${field} tag`);
      this.skip(this.readUnsignedVarint(`${field} size`), field);
    }
  }

  private need(n: number, field: string): void {
    if (this.remaining < n) {
      throw new MalformedRecordError(
        `Error reading field '${field}' of ${this.what}: truncated: needs ${n} bytes at offset ${this.pos}, only ${this.remaining} left`,
      );
    }
  }
}

/**
 * Runs a decoder body and guarantees that whatever goes wrong surfaces as MalformedRecordError
 * (a decoder must never throw another error type).
 */
export function decoding<T>(what: string, body: () => T): T {
  try {
    return body();
  } catch (e) {
    if (e instanceof MalformedRecordError) throw e;
    throw new MalformedRecordError(`cannot decode ${what}: ${(e as Error)?.message ?? String(e)}`);
  }
}
