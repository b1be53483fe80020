/**
 * Whether checkpoints carried in a flow message (a CheckpointsMessage of mm2-checkpoint) belong
 * to the replication flow of the node that receives them. The message says where its checkpoints
 * come from (`sourceCluster`, `targetCluster`, `checkpointsTopic`); a group-offset writer that
 * took the checkpoints of another replication would write that flow's translated offsets on its
 * own target (wrong topics, wrong offsets). The rule is the one mm2-checkpoint applies to offset
 * syncs from another replication's offset-syncs topic: a field present and different refuses the
 * message; a field absent (a message made by hand in a function node) says nothing, and is taken.
 */

/** Where a replication flow's checkpoints come from. */
export interface CheckpointsOrigin {
  sourceCluster: string;
  targetCluster: string;
  checkpointsTopic: string;
}

/** The field of a message that names another replication, what it says and what ours is. */
export interface ForeignOrigin {
  field: keyof CheckpointsOrigin;
  got: string;
  expected: string;
}

const FIELDS: ReadonlyArray<keyof CheckpointsOrigin> = ['sourceCluster', 'targetCluster', 'checkpointsTopic'];
/** A value named in a warning is cut to this many characters (a hostile message may carry megabytes). */
const SHOWN_MAX = 120;

/** A message value as a warning shows it: a string as it is, anything else as JSON; cut to SHOWN_MAX. */
function shown(v: unknown): string {
  let s: string;
  if (typeof v === 'string') s = v;
  else {
    try {
      s = JSON.stringify(v) ?? String(v);
    } catch {
      s = String(v);
    }
  }
  return s.length > SHOWN_MAX ? `${s.slice(0, SHOWN_MAX)}...` : s;
}

/**
 * The first origin field of `payload` that names another replication than `ours` (present, and
 * not exactly our value: a value that is not a string is another's too); null when none does.
 */
export function foreignCheckpointsOrigin(payload: unknown, ours: CheckpointsOrigin): ForeignOrigin | null {
  if (payload === null || typeof payload !== 'object') return null;
  const p = payload as Record<string, unknown>;
  for (const field of FIELDS) {
    if (!Object.prototype.hasOwnProperty.call(p, field) || p[field] === undefined) continue;
    const v = p[field];
    if (v !== ours[field]) return { field, got: shown(v), expected: ours[field] };
  }
  return null;
}
