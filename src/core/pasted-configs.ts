import YAML from 'yaml';
import { CONFIG_PROVIDER_REFERENCE, connectorKindOfClass, getPropertyDef, type ConnectorKind } from './config-properties';
import { givenConnectorConfig, readConfigText } from './connector-config';
import { parseJavaProperties } from './java-properties';
import { missingEnvReason, substituteEnv, type EnvLookup } from './env-substitution';
import type { ConfigProblem } from './errors';
import { isMap, text, type IgnoredKey, type PastedConfigs, type PastedConnector, type PastedFlow } from './pasted-types';
import { isStrimziMirrorMaker2, readStrimzi } from './pasted-strimzi';

/**
 * Reading whatever MirrorMaker 2 configuration a user pastes, and saying exactly what it sets:
 *
 * - one connector config: Google Cloud's connector YAML, a Kafka Connect REST body
 *   `{name, config}` or a bare config map (JSON), connect-standalone .properties;
 * - several connector configs: a JSON array of REST bodies or bare maps, the
 *   `GET /connectors?expand=info` map, YAML documents separated by `---`, or .properties files
 *   one after the other (a repeated `name` or `connector.class` starts the next one): the forms
 *   this package's own export writes;
 * - MM2's dedicated mode `mm2.properties` (`clusters`, `A->B.enabled`, `A->B.` flow keys,
 *   `A.` cluster keys, top-level defaults), read the way MirrorMakerConfig.connectorBaseConfig
 *   builds each flow's connector configs: top-level connector properties, then the two clusters'
 *   `A.` keys as `source.cluster.` / `target.cluster.` (top-level security settings as their
 *   defaults), then the flow's `A->B.` keys, which win;
 * - Strimzi's `KafkaMirrorMaker2` custom resource (v1beta2 `spec.clusters` + `connectCluster`
 *   + `mirrors[].sourceCluster/targetCluster`, and v1 `spec.target` + `mirrors[].source`), read
 *   the way Strimzi's operator builds the connectors: cluster connection settings, then
 *   `<connector>.config`, then the mirror's topics/groups patterns, which win.
 *
 * Nothing is defaulted here: each connector's `config` holds exactly the keys the text sets, so a
 * caller never mistakes MM2's default for a value the user gave. Keys the reader does not turn
 * into connector settings are listed in `ignored` with the reason, never dropped silently.
 * A text describing several replication flows gives one entry per flow, for the caller to choose.
 */

export type { IgnoredCode, IgnoredKey, PastedConfigs, PastedConnector, PastedFlow, PastedFormat } from './pasted-types';
export { isStrimziMirrorMaker2 } from './pasted-strimzi';

function connectorOf(config: Record<string, unknown>, origin: string): PastedConnector {
  return { kind: connectorKindOfClass(config['connector.class']), config, origin };
}

/** Groups connector configs into flows by their source.cluster.alias / target.cluster.alias. */
function groupIntoFlows(connectors: PastedConnector[]): PastedFlow[] {
  const flows = new Map<string, PastedFlow>();
  for (const c of connectors) {
    const source = text(c.config['source.cluster.alias']).trim();
    const target = text(c.config['target.cluster.alias']).trim();
    const id = `${source}->${target}`;
    let f = flows.get(id);
    if (!f) flows.set(id, (f = { id, source, target, connectors: [] }));
    f.connectors.push(c);
  }
  // a config that names neither alias belongs to the one flow the others describe
  const anonymous = flows.get('->');
  const named = [...flows.values()].filter((f) => f.id !== '->');
  if (anonymous && named.length === 1) {
    named[0].connectors.push(...anonymous.connectors);
    flows.delete('->');
  }
  return [...flows.values()];
}

// ---------------------------------------------------------------------------------------------
// Connector configs (one or several)
// ---------------------------------------------------------------------------------------------

/** A REST body, a GET /connectors/<name> response, an expand=info entry, or a bare config map. */
function connectorFromObject(obj: Record<string, unknown>, origin: string, problems: ConfigProblem[]): PastedConnector {
  const body = isMap(obj['info']) && !('connector.class' in obj) ? (obj['info'] as Record<string, unknown>) : obj;
  const given = givenConnectorConfig(body, problems);
  return connectorOf(Object.fromEntries(given), origin);
}

