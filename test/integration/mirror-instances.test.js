'use strict';
/**
 * Issue 25, the mirror part: the same mm2-mirror flow in three real Node-RED processes on the same
 * clusters. The instances join the flow's consumer group on the source and Kafka splits the
 * source partitions among them; each resumes a partition from the progress kept per replication
 * and partition.
 *
 * While records are produced all along: one instance alone, then three (the partitions split
 * disjointly, every status says its share), then kill -9 of one (the two left take its partitions
 * once its session times out). Afterwards:
 *   - every record produced arrives on the target at least once, per partition in order (the first
 *     copies in source order);
 *   - duplicates (records on the target more than once) are exactly those the instances counted
 *     and logged, and bounded (what the killed instance copied after its last progress commit);
 *   - every offset sync maps a source record to the target offset of a copy of the same record;
 *     none goes backwards before the kill (a partition that moves resumes where its owner's
 *     commit, made when the rebalance was announced, says); and the translation of every source
 *     offset by the syncs (MM2's OffsetSyncStore rules, core/offset-sync-store) skips nothing: a
 *     consumer failing over at the translated target offset reads a copy of every record from there.
 */
const assert = require('node:assert/strict');
const { AssignerProtocol } = require('kafkajs');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { decodeOffsetSync } = require('../../dist/core/offset-sync');
const { OffsetSyncStore } = require('../../dist/core/offset-sync-store');
const peer = require('../harness/checkpoint-peer');

const PARTITIONS = 6;
const ALL = Array.from({ length: PARTITIONS }, (_, p) => p);

