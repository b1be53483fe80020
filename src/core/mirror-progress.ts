/**
 * Where an `mm2-mirror` keeps its progress (the next source offset to copy, per topic partition),
 * and how a mirror of an older version's progress is taken over. Plain rules, no I/O.
 *
 * MM2 keeps a MirrorSourceTask's source offsets in Kafka Connect's offsets topic, keyed by the
 * connector's name and `{cluster, topic, partition}`: re-created under the same name, or after its
 * worker restarts (a redeployed dedicated MM2, whose connectors are named after their classes), it
 * resumes where the last one stopped; re-created under another connector name it finds nothing and
 * copies from the earliest offsets again (measured in
 * test/integration/conformance-mm2-rewind-resume.test.js). Here the progress is a consumer group on
 * the source named after the replication flow only, so a mirror node copied, re-imported or
 * renamed (a new node id) resumes too.
 */

/** The prefix of every mirror group (also the prefixed READ ACL on Group the help and README name). */
export const MIRROR_GROUP_PREFIX = '__mm2-node-red-mirror.';

/**
 * The consumer group on the source holding the progress of the replication flow
 * `sourceAlias -> targetAlias`. `__` puts it in MM2's default `groups.exclude` (`console-consumer-.*,
 * connect-.*, __.*`), so checkpoint and group-offset nodes do not translate it.
 */
export function mirrorGroupId(sourceAlias: string, targetAlias: string): string {
  return `${MIRROR_GROUP_PREFIX}${sourceAlias}-${targetAlias}`;
}

/**
 * Builds before issue 26 kept the progress per node: `__mm2-node-red-mirror.<source>-<target>.<node id>`.
 * The groups of the same flow start with this prefix (`mirrorGroupId(...) + '.'`).
 */
export function legacyMirrorGroupPrefix(sourceAlias: string, targetAlias: string): string {
  return `${mirrorGroupId(sourceAlias, targetAlias)}.`;
}

/** Whether `groupId` is a per-node group of an older version for this flow. */
export function isLegacyMirrorGroup(groupId: string, sourceAlias: string, targetAlias: string): boolean {
  const prefix = legacyMirrorGroupPrefix(sourceAlias, targetAlias);
  return groupId.length > prefix.length && groupId.startsWith(prefix);
}

export interface PartitionProgress {
  topic: string;
  partition: number;
  /** The next source offset to copy. */
  offset: bigint;
}

/**
 * Where the flow's group starts on partitions it has no commit for, from the per-node groups of
 * earlier builds: per partition the highest offset committed by any of them.
 *
 * Why the highest: each of those nodes started its partition at the source's log start (a fresh
 * group) and committed an offset only for records the target had acknowledged, so below the
 * highest commit every record still on the source was copied at least once, by that node, to the
 * same remote topic (`<source>.<topic>` on the flow's target). Starting lower copies them again
 * (what made `source.orders` 3.5 times its source); starting higher than every commit would skip
 * records. Old groups of another topic selection do not matter: a group has commits only for the
 * topics its node copied. What this cannot know: remote topics deleted on the target since (their
 * records are not copied again) and a per-node group of a flow whose target alias is this one's
 * plus `.<something>` (aliases may contain dots: `a-b.c` is both flow a -> b.c and node c of a -> b).
 *
 * `missing`: the partitions the flow's group has no commit for; `legacy`: the commits of each old
 * group (negative offsets, Kafka's "no commit", are ignored). Partitions no old group has are left out.
 */
export function legacyResumePoints(
  missing: ReadonlyArray<{ topic: string; partition: number }>,
  legacy: ReadonlyArray<ReadonlyArray<PartitionProgress>>,
): PartitionProgress[] {
  const wanted = new Set(missing.map((m) => `${m.partition}:${m.topic}`));
  const best = new Map<string, PartitionProgress>();
  for (const group of legacy) {
    for (const p of group) {
      const k = `${p.partition}:${p.topic}`;
      if (!wanted.has(k) || p.offset < 0n) continue;
      const prev = best.get(k);
      if (!prev || p.offset > prev.offset) best.set(k, { topic: p.topic, partition: p.partition, offset: p.offset });
    }
  }
  return [...best.values()].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}
