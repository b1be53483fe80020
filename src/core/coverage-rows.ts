import { entryReason, type CoverageEntry, type CoverageStatus } from './checkpoints-for-group';
import type { EntryReadiness, ReadinessVerdict } from './readiness';
import type { Checkpoint, OffsetSync } from './types';
import { CHUNK_BYTES, ROW_BYTES_MAX, RowChunk, type CoverageTable } from './coverage-table';
import { LIMIT, num, Reader, Writer } from './varints';
import { CoverageRow } from './coverage-row';
import { codeOf, reasonOf, Reason } from './coverage-reasons';

export { CoverageTable } from './coverage-table';
export { CoverageRow };

/**
 * A group's coverage as the translation cache keeps it for many cycles (issue 24 step g): a run of
 * bytes in chunks shared by every group (`CoverageTable`), each row a header (reason code, verdict,
 * which values follow) and the values its sentence needs as variable-length integers, each the
 * difference from one it is usually close to: about 10 bytes a row. No object of the stores, no
 * sentence, no JSON: an entry (`CoverageRow`) is made when read (output 2, the dashboard, a
 * switchover plan; the group read last stays decoded). The sentences are exactly checkpointsForGroup's
 * (a unit test holds the two together); a case without a code of its own here (a source partition
 * whose remote partition another one took, a translation below zero, an offset of 2^50 or more)
 * keeps checkpointsForGroup's entry as is.
 */

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

/**
 * Bits of an unusual row's header: the reason code (0-15), the verdict << 4, HAS_AT, EXPLICIT and the flags.
 * The usual row's header is one byte below 126, ((code * 3 + verdict) * 3 + at) (`compactHeader`):
 * which values follow is its code's IMPLIED, a re-read bound unless not covered, an 'unchanged' or
 * 'emitted' row's downstream offset is its sync's, + 1 when past it; `at` 0: no checkpoint time,
 * 1: the row before's (none before: the table's base), 2: its difference follows; code SAME_REF: an
 * 'unchanged' row at the offset of its last checkpoint (no reference's offset follows).
 */
const HAS_AT = 64;
const EXPLICIT = 128;
const HAS_UP = 256;
const HAS_DOWN = 512;
const HAS_SYNC = 1024;
const HAS_REF = 2048;
const HAS_REREAD = 4096;
const FLAGS = HAS_UP | HAS_DOWN | HAS_SYNC | HAS_REF;
/** A usual header's code for Reason.UnchangedSame at the offset of the last checkpoint. */
const SAME_REF = 13;
/** The header of a row kept as checkpointsForGroup's entry (no usual header reaches it). */
const KEPT_HEADER = 127;
const compactHeader = (code: number, verdict: number, at: number): number => (code * 3 + verdict) * 3 + at;
/** By code: the values its row usually has. */
const IMPLIED: readonly number[] = [HAS_UP, 0, HAS_UP, HAS_UP, HAS_UP, HAS_UP | HAS_SYNC | HAS_REF, FLAGS, HAS_UP | HAS_SYNC, FLAGS, FLAGS, HAS_UP | HAS_DOWN | HAS_SYNC, FLAGS];
/** A group's rare extras, by row: rows kept as checkpointsForGroup's entries with their readiness (no code of their own), last checkpoints' metadata when not ''. */
interface Extra {
  kept: Map<number, CoverageEntry & EntryReadiness> | null;
  metas: Map<number, string> | null;
}

/** The uniform statuses seen (GroupCoverage.info: 1 + the index, at most 15: fewer statuses exist). */
const UNIFORM: CoverageStatus[] = [];

/** 0 for none (or past 15: then counted by reading the rows), else 1 + the index of `s` in UNIFORM. */
function uniformCode(s: CoverageStatus | null): number {
  const k = s === null ? -1 : UNIFORM.indexOf(s);
  return k >= 0 ? k + 1 : s === null || UNIFORM.length >= 15 ? 0 : UNIFORM.push(s);
}

