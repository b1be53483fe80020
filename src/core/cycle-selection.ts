import type { NameFilter } from './filters';
import { partitionKey } from './partition-key';
import type { GroupPartitions } from './source-offset-table';
import type { OffsetRows } from './translation-cache';
import type { OffsetSync } from './types';

/**
 * Which groups, and which of their partitions, a checkpoint cycle covers (the checkpoint
 * emitter's selection, MM2's MirrorCheckpointTask over the groups its connector assigned):
 *
 * - a **full** cycle covers every selected group; it reads the groups' offsets from the source in
 *   full, or, while the stream of `__consumer_offsets` keeps them current (`fresh`), only the
 *   groups never read; it translates the groups whose read did not fail;
 * - a **partial** cycle (the event path) covers the groups whose commits changed, only the
 *   partitions that changed, from the offsets the stream keeps. A group first seen committing is
 *   selected at once when MM2's discovery rule would select it: the group filter accepts it, it
 *   committed on a replicated topic (`firstSeenCandidates`), and the source's listing says it is a
 *   classic or consumer group (`listed`, the caller's I/O); it is then covered whole;
 * - new offset syncs give a better translation to the groups at or above them: per partition the
 *   lowest sync concerns every group any sync there concerns (`groupsConcernedBySyncs`);
 * - two requests sharing one cycle cover the union of their groups and partitions (`uniteGroupPartitions`).
 *
 * Pure functions; the clusters are read by the caller.
 */

/** The groups a full cycle reads from the source: all of them, or, while the stream keeps the offsets current (`fresh`), those never read. */
export function groupsToRead(selected: readonly string[], fresh: boolean, read: (group: string) => boolean): string[] {
  return fresh ? selected.filter((g) => !read(g)) : [...selected];
}

/** The groups a full cycle translates: the selected ones whose read did not fail, in their order. */
export function groupsRead(selected: readonly string[], failed: { has(group: string): boolean; readonly size?: number }): readonly string[] {
  // none failed (the usual cycle): the list itself
  if (failed.size === 0) return selected;
  return selected.filter((g) => !failed.has(g));
}

/**
 * The groups of a partial cycle not selected yet that MM2's discovery rule would select by name
 * and topic: the group filter accepts it and one of its offsets (`rowsOf`, all of them, read in
 * place: undefined when the group is not held) is on a topic the topic filter accepts. Whether the source lists it as a classic or consumer group is
 * the caller's to ask.
 */
export function firstSeenCandidates(
  changed: ReadonlyMap<string, GroupPartitions>,
  selected: { has(group: string): boolean },
  rowsOf: (group: string) => OffsetRows | undefined,
  groupFilter: NameFilter,
  topicFilter: NameFilter,
): string[] {
  const out: string[] = [];
  for (const group of changed.keys()) {
    if (selected.has(group)) continue;
    const rows = rowsOf(group);
    if (rows === undefined || !groupFilter.accept(group)) continue;
    for (let i = 0; i < rows.length; i++) {
      if (topicFilter.accept(rows.topic(i))) {
        out.push(group);
        break;
      }
    }
  }
  return out;
}

/**
 * What a partial cycle covers, in the order the changes came: the selected groups with the
 * partitions that changed, and the groups first seen that the source lists (`listed`), whole;
 * the others are left out. `added`: the groups newly selected.
 */
export function partialCycleCoverage(
  changed: ReadonlyMap<string, GroupPartitions>,
  selected: { has(group: string): boolean },
  listed: { has(group: string): boolean },
): { covered: Array<{ group: string; parts: GroupPartitions }>; added: string[] } {
  const covered: Array<{ group: string; parts: GroupPartitions }> = [];
  const added: string[] = [];
  for (const [group, parts] of changed) {
    if (selected.has(group)) covered.push({ group, parts });
    else if (listed.has(group)) {
      added.push(group);
      covered.push({ group, parts: 'all' });
    }
  }
  return { covered, added };
}

/**
 * The groups and partitions new offset syncs concern: per source partition, the groups whose
 * committed offset is at or above the lowest of the syncs there (`groupsAtOrAbove`; the usual
 * sync follows the log end, above every group: none). One look-up per partition.
 */
export function groupsConcernedBySyncs(
  syncs: Iterable<Pick<OffsetSync, 'topic' | 'partition' | 'upstreamOffset'>>,
  groupsAtOrAbove: (topic: string, partition: number, offset: bigint) => Iterable<string>,
): Map<string, GroupPartitions> {
  const lowest = new Map<string, Pick<OffsetSync, 'topic' | 'partition' | 'upstreamOffset'>>();
  for (const s of syncs) {
    const k = partitionKey(s.topic, s.partition);
    const have = lowest.get(k);
    if (have === undefined || s.upstreamOffset < have.upstreamOffset) lowest.set(k, s);
  }
  const only = new Map<string, GroupPartitions>();
  for (const [k, s] of lowest) {
    for (const g of groupsAtOrAbove(s.topic, s.partition, s.upstreamOffset)) {
      const have = only.get(g);
      if (have === undefined) only.set(g, new Set([k]));
      else if (have !== 'all') have.add(k);
    }
  }
  return only;
}

/** The groups and partitions of two requests sharing one cycle: their union ('all' wins); neither argument is changed. */
export function uniteGroupPartitions(a: ReadonlyMap<string, GroupPartitions>, b: ReadonlyMap<string, GroupPartitions>): Map<string, GroupPartitions> {
  const only = new Map(a);
  for (const [g, parts] of b) {
    const have = only.get(g);
    if (have === undefined) only.set(g, parts === 'all' ? 'all' : new Set(parts));
    else if (have !== 'all') {
      if (parts === 'all') only.set(g, 'all');
      else {
        const u = new Set(have);
        for (const p of parts) u.add(p);
        only.set(g, u);
      }
    }
  }
  return only;
}
