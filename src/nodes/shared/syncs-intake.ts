/**
 * How an `mm2-checkpoint` node (and an `mm2-failback` node) takes its offset syncs: from the
 * offset-sync feed of its replication flow (the `mm2-replication` config node's one reader of the
 * offset-syncs topic, engines/offset-sync-feed), as MM2's checkpoint task reads the topic itself.
 * A node that starts on its own (redeployed alone) gets the whole history from the feed. An
 * OffsetSyncsMessage on the node's input (a wire kept from a flow made for an older version) is
 * left aside: the feed already brought the same syncs.
 */
import type { Translate } from './i18n';
import type { SyncEvent } from '../../engines/checkpoint-emitter';
import type { OffsetSyncFeed, SyncFeedSubscription } from '../../engines/offset-sync-feed';

/** What takes the syncs (the checkpoint emitter, failback). */
export interface SyncsReceiver {
  handleSyncEvent(ev: SyncEvent): void;
  readonly syncsLoaded: boolean;
}

export interface SyncsIntakeOptions {
  t: Translate;
  node: { log(msg: string): void };
  emitter: SyncsReceiver;
  feed: OffsetSyncFeed;
  /** The node set whose catalog holds the texts (log.syncs-message-ignored); default mm2-checkpoint. */
  catalog?: string;
  /** The syncs got loaded, or were reset (the status changes). */
  render(): void;
}

export class SyncsIntake {
  private subscription: SyncFeedSubscription | null = null;
  private ignoredMessages = 0;
  private readonly catalog: string;

  constructor(private readonly o: SyncsIntakeOptions) {
    this.catalog = o.catalog ?? 'mm2-checkpoint';
  }

  /** OffsetSyncsMessages that arrived on the input and were left aside. */
  get ignored(): number {
    return this.ignoredMessages;
  }

  /** Subscribes to the feed: the history first (inside this call), then what follows. */
  start(): void {
    if (this.subscription) return;
    const { emitter } = this.o;
    const apply = (ev: SyncEvent): void => {
      const wasLoaded = emitter.syncsLoaded;
      emitter.handleSyncEvent(ev);
      if (emitter.syncsLoaded !== wasLoaded) this.o.render();
    };
    this.subscription = this.o.feed.subscribe({
      batch: (syncs) => apply({ event: 'syncs', syncs }),
      loaded: () => apply({ event: 'loaded' }),
      reset: () => apply({ event: 'reset' }),
    });
  }

  /** Leaves the feed (its reader stops when no node is left). */
  stop(): Promise<void> {
    const s = this.subscription;
    this.subscription = null;
    return s ? s.unsubscribe() : Promise.resolve();
  }

  /** An OffsetSyncsMessage arrived on the input: counted and left aside; the log says so once. */
  ignoreMessage(): void {
    this.ignoredMessages += 1;
    if (this.ignoredMessages === 1) this.o.node.log(this.o.t(`${this.catalog}.log.syncs-message-ignored`));
  }
}
