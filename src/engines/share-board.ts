/**
 * The readiness summaries the instances of a replication flow publish to each other (issue 25,
 * item 5; the rules in core/share-summaries): one per checkpoint node, once this instance has
 * shared the flow with another (a single instance alone publishes nothing and creates no topic: it
 * behaves exactly as before). From then on, until the node closes:
 * - after every full cycle, it publishes its own groups' readiness to the compacted topic
 *   `mm2-readiness.<source>.internal` on the target (created like the other internal topics),
 *   in chunks of at most 500 groups keyed `<host:pid>#<chunk>`: only the chunks whose verdicts
 *   changed, those whose figures only changed every 10 s, the others every 30 s (core/share-summaries
 *   planSummary; readers trust a chunk that long plus `validForMs`); chunks it no longer needs are
 *   tombstoned, and all of them on close;
 * - it reads that topic (a TopicReader tailing it) and merges the live instances' summaries into
 *   its coverage output (merged()): every group of the flow, each with the instance covering it.
 */
import { hostname } from 'node:os';
import type { Admin, Producer } from 'kafkajs';
import type { ClusterConnection } from '../kafka/connection';
import { TopicReader, type TopicReaderOptions } from '../kafka/topic-reader';
import { explainKafkaError } from '../kafka/client';
import type { ReadinessSummary } from '../core/readiness';
import type { ShareView } from '../core/share-lease';
import { instanceName, mergeReadiness, planSummary, SUMMARY_DETAIL_MS, SUMMARY_REFRESH_MS, summaryValidForMs, SummaryBoard, summaryKey, type InstanceSummary, type SentChunk } from '../core/share-summaries';
import { within } from '../core/timers';

/** How long an empty fetch of the summaries topic waits on the broker (was 500 ms: two requests a second per instance while nothing changes). */
export const SUMMARY_READ_WAIT_MS = 2000;

/** What the board asks of the flow's shares (engines/replication-shares). */
export interface BoardShares {
  readonly current: ShareView;
  /** The membership's last settled generation: its member id, generation and the ids of its members. */
  readonly state: { memberId: string; generationId: number; memberIds: readonly string[] | null } | null;
  owns(group: string): boolean;
  subscribe(listener: (view: ShareView) => void): () => void;
}

export interface ShareBoardOptions {
  /** The flow's target, where the summaries are published and read. */
  target: ClusterConnection;
  /** core/share-summaries shareSummaryTopic(sourceAlias). */
  topic: string;
  shares: BoardShares;
  /** Creates the topic when missing (mm2-replication's ensureTopic: compacted, one partition). */
  ensureTopic(): Promise<unknown>;
  /** How long a reader may wait for the next full cycle (a few full-cycle intervals); the summary's own bound adds refreshMs (summaryValidForMs). */
  validForMs: number;
  /** An unchanged chunk is published again after this long (default SUMMARY_REFRESH_MS); for tests. */
  refreshMs?: number;
  /** A chunk whose figures only changed waits this long (default SUMMARY_DETAIL_MS); for tests. */
  detailMs?: number;
  /** Default instanceName(os.hostname(), process.pid). */
  instance?: string;
  /** Records per send (default 8: about 250 kB a request at 500 groups a record). */
  recordsPerSend?: number;
  /** Makes the reader of the topic (default: a TopicReader on the target); for tests. */
  createReader?: (admin: Admin, o: TopicReaderOptions) => Pick<TopicReader, 'start' | 'stop' | 'isLoaded'>;
  /** Publishing or reading failed (said once per text by the caller's log); null: it works again. */
  onProblem?(text: string | null): void;
  now?: () => number;
}

