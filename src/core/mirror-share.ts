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
 *   instance that died, or could not commit, before the move: the source records from the committed
 *   offset up to that many more are on the target already (the mark). A commit made while copying
 *   below the mark carries it on (`;h=<mark>`), so a second move inside the window still counts.
 */
import { tpKey } from './mirror-positions';

/** What a progress commit's metadata carries: the target offset after the last committed record, and the mark when above the commit. */
export interface ProgressNote {
  down: bigint;
  mark: bigint | null;
}

/** The metadata of a progress commit (see ProgressNote). */
export function progressMetadata(downstreamNext: bigint, mark: bigint | null = null): string {
  return mark === null ? `d=${downstreamNext}` : `d=${downstreamNext};h=${mark}`;
}

/** A progress commit's metadata; null when it has none of ours (an older build, another tool). */
export function parseProgressMetadata(metadata: string | null | undefined): ProgressNote | null {
  const m = /^d=(\d{1,19})(?:;h=(\d{1,19}))?$/.exec(metadata ?? '');
  return m ? { down: BigInt(m[1]), mark: m[2] === undefined ? null : BigInt(m[2]) } : null;
}

/**
 * Where a partition resumed at `committed` stops copying records the target has already (the
 * mark, exclusive): the committed offset plus the records the remote partition received after the
 * commit's target offset, or the mark the commit carried if higher; null when there is nothing to
 * expect, or it cannot be known (no note, no remote partition, a shorter remote partition).
 * Source offsets with gaps (compaction, transaction markers) make it an estimate.
 */
export function resumeMark(committed: bigint, note: ProgressNote | null, remoteEnd: bigint | undefined): bigint | null {
  if (note === null) return null;
  let mark = note.mark ?? committed;
  if (remoteEnd !== undefined && remoteEnd > note.down && committed + (remoteEnd - note.down) > mark) mark = committed + (remoteEnd - note.down);
  return mark > committed ? mark : null;
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
  /** Per partition, the source offset below which every record is on the target already (see resumeMark). */
  private readonly marks = new Map<string, bigint>();

  /** `freshMs`: how recently a heartbeat must have been answered for syncs to be written. */
  constructor(private readonly freshMs: number) {}

  /** The group assigned `assigned` (topic -> partitions) to this instance at `now`. */
  assign(assigned: Readonly<Record<string, readonly number[]>>, now: number): ShareChange {
    const next = new Map<string, SharePartition>();
    for (const [topic, partitions] of Object.entries(assigned)) for (const partition of partitions) next.set(tpKey(topic, partition), { topic, partition });
    const before = this.owned ?? new Map<string, SharePartition>();
    const revoked = [...before].filter(([k]) => !next.has(k)).map(([, p]) => p);
    const added = [...next].filter(([k]) => !before.has(k)).map(([, p]) => p);
    for (const p of revoked) this.marks.delete(tpKey(p.topic, p.partition));
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
    this.marks.clear();
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

  /** The records of the partition below `mark` are on the target already (null: none known). */
  expect(topic: string, partition: number, mark: bigint | null): void {
    const k = tpKey(topic, partition);
    if (mark !== null) this.marks.set(k, mark);
    else this.marks.delete(k);
  }

  /** The partition's mark, while records below it may still come (for the progress commit's metadata). */
  markOf(topic: string, partition: number): bigint | null {
    return this.marks.get(tpKey(topic, partition)) ?? null;
  }

  /** Records of the partition at these source offsets (ascending) were copied: how many were on the target already. */
  copied(topic: string, partition: number, offsets: readonly bigint[]): number {
    const k = tpKey(topic, partition);
    const mark = this.marks.get(k);
    if (mark === undefined || offsets.length === 0) return 0;
    let n = 0;
    for (const o of offsets) if (o < mark) n++;
    if (offsets[offsets.length - 1] + 1n >= mark) this.marks.delete(k);
    return n;
  }
}
