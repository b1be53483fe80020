'use strict';
const assert = require('node:assert/strict');
const { encodeOffsetSync, decodeOffsetSync } = require('../../dist/core/offset-sync');
const { encodeCheckpoint, decodeCheckpoint, checkpointValueVersion, CHECKPOINT_VERSION } = require('../../dist/core/checkpoint');
const { encodeHeartbeat, decodeHeartbeat, heartbeatValueVersion, HEARTBEAT_VERSION } = require('../../dist/core/heartbeat');
const { MalformedRecordError } = require('../../dist/core/errors');

const hex = (b) => Buffer.from(b).toString('hex');
const fromHex = (h) => Buffer.from(h.replace(/\s+/g, ''), 'hex');
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const { mulberry32: prng } = require('./helpers/random');
const ALPHABET = ['a', 'Z', '0', '.', '-', '_', ' ', 'é', 'ß', 'Ж', '中', '語', '😀', '🚀', '𝄞', '\u0000', '\u07ff', '\uffff'];
function randomString(rnd, maxLen) {
  const n = Math.floor(rnd() * (maxLen + 1));
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(rnd() * ALPHABET.length)];
  return s;
}
const SPECIAL_I64 = [INT64_MIN, INT64_MAX, -1n, 0n, 1n, INT64_MIN + 1n, INT64_MAX - 1n, 2n ** 53n, -(2n ** 32n)];
function randomI64(rnd) {
  if (rnd() < 0.3) return SPECIAL_I64[Math.floor(rnd() * SPECIAL_I64.length)];
  const hi = BigInt(Math.floor(rnd() * 2 ** 32));
  const lo = BigInt(Math.floor(rnd() * 2 ** 32));
  return BigInt.asIntN(64, (hi << 32n) | lo);
}
function randomI32(rnd) {
  const specials = [0, -1, 2147483647, -2147483648];
  if (rnd() < 0.3) return specials[Math.floor(rnd() * specials.length)];
  return Math.floor(rnd() * 2 ** 32) - 2 ** 31;
}

function assertMalformed(fn, re) {
  assert.throws(fn, (/** @type {Error} */ e) => {
    assert.ok(e instanceof MalformedRecordError, `expected MalformedRecordError, got ${e && e.constructor && e.constructor.name}: ${e && e.message}`);
    if (re) assert.match(e.message, re);
    return true;
  });
}

// shared malformed-input checks for one codec
function malformedSuite(name, decode, sample) {
  describe(`${name}: malformed input`, () => {
    const { key, value } = sample;
    it('null or undefined key / value (tombstones) throw MalformedRecordError', () => {
      assertMalformed(() => decode(null, value), /key/);
      assertMalformed(() => decode(key, null), /value/);
      assertMalformed(() => decode(undefined, value));
      assertMalformed(() => decode(key, undefined));
      assertMalformed(() => decode(null, null));
    });
    it('empty buffers throw MalformedRecordError', () => {
      assertMalformed(() => decode(Buffer.alloc(0), value));
      assertMalformed(() => decode(key, Buffer.alloc(0)));
      assertMalformed(() => decode(new Uint8Array(0), new Uint8Array(0)));
    });
    it('non-buffer input throws MalformedRecordError', () => {
      for (const bad of ['0007', 7, {}, [0, 1], true, new Uint16Array(4), key.buffer]) {
        assertMalformed(() => decode(bad, value));
        assertMalformed(() => decode(key, bad));
      }
    });
    it('a key truncated at every byte position throws MalformedRecordError', () => {
      for (let i = 0; i < key.length; i++) assertMalformed(() => decode(key.subarray(0, i), value));
    });
    it('a value truncated at every byte position throws MalformedRecordError', () => {
      for (let i = 0; i < value.length; i++) assertMalformed(() => decode(key, value.subarray(0, i)));
    });
    it('a negative string length (0xffff) in the key throws MalformedRecordError', () => {
      const bad = Buffer.from(key);
      bad.writeUInt16BE(0xffff, 0);
      assertMalformed(() => decode(bad, value), /negative/);
    });
    it('a string length past the end of the key throws MalformedRecordError', () => {
      const bad = Buffer.from(key);
      bad.writeUInt16BE(key.length, 0);
      assertMalformed(() => decode(bad, value));
      const bad2 = Buffer.from(key);
      bad2.writeUInt16BE(0x7fff, 0);
      assertMalformed(() => decode(bad2, value));
    });
    it('trailing bytes in key and value are ignored', () => {
      const extra = Buffer.from([1, 2, 3]);
      const plain = decode(key, value);
      assert.deepEqual(decode(Buffer.concat([key, extra]), Buffer.concat([value, extra])), plain);
    });
    it('accepts Uint8Array input', () => {
      assert.deepEqual(decode(new Uint8Array(key), new Uint8Array(value)), decode(key, value));
    });
  });
}

