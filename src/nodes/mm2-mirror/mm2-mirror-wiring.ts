/** `mm2-mirror` timers (flush, topic refresh, probe, stats) and input (a topic refresh now, then the stats). */
import type { DoneFn, NodeMessage, SendFn } from '../shared/red';
import type { Translate } from '../shared/i18n';
import type { FlowNodeContext } from '../shared/flow-node';
import type { MirrorView } from './mm2-mirror-events';
import type { MirrorSettings } from '../../core/mirror-settings';
import type { Mirror } from '../../engines/mirror-task';
import { PROBE_EVERY_MS } from '../../kafka/cluster-probe';

/** How often the stats message is sent and the status refreshed. */
export const STATS_INTERVAL_MS = 5000;

/** How often the status looks for a wait that lasts too long (nodes/mm2-mirror/mm2-mirror-status MIRROR_WAIT_MS). */
export const STATUS_CHECK_MS = 1000;

/** The engine's timers; failures are the engine's events (status + warn) and retried. */
export function scheduleMirror(ctx: FlowNodeContext, mirror: Mirror, settings: MirrorSettings, sendStats: () => void, checkStatus: () => void): void {
  // Both intervals are within the bounds of core/intervals (checked by parseMirrorSettings).
  ctx.every(settings.offsetFlushIntervalMs, () => {
    mirror.flush().catch(() => undefined);
  });
  ctx.every(settings.refreshTopicsIntervalSeconds * 1000, () => {
    mirror.refresh().catch(() => undefined);
  });
  // MM2's scheduleRepeating(syncTopicConfigs / syncTopicAcls): the first run is in Mirror.start.
  if (settings.syncTopicConfigsEnabled) {
    ctx.every(settings.syncTopicConfigsIntervalSeconds * 1000, () => {
      mirror.syncConfigs().catch(() => undefined);
    });
  }
  if (settings.syncTopicAclsEnabled) {
    ctx.every(settings.syncTopicAclsIntervalSeconds * 1000, () => {
      mirror.syncAcls().catch(() => undefined);
    });
  }
  ctx.every(PROBE_EVERY_MS, () => {
    mirror.probe().catch(() => undefined);
  });
  ctx.every(STATS_INTERVAL_MS, sendStats);
  ctx.every(STATUS_CHECK_MS, checkStatus);
}

/** Any message triggers a topic refresh now (msg.refreshTopics documents the intent); it cannot change settings. */
export function mirrorInput(t: Translate, mirror: Mirror, view: MirrorView): (msg: NodeMessage, send: SendFn, done: DoneFn) => void {
  return (msg, send, done) => {
    mirror.refresh().then(
      () => {
        const out = view.statsMessage();
        send(Object.assign(msg, { topic: out.topic, payload: out.payload }));
        done();
      },
      (e: unknown) => done(new Error(t('mm2-mirror.errors.refresh', { error: (e as Error)?.message ?? String(e) }))),
    );
  };
}
