/**
 * MM2's MirrorCheckpointConnector + MirrorCheckpointTask as one object, on kafkajs
 * (findConsumerGroups; MirrorCheckpointTask.start, poll, checkpointsForGroup, renameTopicPartition;
 * CheckpointStore), with no Node-RED in it:
 *
 * - start: ensure `<source>.checkpoints.internal` on the target, restore the last checkpoints
 *   from it once (log order, last wins, malformed records skipped and counted; a failed read
 *   clears them, and is tried again while the target does not answer), then create the
 *   offset-sync store in the mode MM2 chooses (restore OK -> keep the sync history during its
 *   initial load; failed -> only the latest sync). Offset syncs
 *   that arrive before that are buffered and replayed into the new store, in order.
 * - group discovery (MirrorCheckpointConnector.findConsumerGroups) at start and on `refreshGroups`;
 * - `cycle()`: for each selected group list its source offsets, compute the checkpoints
 *   (core checkpointsForGroup: +1 rule, rename, monotonic filter) and write the new ones to
 *   partition 0 of the checkpoints topic with the shared target producer, the record timestamp
 *   being the time the offsets were listed. Cycles never overlap (CoalescingRunner).
 */
import { chunkBySize } from '../core/chunks';
import { clampTimer } from '../core/intervals';
import type { Admin } from 'kafkajs';
import { CheckpointStore } from '../core/checkpoint-store';
import { checkpointsForGroup, type CoverageEntry } from '../core/checkpoints-for-group';
import { encodeCheckpoint, decodeValidCheckpoint } from '../core/checkpoint';
import { CoalescingRunner } from '../core/coalescing-runner';
import { MalformedRecordError } from '../core/errors';
import type { NameFilter } from '../core/filters';
import { findCheckpointGroups, type DiscoveryResult } from '../core/group-discovery';
import { mapLimit } from '../core/worker-pool';
import { OffsetSyncStore } from '../core/offset-sync-store';
import type { RenamePolicy } from '../core/rename-topic-partition';
import type { Checkpoint, OffsetSync } from '../core/types';
import { readPercent } from '../core/load-percent';
import type { ClusterConnection } from './connection';
import { listConsumerGroups } from './groups';
import { TopicReader } from './topic-reader';

/** One offset-sync event, as the offset-syncs reader sends it (already parsed). */
export type SyncEvent = { event: 'syncs'; syncs: OffsetSync[] } | { event: 'loaded' } | { event: 'reset' };

export type EmitterPhase =
  /** Creating / checking the checkpoints topic. */
  | { kind: 'preparing' }
  /** Restoring the last checkpoints; `percent` of the records that existed at start. */
  | { kind: 'restoring'; percent: number }
  /** The checkpoints topic could not be prepared; retrying. */
  | { kind: 'retrying'; error: string; retryInMs: number }
  /** Restore done; cycles may run. */
  | { kind: 'ready' };

export interface RestoreReport {
  ok: boolean;
  /** Checkpoints kept (of selected groups), after "last wins". */
  restored: number;
  /** Records read. */
  read: number;
  /** Records skipped because they could not be decoded (tombstones included). */
  malformed: number;
  /** Why the restore failed. */
  error?: string;
}

export interface EmitterEvents {
  phase?(phase: EmitterPhase): void;
  restored?(report: RestoreReport): void;
  /** Group discovery finished (at start, on refresh, or before a cycle). */
  discovered?(result: DiscoveryResult): void;
  /** Group discovery failed; the previous selection (if any) stays. */
  discoveryFailed?(error: string): void;
}

export interface CheckpointEmitterOptions {
  source: ClusterConnection;
  target: ClusterConnection;
  sourceAlias: string;
  targetAlias: string;
  policy: RenamePolicy;
  checkpointsTopic: string;
  groupFilter: NameFilter;
  topicFilter: NameFilter;
  /** Creates the checkpoints topic if missing (mm2-replication's ensureTopic). */
  ensureTopic(connection: ClusterConnection, topic: string): Promise<unknown>;
  events?: EmitterEvents;
  /** Parallel OffsetFetch requests per discovery / cycle. Default 8. */
  concurrency?: number;
  /** Longest wait between two attempts to prepare the checkpoints topic (it doubles from 2 s up to this). Default 60 s. */
  retryMaxMs?: number;
  /** Give up the restore after this long (counts as a failed restore). Default 120 s. */
  restoreTimeoutMs?: number;
  /** Clock (ms); tests may replace it. */
  now?: () => number;
}

