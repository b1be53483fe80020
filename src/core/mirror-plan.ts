/**
 * Pure decisions of the mirror (MirrorSourceConnector/Task equivalents: shouldReplicateTopic,
 * the offset syncs of MirrorSourceTask.commitRecord): which
 * remote topics to create or grow, how to cut a fetched batch into produce requests, which
 * downstream offset each record got from a produce ack, and how to show a rate.
 */

export interface TopicPartitions {
  /** Source topic name. */
  topic: string;
  partitions: number;
}

export interface RemoteTopicPlan {
  /** Remote topics missing on the target: create with the source's partition count. */
  create: Array<{ topic: string; remote: string; partitions: number }>;
  /** Remote topics with fewer partitions than the source: add partitions up to the source count. */
  grow: Array<{ topic: string; remote: string; from: number; to: number }>;
  /** Remote topics ready to receive every source partition. */
  ready: Array<{ topic: string; remote: string; partitions: number }>;
}

/**
 * Compares the selected source topics with the topics on the target. A remote topic with more
 * partitions than its source is left alone (as MM2 does).
 */
export function planRemoteTopics(
  selected: readonly TopicPartitions[],
  existingOnTarget: ReadonlyMap<string, number>,
  remoteName: (topic: string) => string,
): RemoteTopicPlan {
  const plan: RemoteTopicPlan = { create: [], grow: [], ready: [] };
  for (const { topic, partitions } of selected) {
    const remote = remoteName(topic);
    const have = existingOnTarget.get(remote);
    if (have === undefined) plan.create.push({ topic, remote, partitions });
    else if (have < partitions) plan.grow.push({ topic, remote, from: have, to: partitions });
    else plan.ready.push({ topic, remote, partitions });
  }
  return plan;
}

/** True when two subscriptions (topic -> partition count) are the same. */
export function sameSubscription(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [t, n] of a) if (b.get(t) !== n) return false;
  return true;
}

/** Approximate wire size of a record: key + value + header names and values. */
export function recordBytes(key: Uint8Array | string | null | undefined, value: Uint8Array | string | null | undefined, headers?: Record<string, unknown> | null): number {
  const len = (x: unknown): number => (x === null || x === undefined ? 0 : typeof x === 'string' ? Buffer.byteLength(x) : (x as Uint8Array).length ?? 0);
  let n = len(key) + len(value);
  if (headers) {
    for (const [k, v] of Object.entries(headers)) {
      n += Buffer.byteLength(k);
      if (Array.isArray(v)) for (const x of v) n += len(x);
      else n += len(v);
    }
  }
  return n;
}

/**
 * Downstream offsets of the records of one produce request to one partition: kafkajs writes
 * the records of one partition of one send as one record batch, so record i (in send order) is
 * at the batch's base offset + i.
 */
export function downstreamOffsets(baseOffset: bigint | string, count: number): bigint[] {
  const base = BigInt(baseOffset);
  const out: bigint[] = [];
  for (let i = 0; i < count; i++) out.push(base + BigInt(i));
  return out;
}

/** A compact rate for a status line: 0, 12, 950, 1.2k, 34k, 1.5M. */
export function formatRate(perSecond: number): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return '0';
  if (perSecond < 10) return perSecond.toFixed(1).replace(/\.0$/, '');
  if (perSecond < 1000) return String(Math.round(perSecond));
  if (perSecond < 10000) return (perSecond / 1000).toFixed(1).replace(/\.0$/, '') + 'k';
  if (perSecond < 1e6) return Math.round(perSecond / 1000) + 'k';
  return (perSecond / 1e6).toFixed(1).replace(/\.0$/, '') + 'M';
}

/** What {@link checkDelivery} found. */
export interface DeliveryCheck {
  /** Partitions with records waiting now, with their restart point: the `previous` of the next check. */
  waiting: Map<string, bigint>;
  /** Partitions that were waiting at the same restart point at the previous check too: nothing copied in between. */
  stalled: number;
  /** Records waiting on the stalled partitions. */
  records: bigint;
}

/**
 * Is the mirror delivering? `next` holds, per partition of ours, the next source offset to copy
 * (the restart point), `ends` the source's end offsets now, `previous` the `waiting` of the last
 * check. A partition is stalled when records wait beyond its restart point now and it waited at
 * the same restart point at the previous check. A single record beyond it is not counted: it can
 * be a transaction marker that the consumer never hands out.
 */
export function checkDelivery(next: ReadonlyMap<string, bigint>, ends: ReadonlyMap<string, bigint>, previous: ReadonlyMap<string, bigint>): DeliveryCheck {
  const waiting = new Map<string, bigint>();
  let stalled = 0;
  let records = 0n;
  for (const [k, n] of next) {
    const end = ends.get(k);
    if (end === undefined || end - n <= 1n) continue;
    waiting.set(k, n);
    if (previous.get(k) === n) {
      stalled += 1;
      records += end - n;
    }
  }
  return { waiting, stalled, records };
}
