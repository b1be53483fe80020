/**
 * Strimzi's `KafkaMirrorMaker2` custom resource (v1beta2 `spec.clusters` + `connectCluster` +
 * `mirrors[].sourceCluster/targetCluster`, and v1 `spec.target` + `mirrors[].source`), read the
 * way Strimzi's operator builds the connectors (core/pasted-configs reads the text).
 */
import type { ConnectorKind } from './config-properties';
import type { ConfigProblem } from './errors';
import { isMap, text, type IgnoredKey, type PastedConnector, type PastedFlow } from './pasted-types';


/** True for a parsed YAML/JSON document that is a Strimzi KafkaMirrorMaker2 custom resource. */
export function isStrimziMirrorMaker2(doc: unknown): doc is Record<string, unknown> {
  return isMap(doc) && text(doc['kind']).trim() === 'KafkaMirrorMaker2';
}

const STRIMZI_SASL: Record<string, string> = { 'scram-sha-512': 'SCRAM-SHA-512', 'scram-sha-256': 'SCRAM-SHA-256', plain: 'PLAIN' };
const STRIMZI_CONNECTORS: Array<[string, ConnectorKind]> = [['sourceConnector', 'source'], ['checkpointConnector', 'checkpoint'], ['heartbeatConnector', 'heartbeat']];
const STRIMZI_PATTERNS: Array<[string, string]> = [['topicsPattern', 'topics'], ['topicsExcludePattern', 'topics.exclude'], ['groupsPattern', 'groups'], ['groupsExcludePattern', 'groups.exclude']];
const STRIMZI_RENAMED: Record<string, string> = { topicsBlacklistPattern: 'topicsExcludePattern', groupsBlacklistPattern: 'groupsExcludePattern' };
const CONNECT_WORKER_KEY = /^(?:group\.id|(?:offset|config|status)\.storage\..*|(?:key|value|header)\.converter(?:\..*)?|config\.providers(?:\..*)?)$/;

function strimziCluster(
  cluster: Record<string, unknown>,
  prefix: string,
  path: string,
  config: Record<string, unknown>,
  ignored: IgnoredKey[],
): void {
  config[`${prefix}alias`] = text(cluster['alias']);
  if (cluster['bootstrapServers'] !== undefined) config[`${prefix}bootstrap.servers`] = text(cluster['bootstrapServers']);
  let protocol = cluster['tls'] !== undefined && cluster['tls'] !== null ? 'SSL' : undefined;
  if (isMap(cluster['tls']) && cluster['tls']['trustedCertificates'] !== undefined) {
    ignored.push({ key: `${path}.tls.trustedCertificates`, code: 'ca-secret', reason: 'Kubernetes Secrets: give the CA file in the cluster\'s TLS settings' });
  }
  const auth = cluster['authentication'];
  if (isMap(auth)) {
    const type = text(auth['type']).trim();
    const mechanism = STRIMZI_SASL[type];
    if (mechanism) {
      protocol = protocol === 'SSL' ? 'SASL_SSL' : 'SASL_PLAINTEXT';
      config[`${prefix}sasl.mechanism`] = mechanism;
      if (auth['username'] !== undefined) {
        ignored.push({ key: `${path}.authentication.username`, code: 'user-name', detail: text(auth['username']), reason: `'${text(auth['username'])}': enter the user name in the cluster's credentials` });
      }
      if (auth['passwordSecret'] !== undefined) {
        ignored.push({ key: `${path}.authentication.passwordSecret`, code: 'password-secret', reason: 'a Kubernetes Secret: enter the password in the cluster\'s credentials' });
      }
    } else if (type === 'tls') {
      ignored.push({ key: `${path}.authentication`, code: 'client-cert-secret', reason: 'a client certificate from a Kubernetes Secret: give its certificate and key files in the cluster\'s TLS settings' });
    } else {
      ignored.push({ key: `${path}.authentication`, code: 'auth-type', detail: type, reason: `authentication type '${type}' has no equivalent here (PLAIN, SCRAM and TLS client certificates are supported)` });
    }
  }
  if (protocol) config[`${prefix}security.protocol`] = protocol;
  if (isMap(cluster['config'])) {
    for (const [k, v] of Object.entries(cluster['config'])) {
      if (CONNECT_WORKER_KEY.test(k)) ignored.push({ key: `${path}.config.${k}`, reason: 'a Kafka Connect worker setting, not of the connectors' });
      else config[prefix + k] = v;
    }
  }
  for (const k of Object.keys(cluster)) {
    if (!['alias', 'bootstrapServers', 'tls', 'authentication', 'config'].includes(k)) ignored.push({ key: `${path}.${k}`, reason: 'not a connector setting' });
  }
}

