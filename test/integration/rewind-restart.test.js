'use strict';
/**
 * Issue 26, item 1, over a restart, in mode "input" (checkpoints from the wire) and in mode
 * "replication" (the default: the checkpoint node's store read in place): `mm2-group-offsets`
 * follows a rewind on the source whose checkpoint was written while it was not running (a
 * redeploy or a Node-RED restart came between the checkpoint and its write). The messages carry
 * only each partition's latest checkpoint, so the node replays the replication's checkpoints
 * topic once at start (state over messages), as mode "topic" does while it loads the topic.
 *
 * The drill's flow (test/harness/drill.js) in a real Node-RED against real brokers: consume (the
 * target offset follows), redeploy with the group-offsets node disabled, rewind on the source,
 * wait for the rewind's checkpoint in the checkpoints topic (the target offset has not followed),
 * restart Node-RED with the whole flow, then the target offset follows the rewind and a failover
 * consumer skips nothing the group was rewound to re-read. A group that was not rewound is not
 * moved backwards.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const drill = require('../harness/drill');
const { encodeOffsetSync } = require('../../dist/core/offset-sync');
const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');

const RECORDS = 30; // per partition, as drill.seed writes them
const ALL = Array.from({ length: drill.PARTITIONS }, (_, p) => p);

describe('a group rewound on the source while mm2-group-offsets was not running (issue 26; real Node-RED, real brokers)', function () {
  this.timeout(180000);
  let nr = null;
  let committer = null;
  let consumer = null;

  afterEach(async function () {
    if (consumer) await consumer.disconnect().catch(() => undefined);
    consumer = null;
    if (nr) await nr.stop();
    nr = null;
    if (committer) await committer.close();
    committer = null;
  });

  const targetOffsets = async (group, topic) => drill.targetOffsetsOf(await env.admin('target'), group, topic);
  /** The latest checkpoint of `group` per partition in the checkpoints topic. */
  async function latestCheckpoints(names, group) {
    const out = new Map();
    for (const c of await drill.checkpointsInTopic(env.kafka('target'), await env.admin('target'), names, group)) out.set(c.partition, c);
    return out;
  }

  // mode input (checkpoints from the wire, as flows made before mode replication) and mode replication (the default: the checkpoint node's store read in place)
  for (const mode of ['input', 'replication']) it(`mode ${mode}: after a restart the target offset follows a rewind checkpointed before it, and a failover skips 0`, async function () {
    const names = drill.drillNames(mode === 'input' ? 'rwr' : 'rwm');
    const sourceBootstrap = env.cluster('source').bootstrap;
    const targetBootstrap = env.cluster('target').bootstrap;
    await drill.seed(names, sourceBootstrap, targetBootstrap);
    // MM2's sync of the last record of every partition, beside the seed's 0 and 10
    const syncs = env.kafka('source').producer({ allowAutoTopicCreation: false });
    await syncs.connect();
    await syncs.send({
      topic: 'mm2-offset-syncs.target.internal',
      acks: -1,
      messages: ALL.map((p) => {
        const r = encodeOffsetSync({ topic: names.topic, partition: p, upstreamOffset: RECORDS - 1, downstreamOffset: RECORDS - 1 });
        return { key: r.key, value: r.value, partition: 0 };
      }),
    });
    await syncs.disconnect();
    committer = new AdminOffsetCommitter(env.kafka('source'));
    const [g0, g1] = names.groups;
    const commit = async (offset) => {
      const r = await committer.commit(g0, ALL.map((p) => ({ topic: names.topic, partition: p, offset })));
      assert.equal(r.ok, true, `commit of ${g0} on the source: ${r.errorType} ${r.message}`);
    };
    await commit(BigInt(RECORDS)); // consumed to the end

    const flow = drill.drillFlow(names, sourceBootstrap, targetBootstrap, { groupOffsetsMode: mode });
    assert.ok(flow.some((n) => n.type === 'mm2-group-offsets' && n.mode === mode), `the drill flow's group-offsets node in mode ${mode}`);
    nr = await startNodeRed({ quiet: true, logLevel: 'warn' });
    await nr.deploy(flow);
    const at = async (group, want) => {
      const o = await targetOffsets(group, names.remote);
      return o.size === drill.PARTITIONS && [...o.values()].every(want);
    };
    await env.eventually(() => at(g0, (o) => o === BigInt(RECORDS)), { timeout: 60000, interval: 300, what: `${g0} at ${RECORDS} on the target` });
    const g1Before = await targetOffsets(g1, names.remote);

    // the group-offsets node stops (a redeploy without it); the rewind is checkpointed meanwhile
    await nr.deploy(drill.drillFlow(names, sourceBootstrap, targetBootstrap, { groupOffsetsDisabled: true, groupOffsetsMode: mode }));
    await commit(5n);
    await env.eventually(async () => {
      const cps = await latestCheckpoints(names, g0);
      return ALL.every((p) => cps.get(p)?.upstreamOffset === 5n);
    }, { timeout: 30000, interval: 300, what: `the checkpoints of ${g0} rewound to 5` });
    assert.ok(await at(g0, (o) => o === BigInt(RECORDS)), `${g0} still at ${RECORDS} on the target (nothing wrote the rewind yet)`);

    // Node-RED restarts with the whole flow
    await nr.stop();
    nr = await startNodeRed({ quiet: true, logLevel: 'warn' });
    await nr.deploy(flow);
    // without the replay the target offset never follows: the wait ends at its limit and the failover below counts the skips
    const followed = await env.eventually(() => at(g0, (o) => o !== null && o <= 5n), { timeout: 30000, interval: 300, what: `${g0} to follow the rewind to 5 or below` }).then(() => true, () => false);
    const g1After = await targetOffsets(g1, names.remote);
    await nr.stop();
    nr = null;

    // fail over: consume on the target from the group's target offsets to the end
    const startAt = await targetOffsets(g0, names.remote);
    const consumed = new Set();
    consumer = env.kafka('target').consumer({ groupId: g0 });
    await consumer.connect();
    await consumer.subscribe({ topics: [names.remote], fromBeginning: true });
    await consumer.run({ autoCommit: false, eachMessage: async ({ partition, message }) => void consumed.add(`${partition}@${message.offset}`) });
    await env.eventually(() => ALL.every((p) => consumed.has(`${p}@${RECORDS - 1}`) || startAt.get(p) === BigInt(RECORDS)), { timeout: 60000, interval: 200, what: `the failover consumer of ${g0} to read to the end` });
    let skipped = 0;
    for (const p of ALL) for (let o = 5; o < RECORDS; o++) if (!consumed.has(`${p}@${o}`)) skipped++;
    assert.equal(skipped, 0, `records at or after the rewound position 5 skipped by the failover consumer of ${g0} (target offsets ${JSON.stringify(Object.fromEntries([...startAt].map(([p, o]) => [p, String(o)])))})`);
    assert.ok(followed, 'the target offsets followed the rewind after the restart');
    assert.deepEqual(g1After, g1Before, `${g1}, not rewound, kept its target offsets`);
  });
});
