'use strict';
const assert = require('node:assert/strict');
const {
  javaStringHashCode, kafkaAbs, consumerOffsetsPartitionFor, shareGroupId, Shares,
  settingsFingerprint, firstSettingDifference, settingDifferenceText, assignShares,
  encodeMemberUserData, decodeMemberUserData, encodeAssignmentUserData, decodeAssignmentUserData,
} = require('../../dist/core/group-ownership');

const LONG = 'x'.repeat(1000) + 'long-group-id-' + 'ü'.repeat(200);

/**
 * Produced by Java itself, not computed here: test/fixtures/java/GroupPartition.java run with Java
 * 17.0.15 and kafka-clients 4.4.0 (its header says how): String.hashCode, Utils.abs of it, and
 * Utils.abs(hash) % 50, % 1 and % 3 (GroupCoordinatorService.partitionFor).
 * @type {Array<[string, number, number, number, number, number]>}
 */
const JAVA = [
  ['', 0, 0, 0, 0, 0],
  ['a', 97, 97, 47, 0, 1],
  ['orders-consumer', -1204742690, 1204742690, 40, 0, 2],
  ['console-consumer-12345', 158455506, 158455506, 6, 0, 0],
  ['groupé', -1237460406, 1237460406, 6, 0, 0],
  ['组-消费者', -65227029, 65227029, 29, 0, 0],
  ['pay\uD83D\uDE00ments', -563990102, 563990102, 2, 0, 2], // an emoji: a surrogate pair, two code units
  ['polygenelubricants', -2147483648, 0, 0, 0, 0], // hashCode is Integer.MIN_VALUE
  ['__mm2-node-red-shares.source->target', 1593101963, 1593101963, 13, 0, 2],
  [LONG, -738380013, 738380013, 13, 0, 0],
];

