'use strict';
/**
 * The translation cache keeps compact coverage rows (core/coverage-rows: a reason code and the
 * values its sentence needs, issue 24 step g): each row reads exactly as checkpointsForGroup's
 * entry, sentence included, for every status and every sentence of a status.
 */
const assert = require('node:assert/strict');
const { checkpointsForGroup } = require('../../dist/core/checkpoints-for-group');
const { CheckpointStore } = require('../../dist/core/checkpoint-store');
const { TranslationCache } = require('../../dist/core/translation-cache');
const { CoverageRow } = require('../../dist/core/coverage-rows');

const { policy, syncs, checkpoints, at } = require('./helpers/translation-fixtures');
const topicFilter = { accept: (t) => t !== 'skipped' };
const MAX = (1n << 63n) - 1n;

const view = (c) => ({
  status: c.status,
  reason: c.reason,
  topic: c.topic,
  partition: c.partition,
  remoteTopic: c.remoteTopic,
  up: c.upstreamOffset,
  down: c.downstreamOffset,
  sync: c.sync,
  previous: c.previous,
  rewoundFrom: c.rewoundFrom,
});

for (const translation of ['mm2', 'precise']) {
  describe(`coverage rows (${translation}): they read as checkpointsForGroup's entries`, function () {
    const codes = new Set();
    function same(what, input) {
      const plain = checkpointsForGroup({ ...input, dryRun: true });
      const cache = new TranslationCache();
      const r = cache.translate(input);
      for (const c of r.coverage) {
        assert.ok(c instanceof CoverageRow, 'a compact row');
        assert.equal(Object.prototype.hasOwnProperty.call(c, 'reason'), false, 'no sentence kept');
        codes.add(c.code);
      }
      assert.deepEqual(r.coverage.map(view), plain.coverage.map(view), what);
      // values, not the stores' objects: a row keeps no checkpoint or sync of theirs alive
      r.coverage.entries().forEach((c, i) => {
        if (c.code === 12) return; // kept as checkpointsForGroup's entry
        const p = plain.coverage[i];
        if (p.previous !== undefined) assert.notEqual(c.previous, p.previous, `${what}: the last checkpoint as a value`);
        if (p.sync !== undefined) assert.notEqual(c.sync, p.sync, `${what}: the sync as a value`);
      });
      return r;
    }
    const base = { topicFilter, policy, sourceAlias: 's', targetAlias: 't', listedAt: 10 };

    it('every status and every sentence of a status', function () {
      const s = syncs(translation, [['a', 0, 100, 1000], ['a', 0, 200, 1100], ['b', 0, 5, MAX]]);
      same('checkpoints restoring', { ...base, group: 'g', offsets: [at('a', 0, 150)], store: s, checkpoints: checkpoints([], false) });
      same('syncs loading', { ...base, group: 'g', offsets: [at('a', 0, 150)], store: syncs(translation, [['a', 0, 100, 1000]], false), checkpoints: checkpoints([]) });
      const r = same('filtered, no commit, no sync, emitted (exact and past), a negative translation, a duplicate', {
        ...base,
        group: 'g',
        offsets: [at('skipped', 0, 3), at('a', 1, null), at('c', 0, 7), at('a', 0, 200), at('a', 2, 5), at('b', 0, 10), at('b', 1, 4)],
        store: s,
        checkpoints: checkpoints([]),
      });
      assert.deepEqual(r.coverage.map((c) => c.status), ['emitted', 'no-committed-offset', 'no-sync', 'older-than-oldest-sync', 'no-sync', 'no-sync', 'topic-not-replicated']);
      assert.match(r.coverage.at(3).reason, /the translation of offset 10 is negative/);
      same('a duplicate remote partition', { ...base, group: 'g', offsets: [at('a', 0, 150), at('a', 0, 200)], store: s, checkpoints: checkpoints([]) });
      same('emitted past the sync', { ...base, group: 'g', offsets: [at('a', 0, 150)], store: s, checkpoints: checkpoints([]) });
      same('unchanged, the same offset', { ...base, group: 'g', offsets: [at('a', 0, 200)], store: s, checkpoints: checkpoints([['g', 's.a', 0, 200, 1100]]) });
      same('unchanged, behind the last checkpoint', { ...base, group: 'g', offsets: [at('a', 0, 200)], store: s, checkpoints: checkpoints([['g', 's.a', 0, 200, 1500]]) });
      same('emitted after a rewind', { ...base, group: 'g', offsets: [at('a', 0, 150)], store: s, checkpoints: checkpoints([['g', 's.a', 0, 190, 1100]]) });
      same('older than the oldest sync', { ...base, group: 'g', offsets: [at('a', 0, 50)], store: s, checkpoints: checkpoints([]) });
      same('rewound below the syncs, the log start not known', {
        ...base, group: 'g', offsets: [at('a', 0, 50)], store: s, checkpoints: checkpoints([['g', 's.a', 0, 150, 1001]]), remoteLogStart: () => undefined,
      });
      same('rewound below the syncs, checkpointed at the log start', {
        ...base, group: 'g', offsets: [at('a', 0, 50)], store: s, checkpoints: checkpoints([['g', 's.a', 0, 150, 1001]]), remoteLogStart: () => 900n,
      });
      // every code of the rows: 12 sentences, and the entries kept as they are
      assert.deepEqual([...codes].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    });

    it('rows of groups translated again are reclaimed; a coverage reads the same before and after, an old one what it said then', function () {
      const s = syncs(translation, [['a', 0, 100, 1000]]);
      const cache = new TranslationCache();
      const cps = checkpoints([]);
      const groups = Array.from({ length: 3000 }, (_, i) => `g${String(i).padStart(4, '0')}`);
      const read = (cov) => cov.map((c) => `${c.group} ${c.topic}-${c.partition} ${c.status} ${c.upstreamOffset} ${c.downstreamOffset} ${c.reason}`);
      const first = cache.translate({ ...base, group: groups[0], offsets: [at('a', 0, 100), at('a', 1, 5)], store: s, checkpoints: cps });
      const firstRead = read(first.coverage);
      let last = new Map();
      for (let round = 0; round < 4; round++) {
        for (const g of groups) {
          const r = cache.translate({ ...base, group: g, offsets: [at('a', 0, 100 + round), at('a', 1, 5)], store: s, checkpoints: cps });
          last.set(g, { cov: r.coverage, seen: read(r.coverage) });
        }
        assert.ok(cache.rows.waste <= Math.max(4096, cache.rows.live), `round ${round}: reclaimed (${JSON.stringify(cache.rows)})`);
      }
      assert.equal(cache.rows.live, 2 * groups.length);
      for (const [, { cov, seen }] of last) assert.deepEqual(read(cov), seen, 'the same after the compactions');
      assert.deepEqual(read(first.coverage), firstRead, 'an old coverage reads what it said');
      cache.retain(new Set(groups.slice(0, 10)));
      assert.equal(cache.rows.live, 20);
      for (const g of groups.slice(0, 10)) assert.deepEqual(read(last.get(g).cov), last.get(g).seen);
    });

    it('the usual row is its header and the values no other one gives (about 10 bytes); an unusual one says which values follow', function () {
      const s = syncs(translation, [['a', 0, 100, 1000], ['a', 1, 100, 1000], ['a', 2, 100, 1000]]);
      // unchanged at the sync, unchanged past it, unchanged behind the last checkpoint
      const cps = checkpoints([['g', 's.a', 0, 100, 1000], ['g', 's.a', 1, 150, 1001], ['g', 's.a', 2, 150, 1500]]);
      const r = same('unchanged rows', { ...base, group: 'g', offsets: [at('a', 0, 100), at('a', 1, 150), at('a', 2, 150)], store: s, checkpoints: cps });
      assert.deepEqual(r.coverage.map((c) => c.status), ['unchanged', 'unchanged', 'unchanged']);
      assert.ok(r.coverage.byteLength <= 3 * 10 + 6, `${r.coverage.byteLength} bytes for 3 rows (one checkpoint time of 6 bytes)`);
      // flags other than their code's usual ones: a topic not replicated without a commit, one with
      same('unusual rows', { ...base, group: 'g', offsets: [at('skipped', 0, null), at('skipped', 1, 4), at('a', 0, 150)], store: s, checkpoints: checkpoints([]) });
    });

    it('a steady group (each partition unchanged at its last checkpoint, one after another, one checkpoint time): no partition number, reference offset or repeated time written', function () {
      const n = 10;
      const s = syncs(translation, Array.from({ length: n }, (_, p) => ['a', p, 100, 1000]));
      const cps = checkpoints(Array.from({ length: n }, (_, p) => ['g', 's.a', p, 100 + p, 1001]));
      const r = same('steady rows', { ...base, group: 'g', offsets: Array.from({ length: n }, (_, p) => at('a', p, 100 + p)), store: s, checkpoints: cps });
      assert.deepEqual(new Set(r.coverage.map((c) => c.status)), new Set(['unchanged']));
      // header, next partition, upstream (2), the sync's downstream (2) and distance, re-read: 8 bytes a row at these offsets (was 11); the first names its pair and partition
      assert.ok(r.coverage.byteLength <= 8 * n + 3, `${r.coverage.byteLength} bytes for ${n} rows`);
      const t0 = r.coverage.at(0).checkpointAt;
      assert.equal(typeof t0, 'number', 'a checkpoint time');
      assert.deepEqual(r.coverage.map((c) => [c.partition, c.previous.upstreamOffset, c.checkpointAt]), Array.from({ length: n }, (_, p) => [p, BigInt(100 + p), t0]));
      // partitions out of order and of two topics read back as written
      const s2 = syncs(translation, [['a', 3, 100, 1000], ['a', 1, 100, 1000], ['a', 2, 100, 1000], ['b', 3, 100, 1000]]);
      same('partitions out of order', { ...base, group: 'g', offsets: [at('a', 3, 150), at('b', 3, 150), at('a', 1, 150), at('a', 2, 150)], store: s2, checkpoints: checkpoints([['g', 's.a', 2, 140, 1001]]) });
    });

    it('the readiness verdict is kept with the row', function () {
      const s = syncs(translation, [['a', 0, 100, 1000]]);
      const r = same('ready', { ...base, group: 'g', offsets: [at('a', 0, 100), at('c', 0, 1)], store: s, checkpoints: checkpoints([]) });
      assert.deepEqual(r.coverage.map((c) => [c.verdict, c.reread]), [['ready', 0], ['not-covered', null]]);
      // rows kept as checkpointsForGroup's entries (an offset of 2^50 or more, a negative translation) keep theirs too
      const big = 1n << 51n;
      const s2 = syncs(translation, [['a', 0, big, 1000], ['b', 0, 5, MAX]]);
      const r2 = same('kept rows', { ...base, group: 'g', offsets: [at('a', 0, big), at('b', 0, 10)], store: s2, checkpoints: checkpoints([]) });
      assert.deepEqual(
        r2.coverage.map((c) => [c.code, c.status, c.verdict, c.reread, c.checkpointAt]),
        [[12, 'emitted', 'ready', 0, 10], [12, 'older-than-oldest-sync', 'not-covered', null, null]],
      );
    });
  });
}

describe('coverage rows: checkpoint times from the table\'s base and the rare extras by group, over many groups and compactions', function () {
  it('each group reads its own checkpoint times, metadata and sentences, whatever the first group written (the base) said (model)', function () {
    const { seededRandom: rng } = require('../../scripts/seeded-random');
    for (let seed = 1; seed <= 2; seed++) {
      const rand = rng(seed);
      let compacted = 0;
      const s = syncs('precise', [['a', 0, 100, 1000], ['a', 1, 200, 5000]]);
      const cache = new TranslationCache();
      const groups = Array.from({ length: 3000 }, (_, i) => `g${i}`);
      /** group -> { listedAt, metadata, cps } */
      const model = new Map();
      for (let round = 0; round < 5; round++) {
        for (const g of groups) {
          if (round > 0 && rand() < 0.5) continue;
          // times far apart (before and after the base), some metadata
          const listedAt = Math.floor(rand() * 2 ** 45);
          const metadata = rand() < 0.2 ? `m${round}-${g}` : '';
          const cps = new CheckpointStore();
          cps.markLoaded(true);
          cps.update(g, [{ group: g, topic: 's.a', partition: 0, upstreamOffset: 100n, downstreamOffset: 1000n, metadata }, { group: g, topic: 's.a', partition: 1, upstreamOffset: 210n, downstreamOffset: 5001n, metadata: '' }], listedAt);
          const offsets = [at('a', 0, 100), at('a', 1, 210 + Math.floor(rand() * 3))];
          const wasteBefore = cache.rows.waste;
          const r = cache.translate({ ...base0, group: g, offsets, store: s, checkpoints: cps, listedAt: 7 });
          if (cache.rows.waste < wasteBefore) compacted++;
          const plain = checkpointsForGroup({ ...base0, group: g, offsets, store: s, checkpoints: cps, listedAt: 7, dryRun: true });
          model.set(g, { cov: r.coverage, listedAt, metadata, view: plain.coverage.map(view) });
        }
        for (const [g, m] of model) {
          assert.deepEqual(m.cov.map(view), m.view, `seed ${seed} round ${round} ${g}`);
          assert.equal(m.cov.at(0).checkpointAt, m.listedAt, `seed ${seed} round ${round} ${g}: its checkpoint time`);
          assert.equal(m.cov.at(0).previous.metadata, m.metadata, `seed ${seed} round ${round} ${g}: its metadata`);
        }
      }
      assert.ok(compacted > 0, 'the rows were compacted meanwhile');
    }
  });
});
const base0 = { topicFilter, policy, sourceAlias: 's', targetAlias: 't' };