function readJson(value: unknown, problems: ConfigProblem[]): PastedConnector[] {
  if (Array.isArray(value)) {
    const out: PastedConnector[] = [];
    value.forEach((v, i) => {
      if (!isMap(v)) problems.push({ property: '', reason: `config ${i + 1}: expected a JSON object (a Connect REST body or a config map)` });
      else out.push(connectorFromObject(v, `config ${i + 1}`, problems));
    });
    return out;
  }
  if (!isMap(value)) {
    problems.push({ property: '', reason: 'expected a JSON object or an array of them' });
    return [];
  }
  // GET /connectors?expand=info: {"<name>": {"info": {name, config, ...}, "status": ...}, ...}
  const entries = Object.entries(value);
  if (entries.length > 0 && entries.every(([, v]) => isMap(v) && isMap((v as Record<string, unknown>)['info']))) {
    return entries.map(([name, v]) => connectorFromObject(v as Record<string, unknown>, name, problems));
  }
  return [connectorFromObject(value, 'config 1', problems)];
}

/**
 * .properties files one after the other: a second `connector.class` starts the next config
 * (with the `name` line right before it, as connector files and this package's export write
 * them); any other repeated key is one file's "last one wins", as java.util.Properties reads it.
 */
function splitProperties(entries: Array<[string, string]>): Array<Record<string, unknown>> {
  const parts: Array<Array<[string, string]>> = [[]];
  for (const e of entries) {
    let cur = parts[parts.length - 1];
    if (e[0] === 'connector.class' && cur.some(([k]) => k === 'connector.class')) {
      const next: Array<[string, string]> = [];
      const last = cur[cur.length - 1];
      if (last && last[0] === 'name') next.push(cur.pop() as [string, string]);
      parts.push(next);
      cur = next;
    }
    cur.push(e);
  }
  return parts.map((p) => Object.fromEntries(p));
}

// ---------------------------------------------------------------------------------------------
// mm2.properties (MirrorMakerConfig)
// ---------------------------------------------------------------------------------------------

/**
 * A flow key `A->B.rest` whose aliases hold no dot: [A, B, rest], or null. What the regular
 * expression /^([^.]+?)->([^.]+?)\.(.+)$/ matches, found in one pass (the expression backtracks
 * in time quadratic in a long key without dots: 120,000 characters of `a->` took 7 s).
 */
function flowKeyParts(k: string): [string, string, string] | null {
  const dot = k.indexOf('.');
  if (dot < 0) return null;
  const arrow = k.indexOf('->', 1);
  if (arrow < 0 || arrow + 2 >= dot) return null;
  const rest = k.slice(dot + 1);
  if (rest === '' || /[\n\r\u2028\u2029]/.test(rest)) return null;
  return [k.slice(0, arrow), k.slice(arrow + 2, dot), rest];
}
/** Keys MirrorMakerConfig uses for the Connect workers (or itself), not for the connectors. */
const WORKER_KEY = /^(?:clusters|config\.providers(?:\..*)?|offset\.storage\..*|status\.storage\..*|config\.storage\..*|offset\.flush\..*|task\..*|worker\..*|dedicated\.mode\..*|listeners|rest\..*)$/;
/** Top-level client settings MirrorMakerConfig.clusterProps applies to every cluster that does not set them. */
const CLIENT_KEY = /^(?:security\.protocol|sasl\..*|ssl\..*|bootstrap\.servers)$/;

/** True when properties text is an mm2.properties (dedicated mode) rather than one connector's config. */
export function isMm2Properties(entries: ReadonlyArray<[string, string]>): boolean {
  return entries.some(([k]) => k === 'clusters' || flowKeyParts(k) !== null);
}

/**
 * The replication flows of an mm2.properties, each with its connectors' configs as
 * MirrorMakerConfig.connectorBaseConfig derives them (see the file comment): one flow per
 * enabled `A->B`, in `clusters` order.
 */
export function mm2PropertiesFlows(text: string): { flows: PastedFlow[]; ignored: IgnoredKey[]; problems: ConfigProblem[] } {
  const parsed = parseJavaProperties(text);
  const ignored: IgnoredKey[] = [];
  const problems: ConfigProblem[] = [...parsed.problems];
  return { flows: readMm2Properties(parsed.entries, ignored, problems), ignored, problems };
}

