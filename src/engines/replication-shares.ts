/**
 * The share of one replication flow this Node-RED instance owns when the same flow runs in several
 * instances (issue 25): one ShareMembership (kafka/share-membership) per replication, owned by its
 * runtime, started when the first checkpoint emitter of the flow starts and stopped when the last
 * one stops.
 *
 * What an instance owns:
 * - no membership (no checkpoint node of the flow runs here): every group, nothing said;
 * - joining, until the first assignment (bounded by `firstAssignmentWaitMs`, default 15 s; the
 *   broker's group.initial.rebalance.delay.ms is 3 s by default): nothing; the emitter's first
 *   discovery waits for it (ready()), so a single instance starts exactly as before, one join later;
 * - the membership cannot start (no READ on the sharing group, no DESCRIBE on `__consumer_offsets`,
 *   anything else), or no assignment came in time: every group, alone (`solo`, with the reason:
 *   said once in the log, never red: the instance does its job); an assignment that comes later
 *   makes it a member;
 * - a member: the groups whose commits land in its `__consumer_offsets` partitions
 *   (core/group-ownership Shares.owns); kept out (settings differ): nothing.
 *
 * Writes are fenced (core/share-lease): a member sharing with others writes only while its last
 * heartbeat is recent enough that the coordinator still counts it in, and not while a rebalance is
 * settling. A member alone in its last generation is not fenced: there is no one to fence against,
 * and the sharing group lives on the source, whose loss must not stop a failover's target writes.
 */
import { EventEmitter } from 'node:events';
import type { Kafka } from 'kafkajs';
import { OFFSETS_TOPIC, shareGroupId, type ShareSettings } from '../core/group-ownership';
import { leaseHolds, leaseMarginMs, type ShareView } from '../core/share-lease';
import { chooseShareTopic, needsOffsetsTopicLook, type OffsetsTopicAccess } from '../core/share-topic';
import { ShareMembership, shareMembershipAcls, type ShareMembershipState } from '../kafka/share-membership';
import { authorizationFailure, explainKafkaError, type ClusterSettings } from '../kafka/client';
import { Timer, within } from '../core/timers';

/** How long the first discovery waits for the first assignment before the instance works alone. */
export const FIRST_ASSIGNMENT_WAIT_MS = 15000;
/** A membership that failed for another reason than a refusal (e.g. `__consumer_offsets` not created yet, a source that does not answer) is tried again this often, the instance working alone meanwhile. */
export const SHARE_RETRY_MS = 30000;

export interface ShareJoinOptions {
  /** The kafkajs client of the flow's source (whose `__consumer_offsets` is split). */
  kafka: Kafka;
  sourceAlias: string;
  targetAlias: string;
  /** The settings the instances must agree on (core/share-lease flowShareSettings): never secrets. */
  settings: ShareSettings;
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  firstAssignmentWaitMs?: number;
  /** The checkpoint node's source offsets: 'poll' splits the flow's own topic (pollSplit). Default 'auto'. */
  sourceOffsets?: 'auto' | 'poll';
  /**
   * The polling split (core/share-topic): the flow's split topic on the source, a look at whether
   * `__consumer_offsets` may be described, and the creation of the topic. Absent: the instances
   * split `__consumer_offsets` whatever the source offsets.
   */
  pollSplit?: {
    topic: string;
    lookAtOffsetsTopic(): Promise<OffsetsTopicAccess>;
    ensureTopic(): Promise<unknown>;
  };
  /** The source's settings, for the principal and the ACLs a refusal names. */
  sourceSettings?: ClusterSettings;
}

/** What the checkpoint emitter and the group-offset writer ask of the shares. */
export interface GroupOwner {
  /** Resolves once the first assignment came, or the instance works alone (bounded). */
  ready(): Promise<void>;
  /** Whether this instance works on `group` now. */
  owns(group: string): boolean;
  /**
   * Whether this instance works on every group now (alone, working alone, or a member owning every
   * partition): what it owns cannot change without a change of the share (subscribe). Absent: not known.
   */
  ownsEvery?(): boolean;
  /** Whether this instance may write now (its lease on its share holds). */
  writable(): boolean;
  /**
   * The partitions of `__consumer_offsets` whose groups this instance owns (its stream reads only
   * those); null: every one (alone, working alone, joining, or a split over another topic).
   */
  offsetsPartitions(): ReadonlySet<number> | null;
  /** Called at every change of the share (a new generation, solo, kept out); returns the unsubscribe. */
  subscribe(listener: (view: ShareView) => void): () => void;
}

/** Sharing groups joined in this process: two replication nodes of one Node-RED with the same aliases do not split the work between themselves. */
const joinedHere = new Set<string>();

export class ReplicationShares implements GroupOwner {
  private users = 0;
  private membership: ShareMembership | null = null;
  private groupId: string | null = null;
  private view: ShareView = { kind: 'alone' };
  private readyP: Promise<void> = Promise.resolve();
  private readonly events = new EventEmitter<{ change: [ShareView] }>();
  private readonly retryTimer = new Timer();
  /** The join under way (its topic chosen, its membership started); null when none (alone, or working alone after a failure). */
  private attempt: object | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  /** The share now. */
  get current(): ShareView {
    return this.view;
  }

  /** The membership's last settled generation (null: none). */
  get state(): ShareMembershipState | null {
    return this.membership?.state ?? null;
  }

