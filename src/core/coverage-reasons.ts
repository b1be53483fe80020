/**
 * A coverage row's reason code (core/coverage-rows): which status and which of checkpointsForGroup's
 * sentences a row reads as, the code of an entry, and the sentence made from a row when read.
 */
import type { CoverageEntry } from './checkpoints-for-group';
import type { GroupCoverage } from './coverage-rows';

/** How a row's sentence reads (the status, and which of its sentences). */
export const enum Reason {
  NotReplicated = 0,
  NoCommit,
  CheckpointsLoading,
  SyncsLoading,
  NoSync,
  RewoundBelowSyncs,
  RewoundToStart,
  OlderThanOldest,
  UnchangedSame,
  UnchangedBehind,
  Emitted,
  EmittedAfterRewind,
  /** The entry of checkpointsForGroup itself, in `ref`. */
  Kept,
}

function how(offset: bigint, syncUp: bigint, syncDown: bigint): string {
  return syncUp === offset
    ? `exactly the synced record ${syncUp}->${syncDown}`
    : `past the synced record ${syncUp}->${syncDown}, so it resumes right after it`;
}

function rewound(r: GroupCoverage, i: number): string {
  return (
    `the group was rewound from upstream ${r.refUpOf(i)} to ${r.upstreamOf(i)}, below the oldest retained offset sync (upstream ${r.syncUpOf(i)}), ` +
    `so it cannot be translated, and the last checkpoint (${r.refDownOf(i)}) would skip what it was rewound to re-read`
  );
}

/** checkpointsForGroup's sentence for row `i` (not a kept one). */
export function reasonOf(r: GroupCoverage, i: number): string {
  const code = r.codeOf(i);
  const offset = r.upstreamOf(i) as bigint;
  const remote = r.remoteTopicOf(i);
  const partition = r.partitionOf(i);
  switch (code) {
    case Reason.NotReplicated:
      return 'topic is not replicated: the topic filter (topics / topics.exclude) rejects it';
    case Reason.NoCommit:
      return 'the group has no committed offset for this partition';
    case Reason.CheckpointsLoading:
      return 'the previous checkpoints are still being restored from the checkpoints topic; no checkpoint until that is done';
    case Reason.SyncsLoading:
      return 'the offset-sync history is still being read; no translation until it has been read to the end';
    case Reason.NoSync:
      return 'no offset sync for this partition yet: no record of it has been mirrored since the sync history began';
    case Reason.RewoundBelowSyncs:
      return `${rewound(r, i)}; the log start of ${remote}-${partition} on the target is not known yet, so nothing is checkpointed this time`;
    case Reason.RewoundToStart:
      return `${rewound(r, i)}: checkpoint ${offset} -> ${r.downstreamOf(i)}, the start of ${remote}-${partition} on the target, so a failover skips nothing`;
    case Reason.OlderThanOldest: {
      const u = r.syncUpOf(i);
      return `the group's offset ${offset} is older than the oldest retained offset sync (upstream ${u}); translating it could skip records, so it is checkpointed once the group reaches offset ${u}`;
    }
    case Reason.UnchangedSame:
      return `unchanged: downstream offset ${r.refDownOf(i)} was already checkpointed (upstream ${offset} is ${how(offset, r.syncUpOf(i), r.syncDownOf(i))})`;
    case Reason.UnchangedBehind:
      return (
        `the translation ${r.downstreamOf(i)} is behind the last checkpoint ${r.refDownOf(i)} ` +
        `and the group did not rewind, so the last checkpoint stands (checkpoints never move backwards)`
      );
    case Reason.Emitted:
      return `checkpoint ${offset} -> ${r.downstreamOf(i)}: the group is ${how(offset, r.syncUpOf(i), r.syncDownOf(i))}`;
    case Reason.EmittedAfterRewind:
      return `checkpoint ${offset} -> ${r.downstreamOf(i)} after a rewind of the group from upstream ${r.refUpOf(i)}: the group is ${how(offset, r.syncUpOf(i), r.syncDownOf(i))}`;
    default:
      return (r.keptOf(i) as CoverageEntry).reason;
  }
}

/** The code of checkpointsForGroup's entry `c` (`checkpointsLoaded`: the checkpoint store's state when it was made). */
export function codeOf(c: CoverageEntry, checkpointsLoaded: boolean): Reason {
  const kept = Reason.Kept;
  const up = c.upstreamOffset;
  switch (c.status) {
    case 'topic-not-replicated':
      return Reason.NotReplicated;
    case 'no-committed-offset':
      return Reason.NoCommit;
    case 'store-loading':
      return checkpointsLoaded ? Reason.SyncsLoading : Reason.CheckpointsLoading;
    case 'no-sync':
      return Reason.NoSync;
    case 'rewound-below-syncs':
      return c.previous !== undefined && c.sync !== undefined && c.remoteTopic !== null ? Reason.RewoundBelowSyncs : kept;
    case 'rewound-to-start':
      return c.previous !== undefined && c.sync !== undefined && c.remoteTopic !== null && c.downstreamOffset !== undefined ? Reason.RewoundToStart : kept;
    case 'older-than-oldest-sync':
      // below the oldest sync; otherwise a translation below zero (its sentence names the value: kept)
      return c.sync !== undefined && up !== null && up < c.sync.upstreamOffset && c.downstreamOffset === undefined ? Reason.OlderThanOldest : kept;
    case 'unchanged':
      if (c.previous === undefined || c.sync === undefined || up === null || c.downstreamOffset === undefined) return kept;
      return c.previous.downstreamOffset === c.downstreamOffset ? Reason.UnchangedSame : Reason.UnchangedBehind;
    case 'emitted':
      if (c.sync === undefined || up === null || c.downstreamOffset === undefined) return kept;
      return c.rewoundFrom !== undefined ? Reason.EmittedAfterRewind : Reason.Emitted;
    default:
      return kept;
  }
}
