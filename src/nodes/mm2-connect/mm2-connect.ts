/**
 * `mm2-connect` flow node: deploys the MirrorMaker 2 connectors that are equivalent to a
 * replication flow (core/connector-export) to a Kafka Connect cluster over its REST API
 * (kafka/connect-rest), then reports the connectors' and tasks' states and can pause, resume,
 * restart and delete them.
 *
 * Input: `msg.action` (or `msg.payload` as text) = deploy | status | pause | resume | restart |
 * delete; `msg.connectors` (optional) limits it to some of source, checkpoint, heartbeat.
 * Output: ConnectMessage (topic mm2/connect) after each action, and after a periodic status poll
 * whose states changed.
 */
import type { NodeAPI, Node, NodeDef, NodeMessage, DoneFn } from '../shared/red';
import { makeTranslate } from '../shared/i18n';
import { setupFlowNode } from '../shared/flow-node';
import { onInput, refuseSettings } from '../shared/input';
import { nodeEnvLookup } from '../shared/settings';
import { readConnectSettings, type ConnectDefFields } from './mm2-connect-settings';
import { ConnectActions } from './mm2-connect-actions';
import { ConnectPoll } from './mm2-connect-poll';
import { currentExport } from './mm2-connect-export';
import { readConnectRequest } from './mm2-connect-request';
import { ConnectDeployer, type ConnectorRef } from '../../engines/connect-deployer';

const TYPE = 'mm2-connect';

interface ConnectDef extends NodeDef, ConnectDefFields {
  replication?: string;
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, TYPE);

  function MM2ConnectNode(this: Node, def: ConnectDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const ctx = setupFlowNode(RED, node, def.replication, t);
    if (!ctx) return;
    const { status } = ctx;
    const lookup = nodeEnvLookup(RED, node);

    // ---- settings (nodes/mm2-connect/mm2-connect-settings) ----
    const envValue = (name: string): string => String(RED.util.evaluateNodeProperty(name, 'env', node, undefined) ?? '');
    const read = readConnectSettings(def, lookup, envValue, t);
    const fail = (text: string): void => refuseSettings(node, status, text, { refuseInput: true });
    if (!read.values) return fail(read.problems.join('; '));
    const settings = read.values;

    let deployer: ConnectDeployer;
    try {
      deployer = new ConnectDeployer({ url: settings.url, username: node.credentials?.username, password: node.credentials?.password });
    } catch (e) {
      return fail(t('mm2-connect.errors.url', { error: (e as Error).message }));
    }
    ctx.onClose(() => deployer.stop());
    const flowExport = () => currentExport(RED, String(def.replication), settings, lookup, t);
    let connectors: ConnectorRef[];
    try {
      connectors = flowExport().connectors.map((c) => ({ kind: c.kind, name: c.name }));
    } catch (e) {
      return fail((e as Error).message);
    }

    // ---- wiring: actions one at a time, in arrival order; polls between them ----
    const actions = new ConnectActions({ t, ctx, deployer, kinds: settings.kinds, flowExport, connectors });
    actions.poll = new ConnectPoll({ node, t, ctx, deployer, connectors: () => actions.connectors });
    onInput(node, (msg, send, done) => {
      const req = readConnectRequest(msg, settings.kinds, t);
      if (req instanceof Error) return done(req);
      actions.enqueue(req.action, req.only, msg, send, done);
    });

    // ---- timers ----
    const logError: DoneFn = (err) => err && node.error(err.message);
    if (settings.deployOnStart) ctx.after(100, () => actions.enqueue('deploy', null, {}, (m) => node.send(m as NodeMessage), logError));
    else ctx.after(100, () => actions.enqueuePoll(false));
    if (settings.pollMs > 0) ctx.every(settings.pollMs, () => actions.enqueuePoll(true));
  }

  RED.nodes.registerType(TYPE, MM2ConnectNode as unknown as (this: Node, def: NodeDef) => void, {
    credentials: {
      username: { type: 'text' },
      password: { type: 'password' },
    },
  });
};
