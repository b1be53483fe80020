'use strict';
/**
 * GroupOffsetSyncer with a reader that answers per OffsetFetch batch (issue 24 item 4): a full run
 * settles each group as its batch answers (up to date: let go at once; an event waiting for it:
 * handed over with the read, written by the event's run without reading again), never backwards.
 */
const assert = require('node:assert/strict');
const { GroupOffsetSyncer } = require('../../dist/engines/group-offset-syncer');
const { HandedReads, HANDED_READ_MAX_AGE_MS } = require('../../dist/engines/held-target-reads');
const { createGroupFilter } = require('../../dist/core/filters');

/**
 * A target in memory whose reader answers each group as its own batch (told to `onBatch`); a
 * group in `gates` answers only once its gate is opened (`open(g)`), for the reads made while it is set.
 * With `each`, the reader hands each answer over (fetchEach, as kafka/group-client's GroupOffsetFetcher) and fetchMany is not there.
 * @param {Record<string, number>} committed
 * @param {boolean} [each]
 */
function batchedTarget(committed, each = false) {
  const calls = { fetchMany: /** @type {string[][]} */ ([]), commits: /** @type {{ group: string, offset: number }[]} */ ([]) };
  /** @type {Map<string, { promise: Promise<void>, open: () => void }>} */
  const gates = new Map();
  const target = { committed: { ...committed } };
  const offsetsOf = (g) => (target.committed[g] === undefined ? [] : [{ topic: 't', partition: 0, offset: BigInt(target.committed[g]), metadata: '' }]);
  const fetcher = {
    listGroupStates: async () => new Map(Object.keys(target.committed).map((g) => [g, { state: 'Empty', protocolType: 'consumer' }])),
    /** @param {string[]} groups @param {(m: Map<string, any>) => void} [onBatch] */
    fetchMany: async (groups, onBatch) => {
      calls.fetchMany.push([...groups]);
      const offsets = new Map();
      await Promise.all(
        groups.map(async (g) => {
          const gate = gates.get(g);
          if (gate) await gate.promise;
          const list = offsetsOf(g); // what the target holds as this batch answers
          offsets.set(g, list);
          onBatch?.(new Map([[g, list]]));
        }),
      );
      return { offsets, failed: new Map() };
    },
  };
  if (each) {
    const many = fetcher.fetchMany;
    /** @param {string[]} groups @param {(m: Map<string, any>) => void} hand */
    fetcher.fetchEach = async (groups, hand) => ({ failed: (await many(groups, hand)).failed });
    fetcher.fetchMany = async () => {
      throw new Error('fetchMany: not used when the reader hands answers over');
    };
  }
  const admin = {
    fetchTopicOffsets: async () => [{ partition: 0, offset: '100', high: '100', low: '0' }],
    listTopics: async () => ['t'],
  };
  return {
    calls,
    target,
    gate(g) {
      /** @type {() => void} */
      let open = () => undefined;
      const promise = new Promise((r) => (open = () => r(undefined)));
      gates.set(g, { promise, open });
    },
    open(g) {
      gates.get(g)?.open();
      gates.delete(g);
    },
    connection: {
      admin: async () => /** @type {any} */ (admin),
      committer: () => ({
        commitMany: async (list) => {
          const out = new Map();
          for (const { group, offsets } of list) {
            const o = Number(offsets[0].offset);
            calls.commits.push({ group, offset: o });
            target.committed[group] = o;
            out.set(group, { ok: true });
          }
          return out;
        },
      }),
      offsetFetcher: () => fetcher,
      reportOk: () => undefined,
    },
  };
}

const cp = (downstreamOffset) => [{ topic: 't', partition: 0, downstreamOffset: String(downstreamOffset) }];
const until = async (cond, what, ms = 10000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
};
const line = (w) => `${w.group} ${w.offsets[0].offset}`;

