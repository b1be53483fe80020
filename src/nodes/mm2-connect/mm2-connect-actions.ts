/**
 * An `mm2-connect` node's actions (deploy, status, pause, resume, restart, delete) and polls: one
 * at a time, in arrival order. Each action ends in a ConnectMessage (topic mm2/connect) to the
 * sender, or in done(err).
 */
import type { DoneFn, NodeMessage, SendFn } from '../shared/red';
import type { FlowNodeContext } from '../shared/flow-node';
import type { Translate } from '../shared/i18n';
import { TOPICS, connectPayload, connectorStateJson, type ConnectMessage } from '../shared/contracts';
import { connectFailureBrief, errorText } from './mm2-connect-status';
import type { ConnectPoll } from './mm2-connect-poll';
import type { ConnectorKind } from '../../core/config-properties';
import type { ConnectorExport } from '../../core/export/model';
import type { ActionOutcome, ConnectAction, ConnectDeployer, ConnectorRef } from '../../engines/connect-deployer';

export interface ConnectActionsOptions {
  t: Translate;
  ctx: Pick<FlowNodeContext, 'status' | 'closing'>;
  deployer: ConnectDeployer;
  /** The connector kinds the node manages. */
  kinds: ConnectorKind[];
  /** The replication flow as deployed now (nodes/mm2-connect/mm2-connect-export). */
  flowExport(): ConnectorExport;
  /** The connectors exported when the node started. */
  connectors: ConnectorRef[];
}

export class ConnectActions {
  private queue: Promise<unknown> = Promise.resolve();
  /** The connectors of the flow as last exported (a deploy may change them). */
  connectors: ConnectorRef[];
  /** Set by the node once made (it reads `connectors`). */
  poll!: ConnectPoll;

  constructor(private readonly o: ConnectActionsOptions) {
    this.connectors = o.connectors;
  }

  /** Runs `action` (on the connectors of `only`, or all) after those before it; its message goes to `send`. */
  enqueue(action: ConnectAction, only: ConnectorKind[] | null, msg: NodeMessage, send: SendFn, done: DoneFn): void {
    const { t, ctx } = this.o;
    ctx.status.activity({ fill: 'blue', shape: 'ring', text: t('mm2-connect.status.working', { action }) });
    this.queue = this.queue
      .then(() => this.perform(action, only))
      .then(
        (payload) => {
          if (ctx.closing) return done();
          msg.topic = TOPICS.connect;
          msg.action = action;
          msg.payload = payload;
          send(msg);
          done();
        },
        (e) => {
          ctx.status.fail(t('mm2-connect.errors.action', { action, error: connectFailureBrief(t, e) }));
          done(new Error(t('mm2-connect.errors.action', { action, error: errorText(e) })));
        },
      );
  }

  /** A status poll after what is queued (`sendOnChange`: see ConnectPoll.once). */
  enqueuePoll(sendOnChange: boolean): void {
    this.queue = this.queue.then(() => this.poll.once(sendOnChange));
  }

  private async perform(action: ConnectAction, only: ConnectorKind[] | null): Promise<ConnectMessage['payload']> {
    const { t, deployer, kinds } = this.o;
    let outcome: ActionOutcome;
    if (action === 'deploy') {
      const ex = this.o.flowExport();
      if (ex.problems.length > 0) {
        throw new Error(t('mm2-connect.errors.export', { problems: ex.problems.map((p) => (p.property ? `${p.property}: ${p.reason}` : p.reason)).join('; ') }));
      }
      this.connectors = ex.connectors.map((c) => ({ kind: c.kind, name: c.name }));
      outcome = await deployer.deploy(ex.connectors.filter((c) => !only || only.includes(c.kind)));
    } else {
      outcome = await deployer.act(action, this.connectors.filter((c) => !only || only.includes(c.kind)));
    }
    const list = outcome.connectors.map(connectorStateJson);
    if (!only || only.length === kinds.length) this.poll.show(list);
    else void this.poll.once(false);
    return connectPayload(action, deployer.displayUrl, list, outcome.ok, outcome.settled);
  }
}
