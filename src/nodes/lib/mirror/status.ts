/** The status an `mm2-mirror` node shows: its latest unresolved problem, else what it mirrors. */
import type { Translate } from '../i18n';
import type { StatusView } from '../flow-node';
import { formatRate } from '../../../core/mirror-plan';

/** `problems` in the order they arose; `subscribed` null before the first subscription. */
export function mirrorStatus(t: Translate, problems: readonly string[], subscribed: readonly string[] | null, recordsPerSecond: number): StatusView {
  if (problems.length > 0) return { fail: problems[problems.length - 1] };
  if (subscribed === null) return { activity: { fill: 'yellow', shape: 'ring', text: t('mm2-mirror.status.starting') } };
  if (subscribed.length === 0) return { activity: { fill: 'yellow', shape: 'ring', text: t('mm2-mirror.status.no-topics') } };
  return { activity: { fill: 'green', shape: 'dot', text: t('mm2-mirror.status.mirroring', { count: subscribed.length, rate: formatRate(recordsPerSecond) }) } };
}
