/**
 * What an `mm2-checkpoint` or `mm2-group-offsets` node says of its share when the same flow runs
 * in several Node-RED instances (engines/replication-shares, issue 25):
 * - more than one instance shares: the status starts with the share (`3,412 of 10,000 groups,
 *   17 of 50 partitions, 3 instances`), then the node's own text;
 * - kept out (its settings differ): yellow, naming the setting that differs, and nothing else;
 * - one instance, or working alone because sharing is unavailable: the status as it always was
 *   (working alone is said once in the log, never red: the instance does its job).
 * The log says each change once: the disagreement, working alone and why, the share.
 */
import type { Translate } from './i18n';
import { truncate, REFUSAL_STATUS_MAX, type StatusView } from './flow-node';

/** A shared instance's status holds its share and the node's own text: longer than a usual status, as long as a refusal's. */
const SHARED_STATUS_MAX = REFUSAL_STATUS_MAX;
import { shareShown, type ShareView } from '../../core/share-lease';
import { OFFSETS_TOPIC, SHARE_GROUP_PREFIX } from '../../core/group-ownership';
import { SHARE_TOPIC_PREFIX } from '../../core/share-topic';

const n = (x: number): string => x.toLocaleString('en-US');

/** The share's words: `3,412 of 10,000 groups, 17 of 50 partitions, 3 instances` (groups left out while unknown). */
export function shareText(t: Translate, v: Extract<ShareView, { kind: 'sharing' }>, groups: { owned: number | null; total: number | null }): string {
  const parts = t('mm2-common.share.partitions', { owned: n(v.partitions), total: n(v.partitionCount), instances: n(v.instances) });
  if (groups.owned === null || groups.total === null) return parts;
  return t('mm2-common.share.groups', { owned: n(groups.owned), total: n(groups.total), parts });
}

/** The node's status with its share (see above). */
export function withShare(t: Translate, view: StatusView, share: ShareView, groups: { owned: number | null; total: number | null }): StatusView {
  if (share.kind === 'refused') return { activity: { fill: 'yellow', shape: 'ring', text: truncate(t('mm2-common.share.refused', { differs: share.differsText }), SHARED_STATUS_MAX) } };
  if (!shareShown(share) || !('activity' in view) || !view.activity) return view;
  const a = view.activity;
  return { activity: { ...a, text: truncate(t('mm2-common.share.with', { share: shareText(t, share, groups), text: a.text ?? '' }), SHARED_STATUS_MAX) } };
}

/** The log line of a share's change, or null when there is nothing to say (one instance alone, joining). */
export function shareLogText(t: Translate, v: ShareView): string | null {
  if (v.kind === 'refused') return t('mm2-common.share.log-refused', { differs: v.differsText });
  if (v.kind === 'solo') return t('mm2-common.share.log-solo', { reason: v.reason, group: SHARE_GROUP_PREFIX, topic: OFFSETS_TOPIC, pollTopic: `${SHARE_TOPIC_PREFIX}.<target>.internal` });
  if (v.kind === 'sharing' && v.instances > 1) return t('mm2-common.share.log-sharing', { share: shareText(t, v, { owned: null, total: null }) });
  return null;
}

/** Logs each change of the share once (the same text again only after another change) and re-renders the status; returns the unsubscribe. */
export function followShares(t: Translate, node: { log(text: string): void; warn(text: string): void }, shares: { current: ShareView; subscribe(l: (v: ShareView) => void): () => void }, render: () => void): () => void {
  let last: string | null = null;
  const said = (v: ShareView): void => {
    const text = shareLogText(t, v);
    if (text !== null && text !== last) {
      if (v.kind === 'refused') node.warn(text);
      else node.log(text);
    }
    last = text;
    render();
  };
  if (shares.current.kind !== 'alone' && shares.current.kind !== 'joining') said(shares.current);
  return shares.subscribe(said);
}
