/**
 * Coalescing work: many requests, fewer runs, never two at once. The two pacers of the data path
 * and of the engines beside it:
 *
 * - Batcher: items collected into batches, each sent at most a wait after its first item (the
 *   commits read from `__consumer_offsets`, the offset syncs followed);
 * - CoalescingRunner: an async job whose runs never overlap, a request during a run joining the
 *   one run queued behind it (the checkpoint cycles, the failback and mirror runs);
 * - StagedRunner: the same, each run making way for the next one at a point the job says (an
 *   event's checkpoint cycle, once its checkpoints are stored: its write goes on beside the next);
 * - RunQueue: full runs one at a time on a chain, partial runs over sets of keys side by side up to
 *   a bound, never behind a full run (the group-offset writer's runs: the event lane).
 *
 * Plain timers and promises; no I/O.
 */
import { Timer } from './timers';

/**
 * Collects items into batches of at most `maxItems`, each sent at most `maxWaitMs` after its
 * first item: a full batch goes out at once, a partial one when its timer fires or on an
 * explicit `flush()`. `onFlush` is called on every flush, also with no items (a due timer, an
 * explicit flush): the owner uses that moment to refresh what it shows.
 */
export interface BatcherOptions<T> {
  maxItems: number;
  maxWaitMs: number;
  onFlush(items: T[]): void;
}

export class Batcher<T> {
  private items: T[] = [];
  private readonly timer = new Timer();

  constructor(private readonly opts: BatcherOptions<T>) {}

  /** Items waiting to be flushed. */
  get size(): number {
    return this.items.length;
  }

  /** Adds an item: flushes when the batch is full, else makes sure a flush is due. */
  add(item: T): void {
    this.items.push(item);
    if (this.items.length >= this.opts.maxItems) this.flush();
    else this.arm();
  }

  /** Makes sure a flush is due within maxWaitMs, even without items. */
  arm(): void {
    if (!this.timer.pending) this.timer.after(this.opts.maxWaitMs, () => this.flush());
  }

  /** Hands the waiting items (possibly none) to onFlush now. */
  flush(): void {
    this.timer.stop();
    const items = this.items;
    this.items = [];
    this.opts.onFlush(items);
  }

  /** Drops the waiting items and the pending flush (no onFlush). */
  clear(): void {
    this.timer.stop();
    this.items = [];
  }
}

interface Pending<O, R> {
  opts: O;
  promise: Promise<R>;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

/**
 * Runs an async job so that runs never overlap: a request while the job runs schedules exactly
 * one more run after it (requests that arrive meanwhile join that run and their options are
 * merged). Used for checkpoint cycles: a timer tick, an inject and a "refresh groups" request
 * that arrive together cost one extra cycle, never a parallel one.
 */
export class CoalescingRunner<O, R> {
  private running: Promise<R> | null = null;
  private pending: Pending<O, R> | null = null;

  /**
   * @param job the work; it receives the (merged) options of the requests it serves.
   * @param merge combines the options of two requests that share one run.
   */
  constructor(
    private readonly job: (opts: O) => Promise<R>,
    private readonly merge: (a: O, b: O) => O,
  ) {}

  /** Whether a run is in progress. */
  get busy(): boolean {
    return this.running !== null;
  }

  /** Whether a follow-up run is queued behind the current one. */
  get queued(): boolean {
    return this.pending !== null;
  }

  /** Requests a run; resolves (or rejects) with the result of the run that served this request. */
  run(opts: O): Promise<R> {
    if (this.running === null) return this.start(opts);
    if (this.pending === null) {
      let resolve!: (r: R) => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<R>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.pending = { opts, promise, resolve, reject };
    } else {
      this.pending.opts = this.merge(this.pending.opts, opts);
    }
    return this.pending.promise;
  }

  /** Resolves when no run is in progress or queued (errors are ignored). */
  async idle(): Promise<void> {
    while (this.running !== null) {
      await this.running.then(
        () => undefined,
        () => undefined,
      );
    }
  }

  private start(opts: O): Promise<R> {
    const p = (async () => this.job(opts))();
    this.running = p;
    // Registered before the caller can attach its own handlers, so the hand-over to the next
    // run happens before any caller code runs: no window in which a request could start a
    // second, overlapping run.
    const finished = (): void => {
      const next = this.pending;
      this.pending = null;
      if (next === null) {
        this.running = null;
        return;
      }
      this.start(next.opts).then(next.resolve, next.reject);
    };
    p.then(finished, finished);
    return p;
  }
}

/** What a run request needs of a runner (CoalescingRunner, StagedRunner). */
export interface CycleRunner<O, R> {
  readonly busy: boolean;
  run(opts: O): Promise<R>;
  idle(): Promise<void>;
}

/**
 * A CoalescingRunner whose run makes way for the next one before it ends: the job calls
 * `release()` once the part that must not overlap is done, and the rest of it goes on beside the
 * next run (an event's checkpoint cycle: its translation and store update are its own, its write to
 * the checkpoints topic takes turns with the other writes anyway, so the next event's cycle need
 * not wait for that write; issue 24 item 4). A job that never calls `release()` is a plain
 * CoalescingRunner's. Each request resolves (or rejects) with the whole run's result; `busy` and
 * `idle()` count the runs' ends too.
 */
export class StagedRunner<O, R> implements CycleRunner<O, R> {
  private readonly runner: CoalescingRunner<O, { result: Promise<R> }>;
  /** Runs that made way and have not ended yet. */
  private readonly tails = new Set<Promise<unknown>>();

  constructor(job: (opts: O, release: () => void) => Promise<R>, merge: (a: O, b: O) => O) {
    this.runner = new CoalescingRunner<O, { result: Promise<R> }>((opts) => this.stage(job, opts), merge);
  }

