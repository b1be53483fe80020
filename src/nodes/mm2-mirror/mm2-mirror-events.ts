/**
 * What an `mm2-mirror` node does with its engine's events and stats: logs, warnings once per
 * change, the status (nodes/mm2-mirror/mm2-mirror-status), and the stats message with the record rate since the
 * previous one.
 */
import type { Node } from '../shared/red';
import type { Translate } from '../shared/i18n';
import type { FlowNodeContext } from '../shared/flow-node';
import { TOPICS, mirrorStatsPayload, type MirrorStatsMessage } from '../shared/contracts';
import { mirrorStatus } from './mm2-mirror-status';
import type { MirrorEvent, MirrorErrorPlace, Mirror } from '../../engines/mirror-task';

export class MirrorView {
  private readonly problems = new Map<MirrorErrorPlace, string>();
  private subscribed: string[] | null = null;
  private lastRecords = 0;
  private lastAt = Date.now();
  private rate = 0;
  /** Evidence that the mirror copies arrived since the last green status (nodes/mm2-mirror/mm2-mirror-status). */
  private fresh = false;
  /** The instance's share after the last join (issue 25). */
  private share: { partitions: number; of: number; instances: number } | null = null;
  private loggedDuplicates = 0;
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
        // the topics were listed on the source and the remote topics checked on the target just now
        this.subscribed = e.topics;
        this.fresh = true;
        this.render();
        if (e.topics.length === 0) node.warn(t('mm2-mirror.warn.none-visible'));
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
        // what failed worked just now
        this.problems.delete(e.where);
        ctx.log.ok(e.where);
        this.fresh = true;
        if (this.problems.size === 0) this.render();
        break;
      case 'share':
        if (e.instances > 1 || (this.share && this.share.instances > 1)) node.log(t('mm2-mirror.log.share', { partitions: e.partitions, of: e.of, instances: e.instances }));
        this.share = { partitions: e.partitions, of: e.of, instances: e.instances };
        this.fresh = true;
        this.render();
        break;
      case 'duplicates':
        break; // counted in the stats; logged with them (statsMessage)
      case 'delivered':
      case 'answered':
        this.fresh = true;
        this.render();
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
    if (s.duplicates > this.loggedDuplicates) {
      this.node.log(this.t('mm2-mirror.log.duplicates', { records: s.duplicates - this.loggedDuplicates, total: s.duplicates }));
      this.loggedDuplicates = s.duplicates;
    }
    this.rate = rate;
    this.render();
    return { topic: TOPICS.mirror, payload: mirrorStatsPayload(s, rate, this.where) };
  }

  /** Shows a wait that lasts too long (call every second or so); never sets green without fresh evidence. */
  readonly checkStatus = (): void => {
    this.render();
  };

  private render(): void {
    const o = this.mirror?.outstanding() ?? null;
    const alias = o ? (o.cluster === 'source' ? this.where.sourceCluster : this.where.targetCluster) : '';
    const view = mirrorStatus(this.t, {
      problems: [...this.problems.values()],
      subscribed: this.subscribed,
      recordsPerSecond: this.rate,
      outstanding: o ? { kind: o.kind, alias, since: o.since } : null,
      fresh: this.fresh,
      share: this.share,
    }, Date.now());
    if (!view) return;
    if ('activity' in view && view.activity.fill === 'green') this.fresh = false;
    this.ctx.status.show(view);
  }
}
