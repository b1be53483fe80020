/**
 * A planned switchover as a request through the flow (core/switchover judges it). One message
 * with `msg.action = 'switchover'` (and optionally `msg.groups`, the groups to switch over)
 * passes, in order, through:
 * - mm2-heartbeat: adds `msg.switchover.heartbeat` (the replicated heartbeats' age) and sends the
 *   message on its output 2;
 * - mm2-checkpoint: lists the source's group states, runs a full cycle now, adds
 *   `msg.switchover.plan` (core planSwitchover) and sends the message, with the whole checkpoint
 *   state, on output 1 (and the cycle's coverage on output 2);
 * - mm2-group-offsets: takes the checkpoints of the message, syncs every group now, reads the
 *   groups' offsets on the target and answers with the report (core verifySwitchover) as
 *   `msg.payload`, `msg.topic = 'mm2/switchover'`.
 */
import type { NodeMessage } from './red';
import type { SwitchoverHeartbeat } from '../../core/switchover';

export const SWITCHOVER_ACTION = 'switchover';

/** Whether the message asks for a switchover step. */
export function isSwitchoverRequest(msg: NodeMessage): boolean {
  return (msg as { action?: unknown }).action === SWITCHOVER_ACTION;
}

/** What the request carries so far (`msg.switchover`), created when absent. */
export function switchoverOf(msg: NodeMessage): Record<string, unknown> {
  const m = msg as { switchover?: unknown };
  if (!m.switchover || typeof m.switchover !== 'object' || Array.isArray(m.switchover)) m.switchover = {};
  return m.switchover as Record<string, unknown>;
}

/** `msg.groups`: absent or empty (every selected group), or an array of group ids; anything else: undefined (refused). */
export function switchoverGroups(msg: NodeMessage): string[] | null | undefined {
  const g = (msg as { groups?: unknown }).groups;
  if (g === undefined || g === null) return null;
  if (!Array.isArray(g) || !g.every((x) => typeof x === 'string' && x.length > 0)) return undefined;
  return g as string[];
}

/** The heartbeat state mm2-heartbeat added (null: none, or not one). */
export function switchoverHeartbeat(msg: NodeMessage): SwitchoverHeartbeat | null {
  const h = switchoverOf(msg).heartbeat as Partial<SwitchoverHeartbeat> | undefined;
  if (!h || typeof h !== 'object' || typeof h.watched !== 'boolean' || typeof h.staleAfterMs !== 'number') return null;
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const out: SwitchoverHeartbeat = { watched: h.watched, lastSeen: num(h.lastSeen), ageMs: num(h.ageMs), staleAfterMs: h.staleAfterMs };
  if (typeof h.topic === 'string') out.topic = h.topic;
  return out;
}
