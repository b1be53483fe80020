/**
 * The readiness of every group of a replication flow that runs in several Node-RED instances
 * (issue 25, item 5). Plain rules, no I/O.
 *
 * Each sharing instance publishes a compact summary of the groups it covers (one readiness per
 * group, never its partitions) to a compacted topic on the flow's target
 * (`mm2-readiness.<source>.internal`, shareSummaryTopic), keyed by instance and chunk:
 * `<instance>#<chunk>`, at most SUMMARY_CHUNK_GROUPS groups a record (10,000 groups are 20
 * records of about 30 kB, never one message with the whole state). On close it tombstones its keys.
 *
 * A reader keeps the chunks (SummaryBoard) and trusts a chunk only while its instance is live:
 * its member id is in the reader's current generation of the sharing group, and it was published
 * less than its `validForMs` ago. A group of the flow that neither the reader nor a live instance
 * covers is not covered, why `no-live-instance`.
 */
import { summarizeReadiness, type GroupReadiness, type MembersOnTarget, type ReadinessSummary, type ReadinessVerdict } from './readiness';

/** Version of the summary records; a record of another version is ignored (a newer instance says more than this one reads). */
export const SUMMARY_VERSION = 1;
/** Groups per summary record: 500 groups of 200-character names stay far below a broker's 1 MB default message size. */
export const SUMMARY_CHUNK_GROUPS = 500;
/** A summary this long past its validity, of an instance no longer a member, is tombstoned by the next publisher (SummaryBoard.abandoned). */
export const ABANDONED_AFTER_MS = 3600000;
/** A chunk whose content did not change is published again this often, to say its instance is alive (a reader trusts it for validForMs; summaryValidForMs). */
export const SUMMARY_REFRESH_MS = 30000;
/** A chunk whose figures only changed (re-reads, partitions per verdict, the partition named) waits this long after its last publication; a verdict that changed goes out at the next full cycle. */
export const SUMMARY_DETAIL_MS = 10000;
/** The `why` of a group that no live instance covers. */
export const NO_LIVE_INSTANCE = 'no-live-instance';

/** The compacted topic the instances of the flow `sourceAlias -> target` publish their summaries to, on the target (MM2's internal-topic style, like `mm2-offset-syncs.<target>.internal`). */
export function shareSummaryTopic(sourceAlias: string): string {
  return `mm2-readiness.${sourceAlias}.internal`;
}

/** An instance's name as an operator recognises it: the host name and the process id (`node-red-1:4242`). */
export function instanceName(hostname: string, pid: number): string {
  return `${hostname}:${pid}`;
}

/** What a publisher says of itself in each of its records. */
export interface SummaryHeader {
  /** instanceName(...) of the publisher. */
  instance: string;
  /** Its member id in the sharing group (what `kafka-consumer-groups --describe` lists as CONSUMER-ID). */
  memberId: string;
  /** The generation of the sharing group it covers these groups in. */
  generation: number;
  /** Epoch ms. */
  publishedAt: number;
  /** How long after `publishedAt` a reader may trust it (the publisher publishes again well before). */
  validForMs: number;
}

/** One record of a summary: a chunk of the publisher's groups. */
export interface SummaryChunk extends SummaryHeader {
  chunk: number;
  chunks: number;
  groups: GroupReadiness[];
}

/** The key of chunk `chunk` of `instance`'s summary. */
export function summaryKey(instance: string, chunk: number): string {
  return `${instance}#${chunk}`;
}

const VERDICTS: readonly ReadinessVerdict[] = ['ready', 'at-risk', 'not-covered'];

/** A group's readiness as a compact row: [group, verdict, why, reread, topic, partition, ready, atRisk, notCovered, membersOnTarget]. */
type Row = [string, number, string | null, number | null, string | null, number | null, number, number, number, MembersOnTarget];

function toRow(g: GroupReadiness): Row {
  return [g.group, VERDICTS.indexOf(g.verdict), g.why, g.reread, g.topic, g.partition, g.ready, g.atRisk, g.notCovered, g.membersOnTarget];
}

function fromRow(r: unknown, coveredBy: string): GroupReadiness | null {
  if (!Array.isArray(r) || r.length < 10 || typeof r[0] !== 'string' || VERDICTS[r[1]] === undefined) return null;
  const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const m = r[9] === true || r[9] === false ? r[9] : 'unknown';
  return Object.freeze({
    group: r[0], verdict: VERDICTS[r[1]], why: strOrNull(r[2]), reread: numOrNull(r[3]), topic: strOrNull(r[4]), partition: numOrNull(r[5]),
    ready: num(r[6]), atRisk: num(r[7]), notCovered: num(r[8]), membersOnTarget: m, coveredBy,
  });
}

