/**
 * The status an `mm2-mirror` node shows: its latest unresolved problem, else what it waits on too
 * long, else what it mirrors. Green is only set on fresh evidence that the mirror copies (records
 * acknowledged by the target, both clusters answering a probe, a failure cleared): a timer alone
 * never sets it again, so a cluster that stops answering is never shown green in between.
 */
import type { Translate } from '../shared/i18n';
import type { StatusView } from '../shared/flow-node';
import { formatRate } from '../../core/mirror-plan';

/** Records unacknowledged, or a probe unanswered, this long: yellow at once (the probe's timeout makes it red later). */
export const MIRROR_WAIT_MS = 3000;

export interface MirrorStatusInput {
  /** In the order they arose. */
  problems: readonly string[];
  /** null before the first subscription. */
  subscribed: readonly string[] | null;
  recordsPerSecond: number;
  /** What the mirror has waited on longest (Mirror.outstanding), with the cluster's alias; null: nothing. */
  outstanding: { kind: 'ack' | 'answer'; alias: string; since: number } | null;
  /** Evidence that the mirror copies arrived since the last green status. */
  fresh: boolean;
  /** The instance's share when several instances of the flow share it (issue 25); null or 1 instance: the status says nothing of it. */
  share?: { partitions: number; of: number; instances: number } | null;
}

/** What to show at `now`; null: nothing new (the status stays as it is). */
export function mirrorStatus(t: Translate, s: MirrorStatusInput, now: number): StatusView | null {
  if (s.problems.length > 0) return { fail: s.problems[s.problems.length - 1] };
  if (s.subscribed === null) return { activity: { fill: 'yellow', shape: 'ring', text: t('mm2-mirror.status.starting') } };
  if (s.subscribed.length === 0) return { activity: { fill: 'yellow', shape: 'ring', text: t('mm2-mirror.status.no-topics') } };
  const o = s.outstanding;
  if (o && now - o.since >= MIRROR_WAIT_MS) {
    const key = o.kind === 'ack' ? 'mm2-mirror.status.waiting-ack' : 'mm2-mirror.status.waiting-answer';
    return { activity: { fill: 'yellow', shape: 'ring', text: t(key, { alias: o.alias, age: Math.floor((now - o.since) / 1000) }) } };
  }
  if (!s.fresh) return null;
  const rate = formatRate(s.recordsPerSecond);
  const share = s.share;
  if (share && share.instances > 1) {
    return { activity: { fill: 'green', shape: 'dot', text: t('mm2-mirror.status.sharing', { partitions: share.partitions, of: share.of, instances: share.instances, rate }) } };
  }
  return { activity: { fill: 'green', shape: 'dot', text: t('mm2-mirror.status.mirroring', { count: s.subscribed.length, rate }) } };
}
