/**
 * The checkpoint emitter's retry list (issue 24 step g, compact state): the checkpoints a cycle
 * put into the checkpoint store that the broker has not acknowledged yet, as addresses of the
 * store's rows (group number, place) in the order they were first put on the list, in typed
 * arrays; no object, no key string per entry. A checkpoint object is made when a write takes it
 * (a chunk at a time), from the row: always the store's current value of its partition, so a newer
 * checkpoint of a partition takes the older one's place on the list (the list keeps the place, as
 * a Map's keys do) and the topic's order is the store's. A checkpoint leaves the list only with
 * its acknowledgement, and only when its row still holds what was written (an acknowledgement of
 * an older value never drops a newer one). Emptied to a few bytes whenever the list is. Plain
 * state, no I/O (engines/checkpoint-writes writes).
 */
import type { Checkpoint } from './types';

/** A checkpoint as written to the checkpoints topic: with its record timestamp (when its group's offsets were listed). */
export type UnsentCheckpoint = Checkpoint & { timestamp: number };

/** What the list reads of the checkpoint store (core/checkpoint-store). */
export interface UnsentRows {
  /** Changes whenever every row is forgotten (the addresses taken before mean nothing then); another store's is another number. */
  readonly generation: number;
  groupNumber(group: string): number;
  groupName(g: number): string;
  placeOf(g: number, topic: string, partition: number): number;
  writtenAt(g: number, i: number): UnsentCheckpoint;
  holdsAt(g: number, i: number, c: UnsentCheckpoint): boolean;
}

/** What a write takes: how many, and the checkpoints (made as they are read, in order). */
export interface CheckpointsToWrite extends Iterable<UnsentCheckpoint> {
  readonly length: number;
}

const INITIAL = 16;
const EMPTY = -1;

/** A hash of a row's address (Fibonacci hashing of both numbers). */
function hashOf(g: number, i: number): number {
  return (Math.imul(g, 0x9e3779b1) ^ Math.imul(i + 0x7f4a7c15, 0x85ebca77)) >>> 0;
}

export class UnsentCheckpoints {
  /** The queue, in order: per slot a row's group number (EMPTY: left the list) and place. */
  private qg = new Int32Array(INITIAL);
  private qi = new Int32Array(INITIAL);
  /** Slots [head, tail) may be live; `shift`: the absolute position of slot 0 (positions never repeat). */
  private head = 0;
  private tail = 0;
  private shift = 0;
  /** Row address -> absolute position in the queue: open addressing, linear probing (kg EMPTY: free). */
  private kg = new Int32Array(INITIAL * 2).fill(EMPTY);
  private ki = new Int32Array(INITIAL * 2);
  private kpos = new Float64Array(INITIAL * 2);
  private count = 0;
  /** The generation of the store the addresses are of (a number: the list holds no store). */
  private generation = -1;

  /** `store`: the checkpoint store the rows are in now (the emitter's store is replaced when a failed restore is tried again). */
  constructor(private readonly store: () => UnsentRows) {}

  /** Checkpoints on the list. */
  get size(): number {
    this.check();
    return this.count;
  }

  /** Puts the store's row of `c`'s partition on the list (its place kept when it is on it already). */
  add(c: Checkpoint): void {
    const s = this.check();
    const g = s.groupNumber(c.group);
    if (g < 0) return;
    const i = s.placeOf(g, c.topic, c.partition);
    if (i < 0 || this.find(g, i) >= 0) return;
    if (this.tail === this.qg.length) this.makeRoom();
    this.qg[this.tail] = g;
    this.qi[this.tail] = i;
    this.insert(g, i, this.shift + this.tail);
    this.tail++;
  }

  /** Whether `c`'s partition is on the list. */
  has(c: Checkpoint): boolean {
    const s = this.check();
    const g = s.groupNumber(c.group);
    const i = g < 0 ? -1 : s.placeOf(g, c.topic, c.partition);
    return i >= 0 && this.find(g, i) >= 0;
  }

  /** Every checkpoint on the list, in order (made now: for small lists and tests). */
  list(): UnsentCheckpoint[] {
    return [...this.toWrite()];
  }

  /**
   * What a write sends now: the list as it is (what is put on it later waits for the next write),
   * less the groups `keep` refuses (they leave the list: their share moved away), in order; each
   * checkpoint made when the write reads it, with its row's value then (the latest).
   */
  toWrite(keep?: (group: string) => boolean): CheckpointsToWrite {
    const s = this.check();
    const gen = this.generation;
    if (keep !== undefined) {
      for (let k = this.head; k < this.tail; k++) {
        const g = this.qg[k];
        if (g !== EMPTY && !keep(s.groupName(g))) this.drop(k);
      }
    }
    const from = this.shift + this.head;
    const to = this.shift + this.tail;
    const length = this.count;
    const list = this;
    return {
      length,
      *[Symbol.iterator]() {
        for (let pos = from; pos < to; pos++) {
          if (list.check().generation !== gen) return; // forgotten meanwhile, or another store
          const k = pos - list.shift;
          if (k < list.head) continue;
          const g = list.qg[k];
          if (g !== EMPTY) yield s.writtenAt(g, list.qi[k]);
        }
      },
    };
  }

