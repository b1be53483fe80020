'use strict';
/**
 * What an instance of a shared flow publishes of its readiness, and when (issue 25: each instance
 * should carry about a third): a chunk goes out when its verdicts changed, when only its figures
 * changed every SUMMARY_DETAIL_MS, otherwise every SUMMARY_REFRESH_MS to say its instance lives;
 * a reader does not decode a chunk whose content it holds already (core/share-summaries).
 */
const assert = require('node:assert/strict');
const {
  encodeSummary, decodeSummary, planSummary, summaryBody, summaryValidForMs, SummaryBoard, SUMMARY_REFRESH_MS, SUMMARY_DETAIL_MS, mergeReadiness, NO_LIVE_INSTANCE,
} = require('../../dist/core/share-summaries');
const { groupReadiness, summarizeReadiness, DEFAULT_READINESS } = require('../../dist/core/readiness');
const { ShareBoard } = require('../../dist/engines/share-board');
const { coverageSharing } = require('../../dist/nodes/shared/share-coverage');
const { coveragePayload } = require('../../dist/nodes/shared/contracts');

const NOW = 1_800_000_000_000;
/** @type {(group: string, verdict?: any, reread?: number) => any} */
const rd = (group, verdict = 'ready', reread = 3) =>
  groupReadiness(group, [{ topic: 'orders', partition: 0, status: verdict === 'not-covered' ? 'no-sync' : 'emitted', verdict, reread: verdict === 'not-covered' ? null : reread, checkpointAt: NOW }]);
const header = (publishedAt, over = {}) => ({ instance: 'b:2', memberId: 'm-b', generation: 4, publishedAt, validForMs: 43000, ...over });
/** @type {(n: number, f?: (i: number) => [any, number]) => any[]} */
const groupsOf = (n, f = () => ['ready', 3]) => Array.from({ length: n }, (_, i) => rd(`g${String(i).padStart(3, '0')}`, f(i)[0], f(i)[1]));
const keys = (plan) => plan.send.map((r) => r.key);

