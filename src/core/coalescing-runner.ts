/**
 * Runs an async job so that runs never overlap: a request while the job runs schedules exactly
 * one more run after it (requests that arrive meanwhile join that run and their options are
 * merged). Used for checkpoint cycles: a timer tick, an inject and a "refresh groups" request
 * that arrive together cost one extra cycle, never a parallel one.
 */
interface Pending<O, R> {
  opts: O;
  promise: Promise<R>;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

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
