/**
 * Heartbeats, as MM2's MirrorHeartbeatTask writes them: HeartbeatEmitter writes
 * `Heartbeat(source, target, now)` to partition 0 of the `heartbeats` topic of one cluster,
 * record timestamp = heartbeat timestamp (MirrorHeartbeatTask.poll), creating the topic
 * (1 partition, compacted) on first use. No Node-RED here: the mm2-heartbeat node is a thin shell
 * around this class and ./heartbeat-watcher.
 *
 * It owns no timer: the caller drives emission (emit()), so all timers live in one place and are
 * cleared on close.
 */
import { encodeHeartbeat } from '../core/heartbeat';
import type { ClusterConnection } from '../kafka/connection';

export interface HeartbeatEmitterOptions {
  /** The cluster whose `heartbeats` topic receives the records. */
  connection: ClusterConnection;
  topic: string;
  sourceAlias: string;
  targetAlias: string;
  /** Creates the topic if missing (1 partition, compacted). Called before the first send, and again after a send found the topic gone. */
  ensureTopic: () => Promise<unknown>;
  now?: () => number;
}

export interface EmittedHeartbeat {
  sourceClusterAlias: string;
  targetClusterAlias: string;
  timestamp: number;
  topic: string;
  partition: number;
  /** Offset the broker assigned, as a decimal string. */
  offset: string;
}

function errorTypes(e: unknown): string[] {
  const err = e as { type?: string; name?: string; originalError?: { type?: string }; errors?: Array<{ type?: string }> };
  return [err?.type, err?.originalError?.type, ...(err?.errors ?? []).map((x) => x?.type)].filter((x): x is string => typeof x === 'string');
}

export class HeartbeatEmitter {
  private ensured: Promise<unknown> | null = null;
  private running = 0;
  /** Heartbeats written since start. */
  emitted = 0;
  /** Timestamp of the last heartbeat written, or null. */
  lastEmitted: number | null = null;
  private readonly now: () => number;

  constructor(private readonly opts: HeartbeatEmitterOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** True while a send is in progress (a periodic caller skips a tick rather than piling sends up). */
  get busy(): boolean {
    return this.running > 0;
  }

  /** Writes one heartbeat now. Rejects with an Error whose message says what to fix. */
  async emit(): Promise<EmittedHeartbeat> {
    this.running += 1;
    try {
      if (!this.ensured) {
        this.ensured = this.opts.ensureTopic().catch((e: unknown) => {
          this.ensured = null;
          throw e;
        });
      }
      await this.ensured;
      const producer = await this.opts.connection.producer();
      const timestamp = this.now();
      const { key, value } = encodeHeartbeat({
        sourceClusterAlias: this.opts.sourceAlias,
        targetClusterAlias: this.opts.targetAlias,
        timestamp,
      });
      let offset = '';
      try {
        const res = await producer.send({
          topic: this.opts.topic,
          acks: -1,
          messages: [{ key, value, partition: 0, timestamp: String(timestamp) }],
        });
        offset = res[0]?.baseOffset ?? '';
      } catch (e) {
        // The topic was deleted under us: create it again before the next send.
        if (errorTypes(e).includes('UNKNOWN_TOPIC_OR_PARTITION')) this.ensured = null;
        throw new Error(this.opts.connection.reportError(e, [{ resource: 'Topic', name: this.opts.topic, operations: ['WRITE'] }]));
      }
      this.opts.connection.reportOk();
      this.emitted += 1;
      this.lastEmitted = timestamp;
      return {
        sourceClusterAlias: this.opts.sourceAlias,
        targetClusterAlias: this.opts.targetAlias,
        timestamp,
        topic: this.opts.topic,
        partition: 0,
        offset,
      };
    } finally {
      this.running -= 1;
    }
  }
}
