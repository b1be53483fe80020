'use strict';
/**
 * OffsetSyncFeed: one reader of the offset-syncs topic per replication flow, fanned out to the
 * nodes that subscribe. The follower here is an in-memory one the test drives (no broker); the
 * feed in a real Node-RED is in test/integration/mm2-checkpoint.test.js and mm2-offset-syncs.test.js.
 */
const assert = require('node:assert/strict');
const { OffsetSyncFeed } = require('../../dist/engines/offset-sync-feed');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');

function sync(i) {
  return { topic: `t${i % 2}`, partition: i % 3, upstreamOffset: BigInt(i * 10), downstreamOffset: BigInt(i * 7) };
}

/** Followers the test drives: `followers[i].events` are what the feed gave follower i. */
function fakeFollowers() {
  const followers = [];
  const createFollower = (events) => {
    const f = {
      events,
      started: false,
      stopped: false,
      readerGroupIds: [`g${followers.length}`],
      stats: { read: 0, malformed: 0, syncs: 0, partitions: 0, lastSyncTime: null, loaded: false },
      start() {
        f.started = true;
      },
      async stop() {
        f.stopped = true;
      },
      /** The topic delivers these syncs as one batch. */
      batch(syncs) {
        f.stats = { ...f.stats, read: f.stats.read + syncs.length, syncs: f.stats.syncs + syncs.length };
        events.batch(syncs);
      },
      loaded() {
        f.stats = { ...f.stats, loaded: true };
        events.loaded(f.stats);
      },
    };
    followers.push(f);
    return f;
  };
  return { followers, createFollower };
}

/** A subscriber that records what it is told, in order, as a node's store would take it. */
function recorder() {
  const seen = [];
  const store = { syncs: [], loaded: false };
  return {
    seen,
    store,
    batch: (syncs) => {
      seen.push(['batch', syncs.length]);
      store.syncs.push(...syncs);
    },
    loaded: () => {
      seen.push(['loaded']);
      store.loaded = true;
    },
    reset: () => {
      seen.push(['reset']);
      store.syncs = [];
      store.loaded = false;
    },
    progress: (done, total) => seen.push(['progress', done, total]),
    waiting: () => seen.push(['waiting']),
    stats: () => seen.push(['stats']),
  };
}

/** What a checkpoint node's store translates after applying what a subscriber was told. */
function translate(store, topic, partition, offset) {
  const s = new OffsetSyncStore({ keepHistoryOnLoad: true });
  for (const x of store.syncs) s.apply(x);
  if (store.loaded) s.markLoaded();
  return s.translate(topic, partition, offset);
}

