'use strict';
/** Failover readiness (core/readiness): the re-read bound from the syncs around a position, verdicts, the store's `around`, the translation cache's entries. */
const assert = require('node:assert/strict');
const { rereadBound, entryReadiness, groupReadiness, unlistedGroupReadiness, summarizeReadiness, DEFAULT_READINESS } = require('../../dist/core/readiness');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
const { CheckpointStore } = require('../../dist/core/checkpoint-store');
const { TranslationCache } = require('../../dist/core/translation-cache');
const { createReplicationPolicy } = require('../../dist/core/replication-policy');

const sync = (up, down, topic = 'a', partition = 0) => ({ topic, partition, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down) });
const th = { maxReread: 100, maxAgeMs: 60000 };
const policy = createReplicationPolicy(); // MM2's DefaultReplicationPolicy: s.a on the target
const topicFilter = { accept: (t) => t !== 'skipped' };

/** A loaded store with syncs every `every` upstream offsets from 0 to `to` (downstream = upstream + 7). */
function storeWith(translation, to, every = 100) {
  const store = new OffsetSyncStore({ keepHistoryOnLoad: false, translation });
  store.markLoaded();
  for (let u = 0; u <= to; u += every) store.apply(sync(u, u + 7));
  return store;
}

describe('readiness: the re-read bound', function () {
  it('is 0 on the sync, the records between the sync and the position otherwise, tightened by the next sync above', function () {
    assert.equal(rereadBound(100n, sync(100, 107)), 0n);
    assert.equal(rereadBound(150n, sync(100, 107)), 49n);
    // the next sync above: its copy is at 130, so at most 130 - 107 - 1 records between (records of (100, 150) were not all copied)
    assert.equal(rereadBound(150n, sync(100, 107), sync(180, 130)), 22n);
    // an "above" that is not above the position, or whose downstream is not past the sync's, says nothing
    assert.equal(rereadBound(150n, sync(100, 107), sync(150, 110)), 49n);
    assert.equal(rereadBound(150n, sync(100, 107), sync(180, 107)), 49n);
  });

  it("an entry's verdict: ready up to the threshold, at risk above; not covered without a checkpoint to resume from", function () {
    const e = (status, up, down, s) => ({ status, upstreamOffset: up === null ? null : BigInt(up), downstreamOffset: down === undefined ? undefined : BigInt(down), sync: s });
    assert.deepEqual(entryReadiness(e('emitted', 150, 108, sync(100, 107)), undefined, undefined, undefined, th), { verdict: 'ready', reread: 49, checkpointAt: null });
    assert.deepEqual(entryReadiness(e('emitted', 250, 108, sync(100, 107)), undefined, undefined, undefined, th), { verdict: 'at-risk', reread: 149, checkpointAt: null });
    assert.deepEqual(entryReadiness(e('emitted', 250, 108, sync(100, 107)), undefined, undefined, undefined, { ...th, maxReread: 149 }).verdict, 'ready');
    // a checkpoint ahead of the translation (the last one stands): that much less
    const cp = { group: 'g', topic: 's.a', partition: 0, upstreamOffset: 240n, downstreamOffset: 208n, metadata: '' };
    assert.deepEqual(entryReadiness(e('unchanged', 250, 108, sync(100, 107)), undefined, cp, 1234, th), { verdict: 'ready', reread: 49, checkpointAt: 1234 });
    for (const status of ['no-sync', 'store-loading', 'older-than-oldest-sync', 'topic-not-replicated', 'no-committed-offset', 'duplicate-remote-partition']) {
      assert.deepEqual(entryReadiness(e(status, 5, undefined, undefined), undefined, cp, 99, th), { verdict: 'not-covered', reread: null, checkpointAt: 99 }, status);
    }
  });

  it("a group's verdict is its worst applicable partition; an unlisted group is at risk once its last listing is too old", function () {
    const entry = (partition, status, verdict, reread) => ({ topic: 't', partition, status, verdict, reread, checkpointAt: null });
    const ready = groupReadiness('g', [entry(0, 'emitted', 'ready', 3), entry(1, 'unchanged', 'ready', 40), entry(2, 'topic-not-replicated', 'not-covered', null)]);
    assert.equal(ready.verdict, 'ready');
    assert.equal(ready.reread, 40);
    assert.equal(ready.partition, 1);
    assert.deepEqual([ready.ready, ready.atRisk, ready.notCovered], [2, 0, 1]);
    assert.ok(Object.isFrozen(ready));
    const risky = groupReadiness('g', [entry(0, 'emitted', 'ready', 3), entry(1, 'unchanged', 'at-risk', 400), entry(2, 'emitted', 'at-risk', 900)]);
    assert.deepEqual([risky.verdict, risky.why, risky.reread, risky.partition], ['at-risk', 'reread', 900, 2]);
    const uncovered = groupReadiness('g', [entry(0, 'emitted', 'at-risk', 900), entry(1, 'no-sync', 'not-covered', null)]);
    assert.deepEqual([uncovered.verdict, uncovered.why, uncovered.partition], ['not-covered', 'no-sync', 1]);
    const nothing = groupReadiness('g', [entry(0, 'no-committed-offset', 'not-covered', null)]);
    assert.deepEqual([nothing.verdict, nothing.why], ['not-covered', 'no-committed-offset']);

    const now = 1_000_000;
    assert.equal(unlistedGroupReadiness('g', ready, now - 60000, now, th).verdict, 'ready', 'within the age threshold its last readiness stands');
    const old = unlistedGroupReadiness('g', ready, now - 60001, now, th);
    assert.deepEqual([old.verdict, old.why, old.listedAt], ['at-risk', 'age', now - 60001]);
    assert.deepEqual([unlistedGroupReadiness('g', null, null, now, th).verdict, unlistedGroupReadiness('g', null, null, now, th).why], ['not-covered', 'offsets-not-listed']);

    const s = summarizeReadiness([ready, risky, { ...risky, group: 'h', reread: 950 }], th);
    assert.deepEqual([s.ready, s.atRisk, s.notCovered, s.worst && s.worst.group], [1, 2, 0, 'h'], 'the worst: the largest re-read');
    assert.equal(summarizeReadiness([risky, uncovered], th).worst, uncovered, 'not covered is worse than at risk');
    assert.equal(summarizeReadiness([ready], th).worst, null);
  });
});

