import type { CoverageEntry, CoverageStatus } from './checkpoints-for-group';
import type { EntryReadiness, ReadinessVerdict } from './readiness';
import type { Checkpoint, OffsetSync } from './types';

/**
 * A group's coverage as the translation cache keeps it for many cycles (100,000 group partitions
 * at 10,000 groups x 10 partitions; issue 24 step g, compact state): per group a slice of rows in
 * a table of typed arrays shared by every group (`CoverageTable`), each row a reason code packed
 * with the readiness verdict and the values its sentence needs, as
 * values (the offsets exact in a BigInt64Array, the sync's and the last checkpoint's offsets
 * among them; the re-read bound and the checkpoint time in a Float64Array), no object of the
 * stores (a row holds no `Checkpoint` or `OffsetSync`: the stores' rows stay theirs), no sentence
 * and no JSON. An entry (`CoverageRow`: its sentence, its sync and last checkpoint as objects) is
 * made when read: when output 2, the dashboard or a switchover plan asks.
 *
 * The sentences are exactly checkpointsForGroup's (core/checkpoints-for-group; a unit test holds
 * the two together). A case without a code of its own here (a source partition whose remote
 * partition another one took, a translation below zero) keeps checkpointsForGroup's entry as is.
 */

/** How a row's sentence reads (the status, and which of its sentences). */
const enum Reason {
  NotReplicated = 0,
  NoCommit,
  CheckpointsLoading,
  SyncsLoading,
  NoSync,
  RewoundBelowSyncs,
  RewoundToStart,
  OlderThanOldest,
  UnchangedSame,
  UnchangedBehind,
  Emitted,
  EmittedAfterRewind,
  /** The entry of checkpointsForGroup itself, in `ref`. */
  Kept,
}

const STATUS: readonly CoverageStatus[] = [
  'topic-not-replicated',
  'no-committed-offset',
  'store-loading',
  'store-loading',
  'no-sync',
  'rewound-below-syncs',
  'rewound-to-start',
  'older-than-oldest-sync',
  'unchanged',
  'unchanged',
  'emitted',
  'emitted',
];

const VERDICTS: readonly ReadinessVerdict[] = ['ready', 'at-risk', 'not-covered'];
const VERDICT_BITS: Readonly<Record<ReadinessVerdict, number>> = { ready: 0, 'at-risk': 1, 'not-covered': 2 };

/** Per row in the BigInt64Array: upstream, downstream, the sync's upstream and downstream, the reference's (the last checkpoint's upstream and downstream; the offset rewound from). */
const BIGS = 6;
/** Per row in the Float64Array: the packed word (bits + 2^11 x topic pair + 2^22 x partition), the re-read bound, the checkpoint time (NaN: null). */
const NUMS = 3;
/** Bits: the reason code (0-15), the verdict << 4, and which values are there. */
const HAS_UP = 64;
const HAS_DOWN = 128;
const HAS_SYNC = 256;
const HAS_REF = 512;
const BITS = 1024; // 2^10
const PAIRS = 2097152; // 2^21 (topic, remote topic) pairs per table in the packed word
const PAIR_FACTOR = BITS;
const PART_FACTOR = BITS * PAIRS; // 2^31: partition < 2^22, so the word stays below 2^53 (exact)
const MAX_PARTITION = 4194304; // 2^22 (a row of a partition beyond: kept as checkpointsForGroup's entry)
/** Rows per chunk of the table (a group with more gets a chunk of its own). */
const CHUNK_ROWS = 4096;

/** A block of rows: BIGS int64 and NUMS doubles per row. */
class RowChunk {
  readonly big: BigInt64Array;
  readonly num: Float64Array;
  used = 0;
  constructor(readonly rows: number) {
    this.big = new BigInt64Array(rows * BIGS);
    this.num = new Float64Array(rows * NUMS);
  }
}

