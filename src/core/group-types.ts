/**
 * Which groups MirrorMaker 2 checkpoints, by type. MM2 4.x's group discovery
 * (`MirrorCheckpointConnector.listConsumerGroups`) lists the source's groups with
 * `ListGroupsOptions.forConsumerGroups()`: group types `classic` and `consumer` (KIP-848), and
 * protocol types `""` (a group that only stores offsets) and `consumer`. Never a streams group
 * (KIP-1071: a Kafka Streams application with `group.protocol=streams`, whose members still
 * commit plain offsets under its application id) nor a share group (KIP-932: its progress is in
 * `__share_group_state`, not in committed offsets), both on by default from Kafka 4.2.
 *
 * A broker older than 3.8 (ListGroups below v5) gives no type: every group there is classic or
 * consumer, and the protocol type decides alone (the admin client drops the type filter then).
 */

/** A group as a listing gives it: its protocol type and, from ListGroups v5, its type. */
export interface GroupListingKind {
  protocolType?: string;
  /** `classic`, `consumer`, `streams`, `share` (ListGroups v5); absent from older brokers. */
  type?: string;
}

/** A group the group filter accepts whose type MM2 never checkpoints, and why. */
export interface NotReplicatedGroup {
  group: string;
  /** The group's type as the broker lists it: `streams`, `share` (or another type MM2 does not list). */
  type: string;
  reason: string;
}

/** The group types MM2's discovery lists (ListGroupsOptions.forConsumerGroups). */
export const MM2_GROUP_TYPES: readonly string[] = Object.freeze(['classic', 'consumer']);
/** The protocol types MM2's discovery lists: a group that only stores offsets, and consumer groups. */
export const MM2_PROTOCOL_TYPES: readonly string[] = Object.freeze(['', 'consumer']);

function typeOf(g: GroupListingKind): string | undefined {
  return g.type === undefined || g.type === '' ? undefined : g.type.toLowerCase();
}

/**
 * Whether MM2's group discovery lists the group: type classic or consumer (or no type: a broker
 * before 3.8), and protocol type `""` or `consumer` (or none: a listing without it).
 */
export function mm2ListsGroup(g: GroupListingKind): boolean {
  const type = typeOf(g);
  if (type !== undefined && !MM2_GROUP_TYPES.includes(type)) return false;
  return g.protocolType === undefined || MM2_PROTOCOL_TYPES.includes(g.protocolType);
}

/**
 * A group of another type than MM2 lists (streams, share, a future one), with why it is not
 * replicated; undefined for a classic or consumer group, and for a classic group of another
 * protocol (a Connect worker group, say: not a consumer group, as before, not named).
 */
export function notReplicatedGroup(group: string, g: GroupListingKind): NotReplicatedGroup | undefined {
  const type = typeOf(g);
  if (type === undefined || MM2_GROUP_TYPES.includes(type)) return undefined;
  return { group, type, reason: notReplicatedReason(type) };
}

/** Why a group of `type` is not replicated, in one sentence. */
export function notReplicatedReason(type: string): string {
  if (type === 'streams') {
    return 'a streams group (Kafka Streams with group.protocol=streams, KIP-1071): MirrorMaker 2 checkpoints classic and consumer groups only, so its offsets are not translated to the target; run the application with group.protocol=classic to have them replicated';
  }
  if (type === 'share') {
    return 'a share group (KIP-932): its progress is kept in __share_group_state, not in committed offsets, so neither MirrorMaker 2 nor this node can replicate it; after a failover its consumers start on the target from share.auto.offset.reset';
  }
  return `a ${type} group: MirrorMaker 2 checkpoints classic and consumer groups only`;
}
