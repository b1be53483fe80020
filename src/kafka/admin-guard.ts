/**
 * The shared admin client of a connection, guarded against a race inside kafkajs (2.2.4).
 *
 * kafkajs keeps ONE cached metadata per client. `fetchTopicOffsets(topic)` reads it twice, once
 * for the high and once for the low watermarks; `fetchTopicMetadata({ topics })` (through
 * cluster.metadata) replaces it with the metadata of only the topics asked for whenever one of
 * them is not cached or the cache is older than metadataMaxAge. When that happens between the two
 * reads of a concurrent fetchTopicOffsets, kafkajs finds no partition of its topic any more and
 * fails with `TypeError: Cannot destructure property 'partitions' of 'low.pop(...)'` (or
 * 'high.pop'). All nodes of a cluster share its admin client and start at once on a (re)deploy:
 * the internal-topic checks and the mirror's topic listing ask for metadata while the readers ask
 * for offsets. The same can happen between two offset requests when the cache expires (kafkajs
 * shares one refresh in flight, started with the topics known before the other request's).
 *
 * The guard:
 * - never lets a fetchTopicMetadata run while a fetchTopicOffsets runs (nor the reverse); the
 *   offset requests run side by side, metadata requests one at a time;
 * - retries a fetchTopicOffsets that failed inside kafkajs (a TypeError of its own code, see
 *   isKafkaClientInternalError): the next attempt refreshes the metadata with every topic asked
 *   for. Broker errors are not retried here (kafkajs retries those itself).
 */
import type { Admin } from 'kafkajs';
import { isKafkaClientInternalError } from './client';
import { backoffDelay } from '../core/backoff';

/** The longest a request waits for the others at the gate. */
export const GATE_MAX_WAIT_MS = 10000;

/**
 * Offset requests side by side, metadata requests alone (and first, once one waits). No request
 * waits longer than `maxWaitMs` for the others (a broker that does not answer must not stall the
 * rest beyond kafkajs's own timeouts): past that it goes, and the retry below covers it.
 */
export class MetadataGate {
  private offsets = 0;
  private metadata = 0;
  private waiters: Array<() => void> = [];
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly maxWaitMs = GATE_MAX_WAIT_MS) {}

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves at the next change of the requests in flight, or at `until`. */
  private changed(until: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, until - Date.now()));
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(done);
    });
  }

  /** Runs `fn` beside other offset requests, not beside a metadata request. */
  async shared<T>(fn: () => Promise<T>): Promise<T> {
    const until = Date.now() + this.maxWaitMs;
    while (this.metadata > 0 && Date.now() < until) await this.changed(until);
    this.offsets++;
    try {
      return await fn();
    } finally {
      this.offsets--;
      this.wake();
    }
  }

  /** Runs `fn` alone: after the offset requests in flight, before the ones that come meanwhile. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const until = Date.now() + this.maxWaitMs;
    this.metadata++;
    const previous = this.chain;
    let release: () => void = () => undefined;
    this.chain = new Promise((resolve) => (release = resolve));
    try {
      let before = true;
      void previous.then(() => {
        before = false;
        this.wake();
      });
      while (before && Date.now() < until) await this.changed(until);
      while (this.offsets > 0 && Date.now() < until) await this.changed(until);
      return await fn();
    } finally {
      release();
      this.metadata--;
      this.wake();
    }
  }
}

/** How often a fetchTopicOffsets that failed inside kafkajs is tried, in all. */
export const INTERNAL_ERROR_ATTEMPTS = 5;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `admin` with fetchTopicOffsets and fetchTopicMetadata guarded (see above); every other method
 * is the admin's own. `delayMs(attempt)`: the pause before a retry.
 */
export function guardAdmin(admin: Admin, delayMs: (attempt: number) => number = (attempt) => backoffDelay(attempt, 50, 1000)): Admin {
  const gate = new MetadataGate();
  const fetchTopicOffsets: Admin['fetchTopicOffsets'] = (topic) =>
    gate.shared(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await admin.fetchTopicOffsets(topic);
        } catch (e) {
          if (attempt >= INTERNAL_ERROR_ATTEMPTS || !isKafkaClientInternalError(e)) throw e;
        }
        await pause(delayMs(attempt));
      }
    });
  const fetchTopicMetadata: Admin['fetchTopicMetadata'] = (options) => gate.exclusive(() => admin.fetchTopicMetadata(options));
  return new Proxy(admin, {
    get(target, prop, receiver) {
      if (prop === 'fetchTopicOffsets') return fetchTopicOffsets;
      if (prop === 'fetchTopicMetadata') return fetchTopicMetadata;
      return Reflect.get(target, prop, receiver);
    },
  });
}
