/**
 * The coverage output (mm2-checkpoint output 2) of a flow that runs in several Node-RED instances
 * (issue 25, item 5): once this instance has shared the flow with another (engines/share-board),
 * each entry names the instance covering it (`coveredBy`, this one), and `readiness` shows every
 * group of the flow: this instance's own, the other live instances' from their published
 * summaries, and the groups no live instance covers (not covered, why `no-live-instance`).
 * While it never shared, the output is exactly what one instance always sent.
 */
import type { CycleResult } from '../../engines/checkpoint-emitter';
import type { ShareBoard } from '../../engines/share-board';
import type { CoverageMessage } from './contracts';
import { coverageEntries, defineEntriesOnRead, entriesOf } from './coverage-entries';

export interface CoverageSharing {
  /** A completed full cycle: its readiness is this instance's summary. */
  published(r: CycleResult): void;
  /** The cycle's coverage payload, made for the whole flow. */
  decorate(payload: CoverageMessage['payload'], r: CycleResult): void;
}

export function coverageSharing(board: ShareBoard, groupsOfFlow: () => readonly string[] | null): CoverageSharing {
  return {
    published(r) {
      if (r.readiness !== undefined) board.publish(r.readiness);
    },
    decorate(payload, r) {
      if (!board.isActive) return;
      const by = board.instance;
      const members = r.membersOnTarget;
      defineEntriesOnRead(payload, () => coverageEntries(entriesOf(r), members, by));
      const rd = payload.readiness;
      const merged = r.readiness === undefined ? null : board.merged(r.readiness, groupsOfFlow());
      if (rd === undefined || merged === null) return;
      payload.readiness = {
        ...rd,
        ready: merged.ready,
        atRisk: merged.atRisk,
        notCovered: merged.notCovered,
        groups: merged.groups,
        worst: merged.worst,
        withMembersOnTarget: merged.withMembersOnTarget,
        membersUnknown: merged.membersUnknown,
        instance: by,
        instances: board.instances(),
      };
    },
  };
}
