'use strict';
/**
 * Reverse translation for failback (core/reverse-translation): a target position back to a safe
 * source position from the same offset syncs, against the forward translation. Randomized logs
 * (seeded): source offsets with gaps (aborted transactions, markers, compaction), target offsets
 * with gaps of their own, syncs by MM2's rule (offset.lag.max, urgent on a gap, the latest one
 * flushed now and then, some lost), a mirror restart that re-copies records.
 */
const assert = require('node:assert/strict');
const rt = require('../../dist/core/reverse-translation');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
const { PartitionState } = require('../../dist/core/offset-sync-writer');
const { seededRandom } = require('../../scripts/seeded-random');

const T = 'orders';
const sync = (up, down) => ({ topic: T, partition: 0, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down) });

/** The answers, loosely typed for the tests. @returns {any} */
const reverseFromSyncs = (/** @type {any[]} */ syncs, /** @type {bigint} */ D) => rt.reverseFromSyncs(syncs, D);
/** @returns {any} */
const reverseTranslate = (/** @type {any} */ store, /** @type {string} */ topic, /** @type {number} */ p, /** @type {bigint} */ D) => rt.reverseTranslate(store, topic, p, D);

/**
 * A loaded store holding `syncs` (in log order).
 * @param {any[]} syncs
 * @param {'precise' | 'mm2'} translation
 */
function storeOf(syncs, translation = 'precise') {
  const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation });
  for (const s of syncs) store.apply(s);
  store.markLoaded();
  return store;
}

/**
 * One partition mirrored: `records` the source records (offsets, in order; what a read_committed
 * consumer sees), `copies` [{u, d}] in target order (a restart copies some again), `syncs` the
 * offset syncs that reached the topic, in order, `end` the source log end, `targetEnd`.
 */
function mirrored(rand, n, { lag = 20, restart = false, dropRate = 0.1 } = {}) {
  const records = [];
  let u = 0;
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.05) u += 1 + Math.floor(rand() * 12); // an aborted transaction, a compacted run
    else if (r < 0.1) u += 1; // a commit marker
    records.push(u);
    u += 1;
  }
  const end = u;
  const copies = [];
  const syncs = [];
  let d = 0;
  let state = new PartitionState(lag);
  let latest = null;
  const copied = Math.floor(n * (0.7 + rand() * 0.3)); // the rest was never replicated
  const restartAt = restart ? Math.floor(copied * (0.3 + rand() * 0.5)) : -1;
  const copy = (i) => {
    if (rand() < 0.04) d += 1 + Math.floor(rand() * 3); // markers on the target (a transactional mirror)
    const s = { u: records[i], d };
    copies.push(s);
    const urgent = state.update(BigInt(s.u), BigInt(s.d));
    if (urgent) {
      state.reset();
      if (rand() >= dropRate) syncs.push(sync(s.u, s.d));
      latest = null;
    } else latest = s;
    if (latest && rand() < 0.02) {
      syncs.push(sync(latest.u, latest.d)); // the flush of the delayed sync
      latest = null;
    }
    d += 1;
  };
  for (let i = 0; i < copied; i++) {
    copy(i);
    if (i === restartAt) {
      // the mirror restarts from an older committed position: records copied again
      state = new PartitionState(lag);
      latest = null;
      const back = Math.max(0, i - 1 - Math.floor(rand() * 30));
      for (let j = back; j <= i; j++) copy(j);
    }
  }
  return { records, copies, syncs, end, targetEnd: d };
}

/**
 * The exact source position of a group at target position D: the lowest source record of which no
 * copy lies below D (it has not been read); the source log end when every record was read.
 * (Copies are in target order, so the copies below D are a prefix: computed once per prefix.)
 */
function exactSource(m, D) {
  if (!m.exactAt) {
    const read = new Set();
    let i = 0;
    const next = () => {
      while (i < m.records.length && read.has(m.records[i])) i++;
      return BigInt(i < m.records.length ? m.records[i] : m.end);
    };
    m.exactAt = [next()];
    for (const c of m.copies) {
      read.add(c.u);
      m.exactAt.push(next());
    }
  }
  let k = 0;
  while (k < m.copies.length && m.copies[k].d < D) k++;
  return m.exactAt[k];
}