export class ShareBoard {
  readonly instance: string;
  readonly board = new SummaryBoard();
  private active = false;
  private stopped = false;
  private starting: Promise<boolean> | null = null;
  private reader: Pick<TopicReader, 'start' | 'stop' | 'isLoaded'> | null = null;
  private chunksOut = 0;
  /** What readers hold of this instance's summary, by key (core/share-summaries planSummary). */
  private sent: ReadonlyMap<string, SentChunk> = new Map();
  private pending: ReadinessSummary | null = null;
  private last: ReadinessSummary | null = null;
  private sending: Promise<void> = Promise.resolve();
  private producerP: Promise<Producer> | null = null;
  private reading = false;
  private readonly unsubscribe: () => void;
  private readonly now: () => number;
  /** Publications sent and records read, for tests and diagnostics. */
  readonly stats = { publications: 0, records: 0, chunksSent: 0 };

  constructor(private readonly o: ShareBoardOptions) {
    this.instance = o.instance ?? instanceName(hostname(), process.pid);
    this.now = o.now ?? Date.now;
    this.unsubscribe = o.shares.subscribe((v) => this.viewChanged(v));
    this.viewChanged(o.shares.current);
  }

  /** Whether this instance shares its readiness: since it first shared the flow with another instance. */
  get isActive(): boolean {
    return this.active;
  }

  private viewChanged(v: ShareView): void {
    if (this.active || this.stopped || v.kind !== 'sharing' || v.instances < 2) return;
    this.active = true;
    this.begin();
    if (this.last !== null) this.publish(this.last);
  }

  /** Creates the topic, then starts reading it; again at the next publication when the topic could not be prepared. */
  private begin(): Promise<boolean> {
    if (this.starting === null) {
      this.starting = this.o.ensureTopic().then(
        () => {
          this.readAgain();
          return true;
        },
        (e: unknown) => {
          this.starting = null;
          this.o.onProblem?.(`preparing ${this.o.topic}: ${explainKafkaError(e)}`);
          return false;
        },
      );
    }
    return this.starting;
  }

  /** Starts the reader unless one runs (again after it failed: at the next publication). */
  private readAgain(): void {
    if (this.reading || this.stopped) return;
    this.reading = true;
    void this.read();
  }

  private async read(): Promise<void> {
    try {
      const admin = await this.o.target.admin();
      if (this.stopped) return;
      const create = this.o.createReader ?? ((a: Admin, o: TopicReaderOptions) => new TopicReader(this.o.target.kafka, a, o));
      const reader = create(admin, {
        topic: this.o.topic,
        tail: true,
        // an empty fetch waits this long on the broker (a record ends it at once): the summaries change
        // every 10 s at most, and each fetch is a request every instance makes whatever its share
        maxWaitTimeMs: SUMMARY_READ_WAIT_MS,
        settings: this.o.target.settings,
        onRecord: (r) => {
          this.stats.records++;
          if (r.key !== null) this.board.apply(r.key.toString('utf8'), r.value);
        },
        onError: (e) => this.o.onProblem?.(`reading ${this.o.topic}: ${e.message}`),
      });
      this.reader = reader;
      await reader.start();
    } catch (e) {
      this.o.onProblem?.(`reading ${this.o.topic}: ${explainKafkaError(e)}`);
      const failed = this.reader;
      this.reader = null;
      this.reading = false;
      await failed?.stop().catch(() => undefined);
    }
  }

  /** A full cycle's readiness of this instance's own groups: published (when active), the newest only if sends queue up. */
  publish(own: ReadinessSummary): void {
    this.last = own;
    if (!this.active || this.stopped) return;
    const queued = this.pending !== null;
    this.pending = own;
    if (!queued) this.sending = this.sending.then(() => this.flush());
  }