/** A group's rows, decoded (one group at a time: `decoded`). */
interface Decoded {
  owner: GroupCoverage | null;
  bits: number[];
  pair: number[];
  part: number[];
  up: number[];
  down: number[];
  syncUp: number[];
  syncDown: number[];
  refUp: number[];
  refDown: number[];
  reread: number[];
  at: number[];
}

/** A table's last group decoded (CoverageTable.decoded, not a module's: it keeps no other flow's rows alive): reading a group's entries decodes its rows once, not once per value. */
const decodedOf = (t: CoverageTable): Decoded => (t.decoded ??= { owner: null, bits: [], pair: [], part: [], up: [], down: [], syncUp: [], syncDown: [], refUp: [], refDown: [], reread: [], at: [] }) as Decoded;

/** The coverage of one group: its rows (in its table's chunks) in the order of checkpointsForGroup's entries. */
export abstract class GroupCoverage implements Iterable<CoverageRow> {
  private chunk: RowChunk;
  private start: number;
  /** Bytes its rows take * 16 + the uniform status (0: none, else 1 + its index in UNIFORM): one number, not two fields a group (issue 24). */
  private info = 0;
  /** While writing: the checkpoint time of the row before (rows with one). */
  private static lastAtOf = 0;
  /** While writing: the (topic, remote topic) pair and the partition of the row before (a row of the next partition of the same topics says so in one byte). */
  private static lastPair = -1;
  private static lastPart = -2;

  /** The group (the subclass's: its readiness summary names it, no field of its own). */
  abstract readonly group: string;

  constructor(
    table: CoverageTable,
    readonly length: number,
  ) {
    this.chunk = table.room(0);
    this.start = this.chunk.used;
  }

  /** Its table (its chunk's: no field a group). */
  private get table(): CoverageTable {
    return this.chunk.table;
  }

  /** The rare extras (none for most groups: in the table's weak map, not a field a group). */
  private get extra(): Extra | undefined {
    return this.table.extras.get(this) as Extra | undefined;
  }

  private extraToWrite(): Extra {
    let x = this.extra;
    if (x === undefined) this.table.extras.set(this, (x = { kept: null, metas: null }));
    return x;
  }

  /** Bytes its rows take. */
  get byteLength(): number {
    return Math.floor(this.info / 16);
  }

  /** The status of every row when they all have the same (most groups), else null: counts without reading the rows. */
  get uniformStatus(): CoverageStatus | null {
    const u = this.info % 16;
    return u === 0 ? null : UNIFORM[u - 1];
  }

  private get kept(): Extra['kept'] {
    return this.extra?.kept ?? null;
  }
  private get metas(): Extra['metas'] {
    return this.extra?.metas ?? null;
  }

  /** Copies the rows to a new place of the table (a compaction: the values stay). */
  moveTo(table: CoverageTable): void {
    const bytes = this.byteLength;
    const chunk = table.room(bytes);
    const start = chunk.used;
    const from = this.chunk.bytes;
    const to = chunk.bytes;
    for (let k = 0; k < bytes; k++) to[start + k] = from[this.start + k];
    table.commit(chunk, this.length, bytes);
    this.chunk = chunk;
    this.start = start;
  }

  /** Writes the rows: checkpointsForGroup's entries and their readiness, in order (once). */
  write(coverage: readonly CoverageEntry[], readiness: readonly EntryReadiness[], checkpointsLoaded: boolean): void {
    const n = coverage.length;
    const chunk = this.table.room(n * ROW_BYTES_MAX);
    const w = new Writer(chunk.bytes, chunk.used);
    GroupCoverage.lastAtOf = NaN;
    GroupCoverage.lastPair = -1;
    GroupCoverage.lastPart = -2;
    let uniform: CoverageStatus | null = null;
    for (let i = 0; i < n; i++) {
      const c = coverage[i];
      uniform = i === 0 || uniform === c.status ? c.status : null;
      if (!this.writeRow(w, i, c, readiness[i], checkpointsLoaded)) {
        const rd = readiness[i];
        const x = this.extraToWrite();
        // its sentence now when the entry came without one (checkpointsForGroup's `reasons: false`)
        (x.kept ??= new Map()).set(i, { ...c, reason: c.reason === '' ? entryReason(c, checkpointsLoaded) : c.reason, verdict: rd.verdict, reread: rd.reread, checkpointAt: rd.checkpointAt });
        w.u(KEPT_HEADER);
      }
    }
    const bytes = w.at - chunk.used;
    this.info = bytes * 16 + uniformCode(uniform);
    this.table.commit(chunk, n, bytes);
    this.chunk = chunk;
    this.start = chunk.used - bytes;
    // a chunk of its own (a group of thousands of partitions): no more than the rows take
    if (chunk.size > CHUNK_BYTES) {
      this.chunk = new RowChunk(bytes, this.table);
      this.chunk.bytes.set(chunk.bytes.subarray(this.start, this.start + bytes));
      this.chunk.used = bytes;
      this.start = 0;
    }
  }

