/**
 * A cluster's group listing (every group with its state, as ListGroups answers per broker) and
 * how MM2's discovery reads it: the listing kept as the very same map while nothing in it
 * changed, and its split into the groups MM2 lists and the streams and share groups it never
 * lists (core/group-types). Plain values; the ListGroups requests are kafka/group-client.
 */
import { mm2ListsGroup, notReplicatedGroup, type NotReplicatedGroup } from './group-types';
import { indexInSorted } from './sorted-names';

export interface ListedGroupState {
  /** The group's state (classic: Empty, Stable, PreparingRebalance, CompletingRebalance, Dead; consumer: Empty, Assigning, Reconciling, Stable, Dead). */
  state: string;
  protocolType: string;
  /** The group type (classic, consumer, share, streams) where the broker reports it (ListGroups v5). */
  type?: string;
}

/** One group as a broker's ListGroups answer lists it. */
export interface ListedGroup {
  groupId: string;
  state: string;
  protocolType: string;
  type?: string;
}

/** The listed states made so far, by state, protocol type and type (a few: shared by every group listed so, one object each, frozen). */
const STATES = new Map<string, ListedGroupState>();

/** The one frozen ListedGroupState of these values (issue 24 step g: not an object a group per listing). */
function stateOf(state: string, protocolType: string, type: string | undefined): ListedGroupState {
  // values of a broker's answer: a few distinct ones (each value with its length: no two combinations share a key)
  const key = `${state.length}:${state}${protocolType.length}:${protocolType}${type === undefined ? '-' : `${type.length}:${type}`}`;
  let v = STATES.get(key);
  if (v === undefined) {
    const o: ListedGroupState = { state, protocolType };
    if (type !== undefined) o.type = type;
    v = Object.freeze(o);
    // bounded: past 1,000 distinct combinations (a broker answering nonsense) objects are no longer shared
    if (STATES.size < 1000) STATES.set(key, v);
  }
  return v;
}

/** Whether two listed states hold the same values. */
function sameState(a: ListedGroupState, b: ListedGroupState): boolean {
  return a === b || (a.state === b.state && a.protocolType === b.protocolType && a.type === b.type);
}

/**
 * A cluster's listing of group states, compact (issue 24 step g): the group names sorted, one
 * small code a group into the listing's few distinct states (frozen, shared), looked up by binary
 * search; no entry object, no hash table, no answer object kept per group. Read as a
 * ReadonlyMap (iterated in name order). Never changed once made.
 */
export class GroupListing implements ReadonlyMap<string, ListedGroupState> {
  /** The names, sorted, each once. */
  private readonly names: readonly string[];
  /** The state of names[i]: table[codes[i]]. */
  private readonly codes: Uint8Array | Uint32Array;
  private readonly table: readonly ListedGroupState[];

  /** From names and states (any order; a name twice: the last one listed counts). */
  constructor(names: readonly string[], states: readonly ListedGroupState[]) {
    const order = Array.from({ length: names.length }, (_, i) => i);
    // stable: of one name listed twice, the last one ends up last
    order.sort((a, b) => (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : a - b));
    const kept: number[] = [];
    for (let k = 0; k < order.length; k++) if (k + 1 === order.length || names[order[k + 1]] !== names[order[k]]) kept.push(order[k]);
    const table: ListedGroupState[] = [];
    const codeOf = new Map<ListedGroupState, number>();
    const raw = new Uint32Array(kept.length);
    const sorted = new Array<string>(kept.length);
    for (let k = 0; k < kept.length; k++) {
      const s = states[kept[k]];
      let c = codeOf.get(s);
      if (c === undefined) {
        c = table.length;
        table.push(s);
        codeOf.set(s, c);
      }
      raw[k] = c;
      sorted[k] = names[kept[k]];
    }
    this.names = sorted;
    this.codes = table.length <= 256 ? Uint8Array.from(raw) : raw;
    this.table = table;
  }

  get size(): number {
    return this.names.length;
  }

  get [Symbol.toStringTag](): string {
    return 'GroupListing';
  }

