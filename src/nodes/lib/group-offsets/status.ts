/** The status an `mm2-group-offsets` node shows after its sync cycles. */
import type { Translate } from '../i18n';
import { truncate, type StatusView } from '../flow-node';
import { ago, type AgoScale } from '../ago';
import type { GroupOffsetsCycle } from '../../../kafka/group-offset-syncer';

const AGE: AgoScale = { seconds: 'mm2-group-offsets.status.age-s', minutes: 'mm2-group-offsets.status.age-min', secondsBelow: 120, rounding: 'round' };

/**
 * The status after the last completed cycle `at` (epoch ms). Green only while the node does its
 * job: some selected group has its target offset, and cycles keep completing.
 */
export function cycleStatus(t: Translate, r: GroupOffsetsCycle, at: number, intervalMs: number, malformed: number, now = Date.now()): StatusView {
  const when = ago(t, now - at, AGE);
  if (now - at > 2 * intervalMs + 30000) {
    // syncs stopped completing (a request that hangs): not green
    return { activity: { fill: 'yellow', shape: 'ring', text: t('mm2-group-offsets.status.stale', { age: when }) } };
  }
  const considered = r.written.length + r.skipped.length;
  if (considered === 0) {
    return { activity: { fill: 'yellow', shape: 'ring', text: t('mm2-group-offsets.status.waiting-checkpoints', { age: when }) } };
  }
  const active = r.skipped.filter((s) => s.code === 'group-active').length;
  const errors = r.skipped.filter((s) => s.code === 'error');
  const failed = errors.length;
  if (failed === considered) return { fail: t('mm2-group-offsets.status.unreachable', { error: errors[0].reason }) };
  // (a group with members on the target is its consumers' business, never ours)
  const withOffset = r.written.length + active + r.skipped.filter((s) => s.code === 'up-to-date').length;
  const parts = [t('mm2-group-offsets.status.synced', { count: r.written.length })];
  if (active > 0) parts.push(t('mm2-group-offsets.status.active', { count: active }));
  if (failed > 0) parts.push(t('mm2-group-offsets.status.failed', { count: failed }));
  if (malformed > 0) parts.push(t('mm2-group-offsets.status.malformed', { count: malformed }));
  if (withOffset === 0) parts.unshift(t('mm2-group-offsets.status.none-written'));
  return {
    activity: {
      fill: failed > 0 || malformed > 0 || withOffset === 0 ? 'yellow' : 'green',
      shape: failed > 0 || withOffset === 0 ? 'ring' : 'dot',
      text: truncate(`${parts.join(', ')} / ${when}`),
    },
  };
}
