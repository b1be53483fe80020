/**
 * MM2 `MirrorCheckpointConnector.findConsumerGroups`, with the I/O injected:
 * 1. list the groups on the source: classic and consumer groups only, as MM2 4.x lists them
 *    (ListGroupsOptions.forConsumerGroups, core/group-types); the streams and share groups the
 *    group filter accepts are reported apart (`otherTypes`), with why they are not replicated;
 * 2. keep those the group filter (`groups` / `groups.exclude`) accepts;
 * 3. fetch each kept group's committed partitions;
 * 4. a group is selected when at least one committed partition belongs to a topic the topic
 *    filter (`topics` / `topics.exclude`) accepts.
 *
 * The committed partitions of all kept groups are read in one batch (the I/O sends one
 * OffsetFetch per group coordinator, as MM2 4.x's admin client does). Difference from MM2,
 * deliberate: a group whose offsets cannot be fetched is kept (reported in `errors`) instead of
 * failing the whole discovery, so one unreadable group neither hides every other group nor
 * disappears silently: the emit cycle then reports it as a failed group.
 *
 * Shared by several instances (issue 25, `owns`): only this instance's groups are read and
 * selected; the accepted groups other instances own are counted (`elsewhere`), not read.
 */
import type { NameFilter } from './filters';
import type { NotReplicatedGroup } from './group-types';

export interface DiscoveryIo {
  /** Ids of the source cluster's groups MM2 lists (classic and consumer groups). */
  listGroups(): Promise<readonly string[]>;
  /** The groups of the same listing of a type MM2 never lists (streams, share), with why; called after listGroups. */
  otherTypes?(): readonly NotReplicatedGroup[];
  /** The topics of each group's committed partitions (duplicates allowed); groups that could not be read in `failed`. */
  committedTopics(groups: string[]): Promise<{ topics: { get(group: string): readonly string[] | undefined }; failed: ReadonlyMap<string, string> }>;
  /** Whether this instance works on `group` (the flow shared by several instances); absent: every group. */
  owns?(group: string): boolean;
  /** Awaited after every PAUSE_EVERY groups checked (a discovery of 10,000 groups does not hold the caller's thread); absent: never. */
  pause?(): Promise<void>;
}

/** Groups checked between two pauses. */
const PAUSE_EVERY = 500;

export interface DiscoveryResult {
  /** Selected groups, sorted. */
  groups: string[];
  /** Groups the group filter rejected, sorted. */
  rejectedByGroupFilter: string[];
  /** Groups without a committed offset on any topic the topic filter accepts, sorted. */
  noReplicatedTopics: string[];
  /** Groups whose offsets could not be fetched (kept in `groups`). */
  errors: Array<{ group: string; error: string }>;
  /** Groups the group filter accepts of a type MM2 never checkpoints (streams, share), sorted, with why. */
  otherTypes: readonly NotReplicatedGroup[];
  /** Groups the group filter accepts that other instances own (`owns`), sorted: not read, not in the lists above. */
  elsewhere: string[];
}

/** `list` sorted without duplicates: `list` itself when it already is (a listing usually is: no copy of 20,000 names per refresh). */
function sortedUnique(list: readonly string[]): readonly string[] {
  let ordered = true;
  for (let i = 1; i < list.length && ordered; i++) ordered = list[i - 1] < list[i];
  return ordered ? list : [...new Set(list)].sort();
}

export async function findCheckpointGroups(io: DiscoveryIo, groupFilter: NameFilter, topicFilter: NameFilter): Promise<DiscoveryResult> {
  const all = sortedUnique(await io.listGroups());
  const others = io.otherTypes?.() ?? [];
  const otherTypes = others.some((o) => !groupFilter.accept(o.group)) ? others.filter((o) => groupFilter.accept(o.group)) : others;
  // one pass, the filter asked once per group (10,000 groups every refresh: the two filters over
  // the listing were about a tenth of Node-RED's busy time at 1 s intervals, issue 24)
  const acceptedAll: string[] = [];
  const rejectedByGroupFilter: string[] = [];
  for (let i = 0; i < all.length; i++) {
    const g = all[i];
    if (groupFilter.accept(g)) acceptedAll.push(g);
    else rejectedByGroupFilter.push(g);
  }
  const owns = io.owns;
  const accepted = owns ? acceptedAll.filter((g) => owns(g)) : acceptedAll;
  const errors: Array<{ group: string; error: string }> = [];
  const read = accepted.length > 0 ? await io.committedTopics(accepted) : { topics: new Map<string, string[]>(), failed: new Map<string, string>() };
  const relevant = new Array<boolean>(accepted.length);
  for (let i = 0; i < accepted.length; i++) {
    if (io.pause !== undefined && i > 0 && i % PAUSE_EVERY === 0) await io.pause();
    const group = accepted[i];
    const failed = read.failed.get(group);
    if (failed !== undefined) {
      errors.push({ group, error: failed });
      relevant[i] = true;
      continue;
    }
    relevant[i] = (read.topics.get(group) ?? []).some((t) => topicFilter.accept(t));
  }
  errors.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  return {
    groups: accepted.filter((_, i) => relevant[i]),
    rejectedByGroupFilter,
    noReplicatedTopics: accepted.filter((_, i) => !relevant[i]),
    errors,
    otherTypes,
    elsewhere: owns ? acceptedAll.filter((g) => !owns(g)) : [],
  };
}
