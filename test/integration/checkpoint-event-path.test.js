'use strict';
/**
 * The checkpoint emitter's event path on real brokers: with `sourceOffsets: 'auto'` it follows
 * the source's `__consumer_offsets`, so a commit, a new group and a new offset sync are
 * checkpointed without any `cycle()` call (the `delivered` event carries a partial cycle); with
 * 'poll' commits wait for the next cycle. The emitter is driven as the mm2-checkpoint node drives
 * it (start, handleSyncEvent, cycle, stop) and observed as the node observes it: its events
 * (`delivered`, `sourceMode`), the results of the cycles asked for, never its fields.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { AdminOffsetCommitter } = require('../../dist/kafka/admin-offset-committer');
const { CheckpointEmitter } = require('../../dist/engines/checkpoint-emitter');
const { ClusterConnection } = require('../../dist/kafka/connection');
const { ensureInternalTopic } = require('../../dist/kafka/internal-topics');
const { createReplicationPolicy } = require('../../dist/core/replication-policy');
const { createGroupFilter, createTopicFilter } = require('../../dist/core/filters');

describe('checkpoint emitter: the event path (real brokers)', function () {
  this.timeout(120000);
  /** @type {Array<() => Promise<void>>} */
  const cleanups = [];
  afterEach(async function () {
    while (cleanups.length > 0) await cleanups.pop()().catch(() => undefined);
  });

  /** An emitter over fresh connections for groups with `prefix`, on a new 2-partition topic. */
  async function setup(sourceOffsets) {
    const prefix = env.unique('evp');
    const topic = `${prefix}-t`;
    await (await env.admin('source')).createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    const source = new ClusterConnection({ alias: 'source', bootstrapServers: [env.cluster('source').bootstrap] });
    const target = new ClusterConnection({ alias: 'target', bootstrapServers: [env.cluster('target').bootstrap] });
    const committer = new AdminOffsetCommitter(env.kafka('source'));
    /** @type {any[]} */
    const delivered = [];
    /** @type {any[]} */
    const modes = [];
    const emitter = new CheckpointEmitter({
      source, target, sourceAlias: 'source', targetAlias: 'target',
      policy: createReplicationPolicy({}),
      checkpointsTopic: `${prefix}.checkpoints.internal`,
      groupFilter: createGroupFilter({ groups: `${prefix}-.*` }),
      topicFilter: createTopicFilter({ topics: topic }),
      ensureTopic: async (c, t) => ensureInternalTopic(await c.admin(), t, 1),
      sourceOffsets,
      events: { delivered: (r) => delivered.push(r), sourceMode: (m) => modes.push(m) },
    });
    cleanups.push(async () => {
      await emitter.stop();
      await committer.close();
      await source.close();
      await target.close();
    });
    const commit = async (group, p0, p1) => {
      const r = await committer.commit(group, [{ topic, partition: 0, offset: BigInt(p0) }, { topic, partition: 1, offset: BigInt(p1) }]);
      assert.equal(r.ok, true, r.message);
    };
    const sync = (partition, up, down) => emitter.handleSyncEvent({ event: 'syncs', syncs: [{ topic, partition, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down) }] });
    return { prefix, topic, emitter, delivered, modes, commit, sync };
  }

  /** The written checkpoints of all delivered partial cycles: group partition -> [upstream, downstream] (last wins). */
  function writtenByEvents(delivered) {
    const out = new Map();
    for (const r of delivered) {
      if (r.full) continue;
      for (const c of r.written) out.set(`${c.group} ${c.partition}`, [c.upstreamOffset, c.downstreamOffset]);
    }
    return out;
  }

  it('checkpoints a commit, a new group and a better offset sync as they happen, without cycle()', async function () {
    const s = await setup('auto');
    const known = `${s.prefix}-known`;
    await s.commit(known, 10, 20);
    s.sync(0, 0, 0);
    s.sync(1, 0, 0);
    s.emitter.handleSyncEvent({ event: 'loaded' });
    await s.emitter.start();
    // following __consumer_offsets once start() resolved (the event says so), and nothing else before
    assert.deepEqual(s.modes.map((m) => m.kind), ['events'], `following __consumer_offsets (${JSON.stringify(s.modes)})`);
    // the stream is fetching: a first commit arrives as an event (a commit made in the moment
    // right after start() may be missed by the event path and is then only repaired by the next
    // full cycle: a known gap on 3.9.1, see the closing note)
    const warm = `${s.prefix}-warm`;
    await env.eventually(async () => {
      await s.commit(warm, 1, 1);
      return s.delivered.some((r) => !r.full && r.groups.includes(warm));
    }, { timeout: 60000, interval: 2000, what: 'a first commit delivered by the event path' });
    // checkpointed by itself (0 -> 0, +1): by the full cycle that runs once the history is loaded
    // or the stream stands, or already by the re-translation of the syncs, whichever came first
    await env.eventually(() => s.delivered.some((r) => r.written.some((c) => c.group === known)), { timeout: 60000, what: 'the known group checkpointed without cycle()' });

    // a commit: translated again from the same syncs (still +1 from the sync at 0), delivered at once
    s.sync(0, 30, 130);
    await s.commit(known, 35, 20);
    await env.eventually(() => {
      const w = writtenByEvents(s.delivered).get(`${known} 0`);
      return w !== undefined && w[0] === 35n && w[1] === 131n;
    }, { timeout: 60000, what: `${known} partition 0 checkpointed at 35 -> 131 by the event path` });
    assert.ok(s.delivered.filter((r) => !r.full && !r.groups.includes(warm)).every((r) => r.groups.every((g) => g === known)), 'partial cycles carry only the groups they touched');

    // a better sync for partition 1 (at the group's position): re-translated without a commit
    s.sync(1, 20, 220);
    await env.eventually(() => {
      const w = writtenByEvents(s.delivered).get(`${known} 1`);
      return w !== undefined && w[0] === 20n && w[1] === 220n;
    }, { timeout: 60000, what: `${known} partition 1 re-translated from the new sync (20 -> 220)` });

    // a group first committed now is selected and checkpointed at once
    const fresh = `${s.prefix}-fresh`;
    await s.commit(fresh, 31, 21);
    await env.eventually(() => writtenByEvents(s.delivered).has(`${fresh} 0`) && writtenByEvents(s.delivered).has(`${fresh} 1`), { timeout: 60000, what: `${fresh} checkpointed by the event path` });
    assert.deepEqual(writtenByEvents(s.delivered).get(`${fresh} 0`), [31n, 131n]);
    assert.deepEqual(writtenByEvents(s.delivered).get(`${fresh} 1`), [21n, 221n]);

    // the full cycle agrees with what the events wrote: nothing new to write
    const full = await s.emitter.cycle();
    assert.equal(full.full, true);
    assert.ok(full.groups.includes(fresh), `selected without a group refresh (${JSON.stringify(full.groups)})`);
    assert.deepEqual(full.written.filter((c) => c.group === known || c.group === fresh), []);
  });

  it("with 'poll' a commit is checkpointed by the next cycle, not as it happens", async function () {
    const s = await setup('poll');
    const g = `${s.prefix}-g`;
    await s.commit(g, 10, 10);
    s.sync(0, 0, 0);
    s.sync(1, 0, 0);
    s.emitter.handleSyncEvent({ event: 'loaded' });
    await s.emitter.start();
    const first = await s.emitter.cycle({ refreshGroups: true });
    assert.deepEqual(first.groups, [g]);
    s.sync(0, 12, 112); // above the group's last read position (10): nothing to re-translate yet
    await s.commit(g, 15, 15);
    const r = await s.emitter.cycle();
    // (new offset syncs may still re-translate between cycles; commits are not followed)
    assert.ok(!s.delivered.some((d) => d.written.some((c) => c.upstreamOffset === 15n)), 'the commit was not checkpointed between cycles');
    assert.deepEqual(r.written.filter((c) => c.partition === 0).map((c) => [c.upstreamOffset, c.downstreamOffset]), [[15n, 113n]]);
    // polling because it was asked to: no mode change announced (never followed, never fell back for a reason)
    assert.deepEqual(s.modes, [], `no source mode event (${JSON.stringify(s.modes)})`);
  });
});