/**
 * The records of a summary of `groups` (the publisher's own), SUMMARY_CHUNK_GROUPS a record, in
 * group order. `chunkGroups` is for tests. At least one record (an instance covering no group says so).
 */
export function encodeSummary(h: SummaryHeader, groups: readonly GroupReadiness[], chunkGroups = SUMMARY_CHUNK_GROUPS): Array<{ key: string; value: Buffer }> {
  if (!Number.isInteger(chunkGroups) || chunkGroups < 1) throw new RangeError(`chunkGroups: ${chunkGroups} is not a number of groups >= 1`);
  if (h.instance.length === 0) throw new RangeError('instance: empty; give the instance a name (instanceName(host, pid))');
  const chunks = Math.max(1, Math.ceil(groups.length / chunkGroups));
  const out: Array<{ key: string; value: Buffer }> = [];
  for (let i = 0; i < chunks; i++) {
    const rows = groups.slice(i * chunkGroups, (i + 1) * chunkGroups).map(toRow);
    // publishedAt first: the rest of the record (summaryBody) is the same while nothing changed (a reader compares it, not decodes it)
    const value = { v: SUMMARY_VERSION, publishedAt: h.publishedAt, instance: h.instance, memberId: h.memberId, generation: h.generation, validForMs: h.validForMs, chunk: i, chunks, groups: rows };
    out.push({ key: summaryKey(h.instance, i), value: Buffer.from(JSON.stringify(value), 'utf8') });
  }
  return out;
}

/**
 * How long a reader trusts a chunk: `cycleValidForMs` (a few full-cycle intervals: how late the
 * next cycle may be) past the longest a chunk goes unpublished while nothing changed
 * (`refreshMs`). Liveness first comes from the sharing group: a chunk of an instance no longer a
 * member is not trusted at once (SummaryBoard.isLive); this bound covers what the group cannot say.
 */
export function summaryValidForMs(cycleValidForMs: number, refreshMs = SUMMARY_REFRESH_MS): number {
  return cycleValidForMs + refreshMs;
}

const BODY_PREFIX = Buffer.from(`{"v":${SUMMARY_VERSION},"publishedAt":`, 'utf8');
const COMMA = 0x2c;

/**
 * A record's publication time and the rest of it (everything but `publishedAt`: the same bytes
 * while its content did not change), without decoding it; null when it is not laid out as
 * encodeSummary lays it out (another writer: decodeSummary reads it).
 */
export function summaryBody(value: Buffer): { publishedAt: number; body: Buffer } | null {
  if (value.length <= BODY_PREFIX.length || !value.subarray(0, BODY_PREFIX.length).equals(BODY_PREFIX)) return null;
  const end = value.indexOf(COMMA, BODY_PREFIX.length);
  if (end < 0 || end - BODY_PREFIX.length > 20) return null;
  const publishedAt = Number(value.toString('latin1', BODY_PREFIX.length, end));
  if (!Number.isFinite(publishedAt) || end === BODY_PREFIX.length) return null;
  return { publishedAt, body: value.subarray(end + 1) };
}

/** What a publisher last sent of a chunk (its key): what receivers hold. */
export interface SentChunk {
  /** summaryBody(value).body, copied. */
  body: Buffer;
  /** The chunk's verdicts and header (verdictSignature): what must go out at once when it changes. */
  verdicts: string;
  sentAt: number;
}

/** The parts of a chunk that must reach the readers at once: who publishes it in which generation, and each group's verdict, why and members. */
function verdictSignature(h: SummaryHeader, chunks: number, groups: readonly GroupReadiness[]): string {
  const parts = [h.memberId, String(h.generation), String(h.validForMs), String(chunks)];
  for (const g of groups) parts.push(g.group, g.verdict, g.why ?? '', String(g.membersOnTarget));
  return parts.join('\u0000');
}

export interface SummaryPlan {
  /** The records to send now (the chunks that changed or are due for a refresh). */
  send: Array<{ key: string; value: Buffer }>;
  /** What receivers hold once `send` went out: every chunk of the summary (the caller keeps it after a successful send). */
  sent: Map<string, SentChunk>;
  /** How many chunks the summary has (keys of higher chunks are tombstoned by the caller). */
  chunks: number;
}

export interface PlanOptions {
  refreshMs?: number;
  detailMs?: number;
  chunkGroups?: number;
}

/**
 * Which chunks of this instance's summary to publish now, given what was sent (`sent`, by key):
 * a chunk never sent, or whose publisher, generation or any group's verdict / why / members
 * changed: now; one whose figures only changed: once `detailMs` passed since it was last sent;
 * one that did not change: once `refreshMs` passed (its instance is alive). Pure.
 */
