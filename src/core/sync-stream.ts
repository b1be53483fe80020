/**
 * The offset-sync stream between the reader of an offset-syncs topic and the checkpoint emitters
 * it feeds, made repairable. A message between them is an event: a receiver restarted on its
 * own ("modified nodes"), or a message lost during a deploy, would otherwise never see the
 * sync history (or the one `loaded`) again, and would never translate an offset.
 *
 * Every message of the sender carries `stream = {load, seq}`: `load` names one complete load of
 * the topic (a start, a reset, a replay), `seq` counts the messages of that load from 1. A load
 * always starts from the beginning of the topic, so a receiver that saw a load from `seq` 1
 * without a gap holds the whole history; any other receiver asks the sender for a replay (a new
 * load from the beginning) and ignores what it cannot use until that replay starts.
 *
 * Pure logic, no framework: {@link SyncStreamSender} numbers the messages, {@link SyncStreamReceiver}
 * decides what to do with each one.
 */

/** What a message of the stream carries (`payload.stream`). */
export interface SyncStreamPosition {
  /** Names one load of the topic from its beginning: `<sender>/<n>`, unique per sender and load. */
  load: string;
  /** 1 for the first message of the load, then +1 per message. */
  seq: number;
}

/** Numbers the messages of the sending node. */
export class SyncStreamSender {
  private loadId: string;
  private count = 0;
  private loads = 0;

  /** `id` is unique per sender (its node id plus a start time, say). */
  constructor(private readonly id: string) {
    this.loadId = `${id}/0`;
  }

  /** Messages sent in the current load (0: nothing yet, a replay is not needed). */
  get sent(): number {
    return this.count;
  }

  /** The position of the next message. */
  next(): SyncStreamPosition {
    this.count += 1;
    return { load: this.loadId, seq: this.count };
  }

  /** A new load from the beginning starts (a reset or a replay): the next message is its seq 1. */
  newLoad(): void {
    this.loads += 1;
    this.loadId = `${this.id}/${this.loads}`;
    this.count = 0;
  }
}

/**
 * What a receiver does with one message:
 * - `apply`: the next message of the load it follows;
 * - `reset-then-apply`: the first message of a new load (drop the history held, then apply);
 * - `ignore`: it cannot use the message (it missed the start of this load or lost one of its
 *   messages); `requestReplay` says whether to ask the sender for a replay now (once per load).
 */
export type SyncStreamDecision =
  | { action: 'apply' }
  | { action: 'reset-then-apply' }
  | { action: 'ignore'; requestReplay: boolean; reason: 'joined-late' | 'gap' };

/** The sender part of a load name (`<sender>/<n>`). */
function senderOf(load: string): string {
  const i = load.lastIndexOf('/');
  return i > 0 ? load.slice(0, i) : load;
}

interface FollowedStream {
  load: string;
  seq: number;
  inSync: boolean;
  /** The load a replay was last requested for: asked once, not for every message of it. */
  requestedFor: string | null;
}

/**
 * Follows the streams of the senders wired to a receiver, one state per sender (two senders
 * must not take each other's loads for gaps, or each would keep asking for replays).
 */
export class SyncStreamReceiver {
  private readonly streams = new Map<string, FollowedStream>();

  /** Whether the receiver holds a complete load (from seq 1, no gap) of some sender. */
  get complete(): boolean {
    return [...this.streams.values()].some((s) => s.inSync);
  }

  /**
   * Decides on one message. `pos` undefined: a message without stream position (hand-made or an
   * older sender): applied as it is, the stream is not checked.
   */
  accept(pos: SyncStreamPosition | undefined): SyncStreamDecision {
    if (pos === undefined) return { action: 'apply' };
    const sender = senderOf(pos.load);
    let st = this.streams.get(sender);
    if (st === undefined) {
      if (this.streams.size >= MAX_SENDERS) this.streams.delete(this.streams.keys().next().value as string);
      st = { load: '', seq: 0, inSync: false, requestedFor: null };
      this.streams.set(sender, st);
    }
    if (pos.load !== st.load) {
      st.load = pos.load;
      st.seq = pos.seq;
      if (pos.seq === 1) {
        st.inSync = true;
        return { action: 'reset-then-apply' };
      }
      return lost(st, 'joined-late');
    }
    if (!st.inSync) return lost(st, 'joined-late');
    if (pos.seq === st.seq + 1) {
      st.seq = pos.seq;
      return { action: 'apply' };
    }
    if (pos.seq <= st.seq) return { action: 'ignore', requestReplay: false, reason: 'gap' }; // a duplicate
    st.seq = pos.seq;
    return lost(st, 'gap');
  }
}

/** Senders followed at most (old ones are forgotten first). */
const MAX_SENDERS = 16;

function lost(st: FollowedStream, reason: 'joined-late' | 'gap'): SyncStreamDecision {
  st.inSync = false;
  const requestReplay = st.requestedFor !== st.load;
  st.requestedFor = st.load;
  return { action: 'ignore', requestReplay, reason };
}

/** Reads `payload.stream` of a message; undefined when absent or not a valid position. */
export function readSyncStreamPosition(v: unknown): SyncStreamPosition | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const p = v as { load?: unknown; seq?: unknown };
  if (typeof p.load !== 'string' || p.load === '' || !Number.isSafeInteger(p.seq) || (p.seq as number) < 1) return undefined;
  return { load: p.load, seq: p.seq as number };
}

/**
 * What a receiver asks for when it wants a replay: the offset-syncs topic and the alias of the
 * cluster it is read from (what the sender reads). How the request travels is the host's
 * business (the node layer names the event it travels on).
 */
export interface SyncReplayRequest {
  topic: string;
  cluster: string;
  /** Who asks (for the log). */
  requester: string;
}
