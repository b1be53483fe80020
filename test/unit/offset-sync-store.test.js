'use strict';

const assert = require('node:assert/strict');
const {
  OffsetSyncStore,
  SYNCS_PER_PARTITION,
  invariantB,
  invariantC,
  describeSlotArray,
} = require('../../dist/core/offset-sync-store');

const TOPIC = 'topic1';
const PART = 2;
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/**
 * The translation mode of the stores the tests below create: every describe of the MM2 vectors runs
 * in both modes. In 'precise' mode each lookup is the first translation of a new group once the load
 * history is released, with no other group tracked (each is forgotten after its lookup), which must
 * be exactly MM2's answer (nothing is kept or retained before a first translation), and tracking
 * those groups must leave the 64 slots exactly as MM2 has them.
 */
let MODE = 'mm2';
let lookups = 0;
function newStore(opts) {
  return new OffsetSyncStore({ ...opts, translation: MODE });
}

function sync(u, d, topic = TOPIC, partition = PART) {
  return { topic, partition, upstreamOffset: BigInt(u), downstreamOffset: BigInt(d) };
}

/** A store in must-read-to-end mode (keepHistoryOnLoad false) with an empty initial load: every sync is live. */
function liveStore() {
  const store = newStore({ keepHistoryOnLoad: false });
  store.markLoaded();
  return store;
}

/** A store after an initial load of `syncs` in the given mode. */
function loadedStore(keepHistoryOnLoad, syncs) {
  const store = newStore({ keepHistoryOnLoad });
  for (const s of syncs) store.apply(s);
  store.markLoaded();
  return store;
}

function range(from, to, step) {
  const out = [];
  for (let i = from; i <= to; i += step) out.push(i);
  return out;
}

function tr(store, g, topic = TOPIC, partition = PART) {
  const mm2 = store.translate(topic, partition, BigInt(g));
  if (MODE === 'mm2') return mm2;
  // (the load history, which makes a first translation after a start better than MM2's, is tested on its own below)
  store.releaseLoadHistory();
  const t = store.explain(topic, partition, BigInt(g), `first-translation-${++lookups}`);
  store.retainGroups(new Set());
  const precise = t.kind === 'translated' ? t.downstreamOffset : t.kind === 'too-old' ? -1n : undefined;
  assert.equal(precise, mm2, `a group's first translation of ${g} is MM2's`);
  return precise;
}

function assertTranslations(store, table) {
  for (const [g, expected] of table) {
    assert.equal(tr(store, g), expected === undefined ? undefined : BigInt(expected), `tr(${g})`);
  }
}

const POW2 = Array.from({ length: 64 }, (_, i) => 1n << BigInt(i));

/**
 * Independent check of invariants B and C for every pair of slots i < j, with Java long
 * wrap-around; a bound that overflowed below 0 is not checked. As in upstream's test, pairs with
 * equal upstream offsets are not checked: a repeated upstream offset (step 0) is a distinct sync
 * that C cannot separate from its predecessor.
 *
 * For speed, j only takes the first slot of each run of equal upstream offsets: slot offsets
 * never increase with the index, C's bound does not depend on j, and B's exact bound grows with
 * j, so once it overflows at the first slot of a run it overflows for the whole run. This is the
 * same set of verdicts as checking all 2016 pairs.
 */
function assertInvariants(slots, context) {
  const ups = slots.map((s) => s.upstreamOffset);
  const runStarts = [];
  for (let j = 1; j < SYNCS_PER_PARTITION; j++) {
    assert.ok(ups[j] <= ups[j - 1], `slot offsets increase at ${j} ${context}`);
    if (ups[j] !== ups[j - 1]) runStarts.push(j);
  }
  for (let i = 0; i < SYNCS_PER_PARTITION; i++) {
    for (const j of runStarts) {
      if (j <= i || ups[i] === ups[j]) continue;
      const b = BigInt.asIntN(64, ups[j] + POW2[j] - POW2[i]);
      if (b >= 0n && !(ups[i] <= b)) {
        assert.fail(`invariant B broken for slots ${i},${j} ${context}: ${describeSlotArray(slots)}`);
      }
      const c = BigInt.asIntN(64, ups[j] + POW2[Math.max(i - 2, 0)]);
      if (c >= 0n && !(ups[i] >= c)) {
        assert.fail(`invariant C broken for slots ${i},${j} ${context}: ${describeSlotArray(slots)}`);
      }
    }
  }
}

function distinctCount(slots) {
  return new Set(slots).size;
}

/** splitmix64: a seeded 64-bit PRNG on bigint. */
function prng(seed) {
  let state = BigInt.asUintN(64, BigInt(seed));
  return function nextU64() {
    state = BigInt.asUintN(64, state + 0x9e3779b97f4a7c15n);
    let z = state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  };
}

/**
 * Upstream's assertSyncSpacingHasBoundedExpirations: live syncs (u = d) from `first` by `steps`;
 * after each: slot 0 is the newest, slot 63 the first, at most `maxExpired` distinct syncs expired,
 * and (when `checkInvariants`) B and C hold.
 */
function assertBoundedExpirations(first, steps, maxExpired, checkInvariants) {
  const store = liveStore();
  store.apply(sync(first, first));
  let offset = BigInt(first);
  let lastCount = 1;
  let maxSeen = 0;
  for (const step of steps) {
    offset += step;
    assert.ok(offset >= 0n && offset <= INT64_MAX, 'test is invalid: offset overflowed');
    store.apply(sync(offset, offset));
    const slots = store.slots(TOPIC, PART);
    assert.equal(slots[0].upstreamOffset, offset);
    assert.equal(slots[63].upstreamOffset, BigInt(first));
    const count = distinctCount(slots);
    const expired = lastCount - count + 1;
    if (expired > maxSeen) maxSeen = expired;
    assert.ok(expired <= maxExpired, `expired ${expired} > ${maxExpired} after adding ${offset}`);
    lastCount = count;
    if (checkInvariants) assertInvariants(slots, `after ${offset}`);
  }
  return maxSeen;
}

