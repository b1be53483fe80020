/** `mm2-checkpoint`'s step of a planned switchover (nodes/shared/switchover-request): source group states, a full cycle now, the plan. */
import type { NodeMessage, SendFn } from '../shared/red';
import type { Translate } from '../shared/i18n';
import type { CheckpointCycles } from './mm2-checkpoint-cycles';
import type { CheckpointEmitter } from '../../engines/checkpoint-emitter';
import { planSwitchover } from '../../core/switchover';
import { switchoverGroups, switchoverHeartbeat, switchoverOf } from '../shared/switchover-request';

export async function checkpointSwitchover(o: { t: Translate; cycles: CheckpointCycles; emitter: CheckpointEmitter }, msg: NodeMessage, send: SendFn): Promise<void> {
  const groups = switchoverGroups(msg);
  if (groups === undefined) throw new Error(o.t('mm2-checkpoint.errors.switchover-groups'));
  const heartbeat = switchoverHeartbeat(msg);
  // listed before the cycle: a group idle now has its final position read by the cycle
  const sourceStates = await o.emitter.sourceGroupStates().catch((e: unknown) => ({ error: (e as Error).message }));
  let planned = false;
  await o.cycles.run(true, {
    msg,
    send,
    prepare: (r) => {
      switchoverOf(msg).plan = planSwitchover({ groups, heartbeat, cycle: r.cycle, readiness: r.readiness, coverage: r.coverage, latest: r.latest, sourceStates, now: Date.now() });
      planned = true;
    },
  });
  if (!planned) throw new Error(o.t('mm2-checkpoint.errors.switchover-no-cycle'));
}
