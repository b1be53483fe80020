/** The status an `mm2-checkpoint` node shows: its emitter's phase, then its last cycle. */
import { counted, type Translate } from '../shared/i18n';
import { truncate, STATUS_MAX, REFUSAL_STATUS_MAX, type StatusView } from '../shared/flow-node';
import { unreachableExplanation } from '../../kafka/client';
import { ago, type AgoScale } from '../shared/ago';
import type { CycleResult, EmitterPhase, SourceOffsetsMode } from '../../engines/checkpoint-emitter';
import type { ReadinessSummary } from '../../core/readiness';

const AGE: AgoScale = {
  seconds: 'mm2-checkpoint.ago.seconds',
  minutes: 'mm2-checkpoint.ago.minutes',
  hours: 'mm2-checkpoint.ago.hours',
  secondsBelow: 60,
  rounding: 'floor',
};

/** What the node knows of its emitter and cycles. */
export interface CheckpointNodeState {
  phase: EmitterPhase;
  last: CycleResult | null;
  /** When `last` completed (epoch ms). */
  lastAt: number;
  /** The last cycle failed with this. */
  error: string | null;
  /** Groups selected at the last discovery. */
  groups: number | null;
  /** How the source offsets are read (absent: not known yet). */
  sourceMode?: SourceOffsetsMode;
  /**
   * The source stopped answering (the followed `__consumer_offsets`' first failed fetch) at
   * `since` (epoch ms); cleared when a cycle that started after it read the source, or the
   * stream answers again.
   */
  sourceUnanswered?: { since: number; reason: string } | null;
  /** Checkpoints written since the last full cycle by the other paths (event-driven cycles, a failed write's acknowledged part). */
  writtenBetween?: number;
  /** The status's "N new": what the last full cycle wrote and what the other paths wrote before it since the full cycle before. */
  writtenNew?: number;
}

/**
 * The status while the checkpoints topic cannot be prepared: a target that does not answer says
 * so and what to fix (the log names its bootstrap servers); any other failure as it is.
 */
function preparationFailed(t: Translate, error: string): StatusView {
  const unreachable = unreachableExplanation(error);
  if (unreachable === null) return { fail: t('mm2-checkpoint.status.error', { error }) };
  return { activity: { fill: 'red', shape: 'ring', text: truncate(t('mm2-checkpoint.status.target-unreachable', { error: unreachable }), REFUSAL_STATUS_MAX) } };
}

/**
 * Green only while the node does its job: syncs loaded, cycles completing (not older than
 * `staleMs`), and some selected group checkpointed.
 */
