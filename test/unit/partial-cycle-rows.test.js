'use strict';
// A partial cycle (the event path) reads the source offsets in place like a full one: a group whose
// whole translation stands is left out without a CommittedOffset made, the others' offsets are made
// when their turn comes (only the partitions that changed). It must give what the partial cycle
// given the offsets as objects gives: the same checkpoints in the store and on the retry list, the
// same log starts asked, and the same answers in the full cycles that follow.

const assert = require('node:assert/strict');
const { translateCycle } = require('../../dist/core/checkpoint-cycle');
const { UnsentCheckpoints } = require('../../dist/core/unsent-checkpoints');
const { TranslationCache } = require('../../dist/core/translation-cache');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
const { SourceOffsetTable } = require('../../dist/core/source-offset-table');
const { partitionKey } = require('../../dist/core/partition-key');
const { seededRandom: rng } = require('../../scripts/seeded-random');
const { policy, syncBurst, checkpoints, resultView } = require('./helpers/translation-fixtures');

const topicFilter = { accept: (t) => t !== 'skipped' };
const all = () => true;
const topics = ['a', 'b', 'skipped'];
const groups = ['g1', 'g2', 'g3', 'g4'];

/** One world: the stores a checkpoint emitter holds. */
function world(translation, initial) {
  const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation });
  const cps = checkpoints([]);
  const table = new SourceOffsetTable();
  table.endRead(table.beginRead(), initial);
  return { store, cps, table, translations: new TranslationCache(), unsent: new UnsentCheckpoints(() => cps), logStarts: new Map(), madeFor: new Set() };
}

/**
 * A cycle in world `w`: `rows` the emitter's way (versions and rows; a partial cycle's offsets made
 * from the table when the group's turn comes), otherwise the offsets as objects, a partial cycle's
 * made before the cycle (the emitter's way before).
 * @param {any} w
 * @param {{ full: boolean, only?: Map<string, any>, rows: boolean, listedAt: number, readiness: any }} o
 */
function cycle(w, { full, only, rows, listedAt, readiness }) {
  const base = { topicFilter, store: w.store, checkpoints: w.cps, policy, sourceAlias: 's', targetAlias: 't', readiness };
  w.madeFor.clear();
  const made = (g, list) => {
    w.madeFor.add(g);
    return list;
  };
  let input;
  if (full) {
    input = {
      groups,
      offsetsOf: (g) => made(g, w.table.offsetsOf(g) ?? []),
      versionOf: (g) => w.table.versionOf(g),
      ...(rows ? { rowsOf: (g) => w.table.rowsOf(g) } : {}),
    };
  } else if (rows) {
    input = {
      groups: [...only.keys()],
      offsetsOf: (g) => made(g, w.table.offsetsOf(g, only.get(g)) ?? []),
      versionOf: (g) => w.table.versionOf(g),
      rowsOf: (g) => w.table.rowsOf(g),
    };
  } else {
    const perGroup = new Map([...only].map(([g, parts]) => [g, made(g, w.table.offsetsOf(g, parts) ?? [])]));
    input = { groups: [...perGroup.keys()], offsetsOf: (g) => perGroup.get(g) ?? [] };
  }
  const r = translateCycle({
    full,
    ...input,
    listedAt,
    base,
    translations: w.translations,
    membersOf: () => 'unknown',
    unsent: w.unsent,
    logStarts: w.store.translation === 'mm2' ? undefined : w.logStarts,
  });
  return {
    needs: { starts: [...r.needs.starts].map(([t, p]) => [t, [...p].sort()]), groups: [...r.needs.groups].sort() },
    coverage: full ? r.coverage.result().map((c) => resultView({ checkpoints: [], coverage: [...c] }).coverage) : [],
    summaries: full ? r.summaries.result().map((s) => ({ ...s })) : [],
  };
}

