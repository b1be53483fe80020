/**
 * The replication engine of the mm2-mirror node: MM2's MirrorSourceTask (+ OffsetSyncWriter) on
 * kafkajs, with no Node-RED import; the topics it copies come from ./mirror-topics (what
 * MirrorSourceConnector decides).
 *
 * - Records are copied to `policy.formatRemoteTopic(sourceAlias, topic)`, same partition, with key,
 *   value, headers and timestamp preserved, in order per partition.
 * - Offset syncs (MirrorSourceTask.commitRecord + OffsetSyncWriter): after each produce ack, per record, maybeQueueOffsetSyncs(topic, partition,
 *   upstream, downstream = the ack's base offset + i) + firePendingOffsetSyncs; every flush interval commit() (promote delayed + fire).
 * - At-least-once: the source position is committed to a consumer group on the source only
 *   for records the target acknowledged; after a crash or redeploy the mirror resumes there.
 *
 * The caller drives time: flush() every offset.flush.interval.ms, refresh() every
 * refresh.topics.interval.seconds, stats() whenever it wants, stop() on close.
 */
import type { Consumer, EachBatchPayload } from 'kafkajs';
import { OffsetSyncWriter } from '../core/offset-sync-writer';
import { encodeOffsetSync } from '../core/offset-sync';
import type { OffsetSync } from '../core/types';
import { OrderedBatchSender } from '../kafka/ordered-sender';
import { checkDelivery, recordBytes, sameSubscription } from '../core/mirror-plan';
import { MirrorTopics, errText } from './mirror-topics';
import { MirrorProducer } from './mirror-producer';
import type { MirrorErrorPlace, MirrorOptions, MirrorOutstanding, MirrorStats } from './mirror-task-types';
import { oldestOutstanding, SourcePositions, tpKey, type Acked } from '../core/mirror-positions';
import { chunkBySize } from '../core/chunks';
import { CoalescingRunner } from '../core/coalescing';
import { askCluster, PROBE_EVERY_MS, PROBE_TIMEOUT_MS } from '../kafka/cluster-probe';
import { topicEnds } from '../kafka/topic-reader';
import { consumerRefusal } from '../kafka/broker-refusals';
import { MirrorShare, progressMetadata } from '../core/mirror-share';
import { adoptLegacyProgress, lookUpAfterJoin } from './mirror-group';
import type { AclNeed } from '../kafka/client';
import { Backoff } from '../core/backoff';
import { Sleeps, Timer, within } from '../core/timers';

const MAX_CHUNK_RECORDS = 500;
const MAX_CHUNK_BYTES = 512 * 1024;
/**
 * Offset syncs queued for writing at once (MM2: 10, MAX_OUTSTANDING_OFFSET_SYNCS). In MM2 each sync
 * is a record of its own and the producer's callbacks free a slot on another thread while the
 * task goes on; here a chunk's syncs are queued in one synchronous loop, so no slot frees during it,
 * and beyond the limit each urgent sync of a partition replaced the previous one in its single
 * pending slot: on a source with many heartbeats topics (10 first syncs at once) a partition kept
 * only the last urgent sync of the chunk, its first one lost, and the groups below it could never
 * be translated. Queued syncs cost a few bytes each and leave in batches of 500 (OrderedBatchSender),
 * so the bound is only there to keep memory finite while writes fail: then the pending slots take over.
 */
export const MIRROR_SYNCS_IN_FLIGHT = 5000;
/** kafkajs's default session timeout: an instance that stops heartbeating loses its partitions after it. */
const SESSION_TIMEOUT_MS = 30000;
/** The longest a sync batch waits for the instance to be a member in good standing again (then it is tried again). */
const SYNC_GATE_WAIT_MS = 60000;
/** First and longest wait before a failed config or ACL sync is tried again (MirrorOptions.syncRetryMs). */
const SYNC_RETRY_MS = { first: 5000, max: 300000 };

export * from './mirror-task-types';

