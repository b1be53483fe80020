/**
 * @kafka-mm2/node-red — the library half: MirrorMaker 2's checkpoint machinery as plain
 * TypeScript, byte- and behaviour-compatible with MM2, for scripts and failover tooling
 * outside Node-RED. (The Node-RED nodes are registered from package.json's `node-red` map.)
 * Offsets are bigint (int64 on the wire).
 */
export { MalformedRecordError, ConfigError, type ConfigProblem } from './core/errors';
export type { OffsetSync, Checkpoint, Heartbeat, EncodedRecord, TopicPartition } from './core/types';

// wire formats
export { encodeOffsetSync, decodeOffsetSync } from './core/offset-sync';
export { encodeCheckpoint, decodeCheckpoint, checkpointValueVersion } from './core/checkpoint';
export { encodeHeartbeat, decodeHeartbeat, heartbeatValueVersion } from './core/heartbeat';

// topic naming
export { createReplicationPolicy, type ReplicationPolicy } from './core/replication-policy';
export { shouldReplicateTopic, isCycle } from './core/topic-selection';
export {
  heartbeatTopics,
  checkpointTopics,
  upstreamClusters,
  replicationHops,
  countHopsForTopic,
  remoteTopics,
} from './core/mirror-client';

// filters
export {
  createGroupFilter,
  createTopicFilter,
  DEFAULT_GROUPS,
  DEFAULT_GROUPS_EXCLUDE,
  DEFAULT_TOPICS,
  DEFAULT_TOPICS_EXCLUDE,
} from './core/filters';

// offset syncs and translation
export { OffsetSyncStore, type Translation } from './core/offset-sync-store';
export { PartitionState, OffsetSyncWriter } from './core/offset-sync-writer';
// failback: a target position translated back to the source (reverse checkpoints)
export { reverseTranslate, reverseFromSyncs, type ReverseTranslation } from './core/reverse-translation';

// checkpoints
export { renameTopicPartition } from './core/rename-topic-partition';
export { CheckpointStore, isMoreRecent } from './core/checkpoint-store';
export { checkpointsForGroup, type CoverageEntry, type CoverageStatus } from './core/checkpoints-for-group';
export { decideGroupOffsetSync, isWritableGroupState, type GroupOffsetSyncDecision } from './core/group-offset-sync';

// connector configuration
export {
  parseConnectorConfig,
  analyzeConnectorConfig,
  formatConnectorConfig,
  type ConfigAnalysis,
} from './core/connector-config';
export { CONFIG_DEFAULTS, CONFIG_PROPERTIES, getPropertyDef, type ConnectorSettings } from './core/config-properties';

// Kafka Connect: export a replication flow as MM2 connector configs, import them back, deploy them
export { exportConnectors } from './flows/export-connectors';
export { flowFromConnectorConfigs, type FlowImport } from './flows/import-connectors';
export type { FlowExportInput } from './flows/read-flow';
export { exportText } from './core/export/connectors';
export { connectorConfigsFromMm2Properties } from './core/export/mm2-properties';
export type { ConnectorExport, ExportOptions } from './core/export/model';
// pasted configuration in any form (connector configs, mm2.properties, Strimzi KafkaMirrorMaker2) and the Node-RED flow it describes
export { readPastedConfigs, placeholderReason, type PastedConfigs, type PastedFlow, type PastedConnector, type IgnoredKey } from './core/pasted-configs';
export { buildFlowFromText, nodeRedFlowFromImport, type BuiltFlow, type FlowFileNode } from './flows/build-flow';
export { ConnectRestClient, ConnectRestError, type ConnectorStatus } from './kafka/connect-rest';