export interface CycleOptions {
  /** Re-list the groups before the cycle. */
  refreshGroups?: boolean;
}

export interface WrittenCheckpoint extends Checkpoint {
  /** Record timestamp: when the group's offsets were listed. */
  timestamp: number;
}

export interface GroupCoverageEntry extends CoverageEntry {
  group: string;
}

export interface CycleResult {
  cycle: number;
  /** 'restoring': no cycle ran because the checkpoints restore has not finished (MM2 does not poll then). */
  skipped?: 'restoring';
  /** The groups the cycle covered. */
  groups: string[];
  written: WrittenCheckpoint[];
  coverage: GroupCoverageEntry[];
  failedGroups: Array<{ group: string; error: string }>;
  /** Set when the group re-listing of this cycle failed (the previous selection was used). */
  discoveryError?: string;
  /** The latest checkpoint of every partition of every selected group. */
  latest: Map<string, Checkpoint[]>;
  startedAt: number;
  durationMs: number;
  /** Whether the offset-sync history has been read to its end. */
  syncsLoaded: boolean;
}

/** Produce requests of at most this many checkpoint records or bytes (keys + values). */
export const CHECKPOINT_CHUNK_RECORDS = 2000;
export const CHECKPOINT_CHUNK_BYTES = 256 * 1024;

/** Encodes checkpoints into produce-sized chunks, in order (partition 0, record timestamp = listing time). */
export function chunkCheckpoints(
  list: readonly WrittenCheckpoint[],
): Array<{ checkpoints: WrittenCheckpoint[]; records: Array<{ key: Buffer; value: Buffer; partition: number; timestamp: string }> }> {
  const records = list.map((c) => {
    const rec = encodeCheckpoint(c);
    return { key: rec.key, value: rec.value, partition: 0, timestamp: String(c.timestamp) };
  });
  const sizes = records.map((r) => r.key.length + r.value.length);
  return chunkBySize(sizes, CHECKPOINT_CHUNK_RECORDS, CHECKPOINT_CHUNK_BYTES).map(([start, end]) => ({
    checkpoints: list.slice(start, end),
    records: records.slice(start, end),
  }));
}

function unsentKey(c: Checkpoint): string {
  return `${c.group}\u0000${c.topic}\u0000${c.partition}`;
}


export class CheckpointEmitter {
  private checkpointStore: CheckpointStore;
  private syncStore: OffsetSyncStore | null = null;
  private buffered: SyncEvent[] = [];
  private restore: RestoreReport | null = null;
  private selected: string[] | null = null;
  private cycles = 0;
  /** Checkpoints recorded in the store whose write failed: sent again by the next cycle (see runCycle). */
  private unsent = new Map<string, WrittenCheckpoint>();
  private stopped = false;
  private reader: TopicReader | null = null;
  private readonly runner: CoalescingRunner<CycleOptions, CycleResult>;
  private startP: Promise<void> | null = null;
  private discoveryP: Promise<DiscoveryResult> | null = null;
  private readonly now: () => number;
  private wake: (() => void) | null = null;
  private abortRestore: (() => void) | null = null;
  /** The last restore failed because the checkpoints topic does not exist. */
  private restoreTopicMissing = false;

  constructor(private readonly o: CheckpointEmitterOptions) {
    this.now = o.now ?? Date.now;
    this.checkpointStore = new CheckpointStore({ acceptGroup: (g) => o.groupFilter.accept(g) });
    this.runner = new CoalescingRunner<CycleOptions, CycleResult>(
      (opts) => this.runCycle(opts),
      (a, b) => ({ refreshGroups: Boolean(a.refreshGroups || b.refreshGroups) }),
    );
  }

  /** Whether the restore has finished (cycles may run). */
  get ready(): boolean {
    return this.syncStore !== null;
  }

  /** The restore outcome, once known. */
  get restoreReport(): RestoreReport | null {
    return this.restore;
  }

  /** The groups selected by the last successful discovery (null: not discovered yet). */
  get groups(): string[] | null {
    return this.selected === null ? null : [...this.selected];
  }

  /** Whether the offset-sync history has been read to its end (MM2 readToEnd). */
  get syncsLoaded(): boolean {
    return this.syncStore?.loaded ?? false;
  }

  /** The sync store's mode, once created (true: full history kept during its initial load). */
  get keepHistoryOnLoad(): boolean | undefined {
    return this.syncStore?.keepHistoryOnLoad;
  }

