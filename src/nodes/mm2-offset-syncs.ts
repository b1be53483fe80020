/**
 * `mm2-offset-syncs` flow node: reads MM2's offset-syncs topic (partition 0, from the
 * beginning) and sends the syncs into the flow as `OffsetSyncsMessage`s, in log order:
 * batches during the initial load, exactly one `loaded` after the last sync that existed when
 * it started (MM2's readToEnd: translation may start), then batches while tailing.
 *
 * The reading (batching, waiting for the topic, retries, malformed records, reset detection)
 * lives in ../kafka/offset-sync-follower (no Node-RED there); this file is the shell: messages,
 * status, logs, close.
 */
import type { NodeAPI, Node, NodeDef, NodeMessage } from './lib/red';
import { makeTranslate } from './lib/i18n';
import { setupFlowNode } from './lib/flow-node';
import { refuseSettings } from './lib/input';
import { offsetSyncsMessage, type OffsetSyncsMessage } from './lib/contracts';
import { OffsetSyncFollower, type OffsetSyncFollowerEvents } from '../kafka/offset-sync-follower';
import { loadPercent, shortTime } from './lib/status-text';
import type { OffsetSync } from '../core/types';
import { SyncStreamSender } from '../core/sync-stream';
import { SYNC_REPLAY_EVENT, type SyncReplayRequest } from './lib/sync-replay';

interface OffsetSyncsDef extends NodeDef {
  replication?: string;
}

/** What the node exposes for diagnostics (and tests): the throwaway consumer groups it used (the last 20). */
interface OffsetSyncsNode extends Node {
  readerGroupIds: string[];
}

/** The same handlers, silent once `closing()`: Node-RED's close starts a moment before the follower is stopped. */
function untilClosing(events: OffsetSyncFollowerEvents, closing: () => boolean): OffsetSyncFollowerEvents {
  const guarded: Record<string, (...args: unknown[]) => void> = {};
  for (const [name, fn] of Object.entries(events) as Array<[string, (...args: unknown[]) => void]>) {
    guarded[name] = (...args) => {
      if (!closing()) fn(...args);
    };
  }
  return guarded as OffsetSyncFollowerEvents;
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, 'mm2-offset-syncs');

  function MM2OffsetSyncsNode(this: OffsetSyncsNode, def: OffsetSyncsDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    node.readerGroupIds = [];
    const ctx = setupFlowNode(RED, node, def.replication, t);
    if (!ctx) return;
    const { status } = ctx;
    const where = ctx.rep.offsetSyncs();
    const topic = where.topic;
    const cluster = where.alias;
    if (!where.connection || !topic) {
      return refuseSettings(node, status, t('mm2-offset-syncs.errors.no-cluster'));
    }
    const connection = ctx.use(where.connection);
    const stream = new SyncStreamSender(`${node.id}@${Date.now().toString(36)}`);

    function message(event: OffsetSyncsMessage['payload']['event'], syncs?: OffsetSync[]): NodeMessage {
      const { read, malformed, loaded } = follower.stats;
      return offsetSyncsMessage(event, { topic, cluster }, { read, malformed, loaded }, stream.next(), syncs) as unknown as NodeMessage;
    }

    const events: OffsetSyncFollowerEvents = {
      batch: (syncs) => node.send(message('syncs', syncs)),
      loaded: (s) => {
        node.send(message('loaded'));
        node.log(t('mm2-offset-syncs.log.loaded', { syncs: s.syncs, partitions: s.partitions, topic, cluster, malformed: s.malformed }));
      },
      reset: () => {
        stream.newLoad();
        if (replaying) node.log(t('mm2-offset-syncs.log.replay', { topic, cluster, requester: replaying }));
        else node.warn(t('mm2-offset-syncs.warn.recreated', { topic, cluster }));
        replaying = '';
        node.send(message('reset'));
      },
      progress: (done, total) => {
        status.activity({ fill: 'blue', shape: 'ring', text: t('mm2-common.status.loading', { percent: loadPercent(done, total) }) });
      },
      stats: (s) => {
        let text =
          s.lastSyncTime !== null
            ? t('mm2-offset-syncs.status.summary', { syncs: s.syncs, partitions: s.partitions, time: shortTime(s.lastSyncTime) })
            : t('mm2-offset-syncs.status.summary-none', { syncs: s.syncs, partitions: s.partitions });
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
        else node.error(line);
      },
      recovered: () => node.log(t('mm2-offset-syncs.log.recovered', { topic, cluster })),
      warning: (text) => node.warn(text),
    };
    const follower = new OffsetSyncFollower({ connection, topic, events: untilClosing(events, () => ctx.closing) });
    node.readerGroupIds = follower.readerGroupIds; // the same array, kept up to date by the follower

    // A receiver (mm2-checkpoint) that lost the history asks for it again: read the topic from the
    // beginning once more (requests of the same moment share one replay). Nothing sent yet in
    // this load: the receiver gets it from its start anyway.
    let replaying = '';
    let replayQueued = false;
    const onReplay = (...args: unknown[]): void => {
      const req = args[0] as SyncReplayRequest | undefined;
      if (!req || req.topic !== topic || req.cluster !== cluster || ctx.closing || stream.sent === 0) return;
      replaying = replaying ? replaying : String(req.requester);
      if (replayQueued) return;
      replayQueued = true;
      ctx.after(0, () => {
        replayQueued = false;
        if (!ctx.closing) follower.replay();
      });
    };
    RED.events.on(SYNC_REPLAY_EVENT, onReplay);
    ctx.onClose(() => {
      RED.events.removeListener(SYNC_REPLAY_EVENT, onReplay);
      return follower.stop();
    });
    follower.start();
  }

  RED.nodes.registerType('mm2-offset-syncs', MM2OffsetSyncsNode as unknown as (this: Node, def: NodeDef) => void);
};
