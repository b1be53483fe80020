/**
 * One instance's membership in the group its replication flow's instances share the work through
 * (issue 25): a kafkajs consumer in the flow's group (core/group-ownership shareGroupId), subscribed
 * to `__consumer_offsets`, whose partitions a partition assigner of our own splits round-robin among
 * the members that agree on the replication settings. Kafka's group protocol does the rest: a member
 * that dies (session timeout) or leaves (close) triggers a rebalance and the others take its share;
 * a new member takes a share without a restart of the others. No coordinator of our own.
 *
 * Used through engines/replication-shares, one per replication flow (docs/development.md, Scale-out).
 *
 * It consumes nothing. The assignment is the whole point, the records are read elsewhere
 * (kafka/source-commit-stream): every (re)join pauses the topic before the first fetch (the
 * GROUP_JOIN event runs inside the join), so kafkajs only heartbeats. Pausing rather than an empty
 * assignment keeps the split visible where Kafka's own tools look (`kafka-consumer-groups
 * --describe` lists each member's partitions) and lets a later step read exactly its share with the
 * same consumer. It needs no READ on the topic: DESCRIBE on `__consumer_offsets` (metadata, and
 * the list-offsets kafkajs does on assignment) and READ on the group.
 *
 * What a member learns and how, with kafkajs's public API only:
 * - its partitions: the GROUP_JOIN event;
 * - the member count, the partition count and, when kept out, the setting that differs: the
 *   assignment's userData, written by the leader, read back with a DescribeGroups of the group (kafkajs
 *   does not hand the assignment's userData to the member); a describe answered for another
 *   generation (its partitions are not the ones just joined with) is asked again;
 * - the generation: the first heartbeat after the join carries it (and proves the coordinator
 *   still has the member in it). The consumer heartbeats every `heartbeatIntervalMs`.
 * A change is reported once all three are known for the same join.
 */
import { EventEmitter } from 'node:events';
import { AssignerProtocol, type Assigner, type Cluster, type Consumer, type GroupMember, type Kafka, type PartitionAssigner } from 'kafkajs';
import {
  assignShares,
  decodeAssignmentUserData,
  decodeMemberUserData,
  encodeAssignmentUserData,
  encodeMemberUserData,
  OFFSETS_TOPIC,
  settingDifferenceText,
  settingsFingerprint,
  SHARE_GROUP_PREFIX,
  shareGroupId,
  Shares,
  type SettingDifference,
  type ShareMemberInfo,
  type ShareSettings,
} from '../core/group-ownership';
import { withShareTopic } from '../core/share-topic';
import { backoffDelay } from '../core/backoff';
import type { AclNeed } from './client';
import { disconnectQuietly } from './topic-reader';

/** The protocol name members announce: a member of another assigner cannot join the group (INCONSISTENT_GROUP_PROTOCOL). */
export const SHARE_ASSIGNER_NAME = 'mm2-node-red-shares';
const SHARE_ASSIGNER_VERSION = 1;
/**
 * How long after a member stops heartbeating the coordinator gives its share to the others: 10 s, as
 * Kafka Connect's workers (session.timeout.ms 10000), so a killed instance's groups are fresh again
 * within about 15 s (the session timeout, the rebalance, one cycle). The broker must allow it
 * (group.min.session.timeout.ms, 6 s by default).
 */
export const SHARE_SESSION_TIMEOUT_MS = 10000;

/**
 * The ACLs a membership needs on the source, splitting `topic`: DESCRIBE on `__consumer_offsets`
 * (the event path), or, for the polling split (core/share-topic), CREATE (unless the topic is made
 * beforehand) and DESCRIBE on the flow's split topic; and READ on the sharing groups (prefixed).
 */
export function shareMembershipAcls(topic: string = OFFSETS_TOPIC): AclNeed[] {
  return [
    { resource: 'Topic', name: topic, operations: topic === OFFSETS_TOPIC ? ['DESCRIBE'] : ['CREATE', 'DESCRIBE'] },
    { resource: 'Group', name: SHARE_GROUP_PREFIX, prefixed: true, operations: ['READ'] },
  ];
}

