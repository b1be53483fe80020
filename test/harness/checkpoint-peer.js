'use strict';
/**
 * Shared by the checkpoint conformance tests (conformance-mm2-checkpoints, -same-answers,
 * -handover): the real MirrorMaker 2 checkpoint connector as a peer, our checkpoint side
 * without Node-RED, and readers/assertions on the topics both write.
 *
 * Why MM2's checkpoint connector runs on a Connect worker and not in dedicated mode:
 * these tests need MirrorCheckpointConnector ALONE (no MirrorSourceConnector writing offset
 * syncs or replicating the topic). Dedicated mode (`connect-mirror-maker`) always starts the
 * source connector of an enabled flow, and its only per-flow knob that would silence it is
 * `topics`, which the checkpoint connector shares: its group discovery and its checkpoints
 * both keep only offsets on topics that `topics`/`topics.exclude` accept (MirrorCheckpointConnector.findConsumerGroups, DefaultGroupFilter / DefaultTopicFilter,
 * MirrorCheckpointTask.poll step (a)); MirrorMakerConfig.connectorBaseConfig gives all three connectors the same
 * `<a>-><b>.*` properties. A checkpoint connector pointed at a topic that does not exist
 * checkpoints nothing. So the connector is deployed by itself on a distributed Connect worker
 * bootstrapped to the target cluster with ByteArrayConverter, which is exactly the worker
 * dedicated mode builds for the flow (MirrorMakerConfig.workerConfig: a worker on the target,
 * ByteArrayConverter for keys, values and headers), with the same connector class and
 * connector properties.
 */
const assert = require('node:assert/strict');
const env = require('./env');
const { startConnectWorker } = require('../../scripts/kafka/connect');
const { encodeOffsetSync } = require('../../dist/core/offset-sync');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');
const { AdminOffsetCommitter } = require('../../dist/kafka/admin-offset-committer');
const { fetchCommittedOffsets } = require('../../dist/kafka/group-offset-fetcher');
const { TopicReader } = require('../../dist/kafka/topic-reader');
const { decodeOffsetSync } = require('../../dist/core/offset-sync');
const { CheckpointEmitter } = require('../../dist/engines/checkpoint-emitter');
const { ClusterConnection } = require('../../dist/kafka/connection');
const { GroupOffsetSyncer } = require('../../dist/engines/group-offset-syncer');
const { ensureInternalTopic } = require('../../dist/kafka/internal-topics');
const { createReplicationPolicy } = require('../../dist/core/replication-policy');
const { createGroupFilter, createTopicFilter } = require('../../dist/core/filters');

const CHECKPOINT_CONNECTOR = 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector';

/** The offset-syncs topic of flow a->b with offset-syncs.topic.location=source (on the source cluster). */
const syncsTopicOf = (b) => `mm2-offset-syncs.${b}.internal`;
/** MM2's checkpoints topic of flow a->b (on the target). */
const checkpointsTopicOf = (a) => `${a}.checkpoints.internal`;

// ---- MirrorMaker 2's checkpoint connector ------------------------------------------------------

/**
 * Deploys MM2 connector `name` (connector properties `config`) on a Connect worker and waits until
 * the connector and its one task run (a failed one fails with its trace and the worker's log).
 */
async function deployConnector(worker, name, config) {
  const r = await worker.rest('PUT', `/connectors/${name}/config`, config);
  assert.ok(r.status === 200 || r.status === 201, `deploying ${name}: ${r.status} ${r.text}`);
  await connectorRunning(worker, name);
}

/** Waits until connector `name` and its one task run on the worker (a failed one fails with its trace and the worker's log). */
async function connectorRunning(worker, name) {
  await env.eventually(async () => {
    const s = await worker.rest('GET', `/connectors/${name}/status`);
    if (s.status !== 200) return false;
    const failed = [s.json.connector, ...(s.json.tasks || [])].find((x) => x.state === 'FAILED');
    if (failed) throw new Error(`${name} failed: ${(failed.trace || '').slice(0, 2000)}`);
    return s.json.connector.state === 'RUNNING' && s.json.tasks.length === 1 && s.json.tasks[0].state === 'RUNNING';
  }, { timeout: 60000, interval: 300, what: `MM2's connector ${name} and its task to run` }).catch((e) => {
    throw new Error(`${e.message}\n${worker.log().slice(-3000)}`);
  });
}

/** Deletes connector `name` from the worker and waits until it is gone (its task stopped). */
async function deleteConnector(worker, name) {
  const r = await worker.rest('DELETE', `/connectors/${name}`);
  assert.ok(r.status === 204 || r.status === 404, `deleting ${name}: ${r.status} ${r.text}`);
  await env.eventually(async () => (await worker.rest('GET', `/connectors/${name}/status`)).status === 404, { timeout: 30000, what: `${name} to stop` });
}

