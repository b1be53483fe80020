/**
 * `mm2-mirror` flow node: MirrorMaker 2's MirrorSourceConnector for teams without one. Copies
 * the selected source topics to `<source>.<topic>` on the target and writes MM2 offset syncs.
 * A thin shell: the engine is src/kafka/mirror.ts, the settings src/core/mirror-settings.ts.
 */
import type { NodeAPI, Node, NodeDef, NodeMessage } from './lib/red';
import { makeTranslate } from './lib/i18n';
import { setupFlowNode } from './lib/flow-node';
import { refuseSettings } from './lib/input';
import { TOPICS, mirrorStatsPayload, type MirrorStatsMessage } from './lib/contracts';
import { nodeEnvLookup } from './lib/settings';
import { readMirrorSettings, type MirrorDefFields } from './lib/settings/mirror';
import { mirrorStatus } from './lib/mirror/status';
import { Mirror, mirrorGroupId, type MirrorEvent, type MirrorErrorPlace } from '../kafka/mirror-task';
import { PROBE_EVERY_MS } from '../kafka/cluster-probe';

interface MirrorDef extends NodeDef, MirrorDefFields {
  replication?: string;
}

/** How often the stats message is sent and the status refreshed. */
const STATS_INTERVAL_MS = 5000;

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, 'mm2-mirror');

  function MM2MirrorNode(this: Node, def: MirrorDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const ctx = setupFlowNode(RED, node, def.replication, t);
    if (!ctx) return;
    const { rep, status } = ctx;

    const read = readMirrorSettings(def, nodeEnvLookup(RED, node), t);
    if (!read.values) return refuseSettings(node, status, read.problems[0]);
    const settings = read.values;

    const source = rep.sourceNode?.connection;
    const target = rep.targetNode?.connection;
    const policy = rep.policy;
    if (!source || !target || !policy) {
      return refuseSettings(node, status, t('mm2-common.errors.bad-replication', { problems: 'no cluster connection' }));
    }
    ctx.use(source);
    ctx.use(target);

    let syncs: { connection: NonNullable<typeof source>; topic: string; ensure: () => Promise<unknown> } | null = null;
    if (settings.emitOffsetSyncsEnabled) {
      const os = rep.offsetSyncs();
      if (!os.connection || !os.topic) {
        return refuseSettings(node, status, t('mm2-common.errors.bad-replication', { problems: 'offset-syncs topic unknown' }));
      }
      const conn = ctx.use(os.connection);
      syncs = { connection: conn, topic: os.topic, ensure: () => rep.ensureTopic(conn, os.topic) };
    }

    const problems = new Map<MirrorErrorPlace, string>();
    let subscribed: string[] | null = null;

    const onEvent = (e: MirrorEvent): void => {
      switch (e.type) {
        case 'subscribed':
          subscribed = e.topics;
          if (e.topics.length === 0) status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-mirror.status.no-topics') });
          else status.activity({ fill: 'green', shape: 'dot', text: t('mm2-mirror.status.mirroring', { count: e.topics.length, rate: '0' }) });
          node.log(t('mm2-mirror.log.subscribed', { count: e.topics.length, partitions: e.partitions, topics: e.topics.join(', ') }));
          break;
        case 'topic-created':
          node.log(t('mm2-mirror.log.created', { topic: e.topic, alias: e.alias, partitions: e.partitions }));
          break;
        case 'partitions-added':
          node.log(t('mm2-mirror.log.partitions', { topic: e.topic, alias: e.alias, from: e.from, to: e.to }));
          break;
        case 'rf-lowered':
          node.warn(t('mm2-mirror.warn.rf-lowered', { topic: e.topic, alias: e.alias, factor: e.factor, brokers: e.brokers }));
          break;
        case 'error': {
          const text = t(`mm2-mirror.errors.${e.where}`, { error: e.error, topic: e.topic ?? '' });
          problems.set(e.where, text);
          status.fail(text);
          ctx.log.warn(e.where, text);
          break;
        }
        case 'recovered':
          problems.delete(e.where);
          ctx.log.ok(e.where);
          if (problems.size === 0) showStatus(0);
          break;
      }
    };

    const mirror = new Mirror({
      source,
      target,
      sourceAlias: rep.sourceAlias,
      targetAlias: rep.targetAlias,
      policy,
      topicFilter: settings.topicFilter,
      heartbeatsReplicationEnabled: settings.heartbeatsReplicationEnabled,
      offsetLagMax: settings.offsetLagMax,
      replicationFactor: settings.replicationFactor,
      offsetSyncs: syncs,
      groupId: mirrorGroupId(rep.sourceAlias, rep.targetAlias, node.id),
      onEvent,
    });

    function showStatus(rate: number): void {
      status.show(mirrorStatus(t, [...problems.values()], subscribed, rate));
    }

    let lastRecords = 0;
    let lastAt = Date.now();
    function statsMessage(): MirrorStatsMessage {
      const s = mirror.stats();
      const now = Date.now();
      const rate = now > lastAt ? ((s.records - lastRecords) * 1000) / (now - lastAt) : 0;
      lastRecords = s.records;
      lastAt = now;
      showStatus(rate);
      const where = { sourceCluster: rep.sourceAlias, targetCluster: rep.targetAlias, offsetSyncsTopic: syncs ? syncs.topic : null };
      return { topic: TOPICS.mirror, payload: mirrorStatsPayload(s, rate, where) };
    }

    status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-mirror.status.starting') });
    mirror.start().catch(() => undefined); // failures are events (status + warn) and retried
    // Both intervals are within the bounds of core/intervals (checked by parseMirrorSettings).
    ctx.every(settings.offsetFlushIntervalMs, () => {
      mirror.flush().catch(() => undefined);
    });
    ctx.every(settings.refreshTopicsIntervalSeconds * 1000, () => {
      mirror.refresh().catch(() => undefined);
    });
    ctx.every(PROBE_EVERY_MS, () => {
      mirror.probe().catch(() => undefined);
    });
    ctx.every(STATS_INTERVAL_MS, () => {
      node.send(statsMessage() as unknown as NodeMessage);
    });

    node.on('input', (msg, send, done) => {
      // Any message triggers a topic refresh now (msg.refreshTopics documents the intent); it cannot change settings.
      mirror.refresh().then(
        () => {
          const out = statsMessage();
          send(Object.assign(msg, { topic: out.topic, payload: out.payload }));
          done();
        },
        (e: unknown) => done(new Error(t('mm2-mirror.errors.refresh', { error: (e as Error)?.message ?? String(e) }))),
      );
    });

    ctx.onClose(() => mirror.stop());
  }

  RED.nodes.registerType('mm2-mirror', MM2MirrorNode as unknown as (this: Node, def: NodeDef) => void);
};
