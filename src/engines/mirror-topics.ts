/**
 * The topic management of the mm2-mirror node's engine, as MM2's MirrorSourceConnector does it
 * (findSourceTopicPartitions, shouldReplicateTopic, createNonCompactedTopics,
 * computeAndCreateTopicPartitions): which source topics are replicated, and their remote topics
 * on the target, created with the source's partition count and settings (and grown when the
 * source grows). No Node-RED here; ./mirror-task copies the records.
 */
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type AclEntry } from 'kafkajs';
import type { ClusterConnection } from '../kafka/connection';
import type { ReplicationPolicy } from '../core/replication-policy';
import { shouldReplicateTopic, type TopicFilterLike } from '../core/topic-selection';
import { planRemoteTopics } from '../core/mirror-plan';
import { fittedReplicationFactor, invalidTopicNameReason } from '../kafka/internal-topics';
import { authorizationFailure, needing, notAuthorized } from '../kafka/client';
import {
  aclKey,
  plannedRemoteConfigs,
  remoteTopicAcls,
  remoteTopicConfigSync,
  remoteTopicCreateConfigs,
  type ConfigPropertyFilter,
  type TopicAclBinding,
  type TopicConfigEntry,
} from '../core/topic-sync';

/** DescribeConfigs' TOPIC resource type. */
const TOPIC_RESOURCE = 2;

/** Errors of a creation, or of the metadata after it, that pass once the metadata propagated (see createRemoteTopics). */
const TRANSIENT_CREATE_ERRORS = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE', 'NOT_CONTROLLER']);
/** How long those are tried again before the refresh fails (and is retried later). */
const CREATE_TRANSIENT_MS = 15000;

/** What the topic management tells about the remote topics. */
export type MirrorTopicEvent =
  | { type: 'topic-created'; topic: string; partitions: number; alias: string }
  | { type: 'partitions-added'; topic: string; from: number; to: number; alias: string }
  | { type: 'rf-lowered'; topic: string; factor: number; brokers: number; alias: string }
  | { type: 'configs-synced'; topic: string; alias: string; configs: string }
  | { type: 'acls-synced'; count: number; alias: string }
  | { type: 'acls-unavailable'; alias: string };

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
  /** DefaultConfigPropertyFilter (`config.properties.exclude`): which source topic configs a remote topic gets. */
  configPropertyFilter: ConfigPropertyFilter;
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

/** Kafka's error for a cluster without an authorizer (DescribeAcls / CreateAcls). */
function securityDisabled(e: unknown): boolean {
  const err = e as { type?: string; message?: string; errors?: Array<{ type?: string }> };
  return err?.type === 'SECURITY_DISABLED' || (err?.errors ?? []).some((x) => x?.type === 'SECURITY_DISABLED') || /SECURITY_DISABLED|no authorizer|Security features are disabled/i.test(err?.message ?? '');
}

function entriesOf(r: { configEntries: Array<{ configName: string; configValue: string | null; isDefault?: boolean; readOnly?: boolean; isSensitive?: boolean }> }): TopicConfigEntry[] {
  return r.configEntries.map((c) => ({
    name: c.configName,
    value: c.configValue ?? null,
    source: (c as unknown as { configSource?: number }).configSource,
    isDefault: c.isDefault,
    readOnly: c.readOnly,
    sensitive: c.isSensitive,
  }));
}

/** Number -> name of one of kafkajs's ACL tables (plain objects name -> number at run time, not TypeScript enums). */
function namesOf(table: object): Record<number, string> {
  return Object.fromEntries(Object.entries(table).filter(([, v]) => typeof v === 'number').map(([k, v]) => [v as number, k]));
}
const ACL_OPERATION_NAMES = namesOf(AclOperationTypes);
const ACL_PERMISSION_NAMES = namesOf(AclPermissionTypes);
const ACL_PATTERN_NAMES = namesOf(ResourcePatternTypes);
const ACL_RESOURCE_NAMES = namesOf(AclResourceTypes);

export class MirrorTopics {
  /** The source topics of the last refresh whose remote topics exist (MM2's topicsBeingReplicated). */
  private replicated: string[] = [];
  /** The ACL bindings created by the last ACL sync (told only when they change). */
  private lastAcls = '';
  private aclsUnavailableTold = false;

  constructor(private readonly o: MirrorTopicsOptions) {}

  private selects(topic: string): boolean {
    return shouldReplicateTopic(
      { policy: this.o.policy, topicFilter: this.o.topicFilter, targetAlias: this.o.targetAlias, heartbeatsReplicationEnabled: this.o.heartbeatsReplicationEnabled },
      topic,
    );
  }