for (const translation of /** @type {Array<'mm2' | 'precise'>} */ (['mm2', 'precise'])) {
  describe(`readiness: OffsetSyncStore.around (${translation} mode)`, function () {
    it('gives the sync below a position and the next one above it that the store holds', function () {
      const notLoaded = new OffsetSyncStore({ keepHistoryOnLoad: false, translation });
      assert.deepEqual(notLoaded.around('a', 0, 5n), {});
      const store = storeWith(translation, 1000);
      assert.deepEqual(store.around('b', 0, 5n), {}, 'no sync for the partition');
      // near the live end the slots hold every sync
      assert.deepEqual(store.around('a', 0, 950n), { below: sync(900, 907), above: sync(1000, 1007) });
      assert.deepEqual(store.around('a', 0, 1000n), { below: sync(1000, 1007), above: undefined });
      assert.deepEqual(store.around('a', 0, 5000n), { below: sync(1000, 1007), above: undefined });
      // below every sync the slots hold: the oldest is above
      const s = storeWith(translation, 100000, 100);
      const oldest = s.oldest('a', 0);
      if (oldest.upstreamOffset > 0n) assert.deepEqual(s.around('a', 0, oldest.upstreamOffset - 1n), { below: undefined, above: oldest });
      // anywhere: below is what translate uses, above the oldest slot above it
      for (const p of [150n, 11150n, 54321n, 99999n]) {
        const a = s.around('a', 0, p);
        const t = /** @type {any} */ (s.explain('a', 0, p));
        assert.equal(a.below, t.sync, `${p}`);
        const distinct = s.distinctSyncs('a', 0).filter((x) => x.upstreamOffset > p);
        assert.equal(a.above, distinct[distinct.length - 1], `${p}`);
      }
    });
  });
}

