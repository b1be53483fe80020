/**
 * One `mm2-mirror` node of this Node-RED copies a replication flow at a time. The flow's progress
 * is one consumer group on the source (core/mirror-progress): two nodes of the same flow (a copy
 * of a flow imported beside the original, the same example deployed twice) would otherwise join
 * it together and, with different topic selections, copy records the other one already copied,
 * or leave the partitions the other one does not select uncopied.
 *
 * The first node to claim the flow copies; the others wait, told who copies, and the first in line
 * takes over when it closes. Process-wide: the nodes of every flow tab share this module.
 */

/** Who holds or waits for a flow: enough for a status and a log line to name it. */
export interface MirrorClaimant {
  id: string;
  name: string;
  /** The flow tab's label (or id), '' when unknown. */
  flow: string;
}

interface Entry {
  who: MirrorClaimant;
  start: () => void;
  wait: (holder: MirrorClaimant) => void;
}

const claims = new Map<string, Entry[]>();

/**
 * The key of a flow: its group on its source cluster. The cluster is known by its bootstrap
 * servers (sorted): two spellings of the same cluster are not recognised (then both join the group
 * and Kafka shares the partitions between them, as between two Node-REDs).
 */
export function mirrorClaimKey(groupId: string, sourceBootstrap: readonly string[]): string {
  return `${[...sourceBootstrap].map((b) => b.trim().toLowerCase()).sort().join(',')}/${groupId}`;
}

export interface MirrorClaim {
  /** Whether this node copies now. */
  readonly holding: boolean;
  /** Leaves the flow (after the node stopped copying): the first waiting node starts. */
  release(): void;
}

/**
 * Claims the flow `key` for `who`: `start` runs now when nobody holds it, else `wait(holder)` runs
 * now, again whenever the holder changes, and `start` once this node is first in line.
 */
export function claimMirror(key: string, who: MirrorClaimant, start: () => void, wait: (holder: MirrorClaimant) => void): MirrorClaim {
  const entry: Entry = { who, start, wait };
  const list = claims.get(key) ?? [];
  claims.set(key, list);
  list.push(entry);
  let released = false;
  if (list.length === 1) start();
  else wait(list[0].who);
  return {
    get holding() {
      return !released && claims.get(key)?.[0] === entry;
    },
    release() {
      if (released) return;
      released = true;
      const now = claims.get(key);
      if (!now) return;
      const i = now.indexOf(entry);
      if (i < 0) return;
      now.splice(i, 1);
      if (now.length === 0) {
        claims.delete(key);
        return;
      }
      if (i !== 0) return;
      const next = now[0];
      for (const e of now.slice(1)) e.wait(next.who);
      next.start();
    },
  };
}
