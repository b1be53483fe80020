'use strict';

// SourceOffsets: a full read and the stream of `__consumer_offsets` that runs beside it. The
// stream is replaced by one the test feeds (the decoding and the real stream are tested against
// real brokers in source-commit-stream.test.js); the full read by a fetcher the test answers.

const assert = require('node:assert/strict');
const { SourceOffsets } = require('../../dist/engines/source-offsets');

/** A fetcher whose answers the test gives, one call at a time. */
function controlledFetcher() {
  const calls = [];
  return {
    calls,
    fetchMany(groups) {
      return new Promise((resolve) => calls.push({ groups, answer: (offsets) => resolve({ offsets: new Map(Object.entries(offsets)), failed: new Map() }) }));
    },
  };
}

async function following(fetcher) {
  let onBatch;
  const changed = [];
  const so = new SourceOffsets({
    // only what SourceOffsets uses of a ClusterConnection
    source: /** @type {any} */ ({ admin: async () => ({}), kafka: {}, settings: {}, offsetFetcher: () => fetcher }),
    want: 'auto',
    acceptGroup: () => true,
    onChanged: (c) => changed.push(c),
    openStream: (options) => {
      onBatch = options.onBatch;
      return { start: async () => undefined, stop: async () => undefined, lastFetchAt: Date.now() };
    },
  });
  await so.startStream();
  assert.equal(so.mode.kind, 'events');
  return { so, changed, batch: (b) => onBatch({ changes: [], deletedGroups: [], skipped: 0, ...b }) };
}

const off = (topic, partition, offset) => ({ topic, partition, offset: offset === null ? null : BigInt(offset), metadata: '' });
const view = (list) => (list ?? []).map((o) => `${o.topic}-${o.partition}@${o.offset}`).sort();

/** Lets the read's promise chain run. */
const settle = () => new Promise((r) => setImmediate(r));

describe('SourceOffsets: full reads and the stream', () => {
  let f;
  let fetcher;
  beforeEach(async () => {
    fetcher = controlledFetcher();
    f = await following(fetcher);
    f.batch({ changes: [off('t', 0, 5), off('t', 1, 5)].map((o) => ({ group: 'g', ...o })) });
  });

  it('a commit streamed while a read is under way stands; the partitions it did not touch take the read', async () => {
    const read = f.so.readAll(['g']);
    await settle();
    f.batch({ changes: [{ group: 'g', topic: 't', partition: 0, offset: 20n }] });
    // the broker answered before that commit
    fetcher.calls[0].answer({ g: [off('t', 0, 10), off('t', 1, 7)] });
    await read;
    assert.deepEqual(view(f.so.offsetsOf('g')), ['t-0@20', 't-1@7']);
    assert.deepEqual(f.so.groupsAtOrAbove('t', 0, 20n), ['g'], 'the index follows the offsets kept');
    assert.deepEqual(f.so.groupsAtOrAbove('t', 1, 8n), []);
  });

  it('a partition whose offset the stream deleted during the read stays deleted', async () => {
    const read = f.so.readAll(['g']);
    await settle();
    f.batch({ changes: [{ group: 'g', topic: 't', partition: 1, offset: null }] });
    fetcher.calls[0].answer({ g: [off('t', 0, 5), off('t', 1, 5)] });
    await read;
    assert.deepEqual(view(f.so.offsetsOf('g')), ['t-0@5']);
  });

  it('a group deleted during the read is not brought back by it; one committed again after its deletion keeps the new commit only', async () => {
    f.batch({ changes: [{ group: 'h', topic: 't', partition: 0, offset: 3n }] });
    const read = f.so.readAll(['g', 'h']);
    await settle();
    f.batch({ deletedGroups: ['g', 'h'], changes: [{ group: 'h', topic: 't', partition: 2, offset: 1n }] });
    fetcher.calls[0].answer({ g: [off('t', 0, 5), off('t', 1, 5)], h: [off('t', 0, 3)] });
    await read;
    assert.equal(f.so.offsetsOf('g'), undefined);
    assert.deepEqual(view(f.so.offsetsOf('h')), ['t-2@1']);
  });

  it('without a streamed change the read replaces what is kept, and a later read is not held by an earlier one\'s changes', async () => {
    const first = f.so.readAll(['g']);
    await settle();
    f.batch({ changes: [{ group: 'g', topic: 't', partition: 0, offset: 20n }] });
    fetcher.calls[0].answer({ g: [off('t', 0, 10), off('t', 1, 5)] });
    await first;
    // the source's truth now differs from the stream's (a commit the stream missed, say): the next read, with nothing streamed during it, sets it
    const second = f.so.readAll(['g']);
    await settle();
    fetcher.calls[1].answer({ g: [off('t', 0, 30), off('t', 1, 2)] });
    await second;
    assert.deepEqual(view(f.so.offsetsOf('g')), ['t-0@30', 't-1@2']);
  });

  it('two reads under way at once: each keeps what the stream changed since it was sent', async () => {
    const a = f.so.readAll(['g']);
    await settle();
    f.batch({ changes: [{ group: 'g', topic: 't', partition: 0, offset: 20n }] });
    const b = f.so.readAll(['g']);
    await settle();
    f.batch({ changes: [{ group: 'g', topic: 't', partition: 1, offset: 40n }] });
    // b was answered after the first change, before the second
    fetcher.calls[1].answer({ g: [off('t', 0, 20), off('t', 1, 6)] });
    await b;
    assert.deepEqual(view(f.so.offsetsOf('g')), ['t-0@20', 't-1@40']);
    fetcher.calls[0].answer({ g: [off('t', 0, 10), off('t', 1, 6)] });
    await a;
    assert.deepEqual(view(f.so.offsetsOf('g')), ['t-0@20', 't-1@40']);
  });
});