export function checkpointStatus(t: Translate, state: CheckpointNodeState, syncsLoaded: boolean, staleMs: number, now = Date.now(), syncsError: string | null = null): StatusView {
  const p = state.phase;
  // the checkpoints topic could not be prepared, and the attempts after it until one works: red with the cause
  // the checkpoints could not be read (a target that answers): red, saying the node waits for them
  if (p.kind === 'retrying' && p.restore && unreachableExplanation(p.error) === null) return { fail: t('mm2-checkpoint.status.restore-retrying', { error: p.error }) };
  if (p.kind === 'retrying') return preparationFailed(t, p.error);
  if (p.kind === 'preparing' && p.failed !== undefined) return preparationFailed(t, p.failed);
  if (p.kind === 'preparing' || p.kind === 'restoring') {
    const text = p.kind === 'restoring' && p.percent > 0 && p.percent < 100
      ? t('mm2-checkpoint.status.loading-percent', { percent: p.percent })
      : t('mm2-checkpoint.status.loading');
    return { activity: { fill: 'yellow', shape: 'ring', text } };
  }
  if (state.error) return { fail: t('mm2-checkpoint.status.error', { error: state.error }) };
  if (state.sourceUnanswered) {
    // not after the client's retries: at the first failed request
    return { activity: { fill: 'yellow', shape: 'ring', text: truncate(t('mm2-checkpoint.status.source-unanswered', { ago: ago(t, now - state.sourceUnanswered.since, AGE) })) } };
  }
  if (!syncsLoaded) {
    // the replication's reader of the offset syncs cannot read them: the status says why (a missing ACL names itself)
    const text = syncsError ? truncate(t('mm2-checkpoint.status.syncs-unreadable', { error: syncsError })) : t('mm2-checkpoint.status.waiting-syncs');
    return { activity: { fill: 'yellow', shape: 'ring', text } };
  }
  const last = state.last;
  if (!last) {
    // nothing delivered yet: not green
    return { activity: { fill: 'grey', shape: 'ring', text: t('mm2-checkpoint.status.ready', { groups: counted(t, 'groups', state.groups ?? 0) }) } };
  }
  const when = ago(t, now - state.lastAt, AGE);
  // new checkpoints by every path: the last full cycle's and the event-driven ones before it
  const written = state.writtenNew ?? last.written.length;
  if (now - state.lastAt > staleMs) {
    // cycles stopped completing (a request that hangs): not green
    return { activity: { fill: 'yellow', shape: 'ring', text: t('mm2-checkpoint.status.stale', { ago: when }) } };
  }
  const failed = last.failedGroups.length;
  // groups of the selection that have a checkpoint (restored or written)
  const checkpointed = last.latest.size;
  if (checkpointed === 0) {
    return { activity: { fill: 'yellow', shape: 'ring', text: truncate(withOtherTypes(t, last, t('mm2-checkpoint.status.none-checkpointed', { groups: counted(t, 'groups', last.groups.length), ago: when }))) } };
  }
  const rd = last.readiness;
  // a group at risk, or one with nothing to resume from on the target (not covered): not green
  let notReady = false;
  let text: string;
  if (failed > 0) text = t('mm2-checkpoint.status.cycle-failed-groups', { groups: counted(t, 'groups', last.groups.length), checkpointed, checkpoints: written, failed, ago: when });
  else if (rd !== undefined && rd.groups.length > 0) {
    text = readinessText(t, rd, written, when, now);
    notReady = rd.atRisk > 0 || rd.notCovered > 0;
  } else text = t('mm2-checkpoint.status.cycle', { groups: counted(t, 'groups', last.groups.length), checkpointed, checkpoints: written, ago: when });
  text = withOtherTypes(t, last, text);
  // polling although following was wanted: still delivering, but say so (the log says why and which ACL);
  // a long cycle text is shortened, never the word that says polling
  if (state.sourceMode?.kind === 'poll' && state.sourceMode.reason) {
    const room = STATUS_MAX - t('mm2-checkpoint.status.polling', { text: '' }).length;
    text = t('mm2-checkpoint.status.polling', { text: truncate(text, room) });
  }
  return { activity: { fill: failed > 0 || notReady ? 'yellow' : 'green', shape: 'dot', text: truncate(text) } };
}

/**
 * The cycle's text, then how many streams or share groups the group filter accepts that MM2
 * never checkpoints (named with why in mm2/coverage's notReplicatedGroups and the log): the
 * count is never the part shortened away.
 */
function withOtherTypes(t: Translate, last: CycleResult, text: string): string {
  const count = last.notReplicatedGroups?.length ?? 0;
  if (count === 0) return text;
  const room = STATUS_MAX - t('mm2-checkpoint.status.other-types', { text: '', count }).length;
  return t('mm2-checkpoint.status.other-types', { text: truncate(text, room), count });
}

/** `1,095 records` (en-US), `1,095 条记录` (zh-CN): a record count, plural as the language has it, digits grouped. */
export function recordsText(t: Translate, n: number): string {
  return t('mm2-common.count.records', { count: n, n: n.toLocaleString('en-US') });
}

/**
 * The readiness of a full cycle: "3 groups ready, 2 new / 5 s ago" when every group is ready,
 * else the counts and the worst group: "12 ready, 1 at risk: orders-analytics re-reads 1,095 records".
 */
export function readinessText(t: Translate, rd: ReadinessSummary, written: number, when: string, now = Date.now()): string {
  const w = rd.worst;
  if (w === null) return t('mm2-checkpoint.status.all-ready', { groups: counted(t, 'groups', rd.ready), checkpoints: written, ago: when });
  const others: string[] = [];
  if (rd.atRisk > 0) others.push(t('mm2-checkpoint.status.at-risk-count', { count: rd.atRisk }));
  if (rd.notCovered > 0) others.push(t('mm2-checkpoint.status.not-covered-count', { count: rd.notCovered }));
  let worst: string;
  if (w.verdict === 'at-risk' && w.why === 'age') {
    worst = t('mm2-checkpoint.status.worst-age', { group: w.group, ago: ago(t, now - (w.listedAt ?? now), AGE) });
  } else if (w.verdict === 'at-risk') {
    worst = t('mm2-checkpoint.status.worst-reread', { group: w.group, records: recordsText(t, w.reread ?? 0) });
  } else {
    const why = t(`mm2-checkpoint.why.${w.why ?? 'offsets-not-listed'}`);
    worst = t('mm2-checkpoint.status.worst-not-covered', { group: w.group, why });
  }
  return t('mm2-checkpoint.status.readiness', { ready: rd.ready, others: others.join(t('mm2-checkpoint.status.list-separator')), worst });
}
