/**
 * An `mm2-checkpoint` node's cycles: runs one on the emitter, keeps the node state, logs what
 * failed, and sends the two outputs (CheckpointsMessage, CoverageMessage) once per completed
 * full cycle; an event-driven partial cycle that wrote checkpoints sends output 1 only.
 * Output 1 is a report: the whole state (`payload.full: true`) on the first full cycle and to a
 * message that asked for a cycle; otherwise the groups whose checkpoints changed since the last
 * message (`full: false`): at 10,000 groups the whole state is 100,000 checkpoints, too much to
 * send (and clone, for every wire) every second. No group-offsets node of this Node-RED needs it:
 * they read the checkpoint store in the replication's runtime.
 */
import type { Node, NodeMessage, SendFn } from '../shared/red';
import type { Translate } from '../shared/i18n';
import type { FailureLog } from '../shared/flow-node';
import type { CheckpointNodeState } from './mm2-checkpoint-status';
import { TOPICS, checkpointsPayload, coveragePayload } from '../shared/contracts';
import type { CheckpointEmitter, CycleResult } from '../../engines/checkpoint-emitter';
import type { Checkpoint } from '../../core/types';
import { LatestCheckpoints } from '../../core/checkpoint-cycle';
import { explainKafkaError, isKafkaClientInternalError } from '../../kafka/client';
import type { CoverageSharing } from '../shared/share-coverage';
import { indexInSorted } from '../../core/sorted-names';

export interface CheckpointCyclesOptions {
  /** `wires` (Node-RED's, one list of node ids per output; read at each send: a deploy may rewire the node without restarting it): output 1 wired to nothing makes no message. */
  node: Pick<Node, 'send'> & { wires?: unknown };
  t: Translate;
  log: FailureLog;
  emitter: CheckpointEmitter;
  state: CheckpointNodeState;
  where: { sourceCluster: string; targetCluster: string; checkpointsTopic: string };
  render(): void;
  /** The flow in several instances: the readiness shared with them (nodes/shared/share-coverage). */
  sharing?: CoverageSharing;
}

/** The message that asked for a cycle, and where its answer goes. */
export interface CycleRequester {
  msg: NodeMessage;
  send: SendFn;
  /** Called with a completed full cycle before its outputs are sent (it may add to `msg`). */
  prepare?(r: CycleResult): void;
}

