'use strict';
/** core/unsent-checkpoints: the retry list as rows of the checkpoint store (issue 24 step g): order, replacement, acknowledgements, groups left, size. */
const assert = require('node:assert/strict');
const { UnsentCheckpoints } = require('../../dist/core/unsent-checkpoints');
const { CheckpointStore } = require('../../dist/core/checkpoint-store');
const { seededRandom: rng, randomSeeds } = require('../../scripts/seeded-random');

const cp = (group, partition, up, down = up, metadata = '') => ({ group, topic: 'source.t', partition, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down), metadata });

function fixture() {
  const store = new CheckpointStore();
  store.markLoaded(true);
  const unsent = new UnsentCheckpoints(() => store);
  /** A cycle's put, listed at `at`: into the store, then onto the list (as translateCycle does). */
  const put = (c, at = 1) => {
    store.update(c.group, [c], at);
    unsent.add(c);
  };
  return { store, unsent, put };
}
const brief = (c) => `${c.group}/${c.partition}=${c.downstreamOffset}@${c.timestamp}`;

describe('core/unsent-checkpoints', function () {
  it('gives the checkpoints in the order they were first put on the list, each with its listing time as the record timestamp', function () {
    const { unsent, put } = fixture();
    put(cp('b', 0, 5), 10);
    put(cp('a', 1, 6), 11);
    put(cp('a', 0, 7, 3, 'm'), 12);
    assert.equal(unsent.size, 3);
    assert.deepEqual(unsent.list(), [
      { ...cp('b', 0, 5), timestamp: 10 },
      { ...cp('a', 1, 6), timestamp: 11 },
      { ...cp('a', 0, 7, 3, 'm'), timestamp: 12 },
    ]);
    const w = unsent.toWrite();
    assert.equal(w.length, 3);
    assert.deepEqual([...w].map(brief), ['b/0=5@10', 'a/1=6@11', 'a/0=3@12']);
  });

  it('a newer checkpoint of a partition takes the older one\'s place (one entry, the latest value); a checkpoint the store does not hold is not put on it', function () {
    const { store, unsent, put } = fixture();
    put(cp('g', 0, 5), 1);
    put(cp('g', 1, 6), 1);
    put(cp('g', 0, 9), 2);
    assert.equal(unsent.size, 2);
    assert.deepEqual(unsent.list().map(brief), ['g/0=9@2', 'g/1=6@1']);
    unsent.add(cp('other', 0, 1));
    unsent.add(cp('g', 7, 1));
    assert.equal(unsent.size, 2);
    assert.equal(store.sizeOf('other'), 0);
  });

  it('an acknowledgement takes the checkpoint off; one of an older value leaves the newer on the list, which the next write sends', function () {
    const { unsent, put } = fixture();
    put(cp('g', 0, 5), 1);
    put(cp('g', 1, 6), 1);
    const [first, second] = [...unsent.toWrite()]; // made when a write reads them
    put(cp('g', 0, 8), 2); // a partial cycle meanwhile
    assert.equal(unsent.acknowledge(first), false, 'the row holds a newer value');
    assert.equal(unsent.acknowledge(second), true);
    assert.equal(unsent.acknowledge(second), false, 'once');
    assert.deepEqual(unsent.list().map(brief), ['g/0=8@2']);
    const [newer] = unsent.list();
    assert.equal(unsent.acknowledge(newer), true);
    assert.equal(unsent.size, 0);
    // the same offsets put again in a later cycle (another listing time: another record) wait for their own acknowledgement
    put(cp('g', 1, 6), 1);
    const [again] = unsent.list();
    put(cp('g', 1, 6), 3);
    assert.equal(unsent.acknowledge(again), false);
    assert.deepEqual(unsent.list().map(brief), ['g/1=6@3']);
  });

  it('a write takes the list as it is: what is put on it meanwhile waits for the next write; a value changed meanwhile goes out as the store holds it', function () {
    const { unsent, put } = fixture();
    put(cp('g', 0, 5), 1);
    put(cp('g', 1, 5), 1);
    const w = unsent.toWrite();
    put(cp('g', 1, 7), 2); // on the list already: its new value goes in its place
    put(cp('g', 2, 7), 2); // new: after this write
    assert.equal(w.length, 2);
    const sent = [...w];
    assert.deepEqual(sent.map(brief), ['g/0=5@1', 'g/1=7@2']);
    for (const c of sent) assert.equal(unsent.acknowledge(c), true);
    assert.deepEqual(unsent.list().map(brief), ['g/2=7@2']);
  });

  it('the groups `keep` refuses (their share moved away) leave the list when a write takes it; the others keep their order', function () {
    const { unsent, put } = fixture();
    put(cp('a', 0, 1));
    put(cp('b', 0, 2));
    put(cp('c', 0, 3));
    put(cp('b', 1, 4));
    const w = unsent.toWrite((g) => g !== 'b');
    assert.equal(w.length, 2);
    assert.deepEqual([...w].map(brief), ['a/0=1@1', 'c/0=3@1']);
    assert.equal(unsent.size, 2);
    assert.equal(unsent.has(cp('b', 0, 2)), false);
  });

  it('empties itself when the store forgets its rows or is another one', function () {
    const { store, unsent, put } = fixture();
    put(cp('g', 0, 5));
    store.release();
    assert.equal(unsent.size, 0);
    assert.deepEqual(unsent.list(), []);
    let current = new CheckpointStore();
    current.markLoaded(true);
    const list = new UnsentCheckpoints(() => current);
    current.update('g', [cp('g', 0, 5)], 1);
    list.add(cp('g', 0, 5));
    assert.equal(list.size, 1);
    current = new CheckpointStore();
    current.markLoaded(true);
    assert.equal(list.size, 0);
  });

  it('100,000 group partitions (the catch-up): in order, then each acknowledged chunk leaves, the rest in order, and the list empties', function () {
    const { unsent, put } = fixture();
    const groups = 10000;
    for (let g = 0; g < groups; g++) for (let p = 0; p < 10; p++) put(cp(`group-${g}`, p, g * 10 + p + 1), 1000 + g);
    assert.equal(unsent.size, 100000);
    // a partial cycle moves some partitions meanwhile: their place is kept, their value is the new one
    for (let g = 0; g < groups; g += 997) put(cp(`group-${g}`, 3, 10 ** 9 + g), 5);
    const w = unsent.toWrite();
    assert.equal(w.length, 100000);
    let n = 0;
    let chunk = [];
    for (const c of w) {
      const g = Math.floor(n / 10);
      const p = n % 10;
      assert.equal(c.group, `group-${g}`);
      assert.equal(c.partition, p);
      const moved = p === 3 && g % 997 === 0;
      assert.equal(c.downstreamOffset, BigInt(moved ? 10 ** 9 + g : g * 10 + p + 1));
      assert.equal(c.timestamp, moved ? 5 : 1000 + g);
      n++;
      chunk.push(c);
      if (chunk.length === 2000) {
        for (const a of chunk) assert.equal(unsent.acknowledge(a), true);
        chunk = [];
        assert.equal(unsent.size, 100000 - n);
      }
      if (n === 50000) break; // the write fails halfway
    }
    assert.equal(unsent.size, 50000);
    const rest = unsent.list();
    assert.equal(rest[0].group, 'group-5000');
    assert.equal(rest[0].partition, 0);
    for (const c of rest) assert.equal(unsent.acknowledge(c), true);
    assert.equal(unsent.size, 0);
    assert.deepEqual(unsent.list(), []);
  });

  it('follows a model (a Map keyed by partition, as the list was) over random puts, writes, acknowledgements and groups left', function () {
    for (let seed = 1, seeds = randomSeeds(4); seed <= seeds; seed++) {
      const rand = rng(900 + seed);
      const { unsent, put } = fixture();
      /** @type {Map<string, string>} key -> brief, in first-put order */
      const model = new Map();
      let time = 0;
      for (let step = 0; step < 3000; step++) {
        const r = rand();
        if (r < 0.6) {
          const g = `g${Math.floor(rand() * 40)}`;
          const p = Math.floor(rand() * 6);
          const c = cp(g, p, Math.floor(rand() * 1000));
          const at = ++time;
          put(c, at);
          model.set(`${g}/${p}`, brief({ ...c, timestamp: at }));
        } else if (r < 0.95) {
          const refused = rand() < 0.1 ? `g${Math.floor(rand() * 40)}` : null;
          const keep = refused === null ? undefined : (g) => g !== refused;
          if (refused !== null) for (const k of [...model.keys()]) if (k.startsWith(`${refused}/`)) model.delete(k);
          const taken = [...unsent.toWrite(keep)].filter(() => rand() < 0.7);
          // some values move before the acknowledgement comes back
          for (const c of taken) if (rand() < 0.2) {
            const at = ++time;
            const moved = { ...c, downstreamOffset: c.downstreamOffset + 1n };
            delete moved.timestamp;
            put(moved, at);
            model.set(`${c.group}/${c.partition}`, brief({ ...moved, timestamp: at }));
          }
          for (const c of taken) {
            const key = `${c.group}/${c.partition}`;
            const left = unsent.acknowledge(c);
            assert.equal(left, model.get(key) === brief(c), `seed ${seed} step ${step}: ${key}`);
            if (left) model.delete(key);
          }
        } else {
          for (const c of unsent.list()) unsent.acknowledge(c);
          model.clear();
        }
        assert.equal(unsent.size, model.size, `seed ${seed} step ${step}`);
        if (step % 50 === 0) assert.deepEqual(unsent.list().map(brief), [...model.values()], `seed ${seed} step ${step}`);
      }
    }
  });
});
