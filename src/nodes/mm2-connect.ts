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
import { substituteEnv, missingEnvReason } from '../core/env-substitution';
import { CONNECTOR_KINDS, type ConnectorExport, type ExportOptions } from '../core/export/model';
import { exportConnectors } from '../flows/export-connectors';
import type { ConnectorKind } from '../core/config-properties';
import { ConfigError } from '../core/errors';
import { intervalMs } from '../core/intervals';
import { ConnectRestClient, ConnectRestError, parseConnectUrl, traceSummary, type ConnectorStatus } from '../kafka/connect-rest';

const TYPE = 'mm2-connect';
const CONNECT_TOPIC = 'mm2/connect';
const ACTIONS = ['deploy', 'status', 'pause', 'resume', 'restart', 'delete'] as const;
type Action = (typeof ACTIONS)[number];

/** How long an action waits for the states it causes (PAUSED after pause...), polling every 500 ms. */
const SETTLE_MS = 30000;
/** The status poll interval of an empty field (0 turns polling off). */
const DEFAULT_POLL_SECONDS = 10;
const SETTLE_POLL_MS = 500;

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

/** One connector in an output message. */
interface ConnectorStateJson {
  kind: ConnectorKind;
  name: string;
  /** Connect's state, or null when the connector is not on the Connect cluster. */
  state: string | null;
  workerId?: string;
  /** First line and root cause of the Java stack trace of a FAILED connector. */
  trace?: string;
  tasks: Array<{ id: number; state: string; workerId?: string; trace?: string }>;
  /** What the action did to this connector: created, updated, paused, resumed, restarted, deleted, absent. */
  result?: string;
}

interface ConnectPayload {
  action: Action | 'poll';
  url: string;
  /** True when every connector is in the state the action asks for (RUNNING after deploy...). */
  ok: boolean;
  /** False when the states were still changing after the wait. */
  settled: boolean;
  connectors: ConnectorStateJson[];
  /** state -> number of connectors. */
  summary: Record<string, number>;
}

function flag(v: unknown, dflt: boolean): boolean {
  if (v === undefined || v === null || v === '') return dflt;
  return v === true || String(v).trim().toLowerCase() === 'true';
}

function stateJson(kind: ConnectorKind, s: ConnectorStatus, result?: string): ConnectorStateJson {
  const out: ConnectorStateJson = {
    kind,
    name: s.name,
    state: s.state,
    tasks: s.tasks.map((t) => ({
      id: t.id,
      state: t.state,
      ...(t.workerId ? { workerId: t.workerId } : {}),
      ...(t.trace ? { trace: traceSummary(t.trace) } : {}),
    })),
  };
  if (s.workerId) out.workerId = s.workerId;
  if (s.trace) out.trace = traceSummary(s.trace);
  if (result) out.result = result;
  return out;
}

const TRANSIENT = new Set(['UNASSIGNED', 'RESTARTING']);

