/**
 * The group client: the requests on consumer groups that kafkajs's admin lacks or sends one
 * coordinator look-up per request for, over a lazily connected kafkajs cluster object of our own.
 * One client remembers each group's coordinator, finds many coordinators with batched
 * FindCoordinator v4 requests, retries a coordinator that moved or is loading a few bounded
 * times, and lists every group of the cluster with its state (one ListGroups per broker;
 * core/listed-groups keeps the listing). Its two uses on the data path of a commit:
 *
 * - reading groups' committed offsets (GroupOffsetFetcher; fetchCommittedOffsets through kafkajs's
 *   admin): one OffsetFetch per group or, for many groups, one OffsetFetch v8 per coordinator of
 *   up to GROUPS_PER_OFFSET_FETCH groups (KIP-709); a partition without a commit comes back with
 *   offset null;
 * - writing a group's offsets the way MM2's `alterConsumerGroupOffsets` does (AdminOffsetCommitter,
 *   AdminCommitResult): one OffsetCommit per group with no member id and generation -1, which the
 *   broker accepts only for groups with no members. kafkajs's `setOffsets` joins the group as a
 *   member and is deliberately not used.
 *
 * Adapters only: they decide nothing of what to read or write.
 */
import type { Admin, Kafka } from 'kafkajs';
import { mapLimit } from '../core/worker-pool';
import { createHash } from 'node:crypto';
import { GroupListingKeeper, type GroupListing, type ListedGroupState } from '../core/listed-groups';
import type { CommittedOffset } from '../core/types';
import { explainKafkaError } from './client';
import {
  API_KEYS,
  decodeFindCoordinatorV4,
  decodeListGroups,
  decodeOffsetFetchV8Offsets,
  encodeFindCoordinatorV4,
  encodeListGroups,
  encodeOffsetFetchV8,
  errorType,
  flexibleRequest,
  protocolError,
  type KafkajsProtocolRequest,
} from './group-requests';
import { OwnCluster, speaks, type InternalBroker, type InternalCluster } from './kafkajs-cluster';

/** `items` cut into consecutive lists of at most `size`. */
export function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Coordinator errors after which the cached coordinator of a group is looked up again. */
export const COORDINATOR_MOVED = new Set(['NOT_COORDINATOR', 'NOT_COORDINATOR_FOR_GROUP', 'COORDINATOR_NOT_AVAILABLE', 'GROUP_COORDINATOR_NOT_AVAILABLE', 'COORDINATOR_LOAD_IN_PROGRESS', 'GROUP_LOAD_IN_PROGRESS']);

/** Keys per batched FindCoordinator. */
export const KEYS_PER_FIND_COORDINATOR = 1000;
/** Per-group requests at the same time where a broker lacks the batched versions. */
export const PER_GROUP_CONCURRENCY = 8;

export type RequestCounts = Record<'FindCoordinator' | 'OffsetFetch' | 'ListGroups' | 'OffsetCommit', number>;

/** The base of both clients: a lazily connected kafkajs cluster object of our own (for the requests kafkajs's admin lacks). */
export abstract class InternalClusterClient {
  private readonly own: OwnCluster;
  protected readonly coordinators: Map<string, number>;
  /** Requests sent, by Kafka API (for the benchmark, the tests and diagnostics). */
  readonly requests: RequestCounts;
  /** `shared`: the coordinator cache and counters of another client of the same cluster (an extra connection of it). */
  constructor(
    protected readonly kafka: Kafka,
    shared?: { coordinators: Map<string, number>; requests: RequestCounts },
  ) {
    this.own = new OwnCluster(kafka, 'the group client');
    this.coordinators = shared?.coordinators ?? new Map();
    this.requests = shared?.requests ?? { FindCoordinator: 0, OffsetFetch: 0, ListGroups: 0, OffsetCommit: 0 };
  }

  /** Closed for good (close). */
  protected get closed(): boolean {
    return this.own.closed;
  }

  protected connected(): Promise<InternalCluster> {
    return this.own.connected();
  }

  /** Sends one of our requests over the broker's connection (a closed connection is dropped, as kafkajs does). */
  protected send<T>(broker: InternalBroker, request: KafkajsProtocolRequest<T>): Promise<T> {
    return this.own.send(broker, request);
  }