/**
 * The most cluster aliases an mm2.properties `clusters` list may give here (real MM2 deployments
 * list a handful). Above it readMm2Properties throws a PastedConfigLimitError, which the editor's
 * endpoints answer with HTTP 413.
 */
export const MAX_CLUSTER_ALIASES = 4096;

/** A pasted text above one of the bounds of this reader (see MAX_CLUSTER_ALIASES). */
export class PastedConfigLimitError extends Error {
  constructor(
    /** The property (or key) that goes beyond the bound, e.g. `clusters`. */
    readonly property: string,
    /** How many the text gives, and the most accepted. */
    readonly count: number,
    readonly limit: number,
  ) {
    super(`${property}: lists ${count} cluster aliases; at most ${limit} are accepted: paste an mm2.properties with fewer clusters`);
    this.name = 'PastedConfigLimitError';
  }
}

/** What a key of an mm2.properties is, found once per key (see readMm2Properties). */
type Mm2Key =
  | { kind: 'flow'; source: string; target: string; rest: string }
  | { kind: 'cluster'; alias: string }
  | { kind: 'other' };

/**
 * Reads an mm2.properties' keys in time linear in the text: each key is split once, by lookups
 * of its possible alias prefixes in a set of the aliases (never by trying every alias or every
 * pair of aliases), and a flow's connector configs are built only when asked for.
 */
