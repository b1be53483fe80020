'use strict';
const assert = require('node:assert/strict');
const {
  StructReader, StructWriter, asBuffer, decoding, toInt64, utf8Length,
  INT64_MIN, INT64_MAX, INT32_MIN, INT32_MAX, INT16_MIN, INT16_MAX, STRING_MAX_BYTES,
} = require('../../dist/core/wire');
const { MalformedRecordError } = require('../../dist/core/errors');

const hex = (b) => Buffer.from(b).toString('hex');
const fromHex = (h) => Buffer.from(h.replace(/\s+/g, ''), 'hex');

describe('wire: StructWriter', () => {
  it('writes INT16 big-endian two\'s complement', () => {
    assert.equal(hex(new StructWriter().writeInt16(0).toBuffer()), '0000');
    assert.equal(hex(new StructWriter().writeInt16(1).toBuffer()), '0001');
    assert.equal(hex(new StructWriter().writeInt16(-1).toBuffer()), 'ffff');
    assert.equal(hex(new StructWriter().writeInt16(INT16_MAX).toBuffer()), '7fff');
    assert.equal(hex(new StructWriter().writeInt16(INT16_MIN).toBuffer()), '8000');
  });

  it('writes INT32 big-endian two\'s complement', () => {
    assert.equal(hex(new StructWriter().writeInt32(2).toBuffer()), '00000002');
    assert.equal(hex(new StructWriter().writeInt32(-1).toBuffer()), 'ffffffff');
    assert.equal(hex(new StructWriter().writeInt32(INT32_MAX).toBuffer()), '7fffffff');
    assert.equal(hex(new StructWriter().writeInt32(INT32_MIN).toBuffer()), '80000000');
    assert.equal(hex(new StructWriter().writeInt32(0x01020304).toBuffer()), '01020304');
  });

  it('writes INT64 big-endian two\'s complement, bigint or safe number', () => {
    assert.equal(hex(new StructWriter().writeInt64(-1n).toBuffer()), 'ffffffffffffffff');
    assert.equal(hex(new StructWriter().writeInt64(0n).toBuffer()), '0000000000000000');
    assert.equal(hex(new StructWriter().writeInt64(INT64_MAX).toBuffer()), '7fffffffffffffff');
    assert.equal(hex(new StructWriter().writeInt64(INT64_MIN).toBuffer()), '8000000000000000');
    assert.equal(hex(new StructWriter().writeInt64(1234567890).toBuffer()), '00000000499602d2');
    assert.equal(hex(new StructWriter().writeInt64(Number.MAX_SAFE_INTEGER).toBuffer()), '001fffffffffffff');
    assert.equal(hex(new StructWriter().writeInt64(-2).toBuffer()), 'fffffffffffffffe');
  });

  it('writes STRING as INT16 UTF-8 byte count then bytes', () => {
    assert.equal(hex(new StructWriter().writeString('').toBuffer()), '0000');
    assert.equal(hex(new StructWriter().writeString('topic-1').toBuffer()), '0007746f7069632d31');
    assert.equal(hex(new StructWriter().writeString('é').toBuffer()), '0002c3a9');
  });

  it('counts UTF-8 bytes, not UTF-16 units: grpé is 5, emoji is 4', () => {
    assert.equal(hex(new StructWriter().writeString('grpé').toBuffer()), '0005677270c3a9');
    assert.equal(utf8Length('grpé'), 5);
    assert.equal(utf8Length('😀'), 4);
    assert.equal(hex(new StructWriter().writeString('😀').toBuffer()), '0004f09f9880');
    assert.equal(hex(new StructWriter().writeString('中').toBuffer()), '0003e4b8ad');
  });

  it('concatenates fields in order with no padding', () => {
    const b = new StructWriter().writeString('g').writeInt32(3).writeInt16(0).writeInt64(5n).toBuffer();
    assert.equal(hex(b), '0001670000000300000000000000000005');
    assert.equal(b.length, 3 + 4 + 2 + 8);
  });

  it('accepts a string of exactly 32767 UTF-8 bytes and rejects 32768', () => {
    const ok = new StructWriter().writeString('x'.repeat(STRING_MAX_BYTES)).toBuffer();
    assert.equal(ok.length, 2 + 32767);
    assert.equal(hex(ok.subarray(0, 2)), '7fff');
    assert.throws(() => new StructWriter().writeString('x'.repeat(32768)), (e) => e instanceof RangeError && /32768.*32767/.test(e.message));
    // 16384 two-byte characters = 32768 bytes although only 16384 UTF-16 units
    assert.throws(() => new StructWriter().writeString('é'.repeat(16384)), RangeError);
  });

  it('rejects out-of-range or non-integer values with RangeError/TypeError naming the field', () => {
    assert.throws(() => new StructWriter().writeInt64(INT64_MAX + 1n, 'offset'), (e) => e instanceof RangeError && /offset/.test(e.message));
    assert.throws(() => new StructWriter().writeInt64(INT64_MIN - 1n), RangeError);
    assert.throws(() => new StructWriter().writeInt64(2 ** 53), RangeError);
    assert.throws(() => new StructWriter().writeInt64(1.5), TypeError);
    assert.throws(() => new StructWriter().writeInt64(/** @type {any} */ ('5')), TypeError);
    assert.throws(() => new StructWriter().writeInt64(null), TypeError);
    assert.throws(() => new StructWriter().writeInt32(INT32_MAX + 1, 'partition'), (e) => e instanceof RangeError && /partition/.test(e.message));
    assert.throws(() => new StructWriter().writeInt32(INT32_MIN - 1), RangeError);
    assert.throws(() => new StructWriter().writeInt32(1.5), TypeError);
    assert.throws(() => new StructWriter().writeInt32(/** @type {any} */ (1n)), TypeError);
    assert.throws(() => new StructWriter().writeInt32(NaN), TypeError);
    assert.throws(() => new StructWriter().writeInt16(0x8000), RangeError);
    assert.throws(() => new StructWriter().writeString(null, 'group'), (e) => e instanceof TypeError && /group/.test(e.message) && /not nullable/.test(e.message));
    assert.throws(() => new StructWriter().writeString(undefined), TypeError);
    assert.throws(() => new StructWriter().writeString(/** @type {any} */ (42)), TypeError);
  });

  it('toInt64 converts safe numbers and passes bigints through', () => {
    assert.equal(toInt64(7), 7n);
    assert.equal(toInt64(-7n), -7n);
    assert.equal(toInt64(INT64_MIN), INT64_MIN);
    assert.throws(() => toInt64(Infinity), TypeError);
  });
});