  /**
   * Runs `fn` with the coordinator of a group, remembered per group (kafkajs's admin asks for it
   * before every request); a moved or loading coordinator is looked up again, and `fn` tried up to five times.
   */
  protected async withCoordinator<T>(groupId: string, fn: (broker: InternalBroker) => Promise<T>): Promise<T> {
    const cluster = await this.connected();
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn(await this.coordinator(cluster, groupId));
      } catch (e) {
        const type = (e as { type?: string }).type ?? '';
        // a coordinator that moved or is still loading (a new __consumer_offsets, a restarted
        // broker) answers again shortly: a few bounded tries
        if (attempt < 4 && COORDINATOR_MOVED.has(type) && !this.closed) {
          this.coordinators.delete(groupId);
          await sleep(200 * (attempt + 1));
          continue;
        }
        throw e;
      }
    }
  }

  private async coordinator(cluster: InternalCluster, groupId: string): Promise<InternalBroker> {
    const known = this.coordinators.get(groupId);
    if (known !== undefined) {
      // a client without metadata yet (a new connection sharing the cache) fails the first
      // findBroker, which refreshes kafkajs's metadata: once more before the coordinator is forgotten
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          return await cluster.findBroker({ nodeId: known });
        } catch {
          // retried below, or looked up again
        }
      }
      this.coordinators.delete(groupId);
    }
    this.requests.FindCoordinator++;
    const broker = await cluster.findGroupCoordinator({ groupId });
    this.remember(groupId, broker.nodeId);
    return broker;
  }

  private remember(groupId: string, nodeId: number): void {
    if (this.coordinators.size > 100000) this.coordinators.clear();
    this.coordinators.set(groupId, nodeId);
  }

  /** Forgets a group's coordinator (it moved): the next request looks it up again. */
  protected forgetCoordinator(groupId: string): void {
    this.coordinators.delete(groupId);
  }

  /** Some broker of the cluster (metadata refreshed when none is known yet). */
  private async anyBroker(cluster: InternalCluster): Promise<InternalBroker> {
    let ids = Object.keys(cluster.brokerPool.brokers);
    if (ids.length === 0) {
      await cluster.refreshMetadata();
      ids = Object.keys(cluster.brokerPool.brokers);
    }
    let last: unknown = new Error('the cluster has no brokers in its metadata');
    for (const id of ids.sort(() => Math.random() - 0.5)) {
      try {
        return await cluster.findBroker({ nodeId: id });
      } catch (e) {
        last = e;
      }
    }
    throw last;
  }

  /**
   * The coordinators of many groups, by node id: remembered ones as they are, the others from
   * FindCoordinator v4 requests of up to KEYS_PER_FIND_COORDINATOR groups (one group per
   * request on brokers older than Kafka 3.0). Groups whose coordinator could not be found land
   * in `failed` with the reason.
   */
  protected async coordinatorsOf(groups: readonly string[]): Promise<{ byNode: Map<number, string[]>; failed: Map<string, string> }> {
    const cluster = await this.connected();
    const failed = new Map<string, string>();
    let unknown = groups.filter((g) => !this.coordinators.has(g));
    if (unknown.length > 0) {
      const broker = await this.anyBroker(cluster);
      if (speaks(broker, API_KEYS.FindCoordinator, 4)) {
        for (let attempt = 0; unknown.length > 0; attempt++) {
          const again: string[] = [];
          for (const chunk of chunked(unknown, KEYS_PER_FIND_COORDINATOR)) {
            if (this.closed) throw new Error('the group client is closed');
            this.requests.FindCoordinator++;
            const res = await this.send(broker, flexibleRequest('FindCoordinator', 4, encodeFindCoordinatorV4(chunk), decodeFindCoordinatorV4));
            // remembered under the caller's string, not the copy decoded from the answer: a cache of
            // 10,000-30,000 groups per client kept its own copy of every name (3 clients: 96 B per group)
            const asked = new Map(chunk.map((g) => [g, g]));
            for (const c of res.coordinators) {
              if (c.errorCode === 0) this.remember(asked.get(c.key) ?? c.key, c.nodeId);
              else if (attempt < 4 && COORDINATOR_MOVED.has(errorType(c.errorCode))) again.push(c.key);
              else failed.set(c.key, protocolError(c.errorCode, 'FindCoordinator', c.errorMessage).message);
            }
          }
          unknown = again;
          // a coordinator that is not available yet (a new __consumer_offsets) answers shortly
          if (unknown.length > 0) await sleep(200 * (attempt + 1));
        }
      } else {
        await mapLimit(unknown, PER_GROUP_CONCURRENCY, async (g) => {
          try {
            await this.coordinator(cluster, g);
          } catch (e) {
            failed.set(g, explainKafkaError(e));
          }
        });
      }
    }
    const byNode = new Map<number, string[]>();
    for (const g of groups) {
      const node = this.coordinators.get(g);
      if (node === undefined) {
        if (!failed.has(g)) failed.set(g, 'no coordinator found for the group');
        continue;
      }
      const list = byNode.get(node) ?? [];
      list.push(g);
      byNode.set(node, list);
    }
    return { byNode, failed };
  }

  /**
   * Of `groups`, those whose coordinator could not be found, with the reason: a principal without
   * DESCRIBE on a group gets GROUP_AUTHORIZATION_FAILED here (ListGroups leaves such a group out).
   * Coordinators found are remembered, as for any request.
   */
  async coordinatorFailures(groups: readonly string[]): Promise<Map<string, string>> {
    return (await this.coordinatorsOf(groups)).failed;
  }

  /**
   * Every group of the cluster with its state: one ListGroups (v4, or v5 with the group type)
   * per broker, all at once. Throws when a broker does not answer (a group missing from the
   * listing would look like a group that does not exist) or lacks ListGroups v4 (Kafka < 2.6).
   */
  listGroupStates(): Promise<ReadonlyMap<string, ListedGroupState>> {
    // callers at the same moment (a cluster's checkpoint and group-offset nodes, every second) share one listing in flight
    if (this.listing === null) {
      const p = this.listGroupStatesNow();
      this.listing = p;
      const done = (): void => {
        if (this.listing === p) this.listing = null;
      };
      p.then(done, done);
    }
    return this.listing;
  }

  private listing: Promise<ReadonlyMap<string, ListedGroupState>> | null = null;

  private async listGroupStatesNow(): Promise<ReadonlyMap<string, ListedGroupState>> {
    const cluster = await this.connected();
    await cluster.refreshMetadata();
    const ids = Object.keys(cluster.brokerPool.brokers);
    if (ids.length === 0) throw new Error('the cluster has no brokers in its metadata');
    const listed: GroupListing[] = new Array(ids.length);
    await Promise.all(
      ids.map(async (id, index) => {
        const broker = await cluster.findBroker({ nodeId: id });
        const version = speaks(broker, API_KEYS.ListGroups, 5) ? 5 : speaks(broker, API_KEYS.ListGroups, 4) ? 4 : 0;
        if (version === 0) throw new Error(`broker ${id} does not support ListGroups v4 (group states); Kafka 2.6 or later is needed`);
        for (let attempt = 0; ; attempt++) {
          if (this.closed) throw new Error('the group client is closed');
          this.requests.ListGroups++;
          const res = await this.send(broker, flexibleRequest('ListGroups', version, encodeListGroups(version), (b) => this.decodeListing(id, version, b)));
          if (res.errorCode !== 0) {
            this.listingKeeper.forgetPart(id);
            // a broker still loading its group coordinator partitions answers shortly
            if (attempt < 4 && COORDINATOR_MOVED.has(errorType(res.errorCode))) {
              await sleep(200 * (attempt + 1));
              continue;
            }
            throw protocolError(res.errorCode, `ListGroups on broker ${id}`);
          }
          listed[index] = res.listing;
          return;
        }
      }),
    );
    this.listingKeeper.retainParts(ids);
    return this.listingKeeper.keep(listed);
  }

  /**
   * A broker's ListGroups answer as a listing: the one kept for that broker when the answer is
   * byte for byte the last one (the usual case: listed every second at 10,000 groups, a group
   * changes rarely), known by a digest of its bytes (issue 24 step g: neither the bytes nor the
   * decoded groups are kept, only the compact listing); else decoded.
   */
  private decodeListing(id: string, version: 4 | 5, body: Buffer): { errorCode: number; listing: GroupListing } {
    const fingerprint = `${version}:${createHash('sha256').update(body).digest('base64')}`;
    let errorCode = 0;
    const listing = this.listingKeeper.part(id, fingerprint, () => {
      const decoded = decodeListGroups(version, body);
      errorCode = decoded.errorCode;
      return decoded.errorCode === 0 ? decoded.groups : [];
    });
    return { errorCode, listing };
  }

  /** The listing kept across rounds: the same listing while nothing changed; each broker's part by the digest of its answer. */
  private readonly listingKeeper = new GroupListingKeeper().open();

  async close(): Promise<void> {
    const closing = this.own.close();
    this.coordinators.clear();
    this.listingKeeper.close();
    await closing;
  }
}

