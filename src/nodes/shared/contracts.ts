/**
 * The messages our flow nodes send each other: documented contracts (the help text of each
 * node and the README restate them). Offsets are decimal strings so that messages survive
 * JSON (debug sidebar, context, MQTT, files) without losing int64 precision.
 *
 *   mm2-mirror ──(writes offset syncs to Kafka)
 *   mm2-replication (config node): one offset-sync feed ──▶ mm2-checkpoint, mm2-failback, mm2-offset-syncs
 *   mm2-offset-syncs ──OffsetSyncsMessage (a report, for debug nodes and dashboards)
 *   mm2-checkpoint ──CheckpointsMessage──▶ mm2-group-offsets
 *        └──CoverageMessage (2nd output)
 *   mm2-failback ──FailbackMessage
 *   mm2-heartbeat ──HeartbeatMessage / HeartbeatAlarmMessage
 *   mm2-mirror ──MirrorStatsMessage (periodic stats)
 *   mm2-connect ──ConnectMessage (after each action, and a poll whose states changed)
 */
import { parseOffset, type CheckpointJsonLike } from '../../core/checkpoint-json';
import { CheckpointColumns, LatestColumns, defineOnRead, payloadOnRead } from './checkpoints-on-read';
import type { SwitchoverReport } from '../../core/switchover';
import type { OffsetSync } from '../../core/types';
import { coverageEntries, defineEntriesOnRead, entriesOf, statusCounts } from './coverage-entries';
import type { GroupReadiness, MembersOnTarget, ReadinessVerdict } from '../../core/readiness';
import type { CycleResult, SyncEvent } from '../../engines/checkpoint-emitter';
import type { MirrorStats } from '../../engines/mirror-task';
import type { GroupOffsetsCycle } from '../../engines/group-offset-syncer';
import type { FailbackCycle, FailbackGroupState, FailbackSkip } from '../../engines/failback';
import type { ObservedHeartbeat } from '../../engines/heartbeat-watcher';
import type { ConnectorKind } from '../../core/config-properties';
import { traceSummary } from '../../kafka/connect-rest';
import type { ConnectAction, ConnectorOutcome } from '../../engines/connect-deployer';

/** Offset sync as carried in messages. */
export interface OffsetSyncJson {
  /** Source topic name (as on the source cluster). */
  topic: string;
  partition: number;
  upstreamOffset: string;
  downstreamOffset: string;
}

/** Checkpoint as carried in messages. `topic` is the remote (target) topic name. */
export type CheckpointJson = CheckpointJsonLike;

/** The result of reading one incoming message as an OffsetSyncsMessage. */
export interface ReceivedSyncs {
  event: SyncEvent;
  /** Sync entries that could not be read (skipped). */
  malformed: number;
  /** The offset-syncs topic the sender read, when it says. */
  sourceTopic?: string;
}

/**
 * Reads `msg` as an OffsetSyncsMessage; null when it is something else. mm2-checkpoint and
 * mm2-failback take their syncs from the replication's feed: one arriving on their input (a wire
 * kept from an older flow) is recognised and left aside.
 */
export function readOffsetSyncsMessage(msg: { topic?: unknown; payload?: unknown }): ReceivedSyncs | null {
  const p = msg.payload as { event?: unknown; syncs?: unknown; source?: { topic?: unknown } } | undefined;
  if (!p || typeof p !== 'object') return null;
  if (p.event !== 'syncs' && p.event !== 'loaded' && p.event !== 'reset') return null;
  if (msg.topic !== TOPICS.offsetSyncs && p.source === undefined && !Array.isArray(p.syncs)) return null;
  const sourceTopic = typeof p.source?.topic === 'string' ? p.source.topic : undefined;
  if (p.event !== 'syncs') return { event: { event: p.event }, malformed: 0, sourceTopic };
  const syncs: OffsetSync[] = [];
  let malformed = 0;
  for (const s of Array.isArray(p.syncs) ? p.syncs : []) {
    const e = s as { topic?: unknown; partition?: unknown; upstreamOffset?: unknown; downstreamOffset?: unknown } | null;
    const up = parseOffset(e?.upstreamOffset);
    const down = parseOffset(e?.downstreamOffset);
    if (!e || typeof e.topic !== 'string' || e.topic === '' || !Number.isInteger(e.partition) || (e.partition as number) < 0 || up === null || down === null) {
      malformed++;
      continue;
    }
    syncs.push({ topic: e.topic, partition: e.partition as number, upstreamOffset: up, downstreamOffset: down });
  }
  return { event: { event: 'syncs', syncs }, malformed, sourceTopic };
}

