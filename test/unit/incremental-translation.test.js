'use strict';

/**
 * The reconcile lane's incremental translation (issue 24 step f): a full cycle that re-checks a
 * group partition only when a change of its partition's syncs reached its position (the sync
 * store's change logs) gives exactly what a full recomputation gives. Two sync stores get the same
 * syncs: one behind the TranslationCache, one translated plainly (checkpointsForGroup, every group
 * every cycle), so the skipped look-ups cannot hide behind state the plain side updated.
 */
const assert = require('node:assert/strict');
const { checkpointsForGroup } = require('../../dist/core/checkpoints-for-group');
const { TranslationCache } = require('../../dist/core/translation-cache');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
const { CheckpointStore } = require('../../dist/core/checkpoint-store');
const { SyncChangeLog, ChangeClock, CHANGE_LOG_SIZE, slotsChangeFloor } = require('../../dist/core/sync-change-log');
const { seededRandom: rng, randomSeeds } = require('../../scripts/seeded-random');

const { policy } = require('./helpers/translation-fixtures');
const topicFilter = { accept: (t) => t !== 'skipped' };

function loadedCheckpoints() {
  const c = new CheckpointStore();
  c.markLoaded(true);
  return c;
}

const syncView = (s) => (s === undefined ? undefined : `${s.upstreamOffset}:${s.downstreamOffset}`);
/** What a result says, by value (the two sides hold different sync objects). */
function view(r) {
  return {
    checkpoints: r.checkpoints.map((c) => ({ ...c })),
    coverage: r.coverage.map((c) => ({ status: c.status, topic: c.topic, partition: c.partition, up: c.upstreamOffset, down: c.downstreamOffset, sync: syncView(c.sync), reason: c.reason })),
  };
}

describe('SyncChangeLog: which positions may translate differently since a generation', () => {
  it('gives the lowest floor since a generation, nothing when none changed, every position when too old', () => {
    const log = new SyncChangeLog();
    assert.equal(log.since(0), undefined);
    log.changed(50n);
    log.changed(30n);
    log.changed(40n);
    assert.equal(log.gen, 3);
    assert.equal(log.since(0), 30n);
    assert.equal(log.since(2), 40n);
    assert.equal(log.since(3), undefined);
    log.changed(null);
    assert.equal(log.since(3), null);
    for (let i = 0; i < CHANGE_LOG_SIZE; i++) log.changed(1000n + BigInt(i));
    assert.equal(log.since(4), 1000n);
    assert.equal(log.since(3), null, 'older than the log remembers: every position');
  });

  it('sinceStamp: the same floors from a moment of a clock shared by several logs', () => {
    const clock = new ChangeClock();
    const a = new SyncChangeLog(clock);
    const b = new SyncChangeLog(clock);
    assert.equal(a.sinceStamp(0), undefined, 'no change yet');
    a.changed(50n); // stamp 1
    b.changed(10n); // stamp 2
    a.changed(30n); // stamp 3
    assert.equal(clock.now, 3);
    assert.equal(a.sinceStamp(0), 30n);
    assert.equal(a.sinceStamp(1), 30n);
    assert.equal(a.sinceStamp(2), 30n, "another log's change moves the clock, not this log's floor");
    assert.equal(a.sinceStamp(3), undefined);
    assert.equal(b.sinceStamp(1), 10n);
    assert.equal(b.sinceStamp(2), undefined);
    a.changed(null); // stamp 4
    assert.equal(a.sinceStamp(3), null);
    assert.equal(a.sinceStamp(4), undefined);
    const checkedAt = clock.now;
    for (let i = 0; i < CHANGE_LOG_SIZE - 1; i++) a.changed(1000n + BigInt(i));
    assert.equal(a.sinceStamp(checkedAt), 1000n, 'the change before the moment still remembered');
    a.changed(2000n);
    assert.equal(a.sinceStamp(checkedAt + 1), 1001n);
    assert.equal(a.sinceStamp(checkedAt), null, 'whether the change before was after the moment is forgotten: every position (looked at again, never missed)');
    b.changed(5n);
    assert.equal(b.sinceStamp(2), 5n);
  });

  it('slotsChangeFloor: no position below the floor gets another answer from the slots (mm2 mode, random syncs)', function () {
    // 8 seeds (TEST_RANDOM_SEEDS for more) x 300 syncs, every position's answer before and after each: seconds, not milliseconds
    this.timeout(60000);
    let checked = 0;
    for (let seed = 1, seeds = randomSeeds(8); seed <= seeds; seed++) {
      const rand = rng(seed);
      const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: 'mm2' });
      store.markLoaded();
      let up = 0;
      /** @param {import('../../dist/core/offset-sync-store').Translation} t */
      const found = (t) => (t.kind === 'translated' ? t.sync : t.kind === 'too-old' ? t.oldest : undefined);
      const answers = () => Array.from({ length: up + 2 }, (_, x) => syncView(found(store.explain('a', 0, BigInt(x)))));
      for (let step = 0; step < 300; step++) {
        up += 1 + Math.floor(rand() * (rand() < 0.1 ? 200 : 4));
        const before = answers();
        const slots = store.slots('a', 0);
        const gen = store.changeLog('a', 0).gen;
        store.apply({ topic: 'a', partition: 0, upstreamOffset: BigInt(up), downstreamOffset: BigInt(2 * up) });
        const floor = store.changeLog('a', 0).since(gen);
        if (slots !== undefined) assert.equal(floor, slotsChangeFloor(slots, store.slots('a', 0)));
        const after = answers();
        for (let x = 0; x < before.length; x++) {
          if (before[x] === after[x]) continue;
          checked++;
          assert.ok(floor === null || BigInt(x) >= floor, `seed ${seed} step ${step}: position ${x} changed ${before[x]} -> ${after[x]} below the floor ${floor}`);
        }
      }
    }
    assert.ok(checked > 100, `answers changed (${checked})`);
  });
});

