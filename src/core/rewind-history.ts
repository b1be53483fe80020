import { noteRewind, type RewindMark } from './group-offset-sync';
import { partitionKey } from './partition-key';
import type { Checkpoint } from './types';

/**
 * The rewinds on the source that a replay of the checkpoints topic shows (issue 26, item 1):
 * fed every checkpoint of the topic in log order, it keeps the latest checkpoint per (group,
 * remote partition) and the rewind marks (see noteRewind) the order of the checkpoints gives,
 * as the group-offset writer in mode "topic" notes them while it loads the topic. Mode "input"
 * replays the topic once at start with it, so that a rewind whose checkpoint was written just
 * before a restart is still followed (the messages carry only each partition's latest checkpoint).
 *
 * Plain state, no I/O. {@link RewindMarks} keeps the marks alone, for a caller that already knows
 * each checkpoint's predecessor (the replication runtime's checkpoint store).
 */
export class RewindMarks {
  private readonly marks = new Map<string, Map<string, RewindMark>>();

  /** Checkpoint `cp` replaced `previous` (undefined: none) of its group and remote partition. */
  noteReplaced(previous: Checkpoint | undefined, cp: Checkpoint): void {
    const k = partitionKey(cp.topic, cp.partition);
    let groupMarks = this.marks.get(cp.group);
    const pending = groupMarks?.get(k);
    const mark = noteRewind(previous, cp, pending);
    if (mark === undefined || mark === pending) return;
    if (groupMarks === undefined) {
      groupMarks = new Map();
      this.marks.set(cp.group, groupMarks);
    }
    groupMarks.set(k, mark);
  }

  /**
   * A writer acted on `mark` of `group` (followed it, decided not to, or found the group active on
   * the target): the mark it covers (rewound from no further) is dropped, so that a writer started
   * later (a redeploy) does not follow the same rewind again and move a target group back that
   * its consumers have moved on since. A mark noted after the one acted on (rewound from further) stays.
   */
  done(group: string, mark: RewindMark): void {
    const groupMarks = this.marks.get(group);
    if (groupMarks === undefined) return;
    const k = partitionKey(mark.topic, mark.partition);
    const have = groupMarks.get(k);
    if (have === undefined || have.fromUpstream > mark.fromUpstream || have.fromDownstream > mark.fromDownstream) return;
    groupMarks.delete(k);
    if (groupMarks.size === 0) this.marks.delete(group);
  }

  /** Forgets every mark (what they were noted from is gone). */
  clear(): void {
    this.marks.clear();
  }

  /** Every rewind mark the order of the checkpoints gave, by group. */
  *rewinds(): Generator<{ group: string; mark: RewindMark }> {
    for (const [group, groupMarks] of this.marks) for (const mark of groupMarks.values()) yield { group, mark };
  }
}

/** RewindMarks fed by a replay of the topic: it keeps the latest checkpoint per partition to compare the next with. */
export class RewindHistory extends RewindMarks {
  private readonly latest = new Map<string, Map<string, Checkpoint>>();

  /** The next checkpoint of the topic, in log order. */
  note(cp: Checkpoint): void {
    let byPartition = this.latest.get(cp.group);
    if (byPartition === undefined) {
      byPartition = new Map();
      this.latest.set(cp.group, byPartition);
    }
    const k = partitionKey(cp.topic, cp.partition);
    const previous = byPartition.get(k);
    byPartition.set(k, cp);
    this.noteReplaced(previous, cp);
  }
}
