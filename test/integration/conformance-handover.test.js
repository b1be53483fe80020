'use strict';
/**
 * Conformance 5 (issue 4): handover both ways between our checkpoint side and MirrorMaker 2's
 * checkpoint connector (the connect-mirror jar of the Kafka version under test, alone on a
 * Connect worker: see test/harness/checkpoint-peer.js), on the same offset syncs and the same
 * checkpoints topic <a>.checkpoints.internal.
 *
 * (a) Our CheckpointEmitter + GroupOffsetSyncer run first and are stopped; MM2's checkpoint
 *     connector (sync.group.offsets.enabled=true) starts on the topic we wrote. It restores our
 *     checkpoints (KAFKA-15905, 3.7.1+), so it writes no checkpoint that moves a group backwards
 *     although its own translation of the unchanged groups is now lower, and it moves the target
 *     group offsets forward as the groups move.
 * (b) The reverse: MM2 first, then ours restores MM2's checkpoints and takes over.
 *
 * The offset syncs are written by hand between the two halves so that a fresh translation of
 * the groups that did not move falls behind the checkpoints already written: an upstream rewind
 * of the syncs (CheckpointStore, KAFKA-15905: 250 -> 201 before, 176 after) and an eviction from the 64-slot history
 * (300 -> 240 before, 1 after). The remote topic <a>.<t> on the target holds 600 records per
 * partition, so no translated offset lies past its end.
 *
 * Asserted: the whole checkpoints topic in log order is monotonic per (group, partition)
 * (downstream only grows unless the group rewound upstream, which it never does here); what the
 * newcomer wrote is exactly the checkpoints of the groups that moved; the latest checkpoints and
 * the target committed offsets end where the rules say; target committed offsets, polled all
 * along, never decreased.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const peer = require('../harness/checkpoint-peer');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');

const RECORDS = 600; // per partition of the remote topic on the target

function scenario(label) {
  const a = env.unique(`sa5${label}`);
  const b = env.unique(`sb5${label}`);
  const T = `${a}-t`;
  const R = `${a}.${T}`; // the remote topic
  const G = (n) => `${a}-g${n}`;
  const props = { topics: T, groups: `${a}-g.*` };
  const syncs = {
    first: [[T, 0, 0, 0], [T, 0, 100, 80], [T, 0, 200, 160], [T, 0, 300, 240], [T, 1, 100, 100], [T, 1, 200, 200], [T, 1, 300, 300]],
    second: [[T, 0, 400, 320]],
    // written while nobody runs, before the newcomer starts
    handover: [[T, 1, 175, 175], [T, 1, 275, 275], [T, 1, 375, 375], [T, 1, 475, 475], [T, 0, 500, 400], [T, 0, 600, 480]],
  };
  return { a, b, T, R, G, props, syncs };
}

async function setUp(s) {
  await peer.createTopics('source', [
    { topic: s.T, partitions: 2 },
    { topic: peer.syncsTopicOf(s.b), partitions: 1, compact: true },
  ]);
  await peer.createTopics('target', [{ topic: s.R, partitions: 2 }]);
  const producer = env.kafka('target').producer();
  await producer.connect();
  for (const p of [0, 1]) {
    await producer.send({ topic: s.R, acks: -1, messages: Array.from({ length: RECORDS }, (_, i) => ({ partition: p, value: `r${i}` })) });
  }
  await producer.disconnect();
}

/** A fresh translation of the unchanged groups from the whole sync log: what a newcomer computes without restored checkpoints. */
function freshTranslation(s, partition, offset) {
  const store = new OffsetSyncStore({ keepHistoryOnLoad: true });
  for (const [topic, p, up, down] of [...s.syncs.first, ...s.syncs.second, ...s.syncs.handover]) {
    store.apply({ topic, partition: p, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down) });
  }
  store.markLoaded();
  return store.translate(s.T, partition, BigInt(offset));
}

