'use strict';
// TranslationCache.reused: a full cycle finds a translation that stands from the source-offset
// table's rows (SourceOffsetTable.rowsOf), no CommittedOffset made; it must say "reused" exactly
// when `translate` would, and give what a fresh translation gives.

const assert = require('node:assert/strict');
const { checkpointsForGroup } = require('../../dist/core/checkpoints-for-group');
const { TranslationCache } = require('../../dist/core/translation-cache');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
const { SourceOffsetTable } = require('../../dist/core/source-offset-table');
const { seededRandom: rng } = require('../../scripts/seeded-random');
const { policy, syncBurst, checkpoints, resultView } = require('./helpers/translation-fixtures');

const topicFilter = { accept: (t) => t !== 'skipped' };
const all = () => true;

/** An empty checkpoint store, loaded. */
const loadedCheckpoints = () => checkpoints([]);
const view = resultView;

/** A full cycle's look at group `g` as checkpoint-cycle does it: from the rows first, the offsets made only when it must translate. */
function fromRows(cache, table, base) {
  const input = { ...base, offsetsVersion: table.versionOf(base.group) };
  const rows = table.rowsOf(base.group);
  const kept = rows === undefined ? undefined : cache.reused(input, rows);
  return kept ?? cache.translate({ ...input, offsets: table.offsetsOf(base.group) ?? [] });
}

