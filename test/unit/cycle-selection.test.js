'use strict';
// core/cycle-selection: which groups and partitions a checkpoint cycle covers, without a cluster
// (the emitter's cycles against in-memory clusters are in checkpoint-emitter.test.js and
// checkpoint-cycles.test.js, against real brokers in test/integration/checkpoint-event-path.test.js).

const assert = require('node:assert/strict');
const { groupsToRead, groupsRead, firstSeenCandidates, partialCycleCoverage, groupsConcernedBySyncs, uniteGroupPartitions } = require('../../dist/core/cycle-selection');
const { createGroupFilter, createTopicFilter } = require('../../dist/core/filters');
const { partitionKey } = require('../../dist/core/partition-key');

const k = partitionKey;
const off = (topic, partition, offset) => ({ topic, partition, offset: offset === null ? null : BigInt(offset), metadata: '' });
/**
 * GroupPartitions per group, as a cycle request holds them.
 * @param {Array<[string, Set<string> | 'all']>} entries
 * @returns {Map<string, import('../../dist/core/source-offset-table').GroupPartitions>}
 */
const gp = (entries) => new Map(entries);
/** A map of GroupPartitions as plain values: group -> 'all' or sorted keys. */
const plain = (m) => Object.fromEntries([...m].map(([g, p]) => [g, p === 'all' ? 'all' : [...p].sort()]));

describe('cycle selection: the groups and partitions a checkpoint cycle covers', () => {
  describe('a full cycle', () => {
    it('polling, or a stream not known current: every selected group is read', () => {
      assert.deepEqual(groupsToRead(['a', 'b'], false, () => true), ['a', 'b']);
    });

    it('the stream keeps the offsets current: only the groups never read', () => {
      const read = new Set(['a']);
      assert.deepEqual(
        groupsToRead(['a', 'b', 'c'], true, (g) => read.has(g)),
        ['b', 'c'],
      );
      assert.deepEqual(
        groupsToRead(['a'], true, (g) => read.has(g)),
        [],
      );
    });

    it('translates the selected groups whose read did not fail, in their order', () => {
      assert.deepEqual(groupsRead(['a', 'b', 'c'], new Set(['b'])), ['a', 'c']);
      assert.deepEqual(groupsRead(['a', 'b'], new Map([['a', 'refused'], ['b', 'timeout']])), []);
    });
  });

  describe('a partial cycle (the event path)', () => {
    const groupFilter = createGroupFilter({ 'groups.exclude': 'excluded.*' });
    const topicFilter = createTopicFilter({ topics: 't.*' });
    const offsets = {
      sel: [off('t1', 0, 5)],
      fresh: [off('x', 0, 1), off('t2', 0, 3)],
      otherTopics: [off('x', 0, 1)],
      excludedGroup: [off('t1', 0, 1)],
    };
    // the offsets read in place, as SourceOffsetTable.rowsOf gives them (undefined: never read)
    const rowsOf = (g) => {
      const list = offsets[g];
      return list === undefined ? undefined : { length: list.length, topic: (i) => list[i].topic, partition: (i) => list[i].partition, offset: (i) => list[i].offset };
    };

    it('a group first seen is a candidate when the group filter accepts it and it committed on a replicated topic', () => {
      const changed = gp([
        ['sel', new Set([k('t1', 0)])],
        ['fresh', new Set([k('t2', 0)])],
        ['otherTopics', new Set([k('x', 0)])],
        ['excludedGroup', new Set([k('t1', 0)])],
        ['neverRead', 'all'],
      ]);
      assert.deepEqual(firstSeenCandidates(changed, new Set(['sel']), rowsOf, groupFilter, topicFilter), ['fresh']);
    });

    it('covers the selected groups with the partitions that changed, and a first-seen group the source lists whole; the others not', () => {
      const changed = gp([
        ['b', new Set([k('t1', 1)])],
        ['new', new Set([k('t1', 0)])],
        ['unlisted', new Set([k('t1', 0)])],
        ['a', 'all'],
      ]);
      const { covered, added } = partialCycleCoverage(changed, new Set(['a', 'b']), new Set(['new']));
      assert.deepEqual(
        covered.map((c) => [c.group, c.parts === 'all' ? 'all' : [...c.parts]]),
        [
          ['b', [k('t1', 1)]],
          ['new', 'all'],
          ['a', 'all'],
        ],
        'in the order the changes came',
      );
      assert.deepEqual(added, ['new']);
    });

    it('nothing listed, nothing selected: nothing covered', () => {
      assert.deepEqual(partialCycleCoverage(gp([['g', 'all']]), new Set(), new Set()), { covered: [], added: [] });
    });
  });

  describe('new offset syncs', () => {
    /** Committed offsets per group on t-0 and t-1. */
    const commits = { a: { 't-0': 5n, 't-1': 50n }, b: { 't-0': 20n }, c: { 't-0': 40n, 't-1': 10n } };
    const atOrAbove = (topic, partition, offset) => {
      calls.push(`${topic}-${partition}`);
      return Object.keys(commits).filter((g) => commits[g][`${topic}-${partition}`] !== undefined && commits[g][`${topic}-${partition}`] >= offset);
    };
    let calls;
    beforeEach(() => {
      calls = [];
    });

    it('concern the groups at or above the lowest sync of each partition, one look-up per partition', () => {
      const syncs = [
        { topic: 't', partition: 0, upstreamOffset: 30n },
        { topic: 't', partition: 0, upstreamOffset: 15n },
        { topic: 't', partition: 1, upstreamOffset: 40n },
      ];
      assert.deepEqual(plain(groupsConcernedBySyncs(syncs, atOrAbove)), { a: [k('t', 1)], b: [k('t', 0)], c: [k('t', 0)] });
      assert.deepEqual(calls.sort(), ['t-0', 't-1']);
    });

    it('a sync above every group (the usual one, at the log end) concerns none', () => {
      assert.equal(groupsConcernedBySyncs([{ topic: 't', partition: 0, upstreamOffset: 1000n }], atOrAbove).size, 0);
    });

    it('a group concerned on two partitions gets both', () => {
      const syncs = [
        { topic: 't', partition: 0, upstreamOffset: 0n },
        { topic: 't', partition: 1, upstreamOffset: 0n },
      ];
      assert.deepEqual(plain(groupsConcernedBySyncs(syncs, atOrAbove)).a, [k('t', 0), k('t', 1)].sort());
    });
  });

  describe('two requests sharing one cycle', () => {
    it('cover the union of their groups and partitions; a whole group wins; neither request is changed', () => {
      const a = gp([
        ['g1', new Set([k('t', 0)])],
        ['g2', 'all'],
      ]);
      const b = gp([
        ['g1', new Set([k('t', 1)])],
        ['g2', new Set([k('t', 1)])],
        ['g3', new Set([k('u', 0)])],
      ]);
      const u = uniteGroupPartitions(a, b);
      assert.deepEqual(plain(u), { g1: [k('t', 0), k('t', 1)].sort(), g2: 'all', g3: [k('u', 0)] });
      assert.deepEqual([...a.get('g1')], [k('t', 0)], 'a unchanged');
      assert.notEqual(u.get('g3'), b.get('g3'), 'a copy of b\'s set: b unchanged by later unions');
      assert.equal(uniteGroupPartitions(a, gp([['g1', 'all']])).get('g1'), 'all');
    });
  });
});