export interface ShareMembershipOptions {
  /** The kafkajs client of the cluster whose `__consumer_offsets` is split (the flow's source). */
  kafka: Kafka;
  sourceAlias: string;
  targetAlias: string;
  /**
   * The replication settings the instances must agree on (name -> value as text). The aliases
   * are added. Never secrets: any principal that may describe the group reads them.
   */
  settings: ShareSettings;
  /** The topic whose partitions are split; default `__consumer_offsets`. */
  topic?: string;
  /** The group's id; default shareGroupId(sourceAlias, targetAlias). */
  groupId?: string;
  /** Default SHARE_SESSION_TIMEOUT_MS (10 s, as Kafka Connect's workers): how long after a member stops heartbeating its share moves. */
  sessionTimeoutMs?: number;
  /** Default 1000: how often the member heartbeats (a join's generation is known at the first one). */
  heartbeatIntervalMs?: number;
}

/** One settled generation of the flow's group, as this member sees it. */
export interface ShareMembershipState {
  generationId: number;
  memberId: string;
  isLeader: boolean;
  /** The partitions this instance owns in this generation. */
  shares: Shares;
  /** Members sharing the work (the settings of the leader); null when the leader's note was unreadable. */
  members: number | null;
  /** Members kept out because their settings differ from the leader's. */
  refused: number | null;
  /** Set when this instance is kept out: the first setting where it differs from the others. */
  differs: SettingDifference | null;
  /** The status text of `differs`, e.g. `setting groups differs from the other instances: orders-.* vs .*`. */
  differsText: string | null;
  /** The member ids of this generation (every member, kept out or not), from the describe that read the note; null when unread. */
  memberIds: readonly string[] | null;
}

interface ShareMembershipEvents {
  /** A new generation settled (a join, a member that came or went). */
  change: [ShareMembershipState];
  /** A failure kafkajs does not recover from: the membership has stopped. */
  error: [Error];
}

export class ShareMembership extends EventEmitter<ShareMembershipEvents> {
  readonly groupId: string;
  readonly topic: string;
  readonly fingerprint: string;
  readonly settings: ShareSettings;
  private consumer: Consumer | null = null;
  private cluster: Cluster | null = null;
  private stopped = false;
  private current: ShareMembershipState | null = null;
  /** Requests this member sent, for tests and diagnostics: it never fetches records. */
  readonly stats = { joins: 0, fetchRequests: 0, heartbeats: 0 };
  /** The failure that stopped the membership, if one did. */
  lastError: Error | null = null;
  /** Incremented by every join; work for an older join is dropped. */
  private joinSeq = 0;
  /** The join the last heartbeat came after, and the generation it carried. */
  private heartbeat = { seq: 0, generationId: -1 };
  /** Settles waiting for a heartbeat after their join. */
  private readonly heartbeatWaiters = new Set<() => void>();
  /** The member ids of the describe that read the last note. */
  private noteMembers: readonly string[] | null = null;
  private readonly sessionTimeout: number;
  private readonly heartbeatInterval: number;
  /** When the coordinator last accepted a heartbeat of this member (epoch ms; null: none yet, or stopped): the fencing lease's start (core/share-lease). */
  lastHeartbeatAt: number | null = null;
  /** A rebalance began and its generation has not settled yet: the last state may be out of date (no writes meanwhile). */
  rebalancing = false;

  constructor(private readonly o: ShareMembershipOptions) {
    super();
    for (const k of ['sourceAlias', 'targetAlias'] as const) {
      if (typeof o[k] !== 'string' || o[k].length === 0) throw new TypeError(`${k}: expected the cluster alias (text), got ${JSON.stringify(o[k])}`);
    }
    this.topic = o.topic ?? OFFSETS_TOPIC;
    // the topic split is a setting the members compare (core/share-topic): members splitting different topics never agree
    this.settings = Object.freeze({ ...withShareTopic(o.settings, this.topic), 'source.cluster.alias': o.sourceAlias, 'target.cluster.alias': o.targetAlias });
    this.fingerprint = settingsFingerprint(this.settings);
    this.groupId = o.groupId ?? shareGroupId(o.sourceAlias, o.targetAlias);
    this.sessionTimeout = o.sessionTimeoutMs ?? SHARE_SESSION_TIMEOUT_MS;
    this.heartbeatInterval = o.heartbeatIntervalMs ?? 1000;
    if (!Number.isInteger(this.sessionTimeout) || this.sessionTimeout < 1) throw new RangeError(`sessionTimeoutMs: ${o.sessionTimeoutMs} is not a number of milliseconds >= 1 (default ${SHARE_SESSION_TIMEOUT_MS})`);
    if (!Number.isInteger(this.heartbeatInterval) || this.heartbeatInterval < 1 || this.heartbeatInterval >= this.sessionTimeout) {
      throw new RangeError(`heartbeatIntervalMs: ${o.heartbeatIntervalMs} is not a number of milliseconds >= 1 and below sessionTimeoutMs (default 1000)`);
    }
  }

