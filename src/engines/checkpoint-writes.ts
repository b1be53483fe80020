/**
 * The checkpoint emitter's write to the checkpoints topic (MirrorCheckpointTask's producer send):
 * what a cycle wrote went on the retry list (`unsent`) first and leaves it only with its
 * acknowledgement; whatever fails (connecting the producer, a produce request, anything else)
 * leaves it there, and the next cycle sends the ones still current in the store again. A full
 * cycle with nothing to write still makes sure the target answers (and still holds the topic),
 * so that an unreachable target is a failed cycle, never a quiet one.
 */
import { chunkCheckpoints, unsentKey, type WrittenCheckpoint } from '../core/checkpoint-cycle';
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
        for (const c of chunk.checkpoints) w.unsent.delete(unsentKey(c));
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
