'use strict';

const assert = require('node:assert/strict');
const { GroupColumns } = require('../../dist/core/translation-columns');
const { TranslationCache } = require('../../dist/core/translation-cache');
const { GroupNames } = require('../../dist/core/group-names');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
const { CheckpointStore } = require('../../dist/core/checkpoint-store');
const { seededRandom: rng } = require('../../scripts/seeded-random');

const { policy } = require('./helpers/translation-fixtures');
const topicFilter = { accept: () => true };

describe('translation cache columns (core/translation-columns, issue 24 step g)', () => {
  it('GroupColumns: entries, keys and fields by number follow a model over random sets, drops and growth', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const rand = rng(seed);
      const cols = new GroupColumns();
      /** id -> { e, key, listed, stale } */
      const model = new Map();
      for (let step = 0; step < 400; step++) {
        const id = Math.floor(rand() * 300);
        const what = rand();
        if (what < 0.5) {
          const e = { id, step };
          const key = rand() < 0.8 ? Math.floor(rand() * 1e12) : [step];
          cols.set(id, e, key);
          const listed = rand() < 0.3 ? NaN : 1e12 + step;
          cols.listed[id] = listed;
          cols.stale[id] = rand() < 0.3 ? 1 : 0;
          model.set(id, { e, key, listed, stale: cols.stale[id] });
        } else if (what < 0.7) {
          cols.set(id, undefined);
          model.delete(id);
        } else if (what < 0.72) {
          cols.clear();
          model.clear();
        }
        assert.equal(cols.size, model.size, `seed ${seed} step ${step}`);
        for (const [k, m] of model) {
          assert.equal(cols.entry[k], m.e);
          assert.ok(cols.sameKey(k, m.key));
          assert.ok(!cols.sameKey(k, typeof m.key === 'number' ? m.key + 1 : [...m.key]), 'another key is not the same');
          assert.ok(Object.is(cols.listed[k], m.listed));
          assert.equal(cols.stale[k], m.stale);
        }
        for (let k = 0; k < cols.entry.length; k++) if (!model.has(k)) assert.equal(cols.entry[k], undefined);
      }
    }
  });

  it('TranslationCache on a shared interner: numbers reused by other groups never carry a dropped group\'s answer, version, listing or staleness (model)', () => {
    for (let seed = 1; seed <= 15; seed++) {
      const rand = rng(seed);
      const names = new GroupNames();
      const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: 'precise' });
      for (let u = 1; u <= 20; u++) store.apply({ topic: 'a', partition: 0, upstreamOffset: BigInt(u * 10), downstreamOffset: BigInt(u * 10 + 5) });
      store.markLoaded();
      const checkpoints = new CheckpointStore();
      checkpoints.markLoaded(true);
      const cache = new TranslationCache(names);
      const all = Array.from({ length: 12 }, (_, i) => `g${i}`);
      /** group -> { version, listedAt, stale } as the cache should hold it */
      const model = new Map();
      /** other tables holding names (their numbers are the cache's too) */
      const others = new Map();
      const offsetsOf = new Map(); // `${g}/${version}` -> the same array for the same version
      const offsets = (g, v) => {
        const k = `${g}/${v}`;
        if (!offsetsOf.has(k)) offsetsOf.set(k, [{ topic: 'a', partition: 0, offset: BigInt(15 + ((v * 37 + g.length * 7) % 180)), metadata: '' }]);
        return offsetsOf.get(k);
      };
      let reusedSeen = 0;
      for (let step = 0; step < 300; step++) {
        const g = all[Math.floor(rand() * all.length)];
        const what = rand();
        if (what < 0.45) {
          const m = model.get(g);
          const version = m !== undefined && rand() < 0.6 ? m.version : Math.floor(rand() * 5);
          const listedAt = 1000 + step;
          const input = { group: g, offsets: offsets(g, version), offsetsVersion: version, listedAt, topicFilter, store, checkpoints, policy, sourceAlias: 's', targetAlias: 't' };
          const expectReuse = m !== undefined && !m.stale && m.version === version;
          const r = cache.translate(input);
          assert.equal(r.reused, expectReuse, `seed ${seed} step ${step} ${g}: reused`);
          if (r.reused) reusedSeen++;
          assert.equal(r.coverage.length, 1);
          assert.ok([...r.coverage].every((c) => c.group === g));
          // an answer that emitted is translated again next time (its entries would read "unchanged")
          const emitted = [...r.coverage].some((c) => c.status === 'emitted');
          model.set(g, { version, listedAt, stale: r.reused ? m.stale : emitted });
          if (!r.reused) cache.takeStale();
        } else if (what < 0.55) {
          cache.forget(g);
          const m = model.get(g);
          if (m !== undefined) m.stale = true;
        } else if (what < 0.65) {
          const keep = new Set(all.filter(() => rand() < 0.6));
          cache.retain(keep);
          for (const k of [...model.keys()]) if (!keep.has(k)) model.delete(k);
        } else if (what < 0.75) {
          const at = 900 + Math.floor(rand() * 400);
          cache.listedAtLeast(g, at);
          const m = model.get(g);
          if (m !== undefined && m.listedAt < at) m.listedAt = at;
        } else if (what < 0.85) {
          // another table takes or gives back a name (numbers freed and reused across groups)
          if (others.has(g)) {
            names.release(others.get(g));
            others.delete(g);
          } else others.set(g, names.acquire(g));
        } else if (what < 0.86) {
          cache.clear();
          model.clear();
        }
        assert.equal(cache.size, model.size, `seed ${seed} step ${step}: size`);
        for (const k of all) {
          const last = cache.last(k);
          const m = model.get(k);
          assert.equal(last === undefined, m === undefined, `seed ${seed} step ${step} ${k}: held`);
          if (m !== undefined) {
            assert.equal(last.listedAt, m.listedAt, `seed ${seed} step ${step} ${k}: listedAt`);
            assert.equal(last.summary.group, k);
          }
          // the interner holds a name while the cache or another table does
          assert.equal(names.idOf(k) !== undefined, m !== undefined || others.has(k), `seed ${seed} step ${step} ${k}: interned`);
        }
      }
      assert.ok(reusedSeen > 3, `seed ${seed}: reused ${reusedSeen}`);
      cache.clear();
      assert.equal(names.size, others.size, 'clear gives the numbers back');
    }
  });
});
