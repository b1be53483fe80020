'use strict';
/**
 * Issue 26: the filters' names are chosen by others (anyone who may create a consumer group on
 * the source), so a pattern such as `(a+)+$` must not take exponential time on `aaaa...a!`.
 * compileRegexList matches with our own automaton (src/core/linear-regex.ts). It must answer
 * exactly what the former backtracking translation (compileRegexListToRegExp) answers: compared
 * here over thousands of generated patterns and names, and over the Java specifics of
 * java-regex.test.js. The hostile cases assert the answer and that the work done stays within
 * a small multiple of states x (name length + 1), never on time.
 */
const assert = require('node:assert/strict');
const { compileRegexList, compileRegexListToRegExp } = require('../../dist/core/java-regex-list');
const { createGroupFilter, createTopicFilter } = require('../../dist/core/filters');
const { ConfigError } = require('../../dist/core/errors');
const { LinearRegex } = require('../../dist/core/linear-regex');

const { mulberry32: prng } = require('./helpers/random');

const ATOMS = ['a', 'b', 'A', '.', '[ab]', '[^a]', '\\d', '\\w', '\\s', '[a-c&&[^b]]', '\\Qa.\\E', '\\R', '^', '$', '\\z', '\\Z', '\\p{Lower}', '(?i:a)', 'x', '\\n'];
const BOUNDED = ['', '', '?', '{2}', '{0,2}', '{1,3}', '??', '{0,2}?'];
const QUANTS = ['', '', '', '*', '+', '?', '{2}', '{0,2}', '{1,3}', '{2,}', '*?', '+?', '??', '*+', '++', '?+', '{1,2}+'];

/** A random Java pattern; no atomic or possessive inside a lookbehind (see below). */
function pattern(rand, depth, inBehind) {
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const alts = [];
  const nAlts = rand() < 0.25 ? 2 : 1;
  for (let i = 0; i < nAlts; i++) {
    let seq = '';
    const len = 1 + Math.floor(rand() * 3);
    for (let j = 0; j < len; j++) {
      let atom;
      if (depth < 3 && rand() < 0.3) {
        const kinds = inBehind ? ['(', '(?:', '(?=', '(?!', '(?<=', '(?<!'] : ['(', '(?:', '(?>', '(?=', '(?!', '(?<=', '(?<!'];
        const open = pick(kinds);
        atom = `${open}${pattern(rand, depth + 1, inBehind || open.startsWith('(?<'))})`;
      } else atom = pick(ATOMS);
      // Java needs a lookbehind of bounded length: bounded quantifiers (and no possessive) there
      let q = pick(inBehind ? BOUNDED : QUANTS);
      seq += atom + q;
    }
    alts.push(seq);
  }
  return alts.join('|');
}

function names(rand, count) {
  const letters = ['a', 'a', 'b', 'A', 'x', '1', ' ', '\n', '\r', 'é', '.'];
  const out = ['', 'a', 'aa', 'ab', 'a\n', 'a\r\n', '\n'];
  while (out.length < count) {
    const len = Math.floor(rand() * 8);
    let s = '';
    for (let i = 0; i < len; i++) s += letters[Math.floor(rand() * letters.length)];
    out.push(s);
  }
  return out;
}

/**
 * Where the former translation was wrong: inside a possessive or atomic repetition JavaScript
 * refuses an iteration that matched the empty string and tries the body's next choice, while
 * Java's Pattern.Loop ends the loop there. These are all the disagreements in the generated
 * cases below (seed 26), each with Java 17's answer (Pattern.compile(p).matcher(name).matches(),
 * run with the JDK); the linear matcher gives Java's answer.
 * @type {Array<[string, string, boolean]>}
 */
