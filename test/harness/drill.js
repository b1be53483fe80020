'use strict';
/**
 * Failover drills (issue 7): the example flow `checkpoints-beside-mm2` deployed into a real
 * Node-RED process against real brokers, with faults injected at chosen moments.
 *
 * The MM2 source connector's part is played by the test with real records: a source topic, its
 * remote copy on the target (same records, same offsets) and the offset syncs MM2 writes to
 * `mm2-offset-syncs.target.internal` on the source (MM2's byte format, core/offset-sync). Each
 * drill uses its own source alias, so its remote topic and checkpoints topic are its own.
 *
 * Statuses are read the way the editor reads them: Node-RED's comms websocket (`status/#`).
 * Every green status of the checkpoint or group-offsets node is checked the moment it arrives
 * against what the brokers hold (a node sets its status after the broker acknowledged the
 * write, so the write must be visible then).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const WebSocket = require('ws');
const { Kafka, logLevel } = require('kafkajs');
const { encodeOffsetSync } = require('../../dist/core/offset-sync');
const { ensureInternalTopic } = require('../../dist/kafka/internal-topics');
const { fetchCommittedOffsets, AdminOffsetCommitter } = require('../../dist/kafka/group-client');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');
const { TopicReader } = require('../../dist/kafka/topic-reader');

const PARTITIONS = 3;
const RECORDS = 30;
const GROUPS = 8;
/** Emit and sync intervals of the drills (seconds). */
const EMIT_S = 2;
const SYNC_S = 6;

function kafkaFor(bootstrap) {
  return new Kafka({ clientId: 'drill', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 100 } });
}

/** A drill's names: source alias, source topic, remote topic, checkpoints topic, groups. */
function drillNames(tag) {
  const alias = `${tag}${Date.now().toString(36)}`;
  const topic = `${alias}-orders`;
  return {
    alias,
    topic,
    remote: `${alias}.${topic}`,
    checkpointsTopic: `${alias}.checkpoints.internal`,
    groupPrefix: `${alias}-g`,
    groups: Array.from({ length: GROUPS }, (_, i) => `${alias}-g${i}`),
  };
}

/**
 * The example flow with the test's addresses, the drill's alias and groups, and short intervals.
 * @param {object} names
 * @param {string} sourceBootstrap
 * @param {string} targetBootstrap
 * @param {{ emitS?: number, syncS?: number, groupOffsetsDisabled?: boolean, sourceOffsets?: string, groupOffsetsMode?: string, withoutCheckpointNode?: boolean }} [options]
 */
function drillFlow(names, sourceBootstrap, targetBootstrap, { emitS = EMIT_S, syncS = SYNC_S, groupOffsetsDisabled = false, sourceOffsets = 'auto', groupOffsetsMode, withoutCheckpointNode = false } = {}) {
  let flow = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'checkpoints-beside-mm2.json'), 'utf8'));
  // `groupOffsetsMode`: the group-offsets node's mode instead of the example's (mode replication: no wire into it)
  if (groupOffsetsMode !== undefined) {
    const writer = flow.find((n) => n.type === 'mm2-group-offsets');
    writer.mode = groupOffsetsMode;
    if (groupOffsetsMode === 'replication') for (const n of flow) if (n.wires) n.wires = n.wires.map((out) => out.filter((id) => id !== writer.id));
    // mode input as flows made before mode replication: the checkpoint node's output 1 wired into it
    const cp = flow.find((n) => n.type === 'mm2-checkpoint');
    if (groupOffsetsMode === 'input' && cp && !cp.wires[0].includes(writer.id)) cp.wires[0] = [writer.id, ...cp.wires[0]];
  }
  if (withoutCheckpointNode) {
    const cp = flow.find((n) => n.type === 'mm2-checkpoint');
    flow = flow.filter((n) => n !== cp);
    for (const n of flow) if (n.wires) n.wires = n.wires.map((out) => out.filter((id) => id !== cp.id));
  }
  for (const n of flow) {
    if (n.type === 'mm2-cluster' && n.alias === 'source') Object.assign(n, { alias: names.alias, bootstrap: sourceBootstrap });
    if (n.type === 'mm2-cluster' && n.alias === 'target') n.bootstrap = targetBootstrap;
    if (n.type === 'mm2-checkpoint') Object.assign(n, { groups: `${names.groupPrefix}.*`, emitCheckpointsIntervalSeconds: String(emitS), refreshGroupsIntervalSeconds: '10', sourceOffsets });
    if (n.type === 'mm2-group-offsets') Object.assign(n, { groups: `${names.groupPrefix}.*`, syncGroupOffsetsIntervalSeconds: String(syncS), d: groupOffsetsDisabled || undefined });
  }
  return flow;
}

