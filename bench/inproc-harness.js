'use strict';
/**
 * The in-process harness of `npm run bench:inproc` (bench/inproc.js): two clusters answering from
 * memory, with an injected latency per request and every request counted by Kafka API, and the
 * real checkpoint and group-offset machinery from dist/ wired as an `mm2-checkpoint` node and an
 * `mm2-group-offsets` node of one replication: the emitter keeps its checkpoint store in the
 * replication's runtime, which the writer reads in place; output 1 goes to a debug node only:
 *
 *   source commit -> (stream fetch + batching window) -> SourceOffsets -> CheckpointEmitter
 *   partial cycle (the store in the ReplicationRuntime) -> produce to the checkpoints topic ->
 *   ReplicationRuntime.cycled -> (engines/replication-runtime followRuntime) GroupOffsetSyncer.syncGroups
 *   -> ListGroups / OffsetFetch / Metadata / ListOffsets -> OffsetCommit on the target.
 *
 * Nothing of the product is replaced but the Kafka I/O (ClusterConnection's admin, producer, batch producer,
 * offset fetcher and committer, and the `__consumer_offsets` stream, through the emitter's
 * `openSourceStream` option). How each in-memory call maps to Kafka requests (what kafkajs and
 * kafka/group-client.ts and its subclasses send for it) is listed at `memoryCluster`.
 */
const path = require('node:path');

const root = path.join(__dirname, '..');
const dist = (p) => require(path.join(root, 'dist', p));
const { CheckpointEmitter } = dist('engines/checkpoint-emitter');
const { GroupOffsetSyncer } = dist('engines/group-offset-syncer');
const { CheckpointCycles } = dist('nodes/mm2-checkpoint/mm2-checkpoint-cycles');
const { checkpointEmitterEvents } = dist('nodes/mm2-checkpoint/mm2-checkpoint-events');
const { GroupOffsetsCycles } = dist('nodes/mm2-group-offsets/mm2-group-offsets-cycles');
const { followRuntime } = dist('engines/replication-runtime');
const { ReplicationRuntime } = dist('engines/replication-runtime');
const { createReplicationPolicy } = dist('core/replication-policy');
const { createGroupFilter, createTopicFilter } = dist('core/filters');
const { Batcher } = dist('core/coalescing');
const { util: nodeRedUtil } = require('@node-red/util');
const { GroupListingKeeper } = dist('core/listed-groups');
const { encodeProduceV8 } = dist('kafka/produce-request');

const TOPIC = 'bench-fresh';
const REMOTE = `source.${TOPIC}`;
const CP_TOPIC = 'source.checkpoints.internal';
/** Kafka APIs counted on each in-memory cluster. */
const APIS = ['produce', 'metadata', 'listGroups', 'offsetFetch', 'findCoordinator', 'listOffsets', 'offsetCommit'];
/** Groups per OffsetFetch request (kafka/group-client.ts GROUPS_PER_OFFSET_FETCH). */
const GROUPS_PER_OFFSET_FETCH = 500;
/** The remote partitions' log end on the target: past every checkpoint. */
const REMOTE_END = 1000000000000n;

/** Deterministic pseudo-random numbers (the randomized tests' mulberry32). */
const { mulberry32: prng } = require('../test/unit/helpers/random');

const GROUP_PREFIX = 'bench-g';
function groupNamer(groups) {
  const width = String(Math.max(0, groups - 1)).length;
  return {
    name: (i) => `${GROUP_PREFIX}${String(i).padStart(width, '0')}`,
    index: (g) => (g.startsWith(GROUP_PREFIX) ? Number(g.slice(GROUP_PREFIX.length)) : -1),
  };
}
/** A string decoded from the wire is a new string each time (not the harness's own). */
const fresh = (s) => Buffer.from(s, 'latin1').toString('latin1');

/** Where a group's committed offsets start on the source (every group somewhere in 1000..1049, above the last initial sync at 1000 for some). */
const initialOffset = (g, p) => BigInt(1000 + ((g * 7 + p) % 50));

