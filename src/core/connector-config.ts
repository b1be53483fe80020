import YAML from 'yaml';
import { ConfigError, ConfigProblem } from './errors';
import {
  CONFIG_PROPERTIES,
  CONFIG_PROVIDER_REFERENCE,
  ConnectorKind,
  ConnectorSettings,
  REMOVED_ALIASES,
  SettingValue,
  connectorKindOfClass,
  getPropertyDef,
  isSecretProperty,
  normaliseValue,
  settingToString,
} from './config-properties';
import { LINE_BREAK, endsWithContinuation, escapePropertiesText, hex4, isPropsSpace, parseJavaProperties, stripLeadingSpace } from './java-properties';

/**
 * Reading and writing MirrorMaker 2 connector configs in the forms users paste:
 *
 * - YAML, as in Google Cloud Managed Kafka Connect's connector config file: flat
 *   `key: "value"` lines; a nested `config:` / `configs:` map is also accepted;
 * - JSON: the Kafka Connect REST body `{"name": ..., "config": {...}}` or a flat map;
 * - Java .properties (`connect-standalone` connector files);
 * - an already-parsed object (e.g. settings of a node, or a previous parse result).
 *
 * Every value is normalised by the property catalogue (config-properties.ts); properties the
 * catalogue does not list are kept as strings and reported in `unknown`.
 */

/** Text formats we read and write. */
export type ConfigFormat = 'yaml' | 'json' | 'properties';

/** Where a parsed config came from. */
export type InputFormat = ConfigFormat | 'object';

/** Everything analyzeConnectorConfig learns about a config. */
export interface ConfigAnalysis {
  /**
   * Every catalogued property that has a value (given, or MM2's default), normalised: booleans
   * as boolean, int/short/long as number, lists as `a, b`, the rest as trimmed strings; plus
   * every other property as the string given. A property named in `problems` holds the text
   * it was given (not a typed value).
   */
  settings: ConnectorSettings;
  format: InputFormat;
  /** The connector `connector.class` names, or undefined when absent or not an MM2 connector. */
  connector: ConnectorKind | undefined;
  /** Properties given that the catalogue does not list, in input order (kept in settings as strings). */
  unknown: string[];
  /** Every problem found; `property` is '' for syntax errors in the text. */
  problems: ConfigProblem[];
  /** Properties given whose value is a secret (passwords, JAAS configs, private keys), in input order. */
  secrets: string[];
}

/** Options of formatConnectorConfig. */
export interface FormatOptions {
  /**
   * Omit properties equal to MM2's default. Default false: an explicit config keeps meaning the
   * same on MM2 versions whose defaults differ. `name`, `connector.class` and required
   * properties are always written.
   */
  onlyNonDefault?: boolean;
  /**
   * Write secret values in clear. Default false: each secret is written as a Kafka config-provider
   * reference `${file:<secretsFile>:<property>}` (see secretPlaceholder) and a comment says so
   * (YAML and properties). Values that already are `${...}` references are written unchanged.
   */
  includeSecrets?: boolean;
  /** Path used in secret references. Default DEFAULT_SECRETS_FILE. */
  secretsFile?: string;
}

/** Path used in secret references when FormatOptions.secretsFile is not given: an obvious placeholder. */
export const DEFAULT_SECRETS_FILE = '/path/to/secrets.properties';

/**
 * The reference written instead of a secret value: Kafka's FileConfigProvider syntax
 * `${file:<path>:<key>}`, with the property name as the key. A Connect worker with
 * `config.providers=file` resolves it from that file; without it the connector fails to
 * start instead of running with a wrong secret.
 */
export function secretPlaceholder(property: string, secretsFile: string = DEFAULT_SECRETS_FILE): string {
  return '${file:' + secretsFile + ':' + property + '}';
}

// ---------------------------------------------------------------------------------------------
// Format detection
// ---------------------------------------------------------------------------------------------

type LineKind = 'props' | 'colon' | 'yaml';

