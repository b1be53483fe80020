/**
 * What every mm2 flow node shares: finding its replication config node, registering with the
 * cluster connections it uses (so their state shows in its status, as Node-RED's MQTT nodes
 * do), a status that combines connection state with the node's own activity, and timers that
 * are cleared on close.
 */
import type { Node, NodeAPI, NodeStatus } from './red';
import type { Translate } from './i18n';
import type { ReplicationConfigNode } from './config-nodes';
import type { ClusterConnection, ConnectionState, ConnectionUser } from '../../kafka/connection';
import { assertTimerMs } from '../../core/intervals';
import { ReportThrottle } from '../../core/report-throttle';
import { isClientInternalFailure, refusalSummary, tokenFailureSummary, withoutClientInternals } from '../../kafka/client';

/** The longest status text a node shows (longer ones are cut with an ellipsis). */
export const STATUS_MAX = 60;

export function truncate(text: string, max = STATUS_MAX): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

/**
 * Logs a failure of a node: as an error (it fires Catch nodes), except kafkajs failing inside on
 * an answer it did not expect (explained by kafka/client, tried again by the next cycle), which
 * is a warning.
 */
export function logFailure(node: Pick<Node, 'warn' | 'error'>, text: string): void {
  if (isClientInternalFailure(text)) node.warn(text);
  else node.error(text);
}

/** The longest status text of a refusal: the ACL it names is the point, a resource name can be long. */
export const REFUSAL_STATUS_MAX = 100;

/**
 * A status text, cut to STATUS_MAX; one that tells of a refusal by the authorizer shows the ACL
 * it needs instead (refusalSummary: `not authorized: needs WRITE on Topic:heartbeats`), one of an
 * OAUTHBEARER token failure what failed and the field to fix (tokenFailureSummary). kafkajs's
 * own words of a failure inside it are left to the log (withoutClientInternals).
 */
export function failureStatusText(text: string): string {
  // a refusal by the authorizer, an OAUTHBEARER token failure: what to fix, whatever came before it
  const summary = refusalSummary(text) ?? tokenFailureSummary(text);
  return summary ? truncate(summary, REFUSAL_STATUS_MAX) : truncate(withoutClientInternals(text));
}

/** How long a failure that stays the same goes unrepeated in the log. */
export const FAILURE_REMIND_MS = 10 * 60_000;

/**
 * The one place where a node logs a failure that repeats (a cycle failing, a topic that cannot be
 * created, an unreachable Connect worker): each kind of failure is logged when its text changes,
 * not every cycle; the same text again only after `remindMs` while it lasts, and at once after
 * `ok(kind)` said it was over. Numbers in the text (offsets, counts, ms) do not make it a new
 * failure. `limited` is for counters (malformed records skipped): the core ReportThrottle, at
 * most once per `everyMs`, the last text of a period reported when the period ends.
 * Once the node closes (a redeploy replaced it) it logs nothing: the new node reports.
 */
export class FailureLog {
  private last = new Map<string, { key: string; at: number }>();
  private throttles = new Map<string, { throttle: ReportThrottle<string>; logged?: () => void }>();
  private closed = false;

