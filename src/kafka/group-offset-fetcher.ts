/**
 * Reading consumer groups' committed offsets: fetchCommittedOffsets through kafkajs's admin,
 * and GroupOffsetFetcher with each group's coordinator remembered, one OffsetFetch per group
 * or, for many groups, one OffsetFetch v8 per coordinator of up to GROUPS_PER_OFFSET_FETCH
 * groups (KIP-709). A partition without a commit comes back with offset null.
 */
import type { Admin } from 'kafkajs';
import { mapLimit } from '../core/worker-pool';
import type { CommittedOffset } from '../core/types';
import { explainKafkaError } from './client';
import { API_KEYS, decodeOffsetFetchV8, encodeOffsetFetchV8, flexibleRequest, protocolError } from './group-requests';
import { speaks, type InternalBroker } from './kafkajs-cluster';
import { chunked, COORDINATOR_MOVED, InternalClusterClient, PER_GROUP_CONCURRENCY, sleep } from './group-client';

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
   */
  async fetchMany(groups: readonly string[]): Promise<{ offsets: Map<string, CommittedOffset[]>; failed: Map<string, string> }> {
    const offsets = new Map<string, CommittedOffset[]>();
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
                offsets.set(g, await this.fetch(g));
              } catch (e) {
                failed.set(g, explainKafkaError(e));
              }
            });
            return;
          }
          await Promise.all(chunked(list, GROUPS_PER_OFFSET_FETCH).map((chunk) => this.fetchChunk(broker, chunk, offsets, failed, moved)));
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
    return { offsets, failed };
  }

  private async fetchChunk(
    broker: InternalBroker,
    chunk: string[],
    offsets: Map<string, CommittedOffset[]>,
    failed: Map<string, string>,
    moved: (g: string, type: string, reason: string) => void,
  ): Promise<void> {
    if (this.closed) {
      for (const g of chunk) failed.set(g, 'the group client is closed');
      return;
    }
    this.requests.OffsetFetch++;
    let res: ReturnType<typeof decodeOffsetFetchV8>;
    try {
      res = await this.send(broker, flexibleRequest('OffsetFetch', 8, encodeOffsetFetchV8(chunk.map((groupId) => ({ groupId, topics: null }))), decodeOffsetFetchV8));
    } catch (e) {
      const type = (e as { type?: string }).type ?? '';
      for (const g of chunk) moved(g, type, explainKafkaError(e));
      return;
    }
    const answered = new Set<string>();
    for (const gr of res.groups) {
      answered.add(gr.groupId);
      if (gr.errorCode !== 0) {
        const err = protocolError(gr.errorCode, `OffsetFetch of group '${gr.groupId}'`);
        moved(gr.groupId, err.type, err.message);
        continue;
      }
      const list: CommittedOffset[] = [];
      let partitionError: Error | null = null;
      for (const t of gr.topics) {
        for (const p of t.partitions) {
          if (p.errorCode !== 0) partitionError = protocolError(p.errorCode, `OffsetFetch of group '${gr.groupId}', ${t.topic}-${p.partition}`);
          else list.push(committedOffset(t.topic, p.partition, p.offset, p.metadata));
        }
      }
      if (partitionError) failed.set(gr.groupId, partitionError.message);
      else offsets.set(gr.groupId, list);
    }
    for (const g of chunk) if (!answered.has(g)) failed.set(g, `the coordinator did not answer for group '${g}'`);
  }
}
