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
import { ShareMembership, type ShareMembershipState } from '../kafka/share-membership';
import { explainKafkaError } from '../kafka/client';

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
}

/** What the checkpoint emitter and the group-offset writer ask of the shares. */
export interface GroupOwner {
  /** Resolves once the first assignment came, or the instance works alone (bounded). */
  ready(): Promise<void>;
  /** Whether this instance works on `group` now. */
  owns(group: string): boolean;
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
  private retryTimer: ReturnType<typeof setTimeout> | null = null;

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
    let m: ShareMembership;
    try {
      m = new ShareMembership({ kafka: o.kafka, sourceAlias: o.sourceAlias, targetAlias: o.targetAlias, settings: o.settings, sessionTimeoutMs: o.sessionTimeoutMs, heartbeatIntervalMs: o.heartbeatIntervalMs });
    } catch (e) {
      this.set({ kind: 'solo', reason: (e as Error).message });
      return;
    }
    joinedHere.add(groupId);
    this.groupId = groupId;
    this.membership = m;
    if (!again) this.view = { kind: 'joining' };
    const failed = (e: unknown): void => {
      if (this.membership !== m) return;
      this.membership = null;
      this.forgetGroup();
      void m.stop();
      this.set({ kind: 'solo', reason: `the sharing group ${groupId} cannot be joined: ${explainKafkaError(e)}` });
      // refused (an ACL): until the flow is redeployed; anything else (no __consumer_offsets yet, a source away): again later
      const type = String((e as { type?: unknown })?.type ?? '');
      if (!/AUTHORIZATION_FAILED/.test(type) && !(e instanceof TypeError) && !(e instanceof RangeError)) {
        this.retryTimer = setTimeout(() => {
          this.retryTimer = null;
          if (this.users > 0 && this.membership === null) this.begin(o, true);
        }, SHARE_RETRY_MS);
      }
    };
    m.on('change', (s) => {
      if (this.membership !== m) return;
      if (s.differsText !== null) this.set({ kind: 'refused', differsText: s.differsText });
      else this.set({ kind: 'sharing', partitions: s.shares.size, partitionCount: s.shares.partitionCount, instances: s.members ?? 1 });
    });
    m.on('error', failed);
    if (again) {
      m.start().catch(failed);
      return;
    }
    const wait = o.firstAssignmentWaitMs ?? FIRST_ASSIGNMENT_WAIT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, wait);
    });
    const started = m.start().then(() => undefined, failed);
    this.readyP = Promise.race([started, waited]).then(() => {
      clearTimeout(timer);
      if (this.membership === m && this.view.kind === 'joining') {
        this.set({ kind: 'solo', reason: `no assignment from the sharing group ${groupId} within ${wait / 1000} s (working alone until one comes)` });
      }
    });
  }

  private forgetGroup(): void {
    if (this.groupId !== null) joinedHere.delete(this.groupId);
    this.groupId = null;
  }

  private async end(): Promise<void> {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const m = this.membership;
    this.membership = null;
    this.view = { kind: 'alone' };
    this.readyP = Promise.resolve();
    this.forgetGroup();
    if (m) await m.stop(); // leaves the group: the others take this share at once
  }
}
