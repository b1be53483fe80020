/**
 * A regular-expression matcher whose cost grows with the pattern times the name, never
 * exponentially. MM2 filters (`groups`, `topics`, their `.exclude`s, `config.properties.exclude`)
 * are matched against names that other people choose (anyone who may create a consumer group on
 * the source); JavaScript's backtracking RegExp takes exponential time on patterns such as
 * `(a+)+$` against `aaaa...a!` and would freeze Node-RED's event loop. The Java pattern is parsed
 * into the syntax tree below (src/core/java-regex.ts) and matched here.
 *
 * How: the tree is compiled into a small automaton program (Thompson's construction) and a
 * name is matched by dynamic programming over (state, position) pairs, each visited at most
 * once: O(states x (name length + 1)). Zero-width assertions are conditions on the position.
 * A lookahead or lookbehind is its own program, evaluated once for every position of the name
 * (backwards for a lookahead, forwards for a lookbehind: linear too). An atomic group or
 * possessive quantifier keeps the first match that a backtracking engine would find: found by
 * a depth-first search in priority order whose answer from each (state, position) reached by
 * consuming is kept for every later start, so each is searched once: linear too, also for a
 * multi-character body such as `.*(?:ab)*+c` (an atomic repetition of one code point such as
 * `\w*+` is found by counting). As in Java (Pattern.Loop), a loop iteration that matched the
 * empty string ends the loop.
 *
 * The matcher answers exactly what the JavaScript translation (javaToJsPattern) answers, which
 * the unit tests compare over many patterns and names.
 */

/** One code point: `src` is a JavaScript (flag `u`) expression matching exactly one code point. */
export interface CharNode {
  t: 'char';
  src: string;
  /** The only code point it matches, when it is a plain literal. */
  cp?: number;
}

export type RegexNode =
  | CharNode
  | { t: 'seq'; items: RegexNode[] }
  | { t: 'alt'; alts: RegexNode[] }
  | { t: 'rep'; body: RegexNode; min: number; max: number; lazy: boolean }
  | { t: 'atomic'; body: RegexNode }
  | { t: 'look'; body: RegexNode; behind: boolean; neg: boolean }
  | { t: 'assert'; kind: AssertKind };

/** start: ^ \A \G; end: \z; javaEnd: Java's $ and \Z (at the end or before a final line terminator). */
export type AssertKind = 'start' | 'end' | 'javaEnd';

/** The automaton may not grow beyond this many states (counted repetitions are expanded). */
export const MAX_STATES = 20000;

/** The pattern expands to too many automaton states (large counted repetitions). */
export class RegexTooLargeError extends Error {
  constructor() {
    super(`expands to more than ${MAX_STATES} matcher states (large counted repetitions such as {1000} nested in each other); write it with * or + or smaller counts`);
    this.name = 'RegexTooLargeError';
  }
}

const enum K {
  Match = 0,
  Char = 1,
  Eps = 2,
  Split = 3,
  Assert = 4,
  Look = 5,
  Atomic = 6,
}

interface Program {
  kind: K[];
  next: number[];
  /** Split: the second (lower-priority) branch. */
  alt: number[];
  /** Char: the class index; Assert: the kind; Look / Atomic: the sub-program index. */
  arg: number[];
  start: number;
  /** A `*`-style loop's split: the state after the loop, else -1. */
  loopExit: number[];
  /** Reverse epsilon edges: for each state, the states that reach it without consuming. */
  rev: number[][];
  hasAtomic: boolean;
  /** An atomic repetition of one code point (`\w*+`, `[^.]++`, `(?>a{2,5})`): its end is found by counting. */
  run?: { c: number; min: number; max: number; lazy: boolean };
  /** Look programs: behind? negated? */
  behind: boolean;
  neg: boolean;
}

interface CharTest {
  cp?: number;
  re?: RegExp;
  /** For a class: its answer for each US-ASCII code point (1 in, 0 out), asked once at compile time. */
  ascii?: Uint8Array;
}

const ASSERT_KINDS: AssertKind[] = ['start', 'end', 'javaEnd'];

class Compiler {
  readonly programs: Program[] = [];
  readonly chars: CharTest[] = [];
  private readonly charIndex = new Map<string, number>();
  private total = 0;

