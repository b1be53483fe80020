'use strict';
/**
 * The planned switchover example, deployed as a user imports it into a real Node-RED against two
 * real clusters (cluster aliases, topics and group filters narrowed to this test's names; a
 * catch-all and an HTTP request node added to hand the reports to the test). One inject starts
 * the switchover; the report comes out of mm2-group-offsets.
 * - A group that is idle and ready on the source: ok, its target offsets (read on the target)
 *   equal the translation (the newest checkpoint in the checkpoints topic), partition by partition.
 * - A group with an active member on the source: refused, naming it.
 * - A group whose offsets on the target are ahead of the translation (consumed there already;
 *   they never move backwards): refused, naming the partition and both offsets.
 * - With the mirror stopped the replicated heartbeats go stale: the switchover is refused.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const { AdminOffsetCommitter, fetchCommittedOffsets } = require('../../dist/kafka/group-client');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');
const { TopicReader } = require('../../dist/kafka/topic-reader');

const TAG = env.unique('so');
const SOURCE = `${TAG}-s`;
const TARGET = `${TAG}-t`;
const TOPIC = `${TAG}-orders`;
const REMOTE = `${SOURCE}.${TOPIC}`;
const IDLE = `${TAG}-idle`;
const ACTIVE = `${TAG}-active`;
const AHEAD = `${TAG}-ahead`;
const IDLE_AT = [250n, 120n]; // g-idle's committed position per partition
const AHEAD_ON_TARGET = 290n;

/** Receives what the flow posts: the reports and the failed steps. */
function startReceiver() {
  const got = { reports: [], errors: [] };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      (req.url === '/report' ? got.reports : got.errors).push(JSON.parse(body));
      res.end('ok');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ got, port: /** @type {import('node:net').AddressInfo} */ (server.address()).port, close: () => new Promise((r) => server.close(r)) })));
}

/**
 * The example as imported, pointed at the test clusters, with the reports posted to `port`.
 * @param {number} port
 * @param {{ mirrorOff?: boolean, staleAfterSeconds?: number }} [opts]
 */
function exampleFlow(port, { mirrorOff = false, staleAfterSeconds } = {}) {
  const flow = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'planned-switchover.json'), 'utf8'));
  const z = flow.find((n) => n.type === 'tab').id;
  for (const n of flow) {
    if (n.type === 'mm2-cluster') {
      const which = n.alias === 'source' ? 'source' : 'target';
      Object.assign(n, { alias: which === 'source' ? SOURCE : TARGET, bootstrap: env.cluster(which).bootstrap });
    }
    if (n.type === 'mm2-mirror') Object.assign(n, { topics: TOPIC, d: mirrorOff || undefined });
    if (n.type === 'mm2-checkpoint') Object.assign(n, { groups: `${TAG}-.*`, topics: TOPIC });
    if (n.type === 'mm2-group-offsets') n.groups = `${TAG}-.*`;
    if (n.type === 'mm2-heartbeat' && staleAfterSeconds) n.staleAfterSeconds = String(staleAfterSeconds);
  }
  const post = (id, url) => ({ id, type: 'http request', z, name: '', method: 'POST', ret: 'txt', paytoqs: 'ignore', url, tls: '', persist: false, proxy: '', insecureHTTPParser: false, authType: '', senderr: false, headers: [], x: 0, y: 0, wires: [[]] });
  const report = flow.find((n) => n.type === 'switch' && n.property === 'topic');
  report.wires[0].push('t-post-report');
  flow.push(post('t-post-report', `http://127.0.0.1:${port}/report`));
  flow.push({ id: 't-catch', type: 'catch', z, name: '', scope: null, uncaught: false, x: 0, y: 0, wires: [['t-error']] });
  flow.push({ id: 't-error', type: 'function', z, name: '', func: 'msg.payload = { message: String(msg.error && msg.error.message), source: msg.error && msg.error.source && msg.error.source.type };\nreturn msg;', outputs: 1, x: 0, y: 0, wires: [['t-post-error']] });
  flow.push(post('t-post-error', `http://127.0.0.1:${port}/error`));
  return flow;
}