  /** Where `name` is in the sorted names, or -1. */
  indexOf(name: string): number {
    return indexInSorted(this.names, name);
  }

  /** The i-th name (sorted). */
  nameAt(i: number): string {
    return this.names[i];
  }

  /** The i-th name's state. */
  stateAt(i: number): ListedGroupState {
    return this.table[this.codes[i]];
  }

  get(name: string): ListedGroupState | undefined {
    const i = this.indexOf(name);
    return i < 0 ? undefined : this.table[this.codes[i]];
  }

  has(name: string): boolean {
    return this.indexOf(name) >= 0;
  }

  forEach(f: (value: ListedGroupState, key: string, map: ReadonlyMap<string, ListedGroupState>) => void, thisArg?: unknown): void {
    for (let i = 0; i < this.names.length; i++) f.call(thisArg, this.table[this.codes[i]], this.names[i], this);
  }

  *entries(): MapIterator<[string, ListedGroupState]> {
    for (let i = 0; i < this.names.length; i++) yield [this.names[i], this.table[this.codes[i]]];
  }

  *keys(): MapIterator<string> {
    for (let i = 0; i < this.names.length; i++) yield this.names[i];
  }

  *values(): MapIterator<ListedGroupState> {
    for (let i = 0; i < this.names.length; i++) yield this.table[this.codes[i]];
  }

  [Symbol.iterator](): MapIterator<[string, ListedGroupState]> {
    return this.entries();
  }

  /** Whether `other` lists the same names with the same states. */
  sameAs(other: GroupListing): boolean {
    if (other === this) return true;
    if (other.names.length !== this.names.length) return false;
    for (let i = 0; i < this.names.length; i++) if (other.names[i] !== this.names[i] || !sameState(other.stateAt(i), this.stateAt(i))) return false;
    return true;
  }

  /** The listing of these groups (one broker's answer); names `like` holds (else `elsewhere` gives) are those strings (one copy of a name kept). */
  static of(groups: ReadonlyArray<ListedGroup>, like?: GroupListing, elsewhere?: (name: string) => string): GroupListing {
    const names = new Array<string>(groups.length);
    const states = new Array<ListedGroupState>(groups.length);
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i];
      const at = like === undefined ? -1 : like.indexOf(g.groupId);
      names[i] = at >= 0 ? (like as GroupListing).names[at] : elsewhere !== undefined ? elsewhere(g.groupId) : g.groupId;
      states[i] = stateOf(g.state, g.protocolType, g.type);
    }
    return new GroupListing(names, states);
  }

  /** The listings of several brokers as one (a group listed by two: the later one counts). */
  static union(parts: readonly GroupListing[]): GroupListing {
    if (parts.length === 1) return parts[0];
    const names: string[] = [];
    const states: ListedGroupState[] = [];
    for (const p of parts) {
      for (let i = 0; i < p.names.length; i++) {
        names.push(p.names[i]);
        states.push(p.stateAt(i));
      }
    }
    return new GroupListing(names, states);
  }
}

const EMPTY = new GroupListing([], []);

/**
 * The keepers of the clients open now (a few: one per cluster connection): a listing made for one
 * takes a name's string from another's last listing when it has it, so the source's and the
 * target's listings of the same groups hold each name once. Bounded; a keeper leaves at `close`.
 */
const OPEN_KEEPERS = new Set<GroupListingKeeper>();
const OPEN_KEEPERS_MAX = 16;

/** The string of `name` some open keeper's last listing holds, or `name` itself. */
function sharedName(name: string, self: GroupListingKeeper): string {
  for (const k of OPEN_KEEPERS) {
    if (k === self) continue;
    const l = k.last;
    const i = l.indexOf(name);
    if (i >= 0) return l.nameAt(i);
  }
  return name;
}

/**
 * Keeps a cluster's listing of group states across ListGroups rounds (called every second at
 * 10,000 groups: it is the same listing while nothing changed). `keep` takes each broker's
 * listed groups (or, from `part`, its listing kept); answers listing the same groups with the
 * same states give back the last listing itself; otherwise a new one (a caller may still hold
 * the last one) whose names are the last one's strings where it had them. Nothing of the
 * answers is kept (issue 24 step g): the listing only, names and a code a group.
 */
