/**
 * The Node-RED runtime event (RED.events) on which an `mm2-checkpoint` node asks the
 * `mm2-offset-syncs` node of its topic for a replay of the offset-syncs stream
 * (core/sync-stream holds the stream positions and the request's shape).
 */
export type { SyncReplayRequest } from '../../core/sync-stream';

export const SYNC_REPLAY_EVENT = 'mm2-offset-syncs:replay';