function readMm2Properties(entries: Array<[string, string]>, ignored: IgnoredKey[], problems: ConfigProblem[]): PastedFlow[] {
  const props = new Map<string, string>();
  for (const [k, v] of entries) props.set(k, v);
  // MirrorMakerConfig.clusters() reads the list into a set: a repeated alias is one cluster
  const clusters = [...new Set((props.get('clusters') ?? '').split(',').map((s) => s.trim()).filter((s) => s !== ''))];
  if (clusters.length > MAX_CLUSTER_ALIASES) throw new PastedConfigLimitError('clusters', clusters.length, MAX_CLUSTER_ALIASES);
  if (clusters.length === 0) {
    problems.push({ property: 'clusters', reason: 'is required in an mm2.properties (the cluster aliases, e.g. clusters = A, B)' });
  }
  const order = new Map(clusters.map((c, i) => [c, i]));
  const longest = clusters.reduce((n, c) => Math.max(n, c.length), 0);

  /** The alias a prefix of `k` ending just before `end` names, when it is one; only prefixes no longer than the longest alias are looked up. */
  const aliasAt = (k: string, from: number, end: number): string | undefined => {
    if (end - from > longest) return undefined;
    const a = k.slice(from, end);
    return order.has(a) ? a : undefined;
  };
  /** The positions of `sep` in `k` from `from` on, at most the longest alias away. */
  const positions = (k: string, sep: string, from: number): number[] => {
    const out: number[] = [];
    for (let i = k.indexOf(sep, from); i >= 0 && i - from <= longest; i = k.indexOf(sep, i + 1)) out.push(i);
    return out;
  };
  /**
   * A flow key as MirrorMakerConfig finds it: by the prefix `A->B.` of two of the clusters
   * (aliases may hold dots; several readings: the first pair in clusters order), else by
   * flowKeyParts (aliases that are not clusters). A cluster key: `A.` of the first such alias in
   * clusters order.
   */
  const classify = (k: string): Mm2Key => {
    let best: { source: string; target: string; rest: string } | undefined;
    const rank = (a: string, b: string) => (order.get(a) as number) * clusters.length + (order.get(b) as number);
    for (const i of positions(k, '->', 0)) {
      const a = aliasAt(k, 0, i);
      if (a === undefined) continue;
      for (const j of positions(k, '.', i + 2)) {
        const b = aliasAt(k, i + 2, j);
        if (b === undefined || b === a) continue;
        if (!best || rank(a, b) < rank(best.source, best.target)) best = { source: a, target: b, rest: k.slice(j + 1) };
      }
    }
    if (best) return { kind: 'flow', ...best };
    const m = flowKeyParts(k);
    if (m) return { kind: 'flow', source: m[0], target: m[1], rest: m[2] };
    let alias: string | undefined;
    for (const j of positions(k, '.', 0)) {
      const a = aliasAt(k, 0, j);
      if (a !== undefined && (alias === undefined || (order.get(a) as number) < (order.get(alias) as number))) alias = a;
    }
    return alias !== undefined ? { kind: 'cluster', alias } : { kind: 'other' };
  };
  const keys = new Map<string, Mm2Key>();
  for (const k of props.keys()) keys.set(k, classify(k));

  // the enabled flows, in clusters order (MirrorMakerConfig.clusterPairs: source, then target)
  // (MirrorMakerConfig asks each pair for `A->B.enabled`: here each `.enabled` key is split into its pairs)
  const flows: Array<[string, string]> = [];
  /** `A->A.enabled = true`: a flow from a cluster to itself, which MirrorMakerConfig never runs. */
  const selfEnabled: string[] = [];
  for (const [k, v] of props) {
    if (!k.endsWith('.enabled') || v.trim().toLowerCase() !== 'true') continue;
    const stem = k.slice(0, -'.enabled'.length);
    for (const i of positions(stem, '->', 0)) {
      const a = aliasAt(stem, 0, i);
      const b = a === undefined ? undefined : aliasAt(stem, i + 2, stem.length);
      if (a !== undefined && b !== undefined) {
        if (a !== b) flows.push([a, b]);
        else if (!selfEnabled.includes(k)) selfEnabled.push(k);
      }
    }
  }
  const enabled = new Set<string>();
  const pairs: Array<[string, string]> = [];
  for (const [a, b] of flows.sort(([a1, b1], [a2, b2]) => (order.get(a1) as number) - (order.get(a2) as number) || (order.get(b1) as number) - (order.get(b2) as number))) {
    if (!enabled.has(`${a}->${b}`)) {
      enabled.add(`${a}->${b}`);
      pairs.push([a, b]);
    }
  }
  for (const k of selfEnabled) {
    const reason = 'enables a flow from a cluster to itself, which MM2 never runs (MirrorMakerConfig skips it)';
    // beside other flows it is only not used; alone it leaves nothing to build
    if (pairs.length > 0) ignored.push({ key: k, reason });
    else problems.push({ property: k, reason: `${reason}: enable a flow between two different clusters, e.g. A->B.enabled = true` });
  }
  if (clusters.length > 0 && pairs.length === 0 && selfEnabled.length === 0) {
    problems.push({ property: 'clusters', reason: 'no replication flow is enabled: set <source>-><target>.enabled = true for two of the clusters' });
  }
  const inFlows = new Set(pairs.flat());

  // what the reader uses, and why the rest is not used
  for (const [k, c] of keys) {
    if (c.kind === 'flow') {
      const pair = `${c.source}->${c.target}`;
      if (c.rest === 'enabled') continue;
      if (!order.has(c.source) || !order.has(c.target)) ignored.push({ key: k, reason: `${c.source} or ${c.target} is not one of clusters` });
      else if (c.source === c.target) ignored.push({ key: k, reason: `for ${pair}, a flow from a cluster to itself, which MM2 never runs` });
      else if (!enabled.has(pair)) {
        ignored.push({
          key: k,
          reason: c.rest.startsWith('emit.heartbeats.')
            ? `for the heartbeat connector MM2 runs for the disabled flow ${pair} (it writes heartbeats into ${c.target}), not for an enabled flow`
            : `the flow ${pair} is not enabled (${pair}.enabled is not true)`,
        });
      }
      continue;
    }
    if (c.kind === 'cluster') {
      if (!inFlows.has(c.alias)) ignored.push({ key: k, reason: `cluster ${c.alias} is in no enabled flow` });
      continue;
    }
    if (WORKER_KEY.test(k)) {
      if (k.startsWith('config.providers')) ignored.push({ key: k, code: 'config-provider', reason: 'a config provider of MM2\'s workers: no ${provider:...} reference is resolved here' });
      else if (k !== 'clusters') ignored.push({ key: k, reason: 'a setting of the MM2 process or its Connect workers, not of the connectors' });
      continue;
    }
    if (CLIENT_KEY.test(k) || k.startsWith('replication.policy.')) continue;
    if (getPropertyDef(k) === undefined) ignored.push({ key: k, reason: 'not a connector property: MM2 keeps only connector properties from the top level (give it per flow as A->B.' + k + ')' });
  }

  // the top-level connector properties, the same for every flow
  const topLevel: Array<[string, string]> = [];
  for (const [k, v] of props) {
    const c = keys.get(k) as Mm2Key;
    if (c.kind !== 'other' || WORKER_KEY.test(k) || CLIENT_KEY.test(k)) continue;
    if (k.startsWith('replication.policy.') || getPropertyDef(k) !== undefined) topLevel.push([k, v]);
  }
  const connectorBaseConfig = (S: string, T: string): Record<string, unknown> => {
    const config: Record<string, unknown> = { 'source.cluster.alias': S, 'target.cluster.alias': T };
    for (const [k, v] of topLevel) config[k] = v;
    for (const [alias, prefix] of [[S, 'source.cluster.'], [T, 'target.cluster.']] as const) {
      for (const [k, v] of props) if (k.startsWith(`${alias}.`)) config[prefix + k.slice(alias.length + 1)] = v;
      for (const [k, v] of props) if (CLIENT_KEY.test(k) && !(`${prefix}${k}` in config)) config[prefix + k] = v;
    }
    const flowPrefix = `${S}->${T}.`;
    for (const [k, v] of props) if (k.startsWith(flowPrefix) && k !== `${flowPrefix}enabled`) config[k.slice(flowPrefix.length)] = v;
    return config;
  };

  // each flow's configs are built when first read (a text may enable many flows, and callers read one)
  return pairs.map(([S, T]) => {
    let base: Record<string, unknown> | undefined;
    const origin = `${S}->${T}`;
    const kinds: ConnectorKind[] = ['source', 'checkpoint', 'heartbeat'];
    const connectors = kinds.map((kind): PastedConnector => {
      let own: Record<string, unknown> | undefined;
      return {
        kind,
        origin,
        get config() {
          return (own ??= { ...(base ??= connectorBaseConfig(S, T)) });
        },
        set config(v: Record<string, unknown>) {
          own = v;
        },
      };
    });
    return { id: origin, source: S, target: T, connectors };
  });
}