  /** Offset-sync events buffered while the restore runs. */
  get bufferedEvents(): number {
    return this.buffered.length;
  }

  /**
   * Starts: prepares the checkpoints topic (retrying while it cannot), restores, then creates
   * the sync store. Initial group discovery runs alongside. Resolves when the restore is done
   * (or the emitter was stopped). Never rejects.
   */
  start(): Promise<void> {
    if (!this.startP) {
      this.startP = this.startup().catch(() => undefined);
      this.refreshGroups().catch(() => undefined);
    }
    return this.startP;
  }

  /** Applies (or, while restoring, buffers) one offset-sync event. */
  handleSyncEvent(ev: SyncEvent): void {
    if (this.syncStore === null) {
      if (ev.event === 'reset') this.buffered = [];
      else this.buffered.push(ev);
      return;
    }
    this.applyEvent(ev);
  }

  /** Re-lists the groups (MirrorCheckpointConnector.findConsumerGroups). Concurrent calls share one discovery. Rejects on failure (the previous selection stays). */
  refreshGroups(): Promise<DiscoveryResult> {
    if (!this.discoveryP) {
      this.discoveryP = this.discover().finally(() => {
        this.discoveryP = null;
      });
    }
    return this.discoveryP;
  }

  /** Requests a cycle; never overlaps with a running one (a request during a cycle runs one more after it). */
  cycle(opts: CycleOptions = {}): Promise<CycleResult> {
    return this.runner.run(opts);
  }

