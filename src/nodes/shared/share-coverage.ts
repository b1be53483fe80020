/**
 * The coverage output (mm2-checkpoint output 2) of a flow that runs in several Node-RED instances
 * (issue 25, item 5): once this instance has shared the flow with another (engines/share-board),
 * each entry names the instance covering it (`coveredBy`, this one), and `readiness` shows every
 * group of the flow: this instance's own, the other live instances' from their published
 * summaries, and the groups no live instance covers (not covered, why `no-live-instance`).
 * While it never shared, the output is exactly what one instance always sent. The merged readiness
 * is made when `payload.readiness` is first read (an output wired to nothing costs nothing).
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
      const own = r.readiness;
      if (rd === undefined || own === undefined) return;
      const all = groupsOfFlow();
      // made on first read (an output 2 wired to nothing merges nothing: every group of the flow, each cycle)
      defineOnRead(payload, 'readiness', () => {
        const merged = board.merged(own, all);
        if (merged === null) return rd;
        return {
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
      });
    },
  };
}

/** `payload[key]` made on first read, then an ordinary property (as coverage-entries' defineEntriesOnRead); assigning it replaces it. */
function defineOnRead<K extends keyof CoverageMessage['payload']>(payload: CoverageMessage['payload'], key: K, make: () => CoverageMessage['payload'][K]): void {
  const settle = (value: CoverageMessage['payload'][K]): CoverageMessage['payload'][K] => {
    Object.defineProperty(payload, key, { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  Object.defineProperty(payload, key, { get: () => settle(make()), set: (v: CoverageMessage['payload'][K]) => settle(v), enumerable: true, configurable: true });
}
