/**
 * The value checks several MM2 properties share (core/config-properties' catalogue): numeric
 * bounds, intervals, regex lists, cluster aliases, Java class names, bootstrap servers. Each
 * returns why a value is refused, or undefined.
 */
import { ConfigError } from './errors';
import { intervalProblem, MAX_INTERVAL_SECONDS } from './intervals';
import { compileRegexList, splitList } from './java-regex-list';

export const INT_MIN = -2147483648;
export const INT_MAX = 2147483647;
export const SHORT_MIN = -32768;
export const SHORT_MAX = 32767;

/** Characters Kafka allows in topic names. Aliases and the separator end up in topic names. */
export const TOPIC_CHARS = /^[A-Za-z0-9._-]*$/;

/** A Java class name: dotted identifiers, `$` allowed for nested classes. */
export const JAVA_CLASS_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;

/** A whole-value Kafka config-provider reference such as `${file:/etc/secrets.properties:key}`. */
export const CONFIG_PROVIDER_REFERENCE = /^\$\{[^{}]*\}$/;

/**
 * An interval in whole seconds: positive (MM2's rule) and within the bounds every node timer
 * has (core/intervals: 1 s to 24 days), so no interval can become a busy loop. `enabled`: the
 * property that turns the job off, named in the refusal (none: MM2 has no way to turn it off).
 */
export function positiveInterval(enabled?: string): (v: number) => string | undefined {
  const offHint = enabled === undefined ? undefined : `set ${enabled} to false`;
  return (v) => {
    if (v <= 0) {
      return `must be a positive number of seconds (got ${v}), at most ${MAX_INTERVAL_SECONDS} (24 days)${offHint ? `; to turn the job off ${offHint}` : ''}`;
    }
    return intervalProblem(v, { unit: 'seconds', ...(offHint ? { offHint } : {}) });
  };
}

export function nonNegativeMillis(v: number): string | undefined {
  return v < 0 ? `must be 0 or more milliseconds (got ${v})` : undefined;
}

export function replicationFactor(v: number): string | undefined {
  if (v >= 1 || v === -1) return undefined;
  return `must be at least 1, or -1 for the broker's default.replication.factor (got ${v})`;
}

export function regexList(property: string): (v: string) => string | undefined {
  return (v) => {
    try {
      compileRegexList(v, property);
      return undefined;
    } catch (e) {
      if (e instanceof ConfigError) return e.problems.map((p) => p.reason).join('; ');
      return (e as Error).message;
    }
  };
}

export function clusterAlias(v: string): string | undefined {
  if (v.length === 0) return 'must not be empty';
  if (!TOPIC_CHARS.test(v)) {
    return `'${v}' is used in topic names, so it may contain only ASCII letters, digits, '.', '_' and '-'`;
  }
  return undefined;
}

export function notEmpty(v: string): string | undefined {
  return v.length === 0 ? 'must not be empty' : undefined;
}

export function javaClassName(v: string): string | undefined {
  if (v.length === 0) return 'must name a Java class';
  return JAVA_CLASS_NAME.test(v) ? undefined : `'${v}' is not a Java class name`;
}

export function javaClassList(v: string): string | undefined {
  const bad = splitList(v).filter((c) => !JAVA_CLASS_NAME.test(c));
  return bad.length > 0 ? `${bad.map((c) => `'${c}'`).join(', ')} ${bad.length > 1 ? 'are not Java class names' : 'is not a Java class name'}` : undefined;
}

/** host:port, [ipv6]:port, optionally with a listener-name prefix `NAME://` (Kafka tolerates one). */
const HOST_PORT = /^(?:[A-Za-z][A-Za-z0-9_+.-]*:\/\/)?(?:\[[0-9A-Fa-f:.%A-Za-z]+\]|[0-9A-Za-z%._-]+):([0-9]{1,5})$/;

export function bootstrapServers(v: string): string | undefined {
  const items = splitList(v);
  if (items.length === 0) return 'must list at least one host:port';
  const bad = items.filter((s) => {
    if (CONFIG_PROVIDER_REFERENCE.test(s)) return false;
    const m = HOST_PORT.exec(s);
    return !m || Number(m[1]) > 65535;
  });
  if (bad.length === 0) return undefined;
  return `${bad.map((s) => `'${s}'`).join(', ')} ${bad.length > 1 ? 'are' : 'is'} not host:port`;
}
