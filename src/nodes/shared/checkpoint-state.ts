/**
 * The whole checkpoint state between `mm2-checkpoint` and its receivers (CheckpointsMessage
 * `full: true`): sent on the first full cycle after a start, on request, and at least every
 * WHOLE_STATE_EVERY_MS; in between, output 1 carries only the groups that changed. A receiver
 * that (re)starts (e.g. a redeployed `mm2-group-offsets`) asks for it on this Node-RED runtime
 * event (RED.events); every running `mm2-checkpoint` node answers with one whole-state message.
 */
export const CHECKPOINT_STATE_EVENT = 'mm2-checkpoint:state-request';

/** The longest time between two whole-state messages of one `mm2-checkpoint` node (ms). */
export const WHOLE_STATE_EVERY_MS = 60000;

export interface CheckpointStateRequest {
  /** Who asks (for the log). */
  requester: string;
}