  program(node: RegexNode, behind = false, neg = false): number {
    const p: Program = { kind: [], next: [], alt: [], arg: [], loopExit: [], start: 0, rev: [], hasAtomic: false, behind, neg };
    const index = this.programs.length;
    this.programs.push(p);
    const match = this.add(p, K.Match, -1, -1, 0);
    p.start = this.emit(p, node, match);
    p.rev = p.kind.map(() => []);
    for (let s = 0; s < p.kind.length; s++) {
      const k = p.kind[s];
      if (k === K.Eps || k === K.Assert || k === K.Look || k === K.Atomic) p.rev[p.next[s]].push(s);
      else if (k === K.Split) {
        p.rev[p.next[s]].push(s);
        if (p.alt[s] !== p.next[s]) p.rev[p.alt[s]].push(s);
      }
    }
    return index;
  }

  private add(p: Program, kind: K, next: number, alt: number, arg: number): number {
    if (++this.total > MAX_STATES) throw new RegexTooLargeError();
    p.kind.push(kind);
    p.next.push(next);
    p.alt.push(alt);
    p.arg.push(arg);
    p.loopExit.push(-1);
    if (kind === K.Atomic) p.hasAtomic = true;
    return p.kind.length - 1;
  }

  private charTest(node: CharNode): number {
    const key = node.cp !== undefined ? `#${node.cp}` : node.src;
    let i = this.charIndex.get(key);
    if (i === undefined) {
      i = this.chars.length;
      if (node.cp !== undefined) this.chars.push({ cp: node.cp });
      else {
        const re = new RegExp(`^(?:${node.src})$`, 'u');
        const ascii = new Uint8Array(128);
        for (let cp = 0; cp < 128; cp++) ascii[cp] = re.test(String.fromCharCode(cp)) ? 1 : 0;
        this.chars.push({ re, ascii });
      }
      this.charIndex.set(key, i);
    }
    return i;
  }

  /** Emits `node` followed by state `next`; returns its entry state. */
  private emit(p: Program, node: RegexNode, next: number): number {
    switch (node.t) {
      case 'char':
        return this.add(p, K.Char, next, -1, this.charTest(node));
      case 'seq': {
        let cur = next;
        for (let i = node.items.length - 1; i >= 0; i--) cur = this.emit(p, node.items[i], cur);
        if (cur === next) cur = this.add(p, K.Eps, next, -1, 0); // empty: its own entry state
        return cur;
      }
      case 'alt': {
        let cur = this.emit(p, node.alts[node.alts.length - 1], next);
        for (let i = node.alts.length - 2; i >= 0; i--) {
          const first = this.emit(p, node.alts[i], next);
          cur = this.add(p, K.Split, first, cur, 0);
        }
        return cur;
      }
      case 'rep': {
        let cur: number;
        if (node.max === Infinity) {
          const loop = this.add(p, K.Split, -1, -1, 0);
          const body = this.emit(p, node.body, loop);
          p.next[loop] = node.lazy ? next : body;
          p.alt[loop] = node.lazy ? body : next;
          p.loopExit[loop] = next;
          cur = loop;
        } else {
          cur = next;
          for (let i = node.min; i < node.max; i++) {
            const body = this.emit(p, node.body, cur);
            cur = node.lazy ? this.add(p, K.Split, next, body, 0) : this.add(p, K.Split, body, next, 0);
          }
        }
        for (let i = 0; i < node.min; i++) cur = this.emit(p, node.body, cur);
        return cur;
      }
      case 'atomic': {
        const sub = this.program(node.body);
        const body = node.body;
        if (body.t === 'rep' && body.body.t === 'char') this.programs[sub].run = { c: this.charTest(body.body), min: body.min, max: body.max, lazy: body.lazy };
        return this.add(p, K.Atomic, next, -1, sub);
      }
      case 'look': {
        const sub = this.program(node.body, node.behind, node.neg);
        return this.add(p, K.Look, next, -1, sub);
      }
      case 'assert':
        return this.add(p, K.Assert, next, -1, ASSERT_KINDS.indexOf(node.kind));
    }
  }
}

function isTerminator(cp: number): boolean {
  return cp === 0x0a || cp === 0x0d || cp === 0x85 || cp === 0x2028 || cp === 0x2029;
}