export function planSummary(h: SummaryHeader, groups: readonly GroupReadiness[], sent: ReadonlyMap<string, SentChunk>, o: PlanOptions = {}): SummaryPlan {
  const refreshMs = o.refreshMs ?? SUMMARY_REFRESH_MS;
  const detailMs = o.detailMs ?? SUMMARY_DETAIL_MS;
  const chunkGroups = o.chunkGroups ?? SUMMARY_CHUNK_GROUPS;
  const records = encodeSummary(h, groups, chunkGroups);
  const out: SummaryPlan = { send: [], sent: new Map(), chunks: records.length };
  records.forEach((r, i) => {
    const body = summaryBody(r.value)?.body ?? r.value;
    const verdicts = verdictSignature(h, records.length, groups.slice(i * chunkGroups, (i + 1) * chunkGroups));
    const had = sent.get(r.key);
    const age = had === undefined ? Infinity : h.publishedAt - had.sentAt;
    const due = had === undefined || had.verdicts !== verdicts || (had.body.equals(body) ? age >= refreshMs : age >= detailMs);
    if (due) {
      out.send.push(r);
      out.sent.set(r.key, { body: Buffer.from(body), verdicts, sentAt: h.publishedAt });
    } else {
      out.sent.set(r.key, had);
    }
  });
  return out;
}

/** A summary record's value; null when unreadable or of another version (a tombstone is no record: SummaryBoard.apply takes it). */
export function decodeSummary(value: Buffer): SummaryChunk | null {
  let o: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(value.toString('utf8'));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    o = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  if (o.v !== SUMMARY_VERSION || typeof o.instance !== 'string' || typeof o.memberId !== 'string' || !Array.isArray(o.groups)) return null;
  for (const k of ['generation', 'publishedAt', 'validForMs', 'chunk', 'chunks'] as const) if (typeof o[k] !== 'number' || !Number.isFinite(o[k])) return null;
  const instance = o.instance;
  const groups: GroupReadiness[] = [];
  for (const r of o.groups) {
    const g = fromRow(r, instance);
    if (g !== null) groups.push(g);
  }
  return { instance, memberId: o.memberId, generation: o.generation as number, publishedAt: o.publishedAt as number, validForMs: o.validForMs as number, chunk: o.chunk as number, chunks: o.chunks as number, groups };
}

/** A group as a live instance published it. */
export interface CoveredElsewhere {
  instance: string;
  readiness: GroupReadiness;
  publishedAt: number;
}

/** An instance's summary as a reader sees it now. */
export interface InstanceSummary {
  instance: string;
  memberId: string;
  groups: number;
  publishedAt: number;
  live: boolean;
}

/** The summaries a reader has read, by record key; what the live instances cover. */
export class SummaryBoard {
  private readonly chunks = new Map<string, SummaryChunk>();
  /** summaryBody of the record each chunk was decoded from (a copy): a record with the same body is not decoded again. */
  private readonly bodies = new Map<string, Buffer>();
  /** Records that could not be read (another version, not ours). */
  unreadable = 0;
  /** Records decoded, and records whose content the board held already (only their publication time taken). */
  readonly counts = { decoded: 0, unchanged: 0 };
  /** Changes when what the board holds changes (a chunk's groups, a publication time, a removal). */
  private changes = 0;
  private memo: { changes: number; self: string; members: string | null; until: number; out: Map<string, CoveredElsewhere> } | null = null;

  /** A record of the topic: a value replaces what its key said, a tombstone (null) removes it. */
  apply(key: string, value: Buffer | null): void {
    this.changes++;
    if (value === null) {
      this.chunks.delete(key);
      this.bodies.delete(key);
      return;
    }
    const had = this.chunks.get(key);
    const b = summaryBody(value);
    if (b !== null && had !== undefined && this.bodies.get(key)?.equals(b.body) === true) {
      // the same content published again (its instance is alive): not decoded again
      this.counts.unchanged++;
      if (had.publishedAt < b.publishedAt) this.chunks.set(key, { ...had, publishedAt: b.publishedAt });
      return;
    }
    const c = decodeSummary(value);
    if (c === null) {
      this.unreadable++;
      return;
    }
    this.counts.decoded++;
    // the shared producer may retry a send after a later one: the newer publication of a key stands
    if (had === undefined || had.publishedAt <= c.publishedAt) {
      this.chunks.set(key, c);
      if (b !== null) this.bodies.set(key, Buffer.from(b.body));
      else this.bodies.delete(key);
    }
  }

  get size(): number {
    return this.chunks.size;
  }

  /** Whether chunk `c` is trusted now: its member is in the current generation (`members`; null: unknown, the age alone decides) and it is recent enough. */
  static isLive(c: SummaryHeader, members: ReadonlySet<string> | null, now: number): boolean {
    return (members === null || members.has(c.memberId)) && now - c.publishedAt <= c.validForMs;
  }