  get sessionTimeoutMs(): number {
    return this.sessionTimeout;
  }

  get heartbeatIntervalMs(): number {
    return this.heartbeatInterval;
  }

  /** The last settled generation; null before the first, and after stop(). */
  get state(): ShareMembershipState | null {
    return this.current;
  }

  get generationId(): number | null {
    return this.current?.generationId ?? null;
  }

  /** The partitions owned in the last settled generation (none before the first). */
  get partitions(): readonly number[] {
    return this.current?.shares.partitions ?? [];
  }

  get memberCount(): number | null {
    return this.current?.members ?? null;
  }

  /** The partition assigner of this member: carries its fingerprint and settings, and splits when it leads. */
  private assigner(): PartitionAssigner {
    return ({ cluster }) => {
      this.cluster = cluster;
      const self = this;
      const assigner: Assigner = {
        name: SHARE_ASSIGNER_NAME,
        version: SHARE_ASSIGNER_VERSION,
        protocol({ topics }) {
          return {
            name: SHARE_ASSIGNER_NAME,
            metadata: AssignerProtocol.MemberMetadata.encode({ version: SHARE_ASSIGNER_VERSION, topics, userData: encodeMemberUserData(self.fingerprint, self.settings) }),
          };
        },
        async assign({ members, topics }) {
          const partitions = topics.includes(self.topic) ? cluster.findTopicPartitionMetadata(self.topic).map((m) => m.partitionId) : [];
          const infos = members.map(memberInfo);
          return assignShares({ fingerprint: self.fingerprint, settings: self.settings }, infos, partitions).map((a) => ({
            memberId: a.memberId,
            memberAssignment: AssignerProtocol.MemberAssignment.encode({
              version: SHARE_ASSIGNER_VERSION,
              assignment: a.partitions.length > 0 ? { [self.topic]: a.partitions } : {},
              userData: encodeAssignmentUserData(a),
            }),
          }));
        },
      };
      return assigner;
    };
  }