/** One match of one name: memoised lookaround answers and atomic ends. */
class Run {
  steps = 0;
  private readonly n: number;
  private readonly looks: Array<Uint8Array | undefined> = [];
  private readonly ends: Array<Int32Array | undefined> = [];
  private readonly visited: Array<Int32Array | undefined> = [];
  /** Per atomic program: the first match end from each (state, position) entry (see first()). */
  private readonly firsts: Array<Int32Array | undefined> = [];
  /** Per atomic program: the state of the entry open at each position, and its stamp (see first()). */
  private readonly openStates: Array<Int32Array | undefined> = [];
  private readonly stampsAt: Array<Int32Array | undefined> = [];
  private stamp = 0;
  /** Per class (not per literal): whether the code point at each position is in it (-1: not asked yet). */
  private readonly charMemo: Array<Int8Array | undefined> = [];
  /** Per class: how many code points in it start at each position. */
  private readonly runs: Array<Int32Array | undefined> = [];

  constructor(private readonly m: LinearRegex, private readonly cps: number[]) {
    this.n = cps.length;
  }

  private test(c: number, p: number): boolean {
    const t = this.m.chars[c];
    const cp = this.cps[p];
    if (t.cp !== undefined) return cp === t.cp;
    if (cp < 128) return (t.ascii as Uint8Array)[cp] === 1;
    let memo = this.charMemo[c];
    if (memo === undefined) {
      memo = new Int8Array(this.n).fill(-1);
      this.charMemo[c] = memo;
    }
    const v = memo[p];
    if (v >= 0) return v === 1;
    const ok = (t.re as RegExp).test(String.fromCodePoint(cp));
    memo[p] = ok ? 1 : 0;
    return ok;
  }

  /** The end of an atomic repetition of one code point started at q (counting, linear overall). */
  private runEnd(run: { c: number; min: number; max: number; lazy: boolean }, q: number): number {
    let len = this.runs[run.c];
    if (len === undefined) {
      len = new Int32Array(this.n + 1);
      for (let p = this.n - 1; p >= 0; p--) {
        this.steps++;
        len[p] = this.test(run.c, p) ? len[p + 1] + 1 : 0;
      }
      this.runs[run.c] = len;
    }
    if (len[q] < run.min) return -1;
    return q + (run.lazy ? run.min : Math.min(run.max, len[q]));
  }

  private assertion(kind: number, p: number): boolean {
    const n = this.n;
    switch (ASSERT_KINDS[kind]) {
      case 'start':
        return p === 0;
      case 'end':
        return p === n;
      default:
        if (p === n) return true;
        if (p === n - 1) return isTerminator(this.cps[p]) && !(this.cps[p] === 0x0a && p > 0 && this.cps[p - 1] === 0x0d);
        return p === n - 2 && this.cps[p] === 0x0d && this.cps[p + 1] === 0x0a;
    }
  }

  /** Whether lookaround sub-program `k` holds at `p` (its negation applied). */
  private look(k: number, p: number): boolean {
    let a = this.looks[k];
    if (a === undefined) {
      const prog = this.m.programs[k];
      a = prog.behind ? this.forward(k, true) : this.backward(k, true);
      this.looks[k] = a;
    }
    return (a[p] === 1) !== this.m.programs[k].neg;
  }

  /** Where atomic sub-program `k` started at `q` ends (the first match in priority order), or -1. */
  private end(k: number, q: number): number {
    let e = this.ends[k];
    if (e === undefined) {
      e = new Int32Array(this.n + 1).fill(-2);
      this.ends[k] = e;
    }
    if (e[q] === -2) {
      const run = this.m.programs[k].run;
      e[q] = run !== undefined ? this.runEnd(run, q) : this.first(k, q);
    }
    return e[q];
  }