/** Text that starts like JSON (`{"`, `{}`): read as JSON only, never as a YAML flow mapping. */
const JSON_START = /^\{\s*(?:"|\}|$)/;

/** Classifies one non-indented, non-comment line by its first key separator. */
function classifyLine(t: string): { kind: LineKind; valueStart: number } {
  if (/^(?:---|\.\.\.|%|[-{[\]"'&*?|>@`])/.test(t)) return { kind: 'yaml', valueStart: 0 };
  let j = 0;
  while (j < t.length) {
    const c = t[j];
    if (c === '\\') {
      j += 2;
      continue;
    }
    if (c === '=') return { kind: 'props', valueStart: j + 1 };
    if (c === ':') {
      const n = t[j + 1];
      if (n === undefined || n === ' ' || n === '\t') return { kind: 'colon', valueStart: j + 1 };
      return { kind: 'props', valueStart: j + 1 }; // `key:value` is a YAML scalar, a .properties pair
    }
    if (isPropsSpace(c)) {
      let k = j;
      while (k < t.length && isPropsSpace(t[k])) k++;
      if (t[k] === ':' && (t[k + 1] === undefined || t[k + 1] === ' ' || t[k + 1] === '\t')) {
        return { kind: 'colon', valueStart: k + 1 };
      }
      return { kind: 'props', valueStart: k };
    }
    j++;
  }
  return { kind: 'props', valueStart: t.length }; // a key alone
}

interface LineSurvey {
  /** Some line can only be .properties. */
  props: boolean;
  /** Every content line is a top-level `key: value` line that .properties would read the same way. */
  allSimpleColon: boolean;
}

function surveyLines(text: string): LineSurvey {
  let props = false;
  let allSimpleColon = true;
  let continuation = false;
  for (const line of text.split(LINE_BREAK)) {
    if (continuation) {
      continuation = endsWithContinuation(line);
      continue;
    }
    const t = stripLeadingSpace(line);
    if (t.length === 0 || t[0] === '#') continue;
    if (t[0] === '!') {
      props = true;
      continue;
    }
    if (t.length !== line.length) {
      allSimpleColon = false; // indented: YAML nesting or a block scalar
      continue;
    }
    const { kind, valueStart } = classifyLine(t);
    if (kind === 'props') {
      props = true;
      continuation = endsWithContinuation(t);
      continue;
    }
    if (kind === 'yaml') {
      allSimpleColon = false;
      continue;
    }
    const value = stripLeadingSpace(t.slice(valueStart));
    if (/^["'[{|>&*!]/.test(value)) allSimpleColon = false;
    else if (endsWithContinuation(t)) {
      // an unquoted value continued with a trailing backslash: .properties line continuation
      props = true;
      continuation = true;
    }
  }
  return { props, allSimpleColon };
}

/**
 * Guesses the format of configuration text: JSON when it parses as a JSON object;
 * .properties when some line can only be .properties (`k=v`, `k v`, `k:v`, `!` comments,
 * backslash continuations of an unquoted value); otherwise YAML. `key: value` lines on their
 * own are read as YAML (Google Cloud's connector config file).
 */
export function detectConfigFormat(text: string): ConfigFormat {
  const t = text.replace(/^\uFEFF/, '').trim();
  if (t.startsWith('{')) {
    try {
      const v: unknown = JSON.parse(t);
      if (isPlainObject(v)) return 'json';
    } catch {
      // not JSON: maybe a YAML flow mapping
    }
    return JSON_START.test(t) ? 'json' : 'yaml';
  }
  return surveyLines(t).props ? 'properties' : 'yaml';
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function firstLine(message: string): string {
  return message.split('\n')[0].trim();
}

function propertiesToObject(text: string, problems: ConfigProblem[]): Record<string, unknown> {
  const r = parseJavaProperties(text);
  problems.push(...r.problems);
  const obj: Record<string, unknown> = {};
  for (const [k, v] of r.entries) obj[k] = v;
  return obj;
}

function yamlToObject(text: string, problems: ConfigProblem[]): Record<string, unknown> | undefined {
  // failsafe schema: every scalar is a string, exactly what Kafka Connect receives
  const doc = YAML.parseDocument(text, { schema: 'failsafe', prettyErrors: false });
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const offset = e.pos?.[0];
      const where = typeof offset === 'number' ? ` (line ${text.slice(0, offset).split(LINE_BREAK).length})` : '';
      problems.push({
        property: '',
        reason: `${e.code === 'DUPLICATE_KEY' ? 'YAML: ' : 'YAML syntax error: '}${firstLine(e.message)}${where}`,
      });
    }
    return undefined;
  }
  const v: unknown = doc.toJS();
  if (v === null || v === undefined || v === '') return {};
  if (!isPlainObject(v)) {
    problems.push({ property: '', reason: 'expected a map of property names to values' });
    return undefined;
  }
  return v;
}

/**
 * Reads configuration text (JSON, YAML or .properties, detected as analyzeConnectorConfig does)
 * into a map as written, before unwrapping and defaults; syntax errors go to `problems`.
 */
export function readConfigText(text: string, problems: ConfigProblem[]): { format: ConfigFormat; obj: Record<string, unknown> } {
  return parseText(text, problems);
}

function parseText(text: string, problems: ConfigProblem[]): { format: ConfigFormat; obj: Record<string, unknown> } {
  const t = text.replace(/^\uFEFF/, '');
  const trimmed = t.trim();
  if (trimmed.startsWith('{')) {
    let jsonError: string | undefined;
    try {
      const v: unknown = JSON.parse(trimmed);
      if (isPlainObject(v)) return { format: 'json', obj: v };
      jsonError = 'expected a JSON object';
    } catch (e) {
      jsonError = (e as Error).message;
    }
    // `{a: b}` may be a YAML flow mapping; text that starts like JSON (`{"`) is broken JSON
    if (!JSON_START.test(trimmed)) {
      const yamlProblems: ConfigProblem[] = [];
      const obj = yamlToObject(trimmed, yamlProblems);
      if (obj !== undefined) return { format: 'yaml', obj };
    }
    problems.push({ property: '', reason: `JSON syntax error: ${jsonError}` });
    return { format: 'json', obj: {} };
  }
  const survey = surveyLines(trimmed);
  if (survey.props) return { format: 'properties', obj: propertiesToObject(t, problems) };
  const yamlProblems: ConfigProblem[] = [];
  const obj = yamlToObject(t, yamlProblems);
  if (obj !== undefined) return { format: 'yaml', obj };
  if (survey.allSimpleColon && !yamlProblems.some((p) => p.reason.startsWith('YAML: '))) {
    // e.g. `key: a: b`, fine for .properties, not for YAML
    return { format: 'properties', obj: propertiesToObject(t, problems) };
  }
  problems.push(...yamlProblems);
  return { format: 'yaml', obj: {} };
}

const WRAPPER_KEYS = ['config', 'configs'];
/** Read-only fields of Connect REST responses, not configuration. */
const REST_METADATA_KEYS = new Set(['tasks', 'type']);

function sameScalar(a: unknown, b: unknown): boolean {
  return String(a) === String(b);
}

/**
 * The properties a config object sets, as given (no defaults): unwraps the Connect REST body
 * `{name, config: {...}}` / `configs:` (dropping the read-only `tasks` and `type` of a GET
 * response); a key given at both levels with different values is a problem.
 */
export function givenConnectorConfig(obj: Readonly<Record<string, unknown>>, problems: ConfigProblem[]): Map<string, unknown> {
  return flatten(obj as Record<string, unknown>, problems);
}

/** Unwraps `{name, config: {...}}` / `configs:` and returns the flat key -> raw value map. */
function flatten(obj: Record<string, unknown>, problems: ConfigProblem[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const wrapper = WRAPPER_KEYS.find((k) => isPlainObject(obj[k]));
  if (wrapper === undefined) {
    for (const [k, v] of Object.entries(obj)) out.set(k, v);
    return out;
  }
  for (const [k, v] of Object.entries(obj)) {
    if (k === wrapper || REST_METADATA_KEYS.has(k)) continue;
    out.set(k, v);
  }
  for (const [k, v] of Object.entries(obj[wrapper] as Record<string, unknown>)) {
    const outer = out.get(k);
    if (outer !== undefined && outer !== null && v !== null && v !== undefined && !sameScalar(outer, v)) {
      problems.push({
        property: k,
        reason: `is given twice with different values ('${String(outer)}' at the top level, '${String(v)}' in ${wrapper})`,
      });
    }
    out.set(k, v);
  }
  return out;
}

function rawText(v: unknown): string {
  if (Array.isArray(v)) return v.map((x) => String(x)).join(',');
  return String(v);
}

/**
 * Parses a connector config (YAML, JSON or .properties text, or an object) and reports
 * everything about it without throwing for property problems. A syntax error in the text is
 * a problem with property ''.
 */
export function analyzeConnectorConfig(input: string | Readonly<Record<string, unknown>>): ConfigAnalysis {
  const problems: ConfigProblem[] = [];
  let format: InputFormat;
  let obj: Record<string, unknown>;
  if (typeof input === 'string') {
    ({ format, obj } = parseText(input, problems));
  } else if (isPlainObject(input)) {
    format = 'object';
    obj = input as Record<string, unknown>;
  } else {
    problems.push({ property: '', reason: 'expected configuration text (YAML, JSON or .properties) or an object' });
    format = 'object';
    obj = {};
  }

  const unreadable = problems.length > 0; // the text did not parse: nothing was read
  const raw = flatten(obj, problems);
  const settings: ConnectorSettings = {};
  const unknown: string[] = [];
  const secrets: string[] = [];

  for (const [key, value] of raw) {
    if (value === null || value === undefined) continue; // absent: the default applies
    if (key.length === 0) {
      problems.push({ property: '', reason: `a property has an empty name (value '${rawText(value)}')` });
      continue;
    }
    if (isPlainObject(value)) {
      problems.push({ property: key, reason: 'must be a single value, not a nested map' });
      continue;
    }
    if (isSecretProperty(key) && rawText(value).trim() !== '') secrets.push(key);
    const d = getPropertyDef(key);
    if (d === undefined) {
      unknown.push(key);
      settings[key] = rawText(value);
      const replacement = REMOVED_ALIASES[key];
      if (replacement !== undefined) {
        problems.push({
          property: key,
          reason: `was removed in Kafka 4.0 (MM2 ignores it); rename it to ${replacement}`,
        });
      }
      continue;
    }
    if (Array.isArray(value) && d.type !== 'list') {
      problems.push({ property: key, reason: 'must be a single value, not a list' });
      settings[key] = rawText(value);
      continue;
    }
    const r = normaliseValue(d, value);
    if (r.ok) {
      settings[key] = r.value;
    } else {
      problems.push({ property: key, reason: r.reason });
      settings[key] = rawText(value);
    }
  }

  for (const d of CONFIG_PROPERTIES) {
    if (d.default !== undefined && settings[d.name] === undefined) settings[d.name] = d.default as SettingValue;
    if (d.required && settings[d.name] === undefined && !unreadable) {
      problems.push({ property: d.name, reason: 'is required' });
    }
  }

  const connector = connectorKindOfClass(settings['connector.class']);

  // MirrorCheckpointConnector.validate (MirrorCheckpointConfig): only while the connector is enabled.
  if (connector === 'checkpoint' && settings['enabled'] !== false) {
    if (settings['emit.checkpoints.enabled'] === false) {
      problems.push({
        property: 'emit.checkpoints.enabled',
        reason: "MirrorCheckpointConnector can't run with emit.checkpoints.enabled set to false (set enabled=false to turn the connector off)",
      });
    }
    if (settings['emit.offset-syncs.enabled'] === false) {
      problems.push({
        property: 'emit.offset-syncs.enabled',
        reason: "MirrorCheckpointConnector can't run without offset syncs (emit.offset-syncs.enabled must not be false)",
      });
    }
  }

  return { settings, format, connector, unknown, problems, secrets };
}

/**
 * Parses a connector config and returns its settings (see ConfigAnalysis.settings). Throws a
 * ConfigError naming every bad property and why when there is any problem.
 */
export function parseConnectorConfig(input: string | Readonly<Record<string, unknown>>): ConnectorSettings {
  const a = analyzeConnectorConfig(input);
  if (a.problems.length > 0) throw new ConfigError(a.problems);
  return a.settings;
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

function valueText(v: unknown): string {
  if (typeof v === 'boolean' || typeof v === 'number') return settingToString(v);
  return rawText(v);
}

/** The key/value strings to write, in catalogue order then the other keys in settings order. */
function exportPairs(
  settings: Readonly<Record<string, unknown>>,
  options: FormatOptions,
): { pairs: Array<[string, string]>; placeholders: number } {
  const onlyNonDefault = options.onlyNonDefault ?? false;
  const includeSecrets = options.includeSecrets ?? false;
  const secretsFile = options.secretsFile ?? DEFAULT_SECRETS_FILE;
  const connector = connectorKindOfClass(settings['connector.class']);
  const pairs: Array<[string, string]> = [];
  let placeholders = 0;

  const push = (key: string, text: string): void => {
    if (!includeSecrets && isSecretProperty(key) && text.trim() !== '' && !CONFIG_PROVIDER_REFERENCE.test(text.trim())) {
      pairs.push([key, secretPlaceholder(key, secretsFile)]);
      placeholders++;
    } else {
      pairs.push([key, text]);
    }
  };

  for (const d of CONFIG_PROPERTIES) {
    const v = settings[d.name];
    if (v === undefined || v === null) continue;
    const r = normaliseValue(d, v);
    const text = r.ok ? settingToString(r.value) : valueText(v); // an invalid value is written as given
    const isDefault = r.ok && d.default !== undefined && r.value === d.default;
    const alwaysKept = d.required || d.name === 'name' || d.name === 'connector.class';
    if (isDefault && !alwaysKept) {
      if (onlyNonDefault) continue;
      if (d.group === 'client') continue; // the Kafka client applies it anyway
      if (connector !== undefined && !d.connectors.includes(connector)) continue; // another connector's default
    }
    push(d.name, text);
  }
  for (const [key, v] of Object.entries(settings)) {
    if (v === undefined || v === null || getPropertyDef(key) !== undefined) continue;
    push(key, valueText(v));
  }
  return { pairs, placeholders };
}

const SECRETS_COMMENT = (file: string): string[] => [
  '# Secrets are not written in clear: each ${file:' + file + ':<property>} reference is resolved',
  "# by Kafka's FileConfigProvider (worker: config.providers=file, config.providers.file.class=",
  '# org.apache.kafka.common.config.provider.FileConfigProvider) from that file, under the property name.',
];

/** A YAML double-quoted scalar that any YAML 1.1/1.2 reader decodes to exactly `s`. */
function yamlQuote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const code = s.charCodeAt(i);
    if (c === '"') out += '\\"';
    else if (c === '\\') out += '\\\\';
    else if (c === '\n') out += '\\n';
    else if (c === '\t') out += '\\t';
    else if (c === '\r') out += '\\r';
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      out += c + s[i + 1]; // a well-formed surrogate pair: one printable character
      i++;
    } else if (
      code < 0x20 ||
      (code >= 0x7f && code <= 0x9f) ||
      (code >= 0xd800 && code <= 0xdfff) ||
      code === 0x2028 ||
      code === 0x2029 ||
      code === 0xfeff ||
      code >= 0xfffe
    ) {
      out += '\\u' + hex4(code);
    } else out += c;
  }
  return out + '"';
}

const YAML_PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const YAML_RESERVED = /^(?:y|n|yes|no|true|false|on|off|null)$/i;

function yamlKey(k: string): string {
  return YAML_PLAIN_KEY.test(k) && !YAML_RESERVED.test(k) ? k : yamlQuote(k);
}

/**
 * Writes settings as connector config text that parseConnectorConfig reads back to the same
 * settings (exactly, when secrets are included or there are none). All values are written as
 * strings, as Kafka Connect expects.
 *
 * - `yaml`: Google Cloud's config-file form, flat `key: "value"` lines;
 * - `json`: the Connect REST body `{"name": ..., "config": {...}}` when settings have a name
 *   (the config map holds the name too, so it also serves PUT /connectors/<name>/config),
 *   otherwise the flat map;
 * - `properties`: `key=value` lines escaped as java.util.Properties.store does (ASCII only).
 *
 * Written: every catalogued property with a value, in catalogue order, except values equal to
 * MM2's default that are client keys or belong only to another connector (and all defaults
 * with onlyNonDefault); then every other property.
 */
export function formatConnectorConfig(
  settings: Readonly<Record<string, unknown>>,
  format: ConfigFormat,
  options: FormatOptions = {},
): string {
  const { pairs, placeholders } = exportPairs(settings, options);
  const comment = placeholders > 0 ? SECRETS_COMMENT(options.secretsFile ?? DEFAULT_SECRETS_FILE) : [];
  switch (format) {
    case 'json': {
      const config: Record<string, string> = {};
      for (const [k, v] of pairs) config[k] = v;
      const name = config['name'];
      const body = name !== undefined ? { name, config } : config;
      return JSON.stringify(body, null, 2) + '\n';
    }
    case 'yaml':
      return [...comment, ...pairs.map(([k, v]) => `${yamlKey(k)}: ${yamlQuote(v)}`)].join('\n') + '\n';
    case 'properties':
      return (
        [...comment, ...pairs.map(([k, v]) => `${escapePropertiesText(k, true)}=${escapePropertiesText(v, false)}`)].join('\n') +
        '\n'
      );
    default:
      throw new ConfigError(`unknown format '${String(format)}' (expected yaml, json or properties)`);
  }
}
