/** An `mm2-checkpoint` node's input: an OffsetSyncsMessage feeds the store; `msg.action = 'switchover'` a switchover step; any other message asks for a cycle now. */
import type { Node, NodeMessage, SendFn } from '../red';
import { isSwitchoverRequest } from '../switchover';
import { onInput } from '../input';
import { readOffsetSyncsMessage } from '../contracts';
import type { CheckpointCycles } from './cycles';
import type { SyncsIntake } from './syncs';

export function checkpointInput(node: Node, cycles: CheckpointCycles, syncs: SyncsIntake, switchover: (msg: NodeMessage, send: SendFn) => Promise<void>): void {
  onInput(node, (msg, send, done) => {
    const received = readOffsetSyncsMessage(msg);
    if (received) return done(syncs.receive(received));
    // `msg.action === 'switchover'`: a planned switchover's step (lib/checkpoint/switchover)
    if (isSwitchoverRequest(msg)) return switchover(msg, send).then(() => done());
    // `msg.refreshGroups === true` re-lists the groups first
    return cycles.run(msg.refreshGroups === true, { msg, send }).then(() => done());
  });
}