export function readStrimzi(doc: Record<string, unknown>, ignored: IgnoredKey[], problems: ConfigProblem[]): PastedFlow[] {
  const spec = isMap(doc['spec']) ? doc['spec'] : {};
  const clusters = Array.isArray(spec['clusters']) ? (spec['clusters'] as unknown[]).filter(isMap) : [];
  const byAlias = (alias: string) => clusters.find((c) => text(c['alias']).trim() === alias);
  const pathOf = (alias: string) => `spec.clusters[${clusters.findIndex((c) => text(c['alias']).trim() === alias)}]`;
  const mirrors = Array.isArray(spec['mirrors']) ? (spec['mirrors'] as unknown[]) : [];
  if (mirrors.length === 0) problems.push({ property: 'spec.mirrors', reason: 'the KafkaMirrorMaker2 resource has no mirrors' });
  for (const k of Object.keys(spec)) {
    if (!['clusters', 'connectCluster', 'target', 'mirrors'].includes(k)) ignored.push({ key: `spec.${k}`, reason: 'a Kubernetes deployment setting of the MM2 pods, not of the connectors' });
  }
  for (const k of Object.keys(doc)) {
    if (!['apiVersion', 'kind', 'metadata', 'spec'].includes(k)) ignored.push({ key: k, reason: 'not part of the resource\'s spec' });
  }
  const flows: PastedFlow[] = [];
  mirrors.forEach((m, i) => {
    const path = `spec.mirrors[${i}]`;
    if (!isMap(m)) {
      problems.push({ property: path, reason: 'expected a map' });
      return;
    }
    // v1: spec.target and mirrors[].source; v1beta2: aliases into spec.clusters
    let source: Record<string, unknown> | undefined;
    let sourcePath = `${path}.source`;
    if (isMap(m['source'])) source = m['source'];
    else {
      const alias = text(m['sourceCluster']).trim();
      source = byAlias(alias);
      sourcePath = pathOf(alias);
      if (!source) problems.push({ property: `${path}.sourceCluster`, reason: `'${alias}' is not the alias of one of spec.clusters` });
    }
    let target: Record<string, unknown> | undefined;
    let targetPath = 'spec.target';
    if (isMap(spec['target'])) target = spec['target'];
    else {
      const alias = text(m['targetCluster'] ?? spec['connectCluster']).trim();
      target = byAlias(alias);
      targetPath = pathOf(alias);
      if (!target) problems.push({ property: `${path}.targetCluster`, reason: `'${alias}' is not the alias of one of spec.clusters` });
    }
    if (!source || !target) return;
    const base: Record<string, unknown> = {};
    const clusterIgnored: IgnoredKey[] = [];
    strimziCluster(target, 'target.cluster.', targetPath, base, clusterIgnored);
    strimziCluster(source, 'source.cluster.', sourcePath, base, clusterIgnored);
    for (const x of clusterIgnored) if (!ignored.some((y) => y.key === x.key)) ignored.push(x);
    const patterns: Record<string, unknown> = {};
    for (const [field, property] of STRIMZI_PATTERNS) if (m[field] !== undefined && m[field] !== null) patterns[property] = text(m[field]);
    for (const [old, now] of Object.entries(STRIMZI_RENAMED)) {
      if (m[old] !== undefined) ignored.push({ key: `${path}.${old}`, reason: `deprecated, and not used by Strimzi's current operator: rename it to ${now}` });
    }
    const connectors: PastedConnector[] = [];
    for (const [field, kind] of STRIMZI_CONNECTORS) {
      const c = m[field];
      if (c === undefined || c === null) continue;
      const cpath = `${path}.${field}`;
      const cs = isMap(c) ? c : {};
      const config: Record<string, unknown> = { ...base };
      if (isMap(cs['config'])) Object.assign(config, cs['config']);
      if (cs['tasksMax'] !== undefined) config['tasks.max'] = text(cs['tasksMax']);
      Object.assign(config, patterns);
      for (const k of Object.keys(cs)) {
        if (k !== 'config' && k !== 'tasksMax') ignored.push({ key: `${cpath}.${k}`, reason: 'a KafkaConnector lifecycle setting (Strimzi operator), not of the connector config' });
      }
      connectors.push({ kind, config, origin: cpath });
    }
    for (const k of Object.keys(m)) {
      if (!['source', 'sourceCluster', 'targetCluster', ...STRIMZI_CONNECTORS.map(([f]) => f), ...STRIMZI_PATTERNS.map(([f]) => f), ...Object.keys(STRIMZI_RENAMED)].includes(k)) {
        ignored.push({ key: `${path}.${k}`, reason: 'not a connector setting' });
      }
    }
    const S = text(base['source.cluster.alias']);
    const T = text(base['target.cluster.alias']);
    flows.push({ id: `${S}->${T}`, source: S, target: T, connectors });
  });
  // two mirrors between the same clusters: keep them apart
  const seen = new Map<string, number>();
  for (const f of flows) {
    const n = (seen.get(f.id) ?? 0) + 1;
    seen.set(f.id, n);
    if (n > 1) f.id = `${f.id} (${n})`;
  }
  return flows;
}
