import { ConfigError } from './errors';
import { LinearRegex, RegexTooLargeError } from './linear-regex';
import { listItemsProblem } from './list-values';
import { javaToJsPattern, translatePiece, type Piece } from './java-regex';

/**
 * MM2 list properties (`groups`, `topics`, ...) are comma-separated lists of Java regular
 * expressions. Kafka's list parser splits on commas with surrounding whitespace trimmed; up to
 * 4.1 it ignored empty entries, from 4.2 it refuses them and duplicates (core/list-values, which
 * compileRegexList applies); the filter joins the entries with `|` and requires a full match
 * (Java `Pattern.compile(...).matcher(name).matches()`). An empty list matches nothing.
 */

/** Splits an MM2 list value the way Kafka's ConfigDef LIST type does. */
export function splitList(value: string | readonly string[] | undefined | null): string[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? (value as readonly string[]) : String(value).split(',');
  return items.map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Whole-name matching of an MM2 regex list. */
export interface NameMatcher {
  /** Whether the whole name matches one of the list's patterns (Java's Matcher.matches()). */
  test(name: string): boolean;
}

/**
 * The items of an MM2 regex list, each compiled by `compileOne` (given the item and a group-name
 * prefix of its own), or null when the list is empty. Throws ConfigError naming `property` when
 * the list has a duplicate or an empty item (refused by Kafka 4.2+) or an entry cannot be used
 * (each bad entry and its construct named).
 */
function compileItems<T>(
  value: string | readonly string[] | undefined | null,
  property: string,
  compileOne: (item: string, prefix: string) => T,
): T[] | null {
  if (value !== undefined && value !== null) {
    const problem = listItemsProblem(value);
    if (problem !== undefined) throw new ConfigError(problem, property);
  }
  const items = splitList(value);
  if (items.length === 0) return null;
  const bad: string[] = [];
  const out: T[] = [];
  items.forEach((item, k) => {
    try {
      out.push(compileOne(item, `a${k}x`));
    } catch (e) {
      bad.push(`'${item}' is not a valid regular expression (${(e as Error).message})`);
    }
  });
  if (bad.length > 0) throw new ConfigError(bad.join('; '), property);
  return out;
}

/**
 * The list as Java compiles it: MM2 joins the items with `|` into one pattern
 * (MirrorUtils.compilePatternList), so an inline flag such as `(?i)` at the start of an item
 * applies to the items after it, and two items may not name a group alike. Each item was checked
 * on its own first (its own error); this is the pattern that is matched. Throws ConfigError.
 */
function joinedPattern(value: string | readonly string[] | undefined | null, property: string): Piece {
  const joined = splitList(value).join('|');
  try {
    const piece = translatePiece(joined, 'a');
    new RegExp(piece.src, 'u');
    return piece;
  } catch (e) {
    throw new ConfigError(`'${joined}' (the items joined with |, as MM2 compiles them) is not a valid regular expression (${(e as Error).message})`, property);
  }
}

/** Characters Java's `.` does not match (no DOTALL, no UNIX_LINES): the line terminators. */
const LINE_TERMINATOR = /[\n\r\u0085\u2028\u2029]/;

/**
 * Every item a literal prefix then `.*` (MM2's default group list `.*` and exclusions
 * `console-consumer-.*, connect-.*, __.*`): the prefixes, else null.
 */
function prefixItems(value: string | readonly string[] | undefined | null): string[] | null {
  const items = splitList(value);
  const out: string[] = [];
  for (const item of items) {
    const m = /^([A-Za-z0-9_-]*)\.\*$/.exec(item);
    if (m === null) return null;
    out.push(m[1]);
  }
  return out;
}

/**
 * A list of literal prefixes each followed by `.*`, matched as Java matches it without a regex:
 * the name starts with a prefix and no line terminator follows it (Java's `.`). Nothing to
 * remember per name (issue 24 step g: the filters' memo of every group name is not needed).
 */
export class PrefixMatcher implements NameMatcher {
  constructor(private readonly prefixes: readonly string[]) {}

  test(name: string): boolean {
    for (const p of this.prefixes) if (name.startsWith(p) && !LINE_TERMINATOR.test(p.length === 0 ? name : name.slice(p.length))) return true;
    return false;
  }
}

/**
 * Compiles an MM2 regex list into a matcher of whole names, or null when the list is empty
 * (matches nothing). The names are matched in time linear in the name for every ordinary
 * pattern (src/core/linear-regex.ts): a pattern such as `(a+)+$` cannot stall the event loop
 * whatever names others choose. Throws ConfigError naming `property` when an entry cannot be
 * used (each bad entry and its construct named), or the list has a duplicate or an empty item
 * (refused by Kafka 4.2+).
 */
export function compileRegexList(
  value: string | readonly string[] | undefined | null,
  property: string,
): NameMatcher | null {
  const nodes = compileItems(value, property, (item, prefix) => {
    const piece = translatePiece(item, prefix);
    new RegExp(piece.src, 'u');
    return piece.node;
  });
  if (nodes === null) return null;
  const prefixes = prefixItems(value);
  if (prefixes !== null) return new PrefixMatcher(prefixes);
  const joined = joinedPattern(value, property);
  try {
    return new LinearRegex(joined.node);
  } catch (e) {
    if (!(e instanceof RegexTooLargeError)) throw e;
    throw new ConfigError(`'${splitList(value).join(', ')}' ${e.message}`, property);
  }
}

/**
 * The former compilation: one backtracking JavaScript RegExp for the whole list. Kept as the
 * reference the linear matcher is compared with in the tests; never match untrusted names with it.
 */
export function compileRegexListToRegExp(
  value: string | readonly string[] | undefined | null,
  property: string,
): RegExp | null {
  const sources = compileItems(value, property, (item, prefix) => {
    const src = javaToJsPattern(item, prefix);
    new RegExp(src, 'u');
    return src;
  });
  if (sources === null) return null;
  return new RegExp('^(?:' + joinedPattern(value, property).src + ')$', 'u');
}
