import type { Checkpoint, OffsetSync } from './types';
import type { CoverageEntry } from './checkpoints-for-group';
import { isWritableGroupState } from './group-offset-sync';

/**
 * Failover readiness per group partition and per group: what a consumer that fails over now,
 * resuming from the newest checkpoint, would re-read, and a verdict. Pure: the emitter computes
 * the entries when it translates a group (a reused group keeps them), and sums up the groups
 * once per cycle.
 *
 * Re-read bound. A sync `(u, d)` says that source record `u` was copied to target offset `d`.
 * A group at position P (its next record) translated from the sync below it resumes on the target
 * at `d + 1` (or exactly `d` when P = u). Each source record in (u, P) has at most one copy in the
 * target, so at most `P - u - 1` records are read again; when the store also holds a sync
 * `(u2, d2)` above P, the copy of P is at or below `d2`, so at most `d2 - d - 1`. A checkpoint
 * ahead of the translation (the last one stands, checkpoints never move back) re-reads that much
 * less. The bound is an upper bound: records that were never copied (aborted transactions,
 * markers) make the true number smaller.
 */

export type ReadinessVerdict = 'ready' | 'at-risk' | 'not-covered';

export interface ReadinessThresholds {
  /** A group partition whose failover would re-read more than this many records is at risk. */
  maxReread: number;
  /** A group whose checkpoints were last checked against its source commit longer ago than this (ms) is at risk. */
  maxAgeMs: number;
}

/** The defaults of mm2-checkpoint's two fields (1,000 records, 300 s). */
export const DEFAULT_READINESS: Readonly<ReadinessThresholds> = Object.freeze({ maxReread: 1000, maxAgeMs: 300000 });

/**
 * Whether a group has members on the target: true (listed in a state other than Empty or Dead),
 * false (Empty, Dead, or not listed by a principal allowed to describe it), 'unknown' (the
 * listing failed, or the principal may not describe the group).
 */
export type MembersOnTarget = boolean | 'unknown';

/** Whether a group listed on the target in `state` (undefined: not listed) has members. */
export function membersInState(state: string | undefined): boolean {
  return !isWritableGroupState(state);
}

/** A readiness's variants per membersOnTarget value (three slots: no Map per group, 10,000 of them at 10,000 groups). */
interface Variants {
  yes: GroupReadiness | undefined;
  no: GroupReadiness | undefined;
  unknown: GroupReadiness | undefined;
}
const groupVariants = new WeakMap<GroupReadiness, Variants>();
const slotOf = (m: MembersOnTarget): keyof Variants => (m === true ? 'yes' : m === false ? 'no' : 'unknown');
/**
 * `g` saying `members`: a group's readiness is kept across cycles while nothing moved, its
 * members on the target change apart from that; each (readiness, value) pair is made once.
 */
export function withMembersOnTarget(g: GroupReadiness, members: MembersOnTarget): GroupReadiness {
  if (g.membersOnTarget === members) return g;
  let v = groupVariants.get(g);
  if (v === undefined) groupVariants.set(g, (v = { yes: undefined, no: undefined, unknown: undefined }));
  const slot = slotOf(members);
  let out = v[slot];
  if (out === undefined) v[slot] = out = Object.freeze({ ...g, membersOnTarget: members });
  return out;
}

/** What a coverage entry adds about readiness (kept with the entry: small numbers, a shared string). */
export interface EntryReadiness {
  verdict: ReadinessVerdict;
  /** At most this many records re-read by a failover now; null when not covered. */
  reread: number | null;
  /** When the source offsets the partition's newest checkpoint reflects were listed (epoch ms); null without one, or unknown. */
  checkpointAt: number | null;
}

/** Statuses whose entry has a checkpoint that a failover resumes from. */
const COVERED = new Set(['emitted', 'unchanged']);
/** Statuses that say nothing about readiness (the topic is not mirrored; the group never committed there): left out of a group's verdict. */
const NOT_APPLICABLE = new Set(['topic-not-replicated', 'no-committed-offset']);

