/**
 * The topic management of the mm2-mirror node's engine, as MM2's MirrorSourceConnector does it
 * (findSourceTopicPartitions, shouldReplicateTopic, createNonCompactedTopics,
 * computeAndCreateTopicPartitions): which source topics are replicated, and their remote topics
 * on the target, created with the source's partition count and settings (and grown when the
 * source grows). No Node-RED here; ./mirror-task copies the records.
 */
import type { ClusterConnection } from './connection';
import type { ReplicationPolicy } from '../core/replication-policy';
import { shouldReplicateTopic, type TopicFilterLike } from '../core/topic-selection';
import { planRemoteTopics } from '../core/mirror-plan';
import { fittedReplicationFactor, invalidTopicNameReason } from './internal-topics';
import { needing, notAuthorized } from './client';

/** Source topic configs copied to a remote topic at creation when set on the source topic. */
const COPIED_TOPIC_CONFIGS = ['cleanup.policy', 'retention.ms', 'retention.bytes', 'max.message.bytes', 'min.compaction.lag.ms', 'delete.retention.ms', 'compression.type'];

/** What the topic management tells about the remote topics. */
export type MirrorTopicEvent =
  | { type: 'topic-created'; topic: string; partitions: number; alias: string }
  | { type: 'partitions-added'; topic: string; from: number; to: number; alias: string }
  | { type: 'rf-lowered'; topic: string; factor: number; brokers: number; alias: string };

export interface MirrorTopicsOptions {
  source: ClusterConnection;
  target: ClusterConnection;
  sourceAlias: string;
  targetAlias: string;
  policy: ReplicationPolicy;
  topicFilter: TopicFilterLike;
  heartbeatsReplicationEnabled: boolean;
  /** Replication factor for new remote topics; -1 = broker default. Lowered to the broker count. */
  replicationFactor: number;
  onEvent: (e: MirrorTopicEvent) => void;
  /** True once the engine stops (waits end early). */
  stopped: () => boolean;
  /** A wait that ends early when the engine stops. */
  sleep: (ms: number) => Promise<void>;
}

/** The text of an error. */
export function errText(e: unknown): string {
  return (e as Error)?.message ?? String(e);
}

export class MirrorTopics {
  constructor(private readonly o: MirrorTopicsOptions) {}

  /** The remote topic of a source topic. */
  remoteName(topic: string): string {
    return this.o.policy.formatRemoteTopic(this.o.sourceAlias, topic);
  }

  /**
   * Selects the source topics to replicate (sorted, with their partition counts) and makes their
   * remote topics match: created when missing, grown when the source has more partitions.
   * Rejects with the failure.
   */
  async refresh(): Promise<Array<{ topic: string; partitions: number }>> {
    const sourceAdmin = await this.o.source.admin();
    const names = await sourceAdmin.listTopics();
    const selectedNames = names
      .filter((t) =>
        shouldReplicateTopic(
          { policy: this.o.policy, topicFilter: this.o.topicFilter, targetAlias: this.o.targetAlias, heartbeatsReplicationEnabled: this.o.heartbeatsReplicationEnabled },
          t,
        ),
      )
      .sort();
    const selected: Array<{ topic: string; partitions: number }> = [];
    if (selectedNames.length > 0) {
      const md = await sourceAdmin.fetchTopicMetadata({ topics: selectedNames });
      for (const t of md.topics) if (t.partitions.length > 0) selected.push({ topic: t.name, partitions: t.partitions.length });
      selected.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
    }
    this.o.source.reportOk();

    const targetAdmin = await this.o.target.admin();
    const remoteName = (t: string) => this.remoteName(t);
    const targetNames = new Set(await targetAdmin.listTopics());
    const existingRemote = selected.map((s) => remoteName(s.topic)).filter((r) => targetNames.has(r));
    const existing = new Map<string, number>();
    if (existingRemote.length > 0) {
      const md = await targetAdmin.fetchTopicMetadata({ topics: existingRemote });
      for (const t of md.topics) existing.set(t.name, t.partitions.length);
    }
    const plan = planRemoteTopics(selected, existing, remoteName);
    if (plan.create.length > 0) await this.createRemoteTopics(plan.create);
    if (plan.grow.length > 0) {
      const grow = plan.grow.map((g) => ({ resource: 'Topic' as const, name: g.remote, operations: ['ALTER'] }));
      await needing(grow, this.o.target.settings, () => targetAdmin.createPartitions({ topicPartitions: plan.grow.map((g) => ({ topic: g.remote, count: g.to })) }));
      await this.waitForLeaders(plan.grow.map((g) => ({ topic: g.remote, partitions: g.to })));
      for (const g of plan.grow) this.o.onEvent({ type: 'partitions-added', topic: g.remote, from: g.from, to: g.to, alias: this.o.target.alias });
    }
    this.o.target.reportOk();
    return selected;
  }