  /**
   * The broker acknowledged `c`: it leaves the list, unless its row holds a newer value now (which
   * stays, to be written). Returns whether it left.
   */
  acknowledge(c: UnsentCheckpoint): boolean {
    const s = this.check();
    const g = s.groupNumber(c.group);
    const i = g < 0 ? -1 : s.placeOf(g, c.topic, c.partition);
    if (i < 0) return false;
    const pos = this.find(g, i);
    if (pos < 0 || !s.holdsAt(g, i, c)) return false;
    this.drop(pos - this.shift);
    return true;
  }

  /** The store now; the list is emptied when it is another one, or its rows were forgotten. */
  private check(): UnsentRows {
    const s = this.store();
    if (s.generation !== this.generation) {
      this.generation = s.generation;
      if (this.count > 0 || this.tail > 0) this.reset();
    }
    return s;
  }

  /** Slot `k` leaves the list. */
  private drop(k: number): void {
    this.remove(this.qg[k], this.qi[k]);
    this.qg[k] = EMPTY;
    if (this.count === 0) {
      this.reset();
      return;
    }
    while (this.head < this.tail && this.qg[this.head] === EMPTY) this.head++;
  }

  /** The queue full: slots moved down over the ones that left, or doubled. */
  private makeRoom(): void {
    if (this.head >= this.qg.length >> 1) {
      this.qg.copyWithin(0, this.head, this.tail);
      this.qi.copyWithin(0, this.head, this.tail);
      this.shift += this.head;
      this.tail -= this.head;
      this.head = 0;
      return;
    }
    const n = this.qg.length * 2;
    const qg = new Int32Array(n);
    const qi = new Int32Array(n);
    qg.set(this.qg.subarray(this.head, this.tail));
    qi.set(this.qi.subarray(this.head, this.tail));
    this.qg = qg;
    this.qi = qi;
    this.shift += this.head;
    this.tail -= this.head;
    this.head = 0;
  }

  private reset(): void {
    this.shift += this.tail;
    this.head = 0;
    this.tail = 0;
    this.count = 0;
    if (this.qg.length > INITIAL) {
      this.qg = new Int32Array(INITIAL);
      this.qi = new Int32Array(INITIAL);
    }
    if (this.kg.length > INITIAL * 2) {
      this.kg = new Int32Array(INITIAL * 2);
      this.ki = new Int32Array(INITIAL * 2);
      this.kpos = new Float64Array(INITIAL * 2);
    }
    this.kg.fill(EMPTY);
  }

  /** The absolute position of row (g, i) on the list, or -1. */
  private find(g: number, i: number): number {
    const mask = this.kg.length - 1;
    for (let h = hashOf(g, i) & mask; this.kg[h] !== EMPTY; h = (h + 1) & mask) {
      if (this.kg[h] === g && this.ki[h] === i) return this.kpos[h];
    }
    return -1;
  }

  private insert(g: number, i: number, pos: number): void {
    if (2 * (this.count + 1) > this.kg.length) this.rehash(this.kg.length * 2);
    const mask = this.kg.length - 1;
    let h = hashOf(g, i) & mask;
    while (this.kg[h] !== EMPTY) h = (h + 1) & mask;
    this.kg[h] = g;
    this.ki[h] = i;
    this.kpos[h] = pos;
    this.count++;
  }

  /** Removes row (g, i) from the table (backward-shift deletion: no tombstones). */
  private remove(g: number, i: number): void {
    const mask = this.kg.length - 1;
    let h = hashOf(g, i) & mask;
    while (!(this.kg[h] === g && this.ki[h] === i)) {
      if (this.kg[h] === EMPTY) return;
      h = (h + 1) & mask;
    }
    this.count--;
    let hole = h;
    for (let j = (hole + 1) & mask; this.kg[j] !== EMPTY; j = (j + 1) & mask) {
      const home = hashOf(this.kg[j], this.ki[j]) & mask;
      // the entry at j may move into the hole when its home is not cyclically in (hole, j]
      const between = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (between) continue;
      this.kg[hole] = this.kg[j];
      this.ki[hole] = this.ki[j];
      this.kpos[hole] = this.kpos[j];
      hole = j;
    }
    this.kg[hole] = EMPTY;
  }

  private rehash(n: number): void {
    const { kg, ki, kpos } = this;
    this.kg = new Int32Array(n).fill(EMPTY);
    this.ki = new Int32Array(n);
    this.kpos = new Float64Array(n);
    const mask = n - 1;
    for (let h = 0; h < kg.length; h++) {
      if (kg[h] === EMPTY) continue;
      let j = hashOf(kg[h], ki[h]) & mask;
      while (this.kg[j] !== EMPTY) j = (j + 1) & mask;
      this.kg[j] = kg[h];
      this.ki[j] = ki[h];
      this.kpos[j] = kpos[h];
    }
  }
}
