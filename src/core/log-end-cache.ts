/**
 * The log-end offsets of the target's remote partitions as last read, for the event lane of the
 * group-offset writer: a write for one group need not read them again when what it would clamp
 * cannot change the answer. A log end only grows (records are appended; DeleteRecords and
 * retention move the start, not the end), so an end read earlier that is already at or above
 * every checkpoint of the group clamps nothing now either; a checkpoint beyond it (the log grew
 * since, or the partition is new) needs a fresh read. Reads older than `maxAgeMs` are not used
 * (a topic deleted and created again starts from 0; the full runs read afresh every interval);
 * the event lane has them read again beside it once they are older than half of that (`due`).
 *
 * Plain state, no I/O.
 */
import type { TargetEndOffset } from './group-offset-sync';
import type { Checkpoint } from './types';

export class LogEndCache {
  private readonly byTopic = new Map<string, { at: number; ends: TargetEndOffset[]; byPartition: Map<number, bigint> }>();

  constructor(private readonly maxAgeMs: number) {}

  /** A fresh read of `topic`'s log ends at `now`. */
  put(topic: string, ends: readonly TargetEndOffset[], now: number): void {
    const list = ends.filter((e) => e.topic === topic);
    this.byTopic.set(topic, { at: now, ends: list, byPartition: new Map(list.map((e) => [e.partition, e.offset])) });
  }

  /**
   * The log ends of `topic` read earlier, when they serve the checkpoints of one group at `now`:
   * read at most maxAgeMs ago and at or above every checkpoint of the group on that topic.
   * undefined: read again.
   */
  serves(topic: string, checkpoints: Iterable<Checkpoint>, now: number): TargetEndOffset[] | undefined {
    const e = this.byTopic.get(topic);
    if (e === undefined || now - e.at > this.maxAgeMs) return undefined;
    for (const c of checkpoints) {
      if (c.topic !== topic) continue;
      const end = e.byPartition.get(c.partition);
      if (end === undefined || end < c.downstreamOffset) return undefined;
    }
    return e.ends;
  }

  /** Whether the ends of `topic` held are older than half of maxAgeMs at `now` (read them again beside the runs that take them, before they stop serving). */
  due(topic: string, now: number): boolean {
    const e = this.byTopic.get(topic);
    return e !== undefined && now - e.at > this.maxAgeMs / 2;
  }

  /** Whether ends of `topic` (at least one partition: the topic existed) are held. */
  holds(topic: string): boolean {
    return (this.byTopic.get(topic)?.ends.length ?? 0) > 0;
  }

  /** Forgets the topic (it is missing on the target, or a write was refused for it). */
  forget(topic: string): void {
    this.byTopic.delete(topic);
  }

  /** Topics held. */
  get size(): number {
    return this.byTopic.size;
  }
}