export class Mirror {
  private readonly o: MirrorOptions;
  private readonly topics: MirrorTopics;
  private readonly writer: OffsetSyncWriter | null;
  private consumer: Consumer | null = null;
  /** The mirror's own producer to the target; replaced on every consumer restart so it sees new partitions. */
  private readonly out: MirrorProducer;
  private subscription = new Map<string, number>();
  private remote = new Map<string, string>();
  /** Per source partition: the restart point the target acknowledged, what of it was committed, the lag. */
  private readonly positions = new SourcePositions();
  /** Bumped whenever the consumer is stopped: batches of an older consumer give up. */
  private generation = 0;
  private errors: Partial<Record<MirrorErrorPlace, string>> = {};
  private records = 0;
  private bytes = 0;
  private syncsSent = 0;
  private syncsFailed = 0;
  /** Records copied again after a move or a crash (the remote partition had them already: core/mirror-share). */
  private duplicates = 0;
  /** This instance's share of the flow's partitions and whether it may write offset syncs now. */
  private readonly share: MirrorShare;
  /** What the instance learns after a join (engines/mirror-group): batches of the generation wait for it. */
  private afterJoin: Promise<void> = Promise.resolve();
  private stopping = false;
  private started = false;
  private syncsTopicReady = false;
  private firstSyncs = false;
  /** Refreshes never overlap; one asked while one runs runs once after it, shared by later callers. */
  private readonly refresher = new CoalescingRunner<void, void>(() => this.doRefresh(), () => undefined);
  /** Topic config and ACL syncs: serialised the same way (a timer tick during a slow sync does not start a second one). */
  private readonly configSyncs = new CoalescingRunner<void, void>(() => this.syncStep('configs', () => this.topics.syncConfigs()), () => undefined);
  private readonly aclSyncs = new CoalescingRunner<void, void>(() => this.syncStep('acls', () => this.topics.syncAcls()), () => undefined);
  private readonly sleeps = new Sleeps();
  private readonly retryTimer = new Timer();
  /** The back-off of a failed config or ACL sync (see syncStep). */
  private readonly syncRetries: Record<'configs' | 'acls', { timer: Timer; backoff: Backoff }>;
  /** The back-off of a failed refresh. */
  private readonly refreshRetry = new Backoff(1000, 60000);
  private probing = false;
  /** Clusters asked by the running probe that did not answer (nor fail) yet: since when. */
  private asking = new Map<'source' | 'target', number>();
  /** Partitions that had records waiting on the source at the last probe: their restart point then. */
  private waiting = new Map<string, bigint>();

  constructor(options: MirrorOptions) {
    this.o = options;
    // a heartbeat answered within half the session timeout: the coordinator cannot have moved our partitions
    this.share = new MirrorShare((options.sessionTimeoutMs ?? SESSION_TIMEOUT_MS) / 2);
    const { first, max } = options.syncRetryMs ?? SYNC_RETRY_MS;
    this.syncRetries = { configs: { timer: new Timer(), backoff: new Backoff(first, max) }, acls: { timer: new Timer(), backoff: new Backoff(first, max) } };
    this.topics = new MirrorTopics({ ...options, stopped: () => this.stopping, sleep: (ms) => this.sleep(ms) });
    this.out = new MirrorProducer(options.target, {
      failed: (text, remote) => this.setError('produce', text, remote),
      succeeded: () => this.clearError('produce'),
      requestRefresh: () => this.requestRefresh(),
      sleep: (ms) => this.sleep(ms),
    });
    const syncs = options.offsetSyncs;
    // One write in flight, the rest batched behind it: kafkajs may reorder concurrent sends,
    // and readers take a lower upstream offset as a rewind (see ordered-sender.ts).
    // A failed write is written again (in order, with back-off) until it lands or the task stops:
    // a dropped batch would lose the translations between its syncs for good (see ordered-sender.ts).
    const syncWriteFailed = (e: unknown): void => {
      if (!syncs) return;
      this.syncsFailed++;
      this.setError('sync', syncs.connection.reportError(e, [{ resource: 'Topic', name: syncs.topic, operations: ['WRITE'] }]));
    };
    const ordered = syncs
      ? new OrderedBatchSender<OffsetSync>(async (list) => {
          // fencing (core/mirror-share): only while a member in good standing, only what it owns
          const mine = await this.syncGate(list);
          if (mine.length === 0) return;
          const producer = await syncs.connection.producer();
          const messages = mine.map((s) => ({ partition: 0, ...encodeOffsetSync(s) }));
          await producer.send({ topic: syncs.topic, acks: -1, messages });
        }, 500, { giveUp: () => this.stopping, sleep: (ms) => this.sleep(ms), onRetry: syncWriteFailed })
      : null;
    this.writer = syncs && ordered
      ? new OffsetSyncWriter({
          maxOffsetLag: options.offsetLagMax,
          maxInFlight: MIRROR_SYNCS_IN_FLIGHT,
          send: async (sync) => {
            await ordered.send(sync);
            this.syncsSent++;
            this.clearError('sync');
          },
          onSendError: syncWriteFailed,
        })
      : null;
  }

