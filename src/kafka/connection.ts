/**
 * One shared connection to one Kafka cluster: a kafkajs client, a lazily connected admin
 * client and producer, and the admin-style offset committer, reference-counted by the users
 * that registered (the model is Node-RED's MQTT broker config node). Its state is pushed to
 * every user so each can show it in its status.
 */
import type { Admin, Kafka, Producer } from 'kafkajs';
import { createKafka, diagnoseClosedConnection, explainKafkaError, ExplainedKafkaError, isClientInternalFailure, isClosedConnectionExplanation, type AclNeed, type ClusterSettings, type HostLogger } from './client';
import { BatchProducer } from './batch-producer';
import { AdminOffsetCommitter, GroupOffsetFetcher } from './group-client';
import { guardAdmin } from './admin-guard';
import { passingCoordinatorState } from './topic-reader';

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
  private batchProducerInst: BatchProducer | null = null;
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

  /**
   * Removes a user (the one registered, not just one with its id: a node that replaced it after a
   * redeploy has the same id and stays); when none is left, the connections close.
   */
  async deregister(user: ConnectionUser): Promise<void> {
    const current = this.users.get(user.id);
    if (current === user) this.users.delete(user.id);
    else if (current) return;
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

  /**
   * Marks the connection failed with an explanation (users show it); returns the explanation.
   * `acls`: what the failed call needs, named when the broker refused it (explainKafkaError).
   * kafkajs failing inside on one request (isClientInternalFailure) is no failure of the
   * connection: the cluster answered. It is explained and left to the caller (its own status and
   * log, its next attempt); the state of the connection, which every node of the cluster shows,
   * stays as it is.
   */
  reportError(err: unknown, acls?: AclNeed[]): string {
    let text = explainKafkaError(err, this.settings, acls);
    if (isClientInternalFailure(err)) return text;
    // a group coordinator loading (a fresh cluster's first groups, a restarted broker), moving or
    // rebalancing: the broker answered, and kafkajs or the caller's next attempt gets through it
    if (passingCoordinatorState(err)) return text;
    if (isClosedConnectionExplanation(text)) {
      // the broker closed the connection: a restart, or a listener that wants SASL. Asking the
      // listener tells (the answer is kept a minute); the state shows the certain text once known.
      const known = this.listenerDiagnosis;
      if (known && Date.now() - known.at < 60000) text = known.text ?? text;
      else void this.diagnoseListener();
    }
    this.setState({ state: 'error', error: text });
    return text;
  }

  private listenerDiagnosis: { text: string | null; at: number } | null = null;
  private diagnosing: Promise<string | null> | null = null;

  /** Asks the listener what it wants (once at a time); upgrades a "closed the connection" state to the answer. */
  private diagnoseListener(): Promise<string | null> {
    if (!this.diagnosing) {
      this.diagnosing = diagnoseClosedConnection(this.settings)
        .catch(() => null)
        .then((text) => {
          this.diagnosing = null;
          this.listenerDiagnosis = { text, at: Date.now() };
          if (text && this.st.state === 'error' && isClosedConnectionExplanation(this.st.error ?? '')) this.setState({ state: 'error', error: text });
          return text;
        });
    }
    return this.diagnosing;
  }

  /** reportError for a failed connect: waits for the listener's answer when the broker closed the connection. */
  private async reportConnectError(err: unknown): Promise<string> {
    const text = this.reportError(err);
    if (!isClosedConnectionExplanation(text)) return text;
    return (await this.diagnoseListener()) ?? text;
  }

  /** Marks the connection healthy again after a successful call. */
  reportOk(): void {
    if (this.st.state !== 'connected') this.setState({ state: 'connected' });
  }

  /**
   * The shared admin client, connected on first use. Rejects with an explained Error. Its offset
   * and metadata requests are guarded against kafkajs's race between them (see admin-guard): all
   * the nodes of a cluster use it at once, on every deploy.
   */
  admin(): Promise<Admin> {
    if (this.closing) return Promise.reject(new Error('connection closed'));
    if (!this.adminP) {
      const admin = this.kafka.admin({ retry: { retries: 2, initialRetryTime: 300 } });
      if (this.st.state !== 'connected') this.setState({ state: 'connecting' });
      this.adminP = admin.connect().then(
        () => {
          this.reportOk();
          return guardAdmin(admin);
        },
        async (e) => {
          admin.disconnect().catch(() => undefined);
          const text = await this.reportConnectError(e);
          this.adminP = null;
          throw new ExplainedKafkaError(text, e);
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
        async (e) => {
          producer.disconnect().catch(() => undefined);
          const text = await this.reportConnectError(e);
          this.producerP = null;
          throw new ExplainedKafkaError(text, e);
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

  /** Sends ready record batches (Produce requests of our own, acks=-1), connected on first use. */
  batchProducer(): BatchProducer {
    if (!this.batchProducerInst) this.batchProducerInst = new BatchProducer(this.kafka);
    return this.batchProducerInst;
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
    if (this.batchProducerInst) tasks.push(this.batchProducerInst.close());
    this.fetcherInst = null;
    this.batchProducerInst = null;
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
