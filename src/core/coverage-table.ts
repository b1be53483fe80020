import type { GroupCoverage } from './coverage-rows';

/** The coverage rows' storage (core/coverage-rows): chunks of bytes shared by every group of a translation cache. */

/** Bytes per chunk of the table (a group needing more gets a chunk of its own). */
export const CHUNK_BYTES = 65536;
/** Rows no current group owns that make a compaction worth it (when more than the rows in use). */
const CHUNK_ROWS = 4096;
/** At most this many bytes per row (13 varints of at most 8 bytes). */
export const ROW_BYTES_MAX = 13 * 8;

/** A block of rows: bytes, each group's rows one after another, and the table they belong to (one field a chunk, not one a group). */
export class RowChunk {
  readonly bytes: Uint8Array;
  used = 0;
  constructor(
    readonly size: number,
    readonly table: CoverageTable,
  ) {
    this.bytes = new Uint8Array(size);
  }
}

/**
 * Where the groups' rows live: chunks of bytes shared by every group of a translation cache (a
 * few arrays in all, not one per group), and the (topic, remote topic) pairs the rows name by
 * number. A row is a few variable-length integers (its header, then its values as differences
 * from one another: about 15 bytes, against 72 as fixed columns of int64 and doubles). A group
 * translated again gets new rows; a group's coverage never changes (a cycle's list, a message's
 * entries read later, read what was translated then). The rows of replaced or dropped groups are
 * reclaimed by `compact` (the current groups' rows copied to new chunks, in place of their old
 * ones) once they are more than the rows in use; an older coverage still held somewhere keeps
 * its old chunk until it goes.
 */
export class CoverageTable {
  private chunk: RowChunk | null = null;
  private live = 0;
  private waste = 0;
  private liveBytes = 0;
  private wasteBytes = 0;
  readonly topics: string[] = [];
  readonly remotes: Array<string | null> = [];
  private readonly pairNo = new Map<string, Map<string | null, number>>();
  /** The group of this table read last, decoded (core/coverage-rows). */
  decoded: object | null = null;
  /** The rare extras of a group's rows (core/coverage-rows), by its coverage: a few groups, not a field of every group. */
  readonly extras = new WeakMap<GroupCoverage, object>();
  /** Rows' checkpoint times are written as differences from this (the first seen; undefined: none yet): a few bytes, not 6, for a group's first. */
  atBase: number | undefined;

  /** Room for up to `max` bytes: the chunk and where they start (`commit` says how many were used). */
  room(max: number): RowChunk {
    let c = this.chunk;
    if (c === null || c.used + max > c.size) {
      c = new RowChunk(Math.max(max, CHUNK_BYTES), this);
      if (max < CHUNK_BYTES) this.chunk = c;
    }
    return c;
  }

  /** `n` rows of `bytes` bytes were written at the end of `c`. */
  commit(c: RowChunk, rows: number, bytes: number): void {
    c.used += bytes;
    this.live += rows;
    this.liveBytes += bytes;
  }

  /** A group's `n` rows (`bytes` bytes) are no longer the current ones (replaced, or the group dropped). */
  released(n: number, bytes = 0): void {
    this.live -= n;
    this.waste += n;
    this.liveBytes -= bytes;
    this.wasteBytes += bytes;
  }

  /** Rows in use, and rows no current group owns. */
  get rows(): { live: number; waste: number } {
    return { live: this.live, waste: this.waste };
  }

  /** Whether `compact` is worth it: more rows no group owns than in use, or more than an eighth of the bytes in use (a copy of a few bytes a row, against a quarter of the rows kept for nothing). */
  get wasteful(): boolean {
    return (this.waste > CHUNK_ROWS && this.waste > this.live) || (this.wasteBytes > CHUNK_BYTES && 8 * this.wasteBytes > this.liveBytes);
  }

  /** Copies every current group's rows to new chunks (`current`: each group held, once). */
  compact(current: Iterable<GroupCoverage>): void {
    this.chunk = null;
    this.live = 0;
    this.waste = 0;
    this.liveBytes = 0;
    this.wasteBytes = 0;
    for (const g of current) g.moveTo(this);
  }

  /** The number of a (topic, remote topic) pair. */
  pairFor(topic: string, remote: string | null): number {
    let m = this.pairNo.get(topic);
    if (m === undefined) this.pairNo.set(topic, (m = new Map()));
    let k = m.get(remote);
    if (k === undefined) {
      k = this.topics.length;
      this.topics.push(topic);
      this.remotes.push(remote);
      m.set(remote, k);
    }
    return k;
  }
}