// ---- reading committed offsets (OffsetFetch) ----

/** Groups per batched OffsetFetch. */
export const GROUPS_PER_OFFSET_FETCH = 500;

/** Every committed offset of the group (all topics). Partitions without a commit come back with offset null. */
export async function fetchCommittedOffsets(admin: Admin, groupId: string): Promise<CommittedOffset[]> {
  const topics = await admin.fetchOffsets({ groupId });
  const out: CommittedOffset[] = [];
  for (const t of topics) {
    for (const p of t.partitions) {
      const off = BigInt(p.offset);
      out.push({ topic: t.topic, partition: p.partition, offset: off < 0n ? null : off, metadata: p.metadata ?? '' });
    }
  }
  return out;
}

function committedOffset(topic: string, partition: number, offset: bigint, metadata: string | null): CommittedOffset {
  return { topic, partition, offset: offset < 0n ? null : offset, metadata: metadata ?? '' };
}

/**
 * Reads groups' committed offsets with each group's coordinator remembered: `fetch` with one
 * OffsetFetch per group (kafkajs's admin.fetchOffsets asks for the coordinator before every
 * fetch), `fetchMany` with one OffsetFetch v8 per coordinator for many groups (KIP-709).
 */
export class GroupOffsetFetcher extends InternalClusterClient {
  /** Every committed offset of the group, as fetchCommittedOffsets returns them. */
  async fetch(groupId: string): Promise<CommittedOffset[]> {
    return this.withCoordinator(groupId, async (broker) => {
      // an empty topic list goes out as a null array: all committed offsets of the group
      this.requests.OffsetFetch++;
      const { responses } = await broker.offsetFetch({ groupId, topics: [] });
      const out: CommittedOffset[] = [];
      for (const t of responses) {
        for (const p of t.partitions) out.push(committedOffset(t.topic, p.partition, BigInt(p.offset), p.metadata));
      }
      return out;
    });
  }

