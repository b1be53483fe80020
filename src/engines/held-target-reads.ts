/**
 * What the group-offset writer holds of the target between its reads: the target's consumer
 * groups with their states as last listed (TargetGroupListing) and the log-end offsets of the
 * remote partitions as last read (TargetLogEnds, with core/group-offset-sync LogEndCache). Both
 * follow one rule: a full run reads afresh; a partial run (the event lane) takes what is held when
 * it still answers, and has it read again beside the run once it ages, so that an event waits for
 * the target only when what is held cannot answer.
 *
 * TargetGroupListing:
 *   The target's consumer groups and their states as the group-offset writer last listed them (one
 *   ListGroups per broker). A full run lists afresh. A partial run (the event lane) never waits for a
 *   listing when one is held (up to PARTIAL_MAX_AGE_MS old): it takes it, and has one older than
 *   REFRESH_MS read again beside it, for the next. The listing on the event lane only spares the
 *   requests of a group known to have members; the guard is the broker: an OffsetCommit with
 *   generation -1 and no member id is refused (UNKNOWN_MEMBER_ID) to a group with members, for
 *   every group type (classic, KIP-848 consumer, streams; a share group is refused as not a consumer
 *   group), on the old and the new group coordinator; the writer reads that refusal as "has members"
 *   (core/target-offsets `refused`). So a group that gained members since the listing is still never written.
 *
 * TargetLogEnds:
 *   The log-end offsets of the target's remote partitions for the group-offset writer's runs: a full
 *   run reads each topic's ends once (shared by its groups); a partial run (the event lane) takes the
 *   ends held (LogEndCache) when they clamp nothing of the group, and has them read again
 *   beside it once they are getting old, so that it waits for a ListOffsets only when a checkpoint
 *   is beyond the end held (the log grew since, or the partition is new).
 */
import type { Admin, Kafka } from 'kafkajs';
import { LogEndCache, type TargetEndOffset } from '../core/group-offset-sync';
import type { ListedGroupState } from '../core/listed-groups';
import type { Checkpoint, CommittedOffset } from '../core/types';
import type { ClusterSettings } from '../kafka/client';
import { fetchEndOffsets } from '../kafka/end-offsets';

/** A listing older than this (ms) is read again beside the partial runs that take it. */
const REFRESH_MS = 10000;
/** The oldest listing a partial run takes (ms); an older one is read first (the target was unreachable, or no full run listed for long). */
const PARTIAL_MAX_AGE_MS = 300000;

export class TargetGroupListing {
  private last: { at: number; map: ReadonlyMap<string, ListedGroupState> } | null = null;
  private beside = false;

  constructor(
    private readonly list: () => Promise<ReadonlyMap<string, ListedGroupState>>,
    private readonly now: () => number,
    private readonly closed: () => boolean,
  ) {}

  /** When the listing held was asked for (-Infinity: none yet). */
  get at(): number {
    return this.last?.at ?? -Infinity;
  }

  /** The states for a run: fresh for a full one, the one held for a partial one (see above). Rejects when the listing fails. */
  states(full: boolean): Promise<ReadonlyMap<string, ListedGroupState>> {
    const s = this.last;
    if (!full && s) {
      const age = this.now() - s.at;
      if (age >= 0 && age <= PARTIAL_MAX_AGE_MS) {
        if (age > REFRESH_MS) this.readBeside();
        return Promise.resolve(s.map);
      }
    }
    return this.read();
  }

  /** Forgets the listing held (a benchmark releasing what the writer keeps). */
  forget(): void {
    this.last = null;
  }

  private read(): Promise<ReadonlyMap<string, ListedGroupState>> {
    const at = this.now();
    return this.list().then((map) => {
      if (!this.last || this.last.at <= at) this.last = { at, map };
      return map;
    });
  }

  /** A listing read beside the runs (one at a time); its failure is left to the next run that needs one. */
  private readBeside(): void {
    if (this.beside || this.closed()) return;
    this.beside = true;
    this.read().then(
      () => (this.beside = false),
      () => (this.beside = false),
    );
  }
}

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

/** How old a read handed over by a full run may be when the event lane decides against it (ms); older: read again. */
export const HANDED_READ_MAX_AGE_MS = 2000;

/**
 * HandedReads: the target's offsets of a group as a full run read them while it held the group,
 * handed to the event waiting for that group when the run let it go without writing it (issue 24
 * item 4): the event's run decides against that read instead of reading again. The read stays
 * the latest state of the target: nothing writes a group but the run holding it, and the next run
 * to hold the group takes the read (a partial run) or drops it (a full run, which reads afresh);
 * a read older than HANDED_READ_MAX_AGE_MS is read again.
 */
export class HandedReads {
  private readonly reads = new Map<string, { offsets: CommittedOffset[]; at: number }>();

  /** `group`'s offsets as read at `at` by the run letting it go now (unwritten since). */
  hand(group: string, offsets: CommittedOffset[], at: number): void {
    this.reads.set(group, { offsets, at });
  }

  /** The reads handed over for these groups that are still fresh at `now`; every read of them is dropped (taken once). */
  take(groups: Iterable<string>, now: number): Map<string, { offsets: CommittedOffset[]; at: number }> {
    const out = new Map<string, { offsets: CommittedOffset[]; at: number }>();
    if (this.reads.size === 0) return out;
    for (const g of groups) {
      const r = this.reads.get(g);
      if (r === undefined) continue;
      this.reads.delete(g);
      if (now - r.at >= 0 && now - r.at <= HANDED_READ_MAX_AGE_MS) out.set(g, r);
    }
    return out;
  }

  /** A run that reads afresh took `group`. */
  drop(group: string): void {
    if (this.reads.size > 0) this.reads.delete(group);
  }

  clear(): void {
    this.reads.clear();
  }
}