for (const translation of /** @type {Array<'mm2' | 'precise'>} */ (['mm2', 'precise'])) describe(`TranslationCache.reused (${translation} mode): a translation that stands, judged from the offsets' rows`, () => {
  it('reuses exactly when translate would, and gives what a fresh translation gives, over random commits, syncs and readiness thresholds', () => {
    let reusedCount = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const rand = rng(seed);
      const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation });
      const byRows = loadedCheckpoints();
      const byArray = loadedCheckpoints();
      const plain = loadedCheckpoints();
      const rowsCache = new TranslationCache();
      const arrayCache = new TranslationCache();
      const table = new SourceOffsetTable();
      const topics = ['a', 'b', 'skipped'];
      const groups = ['g1', 'g2', 'g3'];
      const first = new Map(groups.map((g) => [g, topics.flatMap((t) => [0, 1].map((p) => ({ topic: t, partition: p, offset: rand() < 0.2 ? null : BigInt(Math.floor(rand() * 50)), metadata: '' })))]));
      table.endRead(table.beginRead(), first);
      const thresholds = [{ maxReread: 10, maxAgeMs: 300000 }, { maxReread: 3, maxAgeMs: 300000 }];
      let readiness = thresholds[0];
      const upstream = new Map();
      for (let step = 0; step < 120; step++) {
        const what = rand();
        if (what < 0.35) {
          // new syncs on a random partition (sometimes a rewind), in bursts that push older ones out of the 64 slots
          syncBurst(store, rand, topics, upstream);
        } else if (what < 0.55) {
          // a commit seen on the stream (sometimes a deletion of the partition's offset)
          const g = groups[Math.floor(rand() * groups.length)];
          const t = topics[Math.floor(rand() * topics.length)];
          const p = Math.floor(rand() * 2);
          const had = (table.offsetsOf(g) ?? []).find((o) => o.topic === t && o.partition === p);
          const offset = rand() < 0.1 ? null : BigInt(Math.max(0, Number(had?.offset ?? 0n) + Math.floor(rand() * 20) - 4));
          table.applyStream([], [{ group: g, topic: t, partition: p, offset }], all);
        } else if (what < 0.6 && !store.loaded) {
          store.markLoaded();
        } else if (what < 0.65) {
          // other readiness thresholds (a new object: the settings changed)
          readiness = { ...thresholds[Math.floor(rand() * thresholds.length)] };
        } else {
          for (const g of groups) {
            const base = { group: g, topicFilter, store, policy, sourceAlias: 's', targetAlias: 't', readiness, listedAt: step };
            const a = fromRows(rowsCache, table, { ...base, checkpoints: byRows });
            const b = arrayCache.translate({ ...base, checkpoints: byArray, offsets: table.offsetsOf(g) ?? [], offsetsVersion: table.versionOf(g) });
            const fresh = checkpointsForGroup({ ...base, checkpoints: plain, offsets: table.offsetsOf(g) ?? [] });
            const where = `seed ${seed}, step ${step}, group ${g}`;
            assert.equal(a.reused, b.reused, where);
            if (a.reused) reusedCount++;
            assert.deepEqual(view(a), view(fresh), where);
            assert.deepEqual(view(a), view(b), where);
            assert.deepEqual(a.summary, b.summary, where);
            assert.equal(rowsCache.last(g).listedAt, step);
          }
        }
        assert.deepEqual(groups.map((g) => byRows.get(g)), groups.map((g) => plain.get(g)), `stores differ: seed ${seed}, step ${step}`);
      }
    }
    assert.ok(reusedCount > 100, `the rows' shortcut was taken (${reusedCount} times)`);
  });

  describe('what still makes a group translate again', () => {
    /** A group translated until its answer stands (emitted once, then "unchanged"). */
    function settled() {
      const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation });
      store.markLoaded();
      store.apply({ topic: 'a', partition: 0, upstreamOffset: 10n, downstreamOffset: 20n });
      store.apply({ topic: 'a', partition: 1, upstreamOffset: 10n, downstreamOffset: 20n });
      const table = new SourceOffsetTable();
      table.endRead(table.beginRead(), new Map([['g', [{ topic: 'a', partition: 0, offset: 50n, metadata: '' }, { topic: 'a', partition: 1, offset: 12n, metadata: 'm' }]]]));
      const cache = new TranslationCache();
      const base = { group: 'g', topicFilter, store, checkpoints: loadedCheckpoints(), policy, sourceAlias: 's', targetAlias: 't', readiness: { maxReread: 10, maxAgeMs: 300000 }, listedAt: 1 };
      assert.equal(fromRows(cache, table, base).reused, false); // emitted
      assert.equal(fromRows(cache, table, base).reused, false); // "unchanged" now
      const input = { ...base, offsetsVersion: table.versionOf('g') };
      const kept = cache.reused({ ...input, listedAt: 2 }, table.rowsOf('g'));
      assert.ok(kept !== undefined && kept.reused === true);
      assert.equal(cache.last('g').listedAt, 2, 'the listing time of a reused group is kept');
      return { store, table, cache, base, input };
    }

    it('a changed committed offset (a new version of the rows)', () => {
      const { table, cache, base } = settled();
      table.applyStream([], [{ group: 'g', topic: 'a', partition: 1, offset: 13n }], all);
      assert.equal(cache.reused({ ...base, offsetsVersion: table.versionOf('g') }, table.rowsOf('g')), undefined);
      const again = fromRows(cache, table, base);
      assert.equal(again.reused, false);
      assert.deepEqual(again.coverage.map((c) => c.upstreamOffset), [50n, 13n]);
    });

    it('a changed sync below the position (another sync translates it)', () => {
      const { store, table, cache, input } = settled();
      store.apply({ topic: 'a', partition: 0, upstreamOffset: 40n, downstreamOffset: 45n });
      assert.equal(cache.reused(input, table.rowsOf('g')), undefined);
      const again = fromRows(cache, table, input);
      assert.equal(again.reused, false);
      assert.equal(again.checkpoints[0].downstreamOffset, 46n);
    });

    it('a first sync above the position (its readiness re-read bound moves), and other readiness thresholds', () => {
      const { store, table, cache, input } = settled();
      assert.equal(cache.reused(input, table.rowsOf('g')).summary.reread, 39);
      store.apply({ topic: 'a', partition: 0, upstreamOffset: 60n, downstreamOffset: 22n });
      assert.equal(cache.reused(input, table.rowsOf('g')), undefined);
      const again = fromRows(cache, table, input);
      assert.equal(again.reused, false);
      assert.equal(again.summary.reread, 1);
      assert.ok(cache.reused(input, table.rowsOf('g')) !== undefined, 'nothing moved since: reused');
      // new thresholds (the settings changed): judged again
      const stricter = { ...input, readiness: { maxReread: 10, maxAgeMs: 300000 } };
      assert.equal(cache.reused(stricter, table.rowsOf('g')), undefined);
      assert.equal(fromRows(cache, table, stricter).reused, false);
    });

    it('a group without a version, or not held, is not judged from rows', () => {
      const { table, cache, input } = settled();
      assert.equal(cache.reused({ ...input, offsetsVersion: undefined }, table.rowsOf('g')), undefined);
      assert.equal(cache.reused({ ...input, group: 'other' }, table.rowsOf('g')), undefined);
    });
  });
});
