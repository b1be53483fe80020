/**
 * `mm2-heartbeat` emission: a heartbeat to the SOURCE cluster's `heartbeats` every interval and
 * on demand; its failure and recovery are logged once and shown. A send that neither succeeds
 * nor fails (a source that stopped answering) counts as stalled, which is not green either.
 */
import type { Node } from '../shared/red';
import type { Translate } from '../shared/i18n';
import type { FlowNodeContext } from '../shared/flow-node';
import type { ClusterConnection } from '../../kafka/connection';
import { HeartbeatEmitter } from '../../engines/heartbeat-emitter';

export interface HeartbeatEmissionOptions {
  node: Pick<Node, 'log'>;
  ctx: FlowNodeContext;
  t: Translate;
  source: ClusterConnection;
  topic: string;
  intervalMs: number;
  render(): void;
}

export class HeartbeatEmission {
  readonly emitter: HeartbeatEmitter;
  /** The last send's error, until one succeeds. */
  error: string | null = null;
  private readonly startedAt = Date.now();
  private readonly stallMs: number;

  constructor(private readonly o: HeartbeatEmissionOptions) {
    const { ctx, source, topic } = o;
    const rep = ctx.rep;
    ctx.use(source);
    this.stallMs = Math.max(2 * o.intervalMs, 5000);
    this.emitter = new HeartbeatEmitter({
      connection: source,
      topic,
      sourceAlias: rep.sourceAlias,
      targetAlias: rep.targetAlias,
      ensureTopic: () => rep.ensureTopic(source, topic),
    });
    const tick = (): void => {
      if (this.emitter.busy || ctx.closing) return;
      this.emitter.emit().then(
        () => {
          if (!ctx.closing) this.emitted();
        },
        (e: unknown) => {
          if (!ctx.closing) this.failed(e);
        },
      );
    };
    ctx.every(o.intervalMs, tick);
    ctx.after(0, tick);
  }

  /** How long the last send has been stalled at `now` (null: not stalled). */
  stalledFor(now: number): number | null {
    const age = now - (this.emitter.lastEmitted ?? this.startedAt);
    return age > this.stallMs ? age : null;
  }

  /** One heartbeat now (an input message); rejects with the send's error. */
  emitNow(): Promise<void> {
    const { ctx } = this.o;
    return this.emitter.emit().then(
      () => {
        if (!ctx.closing) this.emitted();
      },
      (e: unknown) => {
        throw ctx.closing ? (e as Error) : this.failed(e);
      },
    );
  }

  private failed(e: unknown): Error {
    const { ctx, t } = this.o;
    const err = e instanceof Error ? e : new Error(String(e));
    this.error = err.message;
    ctx.log.warn('emit', t('mm2-heartbeat.warn.emit-failed', { topic: this.o.topic, alias: this.o.source.alias, error: err.message }));
    this.o.render();
    return err;
  }

  private emitted(): void {
    if (this.error) {
      this.error = null;
      this.o.ctx.log.ok('emit');
      this.o.node.log(this.o.t('mm2-heartbeat.log.emit-recovered', { topic: this.o.topic, alias: this.o.source.alias }));
    }
    this.o.render();
  }
}