  /** Whether a run is in progress (also one that made way) or queued. */
  get busy(): boolean {
    return this.runner.busy || this.tails.size > 0;
  }

  run(opts: O): Promise<R> {
    return this.runner.run(opts).then((h) => h.result);
  }

  /** Resolves when no run is in progress, queued or ending (errors are ignored). */
  async idle(): Promise<void> {
    await this.runner.idle();
    while (this.tails.size > 0) await Promise.allSettled([...this.tails]);
  }

  /** One run: resolves (the runner's turn ends) at `release()` or when the job ends, whichever comes first. */
  private stage(job: (opts: O, release: () => void) => Promise<R>, opts: O): Promise<{ result: Promise<R> }> {
    return new Promise((resolveStage) => {
      let endRun!: (r: R) => void;
      let failRun!: (e: unknown) => void;
      const result = new Promise<R>((res, rej) => {
        endRun = res;
        failRun = rej;
      });
      result.catch(() => undefined); // the callers see it through run(); never unhandled here
      let released = false;
      let ended = false;
      const release = (): void => {
        if (released) return;
        released = true;
        resolveStage({ result });
      };
      // a run that made way is in `tails` until it ends (a promise of its own: `release` may come before the job returns)
      let tail: { done: Promise<void>; end: () => void } | null = null;
      const done = (): void => {
        ended = true;
        if (tail !== null) {
          this.tails.delete(tail.done);
          tail.end();
        }
        release();
      };
      const p = (async () =>
        job(opts, () => {
          if (released || ended) return;
          let end!: () => void;
          tail = { done: new Promise<void>((r) => (end = r)), end };
          this.tails.add(tail.done);
          release();
        }))();
      p.then(
        (r) => {
          endRun(r);
          done();
        },
        (e: unknown) => {
          failRun(e);
          done();
        },
      );
    });
  }
}

/** A run of a RunQueue: a full one, or a partial one over some keys (groups). */
export type QueuedJob = { full: true } | { full: false; groups: Set<string> };

export interface RunQueueHooks<R> {
  /** Runs one job. */
  run(job: QueuedJob): Promise<R>;
  /** Whether the owner is closed: nothing new starts. */
  closed(): boolean;
  /** A partial run starts, or one ended. */
  partialChanged(): void;
}

/**
 * Full runs one at a time on a chain (requests made while one waits share it); partial runs side
 * by side up to `maxPartials`, never behind a full run; a request made while every slot is taken
 * joins the one partial run waiting for a slot (its keys added). Which keys a run may touch is the
 * owner's (the writer holds a group from its plan to its last commit).
 */
export class RunQueue<R> {
  /** A full run is going on. */
  private running = false;
  private readonly partialsInFlight = new Set<Promise<R>>();
  private chain: Promise<unknown> = Promise.resolve();
  private nextFull: Promise<R> | null = null;
  /** A partial run waiting for a slot: later requests join it. */
  private nextPartial: { groups: Set<string>; run: Promise<R>; start(): void } | null = null;

  constructor(
    private readonly hooks: RunQueueHooks<R>,
    private readonly maxPartials: number,
  ) {}

  /** Whether a run is in progress or queued. */
  get busy(): boolean {
    return this.running || this.partialsInFlight.size > 0 || this.nextFull !== null || this.nextPartial !== null;
  }

  /** Partial runs in flight now. */
  get partials(): number {
    return this.partialsInFlight.size;
  }

  /** A full run, queued behind the one going on (requests share one follow-up run, started after the request). */
  full(): Promise<R> {
    if (!this.nextFull) {
      this.nextFull = this.enqueue(() => {
        this.nextFull = null;
        return { full: true };
      });
    }
    return this.nextFull;
  }

  /** A partial run over `groups`: now when a slot is free, else joined to the one waiting for a slot. */
  partial(groups: Iterable<string>): Promise<R> {
    if (this.nextPartial === null && this.partialsInFlight.size < this.maxPartials) return this.startPartial(new Set(groups));
    if (this.nextPartial === null) {
      const set = new Set<string>();
      let start = (): void => undefined;
      const run = new Promise<R>((resolve, reject) => {
        start = () => {
          this.nextPartial = null;
          if (this.hooks.closed()) return reject(new Error('closed'));
          this.startPartial(set).then(resolve, reject);
        };
      });
      this.nextPartial = { groups: set, run, start };
    }
    for (const g of groups) this.nextPartial.groups.add(g);
    return this.nextPartial.run;
  }

  /** Closed: the waiting partial run is rejected; resolves when the runs in flight settled. */
  close(): Promise<unknown> {
    this.nextPartial?.start(); // rejects: closed
    return Promise.allSettled([this.chain, ...this.partialsInFlight]);
  }

  private startPartial(groups: Set<string>): Promise<R> {
    this.hooks.partialChanged();
    const run = this.hooks.run({ full: false, groups });
    this.partialsInFlight.add(run);
    const done = (): void => {
      this.hooks.partialChanged();
      this.partialsInFlight.delete(run);
      if (this.nextPartial !== null && this.partialsInFlight.size < this.maxPartials) this.nextPartial.start();
    };
    run.then(done, done);
    return run;
  }

  private enqueue(take: () => QueuedJob): Promise<R> {
    const run = this.chain.then(async () => {
      const job = take();
      if (this.hooks.closed()) throw new Error('closed');
      this.running = true;
      try {
        return await this.hooks.run(job);
      } finally {
        this.running = false;
      }
    });
    // the chain only orders the runs: it must not hold the last result (100,000 entries at 10,000 groups) until the next run
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }
}