/**
 * What MM2's source connector would have left: records on the source and the same records on
 * the target's remote topic, offset syncs, and idle groups committed on the source.
 */
async function seed(names, sourceBootstrap, targetBootstrap) {
  const src = kafkaFor(sourceBootstrap);
  const tgt = kafkaFor(targetBootstrap);
  const sAdmin = src.admin();
  const tAdmin = tgt.admin();
  await sAdmin.connect();
  await tAdmin.connect();
  const sp = src.producer({ allowAutoTopicCreation: false });
  const tp = tgt.producer({ allowAutoTopicCreation: false });
  const committer = new AdminOffsetCommitter(src);
  try {
    await sAdmin.createTopics({ topics: [{ topic: names.topic, numPartitions: PARTITIONS }], waitForLeaders: true });
    await tAdmin.createTopics({ topics: [{ topic: names.remote, numPartitions: PARTITIONS }], waitForLeaders: true });
    await ensureInternalTopic(sAdmin, 'mm2-offset-syncs.target.internal', 1);
    await sp.connect();
    await tp.connect();
    for (let p = 0; p < PARTITIONS; p++) {
      const messages = Array.from({ length: RECORDS }, (_, i) => ({ partition: p, value: `p${p}-${i}` }));
      await sp.send({ topic: names.topic, acks: -1, messages });
      await tp.send({ topic: names.remote, acks: -1, messages });
    }
    // MM2 syncs: the first record and one in the middle of every partition
    const syncs = [];
    for (let p = 0; p < PARTITIONS; p++) {
      for (const o of [0, 10]) {
        const r = encodeOffsetSync({ topic: names.topic, partition: p, upstreamOffset: o, downstreamOffset: o });
        syncs.push({ key: r.key, value: r.value, partition: 0 });
      }
    }
    await sp.send({ topic: 'mm2-offset-syncs.target.internal', acks: -1, messages: syncs });
    for (let i = 0; i < names.groups.length; i++) {
      const offsets = Array.from({ length: PARTITIONS }, (_, p) => ({ topic: names.topic, partition: p, offset: BigInt(10 + i) }));
      assert.equal((await committer.commit(names.groups[i], offsets)).ok, true, `commit of ${names.groups[i]} on the source`);
    }
  } finally {
    await committer.close();
    await sp.disconnect();
    await tp.disconnect();
    await sAdmin.disconnect();
    await tAdmin.disconnect();
  }
}

/** Runs `fn` again while the broker answers with a retriable error (a coordinator still loading...). */
async function retrying(fn) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= 40 || !(e && e.retriable)) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** A target admin client for the drill's checks (reconnects by itself after a broker restart). */
function targetChecker(names, targetBootstrap) {
  const kafka = kafkaFor(targetBootstrap);
  let adminP = null;
  const admin = () => {
    if (!adminP) {
      const a = kafka.admin();
      adminP = a.connect().then(() => a, (e) => {
        adminP = null;
        throw e;
      });
    }
    return adminP;
  };
  return {
    /** Selected groups that have a target offset on every partition of the remote topic. */
    async groupsWithOffsets() {
      const a = await admin();
      const out = [];
      for (const g of names.groups) {
        const offs = (await retrying(() => fetchCommittedOffsets(a, g))).filter((o) => o.topic === names.remote && o.offset !== null);
        if (offs.length === PARTITIONS) out.push(g);
      }
      return out;
    },
    /** Selected groups with any target offset. */
    async anyGroupWithOffset() {
      const a = await admin();
      for (const g of names.groups) {
        if ((await retrying(() => fetchCommittedOffsets(a, g))).some((o) => o.topic === names.remote && o.offset !== null)) return true;
      }
      return false;
    },
    /** Records in the drill's checkpoints topic (0 when it does not exist yet). */
    async checkpointRecords() {
      const a = await admin();
      if (!(await a.listTopics()).includes(names.checkpointsTopic)) return 0;
      const [p0] = await retrying(() => a.fetchTopicOffsets(names.checkpointsTopic));
      return Number(p0.high) - Number(p0.low);
    },
    async deleteGroups() {
      const a = await admin();
      await retrying(() => a.deleteGroups(names.groups));
    },
    async close() {
      const p = adminP;
      adminP = null;
      if (p) await p.then((a) => a.disconnect(), () => undefined);
    },
  };
}