/**
 * Where the groups' rows live: chunks of typed arrays shared by every group of a translation
 * cache (a few typed arrays in all, not two per group), and the (topic, remote topic) pairs the
 * rows name by number. A group translated again gets new rows; a group's coverage never changes
 * (a cycle's list, a message's entries read later, read what was translated then). The rows of
 * replaced or dropped groups are reclaimed by `compact` (the current groups' rows copied to new
 * chunks, in place of their old ones) once they are more than the rows in use; an older coverage
 * still held somewhere keeps its old chunk until it goes.
 */
export class CoverageTable {
  private chunk: RowChunk | null = null;
  private live = 0;
  private waste = 0;
  readonly topics: string[] = [];
  readonly remotes: Array<string | null> = [];
  private readonly pairNo = new Map<string, Map<string | null, number>>();

  /** Room for `n` rows. */
  alloc(n: number): { chunk: RowChunk; start: number } {
    let c = this.chunk;
    if (c === null || c.used + n > c.rows) {
      c = new RowChunk(Math.max(n, CHUNK_ROWS));
      if (n < CHUNK_ROWS) this.chunk = c;
    }
    const start = c.used;
    c.used += n;
    this.live += n;
    return { chunk: c, start };
  }

  /** A group's `n` rows are no longer the current ones (replaced, or the group dropped). */
  released(n: number): void {
    this.live -= n;
    this.waste += n;
  }

  /** Rows in use, and rows no current group owns. */
  get rows(): { live: number; waste: number } {
    return { live: this.live, waste: this.waste };
  }

  /** Whether `compact` would reclaim more than it keeps. */
  get wasteful(): boolean {
    return this.waste > CHUNK_ROWS && this.waste > this.live;
  }

  /** Copies every current group's rows to new chunks (`current`: each group held, once). */
  compact(current: Iterable<GroupCoverage>): void {
    this.chunk = null;
    this.live = 0;
    this.waste = 0;
    for (const g of current) g.moveTo(this);
  }

  /** The number of a (topic, remote topic) pair, or -1 when the table holds too many. */
  pairFor(topic: string, remote: string | null): number {
    let m = this.pairNo.get(topic);
    if (m === undefined) this.pairNo.set(topic, (m = new Map()));
    let k = m.get(remote);
    if (k === undefined) {
      if (this.topics.length >= PAIRS) return -1;
      k = this.topics.length;
      this.topics.push(topic);
      this.remotes.push(remote);
      m.set(remote, k);
    }
    return k;
  }
}

/** The coverage of one group: its rows (in its table's chunks) in the order of checkpointsForGroup's entries. */
export class GroupCoverage implements Iterable<CoverageRow> {
  private chunk: RowChunk;
  private start: number;
  /** Rows kept as checkpointsForGroup's entries (the rare cases without a code), by row. */
  private kept: Map<number, CoverageEntry> | null = null;
  /** The last checkpoint's metadata when not '' (the rows with one), by row. */
  private metas: Map<number, string> | null = null;
  /** The status of every row when they all have the same (most groups), else null: counts without reading the rows. */
  uniformStatus: CoverageStatus | null = null;

  constructor(
    private readonly table: CoverageTable,
    readonly group: string,
    readonly length: number,
  ) {
    const { chunk, start } = table.alloc(length);
    this.chunk = chunk;
    this.start = start;
  }

  /** Copies the rows to a new place of the table (a compaction: the values stay). */
  moveTo(table: CoverageTable): void {
    const { chunk, start } = table.alloc(this.length);
    const from = this.chunk;
    chunk.big.set(from.big.subarray(this.start * BIGS, (this.start + this.length) * BIGS), start * BIGS);
    chunk.num.set(from.num.subarray(this.start * NUMS, (this.start + this.length) * NUMS), start * NUMS);
    this.chunk = chunk;
    this.start = start;
  }

  private get big(): BigInt64Array {
    return this.chunk.big;
  }

  private get num(): Float64Array {
    return this.chunk.num;
  }

  private word(i: number): number {
    return this.chunk.num[(this.start + i) * NUMS];
  }

