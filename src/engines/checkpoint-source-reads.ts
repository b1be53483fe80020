/**
 * What the checkpoint emitter reads on the source besides the stream of `__consumer_offsets`
 * (engines/source-offsets): the group listing (each group's type, for discovery and for a
 * group first seen committing), and the full reads of the selected groups' offsets a full cycle
 * makes (only every FULL_SOURCE_READ_EVERY_MS while the stream follows), with the watchdog that
 * says at once when the source stops answering them.
 */
import { groupsToRead } from '../core/cycle-selection';
import type { NameFilter } from '../core/filters';
import { mm2ListsGroup, type NotReplicatedGroup } from '../core/group-types';
import type { ClusterConnection } from '../kafka/connection';
import { checkpointGroupListing, type ListedGroupState } from '../core/listed-groups';
import { FULL_SOURCE_READ_EVERY_MS, SOURCE_SILENT_READ_MS, type EmitterEvents } from './checkpoint-emitter-types';
import type { SourceOffsets } from './source-offsets';
import { Timer } from '../core/timers';

/** A group first seen committing that the source's listing did not show is listed again for at most this often (ms). */
const UNLISTED_RELIST_MS = 1000;

/** The source's group listing (one ListGroups per broker): each group's type. */
export class SourceGroupListing {
  /** The last listing (discovery, or the event path's check of a group first seen). */
  private listedStates: ReadonlyMap<string, ListedGroupState> | null = null;
  /** Groups the group filter accepts of a type MM2 never checkpoints (streams, share), from the last listing. */
  otherTypes: readonly NotReplicatedGroup[] = [];
  /**
   * Groups first seen committing that a new listing did not show (no DESCRIBE on them, or the
   * listing not there yet), with when: listed again for them at most every UNLISTED_RELIST_MS, until the next discovery.
   */
  private unlistedSeen = new Map<string, number>();

  constructor(
    private readonly source: ClusterConnection,
    private readonly groupFilter: NameFilter,
    private readonly now: () => number,
  ) {}

  /** Discovery's listing: the classic and consumer groups, as MM2 4.x lists them (core/group-types). Rejects on failure. */
  async listIds(): Promise<readonly string[]> {
    const states = await this.source.offsetFetcher().listGroupStates();
    this.listedStates = states;
    return checkpointGroupListing(states).ids;
  }

  /** The other types in the last listing. */
  others(): readonly NotReplicatedGroup[] {
    return this.listedStates === null ? [] : checkpointGroupListing(this.listedStates).others;
  }

  /** A discovery finished: its groups of other types stand; groups not listed are asked about again. */
  discovered(otherTypes: readonly NotReplicatedGroup[]): void {
    this.otherTypes = otherTypes;
    this.unlistedSeen.clear();
  }

  /**
   * Of `groups` (first seen committing in the stream), those MM2's discovery lists: classic and
   * consumer groups, by the type of the last listing, or of a new one when a group is not in it
   * (a streams group's members commit plain offsets too: it is never selected). A group the
   * listing does not show, or a listing that fails, selects nothing now: the next discovery decides.
   */
  async mm2Lists(groups: readonly string[]): Promise<Set<string>> {
    let states = this.listedStates;
    const now = this.now();
    const relist = (g: string): boolean => !states?.has(g) && now - (this.unlistedSeen.get(g) ?? -Infinity) >= UNLISTED_RELIST_MS;
    if (states === null || groups.some(relist)) {
      try {
        states = await this.source.offsetFetcher().listGroupStates();
      } catch {
        states = null;
      }
      if (states !== null) {
        this.listedStates = states;
        const others = checkpointGroupListing(states).others;
        this.otherTypes = others.some((o) => !this.groupFilter.accept(o.group)) ? others.filter((o) => this.groupFilter.accept(o.group)) : others;
      }
    }
    const out = new Set<string>();
    if (states === null) return out;
    for (const g of groups) {
      const listed = states.get(g);
      if (listed === undefined) this.unlistedSeen.set(g, now);
      else if (mm2ListsGroup(listed)) out.add(g);
    }
    return out;
  }
}

/** How often an instance sharing the flow reads the offsets of the groups other instances own (ms): only to know every group of the flow. */
export const OTHERS_READ_EVERY_MS = 30000;

/**
 * The groups of the flow other instances own (issue 25): which of the group filter's groups they
 * own have a committed offset on a topic the topic filter accepts, read at most every
 * OTHERS_READ_EVERY_MS (and after a share change), not kept (their offsets are the owners'
 * business): what the readiness of every group needs, without a full read of them at every discovery.
 */
export class OtherGroupsOfFlow {
  private relevant: ReadonlySet<string> | null = null;
  private readAt = 0;

