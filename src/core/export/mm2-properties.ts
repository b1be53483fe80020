import { CONFIG_PROVIDER_REFERENCE, CONNECTOR_CLASS_NAMES, isSecretProperty, settingToString, type ConnectorKind, type SettingValue } from '../config-properties';
import { secretPlaceholder } from '../connector-config';
import type { ConfigProblem } from '../errors';
import { escapePropertiesText, propertiesValue as propsValue } from '../java-properties';
import { mm2PropertiesFlows } from '../pasted-configs';
import { BYTE_ARRAY_CONVERTER, CONNECTOR_KINDS, SECRETS_WARNING, tasksMaxFor, type ExportNote, type ExportOptions, type ReplicationModel } from './model';

/**
 * `mm2.properties`, the configuration of MM2's dedicated mode (`connect-mirror-maker.sh`), both
 * ways: written from a replication model, and read back into one config per connector the way
 * MirrorMakerConfig derives them.
 */

/** MM2 dedicated mode: flow-prefixed properties (`S->T.x`), cluster-prefixed client settings (`S.x`). */
export function mm2PropertiesText(
  model: ReplicationModel,
  options: ExportOptions,
  kinds: readonly ConnectorKind[],
  includeSecrets: boolean,
  secretsFile: string,
  secrets: Map<string, string>,
  notes: ExportNote[],
): string {
  const S = model.sourceAlias;
  const T = model.targetAlias;
  const flow = `${S}->${T}`;
  const back = `${T}->${S}`;
  const lines: string[] = [];
  const pairs: Array<[string, string]> = [];
  const put = (k: string, v: SettingValue) => pairs.push([k, settingToString(v)]);
  put('clusters', `${S}, ${T}`);
  put(`${S}.bootstrap.servers`, model.sourceBootstrap);
  put(`${T}.bootstrap.servers`, model.targetBootstrap);
  for (const [k, v] of model.sourceSecurity) put(`${S}.${k}`, v);
  for (const [k, v] of model.targetSecurity) put(`${T}.${k}`, v);
  for (const [k, v] of model.policy) put(k, v);
  put(`${flow}.enabled`, true);
  put(`${back}.enabled`, false);
  // One `topics` per flow in dedicated mode: the mirror's (what is replicated) wins.
  const seen = new Set<string>();
  const flowProps: Array<[string, SettingValue]> = [];
  const order: ConnectorKind[] = ['source', 'checkpoint'];
  for (const kind of order) {
    if (!kinds.includes(kind)) continue;
    for (const [k, v] of model.perConnector[kind]) {
      if (seen.has(k)) continue;
      seen.add(k);
      flowProps.push([k, v]);
    }
  }
  const ts = model.topicsBy;
  if (kinds.includes('source') && kinds.includes('checkpoint') && ts.source && ts.checkpoint && (ts.source[0] !== ts.checkpoint[0] || ts.source[1] !== ts.checkpoint[1])) {
    notes.push({
      code: 'dedicated-topics',
      text: `mm2.properties: dedicated mode has one topics / topics.exclude per flow; ${model.settingsFrom.source}'s ('${ts.source[0]}' excluding '${ts.source[1]}') is used, ${model.settingsFrom.checkpoint}'s ('${ts.checkpoint[0]}' excluding '${ts.checkpoint[1]}') is not.`,
      property: 'topics',
    });
  }
  for (const [k, v] of flowProps) put(`${flow}.${k}`, v);
  if (kinds.includes('source') || kinds.includes('checkpoint')) put(`${flow}.offset-syncs.topic.location`, model.location);
  if (!kinds.includes('source')) put(`${flow}.emit.offset-syncs.enabled`, true);
  if (!kinds.includes('checkpoint')) put(`${flow}.emit.checkpoints.enabled`, false);
  // Heartbeats: the flow's herder writes into the target; the reverse herder's (which runs even
  // though T->S is disabled) writes into the source, as a heartbeat emitter beside the source does.
  const hb = model.perConnector.heartbeat;
  const hbOn = kinds.includes('heartbeat');
  for (const dir of [flow, back]) {
    if (!hbOn) put(`${dir}.emit.heartbeats.enabled`, false);
    else for (const [k, v] of hb) put(`${dir}.${k}`, v);
  }
  const tasks = tasksMaxFor(options, 'source') ?? tasksMaxFor(options, 'checkpoint');
  if (tasks !== undefined) put('tasks.max', tasks);
  for (const k of ['checkpoints.topic.replication.factor', 'heartbeats.topic.replication.factor', 'offset-syncs.topic.replication.factor']) put(k, model.rf);
  // The Connect worker's own internal topics of each herder (mm2-offsets.<alias>.internal, ...).
  for (const k of ['offset.storage.replication.factor', 'status.storage.replication.factor', 'config.storage.replication.factor']) put(k, model.rf);
  if (model.offsetFlushMs !== undefined) put('offset.flush.interval.ms', model.offsetFlushMs);
  for (const kind of kinds) {
    for (const [k, v] of Object.entries(options.extraProperties?.[kind] ?? {})) put(`${flow}.${k}`, v);
  }

  let refs = 0;
  const out: Array<[string, string]> = pairs.map(([k, v]) => {
    if (isSecretProperty(k) && v.trim() !== '' && !CONFIG_PROVIDER_REFERENCE.test(v.trim())) {
      secrets.set(k, v);
      if (!includeSecrets) {
        refs++;
        return [k, secretPlaceholder(k, secretsFile)];
      }
    }
    return [k, v];
  });
  lines.push('# MirrorMaker 2 dedicated mode: bin/connect-mirror-maker.sh mm2.properties');
  lines.push(`# The replication flow ${S} -> ${T}, exported from ${model.exportedFrom}.`);
  if (includeSecrets && out.some(([k]) => isSecretProperty(k))) lines.push(`# ${SECRETS_WARNING}`);
  if (refs > 0) {
    lines.push(`# Secrets are \${file:${secretsFile}:<property>} references, resolved by FileConfigProvider.`);
    out.unshift(['config.providers.file.class', 'org.apache.kafka.common.config.provider.FileConfigProvider']);
    out.unshift(['config.providers', 'file']);
  }
  for (const [k, v] of out) lines.push(`${escapePropertiesText(k, true)}=${propsValue(v)}`);
  return lines.join('\n') + '\n';
}

