/** An `mm2-checkpoint` node's input: an OffsetSyncsMessage is left aside (the syncs come from the replication's feed); `msg.action = 'switchover'` a switchover step; any other message asks for a cycle now. */
import type { Node, NodeMessage, SendFn } from '../shared/red';
import { isSwitchoverRequest } from '../shared/switchover-request';
import { onInput } from '../shared/input';
import { readOffsetSyncsMessage } from '../shared/contracts';
import type { CheckpointCycles } from './mm2-checkpoint-cycles';
import type { SyncsIntake } from '../shared/syncs-intake';

export function checkpointInput(node: Node, cycles: CheckpointCycles, syncs: SyncsIntake, switchover: (msg: NodeMessage, send: SendFn) => Promise<void>): void {
  onInput(node, (msg, send, done) => {
    if (readOffsetSyncsMessage(msg)) {
      syncs.ignoreMessage();
      return done();
    }
    // `msg.action === 'switchover'`: a planned switchover's step (nodes/mm2-checkpoint/mm2-checkpoint-switchover)
    if (isSwitchoverRequest(msg)) return switchover(msg, send).then(() => done());
    // `msg.refreshGroups === true` re-lists the groups first
    return cycles.run(msg.refreshGroups === true, { msg, send }).then(() => done());
  });
}
