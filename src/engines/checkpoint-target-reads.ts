/**
 * What the checkpoint emitter reads on the target beside the checkpoints topic: whether the
 * selected groups have members there (failover readiness), and the log starts of remote
 * partitions for groups rewound below every offset sync (precise mode).
 */
import { logStartKey } from '../core/checkpoint-cycle';
import { membersInState, type MembersOnTarget } from '../core/readiness';
import { authorizationFailure, explainKafkaError } from '../kafka/client';
import type { ClusterConnection } from '../kafka/connection';
import { indexInSorted, sameList, strictlySorted } from '../core/sorted-names';

export interface TargetMembersListing {
  members: ReadonlyMap<string, MembersOnTarget>;
  /** Why the target's groups could not be listed (every group is then 'unknown'). */
  error?: string;
}

/** Whether two maps hold the same keys with the same values. */
function sameEntries<K, V>(a: ReadonlyMap<K, V>, b: ReadonlyMap<K, V>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of b) if (a.get(k) !== v) return false;
  return true;
}

const MEMBERS: readonly MembersOnTarget[] = [false, true, 'unknown'];
const codeOf = (m: MembersOnTarget): number => (m === false ? 0 : m === true ? 1 : 2);


/**
 * Members on the target per group as a sorted array of names (the cycle's list of groups, shared
 * from one listing to the next while it is the same) and one byte a group (issue 24 step g: not a
 * Map of 10,000 strings); read as a ReadonlyMap (`get` by binary search).
 */
export class MembersTable implements ReadonlyMap<string, MembersOnTarget> {
  constructor(
    /** Strictly ascending. */
    readonly names: readonly string[],
    /** Per name: 0 false, 1 true, 2 'unknown'. */
    readonly codes: Uint8Array,
  ) {}

  get size(): number {
    return this.names.length;
  }

  private indexOf(group: string): number {
    return indexInSorted(this.names, group);
  }

  get(group: string): MembersOnTarget | undefined {
    const i = this.indexOf(group);
    return i < 0 ? undefined : MEMBERS[this.codes[i]];
  }

  has(group: string): boolean {
    return this.indexOf(group) >= 0;
  }

  /** A Map of the same entries (made now: for iteration, which nothing does per cycle). */
  private asMap(): Map<string, MembersOnTarget> {
    const m = new Map<string, MembersOnTarget>();
    for (let i = 0; i < this.names.length; i++) m.set(this.names[i], MEMBERS[this.codes[i]]);
    return m;
  }

  forEach(f: (value: MembersOnTarget, key: string, map: ReadonlyMap<string, MembersOnTarget>) => void, thisArg?: unknown): void {
    for (let i = 0; i < this.names.length; i++) f.call(thisArg, MEMBERS[this.codes[i]], this.names[i], this);
  }

  entries(): ReturnType<Map<string, MembersOnTarget>['entries']> {
    return this.asMap().entries();
  }

  keys(): ReturnType<Map<string, MembersOnTarget>['keys']> {
    return this.asMap().keys();
  }

  values(): ReturnType<Map<string, MembersOnTarget>['values']> {
    return this.asMap().values();
  }

  [Symbol.iterator](): ReturnType<Map<string, MembersOnTarget>['entries']> {
    return this.entries();
  }
}

function sameCodes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The same names in the same order. */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The target's group listing, kept from one full cycle to the next. */
export class TargetMembers {
  /** The last full cycle's listing. */
  current: TargetMembersListing = { members: new Map() };
  /** Groups whose coordinator the target refused to name (no DESCRIBE), until `forgetRefusals` (the next group discovery). */
  private refusedCoordinators = new Set<string>();
  /** The last answer in which every group was listed, with the listing (the fetcher's same Map while nothing changed) and the groups it was made for. */
  private reuse: { states: ReadonlyMap<unknown, unknown>; groups: readonly string[]; answer: TargetMembersListing } | null = null;

  constructor(private readonly target: ClusterConnection) {}

  /** Whether `group` has members on the target, by the last listing ('unknown' when not listed). */
  of(group: string): MembersOnTarget {
    return this.current.members.get(group) ?? 'unknown';
  }