const JAVA_CHECKED = [
  ["${0,2}(?:\\n*|\\p{Lower}{2}(?=(?:.{2,}\\Qa.\\E{1,3}$?|$)++(?:bb+?b{2})++(?i:a)++){0,2}(?>x{2,}(?=$++\\p{Lower}?+\\s*){0,2}x??)*+){1,2}+", "aa", false],
  ["${0,2}(?:\\n*|\\p{Lower}{2}(?=(?:.{2,}\\Qa.\\E{1,3}$?|$)++(?:bb+?b{2})++(?i:a)++){0,2}(?>x{2,}(?=$++\\p{Lower}?+\\s*){0,2}x??)*+){1,2}+", "ab", false],
  ["(?:(?i:a){2}|(?:\\R??|(?!\\z*?\\Qa.\\E{0,2}[a-c&&[^b]]{2})++)*+)++", "\n", false],
  ["\\s{2,}|(?=\\n+){1,3}(a*|\\p{Lower}*+\\R?)?+", "\n", false],
  ["(?=\\s*+)+?(\\p{Lower}{0,2}(?<=.{0,2}(?<!\\n){1,3})?|(?i:a){1,3}\\d*+)++", "A", false],
  ["\\n{0,2}\\w(\\n??|\\w*+\\z*+){1,2}+", "aa", false],
  ["\\n{0,2}\\w(\\n??|\\w*+\\z*+){1,2}+", "ab", false],
  ["\\n{0,2}\\w(\\n??|\\w*+\\z*+){1,2}+", "a\n", false],
  ["\\n{0,2}\\w(\\n??|\\w*+\\z*+){1,2}+", "xxx1", false],
  ["\\n{0,2}\\w(\\n??|\\w*+\\z*+){1,2}+", "1AA", false],
  ["\\n{0,2}\\w(\\n??|\\w*+\\z*+){1,2}+", "Axaa", false],
  ["\\n{0,2}\\w(\\n??|\\w*+\\z*+){1,2}+", "aA", false],
  ["\\n{0,2}\\w(\\n??|\\w*+\\z*+){1,2}+", "x1b", false],
  ["\\n{0,2}\\w(\\n??|\\w*+\\z*+){1,2}+", "1bbaxa", false],
  ["\\n{0,2}\\w(\\n??|\\w*+\\z*+){1,2}+", "ba", false],
  ["\\n{0,2}\\w(\\n??|\\w*+\\z*+){1,2}+", "xA1", false],
  ["(\\p{Lower}{0,2})++(((?:A{1,2}+A)+?a??)*+|(?:\\s.++|(?<![a-c&&[^b]]\\n{0,2}?[^a]{1,3}|\\Qa.\\Ex{0,2})*(?![a-c&&[^b]]++a[^a]+)*+)*?(?!(?i:a){2}\\z*?)x*+)?+|\\p{Lower}??\\Z*", "\rbaba.é", false],
  ["(\\p{Lower}{0,2})++(((?:A{1,2}+A)+?a??)*+|(?:\\s.++|(?<![a-c&&[^b]]\\n{0,2}?[^a]{1,3}|\\Qa.\\Ex{0,2})*(?![a-c&&[^b]]++a[^a]+)*+)*?(?!(?i:a){2}\\z*?)x*+)?+|\\p{Lower}??\\Z*", "\n 1a é.", false],
  ["(\\p{Lower}{0,2})++(((?:A{1,2}+A)+?a??)*+|(?:\\s.++|(?<![a-c&&[^b]]\\n{0,2}?[^a]{1,3}|\\Qa.\\Ex{0,2})*(?![a-c&&[^b]]++a[^a]+)*+)*?(?!(?i:a){2}\\z*?)x*+)?+|\\p{Lower}??\\Z*", " 11", false],
  ["(\\p{Lower}{0,2})++(((?:A{1,2}+A)+?a??)*+|(?:\\s.++|(?<![a-c&&[^b]]\\n{0,2}?[^a]{1,3}|\\Qa.\\Ex{0,2})*(?![a-c&&[^b]]++a[^a]+)*+)*?(?!(?i:a){2}\\z*?)x*+)?+|\\p{Lower}??\\Z*", " ax ba", false],
  ["(?:[ab]?[^a]*?${2,})*+(?!\\s*(?:\\R{2}(?<=\\Z?)*x)+(?!${1,3})+?){1,2}+", "a\n", false],
  ["(?:[ab]?[^a]*?${2,})*+(?!\\s*(?:\\R{2}(?<=\\Z?)*x)+(?!${1,3})+?){1,2}+", "a\r\n", false],
  ["(?:[ab]?[^a]*?${2,})*+(?!\\s*(?:\\R{2}(?<=\\Z?)*x)+(?!${1,3})+?){1,2}+", "\n", false],
  ["(?:[ab]?[^a]*?${2,})*+(?!\\s*(?:\\R{2}(?<=\\Z?)*x)+(?!${1,3})+?){1,2}+", "\r", false],
  ["(?:[ab]?[^a]*?${2,})*+(?!\\s*(?:\\R{2}(?<=\\Z?)*x)+(?!${1,3})+?){1,2}+", "\r", false],
  ["(?:[ab]?[^a]*?${2,})*+(?!\\s*(?:\\R{2}(?<=\\Z?)*x)+(?!${1,3})+?){1,2}+", "x\n", false],
  ["(?:[ab]?[^a]*?${2,})*+(?!\\s*(?:\\R{2}(?<=\\Z?)*x)+(?!${1,3})+?){1,2}+", "x\r x\r\n", false],
  ["(?:[ab]?[^a]*?${2,})*+(?!\\s*(?:\\R{2}(?<=\\Z?)*x)+(?!${1,3})+?){1,2}+", "\nx .\r", false],
  ["(?:[ab]?[^a]*?${2,})*+(?!\\s*(?:\\R{2}(?<=\\Z?)*x)+(?!${1,3})+?){1,2}+", "\n", false],
];
const javaAnswer = new Map(JAVA_CHECKED.map(([p, n, answer]) => [`${p}\u0000${n}`, answer]));

