/**
 * The checkpoint emitter's write to the checkpoints topic (MirrorCheckpointTask's producer send):
 * what a cycle wrote went on the retry list (`unsent`) first and leaves it only with its
 * acknowledgement; whatever fails (connecting, a produce request, anything else)
 * leaves it there, and the next cycle sends the ones still current in the store again. A full
 * cycle with nothing to write still makes sure the target answers (and still holds the topic),
 * so that an unreachable target is a failed cycle, never a quiet one.
 */
import { checkpointChunks, type WrittenCheckpoint } from '../core/checkpoint-cycle';
import { UnsentCheckpoints, type CheckpointsToWrite, type UnsentRows } from '../core/unsent-checkpoints';
import type { ClusterConnection } from '../kafka/connection';

export interface CheckpointWrite {
  target: ClusterConnection;
  topic: string;
  /** What to send, in order (the retry list's entries, made as they are read: core/unsent-checkpoints). */
  toWrite: CheckpointsToWrite;
  /** The retry list: an acknowledged checkpoint leaves it. */
  unsent: UnsentCheckpoints;
  full: boolean;
  /** Closing: what is unsent stays on the list. */
  stopped(): boolean;
}

/**
 * A write that failed after some of its chunks were acknowledged: `sent` is what reached the topic
 * (acknowledged), to be reported like any write; the rest stays on the retry list.
 */
export class CheckpointWriteError extends Error {
  constructor(message: string, readonly sent: readonly WrittenCheckpoint[]) {
    super(message);
    this.name = 'CheckpointWriteError';
  }
}

/**
 * Writes, in chunks and in order, stopping at the first failure (rejects with a
 * CheckpointWriteError: the failure explained, and what was acknowledged before it) or when
 * closing. Resolves with what the broker acknowledged: every checkpoint, unless closing stopped it.
 */
export async function writeCheckpoints(w: CheckpointWrite): Promise<WrittenCheckpoint[]> {
  const { target, topic } = w;
  const sent: WrittenCheckpoint[] = [];
  if (w.toWrite.length > 0) {
    try {
      const producer = target.batchProducer();
      // one produce request holds at most ~1 MiB by default (broker message.max.bytes); each chunk
      // encoded when its turn comes, as one record batch straight into its request (partition 0, as MM2 writes)
      for (const chunk of checkpointChunks(w.toWrite)) {
        if (w.stopped()) break;
        await producer.produce(topic, 0, chunk.records);
        // acknowledged: off the retry list, unless a newer checkpoint of the partition took its place meanwhile
        for (const c of chunk.checkpoints) {
          w.unsent.acknowledge(c);
          sent.push(c);
        }
      }
    } catch (e) {
      throw new CheckpointWriteError(target.reportError(e, [{ resource: 'Topic', name: topic, operations: ['WRITE'] }]), sent);
    }
    target.reportOk();
  } else if (w.full) {
    try {
      const admin = await target.admin();
      await admin.fetchTopicOffsets(topic);
    } catch (e) {
      throw new Error(target.reportError(e));
    }
    target.reportOk();
  }
  return sent;
}

/**
 * The writes of one emitter, taking turns (a full and a partial cycle may both write): each sends
 * what is on the retry list and still current in the store when its turn comes, so a later value
 * of a partition never goes out before an earlier one (the topic's order is the store's).
 */
export class CheckpointWrites {
  private chain: Promise<unknown> = Promise.resolve();
  /** The retry list: what the cycles put into the store (`add`), until the broker acknowledged it. */
  readonly unsent: UnsentCheckpoints;

  constructor(private readonly o: {
    target: ClusterConnection;
    topic: string;
    /** The checkpoint store the retry list's rows are in (core/checkpoint-store). */
    store(): UnsentRows;
    /** Whether a group is still this instance's to write (one whose share moved away leaves the retry list). */
    keep?(group: string): boolean;
    stopped(): boolean;
    /** The instance's lease on its share does not hold (engines/replication-shares): nothing is written, the retry list waits. */
    fenced?(): boolean;
    /** A write failed after some of its chunks were acknowledged: those reached the topic and are reported like any write (the failure goes on). */
    acknowledged?(sent: readonly WrittenCheckpoint[]): void;
  }) {
    this.unsent = new UnsentCheckpoints(o.store);
  }

  /** Writes at its turn; resolves with what the broker acknowledged (rejects with a CheckpointWriteError). */
  write(full: boolean): Promise<WrittenCheckpoint[]> {
    const run = this.chain.then(async () => {
      if (this.o.fenced?.()) return [];
      const toWrite = this.unsent.toWrite(this.o.keep);
      try {
        return await writeCheckpoints({ target: this.o.target, topic: this.o.topic, toWrite, unsent: this.unsent, full, stopped: this.o.stopped });
      } catch (e) {
        if (e instanceof CheckpointWriteError && e.sent.length > 0) this.o.acknowledged?.(e.sent);
        throw e;
      }
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Resolves once no write is under way. */
  idle(): Promise<unknown> {
    return this.chain;
  }
}
