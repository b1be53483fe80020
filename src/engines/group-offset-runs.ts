/**
 * How the group-offset writer's runs are queued (engines/group-offset-syncer): full runs one at a
 * time on a chain (requests made while one waits share it), partial runs (the event lane) side by
 * side up to MAX_PARTIAL_RUNS, never behind a full run; a request made while every slot is taken
 * joins the one partial run waiting for a slot.
 */
import type { GroupOffsetsCycle } from '../core/group-offsets-cycle';
import { MAX_PARTIAL_RUNS } from './group-offset-syncer-types';

export type Job = { full: true } | { full: false; groups: Set<string> };

export interface RunQueueHooks {
  /** Runs one job (the writer's run). */
  run(job: Job): Promise<GroupOffsetsCycle>;
  /** Whether the writer is closed: nothing new starts. */
  closed(): boolean;
  /** A partial run starts, or one ended (what the writer holds changed). */
  partialChanged(): void;
}

export class RunQueue {
  /** A full run is going on (full runs go one at a time, on the chain). */
  private running = false;
  /** Partial runs in flight: they go side by side, each over groups no other run holds. */
  private readonly partialsInFlight = new Set<Promise<GroupOffsetsCycle>>();
  private chain: Promise<unknown> = Promise.resolve();
  private nextFull: Promise<GroupOffsetsCycle> | null = null;
  /** A partial run waiting for a slot (MAX_PARTIAL_RUNS in flight): later requests join it. */
  private nextPartial: { groups: Set<string>; run: Promise<GroupOffsetsCycle>; start(): void } | null = null;

  constructor(private readonly hooks: RunQueueHooks) {}

  /** Whether a run is in progress or queued. */
  get busy(): boolean {
    return this.running || this.partialsInFlight.size > 0 || this.nextFull !== null || this.nextPartial !== null;
  }

  /** Partial runs in flight now. */
  get partials(): number {
    return this.partialsInFlight.size;
  }

  /** A full run, queued behind the one going on (requests share one follow-up run, started after the request). */
  full(): Promise<GroupOffsetsCycle> {
    if (!this.nextFull) {
      this.nextFull = this.enqueue(() => {
        this.nextFull = null;
        return { full: true };
      });
    }
    return this.nextFull;
  }

  /** A partial run over `groups`: now when a slot is free, else joined to the one waiting for a slot. */
  partial(groups: Iterable<string>): Promise<GroupOffsetsCycle> {
    if (this.nextPartial === null && this.partialsInFlight.size < MAX_PARTIAL_RUNS) return this.startPartial(new Set(groups));
    if (this.nextPartial === null) {
      const set = new Set<string>();
      let start = (): void => undefined;
      const run = new Promise<GroupOffsetsCycle>((resolve, reject) => {
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

  /** The writer closed: the waiting partial run is rejected; resolves when the runs in flight settled. */
  close(): Promise<unknown> {
    this.nextPartial?.start(); // rejects: closed
    return Promise.allSettled([this.chain, ...this.partialsInFlight]);
  }

  private startPartial(groups: Set<string>): Promise<GroupOffsetsCycle> {
    this.hooks.partialChanged();
    const run = this.hooks.run({ full: false, groups });
    this.partialsInFlight.add(run);
    const done = (): void => {
      this.hooks.partialChanged();
      this.partialsInFlight.delete(run);
      if (this.nextPartial !== null && this.partialsInFlight.size < MAX_PARTIAL_RUNS) this.nextPartial.start();
    };
    run.then(done, done);
    return run;
  }

  private enqueue(take: () => Job): Promise<GroupOffsetsCycle> {
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
