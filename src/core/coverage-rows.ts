import type { CoverageEntry, CoverageStatus } from './checkpoints-for-group';
import type { EntryReadiness, ReadinessVerdict } from './readiness';
import type { Checkpoint, OffsetSync } from './types';

/**
 * A coverage entry as the translation cache keeps it, one per group partition for many cycles
 * (100,000 at 10,000 groups x 10 partitions; issue 24 step g, compact state): a reason code and
 * the few values its sentence needs (most of them objects the stores hold anyway: the offsets,
 * the sync, the last checkpoint), no sentence and no JSON. The sentence (`reason`) and the
 * readiness verdict are made when read: when output 2, the dashboard or a switchover plan asks.
 *
 * The sentences are exactly checkpointsForGroup's (core/checkpoints-for-group; a unit test holds
 * the two together). A case without a code of its own here (a source partition whose remote
 * partition another one took, a translation below zero) keeps checkpointsForGroup's entry as is.
 */

/** How a row's sentence reads (the status, and which of its sentences). */
const enum Reason {
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

const STATUS: readonly CoverageStatus[] = [
  'topic-not-replicated',
  'no-committed-offset',
  'store-loading',
  'store-loading',
  'no-sync',
  'rewound-below-syncs',
  'rewound-to-start',
  'older-than-oldest-sync',
  'unchanged',
  'unchanged',
  'emitted',
  'emitted',
];

const VERDICTS: readonly ReadinessVerdict[] = ['ready', 'at-risk', 'not-covered'];
const VERDICT_BITS: Readonly<Record<ReadinessVerdict, number>> = { ready: 0, 'at-risk': 1, 'not-covered': 2 };

/** One group partition of a cycle's coverage, with its readiness (what GroupCoverageEntry reads). */
export class CoverageRow {
  constructor(
    readonly group: string,
    readonly topic: string,
    readonly partition: number,
    readonly remoteTopic: string | null,
    readonly upstreamOffset: bigint | null,
    readonly downstreamOffset: bigint | undefined,
    readonly sync: OffsetSync | undefined,
    /** The last checkpoint (unchanged, rewound-*), the offset rewound from (emitted after a rewind), or the kept entry. */
    readonly ref: Checkpoint | bigint | CoverageEntry | undefined,
    /** Reason code | verdict << 4. */
    readonly bits: number,
    readonly reread: number | null,
    readonly checkpointAt: number | null,
  ) {}

  /** The reason code (the sentence it reads as). */
  get code(): number {
    return this.bits & 15;
  }

  get status(): CoverageStatus {
    const c = this.code;
    return c === Reason.Kept ? (this.ref as CoverageEntry).status : STATUS[c];
  }

  get verdict(): ReadinessVerdict {
    return VERDICTS[this.bits >> 4];
  }

  /** The last checkpoint of the partition ('unchanged', 'rewound-*'). */
  get previous(): Checkpoint | undefined {
    const c = this.code;
    if (c === Reason.Kept) return (this.ref as CoverageEntry).previous;
    return c === Reason.UnchangedSame || c === Reason.UnchangedBehind || c === Reason.RewoundBelowSyncs || c === Reason.RewoundToStart ? (this.ref as Checkpoint) : undefined;
  }

  /** 'emitted' after a rewind: the upstream offset of the checkpoint it rewound from. */
  get rewoundFrom(): bigint | undefined {
    const c = this.code;
    if (c === Reason.Kept) return (this.ref as CoverageEntry).rewoundFrom;
    return c === Reason.EmittedAfterRewind ? (this.ref as bigint) : undefined;
  }

  /** One sentence for an operator (made now, never kept). */
  get reason(): string {
    return reasonOf(this);
  }
}

function how(offset: bigint, s: OffsetSync): string {
  return s.upstreamOffset === offset
    ? `exactly the synced record ${s.upstreamOffset}->${s.downstreamOffset}`
    : `past the synced record ${s.upstreamOffset}->${s.downstreamOffset}, so it resumes right after it`;
}

function rewound(r: CoverageRow, last: Checkpoint): string {
  return (
    `the group was rewound from upstream ${last.upstreamOffset} to ${r.upstreamOffset}, below the oldest retained offset sync (upstream ${(r.sync as OffsetSync).upstreamOffset}), ` +
    `so it cannot be translated, and the last checkpoint (${last.downstreamOffset}) would skip what it was rewound to re-read`
  );
}

/** checkpointsForGroup's sentence for the row. */
function reasonOf(r: CoverageRow): string {
  const code = r.code;
  const ref = r.ref;
  const offset = r.upstreamOffset as bigint;
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
      return `${rewound(r, ref as Checkpoint)}; the log start of ${r.remoteTopic}-${r.partition} on the target is not known yet, so nothing is checkpointed this time`;
    case Reason.RewoundToStart:
      return `${rewound(r, ref as Checkpoint)}: checkpoint ${offset} -> ${r.downstreamOffset}, the start of ${r.remoteTopic}-${r.partition} on the target, so a failover skips nothing`;
    case Reason.OlderThanOldest: {
      const u = (r.sync as OffsetSync).upstreamOffset;
      return `the group's offset ${offset} is older than the oldest retained offset sync (upstream ${u}); translating it could skip records, so it is checkpointed once the group reaches offset ${u}`;
    }
    case Reason.UnchangedSame:
      return `unchanged: downstream offset ${(ref as Checkpoint).downstreamOffset} was already checkpointed (upstream ${offset} is ${how(offset, r.sync as OffsetSync)})`;
    case Reason.UnchangedBehind:
      return (
        `the translation ${r.downstreamOffset} is behind the last checkpoint ${(ref as Checkpoint).downstreamOffset} ` +
        `and the group did not rewind, so the last checkpoint stands (checkpoints never move backwards)`
      );
    case Reason.Emitted:
      return `checkpoint ${offset} -> ${r.downstreamOffset}: the group is ${how(offset, r.sync as OffsetSync)}`;
    case Reason.EmittedAfterRewind:
      return `checkpoint ${offset} -> ${r.downstreamOffset} after a rewind of the group from upstream ${ref as bigint}: the group is ${how(offset, r.sync as OffsetSync)}`;
    default:
      return (ref as CoverageEntry).reason;
  }
}

