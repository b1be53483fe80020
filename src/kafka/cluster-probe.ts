/**
 * A small question to a cluster, bounded in time, whose outcome goes to the shared connection
 * state: nodes ask it on a timer so that they are never green while a cluster stopped answering.
 * A consumer that tails a topic says nothing while its broker is gone (kafkajs retries quietly,
 * for a minute or more), and a request to a broker that stopped answering waits for kafkajs's
 * request timeout (30 s); the probe answers within `timeoutMs` either way.
 *
 * On failure the connection is marked failed (every node using it shows it in red) and the
 * explained error is thrown; on success the connection is marked healthy.
 */
import type { Admin } from 'kafkajs';

/** What a probe needs from a cluster connection (ClusterConnection fits). */
export interface ProbeConnection {
  admin(): Promise<Admin>;
  reportOk(): void;
  /** Marks the connection failed; returns the explanation. */
  reportError(err: unknown): string;
}

/** Default: ask every 10 s, and count no answer within 10 s as a failure. */
export const PROBE_EVERY_MS = 10_000;
export const PROBE_TIMEOUT_MS = 10_000;

/**
 * Runs `ask` on the connection's admin client within `timeoutMs`. Resolves with its answer
 * (the connection is healthy); rejects with the explained failure (the connection is failed).
 */
export async function askCluster<T>(connection: ProbeConnection, timeoutMs: number, ask: (admin: Admin) => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the cluster did not answer within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  });
  try {
    const answer = await Promise.race([connection.admin().then(ask), timeout]);
    connection.reportOk();
    return answer;
  } catch (e) {
    throw new Error(connection.reportError(e));
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/**
 * Runs one probe at a time: `due(now)` says whether one should start (at most every `everyMs`,
 * never two at once). The owner drives it from its own timer.
 */
export class ProbeSchedule {
  private running = false;
  private last = -Infinity;

  constructor(private readonly everyMs: number) {}

  /** Whether a probe should start now; if so it counts as started. Call {@link done} when it settles. */
  due(now: number): boolean {
    if (this.running || now - this.last < this.everyMs) return false;
    this.running = true;
    this.last = now;
    return true;
  }

  done(): void {
    this.running = false;
  }
}

const clusterIds = new WeakMap<object, Promise<string>>();

/**
 * The id the cluster's brokers report (Metadata's cluster id; no ACL needed), asked once per
 * connection and kept: a cluster's id never changes. A failed question is asked again next time.
 */
export function clusterIdOf(connection: { admin(): Promise<Admin> }): Promise<string> {
  let id = clusterIds.get(connection);
  if (!id) {
    id = connection.admin().then((admin) => admin.describeCluster()).then((d) => d.clusterId);
    clusterIds.set(connection, id);
    id.catch(() => clusterIds.delete(connection));
  }
  return id;
}