/**
 * One cluster answering from memory. Each call waits one latency (uniform in [lo, hi] ms; 0: the
 * next turn of the event loop, as a socket answer would) per request it stands for, and counts
 * them by API:
 *
 * | call | requests (what the real client sends) |
 * |---|---|
 * | admin.listTopics | metadata |
 * | admin.fetchTopicOffsets | listOffsets x2, in series (kafkajs: latest, then earliest) |
 * | producer.send | produce |
 * | batchProducer.produce (the checkpoints topic: the request encoded as kafka/batch-producer encodes it) | produce |
 * | offsetFetcher.listGroupStates | metadata, then listGroups (one broker); callers at the same moment share one listing, and an unchanged listing is the same Map (kafka/group-client.ts) |
 * | offsetFetcher.fetchMany / fetchEach(n groups) | offsetFetch x ceil(n / 500), in parallel (coordinators known), each answered after its own latency |
 * | offsetFetcher.coordinatorFailures(n > 0 groups) | findCoordinator x1 |
 * | committer.commitMany(n groups) | offsetCommit x n, in parallel, each answered after its own latency |
 *
 * The committed offsets are two typed arrays (group x partition) allocated up front, so that the
 * harness's own tables are not counted in what the product retains.
 */
function memoryCluster({ role, groups, parts, latency = [0, 0], seed = 1, initial = false }) {
  let [lo, hi] = latency;
  const rand = prng(seed);
  const namer = groupNamer(groups);
  const topic = role === 'source' ? TOPIC : REMOTE;
  const committed = new BigInt64Array(groups * parts).fill(-1n);
  if (initial) for (let g = 0; g < groups; g++) for (let p = 0; p < parts; p++) committed[g * parts + p] = initialOffset(g, p);
  /** Groups with a commit (the target's listing shows these). */
  const present = new Uint8Array(groups);
  let presentCount = 0;
  if (initial) {
    present.fill(1);
    presentCount = groups;
  }
  const counts = Object.fromEntries(APIS.map((a) => [a, 0]));
  const delay = () => {
    const ms = lo + (hi - lo) * rand();
    return ms <= 0 ? new Promise((r) => setImmediate(r)) : new Promise((r) => setTimeout(r, ms));
  };
  const request = async (api, n = 1) => {
    counts[api] += n;
    await delay();
  };
  let listing = null;
  let listingCount = -1;
  // the group client's listing map is made by the product's GroupListingKeeper (kafka/group-client)
  // open: its names shared with the other cluster's listing, as the group clients' keepers are (core/listed-groups)
  let keeper = new GroupListingKeeper().open();
  let listingInFlight = null;
  const onCommit = [];
  let stream = null;

  const admin = {
    listTopics: async () => {
      await request('metadata');
      return [CP_TOPIC, REMOTE, TOPIC, '__consumer_offsets'];
    },
    fetchTopicMetadata: async () => {
      await request('metadata');
      return { topics: [] };
    },
    fetchTopicOffsets: async (t) => {
      await request('listOffsets');
      await request('listOffsets');
      if (t === REMOTE || t === TOPIC) return Array.from({ length: parts }, (_, partition) => ({ partition, offset: String(REMOTE_END), high: String(REMOTE_END), low: '0' }));
      // the checkpoints topic: empty (the restore reads nothing); any other: one empty partition
      return [{ partition: 0, offset: '0', high: '0', low: '0' }];
    },
  };
  const producer = {
    send: async ({ messages }) => {
      await request('produce');
      cluster.produced += messages.length;
    },
  };
  /** The checkpoints topic's writer (kafka/batch-producer): the request encoded as the real one encodes it (the batch written into it), then one produce. */
  const batchProducer = {
    produce: async (topicName, partition, records) => {
      encodeProduceV8(topicName, partition, records, -1, 30000);
      await request('produce');
      cluster.produced += records.count;
      return 0n;
    },
  };
  const listNow = async () => {
    await request('metadata');
    await request('listGroups');
    if (listing === null || listingCount !== presentCount) {
      // the broker's answer as decoded (not kept: the real client keeps only a digest of its bytes and the keeper's compact listing)
      const answer = [];
      for (let g = 0; g < groups; g++) if (present[g]) answer.push({ groupId: fresh(namer.name(g)), state: 'Empty', protocolType: 'consumer' });
      listing = keeper.keep([answer]);
      listingCount = presentCount;
    }
    return listing;
  };
  const fetcher = {
    listGroupStates() {
      if (listingInFlight === null) {
        const p = listNow();
        listingInFlight = p;
        const done = () => {
          if (listingInFlight === p) listingInFlight = null;
        };
        p.then(done, done);
      }
      return listingInFlight;
    },
    /** One request per 500 groups, in parallel, each answered after its own latency (told to `onBatch` as it answers, as kafka/group-client.ts does). */
    async fetchMany(gs, onBatch) {
      const offsets = new Map();
      const { failed } = await fetcher.fetchEach(gs, (batch) => {
        for (const [g, list] of batch) offsets.set(g, list);
        if (onBatch) onBatch(batch);
      });
      return { offsets, failed };
    },
    /** As fetchMany, each request's answer handed to `each` as it answers and kept by nothing here (kafka/group-client.ts GroupOffsetFetcher.fetchEach). */
    async fetchEach(gs, each) {
      const failed = new Map();
      const chunks = [];
      for (let i = 0; i < gs.length; i += GROUPS_PER_OFFSET_FETCH) chunks.push(gs.slice(i, i + GROUPS_PER_OFFSET_FETCH));
      counts.offsetFetch += chunks.length;
      await Promise.all(
        chunks.map(async (chunk) => {
          await delay();
          const batch = new Map();
          // one topic name per answer, as kafka/group-requests.ts decodeOffsetFetchV8Offsets decodes it (a topic named by the same bytes as the last group's is that string)
          const name = fresh(topic);
          for (const g of chunk) {
            const i = namer.index(g);
            if (i < 0 || i >= groups) {
              failed.set(g, 'GROUP_ID_NOT_FOUND');
              continue;
            }
            const list = [];
            for (let p = 0; p < parts; p++) {
              const o = committed[i * parts + p];
              if (o >= 0n) list.push({ topic: name, partition: p, offset: o, metadata: '' });
            }
            batch.set(g, list);
          }
          if (batch.size > 0) each(batch);
        }),
      );
      return { failed };
    },
    async coordinatorFailures(gs) {
      if (gs.length > 0) await request('findCoordinator');
      return new Map();
    },
  };
  const committer = {
    async commitMany(commits) {
      const out = new Map();
      counts.offsetCommit += commits.length;
      await Promise.all(
        commits.map(async (c) => {
          await delay();
          const i = namer.index(c.group);
          if (i < 0 || i >= groups) {
            out.set(c.group, { ok: false, errorType: 'INVALID_GROUP_ID', message: 'not a bench group' });
            return;
          }
          if (!present[i]) {
            present[i] = 1;
            presentCount++;
          }
          for (const o of c.offsets) if (o.topic === topic) committed[i * parts + o.partition] = o.offset;
          out.set(c.group, { ok: true });
          for (const f of onCommit) f(i, c.offsets);
        }),
      );
      return out;
    },
  };

  const cluster = {
    role,
    counts,
    /** Changes the latency of the requests sent from now on ([lo, hi] ms). */
    setLatency([a, b]) {
      lo = a;
      hi = b;
    },
    produced: 0,
    /** Groups with a committed offset. */
    get presentCount() {
      return presentCount;
    },
    /** Forgets the cached group listing (the memory bench counts it with the listings). */
    dropListing() {
      listing = null;
      keeper.close();
      keeper = new GroupListingKeeper().open();
    },
    committed,
    namer,
    delay,
    /** Called with (group index, offsets) as each OffsetCommit is answered. */
    onCommit: (f) => onCommit.push(f),
    connection: {
      alias: role,
      kafka: null,
      settings: { brokers: [`${role}.memory:9092`] },
      admin: async () => admin,
      producer: async () => producer,
      batchProducer: () => batchProducer,
      offsetFetcher: () => fetcher,
      committer: () => committer,
      reportOk: () => undefined,
      reportError: (e) => String((e && e.message) || e),
    },
    /** The emitter's `openSourceStream`: a `__consumer_offsets` stream fed by `commit` (the real stream's batching window). */
    openStream: (options) => {
      const batcher = new Batcher({
        maxItems: Number.POSITIVE_INFINITY,
        maxWaitMs: options.batchMs,
        onFlush: (items) => {
          if (items.length === 0) return;
          const changes = new Map();
          for (const c of items) {
            const k = `${c.group}\u0000${c.topic}\u0000${c.partition}`;
            changes.delete(k);
            changes.set(k, c);
          }
          options.onBatch({ changes: [...changes.values()], deletedGroups: [], skipped: 0 });
        },
      });
      const s = {
        stopped: false,
        batcher,
        start: async () => {
          await request('metadata');
          stream = s;
        },
        stop: async () => {
          s.stopped = true;
          batcher.clear();
          if (stream === s) stream = null;
        },
        get lastFetchAt() {
          return Date.now();
        },
      };
      return s;
    },
    /**
     * A consumer of group `g` commits `offset` on partition `p` (answered now): the stream reads
     * the record one fetch later (one latency), then its batching window runs.
     */
    commit(g, p, offset) {
      committed[g * parts + p] = offset;
      const s = stream;
      if (s === null) return;
      const change = { group: fresh(namer.name(g)), topic: fresh(topic), partition: p, offset };
      delay().then(() => {
        if (!s.stopped) s.batcher.add(change);
      });
    },
  };
  return cluster;
}

