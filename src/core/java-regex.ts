import { ConfigError } from './errors';

/**
 * MM2 list properties (`groups`, `topics`, ...) are comma-separated lists of Java regular
 * expressions. Kafka's list parser splits on commas with surrounding whitespace trimmed and
 * drops empty entries; the filter joins the entries with `|` and requires a full match
 * (Java `Matcher.matches()`). An empty list matches nothing.
 */

/** Splits an MM2 list value the way Kafka's ConfigDef LIST type does. */
export function splitList(value: string | readonly string[] | undefined | null): string[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? (value as readonly string[]) : String(value).split(',');
  return items.map((s) => s.trim()).filter((s) => s.length > 0);
}

/**
 * Translates the Java-only constructs that have a safe JavaScript equivalent:
 * `\A` and `\z`/`\Z` anchors, possessive quantifiers (`a*+` -> `a*`), atomic groups
 * `(?>...)` -> `(?:...)`. Anything JavaScript still cannot compile is reported by the caller.
 */
export function javaToJsPattern(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      const n = pattern[i + 1];
      if (!inClass && n === 'A') { out += '^'; i++; continue; }
      if (!inClass && (n === 'z' || n === 'Z')) { out += '$'; i++; continue; }
      out += c + n;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') { inClass = true; out += c; continue; }
    if (c === '(' && pattern.startsWith('(?>', i)) { out += '(?:'; i += 2; continue; }
    if (c === '+' && i > 0 && /[*+?}]/.test(pattern[i - 1]) && pattern[i - 2] !== '\\') {
      // possessive quantifier: drop the '+' (JS has none; the match set is the same for filters)
      continue;
    }
    out += c;
  }
  return out;
}

/**
 * Compiles an MM2 regex list into one RegExp that must match the whole name, or null when
 * the list is empty (matches nothing). Throws ConfigError naming `property` when an entry
 * cannot be compiled.
 */
export function compileRegexList(
  value: string | readonly string[] | undefined | null,
  property: string,
): RegExp | null {
  const items = splitList(value);
  if (items.length === 0) return null;
  const bad: string[] = [];
  for (const item of items) {
    try {
      new RegExp(javaToJsPattern(item));
    } catch (e) {
      bad.push(`'${item}' is not a valid regular expression (${(e as Error).message})`);
    }
  }
  if (bad.length > 0) throw new ConfigError(bad.join('; '), property);
  return new RegExp('^(?:' + items.map((i) => '(?:' + javaToJsPattern(i) + ')').join('|') + ')$');
}