  /** Reason code | verdict << 4 | flags. */
  bitsOf(i: number): number {
    return this.word(i) % BITS;
  }

  codeOf(i: number): number {
    return this.word(i) % 16;
  }

  partitionOf(i: number): number {
    return this.codeOf(i) === Reason.Kept ? (this.keptOf(i) as CoverageEntry).partition : Math.floor(this.word(i) / PART_FACTOR);
  }

  private pairOf(i: number): number {
    return Math.floor(this.word(i) / PAIR_FACTOR) % PAIRS;
  }

  topicOf(i: number): string {
    const c = this.codeOf(i);
    return c === Reason.Kept ? (this.keptOf(i) as CoverageEntry).topic : this.table.topics[this.pairOf(i)];
  }

  remoteTopicOf(i: number): string | null {
    const c = this.codeOf(i);
    return c === Reason.Kept ? (this.keptOf(i) as CoverageEntry).remoteTopic : this.table.remotes[this.pairOf(i)];
  }

  statusOf(i: number): CoverageStatus {
    const c = this.codeOf(i);
    return c === Reason.Kept ? (this.keptOf(i) as CoverageEntry).status : STATUS[c];
  }

  verdictOf(i: number): ReadinessVerdict {
    return VERDICTS[(this.bitsOf(i) >> 4) & 3];
  }

  rereadOf(i: number): number | null {
    const v = this.num[(this.start + i) * NUMS + 1];
    return Number.isNaN(v) ? null : v;
  }

  checkpointAtOf(i: number): number | null {
    const v = this.num[(this.start + i) * NUMS + 2];
    return Number.isNaN(v) ? null : v;
  }

  upstreamOf(i: number): bigint | null {
    const bits = this.bitsOf(i);
    if ((bits & 15) === Reason.Kept) return (this.keptOf(i) as CoverageEntry).upstreamOffset;
    return bits & HAS_UP ? this.big[(this.start + i) * BIGS] : null;
  }

  downstreamOf(i: number): bigint | undefined {
    const bits = this.bitsOf(i);
    if ((bits & 15) === Reason.Kept) return (this.keptOf(i) as CoverageEntry).downstreamOffset;
    return bits & HAS_DOWN ? this.big[(this.start + i) * BIGS + 1] : undefined;
  }

  /** The sync's upstream and downstream offsets (rows with a sync). */
  syncUpOf(i: number): bigint {
    return this.big[(this.start + i) * BIGS + 2];
  }

  syncDownOf(i: number): bigint {
    return this.big[(this.start + i) * BIGS + 3];
  }

  /** The sync's offsets (a new object: the store's stays its own). */
  syncOf(i: number): OffsetSync | undefined {
    if (this.codeOf(i) === Reason.Kept) return (this.keptOf(i) as CoverageEntry).sync;
    if (!(this.bitsOf(i) & HAS_SYNC)) return undefined;
    return { topic: this.topicOf(i), partition: this.partitionOf(i), upstreamOffset: this.big[(this.start + i) * BIGS + 2], downstreamOffset: this.big[(this.start + i) * BIGS + 3] };
  }

  /** The reference's upstream offset (the last checkpoint's; the offset rewound from). */
  refUpOf(i: number): bigint {
    return this.big[(this.start + i) * BIGS + 4];
  }

  /** The last checkpoint's downstream offset. */
  refDownOf(i: number): bigint {
    return this.big[(this.start + i) * BIGS + 5];
  }

  /** The last checkpoint of the partition ('unchanged', 'rewound-*'; a new object). */
  previousOf(i: number): Checkpoint | undefined {
    const c = this.codeOf(i);
    if (c === Reason.Kept) return (this.keptOf(i) as CoverageEntry).previous;
    if (!(c === Reason.UnchangedSame || c === Reason.UnchangedBehind || c === Reason.RewoundBelowSyncs || c === Reason.RewoundToStart)) return undefined;
    const metadata = this.metas?.get(i) ?? '';
    return { group: this.group, topic: this.remoteTopicOf(i) as string, partition: this.partitionOf(i), upstreamOffset: this.refUpOf(i), downstreamOffset: this.refDownOf(i), metadata };
  }