/** Node-RED's side of the flow, reduced to what the two nodes' lib classes call. */
function flowContext(counters) {
  const log = {
    warn: () => true,
    error: () => true,
    ok: () => undefined,
    limited: () => true,
  };
  return {
    t: (key) => key,
    log,
    status: { activity: () => undefined, show: () => undefined, fail: (text) => (counters.lastFailure = text) },
    closing: false,
  };
}

/**
 * The two nodes of one replication (mm2-group-offsets in mode "replication"): mm2-checkpoint's
 * outputs 1 and 2 to debug nodes. Timers as the nodes set them when `periodic` is on: a full
 * checkpoint cycle every `emitMs`, a group refresh every `refreshMs`, a full group-offset run
 * every `syncMs`; the 60 s periods (full read of the source offsets, re-read of up-to-date target
 * groups) are `periodMs`.
 * Without `periodic`, only the event lane runs (and the first full cycle and run of the start).
 */
function buildFlow(o) {
  const { source, target } = o;
  const counters = { out1: 0, out1Whole: 0, out2: 0, goOut: 0, fullCycles: 0, partialCycles: 0, writerRuns: 0, writerFullRuns: 0, debugCopies: 0, lastFailure: null };
  const ctx = flowContext(counters);
  const groupFilter = createGroupFilter({});
  const topicFilter = createTopicFilter({});
  const checkpointsTopic = CP_TOPIC;
  const state = { phase: { kind: 'preparing' }, last: null, lastAt: 0, error: null, groups: null };
  const periodMs = o.periodMs;
  const timers = [];
  /** Node-RED delivers each message on a later turn (setImmediate); destinations after the first get a deep copy. */
  const deliver = (msg, destinations) => {
    destinations.forEach((d, i) => {
      const m = i === 0 ? msg : nodeRedUtil.cloneMessage(msg);
      if (i > 0) counters.debugCopies++;
      setImmediate(() => d(m));
    });
  };
  /** @param {unknown} _msg */
  const debugNode = (_msg) => undefined;
  const runtime = new ReplicationRuntime();
  const cpNode = {
    send: (outs) => {
      const [m1, m2] = outs;
      if (m1) {
        counters.out1++;
        if (m1.payload && m1.payload.full) counters.out1Whole++;
        if (o.debugWire !== false) deliver(m1, [debugNode]);
      }
      if (m2) {
        counters.out2++;
        deliver(m2, [debugNode]);
      }
    },
    warn: () => undefined,
    debug: () => undefined,
  };
  const goNode = {
    /** @param {unknown} _msg */
    send: (_msg) => {
      counters.goOut++;
    },
    error: (e) => (counters.lastFailure = String(e)),
  };
  const emitter = new CheckpointEmitter({
    source: source.connection,
    target: target.connection,
    sourceAlias: 'source',
    targetAlias: 'target',
    policy: createReplicationPolicy({}),
    checkpointsTopic,
    groupFilter,
    topicFilter,
    ensureTopic: async () => undefined,
    retryMaxMs: o.emitMs,
    sourceOffsets: 'auto',
    offsetTranslation: 'precise',
    fullSourceReadEveryMs: periodMs,
    openSourceStream: (opts) => source.openStream(opts),
    home: runtime,
    events: checkpointEmitterEvents({
      node: cpNode,
      t: ctx.t,
      log: ctx.log,
      state,
      checkpointsTopic,
      render: () => undefined,
      delivered: (r) => cycles.deliver(r),
    }),
  });
  const cycles = new CheckpointCycles({
    node: cpNode,
    t: ctx.t,
    log: ctx.log,
    emitter,
    state,
    render: () => undefined,
    where: { sourceCluster: 'source', targetCluster: 'target', checkpointsTopic },
  });
  // every completed cycle, the emitter's own (event-driven) and the timer's, goes through deliver: counted
  const deliverCycle = cycles.deliver.bind(cycles);
  cycles.deliver = (r, requester) => {
    if (r.full) counters.fullCycles++;
    else counters.partialCycles++;
    return deliverCycle(r, requester);
  };
  const reportRun = (run) => {
    run.then(
      (r) => {
        counters.writerRuns++;
        if (!r.partial) counters.writerFullRuns++;
      },
      () => undefined,
    );
    return run;
  };
  const syncer = new GroupOffsetSyncer({
    connection: target.connection,
    groupFilter,
    names: runtime.names,
    minWriteIntervalMs: o.minWriteIntervalMs,
    followRewinds: true,
    fullTargetReadEveryMs: periodMs,
    onDeferredRun: (run) => goCycles.report(run, null, null, null), // counted: it comes from syncGroups
  });
  // every run the writer makes goes through these two: counted
  const syncAll = syncer.sync.bind(syncer);
  const syncSome = syncer.syncGroups.bind(syncer);
  syncer.sync = () => reportRun(syncAll());
  syncer.syncGroups = (gs) => reportRun(syncSome(gs));
  const goCycles = new GroupOffsetsCycles({
    node: goNode,
    ctx,
    t: ctx.t,
    syncer,
    connection: target.connection,
    mode: 'replication',
    intervalMs: o.syncMs,
    checkpointsTopic,
    origin: { sourceCluster: 'source', targetCluster: 'target', checkpointsTopic },
  });
  const unfollow = followRuntime({
    runtime,
    syncer,
    active: () => goCycles.ready,
    fullRun: () => {
      goCycles.ready = true;
      goCycles.run(null, null, null);
    },
    ran: (run) => goCycles.report(run, null, null, null),
    following: () => undefined,
  });
  const every = (ms, fn) => timers.push(setInterval(fn, ms));
  return {
    emitter,
    runtime,
    syncer,
    cycles,
    goCycles,
    state,
    counters,
    /** Starts as the nodes do: offset syncs given (history, then loaded), the emitter started, the timers set. */
    async start(syncs) {
      emitter.handleSyncEvent({ event: 'syncs', syncs });
      emitter.handleSyncEvent({ event: 'loaded' });
      await emitter.start();
      if (o.periodic) this.startTimers();
    },
    /** The nodes' timers: full checkpoint cycles, group refreshes, full group-offset runs. */
    startTimers() {
      if (timers.length > 0) return;
      // BENCH_INPROC_TIMERS=emit,refresh,sync (default all): which periodic work runs (to tell which one an event waits behind)
      const on = new Set(String(process.env.BENCH_INPROC_TIMERS || 'emit,refresh,sync').split(',').map((x) => x.trim()));
      if (on.has('emit')) every(o.emitMs, () => void cycles.run(false).catch(() => undefined));
      if (on.has('refresh'))
        every(o.refreshMs, () => {
          emitter.refreshGroups().catch(() => undefined);
          void emitter.retrySourceStream();
        });
      if (on.has('sync')) every(o.syncMs, () => goCycles.tick());
    },
    stopTimers() {
      for (const t of timers.splice(0)) clearInterval(t);
    },
    async stop() {
      this.stopTimers();
      ctx.closing = true;
      goCycles.stop();
      unfollow();
      await emitter.stop();
      await syncer.close?.();
    },
  };
}

