/** The status an `mm2-heartbeat` node shows: emission first (a failed or stalled send is red), then the watch. */
import type { NodeStatus } from '../shared/red';
import type { Translate } from '../shared/i18n';
import { failureStatusText } from '../shared/flow-node';
import { compactDuration, type HeartbeatSnapshot } from '../../core/heartbeat-monitor';
import type { WatchPhase } from '../../engines/heartbeat-watcher';

/** A duration in the node's units ("3 s", "2 min"). */
export function heartbeatDuration(t: Translate, ms: number): string {
  const d = compactDuration(ms);
  return t(`mm2-heartbeat.units.${d.unit}`, { n: d.n });
}

/** The clock time of `ms` on this host (HH:MM:SS): a status that says when, not how long ago, need not change every second. */
export function clockTime(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}

/**
 * How long after the last heartbeat (written, or arrived on the target) the next one is overdue:
 * the interval plus a margin (the interval, at least 3 s) for the send and the replication.
 */
export function heartbeatOverdueMs(intervalMs: number): number {
  return intervalMs + Math.max(3000, intervalMs);
}

/** What the node knows at `now`. */
export interface HeartbeatNodeView {
  /** emit.heartbeats.interval.seconds in ms: how often heartbeats are written (here, or by the writer the node watches). */
  intervalMs: number;
  emitError: string | null;
  /** How long the last send has been stalled (null: not stalled, or not emitting). */
  emitStalledMs: number | null;
  /** Present when emitting. */
  emit?: { emitted: number; lastEmitted: number | null };
  /** Present when watching. */
  watch?: { phase: WatchPhase; error: string | null; loadPercent: number; snapshot: HeartbeatSnapshot; malformed: number; topic: string };
}

/**
 * Green only on fresh evidence: the last heartbeat arrived (watching) or was written (emitting
 * only) within heartbeatOverdueMs; the text says at what time, so it does not change until the
 * next one. Overdue: yellow at once (a cluster that stopped answering turns it red later).
 */
export function heartbeatStatus(t: Translate, v: HeartbeatNodeView, now: number): NodeStatus {
  const dur = (ms: number): string => heartbeatDuration(t, ms);
  let st: NodeStatus;
  const w = v.watch;
  const overdueMs = heartbeatOverdueMs(v.intervalMs);
  const lastEmitted = v.emit?.lastEmitted ?? null;
  const emitOverdue: NodeStatus | null = lastEmitted !== null && now - lastEmitted > overdueMs
    ? { fill: 'yellow', shape: 'ring', text: t('mm2-heartbeat.status.emit-overdue', { age: dur(now - lastEmitted), time: clockTime(lastEmitted) }) }
    : null;
  if (v.emitError) {
    st = { fill: 'red', shape: 'ring', text: t('mm2-heartbeat.status.emit-failed', { error: v.emitError }) };
  } else if (v.emitStalledMs !== null) {
    st = { fill: 'red', shape: 'ring', text: t('mm2-heartbeat.status.emit-stalled', { age: dur(v.emitStalledMs) }) };
  } else if (w) {
    const snap = w.snapshot;
    const stale = snap.health === 'stale';
    if (w.phase === 'waiting-topic') {
      st = { fill: stale ? 'red' : 'yellow', shape: 'ring', text: t(stale ? 'mm2-heartbeat.status.stale-waiting-topic' : 'mm2-common.status.waiting-topic', { topic: w.topic }) };
    } else if (w.phase === 'starting') {
      st = w.error
        ? { fill: 'red', shape: 'ring', text: t('mm2-heartbeat.status.watch-failed', { error: w.error }) }
        : { fill: 'yellow', shape: 'ring', text: t('mm2-common.status.connecting') };
    } else if (w.phase === 'loading') {
      st = { fill: 'yellow', shape: 'ring', text: t('mm2-common.status.loading', { percent: w.loadPercent }) };
    } else if (stale) {
      st = snap.ageMs === null
        ? { fill: 'red', shape: 'dot', text: t('mm2-heartbeat.status.stale-never', { age: dur(snap.runningMs) }) }
        : { fill: 'red', shape: 'dot', text: t('mm2-heartbeat.status.stale', { age: dur(snap.ageMs) }) };
    } else if (snap.lastArrival !== null && snap.lastLatencyMs !== null) {
      const arrived = snap.lastArrival;
      if (now - arrived > overdueMs) st = { fill: 'yellow', shape: 'ring', text: t('mm2-heartbeat.status.overdue', { age: dur(now - arrived), time: clockTime(arrived) }) };
      else st = emitOverdue ?? { fill: 'green', shape: 'dot', text: t('mm2-heartbeat.status.latency', { latency: dur(snap.lastLatencyMs), time: clockTime(arrived) }) };
    } else {
      st = { fill: 'blue', shape: 'ring', text: t('mm2-heartbeat.status.waiting-heartbeats', { topic: w.topic }) };
    }
    if (w.malformed > 0) st = { ...st, text: t('mm2-heartbeat.status.with-malformed', { text: st.text, count: w.malformed }) };
  } else if (v.emit) {
    st = v.emit.lastEmitted === null
      ? { fill: 'yellow', shape: 'ring', text: t('mm2-common.status.connecting') }
      : emitOverdue ?? { fill: 'green', shape: 'dot', text: t('mm2-heartbeat.status.emitted', { count: v.emit.emitted, time: clockTime(v.emit.lastEmitted) }) };
  } else {
    st = { fill: 'grey', shape: 'ring', text: t('mm2-heartbeat.status.idle') };
  }
  return { ...st, text: failureStatusText(st.text ?? '') };
}