describe('readiness: around in precise mode with a group tracked', function () {
  it("gives the group's kept sync, older than what the slots still hold, and reads the load history while it is held", function () {
    const store = storeWith('precise', 1200);
    assert.equal(/** @type {any} */ (store.explain('a', 0, 1150n, 'g')).sync.upstreamOffset, 1100n); // tracked
    for (let u = 1300; u <= 100000; u += 100) store.apply(sync(u, u + 7));
    assert.ok(!store.distinctSyncs('a', 0).some((x) => x.upstreamOffset === 1100n), 'the slots lost 1100');
    const a = store.around('a', 0, 1150n, 'g');
    assert.equal(a.below.upstreamOffset, 1100n, 'the kept sync');
    assert.ok(a.above.upstreamOffset > 1150n);
    // with the load history held, the next sync above is the one just above
    const h = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: 'precise' });
    for (let u = 0; u <= 100000; u += 100) h.apply(sync(u, u + 7));
    h.markLoaded();
    assert.deepEqual(h.around('a', 0, 1150n), { below: sync(1100, 1107), above: sync(1200, 1207) });
    h.releaseLoadHistory();
    assert.notEqual(h.around('a', 0, 1150n).above.upstreamOffset, 1200n);
  });
});

describe('readiness: coverage entries of the translation cache', function () {
  /**
   * After a start with the checkpoints restored (the sync history kept during the load): syncs
   * every 100 records up to 100,000, then a group first translated at 11,151 (far behind) and one
   * exactly at the newest sync. Every record is copied (downstream = upstream + 7), so a failover
   * from checkpoint c re-reads exactly P + 7 - c.
   */
  function farBehind(translation) {
    const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation });
    for (let u = 0; u <= 100000; u += 100) store.apply(sync(u, u + 7));
    store.markLoaded();
    const checkpoints = new CheckpointStore();
    checkpoints.markLoaded(true);
    const cache = new TranslationCache();
    const readiness = { maxReread: 1000, maxAgeMs: 300000 };
    const input = (group, offset, listedAt) => ({ group, offsets: [{ topic: 'a', partition: 0, offset, metadata: '' }], topicFilter, store, checkpoints, policy, sourceAlias: 's', targetAlias: 't', listedAt, readiness });
    const slow = cache.translate(input('slow', 11151n, 200));
    const fast = cache.translate(input('fast', 100000n, 1000));
    return { slow, fast, position: 11151n, cp: checkpoints.getPartition('slow', 's.a', 0) };
  }

  it('mm2 translation: the slow group is at risk with the re-read of its checkpoint; one at a sync is ready', function () {
    const { slow, fast, position, cp } = farBehind('mm2');
    const [e] = slow.coverage;
    const expected = Number(position + 7n - cp.downstreamOffset);
    assert.ok(expected > 1000, `MM2's slots translate it from far below: ${expected}`);
    assert.deepEqual([e.verdict, e.reread], ['at-risk', expected]);
    assert.equal(e.checkpointAt, 200, 'the listing the checkpoint reflects');
    assert.deepEqual([slow.summary.verdict, slow.summary.why, slow.summary.reread], ['at-risk', 'reread', expected]);
    assert.deepEqual([fast.coverage.at(0).verdict, fast.coverage.at(0).reread, fast.coverage.at(0).checkpointAt], ['ready', 0, 1000]);
  });

  it('precise translation: the same group is ready, re-reading what lies between the sync below it and its position', function () {
    const { slow, fast, position, cp } = farBehind('precise');
    const [e] = slow.coverage;
    const expected = Number(position + 7n - cp.downstreamOffset);
    assert.equal(expected, 50, 'from the sync at 11,100');
    assert.deepEqual([e.verdict, e.reread, e.checkpointAt], ['ready', expected, 200]);
    assert.deepEqual([fast.coverage.at(0).verdict, fast.coverage.at(0).reread], ['ready', 0]);
  });

  for (const translation of /** @type {Array<'mm2' | 'precise'>} */ (['precise', 'mm2'])) {
    it(`a slow group that keeps moving far behind the newest sync (${translation}): ${translation === 'precise' ? 'ready, re-reading at most the gap between the syncs around it' : 'at risk, as MM2 translates it'}`, function () {
      const store = storeWith(translation, 0);
      const checkpoints = new CheckpointStore();
      checkpoints.markLoaded(true);
      const cache = new TranslationCache();
      const readiness = { maxReread: 1000, maxAgeMs: 300000 };
      // every cycle: 1,000 records mirrored (a sync every 100), the group 300 further (every record copied: downstream = upstream + 7)
      let up = 0;
      let pos = 21n;
      let worst = 0;
      for (let cycle = 0; cycle < 60; cycle++) {
        const r = cache.translate({ group: 'orders-analytics', offsets: [{ topic: 'a', partition: 0, offset: pos, metadata: '' }], topicFilter, store, checkpoints, policy, sourceAlias: 's', targetAlias: 't', listedAt: cycle, readiness });
        const cp = checkpoints.getPartition('orders-analytics', 's.a', 0);
        const actual = Number(pos + 7n - cp.downstreamOffset);
        assert.ok(r.coverage.at(0).reread >= actual, `cycle ${cycle}: the bound (${r.coverage.at(0).reread}) is never below the real re-read (${actual})`);
        if (translation === 'precise') {
          assert.ok(actual <= 100 + 1, `cycle ${cycle}: re-read ${actual}`);
          assert.ok(r.coverage.at(0).reread <= 100, `cycle ${cycle}: bound ${r.coverage.at(0).reread}, from the syncs around the position`);
          assert.equal(r.summary.verdict, 'ready');
        }
        worst = Math.max(worst, actual);
        for (let i = 0; i < 10; i++) {
          up += 100;
          store.apply(sync(up, up + 7));
        }
        pos += 300n;
      }
      if (translation === 'mm2') assert.ok(worst > 1000, `MM2's answer re-reads more and more (${worst})`);
    });
  }

  it('a reused group keeps its entries and readiness; its last listing stays readable when it is translated again', function () {
    const store = storeWith('precise', 11200);
    const checkpoints = new CheckpointStore();
    checkpoints.markLoaded(true);
    const cache = new TranslationCache();
    const offsets = [{ topic: 'a', partition: 0, offset: 5000n, metadata: '' }];
    const input = { group: 'idle', offsets, topicFilter, store, checkpoints, policy, sourceAlias: 's', targetAlias: 't', listedAt: 10 };
    const first = cache.translate(input);
    assert.equal(first.coverage.at(0).status, 'emitted');
    const second = cache.translate({ ...input, listedAt: 20 });
    assert.equal(second.reused, false, 'it emitted: translated again once');
    assert.equal(second.coverage.at(0).checkpointAt, 10, 'the checkpoint reflects the offsets listed first');
    const third = cache.translate({ ...input, listedAt: 30 });
    assert.equal(third.reused, true);
    assert.equal(third.coverage, second.coverage);
    assert.equal(third.summary, second.summary);
    assert.equal(cache.last('idle').listedAt, 30);
    cache.forget('idle');
    assert.equal(cache.last('idle').listedAt, 30, 'forgotten for translation, still known');
    assert.equal(cache.translate({ ...input, listedAt: 40 }).reused, false);
  });
});

