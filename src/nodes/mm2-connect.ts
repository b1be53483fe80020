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
import type { NodeAPI, Node, NodeDef, NodeMessage, SendFn, DoneFn } from './lib/red';
import { makeTranslate } from './lib/i18n';
import { setupFlowNode } from './lib/flow-node';
import { onInput, refuseSettings } from './lib/input';
import { nodeEnvLookup } from './lib/settings';
import { readConnectSettings, type ConnectDefFields } from './lib/settings/connect';
import { connectFailureBrief, connectStatus, errorText, stateKey } from './lib/connect/status';
import { currentExport } from './lib/connect/export';
import { readConnectRequest } from './lib/connect/request';
import { TOPICS, connectPayload, connectorStateJson, type ConnectMessage, type ConnectorStateJson } from './lib/contracts';
import type { ConnectorKind } from '../core/config-properties';
import { ConnectDeployer, type ActionOutcome, type ConnectAction as Action } from '../kafka/connect-deployer';

const TYPE = 'mm2-connect';

interface ConnectDef extends NodeDef, ConnectDefFields {
  replication?: string;
}

type ConnectPayload = ConnectMessage['payload'];

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, TYPE);

  function MM2ConnectNode(this: Node, def: ConnectDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const maybeCtx = setupFlowNode(RED, node, def.replication, t);
    if (!maybeCtx) return;
    const ctx = maybeCtx;
    const { status } = ctx;
    const lookup = nodeEnvLookup(RED, node);

    // ---- settings (lib/settings/connect) ----
    const envValue = (name: string): string => String(RED.util.evaluateNodeProperty(name, 'env', node, undefined) ?? '');
    const read = readConnectSettings(def, lookup, envValue, t);
    const fail = (text: string): void => refuseSettings(node, status, text, { refuseInput: true });
    if (!read.values) return fail(read.problems.join('; '));
    const settings = read.values;
    const { kinds } = settings;

    let deployer: ConnectDeployer;
    try {
      deployer = new ConnectDeployer({ url: settings.url, username: node.credentials?.username, password: node.credentials?.password });
    } catch (e) {
      return fail(t('mm2-connect.errors.url', { error: (e as Error).message }));
    }
    const url = deployer.displayUrl;
    ctx.onClose(() => deployer.stop());

    const flowExport = () => currentExport(RED, String(def.replication), settings, lookup, t);

    let names: Array<{ kind: ConnectorKind; name: string }>;
    try {
      names = flowExport().connectors.map((c) => ({ kind: c.kind, name: c.name }));
    } catch (e) {
      return fail((e as Error).message);
    }

    // ---- status ----
    let lastKey = '';
    const render = (list: ConnectorStateJson[]): void => status.show(connectStatus(t, list));

    async function statuses(selected: Array<{ kind: ConnectorKind; name: string }>): Promise<ConnectorStateJson[]> {
      return (await deployer.statuses(selected)).map(connectorStateJson);
    }

    function payloadOf(action: ConnectPayload['action'], list: ConnectorStateJson[], ok: boolean, settled: boolean): ConnectPayload {
      return connectPayload(action, url, list, ok, settled);
    }

    // ---- actions (one at a time, in arrival order) ----
    let queue: Promise<unknown> = Promise.resolve();

    async function perform(action: Action, only: ConnectorKind[] | null): Promise<ConnectPayload> {
      let outcome: ActionOutcome;
      if (action === 'deploy') {
        const ex = flowExport();
        if (ex.problems.length > 0) {
          throw new Error(t('mm2-connect.errors.export', { problems: ex.problems.map((p) => (p.property ? `${p.property}: ${p.reason}` : p.reason)).join('; ') }));
        }
        names = ex.connectors.map((c) => ({ kind: c.kind, name: c.name }));
        outcome = await deployer.deploy(ex.connectors.filter((c) => !only || only.includes(c.kind)));
      } else {
        outcome = await deployer.act(action, names.filter((c) => !only || only.includes(c.kind)));
      }
      const list = outcome.connectors.map(connectorStateJson);
      if (!only || only.length === kinds.length) {
        render(list);
        lastKey = stateKey(list);
      } else {
        void pollOnce(false);
      }
      return payloadOf(action, list, outcome.ok, outcome.settled);
    }

    const brief = (e: unknown): string => connectFailureBrief(t, e);

    async function pollOnce(sendOnChange: boolean): Promise<void> {
      if (ctx.closing) return;
      try {
        const list = await statuses(names);
        if (ctx.closing) return;
        render(list);
        const key = stateKey(list);
        if (sendOnChange && lastKey !== '' && key !== lastKey) {
          const ok = list.every((c) => c.state === 'RUNNING' && c.tasks.every((x) => x.state === 'RUNNING'));
          node.send({ topic: TOPICS.connect, action: 'poll', payload: payloadOf('poll', list, ok, true) });
        }
        lastKey = key;
      } catch (e) {
        if (!ctx.closing) {
          status.fail(brief(e));
          ctx.log.warn('poll', errorText(e));
        }
        lastKey = '';
        return;
      }
      ctx.log.ok('poll');
    }

    function enqueue(action: Action, only: ConnectorKind[] | null, msg: NodeMessage, send: SendFn, done: DoneFn): void {
      status.activity({ fill: 'blue', shape: 'ring', text: t('mm2-connect.status.working', { action }) });
      queue = queue
        .then(() => perform(action, only))
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
            status.fail(t('mm2-connect.errors.action', { action, error: brief(e) }));
            done(new Error(t('mm2-connect.errors.action', { action, error: errorText(e) })));
          },
        );
    }

    onInput(node, (msg, send, done) => {
      const req = readConnectRequest(msg, kinds, t);
      if (req instanceof Error) return done(req);
      enqueue(req.action, req.only, msg, send, done);
    });

    if (settings.deployOnStart) {
      ctx.after(100, () =>
        enqueue('deploy', null, {}, (m) => node.send(m as NodeMessage), (err) => {
          if (err) node.error(err.message);
        }),
      );
    } else {
      ctx.after(100, () => {
        queue = queue.then(() => pollOnce(false));
      });
    }
    if (settings.pollMs > 0) {
      ctx.every(settings.pollMs, () => {
        queue = queue.then(() => pollOnce(true));
      });
    }
  }

  RED.nodes.registerType(TYPE, MM2ConnectNode as unknown as (this: Node, def: NodeDef) => void, {
    credentials: {
      username: { type: 'text' },
      password: { type: 'password' },
    },
  });
};