  /** Creates the offset-syncs topic (if enabled), selects topics and starts mirroring. Never rejects. */
  async start(): Promise<void> {
    this.started = true;
    await this.refresh();
  }

  /** MM2's syncTopicConfigs (./mirror-topics); a failure is a `configs` error, cleared by the next sync that works. Never rejects; never two at once (one asked meanwhile runs once after). */
  async syncConfigs(): Promise<void> {
    await this.configSyncs.run();
  }

  /** MM2's syncTopicAcls (./mirror-topics); a failure is an `acls` error, cleared by the next sync that works. Never rejects; never two at once. */
  async syncAcls(): Promise<void> {
    await this.aclSyncs.run();
  }

  /**
   * One config or ACL sync. A failure is shown and tried again after a back-off (5 s, doubling up
   * to 5 minutes), not only at the next `sync.topic.*.interval.seconds` (10 minutes by default):
   * a target that did not answer for a moment does not leave the node red for that long.
   */
  private async syncStep(where: 'configs' | 'acls', run: () => Promise<void>): Promise<void> {
    if (this.stopping) return;
    const retry = this.syncRetries[where];
    retry.timer.stop();
    try {
      await run();
      this.clearError(where);
      retry.backoff.reset();
    } catch (e) {
      if (this.stopping) return;
      this.setError(where, errText(e));
      const delay = retry.backoff.next();
      retry.timer.after(delay, () => {
        if (!this.stopping) void (where === 'configs' ? this.syncConfigs() : this.syncAcls());
      });
    }
  }

  /**
   * Looks for new topics and partitions (MM2's refresh.topics), creates or grows remote topics,
   * and restarts the source consumer when the subscription changed. Calls are serialised; a
   * call while one runs makes one more run afterwards. Rejects with the failure (also reported
   * as an event, and retried with back-off).
   */
  refresh(): Promise<void> {
    return this.refresher.run();
  }

  /** Asks for a refresh soon without waiting for it (e.g. after "unknown partition" on the target). */
  private requestRefresh(): void {
    this.refresh().catch(() => undefined);
  }

  private scheduleRetry(): void {
    if (this.stopping || this.retryTimer.pending) return;
    const delay = this.refreshRetry.next();
    this.retryTimer.after(delay, () => {
      if (!this.stopping) this.requestRefresh();
    });
  }

