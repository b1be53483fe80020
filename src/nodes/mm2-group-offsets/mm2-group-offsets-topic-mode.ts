/**
 * `mm2-group-offsets` in mode "topic": follows the checkpoints topic on the target
 * (engines/checkpoints-topic-runner) and shows the load, the waits and the failures.
 */
import { counted, type Translate } from '../shared/i18n';
import type { FlowNodeContext } from '../shared/flow-node';
import { explainKafkaError, NotAuthorizedError } from '../../kafka/client';
import type { ClusterConnection } from '../../kafka/connection';
import type { GroupOffsetSyncer } from '../../engines/group-offset-syncer';
import { CheckpointsTopicRunner } from '../../engines/checkpoints-topic-runner';
import { readPercent } from '../../core/load-percent';

/** Counters (malformed checkpoints) are logged at most once a minute. */
export const COUNT_EVERY_MS = 60000;

export interface TopicModeOptions {
  ctx: FlowNodeContext;
  t: Translate;
  connection: ClusterConnection;
  topic: string;
  syncer: GroupOffsetSyncer;
  nodeId: string;
  intervalMs: number;
  /** Whether the initial load is complete. */
  ready(): boolean;
  /** The initial load completed: cycles may start. */
  loaded(): void;
  /** A checkpoint of this group was stored (new records after the load are synced at once). */
  applied(group: string): void;
  /** A malformed record was skipped (the status counts it). */
  malformed(): void;
}

/** Starts following; stop the runner on close, before the syncer. */
export function followCheckpointsTopic(o: TopicModeOptions): CheckpointsTopicRunner {
  const { ctx, t, syncer, topic } = o;
  const { status } = ctx;
  const runner = new CheckpointsTopicRunner({
    connection: o.connection,
    topic,
    syncer,
    groupPrefix: `__mm2-node-red-group-offsets-${o.nodeId}`,
    retryMs: Math.min(o.intervalMs, 10000),
    events: {
      progress: (read, total) => {
        if (o.ready() || ctx.closing) return;
        status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-common.status.loading', { percent: readPercent(read, total) }) });
      },
      loaded: () => {
        if (ctx.closing) return;
        o.loaded();
        const s = syncer.stats;
        status.activity({ fill: 'grey', shape: 'dot', text: t('mm2-group-offsets.status.loaded', { groups: counted(t, 'groups', s.groups), partitions: counted(t, 'partitions', s.partitions) }) });
      },
      applied: (group) => {
        if (!ctx.closing) o.applied(group);
      },
      malformed: (err, offset) => {
        o.malformed();
        const text = t('mm2-group-offsets.warn.malformed', { topic, offset: offset.toString(), error: err.message, total: syncer.stats.malformed });
        ctx.log.limited('malformed', text, COUNT_EVERY_MS);
      },
      readerError: (err) => {
        if (ctx.closing) return;
        const text = explainKafkaError(err);
        // a refusal does not heal by itself: the status says which ACL
        if (err instanceof NotAuthorizedError) status.fail(t('mm2-group-offsets.status.error', { error: text }));
        ctx.log.warn('reader', t('mm2-group-offsets.warn.reader', { topic, error: text }));
      },
      waitingTopic: () => {
        if (!ctx.closing) status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-common.status.waiting-topic', { topic }) });
      },
      startFailed: (text) => {
        if (ctx.closing) return;
        status.fail(t('mm2-group-offsets.status.error', { error: text }));
        ctx.log.warn('start', t('mm2-group-offsets.warn.reader', { topic, error: text }));
      },
    },
  });
  status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-common.status.connecting') });
  runner.start();
  return runner;
}