  /**
   * Depth-first search in priority order (a backtracking engine's first match). The search is
   * cut into entries: a state reached by consuming (a character, an atomic group that moved on)
   * starts an entry at its new position, whose answer (the first match end from there, or none)
   * depends on that state and position only, so it is kept (`firsts`) and never searched again,
   * from any start: over all starts each (state, position) is searched once, O(states x length)
   * for the whole name, even for `.*(?:ab)*+c` (before, each start searched again: quadratic).
   * Within an entry (one position, zero-width moves only) each state is visited once; coming back
   * to a loop where an iteration began means it matched empty, and Java's Loop then goes on after
   * the loop.
   */
  private first(k: number, q: number): number {
    const prog = this.m.programs[k];
    const S = prog.kind.length;
    const W = this.n + 1;
    let visited = this.visited[k];
    let firsts = this.firsts[k];
    if (visited === undefined || firsts === undefined) {
      visited = new Int32Array(S * W);
      this.visited[k] = visited;
      // 0: not searched yet, 1: no match, e + 2: the first match ends at e
      firsts = new Int32Array(S * W);
      this.firsts[k] = firsts;
    }
    const known = firsts[prog.start * W + q];
    if (known !== 0) return known - 2;
    // Per position: the state of the entry open there and its stamp (one open entry per position).
    // Per program: the search of a nested atomic group (another program) runs inside this one.
    const openState = this.openStates[k] ?? (this.openStates[k] = new Int32Array(W));
    const stampAt = this.stampsAt[k] ?? (this.stampsAt[k] = new Int32Array(W));
    /** Positions of the open entries, lowest first. */
    const open: number[] = [];
    const stack: number[] = [];
    const enter = (s: number, p: number): void => {
      openState[p] = s;
      stampAt[p] = ++this.stamp;
      open.push(p);
      stack.push(-1, p, s, p); // the entry's end marker below its first state
    };
    /** The first match ends at e: so it does for every open entry. */
    const found = (e: number): number => {
      for (const p of open) firsts[openState[p] * W + p] = e + 2;
      return e;
    };
    /** A move to state s at a later position p: its kept answer, or a new entry (-2: searching on). */
    const move = (s: number, p: number): number => {
      const v = firsts[s * W + p];
      if (v === 0) enter(s, p);
      else if (v >= 2) return found(v - 2);
      return -2;
    };
    enter(prog.start, q);
    while (stack.length > 0) {
      const p = stack.pop() as number;
      const s = stack.pop() as number;
      if (s === -1) {
        // everything searched from the entry at p: no match from there
        firsts[openState[p] * W + p] = 1;
        open.pop();
        continue;
      }
      const at = s * W + p;
      const stamp = stampAt[p];
      if (visited[at] === stamp) {
        // Back at a loop where the iteration began: it matched empty. Java's Loop then goes on
        // after the loop (before the body's other choices), it does not fail there.
        const exit = prog.loopExit[s];
        if (exit >= 0 && visited[exit * W + p] !== stamp) stack.push(exit, p);
        continue;
      }
      visited[at] = stamp;
      this.steps++;
      let r = -2;
      switch (prog.kind[s]) {
        case K.Match:
          return found(p);
        case K.Char:
          if (p < this.n && this.test(prog.arg[s], p)) r = move(prog.next[s], p + 1);
          break;
        case K.Eps:
          stack.push(prog.next[s], p);
          break;
        case K.Split:
          stack.push(prog.alt[s], p, prog.next[s], p);
          break;
        case K.Assert:
          if (this.assertion(prog.arg[s], p)) stack.push(prog.next[s], p);
          break;
        case K.Look:
          if (this.look(prog.arg[s], p)) stack.push(prog.next[s], p);
          break;
        case K.Atomic: {
          const e = this.end(prog.arg[s], p);
          if (e === p) stack.push(prog.next[s], p);
          else if (e > p) r = move(prog.next[s], e);
          break;
        }
      }
      if (r >= 0) return r;
    }
    return -1;
  }

