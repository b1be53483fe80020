'use strict';
/** The readiness summaries the instances of a shared flow publish, and every group's readiness merged from them (issue 25, item 5). */
const assert = require('node:assert/strict');
const {
  encodeSummary, decodeSummary, SummaryBoard, mergeReadiness, uncoveredReadiness, shareSummaryTopic, instanceName, summaryKey, NO_LIVE_INSTANCE, SUMMARY_CHUNK_GROUPS,
} = require('../../dist/core/share-summaries');
const { groupReadiness, summarizeReadiness, DEFAULT_READINESS } = require('../../dist/core/readiness');
const { coverageSharing } = require('../../dist/nodes/shared/share-coverage');
const { coveragePayload } = require('../../dist/nodes/shared/contracts');
const { ShareBoard } = require('../../dist/engines/share-board');

const NOW = 1_800_000_000_000;
/** A group's readiness: one partition with this verdict. @type {(group: string, verdict?: any, reread?: number) => any} */
const rd = (group, verdict = 'ready', reread = 3) =>
  groupReadiness(group, [{ topic: 'orders', partition: 0, status: verdict === 'not-covered' ? 'no-sync' : 'emitted', verdict, reread: verdict === 'not-covered' ? null : reread, checkpointAt: NOW }]);
const header = (instance, memberId, over = {}) => ({ instance, memberId, generation: 4, publishedAt: NOW, validForMs: 30000, ...over });
/** A board that read these records. */
function boardOf(...records) {
  const b = new SummaryBoard();
  for (const r of records.flat()) b.apply(r.key, r.value);
  return b;
}

