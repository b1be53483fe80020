import { exportReplication } from '../core/export/connectors';
import type { ConfigProblem } from '../core/errors';
import type { ConnectorExport, ExportNote, ExportOptions } from '../core/export/model';
import { readFlow, type FlowExportInput } from './read-flow';

/**
 * Export of a Node-RED replication flow (an mm2-replication node, its two mm2-cluster nodes and
 * the flow nodes that use it) as the equivalent MirrorMaker 2 connector configs: the flow read
 * into the replication model (./read-flow), exported by core/export. The way back is
 * ./import-connectors.
 */

/**
 * Exports a replication flow as MM2 connector configs. Never throws for bad settings: they are
 * in `problems` (by MM2 property), and the rest is still exported.
 */
export function exportConnectors(input: FlowExportInput, options: ExportOptions = {}): ConnectorExport {
  const notes: ExportNote[] = [];
  const problems: ConfigProblem[] = [];
  const model = readFlow(input, options, notes, problems);
  return exportReplication(model, options, notes, problems);
}
