/**
 * The group-offset writer's contracts (engines/group-offset-syncer): what it reads target groups
 * with, what it needs from a cluster connection, and its options.
 */
import type { Admin, Kafka } from 'kafkajs';
import type { NameFilter } from '../core/filters';
import type { CommittedOffset } from '../core/types';
import type { ClusterSettings } from '../kafka/client';
import type { AdminCommitResult } from '../kafka/group-client';
import type { ListedGroupState } from '../core/listed-groups';
import type { GroupOffsetsCycle } from '../core/group-offsets-cycle';
import type { TargetOffsetsOptions } from '../core/target-offsets';
import { CheckpointStore } from '../core/checkpoint-store';

/** Partial runs in flight at once (each a few requests: an OffsetFetch, the commits). */
export const MAX_PARTIAL_RUNS = 8;
/** The skip of a group the broker refused a commit to as one with members, until a newer listing. */
export const REFUSED_REASON = 'the broker refused a commit to this group as one with members (UNKNOWN_MEMBER_ID) after the last listing of the target\'s groups; left to its consumers until a newer listing shows it without members';
/** How long the counts of the checkpoints read serve the runs' reports (ms). */
export const COUNT_EVERY_MS = 1000;
/** Groups a full run plans or decides between two turns of the event loop (the reconcile lane in slices: an event's run goes in between). */
export const SLICE_GROUPS = 500;
/** Decided groups a full run commits together (its decisions are held for a slice, not for every group at once). */
export const COMMIT_SLICE_GROUPS = 100;

/** How many groups and group partitions a checkpoint view holds (the runs' reports). */
export function countView(view: { eachGroup?(f: (group: string) => void): void; groups(): Iterable<string>; sizeOf?(group: string): number; get(group: string): readonly unknown[] | undefined }): { groups: number; partitions: number } {
  let groups = 0;
  let partitions = 0;
  const count = (g: string): void => {
    groups++;
    partitions += view.sizeOf?.(g) ?? view.get(g)?.length ?? 0;
  };
  if (view.eachGroup !== undefined) view.eachGroup(count);
  else for (const g of view.groups()) count(g);
  return { groups, partitions };
}

/** A store of the syncer's own (checkpoints from messages or from the checkpoints topic). */
export function ownStore(): CheckpointStore {
  const store = new CheckpointStore();
  store.markLoaded(true);
  return store;
}

/** What the syncer reads target groups with (GroupOffsetFetcher fits). */
export interface TargetGroupReader {
  /** `onBatch`, when the reader answers per request: the groups of each request as it answers (each also in the final `offsets`). */
  fetchMany(groups: readonly string[], onBatch?: (answered: ReadonlyMap<string, CommittedOffset[]>) => void): Promise<{ offsets: Map<string, CommittedOffset[]>; failed: Map<string, string> }>;
  /** As fetchMany, each request's answer handed over as it arrives, nothing kept by the reader (kafka/group-client GroupOffsetFetcher). */
  fetchEach?(groups: readonly string[], each: (answer: ReadonlyMap<string, CommittedOffset[]>) => void): Promise<{ failed: Map<string, string> }>;
  listGroupStates(): Promise<ReadonlyMap<string, ListedGroupState>>;
}

/**
 * Reads `groups` on the target for a run: `onBatch` is told each request's answer as it arrives
 * (a full run settles there what is up to date: `settled`); with a reader that hands answers over
 * (fetchEach) only the groups left to decide are kept, not a read's worth of offsets across the
 * read's awaits (promoted to V8's old space: 10,000 groups x 10 partitions at a full re-read).
 */