describe('wire: StructReader', () => {
  it('reads every type back', () => {
    const b = new StructWriter()
      .writeInt16(-2).writeInt32(-3).writeInt64(INT64_MIN).writeInt64(INT64_MAX).writeString('a😀é').writeString('')
      .toBuffer();
    const r = new StructReader(b);
    assert.equal(r.readInt16(), -2);
    assert.equal(r.readInt32(), -3);
    assert.equal(r.readInt64(), INT64_MIN);
    assert.equal(r.readInt64(), INT64_MAX);
    assert.equal(r.readString(), 'a😀é');
    assert.equal(r.readString(), '');
    assert.equal(r.remaining, 0);
    assert.equal(r.offset, b.length);
  });

  it('reads -1 from ff x8', () => {
    assert.equal(new StructReader(fromHex('ffffffffffffffff')).readInt64(), -1n);
  });

  it('ignores trailing bytes', () => {
    const r = new StructReader(fromHex('0001 61 deadbeef'));
    assert.equal(r.readString(), 'a');
    assert.equal(r.remaining, 4);
  });

  it('accepts a Uint8Array, including a view at a non-zero offset', () => {
    const backing = new Uint8Array([0xaa, 0x00, 0x02, 0x68, 0x69, 0xbb]);
    const view = new Uint8Array(backing.buffer, 1, 4);
    assert.equal(new StructReader(view).readString(), 'hi');
  });

  it('replaces invalid UTF-8 with U+FFFD and does not throw', () => {
    assert.equal(new StructReader(fromHex('0002 ff61')).readString(), '\ufffda');
  });

  it('throws MalformedRecordError on null/undefined/non-buffer input', () => {
    for (const bad of [null, undefined, 'abc', 42, {}, [1, 2], new Uint16Array(2)]) {
      assert.throws(() => new StructReader(/** @type {any} */ (bad), 'thing'), (e) => e instanceof MalformedRecordError && /thing/.test(e.message));
    }
  });

  it('throws MalformedRecordError on short buffers', () => {
    assert.throws(() => new StructReader(Buffer.alloc(1)).readInt16(), MalformedRecordError);
    assert.throws(() => new StructReader(Buffer.alloc(3)).readInt32(), MalformedRecordError);
    assert.throws(() => new StructReader(Buffer.alloc(7)).readInt64('upstreamOffset'), (e) => e instanceof MalformedRecordError && /upstreamOffset/.test(e.message));
    assert.throws(() => new StructReader(Buffer.alloc(0)).readString(), MalformedRecordError);
    assert.throws(() => new StructReader(Buffer.alloc(1)).readString(), MalformedRecordError);
  });

  it('throws MalformedRecordError on a negative string length (0xffff, 0x8000)', () => {
    assert.throws(() => new StructReader(fromHex('ffff 6161')).readString('group'), (e) => e instanceof MalformedRecordError && /-1/.test(e.message) && /negative/.test(e.message));
    assert.throws(() => new StructReader(fromHex('8000')).readString(), (e) => e instanceof MalformedRecordError && /-32768/.test(e.message));
  });

  it('throws MalformedRecordError when the string length runs past the end', () => {
    assert.throws(() => new StructReader(fromHex('0005 61626364')).readString(), (e) => e instanceof MalformedRecordError && /5/.test(e.message));
    assert.throws(() => new StructReader(fromHex('7fff')).readString(), MalformedRecordError);
  });

  it('asBuffer shares memory with a Uint8Array and returns Buffers unchanged', () => {
    const b = Buffer.from([1, 2]);
    assert.equal(asBuffer(b), b);
    const u = new Uint8Array([1, 2, 3]);
    const ab = asBuffer(u);
    u[0] = 9;
    assert.equal(ab[0], 9);
  });

  it('decoding() turns any other error into MalformedRecordError', () => {
    assert.throws(() => decoding('x', () => { throw new TypeError('boom'); }), (e) => e instanceof MalformedRecordError && /boom/.test(e.message));
    const orig = new MalformedRecordError('orig');
    assert.throws(() => decoding('x', () => { throw orig; }), (e) => e === orig);
    assert.equal(decoding('x', () => 5), 5);
  });
});

