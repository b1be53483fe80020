/**
 * MM2's `sync.group.offsets` (MirrorCheckpointTask.syncGroupOffset), done safely, without Node-RED: keeps the latest
 * checkpoint per (group, remote partition) and, per cycle, writes the translated offsets of
 * every selected group to the TARGET cluster with one admin-style OffsetCommit per group.
 *
 * Per group and cycle: describe the group on the target, read its committed offsets and the
 * log-end offsets of the checkpointed topics, let the core decide (`decideGroupOffsetSync`:
 * never backwards, clamp at the log end, skip active groups, skip missing topics), then commit.
 * UNKNOWN_MEMBER_ID from the broker means the group became active meanwhile: reported as
 * skipped, nothing written. Cycles never overlap.
 *
 * Checkpoints come either from messages (`applyCheckpointsJson`, the checkpoint emitter's
 * `payload.latest`) or from the checkpoints topic itself (`CheckpointsTopicFollower`), which
 * also works beside a real MM2 checkpoint connector.
 */
import type { Admin, Kafka } from 'kafkajs';
import { decodeValidCheckpoint } from '../core/checkpoint';
import { parseCheckpointJson } from '../core/checkpoint-json';
import { MalformedRecordError } from '../core/errors';
import type { NameFilter } from '../core/filters';
import { decideGroupOffsetSync, isWritableGroupState, type TargetEndOffset } from '../core/group-offset-sync';
import type { Checkpoint } from '../core/types';
import { explainKafkaError } from './client';
import { describeGroupState, fetchCommittedOffsets, fetchEndOffsets, type AdminCommitResult } from './groups';
import { TopicReader, type RawRecord } from './topic-reader';

/** What the syncer needs from a cluster connection (ClusterConnection fits). */
export interface SyncerConnection {
  admin(): Promise<Admin>;
  committer(): {
    commit(group: string, offsets: Array<{ topic: string; partition: number; offset: bigint; metadata?: string }>): Promise<AdminCommitResult>;
  };
  reportOk(): void;
  /** Marks the connection failed (its users show it); optional. */
  reportError?(err: unknown): string;
}

/** Group-level outcome codes of a cycle (besides being written). */
export type GroupSkipCode =
  /** The target group has members (described state, or the broker refused with UNKNOWN_MEMBER_ID). */
  | 'group-active'
  /** Every checkpointed partition already has this offset or a newer one on the target. */
  | 'up-to-date'
  /** Nothing could be written: the remaining partitions are missing on the target or invalid. */
  | 'nothing-to-write'
  /** Reading the group or committing failed; see the reason. */
  | 'error';

export interface WrittenGroup {
  group: string;
  offsets: Array<{ topic: string; partition: number; offset: bigint }>;
}
export interface SkippedGroup {
  group: string;
  reason: string;
  code: GroupSkipCode;
  state?: string;
}
export interface SkippedPartition {
  group: string;
  topic: string;
  partition: number;
  code: string;
  reason: string;
}
export interface ClampedPartition {
  group: string;
  topic: string;
  partition: number;
  checkpointOffset: bigint;
  offset: bigint;
  reason: string;
}

export interface CheckpointStats {
  /** Groups and partitions with a checkpoint (before the group filter). */
  groups: number;
  partitions: number;
  /** Checkpoints accepted so far (records or message entries). */
  received: number;
  /** Malformed records / message entries skipped so far. */
  malformed: number;
}

/** One cycle's result (domain values; the node's GroupOffsetsMessage is its JSON, see nodes/lib/contracts). */
export interface GroupOffsetsCycle {
  cycle: number;
  written: WrittenGroup[];
  skipped: SkippedGroup[];
  partitionsSkipped: SkippedPartition[];
  clamped: ClampedPartition[];
  checkpoints: CheckpointStats;
  durationMs: number;
}

export interface GroupOffsetSyncerOptions {
  connection: SyncerConnection;
  /** Which groups to write (MM2 `groups` / `groups.exclude`). */
  groupFilter: NameFilter;
  /** Groups handled at the same time in a cycle. Default 4. */
  concurrency?: number;
  now?: () => number;
}

function key(topic: string, partition: number): string {
  return `${partition}:${topic}`;
}

export class GroupOffsetSyncer {
  private readonly byGroup = new Map<string, Map<string, Checkpoint>>();
  private received = 0;
  private malformedCount = 0;
  private cycleNo = 0;
  private running: Promise<GroupOffsetsCycle> | null = null;
  private queued: Promise<GroupOffsetsCycle> | null = null;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly opts: GroupOffsetSyncerOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Whether a cycle is in progress. */
  get busy(): boolean {
    return this.running !== null;
  }

  get stats(): CheckpointStats {
    let partitions = 0;
    for (const m of this.byGroup.values()) partitions += m.size;
    return { groups: this.byGroup.size, partitions, received: this.received, malformed: this.malformedCount };
  }

