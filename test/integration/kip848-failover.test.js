'use strict';
/**
 * KIP-848 consumer groups (group.protocol=consumer) end to end, with the full failover example
 * flow in a real Node-RED process against real brokers (issue 23, item 4). The consumers are
 * Kafka's own Java client (test/harness/java-clients.js), kafkajs speaks the classic protocol only.
 *
 * - A consumer-protocol consumer reads part of a topic on the source and commits; the flow
 *   mirrors, checkpoints and writes the group's offsets on the target; a consumer-protocol
 *   consumer of the same group resumes on the target from them: no record after the group's
 *   source position is skipped.
 * - While that consumer is a member of the group on the target, the group moves on on the source
 *   and the flow checkpoints it: the group-offsets node skips the group ('group-active') and its
 *   target offsets stay what the member committed; once the member has left, the flow writes.
 * - A classic group converted to a consumer group on the source (its classic member leaves, a
 *   consumer-protocol member joins: the stream shows the classic group's record tombstoned) keeps
 *   its target offsets: never deleted or moved backwards, and they follow the new member's commits.
 *
 * Its own source alias, topic and groups (the suite's clusters hold other files' data).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { describeGroupState } = require('../../dist/kafka/group-listing');
const { fetchCommittedOffsets } = require('../../dist/kafka/group-client');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');
const { TopicReader } = require('../../dist/kafka/topic-reader');
const { javaConsumer, runJava } = require('../harness/java-clients');

const TAG = env.unique('k848');
const ALIAS = `${TAG}-source`;
const TOPIC = `${TAG}-orders`;
const REMOTE = `${ALIAS}.${TOPIC}`;
const GROUP = `${TAG}-g`;
const CONVERTED = `${TAG}-conv`;
const PARTITIONS = 3;
const PER_PARTITION = 30;
/** The lines the flow's report node writes to the log: every group-offsets cycle that names one of our groups. */
const REPORT = 'KIP848-REPORT ';

function flow() {
  const nodes = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'full-failover.json'), 'utf8'));
  for (const n of nodes) {
    if (n.type === 'mm2-cluster' && n.alias === 'source') Object.assign(n, { bootstrap: env.cluster('source').bootstrap, alias: ALIAS });
    if (n.type === 'mm2-cluster' && n.alias === 'target') n.bootstrap = env.cluster('target').bootstrap;
    if (n.type === 'mm2-mirror') Object.assign(n, { topics: `${TAG}-.*`, refreshTopicsIntervalSeconds: '5' });
    if (n.type === 'mm2-checkpoint') Object.assign(n, { groups: `${TAG}-.*`, topics: `${TAG}-.*`, emitCheckpointsIntervalSeconds: '2', refreshGroupsIntervalSeconds: '10' });
    if (n.type === 'mm2-group-offsets') Object.assign(n, { groups: `${TAG}-.*`, syncGroupOffsetsIntervalSeconds: '3' });
  }
  // the group-offsets node's cycles, to Node-RED's log (the test reads what it skipped and wrote)
  const go = nodes.find((n) => n.type === 'mm2-group-offsets');
  nodes.push({
    id: 'kip848-report', type: 'function', z: go.z, name: 'report', x: 900, y: 400, wires: [], outputs: 0,
    func: `const p = msg.payload; const mine = (g) => g.startsWith(${JSON.stringify(`${TAG}-`)});
const skipped = p.skipped.filter((s) => mine(s.group)); const written = p.written.filter((w) => mine(w.group));
if (skipped.length || written.length) node.warn(${JSON.stringify(REPORT)} + JSON.stringify({ at: Date.now(), skipped, written }));
return null;`,
  });
  go.wires[0].push('kip848-report');
  return nodes;
}

/** The flow's reports so far, in order. */
function reports(nr) {
  const out = [];
  for (const line of nr.log.split('\n')) {
    const i = line.indexOf(REPORT);
    if (i >= 0) out.push(JSON.parse(line.slice(i + REPORT.length)));
  }
  return out;
}