  /** Row `i` from entry `c`, or false when it has no code of its own (nothing written then). */
  private writeRow(w: Writer, i: number, c: CoverageEntry, rd: EntryReadiness, checkpointsLoaded: boolean): boolean {
    const code = codeOf(c, checkpointsLoaded);
    if (code === Reason.Kept || !Number.isSafeInteger(c.partition) || c.partition < 0) return false;
    let bits = code | (VERDICT_BITS[rd.verdict] << 4);
    const up = c.upstreamOffset === null ? 0 : num(c.upstreamOffset);
    const down = c.downstreamOffset === undefined ? 0 : num(c.downstreamOffset);
    const su = c.sync === undefined ? 0 : num(c.sync.upstreamOffset);
    const sd = c.sync === undefined ? 0 : num(c.sync.downstreamOffset);
    let ru = 0;
    let rdn = 0;
    if (code === Reason.EmittedAfterRewind) {
      bits |= HAS_REF;
      ru = num(c.rewoundFrom as bigint);
    } else if (code === Reason.UnchangedSame || code === Reason.UnchangedBehind || code === Reason.RewoundBelowSyncs || code === Reason.RewoundToStart) {
      const p = c.previous as Checkpoint;
      bits |= HAS_REF;
      ru = num(p.upstreamOffset);
      rdn = num(p.downstreamOffset);
    }
    if (c.upstreamOffset !== null) bits |= HAS_UP;
    if (c.downstreamOffset !== undefined) bits |= HAS_DOWN;
    if (c.sync !== undefined) bits |= HAS_SYNC;
    if (rd.reread !== null) bits |= HAS_REREAD;
    if (rd.checkpointAt !== null) bits |= HAS_AT;
    const reread = rd.reread ?? 0;
    const at = rd.checkpointAt ?? 0;
    // every value exact as a double, each difference below 2^53 (NaN fails these too)
    if (!(Math.abs(up) < LIMIT && Math.abs(down) < LIMIT && Math.abs(su) < LIMIT && Math.abs(sd) < LIMIT && Math.abs(ru) < LIMIT && Math.abs(rdn) < LIMIT)) return false;
    if (!(Number.isSafeInteger(reread) && reread >= 0 && Number.isSafeInteger(at) && Math.abs(at) < LIMIT)) return false;
    // codes UnchangedSame and after: the translation of the sync (checkpointsForGroup's), unless said otherwise
    const derived = code >= Reason.UnchangedSame && down === (up === su ? sd : sd + 1);
    const compact = (bits & FLAGS) === IMPLIED[code] && (rd.reread !== null) === (rd.verdict !== 'not-covered') && (code < Reason.UnchangedSame || derived);
    let atDiff = 0;
    if (bits & HAS_AT) {
      // a group's first: from the table's base (set once), the next ones from the row before
      if (Number.isNaN(GroupCoverage.lastAtOf)) GroupCoverage.lastAtOf = this.table.atBase ??= at;
      atDiff = at - GroupCoverage.lastAtOf;
      GroupCoverage.lastAtOf = at;
    }
    // 'unchanged' at the offset of its last checkpoint (the usual steady row): no reference's offset follows
    const sameRef = compact && code === Reason.UnchangedSame && ru === up;
    if (compact) w.u(compactHeader(sameRef ? SAME_REF : code, VERDICT_BITS[rd.verdict], !(bits & HAS_AT) ? 0 : atDiff === 0 ? 1 : 2));
    else w.u(bits | EXPLICIT);
    // the next partition of the row before's topics: 0; else 1 + the pair, then the partition
    const pair = this.table.pairFor(c.topic, c.remoteTopic);
    if (pair === GroupCoverage.lastPair && c.partition === GroupCoverage.lastPart + 1) w.u(0);
    else {
      w.u(pair + 1);
      w.u(c.partition);
    }
    GroupCoverage.lastPair = pair;
    GroupCoverage.lastPart = c.partition;
    if (bits & HAS_UP) w.s(up);
    if (bits & HAS_SYNC) {
      w.s(sd);
      w.s(up - su);
    }
    if (bits & HAS_DOWN && !(compact && derived)) w.s(down - sd);
    if (bits & HAS_REF) {
      if (!sameRef) w.s(ru - up);
      // 'unchanged', the same offset: the last checkpoint's downstream offset is the row's
      if (code !== Reason.EmittedAfterRewind && code !== Reason.UnchangedSame) w.s(rdn - down);
      const p = c.previous;
      if (p !== undefined && p.metadata !== '') (this.extraToWrite().metas ??= new Map()).set(i, p.metadata);
    }
    if (bits & HAS_REREAD) w.u(reread);
    if (bits & HAS_AT && (!compact || atDiff !== 0)) w.s(atDiff);
    return true;
  }