describe('GroupOffsetSyncer: a full run settles each group as its read batch answers', function () {
  for (const each of [false, true]) {
    it('a group its batch finds up to date is let go at once: an event for it is written while the full run still waits for another batch' + (each ? ' (a reader handing each answer over: fetchEach)' : ''), async function () {
      const t = batchedTarget({ a: 5, b: 6 }, each);
      const s = new GroupOffsetSyncer({ connection: t.connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0 });
      s.applyCheckpointsJson({ a: cp(5), b: cp(6) }); // nothing known of the target: the full run reads both
      t.gate('b');
      const full = s.sync();
      await until(() => t.calls.fetchMany.length === 1 && !/** @type {any} */ (s).held.has('a') && /** @type {any} */ (s).held.has('b'), 'a let go as its batch answered, b still held');
      s.applyCheckpointsJson({ a: cp(7) });
      const r = await s.syncGroups(['a']);
      assert.deepEqual(r.written.map(line), ['a 7'], 'written while the full run still waits for b');
      t.open('b');
      const f = await full;
      assert.deepEqual(f.written, []);
      assert.deepEqual(f.skipped.map((x) => `${x.group} ${x.code}`), ['a up-to-date', 'b up-to-date']);
      assert.deepEqual(t.calls.commits, [{ group: 'a', offset: 7 }]);
      await s.close();
    });

    it('an event waiting for a group the full run reads is handed that read: written as the batch answers, without reading again, while the run waits for its other batches' + (each ? ' (a reader handing each answer over: fetchEach)' : ''), async function () {
      const t = batchedTarget({ a: 1, b: 2 }, each);
      /** @type {Promise<any>[]} */
      const deferred = [];
      const s = new GroupOffsetSyncer({ connection: t.connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, onDeferredRun: (run) => deferred.push(run) });
      s.applyCheckpointsJson({ a: cp(5), b: cp(6) });
      t.gate('a');
      t.gate('b');
      const full = s.sync();
      await until(() => t.calls.fetchMany.length === 1, 'the full run reading');
      // the event for b comes while the full run holds it: its run waits
      s.applyCheckpointsJson({ b: cp(9) });
      const first = await s.syncGroups(['b']);
      assert.deepEqual(first.written, [], 'b is the full run\'s until it lets it go');
      t.open('b'); // b's batch answers (2): the full run hands it to the event
      await until(() => deferred.length === 1, 'the event\'s run after the hand-over');
      const ev = await deferred[0];
      assert.deepEqual(ev.written.map(line), ['b 9'], 'written against the full run\'s read, with the checkpoint of the event');
      assert.deepEqual(t.calls.fetchMany, [['a', 'b']], 'the event did not read b again');
      assert.equal(/** @type {any} */ (s).held.has('a'), true, 'the full run still waits for a');
      t.open('a');
      const f = await full;
      assert.deepEqual(f.written.map(line), ['a 5']);
      assert.equal(f.skipped.some((x) => x.group === 'b') || f.written.some((w) => w.group === 'b'), false, 'b left to the event\'s run');
      assert.deepEqual(t.calls.commits, [{ group: 'b', offset: 9 }, { group: 'a', offset: 5 }]);
      // the next full run judges b like any other group
      const next = await s.sync();
      assert.deepEqual(next.skipped.map((x) => `${x.group} ${x.code}`), ['a up-to-date', 'b up-to-date']);
      await s.close();
    });

    it('never backwards with a handed read: the target ahead of the checkpoint is left as it is' + (each ? ' (a reader handing each answer over: fetchEach)' : ''), async function () {
      const t = batchedTarget({ b: 50 }, each);
      /** @type {Promise<any>[]} */
      const deferred = [];
      const s = new GroupOffsetSyncer({ connection: t.connection, groupFilter: createGroupFilter({}), minWriteIntervalMs: 0, onDeferredRun: (run) => deferred.push(run) });
      s.applyCheckpointsJson({ b: cp(30) });
      t.gate('b');
      const full = s.sync();
      await until(() => t.calls.fetchMany.length === 1, 'the full run reading');
      s.applyCheckpointsJson({ b: cp(40) }); // still behind what the target holds (50)
      await s.syncGroups(['b']);
      t.open('b');
      await until(() => deferred.length === 1, 'the event\'s run after the hand-over');
      const ev = await deferred[0];
      assert.deepEqual(ev.written, []);
      assert.deepEqual(ev.skipped.map((x) => `${x.group} ${x.code}`), ['b up-to-date']);
      await full;
      assert.deepEqual(t.calls.commits, [], 'nothing written below 50');
      assert.equal(t.target.committed.b, 50);
      assert.deepEqual(t.calls.fetchMany, [['b']]);
      await s.close();
    });
  }

  it('HandedReads: a read is taken once, and only while fresh', function () {
    const h = new HandedReads();
    const offsets = [{ topic: 't', partition: 0, offset: 5n, metadata: '' }];
    h.hand('a', offsets, 1000);
    h.hand('b', offsets, 1000);
    h.hand('c', offsets, 1000);
    assert.deepEqual([...h.take(['a'], 1000 + HANDED_READ_MAX_AGE_MS).keys()], ['a']);
    assert.deepEqual([...h.take(['a'], 1000).keys()], [], 'taken once');
    assert.deepEqual([...h.take(['b'], 1001 + HANDED_READ_MAX_AGE_MS).keys()], [], 'too old: read again');
    h.drop('c'); // a full run took c: it reads afresh
    assert.deepEqual([...h.take(['b', 'c'], 1000).keys()], []);
  });
});