describe('share summaries (core/share-summaries)', function () {
  it('names: the topic in MM2 internal-topic style on the target, the instance as host:pid, a key per chunk', function () {
    assert.equal(shareSummaryTopic('source'), 'mm2-readiness.source.internal');
    assert.equal(instanceName('node-red-1', 4242), 'node-red-1:4242');
    assert.equal(summaryKey('node-red-1:4242', 3), 'node-red-1:4242#3');
  });

  it('encodes a summary in chunks of at most SUMMARY_CHUNK_GROUPS groups, never the whole state as one record; decodes it back', function () {
    const groups = Array.from({ length: 10_000 }, (_, i) => rd(`g-${String(i).padStart(5, '0')}`, i % 7 === 0 ? 'at-risk' : 'ready', i));
    const records = encodeSummary(header('a:1', 'm-a'), groups);
    assert.equal(SUMMARY_CHUNK_GROUPS, 500);
    assert.equal(records.length, 20);
    assert.deepEqual(records.map((r) => r.key).slice(0, 2), ['a:1#0', 'a:1#1']);
    const largest = Math.max(...records.map((r) => r.value.length));
    assert.ok(largest < 100_000, `a record of ${largest} bytes`);
    const back = records.map((r) => decodeSummary(r.value));
    assert.deepEqual(back.map((c) => [c.chunk, c.chunks, c.groups.length]).slice(-1), [[19, 20, 500]]);
    assert.deepEqual(back[0].groups[0], { ...groups[0], coveredBy: 'a:1' });
    assert.deepEqual(back[19].groups[499], { ...groups[9999], coveredBy: 'a:1' });
    // an instance covering nothing says so: one empty chunk
    assert.deepEqual(encodeSummary(header('a:1', 'm-a'), []).map((r) => [r.key, decodeSummary(r.value).groups.length]), [['a:1#0', 0]]);
    // not ours, another version: unreadable
    assert.equal(decodeSummary(Buffer.from('{"v":2,"instance":"x"}')), null);
    assert.equal(decodeSummary(Buffer.from('not json')), null);
    assert.throws(() => encodeSummary(header('', 'm'), []), /instance: empty/);
  });

  it('a board keeps the newest record of a key; a tombstone removes it; unreadable records are counted', function () {
    const b = new SummaryBoard();
    const [older] = encodeSummary(header('b:2', 'm-b', { publishedAt: NOW - 5000 }), [rd('orders')]);
    const [newer] = encodeSummary(header('b:2', 'm-b'), [rd('orders', 'at-risk', 5000)]);
    b.apply(newer.key, newer.value);
    b.apply(older.key, older.value); // a send retried after a later one
    assert.equal(b.covered('a:1', null, NOW).get('orders').readiness.verdict, 'at-risk');
    b.apply(newer.key, null);
    assert.equal(b.size, 0);
    b.apply('x#0', Buffer.from('{}'));
    assert.equal(b.unreadable, 1);
  });

  it('"no live instance": a summary counts only while its member is in the current generation and it is younger than its bound', function () {
    const board = boardOf(encodeSummary(header('b:2', 'm-b'), [rd('billing')]), encodeSummary(header('c:3', 'm-c', { publishedAt: NOW - 40_000 }), [rd('ledger')]));
    // c published 40 s ago, valid 30 s: not live; b is live while m-b is a member
    assert.deepEqual([...board.covered('a:1', new Set(['m-a', 'm-b', 'm-c']), NOW).keys()], ['billing']);
    // b left the generation (killed, and the group rebalanced): not live either
    assert.deepEqual([...board.covered('a:1', new Set(['m-a']), NOW).keys()], []);
    // the members unknown: the age alone decides
    assert.deepEqual([...board.covered('a:1', null, NOW).keys()], ['billing']);
    // this instance's own summary is never read back as another's
    assert.deepEqual([...board.covered('b:2', null, NOW).keys()], []);
    assert.deepEqual(board.instances(new Set(['m-a', 'm-b']), NOW).map((i) => [i.instance, i.groups, i.live]), [['b:2', 1, true], ['c:3', 1, false]]);
  });

  it('summaries of instances gone without a tombstone (kill -9) are abandoned an hour past their validity, and only those', function () {
    const board = boardOf(
      encodeSummary(header('dead:1', 'm-dead', { publishedAt: NOW - 30_000 - 3_600_001 }), [rd('x')]),
      encodeSummary(header('recent:2', 'm-recent', { publishedAt: NOW - 40_000 }), [rd('y')]),
      encodeSummary(header('member:3', 'm-member', { publishedAt: NOW - 30_000 - 3_600_001 }), [rd('z')]),
    );
    assert.deepEqual(board.abandoned('a:1', new Set(['m-a', 'm-member']), NOW), ['dead:1#0']);
    assert.deepEqual(board.abandoned('dead:1', new Set(['m-a']), NOW), ['member:3#0'], 'never its own');
  });

  it('a group in two live summaries (its share just moved): the newer publication covers it', function () {
    const board = boardOf(encodeSummary(header('b:2', 'm-b', { publishedAt: NOW - 2000 }), [rd('orders', 'ready', 1)]), encodeSummary(header('c:3', 'm-c', { publishedAt: NOW - 1000 }), [rd('orders', 'ready', 2)]));
    assert.equal(board.covered('a:1', null, NOW).get('orders').instance, 'c:3');
  });

  it('merges: own groups from its state, the others from live summaries, the rest not covered (no-live-instance), counted, in group order', function () {
    const own = summarizeReadiness([rd('analytics'), rd('fulfilment', 'at-risk', 5000)], DEFAULT_READINESS, NOW);
    const board = boardOf(encodeSummary(header('b:2', 'm-b'), [rd('billing'), rd('ledger', 'not-covered')]), encodeSummary(header('c:3', 'm-c'), [rd('payments')]));
    const merged = mergeReadiness({ own, self: 'a:1', all: ['analytics', 'billing', 'fulfilment', 'ledger', 'payments', 'shipping'], elsewhere: board.covered('a:1', new Set(['m-a', 'm-b']), NOW) });
    assert.deepEqual(merged.groups.map((g) => [g.group, g.verdict, g.why, g.coveredBy]), [
      ['analytics', 'ready', null, 'a:1'],
      ['billing', 'ready', null, 'b:2'],
      ['fulfilment', 'at-risk', 'reread', 'a:1'],
      ['ledger', 'not-covered', 'no-sync', 'b:2'],
      // c:3 is no member of the generation: its groups are nobody's
      ['payments', 'not-covered', NO_LIVE_INSTANCE, null],
      // discovered, covered by no one
      ['shipping', 'not-covered', NO_LIVE_INSTANCE, null],
    ]);
    assert.deepEqual([merged.ready, merged.atRisk, merged.notCovered], [2, 1, 3]);
    assert.equal(merged.worst.verdict, 'not-covered');
    assert.equal(merged.listedAt, NOW);
    assert.deepEqual(uncoveredReadiness('x'), { group: 'x', verdict: 'not-covered', why: NO_LIVE_INSTANCE, reread: null, topic: null, partition: null, ready: 0, atRisk: 0, notCovered: 0, membersOnTarget: 'unknown', coveredBy: null });
  });

  it('merges: a group this instance just took (not translated yet) is its own, its offsets not listed yet; the flow unknown: the groups covered somewhere', function () {
    const own = summarizeReadiness([rd('analytics')], DEFAULT_READINESS, NOW);
    const elsewhere = boardOf(encodeSummary(header('b:2', 'm-b'), [rd('billing')])).covered('a:1', null, NOW);
    const took = mergeReadiness({ own, self: 'a:1', all: ['analytics', 'billing', 'ledger'], elsewhere, owns: (g) => g !== 'billing' });
    assert.deepEqual(took.groups.map((g) => [g.group, g.why, g.coveredBy]), [['analytics', null, 'a:1'], ['billing', null, 'b:2'], ['ledger', 'offsets-not-listed', 'a:1']]);
    const unknown = mergeReadiness({ own, self: 'a:1', all: null, elsewhere });
    assert.deepEqual(unknown.groups.map((g) => g.group), ['analytics', 'billing']);
  });
});

