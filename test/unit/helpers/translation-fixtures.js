'use strict';
/**
 * What the translation tests share (not a test file: no `.test.js`): MM2's default replication
 * policy with the alias dot, an offset-sync store and a checkpoint store made from rows, and a
 * committed offset.
 */
const { OffsetSyncStore } = require('../../../dist/core/offset-sync-store');
const { CheckpointStore } = require('../../../dist/core/checkpoint-store');

/** MM2's DefaultReplicationPolicy ("<alias>.<topic>"). */
const policy = {
  /** @param {string} alias @param {string} t */
  formatRemoteTopic: (alias, t) => `${alias}.${t}`,
  /** @param {string} t */
  topicSource: (t) => {
    const i = t.indexOf('.');
    return i <= 0 || i === t.length - 1 ? null : t.slice(0, i);
  },
  /** @param {string} t */
  originalTopic: (t) => t.slice(t.lastIndexOf('.') + 1),
};

/**
 * An offset-sync store holding these syncs ([topic, partition, upstream, downstream]).
 * @param {string} translation 'mm2' or 'precise'
 * @param {Array<[string, number, number | bigint, number | bigint]>} list
 */
function syncs(translation, list, loaded = true) {
  const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: /** @type {'mm2' | 'precise'} */ (translation) });
  for (const [t, p, u, d] of list) store.apply({ topic: t, partition: p, upstreamOffset: BigInt(u), downstreamOffset: BigInt(d) });
  if (loaded) store.markLoaded();
  return store;
}

/**
 * A checkpoint store holding these checkpoints ([group, topic, partition, upstream, downstream]).
 * @param {Array<[string, string, number, number | bigint, number | bigint]>} list
 */
function checkpoints(list, loaded = true) {
  const c = new CheckpointStore();
  /** @type {Map<string, any[]>} */
  const byGroup = new Map();
  for (const [g, t, p, u, d] of list) {
    if (!byGroup.has(g)) byGroup.set(g, []);
    /** @type {any[]} */ (byGroup.get(g)).push({ group: g, topic: t, partition: p, upstreamOffset: BigInt(u), downstreamOffset: BigInt(d), metadata: '' });
  }
  if (loaded) c.markLoaded(true);
  for (const [g, l] of byGroup) c.update(g, l, 5);
  return c;
}

/** A committed offset (null: listed without one). @param {string} t @param {number} p @param {number | bigint | null} o */
const at = (t, p, o) => ({ topic: t, partition: p, offset: o === null ? null : BigInt(o), metadata: '' });

/**
 * New syncs on a random partition of the first two `topics` (sometimes a rewind to 0), in a burst of
 * 1 to `maxBurst` that can push older ones out of MM2's 64 slots; `upstream` holds each partition's
 * latest upstream offset ("topic/partition").
 * @param {OffsetSyncStore} store @param {() => number} rand @param {string[]} topics @param {Map<string, number>} upstream
 */
function syncBurst(store, rand, topics, upstream, maxBurst = 30) {
  const t = topics[Math.floor(rand() * 2)];
  const p = Math.floor(rand() * 2);
  const k = `${t}/${p}`;
  const burst = 1 + Math.floor(rand() * maxBurst);
  for (let b = 0; b < burst; b++) {
    const up = rand() < 0.05 / burst ? 0 : (upstream.get(k) ?? 0) + 1 + Math.floor(rand() * 3);
    upstream.set(k, up);
    store.apply({ topic: t, partition: p, upstreamOffset: BigInt(up), downstreamOffset: BigInt(up * 2 + 3) });
  }
}

/** What a translation result says, without object identity (coverage entries as plain values). @param {any} r */
function resultView(r) {
  return {
    checkpoints: r.checkpoints.map((/** @type {any} */ c) => ({ ...c })),
    coverage: r.coverage.map((/** @type {any} */ c) => ({ status: c.status, topic: c.topic, partition: c.partition, up: c.upstreamOffset, down: c.downstreamOffset, reason: c.reason })),
  };
}

module.exports = { policy, syncs, checkpoints, at, syncBurst, resultView };
