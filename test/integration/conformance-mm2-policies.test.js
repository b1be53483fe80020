'use strict';
/**
 * Conformance: the replication settings beside the defaults, ours beside the real MirrorMaker 2
 * (dedicated mode, Kafka's own connect-mirror jars), end to end: mirror, offset syncs,
 * checkpoints, group offsets, failover. One configuration per describe, one MM2 start each:
 *
 *   - IdentityReplicationPolicy (remote topics keep their names);
 *   - DefaultReplicationPolicy with replication.policy.separator `_` (remote topics
 *     `<a>_<t>`, internal topics `<a>_checkpoints_internal`, `mm2-offset-syncs_<b>_internal`);
 *   - offset-syncs.topic.location=target (`mm2-offset-syncs.<a>.internal` on the target).
 *
 * MM2 is given the policy settings our replication node exports for dedicated mode
 * (`/mm2/export/<rep>?format=mm2`). Ours is the example's chain (mm2-mirror -> mm2-offset-syncs ->
 * mm2-checkpoint -> mm2-group-offsets, the example's precise translation, offset.lag.max 100),
 * with short intervals. The two run side by side on the suite's clusters with their own aliases
 * and their own source topic each (the identity policy would have both write the same remote
 * topic otherwise), `<id>o-orders` for ours and `<id>m-orders` for MM2, holding the same records
 * in the same partitions (partition 0 with its first 10 records deleted, so source and target
 * offsets differ). The same consumer groups commit the same positions on both topics: at the log
 * start, after a first round of traffic (once both mirrors have synced its last record), at the
 * end (an admin commit) and a real consumer that consumes everything.
 *
 * Asserted, per configuration:
 *   - with aliases replaced by <a>/<b> and the topic by <T>, both leave the same topic names on
 *     each cluster, the ones MM2's ReplicationPolicy gives (remote topic, checkpoints topic,
 *     offset-syncs topic on the cluster the location names, never on the other);
 *   - each record once in the remote topic, in the partition of its source partition;
 *   - the target offsets of every group, partition by partition, are the same on both sides and
 *     are the target position of the group's next record (no record skipped, none read again);
 *     polled all along, they never decreased;
 *   - the latest checkpoint per (group, partition) is the same on both sides, names the remote
 *     topic, and the checkpoints are monotonic;
 *   - failover: each group consumes both remote topics on the target from those offsets and
 *     receives every record at or after its source position, and nothing before it.
 *
 * POL_TIMING=1 prints the time each step took (MM2's start is most of it).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const peer = require('../harness/checkpoint-peer');
const { ourReads } = require('../harness/mm2-reads');
const { startMirrorMaker } = require('../../scripts/kafka/connect');
const { runKafkaTool } = require('../../scripts/kafka/cluster');
const { decodeOffsetSync } = require('../../dist/core/offset-sync');
const { parseJavaProperties } = require('../../dist/core/java-properties');
const { AdminOffsetCommitter, fetchCommittedOffsets } = require('../../dist/kafka/group-client');

const PARTITIONS = 3;
const DELETED = 10; // partition 0: records deleted before the mirrors start
const ROUNDS = [
  { 0: 30, 1: 10, 2: 10 }, // before the mirrors start
  { 0: 20, 1: 25, 2: 15 }, // while they run; the 'mid' group stops at its end
  { 0: 10, 1: 5, 2: 12 }, // then
];
const IDENTITY = 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy';
/** Kafka Connect's own topics of MM2's dedicated mode (MM2 runs on Connect, ours does not). */
const CONNECT_INTERNAL = /^mm2-(configs|offsets|status)[._]/;

const CONFIGS = [
  {
    label: 'IdentityReplicationPolicy',
    rep: { policy: 'IdentityReplicationPolicy' },
    exported: { 'replication.policy.class': IDENTITY, 'replication.policy.separator': '.' },
    location: 'source',
    // MM2's names, written out: remote topic, checkpoints topic, offset-syncs topic
    names: { remote: '<T>', checkpoints: '<a>.checkpoints.internal', syncs: 'mm2-offset-syncs.<b>.internal' },
  },
  {
    label: "DefaultReplicationPolicy with replication.policy.separator '_'",
    rep: { separator: '_' },
    exported: { 'replication.policy.class': 'org.apache.kafka.connect.mirror.DefaultReplicationPolicy', 'replication.policy.separator': '_' },
    location: 'source',
    names: { remote: '<a>_<T>', checkpoints: '<a>_checkpoints_internal', syncs: 'mm2-offset-syncs_<b>_internal' },
  },
  {
    label: 'offset-syncs.topic.location=target',
    rep: { offsetSyncsLocation: 'target' },
    exported: { 'replication.policy.class': 'org.apache.kafka.connect.mirror.DefaultReplicationPolicy', 'replication.policy.separator': '.' },
    location: 'target',
    names: { remote: '<a>.<T>', checkpoints: '<a>.checkpoints.internal', syncs: 'mm2-offset-syncs.<a>.internal' },
  },
];

