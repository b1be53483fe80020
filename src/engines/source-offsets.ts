/**
 * The source groups' committed offsets, as the checkpoint emitter needs them: kept per group,
 * read in full with one OffsetFetch per group coordinator (KIP-709 batching), and kept current
 * between two full reads by following `__consumer_offsets` (the event path), so that only the
 * groups whose commits changed are translated again, as they change.
 *
 * Where the principal may not read `__consumer_offsets` (usual on managed clusters), or the
 * node is set to poll, the offsets come only from the full reads of every cycle (the polling
 * fallback); `mode` says which, and why. A stream that failed is tried again at each
 * `retryStream()`.
 *
 * No Node-RED in here.
 */
import type { CommittedOffset } from '../core/types';
import type { ClusterConnection } from '../kafka/connection';
import { SourceCommitStream, type SourceCommitBatch, type SourceCommitStreamOptions } from '../kafka/source-commit-stream';
import type { GroupNames } from '../core/group-names';
import { partitionKey } from '../core/partition-key';
import { SourceOffsetTable, type GroupPartitions } from '../core/source-offset-table';
import type { OffsetRows } from '../core/translation-cache';
import { deadline, within } from '../core/timers';

/** Source partitions of one group (`partition:topic` keys) whose offsets changed; 'all': the whole group (deleted, or read again). */
export type { GroupPartitions };

export type SourceOffsetsMode =
  /** Not started yet, or starting the stream. */
  | { kind: 'starting' }
  /** Following `__consumer_offsets`: changes arrive as they are committed. */
  | { kind: 'events' }
  /** Polling: only full reads. `reason` is set when the event path was wanted but failed. */
  | { kind: 'poll'; reason?: string; notAuthorized?: boolean };

export interface SourceOffsetsOptions {
  /** The groups' numbers, shared with the flow's other tables (the replication runtime's); default: the table's own. */
  names?: GroupNames;
  source: ClusterConnection;
  /** 'auto': follow `__consumer_offsets` where allowed, else poll; 'poll': never follow. */
  want: 'auto' | 'poll';
  /** Groups the node may select (its group filter): the stream sees every group of the source; the others are not kept. */
  acceptGroup(group: string): boolean;
  /** Changes within this window are handed over together (ms). Default 50. */
  batchMs?: number;
  /** Groups (and their partitions) whose committed offsets changed (events), after the batching window. */
  onChanged(changed: Map<string, GroupPartitions>): void;
  /** The mode changed. */
  onMode?(mode: SourceOffsetsMode): void;
  /** Records of `__consumer_offsets` not understood (skipped, counted). */
  onSkipped?(count: number, total: number): void;
  /** The stream's fetches stopped being answered (the first failed one): the source stopped answering. */
  onUnanswered?(reason: string): void;
  /** A fetch of the stream answered again after onUnanswered. */
  onAnswered?(): void;
  /** Give up positioning the stream after this long (ms; then poll, and try again later). Default 30000. */
  startTimeoutMs?: number;
  /** Clock (ms). */
  now?: () => number;
  /** Makes the stream that follows `__consumer_offsets` (default: a SourceCommitStream); tests may replace it. */
  openStream?: (options: SourceCommitStreamOptions) => CommitStreamLike;
}

/** What SourceOffsets uses of a SourceCommitStream. */
export type CommitStreamLike = Pick<SourceCommitStream, 'start' | 'stop' | 'lastFetchAt'> & Partial<Pick<SourceCommitStream, 'follow'>>;

/**
 * The principal a SASL login (PLAIN, SCRAM) is authorized as with Kafka's default principal
 * builder, `User:<username>`, for the ACL hint; undefined without SASL (a TLS certificate's
 * principal depends on the broker's ssl.principal.mapping.rules).
 */
function saslPrincipal(source: ClusterConnection): string | undefined {
  const sasl = source.settings.sasl;
  return sasl && sasl.mechanism !== 'none' && sasl.username ? `User:${sasl.username}` : undefined;
}

/** How long followPartitions waits for the stream to position the partitions followed again (ms); later, the caller reads in full anyway. */
export const FOLLOW_WAIT_MS = 5000;

/** A stream whose last fetch answered longer ago than this (ms) is not trusted to be current. */
export const STREAM_SILENT_MS = 15000;

/** The key of a source partition in GroupPartitions (core/partition-key). */
export const tpKey = partitionKey;

export class SourceOffsets {
  /** The offsets kept, and the merge of a full read with what the stream changed meanwhile (core). */
  private readonly table: SourceOffsetTable;
  private stream: CommitStreamLike | null = null;
  /** A stream still positioning (stopped with the rest on close). */
  private opening: CommitStreamLike | null = null;
  private streamStarting: Promise<void> | null = null;
  private modeNow: SourceOffsetsMode;
  private stopped = false;
  private skippedTotal = 0;
  private followingSinceMs = 0;
  /** The stream's last fetch failed and none answered since: what it keeps is not trusted to be current. */
  private unanswered = false;
  /** The partitions of `__consumer_offsets` the stream follows (null: every one): this instance's share. */
  private only: ReadonlySet<number> | null = null;

