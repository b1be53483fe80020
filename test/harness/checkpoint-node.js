'use strict';
/**
 * What tests of the mm2-checkpoint node share: the offset-sync messages an mm2-offset-syncs node
 * would send it, the node's statuses, and the checkpoint records it wrote on the target (read back
 * from the real checkpoints topic, decoded).
 */
const assert = require('node:assert/strict');
const env = require('./env');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');
const { TopicReader } = require('../../dist/kafka/topic-reader');

/** The checkpoints topic on the target for the source alias 'source' of the harness's config nodes. */
const CHECKPOINTS_TOPIC = 'source.checkpoints.internal';
const SYNCS_TOPIC = 'mm2-offset-syncs.target.internal';

/** An OffsetSyncsMessage with `syncs` given as [topic, partition, upstreamOffset, downstreamOffset]. */
function syncsMsg(syncs) {
  return {
    topic: 'mm2/offset-syncs',
    payload: {
      event: 'syncs',
      syncs: syncs.map(([topic, partition, up, down]) => ({ topic, partition, upstreamOffset: String(up), downstreamOffset: String(down) })),
      source: { topic: SYNCS_TOPIC, cluster: 'source' },
      stats: { read: syncs.length, malformed: 0, loaded: false },
    },
  };
}
/** The OffsetSyncsMessage saying the sync history has been read to its end. */
const loadedMsg = { topic: 'mm2/offset-syncs', payload: { event: 'loaded', source: { topic: SYNCS_TOPIC, cluster: 'source' }, stats: { read: 0, malformed: 0, loaded: true } } };

/** Status objects this node set, in order (the test helper spies Node.prototype.status). */
function statusCalls(node) {
  return node.status.getCalls().filter((c) => c.thisValue === node).map((c) => c.args[0]);
}
function lastStatusText(node) {
  const s = statusCalls(node);
  return s.length ? s[s.length - 1].text : undefined;
}

/** Every checkpoint record on the target for groups starting with `prefix`, in log order. */
async function checkpointRecords(prefix) {
  const admin = await env.admin('target');
  const out = [];
  const reader = new TopicReader(env.kafka('target'), admin, {
    topic: CHECKPOINTS_TOPIC,
    tail: false,
    onRecord: (r) => {
      try {
        const c = decodeCheckpoint(r.key, r.value);
        if (c.group.startsWith(prefix)) out.push({ ...c, timestamp: r.timestamp });
      } catch {
        /* not a checkpoint */
      }
    },
  });
  await reader.start();
  return out;
}

/**
 * Commits `offsets` ([topic, partition, offset]) for `group` with an AdminOffsetCommitter, asking
 * again while it fails: the first commits on a fresh cluster may meet NOT_COORDINATOR while
 * __consumer_offsets loads. Fails with the last answer.
 */
async function commitOffsets(committer, group, offsets, timeout = 20000) {
  const list = offsets.map(([t, partition, offset]) => ({ topic: t, partition, offset: BigInt(offset) }));
  let last;
  await env.eventually(async () => {
    last = await committer.commit(group, list);
    return last.ok;
  }, { what: `commit for ${group}`, timeout, interval: 300 }).catch(() => assert.deepEqual(last, { ok: true }, `commit for ${group}`));
}

module.exports = { CHECKPOINTS_TOPIC, SYNCS_TOPIC, syncsMsg, loadedMsg, statusCalls, lastStatusText, checkpointRecords, commitOffsets };
