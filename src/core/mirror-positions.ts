/**
 * The mirror's source positions (engines/mirror-task), as plain state: per source partition the
 * next offset to mirror once the target acknowledged the records before it (the at-least-once
 * restart point), what of it was committed to the mirror's group, and the lag behind the
 * partition's high watermark; and which request the mirror has waited on longest. No I/O.
 */

/** The key of a source partition (`topic-partition`). */
export function tpKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

export interface Acked {
  topic: string;
  partition: number;
  /** Next upstream offset to mirror (last acknowledged + 1). */
  next: bigint;
  /** The target offset that followed the last acknowledged record (null: not known). */
  down?: bigint | null;
}

export class SourcePositions {
  private readonly acked = new Map<string, Acked>();
  private readonly committed = new Map<string, bigint>();
  private readonly lag = new Map<string, { topic: string; lag: number }>();

  /** The target acknowledged the records of a partition up to `lastOffset`; the partition's high watermark was `highWatermark`. */
  acknowledged(topic: string, partition: number, lastOffset: string, highWatermark: string, downstreamNext: bigint | null = null): void {
    const k = tpKey(topic, partition);
    const next = BigInt(lastOffset) + 1n;
    this.acked.set(k, downstreamNext === null ? { topic, partition, next } : { topic, partition, next, down: downstreamNext });
    this.lag.set(k, { topic, lag: Math.max(0, Number(BigInt(highWatermark) - next)) });
  }

  /** Partitions no longer subscribed: their progress and lag are forgotten. */
  keepTopics(subscription: ReadonlyMap<string, number>): void {
    for (const [k, a] of this.acked) if (!subscription.has(a.topic)) this.acked.delete(k);
    for (const [k, l] of this.lag) if (!subscription.has(l.topic)) this.lag.delete(k);
  }

  /** Progress of partitions now owned by another member (topic -> partitions assigned to us) is theirs to commit: forgotten. */
  keepAssigned(assigned: Readonly<Record<string, readonly number[]>>): void {
    const mine = (topic: string, partition: number): boolean => (assigned[topic] ?? []).includes(partition);
    for (const [k, a] of this.acked) if (!mine(a.topic, a.partition)) this.acked.delete(k);
    // the lag of a partition another instance copies is theirs to show
    for (const [k, l] of this.lag) {
      const cut = k.lastIndexOf('-');
      if (cut > 0 && l.topic === k.slice(0, cut) && !mine(l.topic, Number(k.slice(cut + 1)))) this.lag.delete(k);
    }
  }

  /** Each partition's restart point (`tpKey` -> next offset). */
  nextByPartition(): Map<string, bigint> {
    return new Map([...this.acked].map(([k, a]) => [k, a.next]));
  }

  /** The restart points not committed yet. */
  dirty(): Acked[] {
    return [...this.acked.entries()].filter(([k, a]) => this.committed.get(k) !== a.next).map(([, a]) => a);
  }

  /** These restart points were committed. */
  markCommitted(list: readonly Acked[]): void {
    for (const a of list) this.committed.set(tpKey(a.topic, a.partition), a.next);
  }

  get committedPartitions(): number {
    return this.committed.size;
  }

  /** The lag of each partition (`tpKey` -> records), by key. */
  lagBySourcePartition(): Record<string, number> {
    return Object.fromEntries([...this.lag].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, l]) => [k, l.lag]));
  }
}

/** What the mirror has waited on longest (Mirror.outstanding): an acknowledgement of copied records, or a cluster's answer to a probe. */
export interface MirrorOutstanding {
  kind: 'ack' | 'answer';
  cluster: 'source' | 'target';
  /** When the request was sent (epoch ms). */
  since: number;
}

/** The oldest of the sends not acknowledged yet (to the target) and the probes not answered yet; null when there is none. */
export function oldestOutstanding(sending: Iterable<number>, asking: Iterable<readonly ['source' | 'target', number]>): MirrorOutstanding | null {
  let best: MirrorOutstanding | null = null;
  for (const since of sending) if (!best || since < best.since) best = { kind: 'ack', cluster: 'target', since };
  for (const [cluster, since] of asking) if (!best || since < best.since) best = { kind: 'answer', cluster, since };
  return best;
}
