/**
 * An `mm2-checkpoint` node's cycles: runs one on the emitter, keeps the node state, logs what
 * failed, and sends the two outputs (CheckpointsMessage, CoverageMessage) once per completed
 * full cycle; an event-driven partial cycle that wrote checkpoints sends output 1 only, with
 * `payload.full: false` (the groups it touched).
 */
import type { Node, NodeMessage, SendFn } from '../red';
import type { Translate } from '../i18n';
import type { FailureLog } from '../flow-node';
import type { CheckpointNodeState } from './status';
import { TOPICS, checkpointsPayload, coveragePayload } from '../contracts';
import type { CheckpointEmitter, CycleResult } from '../../../kafka/checkpoint-emitter';
import { explainKafkaError, isKafkaClientInternalError } from '../../../kafka/client';

export interface CheckpointCyclesOptions {
  node: Pick<Node, 'send'>;
  t: Translate;
  log: FailureLog;
  emitter: CheckpointEmitter;
  state: CheckpointNodeState;
  where: { sourceCluster: string; targetCluster: string; checkpointsTopic: string };
  render(): void;
}

/** The message that asked for a cycle, and where its answer goes. */
export interface CycleRequester {
  msg: NodeMessage;
  send: SendFn;
}

export class CheckpointCycles {
  private readonly sent = new WeakSet<CycleResult>();

  constructor(private readonly o: CheckpointCyclesOptions) {}

  /**
   * One cycle now. It rejects with the cycle's error text (logged here only when no message
   * asked for it: the message's done(err) reports it otherwise).
   */
  async run(refreshGroups: boolean, requester?: CycleRequester): Promise<void> {
    const { t, log, state, emitter } = this.o;
    let r: CycleResult;
    try {
      r = await emitter.cycle({ refreshGroups });
    } catch (e) {
      // the emitter explains what it reports; kafkajs failing inside is explained here too
      const error = isKafkaClientInternalError(e) ? explainKafkaError(e) : ((e as Error)?.message ?? String(e));
      state.error = error;
      this.o.render();
      const text = t('mm2-checkpoint.errors.cycle', { error });
      if (!requester) log.error('cycle', text);
      throw new Error(text);
    }
    if (r.skipped) {
      if (requester) log.warn('skipped', t('mm2-checkpoint.warn.skipped-loading'));
      this.o.render();
      return;
    }
    this.deliver(r, requester);
  }

  /** A completed cycle: the node state, the log, the outputs (to `requester` when a message asked for it). */
  deliver(r: CycleResult, requester?: CycleRequester): void {
    const { t, log, state } = this.o;
    if (this.sent.has(r)) return;
    if (!r.full) {
      // event-driven: what it wrote goes on at once; the status stays with the full cycles
      if (r.written.length === 0) return;
      this.sent.add(r);
      const msg = { ...(requester?.msg ?? {}), topic: TOPICS.checkpoints, payload: checkpointsPayload(r, this.o.where) };
      if (requester) requester.send([msg, null]);
      else this.o.node.send([msg, null]);
      return;
    }
    state.error = null;
    log.ok('cycle');
    state.last = r;
    state.lastAt = Date.now();
    state.groups = r.groups.length;
    if (r.discoveryError) log.warn('discovery', t('mm2-checkpoint.warn.discovery', { error: r.discoveryError }));
    else log.ok('discovery');
    if (r.failedGroups.length > 0) {
      log.warn('failed-groups', t('mm2-checkpoint.warn.group-offsets', { groups: r.failedGroups.map((f) => `${f.group} (${f.error})`).join(', ') }));
    } else log.ok('failed-groups');
    this.o.render();
    this.sent.add(r);
    const out = this.outputs(r, requester?.msg);
    if (requester) requester.send(out);
    else this.o.node.send(out);
  }

  private outputs(r: CycleResult, msg?: NodeMessage): [NodeMessage | null, NodeMessage] {
    const base = msg ? { ...msg } : {};
    // Every completed cycle, also when it wrote nothing: the receiver reconciles the target
    // against the whole state, so a restart, a redeploy or a lost message repairs itself.
    return [
      { ...base, topic: TOPICS.checkpoints, payload: checkpointsPayload(r, this.o.where) },
      { ...base, topic: TOPICS.coverage, payload: coveragePayload(r) },
    ];
  }
}
