/**
 * The one way every retry of the product waits: a first wait, doubled after each failure up to a
 * longest one, back to the first after a success (Kafka's clients do the same with
 * retry.backoff.ms and retry.backoff.max.ms, KIP-580; we leave out the jitter: one instance, one
 * retry of a kind at a time). Pure: the caller sleeps.
 */

/** The wait before repeat number `attempt` (0-based): `firstMs` doubled per attempt, at most `maxMs`. */
export function backoffDelay(attempt: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(Math.max(0, attempt), 30));
}

/** The waits of one retried job, in order: `next()` after a failure, `reset()` after a success. */
export class Backoff {
  private attempt = 0;

  constructor(readonly firstMs: number, readonly maxMs: number) {
    if (!(Number.isFinite(firstMs) && firstMs >= 0)) throw new RangeError(`back-off: the first wait must be a number of ms >= 0 (got ${firstMs})`);
    if (!(maxMs >= firstMs)) throw new RangeError(`back-off: the longest wait (${maxMs} ms) must not be shorter than the first (${firstMs} ms)`);
  }

  /** The wait the next failure gets, without taking it. */
  get delayMs(): number {
    return backoffDelay(this.attempt, this.firstMs, this.maxMs);
  }

  /** The wait after this failure; the one after the next failure is twice as long (up to the longest). */
  next(): number {
    const d = this.delayMs;
    if (d < this.maxMs) this.attempt++;
    return d;
  }

  /** A success: the next failure waits the first wait again. */
  reset(): void {
    this.attempt = 0;
  }
}