/**
 * mm2-offset-syncs output (a report of the replication's offset-sync feed; nothing needs it wired). `event: 'syncs'` carries a batch of syncs in log order (during the
 * initial load and while tailing); `event: 'loaded'` is sent exactly once per start, after the
 * last sync that existed when the reader started: from then on translation is allowed (MM2's
 * readToEnd). `event: 'reset'` tells consumers that the reader restarted and a new initial
 * load follows (drop the store).
 */
export interface OffsetSyncsMessage {
  topic: string; // 'mm2/offset-syncs'
  payload: {
    event: 'syncs' | 'loaded' | 'reset';
    /** Present for 'syncs'. */
    syncs?: OffsetSyncJson[];
    /** The offset-syncs topic and the alias of the cluster it lives on. */
    source: { topic: string; cluster: string };
    /** Counters since the reader started. */
    stats: { read: number; malformed: number; loaded: boolean };
  };
}

/** The OffsetSyncsMessage of one event of a reader of `source`. */
export function offsetSyncsMessage(
  event: OffsetSyncsMessage['payload']['event'],
  source: { topic: string; cluster: string },
  stats: OffsetSyncsMessage['payload']['stats'],
  syncs?: OffsetSync[],
): OffsetSyncsMessage {
  const payload: OffsetSyncsMessage['payload'] = { event, source, stats };
  if (syncs) {
    payload.syncs = syncs.map((s) => ({ topic: s.topic, partition: s.partition, upstreamOffset: s.upstreamOffset.toString(), downstreamOffset: s.downstreamOffset.toString() }));
  }
  return { topic: TOPICS.offsetSyncs, payload };
}

/** mm2-checkpoint output 1, once per completed cycle (also one that wrote nothing): the whole state. */
export interface CheckpointsMessage {
  topic: string; // 'mm2/checkpoints'
  payload: {
    /** The checkpoints written in this cycle (possibly none). */
    checkpoints: CheckpointJson[];
    /** The latest checkpoint of every partition of the groups it names (restored + emitted,
     * acknowledged by the target), a report for debug nodes, dashboards and a group-offset
     * writer in another Node-RED (mode input): those of this Node-RED read the checkpoint store in
     * the replication's runtime. Whole (`full: true`) on the first full cycle after a start and to
     * a message that asked for a cycle; otherwise only the groups whose checkpoints changed since
     * the last message. */
    latest: Record<string, CheckpointJson[]>;
    /** true: `latest` holds every selected group (the whole state). false: only the groups that
     * changed (an event-driven partial cycle, or a full cycle after the whole state was sent);
     * merge it. Absent (older senders): treat as true. */
    full?: boolean;
    /** true when the cycle behind the message was a full one (every selected group read and translated). */
    fullCycle?: boolean;
    cycle: number;
    sourceCluster: string;
    targetCluster: string;
    checkpointsTopic: string;
  };
}

/** Why a selected group partition has, or has no, checkpoint. Mirrors core CoverageEntry. */
export interface CoverageJson {
  group: string;
  topic: string;
  partition: number;
  remoteTopic: string | null;
  upstreamOffset: string | null;
  status: string;
  downstreamOffset?: string;
  reason: string;
  /** Failover readiness: 'ready', 'at-risk' (re-reads more than readyMaxReread) or 'not-covered' (no checkpoint to resume from; `reason` says why). */
  readiness: ReadinessVerdict;
  /** At most this many records a consumer failing over now would read again on this partition (0: the translation is exact); null when not covered. */
  reread: number | null;
  /** When the source offsets the partition's newest checkpoint reflects were listed (epoch ms, the checkpoints topic's record timestamp); null without one. */
  checkpointAt: number | null;
  /**
   * Whether the group has members on the target (the target's group listing of the last full
   * cycle): true (a state other than Empty or Dead: mm2-group-offsets does not write the group,
   * a failover resumes where its consumers on the target committed; `reason` says so), false
   * (Empty, Dead or not listed), 'unknown' (the listing failed, or the principal may not describe
   * the group: DESCRIBE on the group on the target).
   */
  membersOnTarget: MembersOnTarget;
  /** 'emitted' after a rewind of the group on the source: the upstream offset it was rewound from ('rewound-to-start': see `status`). */
  rewoundFrom?: string;
  /** The flow runs in several Node-RED instances (docs/scale-out.md): the instance covering the group, `host:pid`. Absent while this instance never shared the flow. */
  coveredBy?: string;
}

