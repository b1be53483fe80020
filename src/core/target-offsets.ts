import {
  decideGroupOffsetSync,
  isWritableGroupState,
  noteRewind,
  type GroupOffsetSyncDecision,
  type GroupOffsetSyncInput,
  type OffsetToWrite,
  type RewindMark,
} from './group-offset-sync';
import { GroupNames } from './group-names';
import { GroupOffsetRows } from './group-offset-rows';
import { GroupTimes } from './group-times';
import { partitionKey } from './partition-key';
import { rereadDueAt } from './spread-reads';
import type { Checkpoint, CommittedOffset } from './types';

/**
 * The group-offset writer's memory of the TARGET cluster, and the rules that use it (MM2's
 * `sync.group.offsets`, see group-offset-sync.ts for the decision of one group):
 *
 * - the target's committed offsets of each group as last read or written (`known`), and when
 *   each group was last read (`readAt`) and last written (`lastWrite`);
 * - **up to date as known**: a group whose every checkpoint is at or behind what the target holds
 *   is not read again by a partial run, nor by a full run until its re-read falls due (at the
 *   latest FULL_TARGET_READ_EVERY_MS after its last read, spread over that period: core/spread-reads); a read finding every checkpoint exactly there needs no decision;
 * - **what to write** is decided against a fresh read (never backwards), following a deliberate
 *   rewind of the group on the source only with `followRewinds`, and each rewind **once**: the
 *   marks a decision was made with are dropped when it was written, skipped, or the group was
 *   found with members (never touched, also not later);
 * - **the floor**: a group written less than `floorMs` ago waits (the caller runs it when the
 *   floor ends; never dropped);
 * - a group not listed by the target's listing newer than what we last read or wrote of it holds
 *   no offsets now (deleted or expired): forgotten.
 *
 * Plain state, no I/O, no timers: the clock is passed in.
 */

/** A full run reads again a group that is up to date as known only when its last read is older than this (ms). */
export const FULL_TARGET_READ_EVERY_MS = 60000;
/** Default least time between two writes of one group (ms). */
export const DEFAULT_MIN_WRITE_INTERVAL_MS = 200;

/** The report of a group up to date as known: the same frozen object from run to run while its state stays. */
export interface UpToDateSkip {
  readonly group: string;
  readonly code: 'up-to-date';
  readonly state: string | undefined;
  readonly reason: string;
}

/** What a run does with a group before reading it. */
export type GroupPlan =
  /** Members on the target: neither read nor written (its rewinds are dropped: never followed later). */
  | 'active'
  /** Every checkpoint is at or behind the target's offsets as known: nothing to read or write. */
  | 'up-to-date'
  /** Listed without members, but the broker refused a commit to it as a group with members after that listing: neither read nor written until a newer listing. */
  | 'refused'
  /** Read the target's offsets, then decide. */
  | 'read';

export interface TargetOffsetsOptions {
  /** Least time between two writes of one group (ms); 0: no floor. Default DEFAULT_MIN_WRITE_INTERVAL_MS. */
  floorMs?: number;
  /** Move a target offset back to follow a deliberate rewind on the source, once (default false: MM2's never backwards). */
  followRewinds?: boolean;
  /** A full run reads again a group up to date as known at the latest this long after its last read (ms; spread: core/spread-reads). Default FULL_TARGET_READ_EVERY_MS. */
  fullReadEveryMs?: number;
  /** Told of each rewind mark acted on (followed, decided on, or dropped because the group is active), once, as it is dropped. */
  onRewindDone?: (group: string, mark: RewindMark) => void;
  /** The groups' numbers, shared with the flow's other tables (the replication runtime's); default: its own. */
  names?: GroupNames;
}

const UP_TO_DATE_REASON = 'every checkpointed partition is at this offset or further on the target (as last read or written)';

