/**
 * Which consumer groups an instance of a replication flow owns when the same flow runs in several
 * Node-RED instances (issue 25). Plain rules, no I/O.
 *
 * Kafka already shards consumer groups: a group's commits go to one partition of
 * `__consumer_offsets`, chosen by the group coordinator as
 * `Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions` (GroupCoordinatorService.partitionFor,
 * GroupMetadataManager.partitionFor before Kafka 4), where `hashCode` is Java's String.hashCode over
 * UTF-16 code units and `Utils.abs` is Math.abs except that Integer.MIN_VALUE gives 0 (not
 * `n & 0x7fffffff`, which is Utils.toPositive, the producer partitioner's). The instances of one flow
 * split those partitions among themselves through a consumer group of their own; an instance owns
 * the groups whose commits land in the partitions it is assigned.
 *
 * The instances must agree on the replication settings (group filter, translation mode,
 * intervals, policy...): each carries a fingerprint of them in its group membership, and an
 * instance whose fingerprint differs from the leader's is given nothing and told which setting
 * differs.
 */
import { createHash } from 'node:crypto';

/** The name of the topic Kafka keeps group commits in. */
export const OFFSETS_TOPIC = '__consumer_offsets';

/** Java's `String.hashCode()`: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16 code units, in 32-bit signed arithmetic. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's `Utils.abs(int)`: the absolute value, except that Integer.MIN_VALUE (whose absolute value is no int) gives 0. */
export function kafkaAbs(n: number): number {
  if (!Number.isInteger(n) || n < -0x80000000 || n > 0x7fffffff) throw new RangeError(`kafkaAbs: ${n} is not a 32-bit integer`);
  return n === -0x80000000 ? 0 : Math.abs(n);
}

function checkPartitionCount(partitions: number, what = 'partitions'): void {
  if (!Number.isInteger(partitions) || partitions < 1) {
    throw new RangeError(`${what}: ${partitions} is not a number of partitions (an integer >= 1: the partition count of ${OFFSETS_TOPIC}, the broker's offsets.topic.num.partitions)`);
  }
}

/** The `__consumer_offsets` partition the group coordinator keeps `groupId`'s commits in, of `partitions` partitions. */
export function consumerOffsetsPartitionFor(groupId: string, partitions: number): number {
  checkPartitionCount(partitions);
  return kafkaAbs(javaStringHashCode(groupId)) % partitions;
}

/** The prefix of every flow's sharing group (a prefixed READ ACL on Group covers them all). */
export const SHARE_GROUP_PREFIX = '__mm2-node-red-shares.';

/**
 * The consumer group the instances of the flow `sourceAlias -> targetAlias` join to split the work,
 * on the cluster whose `__consumer_offsets` they split (the source). `__` puts it in MM2's default
 * `groups.exclude` (`console-consumer-.*, connect-.*, __.*`), so it is never translated itself;
 * `->` is MM2's own notation for a flow and cannot occur in an alias (letters, digits, `.`, `_`, `-`).
 */
export function shareGroupId(sourceAlias: string, targetAlias: string): string {
  return `${SHARE_GROUP_PREFIX}${sourceAlias}->${targetAlias}`;
}

/** The `__consumer_offsets` partitions one instance owns in one generation of its flow's group. */
export class Shares {
  /** Owned partitions, ascending. */
  readonly partitions: readonly number[];
  private readonly owned: ReadonlySet<number>;

  constructor(partitions: Iterable<number>, readonly partitionCount: number) {
    checkPartitionCount(partitionCount, 'partitionCount');
    const set = new Set<number>();
    for (const p of partitions) {
      if (!Number.isInteger(p) || p < 0 || p >= partitionCount) {
        throw new RangeError(`partitions: ${p} is not a partition of ${OFFSETS_TOPIC} (0 to ${partitionCount - 1})`);
      }
      set.add(p);
    }
    this.owned = set;
    this.partitions = Object.freeze([...set].sort((a, b) => a - b));
  }

