import { CONFIG_PROVIDER_REFERENCE, CONNECTOR_CLASS_NAMES, isSecretProperty, settingToString, type ConnectorKind, type SettingValue } from '../config-properties';
import { DEFAULT_SECRETS_FILE, analyzeConnectorConfig, formatConnectorConfig, secretPlaceholder, type ConfigFormat } from '../connector-config';
import type { ConfigProblem } from '../errors';
import { escapePropertiesText, propertiesValue as propsValue } from '../java-properties';
import { maskJaasSecrets } from './jaas';
import { mm2PropertiesText } from './mm2-properties';
import { BYTE_ARRAY_CONVERTER, CONNECTOR_KINDS, SECRETS_WARNING, tasksMaxFor, type ConnectorExport, type ExportNote, type ExportOptions, type ExportedConnector, type ReplicationModel } from './model';

/**
 * A replication model as the equivalent MirrorMaker 2 connector configs: one config per
 * connector (MirrorSourceConnector, MirrorCheckpointConnector, MirrorHeartbeatConnector) as the
 * Kafka Connect REST body `{name, config}`, as YAML in the form of Google Cloud's connector config
 * file, and as connect-standalone .properties, each with ByteArrayConverter for keys, values and
 * headers; and one `mm2.properties` for MM2's dedicated mode (./mm2-properties).
 *
 * Secrets (SASL JAAS configs with passwords) are never written in clear unless
 * `includeSecrets` is set; they become Kafka config-provider references
 * `${file:<secretsFile>:<property>}`, and `secretsTemplate` lists what that file must hold.
 * With `includeSecrets` every text carries a warning comment and the result a `warning`.
 */

const REFERENCES_NOTE = (file: string): string =>
  `Secrets are written as \${file:${file}:<property>} references: create that file on every Connect worker (secretsTemplate shows its lines) and set config.providers=file, config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider on the workers.`;

/** The settings of one connector (typed, before secrets are replaced). */
function connectorSettings(kind: ConnectorKind, model: ReplicationModel, options: ExportOptions, name: string): Record<string, SettingValue> {
  const s: Record<string, SettingValue> = {
    name,
    'connector.class': CONNECTOR_CLASS_NAMES[kind],
  };
  const tasks = tasksMaxFor(options, kind);
  if (tasks !== undefined) s['tasks.max'] = tasks;
  s['key.converter'] = BYTE_ARRAY_CONVERTER;
  s['value.converter'] = BYTE_ARRAY_CONVERTER;
  s['header.converter'] = BYTE_ARRAY_CONVERTER;
  s['source.cluster.alias'] = model.sourceAlias;
  s['target.cluster.alias'] = model.targetAlias;
  for (const [k, v] of model.policy) s[k] = v;
  if (model.sourceBootstrap) s['source.cluster.bootstrap.servers'] = model.sourceBootstrap;
  if (model.targetBootstrap) s['target.cluster.bootstrap.servers'] = model.targetBootstrap;
  for (const [k, v] of model.sourceSecurity) s[`source.cluster.${k}`] = v;
  for (const [k, v] of model.targetSecurity) s[`target.cluster.${k}`] = v;
  for (const [k, v] of model.perConnector[kind]) s[k] = v;
  if (kind === 'source') {
    s['offset-syncs.topic.location'] = model.location;
    s['offset-syncs.topic.replication.factor'] = model.rf;
  } else if (kind === 'checkpoint') {
    s['offset-syncs.topic.location'] = model.location;
    s['checkpoints.topic.replication.factor'] = model.rf;
  } else {
    s['heartbeats.topic.replication.factor'] = model.rf;
  }
  for (const [k, v] of Object.entries(options.extraProperties?.[kind] ?? {})) {
    if (v !== undefined && v !== null) s[k] = String(v);
  }
  return s;
}

function withSecretsReplaced(
  settings: Record<string, SettingValue>,
  includeSecrets: boolean,
  secretsFile: string,
  secrets: Map<string, string>,
): Record<string, SettingValue> {
  const out: Record<string, SettingValue> = {};
  for (const [k, v] of Object.entries(settings)) {
    const text = settingToString(v);
    if (isSecretProperty(k) && text.trim() !== '' && !CONFIG_PROVIDER_REFERENCE.test(text.trim())) {
      secrets.set(k, text);
      out[k] = includeSecrets ? v : secretPlaceholder(k, secretsFile);
    } else out[k] = v;
  }
  return out;
}

function warningComment(): string {
  return `# ${SECRETS_WARNING}\n`;
}

/** The secrets file for the references: `property=value`, passwords and client secrets masked. */
function secretsTemplate(secrets: Map<string, string>): string {
  if (secrets.size === 0) return '';
  const lines = ['# Secrets for the MM2 connector configs: one line per ${file:...:<property>} reference.'];
  for (const [k, v] of secrets) {
    let shown = v;
    if (/sasl\.jaas\.config$/.test(k)) shown = maskJaasSecrets(v);
    else shown = '<secret>';
    lines.push(`${escapePropertiesText(k, true)}=${propsValue(shown)}`);
  }
  return lines.join('\n') + '\n';
}