/** One group's readiness in a CoverageMessage: its worst partition. */
export type GroupReadinessJson = GroupReadiness;

/** mm2-checkpoint output 2, once per cycle. */
export interface CoverageMessage {
  topic: string; // 'mm2/coverage'
  payload: {
    cycle: number;
    groups: number;
    partitions: number;
    /** Count per status ('emitted', 'unchanged', 'no-sync', ...). */
    summary: Record<string, number>;
    entries: CoverageJson[];
    /** Groups whose offsets could not be listed this cycle, with the error. */
    failedGroups: Array<{ group: string; error: string }>;
    /**
     * Groups the group filter accepts of a type MirrorMaker 2 never checkpoints (`type`: `streams`,
     * `share`), from the source's last group listing, with why (`reason`): never checkpointed.
     */
    notReplicatedGroups: ReadonlyArray<{ group: string; type: string; reason: string }>;
    durationMs: number;
    /** Every selected group's failover readiness (groups whose offsets could not be listed included), counted; `worst` is what the status shows. */
    readiness?: {
      ready: number;
      atRisk: number;
      notCovered: number;
      thresholds: { maxReread: number; maxAgeSeconds: number };
      /** When this cycle listed the groups' offsets (epoch ms); `listedAt - entries[].checkpointAt` is how long a partition's newest checkpoint has stood (0: written this cycle). */
      listedAt: number | null;
      groups: GroupReadinessJson[];
      worst: GroupReadinessJson | null;
      /** Groups with members on the target, and groups for which that is unknown. */
      withMembersOnTarget: number;
      membersUnknown: number;
      /** Why the target's groups could not be listed (every membersOnTarget is 'unknown'). */
      targetGroupsError?: string;
      /**
       * The flow runs in several Node-RED instances (docs/scale-out.md): `groups` and the counts are
       * every group of the flow, each with `coveredBy` (null: no live instance covers it, `why`
       * 'no-live-instance'); `instance` is this one, `instances` every instance that published
       * its summary. Absent while this instance never shared the flow.
       */
      instance?: string;
      instances?: Array<{ instance: string; memberId: string; groups: number; publishedAt: number; live: boolean }>;
    };
  };
}

/**
 * The CheckpointsMessage payload of a completed cycle: what it wrote, and the checkpoints of the
 * groups `groups` of the cycle's `latest` (default: all of them; `whole` says whether they are every
 * selected group's), read now; their entries are made when first read (nodes/shared/checkpoints-on-read).
 */
export function checkpointsPayload(
  r: CycleResult,
  where: { sourceCluster: string; targetCluster: string; checkpointsTopic: string },
  send: { groups?: readonly string[]; whole?: boolean } = {},
): CheckpointsMessage['payload'] {
  const written = new CheckpointColumns(r.written.length);
  for (let i = 0; i < r.written.length; i++) written.add(r.written[i]);
  let latest: LatestColumns;
  if (send.groups === undefined) latest = LatestColumns.of(r.latest);
  else {
    latest = new LatestColumns();
    for (let i = 0; i < send.groups.length; i++) {
      const list = r.latest.get(send.groups[i]);
      if (list !== undefined) latest.add(send.groups[i], list);
    }
  }
  // the keys in the order they always had
  const payload = payloadOnRead<CheckpointsMessage['payload']>({ checkpoints: [], latest: {}, full: send.whole ?? r.full, fullCycle: r.full, cycle: r.cycle, ...where });
  defineOnRead(payload, 'checkpoints', () => written.jsonList());
  defineOnRead(payload, 'latest', () => latest.record());
  return payload;
}

export { MEMBERS_ON_TARGET_REASON } from './coverage-entries';

/** The CoverageMessage payload of a cycle (its entries made when read). */
export function coveragePayload(r: CycleResult): CoverageMessage['payload'] {
  // counted from the compact rows; the entries are made when read
  const { summary, partitions } = statusCounts(r);
  const members = r.membersOnTarget;
  const payload = {
    cycle: r.cycle,
    groups: r.groups.length,
    partitions,
    summary,
    entries: [],
    failedGroups: r.failedGroups,
    notReplicatedGroups: r.notReplicatedGroups ?? [],
    durationMs: r.durationMs,
  } as CoverageMessage['payload'];
  defineEntriesOnRead(payload, () => coverageEntries(entriesOf(r), members));
  const rd = r.readiness;
  if (rd !== undefined) {
    payload.readiness = {
      ready: rd.ready,
      atRisk: rd.atRisk,
      notCovered: rd.notCovered,
      thresholds: { maxReread: rd.thresholds.maxReread, maxAgeSeconds: rd.thresholds.maxAgeMs / 1000 },
      listedAt: rd.listedAt,
      groups: rd.groups,
      worst: rd.worst,
      withMembersOnTarget: rd.withMembersOnTarget,
      membersUnknown: rd.membersUnknown,
    };
    if (r.targetGroupsError !== undefined) payload.readiness.targetGroupsError = r.targetGroupsError;
  }
  return payload;
}

