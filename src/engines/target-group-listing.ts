/**
 * The target's consumer groups and their states as the group-offset writer last listed them (one
 * ListGroups per broker). A full run lists afresh. A partial run (the event lane) never waits for a
 * listing when one is held (up to PARTIAL_MAX_AGE_MS old): it takes it, and has one older than
 * REFRESH_MS read again beside it, for the next. The listing on the event lane only spares the
 * requests of a group known to have members; the guard is the broker: an OffsetCommit with
 * generation -1 and no member id is refused (UNKNOWN_MEMBER_ID) to a group with members, for
 * every group type (classic, KIP-848 consumer, streams; a share group is refused as not a consumer
 * group), on the old and the new group coordinator; the writer reads that refusal as "has members"
 * (core/target-offsets `refused`). So a group that gained members since the listing is still never written.
 */
import type { ListedGroupState } from '../core/listed-groups';

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
