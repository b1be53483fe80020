import type { MembersOnTarget } from '../../core/readiness';
import { coverageEntriesOf } from '../../core/coverage-rows';
import type { GroupCoverage, GroupCoverageEntry } from '../../core/translation-cache';
import type { CycleResult } from '../../engines/checkpoint-emitter';
import type { CoverageJson, CoverageMessage } from './contracts';

/** What a coverage entry's reason adds when the group has members on the target. */
export const MEMBERS_ON_TARGET_REASON =
  'the group has members on the target: mm2-group-offsets does not write its offsets there, a failover resumes where its consumers on the target committed';

/**
 * A coverage entry as JSON, made when read (issue 24 step g: the cycle keeps compact rows, no
 * sentence and no JSON per group partition; the message builds its entries when a receiver reads
 * them, and nothing keeps them after the message).
 */
function coverageJsonOf(c: GroupCoverageEntry, members: MembersOnTarget, coveredBy: string | undefined): CoverageJson {
  // one literal of fixed shape per case: a property added afterwards goes to a property array of its own
  const group = c.group;
  const topic = c.topic;
  const partition = c.partition;
  const remoteTopic = c.remoteTopic;
  const upstreamOffset = c.upstreamOffset === null ? null : c.upstreamOffset.toString();
  const status = c.status;
  const reason = members === true ? `${c.reason}; ${MEMBERS_ON_TARGET_REASON}` : c.reason;
  const readiness = c.verdict;
  const reread = c.reread;
  const checkpointAt = c.checkpointAt;
  const down = c.downstreamOffset;
  let e: CoverageJson =
    down === undefined
      ? { group, topic, partition, remoteTopic, upstreamOffset, status, reason, readiness, reread, checkpointAt, membersOnTarget: members }
      : { group, topic, partition, remoteTopic, upstreamOffset, status, reason, readiness, reread, checkpointAt, membersOnTarget: members, downstreamOffset: down.toString() };
  const from = c.rewoundFrom;
  if (from !== undefined) e = { ...e, rewoundFrom: from.toString() };
  if (coveredBy !== undefined) e = { ...e, coveredBy };
  return Object.freeze(e);
}

/** A cycle's coverage: its compact rows per group (the emitter's), or its entries (a result made elsewhere). */
export type CycleCoverage = Pick<CycleResult, 'coverage'> & Partial<Pick<CycleResult, 'coverageRows'>>;

/** The entries of a cycle's coverage (views of its rows, made now). */
export function entriesOf(r: CycleCoverage): readonly GroupCoverageEntry[] {
  return r.coverageRows !== undefined ? coverageEntriesOf(r.coverageRows) : r.coverage;
}

/** Group partitions per status, and how many, without making an entry. */
export function statusCounts(r: CycleCoverage): { summary: Record<string, number>; partitions: number } {
  // the rows of a full cycle that found what the last one did are that cycle's very list (core/list-reuse): its counts again
  const rowsIn = r.coverageRows;
  const known = rowsIn === undefined ? undefined : countsOfRows.get(rowsIn);
  if (known !== undefined) return { summary: { ...known.summary }, partitions: known.partitions };
  const summary: Record<string, number> = {};
  let partitions = 0;
  const add = (s: string): void => {
    summary[s] = (summary[s] ?? 0) + 1;
  };
  const rows: readonly GroupCoverage[] | undefined = r.coverageRows;
  if (rows !== undefined) {
    for (const g of rows) {
      partitions += g.length;
      const u = g.uniformStatus;
      if (u !== null) summary[u] = (summary[u] ?? 0) + g.length;
      else for (let i = 0; i < g.length; i++) add(g.statusOf(i));
    }
  } else {
    for (const c of r.coverage) add(c.status);
    partitions = r.coverage.length;
  }
  if (rows !== undefined) countsOfRows.set(rows, { summary: { ...summary }, partitions });
  return { summary, partitions };
}

/** The counts of a list of coverage rows (lists are never changed once made). */
const countsOfRows = new WeakMap<readonly GroupCoverage[], { summary: Record<string, number>; partitions: number }>();

/** The entries of a CoverageMessage, in coverage order; `coveredBy`: the instance covering them, when the flow shares its readiness (engines/share-board). */
export function coverageEntries(coverage: readonly GroupCoverageEntry[], members: CycleResult['membersOnTarget'], coveredBy?: string): CoverageJson[] {
  const out = new Array<CoverageJson>(coverage.length);
  for (let i = 0; i < coverage.length; i++) {
    const c = coverage[i];
    out[i] = coverageJsonOf(c, members?.get(c.group) ?? 'unknown', coveredBy);
  }
  return Object.freeze(out) as CoverageJson[];
}

/**
 * `payload.entries` made on first read (a debug node, a function, the dashboard, JSON), then an
 * ordinary property: an output 2 wired to nothing, or read only for its counts, makes none of
 * the 100,000 entries of 10,000 groups x 10 partitions. Assigning it replaces it, as before.
 */
export function defineEntriesOnRead(payload: CoverageMessage['payload'], make: () => CoverageJson[]): void {
  const settle = (value: CoverageJson[]): CoverageJson[] => {
    Object.defineProperty(payload, 'entries', { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  Object.defineProperty(payload, 'entries', {
    get: () => settle(make()),
    set: (v: CoverageJson[]) => settle(v),
    enumerable: true,
    configurable: true,
  });
}

