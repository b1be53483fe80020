'use strict';
/**
 * Issue 26, item 1: a consumer group rewound on purpose on the source (what
 * `kafka-consumer-groups --reset-offsets` does: an admin commit of a lower offset for a group
 * with no members) is followed on the target, so a failover re-reads what the group was rewound
 * to re-read. The drill's sequence, with the example flow `checkpoints-beside-mm2` in a real
 * Node-RED against real brokers (test/harness/drill.js plays MM2's source connector: records on
 * both clusters at the same offsets, and its offset syncs):
 *
 * consume (commit on the source), checkpoint (the target offset follows), rewind on the source,
 * wait for the target offset to follow, fail over (consume on the target from the group's
 * target offsets), count the records after the rewound position the failover consumer skipped:
 * must be 0. Two rewinds:
 * - within the offset syncs: the target offset moves back to the rewound translation;
 * - below every offset sync (untranslatable), the group also deleted on the target: the stale,
 *   higher checkpoint must not be written back; the flow checkpoints the group at the remote
 *   partition's start instead.
 *
 * Both groups are written in each of the group-offsets node's modes (checkpoints from the input,
 * and read from the checkpoints topic).
 *
 * The same drill beside the real MirrorMaker 2, its behaviour measured (its checkpoints follow a
 * rewind within the syncs, its target offsets never): conformance-mm2-rewind-resume.test.js.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const drill = require('../harness/drill');
const { encodeOffsetSync } = require('../../dist/core/offset-sync');
const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');

const RECORDS = 30; // per partition, as drill.seed writes them

describe('a group rewound on the source, then failed over (issue 26; real Node-RED, real brokers)', function () {
  this.timeout(300000);
  let nr = null;
  let committer = null;
  const consumers = [];

  afterEach(async function () {
    while (consumers.length) await consumers.pop().disconnect().catch(() => undefined);
    if (nr) await nr.stop();
    nr = null;
    if (committer) await committer.close();
    committer = null;
  });

  /** The target offsets of `group` on `topic`, by partition. */
  const targetOffsets = async (group, topic) => drill.targetOffsetsOf(await env.admin('target'), group, topic);
  /** Every checkpoint of `group` in the drill's checkpoints topic, in log order. */
  const checkpointsOf = async (names, group) => drill.checkpointsInTopic(env.kafka('target'), await env.admin('target'), names, group);

  async function commitOnSource(group, offsets) {
    const r = await committer.commit(group, offsets);
    assert.equal(r.ok, true, `commit of ${group} on the source: ${r.errorType} ${r.message}`);
  }

  /**
   * Fails `group` over: a consumer on the target resumes from the group's target offsets and reads
   * to the end of every partition. Returns the records at or after the group's source position
   * (what it was rewound to re-read) that the consumer skipped.
   */
  async function failOverAndCountSkipped(group, parts) {
    const startAt = new Map();
    for (const { remote } of parts) for (const [p, o] of await targetOffsets(group, remote)) startAt.set(`${remote}-${p}`, o);
    const consumed = new Set();
    const c = env.kafka('target').consumer({ groupId: group });
    consumers.push(c);
    await c.connect();
    await c.subscribe({ topics: [...new Set(parts.map((x) => x.remote))], fromBeginning: true });
    await c.run({ autoCommit: false, eachMessage: async ({ topic, partition, message }) => void consumed.add(`${topic}-${partition}@${message.offset}`) });
    // the end of each partition is offset RECORDS - 1: read it, unless the group already starts at the end
    await env.eventually(
      () => parts.every(({ remote, partition }) => consumed.has(`${remote}-${partition}@${RECORDS - 1}`) || startAt.get(`${remote}-${partition}`) === BigInt(RECORDS)),
      { timeout: 60000, interval: 200, what: `the failover consumer of ${group} to read to the end` },
    );
    let skipped = 0;
    for (const { remote, partition, from } of parts) {
      // the remote topics hold the source's records at the same offsets
      for (let o = from; o < RECORDS; o++) if (!consumed.has(`${remote}-${partition}@${o}`)) skipped++;
    }
    return skipped;
  }

  for (const mode of ['input', 'topic']) {
    it(`group-offsets mode ${mode}: a rewound group fails over with nothing skipped, within and below the offset syncs`, async function () {
      const names = drill.drillNames(mode === 'input' ? 'rwi' : 'rwt');
      const sourceBootstrap = env.cluster('source').bootstrap;
      const targetBootstrap = env.cluster('target').bootstrap;
      await drill.seed(names, sourceBootstrap, targetBootstrap);
      // a second topic whose offset syncs all lie above the position the group is rewound to (MM2
      // keeps only recent syncs: an operator re-processing from long ago lands below all of them)
      const more = `${names.alias}-more`;
      const moreRemote = `${names.alias}.${more}`;
      const sAdmin = await env.admin('source');
      const tAdmin = await env.admin('target');
      await sAdmin.createTopics({ topics: [{ topic: more, numPartitions: 1 }], waitForLeaders: true });
      await tAdmin.createTopics({ topics: [{ topic: moreRemote, numPartitions: 1 }], waitForLeaders: true });
      const messages = Array.from({ length: RECORDS }, (_, i) => ({ partition: 0, value: `more-${i}` }));
      for (const [cluster, topic] of [['source', more], ['target', moreRemote]]) {
        const p = env.kafka(cluster).producer({ allowAutoTopicCreation: false });
        await p.connect();
        await p.send({ topic, acks: -1, messages });
        await p.disconnect();
      }
      const syncs = env.kafka('source').producer({ allowAutoTopicCreation: false });
      await syncs.connect();
      const sync = (topic, partition, o) => {
        const r = encodeOffsetSync({ topic, partition, upstreamOffset: o, downstreamOffset: o });
        return { key: r.key, value: r.value, partition: 0 };
      };
      // MM2's syncs: the last record of every partition of the drill's topic, and 20 and 25 of the other
      const extra = [...Array.from({ length: drill.PARTITIONS }, (_, p) => sync(names.topic, p, RECORDS - 1)), sync(more, 0, 20), sync(more, 0, 25)];
      await syncs.send({ topic: 'mm2-offset-syncs.target.internal', acks: -1, messages: extra });
      await syncs.disconnect();

      committer = new AdminOffsetCommitter(env.kafka('source'));
      const [g0, g1] = names.groups;
      // consume: g0 reads its topic to the end, g1 reads the other topic to the end
      await commitOnSource(g0, Array.from({ length: drill.PARTITIONS }, (_, p) => ({ topic: names.topic, partition: p, offset: BigInt(RECORDS) })));
      await commitOnSource(g1, [{ topic: more, partition: 0, offset: BigInt(RECORDS) }]);

      const flow = drill.drillFlow(names, sourceBootstrap, targetBootstrap);
      for (const n of flow) if (n.type === 'mm2-group-offsets') n.mode = mode;
      nr = await startNodeRed({ quiet: true, logLevel: 'warn' });
      await nr.deploy(flow);

      // checkpoint: the target offsets follow (30 past the sync 29 -> 29; 30 past the sync 25 -> 26)
      await env.eventually(async () => {
        const a = await targetOffsets(g0, names.remote);
        const b = await targetOffsets(g1, moreRemote);
        return a.size === drill.PARTITIONS && [...a.values()].every((o) => o === BigInt(RECORDS)) && b.get(0) === 26n;
      }, { timeout: 120000, interval: 500, what: `${g0} at ${RECORDS} and ${g1} at 26 on the target` });

      // rewind on the source: g0 to 5 (translatable: past the sync 0 -> 1), g1 to 5 (below every sync of its topic)
      await commitOnSource(g0, Array.from({ length: drill.PARTITIONS }, (_, p) => ({ topic: names.topic, partition: p, offset: 5n })));
      await commitOnSource(g1, [{ topic: more, partition: 0, offset: 5n }]);
      // g1 is also deleted on the target (its stale checkpoint must not come back); the broker
      // refuses while the group's coordinator is busy: asked again until it is done
      await env.eventually(() => tAdmin.deleteGroups([g1]).then(() => true, () => false), { timeout: 30000, interval: 500, what: `${g1} deleted on the target` });

      // the target follows the rewinds (without the fix it never does: the wait ends at its
      // limit and the failover below counts the records skipped)
      const followed = await env.eventually(async () => {
        const a = await targetOffsets(g0, names.remote);
        const b = await targetOffsets(g1, moreRemote);
        return a.size === drill.PARTITIONS && [...a.values()].every((o) => o !== null && o <= 5n) && b.get(0) !== undefined && b.get(0) !== null && b.get(0) <= 5n;
      }, { timeout: 90000, interval: 500, what: `the target offsets of ${g0} and ${g1} to follow the rewinds to 5 or below` }).then(() => true, () => false);

      // fail over: the source is gone, the groups consume on the target
      await nr.stop();
      nr = null;
      const skipped0 = await failOverAndCountSkipped(g0, Array.from({ length: drill.PARTITIONS }, (_, p) => ({ remote: names.remote, partition: p, from: 5 })));
      const skipped1 = await failOverAndCountSkipped(g1, [{ remote: moreRemote, partition: 0, from: 5 }]);
      assert.deepEqual(
        { withinSyncs: skipped0, belowSyncsAndDeletedOnTarget: skipped1 },
        { withinSyncs: 0, belowSyncsAndDeletedOnTarget: 0 },
        `records after the rewound position skipped by the failover consumers of ${g0} (rewound within the offset syncs) and ${g1} (rewound below every offset sync, deleted on the target)`,
      );
      assert.ok(followed, 'the target offsets followed the rewinds');

      // the checkpoint below the syncs is the remote partition's start, written once, in MM2's format
      const g1cps = await checkpointsOf(names, g1);
      const rewound = g1cps.filter((c) => c.topic === moreRemote && c.upstreamOffset === 5n);
      assert.deepEqual(rewound.map((c) => c.downstreamOffset), [0n], 'one checkpoint 5 -> 0 (the start of the remote partition)');
    });
  }
});