/** The records a failover re-reads at most, from position `offset` translated from `below`, with `above` the next sync the store holds (if any). */
export function rereadBound(offset: bigint, below: OffsetSync, above?: OffsetSync): bigint {
  if (offset <= below.upstreamOffset) return 0n;
  let bound = offset - below.upstreamOffset - 1n;
  if (above !== undefined && above.upstreamOffset > offset && above.downstreamOffset > below.downstreamOffset) {
    const between = above.downstreamOffset - below.downstreamOffset - 1n;
    if (between < bound) bound = between;
  }
  return bound;
}

function toCount(n: bigint): number {
  return n <= 0n ? 0 : n >= BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}

/**
 * The readiness of one coverage entry: `above` is the next sync above its position (the store's
 * `around`), `checkpoint` the partition's newest checkpoint and `checkpointAt` when its offsets were listed.
 */
export function entryReadiness(
  e: Pick<CoverageEntry, 'status' | 'upstreamOffset' | 'downstreamOffset' | 'sync'>,
  above: OffsetSync | undefined,
  checkpoint: Checkpoint | undefined,
  checkpointAt: number | undefined,
  th: ReadinessThresholds,
): EntryReadiness {
  const at = checkpoint === undefined || checkpointAt === undefined ? null : checkpointAt;
  if (!COVERED.has(e.status) || e.sync === undefined || e.upstreamOffset === null || e.downstreamOffset === undefined) {
    return { verdict: 'not-covered', reread: null, checkpointAt: at };
  }
  let bound = rereadBound(e.upstreamOffset, e.sync, above);
  // a checkpoint ahead of this translation (the last one stands): that much less
  if (checkpoint !== undefined && checkpoint.downstreamOffset > e.downstreamOffset) bound -= checkpoint.downstreamOffset - e.downstreamOffset;
  const reread = toCount(bound);
  return { verdict: reread > th.maxReread ? 'at-risk' : 'ready', reread, checkpointAt: at };
}

/** One group's readiness: its worst partition. */
export interface GroupReadiness {
  group: string;
  verdict: ReadinessVerdict;
  /**
   * Why, when not ready: 'reread' (a partition re-reads more than the threshold), 'age' (its
   * offsets could not be listed for longer than the threshold), 'offsets-not-listed' (never
   * listed), or the coverage status of the partition not covered ('no-sync', ...).
   */
  why: string | null;
  /** The largest re-read of its partitions (null: none covered). */
  reread: number | null;
  /** The partition the verdict comes from (the largest re-read when ready or at risk). */
  topic: string | null;
  partition: number | null;
  /** Partitions per verdict. */
  ready: number;
  atRisk: number;
  notCovered: number;
  membersOnTarget: MembersOnTarget;
  /** When its source offsets were last listed and translated (epoch ms): present on groups whose listing failed this cycle. */
  listedAt?: number | null;
  /** The flow runs in several Node-RED instances and shares its readiness (core/share-summaries): the instance covering the group (`host:pid`), null when no live one does. */
  coveredBy?: string | null;
}

type Entry = Pick<CoverageEntry, 'topic' | 'partition' | 'status'> & EntryReadiness;

const RANK: Record<ReadinessVerdict, number> = { ready: 0, 'at-risk': 1, 'not-covered': 2 };

/** A group's readiness from its coverage entries (the worst applicable partition decides). */
export function groupReadiness(group: string, entries: readonly Entry[]): GroupReadiness {
  return groupReadinessOf(group, entries, entries);
}

/**
 * groupReadiness over entries given as two lists of the same length: where (`coverage[i]`) and
 * the readiness (`readiness[i]`) of each (no object a partition joining the two).
 */
