/**
 * Writing a group's offsets the way MM2's `alterConsumerGroupOffsets` does: one OffsetCommit
 * per group with no member id and generation -1, which the broker accepts only for groups with
 * no members (AdminOffsetCommitter, and AdminCommitResult, what each commit answers). kafkajs's
 * `setOffsets` joins the group as a member and is deliberately not used.
 */
import { mapLimit } from '../core/worker-pool';
import { InternalClusterClient } from './group-client';

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