export class TargetOffsets {
  /** The groups' names, interned once for the tables below. */
  private readonly names: GroupNames;
  /** What the target holds, as we last read or wrote it: group -> topic partition -> offset (compact rows). */
  private readonly known: GroupOffsetRows;
  /** When each group's offsets were last read from the target, and when it was last written (for the floor; ms). */
  private readonly times: GroupTimes;
  /** Rewinds on the source not acted on yet: group -> partition key -> mark. */
  private readonly rewinds = new Map<string, Map<string, RewindMark>>();
  /** The up-to-date reports by group number (the name held while its report is), and how many. */
  private skips: (UpToDateSkip | undefined)[] = [];
  private skipCount = 0;
  /** When the broker last refused a commit to each group as one with members (ms): a listing older than that does not make it writable. */
  private readonly refusedAt = new Map<string, number>();
  /**
   * The groups found up to date as known, with the version of their checkpoints then (a number
   * that never repeats, CheckpointStore.versionOf): while neither the version nor what is known of
   * the group changed, a run finds it up to date again without making its checkpoints (issue 24:
   * a run over 10,000 groups up to date made 100,000 checkpoint objects each time). Dropped at
   * every change of what is known of the group. By group number (NaN: none; a Float64Array, not a
   * map by name): a version belongs to one group, so a number reused by another group never matches.
   */
  private upToDateAt = new Float64Array(0);
  /** The same for the groups found to hold exactly every checkpoint (`exactly`): a re-read that finds the target as known answers without the checkpoints. */
  private exactAt = new Float64Array(0);
  readonly floorMs: number;
  readonly followRewinds: boolean;
  readonly fullReadEveryMs: number;
  private readonly onRewindDone: ((group: string, mark: RewindMark) => void) | undefined;

  constructor(opts: TargetOffsetsOptions = {}) {
    this.names = opts.names ?? new GroupNames();
    this.known = new GroupOffsetRows(this.names);
    this.times = new GroupTimes(this.names);
    this.onRewindDone = opts.onRewindDone;
    this.floorMs = opts.floorMs ?? DEFAULT_MIN_WRITE_INTERVAL_MS;
    this.followRewinds = opts.followRewinds === true;
    this.fullReadEveryMs = opts.fullReadEveryMs ?? FULL_TARGET_READ_EVERY_MS;
  }

  /** How many group names the tables hold interned (a group is held while its offsets, a time or its report are). */
  get namesHeld(): number {
    return this.names.size;
  }

  // ---- rewinds on the source ------------------------------------------------------------------

  /** Checkpoint `next` replaced `previous` (undefined: none) for its group and partition: notes a rewind on the source (see noteRewind). */
  noteCheckpoint(previous: Checkpoint | undefined, next: Checkpoint): void {
    const k = partitionKey(next.topic, next.partition);
    const marks = this.rewinds.get(next.group);
    const pending = marks?.get(k);
    if (previous === undefined && pending !== undefined && next.upstreamOffset >= pending.fromUpstream) {
      // a mark adopted before its first checkpoint came (adoptRewind), and the group is already
      // where it was rewound from or further: nothing left to re-read
      marks!.delete(k);
      if (marks!.size === 0) this.rewinds.delete(next.group);
      this.onRewindDone?.(next.group, pending);
      return;
    }
    const mark = noteRewind(previous, next, pending);
    if (mark === undefined || mark === pending) return;
    if (marks === undefined) this.rewinds.set(next.group, new Map([[k, mark]]));
    else marks.set(k, mark);
  }

  /**
   * Takes a rewind mark found elsewhere (a replay of the checkpoints topic: core/rewind-history)
   * for `group`: merged with a pending mark of the same partition (the highest checkpoint rewound from wins).
   */
  adoptRewind(group: string, mark: RewindMark): void {
    const k = partitionKey(mark.topic, mark.partition);
    let marks = this.rewinds.get(group);
    const pending = marks?.get(k);
    if (pending !== undefined && pending.fromUpstream >= mark.fromUpstream && pending.fromDownstream >= mark.fromDownstream) return;
    const merged: RewindMark = pending === undefined ? mark : Object.freeze({
      topic: mark.topic,
      partition: mark.partition,
      fromUpstream: pending.fromUpstream > mark.fromUpstream ? pending.fromUpstream : mark.fromUpstream,
      fromDownstream: pending.fromDownstream > mark.fromDownstream ? pending.fromDownstream : mark.fromDownstream,
    });
    if (marks === undefined) {
      marks = new Map();
      this.rewinds.set(group, marks);
    }
    marks.set(k, merged);
  }