  constructor(
    private readonly source: ClusterConnection,
    private readonly topicFilter: NameFilter,
    private readonly now: () => number,
    private readonly everyMs: number = OTHERS_READ_EVERY_MS,
  ) {}

  /** The share changed: read again at the next call. */
  invalidate(): void {
    this.readAt = 0;
  }

  /**
   * Of `names` (accepted groups other instances own), those with a replicated topic (one whose
   * offsets could not be read counts). Never rejects: a failed read keeps the last answer (none before the first).
   */
  async of(names: readonly string[]): Promise<string[]> {
    if (names.length === 0) return [];
    if (this.relevant === null || this.now() - this.readAt >= this.everyMs) {
      const readAt = this.now();
      try {
        const { offsets, failed } = await this.source.offsetFetcher().fetchMany([...names]);
        const relevant = new Set<string>(failed.keys());
        for (const [g, list] of offsets) if (list.some((o) => this.topicFilter.accept(o.topic))) relevant.add(g);
        this.relevant = relevant;
        this.readAt = readAt;
      } catch {
        if (this.relevant === null) return [];
      }
    }
    const relevant = this.relevant;
    return relevant === null ? [] : names.filter((g) => relevant.has(g));
  }
}

/** The full reads of the selected groups' source offsets. */
export class FullSourceReads {
  /** When the source offsets were last read in full (ms; 0: never). */
  private lastFullReadAt = 0;
  /** How long the last full read of the source's offsets that answered took (ms). */
  private lastReadMs = 0;

  constructor(
    private readonly source: ClusterConnection,
    private readonly sourceOffsets: SourceOffsets,
    private readonly now: () => number,
    private readonly events: () => EmitterEvents | undefined,
    /** The longest a followed stream's offsets serve without a full read (ms; FULL_SOURCE_READ_EVERY_MS unless set). */
    private readonly fullReadEveryMs: number = FULL_SOURCE_READ_EVERY_MS,
  ) {}

  /** The next read is a full one (the share changed: groups gained were not streamed here). */
  invalidate(): void {
    this.lastFullReadAt = 0;
  }

  /** Whether the source offsets kept are current without a full read: the stream follows, and a full read succeeded since it stood, less than FULL_SOURCE_READ_EVERY_MS (or the option) ago. */
  fresh(): boolean {
    const since = this.sourceOffsets.followingSince;
    return since !== null && this.lastFullReadAt >= since && this.now() - this.lastFullReadAt < this.fullReadEveryMs;
  }

  /** Discovery's read: while the stream follows (and was read in full since), what it keeps is current: read only the others. */
  async forDiscovery(groups: readonly string[]): Promise<{ topics: { get(g: string): string[] | undefined }; failed: Map<string, string> }> {
    const { failed } = await this.sourceOffsets.readAll(groupsToRead(groups, this.fresh(), (g) => this.sourceOffsets.has(g)));
    const topics = { get: (g: string) => (failed.has(g) ? undefined : this.sourceOffsets.topicsOf(g)) };
    return { topics, failed };
  }

  /** A full cycle's read of `groups` (never rejects): the groups that failed, with why, added to `failedGroups`. */
  async forCycle(groups: readonly string[], failedGroups: Array<{ group: string; error: string }>): Promise<void> {
    // a read that does not answer in time: the source stopped answering (said now, the client keeps trying)
    let silent = false;
    const silentAfter = Math.max(SOURCE_SILENT_READ_MS, 3 * this.lastReadMs);
    const watchdog = new Timer();
    if (groups.length > 0) {
      watchdog.after(silentAfter, () => {
        silent = true;
        this.events()?.sourceUnanswered?.(`the source has not answered the read of the groups' offsets for ${Math.round(silentAfter / 1000)} s; the client is trying again`);
      });
    }
    try {
      await this.source.admin(); // connects (and reports a connection failure) before the fetch
      // following: the stream's offsets, read in full only every FULL_SOURCE_READ_EVERY_MS
      // (and the groups never read); polling: every group, every cycle
      const fresh = this.fresh();
      const readStarted = this.now();
      const { failed } = await this.sourceOffsets.readAll(groupsToRead(groups, fresh, (g) => this.sourceOffsets.has(g)));
      if (!fresh && failed.size === 0) this.lastFullReadAt = readStarted;
      for (const [group, error] of failed) failedGroups.push({ group, error });
      if (failed.size < groups.length) {
        this.lastReadMs = this.now() - readStarted;
        // it answered after all (late): the source answers
        if (silent) this.events()?.sourceAnswered?.();
      }
    } catch (e) {
      const error = (e as Error)?.message ?? String(e);
      for (const group of groups) failedGroups.push({ group, error });
    } finally {
      watchdog.stop();
    }
  }
}