/** mm2-group-offsets output, once per sync cycle. */
export interface GroupOffsetsMessage {
  topic: string; // 'mm2/group-offsets'
  payload: {
    cycle: number;
    written: Array<{ group: string; offsets: Array<{ topic: string; partition: number; offset: string }> }>;
    /** Groups not written this cycle. code: 'group-active' (state, or UNKNOWN_MEMBER_ID at commit),
     * 'up-to-date', 'nothing-to-write' (e.g. its topics are missing on the target), 'error',
     * 'fenced' (the flow runs in several instances and this one's lease on its share did not hold: written by a later run). */
    skipped: Array<{ group: string; reason: string; code: string; state?: string }>;
    /** Partitions left alone inside groups that were examined (target ahead, missing topic...);
     * partitions that are merely up to date are not listed. */
    partitionsSkipped: Array<{ group: string; topic: string; partition: number; code: string; reason: string }>;
    /** Added: written partitions whose checkpoint was beyond the target log end and was lowered to it. */
    clamped?: Array<{ group: string; topic: string; partition: number; checkpointOffset: string; offset: string; reason: string }>;
    /**
     * Added: written partitions whose target offset was moved back, once, to follow a deliberate
     * rewind of the group on the source (`followRewinds`); they are also in `written`.
     */
    rewound?: Array<{ group: string; topic: string; partition: number; targetOffset: string; offset: string; fromUpstream: string; toUpstream: string; reason: string }>;
    /** Added: the checkpoints the writer holds (all groups, before the group filter) and malformed inputs skipped so far. */
    checkpoints?: { groups: number; partitions: number; received: number; malformed: number };
    durationMs: number;
  };
}

/** The GroupOffsetsMessage payload of a sync cycle: the syncer's result, offsets as decimal strings. */
export function groupOffsetsPayload(cycle: GroupOffsetsCycle): GroupOffsetsMessage['payload'] {
  return {
    cycle: cycle.cycle,
    written: cycle.written.map((w) => ({ group: w.group, offsets: w.offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset.toString() })) })),
    skipped: cycle.skipped,
    partitionsSkipped: cycle.partitionsSkipped,
    clamped: cycle.clamped.map((c) => ({ ...c, checkpointOffset: c.checkpointOffset.toString(), offset: c.offset.toString() })),
    rewound: cycle.rewound.map((r) => ({
      ...r,
      targetOffset: r.targetOffset.toString(),
      offset: r.offset.toString(),
      fromUpstream: r.fromUpstream.toString(),
      toUpstream: r.toUpstream.toString(),
    })),
    checkpoints: cycle.checkpoints,
    durationMs: cycle.durationMs,
  };
}

/**
 * mm2-group-offsets' answer to a planned switchover (`msg.action = 'switchover'`, nodes/shared/switchover-request):
 * per group ok or refused with the reasons, per partition where a consumer on the target starts
 * and how many records it re-reads at most (core/switchover).
 */
export interface SwitchoverMessage {
  topic: string; // 'mm2/switchover'
  payload: SwitchoverReport;
}

/** mm2-failback output, once per cycle: where each group on a remote topic stands on the source, and what was written there. */
export interface FailbackMessage {
  topic: string; // 'mm2/failback'
  payload: {
    cycle: number;
    /** The cluster written to (the replication flow's source) and the one read (its target). */
    sourceCluster: string;
    targetCluster: string;
    /** Per group with an offset on a remote topic of the flow. */
    groups: Array<{ group: string; state: FailbackGroupState; targetState?: string; reason?: string }>;
    /** Per group partition on a remote topic: the target offset, and the source offset it translates to (or why not). */
    partitions: Array<{
      group: string;
      topic: string;
      partition: number;
      targetOffset: string;
      sourceTopic: string;
      sourceOffset?: string;
      exact?: boolean;
      sync?: { upstreamOffset: string; downstreamOffset: string };
      reread?: string;
      skip?: FailbackSkip;
    }>;
    /** Target groups whose offsets could not be read. */
    readFailed: Array<{ group: string; reason: string }>;
    /** What the group-offset writer did on the SOURCE cluster (its "target"), as mm2-group-offsets reports it. */
    write: GroupOffsetsMessage['payload'];
    durationMs: number;
  };
}