  constructor(
    private readonly node: Pick<Node, 'warn' | 'error'>,
    private readonly remindMs = FAILURE_REMIND_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Logs `text` as a warning unless this kind's failure is unchanged. Returns whether it logged. */
  warn(kind: string, text: string): boolean {
    if (!this.changed(kind, text)) return false;
    this.node.warn(text);
    return true;
  }

  /**
   * Logs `text` as an error (through logFailure: a warning when kafkajs failed inside) unless
   * this kind's failure is unchanged. Returns whether it logged.
   */
  error(kind: string, text: string): boolean {
    if (!this.changed(kind, text)) return false;
    logFailure(this.node, text);
    return true;
  }

  /** This kind of failure is over: the next one is logged whatever its text. */
  ok(kind: string): void {
    this.last.delete(kind);
  }

  /**
   * At most one warning of this kind per `everyMs` (for counts that keep growing); the last text
   * held back is logged when the period ends. `logged` runs whenever a warning of this kind is
   * logged (to restart a count "since the last warning"). Returns whether it logged now.
   */
  limited(kind: string, text: string, everyMs: number, logged?: () => void): boolean {
    if (this.closed) return false;
    let entry = this.throttles.get(kind);
    if (!entry) {
      const e: { throttle: ReportThrottle<string>; logged?: () => void } = {
        throttle: new ReportThrottle<string>({
          everyMs,
          now: this.now,
          first: (t) => this.logLimited(e, t),
          more: (_count, t) => this.logLimited(e, t),
        }),
      };
      entry = e;
      this.throttles.set(kind, entry);
    }
    entry.logged = logged;
    const pending = entry.throttle.pending;
    entry.throttle.report(text);
    return entry.throttle.pending === pending && pending === 0;
  }

  /** Nothing is logged any more (the node closed); held-back counter warnings are dropped. */
  close(): void {
    this.closed = true;
    for (const e of this.throttles.values()) e.throttle.clear();
  }

  private logLimited(entry: { logged?: () => void }, text: string): void {
    if (this.closed) return;
    this.node.warn(text);
    entry.logged?.();
  }

  private changed(kind: string, text: string): boolean {
    if (this.closed) return false;
    const key = text.replace(/\d+/g, '#');
    const now = this.now();
    const prev = this.last.get(kind);
    if (prev && prev.key === key && now - prev.at < this.remindMs) return false;
    this.last.set(kind, { key, at: now });
    return true;
  }
}

/** What a node's status module says to show: its activity, or a failure of its own (red). */
export type StatusView = { activity: NodeStatus } | { fail: string };

export class StatusReporter implements ConnectionUser {
  readonly id: string;
  private conn = new Map<string, ConnectionState>();
  private own: NodeStatus | null = null;
  private last = '';

  /** `t` words the connection states in the user's language (`mm2-common.status.*`). */
  constructor(private readonly node: Node, private readonly t?: Translate) {
    this.id = node.id;
  }

  /** The node's own activity ("loading 40%", "12 groups / 3 s ago"). */
  activity(status: NodeStatus): void {
    this.own = status;
    this.render();
  }

  /** A failure of the node itself (bad settings, a failed cycle). */
  fail(text: string): void {
    this.own = { fill: 'red', shape: 'ring', text: failureStatusText(text) };
    this.render();
  }

  /** Shows what a status module computed. */
  show(view: StatusView): void {
    if ('fail' in view) this.fail(view.fail);
    else this.activity(view.activity);
  }

  connectionStateFor(alias: string): (s: ConnectionState) => void {
    return (s) => {
      this.conn.set(alias, s);
      this.render();
    };
  }

  onConnectionState(): void {
    /* replaced per connection by connectionStateFor */
  }

  private closed = false;

  /** The node closed: connection states and late results of its work no longer change its status. */
  close(): void {
    this.closed = true;
  }

  private word(state: 'connecting' | 'connected'): string {
    return this.t ? this.t(`mm2-common.status.${state}`) : state;
  }