  /** Stores one checkpoint: the last one per (group, remote partition) wins. */
  put(cp: Checkpoint): void {
    let m = this.byGroup.get(cp.group);
    if (!m) {
      m = new Map();
      this.byGroup.set(cp.group, m);
    }
    m.set(key(cp.topic, cp.partition), cp);
    this.received++;
  }

  /** The stored checkpoints of a group. */
  checkpointsOf(group: string): Checkpoint[] {
    return [...(this.byGroup.get(group)?.values() ?? [])];
  }

  /**
   * Merges a CheckpointsMessage's `payload.latest` (group -> CheckpointJson[]). Unusable
   * entries are skipped and counted; returns how many were taken and how many skipped.
   */
  applyCheckpointsJson(latest: Record<string, unknown>): { accepted: number; malformed: number } {
    let accepted = 0;
    let malformed = 0;
    for (const [group, list] of Object.entries(latest)) {
      if (!Array.isArray(list)) {
        malformed++;
        continue;
      }
      for (const entry of list) {
        const cp = parseCheckpointJson(entry, group);
        if (cp) {
          this.put(cp);
          accepted++;
        } else {
          malformed++;
        }
      }
    }
    this.malformedCount += malformed;
    return { accepted, malformed };
  }

  /**
   * Decodes and stores one record of the checkpoints topic. A malformed record is counted and
   * its MalformedRecordError returned (never thrown); null when the record was stored.
   */
  applyRecord(r: Pick<RawRecord, 'key' | 'value'>): MalformedRecordError | null {
    try {
      this.put(decodeValidCheckpoint(r.key, r.value));
      return null;
    } catch (e) {
      this.malformedCount++;
      return e instanceof MalformedRecordError ? e : new MalformedRecordError(String((e as Error)?.message ?? e));
    }
  }

