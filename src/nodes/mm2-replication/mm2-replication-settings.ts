/**
 * The flow-wide settings of an `mm2-replication` config node (the properties every MM2
 * connector of the flow must agree on), read through the catalogue (resolveReplicationSettings)
 * into the MM2 property map and the replication policy the flow nodes use.
 */
import { problemText, resolveReplicationSettings, type EnvLookup } from '../shared/settings';
import { createReplicationPolicy, type ReplicationPolicy } from '../../core/replication-policy';
import { OFFSET_TRANSLATION_MODES, type OffsetTranslationMode } from '../../core/offset-sync-store';

export interface ReplicationFlowSettings {
  offsetSyncsLocation: 'source' | 'target';
  /** Of every internal topic; -1 means the broker's default.replication.factor. */
  replicationFactor: number;
  /** MM2 property map of the flow-wide settings (replication.policy.*, offset-syncs.topic.location, ...). */
  props: Record<string, string>;
  /** null when the settings do not make one (see problems). */
  policy: ReplicationPolicy | null;
  /**
   * Ours, not an MM2 property (never in `props`, never exported): 'precise' (default) keeps, per
   * tracked group partition, the newest offset sync at or below its position; 'mm2' translates
   * exactly as MM2 does (its 64 syncs per partition).
   */
  offsetTranslation: OffsetTranslationMode;
}

/** The offsetTranslation field: absent or '' is 'precise'; anything else not a mode is refused. */
export function readOffsetTranslation(raw: unknown): { value: OffsetTranslationMode; problem?: string } {
  const text = raw === undefined || raw === null ? '' : String(raw).trim();
  if (text === '') return { value: 'precise' };
  if ((OFFSET_TRANSLATION_MODES as readonly string[]).includes(text)) return { value: text as OffsetTranslationMode };
  return {
    value: 'precise',
    problem: problemText({
      property: 'offsetTranslation',
      reason: `"${text}" is not one of ${OFFSET_TRANSLATION_MODES.join(', ')} (precise: keep the offset sync each group needs; mm2: exactly MM2's translation)`,
    }),
  };
}

/** Kafka's limit on a topic name's length (org.apache.kafka.common.internals.Topic.MAX_NAME_LENGTH). */
export const MAX_TOPIC_NAME_LENGTH = 249;

/**
 * The internal topics a flow's aliases name (offset syncs, checkpoints, the remote heartbeats the
 * heartbeat node watches), each too long for Kafka refused naming the alias field: a topic Kafka
 * cannot create would otherwise be waited for for ever.
 */
function topicNameProblems(policy: ReplicationPolicy, aliases: { source: string; target: string }, offsetSyncsLocation: 'source' | 'target'): string[] {
  const named: Array<['source' | 'target', string]> = [
    [offsetSyncsLocation === 'source' ? 'target' : 'source', policy.offsetSyncsTopic(offsetSyncsLocation === 'source' ? aliases.target : aliases.source)],
    ['source', policy.checkpointsTopic(aliases.source)],
    ['source', policy.formatRemoteTopic(aliases.source, policy.heartbeatsTopic())],
  ];
  // per alias, the longest of the names it makes
  const longest = new Map<'source' | 'target', string>();
  for (const [role, topic] of named) if (topic.length > (longest.get(role)?.length ?? 0)) longest.set(role, topic);
  const out: string[] = [];
  for (const [role, topic] of longest) {
    if (topic.length <= MAX_TOPIC_NAME_LENGTH) continue;
    const alias = aliases[role];
    const shown = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);
    const most = MAX_TOPIC_NAME_LENGTH - (topic.length - alias.length);
    out.push(`${role}.cluster.alias: the alias '${shown(alias)}' (${alias.length} characters, the ${role} mm2-cluster's Alias) makes the topic '${shown(topic)}' ${topic.length} characters long, and Kafka allows ${MAX_TOPIC_NAME_LENGTH}: give that cluster an alias of at most ${most} characters`);
  }
  return out;
}

/** Values are always given (the config node keeps them to show); problems say they are not to be used. */
export function readReplicationSettings(
  def: Readonly<Record<string, unknown>>,
  aliases: { source: string; target: string },
  lookup: EnvLookup,
): { values: ReplicationFlowSettings; problems: string[] } {
  // A bad setting is refused naming the MM2 property, never replaced by a default.
  const settings = resolveReplicationSettings(def, lookup);
  const problems = settings.problems.map(problemText);
  const translation = readOffsetTranslation(def.offsetTranslation);
  if (translation.problem) problems.push(translation.problem);
  const factor = String(settings.replicationFactor);
  const props: Record<string, string> = {
    'source.cluster.alias': aliases.source,
    'target.cluster.alias': aliases.target,
    'replication.policy.class': settings.policy,
    'replication.policy.separator': settings.separator,
    'replication.policy.internal.topic.separator.enabled': settings.internalSeparator ? 'true' : 'false',
    'offset-syncs.topic.location': settings.offsetSyncsLocation,
    'checkpoints.topic.replication.factor': factor,
    'heartbeats.topic.replication.factor': factor,
    'offset-syncs.topic.replication.factor': factor,
  };
  let policy: ReplicationPolicy | null = null;
  // No policy from refused settings: the values above are then placeholders, never used.
  if (problems.length === 0) {
    try {
      policy = createReplicationPolicy(props);
    } catch (e) {
      problems.push((e as Error).message);
    }
    if (policy) {
      const tooLong = topicNameProblems(policy, aliases, settings.offsetSyncsLocation);
      if (tooLong.length > 0) {
        problems.push(...tooLong);
        policy = null;
      }
    }
  }
  return { values: { offsetSyncsLocation: settings.offsetSyncsLocation, replicationFactor: settings.replicationFactor, props, policy, offsetTranslation: translation.value }, problems };
}