export class GroupListingKeeper {
  /** The last listing, whose names the next one reuses. */
  private lastListing: GroupListing = EMPTY;
  /** Each broker's listing as last answered, with the answer's fingerprint (kafka/group-client: a digest of its bytes). */
  private readonly parts = new Map<string, { fingerprint: string; listing: GroupListing }>();

  /** The last listing made. */
  get last(): GroupListing {
    return this.lastListing;
  }

  /**
   * One broker's listing: the one kept for it when its answer's fingerprint is the last one's,
   * else `decode()`'s groups as a listing (kept for the next round).
   */
  part(broker: string, fingerprint: string, decode: () => ReadonlyArray<ListedGroup>): GroupListing {
    const had = this.parts.get(broker);
    if (had !== undefined && had.fingerprint === fingerprint) return had.listing;
    const listing = GroupListing.of(decode(), had?.listing ?? this.lastListing, (n) => sharedName(n, this));
    this.parts.set(broker, { fingerprint, listing });
    return listing;
  }

  /** Shares the names of its listings with the other open keepers' (until `close`). */
  open(): this {
    if (OPEN_KEEPERS.size < OPEN_KEEPERS_MAX) OPEN_KEEPERS.add(this);
    return this;
  }

  /** Its client closed: its parts forgotten, its names no longer shared. */
  close(): void {
    OPEN_KEEPERS.delete(this);
    this.parts.clear();
  }

  /** Forgets a broker's kept listing (its answer failed, or it left the cluster). */
  forgetPart(broker: string): void {
    this.parts.delete(broker);
  }

  /** Keeps only the parts of these brokers. */
  retainParts(brokers: readonly string[]): void {
    for (const b of [...this.parts.keys()]) if (!brokers.includes(b)) this.parts.delete(b);
  }

  keep(listed: ReadonlyArray<ReadonlyArray<ListedGroup> | GroupListing>): GroupListing {
    const prev = this.lastListing;
    const parts = listed.map((l) => (l instanceof GroupListing ? l : GroupListing.of(l, prev, (n) => sharedName(n, this))));
    const next = parts.length === 0 ? EMPTY : GroupListing.union(parts);
    if (next.sameAs(prev)) return prev;
    this.lastListing = next;
    return next;
  }
}

/**
 * Whether a listed group is one MM2 lists (core/group-types): a classic or consumer group (no
 * streams or share group) of protocol type `consumer` or `""`.
 */
export function isConsumerGroupListing(protocolType: string | undefined, type?: string): boolean {
  return mm2ListsGroup({ protocolType, type });
}

/** A listing's groups as MM2's discovery sees them: those it lists, and the streams and share groups it never lists. */
export interface CheckpointGroupListing {
  /** Classic and consumer groups (protocol type `consumer` or `""`), sorted. */
  ids: readonly string[];
  /** Groups of a type MM2 never lists (streams, share), sorted by id, with why. */
  others: readonly NotReplicatedGroup[];
}

/** The listing of a fetcher's group states (the same states: the same frozen lists). */
const listingOf = new WeakMap<ReadonlyMap<string, ListedGroupState>, CheckpointGroupListing>();

/** The groups of a listing of group states, as MM2's discovery sees them (see CheckpointGroupListing). */
export function checkpointGroupListing(states: ReadonlyMap<string, ListedGroupState>): CheckpointGroupListing {
  let l = listingOf.get(states);
  if (l === undefined) {
    const ids: string[] = [];
    const others: NotReplicatedGroup[] = [];
    // forEach: no entry array a group (a listing is iterated in name order: the ids come sorted)
    states.forEach((g, id) => {
      if (isConsumerGroupListing(g.protocolType, g.type)) ids.push(id);
      else {
        const other = notReplicatedGroup(id, g);
        if (other !== undefined) others.push(Object.freeze(other));
      }
    });
    ids.sort();
    others.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
    l = Object.freeze({ ids: Object.freeze(ids), others: Object.freeze(others) });
    listingOf.set(states, l);
  }
  return l;
}