/** The offset syncs every partition starts with: upstream 0, 100, ... 1000 (downstream = upstream). */
function initialSyncs(parts) {
  const syncs = [];
  for (let p = 0; p < parts; p++) for (let u = 0; u <= 1000; u += 100) syncs.push({ topic: TOPIC, partition: p, upstreamOffset: BigInt(u), downstreamOffset: BigInt(u) });
  return syncs;
}

const percentile = (sorted, q) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]);

module.exports = { memoryCluster, buildFlow, initialSyncs, initialOffset, prng, percentile, APIS, TOPIC, REMOTE, CP_TOPIC };

/**
 * Bytes allocated on the JavaScript heap between start() and stop(): the heap used at the end,
 * minus at the start, plus what each garbage collection in between freed (v8.GCProfiler).
 */
function allocationMeter() {
  const v8 = require('node:v8');
  const profiler = new v8.GCProfiler();
  const used0 = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  return {
    stop() {
      const data = profiler.stop();
      const used1 = v8.getHeapStatistics().used_heap_size;
      let freed = 0;
      let gcs = 0;
      for (const s of (data && data.statistics) || []) {
        freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
        gcs++;
      }
      return { bytes: used1 - used0 + freed, gcs };
    },
  };
}

/** Resolves when `cond()` holds (checked every `everyMs`), rejects after `timeoutMs` naming `what`. */
async function waitFor(cond, what, timeoutMs, everyMs = 10) {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

module.exports.allocationMeter = allocationMeter;
module.exports.waitFor = waitFor;
