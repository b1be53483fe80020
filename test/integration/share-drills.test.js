'use strict';
/**
 * Drills of issue 25 on the shared checkpoint and group-offset work: the same flow in three real
 * Node-RED processes on the same clusters, 20 consumer groups committing on the source all along,
 * a poller reading every group's committed offset on the target every 200 ms and recording any
 * move backwards (and any offset beyond the source's true position).
 *
 * 1. kill -9 of an instance that owns groups: its groups' next commits reach the target through
 *    the two others (the time is measured and printed, not asserted tight), nothing moves backwards, and
 *    a consumer failing over to the target from those offsets skips nothing.
 * 2. SIGSTOP of an instance that owns groups, past the sharing session timeout (10 s), the other
 *    takes its share; then SIGCONT: nothing moves backwards, and for each key of the checkpoints
 *    topic the last record written since the takeover has the highest upstream offset (the woken
 *    instance did not append a stale one that wins).
 *
 * The mirror is simulated: the source topic holds r0..rN, the target's remote topic 100 other
 * records then r0..rN (source offset u is target offset u + 100), and the loop that commits offset
 * u writes the offset sync u -> u + 100 just before. A translated offset is therefore never above
 * (source position + 100), and a failover consumer's first record names the source offset it
 * resumes from.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { nodeRedInstances, sharedFlowBase } = require('../harness/instances');
const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');
const { encodeOffsetSync } = require('../../dist/core/offset-sync');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');

describe('share drills: kill -9 and SIGSTOP of one of three Node-RED instances sharing the checkpoint work (real brokers)', function () {
  this.timeout(900000);
  const S = env.unique('sds');
  const T = env.unique('sdt');
  const P = env.unique('sdg');
  const TOPIC = env.unique('sd-orders');
  const REMOTE = `${S}.${TOPIC}`;
  const SYNCS = `mm2-offset-syncs.${T}.internal`;
  const CHECKPOINTS = `${S}.checkpoints.internal`;
  const RECORDS = 3000;
  const SHIFT = 100;
  const nrs = nodeRedInstances('mm2-share-drills-');
  let committer;
  let syncProducer;
  let targetAdmin;

  // the commit loop: offset u for every group of `commitGroups`, the sync u -> u + SHIFT written first
  let u = 0;
  let commitGroups = [];
  let committing = false;
  let loop = null;
  /** group -> the last source offset committed; group -> the last one asked (set before the commit: a bound the target never passes) */
  const srcPos = new Map();
  const asked = new Map();
  // the poller: group -> the last target offset seen; the backward moves and the offsets beyond the source position
  const seen = new Map();
  const backwards = [];
  const beyond = [];
  let polling = true;
  let poller = null;
  const polled = new Set();

  function flow(name) {
    const groups = `${P}-.*`;
    const file = (id, what) => nrs.fileNode(name, id, what);
    return [
      ...sharedFlowBase(S, T, 'drills'),
      {
        id: 'cp', type: 'mm2-checkpoint', z: 'tab', replication: 'rep', groups, groupsExclude: '', topics: TOPIC, topicsExclude: '',
        emitCheckpointsIntervalSeconds: '2', refreshGroupsIntervalSeconds: '2', sourceOffsets: 'auto', wires: [['cp-out'], []],
      },
      { id: 'go', type: 'mm2-group-offsets', z: 'tab', replication: 'rep', mode: 'replication', syncGroupOffsetsIntervalSeconds: '2', groups, groupsExclude: '', wires: [['go-out']] },
      file('cp-out', 'checkpoints'),
      file('go-out', 'commits'),
    ];
  }

  const start = (name) => nrs.start(name, flow(name));
  const lines = nrs.lines;
  /** The groups of `among` an instance wrote a checkpoint for. */
  const checkpointedBy = (name, among) => new Set(lines(name, 'checkpoints').flatMap((p) => p.checkpoints.map((c) => c.group)).filter((g) => among.includes(g)));

  const status = nrs.status;
  const logs = nrs.logs;
  const sharing = (name, n) => new RegExp(`${n} instances`).test(status(name, 'cp').text || '');
  const aloneNow = (name) => /\d/.test(status(name, 'cp').text || '') && !/instances/.test(status(name, 'cp').text || '');

  async function targetOffset(g) {
    const [o] = await targetAdmin.fetchOffsets({ groupId: g, topics: [REMOTE] });
    const v = o && o.partitions[0] ? Number(o.partitions[0].offset) : -1;
    return v;
  }

  async function commitLoop() {
    while (committing) {
      if (u < RECORDS - 1) u++;
      const { key, value } = encodeOffsetSync({ topic: TOPIC, partition: 0, upstreamOffset: BigInt(u), downstreamOffset: BigInt(u + SHIFT) });
      await syncProducer.send({ topic: SYNCS, messages: [{ key, value, partition: 0 }] });
      for (const g of commitGroups) {
        asked.set(g, u);
        const r = await committer.commit(g, [{ topic: TOPIC, partition: 0, offset: BigInt(u) }]);
        if (r.ok) srcPos.set(g, u);
      }
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  function startCommits(groups) {
    commitGroups = groups;
    for (const g of groups) polled.add(g);
    committing = true;
    loop = commitLoop();
  }
  async function stopCommits() {
    committing = false;
    if (loop) await loop;
    loop = null;
  }

  async function pollLoop() {
    while (polling) {
      for (const g of [...polled]) {
        let t;
        try {
          t = await targetOffset(g);
        } catch {
          continue;
        }
        // the highest source offset asked once the target answered: the offset it answered came from a commit asked before
        const pos = asked.get(g);
        if (t < 0) continue;
        const before = seen.get(g);
        if (before !== undefined && t < before) backwards.push({ group: g, from: before, to: t, at: new Date().toISOString() });
        if (pos !== undefined && t > pos + SHIFT) beyond.push({ group: g, target: t, source: pos });
        seen.set(g, t);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Waits until every group of `groups` has a target offset of at least `min`; resolves with the ms it took. */
  async function everyAtLeast(groups, min, timeout, what) {
    const t0 = Date.now();
    await env.eventually(async () => {
      for (const g of groups) if ((await targetOffset(g)) < min) return false;
      return true;
    }, { timeout, interval: 200, what });
    return Date.now() - t0;
  }

  /** Waits until the target offsets of `groups` equal the source position + SHIFT (commits stopped). */
  async function settled(groups) {
    await env.eventually(async () => {
      for (const g of groups) if ((await targetOffset(g)) !== srcPos.get(g) + SHIFT) return false;
      return true;
    }, { timeout: 90000, what: 'every target offset at its source position + 100 once the commits stopped' });
  }

  /** Every record of `topic` on `cluster` (one partition), in order. */
  async function readTopic(cluster, topic) {
    const admin = await env.admin(cluster);
    const [end] = await admin.fetchTopicOffsets(topic);
    const high = Number(end.high);
    const out = [];
    if (high === 0) return out;
    const c = env.kafka(cluster).consumer({ groupId: env.unique('sd-reader') });
    await c.connect();
    await c.subscribe({ topics: [topic], fromBeginning: true });
    await c.run({ autoCommit: false, eachMessage: async ({ message }) => { out.push(message); } });
    await env.eventually(() => out.length > 0 && Number(out[out.length - 1].offset) >= high - 1, { timeout: 60000, what: `${topic} read to its end ${high}` });
    await c.disconnect();
    return out;
  }

  before(async function () {
    const source = await env.admin('source');
    targetAdmin = await env.admin('target');
    await source.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }, { topic: SYNCS, numPartitions: 1 }], waitForLeaders: true });
    await targetAdmin.createTopics({ topics: [{ topic: REMOTE, numPartitions: 1 }], waitForLeaders: true });
    const sp = env.kafka('source').producer({ allowAutoTopicCreation: false });
    const tp = env.kafka('target').producer({ allowAutoTopicCreation: false });
    await Promise.all([sp.connect(), tp.connect()]);
    for (let i = 0; i < RECORDS; i += 500) {
      await sp.send({ topic: TOPIC, messages: Array.from({ length: 500 }, (_, j) => ({ value: `r${i + j}` })) });
    }
    await tp.send({ topic: REMOTE, messages: Array.from({ length: SHIFT }, (_, i) => ({ value: `f${i}` })) });
    for (let i = 0; i < RECORDS; i += 500) {
      await tp.send({ topic: REMOTE, messages: Array.from({ length: 500 }, (_, j) => ({ value: `r${i + j}` })) });
    }
    const { key, value } = encodeOffsetSync({ topic: TOPIC, partition: 0, upstreamOffset: 0n, downstreamOffset: BigInt(SHIFT) });
    await sp.send({ topic: SYNCS, messages: [{ key, value, partition: 0 }] });
    await tp.disconnect();
    syncProducer = sp;
    committer = new AdminOffsetCommitter(env.kafka('source'));
    // __consumer_offsets exists on the source before the instances start (see share-instances.test.js)
    assert.equal((await committer.commit(`warm-${P}`, [{ topic: TOPIC, partition: 0, offset: 0n }])).ok, true);
    await env.eventually(async () => (await source.listTopics()).includes('__consumer_offsets'), { what: '__consumer_offsets on the source' });
    poller = pollLoop();
  });

  after(async function () {
    if (this.currentTest && this.currentTest.state === 'failed') console.log(logs());
    committing = false;
    if (loop) await loop.catch(() => {});
    polling = false;
    if (poller) await poller.catch(() => {});
    await nrs.stopAll();
    if (committer) await committer.close();
    if (syncProducer) await syncProducer.disconnect();
  });

  it('kill -9 of one of three instances, owning groups: the two others write their next commits on the target, nothing moves backwards, a failover skips nothing', async function () {
    await start('a');
    await start('b');
    await start('c');
    try {
      await env.eventually(() => ['a', 'b', 'c'].every((n) => sharing(n, 3)), { timeout: 180000, what: 'the three checkpoint nodes showing a share of 3 instances' });
    } catch (e) {
      throw new Error(`${e.message}: ${['a', 'b', 'c'].map((n) => `${n} ${JSON.stringify(status(n, 'cp'))}`).join(', ')}\n${logs()}`);
    }
    const groups = Array.from({ length: 20 }, (_, i) => `${P}-g${i}`);
    startCommits(groups);
    const u0 = u;
    await everyAtLeast(groups, u0 + SHIFT + 1, 120000, 'every group translated on the target under commits');
    const ownedB = [...checkpointedBy('b', groups)];
    const ownedA = [...checkpointedBy('a', groups)];
    const ownedC = [...checkpointedBy('c', groups)];
    assert.ok(ownedB.length > 0, `b owns groups (a ${ownedA.length}, b ${ownedB.length}, c ${ownedC.length})`);
    for (const g of groups) assert.equal([ownedA, ownedB, ownedC].filter((o) => o.includes(g)).length, 1, `${g} checkpointed by exactly one instance`);

    // kill -9 b, commits going on
    const killU = u;
    const killedAt = Date.now();
    nrs.kill('b');
    const tookOver = await everyAtLeast(ownedB, killU + SHIFT + 1, 90000, `b's ${ownedB.length} groups with a commit made after the kill visible on the target`);
    console.log(`      kill -9: b's ${ownedB.length} groups fresh on the target ${(tookOver / 1000).toFixed(1)} s after the kill (sharing session timeout 10 s)`);
    await env.eventually(() => sharing('a', 2) && sharing('c', 2), { timeout: 60000, what: `a and c sharing as 2 instances after the kill (a ${status('a', 'cp').text}, c ${status('c', 'cp').text})` });
    console.log(`      a and c showing 2 instances ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill: ${status('a', 'cp').text} / ${status('c', 'cp').text}`);
    const [tookA, tookC] = [checkpointedBy('a', ownedB), checkpointedBy('c', ownedB)];
    for (const g of ownedB) assert.ok(tookA.has(g) || tookC.has(g), `${g}: checkpointed by a or c after the kill`);
    console.log(`      b's groups taken by a: ${tookA.size}, by c: ${tookC.size}`);

    await stopCommits();
    await settled(groups);
    assert.deepEqual(backwards, [], 'no target offset moved backwards');
    assert.deepEqual(beyond, [], 'no target offset beyond the source position');

    // fail over b's former groups (up to 3): each consumes the target from the offsets the flow wrote
    for (const g of ownedB.slice(0, 3)) {
      const pos = srcPos.get(g);
      const consumed = [];
      const c = env.kafka('target').consumer({ groupId: g });
      await c.connect();
      await c.subscribe({ topics: [REMOTE], fromBeginning: true });
      await c.run({ autoCommit: false, eachMessage: async ({ message }) => { consumed.push(message.value.toString()); } });
      await env.eventually(() => consumed.includes(`r${pos + 10}`), { timeout: 60000, what: `${g} to read past its source position ${pos}` });
      await c.disconnect();
      const first = consumed[0];
      assert.match(first, /^r\d+$/, `${g}: resumes in the mirrored records (${first})`);
      assert.ok(Number(first.slice(1)) <= pos, `${g}: resumes at r${first.slice(1)}, at or before its source position ${pos} (nothing skipped)`);
      for (let k = pos; k <= pos + 10; k++) assert.ok(consumed.includes(`r${k}`), `${g}: r${k} not skipped`);
    }
  });

  it('SIGSTOP of an instance owning groups past the session timeout, then SIGCONT: nothing moves backwards, no stale checkpoint wins the checkpoints topic', async function () {
    await env.eventually(() => sharing('a', 2) && sharing('c', 2), { timeout: 120000, what: `a and c showing a share of 2 instances (a ${status('a', 'cp').text}, c ${status('c', 'cp').text})` });
    const groups = Array.from({ length: 20 }, (_, i) => `${P}-s${i}`);
    startCommits(groups);
    const u0 = u;
    await everyAtLeast(groups, u0 + SHIFT + 1, 120000, 'every group translated on the target under commits');
    const ownedC = [...checkpointedBy('c', groups)];
    assert.ok(ownedC.length > 0, `c owns groups (${ownedC.length})`);
    assert.deepEqual(ownedC.filter((g) => checkpointedBy('a', groups).has(g)), [], 'no group checkpointed by both a and c');

    const stopU = u;
    const stoppedAt = Date.now();
    nrs.pause('c');
    await env.eventually(() => aloneNow('a'), { timeout: 120000, what: `a alone after c stopped (${status('a', 'cp').text})` });
    const takeoverMs = Date.now() - stoppedAt;
    // what the checkpoints topic holds from the takeover on
    const [end] = await targetAdmin.fetchTopicOffsets(CHECKPOINTS);
    const boundary = Number(end.high);
    const fresh = await everyAtLeast(ownedC, stopU + SHIFT + 1, 90000, `c's ${ownedC.length} groups with a commit made after SIGSTOP visible on the target`);
    // the pause the issue's drill asks for (60 s, six times the sharing session timeout), a keeping c's groups fresh meanwhile
    const PAUSE_MS = 60000;
    let freshU = u;
    await env.eventually(async () => {
      await everyAtLeast(ownedC, freshU + SHIFT + 1, 60000, `c's groups kept fresh by a while c is stopped`);
      freshU = u;
      return Date.now() - stoppedAt >= PAUSE_MS;
    }, { timeout: PAUSE_MS + 120000, interval: 200, what: `c stopped for ${PAUSE_MS / 1000} s, a keeping its groups fresh` });
    assert.ok(aloneNow('a'), `a still alone while c is stopped (${status('a', 'cp').text})`);
    const stoppedFor = Date.now() - stoppedAt;
    console.log(`      SIGSTOP: a alone ${(takeoverMs / 1000).toFixed(1)} s after it, c's ${ownedC.length} groups fresh ${(fresh / 1000).toFixed(1)} s later; SIGCONT after ${(stoppedFor / 1000).toFixed(1)} s`);

    const cLinesAtCont = lines('c', 'checkpoints').length;
    nrs.resume('c');
    const contU = u;
    // c comes back into the split, then commits made after the wake reach the target
    await env.eventually(() => sharing('a', 2) && sharing('c', 2), { timeout: 120000, what: `a and c sharing again after SIGCONT (a ${status('a', 'cp').text}, c ${status('c', 'cp').text})` });
    await everyAtLeast(groups, contU + SHIFT + 1, 120000, 'every group with a commit made after SIGCONT visible on the target');
    await stopCommits();
    await settled(groups);
    assert.deepEqual(backwards, [], 'no target offset moved backwards');
    assert.deepEqual(beyond, [], 'no target offset beyond the source position');

    // the checkpoints topic since the takeover: for each key, the last record has the highest upstream offset
    const records = (await readTopic('target', CHECKPOINTS)).filter((m) => Number(m.offset) >= boundary);
    /** @type {Map<string, bigint[]>} */
    const byKey = new Map();
    for (const m of records) {
      const cp = decodeCheckpoint(m.key, m.value);
      if (!groups.includes(cp.group)) continue;
      const k = `${cp.group}/${cp.topic}/${cp.partition}`;
      if (!byKey.has(k)) byKey.set(k, []);
      byKey.get(k).push(cp.upstreamOffset);
    }
    assert.ok(byKey.size > 0, 'checkpoints written since the takeover');
    const lower = [];
    let stale = 0;
    for (const [k, ups] of byKey) {
      const max = ups.reduce((x, y) => (y > x ? y : x));
      if (ups[ups.length - 1] !== max) lower.push({ key: k, last: String(ups[ups.length - 1]), max: String(max) });
      for (let i = 1; i < ups.length; i++) if (ups.slice(0, i).some((x) => x > ups[i])) stale++;
    }
    const woke = lines('c', 'checkpoints').slice(cLinesAtCont).flatMap((p) => p.checkpoints).filter((x) => groups.includes(x.group));
    console.log(`      checkpoints since the takeover: ${records.length} records, ${byKey.size} keys, ${stale} below an earlier one of their key; c wrote ${woke.length} after SIGCONT`);
    assert.deepEqual(lower, [], 'for each key the last checkpoint since the takeover has the highest upstream offset');
  });
});
