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

export function truncate(text: string, max = 60): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

export class StatusReporter implements ConnectionUser {
  readonly id: string;
  private conn = new Map<string, ConnectionState>();
  private own: NodeStatus | null = null;
  private last = '';

  constructor(private readonly node: Node) {
    this.id = node.id;
  }

  /** The node's own activity ("loading 40%", "12 groups / 3 s ago"). */
  activity(status: NodeStatus): void {
    this.own = status;
    this.render();
  }

  /** A failure of the node itself (bad settings, a failed cycle). */
  fail(text: string): void {
    this.own = { fill: 'red', shape: 'ring', text: truncate(text) };
    this.render();
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

  private render(): void {
    let st: NodeStatus | null = null;
    for (const [alias, s] of this.conn) {
      if (s.state === 'error') {
        st = { fill: 'red', shape: 'ring', text: truncate(`${alias}: ${s.error ?? 'error'}`) };
        break;
      }
    }
    if (!st && this.own) st = this.own;
    if (!st) {
      const connecting = [...this.conn.values()].some((s) => s.state === 'connecting');
      const connected = this.conn.size > 0 && [...this.conn.values()].every((s) => s.state === 'connected');
      if (connecting) st = { fill: 'yellow', shape: 'ring', text: 'node-red:common.status.connecting' };
      else if (connected) st = { fill: 'green', shape: 'dot', text: 'node-red:common.status.connected' };
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
  const status = new StatusReporter(node);
  const rep = typeof replicationId === 'string' && replicationId ? (RED.nodes.getNode(replicationId) as ReplicationConfigNode | null) : null;
  if (!rep) {
    status.fail(t('mm2-common.errors.no-replication'));
    node.error(t('mm2-common.errors.no-replication'));
    return null;
  }
  const problems = [...rep.problems, ...(rep.sourceNode?.problems ?? []), ...(rep.targetNode?.problems ?? [])];
  if (problems.length > 0 || !rep.policy) {
    const text = problems.join('; ') || 'invalid replication settings';
    status.fail(text);
    node.error(t('mm2-common.errors.bad-replication', { problems: text }));
    return null;
  }
  const timers: Array<{ clear(): void }> = [];
  const closers: Array<(removed: boolean) => Promise<void> | void> = [];
  const used: ClusterConnection[] = [];
  let closing = false;
  const ctx: FlowNodeContext = {
    rep,
    status,
    use(connection) {
      if (!used.includes(connection)) {
        used.push(connection);
        connection.register({ id: node.id, onConnectionState: status.connectionStateFor(connection.alias) });
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
    const work = closers.map((fn) => Promise.resolve().then(() => fn(removed)).catch((e) => node.warn(`close: ${(e as Error).message}`)));
    Promise.allSettled(work)
      .then(() => Promise.allSettled(used.map((c) => c.deregister({ id: node.id }))))
      .finally(() => {
        node.status({});
        done();
      });
  });
  return ctx;
}
