/**
 * The checkpoint emitter's write to the checkpoints topic (MirrorCheckpointTask's producer send):
 * what a cycle wrote went on the retry list (`unsent`) first and leaves it only with its
 * acknowledgement; whatever fails (connecting the producer, a produce request, anything else)
 * leaves it there, and the next cycle sends the ones still current in the store again. A full
 * cycle with nothing to write still makes sure the target answers (and still holds the topic),
 * so that an unreachable target is a failed cycle, never a quiet one.
 */
import { checkpointsToWrite, chunkCheckpoints, unsentKey, type WrittenCheckpoint } from '../core/checkpoint-cycle';
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

/** Writes, in chunks and in order, stopping at the first failure (rejects with the failure explained). */
export async function writeCheckpoints(w: CheckpointWrite): Promise<void> {
  const { target, topic } = w;
  if (w.toWrite.length > 0) {
    try {
      const producer = await target.producer();
      // one produce request holds at most ~1 MiB by default (broker message.max.bytes)
      for (const chunk of chunkCheckpoints(w.toWrite)) {
        if (w.stopped()) break;
        await producer.send({ topic, acks: -1, messages: chunk.records });
        // acknowledged: off the retry list, unless a newer checkpoint of the partition took its place meanwhile
        for (const c of chunk.checkpoints) if (w.unsent.get(unsentKey(c)) === c) w.unsent.delete(unsentKey(c));
      }
    } catch (e) {
      throw new Error(target.reportError(e, [{ resource: 'Topic', name: topic, operations: ['WRITE'] }]));
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
  }) {}

  /** Writes at its turn; resolves with what it sent (rejects with the failure explained). */
  write(full: boolean): Promise<WrittenCheckpoint[]> {
    const run = this.chain.then(async () => {
      if (this.o.fenced?.()) return [];
      const toWrite = checkpointsToWrite(this.o.unsent, this.o.current);
      await writeCheckpoints({ target: this.o.target, topic: this.o.topic, toWrite, unsent: this.o.unsent, full, stopped: this.o.stopped });
      return toWrite;
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Resolves once no write is under way. */
  idle(): Promise<unknown> {
    return this.chain;
  }
}