/**
 * A Connect worker on the target cluster that runs MM2's MirrorCheckpointConnector for the flow
 * a->b. `props` are connector properties (MM2 names), e.g. { topics, groups,
 * 'sync.group.offsets.enabled': 'true' }. `start()` deploys the connector and waits until its
 * task runs; `stop()` deletes it (the task stops; the worker stays); `close()` stops the worker.
 * `worker`: a worker already running (from startConnectWorker on the target) to deploy on
 * instead of a new one; `close()` then leaves it running.
 * @param {{ a: string, b: string, props: Record<string, string | number>, worker?: any }} options
 */
async function startCheckpointPeer({ a, b, props, worker: shared }) {
  const worker = shared ?? (await startConnectWorker({ bootstrap: env.cluster('target').bootstrap, groupId: env.unique(`mm2-cp-${a}`) }));
  const name = `checkpoint-${a}-${b}`;
  const config = {
    'connector.class': CHECKPOINT_CONNECTOR,
    'tasks.max': '1',
    'source.cluster.alias': a,
    'target.cluster.alias': b,
    'source.cluster.bootstrap.servers': env.cluster('source').bootstrap,
    'target.cluster.bootstrap.servers': env.cluster('target').bootstrap,
    'checkpoints.topic.replication.factor': '1',
    'emit.checkpoints.interval.seconds': '1',
    'sync.group.offsets.interval.seconds': '1',
    'refresh.groups.interval.seconds': '600',
    'key.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
    'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
    ...Object.fromEntries(Object.entries(props).map(([k, v]) => [k, String(v)])),
  };
  let running = false;
  const peer = {
    worker,
    name,
    config,
    log: () => worker.log(),
    async start() {
      running = true;
      await deployConnector(worker, name, config);
    },
    async stop() {
      if (!running) return;
      running = false;
      await deleteConnector(worker, name);
    },
    async close() {
      try {
        await peer.stop();
      } catch {
        /* the worker goes anyway */
      }
      if (!shared) await worker.stop();
    },
  };
  return peer;
}

// ---- our checkpoint side without Node-RED ---------------------------------------------------------

/**
 * Our checkpoint side for the flow a->b: CheckpointEmitter (fed by a TopicReader tailing the
 * offset-syncs topic, as mm2-offset-syncs feeds mm2-checkpoint) and, with `groupOffsets`, the
 * GroupOffsetSyncer that writes the emitter's latest checkpoints to the target.
 * Cycles run only when asked: `cycle()`. What the tests observe: each cycle's result (what it
 * wrote, its coverage), the topics on the target, and `restore`, the emitter's report of its
 * restore as its `restored` event gave it (what mm2-checkpoint logs): {ok, restored, read,
 * malformed, error?}; a restore that read the topic to its end (ok) keeps the sync history during
 * the initial load, as MM2 does (OffsetSyncStore's readToEnd).
 */
async function startOurSide({ a, b, topics, groups, checkpointsTopic = checkpointsTopicOf(a), groupOffsets = false, offsetTranslation = 'precise' }) {
  const source = new ClusterConnection({ alias: a, bootstrapServers: [env.cluster('source').bootstrap] });
  const target = new ClusterConnection({ alias: b, bootstrapServers: [env.cluster('target').bootstrap] });
  const props = { 'source.cluster.alias': a, 'target.cluster.alias': b, topics, groups };
  const groupFilter = createGroupFilter(props);
  /** @type {import('../../dist/engines/checkpoint-emitter-types').RestoreReport | null} */
  let restore = null;
  const emitter = new CheckpointEmitter({
    source,
    target,
    sourceAlias: a,
    targetAlias: b,
    policy: createReplicationPolicy(props),
    checkpointsTopic,
    groupFilter,
    topicFilter: createTopicFilter(props),
    ensureTopic: async (c, t) => ensureInternalTopic(await c.admin(), t, 1),
    sourceOffsets: 'poll', // cycles only when asked, as MM2's task runs them (the event path is tested on its own)
    offsetTranslation: /** @type {'precise' | 'mm2'} */ (offsetTranslation),
    events: { restored: (report) => (restore = report) },
  });
  const syncer = groupOffsets ? new GroupOffsetSyncer({ connection: target, groupFilter }) : null;
  let syncsRead = 0;
  const reader = new TopicReader(source.kafka, await source.admin(), {
    topic: syncsTopicOf(b),
    tail: true,
    maxWaitTimeMs: 100,
    onRecord: (r) => {
      syncsRead++;
      emitter.handleSyncEvent({ event: 'syncs', syncs: [decodeOffsetSync(r.key, r.value)] });
    },
    onLoaded: () => emitter.handleSyncEvent({ event: 'loaded' }),
  });
  await Promise.all([reader.start(), emitter.start()]);
  let stopped = false;
  const side = {
    /** The emitter's restore report (its `restored` event), null while it runs. */
    get restore() {
      return restore;
    },
    syncer,
    get syncsRead() {
      return syncsRead;
    },
    /** Waits until the syncs topic has been read up to its current end. */
    async caughtUp() {
      const admin = await env.admin('source');
      const [p0] = await admin.fetchTopicOffsets(syncsTopicOf(b));
      const want = Number(p0.high) - Number(p0.low);
      await env.eventually(() => syncsRead >= want, { what: `our reader to read ${want} offset syncs` });
    },
    /** One checkpoint cycle (after catching up with the syncs), then, with groupOffsets, one group-offset sync of the latest checkpoints. */
    async cycle() {
      await side.caughtUp();
      const r = await emitter.cycle({ refreshGroups: true });
      assert.deepEqual(r.failedGroups, []);
      if (syncer) {
        for (const list of r.latest.values()) for (const c of list) syncer.put(c);
        const s = await syncer.sync();
        assert.deepEqual(s.skipped.filter((x) => x.code === 'error'), [], 'group offset sync errors');
      }
      return r;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await reader.stop();
      await emitter.stop();
      if (syncer) await syncer.close();
      await source.close();
      await target.close();
    },
  };
  return side;
}

