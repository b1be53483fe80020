import type { Checkpoint } from './types';
import { internName } from './partition-key';
import type { GroupNames } from './group-names';
import { PartitionNumbers, SliceTable } from './slice-table';

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

/**
 * The columns of the rows: remote partition (a number for the topic and partition; 16-bit, widened
 * to Int32 past 65,536 remote partitions), the upstream offset as its distance from the first one
 * kept on that remote partition (Int32; ESCAPED: the exact offset is in `far`), the downstream
 * offset as its distance below the upstream one (Int32; ESCAPED: the exact offset is in `far`), the
 * listing time as a number in `times` (16-bit, widened past 65,535 distinct times held; 0: not
 * known). 12 bytes a row where three 8-byte columns took 28.
 */
const PAIR = 0;
const UPSTREAM = 1;
const DOWNSTREAM = 2;
const LISTED_AT = 3;
const ESCAPED = -2147483648;
const INT32_MAX = 2147483647;
const wide = (n: number): Int32Array => new Int32Array(n);

/** The exact values of a row that do not fit their Int32 columns. */
interface Far {
  up?: bigint;
  down?: bigint;
}

/**
 * Listing times by number (0: not known), each held while a row carries it: few distinct ones (one
 * a listing of the source offsets), so a row keeps a 2-byte number instead of a 4-byte time; the
 * time exact whatever it is. Numbers of times no row carries are reused.
 */
class TimeNumbers {
  private times: number[] = [0];
  private counts: number[] = [0];
  private numbers = new Map<number, number>();
  private free: number[] = [];

  /** The number of time `t` (0: not known), held once more. */
  acquire(t: number | undefined): number {
    if (t === undefined || !Number.isFinite(t) || t < 0) return 0;
    let n = this.numbers.get(t);
    if (n === undefined) {
      n = this.free.pop() ?? this.times.length;
      this.times[n] = t;
      this.counts[n] = 0;
      this.numbers.set(t, n);
    }
    this.counts[n]++;
    return n;
  }

  /** A row carries number `n` no more. */
  release(n: number): void {
    if (n === 0 || --this.counts[n] > 0) return;
    this.numbers.delete(this.times[n]);
    this.free.push(n);
  }

  time(n: number): number | undefined {
    return n === 0 ? undefined : this.times[n];
  }

  clear(): void {
    this.times = [0];
    this.counts = [0];
    this.numbers = new Map();
    this.free = [];
  }
}

/** Versions of every store (one clock: a group's version never repeats, also across stores). */
let versionClock = 0;
/** Generations of every store (one clock: a generation names one store's rows between two forgets). */
let generationClock = 0;

function checkedInt64(offset: bigint, what: string): bigint {
  if (BigInt.asIntN(64, offset) !== offset) throw new RangeError(`${what} ${offset} is outside the signed 64-bit range`);
  return offset;
}

export interface CheckpointStoreOptions {
  /** Which groups this store restores (MM2: the task's assigned groups). Default: every group. */
  acceptGroup?: (group: string) => boolean;
  /** Hears every checkpoint stored, with the one of its group and remote partition it replaced (restore and updates, in order). */
  onPut?: (previous: Checkpoint | undefined, stored: Checkpoint) => void;
  /** The groups' numbers, shared with the flow's other tables (the replication runtime's); default: the store's own. */
  names?: GroupNames;
}

/**
 * The store's rows (issue 24 step g, compact state): a row per group and remote partition in typed
 * arrays (the remote topic interned as a number, the offsets exact in BigInt64Arrays, the listing
 * time a double), each group a slice in first-seen order of its remote partitions, the metadata
 * beside the slice only when one is not empty, and a version per group (a new number whenever one
 * of its checkpoints changes) for the readers' "did it change". `Checkpoint` objects are made when
 * a reader asks (`get`, `getPartition`), never kept.
 */
export class CheckpointStore {
  private readonly acceptGroup: (group: string) => boolean;
  private readonly onPut: ((previous: Checkpoint | undefined, stored: Checkpoint) => void) | undefined;
  /** group -> its last checkpoint per remote partition; groups and partitions in first-seen order. */
  private readonly rows: SliceTable;
  /** The values that do not fit their Int32 column, by group number and remote partition: rare. */
  private far = new Map<string, Far>();
  /** Per remote partition number: the upstream offsets' origin (the first one kept there). */
  private readonly bases: bigint[] = [];
  /** The listing times the rows carry, by number. */
  private readonly times = new TimeNumbers();
  private readonly pairs = new PartitionNumbers();
  /** Per group number: its version. */
  private versions: number[] = [];
  /** A new number whenever every row is forgotten (a row's address, group number and place, holds until then), never another store's. */
  private forgotten = ++generationClock;
  private state: 'loading' | 'loaded' | 'failed' = 'loading';

  constructor(options: CheckpointStoreOptions = {}) {
    this.acceptGroup = options.acceptGroup ?? (() => true);
    this.onPut = options.onPut;
    this.rows = new SliceTable([(n) => new Uint16Array(n), wide, wide, (n) => new Uint16Array(n)], options.names);
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
    if (!ok) this.forgetAll();
    this.state = ok ? 'loaded' : 'failed';
  }