  /**
   * Every committed offset of many groups: the coordinators from FindCoordinator v4 (remembered),
   * then OffsetFetch v8 with up to GROUPS_PER_OFFSET_FETCH groups per request, the requests to
   * all coordinators at once. A group whose coordinator moved is looked up again (a few bounded
   * tries); a coordinator older than Kafka 3.0 is asked one group at a time. Never throws for
   * one group: its error lands in `failed` (group -> reason), and a group is either in `offsets` or in `failed`.
   * `onBatch` is told the groups each request answered as it answers (before the whole read
   * ends): a caller may act on a group without waiting for the other coordinators' answers.
   */
  async fetchMany(groups: readonly string[], onBatch?: (answered: ReadonlyMap<string, CommittedOffset[]>) => void): Promise<{ offsets: Map<string, CommittedOffset[]>; failed: Map<string, string> }> {
    const offsets = new Map<string, CommittedOffset[]>();
    const { failed } = await this.fetchEach(groups, (answer) => {
      for (const [g, list] of answer) offsets.set(g, list);
      onBatch?.(answer);
    });
    return { offsets, failed };
  }

  /**
   * As {@link fetchMany}, each request's answer handed to `each` as it arrives (group -> its
   * offsets), so that a caller that folds it into its own state holds no read's worth of objects
   * across the read's awaits (100,000 offsets at 10,000 groups x 10 partitions were promoted to
   * V8's old space at every full read, 40-45 MiB a minute of Node-RED's RSS until a full GC).
   */
  async fetchEach(groups: readonly string[], each: (answer: ReadonlyMap<string, CommittedOffset[]>) => void): Promise<{ failed: Map<string, string> }> {
    const failed = new Map<string, string>();
    const cluster = await this.connected();
    let pending = [...new Set(groups)];
    for (let attempt = 0; pending.length > 0; attempt++) {
      const retry: string[] = [];
      const moved = (g: string, type: string, reason: string): void => {
        if (attempt < 4 && COORDINATOR_MOVED.has(type)) {
          this.forgetCoordinator(g);
          retry.push(g);
        } else {
          failed.set(g, reason);
        }
      };
      const { byNode, failed: notFound } = await this.coordinatorsOf(pending);
      for (const [g, reason] of notFound) failed.set(g, reason);
      await Promise.all(
        [...byNode].map(async ([nodeId, list]) => {
          let broker: InternalBroker;
          try {
            broker = await cluster.findBroker({ nodeId });
          } catch (e) {
            for (const g of list) moved(g, 'NOT_COORDINATOR', explainKafkaError(e));
            return;
          }
          if (!speaks(broker, API_KEYS.OffsetFetch, 8)) {
            await mapLimit(list, PER_GROUP_CONCURRENCY, async (g) => {
              try {
                each(new Map([[g, await this.fetch(g)]]));
              } catch (e) {
                failed.set(g, explainKafkaError(e));
              }
            });
            return;
          }
          await Promise.all(chunked(list, GROUPS_PER_OFFSET_FETCH).map((chunk) => this.fetchChunk(broker, chunk, each, failed, moved)));
        }),
      );
      pending = retry;
      if (pending.length > 0) {
        if (this.closed) {
          for (const g of pending) failed.set(g, 'the group client is closed');
          break;
        }
        await sleep(200 * (attempt + 1));
      }
    }
    return { failed };
  }