  private render(): void {
    if (this.closed) return;
    let st: NodeStatus | null = null;
    for (const [alias, s] of this.conn) {
      if (s.state === 'error') {
        const why = s.error ?? 'error';
        st = { fill: 'red', shape: 'ring', text: refusalSummary(why) || tokenFailureSummary(why) ? failureStatusText(why) : truncate(`${alias}: ${withoutClientInternals(why)}`) };
        break;
      }
    }
    if (!st && this.own) st = this.own;
    if (!st) {
      const connecting = [...this.conn.values()].some((s) => s.state === 'connecting');
      const connected = this.conn.size > 0 && [...this.conn.values()].every((s) => s.state === 'connected');
      // our own words, translated here: Node-RED 5's editor showed the key node-red:common.status.connecting as it was
      if (connecting) st = { fill: 'yellow', shape: 'ring', text: this.word('connecting') };
      // connected, but the node has not said yet that it does its job: not green (a node
      // redeployed on its own finds its cluster connected and would show green at once)
      else if (connected) st = { fill: 'grey', shape: 'dot', text: this.word('connected') };
    }
    const key = JSON.stringify(st);
    if (key === this.last) return;
    this.last = key;
    this.node.status(st ?? {});
  }
}

export interface FlowNodeContext {
  rep: ReplicationConfigNode;
  status: StatusReporter;
  /** Logging of repeated failures (once per change) and counters (rate-limited); silent after close. */
  log: FailureLog;
  /** Registers with a connection (state shows in the status); deregistered on close. */
  use(connection: ClusterConnection): ClusterConnection;
  /** setInterval that is cleared on close. */
  every(ms: number, fn: () => void): void;
  /** setTimeout that is cleared on close. */
  after(ms: number, fn: () => void): void;
  /** Work to do on close (stop consumers...), awaited within the close timeout. */
  onClose(fn: (removed: boolean) => Promise<void> | void): void;
  readonly closing: boolean;
}

/**
 * Sets a flow node up. Returns null (status and log already say why) when the replication
 * config node is missing or invalid.
 */
export function setupFlowNode(RED: NodeAPI, node: Node, replicationId: unknown, t: Translate): FlowNodeContext | null {
  const status = new StatusReporter(node, t);
  const rep = typeof replicationId === 'string' && replicationId ? (RED.nodes.getNode(replicationId) as ReplicationConfigNode | null) : null;
  if (!rep) {
    status.fail(t('mm2-common.errors.no-replication'));
    node.error(t('mm2-common.errors.no-replication'));
    return null;
  }
  // another config node chosen (an mm2-cluster, say): name it and what to choose instead
  const chosen = rep as unknown as { type?: unknown; name?: unknown; id?: unknown };
  if (chosen.type !== 'mm2-replication') {
    const text = t('mm2-common.errors.not-replication', { node: String(chosen.name || chosen.id || replicationId), type: String(chosen.type ?? 'unknown') });
    status.fail(text);
    node.error(text);
    return null;
  }
  const problems = [...rep.problems, ...(rep.sourceNode?.problems ?? []), ...(rep.targetNode?.problems ?? [])];
  if (problems.length > 0 || !rep.policy) {
    const text = problems.join('; ') || t('mm2-common.errors.no-policy');
    status.fail(text);
    node.error(t('mm2-common.errors.bad-replication', { problems: text }));
    return null;
  }
  const timers: Array<{ clear(): void }> = [];
  const closers: Array<(removed: boolean) => Promise<void> | void> = [];
  const used: Array<{ connection: ClusterConnection; user: ConnectionUser }> = [];
  const log = new FailureLog(node);
  let closing = false;
  const ctx: FlowNodeContext = {
    rep,
    status,
    log,
    use(connection) {
      if (!used.some((u) => u.connection === connection)) {
        // the registration itself is what is removed on close: a node that replaced this one
        // (same id, after a redeploy) keeps its own
        const user: ConnectionUser = { id: node.id, onConnectionState: status.connectionStateFor(connection.alias) };
        used.push({ connection, user });
        connection.register(user);
      }
      return connection;
    },
    every(ms, fn) {
      // A repeating timer below 1 ms or above the timer limit would be a busy loop: settings
      // are bounded by core/intervals before they get here, this is the last guard.
      if (ms < 1) throw new RangeError(`interval: ${ms} ms is not an interval`);
      const t = setInterval(() => {
        if (!closing) fn();
      }, assertTimerMs(ms, 'interval'));
      timers.push({ clear: () => clearInterval(t) });
    },
    after(ms, fn) {
      const t = setTimeout(() => {
        if (!closing) fn();
      }, assertTimerMs(ms, 'timeout'));
      timers.push({ clear: () => clearTimeout(t) });
    },
    onClose(fn) {
      closers.push(fn);
    },
    get closing() {
      return closing;
    },
  };
  node.on('close', (removed: boolean, done: () => void) => {
    closing = true;
    for (const t of timers) t.clear();
    // from now on the node neither logs nor shows the failures of its (old) configuration
    log.close();
    status.close();
    const work = closers.map((fn) => Promise.resolve().then(() => fn(removed)).catch((e) => node.warn(`close: ${(e as Error).message}`)));
    Promise.allSettled(work)
      .then(() => Promise.allSettled(used.map((u) => u.connection.deregister(u.user))))
      .finally(() => {
        node.status({});
        done();
      });
  });
  return ctx;
}
