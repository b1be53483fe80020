/**
 * The reconcile lane's memory of the last full checkpoint cycle (issue 24 step f): which groups it
 * translated and in which order, so that the next full cycle visits only the groups something
 * changed for and takes the others' entries as they were (the translation cache's, the same
 * objects: the cycle's lists come out the same when nothing moved):
 *
 * - the groups whose committed offsets changed (the source-offset table says which);
 * - the groups the translation cache must translate again (an answer that emitted, a partial
 *   cycle that wrote for the group);
 * - per source partition whose offset syncs changed, the groups at or above the lowest position
 *   a change reached (the sync store's change logs, the source-offset table's position index);
 * - a slow sweep, the safety net: each cycle the next 1/SWEEP_CYCLES of the groups are checked
 *   in full (the translation cache's own test).
 *
 * Everything is visited (and the memory made again) when the groups, the stores, their loading
 * state, the target's group listing or the thresholds differ from the last cycle's, or a change
 * reached every position of a partition (a reset, an upstream rewind, the first sync).
 */
import type { OffsetSyncStore } from './offset-sync-store';
import type { SyncChangeLog } from './sync-change-log';
import { indexInSorted, strictlySorted } from './sorted-names';

/** A group nothing changed for is checked in full once in this many full cycles (once a minute at 1 s). */
export const SWEEP_CYCLES = 60;

export interface ReconcileChanges {
  /** Groups whose committed offsets changed since the last full cycle. */
  offsetsChanged: Iterable<string>;
  /** Groups the translation cache must translate again. */
  stale: Iterable<string>;
  /** The groups whose committed offset on a source partition is at or above `offset`. */
  groupsAtOrAbove(topic: string, partition: number, offset: bigint): readonly string[];
}

export class ReconcileLayout {
  private groups: readonly string[] | null = null;
  /** The groups' indexes, for groups not strictly sorted (sorted: by binary search in `order`, no Map of 10,000 names). */
  private readonly index = new Map<string, number>();
  /** The groups of the layout when strictly sorted (what a cycle's selection is). */
  private order: readonly string[] | null = null;
  /** What the last full cycle depended on besides the groups (compared item by item). */
  private key: readonly unknown[] = [];
  /** Per change log: the generation the last full cycle's plan saw. */
  private gens = new Map<SyncChangeLog, number>();
  /** This cycle's plan's generations (recorded with the cycle). */
  private nextGens = new Map<SyncChangeLog, number>();
  private sweepAt = 0;
  /** When the last full cycle's offsets were listed (every group of it was listed then). */
  listedAt: number | undefined;

  /** The groups of the last full cycle (null: none yet, or forgotten). */
  get lastGroups(): readonly string[] | null {
    return this.groups;
  }

  /**
   * Which of `groups` this cycle visits: a mark per group (1: translate it), or null: every group
   * (the layout is made again by `begin`).
   */
  plan(groups: readonly string[], key: readonly unknown[], store: OffsetSyncStore, changes: ReconcileChanges): Uint8Array | null {
    this.nextGens = new Map();
    for (const [, , log] of store.changeLogs()) this.nextGens.set(log, log.gen);
    const last = this.groups;
    if (last === null || last.length !== groups.length || key.length !== this.key.length) return null;
    for (let i = 0; i < key.length; i++) if (key[i] !== this.key[i]) return null;
    for (let i = 0; i < groups.length; i++) if (groups[i] !== last[i]) return null;
    const n = groups.length;
    const marks = new Uint8Array(n);
    const mark = (g: string): void => {
      const i = this.order !== null ? indexInSorted(this.order, g) : (this.index.get(g) ?? -1);
      if (i >= 0) marks[i] = 1;
    };
    for (const g of changes.offsetsChanged) mark(g);
    for (const g of changes.stale) mark(g);
    for (const [topic, partition, log] of store.changeLogs()) {
      const seen = this.gens.get(log);
      if (seen === undefined) {
        if (log.gen === 0) continue; // a partition without syncs yet: nothing changed
        return null; // its first syncs: every position
      }
      const floor = log.since(seen);
      if (floor === undefined) continue;
      if (floor === null) return null;
      for (const g of changes.groupsAtOrAbove(topic, partition, floor)) mark(g);
    }
    // the safety net: the next slice of the groups, checked in full
    const k = Math.ceil(n / SWEEP_CYCLES);
    for (let j = 0; j < k && n > 0; j++) marks[(this.sweepAt + j) % n] = 1;
    this.sweepAt = n === 0 ? 0 : (this.sweepAt + k) % n;
    return marks;
  }

  /** A cycle that visits every group: the memory is made again as it goes. */
  begin(groups: readonly string[], key: readonly unknown[]): void {
    this.groups = null;
    this.index.clear();
    this.order = strictlySorted(groups) ? groups : null;
    if (this.order === null) for (let i = 0; i < groups.length; i++) this.index.set(groups[i], i);
    this.key = key;
  }

  /** The cycle went through every group: it is the one the next cycle compares with. */
  done(groups: readonly string[], key: readonly unknown[], listedAt: number | undefined): void {
    this.groups = groups;
    this.key = key;
    this.gens = this.nextGens;
    this.listedAt = listedAt;
  }

  /** Forgets the last cycle (a cycle that stopped half way: the next visits every group). */
  forget(): void {
    this.groups = null;
  }
}