  private async fetchChunk(
    broker: InternalBroker,
    chunk: string[],
    each: (answer: ReadonlyMap<string, CommittedOffset[]>) => void,
    failed: Map<string, string>,
    moved: (g: string, type: string, reason: string) => void,
  ): Promise<void> {
    if (this.closed) {
      for (const g of chunk) failed.set(g, 'the group client is closed');
      return;
    }
    this.requests.OffsetFetch++;
    let res: ReturnType<typeof decodeOffsetFetchV8Offsets>;
    try {
      res = await this.send(broker, flexibleRequest('OffsetFetch', 8, encodeOffsetFetchV8(chunk.map((groupId) => ({ groupId, topics: null }))), decodeOffsetFetchV8Offsets));
    } catch (e) {
      const type = (e as { type?: string }).type ?? '';
      for (const g of chunk) moved(g, type, explainKafkaError(e));
      return;
    }
    const answered = new Set<string>();
    const offsets = new Map<string, CommittedOffset[]>();
    // the answer keyed by the caller's string (what the callers keep as keys), not the copy decoded from the response
    const asked = new Map<string, string>();
    for (const g of chunk) asked.set(g, g);
    for (const gr of res.groups) {
      const group = asked.get(gr.groupId) ?? gr.groupId;
      answered.add(group);
      if (gr.errorCode !== 0) {
        const err = protocolError(gr.errorCode, `OffsetFetch of group '${group}'`);
        moved(group, err.type, err.message);
        continue;
      }
      const pe = gr.partitionError;
      if (pe) failed.set(group, protocolError(pe.errorCode, `OffsetFetch of group '${group}', ${pe.topic}-${pe.partition}`).message);
      else offsets.set(group, gr.offsets);
    }
    for (const g of chunk) if (!answered.has(g)) failed.set(g, `the coordinator did not answer for group '${g}'`);
    if (offsets.size > 0) each(offsets);
  }
}

// ---- writing offsets as an administrator (OffsetCommit, generation -1, no member) ----

export interface AdminCommitResult {
  ok: boolean;
  /** UNKNOWN_MEMBER_ID (the group has members: untouched), or another Kafka error type. */
  errorType?: string;
  message?: string;
}

/**
 * Connections a committer uses for many commits. A broker handles one request per connection at
 * a time, and an OffsetCommit waits for its write to `__consumer_offsets` (the group
 * coordinator lingers up to 10 ms to batch appends), so commits on one connection queue behind
 * each other; on several connections the coordinator writes them together.
 */
export const COMMIT_CONNECTIONS = 8;
/** Commits in flight per connection and coordinator (the next one is on the wire when the broker answers). */
const COMMITS_PER_CONNECTION = 2;

/**
 * Commits offsets for a group as an administrator: generation -1, empty member id. The broker
 * accepts it only when the group has no members (classic and KIP-848 groups alike) and
 * answers UNKNOWN_MEMBER_ID otherwise, which we report as `{ ok: false, errorType: 'UNKNOWN_MEMBER_ID' }`.
 */