describe('group-offset-syncer-types: the run helpers', function () {
  const { selectGroups, earliestDue, readTargetGroups } = require('../../dist/engines/group-offset-syncer-types');

  it('selectGroups compacts the array in place, sorted; earliestDue is the earliest re-read of the groups up to date', function () {
    const all = ['c', 'x', 'a', 'b'];
    const out = selectGroups(all, (g) => g !== 'x');
    assert.equal(out, all, 'in place: no copy');
    assert.deepEqual(out, ['a', 'b', 'c']);
    /** @type {Record<string, number>} */
    const due = { a: 30, b: 10, c: 20 };
    assert.equal(earliestDue([{ group: 'a', code: 'up-to-date' }, { group: 'b', code: 'group-active' }, { group: 'c', code: 'up-to-date' }], (g) => due[g]), 20);
    assert.equal(earliestDue([{ group: 'b', code: 'group-active' }], (g) => due[g]), Infinity);
  });

  it('readTargetGroups with a reader handing answers over keeps only the groups not settled as they answered; without fetchEach it is fetchMany', async function () {
    const list = (/** @type {number} */ o) => [{ topic: 't', partition: 0, offset: BigInt(o), metadata: '' }];
    const settled = new Set();
    /** @type {string[][]} */
    const seen = [];
    /** @type {any} */
    const each = {
      fetchMany: async () => assert.fail('not used'),
      fetchEach: async (/** @type {string[]} */ groups, /** @type {(m: Map<string, any>) => void} */ hand) => {
        hand(new Map([['a', list(1)], ['b', list(2)]]));
        hand(new Map([['c', list(3)]]));
        return { failed: new Map([['d', 'refused']]) };
      },
    };
    const r = await readTargetGroups(each, ['a', 'b', 'c', 'd'], settled, (/** @type {Map<string, any>} */ answer) => {
      seen.push([...answer.keys()]);
      if (answer.has('a')) settled.add('a');
    });
    assert.deepEqual(seen, [['a', 'b'], ['c']]);
    assert.deepEqual([...r.offsets.keys()], ['b', 'c'], 'a settled as its batch answered: not kept');
    assert.deepEqual([...r.failed], [['d', 'refused']]);
    /** @type {any} */
    const many = { fetchMany: async (/** @type {string[]} */ groups) => ({ offsets: new Map(groups.map((g) => [g, list(0)])), failed: new Map() }) };
    assert.deepEqual([...(await readTargetGroups(many, ['a'], new Set())).offsets.keys()], ['a']);
    assert.equal((await readTargetGroups(each, [], settled)).offsets.size, 0, 'nothing asked: nothing read');
  });
});
