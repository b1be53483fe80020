/**
 * `mm2-failback` cycles: on the timer, once the offset syncs are loaded, and for any input message
 * that is not an OffsetSyncsMessage (the result sent on that message); their output messages,
 * status and failures.
 */
import type { DoneFn, Node, NodeMessage, SendFn } from '../shared/red';
import type { Translate } from '../shared/i18n';
import type { FlowNodeContext } from '../shared/flow-node';
import { TOPICS, failbackPayload } from '../shared/contracts';
import { failbackStatus } from './mm2-failback-status';
import { explainKafkaError } from '../../kafka/client';
import type { ClusterConnection } from '../../kafka/connection';
import { SyncsNotLoadedError, type Failback, type FailbackCycle } from '../../engines/failback';

export interface FailbackRunsOptions {
  node: Pick<Node, 'send'>;
  ctx: FlowNodeContext;
  t: Translate;
  failback: Failback;
  source: ClusterConnection;
  intervalMs: number;
  /** The offset-syncs topic (named while it loads). */
  syncsTopic: string;
  clusters: { source: string; target: string };
}

export class FailbackRuns {
  /** Why the replication's reader cannot read the offset syncs now (null: it reads them). */
  syncsError: string | null = null;
  private last: { result: FailbackCycle; at: number } | null = null;
  private lastError = '';
  /** Cycles asked for and not finished (several share one run: Failback.cycle coalesces them). */
  private inFlight = 0;
  /** The results already sent: a run that served several requests is sent once, on the first. */
  private readonly sent = new WeakSet<FailbackCycle>();

  constructor(private readonly o: FailbackRunsOptions) {}

  /** The status now: waiting for the syncs, the last failure, or the last cycle. */
  render(): void {
    const { ctx, t, failback } = this.o;
    if (!failback.syncsLoaded) {
      // the replication's reader cannot read the syncs: yellow, saying why (a missing ACL names itself)
      if (this.syncsError !== null) ctx.status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-failback.status.syncs-unreadable', { topic: this.o.syncsTopic, error: this.syncsError }) });
      else ctx.status.activity({ fill: 'grey', shape: 'ring', text: t('mm2-failback.status.waiting-syncs', { topic: this.o.syncsTopic }) });
      return;
    }
    if (this.lastError) return; // the failure stays shown until a cycle completes
    if (!this.last) {
      ctx.status.activity({ fill: 'grey', shape: 'dot', text: t('mm2-failback.status.first-cycle') });
      return;
    }
    ctx.status.show(failbackStatus(t, this.last.result, this.last.at, this.o.intervalMs));
  }

  /** The timer: a cycle, unless the syncs are still loading or the previous cycle still runs. */
  tick(): void {
    if (!this.o.failback.syncsLoaded) return;
    if (this.inFlight > 0) {
      this.o.ctx.log.warn('overrun', this.o.t('mm2-failback.warn.overrun', { seconds: this.o.intervalMs / 1000 }));
      return;
    }
    this.run(null, null, null);
  }

  /** What the status cannot hold: why groups were not written (e.g. the ACL missing on the source), and why none is listed. */
  private logProblems(result: FailbackCycle): void {
    const { ctx, t } = this.o;
    const failed = result.groups.filter((g) => g.state === 'not-written');
    if (failed.length > 0) ctx.log.warn('not-written', t('mm2-failback.warn.not-written', { count: failed.length, group: failed[0].group, error: failed[0].reason ?? '' }));
    else ctx.log.ok('not-written');
    // the target lists only the groups, and a group's offsets only of the topics, the principal may DESCRIBE
    if (result.groups.length === 0 && result.readFailed.length === 0) ctx.log.warn('no-groups', t('mm2-failback.warn.no-groups'));
    else ctx.log.ok('no-groups');
  }

  /**
   * A cycle now, or the one after the running cycle (requests meanwhile share it); its result is
   * sent once (on `msg` when the first request it served was a message), every request's `done`
   * is called; its failure ends `done` or is logged.
   */
  run(msg: NodeMessage | null, send: SendFn | null, done: DoneFn | null): void {
    const { node, ctx, t, failback } = this.o;
    if (!failback.syncsLoaded) {
      done?.(new Error(t('mm2-failback.errors.not-ready', { topic: this.o.syncsTopic })));
      return;
    }
    this.inFlight++;
    failback.cycle().then(
      (result) => {
        this.inFlight--;
        if (this.sent.has(result)) return done?.();
        this.sent.add(result);
        this.lastError = '';
        ctx.log.ok('cycle');
        this.last = { result, at: Date.now() };
        this.render();
        this.logProblems(result);
        if (ctx.closing) return done?.();
        const out: NodeMessage = msg ?? {};
        out.topic = TOPICS.failback;
        out.payload = failbackPayload(result, this.o.clusters);
        if (send) send(out);
        else node.send(out);
        done?.();
      },
      (err: unknown) => {
        this.inFlight--;
        if (ctx.closing) return done?.();
        if (err instanceof SyncsNotLoadedError) {
          // the syncs were reset (the topic was recreated) while the cycle waited: it runs again once they are loaded
          this.render();
          return done?.(new Error(t('mm2-failback.errors.not-ready', { topic: this.o.syncsTopic })));
        }
        const text = explainKafkaError(err, this.o.source.settings);
        this.lastError = text;
        ctx.status.fail(t('mm2-failback.status.error', { error: text }));
        if (done) done(new Error(t('mm2-failback.errors.cycle-failed', { error: text })));
        else ctx.log.error('cycle', t('mm2-failback.errors.cycle-failed', { error: text }));
      },
    );
  }
}
