/**
 * The target's consumer groups and their states as the group-offset writer last listed them (one
 * ListGroups per broker). A full run lists afresh. A partial run (the event lane) takes a listing
 * up to PARTIAL_MAX_AGE_MS old and has one older than FRESH_MS read again beside it, for the next:
 * the broker's refusal of a commit to a group with members (UNKNOWN_MEMBER_ID,
 * REBALANCE_IN_PROGRESS) stays the last guard, so a group that gained members since is still never written.
 */
import type { ListedGroupState } from '../core/listed-groups';

/** How long a listing serves the partial runs after it without another read (ms). */
const FRESH_MS = 1000;
/** The oldest listing a partial run takes (ms), reading a new one beside it for the next. */
const PARTIAL_MAX_AGE_MS = 10000;

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

  /** The states for a run: fresh for a full one, possibly a few seconds old for a partial one (see above). Rejects when the listing fails. */
  states(full: boolean): Promise<ReadonlyMap<string, ListedGroupState>> {
    const s = this.last;
    if (!full && s) {
      const age = this.now() - s.at;
      if (age <= FRESH_MS) return Promise.resolve(s.map);
      if (age <= PARTIAL_MAX_AGE_MS) {
        this.readBeside();
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