export function groupReadinessOf(group: string, coverage: ReadonlyArray<Pick<CoverageEntry, 'topic' | 'partition' | 'status'>>, readiness: readonly EntryReadiness[]): GroupReadiness {
  const g: GroupReadiness = { group, verdict: 'ready', why: null, reread: null, topic: null, partition: null, ready: 0, atRisk: 0, notCovered: 0, membersOnTarget: 'unknown' };
  let applicable = 0;
  for (let i = 0; i < coverage.length; i++) {
    const c = coverage[i];
    const e = readiness[i];
    if (e.verdict === 'ready') g.ready++;
    else if (e.verdict === 'at-risk') g.atRisk++;
    else g.notCovered++;
    if (NOT_APPLICABLE.has(c.status)) continue;
    applicable++;
    const worse = RANK[e.verdict] > RANK[g.verdict];
    const sameButMore = e.verdict === g.verdict && e.verdict !== 'not-covered' && e.reread !== null && (g.reread === null || e.reread > g.reread);
    if (worse || sameButMore || g.topic === null) {
      g.verdict = e.verdict;
      g.why = e.verdict === 'ready' ? null : e.verdict === 'at-risk' ? 'reread' : c.status;
      g.topic = c.topic;
      g.partition = c.partition;
      if (e.verdict !== 'not-covered') g.reread = e.reread;
    }
  }
  if (applicable === 0) {
    // nothing a failover resumes from (no replicated topic with a commit)
    g.verdict = 'not-covered';
    g.why = coverage.length > 0 ? coverage[0].status : 'no-committed-offset';
  }
  // shared by every cycle that reuses the group, and sent in messages: read only
  return Object.freeze(g);
}

/**
 * A group whose offsets could not be listed this cycle: its last readiness (`last`, null when it
 * was never translated) stands for `maxAgeMs` after its last listing (`listedAt`), then it is at risk.
 */
export function unlistedGroupReadiness(group: string, last: GroupReadiness | null, listedAt: number | null, now: number, th: ReadinessThresholds): GroupReadiness {
  if (last === null || listedAt === null) {
    return Object.freeze({ group, verdict: 'not-covered', why: 'offsets-not-listed', reread: null, topic: null, partition: null, ready: 0, atRisk: 0, notCovered: 0, membersOnTarget: 'unknown', listedAt });
  }
  const old = now - listedAt > th.maxAgeMs;
  if (!old || last.verdict === 'not-covered') return Object.freeze({ ...last, listedAt });
  return Object.freeze({ ...last, verdict: 'at-risk', why: 'age', listedAt });
}

/** Every group's readiness in a cycle, counted, and the worst group (what the status shows). */
export interface ReadinessSummary {
  thresholds: ReadinessThresholds;
  /** When the cycle listed the groups' offsets (epoch ms): a partition's `checkpointAt` is this long before it when its checkpoint has stood since. */
  listedAt: number | null;
  /** Groups per verdict. */
  ready: number;
  atRisk: number;
  notCovered: number;
  /** Groups with members on the target (membersOnTarget true), and groups for which that is unknown. */
  withMembersOnTarget: number;
  membersUnknown: number;
  /** In group order. */
  groups: GroupReadiness[];
  /** The worst group: not covered before at risk, then the largest re-read; null when every group is ready. */
  worst: GroupReadiness | null;
}

export function summarizeReadiness(groups: GroupReadiness[], th: ReadinessThresholds, listedAt: number | null = null): ReadinessSummary {
  const s: ReadinessSummary = { thresholds: th, listedAt, ready: 0, atRisk: 0, notCovered: 0, withMembersOnTarget: 0, membersUnknown: 0, groups, worst: null };
  // by index: no iterator result per group (10,000 every cycle)
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    if (g.membersOnTarget === true) s.withMembersOnTarget++;
    else if (g.membersOnTarget === 'unknown') s.membersUnknown++;
    if (g.verdict === 'ready') {
      s.ready++;
      continue;
    }
    if (g.verdict === 'at-risk') s.atRisk++;
    else s.notCovered++;
    const w = s.worst;
    if (w === null || RANK[g.verdict] > RANK[w.verdict] || (g.verdict === w.verdict && (g.reread ?? -1) > (w.reread ?? -1))) s.worst = g;
  }
  return s;
}
