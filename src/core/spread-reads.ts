/**
 * When a full run reads again the target's offsets of a group it finds up to date as remembered
 * (issue 24, the reconcile lane): spread over the period instead of all at once.
 *
 * Before, a group was read again once its last read was older than the period; a start (or any
 * run that read every group) read every group at the same moment, so they all fell due in the
 * same full run one period later, and that run re-read every group (an OffsetFetch each) while an
 * event for one of them waited behind it. Now each group has its own phase in the period (from a
 * hash of its name: stable across runs and restarts, spread evenly over the groups), and is due
 * once the first of its phase's moments (phase + k x period) after its last read has passed:
 *
 * - **the bound holds**: that moment is at most one period after the last read, so with a full run
 *   every interval no group's last read gets older than the period plus one interval (as before);
 * - **spread over SPREAD_SLOTS phases**: the groups fall into SPREAD_SLOTS phases of the period
 *   (evenly, by the hash), so a full run finds due about a SPREAD_SLOTS-th of the groups, the ones
 *   whose last read is oldest, or none (a group read at a phase moment is next due one whole period
 *   later). Not one phase per group: a full run with any re-read due judges every group again
 *   (core/quiet-full-run reuses a clean run's answer only while none is due), so a phase every
 *   interval would make every run a whole pass (4.4 MiB allocated a second at 10,000 x 10 with
 *   every interval 1 s, against 0.4 with the slots);
 * - **new groups first**: a group never read (or forgotten) is due at once;
 * - a period of 0 or less: every full run reads every group again.
 *
 * Pure: the caller passes the last read and the clock.
 */

/** Phases a period is cut into: at most this many full runs a period re-read groups (each about this share of them). */
export const SPREAD_SLOTS = 4;

/** The group's phase in a period of `periodMs` (one of SPREAD_SLOTS: 0, periodMs / SPREAD_SLOTS, ...): FNV-1a over its name. */
export function readPhase(group: string, periodMs: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < group.length; i++) {
    h ^= group.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (Math.floor(((h >>> 0) / 0x100000000) * SPREAD_SLOTS) * periodMs) / SPREAD_SLOTS;
}

/**
 * When a full run reads again a group up to date as remembered, last read at `readAt`
 * (undefined: never, due at once): the first moment `phase + k x periodMs` strictly after
 * `readAt` (so never later than `readAt + periodMs`).
 */
export function rereadDueAt(group: string, readAt: number | undefined, periodMs: number): number {
  if (readAt === undefined || !Number.isFinite(readAt)) return -Infinity;
  if (!(periodMs > 0)) return readAt;
  const phase = readPhase(group, periodMs);
  return phase + (Math.floor((readAt - phase) / periodMs) + 1) * periodMs;
}