/** The committed offsets of `group` on `topic` in `cluster`, by partition (only those with an offset). */
async function offsetsOf(cluster, group, topic) {
  const out = new Map();
  for (const o of await fetchCommittedOffsets(await env.admin(cluster), group)) if (o.topic === topic && o.offset !== null) out.set(o.partition, o.offset);
  return out;
}

/** Every checkpoint of `group` on the target, in log order. */
async function checkpointsOf(group) {
  const out = [];
  const reader = new TopicReader(env.kafka('target'), await env.admin('target'), {
    topic: `${ALIAS}.checkpoints.internal`,
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

/** The records of the source topic a group has not consumed yet (source position by partition): `p<partition>-<offset>` values, as produced. */
function unreadAfter(position, upTo) {
  const out = [];
  for (let p = 0; p < PARTITIONS; p++) for (let o = Number(position.get(p) ?? 0n); o < upTo; o++) out.push(`p${p}-${o}`);
  return out;
}

describe('KIP-848 consumer groups (group.protocol=consumer) fail over end to end (full failover example, real Node-RED, Java consumers)', function () {
  this.timeout(900000);
  let nr = null;
  let producer = null;
  const javas = [];
  let watching = false;
  let watcher = null;

  before(function () {
    // KIP-848's consumer protocol is on by default from Kafka 4.0 (3.x brokers have no such groups unless configured for the preview)
    const version = env.cluster('source').version;
    if (Number(String(version).split('.')[0]) < 4) {
      process.stderr.write(`      skipped: Kafka ${version} brokers have no consumer-protocol (KIP-848) groups by default (from 4.0); run with KAFKA_VERSION=4.4.0\n`);
      this.skip();
    }
  });

  after(async function () {
    watching = false;
    if (watcher) await watcher.catch(() => undefined);
    for (const j of javas) j.kill();
    if (nr) await nr.stop();
    if (producer) await producer.disconnect();
  });

  async function produce(from, to) {
    for (let p = 0; p < PARTITIONS; p++) {
      const messages = [];
      for (let o = from; o < to; o++) messages.push({ partition: p, value: `p${p}-${o}` });
      await producer.send({ topic: TOPIC, acks: -1, messages });
    }
  }

  /** Waits until the remote topic holds `n` records per partition (the mirror copied them). */
  async function mirrored(n) {
    await env.eventually(async () => {
      const admin = await env.admin('target');
      if (!(await admin.listTopics()).includes(REMOTE)) return false;
      const ends = await admin.fetchTopicOffsets(REMOTE);
      return ends.length === PARTITIONS && ends.every((e) => Number(e.high) === n);
    }, { timeout: 180000, interval: 1000, what: `${n} records per partition mirrored to ${REMOTE}` });
  }

  it('commit on the source, fail over, resume on the target with nothing skipped; a member on the target keeps the flow away; a converted group keeps its offsets', async function () {
    const version = process.env.KAFKA_VERSION || undefined;
    const source = env.cluster('source').bootstrap;
    const target = env.cluster('target').bootstrap;
    await (await env.admin('source')).createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }], waitForLeaders: true });
    // the source's offsets equal the target's (no gaps): a record's value names its offset on both
    producer = env.kafka('source').producer({ allowAutoTopicCreation: false, idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    await produce(0, PER_PARTITION);

    nr = await startNodeRed({ flows: flow(), quiet: true, logLevel: 'warn' });
    await mirrored(PER_PARTITION);

    // on the source: GROUP (consumer protocol) reads 40 of the 90 records and commits; CONVERTED
    // starts as a classic group: a classic member reads 20 and commits
    const read = await runJava('consumer', { bootstrap: source, group: GROUP, topic: TOPIC, max: 40, protocol: 'consumer', version });
    assert.equal(read.length, 40);
    await runJava('consumer', { bootstrap: source, group: CONVERTED, topic: TOPIC, max: 20, protocol: 'classic', version });
    const sourcePos = await offsetsOf('source', GROUP, TOPIC);
    const convPos = await offsetsOf('source', CONVERTED, TOPIC);
    assert.equal([...sourcePos.values()].reduce((a, b) => a + b, 0n), 40n, `${GROUP}'s source offsets add up to the 40 records read`);

    // the flow writes both groups' offsets on the target
    await env.eventually(async () => {
      const g = await offsetsOf('target', GROUP, REMOTE);
      const c = await offsetsOf('target', CONVERTED, REMOTE);
      return [...sourcePos].every(([p, o]) => o === 0n || g.has(p)) && [...convPos].every(([p, o]) => o === 0n || c.has(p));
    }, { timeout: 180000, interval: 1000, what: `the target offsets of ${GROUP} and ${CONVERTED}` });

    // from now on: our groups' target offsets, every 300 ms; CONVERTED's must never disappear or move backwards
    const history = [];
    const convProblems = [];
    const convSeen = new Map();
    watching = true;
    watcher = (async () => {
      while (watching) {
        const at = Date.now();
        const g = await offsetsOf('target', GROUP, REMOTE).catch(() => null);
        const c = await offsetsOf('target', CONVERTED, REMOTE).catch(() => null);
        if (g) history.push({ at, offsets: g });
        if (c) {
          for (const [p, o] of convSeen) {
            if (!c.has(p)) convProblems.push(`${CONVERTED}-${p}: ${o} -> none`);
            else if (c.get(p) < o) convProblems.push(`${CONVERTED}-${p}: ${o} -> ${c.get(p)}`);
          }
          for (const [p, o] of c) convSeen.set(p, o);
        }
        await new Promise((r) => setTimeout(r, 300));
      }
    })();

    // CONVERTED becomes a consumer group on the source (the classic member has left): a
    // consumer-protocol member reads 20 more and commits
    await runJava('consumer', { bootstrap: source, group: CONVERTED, topic: TOPIC, max: 20, protocol: 'consumer', version });
    const convPos2 = await offsetsOf('source', CONVERTED, TOPIC);
    assert.equal([...convPos2.values()].reduce((a, b) => a + b, 0n), 40n, `${CONVERTED} has read 40 records on the source`);

    // fail over GROUP: a consumer-protocol consumer on the target resumes from the offsets the flow
    // wrote and reads to the end; it stays a member of the group afterwards
    const startAt = await offsetsOf('target', GROUP, REMOTE);
    const member = javaConsumer({ bootstrap: target, group: GROUP, topic: REMOTE, max: 0, protocol: 'consumer', stay: true, version });
    javas.push(member);
    await member.committed;
    const got = new Set(member.records.map((r) => r.value));
    const skipped = unreadAfter(sourcePos, PER_PARTITION).filter((v) => !got.has(v));
    assert.deepEqual(skipped, [], `records after ${GROUP}'s source position skipped by its consumer on the target (started at ${JSON.stringify([...startAt].map(([p, o]) => `${p}:${o}`))})`);
    const redelivered = member.records.length - unreadAfter(sourcePos, PER_PARTITION).length;
    assert.ok(redelivered >= 0 && redelivered <= 100, `${redelivered} records read again (within offset.lag.max)`);
    const memberCommitted = await offsetsOf('target', GROUP, REMOTE);
    assert.deepEqual([...memberCommitted].sort(), Array.from({ length: PARTITIONS }, (_, p) => [p, BigInt(PER_PARTITION)]), 'the member committed the end of every partition');

    // DescribeGroups (the classic describe) cannot see the member: our describe says Unknown, not Dead
    const described = await describeGroupState(await env.admin('target'), GROUP);
    assert.equal(described.state, 'Unknown', `describeGroupState of a consumer-protocol group with a member: ${JSON.stringify(described)}`);

    // while it is a member on the target, GROUP moves on on the source (10 more records per
    // partition, read to the end and committed): the flow checkpoints it but must not write it
    const joinedAt = Date.now();
    await produce(PER_PARTITION, PER_PARTITION + 10);
    await mirrored(PER_PARTITION + 10);
    await runJava('consumer', { bootstrap: source, group: GROUP, topic: TOPIC, max: 0, protocol: 'consumer', version });
    const end = BigInt(PER_PARTITION + 10);
    await env.eventually(async () => {
      const cps = await checkpointsOf(GROUP);
      return Array.from({ length: PARTITIONS }, (_, p) => cps.some((c) => c.partition === p && c.upstreamOffset === end)).every(Boolean);
    }, { timeout: 180000, interval: 1000, what: `checkpoints of ${GROUP} at ${end} on every partition` });
    const checkpointedAt = Date.now();
    // a cycle of the group-offsets node after that checkpoint that skipped the group as active
    const skip = await env.eventually(() => reports(nr).find((r) => r.at > checkpointedAt && r.skipped.some((s) => s.group === GROUP)), {
      timeout: 120000, interval: 500, what: `a group-offsets cycle skipping ${GROUP}`,
    });
    const mine = skip.skipped.find((s) => s.group === GROUP);
    assert.equal(mine.code, 'group-active', `${GROUP} skipped as active on the target: ${JSON.stringify(mine)}`);
    // one more full cycle on, still untouched: exactly what the member committed
    await env.eventually(() => reports(nr).some((r) => r.at > skip.at && r.skipped.some((s) => s.group === GROUP)), { timeout: 120000, interval: 500, what: 'a second cycle' });
    assert.deepEqual([...(await offsetsOf('target', GROUP, REMOTE))].sort(), [...memberCommitted].sort(), `${GROUP}'s target offsets are the member's while it is in the group`);
    const duringMembership = history.filter((h) => h.at >= joinedAt).filter((h) => [...h.offsets].some(([p, o]) => memberCommitted.get(p) !== o));
    assert.deepEqual(duringMembership, [], `${GROUP}'s target offsets never changed while its member was in the group`);
    assert.deepEqual(reports(nr).filter((r) => r.at >= joinedAt && r.written.some((w) => w.group === GROUP)), [], `the flow wrote nothing for ${GROUP} while its member was in the group`);

    // the member leaves: the group is empty, the flow writes the checkpoints it holds
    member.leave();
    await member.done;
    await env.eventually(async () => {
      const t = await offsetsOf('target', GROUP, REMOTE);
      return Array.from({ length: PARTITIONS }, (_, p) => t.get(p) === end).every(Boolean);
    }, { timeout: 180000, interval: 1000, what: `${GROUP}'s target offsets at ${end} once its member has left` });

    // CONVERTED: its target offsets followed the consumer-protocol member's commits
    await env.eventually(async () => {
      const c = await offsetsOf('target', CONVERTED, REMOTE);
      const cps = await checkpointsOf(CONVERTED);
      return [...convPos2].every(([p, o]) => cps.some((cp) => cp.partition === p && cp.upstreamOffset === o) && (o === 0n || c.has(p)));
    }, { timeout: 180000, interval: 1000, what: `${CONVERTED} checkpointed and written at its consumer-protocol member's positions` });
    watching = false;
    await watcher;
    assert.deepEqual(convProblems, [], `${CONVERTED}'s target offsets were never deleted or moved backwards across its conversion`);
    // and it fails over with nothing skipped after its source position
    const convMember = await runJava('consumer', { bootstrap: target, group: CONVERTED, topic: REMOTE, max: 0, protocol: 'consumer', version });
    const convGot = new Set(convMember.map((r) => r.value));
    assert.deepEqual(unreadAfter(convPos2, PER_PARTITION + 10).filter((v) => !convGot.has(v)), [], `records after ${CONVERTED}'s source position skipped on the target`);
  });
});
