/** An input message to an `mm2-connect` node, read as an action on some of its connectors. */
import type { NodeMessage } from '../shared/red';
import type { Translate } from '../shared/i18n';
import type { ConnectorKind } from '../../core/config-properties';
import { CONNECT_ACTIONS, type ConnectAction } from '../../engines/connect-deployer';

export interface ConnectRequest {
  action: ConnectAction;
  /** null: every connector of the node. */
  only: ConnectorKind[] | null;
}

/** `msg.action` (or `msg.payload` as text), `msg.connectors` (list or comma-separated); an Error names what is wrong. */
export function readConnectRequest(msg: NodeMessage, kinds: readonly ConnectorKind[], t: Translate): ConnectRequest | Error {
  const raw = typeof msg.action === 'string' ? msg.action : typeof msg.payload === 'string' ? msg.payload : '';
  const action = raw.trim().toLowerCase() as ConnectAction;
  if (!(CONNECT_ACTIONS as readonly string[]).includes(action)) {
    return new Error(t('mm2-connect.errors.unknown-action', { action: raw, actions: CONNECT_ACTIONS.join(', ') }));
  }
  let only: ConnectorKind[] | null = null;
  if (msg.connectors !== undefined) {
    const list = (Array.isArray(msg.connectors) ? msg.connectors : String(msg.connectors).split(',')).map((x) => String(x).trim());
    only = kinds.filter((k) => list.includes(k));
    if (only.length === 0) return new Error(t('mm2-connect.errors.unknown-connectors', { list: list.join(', '), kinds: kinds.join(', ') }));
  }
  return { action, only };
}