// ---- setting up state ------------------------------------------------------------------------------

/** Creates topics on `cluster` (ignores "exists"). specs: [{topic, partitions, compact}] */
async function createTopics(cluster, specs) {
  const admin = await env.admin(cluster);
  await admin.createTopics({
    waitForLeaders: true,
    topics: specs.map((s) => ({
      topic: s.topic,
      numPartitions: s.partitions ?? 1,
      configEntries: s.compact ? [{ name: 'cleanup.policy', value: 'compact' }] : [],
    })),
  });
}

/** Writes offset syncs [topic, partition, upstream, downstream] to partition 0 of the offset-syncs topic, in order. */
async function writeSyncs(b, syncs) {
  const producer = env.kafka('source').producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    await producer.send({
      topic: syncsTopicOf(b),
      acks: -1,
      messages: syncs.map(([topic, partition, up, down]) => ({ ...encodeOffsetSync({ topic, partition, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down) }), partition: 0 })),
    });
  } finally {
    await producer.disconnect();
  }
}

/** Commits group offsets on the source the way a stopped consumer leaves them: [[topic, partition, offset, metadata?]]. */
async function commitOnSource(committer, group, offsets) {
  const list = offsets.map(([topic, partition, offset, metadata]) => ({ topic, partition, offset: BigInt(offset), metadata: metadata ?? '' }));
  let last;
  await env
    .eventually(async () => {
      last = await committer.commit(group, list);
      return last.ok;
    }, { what: `commit for ${group}`, timeout: 20000, interval: 300 })
    .catch(() => assert.deepEqual(last, { ok: true }, `commit for ${group}`));
}

// ---- reading what was written ------------------------------------------------------------------------

/**
 * Every record of a checkpoints topic on the target, decoded, in log order:
 * [{...checkpoint, offset, timestamp}]; records that are not checkpoints (tombstones) are left out.
 */
async function readCheckpoints(topic) {
  const out = [];
  const reader = new TopicReader(env.kafka('target'), await env.admin('target'), {
    topic,
    tail: false,
    onRecord: (r) => {
      let c;
      try {
        c = decodeCheckpoint(r.key, r.value);
      } catch {
        return;
      }
      out.push({ ...c, offset: r.offset, timestamp: r.timestamp });
    },
  });
  await reader.start();
  return out;
}

const keyOf = (c) => `${c.group} ${c.topic}-${c.partition}`;