describe('offset sync codec (OffsetSync record)', () => {
  const sync = { topic: 'topic-1', partition: 2, upstreamOffset: 3n, downstreamOffset: 4n };

  it('encodes the worked example byte for byte', () => {
    const { key, value } = encodeOffsetSync(sync);
    assert.equal(hex(key), '0007746f7069632d3100000002');
    assert.equal(key.length, 13);
    assert.equal(hex(value), '00000000000000030000000000000004');
    assert.equal(value.length, 16);
  });

  it('decodes the worked example bytes', () => {
    const out = decodeOffsetSync(fromHex('00 07 74 6f 70 69 63 2d 31 00 00 00 02'), fromHex('00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 04'));
    assert.deepEqual(out, sync);
    assert.equal(typeof out.upstreamOffset, 'bigint');
  });

  it('round-trips', () => {
    const { key, value } = encodeOffsetSync(sync);
    assert.deepEqual(decodeOffsetSync(key, value), sync);
  });

  it('accepts safe-integer numbers for offsets and returns bigints', () => {
    const { key, value } = encodeOffsetSync({ topic: 'topic-1', partition: 2, upstreamOffset: 3, downstreamOffset: 4 });
    assert.equal(hex(value), '00000000000000030000000000000004');
    assert.deepEqual(decodeOffsetSync(key, value), sync);
  });

  it('encodes int64 extremes', () => {
    const { value } = encodeOffsetSync({ topic: 't', partition: 0, upstreamOffset: INT64_MIN, downstreamOffset: -1n });
    assert.equal(hex(value), '8000000000000000ffffffffffffffff');
    const { value: v2 } = encodeOffsetSync({ topic: 't', partition: 0, upstreamOffset: INT64_MAX, downstreamOffset: 0n });
    assert.equal(hex(v2), '7fffffffffffffff0000000000000000');
  });

  it('round-trips 500 random records (seeded)', () => {
    const rnd = prng(0x5eed01);
    for (let i = 0; i < 500; i++) {
      const s = { topic: randomString(rnd, 40), partition: randomI32(rnd), upstreamOffset: randomI64(rnd), downstreamOffset: randomI64(rnd) };
      const { key, value } = encodeOffsetSync(s);
      assert.equal(key.length, 2 + Buffer.byteLength(s.topic) + 4);
      assert.equal(value.length, 16);
      assert.deepEqual(decodeOffsetSync(key, value), s);
    }
  });

  it('rejects bad input to the encoder with TypeError/RangeError', () => {
    assert.throws(() => encodeOffsetSync({ ...sync, topic: null }), TypeError);
    assert.throws(() => encodeOffsetSync({ ...sync, partition: 2 ** 31 }), RangeError);
    assert.throws(() => encodeOffsetSync({ ...sync, upstreamOffset: 2n ** 63n }), RangeError);
    assert.throws(() => encodeOffsetSync({ ...sync, downstreamOffset: undefined }), TypeError);
    assert.throws(() => encodeOffsetSync({ ...sync, topic: 'x'.repeat(32768) }), RangeError);
    assert.throws(() => encodeOffsetSync(null), TypeError);
  });

  malformedSuite('offset sync', decodeOffsetSync, encodeOffsetSync({ topic: 'tôpic-😀', partition: 7, upstreamOffset: 10n, downstreamOffset: 20n }));
});