/**
 * The final state both directions must reach. `precise`: our side translated g1 at 150 from the sync
 * 100->80 (read at the start, kept for the group) where MM2's 64 slots give only 0->0.
 */
function expectations(s, precise, newcomerIsOurs) {
  const k = (g, p) => `${s.G(g)} ${s.R}-${p}`;
  return {
    latest: {
      [k(1, 0)]: ['150', precise ? '81' : '1', ''],
      [k(1, 1)]: ['400', '376', ''],
      [k(2, 0)]: ['300', '240', ''],
      [k(2, 1)]: ['250', '201', ''],
      [k(3, 0)]: ['600', '480', ''],
    },
    // what the newcomer writes: only the groups that moved after the handover
    newcomer: {
      ...(precise && newcomerIsOurs ? { [k(1, 0)]: ['150->81'] } : {}),
      [k(1, 1)]: ['400->376'],
      [k(3, 0)]: ['550->401', '600->480'],
    },
    target: {
      [`${s.G(1)} ${s.R}-0`]: precise ? '81' : '1',
      [`${s.G(1)} ${s.R}-1`]: '376',
      [`${s.G(2)} ${s.R}-0`]: '240',
      [`${s.G(2)} ${s.R}-1`]: '201',
      [`${s.G(3)} ${s.R}-0`]: '480',
    },
  };
}

