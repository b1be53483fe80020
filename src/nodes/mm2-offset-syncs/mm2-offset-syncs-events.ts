/** What an `mm2-offset-syncs` node does with its follower's events: messages, status, logs. */
import type { Node, NodeMessage } from '../shared/red';
import { counted, type Translate } from '../shared/i18n';
import { logFailure, type StatusReporter } from '../shared/flow-node';
import { offsetSyncsMessage, type OffsetSyncsMessage } from '../shared/contracts';
import { loadPercent, shortTime } from '../shared/status-text';
import type { OffsetSync } from '../../core/types';
import type { OffsetSyncFollowerEvents, OffsetSyncStats } from '../../engines/offset-sync-follower';

export interface OffsetSyncsEventsOptions {
  node: Pick<Node, 'send' | 'log' | 'warn' | 'error' | 'debug'>;
  t: Translate;
  status: StatusReporter;
  topic: string;
  cluster: string;
  /** The feed's counters, for the messages. */
  stats(): OffsetSyncStats;
}

export function offsetSyncsEvents(o: OffsetSyncsEventsOptions): OffsetSyncFollowerEvents {
  const { node, t, status, topic, cluster } = o;
  function message(event: OffsetSyncsMessage['payload']['event'], syncs?: OffsetSync[]): NodeMessage {
    const { read, malformed, loaded } = o.stats();
    return offsetSyncsMessage(event, { topic, cluster }, { read, malformed, loaded }, syncs) as unknown as NodeMessage;
  }
  return {
    batch: (syncs) => node.send(message('syncs', syncs)),
    loaded: (s) => {
      node.send(message('loaded'));
      node.log(t('mm2-offset-syncs.log.loaded', { syncs: s.syncs, partitions: s.partitions, topic, cluster, malformed: s.malformed }));
    },
    reset: () => {
      node.warn(t('mm2-offset-syncs.warn.recreated', { topic, cluster }));
      node.send(message('reset'));
    },
    progress: (done, total) => {
      status.activity({ fill: 'blue', shape: 'ring', text: t('mm2-common.status.loading', { percent: loadPercent(done, total) }) });
    },
    stats: (s) => {
      let text =
        s.lastSyncTime !== null
          ? t('mm2-offset-syncs.status.summary', { syncs: counted(t, 'syncs', s.syncs), partitions: counted(t, 'partitions', s.partitions), time: shortTime(s.lastSyncTime) })
          : t('mm2-offset-syncs.status.summary-none', { syncs: counted(t, 'syncs', s.syncs), partitions: counted(t, 'partitions', s.partitions) });
      if (s.malformed > 0) text += t('mm2-offset-syncs.status.malformed', { count: s.malformed });
      status.activity({ fill: s.malformed > 0 ? 'yellow' : 'green', shape: 'dot', text });
    },
    waiting: (first) => {
      if (first) node.warn(t('mm2-offset-syncs.warn.waiting-topic', { topic, cluster }));
      status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-common.status.waiting-topic', { topic }) });
    },
    found: () => node.log(t('mm2-offset-syncs.log.found', { topic, cluster })),
    malformed: (offset, reason) => node.warn(t('mm2-offset-syncs.warn.malformed', { offset: offset.toString(), topic, reason })),
    malformedMore: (count, offset, reason) => node.warn(t('mm2-offset-syncs.warn.malformed-more', { count, topic, offset: offset.toString(), reason })),
    error: ({ kind, error, retryInMs, repeated }) => {
      // connection failures show in the status through the connection's state
      const text = kind === 'reader' ? t('mm2-offset-syncs.errors.reader', { error }) : error;
      if (kind !== 'connection') status.fail(text);
      const line = t('mm2-offset-syncs.errors.retry', { topic, error: text, seconds: Math.round(retryInMs / 1000) });
      if (repeated) node.debug(line);
      else logFailure(node, line);
    },
    recovered: () => node.log(t('mm2-offset-syncs.log.recovered', { topic, cluster })),
    warning: (text) => node.warn(text),
  };
}

/** The same handlers, silent once `closing()`: Node-RED's close starts a moment before the follower is stopped. */
export function untilClosing(events: OffsetSyncFollowerEvents, closing: () => boolean): OffsetSyncFollowerEvents {
  const guarded: Record<string, (...args: unknown[]) => void> = {};
  for (const [name, fn] of Object.entries(events) as Array<[string, (...args: unknown[]) => void]>) {
    guarded[name] = (...args) => {
      if (!closing()) fn(...args);
    };
  }
  return guarded as OffsetSyncFollowerEvents;
}