  /**
   * MM2's syncTopicConfigs: the copyable configs of each replicated source topic
   * (core/topic-sync) are set on its remote topic, those at their default on the source reset to
   * the target's default; the remote topic's other configs stay.
   * Rejects with the failure (a refusal names the ACL).
   */
  async syncConfigs(): Promise<void> {
    const topics = [...this.replicated];
    if (topics.length === 0) return;
    const sourceAdmin = await this.o.source.admin();
    const targetAdmin = await this.o.target.admin();
    const describe = (admin: typeof sourceAdmin, names: string[]) =>
      admin.describeConfigs({ includeSynonyms: false, resources: names.map((name) => ({ type: TOPIC_RESOURCE, name })) });
    const src = await needing(topics.map((name) => ({ resource: 'Topic' as const, name, operations: ['DESCRIBE_CONFIGS'] })), this.o.source.settings, () => describe(sourceAdmin, topics));
    this.o.source.reportOk();
    const remotes = topics.map((t) => this.remoteName(t));
    // the remote topics are read to be written: ALTER_CONFIGS (which includes DESCRIBE_CONFIGS) is what to grant
    const tgt = await needing(remotes.map((name) => ({ resource: 'Topic' as const, name, operations: ['ALTER_CONFIGS'] })), this.o.target.settings, () => describe(targetAdmin, remotes));
    const remoteEntries = new Map(tgt.resources.map((r) => [r.resourceName, entriesOf(r)] as [string, TopicConfigEntry[]]));
    const plans: Array<{ remote: string; configs: Array<{ name: string; value: string }>; changed: boolean }> = [];
    for (const r of src.resources) {
      const remote = this.remoteName(r.resourceName);
      const current = remoteEntries.get(remote);
      if (!current) continue;
      const plan = plannedRemoteConfigs(remoteTopicConfigSync(entriesOf(r), this.o.configPropertyFilter), current);
      if (plan) plans.push({ remote, ...plan });
    }
    // Only what changes is written (every such topic in one request). AlterConfigs replaces a
    // topic's whole set with what was read a moment before, so writing the unchanged ones too, as
    // MM2 does every interval, could undo a change someone made to a remote topic meanwhile (an
    // excluded property of its own). The unchanged ones are checked with validateOnly instead, so a
    // refused ALTER_CONFIGS still shows before the first change, as in MM2.
    const write = async (list: typeof plans, validateOnly: boolean): Promise<void> => {
      if (list.length === 0) return;
      await needing(list.map((p) => ({ resource: 'Topic' as const, name: p.remote, operations: ['ALTER_CONFIGS'] })), this.o.target.settings, () =>
        targetAdmin.alterConfigs({ validateOnly, resources: list.map((p) => ({ type: TOPIC_RESOURCE, name: p.remote, configEntries: p.configs })) }),
      );
    };
    await write(plans.filter((p) => p.changed), false);
    await write(plans.filter((p) => !p.changed), true);
    for (const p of plans) {
      if (p.changed) this.o.onEvent({ type: 'configs-synced', topic: p.remote, alias: this.o.target.alias, configs: p.configs.map((c) => `${c.name}=${c.value}`).join(', ') });
    }
    this.o.target.reportOk();
  }

  /**
   * An ACL call to `cluster`, which needs `operation` on its Cluster resource (a refusal names it);
   * null when the cluster runs no authorizer (told once: there are no ACLs to copy).
   */
  private async withAuthorizer<T>(cluster: ClusterConnection, operation: string, call: () => Promise<T>): Promise<T | null> {
    try {
      return await needing([{ resource: 'Cluster', name: 'kafka-cluster', operations: [operation] }], cluster.settings, call);
    } catch (e) {
      if (!securityDisabled(e) || authorizationFailure(e)) throw e;
      if (!this.aclsUnavailableTold) this.o.onEvent({ type: 'acls-unavailable', alias: cluster.alias });
      this.aclsUnavailableTold = true;
      return null;
    }
  }

