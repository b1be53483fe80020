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
import { setupFlowNode, truncate } from './lib/flow-node';
import { nodeEnvLookup } from './lib/settings';
import { deployedFlow } from './lib/export-flow';
import { TOPICS, connectPayload, connectorStateJson, type ConnectMessage, type ConnectorStateJson } from './lib/contracts';
import { substituteEnv, missingEnvReason } from '../core/env-substitution';
import { CONNECTOR_KINDS, exportConnectors, type ConnectorExport, type ExportOptions } from '../core/connector-export';
import type { ConnectorKind } from '../core/config-properties';
import { ConfigError } from '../core/errors';
import { intervalMs } from '../core/intervals';
import { CONNECT_ACTIONS as ACTIONS, ConnectDeployer, connectErrorBrief, parseConnectUrl, type ActionOutcome, type ConnectAction as Action } from '../kafka/connect-deployer';

const TYPE = 'mm2-connect';
/** The status poll interval of an empty field (0 turns polling off). */
const DEFAULT_POLL_SECONDS = 10;

interface ConnectDef extends NodeDef {
  replication?: string;
  url?: string;
  urlType?: string;
  deploySource?: boolean | string;
  deployCheckpoint?: boolean | string;
  deployHeartbeat?: boolean | string;
  namePrefix?: string;
  tasksMax?: string | number;
  includeSecrets?: boolean | string;
  secretsFile?: string;
  pollSeconds?: string | number;
  deployOnStart?: boolean | string;
}

type ConnectPayload = ConnectMessage['payload'];

