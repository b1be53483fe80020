import { RegexNode } from './linear-regex';
import { hasObviousMaximumLength, studyAtomic, studyBranch, studyLength, studySeq, studyQuantified, type QuantifiedKind, type Study } from './java-lookbehind';
import { A, a, CATEGORIES, END_OR_FINAL_TERMINATOR, JAVA_CHARACTER, JAVA_H, JAVA_SPACE, JAVA_V, POSIX, TERMINATORS, Z, z, litOut, negate, rangeBody, setExpr, union, type CharSet, type Flags } from './java-regex-chars';

// ---------------------------------------------------------------------------------------------
// Java -> JavaScript translation
//
// A Java pattern is read construct by construct (java.util.regex.Pattern, JDK 9+ semantics) and
// written as a JavaScript pattern for the `u` flag (code points, as Java matches) that matches
// exactly the same names. A construct whose meaning differs and has an exact JavaScript form is
// translated; one without is refused, naming it (JavaRegexError), never compiled with another
// meaning. In particular:
//
//   Java                         meaning in Java                        JavaScript
//   .                            any char but \n \r \u0085 \u2028 \u2029  [^\n\r\u0085\u2028\u2029]
//   $  \Z                        end, or before a final line terminator  (?=(?:\r\n|[\n\r\u0085\u2028\u2029])?$)
//   \A  \G  \z                   start / start (matches()) / end         ^  ^  $
//   \s  \S                       [ \t\n\x0B\f\r] (ASCII only)            the same class written out
//   \h  \H  \v  \V               horizontal / vertical whitespace        the classes written out
//   \R                           \r\n or one vertical whitespace char     (?:\r\n|[\n\x0B\f\r\x85\u2028\u2029])
//   \Q...\E                      the text between, literally             each character escaped
//   \p{Lower} \p{Alpha} ...      POSIX classes, US-ASCII only            [a-z], [a-zA-Z], ...
//   \p{L} \p{IsLu} \p{gc=Nd}     Unicode general categories              \p{L}, \p{Lu}, \p{Nd}
//   \p{javaLowerCase} ...        java.lang.Character.isLowerCase ...     \p{Lowercase} ...
//   [a-z&&[^aeiou]]              intersection                            (?:(?=[a-z])[^aeiou])
//   [a-c[x-z]]                   union                                   [a-cx-z]
//   X*+ X++ X?+ X{n,m}+          possessive quantifiers                  (?=(?<aN>X*))\k<aN>
//   (?>X)                        atomic group                            (?=(?<aN>X))\k<aN>
//   (?i) (?i:X)                  case-insensitive, US-ASCII only         [aA] for each letter
//   (?s) (?x)                    dot matches all / comments mode         [\s\S] / spaces and #... dropped
//   \0n \xhh \x{h..h} \uhhhh \cX \e \a   character escapes                  \u{...}
//
// Refused: backreferences (\1, \k<name>: Java fails a reference to a group that did not take
// part, JavaScript matches the empty string), \b \B (Java's word boundary is not its \w),
// \X \N{...} \b{g}, (?m) (?d) (?u) (?U), \p{...} blocks, scripts and other properties, \p{...}
// under (?i), [^...&&...] (its meaning changed between Java versions), (?i) inside a group
// (write (?i:...)), and everything Java itself rejects: among them a lookbehind without an
// obvious maximum length (Java's own rule, core/java-lookbehind) and a group name used twice. The
// items of a list are one pattern joined with `|`, as MM2 compiles them (an inline flag at the
// start of an item applies to the items after it).
// ---------------------------------------------------------------------------------------------

/** A Java pattern that cannot be used: Java rejects it, or JavaScript has no exact equivalent. */
export class JavaRegexError extends Error {
  constructor(readonly construct: string, reason: string) {
    super(reason);
    this.name = 'JavaRegexError';
  }
}



