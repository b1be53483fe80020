/**
 * One shared connection to one Kafka cluster: a kafkajs client, a lazily connected admin
 * client and producer, and the admin-style offset committer, reference-counted by the users
 * that registered (the model is Node-RED's MQTT broker config node). Its state is pushed to
 * every user so each can show it in its status.
 */
import type { Admin, Kafka, Producer } from 'kafkajs';
import { createKafka, explainKafkaError, type ClusterSettings, type HostLogger } from './client';
import { AdminOffsetCommitter, GroupOffsetFetcher } from './groups';

export type ConnectionStateName = 'idle' | 'connecting' | 'connected' | 'error' | 'closed';

export interface ConnectionState {
  state: ConnectionStateName;
  /** What went wrong and what to fix, when state is 'error'. */
  error?: string;
}

export interface ConnectionUser {
  id: string;
  onConnectionState?(state: ConnectionState): void;
}

export class ClusterConnection {
  readonly kafka: Kafka;
  private users = new Map<string, ConnectionUser>();
  private adminP: Promise<Admin> | null = null;
  private producerP: Promise<Producer> | null = null;
  private committerInst: AdminOffsetCommitter | null = null;
  private fetcherInst: GroupOffsetFetcher | null = null;
  private st: ConnectionState = { state: 'idle' };
  private closing: Promise<void> | null = null;

  constructor(readonly settings: ClusterSettings, readonly logger?: HostLogger) {
    this.kafka = createKafka(settings, logger);
  }

  get alias(): string {
    return this.settings.alias;
  }

  get state(): ConnectionState {
    return this.st;
  }

  register(user: ConnectionUser): void {
    this.users.set(user.id, user);
    user.onConnectionState?.(this.st);
  }

  /** Removes a user; when none is left, the connections close. */
  async deregister(user: ConnectionUser): Promise<void> {
    this.users.delete(user.id);
    if (this.users.size === 0) await this.close();
  }

  get userCount(): number {
    return this.users.size;
  }

  private setState(s: ConnectionState): void {
    const changed = s.state !== this.st.state || s.error !== this.st.error;
    this.st = s;
    if (!changed) return;
    for (const u of this.users.values()) {
      try {
        u.onConnectionState?.(s);
      } catch {
        /* a user's status handler must not break the others */
      }
    }
  }

  /** Marks the connection failed with an explanation (users show it); returns the explanation. */
  reportError(err: unknown): string {
    const text = explainKafkaError(err, this.settings);
    this.setState({ state: 'error', error: text });
    return text;
  }

  /** Marks the connection healthy again after a successful call. */
  reportOk(): void {
    if (this.st.state !== 'connected') this.setState({ state: 'connected' });
  }

  /** The shared admin client, connected on first use. Rejects with an explained Error. */
  admin(): Promise<Admin> {
    if (this.closing) return Promise.reject(new Error('connection closed'));
    if (!this.adminP) {
      const admin = this.kafka.admin({ retry: { retries: 2, initialRetryTime: 300 } });
      if (this.st.state !== 'connected') this.setState({ state: 'connecting' });
      this.adminP = admin.connect().then(
        () => {
          this.reportOk();
          return admin;
        },
        (e) => {
          this.adminP = null;
          const text = this.reportError(e);
          admin.disconnect().catch(() => undefined);
          throw new Error(text);
        },
      );
    }
    return this.adminP;
  }

  /** The shared producer (acks=all, no auto topic creation), connected on first use. */
  producer(): Promise<Producer> {
    if (this.closing) return Promise.reject(new Error('connection closed'));
    if (!this.producerP) {
      const producer = this.kafka.producer({ allowAutoTopicCreation: false, idempotent: false, maxInFlightRequests: 5 });
      this.producerP = producer.connect().then(
        () => {
          this.reportOk();
          return producer;
        },
        (e) => {
          this.producerP = null;
          const text = this.reportError(e);
          producer.disconnect().catch(() => undefined);
          throw new Error(text);
        },
      );
    }
    return this.producerP;
  }

  /** Reads committed group offsets with the coordinator of each group remembered. */
  offsetFetcher(): GroupOffsetFetcher {
    if (!this.fetcherInst) this.fetcherInst = new GroupOffsetFetcher(this.kafka);
    return this.fetcherInst;
  }

  committer(): AdminOffsetCommitter {
    if (!this.committerInst) this.committerInst = new AdminOffsetCommitter(this.kafka);
    return this.committerInst;
  }

  /** Disconnects everything; bounded by `timeoutMs` so a dead broker cannot stall a redeploy. */
  close(timeoutMs = 5000): Promise<void> {
    if (this.closing) return this.closing;
    const tasks: Array<Promise<unknown>> = [];
    if (this.adminP) tasks.push(this.adminP.then((a) => a.disconnect(), () => undefined));
    if (this.producerP) tasks.push(this.producerP.then((p) => p.disconnect(), () => undefined));
    if (this.committerInst) tasks.push(this.committerInst.close());
    if (this.fetcherInst) tasks.push(this.fetcherInst.close());
    this.fetcherInst = null;
    this.adminP = null;
    this.producerP = null;
    this.committerInst = null;
    let timer: NodeJS.Timeout | undefined;
    this.closing = Promise.race([
      Promise.allSettled(tasks),
      new Promise((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]).then(() => {
      if (timer) clearTimeout(timer);
      this.closing = null;
      this.setState({ state: 'idle' });
    });
    return this.closing;
  }
}