// ---------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------

/** Reads pasted MM2 configuration text in any of the forms above (see the file comment). */
export function readPastedConfigs(input: string): PastedConfigs {
  const problems: ConfigProblem[] = [];
  const ignored: IgnoredKey[] = [];
  const t = input.replace(/^\uFEFF/, '');
  const trimmed = t.trim();
  if (trimmed === '') {
    return { format: 'yaml', flows: [], ignored, problems: [{ property: '', reason: 'the text is empty: paste a connector config, an mm2.properties or a KafkaMirrorMaker2 resource' }] };
  }
  if (trimmed.startsWith('[')) {
    let v: unknown;
    try {
      v = JSON.parse(trimmed);
    } catch (e) {
      return { format: 'json', flows: [], ignored, problems: [{ property: '', reason: `JSON syntax error: ${(e as Error).message}` }] };
    }
    return { format: 'json', flows: groupIntoFlows(readJson(v, problems)), ignored, problems };
  }
  if (trimmed.startsWith('{')) {
    let v: unknown;
    try {
      v = JSON.parse(trimmed);
    } catch {
      v = undefined;
    }
    if (v !== undefined) {
      if (isStrimziMirrorMaker2(v)) return { format: 'strimzi', flows: readStrimzi(v, ignored, problems), ignored, problems };
      return { format: 'json', flows: groupIntoFlows(readJson(v, problems)), ignored, problems };
    }
  }
  // several YAML documents (`---`): connector configs and/or KafkaMirrorMaker2 resources
  const docs = YAML.parseAllDocuments(t, { schema: 'failsafe', prettyErrors: false });
  const docList = Array.isArray(docs) ? docs : [docs];
  if (docList.length > 0 && docList.every((d) => d.errors.length === 0)) {
    const values = docList.map((d) => d.toJS() as unknown).filter((v) => v !== null && v !== undefined && v !== '');
    const strimzi = values.filter(isStrimziMirrorMaker2);
    if (strimzi.length > 0) {
      const flows: PastedFlow[] = [];
      values.forEach((v, i) => {
        if (isStrimziMirrorMaker2(v)) flows.push(...readStrimzi(v, ignored, problems));
        else ignored.push({ key: `document ${i + 1}`, reason: `not a KafkaMirrorMaker2 resource (kind: ${isMap(v) ? text(v['kind']) || 'none' : 'none'})` });
      });
      return { format: 'strimzi', flows, ignored, problems };
    }
    if (values.length > 1 && values.every(isMap)) {
      const connectors = values.map((v, i) => connectorFromObject(v as Record<string, unknown>, `document ${i + 1}`, problems));
      return { format: 'yaml', flows: groupIntoFlows(connectors), ignored, problems };
    }
  }
  // one text: JSON, YAML or .properties as a single connector config reads it
  const { format, obj } = readConfigText(t, problems);
  if (format === 'properties') {
    const entries = parseJavaProperties(t).entries;
    if (isMm2Properties(entries)) return { format: 'mm2.properties', flows: readMm2Properties(entries, ignored, problems), ignored, problems };
    const parts = splitProperties(entries);
    if (parts.length > 1) return { format, flows: groupIntoFlows(parts.map((p, i) => connectorOf(p, `config ${i + 1}`))), ignored, problems };
  }
  if (problems.length > 0) return { format, flows: [], ignored, problems };
  // an mm2.properties written with `key: value` separators reads as flat YAML
  const flat = Object.entries(obj).filter(([, v]) => !isMap(v) && !Array.isArray(v)).map(([k, v]) => [k, text(v)] as [string, string]);
  if (flat.length === Object.keys(obj).length && isMm2Properties(flat)) {
    return { format: 'mm2.properties', flows: readMm2Properties(flat, ignored, problems), ignored, problems };
  }
  return { format, flows: groupIntoFlows([connectorFromObject(obj, 'config 1', problems)]), ignored, problems };
}

