'use strict';
/**
 * The checkpoint emitter of a flow shared by several Node-RED instances (issue 25,
 * engines/replication-shares), with in-memory connections: it selects, translates and writes only
 * the groups this instance owns, picks up groups gained at once, drops groups lost, and writes
 * nothing while its lease does not hold (the checkpoints wait on the retry list).
 */
const assert = require('node:assert/strict');
const { CheckpointEmitter } = require('../../dist/engines/checkpoint-emitter');
const { createReplicationPolicy } = require('../../dist/core/replication-policy');
const { createGroupFilter, createTopicFilter } = require('../../dist/core/filters');
const { checkpointsOf } = require('../harness/record-batches');

const CP_TOPIC = 'source.checkpoints.internal';

/**
 * @param {string} alias
 * @param {Record<string, any[]>} groups
 * @returns {any}
 */
function memoryConnection(alias, groups = {}) {
  const state = { sent: /** @type {any[]} */ ([]) };
  const admin = {
    listGroups: async () => ({ groups: Object.keys(groups).map((groupId) => ({ groupId, protocolType: 'consumer' })) }),
    listTopics: async () => [CP_TOPIC],
    fetchTopicOffsets: async () => [{ partition: 0, offset: '0', high: '0', low: '0' }],
  };
  return {
    alias,
    state,
    kafka: null,
    admin: async () => admin,
    batchProducer: () => ({ produce: async (/** @type {string} */ _t, /** @type {number} */ _p, /** @type {any} */ records) => { state.sent.push(...(await checkpointsOf(records))); } }),
    offsetFetcher: () => ({
      fetch: async (/** @type {string} */ g) => groups[g],
      fetchMany: async (/** @type {string[]} */ gs) => ({ offsets: new Map(gs.map((g) => [g, groups[g] ?? []])), failed: new Map() }),
      listGroupStates: async () => new Map(Object.keys(groups).map((g) => [g, { state: 'Empty', protocolType: 'consumer' }])),
      coordinatorFailures: async () => new Map(),
    }),
    reportOk: () => undefined,
    reportError: (/** @type {any} */ e) => (e && e.message ? e.message : String(e)),
  };
}

/** A share under the test's control: owns the groups of `owned`, writable while `writable`. */
function share(owned) {
  const listeners = new Set();
  return {
    owned: new Set(owned),
    canWrite: true,
    ready: async () => undefined,
    owns(g) { return this.owned.has(g); },
    writable() { return this.canWrite; },
    offsetsPartitions() { return null; },
    subscribe(l) { listeners.add(l); return () => listeners.delete(l); },
    change(owned) {
      this.owned = new Set(owned);
      for (const l of listeners) l({ kind: 'sharing', partitions: 1, partitionCount: 2, instances: 2 });
    },
  };
}

const at = (offset) => [{ topic: 't', partition: 0, offset, metadata: '' }];
const groupsOf = (list) => [...new Set(list.map((c) => c.group))].sort();

describe('CheckpointEmitter with a share of the flow (no broker)', function () {
  it('selects, translates and writes only the owned groups; groups gained are picked up at once, groups lost dropped; fenced: nothing written until the lease holds again', async function () {
    const groups = { a: at(10n), b: at(10n), c: at(10n), d: at(10n) };
    const source = memoryConnection('source', groups);
    const target = memoryConnection('target');
    const shares = share(['a', 'c']);
    const delivered = [];
    const e = new CheckpointEmitter({
      source, target, sourceAlias: 'source', targetAlias: 'target', policy: createReplicationPolicy({}), checkpointsTopic: CP_TOPIC,
      groupFilter: createGroupFilter({}), topicFilter: createTopicFilter({}), ensureTopic: async () => undefined, sourceOffsets: 'poll',
      shares, events: { delivered: (r) => delivered.push(r) },
    });
    await e.start();
    e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 0, upstreamOffset: 5n, downstreamOffset: 3n }] });
    e.handleSyncEvent({ event: 'loaded' });
    const r = await e.cycle({ refreshGroups: true });
    assert.deepEqual(r.groups, ['a', 'c'], 'only the owned groups are translated');
    assert.deepEqual(groupsOf(target.state.sent), ['a', 'c'], 'and written');
    assert.deepEqual(e.groups, ['a', 'c']);
    assert.equal(e.groupsDiscovered, 4, 'the status\'s "of 4 groups"');

    // the share changes: b gained, a lost; a full cycle runs by itself
    shares.change(['b', 'c']);
    const gained = await waitFor(() => delivered.find((x) => x.full && x.groups.includes('b')));
    assert.deepEqual(gained.groups, ['b', 'c']);
    assert.deepEqual(groupsOf(target.state.sent), ['a', 'b', 'c'], 'b written once gained; a not again');

    // the lease does not hold (a paused process): nothing written, the checkpoint waits; a lost group's waits no more
    shares.canWrite = false;
    e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 0, upstreamOffset: 11n, downstreamOffset: 20n }] });
    groups.b = at(11n);
    groups.c = at(11n);
    const fenced = await e.cycle();
    assert.deepEqual(fenced.written, [], 'nothing written without a lease');
    assert.equal(target.state.sent.filter((x) => x.upstreamOffset === 11n).length, 0);
    shares.owned = new Set(['b']); // c moved meanwhile (its new owner writes it)
    shares.canWrite = true;
    const after = await e.cycle();
    assert.deepEqual(after.written.map((x) => [x.group, x.upstreamOffset]), [['b', 11n]], 'b written once the lease holds; c, moved away, not');
    await e.stop();
  });

  it('the share changes while a discovery is under way (it read the share before): a new discovery after it selects the new share', async function () {
    const groups = { a: at(10n), b: at(10n) };
    const source = memoryConnection('source', groups);
    /** @type {null | { promise: Promise<void>, open: () => void }} */
    let gate = null;
    let gatedReads = 0;
    const fetcherOf = source.offsetFetcher;
    source.offsetFetcher = () => {
      const f = fetcherOf();
      return { ...f, fetchMany: async (/** @type {string[]} */ gs) => {
        if (gate) {
          gatedReads++;
          await gate.promise;
        }
        return f.fetchMany(gs);
      } };
    };
    const target = memoryConnection('target');
    const shares = share(['a']);
    const delivered = [];
    const e = new CheckpointEmitter({
      source, target, sourceAlias: 'source', targetAlias: 'target', policy: createReplicationPolicy({}), checkpointsTopic: CP_TOPIC,
      groupFilter: createGroupFilter({}), topicFilter: createTopicFilter({}), ensureTopic: async () => undefined, sourceOffsets: 'poll',
      shares, events: { delivered: (r) => delivered.push(r) },
    });
    await e.start();
    e.handleSyncEvent({ event: 'syncs', syncs: [{ topic: 't', partition: 0, upstreamOffset: 5n, downstreamOffset: 3n }] });
    e.handleSyncEvent({ event: 'loaded' });
    assert.deepEqual((await e.cycle({ refreshGroups: true })).groups, ['a']);
    let open = () => undefined;
    gate = { promise: new Promise((r) => (open = r)), open };
    const slow = e.refreshGroups();
    await waitFor(() => gatedReads > 0); // the discovery read the share (a alone) and waits on the source
    shares.change(['a', 'b']);
    gate = null;
    open();
    assert.deepEqual((await slow).groups, ['a'], 'the discovery under way: the share it read');
    await waitFor(() => delivered.find((x) => x.full && x.groups.includes('b')));
    assert.deepEqual(e.groups, ['a', 'b'], 'then the new share');
    await e.stop();
  });
});

async function waitFor(fn, ms = 10000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