describe('share summaries: what is published, and when (core/share-summaries planSummary, summaryBody)', function () {
  it('the body of a record is everything but its publication time: the same while nothing changed; other layouts are not read that way', function () {
    const [{ value: a }] = encodeSummary(header(NOW), groupsOf(3));
    const [{ value: b }] = encodeSummary(header(NOW + 30000), groupsOf(3));
    const [{ value: c }] = encodeSummary(header(NOW), groupsOf(3, () => ['ready', 4]));
    assert.deepEqual([summaryBody(a).publishedAt, summaryBody(b).publishedAt], [NOW, NOW + 30000]);
    assert.ok(summaryBody(a).body.equals(summaryBody(b).body));
    assert.ok(!summaryBody(a).body.equals(summaryBody(c).body));
    // the record is still a whole summary any reader decodes
    assert.equal(decodeSummary(b).publishedAt, NOW + 30000);
    // a record laid out otherwise (another writer): no body, decoded as before
    const other = Buffer.from(JSON.stringify({ v: 1, instance: 'x:1', memberId: 'm', generation: 1, publishedAt: NOW, validForMs: 1, chunk: 0, chunks: 1, groups: [] }));
    assert.equal(summaryBody(other), null);
    assert.equal(summaryBody(Buffer.from('{"v":1,"publishedAt":,')), null);
    assert.equal(decodeSummary(other).instance, 'x:1');
  });

  it('a chunk never sent goes out; unchanged, it goes out again only every SUMMARY_REFRESH_MS', function () {
    assert.equal(SUMMARY_REFRESH_MS, 30000);
    const g = groupsOf(1200); // 3 chunks
    const first = planSummary(header(NOW), g, new Map());
    assert.deepEqual(keys(first), ['b:2#0', 'b:2#1', 'b:2#2']);
    assert.equal(first.chunks, 3);
    let sent = first.sent;
    for (let t = 1000; t < SUMMARY_REFRESH_MS; t += 1000) {
      const p = planSummary(header(NOW + t), g, sent);
      assert.deepEqual(keys(p), [], `nothing at +${t} ms`);
      sent = p.sent;
    }
    const refresh = planSummary(header(NOW + SUMMARY_REFRESH_MS), g, sent);
    assert.deepEqual(keys(refresh), ['b:2#0', 'b:2#1', 'b:2#2']);
    assert.equal(summaryBody(refresh.send[0].value).publishedAt, NOW + SUMMARY_REFRESH_MS);
    // what was sent is what the next plan compares with
    assert.deepEqual(keys(planSummary(header(NOW + SUMMARY_REFRESH_MS + 1000), g, refresh.sent)), []);
  });

  it('a verdict, a why or members on the target that changed: that chunk at once; the publisher\'s member or generation: every chunk', function () {
    const g = groupsOf(1200);
    const { sent } = planSummary(header(NOW), g, new Map());
    const atRisk = g.map((x, i) => (i === 700 ? rd(x.group, 'at-risk', 9000) : x));
    assert.deepEqual(keys(planSummary(header(NOW + 1000), atRisk, sent)), ['b:2#1']);
    const members = g.map((x, i) => (i === 1100 ? { ...x, membersOnTarget: true } : x));
    assert.deepEqual(keys(planSummary(header(NOW + 1000), members, sent)), ['b:2#2']);
    assert.deepEqual(keys(planSummary(header(NOW + 1000, { generation: 5 }), g, sent)), ['b:2#0', 'b:2#1', 'b:2#2']);
    assert.deepEqual(keys(planSummary(header(NOW + 1000, { memberId: 'm-b2' }), g, sent)), ['b:2#0', 'b:2#1', 'b:2#2']);
    // a group more in front (the chunks shift): every chunk whose groups changed
    assert.deepEqual(keys(planSummary(header(NOW + 1000), [rd('a-first'), ...g], sent)), ['b:2#0', 'b:2#1', 'b:2#2']);
    // a group more at the end: only the last chunk
    assert.deepEqual(keys(planSummary(header(NOW + 1000), [...g, rd('z-last')], sent)), ['b:2#2']);
  });

  it('figures only (a re-read that moved): not before SUMMARY_DETAIL_MS after the chunk was last sent', function () {
    assert.equal(SUMMARY_DETAIL_MS, 10000);
    const g = groupsOf(600);
    let { sent } = planSummary(header(NOW), g, new Map());
    const moved = g.map((x, i) => (i === 10 ? rd(x.group, 'ready', 4) : x));
    for (let t = 1000; t < SUMMARY_DETAIL_MS; t += 1000) {
      const p = planSummary(header(NOW + t), moved, sent);
      assert.deepEqual(keys(p), [], `nothing at +${t} ms`);
      sent = p.sent;
    }
    const p = planSummary(header(NOW + SUMMARY_DETAIL_MS), moved, sent);
    assert.deepEqual(keys(p), ['b:2#0']);
    assert.equal(decodeSummary(p.send[0].value).groups[10].reread, 4);
    assert.throws(() => planSummary(header(NOW), g, new Map(), { chunkGroups: 0 }), /chunkGroups/);
  });

  it('readers trust a chunk for the refresh interval plus the cycle bound; a dead instance is judged by its membership first', function () {
    assert.equal(summaryValidForMs(13000), 43000);
    assert.equal(summaryValidForMs(13000, 5000), 18000);
    const [rec] = encodeSummary(header(NOW, { validForMs: summaryValidForMs(13000) }), [rd('billing')]);
    const board = new SummaryBoard();
    board.apply(rec.key, rec.value);
    const members = new Set(['m-a', 'm-b']);
    assert.equal(board.covered('a:1', members, NOW + 42000).size, 1, 'within its bound');
    assert.equal(board.covered('a:1', members, NOW + 44000).size, 0, 'past it');
    // its member gone from the generation (kill -9, the session timed out): not covered at once
    const merged = mergeReadiness({ own: summarizeReadiness([], DEFAULT_READINESS, NOW), self: 'a:1', all: ['billing'], elsewhere: board.covered('a:1', new Set(['m-a']), NOW + 1000) });
    assert.deepEqual(merged.groups.map((x) => [x.group, x.verdict, x.why]), [['billing', 'not-covered', NO_LIVE_INSTANCE]]);
  });

  it('a reader does not decode a chunk it holds already: only its publication time moves (the chunk stays live)', function () {
    const g = groupsOf(2);
    const board = new SummaryBoard();
    const [a] = encodeSummary(header(NOW, { validForMs: 10000 }), g);
    board.apply(a.key, a.value);
    const [again] = encodeSummary(header(NOW + 8000, { validForMs: 10000 }), g);
    board.apply(again.key, again.value);
    assert.deepEqual(board.counts, { decoded: 1, unchanged: 1 });
    // live past the first publication's bound, by the second's
    assert.equal(board.covered('a:1', null, NOW + 15000).size, 2);
    assert.equal(board.instances(null, NOW + 15000)[0].publishedAt, NOW + 8000);
    // an older copy of the same content (a retried send): the newer time stands
    board.apply(a.key, a.value);
    assert.equal(board.instances(null, NOW + 15000)[0].publishedAt, NOW + 8000);
    // changed content: decoded
    const [changed] = encodeSummary(header(NOW + 9000, { validForMs: 10000 }), [rd('g000', 'at-risk', 900), g[1]]);
    board.apply(changed.key, changed.value);
    assert.equal(board.counts.decoded, 2);
    assert.equal(board.covered('a:1', null, NOW + 9000).get('g000').readiness.verdict, 'at-risk');
    // a tombstone, then the same content again: decoded (nothing held)
    board.apply(changed.key, null);
    board.apply(changed.key, changed.value);
    assert.equal(board.counts.decoded, 3);
  });

  it('what live instances cover is computed again only when the board, the generation or a chunk\'s liveness changes', function () {
    const board = new SummaryBoard();
    for (const r of encodeSummary(header(NOW, { validForMs: 10000 }), groupsOf(3))) board.apply(r.key, r.value);
    const members = new Set(['m-b']);
    const first = board.covered('a:1', members, NOW);
    assert.equal(board.covered('a:1', new Set(['m-b']), NOW + 5000), first, 'the same answer');
    assert.equal(board.covered('a:1', new Set(), NOW + 5000).size, 0, 'the generation changed');
    assert.equal(board.covered('a:1', members, NOW + 10001).size, 0, 'expired');
    for (const r of encodeSummary(header(NOW + 10000, { validForMs: 10000 }), groupsOf(3))) board.apply(r.key, r.value);
    assert.equal(board.covered('a:1', members, NOW + 10001).size, 3, 'refreshed');
  });

  it('the coverage output merges every group of the flow only when its readiness is read (an output wired to nothing merges nothing)', async function () {
    const listeners = new Set();
    const shares = { current: { kind: 'sharing', partitions: 25, partitionCount: 50, instances: 2 }, state: { memberId: 'm-a', generationId: 3, memberIds: ['m-a', 'm-b'] }, owns: () => false, subscribe: (l) => (listeners.add(l), () => listeners.delete(l)) };
    const target = { kafka: { producer: () => ({ connect: async () => undefined, disconnect: async () => undefined, send: async () => undefined }) }, settings: {}, admin: async () => ({}) };
    const createReader = () => ({ isLoaded: true, start: async () => undefined, stop: async () => undefined });
    const board = new ShareBoard({ target: /** @type {any} */ (target), topic: 't', shares: /** @type {any} */ (shares), validForMs: 13000, instance: 'a:1', ensureTopic: async () => undefined, now: () => NOW, createReader: /** @type {any} */ (createReader) });
    let merges = 0;
    const merged = board.merged.bind(board);
    board.merged = (own, all) => (merges++, merged(own, all));
    const sharing = coverageSharing(board, () => ['analytics', 'billing']);
    const groups = ['analytics'];
    const coverage = groups.map((g) => ({ group: g, topic: 'orders', partition: 0, remoteTopic: 'source.orders', upstreamOffset: 5n, downstreamOffset: 5n, status: 'emitted', reason: 'r', verdict: 'ready', reread: 0, checkpointAt: NOW }));
    const r = /** @type {any} */ ({ cycle: 1, full: true, groups, coverage, failedGroups: [], durationMs: 1, readiness: summarizeReadiness([rd('analytics')], DEFAULT_READINESS, NOW) });
    await new Promise((resolve) => setImmediate(resolve)); // the reader started (loaded)
    const payload = coveragePayload(r);
    sharing.decorate(payload, r);
    assert.equal(merges, 0, 'not read: not merged');
    assert.deepEqual(payload.readiness.groups.map((g) => [g.group, g.verdict, g.coveredBy]), [['analytics', 'ready', 'a:1'], ['billing', 'not-covered', null]]);
    assert.equal(payload.readiness.instance, 'a:1');
    assert.equal(merges, 1, 'merged once, then an ordinary property');
    assert.equal(JSON.parse(JSON.stringify(payload)).readiness.notCovered, 1);
    payload.readiness = /** @type {any} */ ({ replaced: true });
    assert.deepEqual(payload.readiness, { replaced: true });
    await board.stop();
  });

  it('the board publishes only what changed or is due, and tombstones on stop what it published', async function () {
    const sent = [];
    let now = NOW;
    const listeners = new Set();
    const shares = { current: { kind: 'sharing', partitions: 25, partitionCount: 50, instances: 2 }, state: { memberId: 'm-a', generationId: 3, memberIds: ['m-a', 'm-b'] }, owns: () => false, subscribe: (l) => (listeners.add(l), () => listeners.delete(l)) };
    const target = { kafka: { producer: () => ({ connect: async () => undefined, disconnect: async () => undefined, send: async (r) => sent.push(r) }) }, settings: {}, admin: async () => ({}) };
    const createReader = () => ({ isLoaded: true, start: async () => undefined, stop: async () => undefined });
    const board = new ShareBoard({ target: /** @type {any} */ (target), topic: 't', shares: /** @type {any} */ (shares), validForMs: 13000, instance: 'a:1', ensureTopic: async () => undefined, now: () => now, createReader: /** @type {any} */ (createReader) });
    const summary = (groups) => summarizeReadiness(groups, DEFAULT_READINESS, NOW);
    const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
    const g = groupsOf(700);
    board.publish(summary(g));
    await settle();
    for (let i = 0; i < 5; i++) {
      now += 1000;
      board.publish(summary(g));
      await settle();
    }
    assert.deepEqual(sent.flatMap((s) => s.messages.map((m) => m.key)), ['a:1#0', 'a:1#1'], 'once, while nothing changed');
    assert.equal(decodeSummary(sent[0].messages[0].value).validForMs, 43000);
    now += 1000;
    board.publish(summary(g.map((x, i) => (i === 600 ? rd(x.group, 'not-covered') : x))));
    await settle();
    assert.deepEqual(sent.slice(1).flatMap((s) => s.messages.map((m) => m.key)), ['a:1#1']);
    // fewer groups: one chunk, the other tombstoned
    now += 1000;
    board.publish(summary(g.slice(0, 10)));
    await settle();
    assert.deepEqual(sent.slice(2).flatMap((s) => s.messages.map((m) => [m.key, m.value === null])), [['a:1#0', false], ['a:1#1', true]]);
    assert.deepEqual([board.stats.publications, board.stats.chunksSent], [3, 4]);
    await board.stop();
    assert.deepEqual(sent.slice(3).flatMap((s) => s.messages.map((m) => [m.key, m.value === null])), [['a:1#0', true]]);
  });
});
