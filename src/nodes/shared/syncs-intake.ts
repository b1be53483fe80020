/**
 * How an `mm2-checkpoint` node (and an `mm2-failback` node) takes its offset-sync history. It arrives as messages
 * (OffsetSyncsMessage from mm2-offset-syncs): one missed (this node redeployed on its own, a
 * message lost) would leave it without history for good. The stream positions tell; the node
 * then asks for the whole history again (the replay request of nodes/shared/sync-replay, on RED.events).
 */
import type { NodeAPI } from './red';
import type { Translate } from './i18n';
import type { FailureLog } from './flow-node';
import type { ReceivedSyncs } from './contracts';
import type { SyncEvent } from '../../engines/checkpoint-emitter';
import { SyncStreamReceiver } from '../../core/sync-stream';
import { SYNC_REPLAY_EVENT, type SyncReplayRequest } from './sync-replay';

const WARN_EVERY_MS = 60000;

/** What takes the syncs (the checkpoint emitter, failback). */
export interface SyncsReceiver {
  handleSyncEvent(ev: SyncEvent): void;
  readonly syncsLoaded: boolean;
}

export interface SyncsIntakeOptions {
  RED: NodeAPI;
  t: Translate;
  log: FailureLog;
  emitter: SyncsReceiver;
  /** The node set whose catalog holds the texts (errors.wrong-syncs-topic, warn.syncs-gap, warn.malformed-syncs); default mm2-checkpoint. */
  catalog?: string;
  /** The offset-syncs topic of the replication, and the alias of the cluster that holds it. */
  topic: string | undefined;
  cluster: string;
  /** Who asks for a replay (in the mm2-offset-syncs node's log). */
  requester: string;
  closing(): boolean;
  render(): void;
}

export class SyncsIntake {
  private readonly stream = new SyncStreamReceiver();
  private malformed = 0;

  private readonly catalog: string;

  constructor(private readonly o: SyncsIntakeOptions) {
    this.catalog = o.catalog ?? 'mm2-checkpoint';
  }

  /** Asks the mm2-offset-syncs node of our topic to send its whole history again. */
  requestReplay(): void {
    const { topic, cluster, requester } = this.o;
    if (!topic || this.o.closing()) return;
    const req: SyncReplayRequest = { topic, cluster, requester };
    this.o.RED.events.emit(SYNC_REPLAY_EVENT, req);
  }

  /** Feeds an OffsetSyncsMessage to the emitter; an error for the sender when it is not ours. */
  receive(syncs: ReceivedSyncs): Error | undefined {
    const { t, log, emitter, topic } = this.o;
    if (syncs.sourceTopic !== undefined && topic && syncs.sourceTopic !== topic) {
      return new Error(t(`${this.catalog}.errors.wrong-syncs-topic`, { got: syncs.sourceTopic, expected: topic }));
    }
    const decision = this.stream.accept(syncs.stream);
    if (decision.action === 'ignore') {
      if (decision.requestReplay) {
        if (decision.reason === 'gap') log.warn('syncs-gap', t(`${this.catalog}.warn.syncs-gap`, { topic: topic ?? '' }));
        this.requestReplay();
      }
      return undefined;
    }
    // the first message of a new load (a start, a reset, a replay): it brings the whole history
    if (decision.action === 'reset-then-apply') emitter.handleSyncEvent({ event: 'reset' });
    if (syncs.malformed > 0) {
      this.malformed += syncs.malformed;
      log.limited('malformed-syncs', t(`${this.catalog}.warn.malformed-syncs`, { count: this.malformed }), WARN_EVERY_MS);
    }
    const wasLoaded = emitter.syncsLoaded;
    emitter.handleSyncEvent(syncs.event);
    if (emitter.syncsLoaded !== wasLoaded) this.o.render();
    return undefined;
  }
}
