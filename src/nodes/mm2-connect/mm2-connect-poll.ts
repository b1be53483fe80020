/**
 * An `mm2-connect` node's view of its connectors' states: shows them in the status and, on a
 * periodic poll, sends a ConnectMessage (action `poll`) when they changed.
 */
import type { Node } from '../shared/red';
import type { FlowNodeContext } from '../shared/flow-node';
import type { Translate } from '../shared/i18n';
import { TOPICS, connectPayload, connectorStateJson, type ConnectorStateJson } from '../shared/contracts';
import { connectFailureBrief, connectStatus, errorText, stateKey } from './mm2-connect-status';
import type { ConnectDeployer, ConnectorRef } from '../../engines/connect-deployer';

export interface ConnectPollOptions {
  node: Pick<Node, 'send'>;
  t: Translate;
  ctx: Pick<FlowNodeContext, 'status' | 'log' | 'closing'>;
  deployer: ConnectDeployer;
  /** The connectors of the flow as last exported (a deploy may change them). */
  connectors(): ConnectorRef[];
}

export class ConnectPoll {
  /** The states last shown ('' after a failed poll: the next one reports nothing as changed). */
  private lastKey = '';

  constructor(private readonly o: ConnectPollOptions) {}

  /** The states of all connectors, as an action found them: the status shows them. */
  show(list: ConnectorStateJson[]): void {
    this.o.ctx.status.show(connectStatus(this.o.t, list));
    this.lastKey = stateKey(list);
  }

  /** Reads the states; with `sendOnChange`, a change since the last read is sent. */
  async once(sendOnChange: boolean): Promise<void> {
    const { ctx, deployer, node, t } = this.o;
    if (ctx.closing) return;
    try {
      const list = (await deployer.statuses(this.o.connectors())).map(connectorStateJson);
      if (ctx.closing) return;
      ctx.status.show(connectStatus(t, list));
      const key = stateKey(list);
      if (sendOnChange && this.lastKey !== '' && key !== this.lastKey) {
        const ok = list.every((c) => c.state === 'RUNNING' && c.tasks.every((x) => x.state === 'RUNNING'));
        node.send({ topic: TOPICS.connect, action: 'poll', payload: connectPayload('poll', deployer.displayUrl, list, ok, true) });
      }
      this.lastKey = key;
    } catch (e) {
      if (!ctx.closing) {
        ctx.status.fail(connectFailureBrief(t, e));
        ctx.log.warn('poll', errorText(e));
      }
      this.lastKey = '';
      return;
    }
    ctx.log.ok('poll');
  }
}
