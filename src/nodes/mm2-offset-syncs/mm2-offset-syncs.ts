/**
 * `mm2-offset-syncs` flow node: a reporter of the replication flow's offset-sync feed (the one
 * reader of MM2's offset-syncs topic that the `mm2-replication` config node owns, see
 * ../engines/offset-sync-feed). It sends the syncs into the flow as `OffsetSyncsMessage`s, in
 * log order, for debug nodes and dashboards: batches during the initial load, exactly one
 * `loaded` after the last sync that existed when the load started (MM2's readToEnd), then
 * batches while tailing; its status shows the reader's progress and counters. Redeployed on its
 * own it gets the whole history again from the feed. mm2-checkpoint and mm2-failback take the
 * syncs from the feed themselves: no wire from this node is needed.
 *
 * Messages, status and logs: nodes/mm2-offset-syncs/mm2-offset-syncs-events.
 */
import type { NodeAPI, Node, NodeDef } from '../shared/red';
import { makeTranslate } from '../shared/i18n';
import { setupFlowNode } from '../shared/flow-node';
import { refuseSettings } from '../shared/input';
import { offsetSyncsEvents, untilClosing } from './mm2-offset-syncs-events';

interface OffsetSyncsDef extends NodeDef {
  replication?: string;
}

/** What the node exposes for diagnostics (and tests): the throwaway consumer groups the feed's reader used (the last 20). */
interface OffsetSyncsNode extends Node {
  readonly readerGroupIds: readonly string[];
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, 'mm2-offset-syncs');

  function MM2OffsetSyncsNode(this: OffsetSyncsNode, def: OffsetSyncsDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const feed = () => ctx?.rep.syncFeed;
    Object.defineProperty(node, 'readerGroupIds', { get: () => feed()?.readerGroupIds ?? [], configurable: true });
    const ctx = setupFlowNode(RED, node, def.replication, t);
    if (!ctx) return;
    const { status } = ctx;
    const { topic, alias: cluster, connection } = ctx.rep.offsetSyncs();
    if (!connection || !topic) {
      return refuseSettings(node, status, t('mm2-offset-syncs.errors.no-cluster'));
    }
    ctx.use(connection); // its state shows in the status
    const { syncFeed } = ctx.rep;
    const events = offsetSyncsEvents({ node, t, status, topic, cluster, stats: () => syncFeed.stats });
    // a node started late gets the history at once: sent once the nodes it is wired to exist (Node-RED
    // starts the nodes of a flow one after the other), on the next turn
    let subscription: { unsubscribe(): Promise<void> } | null = null;
    ctx.after(0, () => {
      subscription = syncFeed.subscribe(untilClosing(events, () => ctx.closing));
    });
    ctx.onClose(() => subscription?.unsubscribe());
  }

  RED.nodes.registerType('mm2-offset-syncs', MM2OffsetSyncsNode as unknown as (this: Node, def: NodeDef) => void);
};