  forgetRefusals(): void {
    this.refusedCoordinators.clear();
  }

  /**
   * Whether each of `groups` has members on the target: one ListGroups per broker; a group not
   * listed is asked for its coordinator, which a principal without DESCRIBE on it is refused
   * (ListGroups leaves out what the principal may not describe): 'unknown' then. Never rejects:
   * a failed listing makes every group 'unknown', with the error. Does not change `current`.
   */
  async list(groups: readonly string[]): Promise<TargetMembersListing> {
    // `groups` sorted (a cycle's selection is): one byte a group beside the names; else a Map
    const sorted = strictlySorted(groups);
    const members = new Map<string, MembersOnTarget>();
    const codes = sorted ? new Uint8Array(groups.length) : null;
    const at = (g: string, i: number, m: MembersOnTarget): void => {
      if (codes !== null) codes[i] = codeOf(m);
      else members.set(g, m);
    };
    try {
      const fetcher = this.target.offsetFetcher();
      const states = await fetcher.listGroupStates();
      // the same listing and the same groups as the answer held, every one of them listed: that
      // answer again (no map of 10,000 groups made and compared every second to find it the same)
      const r = this.reuse;
      if (r !== null && r.answer === this.current && r.states === states && sameList(r.groups, groups)) return r.answer;
      const unlisted: string[] = [];
      const unlistedAt: number[] = [];
      for (let i = 0; i < groups.length; i++) {
        const g = groups[i];
        const s = states.get(g);
        if (s !== undefined) at(g, i, membersInState(s.state));
        else {
          unlisted.push(g);
          unlistedAt.push(i);
        }
      }
      // a coordinator found is remembered by the fetcher; a refusal (no DESCRIBE on the group) is
      // remembered here until the next group discovery (ACLs change rarely), so a full cycle does not
      // ask again for every refused group; other failures are asked again next cycle
      const ask = unlisted.filter((g) => !this.refusedCoordinators.has(g));
      const failed = ask.length > 0 ? await fetcher.coordinatorFailures(ask) : new Map<string, string>();
      for (const [g, why] of failed) if (authorizationFailure({ message: why })) this.refusedCoordinators.add(g);
      for (let k = 0; k < unlisted.length; k++) {
        const g = unlisted[k];
        at(g, unlistedAt[k], failed.has(g) || this.refusedCoordinators.has(g) ? 'unknown' : false);
      }
      // unchanged (the usual cycle): the last map stays, and what was derived from it with it
      const prev = this.current;
      let answer: TargetMembersListing;
      // the groups the answer was made for: the table's own copy of the names when it has one (one list of 10,000 names kept, not two)
      let madeFor: readonly string[] = groups;
      if (codes !== null) {
        const had = prev.members;
        const names = had instanceof MembersTable && sameNames(had.names, groups) ? had.names : groups.slice();
        answer = prev.error === undefined && names === (had as MembersTable).names && sameCodes((had as MembersTable).codes, codes) ? prev : { members: new MembersTable(names, codes) };
        madeFor = names;
      } else answer = prev.error === undefined && sameEntries(prev.members, members) ? prev : { members };
      this.reuse = unlisted.length === 0 ? { states, groups: madeFor, answer } : null;
      return answer;
    } catch (e) {
      return { members: new Map(), error: explainKafkaError(e, this.target.settings) };
    }
  }
}

/**
 * Reads the log starts of the `need` remote partitions (topic -> partitions) on the target into
 * `into` (keys: logStartKey). Resolves with how many were found; rejects with the client's error.
 */
export async function readLogStarts(target: ClusterConnection, need: ReadonlyMap<string, ReadonlySet<number>>, into: Map<string, bigint>): Promise<number> {
  const admin = await target.admin();
  let found = 0;
  for (const [topic, parts] of need) {
    for (const o of await admin.fetchTopicOffsets(topic)) {
      if (!parts.has(o.partition)) continue;
      into.set(logStartKey(topic, o.partition), BigInt(o.low));
      found++;
    }
  }
  return found;
}
