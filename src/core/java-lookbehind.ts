/**
 * Java's check of a lookbehind (java.util.regex.Pattern, JDK 17: "Look-behind group does not
 * have an obvious maximum length"), so that a pattern Java refuses is refused here too, and one
 * Java takes is taken. Java decides it with its `study` pass over the compiled nodes, in 32-bit
 * int arithmetic; this is that pass, written per construct as the translator (core/java-regex)
 * reads them, each a function of the running info and of what follows it (a Branch studies what
 * follows it from a fresh info, so the order matters as in Java):
 *
 *   a character, class or .          +1            (Java's CharProperty)
 *   \R                               +2            (LineEnding)
 *   anchors, lookarounds             +0
 *   X|Y                              max of the alternatives; not deterministic (Branch)
 *   c* c+ c{n,} (c one character, greedy)  +MAX_REPS, never invalid, overflow ignored (CharPropertyGreedy)
 *   X{n,m} X*? X*+ (other repeats)   +max(X) * m; invalid when the sum overflows (Curly, GroupCurly)
 *   (X)* (X){n,m} ... (X a group that is not deterministic: alternatives, ?, a variable repeat,
 *        greedy or lazy)             invalid (Loop)
 *   (X)? (a group)                   as X|  (a Branch with an empty alternative)
 *   c? (?>X) X?+                     +max(X) (Ques)
 *
 * Checked with Java 17 on the patterns of test/unit/java-regex-refused.test.js: `(?<=a+)b` and
 * `(?<!x*)y` compile in Java 17 (a single character repeated without bound is allowed), while
 * `(?<=(?:ab)+)c`, `(?<=b(?:a)+)c`, `(?<=ba+?)c`, `(?<=(?:a|b){2})c` and `(?<=\R+)c` are refused.
 */

/** Java's TreeInfo, as far as the lookbehind check reads it. */
export interface StudyInfo {
  /** maxLength, a Java int (wraps on overflow as Java's does). */
  max: number;
  /** maxValid */
  valid: boolean;
  /** deterministic */
  det: boolean;
}

/** One construct's study: updates `i` for itself, then studies what follows it (`next`). */
export type Study = (i: StudyInfo, next: (i: StudyInfo) => void) => void;

/** Java's Pattern.MAX_REPS: the maximum of *, + and {n,}. */
export const MAX_REPS = 0x7fffffff;

const stop = (): void => undefined;
const fresh = (): StudyInfo => ({ max: 0, valid: true, det: true });
const reset = (i: StudyInfo): void => {
  i.max = 0;
  i.valid = true;
  i.det = true;
};

/** Something of a fixed length: a character (1), \R (2), an anchor or a lookaround (0). */
export const studyLength = (n: number): Study => (i, next) => {
  i.max = (i.max + n) | 0;
  next(i);
};

/** Items one after the other. */
export function studySeq(items: readonly Study[]): Study {
  return (i, next) => {
    const run = (k: number, j: StudyInfo): void => {
      if (k === items.length) next(j);
      else items[k](j, (jj) => run(k + 1, jj));
    };
    run(0, i);
  };
}

/** X|Y|... (Java's Branch): each alternative from a fresh info, what follows from a fresh info too, then added. */
export function studyBranch(alts: readonly Study[]): Study {
  return (i, next) => {
    let maxL = i.max;
    let maxV = i.valid;
    let maxL2 = -1;
    for (const alt of alts) {
      reset(i);
      alt(i, stop);
      maxL2 = Math.max(maxL2, i.max);
      maxV = maxV && i.valid;
    }
    maxL = (maxL + maxL2) | 0;
    reset(i);
    next(i);
    i.max = (i.max + maxL) | 0;
    i.valid = i.valid && maxV;
    i.det = false;
  };
}

/** Curly and GroupCurly: X{cmin,cmax} studied from a fresh info, times cmax, added with Java's overflow check. */
function studyCurly(atom: Study, cmin: number, cmax: number): Study {
  return (i, next) => {
    const maxL = i.max;
    const maxV = i.valid;
    const detm = i.det;
    reset(i);
    atom(i, stop);
    if (maxV && i.valid) {
      i.max = (maxL + Math.imul(i.max, cmax)) | 0;
      if (i.max < maxL) i.valid = false;
    } else i.valid = false;
    i.det = i.det && cmin === cmax ? detm : false;
    next(i);
  };
}

/** Ques (c?, (?>X), X?+): X studied on the running info; only (?>X) keeps it deterministic. */
function studyQues(atom: Study, independent: boolean): Study {
  return (i, next) => {
    atom(i, stop);
    if (!independent) i.det = false;
    next(i);
  };
}

/** (?>X): Java's independent group. */
export const studyAtomic = (atom: Study): Study => studyQues(atom, true);

/** What a quantifier is applied to, as Java's compiler tells them apart. */
export type QuantifiedKind = 'char' | 'group' | 'other';

/**
 * A quantified atom: `q` is the quantifier as written (`*`, `+`, `?` or `{...}`), `mode` its
 * suffix ('' greedy, '?' lazy, '+' possessive), `max` Infinity for no maximum.
 */
export function studyQuantified(atom: Study, kind: QuantifiedKind, q: string, min: number, max: number, mode: '' | '?' | '+'): Study {
  const cmax = max === Infinity ? MAX_REPS : max;
  if (q === '?') {
    // a group's ? is a Branch with an empty alternative (unless possessive); else Ques
    if (kind === 'group' && mode !== '+') return studyBranch([atom, studyLength(0)]);
    return studyQues(atom, false);
  }
  if (max === Infinity && mode === '' && kind === 'char') {
    // CharPropertyGreedy (c*, c+, c{n,}): adds MAX_REPS without a check
    return (i, next) => {
      if (i.valid) i.max = (i.max + MAX_REPS) | 0;
      i.det = false;
      next(i);
    };
  }
  if (kind === 'group' && mode !== '+') {
    // a greedy or lazy repeat of a group: GroupCurly when the group is deterministic, else a Loop (no maximum)
    const body = fresh();
    atom(body, stop);
    if (!body.det) {
      return (i, next) => {
        i.valid = false;
        i.det = false;
        next(i);
      };
    }
  }
  return studyCurly(atom, min, cmax);
}

/** Whether Java finds an obvious maximum length for a lookbehind of body `body`. */
export function hasObviousMaximumLength(body: Study): boolean {
  const i = fresh();
  body(i, stop);
  return i.valid;
}
