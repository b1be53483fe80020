import type { Checkpoint } from './types';
import { partitionKey } from './partition-key';

/**
 * MM2's CheckpointStore plus the monotonicity rule of MirrorCheckpointTask.checkpointsForGroup (`isMoreRecent`):
 * the last checkpoint per (group, remote topic, partition), restored once from the
 * checkpoints topic at start and then kept in memory.
 */

/**
 * The monotonicity rule of MirrorCheckpointTask.checkpointsForGroup, checked in this order:
 * 1. no stored checkpoints at all for the group: emit;
 * 2. no stored checkpoint for this remote partition: emit;
 * 3. the group rewound upstream (`cp.upstream < last.upstream`): emit, even if downstream goes back;
 * 4. the downstream offset advanced: emit;
 * 5. otherwise (a repeat, or a smaller downstream without an upstream rewind): skip.
 */
export function isMoreRecent(last: Checkpoint | undefined, hasGroup: boolean, cp: Checkpoint): boolean {
  if (!hasGroup) return true;
  if (last === undefined) return true;
  if (cp.upstreamOffset < last.upstreamOffset) return true;
  return cp.downstreamOffset > last.downstreamOffset;
}

function copy(cp: Checkpoint): Checkpoint {
  // a literal of fixed shape, not a spread: V8 shares the frozen shape of a literal, while freezing
  // a spread copy made a hidden class of its own per checkpoint (100,000 of them at 10,000 groups)
  return Object.freeze({
    group: cp.group,
    topic: cp.topic,
    partition: cp.partition,
    upstreamOffset: cp.upstreamOffset,
    downstreamOffset: cp.downstreamOffset,
    metadata: cp.metadata,
  });
}

/** A group with more remote partitions than this finds one through a map (fewer: a scan of its list). */
const SCAN_AT_MOST = 24;

/**
 * One group's checkpoints (issue 24 step g, compact state): its list in first-seen order of the
 * remote partitions, handed out frozen by `get` and copied on the next write after that (no map
 * and no second array per group), and beside it when each one's offsets were listed (unboxed
 * doubles, -1: not known). A group with many partitions also has a map of their places.
 */
interface GroupRow {
  list: Checkpoint[];
  /** Whether `list` was handed out (frozen): the next write copies it. */
  shared: boolean;
  at: number[];
  /** partition key -> place in `list`; only above SCAN_AT_MOST partitions. */
  index: Map<string, number> | null;
}

function indexOf(row: GroupRow, topic: string, partition: number): number {
  if (row.index !== null) return row.index.get(partitionKey(topic, partition)) ?? -1;
  const list = row.list;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c.partition === partition && c.topic === topic) return i;
  }
  return -1;
}

export interface CheckpointStoreOptions {
  /** Which groups this store restores (MM2: the task's assigned groups). Default: every group. */
  acceptGroup?: (group: string) => boolean;
  /** Hears every checkpoint stored, with the one of its group and remote partition it replaced (restore and updates, in order). */
  onPut?: (previous: Checkpoint | undefined, stored: Checkpoint) => void;
}

export class CheckpointStore {
  private readonly acceptGroup: (group: string) => boolean;
  private readonly onPut: ((previous: Checkpoint | undefined, stored: Checkpoint) => void) | undefined;
  /** group -> its last checkpoint per remote partition; groups and partitions in first-seen order. */
  private readonly byGroup = new Map<string, GroupRow>();
  private state: 'loading' | 'loaded' | 'failed' = 'loading';

  constructor(options: CheckpointStoreOptions = {}) {
    this.acceptGroup = options.acceptGroup ?? (() => true);
    this.onPut = options.onPut;
  }

  /** Whether the start-up restore has finished, successfully or not (MM2 "initialized"). */
  get loaded(): boolean {
    return this.state !== 'loading';
  }

  /**
   * Whether the restore succeeded; undefined while loading. Success means the offset-sync store
   * may keep its history during its initial load (`keepHistoryOnLoad: true`).
   */
  get loadedOk(): boolean | undefined {
    return this.state === 'loading' ? undefined : this.state === 'loaded';
  }

  /**
   * Applies one decoded record of the checkpoints topic during the start-up restore, in log
   * order: the last record wins (not the largest value). Records of groups not accepted are
   * ignored. Malformed records are the caller's to skip (they never reach here).
   * `timestamp`: the record's timestamp (the time its source offsets were listed), when known.
   * Returns whether the record was kept.
   */
  loadRecord(checkpoint: Checkpoint, timestamp?: number): boolean {
    if (this.state !== 'loading') {
      throw new Error('CheckpointStore.loadRecord called after markLoaded: the store is read only once, at start');
    }
    if (!this.acceptGroup(checkpoint.group)) return false;
    this.put(checkpoint, timestamp);
    return true;
  }