  /** 'emitted' after a rewind: the upstream offset of the checkpoint it rewound from. */
  rewoundFromOf(i: number): bigint | undefined {
    const c = this.codeOf(i);
    if (c === Reason.Kept) return (this.keptOf(i) as CoverageEntry).rewoundFrom;
    return c === Reason.EmittedAfterRewind ? this.refUpOf(i) : undefined;
  }

  /** One sentence for an operator (made now, never kept). */
  reasonOf(i: number): string {
    return this.codeOf(i) === Reason.Kept ? (this.keptOf(i) as CoverageEntry).reason : reasonOf(this, i);
  }

  keptOf(i: number): CoverageEntry | undefined {
    return this.kept?.get(i);
  }

  /** The entry of row `i` (a view, made now). */
  at(i: number): CoverageRow {
    return new CoverageRow(this, i);
  }

  /** Every entry (views, made now). */
  entries(): CoverageRow[] {
    const out = new Array<CoverageRow>(this.length);
    for (let i = 0; i < this.length; i++) out[i] = new CoverageRow(this, i);
    return out;
  }

  map<T>(f: (e: CoverageRow, i: number) => T): T[] {
    return this.entries().map(f);
  }

  some(f: (e: CoverageRow) => boolean): boolean {
    return this.entries().some(f);
  }

  every(f: (e: CoverageRow) => boolean): boolean {
    return this.entries().every(f);
  }

  *[Symbol.iterator](): Iterator<CoverageRow> {
    for (let i = 0; i < this.length; i++) yield new CoverageRow(this, i);
  }

  /** Writes row `i` from checkpointsForGroup's entry `c` and its readiness. */
  set(i: number, c: CoverageEntry, rd: EntryReadiness, checkpointsLoaded: boolean): void {
    let code = codeOf(c, checkpointsLoaded);
    let pair = 0;
    if (code !== Reason.Kept) {
      pair = this.table.pairFor(c.topic, c.remoteTopic);
      if (pair < 0 || !Number.isInteger(c.partition) || c.partition < 0 || c.partition >= MAX_PARTITION) code = Reason.Kept;
    }
    let bits = code | (VERDICT_BITS[rd.verdict] << 4);
    const b = (this.start + i) * BIGS;
    if (code === Reason.Kept) {
      (this.kept ??= new Map()).set(i, c);
      pair = 0;
    } else {
      if (c.upstreamOffset !== null) {
        bits |= HAS_UP;
        this.big[b] = c.upstreamOffset;
      }
      if (c.downstreamOffset !== undefined) {
        bits |= HAS_DOWN;
        this.big[b + 1] = c.downstreamOffset;
      }
      if (c.sync !== undefined) {
        bits |= HAS_SYNC;
        this.big[b + 2] = c.sync.upstreamOffset;
        this.big[b + 3] = c.sync.downstreamOffset;
      }
      if (code === Reason.EmittedAfterRewind) {
        bits |= HAS_REF;
        this.big[b + 4] = c.rewoundFrom as bigint;
      } else if (code === Reason.UnchangedSame || code === Reason.UnchangedBehind || code === Reason.RewoundBelowSyncs || code === Reason.RewoundToStart) {
        const p = c.previous as Checkpoint;
        bits |= HAS_REF;
        this.big[b + 4] = p.upstreamOffset;
        this.big[b + 5] = p.downstreamOffset;
        if (p.metadata !== '') (this.metas ??= new Map()).set(i, p.metadata);
      }
    }
    const n = (this.start + i) * NUMS;
    this.num[n] = bits + pair * PAIR_FACTOR + (code === Reason.Kept ? 0 : c.partition) * PART_FACTOR;
    this.num[n + 1] = rd.reread === null ? NaN : rd.reread;
    this.num[n + 2] = rd.checkpointAt === null ? NaN : rd.checkpointAt;
    // rows are written in order, once
    this.uniformStatus = i === 0 || this.uniformStatus === c.status ? c.status : null;
  }
}