export async function readTargetGroups(reader: TargetGroupReader, groups: readonly string[], settled: ReadonlySet<string>, onBatch?: (answered: ReadonlyMap<string, CommittedOffset[]>) => void): Promise<{ offsets: Map<string, CommittedOffset[]>; failed: Map<string, string> }> {
  if (groups.length === 0) return { offsets: new Map(), failed: new Map() };
  if (typeof reader.fetchEach !== 'function') return reader.fetchMany(groups, onBatch);
  const offsets = new Map<string, CommittedOffset[]>();
  const { failed } = await reader.fetchEach(groups, (answer) => {
    onBatch?.(answer);
    answer.forEach((list, g) => {
      if (!settled.has(g)) offsets.set(g, list);
    });
  });
  return { offsets, failed };
}

/**
 * The groups of a run, sorted: `all` (a fresh array, compacted in place: no copy per filter) less
 * those `keep` refuses. An indexed loop: the run's own loops are in async functions, which V8 does
 * not optimize on the stack (no iterator results, no closures per group here).
 */
export function selectGroups(all: string[], keep: (group: string) => boolean): string[] {
  let n = 0;
  for (let i = 0; i < all.length; i++) {
    const g = all[i];
    if (keep(g)) all[n++] = g;
  }
  all.length = n;
  return all.sort();
}

/** The earliest of `dueAt` over the groups of `skipped` reported up to date (Infinity: none). */
export function earliestDue(skipped: readonly { group: string; code: string }[], dueAt: (group: string) => number): number {
  let earliest = Infinity;
  for (let i = 0; i < skipped.length; i++) {
    const s = skipped[i];
    if (s.code !== 'up-to-date') continue;
    const due = dueAt(s.group);
    if (due < earliest) earliest = due;
  }
  return earliest;
}

/** What the syncer needs from a cluster connection (ClusterConnection fits). */
export interface SyncerConnection {
  admin(): Promise<Admin>;
  /** With the client and settings, a refusal names the ACL and the principal (a topic the principal may not see, a group it may not read). */
  readonly kafka?: Kafka;
  readonly settings?: ClusterSettings;
  committer(): {
    commitMany(
      commits: ReadonlyArray<{ group: string; offsets: Array<{ topic: string; partition: number; offset: bigint; metadata?: string }> }>,
      opts?: { connections?: number; stop?: () => boolean },
    ): Promise<Map<string, AdminCommitResult>>;
    /** The coordinators of groups a run will commit in several commitMany calls, found at once (batched); optional. */
    findCoordinators?(groups: readonly string[]): Promise<void>;
  };
  offsetFetcher(): TargetGroupReader;
  reportOk(): void;
  /** Marks the connection failed (its users show it); optional. */
  reportError?(err: unknown): string;
}

export interface GroupOffsetSyncerOptions {
  connection: SyncerConnection;
  /** Which groups to write (MM2 `groups` / `groups.exclude`). */
  groupFilter: NameFilter;
  /** The groups' numbers, shared with the flow's other tables (the replication runtime's names); default: its own. */
  names?: TargetOffsetsOptions['names'];
  /** Least time between two writes of one group (ms); default DEFAULT_MIN_WRITE_INTERVAL_MS. */
  minWriteIntervalMs?: number;
  /**
   * Follow a deliberate rewind of a group on the source (a checkpoint whose upstream offset is
   * lower than the one before it): a memberless target group's offset is moved back to it, once.
   * Default false: MM2's behaviour, a target offset never moves backwards.
   */
  followRewinds?: boolean;
  /** Called with the result of a run the floor timer started (the caller reports it like any other). */
  onDeferredRun?: (run: Promise<GroupOffsetsCycle>) => void;
  /** A full run reads again a group up to date as remembered at the latest this long after its last read (ms; the groups spread over the period: core/spread-reads). Default FULL_TARGET_READ_EVERY_MS (60 s); benchmarks shorten it so that a short run covers several. */
  fullTargetReadEveryMs?: number;
  /**
   * The flow runs in several Node-RED instances (engines/replication-shares): only the groups this
   * instance owns are written, and nothing while its lease on the share does not hold. Absent: every group.
   */
  shares?: { owns(group: string): boolean; writable(): boolean; ownsEvery?(): boolean; readonly current?: unknown };
  now?: () => number;
}