  private async createRemoteTopics(list: Array<{ topic: string; remote: string; partitions: number }>): Promise<void> {
    const targetAdmin = await this.o.target.admin();
    const fit = await fittedReplicationFactor(targetAdmin, this.o.replicationFactor);
    const lowered = fit.lowered;
    if (lowered) for (const c of list) this.o.onEvent({ type: 'rf-lowered', topic: c.remote, factor: lowered.from, brokers: lowered.brokers, alias: this.o.target.alias });
    const factor = fit.factor;
    // Copy the settings a remote topic must share with its source (compaction, retention, size limit).
    const configs = new Map<string, Array<{ name: string; value: string }>>();
    try {
      const sourceAdmin = await this.o.source.admin();
      const res = await sourceAdmin.describeConfigs({
        includeSynonyms: false,
        resources: list.map((c) => ({ type: 2 /* TOPIC */, name: c.topic, configNames: COPIED_TOPIC_CONFIGS })),
      });
      for (const r of res.resources) {
        const entries = r.configEntries
          .filter((c) => {
            const src = (c as unknown as { configSource?: number }).configSource;
            return src !== undefined ? src === 1 /* DYNAMIC_TOPIC_CONFIG */ : !c.isDefault;
          })
          .filter((c) => c.configValue !== null && c.configValue !== undefined)
          .map((c) => ({ name: c.configName, value: String(c.configValue) }));
        configs.set(r.resourceName, entries);
      }
    } catch {
      /* configs are a nicety: create with the target's defaults */
    }
    for (const c of list) {
      try {
        await targetAdmin.createTopics({
          waitForLeaders: true,
          topics: [{ topic: c.remote, numPartitions: c.partitions, replicationFactor: factor, configEntries: configs.get(c.topic) ?? [] }],
        });
        this.o.onEvent({ type: 'topic-created', topic: c.remote, partitions: c.partitions, alias: this.o.target.alias });
      } catch (e) {
        const err = e as { type?: string; errors?: Array<{ type?: string }> };
        const types = [err.type, ...(err.errors ?? []).map((x) => x.type)];
        if (!types.includes('TOPIC_ALREADY_EXISTS')) {
          // the target did not list it: missing, or hidden from a principal without WRITE (DESCRIBE) on it
          const refused = notAuthorized(e, [{ resource: 'Topic', name: c.remote, operations: ['CREATE', 'WRITE'] }], this.o.target.settings);
          if (refused) throw refused;
          const invalid = invalidTopicNameReason(c.remote, this.o.policy.separator);
          throw new Error(`cannot create ${c.remote} on ${this.o.target.alias}: ${invalid ?? errText(e)}`);
        }
      }
    }
  }

  /** Waits (up to 10 s) until the target knows a leader for every partition of the given topics. */
  private async waitForLeaders(list: Array<{ topic: string; partitions: number }>): Promise<void> {
    const targetAdmin = await this.o.target.admin();
    const deadline = Date.now() + 10000;
    while (!this.o.stopped() && Date.now() < deadline) {
      const md = await targetAdmin.fetchTopicMetadata({ topics: list.map((l) => l.topic) });
      const ready = list.every((l) => {
        const t = md.topics.find((x) => x.name === l.topic);
        return !!t && t.partitions.length >= l.partitions && t.partitions.every((p) => p.leader >= 0);
      });
      if (ready) return;
      await this.o.sleep(200);
    }
  }
}