  /**
   * Joins the group; resolves with the first settled generation. Rejects (and stops) when the
   * consumer fails for good before that (not authorized, no such topic...).
   */
  async start(): Promise<ShareMembershipState> {
    if (this.consumer) throw new Error('ShareMembership.start: already started');
    const consumer = this.o.kafka.consumer({
      groupId: this.groupId,
      partitionAssigners: [this.assigner()],
      allowAutoTopicCreation: false,
      sessionTimeout: this.sessionTimeout,
      heartbeatInterval: this.heartbeatInterval,
      maxWaitTimeInMs: Math.min(this.heartbeatInterval, 1000),
      retry: { retries: 10 },
    });
    this.consumer = consumer;
    const first = new Promise<ShareMembershipState>((resolve, reject) => {
      const offChange = () => {
        this.off('change', onChange);
        this.off('error', onError);
      };
      const onChange = (s: ShareMembershipState) => {
        offChange();
        resolve(s);
      };
      const onError = (e: Error) => {
        offChange();
        reject(e);
      };
      this.on('change', onChange);
      this.on('error', onError);
    });
    consumer.on(consumer.events.GROUP_JOIN, (ev) => {
      // inside the join, before the first fetch: nothing is ever fetched
      consumer.pause([{ topic: this.topic }]);
      const seq = ++this.joinSeq;
      this.rebalancing = true; // settled once its generation is known
      this.stats.joins++;
      const parts = ((ev.payload.memberAssignment as Record<string, number[]>)[this.topic] ?? []).slice().sort((a, b) => a - b);
      void this.settle(seq, ev.payload.memberId, ev.payload.isLeader, parts);
    });
    consumer.on(consumer.events.REBALANCING, () => {
      this.rebalancing = true;
    });
    consumer.on(consumer.events.REQUEST, (ev) => {
      if (ev.payload.apiName === 'Fetch') this.stats.fetchRequests++;
    });
    consumer.on(consumer.events.HEARTBEAT, (ev) => {
      this.stats.heartbeats++;
      this.lastHeartbeatAt = Date.now();
      this.heartbeat = { seq: this.joinSeq, generationId: ev.payload.groupGenerationId };
      this.wakeHeartbeat();
    });
    consumer.on(consumer.events.CRASH, (ev) => {
      const restart = (ev.payload as { restart?: boolean }).restart;
      if (this.stopped || restart) return; // kafkajs rejoins by itself
      const err = ev.payload.error instanceof Error ? ev.payload.error : new Error(String(ev.payload.error));
      this.lastError = err;
      // an 'error' nobody listens to would throw: the failure stays readable as lastError
      void this.stop().then(() => this.listenerCount('error') > 0 && this.emit('error', err));
    });
    // stopped while starting (a redeploy while joining): the consumer must not go on into the group
    // after stop(), a member no node uses that would keep a share of the flow forever
    const stoppedMeanwhile = async (): Promise<never> => {
      await disconnectQuietly(consumer);
      throw new Error(`the membership in ${this.groupId} was stopped while it started`);
    };
    try {
      await consumer.connect();
      if (this.stopped) return await stoppedMeanwhile();
      await consumer.subscribe({ topics: [this.topic], fromBeginning: false });
      if (this.stopped) return await stoppedMeanwhile();
      await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: async () => {} });
      if (this.stopped) return await stoppedMeanwhile();
    } catch (e) {
      await this.stop();
      throw e;
    }
    return first;
  }

  /** Settles the join `seq` once its generation and the leader's note are known; dropped if another join came. */
  private async settle(seq: number, memberId: string, isLeader: boolean, partitions: number[]): Promise<void> {
    const note = await this.readNote(seq, memberId, partitions);
    while (!this.stopped && seq === this.joinSeq && this.heartbeat.seq !== seq) {
      await new Promise<void>((r) => this.heartbeatWaiters.add(r));
    }
    if (this.stopped || seq !== this.joinSeq) return;
    const partitionCount = note?.partitionCount ?? this.partitionCountFromMetadata();
    const differs = note?.differs ?? null;
    this.current = {
      generationId: this.heartbeat.generationId,
      memberId,
      isLeader,
      shares: new Shares(partitions, Math.max(partitionCount, ...partitions.map((p) => p + 1), 1)),
      members: note?.members ?? null,
      refused: note?.refused ?? null,
      differs,
      differsText: differs ? settingDifferenceText(differs) : null,
      memberIds: note ? this.noteMembers : null,
    };
    this.rebalancing = false;
    this.emit('change', this.current);
  }

  /** This member's assignment userData, read back with DescribeGroups (null when unreadable, or when this join is over). */
  private async readNote(seq: number, memberId: string, partitions: number[]): Promise<ReturnType<typeof decodeAssignmentUserData>> {
    for (let attempt = 0; !this.stopped && seq === this.joinSeq; attempt++) {
      try {
        const group = await this.consumer!.describeGroup();
        const me = group.state === 'Stable' ? group.members.find((m) => m.memberId === memberId) : undefined;
        if (me) {
          const assignment = AssignerProtocol.MemberAssignment.decode(me.memberAssignment);
          const theirs = ((assignment?.assignment ?? {}) as Record<string, number[]>)[this.topic] ?? [];
          // the same partitions as this join's: the note of this generation (or of one that split alike)
          if (sameNumbers(theirs, partitions)) {
            this.noteMembers = Object.freeze(group.members.map((m) => m.memberId));
            return decodeAssignmentUserData(assignment?.userData);
          }
        }
      } catch {
        /* the coordinator is moving: ask again */
      }
      if (attempt >= 50) return null;
      // another join ends this loop; otherwise the group settles within a rebalance
      await new Promise((r) => setTimeout(r, backoffDelay(attempt, 100, 1000)));
    }
    return null;
  }

  private wakeHeartbeat(): void {
    for (const wake of this.heartbeatWaiters) wake();
    this.heartbeatWaiters.clear();
  }

  private partitionCountFromMetadata(): number {
    try {
      return this.cluster?.findTopicPartitionMetadata(this.topic).length ?? 1;
    } catch {
      return 1;
    }
  }

  /** Leaves the group (the others take this share at once, not after the session timeout). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.current = null;
    this.lastHeartbeatAt = null;
    this.wakeHeartbeat();
    const c = this.consumer;
    if (c) await disconnectQuietly(c);
  }
}

/** What a member announced (its subscription's userData); a member that announced nothing readable disagrees with everyone. */
function memberInfo(m: GroupMember): ShareMemberInfo {
  let info: ReturnType<typeof decodeMemberUserData> = null;
  try {
    info = decodeMemberUserData(AssignerProtocol.MemberMetadata.decode(m.memberMetadata)?.userData);
  } catch {
    info = null;
  }
  return { memberId: m.memberId, fingerprint: info?.fingerprint ?? '', settings: info?.settings ?? {} };
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  const x = [...a].sort((p, q) => p - q);
  const y = [...b].sort((p, q) => p - q);
  return x.every((v, i) => v === y[i]);
}
