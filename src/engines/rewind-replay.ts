/**
 * One replay of the checkpoints topic on the target, from its start to the end offset seen at
 * start, into a RewindHistory (core/rewind-history): the rewinds on the source that the order of
 * the checkpoints shows. `mm2-group-offsets` in mode "input" runs it once at start (issue 26,
 * item 1), then follows its input as before. No Node-RED here.
 */
import type { Admin, Kafka } from 'kafkajs';
import { decodeValidCheckpoint } from '../core/checkpoint';
import { RewindHistory } from '../core/rewind-history';
import { assertTimerMs } from '../core/intervals';
import type { ClusterSettings } from '../kafka/client';
import { TopicReader } from '../kafka/topic-reader';
import { Timer } from '../core/timers';

export interface RewindReplayOptions {
  connection: { kafka: Kafka; admin(): Promise<Admin>; settings?: ClusterSettings };
  topic: string;
  /** The prefix of the reader's throwaway group (it never commits). */
  groupPrefix: string;
  /** The replay gives up after this long (ms). */
  timeoutMs: number;
}

export class RewindReplay {
  private reader: TopicReader | null = null;
  private stopped = false;
  private abort: (e: Error) => void = () => undefined;
  /** Records that were no valid checkpoint (skipped). */
  malformed = 0;

  constructor(private readonly o: RewindReplayOptions) {
    assertTimerMs(o.timeoutMs, 'replay timeout');
  }

  /**
   * Reads the topic once. Rejects with TopicNotFoundError (no checkpoint yet: nothing to
   * recover), a NotAuthorizedError naming the ACL, or any other failure of the read.
   */
  async run(): Promise<RewindHistory> {
    const o = this.o;
    const history = new RewindHistory();
    let failure: Error | null = null;
    const failed = new Promise<void>((resolve) => {
      this.abort = (e) => {
        if (!failure) failure = e;
        resolve();
      };
    });
    const timer = new Timer();
    timer.after(o.timeoutMs, () => this.abort(new Error(`reading ${o.topic} did not finish within ${Math.round(o.timeoutMs / 1000)} s`)));
    try {
      if (this.stopped) throw new Error('stopped');
      const admin = await o.connection.admin();
      if (this.stopped) throw new Error('stopped');
      const reader = new TopicReader(o.connection.kafka, admin, {
        topic: o.topic,
        tail: false,
        groupPrefix: o.groupPrefix,
        settings: o.connection.settings,
        onRecord: (r) => {
          try {
            history.note(decodeValidCheckpoint(r.key, r.value));
          } catch {
            this.malformed++;
          }
        },
        onError: (err) => this.abort(err),
      });
      this.reader = reader;
      await Promise.race([reader.start().catch((e: Error) => this.abort(e)), failed]);
      await reader.stop();
      this.reader = null;
      if (failure) throw failure;
      if (this.stopped) throw new Error('stopped');
      return history;
    } finally {
      timer.stop();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort(new Error('stopped'));
    const r = this.reader;
    this.reader = null;
    if (r) await r.stop();
  }
}