/**
 * The connector configs MM2's dedicated mode derives from an mm2.properties for the flow
 * `source -> target` (default: the first enabled flow), read by core/pasted-configs the way
 * MirrorMakerConfig.connectorBaseConfig does: top-level connector properties, the clusters'
 * `S.`/`T.` settings as `source.cluster.`/`target.cluster.` (top-level security settings as their
 * defaults), then the flow's `S->T.` properties, which win; ByteArrayConverter forced; one per
 * connector. Worker settings (clusters, config.providers, *.storage.*, offset.flush.interval.ms)
 * are left out.
 */
export function connectorConfigsFromMm2Properties(
  text: string,
  flow?: { source: string; target: string },
): { source: string; target: string; configs: Record<ConnectorKind, Record<string, string>>; problems: ConfigProblem[] } {
  const read = mm2PropertiesFlows(text);
  const problems = [...read.problems];
  const f = flow ? read.flows.find((x) => x.source === flow.source && x.target === flow.target) : read.flows[0];
  if (!f) {
    if (flow) problems.push({ property: `${flow.source}->${flow.target}.enabled`, reason: `the flow ${flow.source}->${flow.target} is not enabled in the mm2.properties` });
    return { source: flow?.source ?? '', target: flow?.target ?? '', configs: { source: {}, checkpoint: {}, heartbeat: {} }, problems };
  }
  const configs = {} as Record<ConnectorKind, Record<string, string>>;
  for (const kind of CONNECTOR_KINDS) {
    const base = f.connectors.find((c) => c.kind === kind)?.config ?? {};
    const config: Record<string, string> = {};
    for (const [k, v] of Object.entries(base)) config[k] = String(v);
    configs[kind] = {
      ...config,
      'connector.class': CONNECTOR_CLASS_NAMES[kind],
      'key.converter': BYTE_ARRAY_CONVERTER,
      'value.converter': BYTE_ARRAY_CONVERTER,
      'header.converter': BYTE_ARRAY_CONVERTER,
    };
  }
  return { source: f.source, target: f.target, configs, problems };
}