for (const mode of ['mm2', 'precise']) describe(`OffsetSyncStore (${mode} mode)`, function () {
  before(() => {
    MODE = mode;
  });
  describe('translation (upstream testOffsetTranslation, OffsetSyncStoreTest example 1)', function () {
    it('translates with the +1 rule, exact matches, -1 for too old, downstream reset and upstream rewind', function () {
      const store = liveStore();
      store.apply(sync(100, 200));
      assert.equal(tr(store, 150), 201n);
      store.apply(sync(150, 251));
      assert.equal(tr(store, 150), 251n);
      assert.equal(tr(store, 5), -1n);
      store.apply(sync(200, 10));
      assert.equal(tr(store, 200), 10n);
      store.apply(sync(20, 20));
      assert.equal(store.describeSlots(TOPIC, PART), '[0-63=20:20]');
      assert.equal(tr(store, 20), 20n);
    });
  });

  describe('loading', function () {
    for (const keepHistoryOnLoad of [true, false]) {
      it(`gives no translation before the initial read-to-end (keepHistoryOnLoad=${keepHistoryOnLoad})`, function () {
        const store = newStore({ keepHistoryOnLoad });
        assert.equal(store.loaded, false);
        store.apply(sync(100, 200));
        assert.equal(tr(store, 0), undefined);
        assert.equal(tr(store, 100), undefined);
        assert.equal(tr(store, 200), undefined);
        assert.deepEqual(store.explain(TOPIC, PART, 100n), { kind: 'loading' });
        store.markLoaded();
        assert.equal(store.loaded, true);
        assert.equal(tr(store, 0), -1n);
        assert.equal(tr(store, 100), 200n);
        assert.equal(tr(store, 200), 201n);
      });
    }

    it('translates a partition without syncs to empty (undefined), also for another partition of a known topic', function () {
      const store = liveStore();
      assert.equal(tr(store, 0), undefined);
      store.apply(sync(5, 5));
      assert.equal(store.translate(TOPIC, PART + 1, 5n), undefined);
      assert.equal(store.translate('other', PART, 5n), undefined);
      assert.deepEqual(store.explain('other', PART, 5n), { kind: 'no-sync' });
      assert.equal(store.slots('other', PART), undefined);
      assert.equal(store.describeSlots('other', PART), '[]');
      assert.equal(store.oldest('other', PART), undefined);
      assert.equal(store.latest('other', PART), undefined);
    });

    it('keeps only the latest sync per partition while loading in must-read-to-end mode', function () {
      const store = newStore({ keepHistoryOnLoad: false });
      assert.equal(store.keepHistoryOnLoad, false);
      for (const u of [0, 10, 20, 30]) store.apply(sync(u, u));
      assert.equal(store.describeSlots(TOPIC, PART), '[0-63=30:30]');
    });
  });

  describe('testPastOffsetTranslation (must-read-to-end, upstream OffsetSyncStore vectors, must-read-to-end start)', function () {
    let store;
    beforeEach(function () {
      store = loadedStore(false, range(0, 1000, 10).map((u) => sync(u, u)));
    });

    it('keeps only the last sync of the initial load', function () {
      assert.equal(store.describeSlots(TOPIC, PART), '[0-63=1000:1000]');
      assertTranslations(store, [[999, -1], [1000, 1000], [1001, 1001], [1002, 1001]]);
    });

    it('matches the upstream OffsetSyncStore vectors, must-read-to-end start state and translation table after live syncs 1010..10000', function () {
      for (const u of range(1010, 10000, 10)) store.apply(sync(u, u));
      assert.equal(
        store.describeSlots(TOPIC, PART),
        '[0-4=10000:10000, 5=9990:9990, 6=9970:9970, 7=9940:9940, 8=9880:9880, 9=9640:9640, 10=9160:9160, ' +
          '11=8680:8680, 12=6760:6760, 13=4840:4840, 14-63=1000:1000]',
      );
      assertTranslations(store, [
        [0, -1], [5, -1], [999, -1], [1000, 1000], [1001, 1001], [3839, 1001], [3840, 1001], [4839, 1001],
        [4840, 4840], [4841, 4841], [9989, 9971], [9990, 9990], [9999, 9991], [10000, 10000], [10001, 10001],
        [20000, 10001],
      ]);
      // OffsetSyncStoreTest: around every anchor a (previous anchor p): tr(a-1)=p+1 (-1 for the first), tr(a)=a, tr(a+1)=tr(a+2)=a+1.
      const anchors = [1000, 4840, 6760, 8680, 9160, 9640, 9880, 9940, 9970, 9990, 10000];
      assert.deepEqual(store.distinctSyncs(TOPIC, PART).map((s) => Number(s.upstreamOffset)).reverse(), anchors);
      anchors.forEach((a, i) => {
        assert.equal(tr(store, a - 1), i === 0 ? -1n : BigInt(anchors[i - 1] + 1), `tr(${a - 1})`);
        assert.equal(tr(store, a), BigInt(a));
        assert.equal(tr(store, a + 1), BigInt(a + 1));
        assert.equal(tr(store, a + 2), BigInt(a + 1));
      });
      assert.equal(store.latest(TOPIC, PART).upstreamOffset, 10000n);
      assert.equal(store.oldest(TOPIC, PART).upstreamOffset, 1000n);
      // rewind
      store.apply(sync(1500, 11000));
      assert.equal(store.describeSlots(TOPIC, PART), '[0-63=1500:11000]');
      assertTranslations(store, [[1499, -1], [1500, 11000], [2000, 11001]]);
    });
  });

  describe('testPastOffsetTranslationWithoutInitializationReadToEnd (keep-history, upstream OffsetSyncStore vectors, keep-history start)', function () {
    let store;
    beforeEach(function () {
      store = loadedStore(true, range(0, 1000, 10).map((u) => sync(u, u)));
    });

    it('keeps the history of the initial load', function () {
      assert.equal(store.keepHistoryOnLoad, true);
      assert.equal(
        store.describeSlots(TOPIC, PART),
        '[0-4=1000:1000, 5=990:990, 6=960:960, 7=900:900, 8=840:840, 9=720:720, 10=480:480, 11-63=0:0]',
      );
      assertTranslations(store, [[0, 0], [479, 1], [480, 480], [719, 481], [720, 720], [999, 991], [1000, 1000]]);
      const anchors = [0, 480, 720, 840, 900, 960, 990, 1000];
      assert.deepEqual(store.distinctSyncs(TOPIC, PART).map((s) => Number(s.upstreamOffset)).reverse(), anchors);
      anchors.forEach((a, i) => {
        if (i > 0) assert.equal(tr(store, a - 1), BigInt(anchors[i - 1] + 1), `tr(${a - 1})`);
        assert.equal(tr(store, a), BigInt(a));
        assert.equal(tr(store, a + 1), BigInt(a + 1));
      });
    });

    it('matches the upstream OffsetSyncStore vectors, keep-history start state and translation table after live syncs 1000..10000', function () {
      for (const u of range(1000, 10000, 10)) store.apply(sync(u, u));
      assert.equal(
        store.describeSlots(TOPIC, PART),
        '[0-4=10000:10000, 5=9990:9990, 6=9960:9960, 7=9900:9900, 8=9840:9840, 9=9600:9600, 10=9120:9120, ' +
          '11=8640:8640, 12=7680:7680, 13=3840:3840, 14-63=0:0]',
      );
      assertTranslations(store, [
        [0, 0], [5, 1], [999, 1], [1000, 1], [1001, 1], [3839, 1], [3840, 3840], [4839, 3841], [4840, 3841],
        [4841, 3841], [9989, 9961], [9990, 9990], [9999, 9991], [10000, 10000], [10001, 10001], [20000, 10001],
      ]);
      const anchors = [0, 3840, 7680, 8640, 9120, 9600, 9840, 9900, 9960, 9990, 10000];
      assert.deepEqual(store.distinctSyncs(TOPIC, PART).map((s) => Number(s.upstreamOffset)).reverse(), anchors);
      anchors.forEach((a, i) => {
        if (i > 0) assert.equal(tr(store, a - 1), BigInt(anchors[i - 1] + 1), `tr(${a - 1})`);
        assert.equal(tr(store, a), BigInt(a));
        assert.equal(tr(store, a + 1), BigInt(a + 1));
      });
      store.apply(sync(1500, 11000));
      assert.equal(store.describeSlots(TOPIC, PART), '[0-63=1500:11000]');
      assertTranslations(store, [[1499, -1], [1500, 11000], [2000, 11001]]);
    });
  });

  describe('upstream OffsetSyncStore vectors: live syncs (u, 2u)', function () {
    /** @type {Array<[number, string]>} */
    const vector = [
      [0, '[0-63=0:0]'],
      [1, '[0=1:2, 1-63=0:0]'],
      [2, '[0=2:4, 1=1:2, 2-63=0:0]'],
      [5, '[0-2=5:10, 3=2:4, 4-63=0:0]'],
      [6, '[0=6:12, 1-2=5:10, 3=2:4, 4-63=0:0]'],
      [20, '[0-5=20:40, 6-63=0:0]'],
      [21, '[0=21:42, 1-5=20:40, 6-63=0:0]'],
      [22, '[0=22:44, 1=21:42, 2-5=20:40, 6-63=0:0]'],
      [100, '[0-7=100:200, 8-63=0:0]'],
      [101, '[0=101:202, 1-7=100:200, 8-63=0:0]'],
      [150, '[0-6=150:300, 7=100:200, 8-63=0:0]'],
      [1000, '[0-10=1000:2000, 11-63=0:0]'],
      [1001, '[0=1001:2002, 1-10=1000:2000, 11-63=0:0]'],
      [1002, '[0=1002:2004, 1=1001:2002, 2-10=1000:2000, 11-63=0:0]'],
      [5000, '[0-13=5000:10000, 14-63=0:0]'],
      [5001, '[0=5001:10002, 1-13=5000:10000, 14-63=0:0]'],
      [5002, '[0=5002:10004, 1=5001:10002, 2-13=5000:10000, 14-63=0:0]'],
      [5003, '[0=5003:10006, 1=5002:10004, 2-13=5000:10000, 14-63=0:0]'],
      [5004, '[0=5004:10008, 1=5003:10006, 2=5002:10004, 3-13=5000:10000, 14-63=0:0]'],
      [5005, '[0=5005:10010, 1=5004:10008, 2=5002:10004, 3-13=5000:10000, 14-63=0:0]'],
      [5006, '[0=5006:10012, 1=5005:10010, 2=5004:10008, 3-13=5000:10000, 14-63=0:0]'],
      [5007, '[0=5007:10014, 1=5006:10012, 2=5004:10008, 3-13=5000:10000, 14-63=0:0]'],
      [5008, '[0=5008:10016, 1=5007:10014, 2=5006:10012, 3=5004:10008, 4-13=5000:10000, 14-63=0:0]'],
    ];

    it('matches every state slot by slot, then the final translation table', function () {
      const store = liveStore();
      for (const [u, expected] of vector) {
        store.apply(sync(u, 2 * u));
        assert.equal(store.describeSlots(TOPIC, PART), expected, `after ${u}:${2 * u}`);
        assertInvariants(store.slots(TOPIC, PART), `after ${u}`);
      }
      assertTranslations(store, [
        [0, 0], [1, 1], [2, 1], [5, 1], [100, 1], [1000, 1], [4999, 1], [5000, 10000], [5008, 10016], [5009, 10017],
        [9999, 10017],
      ]);
    });
  });

  describe('upstream OffsetSyncStore vectors / OffsetSyncStoreTest example 2: live syncs (3i, 3i+100)', function () {
    const states = [
      '[0-63=0:100]',
      '[0-2=3:103, 3-63=0:100]',
      '[0-2=6:106, 3=3:103, 4-63=0:100]',
      '[0-2=9:109, 3=6:106, 4-63=0:100]',
      '[0-2=12:112, 3=9:109, 4=6:106, 5-63=0:100]',
      '[0-2=15:115, 3=12:112, 4=6:106, 5-63=0:100]',
      '[0-2=18:118, 3=15:115, 4=12:112, 5-63=0:100]',
      '[0-2=21:121, 3=18:118, 4=12:112, 5-63=0:100]',
      '[0-2=24:124, 3=21:121, 4=18:118, 5=12:112, 6-63=0:100]',
      '[0-2=27:127, 3=24:124, 4=18:118, 5=12:112, 6-63=0:100]',
      '[0-2=30:130, 3=27:127, 4=24:124, 5=12:112, 6-63=0:100]',
      '[0-2=33:133, 3=30:130, 4=24:124, 5=12:112, 6-63=0:100]',
      '[0-2=36:136, 3=33:133, 4=30:130, 5=24:124, 6-63=0:100]',
      '[0-2=39:139, 3=36:136, 4=30:130, 5=24:124, 6-63=0:100]',
      '[0-2=42:142, 3=39:139, 4=36:136, 5=24:124, 6-63=0:100]',
      '[0-2=45:145, 3=42:142, 4=36:136, 5=24:124, 6-63=0:100]',
      '[0-2=48:148, 3=45:145, 4=42:142, 5=36:136, 6=24:124, 7-63=0:100]',
      '[0-2=51:151, 3=48:148, 4=42:142, 5=36:136, 6=24:124, 7-63=0:100]',
      '[0-2=54:154, 3=51:151, 4=48:148, 5=36:136, 6=24:124, 7-63=0:100]',
      '[0-2=57:157, 3=54:154, 4=48:148, 5=36:136, 6=24:124, 7-63=0:100]',
    ];

    it('matches all 20 states slot by slot', function () {
      const store = liveStore();
      states.forEach((expected, i) => {
        store.apply(sync(3 * i, 3 * i + 100));
        assert.equal(store.describeSlots(TOPIC, PART), expected, `after ${3 * i}:${3 * i + 100}`);
        assertInvariants(store.slots(TOPIC, PART), `after ${3 * i}`);
      });
    });
  });

  describe('MirrorCheckpointTaskTest restarts: restart scenarios', function () {
    const initial = [175, 275, 375, 475].map((u) => sync(u, u));

    it('keep-history restart keeps the older syncs', function () {
      const store = loadedStore(true, initial);
      assert.equal(store.describeSlots(TOPIC, PART), '[0-7=475:475, 8=375:375, 9-63=175:175]');
      assertTranslations(store, [[250, 176], [370, 176], [400, 376], [100, -1]]);
    });

    it('must-read-to-end restart keeps only the last sync', function () {
      const store = loadedStore(false, initial);
      assert.equal(store.describeSlots(TOPIC, PART), '[0-63=475:475]');
      assertTranslations(store, [[250, -1], [400, -1], [475, 475], [476, 476]]);
    });

    it('monotonic scenario: eviction lowers a translation for a fixed offset', function () {
      const store = liveStore();
      store.apply(sync(11, 4));
      store.apply(sync(12, 5));
      assert.equal(store.describeSlots(TOPIC, PART), '[0=12:5, 1-63=11:4]');
      assert.equal(tr(store, 13), 6n);
      for (let u = 13; u <= 17; u++) store.apply(sync(u, u - 7));
      assert.equal(store.describeSlots(TOPIC, PART), '[0=17:10, 1=16:9, 2=15:8, 3-63=11:4]');
      assert.equal(tr(store, 13), 5n);
      assert.equal(tr(store, 12), 5n);
    });
  });

  describe('object identity (OffsetSyncStore slots, upstream behaviour note note 9)', function () {
    it('treats two syncs with equal values as two objects, even when the caller passes the same object twice', function () {
      const store = liveStore();
      const s = sync(0, 0);
      store.apply(s);
      store.apply(s);
      assert.equal(store.describeSlots(TOPIC, PART), '[0=0:0, 1-63=0:0]');
      const slots = store.slots(TOPIC, PART);
      assert.notEqual(slots[0], slots[1]);
      assert.equal(slots[1], slots[63]);
      assert.equal(store.distinctSyncs(TOPIC, PART).length, 2);
    });

    it('stores frozen copies: later changes to the caller object do not leak in, and slots cannot be modified', function () {
      const store = liveStore();
      const s = sync(7, 8);
      store.apply(s);
      s.upstreamOffset = 999n;
      assert.equal(tr(store, 7), 8n);
      const slots = store.slots(TOPIC, PART);
      assert.ok(Object.isFrozen(slots));
      assert.ok(Object.isFrozen(slots[0]));
      assert.deepEqual(slots[0], sync(7, 8));
    });

    it('publishes a new array on every update (earlier snapshots stay unchanged)', function () {
      const store = liveStore();
      store.apply(sync(0, 0));
      const before = store.slots(TOPIC, PART);
      store.apply(sync(1, 1));
      assert.equal(describeSlotArray(before), '[0-63=0:0]');
      assert.equal(store.describeSlots(TOPIC, PART), '[0=1:1, 1-63=0:0]');
      assert.equal(store.slots(TOPIC, PART)[1], before[0]);
    });

    it('rejects non-bigint offsets', function () {
      const store = liveStore();
      assert.throws(() => store.apply({ topic: TOPIC, partition: 0, upstreamOffset: /** @type {any} */ (1), downstreamOffset: 1n }), TypeError);
    });
  });

  describe('partitions are independent', function () {
    it('lists partitions and keeps separate arrays', function () {
      const store = liveStore();
      store.apply(sync(10, 20, 'a', 0));
      store.apply(sync(30, 40, 'a', 1));
      store.apply(sync(5, 6, 'b', 0));
      store.apply(sync(1, 2, 'a', 0)); // rewind of a-0 only
      assert.deepEqual(store.partitions(), [
        { topic: 'a', partition: 0 },
        { topic: 'a', partition: 1 },
        { topic: 'b', partition: 0 },
      ]);
      assert.equal(store.describeSlots('a', 0), '[0-63=1:2]');
      assert.equal(store.describeSlots('a', 1), '[0-63=30:40]');
      assert.equal(store.translate('b', 0, 9n), 7n);
    });
  });

  describe('explain', function () {
    it('names the sync used, exactness, and the oldest sync for too-old offsets', function () {
      const store = liveStore();
      store.apply(sync(100, 200));
      store.apply(sync(150, 251));
      const exact = store.explain(TOPIC, PART, 150n);
      assert.equal(exact.kind, 'translated');
      assert.equal(exact.exact, true);
      assert.equal(exact.downstreamOffset, 251n);
      assert.deepEqual(exact.sync, sync(150, 251));
      const past = store.explain(TOPIC, PART, 120n);
      assert.equal(past.kind, 'translated');
      assert.equal(past.exact, false);
      assert.equal(past.downstreamOffset, 201n);
      assert.deepEqual(past.sync, sync(100, 200));
      const old = store.explain(TOPIC, PART, 99n);
      assert.equal(old.kind, 'too-old');
      assert.deepEqual(old.oldest, sync(100, 200));
    });
  });

  describe('eviction bounds and invariants (upstream OffsetSyncStoreTest)', function () {
    it('the invariant checker itself rejects arrays that break B or C', function () {
      const s0 = sync(0, 0);
      const brokenB = [sync(100, 0), ...new Array(63).fill(s0)];
      assert.throws(() => assertInvariants(brokenB, 'B'), /invariant B broken for slots 0,1/);
      const s3 = sync(3, 0);
      const brokenC = [s3, s3, s3, s3, sync(2, 0), ...new Array(59).fill(s0)];
      assert.throws(() => assertInvariants(brokenC, 'C'), /invariant C broken for slots 3,4/);
    });

    it('consistently spaced syncs: slot 0 newest, slot 63 first, at most 1 sync expired per update', function () {
      const iterations = 100;
      const maxStep = INT64_MAX / BigInt(iterations);
      let stepsTried = 0;
      for (let step = 1n; step < maxStep; step = step * 2n + 1n) {
        stepsTried++;
        // upstream tries first offsets 0..29; a spread of them keeps this test fast
        for (const first of [0, 1, 13, 29]) {
          const steps = new Array(iterations).fill(step);
          assertBoundedExpirations(first, steps, 1, first === 0);
        }
      }
      assert.equal(stepsTried, 56); // 2^k - 1 for k = 1..56
    });

    it('randomly spaced syncs: steps in [0, 2^n) and [2^16, 2^16 + 2^n) expire at most n+2 syncs per update', function () {
      const next = prng(0);
      const iterations = 1024;
      for (const n of [1, 2, 3, 5, 8, 13, 21, 34, 53]) {
        const small = Array.from({ length: iterations }, () => next() >> BigInt(64 - n));
        const shifted = Array.from({ length: iterations }, () => (1n << 16n) + (next() >> BigInt(64 - n)));
        // invariants after every update on a few of the runs (the full pair check is the costly part)
        const check = n === 3 || n === 21 || n === 53;
        assertBoundedExpirations(0, small, n + 2, check);
        assertBoundedExpirations(0, shifted, n + 2, check);
      }
    });

    it('dropped syncs (gaps of 100 or 200): at most 2 syncs expired per update', function () {
      const next = prng(42);
      const steps = Array.from({ length: 3000 }, () => ((next() & 1n) === 0n ? 100n : 200n));
      const maxSeen = assertBoundedExpirations(0, steps, 2, true);
      assert.ok(maxSeen >= 1);
    });

    it('random mixed traffic with rewinds and both start modes keeps B and C after every update', function () {
      const next = prng(7);
      for (const keepHistoryOnLoad of [true, false]) {
        const store = newStore({ keepHistoryOnLoad });
        let u = 0n;
        let d = 0n;
        for (let i = 0; i < 600; i++) {
          if (i === 100) store.markLoaded();
          const r = next();
          if (r % 97n === 0n) {
            u = r % 1000n; // occasional upstream rewind
          } else {
            u += (r >> 8n) % 300n;
          }
          d += (r >> 20n) % 50n;
          store.apply(sync(u, d));
          const slots = store.slots(TOPIC, PART);
          assert.equal(slots[0].upstreamOffset, u);
          assertInvariants(slots, `step ${i}`);
          if (i < 100 && !keepHistoryOnLoad) assert.equal(distinctCount(slots), 1);
        }
        // translation is monotonic in g for a fixed store state
        let last = -2n;
        for (let g = 0n; g <= u + 5n; g += 37n) {
          const t = store.translate(TOPIC, PART, g);
          assert.ok(t >= last, `translation not monotonic at ${g}`);
          last = t;
        }
      }
    });
  });

  describe('signed 64-bit overflow guards', function () {
    const at = (u) => ({ topic: TOPIC, partition: PART, upstreamOffset: u, downstreamOffset: 0n });

    it('invariant B: a bound that wraps below 0 holds; j = 63 uses 2^63 with wrap-around like Java 1L << 63', function () {
      // bound = 2^62 + 2^63 - 2^62 = 2^63 -> wraps to -2^63 < 0 -> holds whatever X is
      assert.equal(invariantB(at(INT64_MAX), at(1n << 62n), 62, 63), true);
      // bound = 0 + 2^63 - 2^62 = 2^62 (no wrap): X.up must be <= 2^62
      assert.equal(invariantB(at((1n << 62n) + 1n), at(0n), 62, 63), false);
      assert.equal(invariantB(at(1n << 62n), at(0n), 62, 63), true);
      // near Long.MAX_VALUE with small indexes: MAX - 1 + 2 - 1 = MAX (no wrap)
      assert.equal(invariantB(at(INT64_MAX), at(INT64_MAX - 1n), 0, 1), true);
      // MAX + 2 - 1 wraps negative -> holds
      assert.equal(invariantB(at(5n), at(INT64_MAX), 0, 1), true);
      // ordinary case
      assert.equal(invariantB(at(11n), at(10n), 0, 1), true); // bound 10 + 2 - 1 = 11
      assert.equal(invariantB(at(12n), at(10n), 0, 1), false);
      assert.equal(invariantB(at(12n), at(10n), 0, 2), true);
      assert.equal(invariantB(at(14n), at(10n), 0, 2), false);
      // same object always holds
      const x = at(100n);
      assert.equal(invariantB(x, x, 0, 1), true);
    });

    it('invariant C: a bound that wraps below 0 fails (unless same object)', function () {
      assert.equal(invariantC(at(INT64_MAX), at(INT64_MAX), 0), false);
      const x = at(INT64_MAX);
      assert.equal(invariantC(x, x, 0), true);
      assert.equal(invariantC(at(INT64_MAX), at(INT64_MAX - 1n), 0), true); // bound = MAX
      assert.equal(invariantC(at(INT64_MAX), at(INT64_MAX - 2n), 4), false); // bound = MAX - 2 + 4 wraps below 0
      assert.equal(invariantC(at(INT64_MAX), at(INT64_MAX - 5n), 4), true); // bound = MAX - 1
      assert.equal(invariantC(at(INT64_MAX - 2n), at(INT64_MAX - 5n), 4), false);
      assert.equal(invariantC(at(10n), at(9n), 2), true); // bound 10
      assert.equal(invariantC(at(10n), at(9n), 3), false); // bound 11
    });

    it('stores and translates syncs near 2^63-1 with B and C holding after every update', function () {
      const store = liveStore();
      const base = INT64_MAX - 10000n;
      for (let i = 0n; i <= 10000n; i += 7n) {
        store.apply({ topic: TOPIC, partition: PART, upstreamOffset: base + i, downstreamOffset: i });
        assertInvariants(store.slots(TOPIC, PART), `at base+${i}`);
      }
      store.apply({ topic: TOPIC, partition: PART, upstreamOffset: INT64_MAX, downstreamOffset: 20000n });
      assertInvariants(store.slots(TOPIC, PART), 'at MAX');
      assert.equal(store.latest(TOPIC, PART).upstreamOffset, INT64_MAX);
      assert.equal(store.oldest(TOPIC, PART).upstreamOffset, base);
      assert.equal(store.translate(TOPIC, PART, INT64_MAX), 20000n);
      assert.equal(store.translate(TOPIC, PART, base), 0n);
      assert.equal(store.translate(TOPIC, PART, base - 1n), -1n);
      assert.equal(store.translate(TOPIC, PART, INT64_MAX - 1n) > 0n, true);
      // near the top, wrapped C bounds make the tail coarse: fewer distinct syncs than at low offsets
      assert.ok(store.distinctSyncs(TOPIC, PART).length >= 2);
    });

    it('matches the wrap-around of consecutive syncs right at the top of the range', function () {
      const store = liveStore();
      store.apply({ topic: TOPIC, partition: PART, upstreamOffset: INT64_MAX - 2n, downstreamOffset: 1n });
      store.apply({ topic: TOPIC, partition: PART, upstreamOffset: INT64_MAX - 1n, downstreamOffset: 2n });
      store.apply({ topic: TOPIC, partition: PART, upstreamOffset: INT64_MAX, downstreamOffset: 3n });
      const M = INT64_MAX;
      assert.equal(
        store.describeSlots(TOPIC, PART),
        `[0=${M}:3, 1=${M - 1n}:2, 2-63=${M - 2n}:1]`,
      );
      assertInvariants(store.slots(TOPIC, PART), 'top');
    });

    it('wraps downstream + 1 like a Java long (then negative, so unusable)', function () {
      const store = liveStore();
      store.apply({ topic: TOPIC, partition: PART, upstreamOffset: 5n, downstreamOffset: INT64_MAX });
      assert.equal(store.translate(TOPIC, PART, 5n), INT64_MAX);
      assert.equal(store.translate(TOPIC, PART, 6n), INT64_MIN);
    });
  });
});