  /** Forgets every rewind mark (the checkpoints are replaced as a whole). */
  clearRewinds(): void {
    this.rewinds.clear();
  }

  /** The partitions of `group` with a rewind on the source not acted on yet. */
  pendingRewinds(group: string): RewindMark[] {
    return [...(this.rewinds.get(group)?.values() ?? [])];
  }

  /** The group's rewind marks now, as a copy to decide with (a mark noted meanwhile stays for the next run); undefined: none. */
  rewindsOf(group: string): Map<string, RewindMark> | undefined {
    const live = this.rewinds.get(group);
    return live === undefined ? undefined : new Map(live);
  }

  /** Drops the marks of `group` a decision was made with (`marks` as they were then): a mark noted since stays. */
  private dropRewinds(group: string, marks: ReadonlyMap<string, RewindMark> | undefined): void {
    const now = this.rewinds.get(group);
    if (marks === undefined || now === undefined) return;
    for (const [k, m] of marks) {
      if (now.get(k) !== m) continue;
      now.delete(k);
      this.onRewindDone?.(group, m);
    }
    if (now.size === 0) this.rewinds.delete(group);
  }

  // ---- the floor --------------------------------------------------------------------------------

  /**
   * The groups of a partial run that may be written at `now`, and those written less than the
   * floor ago (`waiting`), with the time the first of them may be written (`wakeAt`; Infinity: none waits).
   */
  floor(groups: readonly string[], now: number): { ready: string[]; waiting: string[]; wakeAt: number } {
    if (this.floorMs <= 0) return { ready: [...groups], waiting: [], wakeAt: Infinity };
    const ready: string[] = [];
    const waiting: string[] = [];
    let wakeAt = Infinity;
    for (const g of groups) {
      const last = this.times.lastWrite(g);
      if (last !== undefined && now - last < this.floorMs) {
        waiting.push(g);
        wakeAt = Math.min(wakeAt, last + this.floorMs);
      } else {
        ready.push(g);
      }
    }
    return { ready, waiting, wakeAt };
  }

  // ---- before the read ------------------------------------------------------------------------

  /**
   * What a run does with `group` before reading it, given its state in the target's listing made
   * at `listedAt` (`state` undefined: not listed) and its checkpoints. A full run (`full`) reads
   * again a group up to date as known once its re-read is due (rereadDueAt).
   */
  plan(group: string, state: string | undefined, listedAt: number, checkpoints: Iterable<Checkpoint> | (() => Iterable<Checkpoint>), full: boolean, now: number, version?: number): GroupPlan {
    // not listed by a listing newer than what we last read or wrote of it: it holds no offsets
    // now (deleted on the target, or expired), whatever we remember
    if (state === undefined && Math.max(this.times.lastWrite(group) ?? -Infinity, this.times.readAt(group) ?? -Infinity) < listedAt) this.unknown(group);
    const refusedAt = this.refusedAt.get(group);
    if (refusedAt !== undefined) {
      // the broker's refusal (the group has members) stands until a listing made after it
      if (refusedAt >= listedAt) {
        this.dropRewinds(group, this.rewinds.get(group));
        return 'refused';
      }
      this.refusedAt.delete(group);
    }
    if (!isWritableGroupState(state)) {
      this.unknown(group);
      // a group with members is never touched: a rewind on the source is not followed later either
      this.dropRewinds(group, this.rewinds.get(group));
      return 'active';
    }
    if ((!full || now < this.rereadDueAt(group)) && this.upToDate(group, checkpoints, version)) return 'up-to-date';
    return 'read';
  }

