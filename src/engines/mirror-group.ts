/**
 * The mirror's consumer group on the source, outside the copy loop (engines/mirror-task): taking
 * over the progress of the per-node groups of an earlier build before the first join, and what an
 * instance learns after each join (issue 25): how many instances share the flow, and, per
 * partition it now owns, how many records the remote partition got after the committed progress
 * (core/mirror-share: those are copied again, counted as duplicates).
 */
import type { Admin } from 'kafkajs';
import type { ClusterConnection } from '../kafka/connection';
import { topicEnds } from '../kafka/topic-reader';
import { tpKey } from '../core/mirror-positions';
import { legacyResumePoints, type PartitionProgress } from '../core/mirror-progress';
import { parseProgressMetadata, resumeMark } from '../core/mirror-share';

/**
 * Before the consumer joins: partitions the group has no commit for start where the per-node
 * groups of an earlier build stopped (the highest commit among them, core/mirror-progress), by
 * committing that offset to the group. Throws when the source cannot be asked or the commit is
 * refused (the refresh fails, is shown and retried): starting anyway would copy again what the
 * old groups copied. Returns what was adopted (null: nothing).
 */
export async function adoptLegacyProgress(
  source: ClusterConnection,
  groupId: string,
  isLegacy: (groupId: string) => boolean,
  subscription: ReadonlyMap<string, number>,
): Promise<{ partitions: number; groups: string[] } | null> {
  const admin = await source.admin();
  const topics = [...subscription.keys()];
  const have = new Set<string>();
  for (const t of await admin.fetchOffsets({ groupId, topics })) {
    for (const p of t.partitions) if (BigInt(p.offset) >= 0n) have.add(tpKey(t.topic, p.partition));
  }
  const missing: Array<{ topic: string; partition: number }> = [];
  for (const [topic, count] of subscription) for (let p = 0; p < count; p++) if (!have.has(tpKey(topic, p))) missing.push({ topic, partition: p });
  if (missing.length === 0) return null;
  const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g !== groupId && isLegacy(g)).sort();
  if (groups.length === 0) return null;
  const missingTopics = [...new Set(missing.map((m) => m.topic))];
  const legacy: PartitionProgress[][] = [];
  const used: string[] = [];
  for (const g of groups) {
    const list: PartitionProgress[] = [];
    for (const t of await admin.fetchOffsets({ groupId: g, topics: missingTopics })) {
      for (const p of t.partitions) list.push({ topic: t.topic, partition: p.partition, offset: BigInt(p.offset) });
    }
    if (list.some((p) => p.offset >= 0n)) used.push(g);
    legacy.push(list);
  }
  const resume = legacyResumePoints(missing, legacy);
  if (resume.length === 0) return null;
  const r = await source.committer().commit(groupId, resume);
  if (!r.ok) throw new Error(`cannot take over the progress of ${used.join(', ')} into ${groupId}: ${r.message}`);
  return { partitions: resume.length, groups: used };
}

export interface JoinLookup {
  /** Members of the group now (1 when it could not be described). */
  members: number;
  /** Per assigned partition, the source offset below which its records are on the target already (null: none). */
  expected: Array<{ topic: string; partition: number; mark: bigint | null }>;
}

/**
 * After a join: the group's members, and per assigned partition where the records to expect again
 * end (core/mirror-share resumeMark). `remote` names each source topic's remote topic.
 */
export async function lookUpAfterJoin(
  source: ClusterConnection,
  target: ClusterConnection,
  groupId: string,
  assigned: Readonly<Record<string, readonly number[]>>,
  remote: (topic: string) => string,
): Promise<JoinLookup> {
  const topics = Object.keys(assigned).filter((t) => (assigned[t] ?? []).length > 0);
  const admin: Admin = await source.admin();
  const [described, committed, ends] = await Promise.all([
    admin.describeGroups([groupId]).then((d) => d.groups.find((g) => g.groupId === groupId)?.members.length ?? 1, () => 1),
    topics.length > 0 ? admin.fetchOffsets({ groupId, topics }) : Promise.resolve([]),
    topics.length > 0 ? target.admin().then((a) => topicEnds(a, topics.map(remote))) : Promise.resolve(new Map<string, Map<number, bigint>>()),
  ]);
  const expected: JoinLookup['expected'] = [];
  for (const t of committed) {
    const mine = new Set(assigned[t.topic] ?? []);
    for (const p of t.partitions) {
      if (!mine.has(p.partition) || BigInt(p.offset) < 0n) continue;
      const mark = resumeMark(BigInt(p.offset), parseProgressMetadata(p.metadata), ends.get(remote(t.topic))?.get(p.partition));
      expected.push({ topic: t.topic, partition: p.partition, mark });
    }
  }
  return { members: Math.max(1, described), expected };
}
