/**
 * `${NAME}` references inside text, replaced from an environment lookup. The flow runtime itself only
 * replaces a field whose whole value is `${NAME}` (at deploy); every node of this package runs
 * its text settings through here, so `${KAFKA_HOST}:9092` or `${TEAM}-.*` work too.
 *
 * - A name is an environment variable name: a letter or `_`, then letters, digits and `_`.
 *   Anything else between `${` and `}` is not a reference and stays as written.
 * - A variable that is not set is never replaced by an empty value: the reference stays as
 *   written and its name is reported in `missing`, and callers report it as a problem.
 *
 * Pure: the lookup is passed in (the nodes' is `nodeEnvLookup` in nodes/shared/settings).
 */

/** Looks up an environment variable; undefined when it is not set. */
export type EnvLookup = (name: string) => string | undefined;

export interface EnvSubstitution<T = string> {
  /** The text with every reference to a set variable replaced. */
  value: T;
  /** The names of the referenced variables that are not set, each once, in order of appearance. */
  missing: string[];
}

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Replaces every `${NAME}` in `text`; names that are not set are returned in `missing` and left as written. */
export function substituteEnv(text: string, lookup: EnvLookup): EnvSubstitution {
  const missing: string[] = [];
  const value = text.replace(ENV_REFERENCE, (whole, name: string) => {
    const v = lookup(name);
    if (v === undefined || v === null) {
      if (!missing.includes(name)) missing.push(name);
      return whole;
    }
    return String(v);
  });
  return { value, missing };
}

/** substituteEnv for a setting of any type: a string is substituted, anything else (number, boolean, empty) is returned as it is. */
export function substituteEnvValue(raw: unknown, lookup: EnvLookup): EnvSubstitution<unknown> {
  if (typeof raw !== 'string' || !raw.includes('${')) return { value: raw, missing: [] };
  return substituteEnv(raw, lookup);
}

/** The reason given for unset variables: `environment variable X is not set` / `environment variables X, Y are not set`. */
export function missingEnvReason(missing: readonly string[]): string {
  return missing.length > 1
    ? `environment variables ${missing.join(', ')} are not set`
    : `environment variable ${missing.join(', ')} is not set`;
}
