/**
 * The flow-wide settings of an `mm2-replication` config node (the properties every MM2
 * connector of the flow must agree on), read through the catalogue (resolveReplicationSettings)
 * into the MM2 property map and the replication policy the flow nodes use.
 */
import { problemText, resolveReplicationSettings, type EnvLookup } from '../settings';
import { createReplicationPolicy, type ReplicationPolicy } from '../../../core/replication-policy';

export interface ReplicationFlowSettings {
  offsetSyncsLocation: 'source' | 'target';
  /** Of every internal topic; -1 means the broker's default.replication.factor. */
  replicationFactor: number;
  /** MM2 property map of the flow-wide settings (replication.policy.*, offset-syncs.topic.location, ...). */
  props: Record<string, string>;
  /** null when the settings do not make one (see problems). */
  policy: ReplicationPolicy | null;
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
  }
  return { values: { offsetSyncsLocation: settings.offsetSyncsLocation, replicationFactor: settings.replicationFactor, props, policy }, problems };
}
