/**
 * How an `mm2-checkpoint` node (and an `mm2-failback` node) takes its offset syncs: from the
 * offset-sync feed of its replication flow (the `mm2-replication` config node's one reader of the
 * offset-syncs topic, engines/offset-sync-feed), as MM2's checkpoint task reads the topic itself.
 * A node that starts on its own (redeployed alone) gets the whole history from the feed. An
 * OffsetSyncsMessage on the node's input (a wire kept from a flow made for an older version) is
 * left aside: the feed already brought the same syncs.
 */
import type { Translate } from './i18n';
import type { FailureLog } from './flow-node';
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
  /** Where the reader's failures are logged (a missing ACL names itself there; an mm2-offset-syncs node shows them in its status too). */
  log: FailureLog;
  /** The offset-syncs topic (named in the log). */
  topic: string;
  emitter: SyncsReceiver;
  feed: OffsetSyncFeed;
  /** The node set whose catalog holds the texts (log.syncs-message-ignored, warn.syncs-reader); default mm2-checkpoint. */
  catalog?: string;
  /** The syncs got loaded, or were reset (the status changes). */
  render(): void;
  /** Why the feed's reader cannot read the syncs now (null: it reads, or read them): the node's status says it while it waits (the node renders it). */
  readerError?(error: string | null): void;
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
      loaded: () => {
        this.o.log.ok('syncs-reader');
        this.o.readerError?.(null);
        apply({ event: 'loaded' });
      },
      reset: () => apply({ event: 'reset' }),
      // the reader retries by itself; the log says why the syncs do not come (once per change)
      error: ({ error }) => {
        this.o.log.warn('syncs-reader', this.o.t(`${this.catalog}.warn.syncs-reader`, { topic: this.o.topic, error }));
        this.o.readerError?.(error);
      },
      recovered: () => {
        this.o.log.ok('syncs-reader');
        this.o.readerError?.(null);
      },
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