function flag(v: unknown, dflt: boolean): boolean {
  if (v === undefined || v === null || v === '') return dflt;
  return v === true || String(v).trim().toLowerCase() === 'true';
}

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

    // ---- settings ----
    let urlText = '';
    let urlProblem: string | null = null;
    try {
      if (def.urlType === 'env') {
        urlText = String(RED.util.evaluateNodeProperty(def.url ?? '', 'env', node, undefined) ?? '');
        if (urlText === '') urlProblem = t('mm2-connect.errors.env-url', { name: String(def.url ?? '') });
      } else {
        const s = substituteEnv(String(def.url ?? ''), lookup);
        if (s.missing.length > 0) urlProblem = missingEnvReason(s.missing);
        urlText = s.value;
      }
    } catch (e) {
      urlProblem = (e as Error).message;
    }
    if (!urlProblem) {
      const p = parseConnectUrl(urlText);
      if ('error' in p) urlProblem = p.error;
    }
    const kinds = CONNECTOR_KINDS.filter((k) =>
      flag(k === 'source' ? def.deploySource : k === 'checkpoint' ? def.deployCheckpoint : def.deployHeartbeat, true),
    );
    const settingProblems: string[] = [];
    let tasksMax: number | undefined;
    const tasksText = substituteEnv(String(def.tasksMax ?? ''), lookup);
    if (tasksText.missing.length > 0) settingProblems.push(`tasks.max: ${missingEnvReason(tasksText.missing)}`);
    else if (tasksText.value.trim() !== '') {
      const n = Number(tasksText.value.trim());
      if (Number.isInteger(n) && n >= 1) tasksMax = n;
      else settingProblems.push(t('mm2-connect.errors.tasks-max', { value: tasksText.value }));
    }
    // 0 turns the poll off; anything else is an interval within the bounds of every node (core/intervals).
    let pollMs = 0;
    const pollText = substituteEnv(String(def.pollSeconds ?? ''), lookup);
    if (pollText.missing.length > 0) settingProblems.push(`pollSeconds: ${missingEnvReason(pollText.missing)}`);
    else {
      try {
        pollMs = intervalMs('pollSeconds', pollText.value, DEFAULT_POLL_SECONDS, { off: 0, offHint: 'set 0' });
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        settingProblems.push(t('mm2-connect.errors.poll', { reason: e.problems[0].reason }));
      }
    }
    const namePrefix = substituteEnv(String(def.namePrefix ?? ''), lookup).value.trim();
    if (kinds.length === 0) settingProblems.push(t('mm2-connect.errors.no-connectors'));

    const fail = (text: string) => {
      status.fail(text);
      node.error(text);
      node.on('input', (_msg: NodeMessage, _send: SendFn, done: DoneFn) => done(new Error(text)));
    };
    if (urlProblem) return fail(t('mm2-connect.errors.url', { error: urlProblem }));
    if (settingProblems.length > 0) return fail(settingProblems.join('; '));

    let deployer: ConnectDeployer;
    try {
      deployer = new ConnectDeployer({ url: urlText, username: node.credentials?.username, password: node.credentials?.password });
    } catch (e) {
      return fail(t('mm2-connect.errors.url', { error: (e as Error).message }));
    }
    const url = deployer.displayUrl;
    ctx.onClose(() => deployer.stop());

    /** The connector configs of the flow as deployed now (read at each action: the flow may have been redeployed). */
    function currentExport(): ConnectorExport {
      const input = deployedFlow(RED, String(def.replication), flag(def.includeSecrets, false));
      if (!input) throw new Error(t('mm2-common.errors.no-replication'));
      const options: ExportOptions = {
        connectors: kinds,
        includeSecrets: flag(def.includeSecrets, false),
        lookup,
        ...(namePrefix ? { namePrefix } : {}),
        ...(tasksMax !== undefined ? { tasksMax } : {}),
        ...(def.secretsFile && String(def.secretsFile).trim() !== '' ? { secretsFile: String(def.secretsFile).trim() } : {}),
      };
      return exportConnectors(input, options);
    }

    let names: Array<{ kind: ConnectorKind; name: string }>;
    try {
      names = currentExport().connectors.map((c) => ({ kind: c.kind, name: c.name }));
    } catch (e) {
      return fail((e as Error).message);
    }

    // ---- status ----
    let lastKey = '';
    function render(list: ConnectorStateJson[]): void {
      const failed = list.filter((c) => c.state === 'FAILED' || c.tasks.some((x) => x.state === 'FAILED'));
      if (failed.length > 0) {
        const c = failed[0];
        const task = c.tasks.find((x) => x.state === 'FAILED');
        const why = (task ? task.trace : c.trace) ?? 'FAILED';
        status.activity({ fill: 'red', shape: 'dot', text: truncate(t('mm2-connect.status.failed', { kind: c.kind, task: task ? ` task ${task.id}` : '', error: why })) });
        return;
      }
      const count = (st: string | null) => list.filter((c) => c.state === st).length;
      const running = count('RUNNING');
      const paused = count('PAUSED');
      const absent = count(null);
      if (absent === list.length) {
        status.activity({ fill: 'grey', shape: 'ring', text: t('mm2-connect.status.absent') });
        return;
      }
      const parts: string[] = [];
      if (running) parts.push(t('mm2-connect.status.running', { n: running }));
      if (paused) parts.push(t('mm2-connect.status.paused', { n: paused }));
      if (absent) parts.push(t('mm2-connect.status.missing', { n: absent }));
      const other = list.length - running - paused - absent;
      if (other) parts.push(t('mm2-connect.status.other', { n: other }));
      const all = running === list.length;
      status.activity({ fill: all ? 'green' : 'yellow', shape: all ? 'dot' : 'ring', text: parts.join(', ') });
    }

    async function statuses(selected: Array<{ kind: ConnectorKind; name: string }>): Promise<ConnectorStateJson[]> {
      return (await deployer.statuses(selected)).map(connectorStateJson);
    }

    function payloadOf(action: ConnectPayload['action'], list: ConnectorStateJson[], ok: boolean, settled: boolean): ConnectPayload {
      return connectPayload(action, url, list, ok, settled);
    }

    /** What a poll compares: states and the worker of each connector and task (a task that moved to another worker is a change to report). */
    function stateKey(list: ConnectorStateJson[]): string {
      return JSON.stringify(list.map((c) => [c.name, c.state, c.workerId ?? null, c.tasks.map((x) => [x.id, x.state, x.workerId ?? null])]));
    }

    // ---- actions (one at a time, in arrival order) ----
    let queue: Promise<unknown> = Promise.resolve();

    async function perform(action: Action, only: ConnectorKind[] | null): Promise<ConnectPayload> {
      let outcome: ActionOutcome;
      if (action === 'deploy') {
        const ex = currentExport();
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

    function explain(e: unknown): string {
      return e instanceof Error ? e.message : String(e);
    }

    /** Few words for the status (the full text goes to the log and Catch nodes). */
    function brief(e: unknown): string {
      const b = connectErrorBrief(e);
      return b.unreachable ? t('mm2-connect.status.unreachable', { reason: b.text }) : b.text;
    }

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
          ctx.log.warn('poll', explain(e));
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
            done(new Error(t('mm2-connect.errors.action', { action, error: explain(e) })));
          },
        );
    }

    node.on('input', (msg: NodeMessage, send: SendFn, done: DoneFn) => {
      const raw = typeof msg.action === 'string' ? msg.action : typeof msg.payload === 'string' ? msg.payload : '';
      const action = raw.trim().toLowerCase() as Action;
      if (!(ACTIONS as readonly string[]).includes(action)) {
        done(new Error(t('mm2-connect.errors.unknown-action', { action: raw, actions: ACTIONS.join(', ') })));
        return;
      }
      let only: ConnectorKind[] | null = null;
      if (msg.connectors !== undefined) {
        const list = (Array.isArray(msg.connectors) ? msg.connectors : String(msg.connectors).split(',')).map((x) => String(x).trim());
        only = kinds.filter((k) => list.includes(k));
        if (only.length === 0) {
          done(new Error(t('mm2-connect.errors.unknown-connectors', { list: list.join(', '), kinds: kinds.join(', ') })));
          return;
        }
      }
      enqueue(action, only, msg, send, done);
    });

    if (flag(def.deployOnStart, false)) {
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
    if (pollMs > 0) {
      ctx.every(pollMs, () => {
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