/** The FailbackMessage payload of a cycle, offsets as decimal strings. */
export function failbackPayload(r: FailbackCycle, clusters: { source: string; target: string }): FailbackMessage['payload'] {
  return {
    cycle: r.cycle,
    sourceCluster: clusters.source,
    targetCluster: clusters.target,
    groups: r.groups,
    partitions: r.entries.map((e) => ({
      group: e.group,
      topic: e.topic,
      partition: e.partition,
      targetOffset: e.targetOffset.toString(),
      sourceTopic: e.sourceTopic,
      ...(e.sourceOffset !== undefined ? { sourceOffset: e.sourceOffset.toString(), exact: e.exact } : {}),
      ...(e.sync !== undefined ? { sync: { upstreamOffset: e.sync.upstreamOffset.toString(), downstreamOffset: e.sync.downstreamOffset.toString() } } : {}),
      ...(e.reread !== undefined ? { reread: e.reread.toString() } : {}),
      ...(e.skip !== undefined ? { skip: e.skip } : {}),
    })),
    readFailed: r.readFailed,
    write: groupOffsetsPayload(r.write),
    durationMs: r.durationMs,
  };
}

/** mm2-heartbeat output 1: one per replicated heartbeat seen on the target. */
export interface HeartbeatMessage {
  topic: string; // 'mm2/heartbeat'
  payload: {
    sourceClusterAlias: string;
    targetClusterAlias: string;
    /** Emission time (epoch ms) from the record. */
    timestamp: number;
    /** Now minus timestamp, in ms: end-to-end replication latency. */
    latencyMs: number;
    /** The topic it was read from, e.g. `source.heartbeats`. */
    heartbeatsTopic: string;
  };
}

/** mm2-heartbeat output 2: raised when no heartbeat arrives within the stale time, cleared when one does. */
export interface HeartbeatAlarmMessage {
  topic: string; // 'mm2/heartbeat-alarm'
  payload: {
    state: 'stale' | 'ok';
    lastSeen: number | null;
    ageMs: number | null;
    staleAfterMs: number;
    /** true: not a new edge but the current state again, after a deploy that may have replaced the receivers. */
    resent?: boolean;
  };
}

/** The HeartbeatMessage of one heartbeat read back from `heartbeatsTopic` on the target. */
export function heartbeatMessage(hb: ObservedHeartbeat, heartbeatsTopic: string): HeartbeatMessage {
  return {
    topic: TOPICS.heartbeat,
    payload: {
      sourceClusterAlias: hb.sourceClusterAlias,
      targetClusterAlias: hb.targetClusterAlias,
      timestamp: hb.timestamp,
      latencyMs: hb.latencyMs,
      heartbeatsTopic,
    },
  };
}

/** The HeartbeatAlarmMessage of an alarm edge, or (`resent`) of the current state again. */
export function heartbeatAlarmMessage(a: HeartbeatAlarmMessage['payload']): HeartbeatAlarmMessage {
  return { topic: TOPICS.heartbeatAlarm, payload: { ...a } };
}

/**
 * mm2-mirror output, every ~5 s while the node runs. Counters are totals since the node
 * started; `recordsPerSecond` is over the last interval. `lagBySourcePartition` maps
 * `<source topic>-<partition>` to the records the source partition held beyond the last
 * record acknowledged by the target (as of the last fetch of that partition).
 */
export interface MirrorStatsMessage {
  topic: string; // 'mm2/mirror'
  payload: {
    sourceCluster: string;
    targetCluster: string;
    /** Source topics being mirrored, sorted. */
    topics: string[];
    /** Source topic -> remote topic on the target. */
    remoteTopics: Record<string, string>;
    /** Number of source partitions subscribed. */
    partitions: number;
    records: number;
    bytes: number;
    recordsPerSecond: number;
    /** Offset syncs acknowledged by the offset-syncs topic / failed writes (each written again until it lands; MM2 drops them). */
    syncsSent: number;
    syncsFailed: number;
    /** The offset-syncs topic, or null with emit.offset-syncs.enabled=false. */
    offsetSyncsTopic: string | null;
    lagBySourcePartition: Record<string, number>;
    /** Source progress committed to the mirror's own group on the source (at-least-once restart point). */
    committedPartitions: number;
    /** Source partitions this instance copies now, and the instances of the flow sharing them (issue 25; alone: all, 1). */
    ownedPartitions: number;
    instances: number;
    /** Records copied again that the target had already (an instance died or could not commit before its partitions moved). */
    duplicates: number;
    /** The last error still unresolved, if any. */
    error: string | null;
  };
}

