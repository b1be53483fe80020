import type { GroupCoverage } from './coverage-rows';
import type { CoverageStatus } from './checkpoints-for-group';
import type { ReadinessVerdict } from './readiness';
import type { Checkpoint, OffsetSync } from './types';

/** One group partition of a group's coverage, with its readiness (what GroupCoverageEntry reads): a view of its row, made when read. */
export class CoverageRow {
  constructor(
    readonly rows: GroupCoverage,
    readonly i: number,
  ) {}

  get group(): string {
    return this.rows.group;
  }

  get topic(): string {
    return this.rows.topicOf(this.i);
  }

  get partition(): number {
    return this.rows.partitionOf(this.i);
  }

  get remoteTopic(): string | null {
    return this.rows.remoteTopicOf(this.i);
  }

  get upstreamOffset(): bigint | null {
    return this.rows.upstreamOf(this.i);
  }

  get downstreamOffset(): bigint | undefined {
    return this.rows.downstreamOf(this.i);
  }

  get sync(): OffsetSync | undefined {
    return this.rows.syncOf(this.i);
  }

  /** The reason code (the sentence it reads as). */
  get code(): number {
    return this.rows.codeOf(this.i);
  }

  get status(): CoverageStatus {
    return this.rows.statusOf(this.i);
  }

  get verdict(): ReadinessVerdict {
    return this.rows.verdictOf(this.i);
  }

  get reread(): number | null {
    return this.rows.rereadOf(this.i);
  }

  get checkpointAt(): number | null {
    return this.rows.checkpointAtOf(this.i);
  }

  /** The last checkpoint of the partition ('unchanged', 'rewound-*'). */
  get previous(): Checkpoint | undefined {
    return this.rows.previousOf(this.i);
  }

  /** 'emitted' after a rewind: the upstream offset of the checkpoint it rewound from. */
  get rewoundFrom(): bigint | undefined {
    return this.rows.rewoundFromOf(this.i);
  }

  /** One sentence for an operator (made now, never kept). */
  get reason(): string {
    return this.rows.reasonOf(this.i);
  }
}