  /** The rows, decoded (the group decoded last is kept decoded). */
  private get d(): Decoded {
    const d = decodedOf(this.table);
    if (d.owner === this) return d;
    d.owner = null;
    const r = new Reader(this.chunk.bytes, this.start);
    let at = this.table.atBase ?? 0;
    let pair = -1;
    let part = -2;
    for (let i = 0; i < this.length; i++) {
      const raw = r.u();
      if (raw === KEPT_HEADER) {
        d.bits[i] = Reason.Kept;
        continue;
      }
      const explicit = raw >= EXPLICIT;
      let code = raw & 15;
      let bits = raw;
      let atState = 2;
      let sameRef = false;
      if (!explicit) {
        atState = raw % 3;
        const cv = (raw - atState) / 3;
        const v = cv % 3;
        code = (cv - v) / 3;
        sameRef = code === SAME_REF;
        if (sameRef) code = Reason.UnchangedSame;
        bits = code | (v << 4) | IMPLIED[code] | (v !== VERDICT_BITS['not-covered'] ? HAS_REREAD : 0) | (atState !== 0 ? HAS_AT : 0);
      }
      d.bits[i] = bits;
      const k = r.u();
      if (k !== 0) {
        pair = k - 1;
        part = r.u();
      } else part++;
      d.pair[i] = pair;
      d.part[i] = part;
      const up = bits & HAS_UP ? r.s() : 0;
      d.up[i] = up;
      let sd = 0;
      if (bits & HAS_SYNC) {
        sd = r.s();
        d.syncDown[i] = sd;
        d.syncUp[i] = up - r.s();
      }
      const down = !(bits & HAS_DOWN) ? 0 : !explicit && code >= Reason.UnchangedSame ? (up === d.syncUp[i] ? sd : sd + 1) : sd + r.s();
      d.down[i] = down;
      if (bits & HAS_REF) {
        d.refUp[i] = sameRef ? up : up + r.s();
        if (code !== Reason.EmittedAfterRewind) d.refDown[i] = code === Reason.UnchangedSame ? down : down + r.s();
      }
      d.reread[i] = bits & HAS_REREAD ? r.u() : NaN;
      if (bits & HAS_AT) at = d.at[i] = atState === 2 ? at + r.s() : at;
      else d.at[i] = NaN;
    }
    d.owner = this;
    return d;
  }

  /** Reason code | verdict << 4 | flags. */
  bitsOf(i: number): number {
    return this.d.bits[i];
  }

  codeOf(i: number): number {
    return this.bitsOf(i) & 15;
  }