// ---------------------------------------------------------------------------------------------
// Placeholders
// ---------------------------------------------------------------------------------------------

/** An UPPER_SNAKE_CASE word with an underscore, as documentation samples use for "put yours here". */
const UPPER_PLACEHOLDER = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
const ANGLE_PLACEHOLDER = /^<[^<>]+>$/;
/** Kafka's own UPPER_SNAKE values (security protocols), which are not placeholders. */
const KAFKA_WORDS = new Set(['SASL_SSL', 'SASL_PLAINTEXT']);
const PROVIDER_REFERENCE = /\$\{[^{}]*:[^{}]*\}/;

/**
 * Why a pasted value cannot be used as it is, or undefined when it can: a documentation
 * placeholder (`CONSUMER_GROUP_LIST`, `<password>`, also as one item of a list or one part of a
 * host name), a Kafka config-provider reference `${provider:path:key}` (resolved by a Connect
 * worker, never by `reader`, the application that reads the value), or `${VAR}` naming an
 * environment variable that is not set.
 */
export function placeholderReason(value: unknown, lookup?: EnvLookup, property = '', reader = 'this reader'): string | undefined {
  const s = text(value).trim();
  if (s === '') return undefined;
  if (PROVIDER_REFERENCE.test(s) || (CONFIG_PROVIDER_REFERENCE.test(s) && s.includes(':'))) {
    return `'${s}' is a Kafka config-provider reference, which a Connect worker resolves and ${reader} cannot: give the value itself`;
  }
  if (lookup) {
    const missing = substituteEnv(s, lookup).missing;
    if (missing.length > 0) return `'${s}' cannot be resolved: ${missingEnvReason(missing)}`;
  }
  for (const item of s.split(',').map((x) => x.trim())) {
    const parts = property.endsWith('bootstrap.servers') ? [item, ...item.split(/[.:/]/)] : [item];
    const choices = getPropertyDef(property)?.choices;
    const p = parts.find((x) => (UPPER_PLACEHOLDER.test(x) && !KAFKA_WORDS.has(x) && !(choices && x in choices)) || ANGLE_PLACEHOLDER.test(x));
    if (p !== undefined) {
      return `'${p}' looks like a placeholder of a documentation sample: replace it with the real value (a name really spelled so can be written as the regex ^${p}$)`;
    }
  }
  return undefined;
}
