/**
 * The character sets of the Java -> JavaScript regex translation (core/java-regex): how Java's
 * predefined, POSIX and java.lang.Character classes, its line terminators and its literals are
 * written for a JavaScript RegExp with the `u` flag, and how sets are united and negated.
 */

/** One code point as JavaScript matches it: a set (class body, maybe negated) or an expression. */
export type CharSet = { body: string; neg: boolean } | { expr: string };

export interface Flags {
  i: boolean;
  s: boolean;
  x: boolean;
}

/** Line terminators of Java's `.` and `$` (UNIX_LINES off). */
export const TERMINATORS = '\\n\\r\\u0085\\u2028\\u2029';
/** Java's `$` without MULTILINE: at the end, or before a final line terminator (never inside a final \r\n). */
export const END_OR_FINAL_TERMINATOR = `(?=(?:\\r\\n|[${TERMINATORS}])?$)(?!(?<=\\r)\\n$)`;
export const JAVA_SPACE = ' \\t\\n\\x0B\\f\\r';
export const JAVA_H = ' \\t\\xA0\\u1680\\u180E\\u2000-\\u200A\\u202F\\u205F\\u3000';
export const JAVA_V = '\\n\\x0B\\f\\r\\x85\\u2028\\u2029';

/** POSIX character classes (US-ASCII, as Java has them without UNICODE_CHARACTER_CLASS). */
export const POSIX: Readonly<Record<string, string>> = {
  Lower: 'a-z',
  Upper: 'A-Z',
  ASCII: '\\x00-\\x7F',
  Alpha: 'a-zA-Z',
  Digit: '0-9',
  Alnum: 'a-zA-Z0-9',
  Punct: '!-\\/:-@\\[-`{-~',
  Graph: '!-~',
  Print: ' -~',
  Blank: ' \\t',
  Cntrl: '\\x00-\\x1F\\x7F',
  XDigit: '0-9a-fA-F',
  Space: JAVA_SPACE,
};

/** java.lang.Character classes with an exact Unicode property equivalent. */
export const JAVA_CHARACTER: Readonly<Record<string, string>> = {
  javaLowerCase: '\\p{Lowercase}', // Character.isLowerCase(int): Ll or Other_Lowercase
  javaUpperCase: '\\p{Uppercase}', // Lu or Other_Uppercase
  javaTitleCase: '\\p{Lt}',
  javaDigit: '\\p{Nd}',
  javaLetter: '\\p{L}',
  javaLetterOrDigit: '\\p{L}\\p{Nd}',
  javaAlphabetic: '\\p{Alphabetic}',
  javaIdeographic: '\\p{Ideographic}',
};

/** Unicode general categories Java and JavaScript both name this way. */
export const CATEGORIES = new Set([
  'L', 'Lu', 'Ll', 'Lt', 'Lm', 'Lo',
  'M', 'Mn', 'Mc', 'Me',
  'N', 'Nd', 'Nl', 'No',
  'P', 'Pc', 'Pd', 'Ps', 'Pe', 'Pi', 'Pf', 'Po',
  'S', 'Sm', 'Sc', 'Sk', 'So',
  'Z', 'Zs', 'Zl', 'Zp',
  'Cc', 'Cf', 'Co',
]);

export function hex(cp: number): string {
  return cp.toString(16).toUpperCase();
}

/** A code point as a literal outside a class. */
export function litOut(cp: number): string {
  const c = String.fromCodePoint(cp);
  if ('^$\\.*+?()[]{}|/'.includes(c)) return '\\' + c;
  if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp < 0xa0) || (cp >= 0xd800 && cp <= 0xdfff)) return `\\u{${hex(cp)}}`;
  return c;
}

/** A code point as a literal inside a class. */
export function litIn(cp: number): string {
  const c = String.fromCodePoint(cp);
  if ('\\]-[^/'.includes(c)) return '\\' + c;
  if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp < 0xa0) || (cp >= 0xd800 && cp <= 0xdfff)) return `\\u{${hex(cp)}}`;
  return c;
}

export const A = 0x41, Z = 0x5a, a = 0x61, z = 0x7a;

/** A class body for [lo-hi], plus its US-ASCII case counterparts when case-insensitive. */
export function rangeBody(lo: number, hi: number, ci: boolean): string {
  const span = (from: number, to: number) => (from === to ? litIn(from) : `${litIn(from)}-${litIn(to)}`);
  let body = span(lo, hi);
  if (ci) {
    const up = [Math.max(lo, A), Math.min(hi, Z)];
    if (up[0] <= up[1]) body += span(up[0] + 32, up[1] + 32);
    const low = [Math.max(lo, a), Math.min(hi, z)];
    if (low[0] <= low[1]) body += span(low[0] - 32, low[1] - 32);
  }
  return body;
}

export function setExpr(s: CharSet): string {
  if ('expr' in s) return s.expr;
  return s.neg ? `[^${s.body}]` : `[${s.body}]`;
}

export function union(parts: CharSet[]): CharSet {
  if (parts.length === 1) return parts[0];
  if (parts.every((p) => 'body' in p && !p.neg)) return { body: parts.map((p) => (p as { body: string }).body).join(''), neg: false };
  return { expr: `(?:${parts.map(setExpr).join('|')})` };
}

export function negate(s: CharSet): CharSet {
  if ('body' in s) return { body: s.body, neg: !s.neg };
  return { expr: `(?:(?!${s.expr})[\\s\\S])` };
}
