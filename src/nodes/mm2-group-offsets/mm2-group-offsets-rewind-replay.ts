/**
 * `mm2-group-offsets` in mode "input": at start, one replay of the replication's checkpoints
 * topic (engines/rewind-replay) recovers the rewinds on the source the order of its checkpoints
 * shows, as mode "topic" does while it loads the topic (issue 26, item 1: state over messages;
 * the messages carry only each partition's latest checkpoint). The input is followed as before
 * meanwhile. A topic that may not be read (no READ ACL) is said once in the log and the node goes
 * on with its input alone; any other failure is retried. Never red: the status is the runs'.
 */
import type { Translate } from '../shared/i18n';
import type { FlowNodeContext } from '../shared/flow-node';
import { explainKafkaError, NotAuthorizedError } from '../../kafka/client';
import { TopicNotFoundError } from '../../kafka/topic-reader';
import type { ClusterConnection } from '../../kafka/connection';
import type { GroupOffsetSyncer } from '../../engines/group-offset-syncer';
import { RewindReplay } from '../../engines/rewind-replay';

/** A replay gives up after this long (ms), then is tried again. */
export const REPLAY_TIMEOUT_MS = 120000;

export interface RewindReplayModeOptions {
  ctx: FlowNodeContext;
  t: Translate;
  connection: ClusterConnection;
  topic: string;
  syncer: GroupOffsetSyncer;
  nodeId: string;
  /** Wait before a failed replay is tried again (ms). */
  retryMs: number;
  /** Sync these groups now (they took a recovered rewind). */
  recovered(groups: string[]): void;
  /** Logs an information line (node.log). */
  info(text: string): void;
}

/** Starts the replay; `stop()` it on close, before the syncer. */
export function replayRewindsOnce(o: RewindReplayModeOptions): { stop(): Promise<void> } {
  const { ctx, t, topic } = o;
  let current: RewindReplay | null = null;
  let stopped = false;
  const attempt = (): void => {
    if (stopped || ctx.closing) return;
    const replay = new RewindReplay({ connection: o.connection, topic, groupPrefix: `__mm2-node-red-group-offsets-${o.nodeId}`, timeoutMs: REPLAY_TIMEOUT_MS });
    current = replay;
    replay.run().then(
      (history) => {
        current = null;
        if (stopped || ctx.closing) return;
        ctx.log.ok('rewind-replay');
        const groups = o.syncer.adoptRewinds(history);
        if (groups.length > 0) {
          o.info(t('mm2-group-offsets.info.rewinds-recovered', { topic, count: groups.length, group: groups[0] }));
          o.recovered(groups);
        }
      },
      (err: unknown) => {
        current = null;
        if (stopped || ctx.closing) return;
        // no checkpoint written yet: nothing to recover
        if (err instanceof TopicNotFoundError) return;
        const text = explainKafkaError(err, o.connection.settings);
        if (err instanceof NotAuthorizedError) {
          ctx.log.warn('rewind-replay', t('mm2-group-offsets.warn.rewind-replay-acl', { topic, error: text }));
          return;
        }
        ctx.log.warn('rewind-replay', t('mm2-group-offsets.warn.rewind-replay', { topic, error: text, seconds: Math.round(o.retryMs / 1000) }));
        ctx.after(o.retryMs, attempt);
      },
    );
  };
  attempt();
  return {
    async stop(): Promise<void> {
      stopped = true;
      const r = current as RewindReplay | null;
      current = null;
      if (r) await r.stop();
    },
  };
}