/** A translated piece: its JavaScript source and its syntax tree (for the linear-time matcher). */
export interface Piece {
  src: string;
  node: RegexNode;
  /** Java's study of it (core/java-lookbehind): for Java's check of a lookbehind's maximum length. */
  study: Study;
}

interface Atom extends Piece {
  quantifiable: boolean;
  /** What Java compiles it to, as far as a quantifier on it is concerned (default 'other'). */
  kind?: QuantifiedKind;
}

const NO_LENGTH = studyLength(0);

const charNode = (src: string, cp?: number): RegexNode => (cp === undefined ? { t: 'char', src } : { t: 'char', src, cp });
const seqNode = (items: RegexNode[]): RegexNode => (items.length === 1 ? items[0] : { t: 'seq', items });

class Translator {
  private pos = 0;
  private flags: Flags = { i: false, s: false, x: false };
  private atomic = 0;
  /** The names of the named groups so far: Java refuses a second group of the same name. */
  private readonly names = new Set<string>();

  constructor(private readonly src: string, private readonly atomicPrefix: string) {}

  translate(): Piece {
    const out = this.alternation(0);
    if (this.pos < this.src.length) throw this.refuse(')', "unmatched ')' (Java rejects it)");
    return out;
  }

  private refuse(construct: string, reason: string): JavaRegexError {
    return new JavaRegexError(construct, `${construct}: ${reason}`);
  }

  private peek(offset = 0): string {
    return this.src[this.pos + offset] ?? '';
  }

  private eof(): boolean {
    return this.pos >= this.src.length;
  }

  /** The next code point, consumed. */
  private cp(): number {
    const cp = this.src.codePointAt(this.pos) as number;
    this.pos += cp > 0xffff ? 2 : 1;
    return cp;
  }