/** Kafka's DeleteRecordsCommand on the source (one run for every topic): partition 0 starts at `offset`. */
function deleteRecordsBefore(topics, offset) {
  const file = path.join(os.tmpdir(), `delete-records-${process.pid}-${Date.now()}.json`);
  fs.writeFileSync(file, JSON.stringify({ version: 1, partitions: topics.map((topic) => ({ topic, partition: 0, offset })) }));
  try {
    runKafkaTool('org.apache.kafka.tools.DeleteRecordsCommand', ['--bootstrap-server', env.cluster('source').bootstrap, '--offset-json-file', file]);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** Committed offsets of `group` on `admin`'s cluster: { 'topic-partition': bigint }. */
async function committed(admin, group) {
  const out = {};
  for (const o of await fetchCommittedOffsets(admin, group)) if (o.offset !== null) out[`${o.topic}-${o.partition}`] = o.offset;
  return out;
}

/** A canonical text of a flat object (keys sorted, undefined values kept): equal texts, equal contents. */
const str = (o) => JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k] === undefined ? null : String(o[k])]));

for (const config of CONFIGS) {
  describe(`conformance: ${config.label}, ours beside the real MM2 configured the same way`, function () {
    this.timeout(300000);
    const id = env.unique('pol').replace(/-/g, '');
    const G = (n) => `${id}-g-${n}`;
    const GROUPS = ['start', 'mid', 'end', 'live'].map(G);
    // each side: its aliases, its source topic, and the names MM2's policy gives them
    const side = (x) => {
      const a = `${x}${id}s`;
      const b = `${x}${id}t`;
      const T = `${id}${x}-orders`;
      const name = (template) => template.replace(/<a>/g, a).replace(/<b>/g, b).replace(/<T>/g, T);
      return {
        name: x === 'o' ? 'ours' : 'MM2',
        a,
        b,
        T,
        R: name(config.names.remote),
        checkpoints: name(config.names.checkpoints),
        syncs: { cluster: config.location, topic: name(config.names.syncs) },
        roles: [[a, '<a>'], [b, '<b>'], [T, '<T>']],
      };
    };
    const ours = side('o');
    const mm2Side = side('m');
    const SIDES = [ours, mm2Side];
    let mm2;
    let committer;
    let watch;
    const toClose = [];

    before(async function () {
      await nodes.startServer();
      committer = new AdminOffsetCommitter(env.kafka('source'));
    });
    after(async function () {
      if (watch) await watch.stop().catch(() => undefined);
      await nodes.helper.unload();
      if (mm2) await mm2.stop();
      while (toClose.length) await toClose.pop()().catch(() => undefined);
      await committer.close();
      await nodes.stopServer();
    });

    it('the same topic names, target offsets partition by partition and checkpoints as MM2; the groups fail over with nothing skipped', async function () {
      const t0 = Date.now();
      const step = (what) => process.env.POL_TIMING && process.stderr.write(`[${config.label}] ${((Date.now() - t0) / 1000).toFixed(1)} s ${what}\n`);
      const src = await env.admin('source');
      const tgt = await env.admin('target');
      const topics = SIDES.map((s) => s.T);

      // ---- the same records in both source topics ------------------------------------------------
      await src.createTopics({ waitForLeaders: true, topics: topics.map((topic) => ({ topic, numPartitions: PARTITIONS })) });
      // idempotent: a send retried on a busy machine must not write its records twice
      const producer = env.kafka('source').producer({ allowAutoTopicCreation: false, idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      toClose.push(() => producer.disconnect());
      let seq = 0;
      const ends = (round) => Object.fromEntries([...Array(PARTITIONS).keys()].map((p) => [p, BigInt(ROUNDS.slice(0, round + 1).reduce((n, r) => n + r[p], 0))]));
      let round = 0;
      const produce = async () => {
        const messages = [];
        for (const [p, n] of Object.entries(ROUNDS[round])) for (let i = 0; i < n; i++) messages.push({ partition: Number(p), value: `p${p}-${seq++}` });
        for (const topic of topics) {
          await producer.send({ topic, acks: -1, messages });
          const highs = Object.fromEntries((await src.fetchTopicOffsets(topic)).map((o) => [o.partition, BigInt(o.high)]));
          assert.deepEqual(highs, ends(round), `${topic} after round ${round}: each record once`);
        }
        round++;
      };
      await produce();
      deleteRecordsBefore(topics, DELETED);
      const low = { 0: BigInt(DELETED), 1: 0n, 2: 0n };
      const commitAll = (group, pos, metadata = '') => peer.commitOnSource(committer, group, topics.flatMap((t) => Object.entries(pos).map(([p, o]) => [t, Number(p), o, metadata])));
      // every group exists before MM2 starts (its group discovery runs at start); at the log start for now
      for (const g of GROUPS) await commitAll(g, low, g === G('mid') ? 'mid' : '');

      step('records');
      // ---- ours: the example's chain; what it exports for MM2's dedicated mode ------------------
      await nodes.load([
        {
          id: 'mirror', type: 'mm2-mirror', replication: 'rep', topics: ours.T, topicsExclude: '.*[\\-\\.]internal, .*\\.replica, __.*', heartbeatsReplicationEnabled: false,
          replicationFactor: '1', offsetLagMax: '100', emitOffsetSyncsEnabled: true, offsetFlushIntervalMs: '1000', refreshTopicsIntervalSeconds: '2',
          syncTopicConfigsEnabled: true, syncTopicAclsEnabled: false, wires: [[]],
        },
        { id: 'syncs', type: 'mm2-offset-syncs', replication: 'rep', wires: [['cp']] },
        {
          id: 'cp', type: 'mm2-checkpoint', replication: 'rep', groups: `${id}-g-.*`, groupsExclude: 'console-consumer-.*, connect-.*, __.*', topics: ours.T, topicsExclude: '',
          emitCheckpointsIntervalSeconds: '1', refreshGroupsIntervalSeconds: '1', sourceOffsets: 'auto', wires: [['go'], []],
        },
        { id: 'go', type: 'mm2-group-offsets', replication: 'rep', mode: 'input', syncGroupOffsetsIntervalSeconds: '1', followRewinds: true, groups: `${id}-g-.*`, groupsExclude: 'console-consumer-.*, connect-.*, __.*', wires: [[]] },
      ], { over: { src: { alias: ours.a }, tgt: { alias: ours.b }, rep: config.rep } });
      const text = (await nodes.helper.request().get('/mm2/export/rep?format=mm2').expect(200)).body.text;
      const exported = Object.fromEntries(parseJavaProperties(text).entries);
      const policyProps = Object.fromEntries(Object.entries(exported).filter(([k]) => k.startsWith('replication.policy.')));
      assert.deepEqual(
        { class: policyProps['replication.policy.class'], separator: policyProps['replication.policy.separator'], location: exported[`${ours.a}->${ours.b}.offset-syncs.topic.location`] },
        { class: config.exported['replication.policy.class'], separator: config.exported['replication.policy.separator'], location: config.location },
        'the export of our replication node',
      );

      step('ours loaded');
      // ---- the real MM2, configured with what ours exports ----------------------------------------
      const flow = `${mm2Side.a}->${mm2Side.b}`;
      watch = peer.watchTargetOffsets(GROUPS);
      mm2 = await startMirrorMaker({
        source: env.cluster('source').bootstrap,
        target: env.cluster('target').bootstrap,
        aliases: [mm2Side.a, mm2Side.b],
        props: {
          ...policyProps,
          [`${flow}.offset-syncs.topic.location`]: config.location,
          [`${flow}.topics`]: mm2Side.T,
          [`${flow}.groups`]: `${id}-g-.*`,
          [`${flow}.offset.lag.max`]: 100,
          [`${flow}.emit.heartbeats.enabled`]: 'false',
          [`${flow}.heartbeats.replication.enabled`]: 'false',
          [`${flow}.sync.topic.acls.enabled`]: 'false',
          [`${flow}.refresh.topics.interval.seconds`]: 2,
          [`${flow}.refresh.groups.interval.seconds`]: 2,
          [`${flow}.emit.checkpoints.interval.seconds`]: 1,
          [`${flow}.sync.group.offsets.enabled`]: 'true',
          [`${flow}.sync.group.offsets.interval.seconds`]: 1,
        },
      });

      step('mm2 started');
      /** Waits until each side's offset syncs hold a sync of the last record of every partition of its topic. */
      const syncedTo = async (round, what) => {
        const last = ends(round);
        const state = {};
        await env.eventually(async () => {
          let ok = true;
          for (const s of SIDES) {
            const syncs = await ourReads(s.syncs.cluster, s.syncs.topic, decodeOffsetSync).catch(() => []);
            state[s.name] = syncs.filter((x) => x.topic === s.T).map((x) => `${x.partition}:${x.upstreamOffset}->${x.downstreamOffset}`).join(' ');
            for (let p = 0; p < PARTITIONS; p++) if (!syncs.some((x) => x.topic === s.T && x.partition === p && x.upstreamOffset === last[p] - 1n)) ok = false;
          }
          return ok;
        }, { timeout: 120000, interval: 1000, what }).catch((e) => {
          throw new Error(`${e.message}: last records ${str(last)}, syncs ${JSON.stringify(state)}\n${mm2.log().slice(-3000)}`);
        });
      };
      await produce();
      await syncedTo(1, 'both sides to sync the last record of the first round');
      step('round1 synced');
      await commitAll(G('mid'), ends(1), 'mid');
      await produce();
      const final = ends(2);
      await commitAll(G('end'), final);
      const live = env.kafka('source').consumer({ groupId: G('live'), maxWaitTimeInMs: 200 });
      toClose.push(() => live.disconnect());
      await live.connect();
      await live.subscribe({ topics, fromBeginning: true });
      await live.run({ autoCommitInterval: 300, eachMessage: async () => {} });
      await env.eventually(async () => {
        const c = await committed(src, G('live'));
        return topics.every((t) => [...Array(PARTITIONS).keys()].every((p) => c[`${t}-${p}`] === final[p]));
      }, { timeout: 60000, what: 'the live consumer to consume everything' });
      await live.disconnect();
      toClose.pop();

      step('live done');
      // ---- source positions, and what each side's target offsets must be ----------------------
      const position = {};
      for (const g of GROUPS) position[g] = await committed(src, g);
      // the target position of a group's next record (each record once: source offset - log start)
      const expected = (s) => Object.fromEntries(GROUPS.flatMap((g) => [...Array(PARTITIONS).keys()].map((p) => [`${g} ${s.R}-${p}`, String(position[g][`${s.T}-${p}`] - low[p])])));
      for (const g of GROUPS) for (const s of SIDES) for (let p = 0; p < PARTITIONS; p++) assert.ok(position[g][`${s.T}-${p}`] !== undefined, `${g} on ${s.T}-${p}`);
      const onTarget = async () => {
        const out = {};
        for (const g of GROUPS) {
          const c = await committed(tgt, g);
          for (const s of SIDES) for (let p = 0; p < PARTITIONS; p++) out[`${g} ${s.R}-${p}`] = c[`${s.R}-${p}`] === undefined ? undefined : String(c[`${s.R}-${p}`]);
        }
        return out;
      };
      const want = { ...expected(ours), ...expected(mm2Side) };
      let seen;
      await env.eventually(async () => str(seen = await onTarget()) === str(want), { timeout: 120000, interval: 1000, what: 'the target offsets of every group on both sides' })
        .catch((e) => assert.deepEqual(seen, want, `${e.message}\n${mm2.log().slice(-3000)}`));
      step('target offsets');
      // both sides' latest checkpoints, with the remote topic named by its role
      const latestOf = async (s) => {
        const records = await peer.readCheckpoints(s.checkpoints);
        for (const c of records) assert.equal(c.topic, s.R, `${s.name}: a checkpoint names the remote topic ${s.R}`);
        peer.assertMonotonic(records, s.name);
        return Object.fromEntries(Object.entries(peer.latestOf(records)).map(([k, v]) => [k.replace(` ${s.R}-`, ' <R>-'), v]));
      };
      let latest;
      await env.eventually(async () => {
        latest = await Promise.all(SIDES.map((s) => latestOf(s).catch(() => ({}))));
        return str(latest[0]) === str(latest[1]) && Object.keys(latest[0]).length === GROUPS.length * PARTITIONS;
      }, { timeout: 60000, interval: 1000, what: 'the same latest checkpoints on both sides' }).catch(() => undefined);
      step('checkpoints equal');
      await mm2.stop();
      await nodes.helper.unload();
      const { regressions } = await watch.stop();
      watch = null;
      assert.deepEqual(regressions, [], 'target group offsets never decreased');
      latest = await Promise.all(SIDES.map(latestOf));
      assert.deepEqual(latest[0], latest[1], 'the latest checkpoint per group and partition: ours (left), MM2 (right)');
      for (const g of GROUPS) {
        for (let p = 0; p < PARTITIONS; p++) {
          assert.deepEqual(latest[0][`${g} <R>-${p}`], [String(position[g][`${ours.T}-${p}`]), want[`${g} ${ours.R}-${p}`], g === G('mid') ? 'mid' : ''], `${g} ${p}: the checkpoint`);
        }
      }

      step('stopped');
      // ---- the same topic names, the policy's ---------------------------------------------------
      const namesOf = (list, s) => list
        .filter((n) => !CONNECT_INTERNAL.test(n) && !/heartbeats$/.test(n))
        .filter((n) => s.roles.some(([x]) => n.includes(x)))
        .map((n) => s.roles.reduce((m, [x, role]) => m.split(x).join(role), n))
        .sort();
      const listed = { source: await src.listTopics(), target: await tgt.listTopics() };
      for (const cluster of ['source', 'target']) {
        const mine = namesOf(listed[cluster], ours);
        const theirs = namesOf(listed[cluster], mm2Side);
        assert.deepEqual(mine, theirs, `topic names on ${cluster}: ours (left), MM2 (right)`);
        const names = cluster === 'source' ? ['<T>'] : [config.names.remote, config.names.checkpoints];
        if (config.location === cluster) names.push(config.names.syncs);
        assert.deepEqual(theirs, names.sort(), `topic names on ${cluster}: MM2's policy`);
      }

      // ---- each record once, in its partition ------------------------------------------------------
      for (const s of SIDES) {
        const highs = Object.fromEntries((await tgt.fetchTopicOffsets(s.R)).map((o) => [o.partition, BigInt(o.high)]));
        assert.deepEqual(highs, Object.fromEntries(Object.entries(final).map(([p, e]) => [p, e - low[p]])), `${s.name}: ${s.R} holds each record once`);
      }

      step('names+counts');
      // ---- failover: every group consumes both remote topics on the target --------------------------
      const sourceRecs = {};
      const fromSource = async () => {
        const c = env.kafka('source').consumer({ groupId: env.unique('__pol-read'), maxWaitTimeInMs: 200 });
        const out = [];
        await c.connect();
        await c.subscribe({ topics: [ours.T], fromBeginning: true });
        await c.run({ eachMessage: async ({ partition, message }) => { out.push({ partition, offset: BigInt(message.offset), value: String(message.value) }); } });
        const total = Object.entries(final).reduce((n, [p, e]) => n + Number(e - low[p]), 0);
        await env.eventually(() => out.length >= total, { timeout: 30000, what: `the ${total} records of ${ours.T}` });
        await c.disconnect();
        return out;
      };
      for (const r of await fromSource()) (sourceRecs[r.partition] ??= []).push(r);
      for (const g of GROUPS) {
        const delivered = [];
        const c = env.kafka('target').consumer({ groupId: g, maxWaitTimeInMs: 200 });
        let fetches = 0;
        c.on(c.events.FETCH, () => { fetches += 1; });
        await c.connect();
        try {
          await c.subscribe({ topics: SIDES.map((s) => s.R), fromBeginning: true });
          await c.run({ autoCommit: false, eachMessage: async ({ topic, partition, message }) => { delivered.push({ topic, partition, offset: BigInt(message.offset), value: String(message.value) }); } });
          const count = SIDES.reduce((n, s) => n + [...Array(PARTITIONS).keys()].reduce((m, p) => m + Number(final[p] - position[g][`${s.T}-${p}`]), 0), 0);
          await env.eventually(() => fetches >= 3 && delivered.length >= count, { timeout: 30000, what: `${g} to consume ${count} records from its target offsets` });
        } finally {
          await c.disconnect();
        }
        step(`failover ${g}`);
        for (const s of SIDES) {
          for (let p = 0; p < PARTITIONS; p++) {
            const pos = position[g][`${s.T}-${p}`];
            const got = delivered.filter((x) => x.topic === s.R && x.partition === p).map((x) => x.value);
            const must = sourceRecs[p].filter((r) => r.offset >= pos).map((r) => r.value);
            assert.deepEqual(got, must, `${s.name}: ${g} on ${s.R}-${p} receives every record at or after source offset ${pos}, and nothing before`);
          }
        }
      }
    });
  });
}
