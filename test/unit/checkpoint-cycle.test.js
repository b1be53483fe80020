'use strict';
/** core/checkpoint-cycle: a cycle's translation, retry list, readiness and latest lists, without a broker. */
const assert = require('node:assert/strict');
const {
  translateCycle, fullCycleReadiness, latestOf, reusedLatest, logStartKey,
} = require('../../dist/core/checkpoint-cycle');
const { UnsentCheckpoints } = require('../../dist/core/unsent-checkpoints');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
const { CheckpointStore } = require('../../dist/core/checkpoint-store');
const { TranslationCache } = require('../../dist/core/translation-cache');
const { ListReuse } = require('../../dist/core/list-reuse');
const { DEFAULT_READINESS } = require('../../dist/core/readiness');

const { policy } = require('./helpers/translation-fixtures');

function sync(topic, partition, u, d) {
  return { topic, partition, upstreamOffset: BigInt(u), downstreamOffset: BigInt(d) };
}
function offset(topic, partition, o) {
  return { topic, partition, offset: BigInt(o), metadata: '' };
}
function cp(group, topic, partition, up, down) {
  return { group, topic, partition, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down), metadata: '' };
}

function setup(syncs, records = []) {
  const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: 'precise' });
  store.markLoaded();
  for (const s of syncs) store.apply(s);
  const checkpoints = new CheckpointStore();
  for (const r of records) checkpoints.loadRecord(r);
  checkpoints.markLoaded(true);
  const base = { topicFilter: { accept: () => true }, store, checkpoints, policy, sourceAlias: 'source1', targetAlias: 'target2', readiness: DEFAULT_READINESS };
  return { store, checkpoints, base };
}

function run(base, extra) {
  const offsets = extra.offsets;
  return translateCycle({
    full: false,
    groups: Object.keys(offsets),
    offsetsOf: (g) => offsets[g],
    listedAt: 1700000000000,
    base,
    translations: new TranslationCache(),
    membersOf: () => 'unknown',
    unsent: new UnsentCheckpoints(() => base.checkpoints),
    ...extra,
  });
}

describe('core/checkpoint-cycle', function () {
  it('translateCycle puts each group\'s new checkpoints into the store and onto the retry list, stamped with the listing time', function () {
    const { base, checkpoints } = setup([sync('t', 0, 10, 110)]);
    const unsent = new UnsentCheckpoints(() => checkpoints);
    const r = run(base, { offsets: { a: [offset('t', 0, 10)], b: [offset('t', 0, 10)] }, unsent });
    assert.deepEqual(unsent.list(), [
      { ...cp('a', 'source1.t', 0, 10, 110), timestamp: 1700000000000 },
      { ...cp('b', 'source1.t', 0, 10, 110), timestamp: 1700000000000 },
    ]);
    assert.deepEqual(checkpoints.get('a'), [cp('a', 'source1.t', 0, 10, 110)]);
    assert.equal(r.needs.groups.size, 0);
  });

  it('translateCycle (full) gives readiness per group, with the members on the target it is told', function () {
    const { base } = setup([sync('t', 0, 10, 110)]);
    const r = run(base, { full: true, offsets: { a: [offset('t', 0, 10)] }, membersOf: (g) => g === 'a' });
    const summaries = r.summaries.result();
    assert.equal(summaries.length, 1);
    assert.equal(summaries[0].group, 'a');
    assert.equal(summaries[0].membersOnTarget, true);
    assert.equal(r.coverage.result()[0].group, 'a');
  });

  it('a group rewound below every sync asks for the remote log start; once known it is used once and forgotten', function () {
    const { base, checkpoints } = setup([sync('t', 0, 100, 1000)], [cp('g', 'source1.t', 0, 250, 1101)]);
    const logStarts = new Map();
    const first = run(base, { offsets: { g: [offset('t', 0, 40)] }, logStarts });
    assert.deepEqual([...first.needs.starts], [['source1.t', new Set([0])]]);
    assert.deepEqual([...first.needs.groups], ['g']);
    logStarts.set(logStartKey('source1.t', 0), 900n);
    const unsent = new UnsentCheckpoints(() => checkpoints);
    const second = run(base, { offsets: { g: [offset('t', 0, 40)] }, logStarts, unsent });
    assert.equal(second.needs.groups.size, 0);
    assert.deepEqual(checkpoints.get('g'), [cp('g', 'source1.t', 0, 40, 900)]);
    assert.equal(logStarts.size, 0, 'the log start used is read again for the next rewind');
    assert.equal(unsent.size, 1);
  });

  it('without logStarts (mm2 mode) a rewind below every sync asks for nothing', function () {
    const { base } = setup([sync('t', 0, 100, 1000)], [cp('g', 'source1.t', 0, 250, 1101)]);
    const r = run(base, { offsets: { g: [offset('t', 0, 40)] } });
    assert.equal(r.needs.groups.size, 0);
  });

  it('the retry list gives what a write takes as the store holds it now: a later cycle\'s value of a partition in the earlier one\'s place', function () {
    const { base, checkpoints } = setup([sync('t', 0, 10, 110), sync('t', 1, 10, 210)]);
    const unsent = new UnsentCheckpoints(() => checkpoints);
    run(base, { offsets: { g: [offset('t', 0, 10), offset('t', 1, 10)] }, unsent });
    base.store.apply(sync('t', 0, 20, 120));
    run(base, { offsets: { g: [offset('t', 0, 20)] }, unsent, listedAt: 1700000001000 });
    assert.deepEqual(unsent.list(), [
      { ...cp('g', 'source1.t', 0, 20, 120), timestamp: 1700000001000 },
      { ...cp('g', 'source1.t', 1, 10, 210), timestamp: 1700000000000 },
    ]);
  });

  it('fullCycleReadiness adds the groups that failed, from their last readiness, and sorts by group', function () {
    const summaries = new ListReuse();
    summaries.push({ group: 'b', verdict: 'ready', why: null, reread: 0, topic: 't', partition: 0, ready: 1, atRisk: 0, notCovered: 0, membersOnTarget: false });
    const r = fullCycleReadiness({
      summaries,
      failedGroups: [{ group: 'a' }],
      last: () => undefined,
      membersOf: () => 'unknown',
      now: 1000,
      thresholds: DEFAULT_READINESS,
      listedAt: 1000,
    });
    assert.deepEqual(r.summaries.map((s) => s.group), ['a', 'b']);
    assert.equal(r.summaries[0].membersOnTarget, 'unknown');
    assert.equal(r.summaries[0].verdict, 'not-covered', 'a group never listed is not covered');
    assert.equal(r.summaries[0].why, 'offsets-not-listed');
    assert.equal(r.summaries[1].verdict, 'ready');
  });

  it('latestOf leaves out groups without checkpoints; reusedLatest gives the previous map back when nothing changed', function () {
    const lists = { a: [cp('a', 't', 0, 1, 1)], b: [] };
    const get = (g) => lists[g];
    const latest = latestOf(['a', 'b', 'c'], get);
    assert.deepEqual([...latest.keys()], ['a']);
    assert.equal(reusedLatest(['a', 'b'], get, latest), latest);
    lists.b = [cp('b', 't', 0, 1, 1)];
    const next = reusedLatest(['a', 'b'], get, latest);
    assert.notEqual(next, latest);
    assert.deepEqual([...next.keys()], ['a', 'b']);
  });
});