  /**
   * MM2's syncTopicAcls: the source's literal topic ACLs of replicated topics become ACLs of
   * their remote topics (core/topic-sync: never ALLOW WRITE, ALLOW ALL as ALLOW READ). ACLs are
   * only ever added, as MM2 does. A cluster without an authorizer is told once and skipped.
   * Rejects with the failure (a refusal names the ACL).
   */
  async syncAcls(): Promise<void> {
    const sourceAdmin = await this.o.source.admin();
    const described = await this.withAuthorizer(this.o.source, 'DESCRIBE', () =>
      sourceAdmin.describeAcls({
        resourceType: AclResourceTypes.TOPIC,
        resourcePatternType: ResourcePatternTypes.ANY,
        operation: AclOperationTypes.ANY,
        permissionType: AclPermissionTypes.ANY,
      }),
    );
    if (described === null) return;
    this.o.source.reportOk();
    const bindings: TopicAclBinding[] = [];
    for (const r of described.resources) {
      for (const a of r.acls) {
        bindings.push({
          resourceType: ACL_RESOURCE_NAMES[r.resourceType] ?? String(r.resourceType),
          resourceName: r.resourceName,
          patternType: ACL_PATTERN_NAMES[r.resourcePatternType] ?? String(r.resourcePatternType),
          principal: a.principal,
          host: a.host,
          operation: ACL_OPERATION_NAMES[a.operation] ?? String(a.operation),
          permissionType: ACL_PERMISSION_NAMES[a.permissionType] ?? String(a.permissionType),
        });
      }
    }
    const wanted = remoteTopicAcls(bindings, (t) => this.selects(t), (t) => this.remoteName(t));
    if (wanted.length === 0) return;
    const acl: AclEntry[] = wanted.map((b) => ({
      resourceType: AclResourceTypes.TOPIC,
      resourceName: b.resourceName,
      resourcePatternType: ResourcePatternTypes.LITERAL,
      principal: b.principal,
      host: b.host,
      operation: (AclOperationTypes as unknown as Record<string, AclOperationTypes>)[b.operation],
      permissionType: (AclPermissionTypes as unknown as Record<string, AclPermissionTypes>)[b.permissionType],
    }));
    const targetAdmin = await this.o.target.admin();
    if ((await this.withAuthorizer(this.o.target, 'ALTER', () => targetAdmin.createAcls({ acl }))) === null) return;
    this.o.target.reportOk();
    const key = wanted.map(aclKey).join('\n');
    if (key !== this.lastAcls) this.o.onEvent({ type: 'acls-synced', count: wanted.length, alias: this.o.target.alias });
    this.lastAcls = key;
  }

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
    const selectedNames = names.filter((t) => this.selects(t)).sort();
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
    this.replicated = selected.map((s) => s.topic);
    return selected;
  }

  private async createRemoteTopics(list: Array<{ topic: string; remote: string; partitions: number }>): Promise<void> {
    const targetAdmin = await this.o.target.admin();
    const fit = await fittedReplicationFactor(targetAdmin, this.o.replicationFactor);
    const lowered = fit.lowered;
    if (lowered) for (const c of list) this.o.onEvent({ type: 'rf-lowered', topic: c.remote, factor: lowered.from, brokers: lowered.brokers, alias: this.o.target.alias });
    const factor = fit.factor;
    // Created with the source topic's configs that are not at their default (MM2's createNewTopics), filtered by config.properties.exclude.
    // As MM2, a remote topic is not created while its source configs cannot be read (whatever
    // sync.topic.configs.enabled says): created with the target's defaults, a compacted source
    // topic would become a remote topic that deletes by age. The refresh fails, names the ACL, and is retried.
    const configs = new Map<string, Array<{ name: string; value: string }>>();
    const sourceAdmin = await this.o.source.admin();
    const res = await sourceAdmin.describeConfigs({ includeSynonyms: false, resources: list.map((c) => ({ type: TOPIC_RESOURCE, name: c.topic })) }).catch((e: unknown) => {
      const refused = notAuthorized(e, list.map((c) => ({ resource: 'Topic' as const, name: c.topic, operations: ['DESCRIBE_CONFIGS'] })), this.o.source.settings);
      if (refused) throw refused;
      throw new Error(`cannot create the remote topics of ${list.map((c) => c.topic).join(', ')}: their configs on ${this.o.source.alias} could not be read (${errText(e)})`);
    });
    for (const r of res.resources) configs.set(r.resourceName, remoteTopicCreateConfigs(entriesOf(r), this.o.configPropertyFilter));
    for (const c of list) {
      // A topic just created is not known to every broker's metadata at once: kafkajs's own wait
      // for leaders fails on the UNKNOWN_TOPIC_OR_PARTITION of that moment, and so does its
      // metadata refresh while another user of the shared admin asks for a topic not there yet
      // (as internal-topics). Those are tried again here, and the leaders awaited below.
      const deadline = Date.now() + CREATE_TRANSIENT_MS;
      for (;;) {
        try {
          await targetAdmin.createTopics({
            waitForLeaders: false,
            topics: [{ topic: c.remote, numPartitions: c.partitions, replicationFactor: factor, configEntries: configs.get(c.topic) ?? [] }],
          });
          await this.waitForLeaders([{ topic: c.remote, partitions: c.partitions }]);
          this.o.onEvent({ type: 'topic-created', topic: c.remote, partitions: c.partitions, alias: this.o.target.alias });
          break;
        } catch (e) {
          const err = e as { type?: string; errors?: Array<{ type?: string }> };
          const types = [err.type, ...(err.errors ?? []).map((x) => x.type)];
          if (types.includes('TOPIC_ALREADY_EXISTS')) break;
          if (types.some((t) => t !== undefined && TRANSIENT_CREATE_ERRORS.has(t)) && Date.now() < deadline && !this.o.stopped()) {
            await this.o.sleep(250);
            continue;
          }
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
      let md;
      try {
        md = await targetAdmin.fetchTopicMetadata({ topics: list.map((l) => l.topic) });
      } catch (e) {
        // not known to the broker that answers yet: metadata propagates after a creation
        if (!TRANSIENT_CREATE_ERRORS.has((e as { type?: string }).type ?? '')) throw e;
        await this.o.sleep(200);
        continue;
      }
      const ready = list.every((l) => {
        const t = md.topics.find((x) => x.name === l.topic);
        return !!t && t.partitions.length >= l.partitions && t.partitions.every((p) => p.leader >= 0);
      });
      if (ready) return;
      await this.o.sleep(200);
    }
  }
}
