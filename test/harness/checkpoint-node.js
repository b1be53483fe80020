'use strict';
/**
 * What tests of the mm2-checkpoint node share: offset syncs written to a real offset-syncs topic
 * (the replication's feed reads them, as MM2's checkpoint task does), the messages an
 * mm2-offset-syncs node sends (a checkpoint node leaves them aside), the node's statuses, and the checkpoint records it wrote on the target (read back
 * from the real checkpoints topic, decoded).
 */
const assert = require('node:assert/strict');
const env = require('./env');
const { decodeCheckpoint } = require('../../dist/core/checkpoint');
const { TopicReader } = require('../../dist/kafka/topic-reader');
const { encodeOffsetSync } = require('../../dist/core/offset-sync');
const { ensureInternalTopic } = require('../../dist/kafka/internal-topics');

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

/** Syncs written so far per offset-syncs topic (what a feed reading it from the start has after its load). */
const written = new Map();

/**
 * Writes offset syncs ([topic, partition, upstreamOffset, downstreamOffset]) to the offset-syncs
 * topic `topic` (created if missing) on the source cluster, or on the cluster of `kafka`.
 */
async function produceSyncs(topic, syncs, kafka = env.kafka('source')) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureInternalTopic(admin, topic, 1);
  } finally {
    await admin.disconnect();
  }
  const producer = kafka.producer();
  await producer.connect();
  try {
    const messages = syncs.map(([t, partition, up, down]) => {
      const { key, value } = encodeOffsetSync({ topic: t, partition, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down) });
      return { key, value, partition: 0 };
    });
    for (let i = 0; i < messages.length; i += 5000) await producer.send({ topic, messages: messages.slice(i, i + 5000) });
  } finally {
    await producer.disconnect();
  }
  written.set(topic, (written.get(topic) ?? 0) + syncs.length);
}

/**
 * Writes offset syncs to the offset-syncs topic of the flow of `f` (`f.syncsTopic`) and waits
 * until the replication's feed (config node `rep`) has loaded them and handed them to its nodes.
 */
async function feedSyncs(f, syncs, kafka) {
  await produceSyncs(f.syncsTopic, syncs, kafka);
  const total = written.get(f.syncsTopic);
  const { helper } = require('./nodes');
  await env.eventually(() => {
    const feed = helper.getNode('rep').syncFeed;
    return feed.stats.loaded && feed.historySize >= total;
  }, { what: `the feed to hand out ${total} syncs of ${f.syncsTopic}`, timeout: 30000 });
}

/** Status objects this node set, in order (the test helper spies Node.prototype.status). */
function statusCalls(node) {
  return node.status.getCalls().filter((c) => c.thisValue === node).map((c) => c.args[0]);
}
function lastStatusText(node) {
  const s = statusCalls(node);
  return s.length ? s[s.length - 1].text : undefined;
}

/** What `node` logged at `level` ('debug', 'warn', 'error', 'log'), in order (the test helper spies Node.prototype's log methods). */
function logged(node, level) {
  return node[level].getCalls().filter((c) => c.thisValue === node).map((c) => String(c.args[0]));
}

/**
 * The outcome of an mm2-checkpoint node's restore as its log tells it (null while it runs):
 * `{ ok: true, restored, read, malformed, retried }` from "restored N checkpoint(s) from M record(s)",
 * `{ ok: false, error, malformed }` from "could not restore the previous checkpoints ... (error); ...
 * keeping only the latest offset sync per partition during the initial load". `malformed`: the
 * count of "skipped N record(s) ... that are not MM2 checkpoints" (0 when not said); `retried`: why each
 * read that failed and was tried again failed ("could not read the previous checkpoints ... reading them again").
 */
function restoreOutcome(node) {
  const skipped = logged(node, 'warn').map((m) => /^skipped (\d+) record\(s\) of \S+ that are not MM2 checkpoints/.exec(m)).find(Boolean);
  const malformed = skipped ? Number(skipped[1]) : 0;
  // reads that failed and were tried again (the node waits for its checkpoints meanwhile)
  const retried = logged(node, 'warn').flatMap((m) => {
    const r = /^could not read the previous checkpoints from \S+ \((.*)\); reading them again shortly/.exec(m);
    return r ? [r[1]] : [];
  });
  const failed = logged(node, 'warn').map((m) => /^could not restore the previous checkpoints from \S+ \((.*)\); as MM2 does, continuing without them and keeping only the latest offset sync per partition during the initial load$/.exec(m)).find(Boolean);
  if (failed) return { ok: false, error: failed[1], malformed, retried };
  const done = logged(node, 'debug').map((m) => /^restored (\d+) checkpoint\(s\) from (\d+) record\(s\) of /.exec(m)).find(Boolean);
  if (done) return { ok: true, restored: Number(done[1]), read: Number(done[2]), malformed, retried };
  return null;
}

/** Waits until the node's log says its restore is over; returns the outcome (see restoreOutcome). */
async function restored(node, timeout = 30000) {
  return env.eventually(() => restoreOutcome(node), { what: 'the checkpoint restore to finish (its log line)', timeout });
}

/**
 * Whether the node's status says it has the offset syncs loaded: past the restore ("loading
 * checkpoints") and no longer "waiting for offset syncs" (nor "offset syncs cannot be read").
 */
function syncsLoaded(node) {
  const last = statusCalls(node).at(-1);
  if (!last || last.fill === 'red') return false;
  return !/^loading checkpoints|^waiting for offset syncs$|^offset syncs cannot be read/.test(last.text);
}

/** Whether the node said (debug log) it follows the source's __consumer_offsets (commits checkpointed as they happen). */
function following(node) {
  return logged(node, 'debug').some((m) => /^following __consumer_offsets on the source/.test(m));
}
/** The reason the node gave (warn log) for polling although it was asked to follow the commits, or null. */
function pollingReason(node) {
  const m = logged(node, 'warn').map((x) => /^not following __consumer_offsets on the source, polling every group's offsets each interval instead: (.*)$/s.exec(x)).find(Boolean);
  return m ? m[1] : null;
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

module.exports = { CHECKPOINTS_TOPIC, SYNCS_TOPIC, syncsMsg, loadedMsg, produceSyncs, feedSyncs, statusCalls, lastStatusText, logged, restoreOutcome, restored, syncsLoaded, following, pollingReason, checkpointRecords, commitOffsets };
