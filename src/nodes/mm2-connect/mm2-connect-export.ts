/** The MM2 connector configs an `mm2-connect` node deploys: the replication flow as deployed now. */
import type { NodeAPI } from '../shared/red';
import type { Translate } from '../shared/i18n';
import type { EnvLookup } from '../shared/settings';
import type { ConnectSettings } from './mm2-connect-settings';
import { deployedFlow, deployedNodeLookup, exportTlsCheck } from '../shared/export-flow';
import type { ConnectorExport, ExportOptions } from '../../core/export/model';
import { exportConnectors } from '../../flows/export-connectors';

/** Read at each action: the flow may have been redeployed. Throws when the replication node is gone. */
export function currentExport(RED: NodeAPI, replicationId: string, settings: ConnectSettings, lookup: EnvLookup, t: Translate): ConnectorExport {
  const input = deployedFlow(RED, replicationId, settings.includeSecrets);
  if (!input) throw new Error(t('mm2-common.errors.no-replication'));
  const options: ExportOptions = {
    connectors: settings.kinds,
    includeSecrets: settings.includeSecrets,
    // the replication and cluster nodes' fields as those nodes resolve them; the node's own env for the rest
    lookup,
    nodeLookup: deployedNodeLookup(RED),
    // the cluster nodes' TLS files as the runtime checks them: a config MM2 would fail on is refused
    checkTls: exportTlsCheck(RED, t),
    ...(settings.namePrefix ? { namePrefix: settings.namePrefix } : {}),
    ...(settings.tasksMax !== undefined ? { tasksMax: settings.tasksMax } : {}),
    ...(settings.secretsFile ? { secretsFile: settings.secretsFile } : {}),
  };
  return exportConnectors(input, options);
}
