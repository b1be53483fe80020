/**
 * MM2 `MirrorCheckpointConnector.findConsumerGroups`, with the I/O injected:
 * 1. list the groups on the source;
 * 2. keep those the group filter (`groups` / `groups.exclude`) accepts;
 * 3. fetch each kept group's committed partitions;
 * 4. a group is selected when at least one committed partition belongs to a topic the topic
 *    filter (`topics` / `topics.exclude`) accepts.
 *
 * Differences from MM2, deliberate: offsets are fetched per group with bounded concurrency
 * (kafkajs has no batched OffsetFetch; MM2 before 4.0 fetched them one group at a time), and a
 * group whose offsets cannot be fetched is kept (reported in `errors`) instead of failing the
 * whole discovery, so one unreadable group neither hides every other group nor disappears
 * silently: the emit cycle then reports it as a failed group.
 */
import type { NameFilter } from './filters';
import { mapLimit } from './worker-pool';

export interface DiscoveryIo {
  /** Group ids on the source cluster. */
  listGroups(): Promise<string[]>;
  /** The topics of the group's committed partitions (duplicates allowed). */
  committedTopics(group: string): Promise<string[]>;
}

export interface DiscoveryResult {
  /** Selected groups, sorted. */
  groups: string[];
  /** Groups the group filter rejected, sorted. */
  rejectedByGroupFilter: string[];
  /** Groups without a committed offset on any topic the topic filter accepts, sorted. */
  noReplicatedTopics: string[];
  /** Groups whose offsets could not be fetched (kept in `groups`). */
  errors: Array<{ group: string; error: string }>;
}

export async function findCheckpointGroups(
  io: DiscoveryIo,
  groupFilter: NameFilter,
  topicFilter: NameFilter,
  concurrency = 8,
): Promise<DiscoveryResult> {
  const all = [...new Set(await io.listGroups())].sort();
  const accepted = all.filter((g) => groupFilter.accept(g));
  const rejectedByGroupFilter = all.filter((g) => !groupFilter.accept(g));
  const errors: Array<{ group: string; error: string }> = [];
  const relevant = await mapLimit(accepted, concurrency, async (group) => {
    try {
      const topics = await io.committedTopics(group);
      return topics.some((t) => topicFilter.accept(t));
    } catch (e) {
      errors.push({ group, error: (e as Error)?.message ?? String(e) });
      return true;
    }
  });
  errors.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  return {
    groups: accepted.filter((_, i) => relevant[i]),
    rejectedByGroupFilter,
    noReplicatedTopics: accepted.filter((_, i) => !relevant[i]),
    errors,
  };
}
