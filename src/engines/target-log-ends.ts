/**
 * The log-end offsets of the target's remote partitions for the group-offset writer's runs: a full
 * run reads each topic's ends once (shared by its groups); a partial run (the event lane) takes the
 * ends held (core/log-end-cache) when they clamp nothing of the group, and has them read again
 * beside it once they are getting old, so that it waits for a ListOffsets only when a checkpoint
 * is beyond the end held (the log grew since, or the partition is new).
 */
import type { Admin, Kafka } from 'kafkajs';
import type { TargetEndOffset } from '../core/group-offset-sync';
import { LogEndCache } from '../core/log-end-cache';
import type { Checkpoint } from '../core/types';
import type { ClusterSettings } from '../kafka/client';
import { fetchEndOffsets } from '../kafka/end-offsets';

export class TargetLogEnds {
  private readonly cache: LogEndCache;
  /** Topics whose ends are being read beside the runs. */
  private readonly beside = new Set<string>();

  constructor(
    maxAgeMs: number,
    private readonly connection: { readonly kafka?: Kafka; readonly settings?: ClusterSettings },
    private readonly now: () => number,
    private readonly closed: () => boolean,
  ) {
    this.cache = new LogEndCache(maxAgeMs);
  }

  /** The ends of a topic for one run's groups: `endsOf(topic, checkpoints of a group)`; each topic read at most once per run. */
  forRun(admin: Admin, full: boolean): (topic: string, checkpoints: readonly Checkpoint[]) => Promise<TargetEndOffset[]> {
    const reads = new Map<string, Promise<TargetEndOffset[]>>();
    const readOnce = (topic: string): Promise<TargetEndOffset[]> => {
      let p = reads.get(topic);
      if (!p) {
        p = this.read(admin, topic, !full);
        reads.set(topic, p);
      }
      return p;
    };
    return (topic, checkpoints) => {
      if (full) return readOnce(topic);
      const now = this.now();
      const held = this.cache.serves(topic, checkpoints, now);
      if (held === undefined) return readOnce(topic);
      if (this.cache.due(topic, now)) this.readBeside(admin, topic);
      return Promise.resolve(held);
    };
  }

  /** Reads and keeps the ends of `topic`; `quick` (the event lane): a topic read before is not listed again first (two requests, not three; the full runs check it every interval). */
  private read(admin: Admin, topic: string, quick: boolean): Promise<TargetEndOffset[]> {
    const at = this.now();
    const { kafka, settings } = this.connection;
    const known = quick && this.cache.holds(topic);
    return fetchEndOffsets(admin, topic, kafka ? { kafka, settings } : undefined, known).then(
      (list) => {
        const read = list.map((e) => ({ topic, partition: e.partition, offset: e.offset }));
        this.cache.put(topic, read, at);
        return read;
      },
      (e: unknown) => {
        // the next read looks the topic up first
        if (known) this.cache.forget(topic);
        throw e;
      },
    );
  }

  /** One read per topic at a time; a failure is left to the next run that needs the ends. */
  private readBeside(admin: Admin, topic: string): void {
    if (this.closed() || this.beside.has(topic)) return;
    this.beside.add(topic);
    const done = (): void => {
      this.beside.delete(topic);
    };
    this.read(admin, topic, true).then(done, done);
  }
}