/** Compares the linear matcher with the former RegExp; returns the disagreements Java settled. */
function sameAnswers(list, candidates) {
  const fast = compileRegexList(list, 'groups');
  const reference = compileRegexListToRegExp(list, 'groups');
  let settled = 0;
  for (const name of candidates) {
    const got = fast.test(name);
    const old = reference.test(name);
    if (got === old) continue;
    const java = javaAnswer.get(`${[].concat(list).join(',')}\u0000${name}`);
    assert.equal(got, java, `${JSON.stringify(list)} on ${JSON.stringify(name)}: linear ${got}, RegExp ${old}, Java ${java}`);
    settled++;
  }
  return settled;
}

describe('Linear-time filter matching: the same answers as the former RegExp translation', function () {
  it('over 1000 generated patterns (groups, lookarounds, atomic groups, lazy and possessive quantifiers, anchors, classes) and 40 names each', function () {
    const rand = prng(26);
    let settled = 0;
    let refused = 0;
    for (let i = 0; i < 1000; i++) {
      const p = pattern(rand, 0, false);
      const candidates = names(rand, 40);
      // a lookbehind Java refuses for its length is refused (java-regex-refused.test.js checks each against Java 17)
      try {
        compileRegexList([p], 'groups');
      } catch (e) {
        assert.match(e.message, /Look-behind group does not have an obvious maximum length/, p);
        refused++;
        continue;
      }
      settled += sameAnswers([p], candidates);
    }
    assert.ok(refused < 500, `${refused} of 1000 refused: most patterns are compared`);
    // each disagreement was one of Java's cases above, and every one of them came up
    assert.equal(settled, JAVA_CHECKED.length);
  });

  it('every name up to 5 characters over {a, b} against classic patterns', function () {
    const all = [''];
    for (let len = 1; len <= 5; len++) {
      for (let k = 0; k < 1 << len; k++) all.push([...Array(len)].map((_, i) => ((k >> i) & 1 ? 'b' : 'a')).join(''));
    }
    const patterns = ['(a+)+$', '(a|ab)(c|bcd)?(d*)', '(a*)*b', '(a|a)*b', '(?:a|b)*?b', 'a{2,3}b?', '(ab|a)*+b', '(?>a*)b', '(?=.*b)a.*', '(?!.*bb).*',
      '(?<=a)b|.*(?<!a)b', 'a*+', '(a*+)*', '(?:a?){3}b', '(|a)+', '(a|)*?b', '(?:(?:a)*)*+b', '.*(?<=ab)', '(a(?=b))*.*', '(?>(a|)*)b', '((?>a|ab)|b)*'];
    for (const p of patterns) assert.equal(sameAnswers([p], all), 0, p);
  });

  it('the Java specifics java-regex.test.js covers (classes, \\Q..\\E, flags, $, \\R, escapes, supplementary characters)', function () {
    /** @type {Array<[string, string[]]>} */
    const cases = [
      ['\\p{Lower}+', ['orders', 'Orders', 'é']], ['\\p{Punct}+', ['!-.[]_`{}~', 'a', '«']], ['\\P{Lower}+', ['ABC', 'é', 'a']],
      ['[\\p{Lower}\\d_-]+', ['orders_1-a', 'Orders']], ['\\p{javaLowerCase}+', ['orders', 'éß', 'Orders']], ['\\p{IsLu}\\p{gc=Ll}+', ['Éa', 'aa']],
      ['[a-z&&[^aeiou]]+', ['xyz', 'abc']], ['[a[^b]]', ['a', 'c', 'b']], ['\\Qorders.v1\\E', ['orders.v1', 'ordersXv1']], ['\\Qab\\E+', ['abbb', 'abab']],
      ['[\\Q-]\\E]+', ['-]', 'a']], ['a*+a', ['a', 'aaa']], ['(?>a|ab)c', ['ac', 'abc']], ['a{1,3}+a', ['aaaa', 'aaa']], ['(?i)orders', ['ORDERS', 'ordeRS-x']],
      ['(?i)k', ['k', 'K', '\u212A']], ['(?i)[^a]', ['b', 'a', 'A']], ['prod-(?i:eu)-x', ['prod-EU-x', 'PROD-eu-x']], ['(?i)a(?-i)b', ['Ab', 'AB']],
      ['(?s)a.b', ['a\nb', 'ab']], ['(?x) a b # comment', ['ab', 'a b']], ['a.b', ['a-b', 'a\nb', 'a\u0085b', 'a\u2028b']], ['orders\\Z', ['orders', 'orders\n']],
      ['orders$\\n', ['orders\n', 'orders']], ['a$\\r\\n', ['a\r\n', 'a']], ['a\\r$\\n', ['a\r\n']], ['a\\R\\nb', ['a\r\nb', 'a\nb']], ['a\\hb', ['a\u00A0b', 'a\nb']],
      ['\\x41\\x{1F600}\\u00e9\\0101\\cA\\e\\a\\t', ['A\u{1F600}éA\x01\x1B\x07\t', 'A']], ['\\uD83D\\uDE00', ['\u{1F600}', '\uD83D']], ['.', ['\u{1F600}', 'ab', '\uDE00']],
      ['(?<name>x)y', ['xy', 'x']], ['(?<=a)b|ab', ['ab', 'b']], ['a(?i)b|c', ['aB', 'C', 'c', 'AB']], ['.*[\\-\\.]internal', ['mm2-offset-syncs.target.internal', 'x']],
    ];
    for (const [p, candidates] of cases) assert.equal(sameAnswers([p], candidates), 0, p);
    assert.equal(sameAnswers('a*+b, (?>x|xy)z, c++', ['aab', 'xz', 'xyz', 'ccc', 'c', '']), 0);
    assert.equal(sameAnswers(['.*', 'orders'], ['', 'x', '\n']), 0);
  });
});

