/**
 * A cluster's group listing (every group with its state, as ListGroups answers per broker) and
 * how MM2's discovery reads it: the listing kept as the very same map while nothing in it
 * changed, and its split into the groups MM2 lists and the streams and share groups it never
 * lists (core/group-types). Plain values; the ListGroups requests are kafka/group-client.
 */
import { mm2ListsGroup, notReplicatedGroup, type NotReplicatedGroup } from './group-types';

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

/**
 * Keeps a cluster's listing of group states across ListGroups rounds (called every second at
 * 10,000 groups: it is the same map while nothing changed). `keep` takes each broker's listed
 * groups; the same answer arrays as last time, or answers listing the same groups with the same
 * states, give back the last map itself; otherwise a new map (a caller may still hold the last
 * one) in which unchanged entries keep their objects.
 */
export class GroupListingKeeper {
  /** The last listing, whose names and states the next one reuses. */
  private lastListing: Map<string, ListedGroupState> = new Map();
  /** The broker answers the last listing was made of (the same arrays: the same listing). */
  private lastListed: ReadonlyArray<ReadonlyArray<unknown>> = [];

  keep(listed: ReadonlyArray<ReadonlyArray<ListedGroup>>): ReadonlyMap<string, ListedGroupState> {
    const prev = this.lastListing;
    if (listed.length === this.lastListed.length && listed.every((l, i) => l === this.lastListed[i])) return prev;
    this.lastListed = listed;
    const same = (v: ListedGroupState | undefined, g: { state: string; protocolType: string; type?: string }): v is ListedGroupState =>
      v !== undefined && v.state === g.state && v.protocolType === g.protocolType && v.type === g.type;
    let count = 0;
    let unchanged = true;
    for (const list of listed) {
      for (const g of list) {
        count++;
        if (!same(prev.get(g.groupId), g)) unchanged = false;
      }
    }
    if (unchanged && count === prev.size) return prev;
    // a new map (a caller may still hold the last one); unchanged entries keep their objects
    const out = new Map<string, ListedGroupState>();
    for (const list of listed) {
      for (const g of list) {
        const had = prev.get(g.groupId);
        if (same(had, g)) {
          out.set(g.groupId, had);
          continue;
        }
        out.set(g.groupId, stateOf(g.state, g.protocolType, g.type));
      }
    }
    this.lastListing = out;
    return out;
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
    for (const [id, g] of states) {
      if (isConsumerGroupListing(g.protocolType, g.type)) ids.push(id);
      else {
        const other = notReplicatedGroup(id, g);
        if (other !== undefined) others.push(Object.freeze(other));
      }
    }
    ids.sort();
    others.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
    l = Object.freeze({ ids: Object.freeze(ids), others: Object.freeze(others) });
    listingOf.set(states, l);
  }
  return l;
}
