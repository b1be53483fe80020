'use strict';
/**
 * Conformance 4 (issue 4): same answers.
 *
 * For the same offset syncs and the same frozen committed group offsets, our CheckpointEmitter
 * and MirrorMaker 2's own MirrorCheckpointConnector (the connect-mirror jar of the Kafka version
 * under test) must write the same checkpoints, group by group and partition by partition.
 *
 * The offset syncs are written by hand (encodeOffsetSync) into mm2-offset-syncs.<b>.internal on
 * the source; nobody else writes there (MM2's checkpoint connector runs alone on a Connect worker
 * — see test/harness/checkpoint-peer.js for why not in dedicated mode). Group offsets are
 * committed on the source with the admin-style OffsetCommit. MM2 writes to <a>.checkpoints.internal,
 * our emitter to <a>.ours.checkpoints.internal, both on the target; each side restores only its
 * own topic at start.
 *
 * The syncs cover: gaps (filtered records: upstream advances more than downstream), an upstream
 * rewind (the sync history resets), a downstream rewind, groups behind the oldest sync, a
 * partition without syncs, 300+300 syncs on one partition (the 64-slot exponential history and
 * its evictions), a topic that came from the target (`<b>.back` is renamed to `back`), a topic
 * outside the topic filter, commit metadata with non-ASCII text, and offset 0.
 *
 * Phase 1: both sides start on that state; the latest checkpoint per (group, partition) must be
 * equal. Then both are stopped, syncs are added and groups moved (forward, an upstream rewind, a
 * new group, and groups whose translation now falls behind their restored checkpoint: the
 * KAFKA-15905 example of CheckpointStore, KAFKA-15905), and both start again: the whole series of checkpoints per
 * (group, partition), in log order, must be equal. Ours runs in 'mm2' translation for that; a third
 * side in 'precise' translation (its own checkpoints topic) must, in both phases, never be below
 * MM2's target offsets and never skip a record (never past the newest sync at or below the position).
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const peer = require('../harness/checkpoint-peer');
const { encodeCheckpoint } = require('../../dist/core/checkpoint');

describe('conformance 4: our checkpoints equal MM2 checkpoint connector\'s (same syncs, same frozen groups)', function () {
  this.timeout(240000);
  const a = env.unique('sa4');
  const b = env.unique('sb4');
  const T = `${a}-t`;
  const BACK = `${b}.back`; // came from the target cluster: MM2 renames it to `back`
  const U = `${a}-u`; // not accepted by the topic filter
  const G = (n) => `${a}-g${n}`;
  const OURS_TOPIC = `${a}.ours.checkpoints.internal`;
  const PRECISE_TOPIC = `${a}.precise.checkpoints.internal`;
  const MM2_TOPIC = peer.checkpointsTopicOf(a);
  const props = { topics: `${T}, ${BACK}`, groups: `${a}-g.*` };
  const sourceOf = (remote) => (remote === 'back' ? BACK : remote.slice(a.length + 1));
  let mm2;
  let ours;
  let precise;
  let committer;

  before(async function () {
    committer = new peer.AdminOffsetCommitter(env.kafka('source'));
    await peer.createTopics('source', [
      { topic: T, partitions: 6 },
      { topic: BACK, partitions: 1 },
      { topic: U, partitions: 1 },
      { topic: peer.syncsTopicOf(b), partitions: 1, compact: true },
    ]);
  });
  after(async function () {
    if (ours) await ours.stop();
    if (precise) await precise.stop();
    if (mm2) await mm2.close();
    if (committer) await committer.close();
  });

  it('phase 1 gives the same latest checkpoints; after a restart of both with new syncs and moved groups, the same series', async function () {
    // ---- phase 1 state -------------------------------------------------------------------------
    const long1 = Array.from({ length: 300 }, (_, i) => [T, 4, 10 * i, 5 * i + 3]);
    const syncs1 = [
      // p0: gaps (filtered records): 5..19 and 22..39 upstream have no downstream record
      [T, 0, 0, 0], [T, 0, 5, 5], [T, 0, 20, 6], [T, 0, 21, 7], [T, 0, 40, 20],
      // p1: downstream rewind (300 -> 50), then an upstream rewind (50 < 300: history reset)
      [T, 1, 100, 100], [T, 1, 200, 200], [T, 1, 300, 50], [T, 1, 50, 400], [T, 1, 60, 410],
      // p2: groups behind the oldest sync
      [T, 2, 1000, 10], [T, 2, 1100, 110],
      // p3: no syncs at all
      // p4: a long history (exponential slots, evictions)
      ...long1,
      // p5: the CheckpointStore, KAFKA-15905 example, first half
      [T, 5, 100, 100], [T, 5, 200, 200], [T, 5, 300, 300],
      [BACK, 0, 10, 10], [BACK, 0, 20, 30],
      [U, 0, 0, 0],
    ];
    await peer.writeSyncs(b, syncs1);
    await peer.commitOnSource(committer, G(1), [[T, 0, 0], [T, 1, 55], [T, 2, 1050], [T, 3, 7], [T, 4, 7], [U, 0, 5]]);
    await peer.commitOnSource(committer, G(2), [[T, 0, 20], [T, 1, 150], [T, 2, 500], [T, 4, 555]]);
    await peer.commitOnSource(committer, G(3), [[T, 0, 30, 'm3-é'], [T, 1, 40], [T, 4, 1234], [BACK, 0, 25]]);
    await peer.commitOnSource(committer, G(4), [[T, 0, 45], [T, 1, 300], [T, 4, 2990]]);
    await peer.commitOnSource(committer, G(5), [[T, 4, 2995], [T, 5, 250]]);
    await peer.commitOnSource(committer, G(6), [[T, 4, 3000], [T, 5, 250]]);
    await peer.commitOnSource(committer, G(7), [[U, 0, 5]]); // no accepted topic: never selected

    // ---- phase 1: both sides -----------------------------------------------------------------
    ours = await peer.startOurSide({ a, b, ...props, checkpointsTopic: OURS_TOPIC, offsetTranslation: 'mm2' });
    assert.equal(ours.restore.ok, true, `restore: ${JSON.stringify(ours.restore)}`);
    const r1 = await ours.cycle();
    // the same in precise translation, on a topic of its own: compared with MM2 below (never below, never skipping)
    precise = await peer.startOurSide({ a, b, ...props, checkpointsTopic: PRECISE_TOPIC, offsetTranslation: 'precise' });
    await precise.cycle();
    assert.deepEqual(r1.groups, [1, 2, 3, 4, 5, 6].map(G));
    mm2 = await peer.startCheckpointPeer({ a, b, props });
    await mm2.start();

    const ours1 = peer.latestOf(await peer.readCheckpoints(OURS_TOPIC));
    // what the rules give, checked by hand where the spec has the numbers (the rest is compared with MM2 only)
    assert.deepEqual(ours1[`${G(1)} ${a}.${T}-0`], ['0', '0', ''], 'offset 0 is checkpointed (KAFKA-10048)');
    assert.deepEqual(ours1[`${G(2)} ${a}.${T}-0`], ['20', '1', ''], 'the sync 20->6 was evicted from the 64 slots when 40->20 came: resume after 0->0');
    assert.deepEqual(ours1[`${G(3)} ${a}.${T}-0`], ['30', '8', 'm3-é'], 'past a sync: +1, metadata copied');
    assert.deepEqual(ours1[`${G(1)} ${a}.${T}-1`], ['55', '401', ''], 'after the upstream rewind');
    assert.deepEqual(ours1[`${G(3)} ${a}.${T}-1`], undefined, '40 is behind the oldest sync after the reset');
    assert.deepEqual(ours1[`${G(2)} ${a}.${T}-2`], undefined, 'behind the oldest sync');
    assert.deepEqual(ours1[`${G(1)} ${a}.${T}-3`], undefined, 'no syncs');
    assert.deepEqual(ours1[`${G(3)} back-0`], ['25', '31', ''], `${BACK} is renamed back to its original name`);
    assert.deepEqual(ours1[`${G(5)} ${a}.${T}-5`], ['250', '201', '']);
    assert.ok(!Object.keys(ours1).some((k) => k.includes(U) || k.startsWith(G(7))), 'nothing for the filtered topic');

    let mm2Latest;
    await env
      .eventually(async () => {
        mm2Latest = peer.latestOf(await peer.readCheckpoints(MM2_TOPIC).catch(() => []));
        return JSON.stringify(mm2Latest) === JSON.stringify(ours1);
      }, { timeout: 60000, interval: 1000, what: 'MM2 to write the same checkpoints as ours' })
      .catch(() => undefined);
    assert.deepEqual(mm2Latest, ours1, 'phase 1: MM2\'s latest checkpoint per group and partition (left) vs ours (right)');
    const better1 = peer.assertPreciseAgainstMm2(peer.latestOf(await peer.readCheckpoints(PRECISE_TOPIC)), mm2Latest, syncs1, sourceOf, 'phase 1, precise');
    assert.ok(better1 > 0, 'precise translation did better than MM2 somewhere (e.g. g2 at 20: the sync 20->6 MM2 evicted)');

    // ---- restart both, with new syncs and moved groups -------------------------------------------
    await mm2.stop();
    await ours.stop();
    ours = null;
    await precise.stop();
    precise = null;
    const long2 = Array.from({ length: 300 }, (_, i) => [T, 4, 3000 + 10 * i, 1503 + 5 * i]);
    const syncs2 = [
      [T, 0, 50, 30], [T, 0, 60, 45],
      [T, 1, 70, 420],
      ...long2,
      // p5: the CheckpointStore, KAFKA-15905 example, second half: 175 < 300 is an upstream rewind (history reset)
      [T, 5, 175, 175], [T, 5, 275, 275], [T, 5, 375, 375], [T, 5, 475, 475],
    ];
    await peer.writeSyncs(b, syncs2);
    await peer.commitOnSource(committer, G(1), [[T, 0, 55], [T, 1, 55], [T, 2, 1050], [T, 3, 7], [T, 4, 4000], [U, 0, 5]]);
    await peer.commitOnSource(committer, G(2), [[T, 0, 20], [T, 1, 60], [T, 2, 500], [T, 4, 555]]); // p1: upstream rewind 150 -> 60
    await peer.commitOnSource(committer, G(6), [[T, 4, 3000], [T, 5, 400]]);
    await peer.commitOnSource(committer, G(8), [[T, 0, 60], [T, 4, 5990]]); // a new group

    ours = await peer.startOurSide({ a, b, ...props, checkpointsTopic: OURS_TOPIC, offsetTranslation: 'mm2' });
    assert.equal(ours.restore.ok, true, `restored to the end, the sync history kept during the initial load: ${JSON.stringify(ours.restore)}`);
    const r2 = await ours.cycle();
    precise = await peer.startOurSide({ a, b, ...props, checkpointsTopic: PRECISE_TOPIC, offsetTranslation: 'precise' });
    await precise.cycle();
    assert.deepEqual(r2.groups, [1, 2, 3, 4, 5, 6, 8].map(G));
    await mm2.start();

    const ours2 = peer.seriesOf(await peer.readCheckpoints(OURS_TOPIC));
    assert.deepEqual(ours2[`${G(5)} ${a}.${T}-5`], ['250->201'], 'translate(250) = 176 after the restart is behind the restored 201: not written');
    assert.deepEqual(ours2[`${G(6)} ${a}.${T}-5`], ['250->201', '400->376']);
    assert.deepEqual(ours2[`${G(2)} ${a}.${T}-1`], ['150->411', '60->410'], 'an upstream rewind is written although downstream goes back');
    let mm2Series;
    await env
      .eventually(async () => {
        mm2Series = peer.seriesOf(await peer.readCheckpoints(MM2_TOPIC));
        return JSON.stringify(mm2Series) === JSON.stringify(ours2);
      }, { timeout: 60000, interval: 1000, what: 'MM2 to write the same checkpoint series as ours' })
      .catch(() => undefined);
    assert.deepEqual(mm2Series, ours2, 'after the restart: MM2\'s checkpoint series per group and partition (left) vs ours (right)');
    peer.assertPreciseAgainstMm2(peer.latestOf(await peer.readCheckpoints(PRECISE_TOPIC)), peer.latestOf(await peer.readCheckpoints(MM2_TOPIC)), [...syncs1, ...syncs2], sourceOf, 'after the restart, precise');
    // all topics are monotonic except for the rewind
    peer.assertMonotonic(await peer.readCheckpoints(MM2_TOPIC), 'MM2');
    peer.assertMonotonic(await peer.readCheckpoints(OURS_TOPIC), 'ours');
    peer.assertMonotonic(await peer.readCheckpoints(PRECISE_TOPIC), 'ours, precise');
  });
});

describe('conformance 4: a tombstone in the checkpoints topic (a deliberate difference)', function () {
  // MM2 (3.7.1+, CheckpointStore) decodes every record of the checkpoints topic at start and
  // skips only SchemaExceptions. A tombstone (an operator deleting a group's checkpoint from the
  // compacted topic) has a null value: Checkpoint.deserializeRecord fails with a
  // NullPointerException, which ends the whole restore as failed. MM2 then keeps what it read
  // before the tombstone and loads the offset syncs keeping only the latest per partition, so
  // groups behind that sync get no checkpoint until they pass it. Our emitter skips the
  // tombstone like any other undecodable record (counted in restoreReport.malformed), keeps the
  // restore and the full sync history, and so still checkpoints those groups. Monotonicity is
  // the same on both sides; ours checkpoints more. The mm2-checkpoint help says so.
  this.timeout(180000);
  const a = env.unique('sa4t');
  const b = env.unique('sb4t');
  const T = `${a}-t`;
  const R = `${a}.${T}`;
  const G = (n) => `${a}-g${n}`;
  const OURS_TOPIC = `${a}.ours.checkpoints.internal`;
  const MM2_TOPIC = peer.checkpointsTopicOf(a);
  const props = { topics: T, groups: `${a}-g.*` };
  let mm2;
  let ours;
  let committer;

  after(async function () {
    if (ours) await ours.stop();
    if (mm2) await mm2.close();
    if (committer) await committer.close();
  });

  it('MM2\'s restore fails on it and checkpoints only groups past the latest sync; ours skips it and checkpoints them too', async function () {
    committer = new peer.AdminOffsetCommitter(env.kafka('source'));
    await peer.createTopics('source', [{ topic: T, partitions: 1 }, { topic: peer.syncsTopicOf(b), partitions: 1, compact: true }]);
    await peer.writeSyncs(b, [[T, 0, 100, 100], [T, 0, 200, 200], [T, 0, 300, 300]]);
    await peer.commitOnSource(committer, G(1), [[T, 0, 250]]);
    await peer.commitOnSource(committer, G(2), [[T, 0, 150]]);

    ours = await peer.startOurSide({ a, b, ...props, checkpointsTopic: OURS_TOPIC });
    await ours.cycle();
    mm2 = await peer.startCheckpointPeer({ a, b, props });
    await mm2.start();
    const first = { [`${G(1)} ${R}-0`]: ['250->201'], [`${G(2)} ${R}-0`]: ['150->101'] };
    assert.deepEqual(peer.seriesOf(await peer.readCheckpoints(OURS_TOPIC)), first);
    await env.eventually(async () => JSON.stringify(peer.seriesOf(await peer.readCheckpoints(MM2_TOPIC).catch(() => []))) === JSON.stringify(first), { timeout: 60000, interval: 1000, what: 'MM2\'s first checkpoints' });
    await mm2.stop();
    await ours.stop();
    ours = null;

    // an operator deletes G(2)'s checkpoint from both topics (a tombstone); a new sync; a new group behind it
    const tomb = encodeCheckpoint({ group: G(2), topic: R, partition: 0, upstreamOffset: 0n, downstreamOffset: 0n, metadata: '' });
    const producer = env.kafka('target').producer();
    await producer.connect();
    for (const topic of [OURS_TOPIC, MM2_TOPIC]) await producer.send({ topic, acks: -1, messages: [{ key: tomb.key, value: null, partition: 0 }] });
    await producer.disconnect();
    await peer.writeSyncs(b, [[T, 0, 400, 400]]);
    await peer.commitOnSource(committer, G(3), [[T, 0, 350]]); // behind the new latest sync
    await peer.commitOnSource(committer, G(4), [[T, 0, 450]]); // past it

    ours = await peer.startOurSide({ a, b, ...props, checkpointsTopic: OURS_TOPIC });
    assert.equal(ours.restore.ok, true, 'ours: the tombstone does not fail the restore (the sync history is kept during the initial load)');
    assert.equal(ours.restore.malformed, 1, 'ours: the tombstone is skipped and counted');
    await ours.cycle();
    await mm2.start();
    // MM2 handles all its groups in one cycle: once G(4) is checkpointed, G(3) had its chance too
    await env.eventually(async () => peer.seriesOf(await peer.readCheckpoints(MM2_TOPIC))[`${G(4)} ${R}-0`], { timeout: 60000, interval: 1000, what: 'MM2 to checkpoint the group past the latest sync' });
    await new Promise((r) => setTimeout(r, 3000)); // a few more MM2 cycles
    await mm2.stop();

    const oursSeries = peer.seriesOf(await peer.readCheckpoints(OURS_TOPIC));
    const mm2Series = peer.seriesOf(await peer.readCheckpoints(MM2_TOPIC));
    // the same for the group past the latest sync
    assert.deepEqual(mm2Series[`${G(4)} ${R}-0`], ['450->401']);
    assert.deepEqual(oursSeries[`${G(4)} ${R}-0`], ['450->401']);
    // the difference: groups behind the latest sync (400) after the restore
    assert.deepEqual(oursSeries[`${G(3)} ${R}-0`], ['350->301'], 'ours: the new group behind the latest sync is checkpointed from the kept history');
    assert.equal(mm2Series[`${G(3)} ${R}-0`], undefined, 'MM2: failed restore -> only the latest sync kept -> 350 is too old');
    assert.deepEqual(oursSeries[`${G(1)} ${R}-0`], ['250->201'], 'unchanged: nothing new');
    assert.deepEqual(mm2Series[`${G(1)} ${R}-0`], ['250->201']);
    assert.deepEqual(oursSeries[`${G(2)} ${R}-0`], ['150->101'], 'ours: 150 translates to 101 again, equal to the restored checkpoint: nothing new');
    assert.deepEqual(mm2Series[`${G(2)} ${R}-0`], ['150->101']);
    peer.assertMonotonic(await peer.readCheckpoints(MM2_TOPIC), 'MM2');
    peer.assertMonotonic(await peer.readCheckpoints(OURS_TOPIC), 'ours');
  });
});

