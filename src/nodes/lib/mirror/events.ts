/**
 * What an `mm2-mirror` node does with its engine's events and stats: logs, warnings once per
 * change, the status (lib/mirror/status), and the stats message with the record rate since the
 * previous one.
 */
import type { Node } from '../red';
import type { Translate } from '../i18n';
import type { FlowNodeContext } from '../flow-node';
import { TOPICS, mirrorStatsPayload, type MirrorStatsMessage } from '../contracts';
import { mirrorStatus } from './status';
import type { MirrorEvent, MirrorErrorPlace, Mirror } from '../../../kafka/mirror-task';

export class MirrorView {
  private readonly problems = new Map<MirrorErrorPlace, string>();
  private subscribed: string[] | null = null;
  private lastRecords = 0;
  private lastAt = Date.now();
  /** Set once the engine exists (its events may come before). */
  mirror: Mirror | null = null;

  constructor(
    private readonly node: Pick<Node, 'log' | 'warn'>,
    private readonly ctx: FlowNodeContext,
    private readonly t: Translate,
    /** Where the stats message says it mirrors. */
    private readonly where: { sourceCluster: string; targetCluster: string; offsetSyncsTopic: string | null },
  ) {
    ctx.status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-mirror.status.starting') });
  }

  readonly onEvent = (e: MirrorEvent): void => {
    const { node, ctx, t } = this;
    const { status } = ctx;
    switch (e.type) {
      case 'subscribed':
        this.subscribed = e.topics;
        if (e.topics.length === 0) {
          status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-mirror.status.no-topics') });
          node.warn(t('mm2-mirror.warn.none-visible'));
        }
        else status.activity({ fill: 'green', shape: 'dot', text: t('mm2-mirror.status.mirroring', { count: e.topics.length, rate: '0' }) });
        node.log(t('mm2-mirror.log.subscribed', { count: e.topics.length, partitions: e.partitions, topics: e.topics.join(', ') }));
        break;
      case 'topic-created':
        node.log(t('mm2-mirror.log.created', { topic: e.topic, alias: e.alias, partitions: e.partitions }));
        break;
      case 'partitions-added':
        node.log(t('mm2-mirror.log.partitions', { topic: e.topic, alias: e.alias, from: e.from, to: e.to }));
        break;
      case 'configs-synced':
        node.log(t('mm2-mirror.log.configs', { topic: e.topic, alias: e.alias, configs: e.configs }));
        break;
      case 'acls-synced':
        node.log(t('mm2-mirror.log.acls', { count: e.count, alias: e.alias }));
        break;
      case 'acls-unavailable':
        node.log(t('mm2-mirror.log.acls-unavailable', { alias: e.alias }));
        break;
      case 'rf-lowered':
        node.warn(t('mm2-mirror.warn.rf-lowered', { topic: e.topic, alias: e.alias, factor: e.factor, brokers: e.brokers }));
        break;
      case 'error': {
        const text = t(`mm2-mirror.errors.${e.where}`, { error: e.error, topic: e.topic ?? '' });
        this.problems.set(e.where, text);
        status.fail(text);
        ctx.log.warn(e.where, text);
        break;
      }
      case 'recovered':
        this.problems.delete(e.where);
        ctx.log.ok(e.where);
        if (this.problems.size === 0) this.showStatus(0);
        break;
    }
  };

  /** The stats message now (and the status with the rate since the previous one). */
  statsMessage(): MirrorStatsMessage {
    if (!this.mirror) throw new Error('mm2-mirror: stats before the engine exists');
    const s = this.mirror.stats();
    const now = Date.now();
    const rate = now > this.lastAt ? ((s.records - this.lastRecords) * 1000) / (now - this.lastAt) : 0;
    this.lastRecords = s.records;
    this.lastAt = now;
    this.showStatus(rate);
    return { topic: TOPICS.mirror, payload: mirrorStatsPayload(s, rate, this.where) };
  }

  private showStatus(rate: number): void {
    this.ctx.status.show(mirrorStatus(this.t, [...this.problems.values()], this.subscribed, rate));
  }
}