  partitionOf(i: number): number {
    return this.codeOf(i) === Reason.Kept ? (this.keptOf(i) as CoverageEntry).partition : this.d.part[i];
  }

  topicOf(i: number): string {
    return this.codeOf(i) === Reason.Kept ? (this.keptOf(i) as CoverageEntry).topic : this.table.topics[this.d.pair[i]];
  }

  remoteTopicOf(i: number): string | null {
    return this.codeOf(i) === Reason.Kept ? (this.keptOf(i) as CoverageEntry).remoteTopic : this.table.remotes[this.d.pair[i]];
  }

  statusOf(i: number): CoverageStatus {
    const c = this.codeOf(i);
    return c === Reason.Kept ? (this.keptOf(i) as CoverageEntry).status : STATUS[c];
  }

  verdictOf(i: number): ReadinessVerdict {
    const bits = this.bitsOf(i);
    return (bits & 15) === Reason.Kept ? (this.kept?.get(i) as EntryReadiness).verdict : VERDICTS[(bits >> 4) & 3];
  }

  rereadOf(i: number): number | null {
    if (this.codeOf(i) === Reason.Kept) return (this.kept?.get(i) as EntryReadiness).reread;
    const v = this.d.reread[i];
    return Number.isNaN(v) ? null : v;
  }

  checkpointAtOf(i: number): number | null {
    if (this.codeOf(i) === Reason.Kept) return (this.kept?.get(i) as EntryReadiness).checkpointAt;
    const v = this.d.at[i];
    return Number.isNaN(v) ? null : v;
  }

  upstreamOf(i: number): bigint | null {
    const bits = this.bitsOf(i);
    if ((bits & 15) === Reason.Kept) return (this.keptOf(i) as CoverageEntry).upstreamOffset;
    return bits & HAS_UP ? BigInt(this.d.up[i]) : null;
  }

  downstreamOf(i: number): bigint | undefined {
    const bits = this.bitsOf(i);
    if ((bits & 15) === Reason.Kept) return (this.keptOf(i) as CoverageEntry).downstreamOffset;
    return bits & HAS_DOWN ? BigInt(this.d.down[i]) : undefined;
  }

  /** The sync's upstream and downstream offsets (rows with a sync). */
  syncUpOf(i: number): bigint {
    return BigInt(this.d.syncUp[i]);
  }

  syncDownOf(i: number): bigint {
    return BigInt(this.d.syncDown[i]);
  }

  /** The sync's offsets (a new object: the store's stays its own). */
  syncOf(i: number): OffsetSync | undefined {
    if (this.codeOf(i) === Reason.Kept) return (this.keptOf(i) as CoverageEntry).sync;
    if (!(this.bitsOf(i) & HAS_SYNC)) return undefined;
    return { topic: this.topicOf(i), partition: this.partitionOf(i), upstreamOffset: this.syncUpOf(i), downstreamOffset: this.syncDownOf(i) };
  }

  /** The one row of (topic, partition); -1 when none or more than one. */
  onlyRowOf(topic: string, partition: number): number {
    let found = -1; // -2: more than one
    for (let i = 0; i < this.length; i++) if (this.partitionOf(i) === partition && this.topicOf(i) === topic) found = found === -1 ? i : -2;
    return Math.max(found, -1);
  }

  /** Whether the row of (topic, partition) translated from a sync of the same offsets as `sync` (undefined: from none); false when no row or more than one is of that partition. */
  syncMatches(topic: string, partition: number, sync: OffsetSync | undefined): boolean {
    const found = this.onlyRowOf(topic, partition);
    if (found < 0) return false;
    const had = this.syncOf(found);
    if (had === undefined || sync === undefined) return had === sync;
    return had.upstreamOffset === sync.upstreamOffset && had.downstreamOffset === sync.downstreamOffset;
  }

  /** The reference's upstream offset (the last checkpoint's; the offset rewound from). */
  refUpOf(i: number): bigint {
    return BigInt(this.d.refUp[i]);
  }

  /** The last checkpoint's downstream offset. */
  refDownOf(i: number): bigint {
    return BigInt(this.d.refDown[i]);
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
