/**
 * How an `mm2-checkpoint` node takes its offset-sync history. It arrives as messages
 * (OffsetSyncsMessage from mm2-offset-syncs): one missed (this node redeployed on its own, a
 * message lost) would leave it without history for good. The stream positions tell; the node
 * then asks for the whole history again (the replay request of lib/sync-replay, on RED.events).
 */
import type { NodeAPI } from '../red';
import type { Translate } from '../i18n';
import type { FailureLog } from '../flow-node';
import type { ReceivedSyncs } from '../contracts';
import type { CheckpointEmitter } from '../../../kafka/checkpoint-emitter';
import { SyncStreamReceiver } from '../../../core/sync-stream';
import { SYNC_REPLAY_EVENT, type SyncReplayRequest } from '../sync-replay';

const WARN_EVERY_MS = 60000;

export interface SyncsIntakeOptions {
  RED: NodeAPI;
  t: Translate;
  log: FailureLog;
  emitter: CheckpointEmitter;
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

  constructor(private readonly o: SyncsIntakeOptions) {}

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
      return new Error(t('mm2-checkpoint.errors.wrong-syncs-topic', { got: syncs.sourceTopic, expected: topic }));
    }
    const decision = this.stream.accept(syncs.stream);
    if (decision.action === 'ignore') {
      if (decision.requestReplay) {
        if (decision.reason === 'gap') log.warn('syncs-gap', t('mm2-checkpoint.warn.syncs-gap', { topic: topic ?? '' }));
        this.requestReplay();
      }
      return undefined;
    }
    // the first message of a new load (a start, a reset, a replay): it brings the whole history
    if (decision.action === 'reset-then-apply') emitter.handleSyncEvent({ event: 'reset' });
    if (syncs.malformed > 0) {
      this.malformed += syncs.malformed;
      log.limited('malformed-syncs', t('mm2-checkpoint.warn.malformed-syncs', { count: this.malformed }), WARN_EVERY_MS);
    }
    const wasLoaded = emitter.syncsLoaded;
    emitter.handleSyncEvent(syncs.event);
    if (emitter.syncsLoaded !== wasLoaded) this.o.render();
    return undefined;
  }
}