describe('SourceOffsets: a full read folded in answer by answer (fetchEach, issue 24)', () => {
  /** A fetcher handing each answer over as the test gives it, as GroupOffsetFetcher.fetchEach does per request. */
  function eachFetcher() {
    const calls = [];
    return {
      calls,
      fetchMany() {
        throw new Error('fetchEach is used');
      },
      fetchEach(groups, each) {
        return new Promise((resolve) => calls.push({ groups, each: (offsets) => each(new Map(Object.entries(offsets))), done: () => resolve({ failed: new Map() }) }));
      },
    };
  }

  it('each answer is kept as it arrives; what the stream changed since the read began stands against every later answer', async () => {
    const fetcher = eachFetcher();
    const f = await following(fetcher);
    f.batch({ changes: [{ group: 'g', ...off('t', 0, 5) }, { group: 'h', ...off('t', 0, 5) }, { group: 'k', ...off('t', 0, 5) }] });
    const read = f.so.readAll(['g', 'h', 'k']);
    await settle();
    // streamed before the first answer (h) and between the answers (k)
    f.batch({ changes: [{ group: 'h', topic: 't', partition: 0, offset: 20n }] });
    fetcher.calls[0].each({ g: [off('t', 0, 9), off('t', 1, 3)] });
    assert.deepEqual(view(f.so.offsetsOf('g')), ['t-0@9', 't-1@3'], 'kept before the read ends');
    f.batch({ changes: [{ group: 'k', topic: 't', partition: 0, offset: 30n }] });
    fetcher.calls[0].each({ h: [off('t', 0, 10)], k: [off('t', 0, 11), off('t', 2, 4)] });
    fetcher.calls[0].done();
    await read;
    assert.deepEqual(view(f.so.offsetsOf('h')), ['t-0@20'], 'the commit streamed before the first answer stands');
    assert.deepEqual(view(f.so.offsetsOf('k')), ['t-0@30', 't-2@4'], 'the commit streamed between answers stands; the partition it did not touch takes the read');
    // the read is over: a later commit and a later read behave as before
    const again = f.so.readAll(['h']);
    await settle();
    fetcher.calls[1].each({ h: [off('t', 0, 40)] });
    fetcher.calls[1].done();
    await again;
    assert.deepEqual(view(f.so.offsetsOf('h')), ['t-0@40']);
  });
});