for (const translation of /** @type {Array<'mm2' | 'precise'>} */ (['mm2', 'precise'])) {
  describe(`Incremental full cycles (${translation} mode): the same as recomputing every group`, () => {
    it('gives what checkpointsForGroup gives on a store of its own, over random syncs, commits, rewinds and partial cycles', function () {
      this.timeout(60000);
      let skipped = 0;
      let reused = 0;
      for (let seed = 1, seeds = randomSeeds(15); seed <= seeds; seed++) {
        const rand = rng(1000 + seed);
        const keep = rand() < 0.7;
        const cachedSyncs = new OffsetSyncStore({ keepHistoryOnLoad: keep, translation, retainedSyncsPerPartition: 8 });
        const plainSyncs = new OffsetSyncStore({ keepHistoryOnLoad: keep, translation, retainedSyncsPerPartition: 8 });
        const cached = loadedCheckpoints();
        const plain = loadedCheckpoints();
        const cache = new TranslationCache();
        const topics = ['a', 'b', 'skipped'];
        const parts = [0, 1, 2];
        const groups = Array.from({ length: 10 }, (_, i) => `g${i}`);
        const upstream = new Map(); // topic/partition -> latest upstream of a sync
        // positions spread from far behind the syncs to their head, so that slot changes reach some and not others
        const offsets = new Map(groups.map((g) => [g, topics.flatMap((t) => parts.map((p) => ({ topic: t, partition: p, offset: rand() < 0.1 ? null : BigInt(Math.floor(rand() * 400)), metadata: '' })))]));
        const apply = (s) => {
          cachedSyncs.apply(s);
          plainSyncs.apply(s);
        };
        const logSkips = () => {
          let n = 0;
          for (const g of groups) for (const o of offsets.get(g)) if (o.offset !== null && cachedSyncs.changeLog(o.topic, o.partition).gen > 0) n++;
          return n;
        };
        for (let step = 0; step < 150; step++) {
          const what = rand();
          if (what < 0.4) {
            // syncs on a random partition, in bursts (sometimes far ahead, sometimes an upstream rewind)
            const t = topics[Math.floor(rand() * 2)];
            const p = parts[Math.floor(rand() * parts.length)];
            const k = `${t}/${p}`;
            const burst = 1 + Math.floor(rand() * 20);
            for (let b = 0; b < burst; b++) {
              const jump = rand() < 0.1 ? 50 : 1 + Math.floor(rand() * 6);
              const up = rand() < 0.02 ? Math.floor(rand() * 100) : (upstream.get(k) ?? 0) + jump;
              upstream.set(k, up);
              apply({ topic: t, partition: p, upstreamOffset: BigInt(up), downstreamOffset: BigInt(up * 3 + 1) });
            }
          } else if (what < 0.6) {
            // a commit (forward mostly, sometimes a rewind): a new array for the group
            const g = groups[Math.floor(rand() * groups.length)];
            const list = offsets.get(g).map((o) => ({ ...o }));
            const i = Math.floor(rand() * list.length);
            const cur = Number(list[i].offset ?? 0n);
            list[i].offset = rand() < 0.05 ? null : BigInt(Math.max(0, rand() < 0.15 ? Math.floor(cur / 3) : cur + Math.floor(rand() * 40)));
            offsets.set(g, list);
          } else if (what < 0.65 && !cachedSyncs.loaded) {
            cachedSyncs.markLoaded();
            plainSyncs.markLoaded();
          } else if (what < 0.67 && cachedSyncs.holdsLoadHistory) {
            cachedSyncs.releaseLoadHistory();
            plainSyncs.releaseLoadHistory();
          } else if (what < 0.72) {
            // a partial cycle of one group: both sides translate it plainly; the cache forgets it
            const g = groups[Math.floor(rand() * groups.length)];
            const part = offsets.get(g).filter(() => rand() < 0.5);
            const base = { group: g, offsets: part, topicFilter, policy, sourceAlias: 's', targetAlias: 't' };
            const a = checkpointsForGroup({ ...base, store: cachedSyncs, checkpoints: cached });
            const b = checkpointsForGroup({ ...base, store: plainSyncs, checkpoints: plain });
            assert.deepEqual(view(a), view(b), `partial: seed ${seed}, step ${step}, group ${g}`);
            cache.forget(g);
          } else {
            // a full cycle over every group
            skipped += logSkips();
            for (const g of groups) {
              const base = { group: g, offsets: offsets.get(g), topicFilter, policy, sourceAlias: 's', targetAlias: 't' };
              const a = cache.translate({ ...base, store: cachedSyncs, checkpoints: cached });
              const b = checkpointsForGroup({ ...base, store: plainSyncs, checkpoints: plain });
              if (a.reused) reused++;
              assert.deepEqual(view(a), view(b), `seed ${seed}, step ${step}, group ${g}`);
            }
          }
          assert.deepEqual(groups.map((g) => cached.get(g)), groups.map((g) => plain.get(g)), `stores differ: seed ${seed}, step ${step}`);
        }
      }
      assert.ok(reused > 500, `groups were reused (${reused})`);
      assert.ok(skipped > 0);
    });
  });
}