/** The code of checkpointsForGroup's entry `c` (`checkpointsLoaded`: the checkpoint store's state when it was made), and what the row keeps beside it. */
function codeOf(c: CoverageEntry, checkpointsLoaded: boolean): { code: Reason; ref: CoverageRow['ref'] } {
  const kept = { code: Reason.Kept, ref: c };
  const up = c.upstreamOffset;
  switch (c.status) {
    case 'topic-not-replicated':
      return { code: Reason.NotReplicated, ref: undefined };
    case 'no-committed-offset':
      return { code: Reason.NoCommit, ref: undefined };
    case 'store-loading':
      return { code: checkpointsLoaded ? Reason.SyncsLoading : Reason.CheckpointsLoading, ref: undefined };
    case 'no-sync':
      return { code: Reason.NoSync, ref: undefined };
    case 'rewound-below-syncs':
      return c.previous !== undefined && c.sync !== undefined && c.remoteTopic !== null ? { code: Reason.RewoundBelowSyncs, ref: c.previous } : kept;
    case 'rewound-to-start':
      return c.previous !== undefined && c.sync !== undefined && c.remoteTopic !== null && c.downstreamOffset !== undefined ? { code: Reason.RewoundToStart, ref: c.previous } : kept;
    case 'older-than-oldest-sync':
      // below the oldest sync; otherwise a translation below zero (its sentence names the value: kept)
      return c.sync !== undefined && up !== null && up < c.sync.upstreamOffset && c.downstreamOffset === undefined ? { code: Reason.OlderThanOldest, ref: undefined } : kept;
    case 'unchanged':
      if (c.previous === undefined || c.sync === undefined || up === null || c.downstreamOffset === undefined) return kept;
      return { code: c.previous.downstreamOffset === c.downstreamOffset ? Reason.UnchangedSame : Reason.UnchangedBehind, ref: c.previous };
    case 'emitted':
      if (c.sync === undefined || up === null || c.downstreamOffset === undefined) return kept;
      return c.rewoundFrom !== undefined ? { code: Reason.EmittedAfterRewind, ref: c.rewoundFrom } : { code: Reason.Emitted, ref: undefined };
    default:
      return kept;
  }
}

/** The row of checkpointsForGroup's entry `c` of `group`, with its readiness. */
export function coverageRow(group: string, c: CoverageEntry, rd: EntryReadiness, checkpointsLoaded: boolean): CoverageRow {
  const { code, ref } = codeOf(c, checkpointsLoaded);
  // 'unchanged' at the same offset: the last checkpoint's offset object (one bigint less per row)
  const down = code === Reason.UnchangedSame ? (ref as Checkpoint).downstreamOffset : c.downstreamOffset;
  return new CoverageRow(group, c.topic, c.partition, c.remoteTopic, c.upstreamOffset, down, c.sync, ref, code | (VERDICT_BITS[rd.verdict] << 4), rd.reread, rd.checkpointAt);
}