describe('OffsetSyncFeed: one offset-syncs reader per replication flow, fanned out', function () {
  it('the first subscriber starts one follower; every subscriber gets each batch and loaded in log order', function () {
    const { followers, createFollower } = fakeFollowers();
    const feed = new OffsetSyncFeed({ createFollower });
    const a = recorder();
    const b = recorder();
    feed.subscribe(a);
    assert.equal(followers.length, 1);
    assert.equal(followers[0].started, true);
    feed.subscribe(b);
    assert.equal(followers.length, 1, 'one reader for all subscribers');
    followers[0].batch([sync(0), sync(1)]);
    followers[0].batch([sync(2)]);
    followers[0].loaded();
    followers[0].batch([sync(3)]);
    for (const r of [a, b]) {
      assert.deepEqual(r.seen, [['batch', 2], ['batch', 1], ['loaded'], ['batch', 1]]);
      assert.deepEqual(r.store.syncs, [sync(0), sync(1), sync(2), sync(3)]);
    }
  });

  it('a late subscriber (a node redeployed on its own) gets the whole history, then loaded, then what follows; the others are not disturbed', function () {
    const { followers, createFollower } = fakeFollowers();
    const feed = new OffsetSyncFeed({ createFollower, batchMax: 2 });
    const early = recorder();
    feed.subscribe(early);
    const f = followers[0];
    const history = [sync(0), sync(1), sync(2), sync(3), sync(4)];
    f.batch(history.slice(0, 3));
    f.batch(history.slice(3));
    f.loaded();

    const late = recorder();
    feed.subscribe(late);
    assert.equal(followers.length, 1, 'no second reader, no re-read');
    assert.deepEqual(late.store.syncs, history, 'every sync from the start of the topic, in log order');
    assert.deepEqual(late.seen.slice(0, 4), [['batch', 2], ['batch', 2], ['batch', 1], ['loaded']], 'in batches of at most batchMax, loaded after the last');
    assert.equal(late.store.loaded, true);
    assert.deepEqual(early.seen, [['batch', 3], ['batch', 2], ['loaded']], 'no reset, nothing sent again to the others');

    f.batch([sync(5)]);
    assert.deepEqual(late.store.syncs, [...history, sync(5)]);
    assert.deepEqual(early.store.syncs, late.store.syncs);
    // the late node translates exactly as the early one
    for (const [topic, partition, offset] of [['t0', 0, 0n], ['t1', 1, 15n], ['t0', 2, 45n]]) {
      assert.deepEqual(translate(late.store, topic, partition, offset), translate(early.store, topic, partition, offset));
    }
  });

  it('a subscriber joining during the load gets what was read so far and the loaded when it comes (the same as a fresh start)', function () {
    const { followers, createFollower } = fakeFollowers();
    const feed = new OffsetSyncFeed({ createFollower });
    feed.subscribe(recorder());
    const f = followers[0];
    f.events.progress(1n, 4n);
    f.batch([sync(0)]);
    const late = recorder();
    feed.subscribe(late);
    assert.deepEqual(late.seen, [['batch', 1], ['progress', 1n, 4n]]);
    assert.equal(late.store.loaded, false);
    f.batch([sync(1), sync(2), sync(3)]);
    f.loaded();
    assert.deepEqual(late.store.syncs, [sync(0), sync(1), sync(2), sync(3)]);
    assert.equal(late.store.loaded, true);
  });

  it('a reset (the topic recreated) drops the history: a later subscriber gets only what was read after it', function () {
    const { followers, createFollower } = fakeFollowers();
    const feed = new OffsetSyncFeed({ createFollower });
    const a = recorder();
    feed.subscribe(a);
    const f = followers[0];
    f.batch([sync(0), sync(1)]);
    f.loaded();
    f.events.reset();
    f.batch([sync(7)]);
    assert.deepEqual(a.store.syncs, [sync(7)]);
    assert.equal(a.store.loaded, false);
    const late = recorder();
    feed.subscribe(late);
    assert.deepEqual(late.store.syncs, [sync(7)]);
    assert.equal(late.store.loaded, false);
    assert.equal(feed.historySize, 1);
  });

  it('the last subscriber leaving stops the follower; the next one starts a fresh one that reads from the beginning', async function () {
    const { followers, createFollower } = fakeFollowers();
    const feed = new OffsetSyncFeed({ createFollower });
    const a = feed.subscribe(recorder());
    const b = feed.subscribe(recorder());
    followers[0].batch([sync(0)]);
    followers[0].loaded();
    await a.unsubscribe();
    assert.equal(followers[0].stopped, false, 'one subscriber left');
    assert.equal(feed.running, true);
    await b.unsubscribe();
    assert.equal(followers[0].stopped, true, 'none left: the reader stops');
    assert.equal(feed.running, false);
    assert.equal(feed.historySize, 0, 'and the history is let go');

    const c = recorder();
    feed.subscribe(c);
    assert.equal(followers.length, 2);
    assert.deepEqual(c.seen, [], 'nothing from the stopped reader');
    // the old reader's late events reach no one
    followers[0].batch([sync(9)]);
    assert.deepEqual(c.seen, []);
    followers[1].batch([sync(0)]);
    assert.deepEqual(c.store.syncs, [sync(0)]);
  });

  it('an unsubscribed node hears nothing more; a handler that throws does not keep the event from the others', async function () {
    const { followers, createFollower } = fakeFollowers();
    const feed = new OffsetSyncFeed({ createFollower });
    const warnings = [];
    feed.subscribe({ batch: () => { throw new Error('boom'); }, warning: (w) => warnings.push(w) });
    const gone = recorder();
    const sub = feed.subscribe(gone);
    const stays = recorder();
    feed.subscribe(stays);
    await sub.unsubscribe();
    followers[0].batch([sync(0)]);
    assert.deepEqual(gone.seen, []);
    assert.deepEqual(stays.store.syncs, [sync(0)]);
    assert.match(warnings.join('\n'), /boom/);
  });

  it('close stops the follower and drops every subscriber', async function () {
    const { followers, createFollower } = fakeFollowers();
    const feed = new OffsetSyncFeed({ createFollower });
    const a = recorder();
    feed.subscribe(a);
    await feed.close();
    assert.equal(followers[0].stopped, true);
    followers[0].batch([sync(0)]);
    assert.deepEqual(a.seen, []);
    feed.subscribe(recorder());
    assert.equal(followers.length, 1, 'a closed feed starts no reader');
  });
});
