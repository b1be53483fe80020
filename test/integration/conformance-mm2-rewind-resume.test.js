'use strict';
/**
 * Issue 26, items 1 and 2, beside the real MirrorMaker 2 (Kafka's own connect-mirror connectors on
 * one distributed Connect worker bootstrapped to the target, shared by both scenarios, as
 * dedicated mode builds a flow's worker: test/harness/checkpoint-peer.js). Each side has its own
 * aliases, so MM2's and our remote topics, checkpoints topics and progress never mix.
 *
 * (1) The rewind drill. One source topic (4 partitions, 30 records each), its records at the same
 * offsets in MM2's remote topic and in ours, and one offset-syncs topic both read (the flows share
 * the target alias, so MM2's checkpoint connector and our mm2-offset-syncs node read the very same
 * syncs: 0, 10, 20 and 29 of partitions 0 to 2, only 20 and 29 of partition 3). Three consumer groups with the same history on the
 * source: `-gm` checkpointed by MM2's MirrorCheckpointConnector (sync.group.offsets.enabled=true,
 * 1 s intervals), `-gf` by our mm2-checkpoint -> mm2-group-offsets (followRewinds on, the
 * default), `-gx` by a second mm2-group-offsets node with followRewinds off (MM2's behaviour),
 * `-gy` by a second chain of ours, from a third source alias, whose replication translates as MM2
 * (`offsetTranslation: mm2`).
 * History: consumed to 30, 30, 20, 30; checkpointed; partitions 0, 1 and 3 rewound to 5 on the
 * source (an admin commit, as kafka-consumer-groups --reset-offsets does; on partition 3 below
 * every sync), and once every side has
 * checkpointed the rewind, partition 2 consumed to 30: when a side's target offset of partition 2
 * moves, that side has synced the group's offsets with the rewind in hand. Measured, then the
 * groups fail over (a consumer on the target resumes from the group's target offsets) and the
 * records at or after the source position that it skipped are counted:
 *   - MM2's checkpoints follow the rewind within the syncs (5 -> 1), not below every sync (no
 *     checkpoint: its translation is -1, dropped; the last one, 30 -> 30, stays), and its target
 *     offsets all stay at 30 (MirrorCheckpointTask.syncGroupOffset never lowers one): its failover
 *     skips 75 (25 on each rewound partition);
 *   - ours with followRewinds off, and ours in the mm2 translation, write the same target offsets
 *     as MM2, partition by partition (the mm2 translation also the same checkpoints, in order);
 *   - ours (default) moves partitions 0, 1 and 3 back once (3 to the remote partition's start),
 *     reports it, and its failover skips 0.
 *
 * (2) The mirror resume. One source topic (2 partitions) that grows while the mirrors are away:
 * MM2's MirrorSourceConnector and our mm2-mirror copy it (each to its own remote topic), are
 * removed, records are added, and they come back: MM2's connector re-created under the same
 * connector name, ours re-imported with a new node id; then again with records added, MM2's under
 * another connector name, ours as a renamed copy with yet another id. In between, MM2's Connect
 * worker is stopped and a new one started on the same internal topics while the source grows (a
 * redeployed dedicated MM2), ours redeployed. Counted after each round: records on the target,
 * duplicates, records missing. Measured:
 *   - MM2 re-created under its connector name resumes (70 records, 0 duplicates), as ours
 *     re-imported with a new node id does; so do MM2 after its worker's restart and ours
 *     redeployed (80, 0);
 *   - MM2 re-created under another connector name does NOT resume: Kafka Connect keys a source
 *     connector's offsets by connector name ([name, {cluster, topic, partition}] in the worker's
 *     offsets topic), the new connector finds none and MirrorSourceTask starts at the earliest
 *     offset: all 100 records again, 80 duplicates. (Dedicated mode names its connectors after
 *     their classes, so a redeployed dedicated MM2 has the same names and resumes.) Ours keeps its
 *     progress per replication flow (source alias -> target alias), whatever the node's id or
 *     name: the renamed copy resumes (100 records, 0 duplicates).
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const peer = require('../harness/checkpoint-peer');
const { startConnectWorker } = require('../../scripts/kafka/connect');

const PARTITIONS = 4;
const RECORDS = 30;
const SOURCE_CONNECTOR = 'org.apache.kafka.connect.mirror.MirrorSourceConnector';

async function produce(cluster, topic, messages) {
  const p = env.kafka(cluster).producer({ allowAutoTopicCreation: false });
  await p.connect();
  try {
    await p.send({ topic, acks: -1, messages });
  } finally {
    await p.disconnect();
  }
}

/** Every record of `topic` on `cluster` (to the end offsets seen now): values per partition, in order. */
async function valuesOf(cluster, topic) {
  const admin = await env.admin(cluster);
  const ends = await admin.fetchTopicOffsets(topic);
  const out = new Map(ends.map((e) => [e.partition, []]));
  const last = new Map(ends.map((e) => [e.partition, BigInt(e.high) - 1n]));
  const seen = new Map(ends.map((e) => [e.partition, BigInt(e.low) - 1n]));
  const consumer = env.kafka(cluster).consumer({ groupId: env.unique('__rr-read'), maxWaitTimeInMs: 200 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        if (BigInt(message.offset) > last.get(partition)) return;
        out.get(partition).push(String(message.value));
        seen.set(partition, BigInt(message.offset));
      },
    });
    await env.eventually(() => [...last].every(([p, l]) => seen.get(p) >= l), { timeout: 30000, what: `every record of ${topic} on ${cluster}` });
  } finally {
    await consumer.disconnect();
  }
  return out;
}