/** The connector name used by default: `mm2-<source>-<target>-<kind>`. */
export function defaultConnectorName(sourceAlias: string, targetAlias: string, kind: ConnectorKind, prefix?: string): string {
  return `${prefix ?? `mm2-${sourceAlias}-${targetAlias}-`}${kind}`;
}

/**
 * Exports a replication model as MM2 connector configs (see the file comment), after the notes
 * and problems met reading it. Never throws for bad settings: they are in `problems` (by MM2
 * property), and the rest is still exported.
 */
export function exportReplication(model: ReplicationModel, options: ExportOptions, notes: ExportNote[], problems: ConfigProblem[]): ConnectorExport {
  const includeSecrets = options.includeSecrets === true;
  const secretsFile = options.secretsFile && options.secretsFile.trim() !== '' ? options.secretsFile.trim() : DEFAULT_SECRETS_FILE;
  const kinds = (options.connectors ?? CONNECTOR_KINDS).filter((k, i, a) => CONNECTOR_KINDS.includes(k) && a.indexOf(k) === i);
  const secrets = new Map<string, string>();
  const connectors: ExportedConnector[] = [];

  for (const kind of CONNECTOR_KINDS.filter((k) => kinds.includes(k))) {
    const name = options.names?.[kind] ?? defaultConnectorName(model.sourceAlias, model.targetAlias, kind, options.namePrefix);
    const raw = connectorSettings(kind, model, options, name);
    // Check every value with the catalogue: an export must be a config MM2 accepts.
    const check = analyzeConnectorConfig(raw);
    for (const p of check.problems) {
      if (model.reported?.includes(p.property)) continue;
      const cls = CONNECTOR_CLASS_NAMES[kind].split('.').pop() as string;
      const reason = p.reason.startsWith(cls) ? p.reason : `${cls}: ${p.reason}`;
      if (!problems.some((q) => q.property === p.property && (q.reason === p.reason || q.reason.endsWith(p.reason)))) problems.push({ property: p.property, reason });
    }
    const written = withSecretsReplaced(raw, includeSecrets, secretsFile, secrets);
    const fmt = (format: ConfigFormat) => formatConnectorConfig(written, format, { includeSecrets: true });
    const config: Record<string, string> = {};
    for (const [k, v] of Object.entries(JSON.parse(fmt('json')).config as Record<string, string>)) config[k] = v;
    const head = includeSecrets && [...secrets.keys()].some((k) => k in raw) ? warningComment() : '';
    const refs = !includeSecrets && Object.values(written).some((v) => typeof v === 'string' && v.startsWith('${file:'))
      ? `# Secrets are \${file:${secretsFile}:<property>} references, resolved by the workers' FileConfigProvider.\n`
      : '';
    connectors.push({
      kind,
      name,
      from: model.from[kind],
      settings: analyzeConnectorConfig(written).settings,
      config,
      rest: { name, config },
      json: fmt('json'),
      yaml: head + refs + fmt('yaml'),
      properties: head + refs + fmt('properties'),
    });
    notes.push(...model.connectorNotes[kind]);
  }

  const mm2 = mm2PropertiesText(model, options, kinds, includeSecrets, secretsFile, secrets, notes);
  if (!includeSecrets && secrets.size > 0) notes.unshift({ code: 'secrets-referenced', text: REFERENCES_NOTE(secretsFile) });
  if (includeSecrets && secrets.size > 0) notes.unshift({ code: 'secrets-included', text: SECRETS_WARNING });
  return {
    sourceAlias: model.sourceAlias,
    targetAlias: model.targetAlias,
    connectors,
    mm2Properties: mm2,
    secrets: {
      included: includeSecrets && secrets.size > 0,
      properties: [...secrets.keys()],
      secretsFile,
      template: includeSecrets ? '' : secretsTemplate(secrets),
    },
    ...(includeSecrets && secrets.size > 0 ? { warning: SECRETS_WARNING } : {}),
    notes,
    problems,
  };
}

/** The three formats an export is shown in, plus `mm2` (the dedicated-mode mm2.properties). */
export type ExportFormat = 'json' | 'yaml' | 'properties' | 'mm2';

/** All connectors of an export as one text: a JSON array of REST bodies, YAML documents, .properties files, or mm2.properties. */
export function exportText(result: ConnectorExport, format: ExportFormat): string {
  switch (format) {
    case 'json':
      return JSON.stringify(result.connectors.map((c) => c.rest), null, 2) + '\n';
    case 'yaml':
      return result.connectors.map((c) => `# ${c.name} (${CONNECTOR_CLASS_NAMES[c.kind].split('.').pop()})\n${c.yaml}`).join('---\n');
    case 'properties':
      return result.connectors.map((c) => `# ---- ${c.name}.properties (${CONNECTOR_CLASS_NAMES[c.kind].split('.').pop()})\n${c.properties}`).join('\n');
    case 'mm2':
      return result.mm2Properties;
    default:
      throw new Error(`unknown export format '${String(format)}' (expected json, yaml, properties or mm2)`);
  }
}
