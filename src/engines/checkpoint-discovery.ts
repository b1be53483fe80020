/**
 * The checkpoint emitter's group discovery (MirrorCheckpointConnector.findConsumerGroups, core
 * group-discovery) with its I/O, and the reconcile lane's rule for it (issue 24 item 5): a
 * refresh lists the source's groups every time (one ListGroups per broker); when the listing is
 * the one of the last discovery (the fetcher keeps the same listing while nothing changed) and no
 * group's committed partitions changed since (the source offsets' shape), while the stream keeps
 * the offsets current (no full read due), the answer is the last one: the selection of 10,000
 * groups is not filtered and checked again every second to come out the same. Shared by several
 * instances, only while this one owns every group (alone in its sharing group: what a single
 * Node-RED always is) and owned every group all through the discovery that made the last answer.
 */
import { findCheckpointGroups, type DiscoveryResult } from '../core/group-discovery';
import type { NameFilter } from '../core/filters';
import type { ClusterConnection } from '../kafka/connection';
import type { FullSourceReads, OtherGroupsOfFlow, SourceGroupListing } from './checkpoint-source-reads';
import type { SourceOffsets } from './source-offsets';
import type { GroupOwner } from './replication-shares';

const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface DiscoveryParts {
  source: ClusterConnection;
  groupFilter: NameFilter;
  topicFilter: NameFilter;
  shares?: GroupOwner;
  listing: SourceGroupListing;
  fullReads: FullSourceReads;
  sourceOffsets: SourceOffsets;
  othersOfFlow: OtherGroupsOfFlow;
}

export interface Discovered {
  result: DiscoveryResult;
  /** Every group of the flow: this instance's and the others' (sorted). */
  flowGroups: readonly string[];
  /** The last discovery's answer, unchanged (nothing it depends on changed). */
  reused: boolean;
}

export class CheckpointDiscovery {
  /** The last discovery's answer, with the listing and the source offsets' shape it was made from (not kept when shared, or when a group could not be read). */
  private last: { ids: readonly string[]; shape: number; found: Discovered } | null = null;
  /** Counts invalidate(): a discovery under way at one keeps no answer. */
  private epoch = 0;

  constructor(private readonly d: DiscoveryParts) {}

  /** The share changed, or a failure: the next discovery is made in full. */
  invalidate(): void {
    this.last = null;
    this.epoch++;
  }

  /** One discovery (rejects as findCheckpointGroups and the reads do). */
  async run(): Promise<Discovered> {
    const { source, groupFilter, topicFilter, shares, listing, fullReads, sourceOffsets } = this.d;
    await source.admin(); // connects (and reports a connection failure) first
    await shares?.ready(); // the first assignment (bounded): which groups are this instance's
    // the stream reads the share's partitions of __consumer_offsets; groups of one followed again are read in full
    if (shares && (await sourceOffsets.followPartitions(shares.offsetsPartitions()))) fullReads.invalidate();
    // before anything is read: a change from now on makes the next discovery a full one
    const shape = sourceOffsets.shape;
    const epoch = this.epoch;
    const ids = await listing.listIds();
    // shared: an answer is kept and reused only while this instance owns every group (nothing left to other instances)
    const whole = (): boolean => shares === undefined || shares.ownsEvery?.() === true;
    const wholeAtStart = whole();
    const last = this.last;
    if (wholeAtStart && last !== null && last.ids === ids && last.shape === shape && fullReads.fresh()) return { ...last.found, reused: true };
    const result = await findCheckpointGroups(
      {
        // one ListGroups per broker, the same names while nothing changed (refreshed every second at scale); classic and consumer groups only, as MM2 4.x lists them (core/group-types)
        listGroups: () => Promise.resolve(ids),
        pause: yieldTurn,
        otherTypes: () => listing.others(),
        // while the stream follows (and was read in full since), what it keeps is current: read only the others
        committedTopics: (groups) => fullReads.forDiscovery(groups),
        ...(shares ? { owns: (g: string) => shares.owns(g) } : {}), // shared: only this instance's groups are read
      },
      groupFilter,
      topicFilter,
    );
    // every group of the flow: this instance's, and those of the others (read less often)
    const others = await this.d.othersOfFlow.of(result.elsewhere);
    const found: Discovered = { result, flowGroups: others.length === 0 ? result.groups : [...result.groups, ...others].sort(), reused: false };
    const keep = wholeAtStart && whole() && epoch === this.epoch && result.errors.length === 0 && result.elsewhere.length === 0;
    this.last = keep ? { ids, shape, found } : null;
    return found;
  }
}
