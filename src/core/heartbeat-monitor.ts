/**
 * End-to-end liveness of one replication flow, judged from replicated heartbeats.
 *
 * MM2 writes heartbeats and replicates them, but nothing upstream evaluates them (MirrorClient and
 * RemoteClusterUtils only read topic names; no MM2 code judges liveness). This is that evaluation, as pure logic with
 * the clock passed in:
 *
 * - latency of one heartbeat = arrival time - heartbeat timestamp (the emitter's clock);
 * - freshness = how old the newest heartbeat that has arrived is (now - max timestamp);
 * - the flow is `stale` when that age exceeds `staleAfterMs` (or, when none has arrived yet,
 *   when the monitor has been running longer than that), and `ok` again as soon as a heartbeat
 *   emitted within `staleAfterMs` arrives.
 *
 * Judging by the newest timestamp rather than by the last arrival means a mirror that still
 * copies but lags more than `staleAfterMs` is reported stale too — what matters for failover is
 * how old the newest data on the target is, not whether something trickles in.
 *
 * Alarms are edge-triggered: `stale` once when the flow becomes stale, `ok` once when it
 * recovers after a `stale`; nothing is repeated and there is no `ok` without a prior `stale`.
 */

/**
 * Why a heartbeat timestamp (epoch ms, the emitter's clock) makes no sense at `now`, or null
 * when it does: before the epoch, or more than `futureToleranceMs` ahead of this clock. Such a
 * heartbeat would give a latency of about -9.2e18 ms and, taken as the newest one, keep a stale
 * flow looking fresh; watchers skip it and count it like a malformed record. The watcher uses
 * its stale-after time as the tolerance: a clock skew below it is accepted, and an accepted
 * future heartbeat can hide a stopped mirror for at most twice that time.
 */
export function heartbeatTimestampProblem(timestampMs: bigint | number, now: number, futureToleranceMs: number): string | null {
  const ts = typeof timestampMs === 'bigint' ? timestampMs : BigInt(Math.trunc(timestampMs));
  if (ts < 0n) return `timestamp ${ts} is before the epoch`;
  const limit = BigInt(Math.trunc(now + futureToleranceMs));
  if (ts > limit) return `timestamp ${ts} is ${futureToleranceText(ts - BigInt(Math.trunc(now)))} ahead of this clock (more than ${Math.round(futureToleranceMs / 1000)} s)`;
  return null;
}

function futureToleranceText(aheadMs: bigint): string {
  const s = aheadMs / 1000n;
  return s < 3600n ? `${s} s` : s < 86400n * 2n ? `${s / 3600n} h` : `${s / 86400n} d`;
}

export type HeartbeatHealth = 'unknown' | 'ok' | 'stale';

/** An edge of the alarm: what the node sends on its alarm output. */
export interface HeartbeatAlarm {
  state: 'stale' | 'ok';
  /** Timestamp (epoch ms, emitter's clock) of the newest heartbeat seen, or null if none. */
  lastSeen: number | null;
  /** now - lastSeen, or null if none has been seen. */
  ageMs: number | null;
  staleAfterMs: number;
}

export interface HeartbeatObservation {
  /** Arrival time minus heartbeat timestamp. Negative means the emitter's clock is ahead. */
  latencyMs: number;
  /** The alarm edge this heartbeat caused (only ever `ok`), or null. */
  alarm: HeartbeatAlarm | null;
}

export interface HeartbeatSnapshot {
  health: HeartbeatHealth;
  lastSeen: number | null;
  ageMs: number | null;
  /** Latency of the most recent arrival, or null. */
  lastLatencyMs: number | null;
  /** Arrival time of the most recent heartbeat, or null. */
  lastArrival: number | null;
  /** Heartbeats observed since start. */
  count: number;
  /** How long the monitor has been running. */
  runningMs: number;
  staleAfterMs: number;
}

export class HeartbeatMonitor {
  private health: HeartbeatHealth = 'unknown';
  private newest: number | null = null;
  private lastLatency: number | null = null;
  private arrival: number | null = null;
  private seen = 0;

  constructor(readonly staleAfterMs: number, readonly startedAt: number) {
    if (!Number.isFinite(staleAfterMs) || staleAfterMs <= 0) throw new RangeError('staleAfterMs must be a positive number');
  }

  /** Records a heartbeat (emitted at `timestampMs`) that arrived at `now`. */
  observe(timestampMs: number, now: number): HeartbeatObservation {
    this.seen += 1;
    if (this.newest === null || timestampMs > this.newest) this.newest = timestampMs;
    const latencyMs = now - timestampMs;
    this.lastLatency = latencyMs;
    this.arrival = now;
    return { latencyMs, alarm: this.check(now) };
  }

  /**
   * Notes a heartbeat that was already in the topic when reading started (backlog): it counts
   * for freshness, but it is not an arrival and has no meaningful latency. Call check() after.
   */
  seed(timestampMs: number): void {
    if (this.newest === null || timestampMs > this.newest) this.newest = timestampMs;
  }

  /** Re-evaluates at `now`; returns the alarm edge if the state changed in a way that is reported. */
  check(now: number): HeartbeatAlarm | null {
    const stale = this.isStale(now);
    if (stale && this.health !== 'stale') {
      this.health = 'stale';
      return this.alarm('stale', now);
    }
    if (!stale && this.newest !== null && this.health !== 'ok') {
      const was = this.health;
      this.health = 'ok';
      return was === 'stale' ? this.alarm('ok', now) : null;
    }
    return null;
  }

  get state(): HeartbeatHealth {
    return this.health;
  }

  snapshot(now: number): HeartbeatSnapshot {
    return {
      health: this.health,
      lastSeen: this.newest,
      ageMs: this.newest === null ? null : now - this.newest,
      lastLatencyMs: this.lastLatency,
      lastArrival: this.arrival,
      count: this.seen,
      runningMs: now - this.startedAt,
      staleAfterMs: this.staleAfterMs,
    };
  }

  private isStale(now: number): boolean {
    if (this.newest === null) return now - this.startedAt > this.staleAfterMs;
    return now - this.newest > this.staleAfterMs;
  }

  private alarm(state: 'stale' | 'ok', now: number): HeartbeatAlarm {
    return {
      state,
      lastSeen: this.newest,
      ageMs: this.newest === null ? null : now - this.newest,
      staleAfterMs: this.staleAfterMs,
    };
  }
}

/**
 * A duration in the largest unit that keeps it readable: ms below 1 s, s below 2 min, min below
 * 2 h, h below 2 d, then d; truncated towards zero, sign kept (a negative latency means clock skew).
 */
export function compactDuration(ms: number): { n: number; unit: 'ms' | 's' | 'min' | 'h' | 'd' } {
  const sign = ms < 0 ? -1 : 1;
  const a = Math.floor(Math.abs(ms));
  const r = (n: number, unit: 'ms' | 's' | 'min' | 'h' | 'd') => ({ n: n === 0 ? 0 : sign * n, unit });
  if (a < 1000) return r(a, 'ms');
  if (a < 120_000) return r(Math.floor(a / 1000), 's');
  if (a < 2 * 3_600_000) return r(Math.floor(a / 60_000), 'min');
  if (a < 2 * 86_400_000) return r(Math.floor(a / 3_600_000), 'h');
  return r(Math.floor(a / 86_400_000), 'd');
}
