import type { ConnectorKind } from '../core/config-properties';
import { CONNECTOR_SETTINGS, OFFSET_FLUSH_SETTING, type SettingGroup } from '../core/setting-fields';

/**
 * The Node-RED node types of a replication flow and the connector settings each one holds: a
 * view of core's one table (CONNECTOR_SETTINGS, keyed by connector) by node type.
 */

/** The flow node type that holds each row of CONNECTOR_SETTINGS. */
export const NODE_TYPE_OF_SETTINGS: Readonly<Record<SettingGroup, string>> = Object.freeze({
  source: 'mm2-mirror',
  checkpoint: 'mm2-checkpoint',
  'group-offsets': 'mm2-group-offsets',
  heartbeat: 'mm2-heartbeat',
});

/** The flow node type whose settings go to each connector. */
export const NODE_TYPE_OF: Readonly<Record<ConnectorKind, string>> = Object.freeze({
  source: NODE_TYPE_OF_SETTINGS.source,
  checkpoint: NODE_TYPE_OF_SETTINGS.checkpoint,
  heartbeat: NODE_TYPE_OF_SETTINGS.heartbeat,
});

const ROWS: readonly SettingGroup[] = ['source', 'checkpoint', 'group-offsets', 'heartbeat'];

/**
 * The MM2 properties each flow node type holds as fields (field = fieldName(property)), in
 * dialog order; nodes/shared/settings exposes it as NODE_SETTINGS.
 */
export const FLOW_NODE_PROPERTIES: Readonly<Record<string, readonly string[]>> = Object.freeze(
  Object.fromEntries(ROWS.map((row) => [NODE_TYPE_OF_SETTINGS[row], Object.freeze(CONNECTOR_SETTINGS[row].map((s) => s.property))])),
);

/** The connector each flow node type's settings go to. */
export const FLOW_NODE_CONNECTOR: Readonly<Record<string, ConnectorKind>> = Object.freeze(
  Object.fromEntries(ROWS.map((row) => [NODE_TYPE_OF_SETTINGS[row], row === 'group-offsets' ? 'checkpoint' : row])),
);

/** Kafka Connect worker setting the mirror node holds (the cadence of MM2's delayed offset syncs). */
export const OFFSET_FLUSH_FIELD = OFFSET_FLUSH_SETTING.field;