describe('share board and the coverage output (engines/share-board, nodes/shared/share-coverage)', function () {
  /** Shares as engines/replication-shares exposes them; `set` changes the view. */
  function fakeShares(view) {
    const listeners = new Set();
    return {
      current: view,
      state: { memberId: 'm-a', generationId: 3, memberIds: ['m-a', 'm-b'] },
      owns: () => false,
      subscribe: (l) => (listeners.add(l), () => listeners.delete(l)),
      set(v) {
        this.current = v;
        for (const l of listeners) l(v);
      },
    };
  }
  /** A target connection whose producer records what is sent. */
  function fakeTarget(sent) {
    return {
      kafka: { producer: () => ({ connect: async () => undefined, disconnect: async () => undefined, send: async (r) => sent.push(r) }) },
      settings: {},
      admin: async () => {
        throw new Error('no broker in a unit test');
      },
    };
  }
  const cycleOf = (groups) => {
    const coverage = groups.map((g) => ({ group: g, topic: 'orders', partition: 0, remoteTopic: 'source.orders', upstreamOffset: 5n, downstreamOffset: 5n, status: 'emitted', reason: 'r', verdict: 'ready', reread: 0, checkpointAt: NOW }));
    return /** @type {any} */ ({ cycle: 1, full: true, groups, coverage, failedGroups: [], durationMs: 1, readiness: summarizeReadiness(groups.map((g) => rd(g)), DEFAULT_READINESS, NOW) });
  };

  it('the reader failing is said, and it is started again at the next publication', async function () {
    const problems = [];
    const sent = [];
    const shares = fakeShares({ kind: 'sharing', partitions: 25, partitionCount: 50, instances: 2 });
    const board = new ShareBoard({ target: /** @type {any} */ (fakeTarget(sent)), topic: 't', shares, validForMs: 30000, instance: 'a:1', ensureTopic: async () => undefined, now: () => NOW, onProblem: (p) => problems.push(p) });
    const r = cycleOf(['analytics']);
    board.publish(r.readiness);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(problems.some((p) => p && /reading t: .*no broker/.test(p)), String(problems));
    const failures = problems.filter((p) => p && /reading t/.test(p)).length;
    board.publish(cycleOf(['analytics', 'billing']).readiness); // a changed summary: published again
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(problems.filter((p) => p && /reading t/.test(p)).length, failures + 1, 'tried again');
    // the publications went out all the same
    assert.equal(sent.length, 2);
    await board.stop();
  });

  it('one instance alone: nothing published, no topic, the coverage output exactly as before', async function () {
    const sent = [];
    let ensured = 0;
    const shares = fakeShares({ kind: 'sharing', partitions: 50, partitionCount: 50, instances: 1 });
    const board = new ShareBoard({ target: /** @type {any} */ (fakeTarget(sent)), topic: 't', shares, validForMs: 30000, instance: 'a:1', ensureTopic: async () => ensured++, now: () => NOW });
    const sharing = coverageSharing(board, () => ['analytics']);
    const r = cycleOf(['analytics']);
    sharing.published(r);
    const payload = coveragePayload(r);
    sharing.decorate(payload, r);
    assert.deepEqual(JSON.parse(JSON.stringify(payload)), JSON.parse(JSON.stringify(coveragePayload(r))));
    assert.equal(board.isActive, false);
    await board.stop();
    assert.deepEqual([sent.length, ensured], [0, 0]);
  });

  it('shared with another instance: publishes its groups, names itself in every entry and group, shows the groups of the flow; tombstones on stop', async function () {
    const sent = [];
    const shares = fakeShares({ kind: 'sharing', partitions: 50, partitionCount: 50, instances: 1 });
    const problems = [];
    // the topic as the reader finds it: b's summary
    let loaded = false;
    const createReader = (_admin, o) => ({
      get isLoaded() {
        return loaded;
      },
      async start() {
        for (const rec of encodeSummary(header('b:2', 'm-b'), [rd('billing')])) o.onRecord({ key: Buffer.from(rec.key), value: rec.value, offset: 0n, timestamp: NOW });
        loaded = true;
      },
      async stop() {},
    });
    const target = { ...fakeTarget(sent), admin: async () => ({}) };
    const board = new ShareBoard({ target: /** @type {any} */ (target), topic: 't', shares, validForMs: 30000, instance: 'a:1', ensureTopic: async () => undefined, now: () => NOW, onProblem: (p) => problems.push(p), createReader: /** @type {any} */ (createReader) });
    const sharing = coverageSharing(board, () => ['analytics', 'billing', 'ledger']);
    const r = cycleOf(['analytics']);
    sharing.published(r); // kept: published once shared
    shares.set({ kind: 'sharing', partitions: 25, partitionCount: 50, instances: 2 });
    assert.equal(board.isActive, true);
    // before the summaries were read: only what is known (no group said to be covered by no one)
    const early = coveragePayload(r);
    sharing.decorate(early, r);
    assert.deepEqual(early.readiness.groups.map((g) => [g.group, g.coveredBy]), [['analytics', 'a:1']]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(loaded, true);
    const payload = coveragePayload(r);
    sharing.decorate(payload, r);
    assert.deepEqual(payload.entries.map((e) => [e.group, e.coveredBy]), [['analytics', 'a:1']]);
    assert.deepEqual(payload.readiness.groups.map((g) => [g.group, g.verdict, g.coveredBy]), [['analytics', 'ready', 'a:1'], ['billing', 'ready', 'b:2'], ['ledger', 'not-covered', null]]);
    assert.deepEqual([payload.readiness.ready, payload.readiness.notCovered, payload.readiness.instance], [2, 1, 'a:1']);
    assert.deepEqual(payload.readiness.instances.map((i) => [i.instance, i.live]), [['a:1', true], ['b:2', true]]);
    await board.stop();
    const keys = sent.flatMap((s) => s.messages.map((m) => [m.key, m.value === null]));
    assert.deepEqual(keys, [['a:1#0', false], ['a:1#0', true]]);
    assert.equal(decodeSummary(sent[0].messages[0].value).groups[0].group, 'analytics');
    assert.deepEqual(problems.filter((p) => p !== null), []);
  });
});