  /**
   * Backward: for each position p, whether program `k` started at p reaches its end (anywhere
   * when `anywhere`, else at the end of the name). Each (state, position) once.
   */
  backward(k: number, anywhere: boolean): Uint8Array {
    const prog = this.m.programs[k];
    const S = prog.kind.length;
    const n = this.n;
    const full = prog.hasAtomic;
    const R = new Uint8Array(S * (full ? n + 1 : 2));
    const base = (p: number) => (full ? p : p & 1) * S;
    const out = new Uint8Array(n + 1);
    const work: number[] = [];
    for (let p = n; p >= 0; p--) {
      const b = base(p);
      if (!full) R.fill(0, b, b + S);
      const nb = p < n ? base(p + 1) : -1;
      for (let s = 0; s < S; s++) {
        this.steps++;
        let ok = false;
        switch (prog.kind[s]) {
          case K.Match:
            ok = anywhere || p === n;
            break;
          case K.Char:
            ok = p < n && R[nb + prog.next[s]] === 1 && this.test(prog.arg[s], p);
            break;
          case K.Atomic: {
            const e = this.end(prog.arg[s], p);
            ok = e > p && R[base(e) + prog.next[s]] === 1;
            break;
          }
        }
        if (ok && R[b + s] === 0) {
          R[b + s] = 1;
          work.push(s);
        }
      }
      while (work.length > 0) {
        const t = work.pop() as number;
        for (const s of prog.rev[t]) {
          this.steps++;
          if (R[b + s] === 1) continue;
          let ok: boolean;
          switch (prog.kind[s]) {
            case K.Assert:
              ok = this.assertion(prog.arg[s], p);
              break;
            case K.Look:
              ok = this.look(prog.arg[s], p);
              break;
            case K.Atomic:
              ok = this.end(prog.arg[s], p) === p;
              break;
            default:
              ok = true;
          }
          if (ok) {
            R[b + s] = 1;
            work.push(s);
          }
        }
      }
      out[p] = R[b + prog.start];
    }
    return out;
  }

  /**
   * Forward: for each position p, whether program `k` matches a stretch of the name ending at p,
   * started at 0 only or (`everywhere`, for a lookbehind) at any position up to p.
   */
  forward(k: number, everywhere: boolean): Uint8Array {
    const prog = this.m.programs[k];
    const { kind, next, alt, arg } = prog;
    const S = kind.length;
    const n = this.n;
    const full = prog.hasAtomic;
    const F = new Uint8Array(S * (full ? n + 1 : 2));
    const out = new Uint8Array(n + 1);
    const work = new Int32Array(S);
    /** States alive in the next layer (a program without atomic groups reaches only that one). */
    let ahead = 0;
    for (let p = 0; p <= n; p++) {
      const b = (full ? p : p & 1) * S;
      const nb = (full ? p + 1 : (p + 1) & 1) * S;
      if (p < n && !full) F.fill(0, nb, nb + S);
      if (everywhere || p === 0) F[b + prog.start] = 1;
      else if (!full && ahead === 0) break; // nothing alive: no match further on
      ahead = 0;
      let top = 0;
      for (let s = 0; s < S; s++) if (F[b + s] === 1) work[top++] = s;
      while (top > 0) {
        const s = work[--top];
        this.steps++;
        let t = -1;
        let u = -1;
        switch (kind[s]) {
          case K.Match:
            out[p] = 1;
            break;
          case K.Char:
            if (p < n && F[nb + next[s]] === 0 && this.test(arg[s], p)) {
              F[nb + next[s]] = 1;
              ahead++;
            }
            break;
          case K.Eps:
            t = next[s];
            break;
          case K.Split:
            t = next[s];
            u = alt[s];
            break;
          case K.Assert:
            if (this.assertion(arg[s], p)) t = next[s];
            break;
          case K.Look:
            if (this.look(arg[s], p)) t = next[s];
            break;
          case K.Atomic: {
            const e = this.end(arg[s], p);
            if (e === p) t = next[s];
            else if (e > p) F[e * S + next[s]] = 1; // full layers: a program with atomic groups
            break;
          }
        }
        if (t >= 0 && F[b + t] === 0) {
          F[b + t] = 1;
          work[top++] = t;
        }
        if (u >= 0 && F[b + u] === 0) {
          F[b + u] = 1;
          work[top++] = u;
        }
      }
    }
    return out;
  }
}

/** A compiled pattern: `test(name)` is a whole-name match (Java's Matcher.matches()). */
export class LinearRegex {
  /** @internal */ readonly programs: Program[];
  /** @internal */ readonly chars: CharTest[];
  /** Automaton states over all programs (the `states` in the cost bound). */
  readonly states: number;
  /** The work done by the last test(): (state, position) visits. */
  lastSteps = 0;

  constructor(node: RegexNode) {
    const c = new Compiler();
    c.program(node);
    this.programs = c.programs;
    this.chars = c.chars;
    this.states = c.programs.reduce((sum, p) => sum + p.kind.length, 0);
  }

  test(name: string): boolean {
    const cps: number[] = [];
    for (const ch of name) cps.push(ch.codePointAt(0) as number);
    const run = new Run(this, cps);
    const ok = run.forward(0, false)[cps.length] === 1;
    this.lastSteps = run.steps;
    return ok;
  }
}
