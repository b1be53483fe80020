/**
 * The rules an instance of a shared replication flow (issue 25) follows before it writes, and what
 * it says of its share. Plain rules, no I/O.
 *
 * Fencing, minimum: an instance writes (checkpoints, target group offsets) only while it holds a
 * lease on its share: its last successful heartbeat in the sharing group, plus the session timeout
 * (the coordinator keeps a member that long without a heartbeat), minus a margin for the time a
 * write takes and for clocks that drift. A process that was paused (SIGSTOP, a long GC, a network
 * partition) wakes with a heartbeat older than that and writes nothing until the membership
 * settles again (a heartbeat accepted by the coordinator, or a new generation), by which time its
 * share may have moved to another instance. Never-backwards against the target's state is the
 * other half (the group-offset writer reads the target before it commits).
 */

/** The margin taken off a lease: a third of the session timeout, at least two heartbeats. */
export function leaseMarginMs(sessionTimeoutMs: number, heartbeatIntervalMs: number): number {
  return Math.min(sessionTimeoutMs - 1, Math.max(Math.floor(sessionTimeoutMs / 3), 2 * heartbeatIntervalMs));
}

export interface Lease {
  /** When the coordinator last accepted a heartbeat of this member (epoch ms); null: never (not joined yet). */
  lastHeartbeatAt: number | null;
  sessionTimeoutMs: number;
  marginMs: number;
}

/** Until when the lease holds (epoch ms); null when there is none. */
export function leaseUntil(l: Lease): number | null {
  return l.lastHeartbeatAt === null ? null : l.lastHeartbeatAt + l.sessionTimeoutMs - l.marginMs;
}

/** Whether an instance may write now: its last heartbeat is recent enough that the coordinator still counts it in. */
export function leaseHolds(l: Lease, now: number): boolean {
  const until = leaseUntil(l);
  return until !== null && now < until;
}

/** What an instance's share is, as its status and log tell it. */
export type ShareView =
  /** No membership (no checkpoint node of the flow runs here, or one alone): owns everything, says nothing. */
  | { kind: 'alone' }
  /** Joining: the first assignment has not come yet (bounded wait). */
  | { kind: 'joining' }
  /** Works alone because the membership cannot start or did not settle in time (`reason`); owns everything. */
  | { kind: 'solo'; reason: string }
  /** A member sharing the work: owns `partitions` of `partitionCount`, with `instances` members in all. */
  | { kind: 'sharing'; partitions: number; partitionCount: number; instances: number }
  /** A member kept out: its settings differ (`differsText`); owns nothing. */
  | { kind: 'refused'; differsText: string };

/** Whether the status should show the share: only when more than one instance shares (one instance: as before). */
export function shareShown(v: ShareView): v is Extract<ShareView, { kind: 'sharing' }> {
  return v.kind === 'sharing' && v.instances > 1;
}

/** The replication settings the instances of a flow must agree on (never secrets), as text. */
export function flowShareSettings(s: {
  replicationProps: Readonly<Record<string, string>>;
  offsetTranslation: string;
  checkpoint: Readonly<Record<string, unknown>>;
}): Record<string, string> {
  const out: Record<string, string> = {};
  // the flow-wide MM2 properties: replication.policy.class / separator / internal separator, offset-syncs.topic.location, replication.factor
  for (const [k, v] of Object.entries(s.replicationProps)) {
    if (/password|secret|token|sasl|ssl|jaas|credential/i.test(k)) continue;
    out[k] = String(v);
  }
  out['offset.translation'] = s.offsetTranslation;
  // the checkpoint node's: groups, groups.exclude, topics, topics.exclude, intervals, source offsets
  for (const [k, v] of Object.entries(s.checkpoint)) {
    if (v === undefined || v === null) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}
