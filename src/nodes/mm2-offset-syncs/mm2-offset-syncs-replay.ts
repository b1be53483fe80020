/**
 * An `mm2-offset-syncs` node's answer to replay requests: a receiver (mm2-checkpoint) that lost
 * the history asks for it again (nodes/shared/sync-replay's request, on RED.events); the node reads the
 * topic from the beginning once more (requests of the same moment share one replay). Nothing
 * sent yet in this load: the receiver gets it from its start anyway.
 */
import type { NodeAPI } from '../shared/red';
import type { FlowNodeContext } from '../shared/flow-node';
import type { SyncStreamSender } from '../../core/sync-stream';
import { SYNC_REPLAY_EVENT, type SyncReplayRequest } from '../shared/sync-replay';

export interface ReplayRequestsOptions {
  RED: NodeAPI;
  ctx: Pick<FlowNodeContext, 'after' | 'onClose' | 'closing'>;
  topic: string;
  cluster: string;
  stream: SyncStreamSender;
  /** Reads the topic again from the beginning (the follower's replay). */
  replay(): void;
}

export class ReplayRequests {
  private requester = '';
  private queued = false;

  constructor(private readonly o: ReplayRequestsOptions) {
    const { RED, ctx } = o;
    const listener = (...args: unknown[]): void => this.onRequest(args[0] as SyncReplayRequest | undefined);
    RED.events.on(SYNC_REPLAY_EVENT, listener);
    ctx.onClose(() => {
      RED.events.removeListener(SYNC_REPLAY_EVENT, listener);
    });
  }

  /** Who asked for the replay now starting ('' when it is no replay: the topic was recreated); asked once per load. */
  take(): string {
    const r = this.requester;
    this.requester = '';
    return r;
  }

  private onRequest(req: SyncReplayRequest | undefined): void {
    const { ctx, topic, cluster, stream } = this.o;
    if (!req || req.topic !== topic || req.cluster !== cluster || ctx.closing || stream.sent === 0) return;
    this.requester = this.requester ? this.requester : String(req.requester);
    if (this.queued) return;
    this.queued = true;
    ctx.after(0, () => {
      this.queued = false;
      if (!ctx.closing) this.o.replay();
    });
  }
}