/** The newest checkpoint per partition of `group` in the checkpoints topic on the target. */
async function latestCheckpoints(group) {
  const out = new Map();
  const reader = new TopicReader(env.kafka('target'), await env.admin('target'), {
    topic: `${SOURCE}.checkpoints.internal`,
    tail: false,
    onRecord: (r) => {
      const c = decodeCheckpoint(r.key, r.value);
      if (c.group === group) out.set(`${c.topic}-${c.partition}`, c);
    },
  });
  await reader.start();
  return out;
}

describe('planned switchover example (real Node-RED, real brokers)', function () {
  this.timeout(300000);
  let nr;
  let receiver;
  let live;

  before(async function () {
    const admin = await env.admin('source');
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }], waitForLeaders: true });
    const producer = env.kafka('source').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    for (const partition of [0, 1]) {
      const messages = [];
      for (let i = 0; i < 300; i++) messages.push({ partition, value: `p${partition}-${i}` });
      await producer.send({ topic: TOPIC, messages });
    }
    await producer.disconnect();
    // the idle group: committed and stopped (as a consumer that was shut down leaves it)
    const committer = new AdminOffsetCommitter(env.kafka('source'));
    assert.equal((await committer.commit(IDLE, IDLE_AT.map((offset, partition) => ({ topic: TOPIC, partition, offset })))).ok, true);
    assert.equal((await committer.commit(AHEAD, [0, 1].map((partition) => ({ topic: TOPIC, partition, offset: 100n })))).ok, true);
    // AHEAD has consumed on the target already (the remote topic made before the mirror starts,
    // which then uses it): its offsets there are ahead of any translation, before any sync
    const target = await env.admin('target');
    await target.createTopics({ topics: [{ topic: REMOTE, numPartitions: 2 }], waitForLeaders: true });
    assert.equal((await new AdminOffsetCommitter(env.kafka('target')).commit(AHEAD, [0, 1].map((partition) => ({ topic: REMOTE, partition, offset: AHEAD_ON_TARGET })))).ok, true);
    // the active group: a member that still consumes on the source
    live = env.kafka('source').consumer({ groupId: ACTIVE });
    await live.connect();
    await live.subscribe({ topics: [TOPIC], fromBeginning: true });
    await live.run({ autoCommitInterval: 500, eachMessage: async () => {} });
    receiver = await startReceiver();
  });

  after(async function () {
    if (nr) await nr.stop();
    if (live) await live.disconnect();
    if (receiver) await receiver.close();
  });

  /** Presses "switch over" and returns what comes back: the report, or { error } when a step failed. */
  async function switchOver() {
    const { got } = receiver;
    const [reports, errors] = [got.reports.length, got.errors.length];
    await env.eventually(async () => (await nr.request('POST', '/inject/so-inject')).status === 200, { timeout: 30000, what: 'the inject node to start the switchover' });
    await env.eventually(() => got.reports.length > reports || got.errors.length > errors, { timeout: 90000, what: 'a switchover report or a failed step' });
    return got.reports.length > reports ? got.reports[reports] : { error: got.errors[errors] };
  }

  it('an idle, ready group switches over (its target offsets equal the translation); one with a member on the source, one ahead on the target are refused by name', async function () {
    nr = await startNodeRed({ flows: exampleFlow(receiver.port), quiet: true, logLevel: 'warn' });
    const target = await env.admin('target');
    const group = (r, g) => (r.groups || []).find((x) => x.group === g);
    /** @type {any} */
    let report;
    // until the flow has loaded, checkpointed every partition and the heartbeats arrive: then the
    // groups are judged (a partition not translated yet is 'not-ready' until its checkpoint is written)
    await env.eventually(async () => {
      report = await switchOver();
      return report.reasons && report.reasons.length === 0 && group(report, IDLE)?.ok && group(report, ACTIVE)?.reasons.some((x) => x.code === 'members-on-source') &&
        group(report, AHEAD)?.reasons.length > 0 && group(report, AHEAD).reasons.every((x) => x.code === 'target-differs');
    }, { timeout: 180000, interval: 2000, what: 'the idle group ok and the active one refused' }).catch((e) => {
      throw new Error(`${e.message}; the last answer: ${JSON.stringify(report)}`);
    });

    assert.equal(report.ok, false, 'one group refused: the switchover as a whole is refused');
    assert.deepEqual(report.groups.map((g) => g.group).sort(), [ACTIVE, AHEAD, IDLE].sort());
    assert.deepEqual([report.okGroups, report.refusedGroups], [1, 2]);
    const active = group(report, ACTIVE);
    assert.equal(active.ok, false);
    assert.match(active.sourceState, /^(Stable|PreparingRebalance|CompletingRebalance|Assigning|Reconciling)$/);
    assert.ok(report.refused.some((s) => s.startsWith(`${ACTIVE}: has members on the source (state ${active.sourceState})`)), report.refused.join('; '));
    assert.ok(!report.refused.some((s) => s.startsWith(`${IDLE}:`)), report.refused.join('; '));

    // ahead on the target: ready and idle on the source, but its consumers would not start from the translation
    const ahead = group(report, AHEAD);
    assert.equal(ahead.sourceState, 'Empty');
    assert.deepEqual(ahead.reasons.map((x) => x.code), ['target-differs', 'target-differs']);
    for (const p of ahead.partitions) {
      assert.equal(p.committed, String(AHEAD_ON_TARGET));
      assert.ok(BigInt(p.targetOffset) <= 100n);
      assert.ok(report.refused.includes(`${AHEAD}: ${REMOTE}-${p.partition} is at ${AHEAD_ON_TARGET} there, not at the translation ${p.targetOffset}`), report.refused.join('; '));
    }

    const idle = group(report, IDLE);
    assert.equal(idle.readiness, 'ready');
    assert.equal(idle.sourceState, 'Empty');
    assert.deepEqual(idle.partitions.map((p) => [p.topic, p.partition, p.sourceTopic, p.sourceOffset]), IDLE_AT.map((o, p) => [REMOTE, p, TOPIC, String(o)]));
    // the report's numbers against the clusters: the target holds the translation, which is the newest checkpoint
    const onTarget = await fetchCommittedOffsets(target, IDLE);
    const checkpoints = await latestCheckpoints(IDLE);
    for (const p of idle.partitions) {
      const committed = onTarget.find((o) => o.topic === REMOTE && o.partition === p.partition);
      assert.equal(p.committed, p.targetOffset, `${REMOTE}-${p.partition}: committed on the target = the translation`);
      assert.equal(String(committed.offset), p.targetOffset, `${REMOTE}-${p.partition}: the report says what the target holds`);
      const cp = checkpoints.get(`${REMOTE}-${p.partition}`);
      assert.ok(cp, `a checkpoint of ${IDLE} for ${REMOTE}-${p.partition}`);
      assert.equal(String(cp.downstreamOffset), p.targetOffset, `${REMOTE}-${p.partition}: the translation is the newest checkpoint`);
      assert.equal(String(cp.upstreamOffset), p.sourceOffset);
      // the topic has no gaps (target offsets are the source offsets): the consumer starts at or below its source
      // position and re-reads exactly the records from there to the position, the number the report gives
      assert.ok(BigInt(p.targetOffset) <= BigInt(p.sourceOffset), `${p.targetOffset} <= ${p.sourceOffset}`);
      assert.equal(p.reread, Number(BigInt(p.sourceOffset) - BigInt(p.targetOffset)), `${REMOTE}-${p.partition}: re-reads ${p.targetOffset}..${p.sourceOffset}`);
    }
  });

  it('with the mirror stopped, the replicated heartbeats go stale and the switchover is refused', async function () {
    // the same flow with the mirror disabled: no heartbeat reaches the target any more
    await nr.deploy(exampleFlow(receiver.port, { mirrorOff: true, staleAfterSeconds: 3 }));
    /** @type {any} */
    let report;
    await env.eventually(async () => {
      report = await switchOver();
      return report.reasons && report.reasons.some((x) => x.code === 'heartbeat-stale');
    }, { timeout: 120000, interval: 2000, what: 'a switchover refused for stale heartbeats' }).catch((e) => {
      throw new Error(`${e.message}; the last answer: ${JSON.stringify(report)}`);
    });
    assert.equal(report.ok, false);
    assert.match(report.refused[0], /^heartbeats are stale: the newest on the target is \d+ s old \(stale after 3 s\)/);
    assert.ok(report.heartbeat.ageMs > 3000);
  });
});
