/**
 * The checkpoint emitter's write to the checkpoints topic (MirrorCheckpointTask's producer send):
 * what a cycle wrote went on the retry list (`unsent`) first and leaves it only with its
 * acknowledgement; whatever fails (connecting the producer, a produce request, anything else)
 * leaves it there, and the next cycle sends the ones still current in the store again. A full
 * cycle with nothing to write still makes sure the target answers (and still holds the topic),
 * so that an unreachable target is a failed cycle, never a quiet one.
 */
import { checkpointChunks, checkpointsToWrite, unsentKey, type WrittenCheckpoint } from '../core/checkpoint-cycle';
import type { Checkpoint } from '../core/types';
import type { ClusterConnection } from '../kafka/connection';

export interface CheckpointWrite {
  target: ClusterConnection;
  topic: string;
  /** What to send, in order (the retry list's entries still current). */
  toWrite: readonly WrittenCheckpoint[];
  /** The retry list: an acknowledged checkpoint leaves it. */
  unsent: Map<string, WrittenCheckpoint>;
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
      const producer = await target.producer();
      // one produce request holds at most ~1 MiB by default (broker message.max.bytes); each chunk encoded when its turn comes
      for (const chunk of checkpointChunks(w.toWrite)) {
        if (w.stopped()) break;
        await producer.send({ topic, acks: -1, messages: chunk.records });
        // acknowledged: off the retry list, unless a newer checkpoint of the partition took its place meanwhile
        for (const c of chunk.checkpoints) if (w.unsent.get(unsentKey(c)) === c) w.unsent.delete(unsentKey(c));
        for (const c of chunk.checkpoints) sent.push(c);
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

  constructor(private readonly o: {
    target: ClusterConnection;
    topic: string;
    unsent: Map<string, WrittenCheckpoint>;
    current(group: string, topic: string, partition: number): Checkpoint | undefined;
    stopped(): boolean;
    /** The instance's lease on its share does not hold (engines/replication-shares): nothing is written, the retry list waits. */
    fenced?(): boolean;
    /** A write failed after some of its chunks were acknowledged: those reached the topic and are reported like any write (the failure goes on). */
    acknowledged?(sent: readonly WrittenCheckpoint[]): void;
  }) {}

  /** Writes at its turn; resolves with what the broker acknowledged (rejects with a CheckpointWriteError). */
  write(full: boolean): Promise<WrittenCheckpoint[]> {
    const run = this.chain.then(async () => {
      if (this.o.fenced?.()) return [];
      const toWrite = checkpointsToWrite(this.o.unsent, this.o.current);
      try {
        return await writeCheckpoints({ target: this.o.target, topic: this.o.topic, toWrite, unsent: this.o.unsent, full, stopped: this.o.stopped });
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