describe('OffsetSyncStore precise mode: the newest sync at or below each tracked group partition', function () {
  const T = 't';
  const s = (u, d) => ({ topic: T, partition: 0, upstreamOffset: BigInt(u), downstreamOffset: BigInt(d) });
  function live(translation, retainedSyncsPerPartition) {
    const store = new OffsetSyncStore({ keepHistoryOnLoad: false, translation, retainedSyncsPerPartition });
    store.markLoaded();
    return store;
  }
  /** `precise` beside a live store in mm2 mode, both with the sync 0 -> 0; `both` applies a sync to both. */
  function paired(precise) {
    const mm2 = live('mm2');
    const both = (x) => {
      precise.apply(x);
      mm2.apply(x);
    };
    both(s(0, 0));
    return { precise, mm2, both };
  }
  /** @returns {any} a Translation, read without narrowing */
  const ex = (store, topic, partition, offset, group) => store.explain(topic, partition, offset, group);
  const down = (t) => (t.kind === 'translated' ? t.downstreamOffset : t.kind === 'too-old' ? -1n : undefined);

  it('translates a group far behind from the sync just below it, where MM2 has only a sync far below (or none)', function () {
    const precise = live('precise');
    const mm2 = live('mm2');
    precise.apply(s(0, 0));
    mm2.apply(s(0, 0));
    // the group sits at 1050 from early on, then 100,000 more records are mirrored with a sync every 100
    ex(precise, T, 0, 1050n, 'slow');
    for (let u = 100; u <= 100000; u += 100) {
      precise.apply(s(u, u));
      mm2.apply(s(u, u));
    }
    const p = ex(precise, T, 0, 1050n, 'slow');
    assert.equal(p.kind, 'translated');
    assert.equal(p.sync.upstreamOffset, 1000n, 'the sync just below 1050');
    assert.equal(p.downstreamOffset, 1001n);
    assert.equal(p.kept, true);
    const m = ex(mm2, T, 0, 1050n, 'slow');
    assert.ok(m.kind === 'too-old' || m.downstreamOffset < 1001n, `MM2 has only something far below: ${m.kind} ${m.downstreamOffset}`);
    // the same question without a group, or in mm2 mode, is MM2's answer
    assert.deepEqual(down(ex(precise, T, 0, 1050n)), down(m));
    assert.deepEqual(ex(mm2, T, 0, 1050n, 'slow'), ex(mm2, T, 0, 1050n));
    assert.equal(mm2.trackedGroupPartitions, 0, 'mm2 mode keeps nothing beside the slots');
    assert.equal(precise.trackedGroupPartitions, 1);
  });

  it('follows a group at the live end sync by sync, and settles on the newest below it when a sync passes it', function () {
    const store = live('precise');
    store.apply(s(10, 10));
    ex(store, T, 0, 25n, 'g'); // at or above the newest sync: follows
    store.apply(s(20, 20)); // still below 25: followed
    store.apply(s(30, 30)); // above 25: 'g' keeps 20
    for (let u = 40; u <= 50000; u += 10) store.apply(s(u, u));
    const t = ex(store, T, 0, 25n, 'g');
    assert.equal(t.sync.upstreamOffset, 20n);
    assert.equal(t.downstreamOffset, 21n);
  });

  it('a rewind below the kept sync drops it (MM2 answer, then kept from there); an upstream rewind of the syncs forgets all', function () {
    const store = live('precise');
    store.apply(s(0, 0));
    ex(store, T, 0, 5050n, 'g');
    for (let u = 100; u <= 100000; u += 100) store.apply(s(u, u));
    assert.equal(ex(store, T, 0, 5050n, 'g').sync.upstreamOffset, 5000n);
    const back = ex(store, T, 0, 4990n, 'g');
    assert.deepEqual(down(back), down(ex(store, T, 0, 4990n)), 'rewound below the kept sync: MM2 answer');
    // the source partition was re-created: syncs start again from 0
    ex(store, T, 0, 99950n, 'h');
    store.apply(s(0, 0));
    assert.equal(store.trackedGroupPartitions, 0);
    // the group names interned for the partition's kept rows (core/group-names) go with them
    assert.equal(store.groupNamesHeld, 0);
    assert.equal(ex(store, T, 0, 99950n, 'h').sync.upstreamOffset, 0n);
    assert.equal(store.groupNamesHeld, 1);
    store.retainGroups(new Set());
    assert.equal(store.groupNamesHeld, 0);
  });

  it('after a start with the checkpoints restored, a first translation finds the sync just below it among all read, until the load history is released', function () {
    const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: 'precise' });
    const mm2 = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: 'mm2' });
    for (let u = 0; u <= 100000; u += 100) {
      store.apply(s(u, u / 2));
      mm2.apply(s(u, u / 2));
    }
    store.markLoaded();
    mm2.markLoaded();
    assert.equal(store.holdsLoadHistory, true);
    const t = ex(store, T, 0, 1250n, 'g');
    assert.equal(t.sync.upstreamOffset, 1200n);
    assert.equal(t.downstreamOffset, 601n);
    assert.ok(down(ex(mm2, T, 0, 1250n, 'g')) < 601n, 'MM2 answers from a sync far below');
    store.releaseLoadHistory();
    assert.equal(store.holdsLoadHistory, false);
    assert.equal(ex(store, T, 0, 1250n, 'g').sync.upstreamOffset, 1200n, 'kept for the group');
    // a group first seen after the release: what is retained for the tracked ones (the syncs from 1200 up), else MM2's answer
    assert.equal(ex(store, T, 0, 1750n, 'other').sync.upstreamOffset, 1700n, 'retained for g: every sync above its position');
    assert.deepEqual(down(ex(store, T, 0, 650n, 'low')), down(ex(mm2, T, 0, 650n, 'low')), 'below every tracked group: MM2');
    // must-read-to-end start (no restored checkpoints): no history, as MM2 keeps only the latest sync then
    assert.equal(new OffsetSyncStore({ keepHistoryOnLoad: false, translation: 'precise' }).holdsLoadHistory, false);
  });

  it('translates a group that keeps moving far behind from the sync just below each new position (re-read within the gap around it, +1)', function () {
    const { precise, mm2, both } = paired(live('precise'));
    // a slow group: 300 records further every round while 1,000 more are mirrored (a sync every 100),
    // so it falls further behind all the time and passes syncs that have long left the 64 slots
    let pos = 50n;
    let up = 0;
    let worstMm2 = 0n;
    ex(precise, T, 0, pos, 'slow'); // translated every cycle, from early on
    // 120 rounds: 84,000 offsets behind in the end, 842 syncs retained (under the cap, RETAINED_SYNCS_PER_PARTITION)
    for (let round = 0; round < 120; round++) {
      for (let i = 0; i < 10; i++) {
        up += 100;
        both(s(up, up)); // every record copied: downstream = upstream
      }
      pos += 300n;
      const t = ex(precise, T, 0, pos, 'slow');
      const below = (pos / 100n) * 100n; // the sync just below the position
      assert.equal(t.kind, 'translated', `round ${round}`);
      assert.equal(t.sync.upstreamOffset, below, `round ${round}: the sync just below ${pos}`);
      // a failover resumes at the checkpoint and reads again up to the position: at most the gap between the syncs around it, +1
      const reread = pos - t.downstreamOffset;
      assert.ok(reread >= 0n && reread <= 100n + 1n, `round ${round}: re-read ${reread}`);
      const m = ex(mm2, T, 0, pos);
      if (m.kind === 'translated' && pos - m.downstreamOffset > worstMm2) worstMm2 = pos - m.downstreamOffset;
      const a = precise.around(T, 0, pos, 'slow');
      assert.equal(a.below.upstreamOffset, below, 'the readiness bound reads the same syncs');
      assert.equal(a.above.upstreamOffset, below + 100n);
    }
    assert.ok(worstMm2 > 10000n, `MM2's slots re-read far more (${worstMm2})`);
    // what is retained (those below the group's sync go at the next sync): the sync below the group and every one above it
    both(s(up + 100, up + 100));
    assert.deepEqual(precise.retention(T, 0), { syncs: Number((BigInt(up + 100) - (pos / 100n) * 100n) / 100n) + 1, spacing: 1n });
    assert.equal(mm2.retention(T, 0), undefined);
  });

  it('retains the syncs from the lowest tracked position up, and none below the sync just below it', function () {
    const store = live('precise');
    store.apply(s(0, 0));
    ex(store, T, 0, 550n, 'low');
    ex(store, T, 0, 5000n, 'high');
    for (let u = 100; u <= 20000; u += 100) store.apply(s(u, u));
    assert.deepEqual(store.retention(T, 0), { syncs: 196, spacing: 1n }, '500, 600, ..., 20000');
    // the lowest group moves up to 10,050: those below 10,000 go at the next sync
    assert.equal(ex(store, T, 0, 10050n, 'low').sync.upstreamOffset, 10000n);
    store.apply(s(20100, 20100));
    // 'high' at 5,000 is lower now: 5,000 .. 20,100
    assert.equal(store.retention(T, 0).syncs, 152);
    ex(store, T, 0, 19000n, 'high');
    store.apply(s(20200, 20200));
    assert.equal(store.retention(T, 0).syncs, 103, '10,000 .. 20,200');
    assert.equal(store.retainedSyncs, 103);
    // no group left: nothing retained
    store.retainGroups(new Set());
    assert.equal(store.retention(T, 0), undefined);
    assert.equal(store.retainedSyncs, 0);
    // a group first tracked later starts from what the slots hold
    const t = ex(store, T, 0, 12345n, 'new');
    assert.deepEqual(down(t), down(ex(live('mm2'), T, 0, 12345n)) ?? down(t), 'its first translation is the slots\' answer');
    assert.equal(store.retention(T, 0).syncs, store.distinctSyncs(T, 0).filter((x) => x.upstreamOffset >= t.sync.upstreamOffset).length);
  });

  it('over the cap, thins the retained syncs to one per 2^k offsets: never past the position, never below MM2, the bound reported by around', function () {
    const cap = 16;
    const { precise: store, mm2, both } = paired(live('precise', cap));
    let pos = 50n;
    let up = 0;
    let thinnedRounds = 0;
    ex(store, T, 0, pos, 'slow');
    for (let round = 0; round < 200; round++) {
      for (let i = 0; i < 10; i++) {
        up += 100;
        both(s(up, up));
      }
      pos += 300n;
      const t = ex(store, T, 0, pos, 'slow');
      const m = ex(mm2, T, 0, pos);
      const r = store.retention(T, 0);
      assert.ok(r.syncs <= cap, `round ${round}: ${r.syncs} retained, cap ${cap}`);
      assert.equal(t.kind, 'translated');
      assert.ok(t.sync.upstreamOffset <= pos, 'never past the position (no skipped record)');
      if (m.kind === 'translated') assert.ok(t.downstreamOffset >= m.downstreamOffset, `round ${round}: never below MM2`);
      if (r.spacing > 1n) {
        thinnedRounds++;
        // the newest sync of each range of `spacing` offsets is kept: the one below is at most twice
        // `spacing` (and the gap between two syncs) below the position
        assert.ok(pos - t.sync.upstreamOffset <= 2n * r.spacing + 100n, `round ${round}: ${pos} from ${t.sync.upstreamOffset}, spacing ${r.spacing}`);
      }
      // the readiness bound reads the syncs the store holds around the position: an honest upper bound
      const a = store.around(T, 0, pos, 'slow');
      assert.equal(a.below, t.sync);
      assert.ok(a.above === undefined || a.above.upstreamOffset > pos);
    }
    assert.ok(thinnedRounds > 100, `thinned (${thinnedRounds} rounds)`);
    assert.ok(store.retention(T, 0).spacing > 100n);
  });

  it('refuses a cap of retained syncs below 4 or not a whole number', function () {
    for (const bad of [0, 3, 1.5, NaN]) {
      assert.throws(() => new OffsetSyncStore({ keepHistoryOnLoad: true, retainedSyncsPerPartition: bad }), /retained syncs per partition must be a whole number of at least 4/);
    }
  });

  it('retainGroups forgets the groups no longer selected', function () {
    const store = live('precise');
    store.apply(s(0, 0));
    for (const g of ['a', 'b', 'c']) ex(store, T, 0, 10n, g);
    ex(store, 'other', 0, 10n, 'a'); // no sync there: nothing kept
    assert.equal(store.trackedGroupPartitions, 3);
    store.retainGroups(new Set(['b']));
    assert.equal(store.trackedGroupPartitions, 1);
  });

  it('refuses an unknown mode', function () {
    assert.throws(() => new OffsetSyncStore({ keepHistoryOnLoad: true, translation: /** @type {any} */ ('exact') }), /offset translation must be one of precise, mm2/);
  });

  for (const cap of [1000000, 16]) it(`differentially, on random syncs and group moves (cap ${cap}): never below MM2, never past the newest sync at or below (no skipped record)${cap > 10000 ? ', exactly it when the bound holds' : ''}`, function () {
    let exactChecks = 0;
    let better = 0;
    let thinnedChecks = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const next = prng(seed);
      const rand = () => Number(next() >> 11n) / 2 ** 53;
      const store = live('precise', cap);
      const mm2 = live('mm2');
      let all = []; // every sync since the last upstream rewind, in order
      let up = 0;
      let dn = 0;
      const groups = Array.from({ length: 8 }, (_, i) => ({ name: `g${i}`, pos: 0n, last: null, lastExact: false, lastEpoch: all, arrivedAfter: 0, slotUps: new Set() }));
      for (let step = 0; step < 1500; step++) {
        const r = rand();
        if (r < 0.6) {
          up += 1 + Math.floor(rand() * 40);
          dn += 1 + Math.floor(rand() * 40);
          const again = Math.floor(rand() * 50);
          if (rand() < 0.002 && again < up) {
            up = again; // the source partition re-created: an upstream rewind
            all = [];
          }
          const x = s(up, dn);
          store.apply(x);
          mm2.apply(x);
          all.push(x);
          continue;
        }
        const g = groups[Math.floor(rand() * groups.length)];
        const q = rand();
        // small steps, long jumps, rewinds; some groups stay at the live end
        if (q < 0.5) g.pos += BigInt(Math.floor(rand() * 60));
        else if (q < 0.6) g.pos += BigInt(Math.floor(rand() * 5000));
        else if (q < 0.7) g.pos = BigInt(Math.max(0, Number(g.pos) - Math.floor(rand() * 500)));
        else if (q < 0.8) g.pos = BigInt(up + Math.floor(rand() * 5));
        if (all.length === 0) continue;
        let oracleAt = all.length - 1;
        while (oracleAt >= 0 && all[oracleAt].upstreamOffset > g.pos) oracleAt--;
        const oracle = oracleAt < 0 ? undefined : all[oracleAt];
        // the bound holds when the newest sync at or below the position is still in the slots; or the
        // group moved forward since its last translation (in this epoch) and that sync arrived after it,
        // or was in the slots then, or is the one the last translation found exactly
        const inSlots = oracle !== undefined && store.distinctSyncs(T, 0).some((x) => x.upstreamOffset === oracle.upstreamOffset && x.downstreamOffset === oracle.downstreamOffset);
        const forward = g.last !== null && g.lastEpoch === all && g.pos >= g.last;
        const holds = oracle !== undefined && (inSlots || (forward && (oracleAt >= g.arrivedAfter || g.slotUps.has(oracle.upstreamOffset) || (oracle.upstreamOffset <= g.last && g.lastExact))));
        const slotUps = new Set(store.distinctSyncs(T, 0).map((x) => x.upstreamOffset));
        const p = ex(store, T, 0, g.pos, g.name);
        const m = ex(mm2, T, 0, g.pos);
        if (m.kind === 'translated') {
          assert.equal(p.kind, 'translated', `seed ${seed} step ${step}`);
          assert.ok(p.sync.upstreamOffset >= m.sync.upstreamOffset, `never below MM2 (seed ${seed} step ${step})`);
          assert.ok(p.downstreamOffset >= m.downstreamOffset, `never below MM2 (seed ${seed} step ${step})`);
        }
        if (p.kind === 'translated') {
          assert.ok(oracle !== undefined && p.sync.upstreamOffset <= g.pos, 'a sync at or below the position');
          assert.ok(p.downstreamOffset <= (oracle.upstreamOffset === g.pos ? oracle.downstreamOffset : oracle.downstreamOffset + 1n), `no skipped record (seed ${seed} step ${step})`);
          if (m.kind !== 'translated' || p.downstreamOffset > m.downstreamOffset) better++;
        }
        const retention = store.retention(T, 0);
        if (retention !== undefined) assert.ok(retention.syncs <= cap, `at most ${cap} retained`);
        if (retention !== undefined && retention.spacing > 1n) thinnedChecks++;
        if (holds && cap > 10000) {
          exactChecks++;
          assert.equal(p.kind, 'translated');
          assert.equal(p.sync.upstreamOffset, oracle.upstreamOffset, `exactly the newest sync at or below ${g.pos} (seed ${seed} step ${step})`);
          assert.equal(p.sync.downstreamOffset, oracle.downstreamOffset);
        }
        g.last = p.kind === 'translated' ? g.pos : null;
        g.lastExact = p.kind === 'translated' && p.sync.upstreamOffset === oracle.upstreamOffset && p.sync.downstreamOffset === oracle.downstreamOffset;
        g.lastEpoch = all;
        g.arrivedAfter = all.length;
        g.slotUps = slotUps;
      }
    }
    if (cap > 10000) assert.ok(exactChecks > 5000, `the bound was checked (${exactChecks} times)`);
    else assert.ok(thinnedChecks > 1000, `thinned (${thinnedChecks} times)`);
    assert.ok(better > 100, `precise was better than MM2 somewhere (${better} times)`);
  });
});