describe('group ownership (core/group-ownership)', function () {
  describe("Kafka's partition of a group", function () {
    for (const [id, hash, abs, p50, p1, p3] of JAVA) {
      const shown = id.length > 40 ? `a ${id.length}-character id` : JSON.stringify(id);
      it(`${shown}: hashCode ${hash}, partition ${p50} of 50 as Java and Kafka compute them`, function () {
        assert.equal(javaStringHashCode(id), hash);
        assert.equal(kafkaAbs(hash), abs);
        assert.equal(consumerOffsetsPartitionFor(id, 50), p50);
        assert.equal(consumerOffsetsPartitionFor(id, 1), p1);
        assert.equal(consumerOffsetsPartitionFor(id, 3), p3);
      });
    }

    it('Utils.abs is Math.abs except MIN_VALUE -> 0 (not n & 0x7fffffff, which gives another partition)', function () {
      assert.equal(kafkaAbs(-2147483648), 0);
      assert.equal(kafkaAbs(-1), 1);
      assert.equal(kafkaAbs(2147483647), 2147483647);
      assert.equal(kafkaAbs(0), 0);
      // the masked form would put orders-consumer in partition 8, the broker puts it in 40
      assert.equal((-1204742690 & 0x7fffffff) % 50, 8);
      assert.equal(consumerOffsetsPartitionFor('orders-consumer', 50), 40);
      assert.throws(() => kafkaAbs(2 ** 31), /not a 32-bit integer/);
    });

    it('a partition count that is not a positive integer is refused, naming it', function () {
      assert.throws(() => consumerOffsetsPartitionFor('g', 0), /partitions: 0 .*offsets\.topic\.num\.partitions/);
      assert.throws(() => consumerOffsetsPartitionFor('g', 2.5), /partitions: 2\.5/);
    });
  });

  it("the flow's group is named like the project's internal groups, `__` so MM2's groups.exclude leaves it out", function () {
    assert.equal(shareGroupId('source', 'target'), '__mm2-node-red-shares.source->target');
    // aliases with dashes cannot collide: `->` is not in any alias
    assert.notEqual(shareGroupId('a-b', 'c'), shareGroupId('a', 'b-c'));
  });

  describe('Shares', function () {
    it('owns the groups whose commits land in its partitions, and only those', function () {
      const s = new Shares([40, 6, 6], 50);
      assert.deepEqual(s.partitions, [6, 40]);
      assert.equal(s.size, 2);
      assert.equal(s.owns('orders-consumer'), true); // partition 40
      assert.equal(s.owns('groupé'), true); // partition 6
      assert.equal(s.owns('a'), false); // partition 47
      assert.equal(s.ownsPartition(40), true);
      assert.equal(s.ownsPartition(47), false);
    });

    it('all and none', function () {
      const all = Shares.all(5);
      assert.deepEqual(all.partitions, [0, 1, 2, 3, 4]);
      for (const [id] of JAVA) assert.equal(all.owns(id), true);
      const none = Shares.none(5);
      assert.equal(none.size, 0);
      for (const [id] of JAVA) assert.equal(none.owns(id), false);
    });

    it('a partition outside the topic is refused, naming the range', function () {
      assert.throws(() => new Shares([5], 5), /partitions: 5 is not a partition of __consumer_offsets \(0 to 4\)/);
      assert.throws(() => new Shares([-1], 5), /partitions: -1/);
      assert.throws(() => new Shares([], 0), /partitionCount: 0/);
    });
  });

  describe('settings fingerprint', function () {
    const a = { groups: 'orders-.*', 'groups.exclude': '__.*', 'emit.checkpoints.interval.seconds': '60' };

    it('is short, stable and independent of key order', function () {
      const fp = settingsFingerprint(a);
      assert.match(fp, /^[0-9a-f]{16}$/);
      const reordered = { 'emit.checkpoints.interval.seconds': '60', 'groups.exclude': '__.*', groups: 'orders-.*' };
      assert.equal(settingsFingerprint(reordered), fp);
      assert.equal(settingsFingerprint({ ...a }), fp);
    });

    it('changes with any value, any name, a missing setting', function () {
      const fp = settingsFingerprint(a);
      const others = [
        { ...a, groups: '.*' },
        { ...a, 'emit.checkpoints.interval.seconds': '61' },
        { groups: 'orders-.*', 'groups.exclude': '__.*' },
        { ...a, extra: '' },
        // a value that would run into the next name if the encoding just concatenated
        { groups: 'orders-.*groups.exclude', 'emit.checkpoints.interval.seconds': '60' },
      ];
      const fps = new Set([fp, ...others.map(settingsFingerprint)]);
      assert.equal(fps.size, others.length + 1);
    });

    it('a value that is not text is refused, naming the setting', function () {
      assert.throws(() => settingsFingerprint(/** @type {any} */ ({ groups: '.*', 'emit.checkpoints.interval.seconds': 60 })), /settings\.emit\.checkpoints\.interval\.seconds: expected the setting's value as text, got number/);
      assert.throws(() => settingsFingerprint(/** @type {any} */ (null)), /settings: expected a record/);
    });

    it('names the first setting that differs, with both values', function () {
      const ours = { groups: 'orders-.*', 'sync.group.offsets.enabled': 'true', topics: '.*' };
      const theirs = { topics: '.*', 'sync.group.offsets.enabled': 'false', groups: '.*' };
      const d = firstSettingDifference(ours, theirs);
      assert.deepEqual(d, { setting: 'groups', ours: 'orders-.*', theirs: '.*' });
      assert.equal(settingDifferenceText(d), 'setting groups differs from the other instances: orders-.* vs .*');
      assert.equal(firstSettingDifference(ours, { ...ours }), null);
      const missing = firstSettingDifference({ a: '1' }, { a: '1', b: '' });
      assert.deepEqual(missing, { setting: 'b', ours: null, theirs: '' });
      assert.equal(settingDifferenceText(missing), 'setting b differs from the other instances: (not set) vs (empty)');
    });
  });

  describe("the leader's split", function () {
    const settings = { groups: '.*' };
    const fingerprint = settingsFingerprint(settings);
    const other = { groups: 'orders-.*' };
    const member = (memberId, s = settings) => ({ memberId, fingerprint: settingsFingerprint(s), settings: s });
    const parts = Array.from({ length: 50 }, (_, i) => i);

    it('round-robin over the agreeing members in memberId order: no overlap, full coverage', function () {
      const out = assignShares({ fingerprint, settings }, [member('m-c'), member('m-a'), member('m-b')], parts);
      const by = Object.fromEntries(out.map((a) => [a.memberId, a]));
      assert.deepEqual(by['m-a'].partitions.slice(0, 3), [0, 3, 6]);
      assert.deepEqual(by['m-b'].partitions.slice(0, 3), [1, 4, 7]);
      assert.deepEqual(by['m-c'].partitions.slice(0, 3), [2, 5, 8]);
      assert.deepEqual(out.map((a) => a.partitions.length).sort(), [16, 17, 17]);
      const all = out.flatMap((a) => a.partitions).sort((x, y) => x - y);
      assert.deepEqual(all, parts);
      for (const a of out) assert.deepEqual([a.partitionCount, a.members, a.refused, a.fingerprint, a.differs], [50, 3, 0, fingerprint, null]);
    });

    it('a member with other settings gets nothing and the setting that differs; the others share everything', function () {
      const out = assignShares({ fingerprint, settings }, [member('m-a'), member('m-x', other), member('m-b')], parts);
      const by = Object.fromEntries(out.map((a) => [a.memberId, a]));
      assert.deepEqual(by['m-x'].partitions, []);
      assert.deepEqual(by['m-x'].differs, { setting: 'groups', ours: 'orders-.*', theirs: '.*' });
      assert.equal(by['m-a'].partitions.length + by['m-b'].partitions.length, 50);
      for (const a of out) assert.deepEqual([a.members, a.refused], [2, 1]);
      assert.equal(by['m-a'].differs, null);
    });

    it('userData round trips; foreign or newer userData reads as null', function () {
      const m = decodeMemberUserData(encodeMemberUserData(fingerprint, settings));
      assert.deepEqual(m, { fingerprint, settings });
      const [a] = assignShares({ fingerprint, settings }, [member('m-x', other)], parts);
      assert.deepEqual(decodeAssignmentUserData(encodeAssignmentUserData(a)), { partitionCount: 50, members: 0, refused: 1, fingerprint, differs: { setting: 'groups', ours: 'orders-.*', theirs: '.*' } });
      assert.equal(decodeMemberUserData(Buffer.alloc(0)), null);
      assert.equal(decodeMemberUserData(Buffer.from('not json')), null);
      assert.equal(decodeMemberUserData(Buffer.from(JSON.stringify({ v: 2, fingerprint, settings }))), null);
      assert.equal(decodeAssignmentUserData(null), null);
    });
  });
});