  /** Forgets every checkpoint (their groups' numbers released: the interner may be shared): for a store read no more. */
  release(): void {
    this.forgetAll();
  }

  private forgetAll(): void {
    this.forgotten = ++generationClock;
    this.rows.clear();
    this.far = new Map();
    this.times.clear();
  }

  /** The monotonicity rule against this store's last checkpoint for the checkpoint's group and remote partition. */
  isMoreRecent(checkpoint: Checkpoint): boolean {
    const g = this.rows.find(checkpoint.group);
    if (g === undefined) return true;
    const i = this.place(g, checkpoint.topic, checkpoint.partition);
    if (i < 0) return true;
    const at = this.rows.base(g) + i;
    if (checkpoint.upstreamOffset < this.upstreamAt(g, at)) return true;
    return checkpoint.downstreamOffset > this.downstreamAt(g, at);
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

  /** When the source offsets a stored checkpoint (still the latest of its partition: the same offsets and metadata) reflects were listed (epoch ms), or undefined when not known. */
  listedAtOf(checkpoint: Checkpoint): number | undefined {
    const g = this.rows.find(checkpoint.group);
    if (g === undefined) return undefined;
    const i = this.place(g, checkpoint.topic, checkpoint.partition);
    if (i < 0) return undefined;
    const c = this.rows.cols;
    const at = this.rows.base(g) + i;
    if (this.upstreamAt(g, at) !== checkpoint.upstreamOffset || this.downstreamAt(g, at) !== checkpoint.downstreamOffset || this.metadataAt(g, i) !== checkpoint.metadata) return undefined;
    return this.times.time(c[LISTED_AT][at] as number);
  }

  /**
   * The last checkpoint of every remote partition of `group`, or undefined when it has none:
   * made at each call (frozen); {@link versionOf} says whether they changed.
   */
  get(group: string): readonly Checkpoint[] | undefined {
    const g = this.rows.find(group);
    if (g === undefined) return undefined;
    const out: Checkpoint[] = [];
    for (let i = 0, n = this.rows.rows(g); i < n; i++) out.push(this.rowAt(group, g, i));
    return Object.freeze(out);
  }

  /** A number that changes whenever one of the group's checkpoints changes; undefined: the group has none. */
  versionOf(group: string): number | undefined {
    const g = this.rows.find(group);
    return g === undefined ? undefined : this.versions[g];
  }

  /** How many remote partitions of `group` have a checkpoint. */
  sizeOf(group: string): number {
    const g = this.rows.find(group);
    return g === undefined ? 0 : this.rows.rows(g);
  }

  /** The last checkpoint of one remote partition of `group` (made now). */
  getPartition(group: string, topic: string, partition: number): Checkpoint | undefined {
    const g = this.rows.find(group);
    if (g === undefined) return undefined;
    const i = this.place(g, topic, partition);
    return i < 0 ? undefined : this.rowAt(group, g, i);
  }

  /** Whether the store has at least one checkpoint for `group`. */
  hasGroup(group: string): boolean {
    return this.rows.find(group) !== undefined;
  }

  /** Groups with at least one checkpoint, in first-seen order. */
  groups(): string[] {
    return this.rows.groupNames();
  }

  /**
   * Rows by address (the retry list, core/unsent-checkpoints): a checkpoint's row is (group number,
   * place in the group's rows), both stable while `generation` stays the same (rows are added,
   * never removed, until every one is forgotten); no two stores have the same generation.
   */
  get generation(): number {
    return this.forgotten;
  }

  /** The number of `group` in the rows, or -1 when it has none. */
  groupNumber(group: string): number {
    return this.rows.find(group) ?? -1;
  }

  /** The name of group number `g` (held). */
  groupName(g: number): string {
    return this.rows.nameOf(g);
  }

  /** The place of (topic, partition) among the rows of group number `g`, or -1. */
  placeOf(g: number, topic: string, partition: number): number {
    return this.place(g, topic, partition);
  }

  /** The checkpoint at row (g, i), with the time its source offsets were listed as its record timestamp (0: not known), made now. */
  writtenAt(g: number, i: number): Checkpoint & { timestamp: number } {
    const c = this.rows.cols;
    const at = this.rows.base(g) + i;
    const p = c[PAIR][at] as number;
    // every field in the literal (one shape for all of them)
    return {
      group: this.rows.nameOf(g),
      topic: this.pairs.topic(p),
      partition: this.pairs.partition(p),
      upstreamOffset: this.upstreamAt(g, at),
      downstreamOffset: this.downstreamAt(g, at),
      metadata: this.metadataAt(g, i),
      timestamp: this.times.time(c[LISTED_AT][at] as number) ?? 0,
    };
  }

  /** Whether row (g, i) holds exactly `c`: its offsets, metadata and listing time (the same record). */
  holdsAt(g: number, i: number, c: Checkpoint & { timestamp: number }): boolean {
    const at = this.rows.base(g) + i;
    return (
      this.upstreamAt(g, at) === c.upstreamOffset &&
      this.downstreamAt(g, at) === c.downstreamOffset &&
      this.metadataAt(g, i) === (c.metadata ?? '') &&
      (this.times.time(this.rows.cols[LISTED_AT][at] as number) ?? 0) === c.timestamp
    );
  }

  /** The upstream offset of the row at `at` (of group `g`). */
  private upstreamAt(g: number, at: number): bigint {
    const c = this.rows.cols;
    const d = c[UPSTREAM][at] as number;
    const p = c[PAIR][at] as number;
    if (d === ESCAPED) return this.far.get(`${g}:${p}`)?.up as bigint;
    return d === 0 ? this.bases[p] : this.bases[p] + BigInt(d);
  }

  /** The downstream offset of the row at `at` (of group `g`). */
  private downstreamAt(g: number, at: number): bigint {
    const c = this.rows.cols;
    const below = c[DOWNSTREAM][at] as number;
    // no bigint made beyond the upstream one when the two are equal (a mirror from an empty topic)
    if (below === 0) return this.upstreamAt(g, at);
    if (below !== ESCAPED) return this.upstreamAt(g, at) - BigInt(below);
    return this.far.get(`${g}:${c[PAIR][at]}`)?.down as bigint;
  }

  private metadataAt(g: number, i: number): string {
    const side = this.rows.sideOf(g);
    return side === null ? '' : ((side[i] as string | undefined) ?? '');
  }

  private rowAt(group: string, g: number, i: number): Checkpoint {
    const c = this.rows.cols;
    const at = this.rows.base(g) + i;
    // a literal of fixed shape: V8 shares the frozen shape of a literal
    return Object.freeze({
      group,
      topic: this.pairs.topic(c[PAIR][at] as number),
      partition: this.pairs.partition(c[PAIR][at] as number),
      upstreamOffset: this.upstreamAt(g, at),
      downstreamOffset: this.downstreamAt(g, at),
      metadata: this.metadataAt(g, i),
    });
  }

  /** The place of (topic, partition) in group `g`'s slice, or -1. */
  private place(g: number, topic: string, partition: number): number {
    const p = this.pairs.find(topic, partition);
    if (p < 0) return -1;
    const base = this.rows.base(g);
    const pairs = this.rows.cols[PAIR];
    for (let i = 0, n = this.rows.rows(g); i < n; i++) if (pairs[base + i] === p) return i;
    return -1;
  }

  private put(cp: Checkpoint, listedAt: number | undefined): void {
    checkedInt64(cp.upstreamOffset, 'upstream offset');
    checkedInt64(cp.downstreamOffset, 'downstream offset');
    const had = this.rows.size;
    const g = this.rows.groupOf(cp.group);
    const added = this.rows.size !== had;
    let i = added ? -1 : this.place(g, cp.topic, cp.partition);
    const existed = i >= 0;
    const previous = i < 0 || this.onPut === undefined ? undefined : this.rowAt(cp.group, g, i);
    if (i < 0) {
      i = this.rows.rows(g);
      this.rows.insert(g, i);
    }
    const c = this.rows.cols;
    const at = this.rows.base(g) + i;
    const p = this.pairs.of(internName(cp.topic), cp.partition);
    if (p > 0xffff && c[PAIR] instanceof Uint16Array) this.rows.widen(PAIR, wide);
    c[PAIR][at] = p;
    const key = `${g}:${p}`;
    let far: Far | undefined;
    let base = this.bases[p];
    if (base === undefined) this.bases[p] = base = cp.upstreamOffset;
    const up = cp.upstreamOffset - base;
    if (up > ESCAPED && up <= INT32_MAX) c[UPSTREAM][at] = Number(up);
    else {
      c[UPSTREAM][at] = ESCAPED;
      far = { up: cp.upstreamOffset };
    }
    const below = cp.upstreamOffset - cp.downstreamOffset;
    if (below >= -INT32_MAX && below <= INT32_MAX) c[DOWNSTREAM][at] = Number(below);
    else {
      c[DOWNSTREAM][at] = ESCAPED;
      far = { ...far, down: cp.downstreamOffset };
    }
    // the new time held before the old one is let go (the same time: its number stays)
    const t = this.times.acquire(listedAt);
    if (existed) this.times.release(c[LISTED_AT][at] as number);
    if (t > 0xffff && c[LISTED_AT] instanceof Uint16Array) this.rows.widen(LISTED_AT, wide);
    c[LISTED_AT][at] = t;
    if (far !== undefined) this.far.set(key, far);
    else if (this.far.size > 0) this.far.delete(key);
    const metadata = cp.metadata ?? '';
    if (metadata !== '') this.rows.ensureSide(g, '')[i] = metadata;
    else this.rows.sideOf(g)?.splice(i, 1, '');
    this.versions[g] = ++versionClock;
    if (this.onPut !== undefined) this.onPut(previous, this.rowAt(cp.group, g, i));
  }
}