/** How many source records lie in [from, to). */
function recordsBetween(m, from, to) {
  const lowerBound = (x) => {
    let lo = 0;
    let hi = m.records.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (BigInt(m.records[mid]) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return to <= from ? 0n : BigInt(lowerBound(to) - lowerBound(from));
}

/** Source records read again after resuming at A: those in [A, exact) (each was read on the target). */
function reread(m, A, D) {
  return recordsBetween(m, A, exactSource(m, D));
}

describe('reverse translation (failback): target position -> source position', function () {
  it('from a sync at the position: exact; past it: its upstream offset + 1; below every sync: too old', function () {
    const syncs = [sync(100, 200), sync(150, 230), sync(400, 300)];
    assert.deepEqual(pick(reverseFromSyncs(syncs, 230n)), { kind: 'translated', upstreamOffset: 150n, exact: true, reread: 0n });
    assert.deepEqual(pick(reverseFromSyncs(syncs, 231n)), { kind: 'translated', upstreamOffset: 151n, exact: false, reread: 0n });
    assert.equal(reverseFromSyncs(syncs, 231n).above.upstreamOffset, 400n);
    assert.deepEqual(pick(reverseFromSyncs(syncs, 1000n)), { kind: 'translated', upstreamOffset: 401n, exact: false, reread: 699n });
    assert.equal(reverseFromSyncs(syncs, 199n).kind, 'too-old');
    assert.equal(reverseFromSyncs([], 5n).kind, 'no-sync');
  });

  it('a target that was recreated (downstream went back): the newest sync at or below the position wins, never a higher one of the old topic', function () {
    // old copy: 0..499 at 0..499; recreated: source 500 at target 0
    const syncs = [sync(0, 0), sync(300, 300), sync(500, 0), sync(560, 60)];
    const r = reverseFromSyncs(syncs, 100n);
    assert.equal(r.upstreamOffset, 561n);
    // the store gives the same, from its slots
    assert.equal(reverseTranslate(storeOf(syncs), T, 0, 100n).upstreamOffset, 561n);
  });

  it('the store: loading, no sync for the partition, and the slots plus what it holds besides them', function () {
    const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: 'precise' });
    store.apply(sync(0, 0));
    assert.equal(reverseTranslate(store, T, 0, 5n).kind, 'loading');
    store.markLoaded();
    assert.equal(reverseTranslate(store, 'other', 0, 5n).kind, 'no-sync');
    // 3,000 syncs every 10 offsets: the 64 slots are far apart back in time, the load history is not
    const all = [];
    for (let u = 0; u < 30000; u += 10) all.push(sync(u, u / 2));
    const precise = storeOf(all, 'precise');
    const mm2 = storeOf(all, 'mm2');
    const D = 2000n; // the copy of source 4000 is at 2000
    assert.deepEqual(pick(reverseTranslate(precise, T, 0, D)), { kind: 'translated', upstreamOffset: 4000n, exact: true, reread: 0n });
    const coarse = reverseTranslate(mm2, T, 0, D);
    assert.equal(coarse.kind, 'translated');
    assert.ok(coarse.upstreamOffset < 4000n, 'MM2 slots alone: a sync further back');
    assert.deepEqual(coarse.upstreamOffset, reverseFromSyncs(mm2.distinctSyncs(T, 0), D).upstreamOffset);
    // between two syncs: the one below, + 1, re-reading at most the records up to the next
    assert.deepEqual(pick(reverseTranslate(precise, T, 0, 2003n)), { kind: 'translated', upstreamOffset: 4001n, exact: false, reread: 2n });
  });

  /** @type {Array<[string, { lag?: number, restart?: boolean, dropRate?: number }]>} */
  const variants = [
    ['plain', {}],
    ['lost syncs and a mirror restart', { restart: true, dropRate: 0.3 }],
    ['offset.lag.max 0 (a sync per record)', { lag: 0 }],
    ['offset.lag.max 200', { lag: 200 }],
  ];
  for (const [name, opts] of variants) {
    it(`randomized (${name}): never ahead of the exact source position; with every sync, re-reads at most the records to the next sync`, function () {
      for (let seed = 1; seed <= 25; seed++) {
        const rand = seededRandom(seed * 7919 + name.length);
        const m = mirrored(rand, 300 + Math.floor(rand() * 900), opts);
        if (m.syncs.length === 0) continue;
        const store = storeOf(m.syncs, 'precise');
        const slotsOnly = storeOf(m.syncs, 'mm2');
        for (let k = 0; k < 60; k++) {
          const D = BigInt(Math.floor(rand() * (m.targetEnd + 5)));
          const exact = exactSource(m, D);
          const every = reverseFromSyncs(m.syncs, D);
          for (const [which, r] of [['all syncs', every], ['store', reverseTranslate(store, T, 0, D)], ['mm2 slots', reverseTranslate(slotsOnly, T, 0, D)]]) {
            if (r.kind !== 'translated') {
              // a store holds less than every sync (it starts again at a rewind): too old is its safe answer
              assert.equal(r.kind, 'too-old', `seed ${seed} D ${D} ${which}`);
              if (which === 'all syncs') assert.ok(m.syncs.every((s) => s.downstreamOffset > D), `seed ${seed} D ${D}: too old although a sync is at or below it`);
              continue;
            }
            assert.ok(r.upstreamOffset <= exact, `seed ${seed} D ${D} (${which}): ${r.upstreamOffset} is ahead of the exact source position ${exact}`);
            // (the bound counts each record copied once: a restart's second copies are read twice on the target anyway)
            if (!opts.restart) assert.ok(reread(m, r.upstreamOffset, D) <= r.reread, `seed ${seed} D ${D} (${which}): re-reads ${reread(m, r.upstreamOffset, D)} > bound ${r.reread}`);
          }
          if (every.kind === 'translated' && !opts.restart && opts.dropRate === undefined) {
            // the bound is the records between the sync below and the next one above (or the end of what was copied)
            const next = every.above ? every.above.upstreamOffset : BigInt(m.end);
            const between = recordsBetween(m, every.sync.upstreamOffset + 1n, next);
            assert.ok(reread(m, every.upstreamOffset, D) <= between, `seed ${seed} D ${D}: re-read within the gap between the syncs`);
          }
        }
      }
    });
  }

  it('round trip (randomized): forward then reverse never gets past the original source position (nor skips a record)', function () {
    for (let seed = 1; seed <= 40; seed++) {
      const rand = seededRandom(seed * 104729);
      const m = mirrored(rand, 200 + Math.floor(rand() * 800), { restart: seed % 3 === 0, dropRate: seed % 2 ? 0.2 : 0 });
      for (const translation of /** @type {Array<'precise' | 'mm2'>} */ (['precise', 'mm2'])) {
        const store = storeOf(m.syncs, translation);
        for (let k = 0; k < 60; k++) {
          const g = BigInt(Math.floor(rand() * (m.end + 3)));
          const D = store.translate(T, 0, g);
          if (D === undefined || D < 0n) continue;
          const back = reverseTranslate(store, T, 0, D);
          assert.equal(back.kind, 'translated', `seed ${seed} ${translation}: ${g} -> ${D} has a sync at or below it`);
          // never past the record the group would read next (a position inside a gap is the record after the gap)
          const next = BigInt(m.records.find((r) => BigInt(r) >= g) ?? m.end);
          assert.ok(back.upstreamOffset <= next, `seed ${seed} ${translation}: ${g} -> ${D} -> ${back.upstreamOffset}, past the next record ${next}`);
          // on a sync both ways: the same record
          const s = m.syncs.find((x) => x.upstreamOffset === g);
          const fwd = /** @type {any} */ (store.explain(T, 0, g));
          if (s && store.distinctSyncs(T, 0).includes(fwd.sync) && fwd.exact) assert.equal(back.upstreamOffset, g);
        }
      }
    }
  });
});

function pick(r) {
  return r.kind === 'translated' ? { kind: r.kind, upstreamOffset: r.upstreamOffset, exact: r.exact, reread: r.reread } : { kind: r.kind };
}
