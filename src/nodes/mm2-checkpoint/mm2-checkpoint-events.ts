/** What an `mm2-checkpoint` node does with its emitter's events: keep its state, log, re-render. */
import type { Node } from '../shared/red';
import type { Translate } from '../shared/i18n';
import type { FailureLog } from '../shared/flow-node';
import type { CheckpointNodeState } from './mm2-checkpoint-status';
import type { CycleResult, EmitterEvents } from '../../engines/checkpoint-emitter';
import { CONSUMER_OFFSETS_TOPIC } from '../../kafka/source-commit-stream';

export interface CheckpointEventsOptions {
  node: Pick<Node, 'warn' | 'debug'>;
  t: Translate;
  log: FailureLog;
  state: CheckpointNodeState;
  checkpointsTopic: string;
  render(): void;
  /** A cycle the emitter ran by itself (event-driven) completed: its outputs. */
  delivered(r: CycleResult): void;
}

export function checkpointEmitterEvents(o: CheckpointEventsOptions): EmitterEvents {
  const { node, t, log, state, checkpointsTopic: topic } = o;
  return {
    phase(p) {
      state.phase = p;
      if (p.kind === 'retrying') log.warn('topic', t(p.restore ? 'mm2-checkpoint.warn.restore-retrying' : 'mm2-checkpoint.warn.topic', { topic, error: p.error }));
      o.render();
    },
    restored(r) {
      if (r.malformed > 0) node.warn(t('mm2-checkpoint.warn.malformed-checkpoints', { count: r.malformed, topic }));
      if (!r.ok) node.warn(t('mm2-checkpoint.warn.restore-failed', { topic, error: r.error ?? '' }));
      else node.debug(t('mm2-checkpoint.log.restored', { count: r.restored, read: r.read, topic }));
    },
    discovered(d) {
      state.groups = d.groups.length;
      // a principal that may not DESCRIBE a group (or its topics) does not see it: say so, once
      if (d.groups.length === 0) log.warn('no-groups', t('mm2-checkpoint.warn.no-groups'));
      else log.ok('no-groups');
      // streams and share groups the filter accepts: named once, with why (MM2 never lists them)
      if (d.otherTypes.length > 0) log.warn('other-types', t('mm2-checkpoint.warn.other-types', { groups: d.otherTypes.map((g) => `${g.group} (${g.reason})`).join('; ') }));
      else log.ok('other-types');
      if (d.errors.length > 0) {
        log.warn('discovery-groups', t('mm2-checkpoint.warn.group-offsets', { groups: d.errors.map((e) => `${e.group} (${e.error})`).join(', ') }));
      }
      o.render();
    },
    discoveryFailed(error) {
      log.warn('discovery', t('mm2-checkpoint.warn.discovery', { error }));
    },
    sourceMode(m) {
      state.sourceMode = m;
      if (m.kind === 'poll' && m.reason) log.warn('source-mode', t('mm2-checkpoint.warn.polling', { reason: m.reason, offsetsTopic: CONSUMER_OFFSETS_TOPIC }));
      else if (m.kind === 'events') {
        log.ok('source-mode');
        node.debug(t('mm2-checkpoint.log.following'));
      }
      o.render();
    },
    sourceUnanswered(reason) {
      if (!state.sourceUnanswered) state.sourceUnanswered = { since: Date.now(), reason };
      log.warn('source-unanswered', t('mm2-checkpoint.warn.source-unanswered', { reason }));
      o.render();
    },
    sourceAnswered() {
      state.sourceUnanswered = null;
      log.ok('source-unanswered');
      o.render();
    },
    sourceRecordsSkipped(count, total) {
      log.limited('source-skipped', t('mm2-checkpoint.warn.source-records-skipped', { count, total, offsetsTopic: CONSUMER_OFFSETS_TOPIC }), 60000);
    },
    delivered: (r) => o.delivered(r),
    deliveryFailed(error) {
      log.warn('delivery', t('mm2-checkpoint.warn.delivery', { error }));
    },
  };
}