export class CheckpointCycles {
  private readonly sent = new WeakSet<CycleResult>();
  /** What output 1 last carried per group (the version of its checkpoints in the store, or the list): a message carries only the groups whose checkpoints changed. */
  private carried = new Carried();
  private wholeWanted = true;

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
      state.writtenBetween = (state.writtenBetween ?? 0) + r.written.length; // counted in the next full cycle's status
      for (const g of r.latest.keys()) this.carried.set(g, carriedOf(r, g));
      // nothing wired to output 1: no message (the groups count as carried, as when one went nowhere)
      if (!this.output1Wired()) return;
      const msg = { ...(requester?.msg ?? {}), topic: TOPICS.checkpoints, payload: checkpointsPayload(r, this.o.where, { whole: false }) };
      if (requester) requester.send([msg, null]);
      else this.o.node.send([msg, null]);
      return;
    }
    state.error = null;
    log.ok('cycle');
    // the source answered a cycle that started after it stopped answering: green may come back
    const down = state.sourceUnanswered;
    if (down && r.startedAt >= down.since && r.groups.length > 0 && r.failedGroups.length < r.groups.length) state.sourceUnanswered = null;
    state.last = r;
    state.lastAt = Date.now();
    state.writtenNew = r.written.length + (state.writtenBetween ?? 0);
    state.writtenBetween = 0;
    state.groups = r.groups.length;
    if (r.discoveryError) log.warn('discovery', t('mm2-checkpoint.warn.discovery', { error: r.discoveryError }));
    else log.ok('discovery');
    if (r.failedGroups.length > 0) {
      log.warn('failed-groups', t('mm2-checkpoint.warn.group-offsets', { groups: r.failedGroups.map((f) => `${f.group} (${f.error})`).join(', ') }));
    } else log.ok('failed-groups');
    this.o.render();
    this.sent.add(r);
    this.o.sharing?.published(r);
    requester?.prepare?.(r);
    const [first, second] = this.outputs(r, requester?.msg);
    // two sends, one per output: within one send Node-RED deep-copies every message after the
    // first destination, so the coverage (an entry per group partition, 100,000 at 10,000 groups)
    // would be copied every cycle only because output 1 went out before it
    const send = requester ? requester.send : (m: Array<NodeMessage | null>) => this.o.node.send(m);
    if (first !== null) send([first, null]);
    send([null, second]);
  }

  /**
   * Whether a node is wired to output 1 (Node-RED's `node.wires`, read now). A node without
   * `wires` (not Node-RED's) counts as wired.
   */
  private output1Wired(): boolean {
    const wires = this.o.node.wires;
    if (!Array.isArray(wires)) return true;
    const first: unknown = wires[0];
    return Array.isArray(first) && first.length > 0;
  }

  private outputs(r: CycleResult, msg?: NodeMessage): [NodeMessage | null, NodeMessage] {
    const base = msg ? { ...msg } : {};
    // Every completed cycle, also when it wrote nothing (the receiver then knows cycles run): the
    // whole state first and to a message that asked for the cycle, then what changed since the last message
    const whole = msg !== undefined || this.wholeWanted;
    // the groups whose checkpoints the message carries (undefined: all of r.latest)
    let carry: string[] | undefined;
    if (whole) {
      const groups = Array.from(r.latest.keys());
      this.carried = new Carried(groups);
      for (const g of groups) this.carried.set(g, carriedOf(r, g));
      this.wholeWanted = false;
    } else {
      carry = [];
      // the names as a list when the emitter's (no iterator result per group, 10,000 every second)
      const names: readonly string[] = r.latest instanceof LatestCheckpoints ? r.latest.groupList : [...r.latest.keys()];
      for (let i = 0; i < names.length; i++) {
        const g = names[i];
        const now = carriedOf(r, g);
        if (now === undefined || this.carried.get(g) === now) continue;
        if (!r.latest.has(g)) continue;
        carry.push(g);
        this.carried.set(g, now);
      }
    }
    const coverage = coveragePayload(r);
    this.o.sharing?.decorate(coverage, r);
    return [
      // nothing wired to output 1: no message made (what it would carry counts as carried, as when one went nowhere)
      this.output1Wired() ? { ...base, topic: TOPICS.checkpoints, payload: checkpointsPayload(r, this.o.where, { groups: carry, whole }) } : null,
      { ...base, topic: TOPICS.coverage, payload: coverage },
    ];
  }
}

/** What says whether a group's checkpoints changed since a message carried them: their version in the store, or the list itself. */
function carriedOf(r: CycleResult, group: string): number | readonly Checkpoint[] | undefined {
  return r.latest.versionOf !== undefined ? r.latest.versionOf(group) : r.latest.get(group);
}

type CarriedValue = number | readonly Checkpoint[] | undefined;

/**
 * What output 1 last carried per group. The groups of the last whole message, when sorted (a cycle's
 * are), as that sorted array and one version a group in a Float64Array (issue 24 step g: not a Map of
 * 10,000 entries; NaN: nothing carried); other groups and values that are no version (a list) in a Map.
 */
export class Carried {
  private readonly names: readonly string[];
  private readonly versions: Float64Array;
  private readonly other = new Map<string, CarriedValue>();

  constructor(groups: readonly string[] = []) {
    let sorted = true;
    for (let i = 1; i < groups.length && sorted; i++) sorted = groups[i - 1] < groups[i];
    this.names = sorted ? groups : [];
    this.versions = new Float64Array(this.names.length).fill(NaN);
  }

  private indexOf(group: string): number {
    return indexInSorted(this.names, group);
  }

  get(group: string): CarriedValue {
    const i = this.indexOf(group);
    if (i >= 0 && !Number.isNaN(this.versions[i])) return this.versions[i];
    return this.other.get(group);
  }

  set(group: string, value: CarriedValue): void {
    const i = this.indexOf(group);
    if (i >= 0) {
      const version = typeof value === 'number' && !Number.isNaN(value);
      this.versions[i] = version ? (value as number) : NaN;
      if (version) {
        this.other.delete(group);
        return;
      }
    }
    this.other.set(group, value);
  }
}