  private async flush(): Promise<void> {
    const own = this.pending;
    this.pending = null;
    const st = this.o.shares.state;
    if (own === null || st === null) return; // queued before a stop: sent, then tombstoned
    if (!(await this.begin())) return;
    this.readAgain();
    const refreshMs = this.o.refreshMs ?? SUMMARY_REFRESH_MS;
    const header = { instance: this.instance, memberId: st.memberId, generation: st.generationId, publishedAt: this.now(), validForMs: summaryValidForMs(this.o.validForMs, refreshMs) };
    const plan = planSummary(header, own.groups, this.sent, { refreshMs, detailMs: this.o.detailMs ?? SUMMARY_DETAIL_MS });
    const gone = [];
    for (let i = plan.chunks; i < this.chunksOut; i++) gone.push({ key: summaryKey(this.instance, i), value: null });
    // summaries of instances killed long ago: gone too (the topic keeps one record per live instance and chunk)
    if (st.memberIds !== null) for (const key of this.board.abandoned(this.instance, new Set(st.memberIds), this.now())) gone.push({ key, value: null });
    if (plan.send.length === 0 && gone.length === 0) return; // nothing changed, no refresh due
    try {
      await this.send([...plan.send, ...gone]);
      this.chunksOut = plan.chunks;
      this.sent = plan.sent;
      this.stats.publications++;
      this.stats.chunksSent += plan.send.length;
      this.o.onProblem?.(null);
    } catch (e) {
      this.o.onProblem?.(`publishing to ${this.o.topic}: ${explainKafkaError(e)}`);
    }
  }

  /**
   * A producer of its own: the cluster's shared one closes with the cluster node, which Node-RED
   * may close before this one, and the tombstones of a close must still go out.
   */
  private producer(): Promise<Producer> {
    if (this.producerP === null) {
      const p = this.o.target.kafka.producer({ allowAutoTopicCreation: false, idempotent: false, maxInFlightRequests: 1 });
      this.producerP = p.connect().then(
        () => p,
        (e: unknown) => {
          this.producerP = null;
          void p.disconnect().catch(() => undefined);
          throw e;
        },
      );
    }
    return this.producerP;
  }

  private async send(messages: Array<{ key: string; value: Buffer | null }>): Promise<void> {
    const producer = await this.producer();
    const per = this.o.recordsPerSend ?? 8;
    for (let i = 0; i < messages.length; i += per) await producer.send({ topic: this.o.topic, messages: messages.slice(i, i + per) });
  }

  /**
   * Every group of the flow with the instance covering it: `own` (this instance's readiness) and
   * the live instances' summaries; `all` the flow's groups (null: unknown). Null while not active.
   */
  merged(own: ReadinessSummary, all: readonly string[] | null): ReadinessSummary | null {
    if (!this.active) return null;
    const members = this.members();
    const elsewhere = this.board.covered(this.instance, members, this.now());
    // until the summaries were read once, a group not seen yet is not said to be covered by no one
    const flow = this.reader?.isLoaded ? all : null;
    return mergeReadiness({ own, self: this.instance, all: flow, elsewhere, owns: (g) => this.o.shares.owns(g) });
  }

  /** The instances that published, live or not (this one as it is now). */
  instances(): InstanceSummary[] {
    const others = this.board.instances(this.members(), this.now()).filter((i) => i.instance !== this.instance);
    const st = this.o.shares.state;
    const me: InstanceSummary = { instance: this.instance, memberId: st?.memberId ?? '', groups: this.last?.groups.length ?? 0, publishedAt: this.now(), live: true };
    return [me, ...others].sort((a, b) => (a.instance < b.instance ? -1 : a.instance > b.instance ? 1 : 0));
  }

  private members(): ReadonlySet<string> | null {
    const ids = this.o.shares.state?.memberIds;
    return ids ? new Set(ids) : null;
  }

  /** Tombstones this instance's summary (bounded by `timeoutMs`) and stops reading. */
  async stop(timeoutMs = 5000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe();
    await this.sending.catch(() => undefined);
    if (this.chunksOut > 0) {
      const tombstones = Array.from({ length: this.chunksOut }, (_, i) => ({ key: summaryKey(this.instance, i), value: null }));
      await within(this.send(tombstones), timeoutMs);
      this.chunksOut = 0;
      this.sent = new Map();
    }
    const producer = this.producerP;
    this.producerP = null;
    await Promise.all([this.reader?.stop().catch(() => undefined), producer?.then((p) => p.disconnect()).catch(() => undefined)]);
    this.reader = null;
  }
}