/** One group partition of a group's coverage, with its readiness (what GroupCoverageEntry reads): a view of its row, made when read. */
export class CoverageRow {
  constructor(
    readonly rows: GroupCoverage,
    readonly i: number,
  ) {}

  get group(): string {
    return this.rows.group;
  }

  get topic(): string {
    return this.rows.topicOf(this.i);
  }

  get partition(): number {
    return this.rows.partitionOf(this.i);
  }

  get remoteTopic(): string | null {
    return this.rows.remoteTopicOf(this.i);
  }

  get upstreamOffset(): bigint | null {
    return this.rows.upstreamOf(this.i);
  }

  get downstreamOffset(): bigint | undefined {
    return this.rows.downstreamOf(this.i);
  }

  get sync(): OffsetSync | undefined {
    return this.rows.syncOf(this.i);
  }

  /** The reason code (the sentence it reads as). */
  get code(): number {
    return this.rows.codeOf(this.i);
  }

  get status(): CoverageStatus {
    return this.rows.statusOf(this.i);
  }

  get verdict(): ReadinessVerdict {
    return this.rows.verdictOf(this.i);
  }

  get reread(): number | null {
    return this.rows.rereadOf(this.i);
  }

  get checkpointAt(): number | null {
    return this.rows.checkpointAtOf(this.i);
  }

  /** The last checkpoint of the partition ('unchanged', 'rewound-*'). */
  get previous(): Checkpoint | undefined {
    return this.rows.previousOf(this.i);
  }

  /** 'emitted' after a rewind: the upstream offset of the checkpoint it rewound from. */
  get rewoundFrom(): bigint | undefined {
    return this.rows.rewoundFromOf(this.i);
  }

  /** One sentence for an operator (made now, never kept). */
  get reason(): string {
    return this.rows.reasonOf(this.i);
  }
}

function how(offset: bigint, syncUp: bigint, syncDown: bigint): string {
  return syncUp === offset
    ? `exactly the synced record ${syncUp}->${syncDown}`
    : `past the synced record ${syncUp}->${syncDown}, so it resumes right after it`;
}

function rewound(r: GroupCoverage, i: number): string {
  return (
    `the group was rewound from upstream ${r.refUpOf(i)} to ${r.upstreamOf(i)}, below the oldest retained offset sync (upstream ${r.syncUpOf(i)}), ` +
    `so it cannot be translated, and the last checkpoint (${r.refDownOf(i)}) would skip what it was rewound to re-read`
  );
}

/** checkpointsForGroup's sentence for row `i` (not a kept one). */
function reasonOf(r: GroupCoverage, i: number): string {
  const code = r.codeOf(i);
  const offset = r.upstreamOf(i) as bigint;
  const remote = r.remoteTopicOf(i);
  const partition = r.partitionOf(i);
  switch (code) {
    case Reason.NotReplicated:
      return 'topic is not replicated: the topic filter (topics / topics.exclude) rejects it';
    case Reason.NoCommit:
      return 'the group has no committed offset for this partition';
    case Reason.CheckpointsLoading:
      return 'the previous checkpoints are still being restored from the checkpoints topic; no checkpoint until that is done';
    case Reason.SyncsLoading:
      return 'the offset-sync history is still being read; no translation until it has been read to the end';
    case Reason.NoSync:
      return 'no offset sync for this partition yet: no record of it has been mirrored since the sync history began';
    case Reason.RewoundBelowSyncs:
      return `${rewound(r, i)}; the log start of ${remote}-${partition} on the target is not known yet, so nothing is checkpointed this time`;
    case Reason.RewoundToStart:
      return `${rewound(r, i)}: checkpoint ${offset} -> ${r.downstreamOf(i)}, the start of ${remote}-${partition} on the target, so a failover skips nothing`;
    case Reason.OlderThanOldest: {
      const u = r.syncUpOf(i);
      return `the group's offset ${offset} is older than the oldest retained offset sync (upstream ${u}); translating it could skip records, so it is checkpointed once the group reaches offset ${u}`;
    }
    case Reason.UnchangedSame:
      return `unchanged: downstream offset ${r.refDownOf(i)} was already checkpointed (upstream ${offset} is ${how(offset, r.syncUpOf(i), r.syncDownOf(i))})`;
    case Reason.UnchangedBehind:
      return (
        `the translation ${r.downstreamOf(i)} is behind the last checkpoint ${r.refDownOf(i)} ` +
        `and the group did not rewind, so the last checkpoint stands (checkpoints never move backwards)`
      );
    case Reason.Emitted:
      return `checkpoint ${offset} -> ${r.downstreamOf(i)}: the group is ${how(offset, r.syncUpOf(i), r.syncDownOf(i))}`;
    case Reason.EmittedAfterRewind:
      return `checkpoint ${offset} -> ${r.downstreamOf(i)} after a rewind of the group from upstream ${r.refUpOf(i)}: the group is ${how(offset, r.syncUpOf(i), r.syncDownOf(i))}`;
    default:
      return (r.keptOf(i) as CoverageEntry).reason;
  }
}