describe('readiness: the checkpoint store keeps when the offsets of a checkpoint were listed', function () {
  it('restored ones from the record timestamp, new ones from the listing; unknown stays unknown', function () {
    const s = new CheckpointStore();
    const cp = (group, up) => ({ group, topic: 's.a', partition: 0, upstreamOffset: BigInt(up), downstreamOffset: BigInt(up), metadata: '' });
    s.loadRecord(cp('g', 1), 111);
    s.loadRecord(cp('g', 2), 222);
    s.loadRecord(cp('h', 1));
    s.markLoaded(true);
    assert.equal(s.listedAtOf(s.getPartition('g', 's.a', 0)), 222, 'the last record wins, with its timestamp');
    assert.equal(s.listedAtOf(s.getPartition('h', 's.a', 0)), undefined);
    s.update('h', [cp('h', 5)], 333);
    assert.equal(s.listedAtOf(s.getPartition('h', 's.a', 0)), 333);
    assert.deepEqual(s.getPartition('h', 's.a', 0), cp('h', 5), 'the checkpoint itself is unchanged in shape');
    const t = new CheckpointStore();
    t.loadRecord(cp('g', 1), -1);
    t.markLoaded(true);
    assert.equal(t.listedAtOf(t.getPartition('g', 's.a', 0)), undefined, 'a record without a timestamp (-1)');
  });

  it('the defaults are 1,000 records and 300 s', function () {
    assert.deepEqual({ ...DEFAULT_READINESS }, { maxReread: 1000, maxAgeMs: 300000 });
  });
});

