'use strict';

/**
 * The reconcile lane (issue 24 step f): a full cycle that visits only the groups something changed
 * for (core/reconcile-layout) gives the lists and the checkpoints a full recomputation gives. One
 * side runs translateCycle with the layout, its own translation cache and sync store; the other a
 * fresh cache (every group translated) on a sync store of its own; the same syncs, commits
 * (through a SourceOffsetTable, which says which groups changed), partial cycles, failed groups
 * and target listings go to both.
 */
const assert = require('node:assert/strict');
const { checkpointsForGroup } = require('../../dist/core/checkpoints-for-group');
const { TranslationCache } = require('../../dist/core/translation-cache');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
const { CheckpointStore } = require('../../dist/core/checkpoint-store');
const { SourceOffsetTable } = require('../../dist/core/source-offset-table');
const { ReconcileLayout, SWEEP_CYCLES } = require('../../dist/core/reconcile-layout');
const { translateCycle } = require('../../dist/core/checkpoint-cycle');
const { UnsentCheckpoints } = require('../../dist/core/unsent-checkpoints');
const { coverageEntriesOf } = require('../../dist/core/coverage-rows');
const { seededRandom: rng, randomSeeds } = require('../../scripts/seeded-random');

const { policy } = require('./helpers/translation-fixtures');
const topicFilter = { accept: (t) => t !== 'skipped' };

function loadedCheckpoints() {
  const c = new CheckpointStore();
  c.markLoaded(true);
  return c;
}

const syncView = (s) => (s === undefined ? undefined : `${s.upstreamOffset}:${s.downstreamOffset}`);
const coverageView = (list) => coverageEntriesOf(list).map((c) => `${c.group} ${c.topic}-${c.partition} ${c.status} ${c.upstreamOffset} ${c.downstreamOffset} ${syncView(c.sync)} ${c.reason}`);