  private async doRefresh(): Promise<void> {
    if (this.stopping) return;
    try {
      if (this.o.offsetSyncs && !this.syncsTopicReady) {
        try {
          await this.o.offsetSyncs.ensure();
          this.syncsTopicReady = true;
          this.clearError('syncs-topic');
        } catch (e) {
          this.setError('syncs-topic', errText(e));
          throw e;
        }
      }
      const selected = await this.topics.refresh();
      const remoteName = (t: string) => this.topics.remoteName(t);

      const next = new Map(selected.map((s) => [s.topic, s.partitions] as [string, number]));
      this.remote = new Map(selected.map((s) => [s.topic, remoteName(s.topic)] as [string, string]));
      if (!this.consumer || !sameSubscription(next, this.subscription)) {
        await this.restartConsumer(next);
      }
      this.clearError('refresh');
      this.refreshRetry.reset();
      if (!this.firstSyncs) {
        // MM2 syncs configs and ACLs right at start; here once the remote topics exist (then on the caller's intervals).
        this.firstSyncs = true;
        void (async () => {
          if (this.o.syncTopicConfigs) await this.syncConfigs();
          if (this.o.syncTopicAcls) await this.syncAcls();
        })();
      }
    } catch (e) {
      if (this.stopping) return;
      this.setError('refresh', errText(e));
      this.scheduleRetry();
      throw e;
    }
  }

  private async restartConsumer(subscription: Map<string, number>): Promise<void> {
    await this.stopConsumer();
    if (this.stopping) return;
    // Nothing is in flight now: a fresh producer has fresh metadata (new remote partitions).
    await this.out.close();
    this.subscription = subscription;
    // Partitions no longer subscribed: forget their progress and lag.
    this.positions.keepTopics(subscription);
    const topics = [...subscription.keys()];
    this.o.onEvent({ type: 'subscribed', topics, partitions: this.subscribedPartitions() });
    if (topics.length === 0) return;
    try {
      await this.adoptLegacyProgress(subscription);
    } catch (e) {
      // the group's commits could not be read or written: as the consumer's failure (a refused
      // FindCoordinator comes back from kafkajs as "Failed to find group coordinator": ask why)
      const need: AclNeed[] = [{ resource: 'Group', name: this.o.groupId, operations: ['READ'] }];
      const refused = await consumerRefusal(this.o.source.kafka, this.o.groupId, e, need, this.o.source.settings).catch(() => null);
      const text = this.o.source.reportError(refused ?? e, need);
      if (!this.stopping) this.setError('consumer', text);
      throw new Error(text);
    }
    if (this.stopping) return;
    const consumer = this.o.source.kafka.consumer({
      groupId: this.o.groupId,
      sessionTimeout: this.o.sessionTimeoutMs ?? SESSION_TIMEOUT_MS,
      allowAutoTopicCreation: false,
      readUncommitted: false,
      maxWaitTimeInMs: this.o.maxWaitTimeInMs ?? 1000,
      retry: { retries: 5, initialRetryTime: 300, maxRetryTime: 10000 },
    });
    // what the consumer needs: its group, and the topics it reads
    const acls: AclNeed[] = [{ resource: 'Group', name: this.o.groupId, operations: ['READ'] }, ...topics.map((t) => ({ resource: 'Topic' as const, name: t, operations: ['READ'] }))];
    const consumerFailed = (error: unknown): void => {
      this.setError('consumer', this.o.source.reportError(error, acls));
      void consumerRefusal(this.o.source.kafka, this.o.groupId, error, acls, this.o.source.settings).then((refused) => {
        if (refused && !this.stopping) this.setError('consumer', this.o.source.reportError(refused));
      });
    };
    consumer.on(consumer.events.CRASH, (ev) => {
      const { error, restart } = ev.payload;
      if (this.stopping) return;
      consumerFailed(error);
      if (!restart && this.consumer === consumer) {
        // kafkajs gave up: start a new consumer (through a refresh) after a back-off.
        this.consumer = null;
        consumer.disconnect().catch(() => undefined);
        this.scheduleRetry();
      }
    });
    // Issue 25: the instances of the flow (the same flow in N Node-REDs) share the partitions.
    consumer.on(consumer.events.REBALANCING, () => {
      // kafkajs finished the batches in hand and rejoins now: commit what the target acknowledged
      // while still a member of this generation, so that a partition that moves resumes there
      // (not at the last flush), and write no sync until the new assignment is known.
      this.share.rebalance();
      if (this.consumer === consumer) void this.commitWith(consumer).catch(() => undefined);
    });
    consumer.on(consumer.events.HEARTBEAT, () => this.share.alive(Date.now()));
    consumer.on(consumer.events.GROUP_JOIN, (ev) => {
      const assigned = ev.payload.memberAssignment ?? {};
      this.onAssigned(assigned);
      this.clearError('consumer');
      this.o.source.reportOk();
    });
    this.consumer = consumer;
    try {
      await consumer.connect();
      await consumer.subscribe({ topics, fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: this.o.partitionsConsumedConcurrently ?? 4,
        eachBatch: (payload) => this.onBatch(payload),
      });
      if (this.stopping) await this.stopConsumer();
    } catch (e) {
      this.consumer = null;
      consumer.disconnect().catch(() => undefined);
      this.setError('consumer', this.o.source.reportError(e, acls));
      throw e;
    }
  }

