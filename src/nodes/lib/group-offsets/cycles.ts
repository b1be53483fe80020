/**
 * `mm2-group-offsets` sync cycles: one cycle on the timer or on demand, its output message,
 * its status and its failures; and what an input message asks (checkpoints to apply in mode
 * "input", `msg.sync` or any other message: a cycle now).
 */
import type { DoneFn, Node, NodeMessage, SendFn } from '../red';
import type { Translate } from '../i18n';
import type { FlowNodeContext } from '../flow-node';
import { TOPICS, groupOffsetsPayload } from '../contracts';
import { cycleStatus } from './status';
import { COUNT_EVERY_MS } from './topic-mode';
import { explainKafkaError } from '../../../kafka/client';
import type { ClusterConnection } from '../../../kafka/connection';
import type { GroupOffsetSyncer, GroupOffsetsCycle } from '../../../kafka/group-offset-syncer';

export interface GroupOffsetsCyclesOptions {
  node: Pick<Node, 'send' | 'error'>;
  ctx: FlowNodeContext;
  t: Translate;
  syncer: GroupOffsetSyncer;
  connection: ClusterConnection;
  mode: 'input' | 'topic';
  intervalMs: number;
  /** The checkpoints topic on the target (named when a cycle is asked for before the load). */
  checkpointsTopic: string;
}

/** A CheckpointsMessage is recognised by its payload shape (`latest` map of group -> checkpoints). */
function checkpointsLatest(msg: NodeMessage): Record<string, unknown> | null {
  const p = msg.payload as { latest?: unknown } | null | undefined;
  if (!p || typeof p !== 'object' || Array.isArray(p)) return null;
  const latest = p.latest;
  if (!latest || typeof latest !== 'object' || Array.isArray(latest)) return null;
  return latest as Record<string, unknown>;
}

export class GroupOffsetsCycles {
  /** Whether cycles may run (mode "input": at once; mode "topic": once the topic is loaded). */
  ready: boolean;
  private last: { result: GroupOffsetsCycle; at: number } | null = null;
  private lastCycleError = '';

  constructor(private readonly o: GroupOffsetsCyclesOptions) {
    this.ready = o.mode === 'input';
    if (o.mode === 'input') {
      o.ctx.status.activity({ fill: 'grey', shape: 'ring', text: o.t('mm2-group-offsets.status.first-sync', { seconds: o.intervalMs / 1000 }) });
    }
  }

  /** The status of the last good cycle (nothing before the first, nor after a failed one). */
  render(): void {
    if (!this.last || this.lastCycleError) return;
    this.o.ctx.status.show(cycleStatus(this.o.t, this.last.result, this.last.at, this.o.intervalMs, this.o.syncer.stats.malformed));
  }

  /** The timer: a cycle, unless not ready or the previous one still runs (an overrun). */
  tick(): void {
    if (!this.ready) return;
    if (this.o.syncer.busy) {
      this.o.ctx.log.warn('overrun', this.o.t('mm2-group-offsets.warn.overrun', { seconds: this.o.intervalMs / 1000 }));
      return;
    }
    this.run(null, null, null);
  }

  /** An input message: checkpoints to apply (mode "input") and/or a cycle now. */
  input(msg: NodeMessage, send: SendFn, done: DoneFn): void {
    const { ctx, t, syncer } = this.o;
    const latest = checkpointsLatest(msg);
    if (latest !== null) {
      if (this.o.mode === 'input') {
        const r = syncer.applyCheckpointsJson(latest);
        if (r.malformed > 0) {
          ctx.log.limited('bad-entries', t('mm2-group-offsets.warn.bad-entries', { count: r.malformed, total: syncer.stats.malformed }), COUNT_EVERY_MS);
        }
        if (!this.last && !this.lastCycleError) {
          const s = syncer.stats;
          ctx.status.activity({ fill: 'grey', shape: 'dot', text: t('mm2-group-offsets.status.received', { groups: s.groups, partitions: s.partitions }) });
        }
      }
      if (msg.sync !== true) return done();
    }
    if (!this.ready) return done(new Error(t('mm2-group-offsets.errors.not-ready', { topic: this.o.checkpointsTopic })));
    this.run(msg, send, done);
  }

  /** One cycle; its result is sent (as `msg` when one asked for it), its failure ends `done` or is logged. */
  run(msg: NodeMessage | null, send: SendFn | null, done: DoneFn | null): void {
    const { node, ctx, t, syncer } = this.o;
    syncer.sync().then(
      (result) => {
        this.lastCycleError = '';
        ctx.log.ok('cycle');
        this.last = { result, at: Date.now() };
        this.render();
        const failed = result.skipped.filter((s) => s.code === 'error');
        if (failed.length > 0) {
          ctx.log.warn('failed', t('mm2-group-offsets.warn.groups-failed', { count: failed.length, group: failed[0].group, error: failed[0].reason }));
        }
        if (ctx.closing) {
          done?.();
          return;
        }
        const out: NodeMessage = msg ?? {};
        out.topic = TOPICS.groupOffsets;
        out.payload = groupOffsetsPayload(result);
        if (send) send(out);
        else node.send(out);
        done?.();
      },
      (err: unknown) => {
        const text = explainKafkaError(err, this.o.connection.settings);
        if (ctx.closing) {
          done?.();
          return;
        }
        ctx.status.fail(t('mm2-group-offsets.status.error', { error: text }));
        if (done) {
          done(new Error(t('mm2-group-offsets.errors.cycle-failed', { error: text })));
        } else {
          ctx.log.error('cycle', t('mm2-group-offsets.errors.cycle-failed', { error: text }));
        }
        this.lastCycleError = text;
      },
    )
    .catch((e: unknown) => {
      // a failure in the handlers above (never expected): report it, never leave it unhandled
      node.error(t('mm2-group-offsets.errors.cycle-failed', { error: (e as Error)?.message ?? String(e) }));
    });
  }
}
