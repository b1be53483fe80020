/**
 * kafkajs 2.2.4's RequestQueue keeps a 1 ms timer going on every broker connection once its first
 * response came (kafkajs issues #1556 and #1704, unfixed upstream): each response checks the queue
 * of waiting requests, and that check schedules the next one whether or not a request waits;
 * while the client is not throttled the delay is negative, so the timer fires at once, checks
 * again, schedules again, forever (about a thousand timers a second per connection).
 *
 * In Node-RED at 10,000 groups x 10 (issue 24) the timer objects were the largest allocation after
 * group discovery (82 of 492 MiB sampled in 30 s, about 2.7 MiB/s). Replaced here: with nothing
 * waiting and no throttle in effect, no check is scheduled (there is nothing to check: a request
 * that has to wait schedules its own check when it is queued, and every response or timeout checks
 * the queue); everything else as kafkajs does it (a waiting request is checked after 10 ms or when
 * the throttle ends). Applied once, when this module loads, to the kafkajs version the package pins.
 */

interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's CHECK_PENDING_REQUESTS_INTERVAL (src/network/requestQueue/index.js). */
const CHECK_PENDING_REQUESTS_INTERVAL = 10;

/** kafkajs's scheduling, less the timer it keeps when nothing waits and nothing is throttled. */
export function scheduleCheckPendingRequests(this: RequestQueueInternals): void {
  if (this.throttleCheckTimeoutId) return;
  let scheduleAt = this.throttledUntil - Date.now();
  if (this.pending.length > 0) scheduleAt = scheduleAt > 0 ? scheduleAt : CHECK_PENDING_REQUESTS_INTERVAL;
  else if (scheduleAt <= 0) return; // nothing waits, no throttle: nothing to check
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, scheduleAt);
}

/** Whether kafkajs's RequestQueue now schedules with {@link scheduleCheckPendingRequests}. */
export function requestQueuePatched(): boolean {
  return requestQueueClass()?.prototype.scheduleCheckPendingRequests === scheduleCheckPendingRequests;
}

function requestQueueClass(): { prototype: RequestQueueInternals } | null {
  try {
    return require('kafkajs/src/network/requestQueue') as { prototype: RequestQueueInternals };
  } catch {
    return null; // another layout (a kafkajs other than the pinned one): left as it is
  }
}

const RequestQueue = requestQueueClass();
// only the method this replaces, as kafkajs 2.2.4 has it (the same name, no arguments)
if (RequestQueue && typeof RequestQueue.prototype.scheduleCheckPendingRequests === 'function' && RequestQueue.prototype.scheduleCheckPendingRequests.length === 0) {
  RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
}
