/** The status an `mm2-connect` node shows for the states of its connectors. */
import type { Translate } from '../shared/i18n';
import { truncate, type StatusView } from '../shared/flow-node';
import type { ConnectorStateJson } from '../shared/contracts';
import { connectErrorBrief } from '../../engines/connect-deployer';
import { ConnectRestError, NOT_CONNECT_CODE } from '../../kafka/connect-rest';

/** Red with the first failure; green only when every connector runs. */
export function connectStatus(t: Translate, list: ConnectorStateJson[]): StatusView {
  const failed = list.filter((c) => c.state === 'FAILED' || c.tasks.some((x) => x.state === 'FAILED'));
  if (failed.length > 0) {
    const c = failed[0];
    const task = c.tasks.find((x) => x.state === 'FAILED');
    const why = (task ? task.trace : c.trace) ?? 'FAILED';
    return { activity: { fill: 'red', shape: 'dot', text: truncate(t('mm2-connect.status.failed', { kind: c.kind, task: task ? ` task ${task.id}` : '', error: why })) } };
  }
  const count = (st: string | null) => list.filter((c) => c.state === st).length;
  const running = count('RUNNING');
  const paused = count('PAUSED');
  const absent = count(null);
  if (absent === list.length) return { activity: { fill: 'grey', shape: 'ring', text: t('mm2-connect.status.absent') } };
  const parts: string[] = [];
  if (running) parts.push(t('mm2-connect.status.running', { n: running }));
  if (paused) parts.push(t('mm2-connect.status.paused', { n: paused }));
  if (absent) parts.push(t('mm2-connect.status.missing', { n: absent }));
  const other = list.length - running - paused - absent;
  if (other) parts.push(t('mm2-connect.status.other', { n: other }));
  const all = running === list.length;
  return { activity: { fill: all ? 'green' : 'yellow', shape: all ? 'dot' : 'ring', text: parts.join(', ') } };
}

/** What a poll compares: states and the worker of each connector and task (a task that moved to another worker is a change to report). */
export function stateKey(list: ConnectorStateJson[]): string {
  return JSON.stringify(list.map((c) => [c.name, c.state, c.workerId ?? null, c.tasks.map((x) => [x.id, x.state, x.workerId ?? null])]));
}

/** Few words on a failure for the status (the full text, `errorText`, goes to the log and Catch nodes). */
export function connectFailureBrief(t: Translate, e: unknown): string {
  // the URL answers, but something else than Kafka Connect does: say what answered
  if (e instanceof ConnectRestError && e.code === NOT_CONNECT_CODE) return t('mm2-connect.status.not-connect', { type: e.contentType ?? '', start: JSON.stringify(e.start ?? '') });
  const b = connectErrorBrief(e);
  return b.unreachable ? t('mm2-connect.status.unreachable', { reason: b.text }) : b.text;
}

/** The whole text of a failure. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
