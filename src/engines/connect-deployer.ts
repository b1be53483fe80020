/**
 * Drives MirrorMaker 2 connectors on a Kafka Connect cluster (over ./connect-rest): deploys
 * their configs, pauses, resumes, restarts and deletes them, and waits until the states the
 * action causes are reached (PAUSED after pause, RUNNING after deploy...) or a failure that
 * waiting will not fix. No Node-RED here: the mm2-connect node shows and sends what it returns.
 */
import type { ConnectorKind } from '../core/config-properties';
import { ConnectRestClient, ConnectRestError, parseConnectUrl, type ConnectorStatus } from '../kafka/connect-rest';
import { Sleeps } from '../core/timers';

export { parseConnectUrl };

export const CONNECT_ACTIONS = ['deploy', 'status', 'pause', 'resume', 'restart', 'delete'] as const;
export type ConnectAction = (typeof CONNECT_ACTIONS)[number];

/** How long an action waits for the states it causes, polling every SETTLE_POLL_MS. */
const SETTLE_MS = 30000;
const SETTLE_POLL_MS = 500;

/** A connector of the replication on the Connect cluster. */
export interface ConnectorRef {
  kind: ConnectorKind;
  name: string;
}

/** One connector after an action or a poll. */
export interface ConnectorOutcome {
  kind: ConnectorKind;
  status: ConnectorStatus;
  /** What the action did to it: created, updated, paused, resumed, restarted, deleted, absent. */
  result?: string;
}

export interface ActionOutcome {
  connectors: ConnectorOutcome[];
  /** Every connector is in the state the action asks for. */
  ok: boolean;
  /** False when the states were still changing after the wait. */
  settled: boolean;
}

export interface ConnectDeployerOptions {
  url: string;
  username?: string;
  password?: string;
}

const TRANSIENT = new Set(['UNASSIGNED', 'RESTARTING']);

/** Whether a connector's states are what `action` asks for (or a failure that waiting will not fix). */
function reached(action: ConnectAction, s: ConnectorStatus): { done: boolean; ok: boolean } {
  if (action === 'delete') return { done: s.state === null, ok: s.state === null };
  if (s.state === null) return { done: action === 'status', ok: false };
  const states = [s.state, ...s.tasks.map((t) => t.state)];
  if (states.includes('FAILED')) return { done: !states.some((x) => TRANSIENT.has(x)), ok: false };
  if (action === 'pause') return { done: states.every((x) => x === 'PAUSED'), ok: states.every((x) => x === 'PAUSED') };
  if (action === 'status') return { done: true, ok: states.every((x) => x === 'RUNNING') };
  const running = states.every((x) => x === 'RUNNING');
  if (action === 'deploy') {
    // a connector that was paused stays paused after a config update
    const paused = states.every((x) => x === 'PAUSED');
    return { done: running || paused, ok: running || paused };
  }
  return { done: running, ok: running };
}

/** A failure in few words for a status: `unreachable` when Connect did not answer at all. */
export function connectErrorBrief(e: unknown): { unreachable: boolean; text: string } {
  if (e instanceof ConnectRestError) return { unreachable: e.status === 0, text: e.short };
  return { unreachable: false, text: e instanceof Error ? e.message : String(e) };
}

export class ConnectDeployer {
  private readonly client: ConnectRestClient;
  private stopped = false;
  private readonly sleeps = new Sleeps();

  /** Throws when the URL is not one (the error explains). */
  constructor(opts: ConnectDeployerOptions) {
    this.client = new ConnectRestClient({ url: opts.url, username: opts.username, password: opts.password });
  }

  /** The URL without credentials, for messages. */
  get displayUrl(): string {
    return this.client.displayUrl;
  }

  /** No more repeats or waits: the actions under way end with what they have. */
  stop(): void {
    this.stopped = true;
    this.sleeps.wakeAll();
    this.client.stopRetrying();
  }

  /** The states of these connectors now. */
  async statuses(selected: ConnectorRef[]): Promise<ConnectorOutcome[]> {
    const out: ConnectorOutcome[] = [];
    for (const c of selected) out.push({ kind: c.kind, status: await this.client.status(c.name) });
    return out;
  }

  /** Deploys these connector configs (create or update), then waits for them to run. */
  deploy(connectors: Array<ConnectorRef & { config: Record<string, string> }>): Promise<ActionOutcome> {
    return this.run('deploy', connectors, async (results) => {
      for (const c of connectors) {
        const r = await this.client.putConfig(c.name, c.config);
        results.set(c.name, r.created ? 'created' : 'updated');
      }
    });
  }

  /** Any other action on these connectors, then waits for the states it causes. */
  act(action: Exclude<ConnectAction, 'deploy'>, selected: ConnectorRef[]): Promise<ActionOutcome> {
    return this.run(action, selected, async (results) => {
      const client = this.client;
      for (const c of selected) {
        if (action === 'pause') await client.pause(c.name).then(() => results.set(c.name, 'paused'), absentOr(c.name, results));
        else if (action === 'resume') await client.resume(c.name).then(() => results.set(c.name, 'resumed'), absentOr(c.name, results));
        else if (action === 'restart') await client.restart(c.name).then(() => results.set(c.name, 'restarted'), absentOr(c.name, results));
        else if (action === 'delete') results.set(c.name, (await client.delete(c.name)) ? 'deleted' : 'absent');
      }
    });
  }

  private async run(action: ConnectAction, selected: ConnectorRef[], apply: (results: Map<string, string>) => Promise<void>): Promise<ActionOutcome> {
    const results = new Map<string, string>();
    await apply(results);
    // wait for the states the action causes
    const deadline = Date.now() + (action === 'status' ? 0 : SETTLE_MS);
    let connectors: ConnectorOutcome[] = [];
    let settled = false;
    let ok = false;
    for (;;) {
      const raw = await this.statuses(selected);
      const checks = raw.map((r) => (results.get(r.status.name) === 'absent' && action !== 'delete' ? { done: true, ok: false } : reached(action, r.status)));
      connectors = raw.map((r) => {
        const result = results.get(r.status.name);
        return result ? { ...r, result } : r;
      });
      settled = checks.every((c) => c.done);
      ok = checks.every((c) => c.ok);
      if (settled || Date.now() >= deadline || this.stopped) break;
      await this.sleeps.sleep(SETTLE_POLL_MS);
    }
    return { connectors, ok, settled };
  }
}

function absentOr(name: string, results: Map<string, string>): (e: unknown) => void {
  return (e) => {
    if (e instanceof ConnectRestError && e.status === 404) results.set(name, 'absent');
    else throw e;
  };
}