  private async adoptLegacyProgress(subscription: Map<string, number>): Promise<void> {
    if (!this.o.legacyGroups) return;
    const adopted = await adoptLegacyProgress(this.o.source, this.o.groupId, this.o.legacyGroups, subscription);
    if (adopted) this.o.onEvent({ type: 'progress-adopted', ...adopted });
  }

  /** Waits (up to SYNC_GATE_WAIT_MS, then tried again) until the instance is a member in good standing (core/mirror-share maySync); keeps the syncs of what it owns. */
  private async syncGate(list: OffsetSync[]): Promise<OffsetSync[]> {
    const until = Date.now() + SYNC_GATE_WAIT_MS;
    while (!this.share.maySync(Date.now())) {
      if (this.stopping) return [];
      if (Date.now() > until) throw new Error('not a member of the group in good standing: offset syncs held');
      await this.sleep(200);
    }
    return list.filter((s) => this.share.owns(s.topic, s.partition));
  }

  /**
   * A join: partitions now another instance's are forgotten (their progress and syncs are the new owner's); a partition
   * gained starts a fresh sync state (its first record is synced, as a task's in MM2); batches wait for the lookup (engines/mirror-group).
   */
  private onAssigned(assigned: Record<string, number[]>): void {
    this.positions.keepAssigned(assigned);
    const change = this.share.assign(assigned, Date.now());
    for (const p of [...change.revoked, ...change.added]) this.writer?.forget(p.topic, p.partition);
    const lookup = lookUpAfterJoin(this.o.source, this.o.target, this.o.groupId, assigned, (t) => this.remote.get(t) ?? this.o.policy.formatRemoteTopic(this.o.sourceAlias, t)).then(
      (found) => {
        this.share.members = found.members;
        for (const e of found.expected) this.share.expect(e.topic, e.partition, e.mark);
        this.o.onEvent({ type: 'share', partitions: this.share.size, of: this.subscribedPartitions(), instances: found.members });
      },
      () => this.o.onEvent({ type: 'share', partitions: this.share.size, of: this.subscribedPartitions(), instances: this.share.members }),
    );
    this.afterJoin = Promise.race([lookup, this.sleep(10000)]);
  }

  private subscribedPartitions = (): number => [...this.subscription.values()].reduce((a, b) => a + b, 0);

  private async stopConsumer(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = null;
    if (!consumer) return;
    this.generation++;
    this.sleeps.wakeAll();
    // Commit what the target acknowledged and write the offset syncs while still a member (then
    // another instance may own the partitions), leave, commit as an administrator what was acknowledged meanwhile.
    await this.commitWith(consumer).catch(() => undefined);
    if (this.writer) await Promise.race([this.writer.flush(), this.sleep(3000)]);
    await consumer.disconnect().catch(() => undefined);
    for (const p of this.share.left()) this.writer?.forget(p.topic, p.partition);
    await this.commitAsAdmin().catch(() => undefined);
  }