  /** The groups live instances other than `self` cover; a group in two live chunks (its share just moved): the newer one. */
  covered(self: string, members: ReadonlySet<string> | null, now: number): Map<string, CoveredElsewhere> {
    // the same answer until a record changes the board, the generation changes, or a live chunk expires
    const memberKey = members === null ? null : [...members].sort().join('\u0000');
    const m = this.memo;
    if (m !== null && m.changes === this.changes && m.self === self && m.members === memberKey && now <= m.until) return m.out;
    const out = new Map<string, CoveredElsewhere>();
    let until = Infinity;
    for (const c of this.chunks.values()) {
      if (c.instance === self || !SummaryBoard.isLive(c, members, now)) continue;
      until = Math.min(until, c.publishedAt + c.validForMs);
      for (const g of c.groups) {
        const had = out.get(g.group);
        if (had === undefined || had.publishedAt < c.publishedAt) out.set(g.group, { instance: c.instance, readiness: g, publishedAt: c.publishedAt });
      }
    }
    this.memo = { changes: this.changes, self, members: memberKey, until, out };
    return out;
  }

  /**
   * Keys of summaries left by instances gone without a tombstone (`kill -9`, a host lost): not a
   * member of the current generation (`members`, required) and past their validity by more than
   * `graceMs`. The next instance that publishes tombstones them, so dead instances do not pile
   * up in the compacted topic.
   */
  abandoned(self: string, members: ReadonlySet<string>, now: number, graceMs = ABANDONED_AFTER_MS): string[] {
    const out: string[] = [];
    for (const [key, c] of this.chunks) {
      if (c.instance !== self && !members.has(c.memberId) && now - c.publishedAt > c.validForMs + graceMs) out.push(key);
    }
    return out;
  }

  /** Every instance that published (`self` included), live or not, by name. */
  instances(members: ReadonlySet<string> | null, now: number): InstanceSummary[] {
    const by = new Map<string, InstanceSummary>();
    for (const c of this.chunks.values()) {
      const live = SummaryBoard.isLive(c, members, now);
      const had = by.get(c.instance);
      if (had === undefined || had.publishedAt < c.publishedAt) by.set(c.instance, { instance: c.instance, memberId: c.memberId, groups: (had?.groups ?? 0) + c.groups.length, publishedAt: c.publishedAt, live: live || (had?.live ?? false) });
      else by.set(c.instance, { ...had, groups: had.groups + c.groups.length, live: had.live || live });
    }
    return [...by.values()].sort((a, b) => (a.instance < b.instance ? -1 : a.instance > b.instance ? 1 : 0));
  }
}

/** A group no live instance covers: not ready, and why. */
export function uncoveredReadiness(group: string): GroupReadiness {
  return Object.freeze({ group, verdict: 'not-covered', why: NO_LIVE_INSTANCE, reread: null, topic: null, partition: null, ready: 0, atRisk: 0, notCovered: 0, membersOnTarget: 'unknown', coveredBy: null });
}

export interface MergeInput {
  /** This instance's readiness (the groups it covers). */
  own: ReadinessSummary;
  /** This instance's name: its groups say so. */
  self: string;
  /** Every group of the flow (the last discovery, before the share); null: not known, the groups covered somewhere are all there is. */
  all: readonly string[] | null;
  /** What live instances other than this one cover (SummaryBoard.covered). */
  elsewhere: ReadonlyMap<string, CoveredElsewhere>;
  /** Whether this instance owns a group now: a group it took and has not translated yet is its own, its offsets not listed yet. */
  owns?: (group: string) => boolean;
}

/**
 * Every group of the flow, each with the instance that covers it (`coveredBy`; null: none):
 * this instance's own groups from its state, the others' from their live summaries, and the rest
 * not covered (`why`: NO_LIVE_INSTANCE), in group order, counted as summarizeReadiness counts.
 */
export function mergeReadiness(m: MergeInput): ReadinessSummary {
  const out = new Map<string, GroupReadiness>();
  for (const g of m.own.groups) out.set(g.group, Object.freeze({ ...g, coveredBy: m.self }));
  const names = new Set<string>(m.all ?? []);
  for (const g of m.elsewhere.keys()) names.add(g);
  for (const group of names) {
    if (out.has(group)) continue;
    const there = m.elsewhere.get(group);
    if (there !== undefined && !(m.owns?.(group) ?? false)) out.set(group, there.readiness.coveredBy === there.instance ? there.readiness : Object.freeze({ ...there.readiness, coveredBy: there.instance }));
    else if (m.owns?.(group)) out.set(group, Object.freeze({ group, verdict: 'not-covered', why: 'offsets-not-listed', reread: null, topic: null, partition: null, ready: 0, atRisk: 0, notCovered: 0, membersOnTarget: 'unknown', coveredBy: m.self }));
    else out.set(group, uncoveredReadiness(group));
  }
  const groups = [...out.values()].sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  return summarizeReadiness(groups, m.own.thresholds, m.own.listedAt);
}
