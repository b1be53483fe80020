/**
 * The reasons of pasted-config keys whose fix is in Node-RED (core/pasted-configs gives them a
 * code, this words them with the names the editor shows), and the placeholder check named for
 * Node-RED.
 */
import { placeholderReason, type IgnoredKey } from '../core/pasted-configs';
import { analyzeConnectorConfig } from '../core/connector-config';
import { substituteEnv, type EnvLookup } from '../core/env-substitution';
import type { ConfigProblem } from '../core/errors';

const CODE_REASONS: Record<NonNullable<IgnoredKey['code']>, (detail: string) => string> = {
  'config-provider': () => 'a config provider of MM2\'s workers: Node-RED resolves no ${provider:...} references',
  'ca-secret': () => 'Kubernetes Secrets: give the CA file in the mm2-cluster node\'s TLS settings',
  'user-name': (d) => `'${d}': enter the user name in the mm2-cluster node's credentials`,
  'password-secret': () => 'a Kubernetes Secret: enter the password in the mm2-cluster node\'s credentials',
  'client-cert-secret': () => 'a client certificate from a Kubernetes Secret: give its certificate and key files in the mm2-cluster node\'s TLS settings',
  'auth-type': (d) => `authentication type '${d}' has no equivalent here (the mm2-cluster node supports PLAIN, SCRAM and TLS client certificates)`,
};

/** The ignored keys as the editor shows them: `{key, reason}`, the coded ones worded for Node-RED. */
export function wordIgnored(ignored: readonly IgnoredKey[]): IgnoredKey[] {
  return ignored.map((i) => ({ key: i.key, reason: i.code ? CODE_REASONS[i.code](i.detail ?? '') : i.reason }));
}

/** core's placeholderReason, the reader named: Node-RED. */
export function pastedValueReason(value: unknown, lookup?: EnvLookup, property = ''): string | undefined {
  return placeholderReason(value, lookup, property, 'Node-RED');
}

const ENV_REFERENCE = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/;

/** True when `v` occurs in `s` as a token of its own (not inside a word: `x` is not echoed by `expected`). */
function echoes(s: string, v: string): boolean {
  if (v === '') return false;
  const word = /\w/;
  for (let i = s.indexOf(v); i >= 0; i = s.indexOf(v, i + 1)) {
    const before = i === 0 || !word.test(s[i - 1]) || !word.test(v[0]);
    const after = i + v.length === s.length || !word.test(s[i + v.length]) || !word.test(v[v.length - 1]);
    if (before && after) return true;
  }
  return false;
}

/** The keys of a pasted connector config whose value holds a `${NAME}` reference. */
export function referencedKeys(config: Readonly<Record<string, unknown>>): Set<string> {
  return new Set(Object.keys(config).filter((k) => typeof config[k] === 'string' && ENV_REFERENCE.test(config[k] as string)));
}

/**
 * The one rule of both paste endpoints for `${NAME}` in a pasted value: the value is kept as
 * written (the node substitutes it when it runs, as in any of its fields); a variable that is not
 * set is refused (pastedValueReason); the value with every variable substituted is checked as the
 * node will check it, and its problem quotes the value as written, never the substituted one (an
 * environment variable may hold a secret). These are the problems of the config's referenced
 * values whose variables are all set.
 */
export function substitutedValueProblems(config: Readonly<Record<string, unknown>>, lookup: EnvLookup): ConfigProblem[] {
  const written = new Map<string, { text: string; value: string; values: string[] }>();
  const substituted: Record<string, unknown> = { ...config };
  for (const k of referencedKeys(config)) {
    const text = config[k] as string;
    const values: string[] = [];
    const r = substituteEnv(text, (name) => {
      const v = lookup(name);
      if (v !== undefined && v !== null) values.push(String(v));
      return v;
    });
    if (r.missing.length > 0) continue;
    substituted[k] = r.value;
    written.set(k, { text, value: r.value, values });
  }
  const out: ConfigProblem[] = [];
  for (const p of analyzeConnectorConfig(substituted).problems) {
    const w = written.get(p.property);
    if (!w) continue;
    const names = [...new Set([...w.text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]))].join(', ');
    let reason = p.reason.split(`'${w.value}'`).join(`'${w.text}'`);
    // a variable's value still in the words (outside the text as written): say nothing of it
    const outside = reason.split(w.text).join(' ');
    if (w.values.some((v) => echoes(outside, v))) reason = `'${w.text}' is not a valid value`;
    out.push({ property: p.property, reason: `${reason} (with ${names} substituted; the value is not shown)` });
  }
  return out;
}
