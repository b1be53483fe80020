/**
 * What an `mm2-heartbeat` node does with its watcher's events: each replicated heartbeat and
 * each alarm edge is sent (outputs 1 and 2), logged, and the status re-rendered.
 */
import type { Node, NodeMessage } from '../shared/red';
import type { Translate } from '../shared/i18n';
import type { FlowNodeContext } from '../shared/flow-node';
import { heartbeatAlarmMessage, heartbeatMessage } from '../shared/contracts';
import { heartbeatDuration } from './mm2-heartbeat-status';
import type { HeartbeatAlarm } from '../../core/heartbeat-monitor';
import type { HeartbeatWatcherOptions, WatchPhase } from '../../engines/heartbeat-watcher';

/** At most one warning per this many ms for repeated problems (malformed records). */
const WARN_EVERY_MS = 60_000;

/** The watch state the node renders. */
export interface WatchState {
  phase: WatchPhase;
  error: string | null;
  loadPercent: number;
  lastAlarm: HeartbeatAlarm | null;
}

export interface WatchEventsOptions {
  node: Pick<Node, 'send' | 'warn' | 'log'>;
  ctx: FlowNodeContext;
  t: Translate;
  state: WatchState;
  /** The topic watched on the target and the target's alias. */
  topic: string;
  alias: string;
  render(): void;
}

export function heartbeatWatchEvents(o: WatchEventsOptions): Pick<HeartbeatWatcherOptions, 'onHeartbeat' | 'onAlarm' | 'onMalformed' | 'onPhase' | 'onError'> {
  const { node, ctx, t, state, topic, alias } = o;
  const dur = (ms: number): string => heartbeatDuration(t, ms);
  let malformedUnwarned = 0;
  return {
    onHeartbeat: (hb) => {
      if (ctx.closing) return;
      state.error = null; // delivering again
      node.send([heartbeatMessage(hb, topic) as unknown as NodeMessage, null]);
      o.render();
    },
    onAlarm: (a) => {
      if (ctx.closing) return;
      state.lastAlarm = a;
      node.send([null, heartbeatAlarmMessage(a) as unknown as NodeMessage]);
      if (a.state === 'stale') {
        node.warn(
          a.ageMs === null
            ? t('mm2-heartbeat.warn.stale-never', { topic, alias, stale: dur(a.staleAfterMs) })
            : t('mm2-heartbeat.warn.stale', { topic, alias, age: dur(a.ageMs) }),
        );
      } else {
        node.log(t('mm2-heartbeat.log.ok', { topic, age: dur(a.ageMs ?? 0) }));
      }
      o.render();
    },
    onMalformed: (err, offset, count) => {
      if (ctx.closing) return;
      malformedUnwarned += 1;
      ctx.log.limited('malformed', t('mm2-heartbeat.warn.malformed', { count: malformedUnwarned, total: count, topic, offset: String(offset), error: err.message }), WARN_EVERY_MS, () => {
        malformedUnwarned = 0;
      });
      o.render();
    },
    onPhase: (p, percent) => {
      state.phase = p;
      if (percent !== undefined) state.loadPercent = percent;
      if (p === 'watching') {
        state.error = null;
        ctx.log.ok('watch');
      }
      o.render();
    },
    onError: (err) => {
      if (ctx.closing) return;
      ctx.log.warn('watch', t('mm2-heartbeat.warn.watch-failed', { topic, alias, error: err.message }));
      state.error = err.message;
      o.render();
    },
  };
}
