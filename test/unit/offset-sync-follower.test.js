'use strict';
/**
 * OffsetSyncFollower's own logic with an in-memory admin and readers the test drives (no
 * broker); the real-broker behaviour is in test/integration/mm2-offset-syncs.test.js.
 */
const assert = require('node:assert/strict');
const { OffsetSyncFollower } = require('../../dist/engines/offset-sync-follower');
const { TopicNotFoundError } = require('../../dist/kafka/topic-reader');
const { encodeOffsetSync } = require('../../dist/core/offset-sync');

const TOPIC = 'mm2-offset-syncs.tgt.internal';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(cond, what, ms = 2000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

function sync(i) {
  return { topic: `t${i % 2}`, partition: i % 3, upstreamOffset: BigInt(i * 10), downstreamOffset: BigInt(i) };
}
function rec(offset, s = sync(offset)) {
  return { ...encodeOffsetSync(s), offset: BigInt(offset), timestamp: 1000 + offset };
}
function bad(offset) {
  return { key: Buffer.from('x'), value: null, offset: BigInt(offset), timestamp: 1000 + offset };
}

/**
 * A cluster whose offset-syncs topic is `range` (null = missing), and readers the test drives:
 * `readers[i].opts` are the callbacks the follower gave reader i, `load()` ends its initial load.
 */
function fakeCluster({ range = { low: 0n, high: 0n }, adminError = null } = {}) {
  const cluster = { range, adminError, readers: [], ok: 0 };
  const admin = {
    listTopics: async () => (cluster.range ? [TOPIC] : []),
    fetchTopicOffsets: async () => [{ partition: 0, low: String(cluster.range.low), high: String(cluster.range.high) }],
  };
  cluster.connection = {
    kafka: null,
    settings: { alias: 'src', bootstrapServers: ['h:9092'] },
    admin: async () => {
      if (cluster.adminError) throw cluster.adminError;
      return admin;
    },
    reportOk: () => cluster.ok++,
    reportError: (e) => `explained: ${e.message}`,
  };
  cluster.createReader = (_admin, opts) => {
    let resolveStart;
    let rejectStart;
    const r = {
      groupId: `g${cluster.readers.length}`,
      opts,
      stopped: false,
      start: () =>
        new Promise((resolve, reject) => {
          resolveStart = resolve;
          rejectStart = reject;
        }),
      stop: async () => {
        r.stopped = true;
      },
      deliver: (...records) => records.forEach((x) => opts.onRecord(x)),
      load: () => {
        opts.onLoaded();
        resolveStart();
      },
      fail: (e) => rejectStart(e),
    };
    cluster.readers.push(r);
    return r;
  };
  return cluster;
}

/** A follower on `cluster` whose events are recorded as [name, ...args]. */
function follow(cluster, timing = {}, overrides = {}) {
  const log = [];
  const record = (name) => (...args) => log.push([name, ...args]);
  const names = ['batch', 'loaded', 'reset', 'progress', 'stats', 'waiting', 'found', 'malformed', 'malformedMore', 'error', 'recovered', 'warning'];
  const events = { ...Object.fromEntries(names.map((n) => [n, record(n)])), ...overrides };
  const f = new OffsetSyncFollower({
    connection: cluster.connection,
    topic: TOPIC,
    events,
    createReader: cluster.createReader,
    timing: { batchMax: 2, batchMs: 20, topicRetryMs: 20, backoffMinMs: 10, backoffMaxMs: 40, warnEveryMs: 10000, stopTimeoutMs: 200, ...timing },
  });
  const of = (name) => log.filter((e) => e[0] === name).map((e) => e.slice(1));
  return { f, log, of, names: () => log.map((e) => e[0]) };
}

function offsetsOf(batches) {
  return batches.flatMap(([syncs]) => syncs.map((s) => s.upstreamOffset / 10n));
}

describe('OffsetSyncFollower (no broker)', function () {
  const started = [];
  afterEach(async () => {
    for (const f of started.splice(0)) await f.stop();
  });
  function start(cluster, timing, overrides) {
    const t = follow(cluster, timing, overrides);
    started.push(t.f);
    t.f.start();
    return t;
  }

  it('hands the pre-existing syncs out in log order in batches of at most batchMax, then one loaded, then tails', async function () {
    const c = fakeCluster({ range: { low: 0n, high: 5n } });
    const { f, of, names } = start(c);
    await until(() => c.readers.length === 1, 'a reader');
    assert.deepEqual(of('progress'), [[0n, 5n]]);
    const r = c.readers[0];
    r.deliver(rec(0), rec(1), rec(2), rec(3), rec(4));
    assert.deepEqual(of('batch').map(([s]) => s.length), [2, 2], 'full batches go out at once');
    r.load();
    assert.deepEqual(offsetsOf(of('batch')), [0n, 1n, 2n, 3n, 4n]);
    assert.deepEqual(of('batch')[0][0][0], sync(0));
    const n = names();
    assert.equal(n.lastIndexOf('batch') < n.indexOf('loaded'), true, 'every pre-existing sync before loaded');
    assert.deepEqual(of('loaded'), [[{ read: 5, malformed: 0, syncs: 5, partitions: 5, lastSyncTime: 1004, loaded: true }]]);
    assert.deepEqual(f.stats, of('loaded')[0][0]);
    assert.equal(c.ok, 1, 'the connection is reported healthy');

    // tailing: a partial batch waits at most batchMs
    r.deliver(rec(5));
    assert.equal(of('batch').length, 3);
    await until(() => of('batch').length === 4, 'the tailed batch');
    assert.deepEqual(offsetsOf(of('batch').slice(3)), [5n]);
    assert.equal(of('loaded').length, 1);
    assert.equal(of('stats').at(-1)[0].syncs, 6, 'counters told after the flush');
    assert.deepEqual(f.readerGroupIds, ['g0']);
  });

  it('counts malformed records, reports the first at once and sums the rest up at loaded', async function () {
    const c = fakeCluster({ range: { low: 0n, high: 4n } });
    const { f, of } = start(c);
    await until(() => c.readers.length === 1, 'a reader');
    const r = c.readers[0];
    r.deliver(bad(0), rec(1), bad(2), bad(3));
    assert.equal(of('malformed').length, 1);
    assert.equal(of('malformed')[0][0], 0n);
    assert.match(of('malformed')[0][1], /offset sync/);
    assert.deepEqual(of('malformedMore'), [], 'the rest wait for the period to end');
    r.load();
    assert.equal(of('malformedMore').length, 1);
    assert.deepEqual(of('malformedMore')[0].slice(0, 2), [2, 3n]);
    assert.deepEqual(of('loaded')[0][0], { read: 4, malformed: 3, syncs: 1, partitions: 1, lastSyncTime: 1001, loaded: true });
    assert.deepEqual(offsetsOf(of('batch')), [1n]);
    assert.equal(f.stats.malformed, 3);
  });

  it('skips a sync that makes no sense (negative offset) and counts it as malformed', async function () {
    const c = fakeCluster({ range: { low: 0n, high: 2n } });
    const { f, of } = start(c);
    await until(() => c.readers.length === 1, 'a reader');
    const forged = { topic: 't0', partition: 0, upstreamOffset: -1n, downstreamOffset: -1n };
    c.readers[0].deliver(rec(0, forged), rec(1));
    c.readers[0].load();
    assert.deepEqual(offsetsOf(of('batch')), [1n]);
    assert.equal(f.stats.malformed, 1);
    assert.equal(f.stats.syncs, 1);
    assert.match(of('malformed')[0][1], /upstreamOffset -1 is negative/);
  });

  it('while tailing, a cluster that stops answering is told as a connection error within the probe timeout, and recovers', async function () {
    const c = fakeCluster({ range: { low: 0n, high: 1n } });
    const { of } = start(c, { probeMs: 20, probeTimeoutMs: 30 });
    await until(() => c.readers.length === 1, 'a reader');
    c.readers[0].deliver(rec(0));
    c.readers[0].load();
    /** @type {(admin: unknown) => void} */
    let answer;
    c.connection.admin = () => new Promise((resolve) => (answer = resolve)); // stops answering
    await until(() => of('error').some(([f]) => f.kind === 'connection'), 'a connection error from the probe');
    const [failure] = of('error').find(([f]) => f.kind === 'connection');
    assert.match(failure.error, /explained: the cluster did not answer within 0 s/);
    assert.equal(c.readers.length, 1, 'the reader is left to its own retries');
    const admin = { fetchTopicOffsets: async () => [{ partition: 0, low: '0', high: '1' }], listTopics: async () => [TOPIC] };
    c.connection.admin = async () => admin;
    answer?.(admin);
    await until(() => of('recovered').length === 1, 'recovered after the cluster answers again');
  });

  it('while tailing, records at the end that the reader does not deliver at two probes in a row restart the reader', async function () {
    const c = fakeCluster({ range: { low: 0n, high: 2n } });
    const { of } = start(c, { probeMs: 20, backoffMinMs: 10 });
    await until(() => c.readers.length === 1, 'a reader');
    c.readers[0].deliver(rec(0), rec(1));
    c.readers[0].load();
    c.range = { low: 0n, high: 5n }; // three more records that the reader never delivers
    await until(() => c.readers.length === 2, 'a new reader');
    assert.equal(c.readers[0].stopped, true);
    assert.match(of('error').find(([f]) => f.kind === 'reader')[0].error, /stopped delivering: 3 record\(s\)/);
    c.readers[1].deliver(rec(0), rec(1), rec(2), rec(3), rec(4));
    c.readers[1].load();
    await until(() => offsetsOf(of('batch')).length === 5, 'the rest, once');
    assert.deepEqual(offsetsOf(of('batch')), [0n, 1n, 2n, 3n, 4n]);
  });

  it('a malformed record alone makes the counters show up within batchMs', async function () {
    const c = fakeCluster({ range: { low: 0n, high: 0n } });
    const { of } = start(c);
    await until(() => c.readers.length === 1, 'a reader');
    c.readers[0].load();
    const before = of('stats').length;
    c.readers[0].deliver(bad(0));
    await until(() => of('stats').length > before, 'a stats update');
    assert.equal(of('stats').at(-1)[0].malformed, 1);
    assert.deepEqual(of('batch'), []);
  });

  it('waits for a missing topic (told once), looks again, and loads once it exists', async function () {
    const c = fakeCluster({ range: null });
    const { of } = start(c);
    await until(() => of('waiting').length >= 3, 'repeated look-ups');
    assert.deepEqual(of('waiting').slice(0, 3), [[true], [false], [false]]);
    assert.equal(c.readers.length, 0, 'no reader while the topic is missing');
    assert.deepEqual(of('progress'), [], 'the waiting status is not overwritten');
    c.range = { low: 0n, high: 1n };
    await until(() => c.readers.length === 1, 'a reader');
    assert.deepEqual(of('found'), [[]]);
    c.readers[0].deliver(rec(0));
    c.readers[0].load();
    assert.equal(of('loaded').length, 1);
  });

  it('a reader failure is retried with back-off; records delivered again are not handed out twice', async function () {
    const c = fakeCluster({ range: { low: 0n, high: 3n } });
    const { of } = start(c);
    await until(() => c.readers.length === 1, 'a reader');
    c.readers[0].deliver(rec(0), rec(1), rec(2));
    c.readers[0].load();
    c.readers[0].opts.onError(new Error('boom'));
    assert.deepEqual(of('error')[0], [{ kind: 'reader', error: 'boom (src: h:9092)', retryInMs: 10, repeated: false }]);
    c.readers[0].deliver(rec(3)); // a replaced reader is ignored
    await until(() => c.readers.length === 2, 'a second reader');
    assert.equal(c.readers[0].stopped, true, 'the failed reader is stopped');
    c.readers[1].opts.onError(new Error('boom'));
    assert.deepEqual(of('error')[1], [{ kind: 'reader', error: 'boom (src: h:9092)', retryInMs: 20, repeated: true }]);
    await until(() => c.readers.length === 3, 'a third reader');
    const r = c.readers[2];
    r.deliver(rec(0), rec(1), rec(2), rec(3)); // the log from the beginning again, plus one new
    r.load();
    await until(() => offsetsOf(of('batch')).length === 4, 'the new sync (a tailing batch)');
    assert.deepEqual(offsetsOf(of('batch')), [0n, 1n, 2n, 3n]);
    assert.equal(of('loaded').length, 1, 'loaded once per start');
    assert.deepEqual(of('recovered'), [[]]);
    assert.deepEqual(c.readers.map((x) => x.groupId), ['g0', 'g1', 'g2']);
  });

  it('connection failures are retried, doubling up to backoffMaxMs, and back to the minimum once loaded', async function () {
    const c = fakeCluster({ adminError: new Error('no route') });
    const { of } = start(c);
    await until(() => of('error').length >= 4, 'four failures', 3000);
    assert.deepEqual(of('error').slice(0, 4).map(([e]) => [e.kind, e.error, e.retryInMs, e.repeated]), [
      ['connection', 'no route', 10, false],
      ['connection', 'no route', 20, true],
      ['connection', 'no route', 40, true],
      ['connection', 'no route', 40, true],
    ]);
    c.adminError = null;
    await until(() => c.readers.length === 1, 'a reader');
    c.readers[0].load();
    assert.deepEqual(of('recovered'), [[]]);
    c.readers[0].opts.onError(new Error('later'));
    assert.equal(of('error').at(-1)[0].retryInMs, 10);
  });

  it('a start that finds the topic gone waits for it; another start failure is a reader error', async function () {
    const c = fakeCluster({ range: { low: 0n, high: 1n } });
    const { of } = start(c);
    await until(() => c.readers.length === 1, 'a reader');
    c.readers[0].fail(new TopicNotFoundError(TOPIC));
    await until(() => of('waiting').length === 1, 'waiting');
    assert.equal(c.readers[0].stopped, true);
    await until(() => c.readers.length === 2, 'a second reader');
    c.readers[1].fail(new Error('kaputt'));
    await until(() => of('error').length === 1, 'a reader error');
    assert.equal(of('error')[0][0].kind, 'reader');
    assert.equal(of('error')[0][0].error, 'kaputt (src: h:9092)', 'explained with the cluster');
  });

  it('a topic that shrank below what was read causes reset, zeroed counters and a new load', async function () {
    const c = fakeCluster({ range: { low: 0n, high: 3n } });
    const { f, of, names } = start(c);
    await until(() => c.readers.length === 1, 'a reader');
    c.readers[0].deliver(rec(0), rec(1), rec(2));
    c.readers[0].load();
    c.range = { low: 0n, high: 1n }; // recreated with one record
    c.readers[0].opts.onError(new Error('gone'));
    await until(() => c.readers.length === 2, 'a second reader');
    assert.deepEqual(of('reset'), [[]]);
    assert.deepEqual(f.stats, { read: 0, malformed: 0, syncs: 0, partitions: 0, lastSyncTime: null, loaded: false });
    const other = { topic: 'x', partition: 0, upstreamOffset: 7n, downstreamOffset: 1n };
    c.readers[1].deliver(rec(0, other));
    c.readers[1].load();
    assert.deepEqual(of('batch').at(-1)[0], [other], 'offset 0 is handed out again after the reset');
    assert.equal(of('loaded').length, 2);
    const n = names();
    assert.ok(n.indexOf('reset') < n.lastIndexOf('loaded'));
  });

  it('keeps the last 20 reader group ids, in place', async function () {
    const c = fakeCluster({ range: { low: 0n, high: 1n } });
    const { f } = start(c, { backoffMinMs: 1, backoffMaxMs: 1 });
    const ids = f.readerGroupIds;
    for (let i = 0; i < 22; i++) {
      await until(() => c.readers.length === i + 1, `reader ${i}`);
      c.readers[i].opts.onError(new Error('flap'));
    }
    await until(() => c.readers.length === 23, 'reader 22');
    assert.equal(f.readerGroupIds, ids, 'the same array');
    assert.equal(ids.length, 20);
    assert.deepEqual([ids[0], ids[19]], ['g3', 'g22']);
  });

  it('an exception in a handler becomes a warning, never reaches the reader', async function () {
    const c = fakeCluster({ range: { low: 0n, high: 1n } });
    const warnings = [];
    start(c, { batchMax: 1 }, {
      batch: () => {
        throw new Error('send failed');
      },
      warning: (w) => warnings.push(w),
    });
    await until(() => c.readers.length === 1, 'a reader');
    assert.doesNotThrow(() => c.readers[0].deliver(rec(0)));
    assert.deepEqual(warnings, [`${TOPIC}@0: send failed`]);
  });

  it('stop() stops the reader and silences everything, also pending batches and retries', async function () {
    const c = fakeCluster({ range: { low: 0n, high: 2n } });
    const { f, log } = start(c);
    await until(() => c.readers.length === 1, 'a reader');
    const r = c.readers[0];
    r.deliver(rec(0));
    const n = log.length;
    await f.stop();
    assert.equal(r.stopped, true);
    r.deliver(rec(1));
    r.load();
    await sleep(50);
    assert.equal(log.length, n, 'nothing after stop');
    assert.equal(c.readers.length, 1, 'no new reader');
  });
});