  /** Stops: the restore reader, and waits for a running cycle. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    this.abortRestore?.();
    const r = this.reader;
    this.reader = null;
    if (r) await r.stop();
    await this.runner.idle();
  }

  // -------------------------------------------------------------------------------------------

  private applyEvent(ev: SyncEvent): void {
    const store = this.syncStore as OffsetSyncStore;
    if (ev.event === 'reset') {
      this.syncStore = new OffsetSyncStore({ keepHistoryOnLoad: store.keepHistoryOnLoad });
    } else if (ev.event === 'loaded') {
      store.markLoaded();
    } else {
      for (const s of ev.syncs) store.apply(s);
    }
  }

  private async startup(): Promise<void> {
    const { target, checkpointsTopic } = this.o;
    const maxDelay = Math.max(1000, this.o.retryMaxMs ?? 60000);
    let delay = Math.min(2000, maxDelay);
    const retryLater = async (error: string): Promise<void> => {
      this.o.events?.phase?.({ kind: 'retrying', error, retryInMs: delay });
      await this.sleep(delay);
      delay = Math.min(delay * 2, maxDelay);
    };
    let report: RestoreReport;
    for (;;) {
      if (this.stopped) return;
      this.o.events?.phase?.({ kind: 'preparing' });
      try {
        await this.o.ensureTopic(target, checkpointsTopic);
      } catch (e) {
        await retryLater((e as Error)?.message ?? String(e));
        continue;
      }
      if (this.stopped) return;
      report = await this.restoreCheckpoints();
      if (this.stopped) return;
      // A failed read goes on without the checkpoints, as MM2 does, when the target answers
      // (a missing topic, records it cannot read in time). When the target itself did not
      // answer, what it holds is not lost: read it again once it answers.
      if (report.ok || this.restoreTopicMissing || (await this.targetAnswers())) break;
      this.checkpointStore = new CheckpointStore({ acceptGroup: (g) => this.o.groupFilter.accept(g) });
      await retryLater(report.error ?? 'the target did not answer');
    }
    this.restore = report;
    this.checkpointStore.markLoaded(report.ok);
    if (!report.ok) report.restored = 0;
    // MM2: offsetSyncStore.start(mustReadToEnd = !checkpointsLoadedOk)
    this.syncStore = new OffsetSyncStore({ keepHistoryOnLoad: report.ok });
    const events = this.buffered;
    this.buffered = [];
    for (const ev of events) this.applyEvent(ev);
    this.o.events?.restored?.(report);
    this.o.events?.phase?.({ kind: 'ready' });
  }

  /** Whether the target answers a request about the checkpoints topic now. */
  private async targetAnswers(): Promise<boolean> {
    try {
      const admin = await this.o.target.admin();
      await admin.fetchTopicOffsets(this.o.checkpointsTopic);
      return true;
    } catch {
      return false;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = null;
        resolve();
      }, clampTimer(ms));
      this.wake = () => {
        clearTimeout(t);
        this.wake = null;
        resolve();
      };
    });
  }

  private async restoreCheckpoints(): Promise<RestoreReport> {
    const { target, checkpointsTopic } = this.o;
    const report: RestoreReport = { ok: false, restored: 0, read: 0, malformed: 0 };
    this.restoreTopicMissing = false;
    const kept = new Set<string>();
    const outcome: { failure: Error | null } = { failure: null };
    let failNow: (e: Error) => void = () => undefined;
    const failed = new Promise<void>((resolve) => {
      failNow = (e) => {
        if (!outcome.failure) outcome.failure = e;
        resolve();
      };
    });
    this.abortRestore = () => failNow(new Error('stopped'));
    let timer: NodeJS.Timeout | undefined;
    let probe: NodeJS.Timeout | undefined;
    try {
      this.o.events?.phase?.({ kind: 'restoring', percent: 0 });
      const admin: Admin = await target.admin();
      const reader = new TopicReader(target.kafka, admin, {
        topic: checkpointsTopic,
        tail: false,
        groupPrefix: '__mm2-node-red-checkpoints-restore',
        onRecord: (r) => {
          report.read++;
          let cp: Checkpoint;
          try {
            cp = decodeValidCheckpoint(r.key, r.value); // a negative offset is skipped and counted as malformed
          } catch (e) {
            if (e instanceof MalformedRecordError) {
              report.malformed++;
              return;
            }
            throw e;
          }
          if (this.checkpointStore.loadRecord(cp)) kept.add(`${cp.group}\u0000${cp.partition}:${cp.topic}`);
        },
        onProgress: (read, total) => {
          this.o.events?.phase?.({ kind: 'restoring', percent: readPercent(read, total) });
        },
        onError: (err) => failNow(err),
      });
      this.reader = reader;
      const timeoutMs = this.o.restoreTimeoutMs ?? 120000;
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          failNow(new Error(`reading ${checkpointsTopic} did not finish within ${Math.round(timeoutMs / 1000)} s`));
          resolve();
        }, clampTimer(timeoutMs));
      });
      // While the read runs, ask the target every retry period whether it still answers: a
      // target that stopped answering shows as an error (red), not as a long "loading".
      const probeMs = clampTimer(Math.max(1000, this.o.retryMaxMs ?? 60000));
      probe = setInterval(() => {
        target
          .admin()
          .then((a) => a.fetchTopicOffsets(checkpointsTopic))
          .then(
            () => target.reportOk(),
            (e) => {
              if (!outcome.failure) target.reportError(e);
            },
          );
      }, probeMs);
      const started = reader.start().catch((e: Error) => failNow(e));
      await Promise.race([started, failed, timedOut]);
      if (outcome.failure) {
        await reader.stop();
        throw outcome.failure;
      }
      report.ok = true;
      report.restored = kept.size;
    } catch (e) {
      const err = e as Error;
      report.ok = false;
      this.restoreTopicMissing = err?.name === 'TopicNotFoundError';
      report.error = this.restoreTopicMissing ? err.message : target.reportError(err);
    } finally {
      if (timer) clearTimeout(timer);
      if (probe) clearInterval(probe);
      this.reader = null;
      this.abortRestore = null;
    }
    return report;
  }

  private async discover(): Promise<DiscoveryResult> {
    const { source, groupFilter, topicFilter } = this.o;
    try {
      const admin = await source.admin();
      const result = await findCheckpointGroups(
        {
          listGroups: () => listConsumerGroups(admin),
          committedTopics: async (g) => (await source.offsetFetcher().fetch(g)).map((o) => o.topic),
        },
        groupFilter,
        topicFilter,
        this.o.concurrency ?? 8,
      );
      source.reportOk();
      this.selected = result.groups;
      this.o.events?.discovered?.(result);
      return result;
    } catch (e) {
      const text = source.reportError(e);
      this.o.events?.discoveryFailed?.(text);
      throw new Error(text);
    }
  }

  private async runCycle(opts: CycleOptions): Promise<CycleResult> {
    const cycle = ++this.cycles;
    const startedAt = this.now();
    const base: CycleResult = {
      cycle,
      groups: [],
      written: [],
      coverage: [],
      failedGroups: [],
      latest: new Map(),
      startedAt,
      durationMs: 0,
      syncsLoaded: this.syncsLoaded,
    };
    if (this.syncStore === null || this.stopped) {
      return { ...base, skipped: 'restoring' };
    }
    let discoveryError: string | undefined;
    if (opts.refreshGroups || this.selected === null) {
      try {
        await this.refreshGroups();
      } catch (e) {
        discoveryError = (e as Error).message;
        if (this.selected === null) throw e;
      }
    }
    const groups = [...(this.selected ?? [])];
    const { source, target } = this.o;
    await source.admin(); // connects (and reports a connection failure) before the per-group fetches
    const fetcher = source.offsetFetcher();
    const failedGroups: Array<{ group: string; error: string }> = [];
    const perGroup = await mapLimit(groups, this.o.concurrency ?? 8, async (group) => {
      const ts = this.now();
      try {
        const offsets = await fetcher.fetch(group);
        return { group, ts, offsets };
      } catch (e) {
        const err = e as { message?: string };
        failedGroups.push({ group, error: err?.message ?? String(e) });
        return null;
      }
    });
    // Every selected group failed: the source is not answering, whatever the cached admin client
    // thinks (its users show the error; the checkpoints already held stay valid and are reported).
    if (groups.length > 0 && failedGroups.length === groups.length) source.reportError(new Error(failedGroups[0].error));
    else source.reportOk();
    // Translation and the store update run synchronously, in group order, after all fetches.
    const store = this.syncStore as OffsetSyncStore;
    const written: WrittenCheckpoint[] = [];
    const coverage: GroupCoverageEntry[] = [];
    for (const g of perGroup) {
      if (g === null) continue;
      const r = checkpointsForGroup({
        group: g.group,
        offsets: g.offsets,
        topicFilter: this.o.topicFilter,
        store,
        checkpoints: this.checkpointStore,
        policy: this.o.policy,
        sourceAlias: this.o.sourceAlias,
        targetAlias: this.o.targetAlias,
      });
      for (const c of r.coverage) coverage.push({ group: g.group, ...c });
      // Into the store and onto the retry list together (see below).
      for (const c of r.checkpoints) {
        const w: WrittenCheckpoint = { ...c, timestamp: g.ts };
        written.push(w);
        this.unsent.set(unsentKey(w), w);
      }
    }
    failedGroups.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
    // Like MM2, the store already holds this cycle's checkpoints (so a write that failed but
    // landed can never be followed by a lower one). Unlike MM2, a failed write is not forgotten:
    // a checkpoint counts as written only once the broker acknowledged it, so every checkpoint
    // of this cycle goes on the retry list first and leaves it only with its acknowledgement;
    // whatever fails (connecting the producer, a produce request, anything else) leaves it
    // there, and the next cycle sends the ones still current in the store again.
    const toWrite: WrittenCheckpoint[] = [];
    for (const [k, c] of this.unsent) {
      const current = this.checkpointStore.getPartition(c.group, c.topic, c.partition);
      if (current && current.downstreamOffset === c.downstreamOffset && current.upstreamOffset === c.upstreamOffset) toWrite.push(c);
      else this.unsent.delete(k);
    }
    if (toWrite.length > 0) {
      try {
        const producer = await target.producer();
        // One produce request holds at most ~1 MiB by default (broker message.max.bytes): send in
        // chunks, in order, and stop at the first failure.
        for (const chunk of chunkCheckpoints(toWrite)) {
          await producer.send({ topic: this.o.checkpointsTopic, acks: -1, messages: chunk.records });
          for (const c of chunk.checkpoints) this.unsent.delete(unsentKey(c));
        }
      } catch (e) {
        throw new Error(target.reportError(e));
      }
      target.reportOk();
    } else {
      // Nothing to write: still make sure the target answers (and still holds the checkpoints
      // topic), so that an unreachable target is a failed cycle, never a quiet one.
      try {
        const admin = await target.admin();
        await admin.fetchTopicOffsets(this.o.checkpointsTopic);
      } catch (e) {
        throw new Error(target.reportError(e));
      }
      target.reportOk();
    }
    const latest = new Map<string, Checkpoint[]>();
    for (const g of groups) {
      const list = this.checkpointStore.get(g);
      if (list && list.length > 0) latest.set(g, list);
    }
    return {
      ...base,
      groups,
      written: toWrite,
      coverage,
      failedGroups,
      discoveryError,
      latest,
      durationMs: this.now() - startedAt,
      syncsLoaded: store.loaded,
    };
  }
}