  /** A checkpoint emitter starts: the first one starts the membership. Returns its release (the last one stops it). */
  join(o: ShareJoinOptions): () => Promise<void> {
    this.users++;
    if (this.users === 1) this.begin(o);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      if (--this.users === 0) await this.end();
    };
  }

  ready(): Promise<void> {
    return this.readyP;
  }

  owns(group: string): boolean {
    const v = this.view;
    if (v.kind === 'alone' || v.kind === 'solo') return true;
    if (v.kind !== 'sharing') return false;
    return this.membership?.state?.shares.owns(group) ?? false;
  }

  ownsEvery(): boolean {
    const v = this.view;
    if (v.kind === 'alone' || v.kind === 'solo') return true;
    if (v.kind !== 'sharing') return false;
    return this.membership?.state?.shares.every ?? false;
  }

  writable(): boolean {
    const v = this.view;
    if (v.kind === 'alone' || v.kind === 'solo') return true;
    if (v.kind !== 'sharing') return false;
    const m = this.membership;
    if (!m) return false;
    // alone in the last generation: nothing to fence against, and a source that stops answering (the
    // sharing group lives there) must not stop the target writes of a failover: as one instance always did
    if (v.instances === 1) return true;
    if (m.rebalancing) return false;
    return leaseHolds({ lastHeartbeatAt: m.lastHeartbeatAt, sessionTimeoutMs: m.sessionTimeoutMs, marginMs: leaseMarginMs(m.sessionTimeoutMs, m.heartbeatIntervalMs) }, this.now());
  }

  offsetsPartitions(): ReadonlySet<number> | null {
    const v = this.view;
    if (v.kind === 'refused') return new Set();
    const m = this.membership;
    if (v.kind !== 'sharing' || !m || m.topic !== OFFSETS_TOPIC) return null;
    const shares = m.state?.shares;
    return shares ? new Set(shares.partitions) : null;
  }

  subscribe(listener: (view: ShareView) => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  private set(view: ShareView): void {
    if (JSON.stringify(view) === JSON.stringify(this.view)) return; // the same share: nothing to redo
    this.view = view;
    this.events.emit('change', view);
  }

  /** Joins the flow's group; `again`: a retry while working alone (it stays alone, owning everything, until an assignment comes). */
  private begin(o: ShareJoinOptions, again = false): void {
    const groupId = shareGroupId(o.sourceAlias, o.targetAlias);
    if (joinedHere.has(groupId)) {
      this.set({ kind: 'solo', reason: `another replication node of this Node-RED already shares the flow ${o.sourceAlias}->${o.targetAlias} (group ${groupId})` });
      return;
    }
    joinedHere.add(groupId);
    this.groupId = groupId;
    if (!again) this.view = { kind: 'joining' };
    const attempt = {};
    this.attempt = attempt;
    let m: ShareMembership | null = null;
    let topic = OFFSETS_TOPIC;
    const current = (): boolean => this.attempt === attempt && this.users > 0;
    const failed = (e: unknown): void => {
      if (!current() || (m !== null && this.membership !== m)) return;
      this.attempt = null;
      this.membership = null;
      this.forgetGroup();
      if (m) void m.stop();
      this.set({ kind: 'solo', reason: `the sharing group ${groupId} cannot be joined: ${explainKafkaError(e, o.sourceSettings, shareMembershipAcls(topic))}` });
      // refused (an ACL, a bad setting): until the flow is redeployed; anything else (no __consumer_offsets yet, a source away): again later
      if (!authorizationFailure(e) && !(e instanceof TypeError) && !(e instanceof RangeError)) {
        this.retryTimer.after(SHARE_RETRY_MS, () => {
          if (this.users > 0 && this.membership === null && this.attempt === null) this.begin(o, true);
        });
      }
    };
    // the topic split (core/share-topic): __consumer_offsets, or the flow's own where the node polls
    const join = async (): Promise<void> => {
      topic = await this.splitTopic(o);
      if (!current()) return;
      if (topic !== OFFSETS_TOPIC) await o.pollSplit?.ensureTopic();
      if (!current()) return;
      m = new ShareMembership({ kafka: o.kafka, sourceAlias: o.sourceAlias, targetAlias: o.targetAlias, settings: o.settings, topic, sessionTimeoutMs: o.sessionTimeoutMs, heartbeatIntervalMs: o.heartbeatIntervalMs });
      const mine = m;
      this.membership = mine;
      mine.on('change', (st) => {
        if (this.membership !== mine) return;
        if (st.differsText !== null) this.set({ kind: 'refused', differsText: st.differsText });
        else this.set({ kind: 'sharing', partitions: st.shares.size, partitionCount: st.shares.partitionCount, instances: st.members ?? 1 });
      });
      mine.on('error', failed);
      await mine.start();
    };
    const started = join().catch(failed);
    if (again) return;
    const wait = o.firstAssignmentWaitMs ?? FIRST_ASSIGNMENT_WAIT_MS;
    this.readyP = within(started, wait).then(() => {
      if (current() && this.view.kind === 'joining') {
        this.set({ kind: 'solo', reason: `no assignment from the sharing group ${groupId} within ${wait / 1000} s (working alone until one comes)` });
      }
    });
  }

  /** The topic this instance splits (core/share-topic chooseShareTopic). */
  private async splitTopic(o: ShareJoinOptions): Promise<string> {
    const p = o.pollSplit;
    if (!p) return OFFSETS_TOPIC;
    const want = o.sourceOffsets ?? 'auto';
    const access = needsOffsetsTopicLook(want) ? await p.lookAtOffsetsTopic() : 'unknown';
    return chooseShareTopic(want, access, p.topic);
  }

  private forgetGroup(): void {
    if (this.groupId !== null) joinedHere.delete(this.groupId);
    this.groupId = null;
  }

  private async end(): Promise<void> {
    this.retryTimer.stop();
    const m = this.membership;
    this.membership = null;
    this.attempt = null;
    this.view = { kind: 'alone' };
    this.readyP = Promise.resolve();
    this.forgetGroup();
    if (m) await m.stop(); // leaves the group: the others take this share at once
  }
}
