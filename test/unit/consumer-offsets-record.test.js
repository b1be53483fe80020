'use strict';
const assert = require('node:assert/strict');
const { decodeConsumerOffsetsRecord } = require('../../dist/core/consumer-offsets-record');
const { MalformedRecordError, AbsurdRecordError } = require('../../dist/core/errors');

const fromHex = (h) => (h === null ? null : Buffer.from(h, 'hex'));

// Records the real brokers wrote (test/harness/capture-consumer-offsets.js), each with what
// Kafka's own decoder (kafka-dump-log --offsets-decoder) says it is. 4.4.0 adds a classic group
// converted to a consumer group, a share group and a streams group.
const FIXTURES = ['4.4.0', '4.1.1', '3.9.1'].map((v) => require(`../fixtures/consumer-offsets-${v}.json`));

/** What our decoder must answer for a record, from Kafka's own decoding of it. */
function expectedFromKafka(kafka) {
  const key = JSON.parse(kafka.key);
  const type = Number(key.type);
  const tombstone = kafka.payload === '<DELETE>';
  const value = tombstone ? null : JSON.parse(kafka.payload);
  if (type === 0 || type === 1) {
    const { group, topic, partition } = key.data;
    if (tombstone) return { type: 'offset-delete', group, topic, partition };
    const d = value.data;
    return {
      type: 'offset-commit', group, topic, partition,
      offset: BigInt(d.offset), leaderEpoch: d.leaderEpoch ?? -1, metadata: d.metadata, commitTimestamp: BigInt(d.commitTimestamp),
    };
  }
  if (type === 2) {
    if (tombstone) return { type: 'group-delete', group: key.data.group };
    const d = value.data;
    return { type: 'group-metadata', group: key.data.group, protocolType: d.protocolType, generation: d.generation, members: d.members.length };
  }
  if (tombstone && type === 3) return { type: 'group-delete', group: key.data.groupId };
  return { type: 'ignored', keyVersion: type, group: key.data.groupId };
}

// hand-made records for the versions the brokers no longer write and for broken input
const str = (s) => {
  const b = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeInt16BE(b.length);
  return Buffer.concat([len, b]);
};
const compact = (s) => Buffer.concat([Buffer.from([Buffer.byteLength(s) + 1]), Buffer.from(s)]);
const i16 = (n) => { const b = Buffer.alloc(2); b.writeInt16BE(n); return b; };
const i32 = (n) => { const b = Buffer.alloc(4); b.writeInt32BE(n); return b; };
const i64 = (n) => { const b = Buffer.alloc(8); b.writeBigInt64BE(BigInt(n)); return b; };
const offsetKey = (type, group, topic, partition) => Buffer.concat([i16(type), str(group), str(topic), i32(partition)]);

