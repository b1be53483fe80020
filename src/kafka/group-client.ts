/**
 * The group client both the offset committer and the offset fetcher are: a lazily connected
 * kafkajs cluster object of our own (for the requests kafkajs's admin lacks) that remembers
 * each group's coordinator, finds many coordinators with batched FindCoordinator v4 requests,
 * retries a coordinator that moved or is loading a few bounded times, and lists every group of
 * the cluster with its state (one ListGroups per broker; core/listed-groups keeps the listing).
 * Also the helpers its subclasses share: chunked, sleep, COORDINATOR_MOVED.
 */
import type { Kafka } from 'kafkajs';
import { mapLimit } from '../core/worker-pool';
import { GroupListingKeeper, type ListedGroupState } from '../core/listed-groups';
import { explainKafkaError } from './client';
import {
  API_KEYS,
  decodeFindCoordinatorV4,
  decodeListGroups,
  type ListGroupsDecoding,
  encodeFindCoordinatorV4,
  encodeListGroups,
  errorType,
  flexibleRequest,
  protocolError,
  type KafkajsProtocolRequest,
} from './group-requests';
import { internalCluster, speaks, type InternalBroker, type InternalCluster } from './kafkajs-cluster';

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

/** A lazily connected kafkajs cluster object of our own (for the requests kafkajs's admin lacks). */
export abstract class InternalClusterClient {
  private cluster: InternalCluster | null = null;
  private connecting: Promise<InternalCluster> | null = null;
  protected closed = false;
  protected readonly coordinators: Map<string, number>;
  /** Requests sent, by Kafka API (for the benchmark, the tests and diagnostics). */
  readonly requests: RequestCounts;
  /** `shared`: the coordinator cache and counters of another client of the same cluster (an extra connection of it). */
  constructor(
    protected readonly kafka: Kafka,
    shared?: { coordinators: Map<string, number>; requests: RequestCounts },
  ) {
    this.coordinators = shared?.coordinators ?? new Map();
    this.requests = shared?.requests ?? { FindCoordinator: 0, OffsetFetch: 0, ListGroups: 0, OffsetCommit: 0 };
  }

  protected async connected(): Promise<InternalCluster> {
    if (this.closed) throw new Error('the group client is closed');
    if (this.cluster) return this.cluster;
    if (!this.connecting) {
      const c = internalCluster(this.kafka);
      this.connecting = c.connect().then(
        () => (this.cluster = c),
        (e) => {
          this.connecting = null;
          throw e;
        },
      );
    }
    return this.connecting;
  }

  /** Sends one of our requests over the broker's connection (a closed connection is dropped, as kafkajs does). */
  protected async send<T>(broker: InternalBroker, request: KafkajsProtocolRequest<T>): Promise<T> {
    try {
      return await broker.connectionPool.send(request);
    } catch (e) {
      if ((e as Error).name === 'KafkaJSConnectionClosedError') await broker.disconnect().catch(() => undefined);
      throw e;
    }
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
            for (const c of res.coordinators) {
              if (c.errorCode === 0) this.remember(c.key, c.nodeId);
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
    const listed: Array<ReturnType<typeof decodeListGroups>['groups']> = new Array(ids.length);
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
            // a broker still loading its group coordinator partitions answers shortly
            if (attempt < 4 && COORDINATOR_MOVED.has(errorType(res.errorCode))) {
              await sleep(200 * (attempt + 1));
              continue;
            }
            throw protocolError(res.errorCode, `ListGroups on broker ${id}`);
          }
          listed[index] = res.groups;
          return;
        }
      }),
    );
    return this.listingKeeper.keep(listed);
  }

  /** Each broker's last ListGroups answer, as bytes and decoded. */
  private readonly lastAnswers = new Map<string, { version: number; decoded: ListGroupsDecoding }>();

  /**
   * A broker's ListGroups answer decoded, or the last decoding when the answer is byte for byte
   * the last one (the usual case: listed every second at 10,000 groups, a group changes rarely;
   * decoding 20,000 names each time was most of the node's garbage).
   */
  private decodeListing(id: string, version: 4 | 5, body: Buffer): ListGroupsDecoding {
    const had = this.lastAnswers.get(id);
    const last = had !== undefined && had.version === version ? had.decoded : undefined;
    if (last !== undefined && last.body.equals(body)) return last;
    // decoded from a copy it keeps (the next answer is compared with it; the connection reuses its buffers)
    const decoded = decodeListGroups(version, Buffer.from(body), last);
    if (decoded.errorCode === 0) this.lastAnswers.set(id, { version, decoded });
    else this.lastAnswers.delete(id);
    return decoded;
  }

  /** The listing kept across rounds: the same map while nothing changed. */
  private readonly listingKeeper = new GroupListingKeeper();

  async close(): Promise<void> {
    const c = this.cluster;
    this.closed = true;
    this.cluster = null;
    this.connecting = null;
    this.coordinators.clear();
    this.lastAnswers.clear();
    if (c) await c.disconnect();
  }
}
