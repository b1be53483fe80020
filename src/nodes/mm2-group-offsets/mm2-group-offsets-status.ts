/** The status an `mm2-group-offsets` node shows after its sync runs (full and partial). */
import type { Translate } from '../shared/i18n';
import { truncate, STATUS_MAX, type StatusView } from '../shared/flow-node';
import { ago, type AgoScale } from '../shared/ago';
import type { GroupOffsetsCycle, GroupSkipCode } from '../../engines/group-offset-syncer';
import { NameTable } from '../../core/name-table';

const AGE: AgoScale = { seconds: 'mm2-group-offsets.status.age-s', minutes: 'mm2-group-offsets.status.age-min', secondsBelow: 120, rounding: 'round' };
const WINDOW: AgoScale = { seconds: 'mm2-group-offsets.status.window-s', minutes: 'mm2-group-offsets.status.window-min', secondsBelow: 120, rounding: 'round' };

/** A group's outcome code (GroupOffsetsRuns keeps its index: one small integer a group, not an object). */
const CODES: ReadonlyArray<'written' | GroupSkipCode> = ['written', 'group-active', 'up-to-date', 'nothing-to-write', 'error', 'fenced'];
const WRITTEN = 0;
const ACTIVE = 1;
const UP_TO_DATE = 2;
const ERROR = 4;
/** A code not in CODES (counted as none of the above, as before). */
const OTHER = CODES.length;

/**
 * What the runs of a node did, by either path: the full reconcile and the partial runs (the
 * groups whose checkpoints changed). Each group's latest outcome (a full run replaces them all,
 * a partial run those of its groups), when each group was last written, when a run last completed.
 */
export class GroupOffsetsRuns {
  /**
   * group -> its outcome code (index in CODES) * 2 + the parity of the last full run that listed
   * it: one Map of small integers (issue 24 step g: no second Map of run numbers, no object a
   * group). Every group held after a full run was listed by it, so one bit tells "listed by this
   * run" apart; a group a partial run adds gets the parity of the last full run (the next one
   * drops it unless it lists it). A NameTable (core/name-table): a byte a group beside its name, not a Map's entry.
   */
  private readonly outcomes = new NameTable(Uint8Array);
  /** The reasons of the groups whose outcome is 'error' (few). */
  private readonly errors = new Map<string, string>();
  /** The parity of the last full run (0 before the first). */
  private parity = 0;
  /** group -> when it was last written (epoch ms), no boxed number a group. */
  private readonly writes = new NameTable(Float64Array);
  /** When a run (either path) last completed; null before the first. */
  lastRunAt: number | null = null;
  /** Input messages refused because their checkpoints come from another replication flow (core/checkpoints-origin). */
  foreign = 0;

  /**
   * A run completed at `at` (epoch ms). Allocates nothing for a group already held (10,000 groups
   * every second): no clear() and refill (a Map regrown to 10,000 entries every run, its large
   * tables straight in old space) and no object per group; what a full run did not list is deleted
   * after it (issue 24, Node-RED RSS).
   */
  record(r: GroupOffsetsCycle, at: number): void {
    const full = !r.partial;
    if (full) this.parity ^= 1;
    const parity = this.parity;
    /** distinct groups this full run listed */
    let listed = 0;
    const set = (g: string, code: number): void => {
      const had = this.outcomes.get(g);
      // a partial run keeps the group's parity (a new group: the last full run's)
      const p = full ? parity : had === undefined ? parity : had & 1;
      if (full && (had === undefined || (had & 1) !== parity)) listed++;
      this.outcomes.set(g, code * 2 + p);
    };
    for (const w of r.written) {
      set(w.group, WRITTEN);
      this.errors.delete(w.group);
      this.writes.set(w.group, at);
    }
    // by index: a full run's list of 10,000 groups, often the last clean run's given again (no iterator result a group)
    for (let i = 0; i < r.skipped.length; i++) {
      const s = r.skipped[i];
      const k = CODES.indexOf(s.code);
      set(s.group, k < 0 ? OTHER : k);
      if (k === ERROR) this.errors.set(s.group, s.reason);
      else this.errors.delete(s.group);
    }
    if (full && this.outcomes.size > listed)
      this.outcomes.forEach((v, g) => {
        if ((v & 1) === parity) return;
        this.outcomes.delete(g);
        this.errors.delete(g);
      });
    this.lastRunAt = at;
  }

