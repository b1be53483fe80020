/**
 * `mm2-offset-syncs` flow node: reads MM2's offset-syncs topic (partition 0, from the
 * beginning) and sends the syncs into the flow as `OffsetSyncsMessage`s, in log order:
 * batches during the initial load, exactly one `loaded` after the last sync that existed when
 * it started (MM2's readToEnd: translation may start), then batches while tailing.
 *
 * The reading (batching, waiting for the topic, retries, malformed records, reset detection)
 * lives in ../engines/offset-sync-follower (no Node-RED there); this file is the shell: settings,
 * wiring, close. Messages, status and logs: nodes/mm2-offset-syncs/mm2-offset-syncs-events; replays: nodes/mm2-offset-syncs/mm2-offset-syncs-replay.
 */
import type { NodeAPI, Node, NodeDef } from '../shared/red';
import { makeTranslate } from '../shared/i18n';
import { setupFlowNode } from '../shared/flow-node';
import { refuseSettings } from '../shared/input';
import { offsetSyncsEvents, untilClosing } from './mm2-offset-syncs-events';
import { ReplayRequests } from './mm2-offset-syncs-replay';
import { OffsetSyncFollower } from '../../engines/offset-sync-follower';
import { SyncStreamSender } from '../../core/sync-stream';

interface OffsetSyncsDef extends NodeDef {
  replication?: string;
}

/** What the node exposes for diagnostics (and tests): the throwaway consumer groups it used (the last 20). */
interface OffsetSyncsNode extends Node {
  readerGroupIds: string[];
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
    const { topic, alias: cluster, connection } = ctx.rep.offsetSyncs();
    if (!connection || !topic) {
      return refuseSettings(node, status, t('mm2-offset-syncs.errors.no-cluster'));
    }
    const stream = new SyncStreamSender(`${node.id}@${Date.now().toString(36)}`);
    const replays = new ReplayRequests({ RED, ctx, topic, cluster, stream, replay: () => follower.replay() });
    const events = offsetSyncsEvents({ node, t, status, topic, cluster, stream, stats: () => follower.stats, replayRequester: () => replays.take() });
    const follower = new OffsetSyncFollower({ connection: ctx.use(connection), topic, events: untilClosing(events, () => ctx.closing) });
    node.readerGroupIds = follower.readerGroupIds; // the same array, kept up to date by the follower
    ctx.onClose(() => follower.stop());
    follower.start();
  }

  RED.nodes.registerType('mm2-offset-syncs', MM2OffsetSyncsNode as unknown as (this: Node, def: NodeDef) => void);
};