  private async onBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const { topic, partition } = batch;
    const remote = this.remote.get(topic);
    if (!remote || batch.messages.length === 0) return;
    const messages = batch.messages;
    const generation = this.generation;
    await this.afterJoin;
    // a rebalance announced: the rest of the batch is left to whoever owns the partition next (from the commit made now)
    const abandoned = () => this.stopping || generation !== this.generation || !isRunning() || isStale() || this.share.rebalanceAnnounced;
    const sizes = messages.map((m) => recordBytes(m.key, m.value, m.headers as Record<string, unknown> | undefined));
    for (const [start, end] of chunkBySize(sizes, MAX_CHUNK_RECORDS, MAX_CHUNK_BYTES)) {
      if (abandoned()) return;
      const chunk = messages.slice(start, end);
      const base = await this.out.produce(remote, partition, chunk, heartbeat, abandoned);
      if (base === null) return;
      // no sync for a copy of a record the target had (earlier syncs map it to its first copy; a lower one is a rewind: core/mirror-share)
      const mark = this.share.markOf(topic, partition) ?? -1n;
      for (let i = 0; i < chunk.length; i++) {
        if (BigInt(chunk[i].offset) < mark) continue;
        this.writer?.maybeQueueOffsetSyncs(topic, partition, BigInt(chunk[i].offset), base + BigInt(i));
        this.writer?.firePendingOffsetSyncs();
      }
      const last = chunk[chunk.length - 1].offset;
      this.positions.acknowledged(topic, partition, last, batch.highWatermark, base + BigInt(chunk.length));
      const again = this.share.copied(topic, partition, chunk.map((m) => BigInt(m.offset)));
      if (again > 0) {
        this.duplicates += again;
        this.o.onEvent({ type: 'duplicates', topic, partition, records: again });
      }
      resolveOffset(last);
      this.clearError('delivery');
      this.records += chunk.length;
      for (let i = start; i < end; i++) this.bytes += sizes[i];
      this.o.onEvent({ type: 'delivered', records: chunk.length });
      await heartbeat().catch((e: unknown) => this.share.heartbeatFailed(e));
    }
  }

  private sleep(ms: number): Promise<void> {
    return this.sleeps.sleep(ms);
  }

  /**
   * The offset flush (Connect's offset.flush.interval.ms): promote delayed offset syncs and
   * fire them (MM2 commit()), and commit the acknowledged source positions. Never rejects.
   */
  async flush(): Promise<void> {
    this.writer?.commit();
    const consumer = this.consumer;
    if (!consumer) return;
    try {
      await this.commitWith(consumer);
      this.clearError('commit');
    } catch (e) {
      // A rebalance in progress or similar: the next flush commits it (duplicates only, never loss).
      if (!this.stopping) this.setError('commit', errText(e));
    }
  }

  /**
   * Call every probe interval (PROBE_EVERY_MS): asks both clusters something small, within the
   * probe timeout, so that a cluster that stopped answering shows (its connection is marked failed
   * and a `source`/`target` error is told), and checks delivery: a partition of ours with records
   * waiting on the source whose restart point did not move since the previous probe is a
   * `delivery` error (a single record beyond it is left alone: a transaction marker). Never rejects.
   */
  async probe(): Promise<void> {
    if (!this.started || this.stopping || this.probing) return;
    this.probing = true;
    const timeoutMs = this.o.probeTimeoutMs ?? PROBE_TIMEOUT_MS;
    const topics = [...this.subscription.keys()];
    const asked = Date.now();
    const ask = <T>(cluster: 'source' | 'target', p: Promise<T>): Promise<T> => {
      this.asking.set(cluster, asked);
      return p.finally(() => this.asking.delete(cluster));
    };
    try {
      const [src, tgt] = await Promise.allSettled([
        ask('source', askCluster(this.o.source, timeoutMs, async (admin) => {
          const ends = new Map<string, bigint>();
          for (const [topic, byPartition] of await topicEnds(admin, topics)) for (const [p, high] of byPartition) ends.set(tpKey(topic, p), high);
          return ends;
        })),
        ask('target', askCluster(this.o.target, timeoutMs, (admin) => admin.describeCluster())),
      ]);
      if (this.stopping) return;
      if (src.status === 'rejected') this.setError('source', errText(src.reason));
      else {
        this.clearError('source');
        this.checkDelivery(src.value);
      }
      if (tgt.status === 'rejected') this.setError('target', errText(tgt.reason));
      else this.clearError('target');
      if (src.status === 'fulfilled' && tgt.status === 'fulfilled') this.o.onEvent({ type: 'answered' });
    } finally {
      this.probing = false;
    }
  }

  private checkDelivery(ends: Map<string, bigint>): void {
    const d = checkDelivery(this.positions.nextByPartition(), ends, this.waiting);
    this.waiting = d.waiting;
    if (d.stalled > 0) {
      this.setError('delivery', `${d.records} record(s) on ${d.stalled} partition(s) wait on the source and none was copied for ${Math.round(PROBE_EVERY_MS / 1000)} s`);
    } else this.clearError('delivery');
  }

  private async commitWith(consumer: Consumer): Promise<void> {
    const list = this.positions.dirty();
    if (list.length === 0) return;
    await consumer.commitOffsets(list.map((a) => ({ topic: a.topic, partition: a.partition, offset: a.next.toString(), metadata: this.note(a) })));
    this.positions.markCommitted(list);
    this.share.alive(Date.now());
  }

  /** A progress commit's metadata (core/mirror-share): the target offset after it, and the duplicates' mark while above it. */
  private note(a: Acked): string | null {
    return a.down != null ? progressMetadata(a.down, this.share.markOf(a.topic, a.partition)) : null;
  }

  private async commitAsAdmin(): Promise<void> {
    const list = this.positions.dirty();
    if (list.length === 0) return;
    const r = await this.o.source.committer().commit(
      this.o.groupId,
      list.map((a) => ({ topic: a.topic, partition: a.partition, offset: a.next, metadata: this.note(a) ?? '' })),
    );
    if (r.ok) this.positions.markCommitted(list);
  }

  /**
   * What the mirror has waited on longest now: records sent to the target and not acknowledged
   * yet, else a probe a cluster has not answered yet (the older of the two); null when nothing
   * is outstanding. The node shows a long wait at once, before the probe times out.
   */
  outstanding(): MirrorOutstanding | null {
    return oldestOutstanding(this.out.sending.values(), this.asking);
  }

  stats(): MirrorStats {
    const topics = [...this.subscription.keys()];
    return {
      topics,
      remoteTopics: Object.fromEntries(topics.map((t) => [t, this.remote.get(t) ?? this.o.policy.formatRemoteTopic(this.o.sourceAlias, t)])),
      partitions: this.subscribedPartitions(),
      records: this.records,
      bytes: this.bytes,
      syncsSent: this.syncsSent,
      syncsFailed: this.syncsFailed,
      lagBySourcePartition: this.positions.lagBySourcePartition(),
      ownedPartitions: this.share.size,
      instances: this.share.members,
      duplicates: this.duplicates,
      committedPartitions: this.positions.committedPartitions,
      errors: { ...this.errors },
    };
  }

  get running(): boolean {
    return this.started && !this.stopping;
  }

  /**
   * Stops: no new produce, commit the acknowledged source positions, leave the group, send the
   * offset syncs still queued. Bounded by `timeoutMs`; never rejects.
   */
  async stop(timeoutMs = 5000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.retryTimer.stop();
    for (const r of Object.values(this.syncRetries)) r.timer.stop();
    this.sleeps.wakeAll();
    const work = (async () => {
      await this.refresher.idle();
      await this.stopConsumer();
      await this.out.close();
    })();
    await within(work, timeoutMs);
  }

  private setError(where: MirrorErrorPlace, text: string, topic?: string): void {
    this.errors[where] = text;
    this.o.onEvent({ type: 'error', where, error: text, topic });
  }

  private clearError(where: MirrorErrorPlace): void {
    if (this.errors[where] === undefined) return;
    delete this.errors[where];
    this.o.onEvent({ type: 'recovered', where });
  }
}
