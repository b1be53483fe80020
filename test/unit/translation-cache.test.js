'use strict';

const assert = require('node:assert/strict');
const { checkpointsForGroup } = require('../../dist/core/checkpoints-for-group');
const { TranslationCache } = require('../../dist/core/translation-cache');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');

const { policy, syncBurst, checkpoints, resultView } = require('./helpers/translation-fixtures');
const topicFilter = { accept: (t) => t !== 'skipped' };

/** A deterministic random generator (tests must be repeatable). */
const { seededRandom: rng } = require('../../scripts/seeded-random');

/** An empty checkpoint store, loaded. */
const loadedCheckpoints = () => checkpoints([]);
const view = resultView;

for (const translation of /** @type {Array<'mm2' | 'precise'>} */ (['mm2', 'precise'])) describe(`TranslationCache (${translation} mode): a full cycle translates again only what moved`, () => {
  it('gives exactly what checkpointsForGroup gives, over random commits, syncs, rewinds and partial cycles', function () {
    // precise mode: the answers that came from a sync kept for the group (MM2's slots give another)
    let kept = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const rand = rng(seed);
      const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation });
      const cached = loadedCheckpoints();
      const plain = loadedCheckpoints();
      const cache = new TranslationCache();
      const topics = ['a', 'b', 'skipped'];
      const groups = ['g1', 'g2', 'g3'];
      /** group -> offsets array (a new array whenever an offset changes, as SourceOffsets does) */
      const offsets = new Map(groups.map((g) => [g, topics.flatMap((t) => [0, 1].map((p) => ({ topic: t, partition: p, offset: rand() < 0.2 ? null : BigInt(Math.floor(rand() * 50)), metadata: '' })))]));
      const upstream = new Map(); // topic/partition -> latest upstream of a sync
      let reused = 0;
      for (let step = 0; step < 120; step++) {
        const what = rand();
        if (what < 0.35) {
          // new syncs on a random partition (sometimes a rewind), in bursts that push older ones out of the 64 slots
          syncBurst(store, rand, topics, upstream);
        } else if (what < 0.55) {
          // a commit: a new array for the group
          const g = groups[Math.floor(rand() * groups.length)];
          const list = offsets.get(g).map((o) => ({ ...o }));
          const i = Math.floor(rand() * list.length);
          list[i].offset = rand() < 0.1 ? null : BigInt(Math.max(0, Number(list[i].offset ?? 0n) + Math.floor(rand() * 20) - 4));
          offsets.set(g, list);
        } else if (what < 0.6 && !store.loaded) {
          store.markLoaded();
        } else if (what < 0.65) {
          // a partial cycle of one group: both sides translate it plainly; the cache forgets it
          const g = groups[Math.floor(rand() * groups.length)];
          const part = offsets.get(g).filter(() => rand() < 0.5);
          const base = { group: g, offsets: part, topicFilter, store, policy, sourceAlias: 's', targetAlias: 't' };
          const a = checkpointsForGroup({ ...base, checkpoints: cached });
          const b = checkpointsForGroup({ ...base, checkpoints: plain });
          assert.deepEqual(view(a), view(b));
          cache.forget(g);
        } else {
          // a full cycle over every group
          for (const g of groups) {
            const base = { group: g, offsets: offsets.get(g), topicFilter, store, policy, sourceAlias: 's', targetAlias: 't' };
            const a = cache.translate({ ...base, checkpoints: cached });
            const b = checkpointsForGroup({ ...base, checkpoints: plain });
            if (a.reused) reused++;
            assert.deepEqual(view(a), view(b), `seed ${seed}, step ${step}, group ${g}`);
            for (const c of b.coverage) {
              if (c.downstreamOffset !== undefined && c.downstreamOffset !== store.translate(c.topic, c.partition, c.upstreamOffset)) kept++;
            }
            assert.ok(a.coverage.every((c) => c.group === g));
          }
        }
        assert.deepEqual(groups.map((g) => cached.get(g)), groups.map((g) => plain.get(g)), `stores differ: seed ${seed}, step ${step}`);
      }
      assert.ok(reused > 0, `seed ${seed}: the cache was never used`);
    }
    if (translation === 'precise') assert.ok(kept > 20, `kept syncs were used (${kept} answers)`);
    else assert.equal(kept, 0);
  });

  it('a still group whose first sync above its position arrives: its readiness is judged again (the re-read bound reads that sync), as a fresh translation gives it', () => {
    const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation });
    store.markLoaded();
    store.apply({ topic: 'a', partition: 0, upstreamOffset: 10n, downstreamOffset: 20n });
    const cps = loadedCheckpoints();
    const readiness = { maxReread: 10, maxAgeMs: 300000 };
    const input = { group: 'g', offsets: [{ topic: 'a', partition: 0, offset: 50n, metadata: '' }], topicFilter, store, checkpoints: cps, policy, sourceAlias: 's', targetAlias: 't', readiness };
    const cache = new TranslationCache();
    cache.translate(input); // emitted
    const before = cache.translate(input); // unchanged: at most 39 records re-read
    assert.deepEqual([before.summary.verdict, before.summary.reread], ['at-risk', 39]);
    assert.equal(cache.translate(input).reused, true);
    // a sync above the position, 2 records further on the target: at most 1 record re-read now
    store.apply({ topic: 'a', partition: 0, upstreamOffset: 60n, downstreamOffset: 22n });
    const after = cache.translate(input);
    assert.equal(after.reused, false);
    assert.deepEqual([after.summary.verdict, after.summary.reread, after.coverage.at(0).reread], ['ready', 1, 1]);
    // the same answer as a cache of its own
    const fresh = new TranslationCache();
    fresh.translate(input);
    assert.deepEqual(fresh.translate(input).summary, after.summary);
    // nothing moved since: reused again
    assert.equal(cache.translate(input).reused, true);
  });

  it('reuses a group whose offsets and syncs did not move, with the same entry objects', () => {
    const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation });
    store.markLoaded();
    store.apply({ topic: 'a', partition: 0, upstreamOffset: 10n, downstreamOffset: 20n });
    const cps = loadedCheckpoints();
    const cache = new TranslationCache();
    const input = { group: 'g', offsets: [{ topic: 'a', partition: 0, offset: 12n, metadata: '' }], topicFilter, store, checkpoints: cps, policy, sourceAlias: 's', targetAlias: 't' };
    const first = cache.translate(input);
    assert.equal(first.reused, false);
    assert.equal(first.checkpoints.length, 1);
    assert.equal(first.coverage.at(0).status, 'emitted');
    const second = cache.translate(input); // "emitted" reads "unchanged" now: translated once more
    assert.equal(second.reused, false);
    assert.equal(second.coverage.at(0).status, 'unchanged');
    const third = cache.translate(input);
    assert.equal(third.reused, true);
    assert.equal(third.coverage, second.coverage);
    assert.deepEqual(third.checkpoints, []);
    // a newer sync above the position: new slots, the same sync found: still reused
    store.apply({ topic: 'a', partition: 0, upstreamOffset: 30n, downstreamOffset: 40n });
    assert.equal(cache.translate(input).reused, true);
    // a sync between the last one and the position: translated again, and it moves
    store.apply({ topic: 'a', partition: 0, upstreamOffset: 31n, downstreamOffset: 41n });
    const moved = cache.translate({ ...input, offsets: [{ topic: 'a', partition: 0, offset: 35n, metadata: '' }] });
    assert.equal(moved.reused, false);
    assert.equal(moved.checkpoints[0].downstreamOffset, 42n);
    // forget: translated in full next time
    cache.translate({ ...input, offsets: moved.coverage.map(() => ({ topic: 'a', partition: 0, offset: 35n, metadata: '' })) });
    cache.forget('g');
    assert.equal(cache.translate({ ...input, offsets: [{ topic: 'a', partition: 0, offset: 35n, metadata: '' }] }).reused, false);
    cache.retain(new Set());
    assert.equal(cache.size, 0);
  });
});