/** The last checkpoint per (group, remote partition), in log order: { key: [upstream, downstream, metadata] } with decimal strings. */
function latestOf(records) {
  const out = {};
  for (const c of records) out[keyOf(c)] = [String(c.upstreamOffset), String(c.downstreamOffset), c.metadata];
  return Object.fromEntries(Object.entries(out).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}

/** Per (group, remote partition): the series of [upstream, downstream] in log order. */
function seriesOf(records) {
  const out = {};
  for (const c of records) (out[keyOf(c)] ??= []).push(`${c.upstreamOffset}->${c.downstreamOffset}`);
  return Object.fromEntries(Object.entries(out).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}

/** Asserts the checkpoints, in log order, never move a (group, partition) backwards unless the group rewound upstream. */
function assertMonotonic(records, what) {
  const last = new Map();
  const bad = [];
  for (const c of records) {
    const k = keyOf(c);
    const prev = last.get(k);
    if (prev && c.upstreamOffset >= prev.upstreamOffset && c.downstreamOffset <= prev.downstreamOffset) {
      bad.push(`${k} at offset ${c.offset}: ${prev.upstreamOffset}->${prev.downstreamOffset} then ${c.upstreamOffset}->${c.downstreamOffset}`);
    }
    last.set(k, c);
  }
  assert.deepEqual(bad, [], `${what}: a checkpoint moved a group backwards (or repeated) without an upstream rewind`);
}

/**
 * Polls the committed offsets of `groups` on the target every 250 ms until `stop()`;
 * `stop()` returns { regressions, last: { 'group topic-partition': offset string } }.
 */
function watchTargetOffsets(groups) {
  const seen = new Map();
  const regressions = [];
  let watching = true;
  const loop = (async () => {
    const admin = await env.admin('target');
    while (watching) {
      for (const g of groups) {
        for (const o of await fetchCommittedOffsets(admin, g).catch(() => [])) {
          if (o.offset === null) continue;
          const k = `${g} ${o.topic}-${o.partition}`;
          const prev = seen.get(k);
          if (prev !== undefined && o.offset < prev) regressions.push(`${k}: ${prev} -> ${o.offset}`);
          seen.set(k, o.offset);
        }
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    current: () => new Map(seen),
    async stop() {
      watching = false;
      await loop;
      return { regressions, last: Object.fromEntries([...seen].map(([k, v]) => [k, String(v)]).sort()) };
    },
  };
}

/** Committed offsets of `group` on the target: { 'topic-partition': offset string }. */
async function targetOffsets(group) {
  const admin = await env.admin('target');
  const out = {};
  for (const o of await fetchCommittedOffsets(admin, group)) if (o.offset !== null) out[`${o.topic}-${o.partition}`] = String(o.offset);
  return out;
}

/**
 * The highest target offset that skips no record for a group at `position` of a source partition,
 * from every sync written there in log order ([topic, partition, up, down]; an upstream rewind starts
 * the history again): the newest sync at or below the position, its downstream offset (+1 past it).
 * undefined when no sync is at or below.
 */
function noSkipBound(syncs, topic, partition, position) {
  let history = [];
  for (const [t, p, up, down] of syncs) {
    if (t !== topic || p !== partition) continue;
    if (history.length > 0 && BigInt(up) < history[history.length - 1][0]) history = [];
    history.push([BigInt(up), BigInt(down)]);
  }
  const below = history.filter(([up]) => up <= position).pop();
  if (below === undefined) return undefined;
  return below[0] === position ? below[1] : below[1] + 1n;
}

/**
 * Precise translation against the real MM2 on the same syncs and groups: for every (group,
 * partition) MM2 checkpointed, ours has a checkpoint whose target offset is never below MM2's; where
 * it is above MM2's (or MM2 has none), it is never above {@link noSkipBound} for its source position
 * (no record skipped; where ours equals MM2's, MM2's own rules, e.g. a checkpoint held across an
 * upstream rewind, apply). `sourceOf(remoteTopic)` names the source topic.
 * Returns how many of ours were strictly better than MM2's.
 */
function assertPreciseAgainstMm2(oursLatest, mm2Latest, syncs, sourceOf, what) {
  let better = 0;
  for (const [key, [up, down]] of Object.entries(oursLatest)) {
    const theirs = mm2Latest[key];
    if (theirs !== undefined) assert.ok(BigInt(down) >= BigInt(theirs[1]), `${what}: ${key} ours ${down} is below MM2's ${theirs[1]}`);
    if (theirs !== undefined && BigInt(down) === BigInt(theirs[1])) continue;
    const m = /^(.*) (.+)-(\d+)$/.exec(key);
    const bound = noSkipBound(syncs, sourceOf(m[2]), Number(m[3]), BigInt(up));
    assert.ok(bound !== undefined && BigInt(down) <= bound, `${what}: ${key} ${up}->${down} skips records (the newest sync at or below gives ${bound})`);
    better++;
  }
  for (const key of Object.keys(mm2Latest)) assert.ok(key in oursLatest, `${what}: MM2 checkpointed ${key}, ours did not`);
  return better;
}

module.exports = {
  deployConnector,
  connectorRunning,
  deleteConnector,
  noSkipBound,
  assertPreciseAgainstMm2,
  syncsTopicOf,
  checkpointsTopicOf,
  startCheckpointPeer,
  startOurSide,
  createTopics,
  writeSyncs,
  commitOnSource,
  readCheckpoints,
  latestOf,
  seriesOf,
  keyOf,
  assertMonotonic,
  watchTargetOffsets,
  targetOffsets,
  AdminOffsetCommitter,
};