/** Whether a connector's states are what `action` asks for (or a failure that waiting will not fix). */
function reached(action: Action, s: ConnectorStatus): { done: boolean; ok: boolean } {
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

    let client: ConnectRestClient;
    try {
      client = new ConnectRestClient({ url: urlText, username: node.credentials?.username, password: node.credentials?.password });
    } catch (e) {
      return fail(t('mm2-connect.errors.url', { error: (e as Error).message }));
    }
    const url = client.displayUrl;
    ctx.onClose(() => client.stopRetrying());

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
      const out: ConnectorStateJson[] = [];
      for (const c of selected) out.push(stateJson(c.kind, await client.status(c.name)));
      return out;
    }

    function payloadOf(action: ConnectPayload['action'], list: ConnectorStateJson[], ok: boolean, settled: boolean): ConnectPayload {
      const summary: Record<string, number> = {};
      for (const c of list) {
        const k = c.state ?? 'ABSENT';
        summary[k] = (summary[k] ?? 0) + 1;
      }
      return { action, url, ok, settled, connectors: list, summary };
    }

    /** What a poll compares: states and the worker of each connector and task (a task that moved to another worker is a change to report). */
    function stateKey(list: ConnectorStateJson[]): string {
      return JSON.stringify(list.map((c) => [c.name, c.state, c.workerId ?? null, c.tasks.map((x) => [x.id, x.state, x.workerId ?? null])]));
    }

    // ---- actions (one at a time, in arrival order) ----
    let queue: Promise<unknown> = Promise.resolve();

    async function perform(action: Action, only: ConnectorKind[] | null): Promise<ConnectPayload> {
      let selected = names;
      const results = new Map<string, string>();
      if (action === 'deploy') {
        const ex = currentExport();
        if (ex.problems.length > 0) {
          throw new Error(t('mm2-connect.errors.export', { problems: ex.problems.map((p) => (p.property ? `${p.property}: ${p.reason}` : p.reason)).join('; ') }));
        }
        const chosen = ex.connectors.filter((c) => !only || only.includes(c.kind));
        names = ex.connectors.map((c) => ({ kind: c.kind, name: c.name }));
        selected = chosen.map((c) => ({ kind: c.kind, name: c.name }));
        for (const c of chosen) {
          const r = await client.putConfig(c.name, c.config);
          results.set(c.name, r.created ? 'created' : 'updated');
        }
      } else {
        selected = names.filter((c) => !only || only.includes(c.kind));
        for (const c of selected) {
          if (action === 'pause') await client.pause(c.name).then(() => results.set(c.name, 'paused'), absentOr(c.name, results));
          else if (action === 'resume') await client.resume(c.name).then(() => results.set(c.name, 'resumed'), absentOr(c.name, results));
          else if (action === 'restart') await client.restart(c.name).then(() => results.set(c.name, 'restarted'), absentOr(c.name, results));
          else if (action === 'delete') results.set(c.name, (await client.delete(c.name)) ? 'deleted' : 'absent');
        }
      }
      // wait for the states the action causes
      const deadline = Date.now() + (action === 'status' ? 0 : SETTLE_MS);
      let list: ConnectorStateJson[] = [];
      let settled = false;
      let ok = false;
      for (;;) {
        const raw: Array<{ kind: ConnectorKind; s: ConnectorStatus }> = [];
        for (const c of selected) raw.push({ kind: c.kind, s: await client.status(c.name) });
        const checks = raw.map((r) => (results.get(r.s.name) === 'absent' && action !== 'delete' ? { done: true, ok: false } : reached(action, r.s)));
        list = raw.map((r) => stateJson(r.kind, r.s, results.get(r.s.name)));
        settled = checks.every((c) => c.done);
        ok = checks.every((c) => c.ok);
        if (settled || Date.now() >= deadline || ctx.closing) break;
        await new Promise((r) => setTimeout(r, SETTLE_POLL_MS));
      }
      if (!only || only.length === kinds.length) {
        render(list);
        lastKey = stateKey(list);
      } else {
        void pollOnce(false);
      }
      return payloadOf(action, list, ok, settled);
    }

    function absentOr(name: string, results: Map<string, string>): (e: unknown) => void {
      return (e) => {
        if (e instanceof ConnectRestError && e.status === 404) results.set(name, 'absent');
        else throw e;
      };
    }

    function explain(e: unknown): string {
      return e instanceof Error ? e.message : String(e);
    }

    /** Few words for the status (the full text goes to the log and Catch nodes). */
    function brief(e: unknown): string {
      if (e instanceof ConnectRestError) return e.status === 0 ? t('mm2-connect.status.unreachable', { reason: e.short }) : e.short;
      return explain(e);
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
          node.send({ topic: CONNECT_TOPIC, action: 'poll', payload: payloadOf('poll', list, ok, true) });
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
            msg.topic = CONNECT_TOPIC;
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
