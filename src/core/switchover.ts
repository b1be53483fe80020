import type { Checkpoint } from './types';
import type { GroupCoverageEntry } from './translation-cache';
import type { ReadinessSummary } from './readiness';
import { isWritableGroupState } from './group-offset-sync';
import { partitionKey } from './partition-key';

/**
 * A planned switchover, judged from the state the nodes hold (pure: no Kafka, no Node-RED).
 *
 * A switchover request travels through three nodes, each adding what it knows, and is judged in
 * two steps:
 * 1. `planSwitchover` (in mm2-checkpoint, after a final cycle): the heartbeats (added by
 *    mm2-heartbeat) are fresh, every selected group is ready (its readiness verdict) and idle on
 *    the source (no members: its listed state is Empty or Dead), and per partition the target
 *    offset a consumer will start from (the newest checkpoint) and the records it re-reads at most.
 * 2. `verifySwitchover` (in mm2-group-offsets, after a sync now): the offset each group has
 *    committed on the target equals that translation, partition by partition.
 * A switchover is `ok` when no check failed; otherwise it is refused and every reason is named.
 * Offsets are decimal strings: the plan and the report travel in messages.
 */

/** What mm2-heartbeat says of the replicated heartbeats (msg.switchover.heartbeat). */
export interface SwitchoverHeartbeat {
  /** false: the node does not watch the heartbeats on the target (its Watch setting is off). */
  watched: boolean;
  /** When the newest heartbeat seen on the target was written (epoch ms), null when none. */
  lastSeen: number | null;
  /** How old it was when asked (ms), null when none. */
  ageMs: number | null;
  staleAfterMs: number;
  /** The topic watched on the target (e.g. `source.heartbeats`). */
  topic?: string;
}

export type SwitchoverReasonCode =
  | 'heartbeat-missing' // the request did not pass through mm2-heartbeat
  | 'heartbeat-not-watched'
  | 'heartbeat-none' // no heartbeat seen on the target yet
  | 'heartbeat-stale'
  | 'readiness-missing' // the checkpoint cycle reported no readiness
  | 'source-states-failed' // the source's groups could not be listed with their states
  | 'no-groups' // nothing to switch over
  | 'not-selected' // the checkpoint node does not select (or know) the group
  | 'not-ready'
  | 'members-on-source'
  | 'not-listed-on-source'
  | 'no-checkpoints'
  | 'not-synced' // mm2-group-offsets does not select the group
  | 'members-on-target'
  | 'sync-failed'
  | 'target-unreadable'
  | 'target-differs';

export interface SwitchoverReason {
  code: SwitchoverReasonCode;
  /** One sentence for an operator, with the numbers. */
  text: string;
  topic?: string;
  partition?: number;
}

/** One partition of a group: where a consumer starts on the target, and what it reads again at most. */
export interface SwitchoverPartition {
  /** The topic on the target (the checkpoint's) and its source topic. */
  topic: string;
  partition: number;
  sourceTopic: string | null;
  /** The group's committed offset on the source (null: not in the coverage of the cycle). */
  sourceOffset: string | null;
  /** The translation: the newest checkpoint's downstream offset, where a consumer on the target starts. */
  targetOffset: string;
  /** At most this many records read again from `targetOffset` (null: not judged this cycle). */
  reread: number | null;
  /** After the sync: the offset the group has committed on the target (null: none). Absent in a plan. */
  committed?: string | null;
}

export interface SwitchoverGroup {
  group: string;
  ok: boolean;
  reasons: SwitchoverReason[];
  /** The readiness verdict of the final cycle (null: the group was not judged). */
  readiness: string | null;
  /** The largest re-read of its partitions. */
  reread: number | null;
  /** The group's state on the source (Empty: no members), null when not listed. */
  sourceState: string | null;
  partitions: SwitchoverPartition[];
}

/** What mm2-checkpoint adds to the request (msg.switchover.plan). */
export interface SwitchoverPlan {
  /** The checks that hold for every group (heartbeats, listings). */
  reasons: SwitchoverReason[];
  groups: SwitchoverGroup[];
  heartbeat: SwitchoverHeartbeat | null;
  /** The final checkpoint cycle. */
  cycle: number;
  at: number;
}

/** The report (mm2-group-offsets' answer, msg.payload). */
export interface SwitchoverReport extends SwitchoverPlan {
  ok: boolean;
  /** Groups per outcome. */
  okGroups: number;
  refusedGroups: number;
  /** Every reason in one list, each sentence prefixed with its group: what the flow shows when refused. */
  refused: string[];
}

