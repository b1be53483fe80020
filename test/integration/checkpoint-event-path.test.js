'use strict';
/**
 * The checkpoint event path on real brokers, as a user of an mm2-checkpoint node sees it: with
 * `sourceOffsets: 'auto'` the node follows the source's `__consumer_offsets`, so a commit, a new
 * group and a new offset sync are checkpointed without a cycle being asked for (output 1 carries
 * what the event path wrote, `full: false`); with 'poll' commits wait for the next cycle. The
 * offset syncs go to a real offset-syncs topic that the replication's feed reads; what the node
 * wrote is read on its outputs and its log.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');
const { produceSyncs, restored, following, pollingReason } = require('../harness/checkpoint-node');

describe('checkpoint node: the event path (real brokers)', function () {
  this.timeout(120000);
  /** @type {Array<() => Promise<void>>} */
  const cleanups = [];
  before(() => nodes.startServer());
  after(() => nodes.stopServer());
  afterEach(async function () {
    await nodes.helper.unload();
    while (cleanups.length > 0) await cleanups.pop()().catch(() => undefined);
  });

  /**
   * A node for groups with `prefix` on a new 2-partition topic, its own checkpoints and offset-syncs
   * topics (aliases of its own), `syncs` ([partition, upstream, downstream]) in the offset-syncs
   * topic before it starts, the group offsets of `commits` made before it starts.
   */
  async function setup(sourceOffsets, syncs, commits) {
    const prefix = env.unique('evp');
    const topic = `${prefix}-t`;
    const alias = env.unique('evps');
    const syncsTopic = `mm2-offset-syncs.${env.unique('evpt')}.internal`;
    await (await env.admin('source')).createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    const committer = new AdminOffsetCommitter(env.kafka('source'));
    cleanups.push(() => committer.close());
    const commit = async (group, p0, p1) => {
      const r = await committer.commit(group, [{ topic, partition: 0, offset: BigInt(p0) }, { topic, partition: 1, offset: BigInt(p1) }]);
      assert.equal(r.ok, true, r.message);
    };
    const sync = (partition, up, down) => produceSyncs(syncsTopic, [[topic, partition, up, down]]);
    for (const [g, p0, p1] of commits) await commit(g(prefix), p0, p1);
    await produceSyncs(syncsTopic, syncs.map(([partition, up, down]) => [topic, partition, up, down]));
    await nodes.load([
      {
        id: 'cp', type: 'mm2-checkpoint', name: '', replication: 'rep', groups: `${prefix}-.*`, groupsExclude: '', topics: topic, topicsExclude: '',
        emitCheckpointsIntervalSeconds: '3600', refreshGroupsIntervalSeconds: '3600', sourceOffsets, wires: [['out1'], ['out2']],
      },
      { id: 'out1', type: 'helper' },
      { id: 'out2', type: 'helper' },
      // the flow's offset-syncs node reports what the replication's one reader hands to both nodes
      { id: 'os', type: 'mm2-offset-syncs', name: '', replication: 'rep', wires: [['osout']] },
      { id: 'osout', type: 'helper' },
    ], { over: { src: { alias }, tgt: { alias: syncsTopic.slice('mm2-offset-syncs.'.length, -'.internal'.length) } } });
    const cp = nodes.helper.getNode('cp');
    const out1 = nodes.collect(nodes.helper.getNode('out1'));
    const out2 = nodes.collect(nodes.helper.getNode('out2'));
    const osout = nodes.collect(nodes.helper.getNode('osout'));
    /** Whether the replication's reader handed out the sync at `up` on `partition` (to the checkpoint node too). */
    const syncHandedOut = (partition, up) => osout.some((m) => m.payload.event === 'syncs' && (m.payload.syncs ?? []).some((x) => x.topic === topic && x.partition === partition && x.upstreamOffset === String(up)));
    /** Asks for a cycle; resolves with the coverage message it sent. */
    const cycle = async (msg = { payload: 'now' }) => {
      const before = out2.length;
      cp.receive(msg);
      await env.eventually(() => out2.length > before, { what: 'the coverage of the cycle asked for' });
      return out2[out2.length - 1];
    };
    const restoredOutcome = await restored(cp);
    assert.equal(restoredOutcome.ok, true, `the restore failed: ${JSON.stringify(restoredOutcome)}`);
    return { prefix, topic, remote: `${alias}.${topic}`, cp, out1, out2, commit, sync, cycle, syncHandedOut };
  }

  // The event path's messages are those of partial cycles (`fullCycle: false`). `full: false` is not
  // enough: after its first message a full cycle also sends `full: false` (the groups changed since
  // the last message, not the whole state). Under load the full cycle that runs once the stream stands
  // can come after warm's first event write, and its message (cycle 3, fullCycle true, checkpoints
  // [], latest {warm}: seen in a run under load) was taken for an event-path message.
  /** What the event path wrote (output 1 of partial cycles): group partition -> [upstream, downstream] (last wins). */
  function writtenByEvents(out1) {
    const out = new Map();
    for (const m of out1) {
      if (m.payload.fullCycle) continue;
      for (const c of m.payload.checkpoints) out.set(`${c.group} ${c.partition}`, [BigInt(c.upstreamOffset), BigInt(c.downstreamOffset)]);
    }
    return out;
  }
  const partials = (out1) => out1.filter((m) => !m.payload.fullCycle);

  it('checkpoints a commit, a new group and a better offset sync as they happen, without a cycle asked for', async function () {
    const s = await setup('auto', [[0, 0, 0], [1, 0, 0]], [[(p) => `${p}-known`, 10, 20]]);
    const known = `${s.prefix}-known`;
    await env.eventually(() => following(s.cp), { what: 'following __consumer_offsets (its log)', timeout: 60000 });
    assert.equal(pollingReason(s.cp), null, 'never fell back to polling');
    // the stream is fetching: a first commit arrives as an event (a commit made in the moment
    // right after the stream started may be missed by the event path and is then only repaired by
    // the next full cycle: a known gap on 3.9.1)
    const warm = `${s.prefix}-warm`;
    await env.eventually(async () => {
      await s.commit(warm, 1, 1);
      return partials(s.out1).some((m) => m.payload.checkpoints.some((c) => c.group === warm));
    }, { timeout: 60000, interval: 2000, what: 'a first commit checkpointed by the event path' });
    // checkpointed by itself (0 -> 0, +1): by the full cycle that runs once the history is loaded
    // or the stream stands, or already by the re-translation of the syncs, whichever came first
    await env.eventually(() => s.out1.some((m) => m.payload.checkpoints.some((c) => c.group === known)), { timeout: 60000, what: 'the known group checkpointed without a cycle asked for' });

    // a commit: translated again from the same syncs (still +1 from the sync at 0), delivered at once
    await s.sync(0, 30, 130);
    await s.commit(known, 35, 20);
    await env.eventually(() => {
      const w = writtenByEvents(s.out1).get(`${known} 0`);
      return w !== undefined && w[0] === 35n && w[1] === 131n;
    }, { timeout: 60000, what: `${known} partition 0 checkpointed at 35 -> 131 by the event path` });
    const strays = partials(s.out1).filter((m) => !m.payload.checkpoints.some((c) => c.group === warm)).filter((m) => !(m.payload.checkpoints.every((c) => c.group === known) && Object.keys(m.payload.latest).every((g) => g === known)));
    assert.deepEqual(strays.map((m) => ({ cycle: m.payload.cycle, fullCycle: m.payload.fullCycle, checkpoints: m.payload.checkpoints, latest: m.payload.latest })), [], 'the event path\'s messages carry only the groups it touched');

    // a better sync for partition 1 (at the group's position): re-translated without a commit
    await s.sync(1, 20, 220);
    await env.eventually(() => {
      const w = writtenByEvents(s.out1).get(`${known} 1`);
      return w !== undefined && w[0] === 20n && w[1] === 220n;
    }, { timeout: 60000, what: `${known} partition 1 re-translated from the new sync (20 -> 220)` });

    // a group first committed now is selected and checkpointed at once
    const fresh = `${s.prefix}-fresh`;
    await s.commit(fresh, 31, 21);
    await env.eventually(() => writtenByEvents(s.out1).has(`${fresh} 0`) && writtenByEvents(s.out1).has(`${fresh} 1`), { timeout: 60000, what: `${fresh} checkpointed by the event path` });
    assert.deepEqual(writtenByEvents(s.out1).get(`${fresh} 0`), [31n, 131n]);
    assert.deepEqual(writtenByEvents(s.out1).get(`${fresh} 1`), [21n, 221n]);

    // the full cycle agrees with what the events wrote: nothing new to write; the fresh group is
    // selected without a group refresh
    const fullBefore = s.out1.length;
    const cov = await s.cycle();
    assert.ok(cov.payload.entries.some((e) => e.group === fresh), `selected without a group refresh (${JSON.stringify([...new Set(cov.payload.entries.map((e) => e.group))])})`);
    const full = s.out1.slice(fullBefore).find((m) => m.payload.full);
    assert.ok(full, 'the cycle asked for reported on output 1');
    assert.deepEqual(full.payload.checkpoints.filter((c) => c.group === known || c.group === fresh), []);
  });

  it("with 'poll' a commit is checkpointed by the next cycle, not as it happens", async function () {
    const s = await setup('poll', [[0, 0, 0], [1, 0, 0]], [[(p) => `${p}-g`, 10, 10]]);
    const g = `${s.prefix}-g`;
    const first = await env.eventually(async () => {
      const c = await s.cycle({ payload: 'now', refreshGroups: true });
      return c.payload.entries.length > 0 && c.payload.entries.every((e) => e.status !== 'store-loading') ? c : null;
    }, { what: 'a cycle with the sync history loaded', interval: 1000 });
    assert.deepEqual([...new Set(first.payload.entries.map((e) => e.group))], [g]);
    assert.equal(first.payload.groups, 1);
    await s.sync(0, 12, 112); // above the group's last read position (10): nothing to re-translate yet
    await s.commit(g, 15, 15);
    await env.eventually(() => s.syncHandedOut(0, 12), { what: 'the sync 12 -> 112 handed to the nodes' });
    // the next cycle: 15 -> 113 (+1 above 12 -> 112)
    const before = s.out1.length;
    await s.cycle();
    const full = s.out1.slice(before).find((m) => m.payload.full);
    assert.ok(full, 'the cycle reported on output 1');
    assert.deepEqual(full.payload.checkpoints.filter((c) => c.partition === 0).map((c) => [c.upstreamOffset, c.downstreamOffset]), [['15', '113']]);
    // (new offset syncs may still re-translate between cycles; commits are not followed)
    assert.ok(!partials(s.out1).some((m) => m.payload.checkpoints.some((c) => c.upstreamOffset === '15')), 'the commit was not checkpointed between cycles');
    // polling because it was asked to: it never said it follows, nor that it polls for want of something
    assert.equal(following(s.cp), false);
    assert.equal(pollingReason(s.cp), null);
  });
});