describe('readiness: the settings of mm2-checkpoint', function () {
  const { readCheckpointSettings } = require('../../dist/nodes/mm2-checkpoint/mm2-checkpoint-settings');
  const none = () => undefined;
  it('empty takes the defaults; values and ${VAR} are read; a bad value is refused naming the field', function () {
    assert.deepEqual(readCheckpointSettings({}, none).values.readiness, { maxReread: 1000, maxAgeMs: 300000 });
    assert.deepEqual(readCheckpointSettings({ readyMaxReread: '0', readyMaxAgeSeconds: '${AGE}' }, (n) => (n === 'AGE' ? '60' : undefined)).values.readiness, { maxReread: 0, maxAgeMs: 60000 });
    for (const [field, value] of [['readyMaxReread', '-1'], ['readyMaxReread', '1.5'], ['readyMaxReread', 'many'], ['readyMaxAgeSeconds', '0'], ['readyMaxAgeSeconds', '9999999999']]) {
      const r = readCheckpointSettings({ [field]: value }, none);
      assert.equal(r.values, null, `${field}=${value}`);
      assert.match(r.problems.join('; '), new RegExp(`${field}.*"${value.replace('.', '\\.')}"`), `${field}=${value}: ${r.problems}`);
    }
    const missing = readCheckpointSettings({ readyMaxReread: '${NOPE}' }, none);
    assert.match(missing.problems.join('; '), /readyMaxReread.*NOPE is not set/);
  });
});