  /**
   * Runs a cycle now. If one is running, the request is queued (several requests share one
   * follow-up cycle), so the caller gets a cycle that started after its request.
   */
  sync(): Promise<GroupOffsetsCycle> {
    if (this.closed) return Promise.reject(new Error('closed'));
    if (!this.running) {
      this.running = this.runCycle().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    if (!this.queued) {
      this.queued = this.running
        .catch(() => undefined)
        .then(() => {
          this.queued = null;
          return this.sync();
        });
    }
    return this.queued;
  }

  /** Stops accepting cycles and waits (at most `timeoutMs`) for the running one. */
  async close(timeoutMs = 5000): Promise<void> {
    this.closed = true;
    const pending = [this.running, this.queued].filter((p): p is Promise<GroupOffsetsCycle> => p !== null);
    if (pending.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(pending),
      new Promise((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]);
    if (timer) clearTimeout(timer);
  }

  private async runCycle(): Promise<GroupOffsetsCycle> {
    const started = this.now();
    const cycle = ++this.cycleNo;
    const admin = await this.opts.connection.admin();
    const groups = [...this.byGroup.keys()].filter((g) => this.opts.groupFilter.accept(g)).sort();
    const result: GroupOffsetsCycle = {
      cycle,
      written: [],
      skipped: [],
      partitionsSkipped: [],
      clamped: [],
      checkpoints: this.stats,
      durationMs: 0,
    };
    // Log-end offsets per topic, fetched once per cycle and shared by the groups.
    const ends = new Map<string, Promise<TargetEndOffset[]>>();
    const endsOf = (topic: string): Promise<TargetEndOffset[]> => {
      let p = ends.get(topic);
      if (!p) {
        p = fetchEndOffsets(admin, topic).then((list) => list.map((e) => ({ topic, partition: e.partition, offset: e.offset })));
        ends.set(topic, p);
      }
      return p;
    };
    const perGroup = new Map<string, Omit<GroupOffsetsCycle, 'cycle' | 'checkpoints' | 'durationMs'>>();
    let next = 0;
    let anyOk = false;
    const worker = async (): Promise<void> => {
      while (next < groups.length) {
        const group = groups[next++];
        const out = { written: [] as WrittenGroup[], skipped: [] as SkippedGroup[], partitionsSkipped: [] as SkippedPartition[], clamped: [] as ClampedPartition[] };
        perGroup.set(group, out);
        try {
          if (await this.syncGroup(admin, group, this.checkpointsOf(group), endsOf, out)) anyOk = true;
        } catch (e) {
          out.skipped.push({ group, code: 'error', reason: explainKafkaError(e) });
        }
      }
    };
    const workers = Math.max(1, Math.min(this.opts.concurrency ?? 4, groups.length));
    await Promise.all(Array.from({ length: workers }, worker));
    for (const g of groups) {
      const o = perGroup.get(g);
      if (!o) continue;
      result.written.push(...o.written);
      result.skipped.push(...o.skipped);
      result.partitionsSkipped.push(...o.partitionsSkipped);
      result.clamped.push(...o.clamped);
    }
    if (anyOk || groups.length === 0) this.opts.connection.reportOk();
    else {
      // no group got an answer from the target: it is unreachable, whatever the cached client thinks
      const first = result.skipped.find((x) => x.code === 'error');
      this.opts.connection.reportError?.(new Error(first?.reason ?? 'the target did not answer'));
    }
    result.durationMs = this.now() - started;
    return result;
  }

  /** One group; returns whether the target answered (for the connection state). */
  private async syncGroup(
    admin: Admin,
    group: string,
    checkpoints: Checkpoint[],
    endsOf: (topic: string) => Promise<TargetEndOffset[]>,
    out: { written: WrittenGroup[]; skipped: SkippedGroup[]; partitionsSkipped: SkippedPartition[]; clamped: ClampedPartition[] },
  ): Promise<boolean> {
    const described = await describeGroupState(admin, group);
    if (described.error !== undefined) {
      out.skipped.push({ group, code: 'error', state: described.state, reason: `could not describe the group on the target: ${described.error}` });
      return false;
    }
    const state = described.state;
    if (!isWritableGroupState(state)) {
      const d = decideGroupOffsetSync({ group, checkpoints, targetGroupState: state });
      out.skipped.push({ group, code: 'group-active', state, reason: d.reason });
      return true;
    }
    const targetOffsets = await fetchCommittedOffsets(admin, group);
    const endList: TargetEndOffset[] = [];
    const topics = [...new Set(checkpoints.map((c) => c.topic))];
    for (const list of await Promise.all(topics.map(endsOf))) endList.push(...list);
    const d = decideGroupOffsetSync({ group, checkpoints, targetGroupState: state, targetOffsets, targetEndOffsets: endList });
    for (const s of d.skipped) {
      if (s.code === 'up-to-date' || s.code === 'group-active') continue;
      out.partitionsSkipped.push({ group, topic: s.topic, partition: s.partition, code: s.code, reason: s.reason });
    }
    if (d.action !== 'write') {
      const upToDate = d.skipped.every((s) => s.code === 'up-to-date' || s.code === 'target-ahead');
      out.skipped.push({ group, code: upToDate ? 'up-to-date' : 'nothing-to-write', state, reason: d.reason });
      return true;
    }
    const r = await this.opts.connection.committer().commit(group, d.offsets);
    if (!r.ok) {
      if (r.errorType === 'UNKNOWN_MEMBER_ID') {
        out.skipped.push({
          group,
          code: 'group-active',
          state: state ?? 'Dead',
          reason: 'the group became active on the target before the commit (the broker answered UNKNOWN_MEMBER_ID); nothing was written',
        });
        return true;
      }
      out.skipped.push({ group, code: 'error', state, reason: `commit refused: ${r.errorType ?? ''} ${r.message ?? ''}`.trim() });
      return false;
    }
    out.written.push({ group, offsets: d.offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset })) });
    for (const a of d.adjusted) {
      out.clamped.push({ group, topic: a.topic, partition: a.partition, checkpointOffset: a.checkpointOffset, offset: a.offset, reason: a.reason });
    }
    return true;
  }
}

export interface CheckpointsTopicFollowerOptions {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  syncer: GroupOffsetSyncer;
  groupPrefix?: string;
  onProgress?: (read: bigint, total: bigint) => void;
  onLoaded?: () => void;
  onMalformed?: (err: MalformedRecordError, offset: bigint) => void;
  onError?: (err: Error) => void;
}

/**
 * Reads `<source>.checkpoints.internal` on the target (partition 0) to its end, then tails it,
 * feeding every record into the syncer (last wins per group/partition, malformed skipped and
 * counted). `start()` rejects with TopicNotFoundError when the topic does not exist.
 */
export class CheckpointsTopicFollower {
  private reader: TopicReader | null = null;
  private loadedFlag = false;

  constructor(private readonly opts: CheckpointsTopicFollowerOptions) {}

  get loaded(): boolean {
    return this.loadedFlag;
  }

  get groupId(): string | undefined {
    return this.reader?.groupId;
  }

  async start(): Promise<void> {
    const o = this.opts;
    const reader = new TopicReader(o.kafka, o.admin, {
      topic: o.topic,
      tail: true,
      groupPrefix: o.groupPrefix,
      onRecord: (r) => {
        const err = o.syncer.applyRecord(r);
        if (err) o.onMalformed?.(err, r.offset);
      },
      onProgress: o.onProgress,
      onLoaded: () => {
        this.loadedFlag = true;
        o.onLoaded?.();
      },
      onError: o.onError,
    });
    this.reader = reader;
    try {
      await reader.start();
    } catch (e) {
      this.reader = null;
      await reader.stop();
      throw e;
    }
  }

  async stop(): Promise<void> {
    const r = this.reader;
    this.reader = null;
    if (r) await r.stop();
  }
}