describe('wire: flexible-version types (compact strings and arrays, varints, tagged fields)', () => {
  it('writes INT8, BOOLEAN, UNSIGNED_VARINT, compact strings and arrays, empty tagged fields and raw bytes exactly', () => {
    assert.equal(hex(new StructWriter().writeInt8(-1).writeInt8(0x7f).writeBool(true).writeBool(false).toBuffer()), 'ff7f0100');
    assert.equal(hex(new StructWriter().writeUnsignedVarint(0).writeUnsignedVarint(127).writeUnsignedVarint(128).writeUnsignedVarint(300).toBuffer()), '007f8001ac02');
    assert.equal(hex(new StructWriter().writeUnsignedVarint(0xffffffff).toBuffer()), 'ffffffff0f');
    assert.equal(hex(new StructWriter().writeCompactString('').writeCompactString('é').writeCompactNullableString(null).writeCompactNullableString('a').toBuffer()), '0103c3a90002' + '61');
    assert.equal(hex(new StructWriter().writeCompactString('x'.repeat(200)).toBuffer()).slice(0, 4), 'c901');
    assert.equal(hex(new StructWriter().writeCompactArray(null, () => undefined).writeCompactArray([1, 2], (w, v) => w.writeInt16(v)).toBuffer()), '00' + '03' + '0001' + '0002');
    assert.equal(hex(new StructWriter().writeEmptyTaggedFields().writeBytes(Buffer.from('abcd', 'hex')).toBuffer()), '00abcd');
  });

  it('refuses what cannot be written, naming the field', () => {
    assert.throws(() => new StructWriter().writeInt8(128, 'key_type'), (e) => e instanceof RangeError && /key_type/.test(e.message));
    assert.throws(() => new StructWriter().writeBool(/** @type {any} */ (1), 'require_stable'), (e) => e instanceof TypeError && /require_stable/.test(e.message));
    assert.throws(() => new StructWriter().writeUnsignedVarint(-1), RangeError);
    assert.throws(() => new StructWriter().writeUnsignedVarint(2 ** 32), RangeError);
    assert.throws(() => new StructWriter().writeCompactString(/** @type {any} */ (null), 'group_id'), (e) => e instanceof TypeError && /group_id/.test(e.message) && /not nullable/.test(e.message));
    assert.throws(() => new StructWriter().writeCompactString('x'.repeat(STRING_MAX_BYTES + 1)), RangeError);
  });

  it('reads them back; a tagged-field section with unknown tags is skipped', () => {
    const b = new StructWriter()
      .writeInt8(-2).writeBool(true).writeUnsignedVarint(300).writeCompactString('grp').writeCompactNullableString(null)
      .writeCompactArray([7, 8], (w, v) => w.writeInt32(v)).writeCompactArray(null, () => undefined)
      .writeBytes(fromHex('02 01 02 aabb 05 00')) // two unknown tags: 1 (2 bytes), 5 (empty)
      .writeInt16(9).toBuffer();
    const r = new StructReader(b);
    assert.equal(r.readInt8(), -2);
    assert.equal(r.readBool(), true);
    assert.equal(r.readUnsignedVarint(), 300);
    assert.equal(r.readCompactString(), 'grp');
    assert.equal(r.readCompactNullableString(), null);
    assert.deepEqual(r.readCompactArray((x) => x.readInt32()), [7, 8]);
    assert.deepEqual(r.readCompactArray(() => 1), []);
    r.skipTaggedFields();
    assert.equal(r.readInt16(), 9);
    assert.equal(r.remaining, 0);
    assert.equal(new StructReader(fromHex('02')).readBool(), true);
  });

  it('malformed flexible data throws MalformedRecordError naming the field and the buffer', () => {
    const bad = (h, read, re) => assert.throws(() => read(new StructReader(fromHex(h), 'ListGroups v5 response')), (e) => e instanceof MalformedRecordError && /ListGroups v5 response/.test(e.message) && re.test(e.message));
    bad('', (r) => r.readInt8('key_type'), /key_type.*truncated/);
    bad('80', (r) => r.readUnsignedVarint('groups length'), /groups length.*truncated/);
    bad('ffffffff7f', (r) => r.readUnsignedVarint('n'), /varint/);
    bad('00', (r) => r.readCompactString('group_id'), /group_id.*null/);
    bad('05 6162', (r) => r.readCompactString('group_id'), /group_id.*4/);
    bad('7f 00', (r) => r.readCompactArray((x) => x.readInt8(), 'groups'), /groups.*array length 126/);
    bad('01 01 03 aa', (r) => r.skipTaggedFields(), /_tagged_fields.*truncated/);
  });
});
