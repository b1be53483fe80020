/** The status an `mm2-failback` node shows after its cycles. */
import type { Translate } from '../shared/i18n';
import { truncate, type StatusView } from '../shared/flow-node';
import { ago, type AgoScale } from '../shared/ago';
import type { FailbackCycle } from '../../engines/failback';

const AGE: AgoScale = { seconds: 'mm2-failback.status.age-s', minutes: 'mm2-failback.status.age-min', secondsBelow: 120, rounding: 'round' };

/**
 * The status after the last completed cycle `at` (epoch ms). Green only while every group on a
 * remote topic is in step on the source (its source offsets at or past the translation of its
 * target position) and cycles keep completing; yellow while any is not, naming how many and why.
 */
export function failbackStatus(t: Translate, r: FailbackCycle, at: number, intervalMs: number, now = Date.now()): StatusView {
  const when = ago(t, now - at, AGE);
  if (now - at > 2 * intervalMs + 30000) {
    return { activity: { fill: 'yellow', shape: 'ring', text: t('mm2-failback.status.stale', { age: when }) } };
  }
  const count = (state: string): number => r.groups.filter((g) => g.state === state).length;
  const total = r.groups.length;
  if (total === 0) {
    if (r.readFailed.length > 0) return { fail: t('mm2-failback.status.read-failed-all', { error: r.readFailed[0].reason }) };
    return { activity: { fill: 'yellow', shape: 'ring', text: truncate(`${t('mm2-failback.status.no-groups')} / ${when}`) } };
  }
  const notWritten = r.groups.filter((g) => g.state === 'not-written');
  // nothing could be written (e.g. an ACL missing on the source): red, naming why
  if (notWritten.length === total) return { fail: t('mm2-failback.status.not-written-all', { error: notWritten[0].reason ?? '' }) };
  const inStep = count('in-step');
  const parts = [t('mm2-failback.status.in-step', { done: inStep, count: total })];
  const add = (n: number, key: string): void => {
    if (n > 0) parts.push(t(key, { count: n }));
  };
  add(count('active-on-source'), 'mm2-failback.status.active');
  add(count('not-written'), 'mm2-failback.status.not-written');
  add(count('not-translated'), 'mm2-failback.status.not-translated');
  add(r.readFailed.length, 'mm2-failback.status.read-failed');
  const good = inStep === total && r.readFailed.length === 0;
  return { activity: { fill: good ? 'green' : 'yellow', shape: good ? 'dot' : 'ring', text: truncate(`${parts.join(', ')} / ${when}`) } };
}