describe('checkpoint codec (Checkpoint record)', () => {
  const cp = { group: 'group-1', topic: 'topic-2', partition: 3, upstreamOffset: 4n, downstreamOffset: 5n, metadata: 'metadata-6' };

  it('encodes worked example 1 byte for byte', () => {
    const { key, value } = encodeCheckpoint(cp);
    assert.equal(hex(key), '000767726f75702d310007746f7069632d3200000003');
    assert.equal(key.length, 22);
    assert.equal(hex(value), '0000' + '0000000000000004' + '0000000000000005' + '000a' + '6d657461646174612d36');
    assert.equal(value.length, 30);
  });

  it('decodes worked example 1 and round-trips it', () => {
    const out = decodeCheckpoint(
      fromHex('00 07 67 72 6f 75 70 2d 31 00 07 74 6f 70 69 63 2d 32 00 00 00 03'),
      fromHex('00 00 00 00 00 00 00 00 00 04 00 00 00 00 00 00 00 05 00 0a 6d 65 74 61 64 61 74 61 2d 36'),
    );
    assert.deepEqual(out, cp);
    const { key, value } = encodeCheckpoint(cp);
    assert.deepEqual(decodeCheckpoint(key, value), cp);
  });

  it('encodes worked example 2 (empty metadata) as a 20-byte value', () => {
    const { key, value } = encodeCheckpoint({ group: 'g', topic: 'source.t', partition: 0, upstreamOffset: 250n, downstreamOffset: 201n, metadata: '' });
    assert.equal(hex(key), '0001670008736f757263652e7400000000');
    assert.equal(key.length, 17);
    assert.equal(hex(value), '000000000000000000fa00000000000000c90000');
    assert.equal(value.length, 20);
  });

  it('encodes undefined or null metadata as "" (Java client behaviour)', () => {
    const base = { group: 'g', topic: 'source.t', partition: 0, upstreamOffset: 250n, downstreamOffset: 201n };
    const expected = '000000000000000000fa00000000000000c90000';
    assert.equal(hex(encodeCheckpoint(base).value), expected);
    assert.equal(hex(encodeCheckpoint({ ...base, metadata: null }).value), expected);
    assert.equal(hex(encodeCheckpoint({ ...base, metadata: undefined }).value), expected);
    const { key, value } = encodeCheckpoint(base);
    assert.equal(decodeCheckpoint(key, value).metadata, '');
  });

  it('counts UTF-8 bytes in string lengths: group grpé has length 5', () => {
    const { key } = encodeCheckpoint({ group: 'grpé', topic: 't', partition: 0, upstreamOffset: 0n, downstreamOffset: 0n, metadata: '' });
    assert.equal(hex(key.subarray(0, 7)), '0005677270c3a9');
  });

  it('writes version 0 and exposes it via checkpointValueVersion', () => {
    const { value } = encodeCheckpoint(cp);
    assert.equal(CHECKPOINT_VERSION, 0);
    assert.equal(checkpointValueVersion(value), 0);
    assertMalformed(() => checkpointValueVersion(Buffer.alloc(1)));
    assertMalformed(() => checkpointValueVersion(null));
  });

  it('parses a non-zero version with the v0 layout, as production MM2 does', () => {
    const { key, value } = encodeCheckpoint(cp);
    for (const version of [1, 7, -1, 0x7fff]) {
      const v = Buffer.from(value);
      v.writeInt16BE(version, 0);
      assert.equal(checkpointValueVersion(v), version);
      assert.deepEqual(decodeCheckpoint(key, v), cp);
    }
  });

  it('encodes int64 extremes', () => {
    const { value } = encodeCheckpoint({ group: 'g', topic: 't', partition: 0, upstreamOffset: INT64_MIN, downstreamOffset: INT64_MAX, metadata: '' });
    assert.equal(hex(value), '0000' + '8000000000000000' + '7fffffffffffffff' + '0000');
    const { value: v2 } = encodeCheckpoint({ group: 'g', topic: 't', partition: 0, upstreamOffset: -1n, downstreamOffset: 0n, metadata: '' });
    assert.equal(hex(v2), '0000' + 'ffffffffffffffff' + '0000000000000000' + '0000');
  });

  it('round-trips 500 random records (seeded)', () => {
    const rnd = prng(0xc0ffee);
    for (let i = 0; i < 500; i++) {
      const c = {
        group: randomString(rnd, 30), topic: randomString(rnd, 30), partition: randomI32(rnd),
        upstreamOffset: randomI64(rnd), downstreamOffset: randomI64(rnd), metadata: randomString(rnd, 60),
      };
      const { key, value } = encodeCheckpoint(c);
      assert.equal(key.length, 2 + Buffer.byteLength(c.group) + 2 + Buffer.byteLength(c.topic) + 4);
      assert.equal(value.length, 2 + 8 + 8 + 2 + Buffer.byteLength(c.metadata));
      assert.deepEqual(decodeCheckpoint(key, value), c);
    }
  });

  it('a negative metadata length or a metadata length past the end throws MalformedRecordError', () => {
    const { key, value } = encodeCheckpoint(cp);
    const neg = Buffer.from(value);
    neg.writeUInt16BE(0xffff, 18);
    assertMalformed(() => decodeCheckpoint(key, neg), /negative/);
    const long = Buffer.from(value);
    long.writeUInt16BE(11, 18);
    assertMalformed(() => decodeCheckpoint(key, long));
  });

  it('a negative topic length (second key string) throws MalformedRecordError', () => {
    const { key, value } = encodeCheckpoint(cp);
    const bad = Buffer.from(key);
    bad.writeUInt16BE(0xffff, 9);
    assertMalformed(() => decodeCheckpoint(bad, value), /negative/);
  });

  it('rejects bad input to the encoder with TypeError/RangeError', () => {
    assert.throws(() => encodeCheckpoint({ ...cp, group: undefined }), TypeError);
    assert.throws(() => encodeCheckpoint({ ...cp, metadata: /** @type {any} */ (5) }), TypeError);
    assert.throws(() => encodeCheckpoint({ ...cp, metadata: 'm'.repeat(40000) }), RangeError);
    assert.throws(() => encodeCheckpoint({ ...cp, partition: -(2 ** 31) - 1 }), RangeError);
    assert.throws(() => encodeCheckpoint({ ...cp, downstreamOffset: -(2n ** 63n) - 1n }), RangeError);
  });

  malformedSuite('checkpoint', decodeCheckpoint, encodeCheckpoint({ group: 'grp-é', topic: 'src.t😀', partition: 1, upstreamOffset: 9n, downstreamOffset: 8n, metadata: 'md' }));
});