/** The MirrorStatsMessage payload of the mirror's stats, `recordsPerSecond` over the last interval. */
export function mirrorStatsPayload(
  s: MirrorStats,
  recordsPerSecond: number,
  where: { sourceCluster: string; targetCluster: string; offsetSyncsTopic: string | null },
): MirrorStatsMessage['payload'] {
  const errors = Object.values(s.errors);
  return {
    sourceCluster: where.sourceCluster,
    targetCluster: where.targetCluster,
    topics: s.topics,
    remoteTopics: s.remoteTopics,
    partitions: s.partitions,
    records: s.records,
    bytes: s.bytes,
    recordsPerSecond: Math.round(recordsPerSecond * 10) / 10,
    syncsSent: s.syncsSent,
    syncsFailed: s.syncsFailed,
    offsetSyncsTopic: where.offsetSyncsTopic,
    lagBySourcePartition: s.lagBySourcePartition,
    committedPartitions: s.committedPartitions,
    ownedPartitions: s.ownedPartitions,
    instances: s.instances,
    duplicates: s.duplicates,
    error: errors.length > 0 ? errors[errors.length - 1] ?? null : null,
  };
}

/** One connector in a ConnectMessage. */
export interface ConnectorStateJson {
  kind: ConnectorKind;
  name: string;
  /** Connect's state, or null when the connector is not on the Connect cluster. */
  state: string | null;
  workerId?: string;
  /** First line and root cause of the Java stack trace of a FAILED connector. */
  trace?: string;
  tasks: Array<{ id: number; state: string; workerId?: string; trace?: string }>;
  /** What the action did to this connector: created, updated, paused, resumed, restarted, deleted, absent. */
  result?: string;
}

/** mm2-connect output: after each action, and after a periodic status poll whose states changed. */
export interface ConnectMessage {
  topic: string; // 'mm2/connect'
  action: ConnectAction | 'poll';
  payload: {
    action: ConnectAction | 'poll';
    url: string;
    /** True when every connector is in the state the action asks for (RUNNING after deploy...). */
    ok: boolean;
    /** False when the states were still changing after the wait. */
    settled: boolean;
    connectors: ConnectorStateJson[];
    /** state -> number of connectors. */
    summary: Record<string, number>;
  };
}

/** The ConnectMessage entry of one connector. */
export function connectorStateJson(o: ConnectorOutcome): ConnectorStateJson {
  const s = o.status;
  const out: ConnectorStateJson = {
    kind: o.kind,
    name: s.name,
    state: s.state,
    tasks: s.tasks.map((t) => ({
      id: t.id,
      state: t.state,
      ...(t.workerId ? { workerId: t.workerId } : {}),
      ...(t.trace ? { trace: traceSummary(t.trace) } : {}),
    })),
  };
  if (s.workerId) out.workerId = s.workerId;
  if (s.trace) out.trace = traceSummary(s.trace);
  if (o.result) out.result = o.result;
  return out;
}

/** The ConnectMessage payload (with its per-state summary). */
export function connectPayload(action: ConnectMessage['payload']['action'], url: string, list: ConnectorStateJson[], ok: boolean, settled: boolean): ConnectMessage['payload'] {
  const summary: Record<string, number> = {};
  for (const c of list) {
    const k = c.state ?? 'ABSENT';
    summary[k] = (summary[k] ?? 0) + 1;
  }
  return { action, url, ok, settled, connectors: list, summary };
}

export const TOPICS = {
  offsetSyncs: 'mm2/offset-syncs',
  checkpoints: 'mm2/checkpoints',
  coverage: 'mm2/coverage',
  groupOffsets: 'mm2/group-offsets',
  failback: 'mm2/failback',
  heartbeat: 'mm2/heartbeat',
  heartbeatAlarm: 'mm2/heartbeat-alarm',
  mirror: 'mm2/mirror',
  connect: 'mm2/connect',
  switchover: 'mm2/switchover',
} as const;
