/**
 * The engines' timers, one way (issue 24 item 2: "one scheduler for timers, retries and
 * back-offs"): a pending job that setting again replaces (`Timer`), a repeating one (`Timer.every`),
 * sleeps a close cuts short (`Sleeps`), and a wait bounded by a deadline (`within`, `deadline`).
 * Every delay goes through `clampTimer` (a JavaScript timer fires at once past 2^31-1 ms); each is
 * cleared by the owner's stop, so a redeploy leaves no timer behind. The waits between attempts
 * come from `core/backoff`. No Node-RED or kafkajs import.
 */
import { clampTimer } from './intervals';

/** One pending timer of its owner: a timeout or a repeat; starting it again replaces what was pending. */
export class Timer {
  private t: ReturnType<typeof setTimeout> | null = null;
  private repeating = false;

  /** `unref`: the timer does not keep the process alive (a wake-up nobody waits on). */
  constructor(private readonly unref = false) {}

  /** Whether a timeout or a repeat is pending. */
  get pending(): boolean {
    return this.t !== null;
  }

  /** Runs `fn` once after `ms`, replacing what was pending. */
  after(ms: number, fn: () => void): void {
    this.stop();
    const t = setTimeout(() => {
      if (this.t === t) this.t = null;
      fn();
    }, clampTimer(ms));
    this.hold(t, false);
  }

  /** Runs `fn` every `ms`, replacing what was pending. */
  every(ms: number, fn: () => void): void {
    this.stop();
    this.hold(setInterval(fn, clampTimer(ms)), true);
  }

  /** Cancels what is pending (nothing runs after this). */
  stop(): void {
    if (this.t === null) return;
    if (this.repeating) clearInterval(this.t);
    else clearTimeout(this.t);
    this.t = null;
  }

  private hold(t: ReturnType<typeof setTimeout>, repeating: boolean): void {
    if (this.unref) t.unref?.();
    this.t = t;
    this.repeating = repeating;
  }
}

/** Sleeps of one owner; `wakeAll` (its stop) ends every sleep under way at once. */
export class Sleeps {
  private readonly waking = new Set<() => void>();

  /** Resolves after `ms`, or when `wakeAll` is called, whichever comes first. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(t);
        this.waking.delete(done);
        resolve();
      };
      const t = setTimeout(done, clampTimer(ms));
      this.waking.add(done);
    });
  }

  /** Ends every sleep under way. */
  wakeAll(): void {
    for (const done of [...this.waking]) done();
  }
}

/**
 * Waits for `work` at most `ms`: true when it settled in time (fulfilled or rejected: the caller
 * only bounds its wait, e.g. a stop waiting for consumers to leave), false when the time ran out.
 */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let t: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    t = setTimeout(() => resolve(false), clampTimer(ms));
  });
  try {
    return await Promise.race([work.then(() => true, () => true), late]);
  } finally {
    clearTimeout(t);
  }
}

/** `work`'s outcome, or a rejection with `late()` when it has not settled within `ms`. */
export async function deadline<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let t: ReturnType<typeof setTimeout> | undefined;
  const over = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(late()), clampTimer(ms));
  });
  try {
    return await Promise.race([work, over]);
  } finally {
    clearTimeout(t);
  }
}