export class AdminOffsetCommitter extends InternalClusterClient {
  /** Extra connections for commitMany (their own kafkajs clusters, sharing the coordinator cache and counters). */
  private readonly lanes: AdminOffsetCommitter[] = [];

  async commit(groupId: string, offsets: Array<{ topic: string; partition: number; offset: bigint; metadata?: string }>): Promise<AdminCommitResult> {
    if (offsets.length === 0) return { ok: true };
    const byTopic = new Map<string, Array<{ partition: number; offset: string; metadata: string | null }>>();
    for (const o of offsets) {
      const list = byTopic.get(o.topic) ?? [];
      list.push({ partition: o.partition, offset: o.offset.toString(), metadata: o.metadata ?? '' });
      byTopic.set(o.topic, list);
    }
    try {
      await this.withCoordinator(groupId, (coordinator) => {
        this.requests.OffsetCommit++;
        return coordinator.offsetCommit({
          groupId,
          groupGenerationId: -1,
          memberId: '',
          retentionTime: -1,
          topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
        });
      });
      return { ok: true };
    } catch (e) {
      const err = e as { type?: string; message?: string };
      return { ok: false, errorType: err.type ?? 'UNKNOWN', message: err.message ?? String(e) };
    }
  }

  /**
   * Finds and remembers the coordinators of groups about to be committed in several commitMany
   * calls (a run committing slice by slice): batched FindCoordinator requests now, none per slice.
   * Never throws (a group not found is looked up again by the commitMany that commits it).
   */
  async findCoordinators(groups: readonly string[]): Promise<void> {
    await this.coordinatorsOf(groups).catch(() => undefined);
  }

  /**
   * Many groups' commits (one OffsetCommit per group, as `commit`): the coordinators first, in
   * batched FindCoordinator requests, then the commits spread over `connections` connections
   * (default COMMIT_CONNECTIONS), a few in flight on each, per coordinator. `stop()` true: no further commit is sent (those not sent answer CLOSED).
   * Never throws; the result per group.
   */
  async commitMany(
    commits: ReadonlyArray<{ group: string; offsets: Array<{ topic: string; partition: number; offset: bigint; metadata?: string }> }>,
    opts: { connections?: number; stop?: () => boolean } = {},
  ): Promise<Map<string, AdminCommitResult>> {
    const out = new Map<string, AdminCommitResult>();
    if (commits.length === 0) return out;
    const byGroup = new Map(commits.map((c) => [c.group, c.offsets]));
    let lookup: Awaited<ReturnType<InternalClusterClient['coordinatorsOf']>>;
    try {
      lookup = await this.coordinatorsOf([...byGroup.keys()]);
    } catch (e) {
      const err = e as { type?: string; message?: string };
      for (const g of byGroup.keys()) out.set(g, { ok: false, errorType: err.type ?? 'UNKNOWN', message: err.message ?? String(e) });
      return out;
    }
    for (const [g, reason] of lookup.failed) out.set(g, { ok: false, errorType: 'COORDINATOR_NOT_FOUND', message: reason });
    const stop = opts.stop ?? (() => this.closed);
    const connections = Math.max(1, opts.connections ?? COMMIT_CONNECTIONS);
    while (this.lanes.length < connections - 1) this.lanes.push(new AdminOffsetCommitter(this.kafka, { coordinators: this.coordinators, requests: this.requests }));
    const lanes: AdminOffsetCommitter[] = [this, ...this.lanes.slice(0, connections - 1)];
    await Promise.all(
      [...lookup.byNode.values()].flatMap((groups) =>
        lanes.map((lane, i) =>
          mapLimit(groups.filter((_, j) => j % lanes.length === i), COMMITS_PER_CONNECTION, async (g) => {
            if (stop() || this.closed) {
              out.set(g, { ok: false, errorType: 'CLOSED', message: 'not sent: the run was abandoned' });
              return;
            }
            out.set(g, await lane.commit(g, byGroup.get(g) ?? []));
          }),
        ),
      ),
    );
    return out;
  }

  override async close(): Promise<void> {
    const lanes = this.lanes.splice(0);
    await Promise.all([super.close(), ...lanes.map((l) => l.close())]);
  }
}