/** Every record of `topic` (to the end offsets seen now), per partition in order: { offset, value, timestamp }. */
async function readAll(clusterName, topic, partitions = null) {
  const admin = await env.admin(clusterName);
  const offs = (await admin.fetchTopicOffsets(topic)).filter((o) => partitions === null || partitions.includes(o.partition));
  const out = new Map(offs.map((o) => [o.partition, []]));
  const todo = offs.filter((o) => BigInt(o.high) > BigInt(o.low));
  if (todo.length === 0) return out;
  const consumer = env.kafka(clusterName).consumer({ groupId: env.unique('reader'), maxWaitTimeInMs: 200, maxBytesPerPartition: 4 * 1024 * 1024 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const need = new Map(todo.map((o) => [o.partition, BigInt(o.high) - 1n]));
  const done = new Set();
  let finish;
  const finished = new Promise((r) => (finish = r));
  await consumer.run({
    eachBatch: async ({ batch }) => {
      const last = need.get(batch.partition);
      if (last === undefined) return;
      for (const m of batch.messages) {
        if (BigInt(m.offset) > last) break;
        out.get(batch.partition).push({ offset: BigInt(m.offset), key: m.key, raw: m.value, value: m.value ? m.value.toString() : null, timestamp: Number(m.timestamp) });
      }
      if (BigInt(batch.lastOffset()) >= last) done.add(batch.partition);
      if (done.size === need.size) finish();
    },
  });
  try {
    await Promise.race([finished, new Promise((_, rej) => setTimeout(() => rej(new Error(`reading ${topic} timed out`)), 60000))]);
  } finally {
    await consumer.disconnect();
  }
  return out;
}

describe('mm2-mirror in three Node-RED instances (issue 25; real Node-RED processes, real brokers)', function () {
  this.timeout(600000);
  const instances = [];
  let producing = null;
  let mm2 = null;

  after(async function () {
    if (mm2) await mm2.close().catch(() => undefined);
    if (producing) await producing.stop().catch(() => undefined);
    await Promise.all(instances.map((nr) => nr.stop().catch(() => undefined)));
  });

  it('splits the partitions; after a kill -9 the others take them: every record copied, duplicates counted and bounded, offset syncs translate without skipping', async function () {
    const tag = Date.now().toString(36);
    const SRC = `mis${tag}`;
    const TGT = `mit${tag}`;
    const topic = env.unique('mirror-instances');
    const remote = `${SRC}.${topic}`;
    const syncsTopic = `mm2-offset-syncs.${TGT}.internal`;
    const group = `__mm2-node-red-mirror.${SRC}-${TGT}`;
    const srcAdmin = await env.admin('source');
    await srcAdmin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });

    const flow = [
      { id: 'tab', type: 'tab', label: 'mirror instances' },
      { id: 'c-src', type: 'mm2-cluster', alias: SRC, bootstrap: env.cluster('source').bootstrap, saslMechanism: 'none' },
      { id: 'c-tgt', type: 'mm2-cluster', alias: TGT, bootstrap: env.cluster('target').bootstrap, saslMechanism: 'none' },
      { id: 'rep', type: 'mm2-replication', source: 'c-src', target: 'c-tgt', policy: 'DefaultReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'source', offsetTranslation: 'precise', replicationFactor: '1' },
      {
        id: 'mirror', type: 'mm2-mirror', z: 'tab', name: '', replication: 'rep', topics: topic, topicsExclude: '', heartbeatsReplicationEnabled: false,
        replicationFactor: '1', offsetLagMax: '10', emitOffsetSyncsEnabled: true, offsetFlushIntervalMs: '1000', refreshTopicsIntervalSeconds: '600',
        syncTopicConfigsEnabled: false, syncTopicAclsEnabled: false, x: 200, y: 100, wires: [[]],
      },
    ];

    // ---- records produced all along: value `<partition>:<n>`, n counting per partition ----------
    const producer = env.kafka('source').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const produced = new Map(ALL.map((p) => [p, 0]));
    let stopProducing = false;
    const producingSince = Date.now();
    const loop = (async () => {
      while (!stopProducing) {
        const messages = ALL.flatMap((p) => [0, 1, 2].map(() => {
          const n = produced.get(p);
          produced.set(p, n + 1);
          return { partition: p, value: `${p}:${n}` };
        }));
        await producer.send({ topic, acks: -1, messages });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    producing = { stop: async () => { stopProducing = true; await loop; await producer.disconnect(); } };

    const start = async () => {
      const nr = await startNodeRed({ quiet: true, logLevel: 'info' });
      instances.push(nr);
      const statuses = await nr.watchStatuses();
      await nr.deploy(flow);
      return { nr, statuses };
    };
    const text = (i) => i.statuses.get('mirror')?.text ?? '';
    const shareOf = (i, count) => {
      const m = new RegExp(`^copying (\\d+) of ${PARTITIONS} partitions, ${count} instances`).exec(text(i));
      return m ? Number(m[1]) : null;
    };

    // ---- one instance: copies everything, its status as before --------------------------------
    const a = await start();
    await env.eventually(() => /^mirroring 1 topic/.test(text(a)), { what: `instance A mirroring (status: ${text(a)})`, timeout: 60000 });
    await env.eventually(async () => {
      const ends = await (await env.admin('target')).fetchTopicOffsets(remote).catch(() => []);
      return ends.length === PARTITIONS && ends.every((e) => BigInt(e.high) > 0n);
    }, { what: 'records copied to every remote partition', timeout: 60000 });

    // ---- three instances: disjoint shares, each status says its share ------------------------
    const b = await start();
    const c = await start();
    const all3 = [a, b, c];
    const shares = await env.eventually(() => {
      const s = all3.map((i) => shareOf(i, 3));
      return s.every((x) => x !== null) && s.reduce((x, y) => x + y, 0) === PARTITIONS ? s : null;
    }, { what: `three shares adding up to ${PARTITIONS} (statuses: ${all3.map(text).join(' | ')})`, timeout: 120000 });
    assert.ok(shares.every((s) => s >= 1), `every instance copies some: ${shares}`);
    const described = (await srcAdmin.describeGroups([group])).groups[0];
    assert.equal(described.members.length, 3, 'three members in the flow\'s group');
    const owned = described.members.map((m) => AssignerProtocol.MemberAssignment.decode(m.memberAssignment).assignment[topic] ?? []);
    assert.deepEqual(owned.flat().sort((x, y) => x - y), ALL, `each partition owned by exactly one instance: ${JSON.stringify(owned)}`);
    assert.deepEqual(owned.map((o) => o.length).sort(), [...shares].sort(), 'the statuses say the shares the group assigned');
    // copying goes on in the shared state
    const before = await (await env.admin('target')).fetchTopicOffsets(remote);
    await env.eventually(async () => {
      const now = await (await env.admin('target')).fetchTopicOffsets(remote);
      return now.every((e) => BigInt(e.high) > BigInt(before.find((x) => x.partition === e.partition).high));
    }, { what: 'every remote partition growing with three instances', timeout: 60000 });

    // ---- kill -9 of one instance under load: the two left take its partitions ----------------
    const killedAt = Date.now();
    c.nr.process.kill('SIGKILL');
    const left = [a, b];
    await env.eventually(() => {
      const s = left.map((i) => shareOf(i, 2));
      return s.every((x) => x !== null) && s.reduce((x, y) => x + y, 0) === PARTITIONS;
    }, { what: `two shares adding up to ${PARTITIONS} after the kill (statuses: ${left.map(text).join(' | ')})`, timeout: 120000 });
    const tookOver = Date.now() - killedAt;
    // a little more under load, then every record must arrive
    await new Promise((r) => setTimeout(r, 3000));
    await producing.stop();
    producing = null;
    const total = [...produced.values()].reduce((x, y) => x + y, 0);

    /** @type {Map<number, Array<{ offset: bigint, key: any, raw: any, value: string | null, timestamp: number }>>} */
    let target = new Map();
    await env.eventually(async () => {
      const ends = await (await env.admin('target')).fetchTopicOffsets(remote);
      if (ends.reduce((n, e) => n + Number(BigInt(e.high) - BigInt(e.low)), 0) < total) return false;
      target = await readAll('target', remote);
      return ALL.every((p) => new Set(target.get(p).map((r) => r.value)).size === produced.get(p));
    }, { what: `all ${total} records on the target`, timeout: 120000, interval: 1000 });

    // every record at least once, the first copies in source order
    let duplicates = 0;
    for (const p of ALL) {
      const firsts = [];
      const seen = new Set();
      for (const r of target.get(p)) {
        if (seen.has(r.value)) duplicates++;
        else {
          seen.add(r.value);
          firsts.push(Number(r.value.split(':')[1]));
        }
      }
      assert.equal(firsts.length, produced.get(p), `partition ${p}: every record`);
      assert.ok(firsts.every((n, i) => n === i), `partition ${p}: the first copies in source order`);
    }

    // duplicates counted by the instances (their logs) = duplicates on the target; bounded
    const counted = () => all3.reduce((sum, i) => {
      const totals = [...i.nr.log.matchAll(/copied \d+ record\(s\) again[^\n]*?: (\d+) since the start/g)].map((m) => Number(m[1]));
      return sum + (totals.length ? totals[totals.length - 1] : 0);
    }, 0);
    await env.eventually(() => counted() === duplicates, { what: `the instances to count ${duplicates} duplicate(s) (counted ${counted()})`, timeout: 20000 }).catch(() => undefined);
    assert.equal(counted(), duplicates, `duplicates on the target ${duplicates}, counted and logged by the instances ${counted()}`);
    // the killed instance committed its progress every second (offset.flush.interval.ms=1000): only
    // what it copied after its last commit comes again, far less than 10 s of everything produced
    const perSecond = total / ((Date.now() - producingSince) / 1000);
    assert.ok(duplicates <= perSecond * 10, `duplicates ${duplicates}: more than 10 s of the records produced (${perSecond.toFixed(0)}/s)`);

    // ---- offset syncs: each maps a record to a copy of it; none backwards before the kill; translation skips nothing
    const syncRecords = (await readAll('source', syncsTopic, [0])).get(0) ?? [];
    const syncs = syncRecords.map((r) => ({ ...decodeOffsetSync(r.key, r.raw), timestamp: r.timestamp }))
      .filter((s) => s.topic === topic);
    const source = await readAll('source', topic);
    assert.ok(syncs.length >= PARTITIONS, `${syncs.length} syncs`);
    let rewinds = 0;
    const lastUp = new Map();
    for (const s of syncs) {
      const src = source.get(s.partition).find((r) => r.offset === s.upstreamOffset);
      const tgt = target.get(s.partition).find((r) => r.offset === s.downstreamOffset);
      assert.ok(src && tgt && src.value === tgt.value, `sync ${s.partition}: ${s.upstreamOffset}->${s.downstreamOffset} maps ${src?.value} to ${tgt?.value}`);
      const prev = lastUp.get(s.partition);
      if (prev !== undefined && s.upstreamOffset < prev) rewinds++;
      lastUp.set(s.partition, s.upstreamOffset);
    }
    // a moved partition resumes at its owner's commit (made when the rebalance was announced); after
    // the kill the new owner writes no sync for the records the target had already (below the mark)
    assert.equal(rewinds, 0, 'no offset sync went backwards (a reader would drop the partition\'s history)');
    const store = new OffsetSyncStore({ keepHistoryOnLoad: true, translation: 'mm2' });
    for (const s of syncs) store.apply({ topic: s.topic, partition: s.partition, upstreamOffset: s.upstreamOffset, downstreamOffset: s.downstreamOffset });
    store.markLoaded();
    let translated = 0;
    /** per partition, for each source record index, the lowest target offset of the last copies of the records at or after it */
    const noSkip = new Map();
    for (const p of ALL) {
      // per source offset, the highest target offset holding a copy of its record
      const lastCopy = new Map();
      for (const r of target.get(p)) lastCopy.set(r.value, r.offset);
      const recs = source.get(p);
      // from the end backwards: the lowest "highest copy" of every record at or after g
      const minAfter = new Array(recs.length + 1).fill(null);
      for (let i = recs.length - 1; i >= 0; i--) {
        const c = lastCopy.get(recs[i].value);
        minAfter[i] = minAfter[i + 1] === null || c < minAfter[i + 1] ? c : minAfter[i + 1];
      }
      noSkip.set(p, minAfter);
      for (let i = 0; i <= recs.length; i++) {
        const g = i < recs.length ? recs[i].offset : recs[recs.length - 1].offset + 1n;
        const t = store.translate(topic, p, g);
        if (t === undefined || t < 0n) continue;
        translated++;
        if (minAfter[i] !== null) assert.ok(t <= minAfter[i], `partition ${p}: offset ${g} translates to ${t}, past the copy at ${minAfter[i]} of a record at or after it (a failover would skip it)`);
      }
    }
    assert.ok(translated > total / 2, `${translated} source offsets translated`);

    // ---- MM2's own MirrorCheckpointConnector on these offset syncs ------------------------------
    // groups committed on the source at the start, a third, two thirds and the end of each
    // partition (the kill's resume points fall in between): MM2 checkpoints every one, and a
    // failover at its target offset skips nothing
    const committer = new peer.AdminOffsetCommitter(env.kafka('source'));
    const at = { start: () => 0, third: (n) => Math.floor(n / 3), twoThirds: (n) => Math.floor((2 * n) / 3), end: (n) => n };
    const groups = Object.keys(at).map((k) => `${SRC}-g-${k}`);
    const position = {};
    for (const [k, f] of Object.entries(at)) {
      const g = `${SRC}-g-${k}`;
      position[g] = ALL.map((p) => {
        const recs = source.get(p);
        const i = f(recs.length);
        return { index: i, offset: i < recs.length ? recs[i].offset : recs[recs.length - 1].offset + 1n };
      });
      await peer.commitOnSource(committer, g, ALL.map((p) => [topic, p, position[g][p].offset]));
    }
    await committer.close();
    mm2 = await peer.startCheckpointPeer({ a: SRC, b: TGT, props: { topics: topic, groups: `${SRC}-g-.*`, 'sync.group.offsets.enabled': 'false' } });
    await mm2.start();
    let latest = {};
    const expected = groups.flatMap((g) => ALL.filter((p) => (store.translate(topic, p, position[g][p].offset) ?? -1n) >= 0n).map((p) => [g, p]));
    assert.equal(expected.length, groups.length * PARTITIONS, 'our translation of the same syncs answers for every group partition');
    await env.eventually(async () => {
      latest = peer.latestOf(await peer.readCheckpoints(peer.checkpointsTopicOf(SRC)).catch(() => []));
      return expected.every(([g, p]) => latest[`${g} ${remote}-${p}`]?.[0] === String(position[g][p].offset));
    }, { timeout: 120000, interval: 1000, what: `MM2 to checkpoint ${groups.length * PARTITIONS} group partitions (has ${Object.keys(latest).length})` });
    await mm2.close();
    mm2 = null;
    let checkpoints = 0;
    for (const g of groups) {
      for (const p of ALL) {
        const down = BigInt(latest[`${g} ${remote}-${p}`][1]);
        assert.equal(latest[`${g} ${remote}-${p}`][0], String(position[g][p].offset), `${g} ${p}: MM2's checkpoint of the committed offset`);
        const { index, offset } = position[g][p];
        const ours = store.translate(topic, p, offset);
        const bound = noSkip.get(p)[index];
        assert.ok(down >= 0n, `${g} ${p}: MM2's checkpoint ${down}`);
        if (bound !== null) assert.ok(down <= bound, `${g} ${p}: MM2 translates ${offset} to ${down}, past the copy at ${bound} of a record at or after it (a failover would skip it)`);
        else assert.ok(down <= BigInt(target.get(p).length), `${g} ${p}: at the end, ${down} within the remote partition`);
        assert.ok(ours === undefined || ours < 0n || down >= ours, `${g} ${p}: MM2's ${down} >= our translation ${ours} of the same syncs`);
        checkpoints++;
      }
    }
    console.log(`      ${total} records, shares ${shares.join('+')}, taken over ${(tookOver / 1000).toFixed(1)} s after the kill, ${duplicates} duplicate(s) counted, ${syncs.length} syncs, ${translated} offsets translated, ${checkpoints} MM2 checkpoints without a skip`);
  });
});
