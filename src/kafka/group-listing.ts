/**
 * Which consumer groups a cluster has and what state one is in, as MM2's admin client asks:
 * the group ids MM2's discovery lists (listConsumerGroups, through a group client's
 * ListGroups or kafkajs's admin) and one group's state from the classic DescribeGroups
 * (describeGroupState, one group at a time: kafkajs fails a whole describe batch on one bad
 * group). Which groups MM2 lists is the rule in core/listed-groups and core/group-types.
 */
import type { Admin } from 'kafkajs';
import { checkpointGroupListing, isConsumerGroupListing, type ListedGroupState } from '../core/listed-groups';

/**
 * Group ids on the cluster MM2's discovery lists (classic and consumer groups of protocol type
 * `consumer` or `""`; never a streams or share group), sorted. Given a group client
 * (GroupOffsetFetcher), one ListGroups v4+ per broker of ours (v5 gives the group type); given a
 * kafkajs admin, its listGroups (no type: a streams group shows its protocol type `streams`, a share group `share`).
 */
export async function listConsumerGroups(source: Admin | { listGroupStates(): Promise<ReadonlyMap<string, ListedGroupState>> }): Promise<readonly string[]> {
  if ('listGroupStates' in source) return checkpointGroupListing(await source.listGroupStates()).ids;
  const { groups } = await source.listGroups();
  return groups.filter((g) => isConsumerGroupListing(g.protocolType)).map((g) => g.groupId).sort();
}

export interface GroupState {
  /** Classic group state as the coordinator reports it: Empty, Stable, PreparingRebalance, CompletingRebalance, Dead;
   * undefined when the group does not exist (or the classic describe cannot see it). */
  state: string | undefined;
  members: number;
  /** Set when describing failed; the group is then treated as possibly active by callers that must be safe. */
  error?: string;
}

/**
 * Describes one group (DescribeGroups, the classic describe); never throws. A KIP-848 consumer
 * group (or a streams or share group) is one DescribeGroups cannot see: Kafka answers Dead with no
 * members, members or not. A Dead answer for a group the cluster lists is therefore 'Unknown' (with
 * `error` saying why), never taken for a group without members; the group-offsets node reads
 * states from ListGroups (GroupOffsetFetcher.listGroupStates), which lists every type with its state.
 */
export async function describeGroupState(admin: Admin, groupId: string): Promise<GroupState> {
  try {
    const { groups } = await admin.describeGroups([groupId]);
    const g = groups[0];
    if (!g) return { state: undefined, members: 0 };
    if (g.state === 'Dead' && g.members.length === 0) {
      const listed = (await admin.listGroups()).groups.find((l) => l.groupId === groupId);
      if (listed === undefined) return { state: 'Dead', members: 0 };
      return {
        state: 'Unknown',
        members: 0,
        error: `group ${groupId} is listed but DescribeGroups answers Dead: a consumer group of the new protocol (KIP-848), a streams or a share group, whose members DescribeGroups does not show`,
      };
    }
    return { state: g.state, members: g.members.length };
  } catch (e) {
    const err = e as { type?: string; message?: string };
    if (err.type === 'GROUP_ID_NOT_FOUND') return { state: undefined, members: 0 };
    return { state: 'Unknown', members: 0, error: err.message ?? String(e) };
  }
}
