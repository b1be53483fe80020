import type { ConfigProblem } from './errors';

/**
 * Java `.properties` text, read and written the way java.util.Properties does (load and store
 * with unicode escaping): connect-standalone connector files and mm2.properties.
 */

export const LINE_BREAK = /\r\n|\r|\n/;

export function isPropsSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\f';
}

export function stripLeadingSpace(s: string): string {
  let i = 0;
  while (i < s.length && isPropsSpace(s[i])) i++;
  return s.slice(i);
}

export function endsWithContinuation(line: string): boolean {
  let n = 0;
  for (let i = line.length - 1; i >= 0 && line[i] === '\\'; i--) n++;
  return n % 2 === 1;
}

/** Decodes the escapes of a .properties key or value; returns undefined on a malformed \uXXXX. */
function unescapeProps(s: string): string | undefined {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    i++;
    if (i >= s.length) break; // a lone trailing backslash is dropped, as Java does
    const e = s[i];
    if (e === 'u') {
      const hex = s.slice(i + 1, i + 5);
      if (!/^[0-9A-Fa-f]{4}$/.test(hex)) return undefined;
      out += String.fromCharCode(parseInt(hex, 16));
      i += 4;
    } else if (e === 't') out += '\t';
    else if (e === 'n') out += '\n';
    else if (e === 'r') out += '\r';
    else if (e === 'f') out += '\f';
    else out += e;
  }
  return out;
}

/** Result of parseJavaProperties. */
export interface PropertiesParseResult {
  /** Key/value pairs in file order (a repeated key appears once per occurrence; the last wins when applied). */
  entries: Array<[string, string]>;
  problems: ConfigProblem[];
}

/**
 * Parses Java .properties text the way java.util.Properties.load does: `key=value`,
 * `key: value` and `key value`; `#` and `!` comment lines; a line ending in an odd number of
 * backslashes continues on the next (whose leading whitespace is dropped); escapes `\=`, `\:`,
 * `\ `, `\\`, `\t`, `\n`, `\r`, `\f`, `\uXXXX`. A malformed `\u` escape is a problem (Java throws).
 */
export function parseJavaProperties(text: string): PropertiesParseResult {
  const lines = text.replace(/^\uFEFF/, '').split(LINE_BREAK);
  const entries: Array<[string, string]> = [];
  const problems: ConfigProblem[] = [];
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    let logical = stripLeadingSpace(lines[i]);
    if (logical.length === 0 || logical[0] === '#' || logical[0] === '!') continue;
    while (endsWithContinuation(logical)) {
      logical = logical.slice(0, -1);
      if (i + 1 >= lines.length) break;
      i++;
      logical += stripLeadingSpace(lines[i]);
    }
    // key: up to the first unescaped '=', ':' or whitespace
    let j = 0;
    while (j < logical.length) {
      const c = logical[j];
      if (c === '\\') {
        j += 2;
        continue;
      }
      if (c === '=' || c === ':' || isPropsSpace(c)) break;
      j++;
    }
    const rawKey = logical.slice(0, Math.min(j, logical.length));
    let k = j;
    while (k < logical.length && isPropsSpace(logical[k])) k++;
    if (k < logical.length && (logical[k] === '=' || logical[k] === ':')) k++;
    while (k < logical.length && isPropsSpace(logical[k])) k++;
    const rawValue = logical.slice(k);
    const key = unescapeProps(rawKey);
    const value = unescapeProps(rawValue);
    if (key === undefined || value === undefined) {
      problems.push({
        property: key ?? '',
        reason: `line ${lineNo}: malformed \\uXXXX escape (four hexadecimal digits must follow \\u)`,
      });
      continue;
    }
    entries.push([key, value]);
  }
  return { entries, problems };
}

export function hex4(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Escapes a .properties key or value as java.util.Properties.store does with unicode escaping
 * (safe for readers that assume ISO-8859-1): `\`, `=`, `:`, `#`, `!`, control characters,
 * spaces in keys and a leading space in values, and every character outside printable ASCII as \uXXXX.
 */
export function escapePropertiesText(s: string, isKey: boolean): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const code = s.charCodeAt(i);
    switch (c) {
      case '\\':
        out += '\\\\';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\f':
        out += '\\f';
        break;
      case ' ':
        out += isKey || i === 0 ? '\\ ' : ' ';
        break;
      case '=':
      case ':':
      case '#':
      case '!':
        out += '\\' + c;
        break;
      default:
        out += code < 0x20 || code > 0x7e ? '\\u' + hex4(code) : c;
    }
  }
  return out;
}

/** A .properties value as Java reads it back, escaped only where needed (`:`, `=`, `#`, `!` are fine after the separator). */
export function propertiesValue(v: string): string {
  return escapePropertiesText(v, false).replace(/\\(.)/g, (m, c: string) => (':=#!'.includes(c) ? c : m));
}