  /** Every partition: an instance alone owns everything. */
  static all(partitionCount: number): Shares {
    checkPartitionCount(partitionCount, 'partitionCount');
    return new Shares(Array.from({ length: partitionCount }, (_, i) => i), partitionCount);
  }

  /** Nothing: an instance kept out (settings that disagree) or not joined yet. */
  static none(partitionCount: number): Shares {
    return new Shares([], partitionCount);
  }

  get size(): number {
    return this.owned.size;
  }

  ownsPartition(partition: number): boolean {
    return this.owned.has(partition);
  }

  /** Whether every partition is owned (an instance alone in its sharing group): every group is. */
  get every(): boolean {
    return this.owned.size === this.partitionCount; // owned holds only partitions below partitionCount
  }

  /** Whether `groupId`'s commits land in a partition this instance owns. */
  owns(groupId: string): boolean {
    // every partition owned: no hash of the name (asked per group, 10,000 every second, issue 24)
    if (this.owned.size === this.partitionCount) return true;
    return this.owned.has(consumerOffsetsPartitionFor(groupId, this.partitionCount));
  }
}

/** The replication settings that must agree among the instances of a flow: setting name -> its value as text. */
export type ShareSettings = Readonly<Record<string, string>>;

function checkSettings(settings: ShareSettings, what: string): [string, string][] {
  if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) {
    throw new TypeError(`${what}: expected a record of setting name -> value (text), got ${Array.isArray(settings) ? 'an array' : String(settings)}`);
  }
  const entries = Object.entries(settings);
  for (const [k, v] of entries) {
    if (typeof v !== 'string') throw new TypeError(`${what}.${k}: expected the setting's value as text, got ${typeof v}; give it as a string (String(value))`);
  }
  // by code unit, not locale: the same order on every machine
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * A short stable fingerprint (16 hex digits of SHA-256) of the settings: the same for the same
 * names and values in any key order, different when any name or value differs.
 */
export function settingsFingerprint(settings: ShareSettings): string {
  const canonical = JSON.stringify(checkSettings(settings, 'settings'));
  return createHash('sha256').update(canonical, 'utf8').digest('hex').slice(0, 16);
}

/** A setting whose value differs between this instance (`ours`) and the others (`theirs`); null: not set on that side. */
export interface SettingDifference {
  setting: string;
  ours: string | null;
  theirs: string | null;
}