  /**
   * Ends the start-up restore. `ok=false` (the read failed, e.g. not authorized) clears
   * everything restored so far, exactly as MM2 does; the store counts as loaded either way.
   */
  markLoaded(ok: boolean): void {
    if (!ok) this.byGroup.clear();
    this.state = ok ? 'loaded' : 'failed';
  }

  /** The monotonicity rule against this store's last checkpoint for the checkpoint's group and remote partition. */
  isMoreRecent(checkpoint: Checkpoint): boolean {
    const row = this.byGroup.get(checkpoint.group);
    if (row === undefined) return isMoreRecent(undefined, false, checkpoint);
    const i = indexOf(row, checkpoint.topic, checkpoint.partition);
    return isMoreRecent(i < 0 ? undefined : row.list[i], true, checkpoint);
  }

  /**
   * Merges new checkpoints of `group` into the map (each replaces the previous one of its
   * remote partition). An empty list changes nothing: unlike MM2 it does not create an empty
   * entry for the group, which is indistinguishable for {@link isMoreRecent}. `listedAt`: when the
   * source offsets they reflect were listed (epoch ms), when known.
   */
  update(group: string, checkpoints: readonly Checkpoint[], listedAt?: number): void {
    for (const cp of checkpoints) {
      if (cp.group !== group) {
        throw new Error(`CheckpointStore.update: checkpoint of group '${cp.group}' passed for group '${group}'`);
      }
    }
    for (const cp of checkpoints) this.put(cp, listedAt);
  }

  /** When the source offsets a stored checkpoint (one of {@link get}'s, still the latest of its partition) reflects were listed (epoch ms), or undefined when not known. */
  listedAtOf(checkpoint: Checkpoint): number | undefined {
    const row = this.byGroup.get(checkpoint.group);
    if (row === undefined) return undefined;
    const i = indexOf(row, checkpoint.topic, checkpoint.partition);
    if (i < 0 || row.list[i] !== checkpoint) return undefined;
    const at = row.at[i];
    return at < 0 ? undefined : at;
  }

  /**
   * The last checkpoint of every remote partition of `group`, or undefined when it has none:
   * the same (frozen) array until one of them changes, so callers may cache what they derive.
   */
  get(group: string): readonly Checkpoint[] | undefined {
    const row = this.byGroup.get(group);
    if (row === undefined) return undefined;
    if (!row.shared) {
      Object.freeze(row.list);
      row.shared = true;
    }
    return row.list;
  }

  /** The last checkpoint of one remote partition of `group`. */
  getPartition(group: string, topic: string, partition: number): Checkpoint | undefined {
    const row = this.byGroup.get(group);
    if (row === undefined) return undefined;
    const i = indexOf(row, topic, partition);
    return i < 0 ? undefined : row.list[i];
  }

  /** Whether the store has at least one checkpoint for `group`. */
  hasGroup(group: string): boolean {
    return this.byGroup.has(group);
  }

  /** Groups with at least one checkpoint, in first-seen order. */
  groups(): string[] {
    return [...this.byGroup.keys()];
  }

  private put(cp: Checkpoint, listedAt: number | undefined): void {
    let row = this.byGroup.get(cp.group);
    if (row === undefined) {
      row = { list: [], shared: false, at: [], index: null };
      this.byGroup.set(cp.group, row);
    }
    const stored = copy(cp);
    const at = listedAt !== undefined && Number.isFinite(listedAt) && listedAt >= 0 ? listedAt : -1;
    // the list handed out stays as it was: the next one is a copy
    if (row.shared) {
      row.list = row.list.slice();
      row.shared = false;
    }
    const i = indexOf(row, cp.topic, cp.partition);
    const previous = i < 0 ? undefined : row.list[i];
    if (i < 0) {
      row.list.push(stored);
      row.at.push(at);
      if (row.index !== null) row.index.set(partitionKey(cp.topic, cp.partition), row.list.length - 1);
      else if (row.list.length > SCAN_AT_MOST) row.index = new Map(row.list.map((c, j) => [partitionKey(c.topic, c.partition), j]));
    } else {
      row.list[i] = stored;
      row.at[i] = at;
    }
    this.onPut?.(previous, stored);
  }
}
