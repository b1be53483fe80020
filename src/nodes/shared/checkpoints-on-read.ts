/**
 * mm2-checkpoint output 1's checkpoints (`payload.checkpoints`, `payload.latest`) from the moment
 * the message is sent until a receiver first reads them: copied then into columns (typed arrays
 * for the numbers, references to the strings the checkpoints already hold), about 45 bytes a
 * checkpoint instead of two JSON objects of ~150 bytes made at once; the JSON entries are made when
 * first read (a debug node, a function, Node-RED's copy for a second wire), as output 2's entries
 * are, and are what the message would have held at send time, entry for entry. During a catch-up
 * of 100,000 group partitions the messages waiting for their receiver no longer hold both lists as
 * JSON (issue 24: they were promoted to V8's old space, ~22 MiB).
 */
import type { CheckpointJsonLike } from '../../core/checkpoint-json';
import type { Checkpoint } from '../../core/types';

/** Checkpoints as columns, in the order added. */
export class CheckpointColumns {
  private n = 0;
  private readonly groups: string[] = [];
  private readonly topics: string[] = [];
  private readonly metadata: string[] = [];
  private partitions: Int32Array;
  private ups: BigInt64Array;
  private downs: BigInt64Array;

  constructor(capacity = 8) {
    const c = Math.max(1, capacity);
    this.partitions = new Int32Array(c);
    this.ups = new BigInt64Array(c);
    this.downs = new BigInt64Array(c);
  }

  get length(): number {
    return this.n;
  }

  add(cp: Checkpoint): void {
    if (this.n === this.partitions.length) this.grow();
    const i = this.n++;
    this.groups.push(cp.group);
    this.topics.push(cp.topic);
    this.metadata.push(cp.metadata);
    this.partitions[i] = cp.partition;
    this.ups[i] = cp.upstreamOffset;
    this.downs[i] = cp.downstreamOffset;
  }

  /** Checkpoint `i` as a message entry (checkpointToJson's form: offsets as decimal strings). */
  json(i: number): CheckpointJsonLike {
    return {
      group: this.groups[i],
      topic: this.topics[i],
      partition: this.partitions[i],
      upstreamOffset: this.ups[i].toString(),
      downstreamOffset: this.downs[i].toString(),
      metadata: this.metadata[i],
    };
  }

  /** Entries `from` to `to` (excluded) as message entries. */
  jsonList(from = 0, to = this.n): CheckpointJsonLike[] {
    const out: CheckpointJsonLike[] = [];
    for (let i = from; i < to; i++) out.push(this.json(i));
    return out;
  }

  private grow(): void {
    const c = this.partitions.length * 2;
    const p = new Int32Array(c);
    p.set(this.partitions);
    this.partitions = p;
    const u = new BigInt64Array(c);
    u.set(this.ups);
    this.ups = u;
    const d = new BigInt64Array(c);
    d.set(this.downs);
    this.downs = d;
  }
}

/** Each group's checkpoints as columns (a CheckpointsMessage's `latest`), in the order the groups came. */
export class LatestColumns {
  private readonly names: string[] = [];
  /** Where each group's checkpoints start in `rows` (one more entry: the end). */
  private readonly starts: number[] = [0];
  private readonly rows = new CheckpointColumns(64);

  /** `lists`' checkpoints, read now (each group's list may be made when asked and is not kept). */
  static of(lists: Iterable<readonly [string, readonly Checkpoint[]]>): LatestColumns {
    const l = new LatestColumns();
    for (const [g, list] of lists) l.add(g, list);
    return l;
  }

  add(group: string, list: readonly Checkpoint[]): void {
    for (let i = 0; i < list.length; i++) this.rows.add(list[i]);
    this.names.push(group);
    this.starts.push(this.rows.length);
  }

  /** As a message's `latest`: group -> entries, in the order added. */
  record(): Record<string, CheckpointJsonLike[]> {
    const out: Record<string, CheckpointJsonLike[]> = {};
    for (let k = 0; k < this.names.length; k++) out[this.names[k]] = this.rows.jsonList(this.starts[k], this.starts[k + 1]);
    return out;
  }
}

/**
 * Makes `payload[key]` a property made when first read (`make()`), then a plain one; a write
 * before any read replaces it. Enumerable, in the place the key already has in `payload`.
 */
export function defineOnRead<T extends object, K extends keyof T>(payload: T, key: K, make: () => T[K]): void {
  const settle = (value: T[K]): T[K] => {
    Object.defineProperty(payload, key, { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  Object.defineProperty(payload, key, {
    get: () => settle(make()),
    set: (v: T[K]) => settle(v),
    enumerable: true,
    configurable: true,
  });
}

/**
 * What a payload with properties made on read inherits: Node.js's util.inspect (a debug node
 * printing to the console) makes them first, so that it shows their values as of a plain object,
 * not accessors. On the prototype, not the object: JSON, Object.keys and Node-RED's copies of a
 * message (lodash cloneDeep keeps the prototype) see a plain object (`constructor` is Object).
 */
const SETTLES_ON_INSPECT: object = Object.create(Object.prototype, {
  constructor: { value: Object, writable: true, enumerable: false, configurable: true },
  [Symbol.for('nodejs.util.inspect.custom')]: {
    value(this: Record<string, unknown>): unknown {
      for (const k of Object.keys(this)) if (Object.getOwnPropertyDescriptor(this, k)?.get !== undefined) void this[k];
      return this;
    },
    writable: true,
    enumerable: false,
    configurable: true,
  },
});

/** `fields` as a payload whose properties may be made on read ({@link defineOnRead}), keys in their order. */
export function payloadOnRead<T extends object>(fields: T): T {
  return Object.assign(Object.create(SETTLES_ON_INSPECT) as T, fields);
}