  /**
   * Whether every checkpoint of the group is at or behind what we know the target holds (nothing
   * to write, no need to read). `checkpoints` may be a function making them, called only when
   * needed: with `version`, the version of those checkpoints (CheckpointStore.versionOf), a group
   * found up to date at that version with nothing known of it changed since is up to date again
   * without them.
   */
  upToDate(group: string, checkpoints: Iterable<Checkpoint> | (() => Iterable<Checkpoint>), version?: number): boolean {
    if (!this.known.has(group) || this.rewinds.has(group)) return false;
    if (version !== undefined && this.upToDateVersion(group) === version) return true;
    // exactly there too (noted: the group's re-read finding the target as known needs no checkpoints, `exactly`)
    let exact: boolean | undefined;
    for (const c of typeof checkpoints === 'function' ? checkpoints() : checkpoints) {
      const t = this.known.get(group, c.topic, c.partition);
      if (t === undefined || t < c.downstreamOffset) {
        this.notUpToDate(group);
        return false;
      }
      exact = exact !== false && t === c.downstreamOffset;
    }
    if (version !== undefined) this.setUpToDate(group, version, exact === true);
    return true;
  }

  private upToDateVersion(group: string): number | undefined {
    const g = this.names.idOf(group);
    return g === undefined || g >= this.upToDateAt.length ? undefined : this.upToDateAt[g];
  }

  private notUpToDate(group: string): void {
    const g = this.names.idOf(group);
    if (g !== undefined && g < this.upToDateAt.length) this.upToDateAt[g] = this.exactAt[g] = NaN;
  }

  /** `group` (held: known) found up to date at `version` (and exactly there: `exact`). */
  private setUpToDate(group: string, version: number, exact = false): void {
    const g = this.names.idOf(group) as number;
    if (g >= this.upToDateAt.length) {
      const n = Math.max(16, g + 1, this.upToDateAt.length + (this.upToDateAt.length >> 1));
      const a = new Float64Array(n).fill(NaN);
      const e = new Float64Array(n).fill(NaN);
      a.set(this.upToDateAt);
      e.set(this.exactAt);
      this.upToDateAt = a;
      this.exactAt = e;
    }
    this.upToDateAt[g] = version;
    if (exact) this.exactAt[g] = version;
  }

  /**
   * Whether the target holds exactly every checkpoint of the group, as last read or written (what
   * decideGroupOffsetSync would call up to date in every partition). `checkpoints` may be a function
   * making them, called only when needed: with `version` (CheckpointStore.versionOf), a group found
   * exactly there at that version with nothing known of it changed since (a re-read finding the
   * target as known changes nothing: `read`) is exactly there again without them.
   */
  exactly(group: string, checkpoints: Iterable<Checkpoint> | (() => Iterable<Checkpoint>), version?: number): boolean {
    if (!this.known.has(group) || this.rewinds.has(group)) return false;
    if (version !== undefined) {
      const g = this.names.idOf(group);
      if (g !== undefined && g < this.exactAt.length && this.exactAt[g] === version) return true;
    }
    let any = false;
    for (const c of typeof checkpoints === 'function' ? checkpoints() : checkpoints) {
      any = true;
      if (this.known.get(group, c.topic, c.partition) !== c.downstreamOffset) return false;
    }
    if (any && version !== undefined) this.setUpToDate(group, version, true);
    return any;
  }

  /** The report of a group up to date as known (the same frozen object while its state stays). */
  upToDateSkip(group: string, state: string | undefined): UpToDateSkip {
    const held = this.names.idOf(group);
    const had = held === undefined ? undefined : this.skips[held];
    if (had !== undefined && had.state === state) return had;
    const e: UpToDateSkip = Object.freeze({ group, code: 'up-to-date', state, reason: UP_TO_DATE_REASON });
    let g = held as number;
    if (had === undefined) {
      g = this.names.acquire(group);
      this.skipCount++;
      while (this.skips.length <= g) this.skips.push(undefined);
    }
    this.skips[g] = e;
    return e;
  }

  /** When the group's offsets were last read on the target (undefined: not read since it was forgotten). */
  lastReadAt(group: string): number | undefined {
    return this.times.readAt(group);
  }

  /**
   * When a full run reads again `group` if found up to date as known (-Infinity: now, never read):
   * at the latest `fullReadEveryMs` after its last read, each group at its own phase of that
   * period so that the groups fall due spread over it, not all in one run (core/spread-reads).
   */
  rereadDueAt(group: string): number {
    return rereadDueAt(group, this.times.readAt(group), this.fullReadEveryMs);
  }

  // ---- what the target answered -----------------------------------------------------------------