export interface PlanInput {
  /** The groups asked for; null or empty: every group the checkpoint node selects. */
  groups: readonly string[] | null;
  heartbeat: SwitchoverHeartbeat | null;
  cycle: number;
  readiness: ReadinessSummary | undefined;
  coverage: readonly GroupCoverageEntry[];
  latest: ReadonlyMap<string, readonly Checkpoint[]>;
  /** Source group -> listed state, or the listing's error. */
  sourceStates: ReadonlyMap<string, { state: string }> | { error: string };
  now: number;
}

function heartbeatReasons(hb: SwitchoverHeartbeat | null): SwitchoverReason[] {
  if (hb === null) return [{ code: 'heartbeat-missing', text: 'no heartbeat state in the request: send it through the mm2-heartbeat node first (msg.action "switchover")' }];
  if (!hb.watched) return [{ code: 'heartbeat-not-watched', text: 'the mm2-heartbeat node does not watch the heartbeats on the target (its Watch setting is off)' }];
  if (hb.lastSeen === null || hb.ageMs === null) return [{ code: 'heartbeat-none', text: `no heartbeat has arrived on the target${hb.topic ? ` (${hb.topic})` : ''} yet: replication is not known to work` }];
  if (hb.ageMs > hb.staleAfterMs) {
    return [{ code: 'heartbeat-stale', text: `heartbeats are stale: the newest on the target is ${Math.round(hb.ageMs / 1000)} s old (stale after ${Math.round(hb.staleAfterMs / 1000)} s); replication may be behind or stopped` }];
  }
  return [];
}

/** Step 1: the heartbeats, each group's readiness and source state, and its partitions' translation. */
export function planSwitchover(input: PlanInput): SwitchoverPlan {
  const reasons = heartbeatReasons(input.heartbeat);
  const rd = input.readiness;
  if (rd === undefined) reasons.push({ code: 'readiness-missing', text: 'the checkpoint cycle reported no readiness (it was not a full cycle)' });
  const statesError = 'error' in input.sourceStates ? (input.sourceStates as { error: string }).error : null;
  if (statesError !== null) reasons.push({ code: 'source-states-failed', text: `the source's groups could not be listed with their states, so no group is known to be idle there: ${statesError}` });
  const states = statesError === null ? (input.sourceStates as ReadonlyMap<string, { state: string }>) : null;

  const known = new Map((rd?.groups ?? []).map((g) => [g.group, g]));
  const asked = input.groups && input.groups.length > 0 ? [...new Set(input.groups)] : [...known.keys()];
  if (asked.length === 0) reasons.push({ code: 'no-groups', text: 'no group to switch over: the checkpoint node selects none' });
  const entries = new Map<string, GroupCoverageEntry[]>();
  for (const e of input.coverage) {
    const list = entries.get(e.group) ?? [];
    list.push(e);
    entries.set(e.group, list);
  }

  const groups = asked.map((group): SwitchoverGroup => {
    const r = known.get(group);
    const g: SwitchoverGroup = { group, ok: true, reasons: [], readiness: r?.verdict ?? null, reread: r?.reread ?? null, sourceState: null, partitions: [] };
    if (!r) {
      g.reasons.push({ code: 'not-selected', text: 'not among the groups of the checkpoint node (groups / groups.exclude), or it has no committed offset on the source' });
    } else if (r.verdict !== 'ready') {
      const where = r.topic !== null ? ` on ${r.topic}-${r.partition}` : '';
      const why = r.why === 'reread' ? `a failover would re-read ${r.reread} records${where}, more than ${rd?.thresholds.maxReread}` : `${r.why ?? r.verdict}${where}`;
      g.reasons.push({ code: 'not-ready', text: `not ready (${r.verdict}): ${why}`, ...(r.topic !== null ? { topic: r.topic, partition: r.partition ?? undefined } : {}) });
    }
    if (states && r) {
      const s = states.get(group);
      g.sourceState = s?.state ?? null;
      if (s === undefined) g.reasons.push({ code: 'not-listed-on-source', text: 'not listed on the source cluster, so it is not known to be idle there' });
      else if (!isWritableGroupState(s.state)) {
        g.reasons.push({ code: 'members-on-source', text: `has members on the source (state ${s.state}): its consumers still run there; stop them before switching over` });
      }
    }
    // per partition: the checkpoints (what mm2-group-offsets writes, where a consumer starts), with the source side of the coverage
    const bySource = new Map<string, GroupCoverageEntry>();
    for (const e of entries.get(group) ?? []) if (e.remoteTopic !== null) bySource.set(partitionKey(e.remoteTopic, e.partition), e);
    for (const cp of input.latest.get(group) ?? []) {
      const e = bySource.get(partitionKey(cp.topic, cp.partition));
      g.partitions.push({
        topic: cp.topic,
        partition: cp.partition,
        sourceTopic: e?.topic ?? null,
        sourceOffset: e?.upstreamOffset == null ? null : e.upstreamOffset.toString(),
        targetOffset: cp.downstreamOffset.toString(),
        reread: e?.reread ?? null,
      });
    }
    g.partitions.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
    if (r && g.partitions.length === 0) g.reasons.push({ code: 'no-checkpoints', text: 'has no checkpoint: a consumer on the target would not know where to start' });
    g.ok = g.reasons.length === 0;
    return g;
  });
  return { reasons, groups, heartbeat: input.heartbeat, cycle: input.cycle, at: input.now };
}

