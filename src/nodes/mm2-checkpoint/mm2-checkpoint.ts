/**
 * `mm2-checkpoint` flow node: MirrorMaker 2's checkpoint connector + task (MirrorCheckpointConnector, MirrorCheckpointTask) as one
 * node. A thin shell around engines/checkpoint-emitter: settings, wiring, status (the mm2-checkpoint-*.ts files beside it).
 *
 * Offset syncs: from the replication's offset-sync feed (the config node's one reader of the
 * offset-syncs topic), no wire needed. Input: an OffsetSyncsMessage (a wire kept from an older
 * flow) is left aside; any other message asks for a cycle now (`msg.refreshGroups === true` re-lists the groups first);
 * `msg.action === 'switchover'` is a planned switchover's step (nodes/mm2-checkpoint/mm2-checkpoint-switchover).
 * Output 1: CheckpointsMessage every completed cycle, a report: what the cycle wrote, and the
 * latest checkpoints of the groups that changed (the whole state on the first cycle and to a
 * message that asked for a cycle). The state itself lives in the replication's runtime, where
 * the group-offsets nodes read it (engines/replication-runtime). Output 2: CoverageMessage every cycle.
 */
import type { NodeAPI, Node, NodeDef } from '../shared/red';
import { makeTranslate } from '../shared/i18n';
import { setupFlowNode } from '../shared/flow-node';
import { refuseSettings } from '../shared/input';
import { nodeEnvLookup } from '../shared/settings';
import { readCheckpointSettings } from './mm2-checkpoint-settings';
import { checkpointStatus, type CheckpointNodeState } from './mm2-checkpoint-status';
import { checkpointEmitterEvents } from './mm2-checkpoint-events';
import { CheckpointCycles } from './mm2-checkpoint-cycles';
import { SyncsIntake } from '../shared/syncs-intake';
import { checkpointInput } from './mm2-checkpoint-input';
import { checkpointSwitchover } from './mm2-checkpoint-switchover';
import { registerPasteEndpoint } from '../shared/paste-endpoint';
import { CheckpointEmitter } from '../../engines/checkpoint-emitter';
import { flowShareSettings } from '../../core/share-lease';
import { followShares, withShare } from '../shared/share-status';
import { shareTopicName } from '../../core/share-topic';
import { ensureShareTopic, offsetsTopicAccess } from '../../kafka/share-topic-admin';
import { ShareBoard } from '../../engines/share-board';
import { shareSummaryTopic } from '../../core/share-summaries';
import { coverageSharing } from '../shared/share-coverage';

const TYPE = 'mm2-checkpoint';

interface CheckpointDef extends NodeDef {
  replication?: string;
  groups?: string;
  groupsExclude?: string;
  topics?: string;
  topicsExclude?: string;
  emitCheckpointsIntervalSeconds?: string | number;
  refreshGroupsIntervalSeconds?: string | number;
  sourceOffsets?: string;
  readyMaxReread?: string | number;
  readyMaxAgeSeconds?: string | number;
}