/**
 * Follows the statuses of the flow's nodes over Node-RED's comms websocket. `onGreen(id, status)`
 * runs for every green status of the watched nodes; its failures are collected in `violations`.
 * Reconnects after a Node-RED restart (call `connect(port)` again).
 */
function statusWatcher(watch, onGreen) {
  const history = [];
  const violations = [];
  const checks = [];
  let ws = null;
  function connect(port) {
    return new Promise((resolve, reject) => {
      ws = new WebSocket(`ws://127.0.0.1:${port}/comms`);
      ws.on('open', () => {
        ws.send(JSON.stringify({ subscribe: 'status/#' }));
        resolve();
      });
      ws.on('error', reject);
      ws.on('message', (data) => {
        let list;
        try {
          list = JSON.parse(String(data));
        } catch {
          return;
        }
        for (const m of Array.isArray(list) ? list : [list]) {
          if (!m || typeof m.topic !== 'string' || !m.topic.startsWith('status/')) continue;
          const id = m.topic.slice('status/'.length);
          if (!watch.includes(id)) continue;
          const st = { id, at: Date.now(), fill: m.data && m.data.fill, shape: m.data && m.data.shape, text: m.data && m.data.text };
          history.push(st);
          if (st.fill === 'green') {
            checks.push(Promise.resolve().then(() => onGreen(id, st)).then(
              (ok) => {
                if (ok !== true) violations.push(`${id} green "${st.text}" at ${new Date(st.at).toISOString()}: ${ok || 'condition not met'}`);
              },
              (e) => violations.push(`${id} green "${st.text}": check failed: ${e.message}`),
            ));
          }
        }
      });
    });
  }
  return {
    connect,
    history,
    violations,
    /** Waits for the pending green checks; returns the violations. */
    async settle() {
      await Promise.allSettled(checks);
      return violations;
    },
    /** The status of `id` in effect at time `t` (last one received before it). */
    at(id, t) {
      let s = null;
      for (const h of history) if (h.id === id && h.at <= t) s = h;
      return s;
    },
    close() {
      if (ws) ws.terminate();
      ws = null;
    },
  };
}

/**
 * The green rules of the drills: the group-offsets node is green only when some selected group
 * has its target offset, the checkpoint node only when its checkpoints topic holds checkpoints.
 */
function greenRules(checker) {
  return async (id) => {
    if (id === 'groupoffsets') return (await checker.anyGroupWithOffset()) || 'no selected group has a target offset';
    if (id === 'checkpoint') return (await checker.checkpointRecords()) > 0 || 'no checkpoint on the target';
    return true;
  };
}

/** The committed offsets of `group` on `topic` as `admin` (of the target) reads them: partition -> offset. */
async function targetOffsetsOf(admin, group, topic) {
  const out = new Map();
  for (const o of await fetchCommittedOffsets(admin, group)) if (o.topic === topic) out.set(o.partition, o.offset);
  return out;
}

/** Every checkpoint of `group` in the drill's checkpoints topic on the target, in log order (read to its end once). */
async function checkpointsInTopic(kafka, admin, names, group) {
  const out = [];
  const reader = new TopicReader(kafka, admin, {
    topic: names.checkpointsTopic,
    tail: false,
    onRecord: (r) => {
      const c = decodeCheckpoint(r.key, r.value);
      if (c.group === group) out.push(c);
    },
  });
  await reader.start();
  await reader.stop();
  return out;
}

module.exports = { targetOffsetsOf, checkpointsInTopic, drillNames, drillFlow, seed, targetChecker, statusWatcher, greenRules, EMIT_S, SYNC_S, PARTITIONS, GROUPS };
