import type { ConnectorKind, ConnectorSettings, SettingValue } from '../config-properties';
import type { EnvLookup } from '../env-substitution';
import type { ConfigProblem } from '../errors';

/**
 * What an export of MM2 connector configs takes and gives: the replication model, the options,
 * the connectors exported, and the notes and problems met on the way.
 */

/** The converter MM2's records need on a Kafka Connect cluster: MirrorSourceTask and MirrorCheckpointTask hand Connect byte arrays, written byte for byte. */
export const BYTE_ARRAY_CONVERTER = 'org.apache.kafka.connect.converters.ByteArrayConverter';

export const CONNECTOR_KINDS: readonly ConnectorKind[] = Object.freeze(['source', 'checkpoint', 'heartbeat'] as ConnectorKind[]);

export const SECRETS_WARNING =
  'WARNING: this export contains passwords in clear. Keep it out of version control and chat; Kafka Connect stores connector configs in its config topic, readable by anyone who can read that topic.';

export interface ExportOptions {
  /** Which connectors to export. Default all three. */
  connectors?: readonly ConnectorKind[];
  /** Write secrets in clear (with a warning). Default false: config-provider references. */
  includeSecrets?: boolean;
  /** File named in secret references. Default DEFAULT_SECRETS_FILE. */
  secretsFile?: string;
  /** Connector names. Default `mm2-<source>-<target>-<kind>`. */
  names?: Partial<Record<ConnectorKind, string>>;
  /** Prefix of the default names instead of `mm2-<source>-<target>-`. */
  namePrefix?: string;
  /** `tasks.max` for every connector, or per connector. Unset: Connect's default (1). */
  tasksMax?: number | Partial<Record<ConnectorKind, number>>;
  /** More properties per connector (e.g. what an import found that no flow setting holds). */
  extraProperties?: Partial<Record<ConnectorKind, Record<string, string>>>;
  /** Environment lookup for `${VAR}` in fields. Default: none set. */
  lookup?: EnvLookup;
  /**
   * The lookup of one node by id, as the runtime resolves that node's `${VAR}` (its flow's and
   * group's env); undefined (or no such node) falls back to `lookup`.
   */
  nodeLookup?: (id: string) => EnvLookup | undefined;
  /**
   * Why the tls-config node a cluster node refers to cannot be used (its id; its definition,
   * undefined when no such node), as the runtime's cluster node says it; each problem names the
   * file it concerns, if one. Unset: not checked (no TLS files at hand).
   */
  checkTls?: (tls: { id: string; definition?: Readonly<Record<string, unknown>> }) => ReadonlyArray<{ field?: 'ca' | 'cert' | 'key'; text: string }>;
}

/** Something the user should know about an export or import. `code` lets an editor translate it. */
export interface ExportNote {
  code:
    | 'secrets-referenced'
    | 'secrets-included'
    | 'worker-setting'
    | 'several-nodes'
    | 'no-node'
    | 'group-filter'
    | 'interval-rounded'
    | 'tls-client-cert'
    | 'tls-uploaded'
    | 'tls-no-verify'
    | 'oauth-allowed-urls'
    | 'no-offset-syncs'
    | 'heartbeats-direction'
    | 'dedicated-topics'
    | 'not-imported';
  text: string;
  connector?: ConnectorKind;
  property?: string;
}

export interface ExportedConnector {
  kind: ConnectorKind;
  name: string;
  /** Ids of what its settings were read from (empty: MM2's defaults and the flow-wide settings only). */
  from: string[];
  /** The settings, typed (secrets as written: references unless includeSecrets). */
  settings: ConnectorSettings;
  /** The config map for `PUT /connectors/<name>/config` (includes `name`). */
  config: Record<string, string>;
  /** `POST /connectors` body. */
  rest: { name: string; config: Record<string, string> };
  json: string;
  yaml: string;
  properties: string;
}

export interface ConnectorExport {
  sourceAlias: string;
  targetAlias: string;
  connectors: ExportedConnector[];
  /** MM2 dedicated mode configuration for the flow. */
  mm2Properties: string;
  secrets: {
    included: boolean;
    /** Secret properties (per connector config and mm2.properties), without values. */
    properties: string[];
    secretsFile: string;
    /** The secrets file to create, `property=value` with passwords shown as `<password>` (empty when none or included). */
    template: string;
  };
  /** Set when secrets are written in clear. */
  warning?: string;
  notes: ExportNote[];
  /** Settings that cannot be exported as they are (unset `${VAR}`, invalid values); named by MM2 property. */
  problems: ConfigProblem[];
}

/**
 * One replication flow `source -> target` as MM2 sees it, the input of every export (as Kafka's
 * MirrorMakerConfig is the input of each connector's config): flow-wide settings, each cluster's
 * client security properties, and each connector's own properties.
 */
export interface ReplicationModel {
  sourceAlias: string;
  targetAlias: string;
  sourceBootstrap: string;
  targetBootstrap: string;
  /** replication.policy.* (all connectors). */
  policy: Array<[string, string]>;
  location: string;
  /** Of every internal topic; the text as given when the replication node's reader refused it. */
  rf: number | string;
  /**
   * MM2 properties whose value a reader already refused (in the problems, in the runtime's words,
   * the value written as given): the export's catalogue check does not report them a second time.
   */
  reported?: readonly string[];
  sourceSecurity: Array<[string, string]>;
  targetSecurity: Array<[string, string]>;
  /** Per connector: MM2 property -> value. */
  perConnector: Record<ConnectorKind, Array<[string, SettingValue]>>;
  /** Per connector: the ids of what its settings were read from. */
  from: Record<ConnectorKind, string[]>;
  offsetFlushMs?: number;
  /** The `topics`/`topics.exclude` given to the source and checkpoint connectors (for the dedicated-mode check). */
  topicsBy: { source?: [string, string]; checkpoint?: [string, string] };
  /** Per connector: what its settings are read from, as notes name it. */
  settingsFrom: Record<ConnectorKind, string>;
  /** What the flow is exported from, named in mm2.properties' header. */
  exportedFrom: string;
  /** Per connector: notes about where its settings came from, added after it is exported. */
  connectorNotes: Record<ConnectorKind, ExportNote[]>;
}

export function tasksMaxFor(options: ExportOptions, kind: ConnectorKind): number | undefined {
  const t = options.tasksMax;
  if (t === undefined || t === null) return undefined;
  if (typeof t === 'number') return t;
  return t[kind];
}
