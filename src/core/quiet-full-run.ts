/**
 * The group-offset writer's full reconcile driven by what changed (issue 24 item 5, the reconcile
 * lane): a full run judges every selected group; when its judgement was clean (every group up to
 * date or with members on the target, nothing written, deferred, refused or failed) and nothing it
 * judged from changed since, the next full run finds the same and gives that answer again without
 * a pass that allocates per group. What it judged from, compared item by item without allocating:
 *
 * - the selected groups, in order, and the version of each one's checkpoints (a version never
 *   repeats, also across stores);
 * - the listing of the target's groups (the fetcher's same map while nothing changed: each group's
 *   state there);
 * - the target offsets as last read or written, and the writer's rewinds and deferrals (`epoch`,
 *   which the writer bumps whenever a partial run, a checkpoint noted or a follow could change them);
 * - time: a group up to date as remembered is read again once its re-read falls due (at most the
 *   writer's full-read period after its last read, spread over that period: core/spread-reads),
 *   so the answer stands only until the earliest of those.
 *
 * sync.group.offsets.interval.seconds keeps its meaning: every group is judged at least that often,
 * a judgement from unchanged inputs being the one already made. Pure; the writer does the I/O.
 */
import type { SkippedGroup } from './group-offsets-cycle';

/** What a clean full run judged from, and what it answered. */
interface QuietRun {
  groups: readonly string[];
  versions: Float64Array;
  states: unknown;
  view: unknown;
  epoch: number;
  expiresAt: number;
  /** The run's own skip list (the one it reported), given again as it is: a run that gives the answer again reports the same array (no copy of 10,000 entries a second; its readers do not change it). */
  skipped: SkippedGroup[];
  /** The share it was judged under (shareMark). */
  share?: unknown;
}

/** The flow's shares as the writer sees them (engines/replication-shares). */
export interface WholeShare {
  ownsEvery?(): boolean;
  writable(): boolean;
  readonly current?: unknown;
}

const UNSHARED = { unshared: true };

/**
 * What a clean full run's answer is judged under, compared by identity when it is given again: the
 * flow unshared, or this instance owning every group and free to write (what a single Node-RED
 * always is: alone in its sharing group), its share as it stands (a new share is a new object);
 * null when the answer may be neither kept nor given (another instance owns some groups, or the
 * lease does not hold).
 */
export function shareMark(shares: WholeShare | undefined): unknown {
  if (shares === undefined) return UNSHARED;
  return shares.ownsEvery?.() === true && shares.writable() ? (shares.current ?? null) : null;
}

/** Where the selected groups are read from (the writer's checkpoint view). */
export interface QuietView {
  /** Calls `f` with each group, in order (no iterator result per group); absent: `groups()`. */
  eachGroup?(f: (group: string) => void): void;
  groups(): Iterable<string>;
  versionOf?(group: string): number | undefined;
}

/** The view's groups in a new list (by eachGroup when it has it: no iterator result per group). */
export function groupsOf(view: QuietView): string[] {
  if (view.eachGroup === undefined) return [...view.groups()];
  const out: string[] = [];
  view.eachGroup((g) => void out.push(g));
  return out;
}

export class QuietFullRuns {
  private last: QuietRun | null = null;

  /** Something changed that a recorded answer does not show (a failure, a setting): the next full run judges every group. */
  clear(): void {
    this.last = null;
  }

  /** Whether there is an answer to compare with. */
  get held(): boolean {
    return this.last !== null;
  }

  /**
   * A full run finished: `groups` (in order, with the versions judged at the time, NaN when
   * unknown) and its skip list. Recorded only when clean; `expiresAt` is when the oldest read of a
   * group found up to date is due again.
   */
  record(run: { groups: readonly string[]; versions: Float64Array; states: unknown; view: unknown; epoch: number; expiresAt: number; skipped: SkippedGroup[]; clean: boolean; share?: unknown }): void {
    this.last = run.clean ? { groups: run.groups, versions: run.versions, states: run.states, view: run.view, epoch: run.epoch, expiresAt: run.expiresAt, skipped: run.skipped, share: run.share } : null;
  }

  /** The recorded answer's skip list, when a full run now would find the same (null: judge every group). */
  same(view: QuietView, accept: (group: string) => boolean, states: unknown, epoch: number, now: number, share?: unknown): SkippedGroup[] | null {
    const q = this.last;
    if (q === null || q.states !== states || q.view !== view || q.epoch !== epoch || q.share !== share || now >= q.expiresAt || view.versionOf === undefined) return null;
    const versionOf = view.versionOf.bind(view);
    let i = 0;
    let ok = true;
    const visit = (g: string): void => {
      if (!ok) return;
      if (i < q.groups.length && q.groups[i] === g) {
        if (versionOf(g) !== q.versions[i]) ok = false;
        i++;
      } else if (accept(g)) ok = false; // a group selected now that was not then
    };
    if (view.eachGroup !== undefined) view.eachGroup(visit);
    else for (const g of view.groups()) visit(g);
    return ok && i === q.groups.length ? q.skipped : null;
  }
}

/** Whether a full run's outcome can be given again while nothing changes: every group up to date or with members (listed, not refused), nothing else. */
export function cleanFullRun(r: { written: readonly unknown[]; partitionsSkipped: readonly unknown[]; clamped: readonly unknown[]; rewound: readonly unknown[]; deferred: number; skipped: readonly SkippedGroup[] }, refusedReason: string): boolean {
  if (r.written.length > 0 || r.partitionsSkipped.length > 0 || r.clamped.length > 0 || r.rewound.length > 0 || r.deferred > 0) return false;
  // by index: no iterator result a group
  for (let i = 0; i < r.skipped.length; i++) {
    const s = r.skipped[i];
    if (s.state === undefined) return false;
    if (s.code === 'up-to-date') continue;
    if (s.code === 'group-active' && s.reason !== refusedReason) continue;
    return false;
  }
  return true;
}
