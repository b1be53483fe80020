/**
 * The mirror's writes to the target (engines/mirror-task): its own producer (replaced on every
 * consumer restart so that it sees new partitions), and the produce of one chunk to one remote
 * partition, retried with back-off until acknowledged; with when each request waiting on the
 * target was sent (Mirror.outstanding).
 */
import type { IHeaders, KafkaMessage, Producer } from 'kafkajs';
import type { ClusterConnection } from '../kafka/connection';
import { errText } from './mirror-topics';
import { Backoff } from '../core/backoff';

export interface MirrorProducerHooks {
  /** A produce failed (the connection's explained error, naming the remote topic). */
  failed(text: string, remote: string): void;
  /** A produce was acknowledged. */
  succeeded(): void;
  /** The failure says the remote topic or partition is not there (yet): look at the topics again. */
  requestRefresh(): void;
  /** Waits before the next attempt (woken early when the mirror stops). */
  sleep(ms: number): Promise<void>;
}

export class MirrorProducer {
  private producerP: Promise<Producer> | null = null;
  /** Produce requests (and the producer's connection) waiting on the target: when each was sent. */
  readonly sending = new Map<number, number>();
  private sendSeq = 0;

  constructor(
    private readonly target: ClusterConnection,
    private readonly hooks: MirrorProducerHooks,
  ) {}

  /** Produces one chunk to one remote partition, retrying with back-off until acknowledged; returns the base offset, or null when abandoned. */
  async produce(remote: string, partition: number, chunk: KafkaMessage[], heartbeat: () => Promise<void>, abandoned: () => boolean): Promise<bigint | null> {
    const backoff = new Backoff(500, 30000);
    for (;;) {
      const id = ++this.sendSeq;
      this.sending.set(id, Date.now());
      try {
        const producer = await this.producer();
        const res = await producer.send({
          topic: remote,
          acks: -1,
          messages: chunk.map((m) => ({
            partition,
            key: m.key,
            value: m.value,
            headers: m.headers as IHeaders | undefined,
            timestamp: m.timestamp,
          })),
        });
        const md = res.find((r) => r.topicName === remote && r.partition === partition);
        const base = md?.baseOffset ?? md?.offset;
        if (base === undefined) throw new Error(`no acknowledgement for ${remote}-${partition}`);
        this.sending.delete(id);
        this.target.reportOk();
        this.hooks.succeeded();
        return BigInt(base);
      } catch (e) {
        this.sending.delete(id);
        if (abandoned()) return null;
        const text = errText(e);
        this.hooks.failed(this.target.reportError(e, [{ resource: 'Topic', name: remote, operations: ['WRITE'] }]), remote);
        if (/UNKNOWN_TOPIC_OR_PARTITION|does not host|partition|topic/i.test(text)) this.hooks.requestRefresh();
        await this.hooks.sleep(backoff.next());
        await heartbeat().catch(() => undefined);
        if (abandoned()) return null;
      }
    }
  }

  private producer(): Promise<Producer> {
    if (!this.producerP) {
      const producer = this.target.kafka.producer({
        allowAutoTopicCreation: false,
        idempotent: false,
        // kafkajs silently leaves out partitions its metadata does not know (a remote partition
        // just added): a short metadata age bounds how long such a send is retried.
        metadataMaxAge: 3000,
        retry: { retries: 3, initialRetryTime: 300, maxRetryTime: 5000 },
      });
      const p = producer.connect().then(() => producer);
      this.producerP = p;
      p.catch(() => {
        if (this.producerP === p) this.producerP = null;
        producer.disconnect().catch(() => undefined);
      });
    }
    return this.producerP;
  }

  async close(): Promise<void> {
    const p = this.producerP;
    this.producerP = null;
    if (p) await p.then((x) => x.disconnect(), () => undefined).catch(() => undefined);
  }
}