describe('__consumer_offsets records', () => {
  for (const fx of FIXTURES) {
    describe(`written by Kafka ${fx.kafkaVersion}`, () => {
      it('every record decodes exactly as Kafka decodes it', () => {
        assert.ok(fx.records.length > 20, 'the fixture holds the captured records');
        let checked = 0;
        for (const r of fx.records) {
          assert.ok(r.kafka, `Kafka decoded ${r.partition}:${r.offset}`);
          const got = decodeConsumerOffsetsRecord(fromHex(r.key), fromHex(r.value));
          assert.deepEqual(got, expectedFromKafka(r.kafka), `record ${r.partition}:${r.offset} (${r.kafka.key})`);
          checked++;
        }
        assert.equal(checked, fx.records.length);
      });

      const decodedAll = () => fx.records.map((r) => ({ ...r, d: decodeConsumerOffsetsRecord(fromHex(r.key), fromHex(r.value)) }));

      it('classic group commits: the last commit per partition is the committed offset', () => {
        const commits = decodedAll().filter((r) => r.d.type === 'offset-commit' && r.d.group === 'classic-a');
        const last = new Map(commits.map((r) => [`${r.d.topic}-${r.d.partition}`, r.d.offset]));
        assert.deepEqual([...last].sort(), [['orders-0', 5n], ['orders-1', 4n]]);
        const member = decodedAll().filter((r) => r.d.type === 'group-metadata' && r.d.group === 'classic-member');
        assert.ok(member.some((r) => r.d.protocolType === 'consumer' && r.d.members === 1), 'the joined member is counted');
      });

      it('a deleted group: tombstones of its offsets and of its group key', () => {
        const doomed = decodedAll().filter((r) => r.d.group === 'doomed').map((r) => r.d.type);
        assert.ok(doomed.includes('offset-delete'), doomed.join());
        assert.equal(doomed[doomed.length - 1], 'group-delete');
      });

      it('deleted offsets (OffsetDelete, the same tombstone as expiry): only that topic', () => {
        const pruned = decodedAll().filter((r) => r.d.group === 'pruned' && r.d.type === 'offset-delete');
        assert.deepEqual(pruned.map((r) => `${r.d.topic}-${r.d.partition}`), ['orders-0']);
      });

      it('transactional offset commits: the aborted one is marked aborted, the committed one is not', () => {
        const all = decodedAll();
        const aborted = all.filter((r) => r.d.group === 'group-txn-abort');
        const committed = all.filter((r) => r.d.group === 'group-txn-commit');
        assert.equal(aborted.length, 1);
        assert.equal(aborted[0].aborted, true);
        assert.equal(aborted[0].d.offset, 7n);
        assert.equal(committed.length, 1);
        assert.equal(committed[0].aborted, false);
        assert.equal(committed[0].d.offset, 8n);
      });

      it('expired offsets (the broker\'s own expiry, nothing deleted): offset tombstones of exactly those partitions', () => {
        const { expiry } = fx;
        assert.ok(expiry && expiry.records.length > 0, 'the fixture holds the records of the expiry capture');
        const all = expiry.records.map((r) => {
          assert.ok(r.kafka, `Kafka decoded ${r.partition}:${r.offset}`);
          const d = decodeConsumerOffsetsRecord(fromHex(r.key), fromHex(r.value));
          assert.deepEqual(d, expectedFromKafka(r.kafka), `record ${r.partition}:${r.offset} (${r.kafka.key})`);
          return { ...r, d };
        });
        const order = (a, b) => `${a.group}/${a.topic}-${a.partition}`.localeCompare(`${b.group}/${b.topic}-${b.partition}`);
        const expired = all.filter((r) => r.expired === 'offset');
        assert.deepEqual(expired.map((r) => r.d).sort(order), [
          { type: 'offset-delete', group: 'expired-empty', topic: 'orders', partition: 0 },
          { type: 'offset-delete', group: 'expired-simple', topic: 'orders', partition: 0 },
          { type: 'offset-delete', group: 'expired-simple', topic: 'orders', partition: 1 },
        ]);
        // written by the expiry: at least the retention period after the partition's last commit
        const retentionMs = BigInt(expiry.properties['offsets.retention.minutes']) * 60000n;
        for (const t of expired) {
          const commits = all.filter((r) => r.d.type === 'offset-commit' && r.d.group === t.d.group && r.d.topic === t.d.topic && r.d.partition === t.d.partition);
          assert.equal(commits.length, 1, `one commit of ${t.d.group}/${t.d.topic}-${t.d.partition}`);
          assert.ok(BigInt(t.timestamp) - commits[0].d.commitTimestamp >= retentionMs, `tombstone at ${t.timestamp}, commit at ${commits[0].d.commitTimestamp}`);
        }
        // the group that had members: the period runs from when it became empty (its last group
        // record's currentStateTimestamp, as Kafka decodes it), later than its commit
        const emptied = all.filter((r) => r.d.type === 'group-metadata' && r.d.group === 'expired-empty').at(-1);
        const emptySince = BigInt(JSON.parse(emptied.kafka.payload).data.currentStateTimestamp);
        const tomb = expired.find((r) => r.d.group === 'expired-empty');
        assert.ok(emptied.d.members === 0 && BigInt(tomb.timestamp) - emptySince >= retentionMs, `tombstone at ${tomb.timestamp}, empty since ${emptySince}`);
        // with its last offset gone an empty group is removed; Kafka 3.9 writes that tombstone only
        // for a group that ever had a generation (expired-empty joined once, expired-simple never)
        const groupTombstones = all.filter((r) => r.expired === 'group').map((r) => r.d.group).sort();
        assert.ok(all.filter((r) => r.expired === 'group').every((r) => r.d.type === 'group-delete'));
        assert.deepEqual(groupTombstones, fx.kafkaVersion.startsWith('4.') ? ['expired-empty', 'expired-simple'] : ['expired-empty']);
      });

      if (fx.kafkaVersion.startsWith('4.')) {
        it('a KIP-848 consumer-protocol group: its commits decode, its other records are ignored', () => {
          const kip = decodedAll().filter((r) => r.d.group === 'kip848');
          const commits = kip.filter((r) => r.d.type === 'offset-commit');
          assert.deepEqual(commits.map((r) => [r.d.topic, r.d.partition, r.d.offset]), [['orders', 0, 5n], ['orders', 1, 5n]]);
          assert.ok(commits.every((r) => r.d.leaderEpoch >= 0), 'the Java consumer commits its leader epoch');
          const ignored = new Set(kip.filter((r) => r.d.type === 'ignored').map((r) => r.d.keyVersion));
          for (const t of [3, 5, 6, 7, 8]) assert.ok(ignored.has(t), `record type ${t} is known and ignored`);
        });
      }

      if (fx.actions.some((a) => a.startsWith('converted '))) {
        it('a classic group converted to a consumer group: its classic record is tombstoned, its offsets stay', () => {
          const conv = decodedAll().filter((r) => r.d.group === 'converted');
          const types = conv.map((r) => r.d.type);
          const deleted = types.indexOf('group-delete');
          assert.ok(deleted > 0, `the classic group record is tombstoned: ${types.join()}`);
          assert.equal(conv[deleted].kafka && JSON.parse(conv[deleted].kafka.key).type, '2', 'the tombstone is of the classic group record (type 2)');
          assert.ok(conv.slice(0, deleted).some((r) => r.d.type === 'group-metadata' && r.d.protocolType === 'consumer'), 'a classic group before');
          assert.ok(conv.slice(deleted + 1).some((r) => r.d.type === 'ignored' && r.d.keyVersion === 3), 'a consumer group (record type 3) after');
          // the conversion deletes no offset: the classic commit stays, the new member's commits add to it
          assert.deepEqual(conv.filter((r) => r.d.type === 'offset-delete'), []);
          const last = new Map(conv.filter((r) => r.d.type === 'offset-commit').map((r) => [`${r.d.topic}-${r.d.partition}`, r.d.offset]));
          assert.equal(last.get('payments-0'), 5n);
          assert.ok(last.has('orders-0') && last.has('orders-1'), [...last.keys()].join());
        });
      }

      if (fx.actions.some((a) => a.startsWith('shared '))) {
        it('a share group: known records carrying no offsets, nothing our decoder reads as a commit', () => {
          const shared = decodedAll().filter((r) => r.d.group === 'shared');
          assert.ok(shared.length > 0, 'the share group wrote records');
          assert.deepEqual([...new Set(shared.map((r) => r.d.type))], ['ignored']);
          for (const r of shared) assert.ok(r.d.keyVersion >= 9 && r.d.keyVersion <= 15, `record type ${r.d.keyVersion} is a share group's`);
        });

        it('a streams group: its offset commits decode as commits, its group records are ignored', () => {
          const app = decodedAll().filter((r) => r.d.group === 'streams-app');
          const commits = app.filter((r) => r.d.type === 'offset-commit');
          assert.ok(commits.length > 0 && commits.every((r) => r.d.topic === 'payments'), 'the application commits its input topic');
          assert.equal(commits.at(-1).d.offset, 5n, 'the last commit is past the 5 records');
          const ignored = app.filter((r) => r.d.type === 'ignored');
          assert.ok(ignored.length > 0 && ignored.every((r) => r.d.keyVersion >= 17 && r.d.keyVersion <= 23), ignored.map((r) => r.d.keyVersion).join());
          assert.ok(!app.some((r) => r.d.type === 'group-metadata'), 'no classic group record');
        });
      }
    });
  }

  describe('versions the brokers no longer write, and broken input', () => {
    const key = offsetKey(1, 'g', 't', 3);
    it('offset commit values v0, v1 (expireTimestamp), v2 and v3', () => {
      const base = { type: 'offset-commit', group: 'g', topic: 't', partition: 3, offset: 42n, metadata: 'm', commitTimestamp: 1000n };
      assert.deepEqual(decodeConsumerOffsetsRecord(key, Buffer.concat([i16(0), i64(42), str('m'), i64(1000)])), { ...base, leaderEpoch: -1 });
      assert.deepEqual(decodeConsumerOffsetsRecord(key, Buffer.concat([i16(1), i64(42), str('m'), i64(1000), i64(2000)])), { ...base, leaderEpoch: -1 });
      assert.deepEqual(decodeConsumerOffsetsRecord(key, Buffer.concat([i16(2), i64(42), str('m'), i64(1000)])), { ...base, leaderEpoch: -1 });
      assert.deepEqual(decodeConsumerOffsetsRecord(key, Buffer.concat([i16(3), i64(42), i32(7), str('m'), i64(1000)])), { ...base, leaderEpoch: 7 });
      assert.deepEqual(decodeConsumerOffsetsRecord(offsetKey(0, 'g', 't', 3), Buffer.concat([i16(3), i64(42), i32(7), str('m'), i64(1000)])), { ...base, leaderEpoch: 7 });
    });

    it('offset commit value v4 with metadata and a tagged field (4.1 topicId)', () => {
      const tagged = Buffer.concat([Buffer.from([1, 0, 16]), Buffer.alloc(16, 0xab)]);
      const v = Buffer.concat([i16(4), i64(42), i32(7), compact('meta data'), i64(1000), tagged]);
      assert.deepEqual(decodeConsumerOffsetsRecord(key, v), {
        type: 'offset-commit', group: 'g', topic: 't', partition: 3, offset: 42n, leaderEpoch: 7, metadata: 'meta data', commitTimestamp: 1000n,
      });
      assert.throws(() => decodeConsumerOffsetsRecord(key, v.subarray(0, v.length - 3)), MalformedRecordError, 'a cut tagged field');
    });

    it('group metadata value v4 (flexible) and v0', () => {
      const gk = Buffer.concat([i16(2), str('grp')]);
      const v4 = Buffer.concat([i16(4), compact('consumer'), i32(9), compact('range'), Buffer.from([0]), i64(5), Buffer.from([3])]);
      assert.deepEqual(decodeConsumerOffsetsRecord(gk, v4), { type: 'group-metadata', group: 'grp', protocolType: 'consumer', generation: 9, members: 2 });
      const v0 = Buffer.concat([i16(0), str('consumer'), i32(1), i16(-1), i16(-1), i32(0)]);
      assert.deepEqual(decodeConsumerOffsetsRecord(gk, v0), { type: 'group-metadata', group: 'grp', protocolType: 'consumer', generation: 1, members: 0 });
    });

    it('unknown key versions are refused with MalformedRecordError naming the version', () => {
      for (const t of [24, 99, -1]) {
        assert.throws(() => decodeConsumerOffsetsRecord(Buffer.concat([i16(t), str('g')]), Buffer.from('00', 'hex')), (e) => e instanceof MalformedRecordError && e.message.includes(`key version ${t} is unknown`));
      }
    });

    it('unknown value versions, short buffers, a null key: MalformedRecordError', () => {
      assert.throws(() => decodeConsumerOffsetsRecord(key, Buffer.concat([i16(5), i64(1), i32(0), compact(''), i64(0), Buffer.from([0])])), /offset commit value version 5 is unknown/);
      assert.throws(() => decodeConsumerOffsetsRecord(key, Buffer.concat([i16(3), i64(1)])), MalformedRecordError);
      assert.throws(() => decodeConsumerOffsetsRecord(key.subarray(0, 5), null), MalformedRecordError);
      assert.throws(() => decodeConsumerOffsetsRecord(null, null), MalformedRecordError);
      assert.throws(() => decodeConsumerOffsetsRecord(Buffer.from([0]), null), MalformedRecordError);
    });

    it('a negative offset or partition is absurd (skipped and counted like a malformed record)', () => {
      assert.throws(() => decodeConsumerOffsetsRecord(key, Buffer.concat([i16(3), i64(-1), i32(0), str(''), i64(0)])), AbsurdRecordError);
      assert.throws(() => decodeConsumerOffsetsRecord(offsetKey(1, 'g', 't', -2), null), AbsurdRecordError);
    });

    it('tombstones of consumer-protocol group records: the group key means deleted, the others are ignored', () => {
      const ck = (t) => Buffer.concat([i16(t), str('cg'), str('member')]);
      assert.deepEqual(decodeConsumerOffsetsRecord(Buffer.concat([i16(3), str('cg')]), null), { type: 'group-delete', group: 'cg' });
      assert.deepEqual(decodeConsumerOffsetsRecord(ck(5), null), { type: 'ignored', keyVersion: 5, group: 'cg' });
    });
  });
});