describe('readiness: the CoverageMessage entry and payload', function () {
  const { coveragePayload } = require('../../dist/nodes/shared/contracts');
  it('each entry says its readiness, re-read, checkpoint time and members; the payload counts groups per verdict', function () {
    const store = storeWith('precise', 1000);
    const checkpoints = new CheckpointStore();
    checkpoints.markLoaded(true);
    const cache = new TranslationCache();
    const base = { topicFilter, store, checkpoints, policy, sourceAlias: 's', targetAlias: 't', listedAt: 777, readiness: th };
    const a = cache.translate({ ...base, group: 'a', offsets: [{ topic: 'a', partition: 0, offset: 950n, metadata: '' }, { topic: 'skipped', partition: 0, offset: 5n, metadata: '' }] });
    const b = cache.translate({ ...base, group: 'b', offsets: [{ topic: 'b', partition: 0, offset: 5n, metadata: '' }] });
    const readiness = summarizeReadiness([a.summary, b.summary], th);
    const r = { cycle: 3, full: true, groups: ['a', 'b'], written: [], coverage: [...a.coverage, ...b.coverage], failedGroups: [], latest: new Map(), startedAt: 0, durationMs: 1, syncsLoaded: true, readiness };
    const p = coveragePayload(r);
    assert.deepEqual(p.entries.map((e) => [e.group, e.topic, e.status, e.upstreamOffset, e.downstreamOffset, e.readiness, e.reread, e.checkpointAt, e.membersOnTarget]), [
      ['a', 'a', 'emitted', '950', '908', 'ready', 49, 777, 'unknown'],
      ['a', 'skipped', 'topic-not-replicated', '5', undefined, 'not-covered', null, null, 'unknown'],
      ['b', 'b', 'no-sync', '5', undefined, 'not-covered', null, null, 'unknown'],
    ]);
    assert.ok(p.entries.every((e) => Object.isFrozen(e)));
    // made when read (nothing kept per entry between cycles), then an ordinary property of the payload
    assert.equal(p.entries, p.entries, 'read once, then kept by the message');
    assert.ok(Object.getOwnPropertyDescriptor(p, 'entries').writable, 'an ordinary property once read');
    assert.notEqual(coveragePayload(r).entries, p.entries, 'each message makes its own');
    assert.deepEqual(coveragePayload(r).entries, p.entries, 'the same values');
    assert.ok(Object.isFrozen(p.entries));
    assert.throws(() => p.entries.sort(), TypeError, 'a flow copies it before sorting');
    const unread = coveragePayload(r);
    unread.entries = [];
    assert.deepEqual(unread.entries, [], 'a flow may replace the entries before reading them');
    assert.deepEqual(Object.keys(unread), Object.keys(p), 'the same keys, in the same order');
    const members = coveragePayload({ ...r, membersOnTarget: new Map([['a', false]]) });
    assert.notEqual(members.entries, p.entries, 'other members: another array');
    assert.deepEqual(members.entries.map((e) => e.membersOnTarget), [false, false, 'unknown']);
    assert.deepEqual({ ...p.readiness, groups: p.readiness.groups.map((g) => [g.group, g.verdict, g.why, g.reread]) }, {
      ready: 1, atRisk: 0, notCovered: 1, thresholds: { maxReread: 100, maxAgeSeconds: 60 }, listedAt: null,
      groups: [['a', 'ready', null, 49], ['b', 'not-covered', 'no-sync', null]],
      worst: b.summary,
      withMembersOnTarget: 0,
      membersUnknown: 2,
    });
    // it survives JSON (a debug sidebar, a file)
    assert.equal(JSON.parse(JSON.stringify(p)).entries[0].reread, 49);
  });

  it("membersOnTarget is applied per group at payload time: the cached entry of a reused translation follows the target's listing", function () {
    const { withMembersOnTarget, membersInState } = require('../../dist/core/readiness');
    const { MEMBERS_ON_TARGET_REASON } = require('../../dist/nodes/shared/contracts');
    for (const s of ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Assigning', 'Reconciling']) assert.equal(membersInState(s), true, s);
    for (const s of ['Empty', 'Dead', undefined]) assert.equal(membersInState(s), false, String(s));
    const store = storeWith('precise', 1000);
    const checkpoints = new CheckpointStore();
    checkpoints.markLoaded(true);
    const cache = new TranslationCache();
    const base = { topicFilter, store, checkpoints, policy, sourceAlias: 's', targetAlias: 't', listedAt: 777, readiness: th };
    const offsetsA = [{ topic: 'a', partition: 0, offset: 950n, metadata: '' }];
    const offsetsB = [{ topic: 'b', partition: 0, offset: 5n, metadata: '' }];
    const translate = () => [cache.translate({ ...base, group: 'a', offsets: offsetsA }), cache.translate({ ...base, group: 'b', offsets: offsetsB })];
    const cycleWith = (members) => {
      const [a, b] = translate();
      const m = new Map(Object.entries(members));
      const groups = [a.summary, b.summary].map((g) => withMembersOnTarget(g, m.get(g.group) ?? 'unknown'));
      return { first: a, r: { cycle: 1, full: true, groups: ['a', 'b'], written: [], coverage: [...a.coverage, ...b.coverage], failedGroups: [], latest: new Map(), startedAt: 0, durationMs: 1, syncsLoaded: true, readiness: summarizeReadiness(groups, th), membersOnTarget: m } };
    };
    translate(); // the first translation emits; from the next on, nothing moves and the entries are reused
    const one = cycleWith({ a: true, b: false });
    const p1 = coveragePayload(one.r);
    assert.deepEqual(p1.entries.map((e) => [e.group, e.membersOnTarget]), [['a', true], ['b', false]]);
    assert.ok(p1.entries[0].reason.endsWith(MEMBERS_ON_TARGET_REASON), p1.entries[0].reason);
    assert.ok(!p1.entries[1].reason.includes(MEMBERS_ON_TARGET_REASON));
    assert.deepEqual([p1.readiness.withMembersOnTarget, p1.readiness.membersUnknown], [1, 0]);
    assert.deepEqual(p1.readiness.groups.map((g) => [g.group, g.membersOnTarget, g.verdict]), [['a', true, 'ready'], ['b', false, 'not-covered']]);
    // nothing moved: the same translation (and entries) is reused; the consumer on the target left
    const two = cycleWith({ a: false, b: false });
    assert.equal(two.first.coverage, one.first.coverage, 'the translation was reused');
    const p2 = coveragePayload(two.r);
    assert.deepEqual(p2.entries.map((e) => [e.group, e.membersOnTarget]), [['a', false], ['b', false]], 'made for this message, with its members');
    assert.ok(!p2.entries[0].reason.includes(MEMBERS_ON_TARGET_REASON));
    assert.equal(p2.entries[0].readiness, 'ready', 'the verdict does not change with the members');
    assert.equal(p2.readiness.groups[0].membersOnTarget, false);
    assert.equal(p2.readiness.withMembersOnTarget, 0);
    // each (entry, value) pair is converted once: back to true gives the first cycle's JSON
    const p3 = coveragePayload(cycleWith({ a: true, b: false }).r);
    assert.deepEqual(p3.entries[0], p1.entries[0]);
    assert.deepEqual(coveragePayload(two.r).entries[0], p2.entries[0]);
    // no listing: unknown
    const p4 = coveragePayload({ ...two.r, membersOnTarget: undefined });
    assert.deepEqual(p4.entries.map((e) => e.membersOnTarget), ['unknown', 'unknown']);
  });
});

describe('readiness: a group readiness per members-on-target value', function () {
  it('each (readiness, value) pair is made once, frozen; its own value gives it back', function () {
    const { withMembersOnTarget, groupReadiness } = require('../../dist/core/readiness');
    const g = groupReadiness('g', [{ topic: 't', partition: 0, status: 'emitted', verdict: 'ready', reread: 0, checkpointAt: 1 }]);
    assert.equal(withMembersOnTarget(g, 'unknown'), g);
    const yes = withMembersOnTarget(g, true);
    const no = withMembersOnTarget(g, false);
    assert.deepEqual([yes.membersOnTarget, no.membersOnTarget, g.membersOnTarget], [true, false, 'unknown']);
    assert.equal(withMembersOnTarget(g, true), yes);
    assert.equal(withMembersOnTarget(g, false), no);
    assert.ok(Object.isFrozen(yes) && Object.isFrozen(no));
    assert.deepEqual({ ...yes, membersOnTarget: 'unknown' }, { ...g });
  });
});