  /** The target's committed offsets of `group` as read at `now` (an offset null: none committed). */
  read(group: string, offsets: Iterable<CommittedOffset>, now: number): void {
    this.times.setReadAt(group, now);
    // the target as known (the usual answer of a re-read): nothing known changed, what was found up to date stays so, no rows made
    if (this.holdsExactly(group, offsets)) return;
    const rows: { topic: string; partition: number; offset: bigint }[] = [];
    for (const o of offsets) if (o.offset !== null) rows.push({ topic: o.topic, partition: o.partition, offset: o.offset });
    // the last one listed of a partition wins (as a map keyed by partition did)
    this.known.replace(group, rows);
    this.notUpToDate(group);
  }

  /** Whether what is known of `group` is exactly `offsets` (each partition once, the same offsets, no other partition). */
  private holdsExactly(group: string, offsets: Iterable<CommittedOffset>): boolean {
    const held = this.known.rowsOf(group);
    if (held < 0) return false;
    let n = 0;
    for (const o of offsets) {
      if (o.offset === null) continue;
      n++;
      if (n > held || this.known.get(group, o.topic, o.partition) !== o.offset) return false;
    }
    return n === held;
  }

  /** What the target holds of `group` is not known (its read or its commit failed). */
  forget(group: string): void {
    this.unknown(group);
  }

  /** Nothing is known of what the target holds of `group`. */
  private unknown(group: string): void {
    this.known.delete(group);
    this.notUpToDate(group);
  }

  /** The target's offset of a group partition as last read or written (undefined: not known, or none committed). */
  offsetOf(group: string, topic: string, partition: number): bigint | undefined {
    return this.known.get(group, topic, partition);
  }

  /**
   * The decision for one group read just now (never backwards; a rewind followed only with
   * `followRewinds`), with `marks` its rewind marks as taken before the read of its log ends
   * (rewindsOf). A decision not to write acts on the marks: dropped (once).
   */
  decide(input: Omit<GroupOffsetSyncInput, 'rewinds' | 'followRewinds'>, marks: ReadonlyMap<string, RewindMark> | undefined): GroupOffsetSyncDecision {
    const d = decideGroupOffsetSync({ ...input, ...(marks !== undefined ? { rewinds: marks, followRewinds: this.followRewinds } : {}) });
    if (d.action !== 'write') this.dropRewinds(input.group, marks); // decided (not followed, or nothing lower to write): once
    return d;
  }

  /** `offsets` were committed to `group` at `now`, decided with `marks`: known, the floor starts, the marks are dropped (once). */
  written(group: string, offsets: readonly Pick<OffsetToWrite, 'topic' | 'partition' | 'offset'>[], marks: ReadonlyMap<string, RewindMark> | undefined, now: number): void {
    this.times.setLastWrite(group, now);
    this.known.setMany(group, offsets);
    this.notUpToDate(group);
    this.dropRewinds(group, marks);
  }

  /**
   * The commit of `group` was refused; `active`: the group has members now (UNKNOWN_MEMBER_ID),
   * never touched, its marks dropped, and not tried again (neither read nor written) until a
   * listing made after `now` shows it without members.
   */
  refused(group: string, active: boolean, marks: ReadonlyMap<string, RewindMark> | undefined, now = -Infinity): void {
    this.unknown(group);
    if (!active) return;
    this.dropRewinds(group, marks);
    if (now > (this.refusedAt.get(group) ?? -Infinity)) this.refusedAt.set(group, now);
  }

  /** Bounds the memory to a few times the groups held (`groups`): beyond, what is known is read again. */
  trim(groups: number): void {
    const limit = 4 * Math.max(1000, groups);
    if (this.known.size > limit) {
      this.known.clear();
      this.upToDateAt.fill(NaN);
      this.exactAt.fill(NaN);
      this.times.clearReadAt();
    }
    if (this.skipCount > limit) {
      for (let g = 0; g < this.skips.length; g++) if (this.skips[g] !== undefined) this.names.release(g);
      this.skips = [];
      this.skipCount = 0;
    }
    if (this.refusedAt.size > limit) this.refusedAt.clear();
  }
}
