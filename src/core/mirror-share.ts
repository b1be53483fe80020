/**
 * The share of one mirror instance (issue 25): the instances of a replication flow (the same flow
 * in N Node-REDs) join one consumer group on the source, and Kafka splits the source partitions
 * among them. Plain state, no I/O (engines/mirror-task feeds it the group's events):
 *
 * - which partitions this instance owns in the current generation, and how many instances share;
 * - whether it may write offset syncs now (fencing): only while it is a member in good standing,
 *   i.e. it joined, no rebalance was announced since, and a heartbeat was answered recently
 *   (`fresh`: less than the session timeout, so the coordinator cannot have given its partitions
 *   away yet). An instance paused (SIGSTOP, a long GC) past the session timeout wakes with a stale
 *   heartbeat: it writes no sync until the group took it back, and then only for what it owns. A
 *   sync of a partition that moved, written late, would be older than the new owner's syncs and
 *   make every reader drop the partition's history (MM2's rewind rule, spec 6.3 step 3);
 * - the duplicates to expect when it resumes a partition: the progress commit carries the target
 *   offset that followed the last committed record (`d=<offset>` in the commit's metadata), so the
 *   records the remote partition got after it (its end offset now minus that) were copied by an
 *   instance that died, or could not commit, before the move; the first that many records this
 *   instance copies from the committed offset are copies of them.
 */
import { tpKey } from './mirror-positions';

/** The metadata of a progress commit: the target offset that followed the last committed record. */
export function progressMetadata(downstreamNext: bigint): string {
  return `d=${downstreamNext}`;
}

/** The target offset in a progress commit's metadata; null when there is none (an older build, another tool). */
export function parseProgressMetadata(metadata: string | null | undefined): bigint | null {
  const m = /^d=(\d{1,19})$/.exec(metadata ?? '');
  return m ? BigInt(m[1]) : null;
}

/**
 * Records re-copied when a partition resumes at its committed offset: those the remote partition
 * received after the commit's target offset (`end - committedDownstream`), 0 when unknown or when
 * the remote partition is shorter (recreated, truncated).
 */
export function expectedDuplicates(committedDownstream: bigint | null, remoteEnd: bigint | undefined): bigint {
  if (committedDownstream === null || remoteEnd === undefined) return 0n;
  return remoteEnd > committedDownstream ? remoteEnd - committedDownstream : 0n;
}

export interface SharePartition {
  topic: string;
  partition: number;
}

export interface ShareChange {
  /** Partitions no longer ours. */
  revoked: SharePartition[];
  /** Partitions ours now that were not. */
  added: SharePartition[];
}

export class MirrorShare {
  private owned: Map<string, SharePartition> | null = null;
  private rebalancing = false;
  private lastAlive = 0;
  private joins = 0;
  /** Instances in the group (this one included); 1 until the group was described. */
  members = 1;
  /** Per partition, records still expected to be copies when it resumes (see expectedDuplicates). */
  private readonly budget = new Map<string, bigint>();

  /** `freshMs`: how recently a heartbeat must have been answered for syncs to be written. */
  constructor(private readonly freshMs: number) {}

  /** The group assigned `assigned` (topic -> partitions) to this instance at `now`. */
  assign(assigned: Readonly<Record<string, readonly number[]>>, now: number): ShareChange {
    const next = new Map<string, SharePartition>();
    for (const [topic, partitions] of Object.entries(assigned)) for (const partition of partitions) next.set(tpKey(topic, partition), { topic, partition });
    const before = this.owned ?? new Map<string, SharePartition>();
    const revoked = [...before].filter(([k]) => !next.has(k)).map(([, p]) => p);
    const added = [...next].filter(([k]) => !before.has(k)).map(([, p]) => p);
    for (const p of revoked) this.budget.delete(tpKey(p.topic, p.partition));
    this.owned = next;
    this.rebalancing = false;
    this.lastAlive = now;
    this.joins++;
    return { revoked, added };
  }

  /** The coordinator answered a heartbeat (or a commit) at `now`. */
  alive(now: number): void {
    this.lastAlive = now;
  }

  /** A rebalance was announced: no sync until the next assignment. */
  rebalance(): void {
    this.rebalancing = true;
  }

  /** A heartbeat failed; a rebalance (kafkajs's isRebalancing, or the member was dropped) stops the batch in hand soon. */
  heartbeatFailed(e: unknown): void {
    const type = (e as { type?: unknown } | null)?.type;
    if (type === 'REBALANCE_IN_PROGRESS' || type === 'ILLEGAL_GENERATION' || type === 'UNKNOWN_MEMBER_ID' || type === 'NOT_COORDINATOR_FOR_GROUP') this.rebalancing = true;
  }

  /** Left the group (the consumer stopped): nothing is owned; returns what was. */
  left(): SharePartition[] {
    const was = [...(this.owned?.values() ?? [])];
    this.owned = null;
    this.rebalancing = false;
    this.budget.clear();
    return was;
  }

  get rebalanceAnnounced(): boolean {
    return this.rebalancing;
  }

  /** Assignments received since the start. */
  get generations(): number {
    return this.joins;
  }

  owns(topic: string, partition: number): boolean {
    return this.owned !== null && this.owned.has(tpKey(topic, partition));
  }

  /** Partitions owned now (0 before the first assignment). */
  get size(): number {
    return this.owned?.size ?? 0;
  }

  /** Whether offset syncs may be written at `now` (see the file's comment). */
  maySync(now: number): boolean {
    return this.owned !== null && !this.rebalancing && now - this.lastAlive < this.freshMs;
  }

  /** Records of `partition` to count as re-copied from its committed offset on. */
  expect(topic: string, partition: number, records: bigint): void {
    const k = tpKey(topic, partition);
    if (records > 0n) this.budget.set(k, records);
    else this.budget.delete(k);
  }

  /** `count` records of the partition were copied: how many of them were copies of records copied before. */
  copied(topic: string, partition: number, count: number): number {
    const k = tpKey(topic, partition);
    const left = this.budget.get(k);
    if (left === undefined) return 0;
    const n = left < BigInt(count) ? left : BigInt(count);
    if (left - n > 0n) this.budget.set(k, left - n);
    else this.budget.delete(k);
    return Number(n);
  }
}