function sortKeys(o) {
  return Object.fromEntries(Object.entries(o).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}

async function checkpointsNow(s) {
  return peer.readCheckpoints(peer.checkpointsTopicOf(s.a));
}

/** Waits until the latest checkpoint of `key` is `[up, down]` and the target group offset is `down`. */
async function waitFor(s, group, partition, up, down, who) {
  const key = `${group} ${s.R}-${partition}`;
  await env.eventually(async () => {
    const l = peer.latestOf(await checkpointsNow(s).catch(() => []))[key];
    if (!l || l[0] !== String(up) || l[1] !== String(down)) return false;
    return (await peer.targetOffsets(group))[`${s.R}-${partition}`] === String(down);
  }, { timeout: 60000, interval: 500, what: `${who}: checkpoint ${key} ${up}->${down} and the target group offset ${down}` });
}

/** Common assertions on the topic and the target offsets after a handover at log offset `handoverAt`. */
async function verify(s, handoverAt, watch, newcomer, precise) {
  const ex = expectations(s, precise, newcomer === 'ours');
  const all = await checkpointsNow(s);
  peer.assertMonotonic(all, 'the checkpoints topic across the handover');
  assert.deepEqual(peer.latestOf(all), sortKeys(ex.latest), 'latest checkpoint per group and partition');
  const after = all.filter((c) => c.offset >= handoverAt);
  assert.deepEqual(peer.seriesOf(after), sortKeys(ex.newcomer), `what ${newcomer} wrote after the handover: only the groups that moved`);
  // let the poller see the final offsets before it stops
  const want = JSON.stringify(sortKeys(ex.target));
  await env.eventually(() => JSON.stringify(sortKeys(Object.fromEntries([...watch.current()].map(([k, v]) => [k, String(v)])))) === want, { timeout: 10000, what: 'the poller to see the final target offsets' }).catch(() => undefined);
  const { regressions, last } = await watch.stop();
  assert.deepEqual(regressions, [], 'target group offsets never decreased');
  assert.deepEqual(last, sortKeys(ex.target), 'target group offsets at the end');
  for (const g of [1, 2, 3]) {
    const t = await peer.targetOffsets(s.G(g));
    for (const [key, v] of Object.entries(ex.target)) if (key.startsWith(`${s.G(g)} `)) assert.equal(t[key.slice(s.G(g).length + 1)], v, key);
  }
}

// both translation modes: MM2 restores and continues from what either writes (precise: g1 at 150 is translated from the
// sync just below it, 100->80, which MM2's 64 slots no longer hold once 300 is read; every other answer is the same)
for (const offsetTranslation of ['mm2', 'precise']) describe(`conformance 5: checkpoint handover between our emitter (${offsetTranslation} translation) and MM2's checkpoint connector`, function () {
  const precise = offsetTranslation === 'precise';
  this.timeout(240000);
  let committer;
  const cleanup = [];

  before(() => {
    committer = new peer.AdminOffsetCommitter(env.kafka('source'));
  });
  afterEach(async () => {
    while (cleanup.length) {
      try {
        await cleanup.pop()();
      } catch {
        /* best effort */
      }
    }
  });
  after(() => committer && committer.close());

  it('(a) ours first, then MM2: MM2 restores our checkpoints, writes none backwards, target offsets keep advancing', async function () {
    const s = scenario(`a${offsetTranslation[0]}`);
    const { T, G } = s;
    await setUp(s);
    await peer.writeSyncs(s.b, s.syncs.first);
    await peer.commitOnSource(committer, G(1), [[T, 0, 150], [T, 1, 250]]);
    await peer.commitOnSource(committer, G(2), [[T, 0, 300], [T, 1, 250]]);
    await peer.commitOnSource(committer, G(3), [[T, 0, 50]]);
    const watch = peer.watchTargetOffsets([1, 2, 3].map(G));
    cleanup.push(() => watch.stop());

    // ours: two cycles with a group moving in between
    let ours = await peer.startOurSide({ ...s, ...s.props, groupOffsets: true, offsetTranslation });
    cleanup.push(() => ours && ours.stop());
    let r = await ours.cycle();
    assert.deepEqual(r.written.map((c) => `${c.group} ${c.partition} ${c.upstreamOffset}->${c.downstreamOffset}`).sort(), [
      `${G(1)} 0 150->${precise ? 81 : 1}`, `${G(1)} 1 250->201`, `${G(2)} 0 300->240`, `${G(2)} 1 250->201`, `${G(3)} 0 50->1`,
    ]);
    await peer.writeSyncs(s.b, s.syncs.second);
    await peer.commitOnSource(committer, G(3), [[T, 0, 400]]);
    r = await ours.cycle();
    assert.deepEqual(r.written.map((c) => `${c.group} ${c.partition} ${c.upstreamOffset}->${c.downstreamOffset}`), [`${G(3)} 0 400->320`]);
    assert.equal((await peer.targetOffsets(G(3)))[`${s.R}-0`], '320');
    await ours.stop();
    ours = null;

    // handover: new syncs make a fresh translation of the unchanged groups lower than what was written
    const handoverAt = BigInt((await checkpointsNow(s)).length);
    await peer.writeSyncs(s.b, s.syncs.handover);
    assert.equal(freshTranslation(s, 1, 250), 176n, 'without the restored checkpoints 250 would give 176 < 201');
    assert.equal(freshTranslation(s, 0, 300), 1n, 'without the restored checkpoints 300 would give 1 < 240');

    const mm2 = await peer.startCheckpointPeer({ a: s.a, b: s.b, props: { ...s.props, 'sync.group.offsets.enabled': 'true' } });
    cleanup.push(() => mm2.close());
    await mm2.start();
    await peer.commitOnSource(committer, G(3), [[T, 0, 550]]);
    await waitFor(s, G(3), 0, 550, 401, 'MM2');
    await peer.commitOnSource(committer, G(1), [[T, 0, 150], [T, 1, 400]]);
    await peer.commitOnSource(committer, G(3), [[T, 0, 600]]);
    await waitFor(s, G(1), 1, 400, 376, 'MM2');
    await waitFor(s, G(3), 0, 600, 480, 'MM2');
    await mm2.stop();

    await verify(s, handoverAt, watch, 'MM2', precise);
  });

  it('(b) MM2 first, then ours: we restore MM2\'s checkpoints, write none backwards, target offsets keep advancing', async function () {
    const s = scenario(`b${offsetTranslation[0]}`);
    const { T, G } = s;
    await setUp(s);
    await peer.writeSyncs(s.b, s.syncs.first);
    await peer.commitOnSource(committer, G(1), [[T, 0, 150], [T, 1, 250]]);
    await peer.commitOnSource(committer, G(2), [[T, 0, 300], [T, 1, 250]]);
    await peer.commitOnSource(committer, G(3), [[T, 0, 50]]);
    const watch = peer.watchTargetOffsets([1, 2, 3].map(G));
    cleanup.push(() => watch.stop());

    // MM2 first, with a group moving while it runs
    const mm2 = await peer.startCheckpointPeer({ a: s.a, b: s.b, props: { ...s.props, 'sync.group.offsets.enabled': 'true' } });
    cleanup.push(() => mm2.close());
    await mm2.start();
    await waitFor(s, G(1), 0, 150, 1, 'MM2');
    await waitFor(s, G(1), 1, 250, 201, 'MM2');
    await waitFor(s, G(2), 0, 300, 240, 'MM2');
    await waitFor(s, G(2), 1, 250, 201, 'MM2');
    await waitFor(s, G(3), 0, 50, 1, 'MM2');
    await peer.writeSyncs(s.b, s.syncs.second);
    await peer.commitOnSource(committer, G(3), [[T, 0, 400]]);
    await waitFor(s, G(3), 0, 400, 320, 'MM2');
    await mm2.stop();
    const before = await checkpointsNow(s);
    assert.deepEqual(peer.seriesOf(before)[`${G(3)} ${s.R}-0`], ['50->1', '400->320']);

    // handover
    const handoverAt = BigInt(before.length);
    await peer.writeSyncs(s.b, s.syncs.handover);
    const ours = await peer.startOurSide({ ...s, ...s.props, groupOffsets: true, offsetTranslation });
    cleanup.push(() => ours.stop());
    // the restore as our side reported it (its log line in mm2-checkpoint): read to the end, so the
    // sync history is kept during the initial load; the translation mode shows in what the cycle writes
    assert.equal(ours.restore.ok, true, `restore: ${JSON.stringify(ours.restore)}`);
    assert.equal(ours.restore.restored, 5, 'MM2\'s five latest checkpoints restored');
    let r = await ours.cycle();
    // precise: g1 at 150 translates from 100->80, read at the start, where MM2 had only 0->0 (and g2 at 300 from 300->240 exactly)
    assert.deepEqual(
      r.written.map((c) => `${c.group} ${c.partition} ${c.upstreamOffset}->${c.downstreamOffset}`),
      precise ? [`${G(1)} 0 150->81`] : [],
      'nothing moved: nothing written although fresh translations are lower (precise: one better)',
    );
    const held = r.coverage.filter((c) => c.status === 'unchanged' && c.downstreamOffset < c.previous.downstreamOffset);
    assert.deepEqual(
      held.map((c) => `${c.group} ${c.partition} ${c.downstreamOffset}<${c.previous.downstreamOffset}`).sort(),
      (precise ? [`${G(1)} 1 176<201`, `${G(2)} 1 176<201`] : [`${G(1)} 1 176<201`, `${G(2)} 0 1<240`, `${G(2)} 1 176<201`]).sort(),
      'the lower fresh translations are held back by MM2\'s restored checkpoints',
    );

    await peer.commitOnSource(committer, G(3), [[T, 0, 550]]);
    r = await ours.cycle();
    assert.deepEqual(r.written.map((c) => `${c.group} ${c.partition} ${c.upstreamOffset}->${c.downstreamOffset}`), [`${G(3)} 0 550->401`]);
    await peer.commitOnSource(committer, G(1), [[T, 0, 150], [T, 1, 400]]);
    await peer.commitOnSource(committer, G(3), [[T, 0, 600]]);
    r = await ours.cycle();
    assert.deepEqual(r.written.map((c) => `${c.group} ${c.partition} ${c.upstreamOffset}->${c.downstreamOffset}`).sort(), [`${G(1)} 1 400->376`, `${G(3)} 0 600->480`]);
    await ours.stop();

    await verify(s, handoverAt, watch, 'ours', precise);
  });
});
