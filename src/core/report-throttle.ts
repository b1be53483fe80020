/**
 * Rate limit for a repeated report (a malformed record, say): at most one report per `everyMs`.
 * The first occurrence after a quiet period is reported at once (`first`); occurrences within the
 * period are counted and reported together, with the last one, when the period ends (`more`).
 */
import { Timer } from './timers';

export interface ReportThrottleOptions<T> {
  everyMs: number;
  first(item: T): void;
  more(count: number, last: T): void;
  now?: () => number;
}

export class ReportThrottle<T> {
  private lastAt = 0;
  private count = 0;
  private last: T | null = null;
  private readonly timer = new Timer();
  private readonly now: () => number;

  constructor(private readonly opts: ReportThrottleOptions<T>) {
    this.now = opts.now ?? Date.now;
  }

  /** Occurrences counted but not reported yet. */
  get pending(): number {
    return this.count;
  }

  report(item: T): void {
    const now = this.now();
    if (now - this.lastAt >= this.opts.everyMs && this.count === 0) {
      this.lastAt = now;
      this.opts.first(item);
      return;
    }
    this.count += 1;
    this.last = item;
    if (!this.timer.pending) this.timer.after(this.lastAt + this.opts.everyMs - now, () => this.flush());
  }

  /** Reports the counted occurrences now (nothing when there are none). */
  flush(): void {
    this.timer.stop();
    if (this.count === 0 || this.last === null) return;
    const { count, last } = this;
    this.count = 0;
    this.last = null;
    this.lastAt = this.now();
    this.opts.more(count, last);
  }

  /** Forgets the counted occurrences and the pending report. */
  clear(): void {
    this.timer.stop();
    this.count = 0;
    this.last = null;
  }
}
