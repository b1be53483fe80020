/**
 * Which topic the instances of a shared replication flow (issue 25) split, and how a member says
 * so. Plain rules, no I/O.
 *
 * On the event path the instances split the partitions of the source's `__consumer_offsets`: an
 * instance owns the groups whose commits land in its partitions. Where the checkpoint node polls
 * (source offsets `poll`, or `auto` with a principal that may not even DESCRIBE
 * `__consumer_offsets`, usual on managed clusters), they split, by the same hash
 * (`abs(hash(group.id)) % partitions`), the partitions of a small internal topic the flow creates
 * on the source: `mm2-node-red-shares.<target>.internal`, named like MM2's
 * `mm2-offset-syncs.<target>.internal` (same separator rules), compacted, 50 partitions (Kafka's
 * default `offsets.topic.num.partitions`), nothing ever written to it. A `.internal` name is one
 * MM2's topic filters and every node's default `topics.exclude` leave out.
 *
 * The rule that keeps instances from sharing one group with different views: the topic a member
 * splits is one of the settings it announces (`shares.topic`, in the settings fingerprint). A
 * member that splits another topic than the leader's is kept out, naming `shares.topic` and both
 * topics, until they agree (the same ACLs on `__consumer_offsets` everywhere, or the same source
 * offsets setting). It never gets partitions of a topic it did not subscribe to.
 */
import { OFFSETS_TOPIC, type ShareSettings } from './group-ownership';

/** The first word of the polling split's topic (as `mm2-offset-syncs` is MM2's offset-syncs topic's). */
export const SHARE_TOPIC_PREFIX = 'mm2-node-red-shares';
/** The partitions the flow creates its split topic with: Kafka's default offsets.topic.num.partitions. */
export const SHARE_TOPIC_PARTITIONS = 50;
/** The setting, among those the members compare, that names the topic they split. */
export const SHARE_TOPIC_SETTING = 'shares.topic';

/** The MM2 offset-syncs topic's first word: the split topic's name is built like that topic's. */
const OFFSET_SYNCS_PREFIX = 'mm2-offset-syncs';

/**
 * The polling split's topic of the flow `<source> -> targetAlias`, on the source: the flow's
 * offset-syncs topic name (`mm2-offset-syncs<sep><target><sep>internal`, the policy's internal
 * separator) with its first word replaced: `mm2-node-red-shares.<target>.internal`.
 */
export function shareTopicName(policy: { offsetSyncsTopic(alias: string): string }, targetAlias: string): string {
  if (typeof targetAlias !== 'string' || targetAlias.length === 0) throw new TypeError(`targetAlias: expected the target cluster's alias (text), got ${JSON.stringify(targetAlias)}`);
  const syncs = policy.offsetSyncsTopic(targetAlias);
  if (!syncs.startsWith(OFFSET_SYNCS_PREFIX)) throw new Error(`shareTopicName: the policy's offset-syncs topic ${syncs} does not start with ${OFFSET_SYNCS_PREFIX}`);
  return SHARE_TOPIC_PREFIX + syncs.slice(OFFSET_SYNCS_PREFIX.length);
}

/** What a look at `__consumer_offsets`'s metadata answered: may describe it; refused by the authorizer; anything else (not created yet, a source away). */
export type OffsetsTopicAccess = 'describable' | 'not-authorized' | 'unknown';

/**
 * The topic the instances split:
 * - source offsets `poll`: the flow's split topic (no ACL on `__consumer_offsets` needed, and the
 *   same on every instance whatever its ACLs);
 * - `auto`: `__consumer_offsets` where the principal may describe it (also when it may not READ
 *   it and the node polls: the split needs no READ), else the flow's split topic. An answer that
 *   is neither (`unknown`: the topic not created yet, a source away) keeps `__consumer_offsets`:
 *   the membership fails, the instance works alone and tries again later, as before.
 */
export function chooseShareTopic(sourceOffsets: 'auto' | 'poll', offsetsTopic: OffsetsTopicAccess, pollTopic: string): string {
  if (sourceOffsets === 'poll') return pollTopic;
  return offsetsTopic === 'not-authorized' ? pollTopic : OFFSETS_TOPIC;
}

/** Whether choosing the topic needs the look at `__consumer_offsets` (only `auto` does). */
export function needsOffsetsTopicLook(sourceOffsets: 'auto' | 'poll'): boolean {
  return sourceOffsets !== 'poll';
}

/** The settings a member announces: the flow's, with the topic it splits (`shares.topic`), so that members splitting different topics never agree. */
export function withShareTopic(settings: ShareSettings, topic: string): ShareSettings {
  if (typeof topic !== 'string' || topic.length === 0) throw new TypeError(`${SHARE_TOPIC_SETTING}: expected the topic the instances split (text), got ${JSON.stringify(topic)}`);
  return { ...settings, [SHARE_TOPIC_SETTING]: topic };
}