/**
 * The matcher compileRegexList gives (a LinearRegex: its `states` and `lastSteps` measure the work).
 * @param {string | string[]} list
 * @returns {import('../../dist/core/linear-regex').LinearRegex}
 */
function linear(list) {
  const m = compileRegexList(list, 'groups');
  assert.ok(m instanceof LinearRegex);
  return m;
}

describe('Linear-time filter matching: hostile names against catastrophic patterns (issue 26)', function () {
  const a = (n) => 'a'.repeat(n);
  /** [pattern, name, expected] @type {Array<[string, string, boolean]>} */
  const HOSTILE = [
    ['(a+)+$', a(32) + '!', false],
    ['(a+)+$', a(40) + '!', false],
    ['(a+)+$', a(100), true],
    ['(a*)*b', a(100), false],
    ['(a*)*b', a(99) + 'b', true],
    ['(a|a)*c', a(100), false],
    ['(a|aa)+$', a(100) + '!', false],
    ['(a|aa)+$', a(100), true],
    ['(.*a){20}', a(19) + 'b'.repeat(80), false],
    ['(.*a){20}', 'b'.repeat(50) + a(20), true],
    ['(\\w+\\s?)+$', 'word '.repeat(20) + '!', false],
    ['(?:(a+)+)+b', a(60), false],
    ['((a+)+)++b', a(60), false],
    ['(?=(a+)+$)a*', a(60) + '!', false],
    ['.*(?<=a*a*a*a*)!', a(60) + '!', true],
  ];
  for (const [p, name, expected] of HOSTILE) {
    it(`${p} on a ${name.length}-character name: ${expected ? 'matches' : 'no match'}, with work bounded by states x (length + 1)`, function () {
      const m = linear(p);
      assert.equal(m.test(name), expected);
      // each (state, position) pair is visited a bounded number of times per program
      assert.ok(m.lastSteps <= 4 * m.states * (name.length + 1), `${m.lastSteps} steps for ${m.states} states x ${name.length + 1} positions`);
    });
  }

  // An atomic group or possessive repeat of several characters, tried at every position (after .*,
  // in a loop, in a lookahead): before, its first match was searched again from each start
  // (quadratic: .*(?:ab)*+c took 7 s on 16,000 characters, minutes on 100,000)
  const ab = (n) => 'ab'.repeat(n / 2);
  /** [pattern, name, expected] @type {Array<[string, string, boolean]>} */
  const ATOMIC = [
    ['.*(?:ab)*+c', ab(100000), false],
    ['.*(?:ab)*+c', ab(100000) + 'c', true],
    ['.*(?>(?:ab|a)*)c', ab(100000), false],
    ['.*(?>(?:ab|a)*)b', ab(100000), true], // .* up to the last b, the atomic group empty (Java: true)
    ['(?:(?>(?:ab)*)x|.)*', ab(100000), true],
    ['.*(?=(?:ab)*+c).*', ab(100000) + 'c', true],
    ['.*(?=(?:ab)*+c).*', ab(100000), false],
    ['(?>ab|a)*c', ab(100000), false],
    ['(ab)*+c', ab(100000) + 'c', true],
    ['.*(?<=(?>ba|a){1,3})c', ab(100000), false],
  ];
  for (const [p, name, expected] of ATOMIC) {
    it(`${p} on a ${name.length}-character name: ${expected ? 'matches' : 'no match'} (as Java answers), with work bounded by states x (length + 1)`, function () {
      const m = linear([p]);
      assert.equal(m.test(name), expected);
      assert.ok(m.lastSteps <= 4 * m.states * (name.length + 1), `${m.lastSteps} steps for ${m.states} states x ${name.length + 1} positions`);
    });
  }

  it('the group and topic filters use it: groups (a+)+$ refuses aaaa...a! (40 a\'s), accepts a normal group', function () {
    const f = createGroupFilter({ groups: '(a+)+$', 'groups.exclude': '(b|bb)+$' });
    assert.equal(f.accept(a(40) + '!'), false);
    assert.equal(f.accept(a(40)), true);
    const g = createGroupFilter({ groups: '.*', 'groups.exclude': '(a|a)*c' });
    assert.equal(g.accept(a(50)), true);
    const t = createTopicFilter({ topics: '(x+x+)+y', 'topics.exclude': '' });
    assert.equal(t.accept('x'.repeat(60)), false);
    assert.equal(t.accept('xxy'), true);
  });

  it('an atomic group keeps its work polynomial: (?>(a+)+)b on 100 a\'s', function () {
    const m = linear('(?>(a+)+)b|(a+)++c');
    assert.equal(m.test(a(100)), false);
    assert.equal(m.test(a(100) + 'b'), true);
    assert.ok(m.lastSteps <= 4 * m.states * 101 * 101, `${m.lastSteps} steps`);
  });

  it('a possessive repetition of one character class stays linear: .*+!|\\w++x|(?>a+) and .*\\w*+! on 20,000-character names', function () {
    const m = linear('.*+!|\\w++x|(?>a+)');
    assert.equal(m.test(a(20000)), true);
    assert.equal(m.test(a(20000) + '!'), false, '.*+ took the ! too');
    assert.equal(m.test(a(19999) + 'x'), false, '\\w++ took the x too');
    assert.ok(m.lastSteps <= 4 * m.states * 20002, `${m.lastSteps} steps for ${m.states} states`);
    // entered at every position of the name: counted once for all of them, not searched from each
    const every = linear('.*\\w*+!');
    assert.equal(every.test(a(20000)), false);
    assert.ok(every.lastSteps <= 4 * every.states * 20001, `${every.lastSteps} steps for ${every.states} states`);
    assert.equal(every.test(`${a(10000)}.${a(9999)}!`), true);
  });

  it('a pattern that would expand to too many states is refused at settings time, naming the field, the pattern and the fix', function () {
    assert.throws(() => compileRegexList('(a{1000}){1000}', 'topics'), (e) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.equal(e.problems[0].property, 'topics');
      assert.ok(e.message.includes("'(a{1000}){1000}'"), e.message);
      assert.ok(e.message.includes('write it with * or +'), e.message);
      return true;
    });
    assert.ok(compileRegexList(['[a-z]{1,249}'], 'topics').test('orders'));
  });
});