/** Records on `cluster`'s `topic` in all (no records are deleted in these topics), 0 when it does not exist yet. */
async function countOf(cluster, topic) {
  const admin = await env.admin(cluster);
  if (!(await admin.listTopics()).includes(topic)) return 0;
  return (await admin.fetchTopicOffsets(topic)).reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
}

describe('issue 26 items 1 and 2 beside the real MM2: a rewound group failed over, a removed mirror resumed', function () {
  this.timeout(300000);
  let worker;
  let committer;
  const toClose = [];

  before(async function () {
    // the worker and Node-RED start together
    [worker] = await Promise.all([
      startConnectWorker({ bootstrap: env.cluster('target').bootstrap, groupId: env.unique('mm2-rr') }),
      nodes.startServer(),
    ]);
    committer = new peer.AdminOffsetCommitter(env.kafka('source'));
  });
  afterEach(async function () {
    await nodes.helper.unload();
    while (toClose.length) await toClose.pop()().catch(() => undefined);
  });
  after(async function () {
    if (committer) await committer.close();
    if (worker) await worker.stop();
    await nodes.stopServer();
  });

  /**
   * Fails `group` over to the target: a consumer of the group resumes `remote` from the group's
   * target offsets and reads to the end. Returns how many records at or after `from[p]` (the
   * group's source position; the remote topic holds the source's records at the same offsets) it
   * skipped.
   */
  async function failOverAndCountSkipped(group, remote, from) {
    const startAt = await peer.targetOffsets(group);
    const consumed = new Set();
    const c = env.kafka('target').consumer({ groupId: group, maxWaitTimeInMs: 200 });
    await c.connect();
    try {
      await c.subscribe({ topics: [remote], fromBeginning: true });
      await c.run({ autoCommit: false, eachMessage: async ({ partition, message }) => void consumed.add(`${partition}@${message.offset}`) });
      await env.eventually(
        () => from.every((_, p) => consumed.has(`${p}@${RECORDS - 1}`) || startAt[`${remote}-${p}`] === String(RECORDS)),
        { timeout: 60000, interval: 200, what: `the failover consumer of ${group} to read ${remote} to the end` },
      );
    } finally {
      await c.disconnect();
    }
    let skipped = 0;
    from.forEach((f, p) => {
      for (let o = f; o < RECORDS; o++) if (!consumed.has(`${p}@${o}`)) skipped++;
    });
    return skipped;
  }

  it('(1) a group rewound on the source: MM2 checkpoints the rewind (not below every sync) but keeps its target offsets (the failover skips 75); ours follows (skips 0), or with followRewinds off or the mm2 translation writes what MM2 writes', async function () {
    const id = env.unique('rw').replace(/-/g, '');
    const T = `${id}-orders`;
    const B = `${id}b`; // the target alias of both flows: one offset-syncs topic for both
    const am = `${id}m`; // MM2's source alias
    const ao = `${id}o`; // ours
    const ay = `${id}y`; // ours, the replication's mm2 offset translation
    const remoteM = `${am}.${T}`;
    const remoteO = `${ao}.${T}`;
    const remoteY = `${ay}.${T}`;
    const gm = `${id}-gm`;
    const gf = `${id}-gf`;
    const gx = `${id}-gx`;
    const gy = `${id}-gy`;
    const G = [gm, gf, gx, gy];
    const remoteOf = { [gm]: remoteM, [gf]: remoteO, [gx]: remoteO, [gy]: remoteY };

    await peer.createTopics('source', [{ topic: T, partitions: PARTITIONS }, { topic: peer.syncsTopicOf(B), compact: true }]);
    await peer.createTopics('target', [remoteM, remoteO, remoteY].map((topic) => ({ topic, partitions: PARTITIONS })));
    const messages = [];
    for (let p = 0; p < PARTITIONS; p++) for (let i = 0; i < RECORDS; i++) messages.push({ partition: p, value: `p${p}-${i}` });
    await Promise.all([produce('source', T, messages), ...[remoteM, remoteO, remoteY].map((r) => produce('target', r, messages))]);
    // what MM2's source connector would have synced (the same record on both sides)
    // (partition 3 only from 20 on: MM2 keeps only recent syncs, an operator re-processing from long ago lands below all of them)
    await peer.writeSyncs(B, Array.from({ length: PARTITIONS }, (_, p) => (p === 3 ? [20, 29] : [0, 10, 20, 29]).map((o) => [T, p, o, o])).flat());

    const commitAll = async (offsets) => {
      for (const g of G) await peer.commitOnSource(committer, g, offsets.map(([p, o]) => [T, p, o]));
    };
    // consumed: partitions 0, 1 and 3 to the end, partition 2 to 20 (before MM2 looks for groups)
    await commitAll([[0, 30], [1, 30], [2, 20], [3, 30]]);

    const mm2 = await peer.startCheckpointPeer({ a: am, b: B, worker, props: { topics: T, groups: gm, 'sync.group.offsets.enabled': 'true' } });
    toClose.push(() => mm2.close());
    await mm2.start();
    await nodes.load([
      { id: 'syncs', type: 'mm2-offset-syncs', replication: 'rep', wires: [['cp']] },
      { id: 'cp', type: 'mm2-checkpoint', replication: 'rep', groups: `${id}-g[fx]`, groupsExclude: '', topics: T, topicsExclude: '', emitCheckpointsIntervalSeconds: '1', refreshGroupsIntervalSeconds: '1', wires: [['gof', 'gox'], []] },
      { id: 'gof', type: 'mm2-group-offsets', replication: 'rep', mode: 'input', syncGroupOffsetsIntervalSeconds: '1', groups: gf, groupsExclude: '', wires: [['outF']] },
      { id: 'gox', type: 'mm2-group-offsets', replication: 'rep', mode: 'input', syncGroupOffsetsIntervalSeconds: '1', groups: gx, groupsExclude: '', followRewinds: false, wires: [['outX']] },
      { id: 'outF', type: 'helper' },
      { id: 'outX', type: 'helper' },
      // a second replication from another alias to the same target, in the mm2 offset translation
      { ...nodes.configNodes({ src: { alias: ay } })[0], id: 'srcY' },
      { ...nodes.configNodes({ rep: { offsetTranslation: 'mm2' } })[2], id: 'repY', source: 'srcY' },
      { id: 'syncsY', type: 'mm2-offset-syncs', replication: 'repY', wires: [['cpY']] },
      { id: 'cpY', type: 'mm2-checkpoint', replication: 'repY', groups: gy, groupsExclude: '', topics: T, topicsExclude: '', emitCheckpointsIntervalSeconds: '1', refreshGroupsIntervalSeconds: '1', wires: [['goY'], []] },
      { id: 'goY', type: 'mm2-group-offsets', replication: 'repY', mode: 'input', syncGroupOffsetsIntervalSeconds: '1', groups: gy, groupsExclude: '', wires: [['outY']] },
      { id: 'outY', type: 'helper' },
    ], { over: { src: { alias: ao }, tgt: { alias: B } } });
    const reportsF = nodes.collect(nodes.helper.getNode('outF'));
    const reportsX = nodes.collect(nodes.helper.getNode('outX'));
    const reportsY = nodes.collect(nodes.helper.getNode('outY'));

    const offsetsOf = async (g) => {
      const all = await peer.targetOffsets(g);
      return Array.from({ length: PARTITIONS }, (_, p) => all[`${remoteOf[g]}-${p}`] ?? null);
    };
    /** @type {Record<string, Array<string | null>>} */
    let seen = {};
    const allAt = async (want) => {
      seen = Object.fromEntries(await Promise.all(G.map(async (g) => [g, await offsetsOf(g)])));
      return G.every((g) => want(g, seen[g]));
    };
    // checkpointed: 30, 30, 20, 30 on every side (at a synced record, exact; 30: past the sync 29 -> 29)
    await env.eventually(() => allAt((g, o) => o.join() === '30,30,20,30'), { timeout: 60000, what: 'every side to write 30, 30, 20, 30' })
      .catch((e) => assert.fail(`${e.message}: ${JSON.stringify(seen)}`));

    // rewound on the source: partitions 0 and 1 to 5 (within the syncs), partition 3 to 5 (below every sync)
    await commitAll([[0, 5], [1, 5], [3, 5]]);
    const rewoundCheckpoints = async (topic, g) => (await peer.readCheckpoints(topic)).filter((c) => c.group === g && c.upstreamOffset === 5n);
    await env.eventually(async () => (await rewoundCheckpoints(peer.checkpointsTopicOf(am), gm)).length >= 2 && (await rewoundCheckpoints(peer.checkpointsTopicOf(ao), gf)).length >= 3 && (await rewoundCheckpoints(peer.checkpointsTopicOf(ao), gx)).length >= 3 && (await rewoundCheckpoints(peer.checkpointsTopicOf(ay), gy)).length >= 2, {
      timeout: 60000, interval: 500, what: 'the checkpoints of the rewind on every side',
    });
    // (MM2 and the mm2 translation write no checkpoint for partition 3) then partition 2 consumed to the end: a side that moves it has synced the group with the rewind in hand
    await commitAll([[2, 30]]);
    await env.eventually(() => allAt((g, o) => o[2] === '30' && (g !== gf || [0, 1, 3].every((p) => BigInt(o[p] ?? -1) <= 5n && BigInt(o[p] ?? -1) >= 0n))), { timeout: 60000, what: 'partition 2 at 30 on every side (and the rewind followed by ours)' })
      .catch((e) => assert.fail(`${e.message}: ${JSON.stringify(seen)}`));
    const settled = seen;
    await mm2.stop();
    await nodes.helper.unload();

    // MM2's checkpoints: the rewind is checkpointed, lower downstream than before
    const mm2Checkpoints = peer.latestOf(await peer.readCheckpoints(peer.checkpointsTopicOf(am)));
    const mm2Latest = [0, 1, 2, 3].map((p) => mm2Checkpoints[`${gm} ${remoteM}-${p}`]?.slice(0, 2).join('->'));
    assert.deepEqual(mm2Latest, ['5->1', '5->1', '30->30', '30->30'], "MM2's latest checkpoints (upstream->downstream): the rewind to 5 translated past the sync 0 -> 0; below every sync (partition 3) no checkpoint, the last one stays");
    // MM2's target offsets did not follow: measured, partition by partition
    assert.deepEqual(settled[gm], ['30', '30', '30', '30'], "MM2's target offsets after the rewind (its group offset sync never lowers one)");
    assert.deepEqual(settled[gx], settled[gm], 'ours with followRewinds off: the target offsets MM2 wrote, partition by partition');
    assert.deepEqual(settled[gy], settled[gm], "ours in the replication's mm2 offset translation: the target offsets MM2 wrote, partition by partition");
    // and, in the mm2 translation, the very checkpoints MM2 wrote, in the same order
    const seriesBy = async (a, g, remote) => {
      const all = peer.seriesOf((await peer.readCheckpoints(peer.checkpointsTopicOf(a))).filter((c) => c.group === g));
      return [0, 1, 2, 3].map((p) => all[`${g} ${remote}-${p}`]);
    };
    const mm2Series = await seriesBy(am, gm, remoteM);
    assert.deepEqual(mm2Series, [['30->30', '5->1'], ['30->30', '5->1'], ['20->20', '30->30'], ['30->30']], "MM2's checkpoints, per partition in log order");
    assert.deepEqual(await seriesBy(ay, gy, remoteY), mm2Series, "ours in the mm2 translation: MM2's checkpoints, partition by partition");
    const oursCheckpoints = peer.latestOf(await peer.readCheckpoints(peer.checkpointsTopicOf(ao)));
    const oursRewound = [0, 1, 3].map((p) => oursCheckpoints[`${gf} ${remoteO}-${p}`][1]);
    assert.equal(oursRewound[2], '0', 'ours: the rewind below every sync checkpointed at the start of the remote partition');
    assert.deepEqual(settled[gf], [oursRewound[0], oursRewound[1], '30', oursRewound[2]], 'ours: partitions 0, 1 and 3 at the translation of the rewind, partition 2 at 30');

    // followed once and reported; never by the node with followRewinds off
    const rewoundF = reportsF.flatMap((m) => m.payload.rewound ?? []).map((r) => `${r.topic}-${r.partition} ${r.targetOffset}->${r.offset} (${r.fromUpstream}->${r.toUpstream})`).sort();
    assert.deepEqual(rewoundF, [0, 1, 3].map((p, i) => `${remoteO}-${p} 30->${oursRewound[i]} (30->5)`), 'the rewinds reported, once each');
    assert.deepEqual([...reportsX, ...reportsY].flatMap((m) => m.payload.rewound ?? []), [], 'followRewinds off, or the mm2 translation: nothing moved back');

    // fail over: what each group's consumer on the target skips of what it was rewound to re-read
    const from = [5, 5, 30, 5];
    const skipped = {};
    for (const g of G) skipped[g] = await failOverAndCountSkipped(g, remoteOf[g], from);
    assert.deepEqual(skipped, { [gm]: 75, [gf]: 0, [gx]: 75, [gy]: 75 }, 'records at or after the rewound position skipped by the failover consumers: MM2 (25 on each rewound partition), ours, ours with followRewinds off, ours in the mm2 translation');
  });

  it('(2) a mirror removed and brought back while the source grows: MM2 re-created under its connector name or its worker restarted and ours under a new node id resume; MM2 under another connector name copies everything again, ours renamed resumes', async function () {
    const id = env.unique('rs').replace(/-/g, '');
    const T = `${id}-events`;
    const ms = `${id}m`;
    const mt = `${id}mt`;
    const os = `${id}o`;
    const ot = `${id}ot`;
    const remoteM = `${ms}.${T}`;
    const remoteO = `${os}.${T}`;
    const progressGroup = `__mm2-node-red-mirror.${os}-${ot}`;
    await peer.createTopics('source', [{ topic: T, partitions: 2 }]);
    let n = 0;
    const grow = (count) => produce('source', T, Array.from({ length: count }, () => ({ partition: n % 2, value: `v${n++}` })));

    const mm2Config = {
      'connector.class': SOURCE_CONNECTOR,
      'tasks.max': '1',
      'source.cluster.alias': ms,
      'target.cluster.alias': mt,
      'source.cluster.bootstrap.servers': env.cluster('source').bootstrap,
      'target.cluster.bootstrap.servers': env.cluster('target').bootstrap,
      topics: T,
      'replication.factor': '1',
      'offset-syncs.topic.replication.factor': '1',
      'sync.topic.acls.enabled': 'false',
      'refresh.topics.interval.seconds': '600',
      'key.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
      'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
    };
    const mirrorNode = (nodeId, name) => ({
      id: nodeId, type: 'mm2-mirror', name, replication: 'rep', topics: T, topicsExclude: '', heartbeatsReplicationEnabled: false,
      replicationFactor: '', offsetLagMax: '', emitOffsetSyncsEnabled: true, offsetFlushIntervalMs: '1000', refreshTopicsIntervalSeconds: '600', wires: [[]],
    });
    let deployed = null;
    /** MM2's connector `name` deployed, our mirror node loaded with `nodeId` and `name`. */
    const startBoth = async (connector, nodeId, name) => {
      await peer.deployConnector(worker, connector, mm2Config);
      deployed = connector;
      await nodes.load([mirrorNode(nodeId, name)], { over: { src: { alias: os }, tgt: { alias: ot } } });
    };
    const ends = async () => Object.fromEntries((await (await env.admin('source')).fetchTopicOffsets(T)).map((o) => [o.partition, Number(o.high)]));
    /** Both copied the source to its current end and committed their progress there. */
    const caughtUp = async (connector) => {
      const e = await ends();
      const total = Object.values(e).reduce((a, x) => a + x, 0);
      await env.eventually(async () => {
        if ((await countOf('target', remoteM)) < total || (await countOf('target', remoteO)) < total) return false;
        // MM2's progress: the Connect offsets of the connector (the last offset copied, per source partition)
        const r = await worker.rest('GET', `/connectors/${connector}/offsets`);
        const mm2Done = r.status === 200 && [0, 1].every((p) => r.json.offsets.some((o) => o.partition.topic === T && Number(o.partition.partition) === p && Number(o.offset.offset) === e[p] - 1));
        const [ours] = await (await env.admin('source')).fetchOffsets({ groupId: progressGroup, topics: [T] });
        const oursDone = ours.partitions.length === 2 && ours.partitions.every((p) => Number(p.offset) === e[p.partition]);
        return mm2Done && oursDone;
      }, { timeout: 60000, interval: 500, what: `both mirrors to copy ${total} records and commit their progress` });
    };
    const stopBoth = async () => {
      await peer.deleteConnector(worker, deployed);
      deployed = null;
      await nodes.helper.unload();
    };
    toClose.push(async () => { if (deployed && worker) await peer.deleteConnector(worker, deployed); });
    /** Records on the target, duplicates and missing records, of each side. */
    const tally = async () => {
      const src = await valuesOf('source', T);
      const out = {};
      for (const [side, remote] of [['mm2', remoteM], ['ours', remoteO]]) {
        const tgt = await valuesOf('target', remote);
        const all = [...tgt.values()].flat();
        const distinct = new Set(all);
        const missing = [...src.values()].flat().filter((v) => !distinct.has(v)).length;
        out[side] = { records: all.length, duplicates: all.length - distinct.size, missing };
      }
      return out;
    };

    await grow(40);
    await startBoth(`mirror-${id}`, 'first', 'mirror');
    await caughtUp(`mirror-${id}`);
    await stopBoth();

    // removed; the source grows; back: MM2 re-created under the same name, ours re-imported (new id)
    await grow(30);
    await startBoth(`mirror-${id}`, 'reimported', 'mirror');
    await caughtUp(`mirror-${id}`);
    const second = await tally();
    assert.deepEqual(second, { mm2: { records: 70, duplicates: 0, missing: 0 }, ours: { records: 70, duplicates: 0, missing: 0 } }, 'MM2 re-created under its name, ours re-imported with a new node id: both resume');

    // MM2's worker restarted (what a redeployed dedicated MM2 is: the same connector names, the
    // same offsets topic), ours redeployed with the same node id, while the source grows
    await nodes.helper.unload();
    const groupId = worker.config['group.id'];
    await worker.stop();
    worker = null;
    await grow(10);
    [worker] = await Promise.all([
      startConnectWorker({ bootstrap: env.cluster('target').bootstrap, groupId }),
      nodes.load([mirrorNode('reimported', 'mirror')], { over: { src: { alias: os }, tgt: { alias: ot } } }),
    ]);
    await peer.connectorRunning(worker, deployed);
    await caughtUp(deployed);
    const restarted = await tally();
    await stopBoth();
    assert.deepEqual(restarted, { mm2: { records: 80, duplicates: 0, missing: 0 }, ours: { records: 80, duplicates: 0, missing: 0 } }, "MM2's worker restarted, ours redeployed: both resume");

    // again; back: MM2 under another connector name, ours a renamed copy (another id, another name)
    await grow(20);
    await startBoth(`mirror-${id}-renamed`, 'copy', 'mirror (renamed copy)');
    await caughtUp(`mirror-${id}-renamed`);
    const renamed = await tally();
    await stopBoth();
    // MM2 under another connector name starts over: Connect keeps a source connector's offsets
    // under the connector's name (the offset key is [connector name, {cluster, topic, partition}]),
    // so the new connector finds none and MirrorSourceTask reads from the earliest offset again
    assert.deepEqual(renamed, { mm2: { records: 100 + 80, duplicates: 80, missing: 0 }, ours: { records: 100, duplicates: 0, missing: 0 } }, 'MM2 under another connector name: everything copied again (measured); ours, a renamed copy with another node id: resumes');
  });
});