describe('heartbeat codec (Heartbeat record)', () => {
  const hb = { sourceClusterAlias: 'source-1', targetClusterAlias: 'target-2', timestamp: 1234567890n };

  it('encodes the worked example byte for byte', () => {
    const { key, value } = encodeHeartbeat(hb);
    assert.equal(hex(key), '0008736f757263652d310008746172676574' + '2d32');
    assert.equal(key.length, 20);
    assert.equal(hex(value), '000000000000499602d2');
    assert.equal(value.length, 10);
  });

  it('decodes the worked example and round-trips', () => {
    const out = decodeHeartbeat(
      fromHex('00 08 73 6f 75 72 63 65 2d 31 00 08 74 61 72 67 65 74 2d 32'),
      fromHex('00 00 00 00 00 00 49 96 02 d2'),
    );
    assert.deepEqual(out, hb);
    const { key, value } = encodeHeartbeat(hb);
    assert.deepEqual(decodeHeartbeat(key, value), hb);
  });

  it('accepts a number timestamp and converts it to bigint', () => {
    const { key, value } = encodeHeartbeat({ ...hb, timestamp: 1234567890 });
    assert.equal(hex(value), '000000000000499602d2');
    assert.equal(decodeHeartbeat(key, value).timestamp, 1234567890n);
    const now = 1735689600123;
    assert.equal(decodeHeartbeat(key, encodeHeartbeat({ ...hb, timestamp: now }).value).timestamp, BigInt(now));
  });

  it('rejects non-integer, unsafe or out-of-range timestamps', () => {
    assert.throws(() => encodeHeartbeat({ ...hb, timestamp: 1.5 }), TypeError);
    assert.throws(() => encodeHeartbeat({ ...hb, timestamp: 2 ** 60 }), RangeError);
    assert.throws(() => encodeHeartbeat({ ...hb, timestamp: 2n ** 63n }), RangeError);
    assert.throws(() => encodeHeartbeat({ ...hb, timestamp: /** @type {any} */ ('1') }), TypeError);
    assert.throws(() => encodeHeartbeat({ ...hb, sourceClusterAlias: null }), TypeError);
  });

  it('writes version 0; parses a non-zero version as v0', () => {
    const { key, value } = encodeHeartbeat(hb);
    assert.equal(HEARTBEAT_VERSION, 0);
    assert.equal(heartbeatValueVersion(value), 0);
    const v = Buffer.from(value);
    v.writeInt16BE(3, 0);
    assert.equal(heartbeatValueVersion(v), 3);
    assert.deepEqual(decodeHeartbeat(key, v), hb);
  });

  it('round-trips int64 extremes and 300 random records (seeded)', () => {
    for (const ts of [INT64_MIN, INT64_MAX, -1n, 0n]) {
      const h = { sourceClusterAlias: 'a', targetClusterAlias: 'b', timestamp: ts };
      const { key, value } = encodeHeartbeat(h);
      assert.deepEqual(decodeHeartbeat(key, value), h);
    }
    const rnd = prng(42);
    for (let i = 0; i < 300; i++) {
      const h = { sourceClusterAlias: randomString(rnd, 20), targetClusterAlias: randomString(rnd, 20), timestamp: randomI64(rnd) };
      const { key, value } = encodeHeartbeat(h);
      assert.equal(value.length, 10);
      assert.deepEqual(decodeHeartbeat(key, value), h);
    }
  });

  malformedSuite('heartbeat', decodeHeartbeat, encodeHeartbeat({ sourceClusterAlias: 'us-west', targetClusterAlias: 'üs-east', timestamp: 1700000000000n }));
});

describe('codecs: a store-style reader skips malformed records and keeps going (CheckpointTest, OffsetSyncTest, HeartbeatTest)', () => {
  it('keeps the good checkpoints and counts the bad ones', () => {
    const good1 = encodeCheckpoint({ group: 'g', topic: 'a.t', partition: 0, upstreamOffset: 1n, downstreamOffset: 1n, metadata: '' });
    const good2 = encodeCheckpoint({ group: 'g', topic: 'a.t', partition: 1, upstreamOffset: 2n, downstreamOffset: 2n, metadata: 'x' });
    const records = [
      good1,
      { key: null, value: good1.value },
      { key: good1.key, value: null },
      { key: good1.key, value: good1.value.subarray(0, 5) },
      { key: fromHex('ffff'), value: good1.value },
      good2,
    ];
    const ok = [];
    let bad = 0;
    for (const r of records) {
      try {
        ok.push(decodeCheckpoint(r.key, r.value));
      } catch (e) {
        if (!(e instanceof MalformedRecordError)) throw e;
        bad++;
      }
    }
    assert.equal(bad, 4);
    assert.deepEqual(ok.map((c) => [c.partition, c.downstreamOffset, c.metadata]), [[0, 1n, ''], [1, 2n, 'x']]);
  });
});