/** The code of checkpointsForGroup's entry `c` (`checkpointsLoaded`: the checkpoint store's state when it was made). */
function codeOf(c: CoverageEntry, checkpointsLoaded: boolean): Reason {
  const kept = Reason.Kept;
  const up = c.upstreamOffset;
  switch (c.status) {
    case 'topic-not-replicated':
      return Reason.NotReplicated;
    case 'no-committed-offset':
      return Reason.NoCommit;
    case 'store-loading':
      return checkpointsLoaded ? Reason.SyncsLoading : Reason.CheckpointsLoading;
    case 'no-sync':
      return Reason.NoSync;
    case 'rewound-below-syncs':
      return c.previous !== undefined && c.sync !== undefined && c.remoteTopic !== null ? Reason.RewoundBelowSyncs : kept;
    case 'rewound-to-start':
      return c.previous !== undefined && c.sync !== undefined && c.remoteTopic !== null && c.downstreamOffset !== undefined ? Reason.RewoundToStart : kept;
    case 'older-than-oldest-sync':
      // below the oldest sync; otherwise a translation below zero (its sentence names the value: kept)
      return c.sync !== undefined && up !== null && up < c.sync.upstreamOffset && c.downstreamOffset === undefined ? Reason.OlderThanOldest : kept;
    case 'unchanged':
      if (c.previous === undefined || c.sync === undefined || up === null || c.downstreamOffset === undefined) return kept;
      return c.previous.downstreamOffset === c.downstreamOffset ? Reason.UnchangedSame : Reason.UnchangedBehind;
    case 'emitted':
      if (c.sync === undefined || up === null || c.downstreamOffset === undefined) return kept;
      return c.rewoundFrom !== undefined ? Reason.EmittedAfterRewind : Reason.Emitted;
    default:
      return kept;
  }
}

/** The entries of groups' rows, in order (views, made now: what a cycle's `coverage` reads as). */
export function coverageEntriesOf(groups: readonly GroupCoverage[]): CoverageRow[] {
  let n = 0;
  for (const g of groups) n += g.length;
  const out = new Array<CoverageRow>(n);
  let k = 0;
  for (const g of groups) for (let i = 0; i < g.length; i++) out[k++] = new CoverageRow(g, i);
  return out;
}

/** The rows of checkpointsForGroup's entries `coverage` of `group`, with their readiness. */
export function groupCoverage(table: CoverageTable, group: string, coverage: readonly CoverageEntry[], readiness: readonly EntryReadiness[], checkpointsLoaded: boolean): GroupCoverage {
  const rows = new GroupCoverage(table, group, coverage.length);
  for (let i = 0; i < coverage.length; i++) rows.set(i, coverage[i], readiness[i], checkpointsLoaded);
  return rows;
}