for (const translation of /** @type {Array<'mm2' | 'precise'>} */ (['mm2', 'precise'])) describe(`a partial cycle reads the source offsets in place (${translation} mode)`, () => {
  it('gives what the partial cycle over the offsets as objects gives, over random commits (some of the same offset), syncs and cycles', () => {
    let partialsLeftOut = 0;
    let partialGroups = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const rand = rng(seed);
      const initial = new Map(groups.map((g) => [g, topics.flatMap((t) => [0, 1].map((p) => ({ topic: t, partition: p, offset: rand() < 0.2 ? null : BigInt(Math.floor(rand() * 50)), metadata: '' })))]));
      const byRows = world(translation, initial);
      const byObjects = world(translation, initial);
      const both = [byRows, byObjects];
      const readiness = { maxReread: 10, maxAgeMs: 300000 };
      const upstream = new Map();
      for (let step = 0; step < 150; step++) {
        const what = rand();
        const where = `seed ${seed}, step ${step}`;
        if (what < 0.25) {
          // new syncs: the same burst in both worlds
          const burst = [];
          syncBurst(/** @type {any} */ ({ apply: (/** @type {any} */ x) => burst.push(x) }), rand, topics, upstream);
          for (const w of both) for (const x of burst) w.store.apply(x);
        } else if (what < 0.45) {
          // a commit seen on the stream: sometimes of the offset the partition already has, sometimes a deletion
          const g = groups[Math.floor(rand() * groups.length)];
          const t = topics[Math.floor(rand() * topics.length)];
          const p = Math.floor(rand() * 2);
          const had = (byRows.table.offsetsOf(g) ?? []).find((o) => o.topic === t && o.partition === p);
          const same = rand() < 0.4;
          const offset = same ? (had?.offset ?? null) : rand() < 0.1 ? null : BigInt(Math.max(0, Number(had?.offset ?? 0n) + Math.floor(rand() * 20) - 4));
          for (const w of both) w.table.applyStream([], [{ group: g, topic: t, partition: p, offset }], all);
        } else if (what < 0.5 && !byRows.store.loaded) {
          for (const w of both) w.store.markLoaded();
        } else if (what < 0.8) {
          // a partial cycle over some groups, some of their partitions (or all)
          const only = new Map();
          for (const g of groups) {
            if (rand() < 0.5) continue;
            if (rand() < 0.2) only.set(g, 'all');
            else only.set(g, new Set(topics.flatMap((t) => [0, 1].filter(() => rand() < 0.4).map((p) => partitionKey(t, p)))));
          }
          partialGroups += only.size;
          const a = cycle(byRows, { full: false, only, rows: true, listedAt: step, readiness });
          const b = cycle(byObjects, { full: false, only, rows: false, listedAt: step, readiness });
          assert.deepEqual(a, b, where);
          // a group left out made no offset: the rows' shortcut taken
          partialsLeftOut += only.size - byRows.madeFor.size;
          assert.equal(byObjects.madeFor.size, only.size);
        } else {
          const a = cycle(byRows, { full: true, rows: true, listedAt: step, readiness });
          const b = cycle(byObjects, { full: true, rows: false, listedAt: step, readiness });
          assert.deepEqual(a, b, where);
        }
        assert.deepEqual(groups.map((g) => byRows.cps.get(g)), groups.map((g) => byObjects.cps.get(g)), `stores differ: ${where}`);
        assert.deepEqual(byRows.unsent.list(), byObjects.unsent.list(), `retry lists differ: ${where}`);
        assert.deepEqual(groups.map((g) => byRows.translations.last(g)), groups.map((g) => byObjects.translations.last(g)), `readiness differs: ${where}`);
      }
    }
    assert.ok(partialGroups > 1000, `partial cycles ran (${partialGroups} groups)`);
    assert.ok(partialsLeftOut > 20, `partial cycles left out groups whose translation stands without making their offsets (${partialsLeftOut} groups)`);
  });
});
