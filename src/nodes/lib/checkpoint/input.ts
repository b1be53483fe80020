/** An `mm2-checkpoint` node's input: an OffsetSyncsMessage feeds the store; any other message asks for a cycle now. */
import type { Node } from '../red';
import { onInput } from '../input';
import { readOffsetSyncsMessage } from '../contracts';
import type { CheckpointCycles } from './cycles';
import type { SyncsIntake } from './syncs';

export function checkpointInput(node: Node, cycles: CheckpointCycles, syncs: SyncsIntake): void {
  onInput(node, (msg, send, done) => {
    const received = readOffsetSyncsMessage(msg);
    if (received) return done(syncs.receive(received));
    // `msg.refreshGroups === true` re-lists the groups first
    return cycles.run(msg.refreshGroups === true, { msg, send }).then(() => done());
  });
}