  constructor(private readonly o: SourceOffsetsOptions) {
    this.table = new SourceOffsetTable(o.names);
    this.modeNow = o.want === 'poll' ? { kind: 'poll' } : { kind: 'starting' };
  }

  get mode(): SourceOffsetsMode {
    return this.modeNow;
  }

  /** Whether commits arrive as events (a full read is then only a reconcile). */
  get following(): boolean {
    return this.modeNow.kind === 'events';
  }

  /**
   * Since when (ms, the caller's clock) the stream has followed without a break; null when it
   * does not, or when its last fetch answered more than STREAM_SILENT_MS ago (a source that
   * stopped answering: the full reads then say so).
   */
  get followingSince(): number | null {
    const s = this.stream;
    if (!this.following || s === null || this.unanswered || Date.now() - s.lastFetchAt > STREAM_SILENT_MS) return null;
    return this.followingSinceMs;
  }

  /** Records of `__consumer_offsets` skipped because they were not understood. */
  get skipped(): number {
    return this.skippedTotal;
  }

  /**
   * Starts following `__consumer_offsets` (mode 'auto'); resolves once the stream is positioned
   * or has failed (then the mode is 'poll' with the reason). Never rejects.
   */
  startStream(): Promise<void> {
    if (this.o.want === 'poll' || this.stopped || this.stream) return Promise.resolve();
    if (!this.streamStarting) {
      this.streamStarting = this.openStream().finally(() => {
        this.streamStarting = null;
      });
    }
    return this.streamStarting;
  }

  /**
   * Follows only these partitions of `__consumer_offsets` (null: every one), the share of this
   * instance when several share the flow (issue 25). Resolves once a partition followed again is
   * positioned at its end: the caller then reads its groups in full (their commits made while it
   * was not followed are not streamed). Never rejects (a failed positioning is tried again by the
   * stream; true: the caller reads in full meanwhile). Resolves true when partitions are followed again, or the stream did not
   * position them within FOLLOW_WAIT_MS (it goes on): their groups need a full read.
   */
  async followPartitions(partitions: ReadonlySet<number> | null): Promise<boolean> {
    this.only = partitions;
    // failed (tried again by the stream): what it did not position is read in full meanwhile
    const follow = this.stream?.follow?.(partitions).catch(() => 1);
    if (follow === undefined) return false;
    // a source slow to answer the end offsets does not hold the caller's discovery: it reads the groups in full meanwhile
    let resumed = 0;
    const inTime = await within(follow.then((n) => (resumed = n)), FOLLOW_WAIT_MS);
    return !inTime || resumed > 0;
  }

  /** Tries the event path again when it failed before (a periodic call; cheap when following). */
  retryStream(): Promise<void> {
    return this.modeNow.kind === 'poll' && this.o.want === 'auto' ? this.startStream() : Promise.resolve();
  }

  /**
   * Reads the committed offsets of `groups` in full (one OffsetFetch per coordinator) and
   * replaces what is kept for them. A group that could not be read keeps what was kept.
   */
  async readAll(groups: readonly string[]): Promise<{ failed: Map<string, string> }> {
    if (groups.length === 0) return { failed: new Map() };
    // What the stream changes while the read is under way is newer than (or the same as) what
    // the read answers: it stands. Replacing it would undo a commit that arrived meanwhile, and
    // nothing would bring it back before the next full read (a minute later).
    let read = this.table.beginRead();
    // each request's answer folded in as it arrives (none of 100,000 offsets alive across the
    // read's awaits, i.e. promoted to V8's old space); the rest of the read goes on from the same
    // start: what the stream changed since then still stands against the later answers
    const fold = (answer: ReadonlyMap<string, readonly CommittedOffset[]>): void => {
      const next = this.table.beginRead();
      for (const [g, parts] of read.during) (next.during as Map<string, GroupPartitions>).set(g, parts);
      this.table.endRead(read, answer);
      read = next;
    };
    const fetcher = this.o.source.offsetFetcher();
    let failed: Map<string, string>;
    try {
      if (typeof fetcher.fetchEach === 'function') failed = (await fetcher.fetchEach([...groups], fold)).failed;
      else {
        // a fetcher that answers at once (a stand-in)
        const answer = await fetcher.fetchMany([...groups]);
        fold(answer.offsets);
        failed = answer.failed;
      }
    } finally {
      this.table.endRead(read);
    }
    return { failed };
  }