for (const translation of /** @type {Array<'mm2' | 'precise'>} */ (['mm2', 'precise'])) {
  describe(`Reconcile lane (${translation} mode): a full cycle visiting only what changed gives what recomputing every group gives`, () => {
    it('the same coverage list, checkpoints and retry list, over random syncs, commits, partial cycles, failed groups and listings', function () {
      this.timeout(120000);
      let fast = 0;
      let fallbacks = 0;
      // 4 seeds here (about 5 s each under load); TEST_RANDOM_SEEDS for more
      for (let seed = 1, seeds = randomSeeds(4); seed <= seeds; seed++) {
        const rand = rng(500 + seed);
        const syncsA = new OffsetSyncStore({ keepHistoryOnLoad: true, translation, retainedSyncsPerPartition: 8 });
        const syncsB = new OffsetSyncStore({ keepHistoryOnLoad: true, translation, retainedSyncsPerPartition: 8 });
        syncsA.markLoaded();
        syncsB.markLoaded();
        const cpsA = loadedCheckpoints();
        const cpsB = loadedCheckpoints();
        const cache = new TranslationCache();
        const layout = new ReconcileLayout();
        const table = new SourceOffsetTable();
        const topics = ['a', 'b', 'skipped'];
        const parts = [0, 1];
        const groups = Array.from({ length: 3 * SWEEP_CYCLES }, (_, i) => `g${String(i).padStart(3, '0')}`);
        const upstream = new Map();
        const commit = (g, t, p, offset) => table.applyStream([], [{ group: g, topic: t, partition: p, offset }], () => true);
        for (const g of groups) for (const t of topics) for (const p of parts) if (rand() < 0.8) commit(g, t, p, BigInt(Math.floor(rand() * 300)));
        let members = new Map();
        let previous = null;
        let lastFailed = new Set();
        for (let step = 0; step < 160; step++) {
          const what = rand();
          if (what < 0.3) {
            const t = topics[Math.floor(rand() * 2)];
            const p = parts[Math.floor(rand() * parts.length)];
            const k = `${t}/${p}`;
            const burst = 1 + Math.floor(rand() * 8);
            for (let b = 0; b < burst; b++) {
              const up = rand() < 0.01 ? Math.floor(rand() * 50) : (upstream.get(k) ?? 0) + (rand() < 0.1 ? 40 : 1 + Math.floor(rand() * 5));
              upstream.set(k, up);
              const s = { topic: t, partition: p, upstreamOffset: BigInt(up), downstreamOffset: BigInt(up * 2 + 1) };
              syncsA.apply(s);
              syncsB.apply(s);
            }
          } else if (what < 0.55) {
            // commits of a few groups (forward, sometimes a rewind or a deleted offset)
            for (let n = 1 + Math.floor(rand() * 4); n > 0; n--) {
              const g = groups[Math.floor(rand() * groups.length)];
              const t = topics[Math.floor(rand() * topics.length)];
              const p = parts[Math.floor(rand() * parts.length)];
              const cur = Number(table.offsetsOf(g)?.find((o) => o.topic === t && o.partition === p)?.offset ?? 0n);
              commit(g, t, p, rand() < 0.03 ? null : BigInt(Math.max(0, rand() < 0.1 ? Math.floor(cur / 2) : cur + Math.floor(rand() * 30))));
            }
          } else if (what < 0.6) {
            // a partial cycle of one group (both sides translate it plainly; the cache forgets it)
            const g = groups[Math.floor(rand() * groups.length)];
            const part = (table.offsetsOf(g) ?? []).filter(() => rand() < 0.5);
            const base = { group: g, offsets: part, topicFilter, policy, sourceAlias: 's', targetAlias: 't' };
            checkpointsForGroup({ ...base, store: syncsA, checkpoints: cpsA });
            checkpointsForGroup({ ...base, store: syncsB, checkpoints: cpsB });
            cache.forget(g);
          } else if (what < 0.62) {
            // the target's listing changed
            members = new Map(groups.filter(() => rand() < 0.1).map((g) => [g, true]));
          } else {
            // a full cycle; now and then some groups' reads fail (left out), as the emitter does
            const failed = rand() < 0.1 ? new Set(groups.filter(() => rand() < 0.05)) : rand() < 0.8 ? lastFailed : new Set();
            lastFailed = failed;
            const list = groups.filter((g) => !failed.has(g));
            const listedAt = 1000 + step;
            const common = { full: true, groups: list, offsetsOf: (g) => table.offsetsOf(g) ?? [], versionOf: (g) => table.versionOf(g), listedAt, membersOf: (g) => members.get(g) ?? false };
            const unsentA = new UnsentCheckpoints(() => cpsA);
            const unsentB = new UnsentCheckpoints(() => cpsB);
            const key = [syncsA, syncsA.loaded, cpsA, cpsA.loaded, members];
            const before = layout.lastGroups;
            const a = translateCycle({
              ...common,
              base: { topicFilter, store: syncsA, checkpoints: cpsA, policy, sourceAlias: 's', targetAlias: 't' },
              translations: cache,
              unsent: unsentA,
              previous,
              reconcile: { layout, key, changes: () => ({ offsetsChanged: table.takeChangedGroups(), stale: cache.takeStale(), groupsAtOrAbove: (t, p, o) => table.groupsAtOrAbove(t, p, o) }) },
            });
            if (before !== null && before.length === list.length && before.every((g, i) => g === list[i])) fast++;
            else fallbacks++;
            const b = translateCycle({
              ...common,
              base: { topicFilter, store: syncsB, checkpoints: cpsB, policy, sourceAlias: 's', targetAlias: 't' },
              translations: new TranslationCache(),
              unsent: unsentB,
            });
            const covA = a.coverage.result();
            const sumA = a.summaries.result();
            assert.deepEqual(coverageView(covA), coverageView(b.coverage.result()), `coverage: seed ${seed}, step ${step}`);
            assert.deepEqual(
              sumA.map((s) => `${s.group} ${s.membersOnTarget}`),
              b.summaries.result().map((s) => `${s.group} ${s.membersOnTarget}`),
              `summaries: seed ${seed}, step ${step}`,
            );
            const retries = (u) => u.list().map((c) => `${c.group}/${c.topic}/${c.partition}: ${c.upstreamOffset} ${c.downstreamOffset} at ${c.timestamp}`).sort();
            assert.deepEqual(retries(unsentA), retries(unsentB), `retry list: seed ${seed}, step ${step}`);
            previous = { coverage: covA, summaries: sumA };
          }
          assert.deepEqual(groups.map((g) => cpsA.get(g)), groups.map((g) => cpsB.get(g)), `checkpoints differ: seed ${seed}, step ${step}`);
        }
      }
      assert.ok(fast > 25 * randomSeeds(4), `cycles that visited only what changed (${fast}, ${fallbacks} over every group)`);
    });

    it('a cycle with nothing changed visits only the sweep, and gives the last lists back', () => {
      const syncs = new OffsetSyncStore({ keepHistoryOnLoad: true, translation });
      syncs.markLoaded();
      syncs.apply({ topic: 'a', partition: 0, upstreamOffset: 10n, downstreamOffset: 20n });
      const cps = loadedCheckpoints();
      const table = new SourceOffsetTable();
      const groups = Array.from({ length: 120 }, (_, i) => `g${String(i).padStart(3, '0')}`);
      for (const g of groups) table.applyStream([], [{ group: g, topic: 'a', partition: 0, offset: 15n }], () => true);
      const cache = new TranslationCache();
      const layout = new ReconcileLayout();
      let visited = 0;
      const offsetsOf = (g) => {
        visited++;
        return table.offsetsOf(g) ?? [];
      };
      let previous = null;
      const cycle = () => {
        visited = 0;
        const r = translateCycle({
          full: true,
          groups: [...groups],
          offsetsOf,
          versionOf: (g) => table.versionOf(g),
          listedAt: 1,
          membersOf: () => false,
          base: { topicFilter, store: syncs, checkpoints: cps, policy, sourceAlias: 's', targetAlias: 't' },
          translations: cache,
          unsent: new UnsentCheckpoints(() => cps),
          previous,
          reconcile: { layout, key: [syncs], changes: () => ({ offsetsChanged: table.takeChangedGroups(), stale: cache.takeStale(), groupsAtOrAbove: (t, p, o) => table.groupsAtOrAbove(t, p, o) }) },
        });
        const out = { coverage: r.coverage.result(), summaries: r.summaries.result() };
        previous = out;
        return out;
      };
      cycle(); // every group: emitted
      assert.equal(visited, 120);
      cycle(); // the emitted ones again (stale): every group
      assert.equal(visited, 120);
      const third = cycle();
      assert.equal(visited, Math.ceil(120 / SWEEP_CYCLES), 'only the sweep');
      const fourth = cycle();
      assert.equal(fourth.coverage, third.coverage);
      assert.equal(fourth.summaries, third.summaries);
      // a sync above every group: only the sweep (mm2 mode: slot 0 changed under them, every group
      // at or above the old one looks again); a sync at one group's position: that group too
      syncs.apply({ topic: 'a', partition: 0, upstreamOffset: 100n, downstreamOffset: 200n });
      cycle();
      assert.equal(visited, translation === 'mm2' ? 120 : Math.ceil(120 / SWEEP_CYCLES));
      table.applyStream([], [{ group: 'g005', topic: 'a', partition: 0, offset: 150n }], () => true);
      syncs.apply({ topic: 'a', partition: 0, upstreamOffset: 150n, downstreamOffset: 300n });
      const moved = cycle();
      assert.equal(visited, Math.ceil(120 / SWEEP_CYCLES) + 1);
      assert.equal(coverageEntriesOf(moved.coverage).find((c) => c.group === 'g005').downstreamOffset, 300n);
    });
  });
}

describe('Reconcile layout: a changed group found in the last cycle\'s groups, sorted (binary search, no Map of names) or not (issue 24 step g)', () => {
  const store = /** @type {any} */ ({ changeLogs: () => [] });
  // index 0 is marked too: the sweep's first slice
  /** @type {Array<[string, string[], number[]]>} */
  const cases = [
    ['sorted', ['a', 'b', 'c', 'd'], [1, 1, 1, 0]],
    ['not sorted', ['d', 'b', 'a', 'c'], [1, 1, 0, 1]],
    ['a name twice (its last place, as before)', ['a', 'b', 'b', 'c', 'd'], [1, 0, 1, 1, 0]],
  ];
  for (const [what, groups, expected] of cases) {
    it(`${what}: each changed group marked at its place, an unknown one ignored`, () => {
      const layout = new ReconcileLayout();
      const key = [1];
      layout.begin(groups, key);
      layout.done(groups, key, undefined);
      const marks = layout.plan(groups, key, store, { offsetsChanged: ['c', 'zz'], stale: ['b'], groupsAtOrAbove: () => [] });
      assert.deepEqual([...marks], expected);
    });
  }
});