  /** Comments mode (?x): whitespace and #-comments are not part of the pattern. */
  private skipComments(): void {
    if (!this.flags.x) return;
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\x0B') this.pos++;
      else if (c === '#') {
        while (!this.eof() && this.peek() !== '\n') this.pos++;
      } else return;
    }
  }

  private wrapAtomic(inner: string): string {
    const name = `${this.atomicPrefix}${++this.atomic}`;
    return `(?:(?=(?<${name}>${inner}))\\k<${name}>)`;
  }

  private alternation(depth: number): Piece {
    const alts: Piece[] = [this.sequence(depth)];
    while (this.peek() === '|') {
      this.pos++;
      alts.push(this.sequence(depth));
    }
    if (alts.length === 1) return alts[0];
    return { src: alts.map((x) => x.src).join('|'), node: { t: 'alt', alts: alts.map((x) => x.node) }, study: studyBranch(alts.map((x) => x.study)) };
  }

  private sequence(depth: number): Piece {
    let out = '';
    const items: RegexNode[] = [];
    const studies: Study[] = [];
    const done = (): Piece => ({ src: out, node: { t: 'seq', items }, study: studySeq(studies) });
    for (;;) {
      this.skipComments();
      if (this.eof()) return done();
      const c = this.peek();
      if (c === '|') return done();
      if (c === ')') {
        if (depth === 0) throw this.refuse(')', "unmatched ')' (Java rejects it)");
        return done();
      }
      const atom = this.atom(depth);
      if (atom === null) continue; // a flag group such as (?i): no atom
      const q = this.quantified(atom);
      out += q.src;
      items.push(q.node);
      studies.push(q.study);
    }
  }

  /** An atom and its quantifier, if any. */
  private quantified(atom: Atom): Piece {
    this.skipComments();
    const start = this.pos;
    let q = '';
    let min = 0;
    let max = Infinity;
    const c = this.peek();
    if (c === '*' || c === '+' || c === '?') {
      q = c;
      if (c === '+') min = 1;
      if (c === '?') max = 1;
      this.pos++;
    } else if (c === '{') {
      const m = /^\{([0-9]+)(?:(,)([0-9]*))?\}/.exec(this.src.slice(this.pos));
      if (!m) throw this.refuse('{', "is not a repetition {n}, {n,} or {n,m} (Java rejects it; write \\{ for a literal '{')");
      if (m[3] !== undefined && m[3] !== '' && Number(m[3]) < Number(m[1])) throw this.refuse(m[0], 'has its maximum below its minimum (Java rejects it)');
      q = m[0];
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.pos += m[0].length;
    } else {
      return atom;
    }
    if (!atom.quantifiable) throw this.refuse(this.src.slice(start, this.pos), 'quantifies nothing that can repeat (Java rejects it)');
    let mode = '';
    if (this.peek() === '?') {
      mode = '?';
      this.pos++;
    } else if (this.peek() === '+') {
      mode = '+';
      this.pos++;
    }
    const node: RegexNode = { t: 'rep', body: atom.node, min, max, lazy: mode === '?' };
    const study = studyQuantified(atom.study, atom.kind ?? 'other', q, min, max, mode as '' | '?' | '+');
    if (mode === '+') return { src: this.wrapAtomic(atom.src + q), node: { t: 'atomic', body: node }, study }; // possessive: X*+ is (?>X*)
    return { src: atom.src + q + mode, node, study };
  }

  private atom(depth: number): Atom | null {
    const c = this.peek();
    switch (c) {
      case '(':
        return this.group(depth);
      case '[': {
        this.pos++;
        return this.charAtom(setExpr(this.clazz()));
      }
      case '.':
        this.pos++;
        return this.charAtom(this.flags.s ? '[\\s\\S]' : `[^${TERMINATORS}]`);
      case '^':
        this.pos++;
        return { src: '(?:^)', quantifiable: true, node: { t: 'assert', kind: 'start' }, study: NO_LENGTH };
      case '$':
        this.pos++;
        return { src: `(?:${END_OR_FINAL_TERMINATOR})`, quantifiable: true, node: { t: 'assert', kind: 'javaEnd' }, study: NO_LENGTH };
      case '*':
      case '+':
      case '?':
        throw this.refuse(c, 'quantifies nothing (Java rejects it)');
      case '{':
        throw this.refuse('{', "quantifies nothing (write \\{ for a literal '{')");
      case '\\':
        return this.escapeOutside();
      default:
        return this.singleAtom(this.cp());
    }
  }

  private charAtom(src: string): Atom {
    return { src, quantifiable: true, node: charNode(src), kind: 'char', study: studyLength(1) };
  }

  /** One literal code point as an atom. */
  private singleAtom(cp: number): Atom {
    const src = this.single(cp);
    const caseless = this.flags.i && ((cp >= A && cp <= Z) || (cp >= a && cp <= z));
    return { src, quantifiable: true, node: charNode(src, caseless ? undefined : cp), kind: 'char', study: studyLength(1) };
  }

  /** One literal code point outside a class (both US-ASCII cases under (?i)). */
  private single(cp: number): string {
    if (this.flags.i && ((cp >= A && cp <= Z) || (cp >= a && cp <= z))) return `[${rangeBody(cp, cp, true)}]`;
    return litOut(cp);
  }

  private parseFlags(): { on: Partial<Flags>; off: Partial<Flags>; text: string } {
    const start = this.pos;
    const on: Partial<Flags> = {};
    const off: Partial<Flags> = {};
    let neg = false;
    while (!this.eof() && this.peek() !== ')' && this.peek() !== ':') {
      const f = this.peek();
      this.pos++;
      if (f === '-' && !neg) {
        neg = true;
        continue;
      }
      if (f === 'i' || f === 's' || f === 'x') (neg ? off : on)[f] = true;
      else if (f === 'm' || f === 'd' || f === 'u' || f === 'U') {
        const what = { m: 'MULTILINE', d: 'UNIX_LINES', u: 'UNICODE_CASE', U: 'UNICODE_CHARACTER_CLASS' }[f];
        throw this.refuse(`(?${f})`, `the inline flag ${what} has no exact JavaScript equivalent here; remove it`);
      } else throw this.refuse(`(?${this.src.slice(start, this.pos)}`, 'is not a Java group construct');
    }
    if (this.eof()) throw this.refuse('(', "is not closed (Java rejects it)");
    return { on, off, text: this.src.slice(start, this.pos) };
  }

  private group(depth: number): Atom | null {
    const start = this.pos;
    this.pos++; // (
    let open = '(?:';
    let close = ')';
    let lookaround = false;
    let behind = false;
    let atomic = false;
    const saved = { ...this.flags };
    if (this.peek() === '?') {
      this.pos++;
      const n = this.peek();
      if (n === ':') this.pos++;
      else if (n === '=' || n === '!') {
        this.pos++;
        open = `(?${n}`;
        lookaround = true;
      } else if (n === '<' && (this.peek(1) === '=' || this.peek(1) === '!')) {
        open = `(?<${this.peek(1)}`;
        behind = true;
        this.pos += 2;
        lookaround = true;
      } else if (n === '<') {
        const m = /^<([a-zA-Z][a-zA-Z0-9]*)>/.exec(this.src.slice(this.pos));
        if (!m) throw this.refuse(this.src.slice(start, this.pos + 1), 'is not a Java named group (?<name>...) (Java rejects it)');
        if (this.names.has(m[1])) {
          throw this.refuse(`(?<${m[1]}>`, `names a second group '${m[1]}' (Java rejects it: "Named capturing group <${m[1]}> is already defined"; MM2 joins the list's items with | into one pattern): rename one of them`);
        }
        this.names.add(m[1]);
        this.pos += m[0].length;
      } else if (n === '>') {
        this.pos++;
        atomic = true;
      } else {
        const f = this.parseFlags();
        const apply = (fl: Flags) => {
          for (const k of Object.keys(f.on) as Array<keyof Flags>) fl[k] = true;
          for (const k of Object.keys(f.off) as Array<keyof Flags>) fl[k] = false;
        };
        if (this.peek() === ')') {
          this.pos++;
          if (depth > 0) {
            throw this.refuse(`(?${f.text})`, `inside a group: write (?${f.text}:...) around what it applies to`);
          }
          apply(this.flags); // to the end of the pattern, as in Java
          return null;
        }
        this.pos++; // ':'
        apply(this.flags);
      }
    }
    const inner = this.alternation(depth + 1);
    if (this.peek() !== ')') throw this.refuse(this.src.slice(start, Math.min(this.src.length, start + 3)), "group is not closed (Java rejects it)");
    this.pos++;
    this.flags = saved;
    if (atomic) return { src: this.wrapAtomic(inner.src), quantifiable: true, node: { t: 'atomic', body: inner.node }, study: studyAtomic(inner.study) };
    // a quantified lookaround is legal Java; JavaScript (u) only quantifies it inside a group
    if (lookaround) {
      if (behind && !hasObviousMaximumLength(inner.study)) {
        throw this.refuse(
          this.src.slice(start, this.pos),
          'Java refuses this lookbehind ("Look-behind group does not have an obvious maximum length"): inside a lookbehind, repeat single characters only (a+, [a-z]*), or give a repeated group a maximum count and no alternatives or optional parts, e.g. (?:ab){0,10}',
        );
      }
      const node: RegexNode = { t: 'look', body: inner.node, behind, neg: open.endsWith('!') };
      return { src: `(?:${open}${inner.src}${close})`, quantifiable: true, node, study: NO_LENGTH };
    }
    return { src: `${open}${inner.src}${close}`, quantifiable: true, node: inner.node, kind: 'group', study: inner.study };
  }

  // ---- escapes ------------------------------------------------------------------------------

  /** `\Q...\E` (or to the end): the quoted code points. */
  private quoted(): number[] {
    this.pos += 2; // \Q
    const end = this.src.indexOf('\\E', this.pos);
    const text = end < 0 ? this.src.slice(this.pos) : this.src.slice(this.pos, end);
    this.pos = end < 0 ? this.src.length : end + 2;
    return [...text].map((ch) => ch.codePointAt(0) as number);
  }

  private escapeOutside(): Atom | null {
    const n = this.peek(1);
    if (n === 'Q') {
      const cps = this.quoted();
      if (cps.length === 0) return null;
      // a quantifier after \Q...\E applies to its last character, as in Java
      const head = cps.slice(0, -1).map((cp) => this.singleAtom(cp));
      const last = this.singleAtom(cps[cps.length - 1]);
      if (head.length === 0) return last;
      const rest = this.quantified(last);
      return { src: head.map((h) => h.src).join('') + rest.src, quantifiable: false, node: seqNode([...head.map((h) => h.node), rest.node]), study: studySeq([...head.map((h) => h.study), rest.study]) };
    }
    switch (n) {
      case 'A':
      case 'G':
        this.pos += 2;
        return { src: '(?:^)', quantifiable: true, node: { t: 'assert', kind: 'start' }, study: NO_LENGTH };
      case 'z':
        this.pos += 2;
        return { src: '(?:$)', quantifiable: true, node: { t: 'assert', kind: 'end' }, study: NO_LENGTH };
      case 'Z':
        this.pos += 2;
        return { src: `(?:${END_OR_FINAL_TERMINATOR})`, quantifiable: true, node: { t: 'assert', kind: 'javaEnd' }, study: NO_LENGTH };
      case 'R': {
        this.pos += 2;
        const node: RegexNode = { t: 'alt', alts: [seqNode([charNode('\\r', 0x0d), charNode('\\n', 0x0a)]), charNode(`[${JAVA_V}]`)] };
        return { src: `(?:\\r\\n|[${JAVA_V}])`, quantifiable: true, node, study: studyLength(2) }; // not atomic (JDK 9+); Java's LineEnding counts 2
      }
      case 'b':
      case 'B':
        throw this.refuse(`\\${n}`, "Java's word boundary is not based on \\w as JavaScript's is; write the boundary out, e.g. (?<![a-zA-Z0-9_]) or (?![a-zA-Z0-9_])");
      default: {
        const e = this.escape(false);
        if (typeof e === 'number') return this.singleAtom(e);
        return this.charAtom(setExpr(e));
      }
    }
  }

  /**
   * A backslash escape that stands for one code point (a number) or a set of them. Shared by
   * both contexts; `\Q`, anchors and `\R` are handled by the callers.
   */
  private escape(inClass: boolean): number | CharSet {
    const start = this.pos;
    this.pos++; // backslash
    if (this.eof()) throw this.refuse('\\', 'ends the pattern (Java rejects it)');
    const c = this.peek();
    this.pos++;
    switch (c) {
      case 't': return 0x09;
      case 'n': return 0x0a;
      case 'r': return 0x0d;
      case 'f': return 0x0c;
      case 'a': return 0x07;
      case 'e': return 0x1b;
      case 'd': return { body: '0-9', neg: false };
      case 'D': return { body: '0-9', neg: true };
      case 'w': return { body: 'a-zA-Z0-9_', neg: false };
      case 'W': return { body: 'a-zA-Z0-9_', neg: true };
      case 's': return { body: JAVA_SPACE, neg: false };
      case 'S': return { body: JAVA_SPACE, neg: true };
      case 'h': return { body: JAVA_H, neg: false };
      case 'H': return { body: JAVA_H, neg: true };
      case 'v': return { body: JAVA_V, neg: false };
      case 'V': return { body: JAVA_V, neg: true };
      case '0': {
        const m = /^(?:[0-3][0-7]{2}|[0-7]{1,2})/.exec(this.src.slice(this.pos));
        if (!m) throw this.refuse('\\0', 'needs an octal value such as \\012 (Java rejects it)');
        this.pos += m[0].length;
        return parseInt(m[0], 8);
      }
      case 'x': {
        const m = /^(?:\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{2}))/.exec(this.src.slice(this.pos));
        if (!m) throw this.refuse('\\x', 'needs two hex digits or {hex} (Java rejects it)');
        this.pos += m[0].length;
        const v = parseInt(m[1] ?? m[2], 16);
        if (v > 0x10ffff) throw this.refuse(m[0], 'is not a code point (Java rejects it)');
        return v;
      }
      case 'u': {
        const m = /^[0-9a-fA-F]{4}/.exec(this.src.slice(this.pos));
        if (!m) throw this.refuse('\\u', 'needs four hex digits (Java rejects it)');
        this.pos += 4;
        let v = parseInt(m[0], 16);
        const low = /^\\u([dD][c-fC-F][0-9a-fA-F]{2})/.exec(this.src.slice(this.pos));
        if (v >= 0xd800 && v <= 0xdbff && low) {
          v = 0x10000 + ((v - 0xd800) << 10) + (parseInt(low[1], 16) - 0xdc00);
          this.pos += 6;
        }
        return v;
      }
      case 'c': {
        if (this.eof()) throw this.refuse('\\c', 'needs a control character letter (Java rejects it)');
        return this.cp() ^ 64;
      }
      case 'p':
      case 'P': {
        const s = this.property(c === 'P', start);
        return s;
      }
      case 'k':
        throw this.refuse('\\k<...>', 'backreferences are not supported: Java fails a reference to a group that did not match, JavaScript matches the empty string');
      case 'E':
      case 'R':
      case 'X':
      case 'N':
      case 'b':
      case 'B':
      case 'A':
      case 'G':
      case 'z':
      case 'Z':
        if (inClass) throw this.refuse(`\\${c}`, 'is not allowed inside a character class (Java rejects it)');
        throw this.refuse(`\\${c}`, c === 'X' || c === 'N' ? 'has no exact JavaScript equivalent; write the characters out' : 'is not allowed here');
      default:
        break;
    }
    if (c >= '1' && c <= '9') {
      if (inClass) throw this.refuse(`\\${c}`, 'is not allowed inside a character class (Java rejects it)');
      throw this.refuse(`\\${c}`, 'backreferences are not supported: Java fails a reference to a group that did not match, JavaScript matches the empty string');
    }
    if (/[a-zA-Z0-9]/.test(c)) throw this.refuse(`\\${c}`, 'is not a Java escape (Java rejects it)');
    // any other escaped character stands for itself (the code point, also a surrogate pair)
    this.pos--;
    return this.cp();
  }

  private property(negated: boolean, start: number): CharSet {
    let name: string;
    if (this.peek() === '{') {
      const end = this.src.indexOf('}', this.pos);
      if (end < 0) throw this.refuse(this.src.slice(start, this.pos + 1), 'is not closed (Java rejects it)');
      name = this.src.slice(this.pos + 1, end);
      this.pos = end + 1;
    } else {
      if (this.eof()) throw this.refuse(this.src.slice(start), 'needs a property name (Java rejects it)');
      name = String.fromCodePoint(this.cp());
    }
    const construct = this.src.slice(start, this.pos);
    if (this.flags.i) {
      throw this.refuse(construct, 'under (?i) Java widens some properties to both cases; take it out of the case-insensitive part');
    }
    let set: CharSet | undefined;
    const posix = POSIX[name];
    if (posix !== undefined) set = { body: posix, neg: false };
    else if (JAVA_CHARACTER[name] !== undefined) set = { body: JAVA_CHARACTER[name], neg: false };
    else {
      const m = /^(?:Is|gc=|general_category=)?(.+)$/.exec(name);
      const cat = m ? m[1] : name;
      if (CATEGORIES.has(cat)) set = { body: `\\p{${cat}}`, neg: false };
    }
    if (!set) {
      throw this.refuse(
        construct,
        'is a Unicode block, script or property, or a java.lang.Character class, without an exact JavaScript equivalent here; ' +
          'use a POSIX class (\\p{Lower}, \\p{Alpha}, ...), a general category (\\p{L}, \\p{Lu}, \\p{Nd}, ...) or write the characters out',
      );
    }
    return negated ? negate(set) : set;
  }

  // ---- character classes --------------------------------------------------------------------

  /** A class, after its '['. JDK 9+ semantics: nested classes are unions, && intersects. */
  private clazz(): CharSet {
    const start = this.pos - 1;
    let neg = false;
    if (this.peek() === '^') {
      neg = true;
      this.pos++;
    }
    const operands: CharSet[] = [];
    let parts: CharSet[] = [];
    let first = true;
    for (;;) {
      this.skipComments();
      if (this.eof()) throw this.refuse(this.src.slice(start, Math.min(start + 10, this.src.length)), 'character class is not closed (Java rejects it)');
      const c = this.peek();
      if (c === ']' && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (c === '[') {
        this.pos++;
        parts.push(this.clazz());
        continue;
      }
      if (c === '&' && this.peek(1) === '&') {
        if (parts.length === 0) throw this.refuse('&&', 'has nothing on its left in the class');
        this.pos += 2;
        operands.push(union(parts));
        parts = [];
        continue;
      }
      if (c === '\\' && this.peek(1) === 'Q') {
        for (const cp of this.quoted()) parts.push({ body: rangeBody(cp, cp, this.flags.i), neg: false });
        continue;
      }
      const lo = c === '\\' ? this.escape(true) : this.cp();
      if (typeof lo !== 'number') {
        parts.push(lo);
        continue;
      }
      this.skipComments();
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== '[' && this.peek(1) !== '') {
        this.pos++;
        this.skipComments();
        const hi = this.peek() === '\\' ? this.escape(true) : this.cp();
        if (typeof hi !== 'number') throw this.refuse(this.src.slice(start, this.pos), 'is an illegal character range (Java rejects it)');
        if (hi < lo) throw this.refuse(`${String.fromCodePoint(lo)}-${String.fromCodePoint(hi)}`, 'is an illegal character range (Java rejects it)');
        parts.push({ body: rangeBody(lo, hi, this.flags.i), neg: false });
        continue;
      }
      parts.push({ body: rangeBody(lo, lo, this.flags.i), neg: false });
    }
    if (operands.length > 0) {
      if (parts.length === 0) throw this.refuse('&&', 'has nothing on its right in the class');
      operands.push(union(parts));
      if (neg) {
        throw this.refuse('[^...&&...]', 'a negated class with an intersection changed meaning between Java versions; negate inside it, e.g. [a-z&&[^aeiou]]');
      }
      const exprs = operands.map(setExpr);
      return { expr: `(?:${exprs.slice(0, -1).map((e) => `(?=${e})`).join('')}${exprs[exprs.length - 1]})` };
    }
    if (parts.length === 0) throw this.refuse('[]', 'is an empty class (Java rejects it)');
    const u = union(parts);
    return neg ? negate(u) : u;
  }
}

/**
 * Translates one Java regular expression (as MM2's filters compile it) into the source of a
 * JavaScript RegExp for the `u` flag that matches the same strings. Throws JavaRegexError naming
 * the construct when Java rejects the pattern or JavaScript has no exact equivalent.
 * `atomicPrefix` names the groups that emulate atomic groups (unique per combined pattern).
 * The RegExp backtracks (exponential time on patterns such as `(a+)+$`): names are matched with
 * compileRegexList's linear-time matcher; this translation is the reference its tests compare with.
 */
export function javaToJsPattern(pattern: string, atomicPrefix = 'a'): string {
  return new Translator(pattern, atomicPrefix).translate().src;
}

/** The syntax tree of one Java regular expression (throws JavaRegexError as javaToJsPattern does). */
export function parseJavaRegex(pattern: string): RegexNode {
  return new Translator(pattern, 'a').translate().node;
}


/** One Java regular expression translated: its JavaScript source, syntax tree and study (throws JavaRegexError). `atomicPrefix` as for javaToJsPattern. */
export function translatePiece(pattern: string, atomicPrefix: string): Piece {
  return new Translator(pattern, atomicPrefix).translate();
}