  /**
   * The committed offsets kept for a group (undefined: never read); only those of `parts` when
   * given. Made at each call: {@link versionOf} says whether they changed.
   */
  offsetsOf(group: string, parts: GroupPartitions = 'all'): readonly CommittedOffset[] | undefined {
    return this.table.offsetsOf(group, parts);
  }

  /** The group's committed offsets read in place, no object made (SourceOffsetTable.rowsOf: valid until the next call or change). */
  rowsOf(group: string): OffsetRows | undefined {
    return this.table.rowsOf(group);
  }

  /** A number that changes whenever one of the group's offsets changes (undefined: never read). */
  versionOf(group: string): number | undefined {
    return this.table.versionOf(group);
  }

  /** Changes whenever a group or one of its partitions comes or goes (SourceOffsetTable.shape). */
  get shape(): number {
    return this.table.shape;
  }

  /** Whether the group's offsets are kept (read or streamed). */
  has(group: string): boolean {
    return this.table.has(group);
  }

  /** The distinct topics of a group's offsets (empty: none kept). */
  topicsOf(group: string): string[] {
    return this.table.topicsOf(group);
  }

  /** The groups whose committed offset on a source partition is at or above `offset` (the groups a sync there concerns), in proportion to how many there are. */
  groupsAtOrAbove(topic: string, partition: number, offset: bigint): string[] {
    return this.table.groupsAtOrAbove(topic, partition, offset);
  }

  /** The groups whose offsets changed since the last call (the reconcile lane's dirty groups). */
  takeChangedGroups(): Set<string> {
    return this.table.takeChangedGroups();
  }

  /** Forgets groups no longer selected. */
  retain(groups: { has(group: string): boolean }): void {
    this.table.retain(groups);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const s = this.stream;
    this.stream = null;
    const o = this.opening;
    this.opening = null;
    await Promise.all([s?.stop(), o?.stop()]);
  }

  /** Forgets every offset kept (their groups' numbers released: the interner may be shared): once stopped, for good. */
  release(): void {
    this.table.release();
  }

  // -------------------------------------------------------------------------------------------

  private setMode(m: SourceOffsetsMode): void {
    if (m.kind === 'events' && this.modeNow.kind !== 'events') this.followingSinceMs = (this.o.now ?? Date.now)();
    this.modeNow = m;
    this.o.onMode?.(m);
  }

  private async openStream(): Promise<void> {
    const { source } = this.o;
    let stream: CommitStreamLike | null = null;
    try {
      const admin = await source.admin();
      stream = (this.o.openStream ?? ((options) => new SourceCommitStream(options)))({
        kafka: source.kafka,
        admin,
        batchMs: this.o.batchMs ?? 50,
        groupPrefix: '__mm2-node-red-commits',
        principal: saslPrincipal(source),
        onBatch: (b) => this.applyBatch(b),
        onError: (err) => this.streamFailed(stream, err),
        onUnanswered: (reason) => {
          if (stream !== this.stream) return;
          this.unanswered = true;
          this.o.onUnanswered?.(reason);
        },
        onAnswered: () => {
          if (stream !== this.stream) return;
          this.unanswered = false;
          this.o.onAnswered?.();
        },
      });
      this.opening = stream;
      const limit = this.o.startTimeoutMs ?? 30000;
      try {
        await deadline(stream.start(), limit, () => new Error(`could not start following __consumer_offsets within ${Math.round(limit / 1000)} s (joining its consumer group on the source did not finish)`));
      } finally {
        this.opening = null;
      }
      if (this.stopped) {
        await stream.stop();
        return;
      }
      this.stream = stream;
      if (this.only !== null) await stream.follow?.(this.only).catch(() => undefined);
      this.setMode({ kind: 'events' });
    } catch (e) {
      if (stream) await stream.stop().catch(() => undefined);
      const err = e as { code?: string; message?: string };
      this.setMode({ kind: 'poll', reason: err?.message ?? String(e), notAuthorized: err?.code === 'NOT_AUTHORIZED' });
    }
  }

  private streamFailed(stream: CommitStreamLike | null, err: Error): void {
    if (!stream || stream !== this.stream) return;
    this.stream = null;
    this.unanswered = false;
    void stream.stop().catch(() => undefined);
    this.setMode({ kind: 'poll', reason: err?.message ?? String(err) });
  }

  private applyBatch(b: SourceCommitBatch): void {
    if (this.stopped) return;
    this.table.applyStream(b.deletedGroups, b.changes, (g) => this.o.acceptGroup(g));
    if (b.skipped > 0) {
      this.skippedTotal += b.skipped;
      this.o.onSkipped?.(b.skipped, this.skippedTotal);
    }
    // The stream batches already; hand over at once (a second window would only add latency).
    const changed = this.table.takeChanged();
    if (changed !== null) this.o.onChanged(changed);
  }
}
