'use strict';

/**
 * checkpointsForGroup without sentences (`reasons: false`, what the translation cache asks: issue 24,
 * the catch-up's garbage): the same entries, '' for a reason, and entryReason makes exactly the sentence
 * checkpointsForGroup gives them otherwise; groupReadinessOf judges as groupReadiness.
 */
const assert = require('node:assert/strict');
const { checkpointsForGroup, entryReason } = require('../../dist/core/checkpoints-for-group');
const { entryReadiness, groupReadiness, groupReadinessOf, DEFAULT_READINESS } = require('../../dist/core/readiness');

const { policy, syncs, checkpoints, at } = require('./helpers/translation-fixtures');
const topicFilter = { accept: (t) => t !== 'skipped' };
const MAX = (1n << 63n) - 1n;


for (const translation of ['mm2', 'precise']) {
  describe(`checkpointsForGroup without sentences (${translation})`, function () {
    const base = { topicFilter, policy, sourceAlias: 's', targetAlias: 't', listedAt: 10, dryRun: true };
    const s = () => syncs(translation, [['a', 0, 100, 1000], ['a', 0, 200, 1100], ['b', 0, 5, MAX]]);
    /** @returns {Array<[string, any]>} */
    const cases = () => [
      ['checkpoints restoring', { group: 'g', offsets: [at('a', 0, 150)], store: s(), checkpoints: checkpoints([], false) }],
      ['syncs loading', { group: 'g', offsets: [at('a', 0, 150)], store: syncs(translation, [['a', 0, 100, 1000]], false), checkpoints: checkpoints([]) }],
      [
        'filtered, no commit, no sync, emitted, a negative translation',
        { group: 'g', offsets: [at('skipped', 0, 3), at('a', 1, null), at('c', 0, 7), at('a', 0, 200), at('a', 2, 5), at('b', 0, 10), at('b', 1, 4)], store: s(), checkpoints: checkpoints([]) },
      ],
      ['a duplicate remote partition', { group: 'g', offsets: [at('a', 0, 150), at('a', 0, 200)], store: s(), checkpoints: checkpoints([]) }],
      ['emitted past the sync', { group: 'g', offsets: [at('a', 0, 150)], store: s(), checkpoints: checkpoints([]) }],
      ['unchanged, the same offset', { group: 'g', offsets: [at('a', 0, 200)], store: s(), checkpoints: checkpoints([['g', 's.a', 0, 200, 1100]]) }],
      ['unchanged, past the sync', { group: 'g', offsets: [at('a', 0, 150)], store: s(), checkpoints: checkpoints([['g', 's.a', 0, 150, 1001]]) }],
      ['unchanged, behind the last checkpoint', { group: 'g', offsets: [at('a', 0, 200)], store: s(), checkpoints: checkpoints([['g', 's.a', 0, 200, 1500]]) }],
      ['emitted after a rewind', { group: 'g', offsets: [at('a', 0, 150)], store: s(), checkpoints: checkpoints([['g', 's.a', 0, 190, 1100]]) }],
      ['older than the oldest sync', { group: 'g', offsets: [at('a', 0, 50)], store: s(), checkpoints: checkpoints([]) }],
      ['rewound, log start not known', { group: 'g', offsets: [at('a', 0, 50)], store: s(), checkpoints: checkpoints([['g', 's.a', 0, 150, 1001]]), remoteLogStart: () => undefined }],
      ['rewound, at the log start', { group: 'g', offsets: [at('a', 0, 50)], store: s(), checkpoints: checkpoints([['g', 's.a', 0, 150, 1001]]), remoteLogStart: () => 900n }],
      ['offsets listed out of order', { group: 'g', offsets: [at('a', 2, 5), at('a', 0, 200), at('a', 1, null)], store: s(), checkpoints: checkpoints([]) }],
    ];

    it('the same entries and checkpoints; a sentence only where no field says it; entryReason makes the rest exactly', function () {
      const statuses = new Set();
      for (const [what, input] of cases()) {
        const withReasons = checkpointsForGroup({ ...base, ...input });
        const without = checkpointsForGroup({ ...base, ...input, reasons: false });
        assert.deepEqual(without.checkpoints, withReasons.checkpoints, what);
        assert.equal(without.coverage.length, withReasons.coverage.length, what);
        without.coverage.forEach((e, i) => {
          const w = withReasons.coverage[i];
          statuses.add(w.status);
          assert.deepEqual({ ...e, reason: w.reason }, w, `${what}: entry ${i}`);
          const always = w.status === 'duplicate-remote-partition' || /is negative/.test(w.reason);
          assert.equal(e.reason, always ? w.reason : '', `${what}: entry ${i} (${w.status}) without a sentence`);
          if (!always) assert.equal(entryReason(e, input.checkpoints.loaded), w.reason, `${what}: entry ${i} (${w.status}) sentence`);
        });
      }
      assert.equal(statuses.size, 10, [...statuses].join(', '));
    });

    it('the store is updated the same (not a dry run)', function () {
      const input = { ...base, dryRun: false, group: 'g', offsets: [at('a', 0, 150), at('a', 1, 7)] };
      const a = { ...input, store: s(), checkpoints: checkpoints([]) };
      const b = { ...input, store: s(), checkpoints: checkpoints([]) };
      checkpointsForGroup(a);
      checkpointsForGroup({ ...b, reasons: false });
      assert.deepEqual(b.checkpoints.get('g'), a.checkpoints.get('g'));
      assert.equal(a.checkpoints.get('g').length, 1);
    });

    it('groupReadinessOf judges as groupReadiness over the joined entries', function () {
      for (const [what, input] of cases()) {
        const r = checkpointsForGroup({ ...base, ...input });
        const rd = r.coverage.map((c) => entryReadiness(c, undefined, undefined, undefined, DEFAULT_READINESS));
        const joined = r.coverage.map((c, i) => ({ ...rd[i], status: c.status, topic: c.topic, partition: c.partition }));
        assert.deepEqual(groupReadinessOf('g', r.coverage, rd), groupReadiness('g', joined), what);
      }
      assert.deepEqual(groupReadinessOf('g', [], []), groupReadiness('g', []));
    });
  });
}