  /** The groups written within `windowMs` before `now` (each once), when the last was, and the groups' latest outcomes. */
  view(now: number, windowMs: number): RunsView {
    // forEach, not for..of over entries: no [key, value] pair made per group every status update
    let synced = 0;
    let lastWriteAt: number | null = null;
    this.writes.forEach((at, g) => {
      if (now - at > windowMs) {
        this.writes.delete(g);
        return;
      }
      synced++;
      if (lastWriteAt === null || at > lastWriteAt) lastWriteAt = at;
    });
    let active = 0;
    let upToDate = 0;
    let written = 0;
    const errors: string[] = [];
    this.outcomes.forEach((v, g) => {
      const code = v >> 1;
      if (code === WRITTEN) written++;
      else if (code === ACTIVE) active++;
      else if (code === UP_TO_DATE) upToDate++;
      else if (code === ERROR) errors.push(this.errors.get(g) ?? '');
    });
    return { synced, lastWriteAt, considered: this.outcomes.size, written, active, upToDate, failed: errors.length, firstError: errors[0] ?? '' };
  }
}

export interface RunsView {
  /** Groups written (by either path) within the window. */
  synced: number;
  /** When the last of them was written (epoch ms); null when none. */
  lastWriteAt: number | null;
  /** Groups with an outcome (the last full run's, updated by the partial runs since). */
  considered: number;
  /** ... of which written by the last run that considered them, active on the target, up to date, failed. */
  written: number;
  active: number;
  upToDate: number;
  failed: number;
  firstError: string;
}

/**
 * The status after the runs so far, at `now`. It counts the groups written by either path in the
 * last interval (`intervalMs`) and says when the last was written (when none was: when the last
 * run checked). Green only while the node does its job: some selected group has its target
 * offset, none failed, and runs keep completing.
 */
export function runsStatus(t: Translate, runs: GroupOffsetsRuns, intervalMs: number, malformed: number, now = Date.now()): StatusView | null {
  const at = runs.lastRunAt;
  if (at === null) return null;
  const checked = ago(t, now - at, AGE);
  if (now - at > 2 * intervalMs + 30000) {
    // syncs stopped completing (a request that hangs): not green
    return { activity: { fill: 'yellow', shape: 'ring', text: t('mm2-group-offsets.status.stale', { age: checked }) } };
  }
  const v = runs.view(now, intervalMs);
  if (v.considered === 0 && v.synced === 0) {
    const waiting = t('mm2-group-offsets.status.waiting-checkpoints', { age: checked });
    const text = runs.foreign > 0 ? `${t('mm2-group-offsets.status.foreign', { count: runs.foreign })}, ${waiting}` : waiting;
    return { activity: { fill: 'yellow', shape: 'ring', text: truncate(text) } };
  }
  if (v.considered > 0 && v.failed === v.considered) return { fail: t('mm2-group-offsets.status.unreachable', { error: v.firstError }) };
  // (a group with members on the target is its consumers' business, never ours)
  const withOffset = v.written + v.active + v.upToDate;
  const parts = [t('mm2-group-offsets.status.synced', { count: v.synced, window: ago(t, intervalMs, WINDOW) })];
  if (v.synced === 0 && v.upToDate > 0) parts.push(t('mm2-group-offsets.status.up-to-date', { count: v.upToDate }));
  if (v.active > 0) parts.push(t('mm2-group-offsets.status.active', { count: v.active }));
  if (v.failed > 0) parts.push(t('mm2-group-offsets.status.failed', { count: v.failed }));
  if (malformed > 0) parts.push(t('mm2-group-offsets.status.malformed', { count: malformed }));
  if (withOffset === 0) parts.unshift(t('mm2-group-offsets.status.none-written'));
  // refused messages of another flow first: a wrong wiring, never cut off by a long list
  if (runs.foreign > 0) parts.unshift(t('mm2-group-offsets.status.foreign', { count: runs.foreign }));
  const when = v.lastWriteAt !== null
    ? t('mm2-group-offsets.status.last-write', { age: ago(t, now - v.lastWriteAt, AGE) })
    : t('mm2-group-offsets.status.checked', { age: checked });
  return {
    activity: {
      fill: v.failed > 0 || malformed > 0 || runs.foreign > 0 || withOffset === 0 ? 'yellow' : 'green',
      shape: v.failed > 0 || withOffset === 0 ? 'ring' : 'dot',
      // a long list is shortened, never the time that says the node is working
      text: truncate(`${truncate(parts.join(', '), STATUS_MAX - when.length - 3)} / ${when}`),
    },
  };
}
