/**
 * Restores the last checkpoints from `<source>.checkpoints.internal` on the target (MM2's
 * CheckpointStore.start): read once in log order, last wins, malformed records skipped and
 * counted, within a time limit; while the read runs the target is asked every retry period
 * whether it still answers, so that a target that stopped answering shows as an error.
 */
import type { Admin } from 'kafkajs';
import type { CheckpointStore } from '../core/checkpoint-store';
import { decodeValidCheckpoint } from '../core/checkpoint';
import { MalformedRecordError } from '../core/errors';
import { readPercent } from '../core/load-percent';
import type { Checkpoint } from '../core/types';
import type { ClusterConnection } from '../kafka/connection';
import { authorizationFailure, NotAuthorizedError } from '../kafka/client';
import { TopicReader } from '../kafka/topic-reader';
import type { EmitterPhase, RestoreReport } from './checkpoint-emitter-types';
import { Backoff } from '../core/backoff';
import { Sleeps, Timer } from '../core/timers';

export interface CheckpointsRestoreOptions {
  target: ClusterConnection;
  checkpointsTopic: string;
  phase?(phase: EmitterPhase): void;
  /** Give up after this long (counts as a failed restore). Default 120 s. */
  restoreTimeoutMs?: number;
  /** How often the target is asked whether it still answers (at least 1 s). Default 60 s. */
  retryMaxMs?: number;
}

/** One emitter's restores: one at a time; `stop` ends the one running. */
export class CheckpointsRestore {
  private reader: TopicReader | null = null;
  private abortRestore: (() => void) | null = null;
  private stopped = false;
  private readonly sleeps = new Sleeps();

  constructor(private readonly o: CheckpointsRestoreOptions) {}

  /**
   * Prepares the checkpoints topic (`ensureTopic`) and restores it into a store (`open` gives a
   * new one for each attempt, after the previous), trying again with a doubling wait (2 s up to
   * retryMaxMs) while the topic cannot be prepared or cannot be read: a target that does not
   * answer, a topic not seen yet right after it was prepared, a reader that failed, a read that
   * did not finish in time (the next one gets twice as long). The node never goes on without its
   * checkpoints because of something that passes; the phase 'retrying' (`restore: true`) says why
   * it waits. Only a refusal by the target's authorizer (no READ on the topic or on the reader's
   * group) goes on without them, as MM2 does when its read fails: waiting does not change it, and
   * the report names the ACL. null: stopped meanwhile.
   */
  async untilRestored(ensureTopic: () => Promise<unknown>, open: (previous?: CheckpointStore) => CheckpointStore, first: CheckpointStore): Promise<{ report: RestoreReport; store: CheckpointStore } | null> {
    const maxDelay = Math.max(1000, this.o.retryMaxMs ?? 60000);
    const backoff = new Backoff(Math.min(2000, maxDelay), maxDelay);
    // the last attempt's failure: the next attempt does not make it "loading" again until it succeeds
    let failed: string | undefined;
    let store = first;
    let readMs = this.o.restoreTimeoutMs ?? 120000;
    const retryLater = async (error: string, restore = false): Promise<void> => {
      failed = error;
      const delay = backoff.next();
      this.o.phase?.(restore ? { kind: 'retrying', error, retryInMs: delay, restore } : { kind: 'retrying', error, retryInMs: delay });
      await this.sleep(delay);
    };
    for (;;) {
      if (this.stopped) return null;
      this.o.phase?.(failed === undefined ? { kind: 'preparing' } : { kind: 'preparing', failed });
      try {
        await ensureTopic();
      } catch (e) {
        await retryLater((e as Error)?.message ?? String(e));
        continue;
      }
      if (this.stopped) return null;
      const restored = await this.run(store, readMs);
      if (this.stopped) return null;
      if (restored.report.ok || restored.refused) return { report: restored.report, store };
      // anything else passes (a loaded machine, a target slow to answer or to show a new topic): what the topic holds is read again
      if (restored.timedOut) readMs *= 2;
      store = open(store);
      await retryLater(restored.report.error ?? 'the target did not answer', true);
    }
  }

  private sleep(ms: number): Promise<void> {
    return this.sleeps.sleep(ms);
  }

  /** Stops a running restore (it fails with 'stopped') and the wait between two attempts. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sleeps.wakeAll();
    this.abortRestore?.();
    const r = this.reader;
    this.reader = null;
    await r?.stop();
  }

  /**
   * Reads the checkpoints topic into `store`, within `timeoutMs`. `refused`: the target's authorizer
   * refused the read; `timedOut`: it did not finish in time. Never rejects.
   */
  async run(store: CheckpointStore, timeoutMs = this.o.restoreTimeoutMs ?? 120000): Promise<{ report: RestoreReport; refused: boolean; timedOut: boolean }> {
    const { target, checkpointsTopic } = this.o;
    const report: RestoreReport = { ok: false, restored: 0, read: 0, malformed: 0 };
    let refused = false;
    let timedOut = false;
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
    const timer = new Timer();
    const probe = new Timer();
    try {
      this.o.phase?.({ kind: 'restoring', percent: 0 });
      const admin: Admin = await target.admin();
      const reader = new TopicReader(target.kafka, admin, {
        topic: checkpointsTopic,
        tail: false,
        groupPrefix: '__mm2-node-red-checkpoints-restore',
        settings: target.settings,
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
          if (store.loadRecord(cp, r.timestamp)) kept.add(`${cp.group}\u0000${cp.partition}:${cp.topic}`);
        },
        onProgress: (read, total) => {
          this.o.phase?.({ kind: 'restoring', percent: readPercent(read, total) });
        },
        onError: (err) => failNow(err),
      });
      this.reader = reader;
      const overdue = new Promise<void>((resolve) => {
        timer.after(timeoutMs, () => {
          if (!outcome.failure) timedOut = true;
          failNow(new Error(`reading ${checkpointsTopic} did not finish within ${Math.round(timeoutMs / 1000)} s`));
          resolve();
        });
      });
      // While the read runs, ask the target every retry period whether it still answers: a
      // target that stopped answering shows as an error (red), not as a long "loading".
      probe.every(Math.max(1000, this.o.retryMaxMs ?? 60000), () => {
        target
          .admin()
          .then((a) => a.fetchTopicOffsets(checkpointsTopic))
          .then(
            () => target.reportOk(),
            (e) => {
              if (!outcome.failure) target.reportError(e);
            },
          );
      });
      const started = reader.start().catch((e: Error) => failNow(e));
      await Promise.race([started, failed, overdue]);
      if (outcome.failure) {
        await reader.stop();
        throw outcome.failure;
      }
      report.ok = true;
      report.restored = kept.size;
    } catch (e) {
      const err = e as Error;
      report.ok = false;
      refused = err instanceof NotAuthorizedError || authorizationFailure(err) !== null;
      report.error = err?.name === 'TopicNotFoundError' ? err.message : target.reportError(err);
    } finally {
      timer.stop();
      probe.stop();
      this.reader = null;
      this.abortRestore = null;
    }
    return { report, refused, timedOut };
  }
}