/** The node as the runtime holds it: its emitter is readable (by tests, and to inspect a running flow). */
interface CheckpointNode extends Node {
  /** Set once the settings are valid and the node runs; absent on a node that refused its settings. */
  emitter?: CheckpointEmitter;
  /** The readiness shared with the flow's other instances (engines/share-board). */
  board?: ShareBoard;
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, TYPE);
  registerPasteEndpoint(RED, t); // the editor's "Paste MM2 config" button

  function MM2CheckpointNode(this: CheckpointNode, def: CheckpointDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const ctx = setupFlowNode(RED, node, def.replication, t);
    if (!ctx) return;
    const { rep, status, log } = ctx;

    // ---- settings: MM2 property names, MM2 defaults for empty fields, ${VAR} substituted ----
    const read = readCheckpointSettings(def, nodeEnvLookup(RED, node));
    const source = rep.sourceNode?.connection ?? null;
    const target = rep.targetNode?.connection ?? null;
    if (!read.values || !source || !target || !rep.policy) {
      const text = read.problems.join('; ') || t('mm2-common.errors.bad-replication', { problems: '' });
      const logText = t('mm2-checkpoint.errors.config', { problems: text });
      return refuseSettings(node, status, text, { statusText: t('mm2-checkpoint.status.error', { error: text }), logText, refuseInput: true });
    }
    const { emitMs, refreshMs, groupFilter, topicFilter, sourceOffsets, readiness } = read.values;
    const checkpointsTopic = rep.checkpointsTopic();
    const staleMs = 2 * emitMs + 30000; // no completed cycle for this long: not green

    // ---- wiring ----
    const state: CheckpointNodeState = { phase: { kind: 'preparing' }, last: null, lastAt: 0, error: null, groups: null };
    let syncsError: string | null = null;
    // the flow in several Node-RED instances: this one's share (engines/replication-shares; one instance owns everything)
    const shares = rep.runtime.shares;
    const render = (): void => status.show(withShare(t, checkpointStatus(t, state, emitter.syncsLoaded, staleMs, Date.now(), syncsError), shares.current, { owned: state.groups, total: emitter.groupsDiscovered }));
    const { sourceAlias, targetAlias, policy } = rep;
    const emitter = new CheckpointEmitter({
      source: ctx.use(source),
      target: ctx.use(target),
      sourceAlias, targetAlias, policy, checkpointsTopic, groupFilter, topicFilter,
      ensureTopic: (c, topic) => rep.ensureTopic(c, topic),
      retryMaxMs: emitMs, // an unreachable target is tried again at least every interval
      sourceOffsets,
      offsetTranslation: rep.offsetTranslation,
      readiness,
      // the store lives in the replication's runtime: the group-offsets nodes read it there
      home: rep.runtime,
      shares,
      events: checkpointEmitterEvents({ node, t, log, state, checkpointsTopic, render: () => render(), delivered: (r) => cycles.deliver(r) }),
    });
    node.emitter = emitter;
    // the flow in several instances: each publishes its groups' readiness on the target, and shows every group of the flow
    const targetConnection = ctx.use(target);
    const summaryTopic = shareSummaryTopic(sourceAlias);
    const board = new ShareBoard({
      target: targetConnection, topic: summaryTopic, shares, validForMs: 3 * emitMs + 10000,
      ensureTopic: () => rep.ensureTopic(targetConnection, summaryTopic),
      onProblem: (text) => (text === null ? log.ok('share-board') : log.warn('share-board', t('mm2-checkpoint.warn.share-board', { error: text }))),
    });
    node.board = board;
    const sharing = coverageSharing(board, () => emitter.groupsOfFlow);
    const cycles = new CheckpointCycles({ node, t, log, emitter, state, render, sharing, where: { sourceCluster: sourceAlias, targetCluster: targetAlias, checkpointsTopic } });
    const syncs = new SyncsIntake({ t, node, log, topic: rep.offsetSyncs().topic, emitter, feed: rep.syncFeed, render, readerError: (e) => {
      syncsError = e;
      render();
    } });
    checkpointInput(node, cycles, syncs, (msg, send) => checkpointSwitchover({ t, cycles, emitter }, msg, send));

    // ---- timers (intervals within core/intervals' bounds: the settings reader checks them) ----
    ctx.every(emitMs, () => void cycles.run(false).catch(() => undefined));
    ctx.every(refreshMs, () => {
      emitter.refreshGroups().catch(() => undefined);
      void emitter.retrySourceStream(); // polling because the stream failed: try following again
    });
    ctx.every(5000, () => state.last && render()); // "12 groups, 3 checkpoints / 5 s ago" stays true
    // the first checkpoint node of the flow here joins the flow's sharing group, the last one leaves it
    // it splits __consumer_offsets, or where the node polls the flow's own topic on the source (core/share-topic)
    const splitTopic = shareTopicName(policy, targetAlias);
    const leave = shares.join({
      kafka: source.kafka, sourceAlias, targetAlias, sourceOffsets, sourceSettings: source.settings,
      settings: flowShareSettings({ replicationProps: rep.props ?? {}, offsetTranslation: rep.offsetTranslation ?? 'precise', checkpoint: read.values.shareSettings }),
      pollSplit: {
        topic: splitTopic,
        lookAtOffsetsTopic: async () => offsetsTopicAccess(await source.admin()),
        ensureTopic: async () => ensureShareTopic(await source.admin(), splitTopic, rep.replicationFactor, source.settings),
      },
    });
    const unfollow = followShares(t, node, shares, render);
    ctx.onClose(() => Promise.all([syncs.stop(), emitter.stop(), board.stop()]).then(() => {
      unfollow();
      return leave();
    }));
    render();
    syncs.start(); // the history at once (buffered by the emitter until it restored), then what follows
    emitter.start().catch(() => undefined);
  }

  RED.nodes.registerType(TYPE, MM2CheckpointNode as unknown as (this: Node, def: NodeDef) => void);
};