/** The first setting (by name) whose value differs between `ours` and `theirs`; null when they agree. */
export function firstSettingDifference(ours: ShareSettings, theirs: ShareSettings): SettingDifference | null {
  const a = new Map(checkSettings(ours, 'ours'));
  const b = new Map(checkSettings(theirs, 'theirs'));
  const names = [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  for (const setting of names) {
    const o = a.get(setting) ?? null;
    const t = b.get(setting) ?? null;
    if (o !== t) return { setting, ours: o, theirs: t };
  }
  return null;
}

/** The status text of a difference: `setting groups differs from the other instances: orders-.* vs .*`. */
export function settingDifferenceText(d: SettingDifference): string {
  const show = (v: string | null): string => (v === null ? '(not set)' : v === '' ? '(empty)' : v);
  return `setting ${d.setting} differs from the other instances: ${show(d.ours)} vs ${show(d.theirs)}`;
}

/** What a member of a flow's group says of itself when it joins (its subscription's userData). */
export interface ShareMemberInfo {
  memberId: string;
  fingerprint: string;
  settings: ShareSettings;
}

/** What the leader decides for one member (its assignment and its assignment's userData). */
export interface ShareAssignment {
  memberId: string;
  partitions: number[];
  /** The partition count of the topic split (partitions 0 to partitionCount - 1), as the leader saw it. */
  partitionCount: number;
  /** Members that share the work (same fingerprint as the leader's). */
  members: number;
  /** Members kept out (another fingerprint). */
  refused: number;
  /** The leader's fingerprint: the one the sharing members have. */
  fingerprint: string;
  /** Set for a member kept out: the first setting where it differs from the leader (`ours` is the member's). */
  differs: SettingDifference | null;
}

/**
 * The leader's split of `partitions` (every partition of the topic, 0 to n - 1): round-robin over the members whose fingerprint is the
 * leader's, in memberId order; every other member gets nothing and the first setting in which it
 * differs from the leader. A member with the leader's fingerprint but other settings cannot occur
 * unless SHA-256 collides; it is treated by its fingerprint.
 */
export function assignShares(leader: { fingerprint: string; settings: ShareSettings }, members: readonly ShareMemberInfo[], partitions: readonly number[]): ShareAssignment[] {
  const sharing = members.filter((m) => m.fingerprint === leader.fingerprint).map((m) => m.memberId).sort();
  const refused = members.length - sharing.length;
  const sorted = [...partitions].sort((a, b) => a - b);
  const byMember = new Map<string, number[]>(sharing.map((id) => [id, []]));
  if (sharing.length > 0) sorted.forEach((p, i) => byMember.get(sharing[i % sharing.length])!.push(p));
  return members.map((m) => {
    const agrees = m.fingerprint === leader.fingerprint;
    let differs: SettingDifference | null = null;
    if (!agrees) {
      differs = firstSettingDifference(m.settings, leader.settings) ?? { setting: 'fingerprint', ours: m.fingerprint, theirs: leader.fingerprint };
    }
    return { memberId: m.memberId, partitions: agrees ? byMember.get(m.memberId)! : [], partitionCount: sorted.length, members: sharing.length, refused, fingerprint: leader.fingerprint, differs };
  });
}

/** Version of the userData below; a member that reads a newer one says so rather than guess. */
export const SHARE_USERDATA_VERSION = 1;

/** The subscription userData of a member: its fingerprint and settings (never secrets: any principal that may describe the group reads them). */
export function encodeMemberUserData(fingerprint: string, settings: ShareSettings): Buffer {
  return Buffer.from(JSON.stringify({ v: SHARE_USERDATA_VERSION, fingerprint, settings }), 'utf8');
}

/** A member's subscription userData; null when absent or not ours (another client in the group). */
export function decodeMemberUserData(data: Buffer | null | undefined): { fingerprint: string; settings: ShareSettings } | null {
  const o = parseJson(data);
  if (!o || o.v !== SHARE_USERDATA_VERSION || typeof o.fingerprint !== 'string' || !o.settings || typeof o.settings !== 'object') return null;
  const settings = o.settings as Record<string, unknown>;
  if (!Object.values(settings).every((v) => typeof v === 'string')) return null;
  return { fingerprint: o.fingerprint, settings: settings as ShareSettings };
}

/** The assignment userData the leader gives a member (its partitions travel in the assignment itself). */
export function encodeAssignmentUserData(a: ShareAssignment): Buffer {
  return Buffer.from(JSON.stringify({ v: SHARE_USERDATA_VERSION, partitionCount: a.partitionCount, members: a.members, refused: a.refused, fingerprint: a.fingerprint, differs: a.differs }), 'utf8');
}

/** A member's assignment userData; null when absent or unreadable. */
export function decodeAssignmentUserData(data: Buffer | null | undefined): Omit<ShareAssignment, 'memberId' | 'partitions'> | null {
  const o = parseJson(data);
  if (!o || o.v !== SHARE_USERDATA_VERSION || typeof o.partitionCount !== 'number' || typeof o.members !== 'number' || typeof o.refused !== 'number' || typeof o.fingerprint !== 'string') return null;
  const d = o.differs as Record<string, unknown> | null | undefined;
  const differs = d && typeof d === 'object' && typeof d.setting === 'string' ? { setting: d.setting, ours: typeof d.ours === 'string' ? d.ours : null, theirs: typeof d.theirs === 'string' ? d.theirs : null } : null;
  return { partitionCount: o.partitionCount, members: o.members, refused: o.refused, fingerprint: o.fingerprint, differs };
}

function parseJson(data: Buffer | null | undefined): Record<string, unknown> | null {
  if (!data || data.length === 0) return null;
  try {
    const o: unknown = JSON.parse(data.toString('utf8'));
    return o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