export interface TargetState {
  /** The groups' committed offsets on the target after the sync (topic, partition, offset or null). */
  committed: ReadonlyMap<string, ReadonlyArray<{ topic: string; partition: number; offset: bigint | null }>>;
  /** Groups whose offsets could not be read, with the error. */
  readFailed: ReadonlyMap<string, string>;
  /** The sync's skipped groups (mm2-group-offsets: 'group-active', 'error', ...). */
  skipped: ReadonlyArray<{ group: string; code: string; reason: string; state?: string }>;
  /** Groups the group-offset writer does not select (its groups / groups.exclude). */
  excluded: ReadonlySet<string>;
}

/** Step 2: every partition's committed target offset equals its translation. */
export function verifySwitchover(plan: SwitchoverPlan, target: TargetState): SwitchoverReport {
  const skipped = new Map(target.skipped.map((s) => [s.group, s]));
  const groups = plan.groups.map((pg): SwitchoverGroup => {
    const g: SwitchoverGroup = { ...pg, reasons: [...pg.reasons], partitions: [] };
    const s = skipped.get(g.group);
    if (target.excluded.has(g.group)) g.reasons.push({ code: 'not-synced', text: 'not among the groups of the mm2-group-offsets node (groups / groups.exclude): its offsets are not written to the target' });
    else if (s?.code === 'group-active') g.reasons.push({ code: 'members-on-target', text: `has members on the target (state ${s.state ?? 'unknown'}): its offsets there are its consumers', not written` });
    else if (s?.code === 'error') g.reasons.push({ code: 'sync-failed', text: `the group-offset sync failed: ${s.reason}` });
    const failed = target.readFailed.get(g.group);
    if (failed !== undefined) g.reasons.push({ code: 'target-unreadable', text: `its offsets on the target could not be read: ${failed}` });
    const committed = new Map((target.committed.get(g.group) ?? []).map((o) => [partitionKey(o.topic, o.partition), o.offset]));
    for (const p of pg.partitions) {
      const c = failed === undefined ? (committed.get(partitionKey(p.topic, p.partition)) ?? null) : null;
      g.partitions.push({ ...p, committed: c === null ? null : c.toString() });
      if (failed !== undefined || c === BigInt(p.targetOffset)) continue;
      const has = c === null ? 'has no committed offset there' : `is at ${c} there`;
      g.reasons.push({ code: 'target-differs', topic: p.topic, partition: p.partition, text: `${p.topic}-${p.partition} ${has}, not at the translation ${p.targetOffset}` });
    }
    g.ok = g.reasons.length === 0;
    return g;
  });
  const okGroups = groups.filter((g) => g.ok).length;
  const refused = [...plan.reasons.map((r) => r.text), ...groups.flatMap((g) => g.reasons.map((r) => `${g.group}: ${r.text}`))];
  return { ...plan, groups, ok: refused.length === 0, okGroups, refusedGroups: groups.length - okGroups, refused };
}

/** A plan read back from a message (it crossed the flow): null when it is not one. */
export function readSwitchoverPlan(v: unknown): SwitchoverPlan | null {
  if (!v || typeof v !== 'object') return null;
  const p = v as Partial<SwitchoverPlan>;
  if (!Array.isArray(p.reasons) || !Array.isArray(p.groups) || typeof p.cycle !== 'number' || typeof p.at !== 'number') return null;
  for (const g of p.groups as unknown[]) {
    const x = g as Partial<SwitchoverGroup> | null;
    if (!x || typeof x.group !== 'string' || !Array.isArray(x.reasons) || !Array.isArray(x.partitions)) return null;
    for (const part of x.partitions as unknown[]) {
      const q = part as Partial<SwitchoverPartition> | null;
      if (!q || typeof q.topic !== 'string' || typeof q.partition !== 'number' || typeof q.targetOffset !== 'string' || !/^\d+$/.test(q.targetOffset)) return null;
    }
  }
  return p as SwitchoverPlan;
}
