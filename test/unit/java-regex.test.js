'use strict';
/**
 * Java regular expressions as MM2 compiles them (java.util.regex.Pattern, whole-name match with
 * Matcher.matches()): each construct whose JavaScript reading differs is translated to its exact
 * JavaScript form or refused naming it. Every case lists the Java meaning; the expectations are
 * what Java 17 answers for Pattern.compile(pattern).matcher(name).matches().
 */
const assert = require('node:assert/strict');
const { javaToJsPattern, JavaRegexError } = require('../../dist/core/java-regex');
const { compileRegexList } = require('../../dist/core/java-regex-list');
const { createGroupFilter } = require('../../dist/core/filters');
const { ConfigError } = require('../../dist/core/errors');

/** [pattern, Java meaning, names Java matches, names Java does not match] */
/** @type {Array<[string, string, string[], string[]]>} */
const TRANSLATED = [
  ['\\p{Lower}+', 'POSIX lower: US-ASCII a-z only', ['orders', 'abc'], ['Orders', 'é', 'ß']],
  ['\\p{Upper}+', 'POSIX upper: A-Z only', ['ABC'], ['abc', 'É']],
  ['\\p{Alpha}+', 'POSIX alpha: a-zA-Z only', ['Orders'], ['ordér', 'a1']],
  ['\\p{Alnum}+', 'POSIX alnum: a-zA-Z0-9', ['a1B2'], ['a-1', 'ä1']],
  ['\\p{Digit}+', 'POSIX digit: 0-9 only', ['042'], ['٣', 'x']],
  ['\\p{Punct}+', 'POSIX punct: the 32 ASCII punctuation characters', ['!-.[]_`{}~', '@'], ['a', '«', ' ']],
  ['\\p{XDigit}+', 'POSIX hex digit', ['0aF9'], ['g']],
  ['\\p{Space}', 'POSIX space: [ \\t\\n\\x0B\\f\\r]', [' ', '\t', '\x0B'], ['\u00A0', '\u2003']],
  ['\\p{ASCII}+', 'all of US-ASCII', ['a~\x00'], ['é']],
  ['\\p{Graph}+', 'visible ASCII', ['a!~'], [' ', 'é']],
  ['\\p{Print}+', 'visible ASCII and space', ['a b'], ['\t']],
  ['\\p{Blank}', 'space or tab', [' ', '\t'], ['\n']],
  ['\\p{Cntrl}', 'ASCII control', ['\x01', '\x7F'], ['\x80', 'a']],
  ['\\P{Lower}+', 'complement of POSIX lower', ['ABC', 'é'], ['a']],
  ['[\\p{Lower}\\d_-]+', 'POSIX class inside a class', ['orders_1-a'], ['Orders']],
  ['\\p{javaLowerCase}+', 'Character.isLowerCase: Unicode lowercase', ['orders', 'éß'], ['Orders', '1']],
  ['\\p{javaUpperCase}+', 'Character.isUpperCase: Unicode uppercase', ['ÉA'], ['a']],
  ['\\p{javaLetterOrDigit}+', 'Character.isLetterOrDigit', ['é1'], ['-']],
  ['\\p{L}+', 'Unicode letters', ['ordér'], ['a1']],
  ['\\p{IsLu}\\p{gc=Ll}+', 'Unicode categories with Is and gc= prefixes', ['Éa'], ['aa']],
  ['[a-z&&[^aeiou]]+', 'intersection: consonants', ['xyz', 'bcd'], ['abc', 'e']],
  ['[a-z&&[def]]', 'intersection with a nested class', ['d'], ['a', 'x']],
  ['[\\w&&[^\\d]]+', 'word characters but not digits', ['ab_'], ['a1']],
  ['[a-c[x-z]]+', 'union of nested classes', ['axz'], ['d']],
  ['[a[^b]]', 'union with a negated nested class: anything but b... or a', ['a', 'c', '!'], ['b']],
  ['\\Qorders.v1\\E', 'quoted text: the dot is literal', ['orders.v1'], ['ordersXv1']],
  ['\\Qa+b', '\\Q to the end', ['a+b'], ['aab']],
  ['\\Qab\\E+', 'a quantifier after \\E applies to the last quoted character', ['abbb'], ['abab']],
  ['[\\Q-]\\E]+', '\\Q...\\E in a class', ['-]'], ['a']],
  ['a*+a', 'possessive: a*+ takes every a and gives none back', [], ['a', 'aaa']],
  ['a*+b', 'possessive followed by something else', ['aab', 'b'], ['aa']],
  ['(?:ab)++c', 'possessive group', ['ababc'], ['aba']],
  ['(?>a|ab)c', 'atomic group: the first alternative that matches is kept', ['ac'], ['abc']],
  ['a{1,3}+a', 'possessive counted repetition', ['aaaa'], ['aaa']],
  ['(?i)orders', '(?i): US-ASCII case-insensitive', ['ORDERS', 'Orders'], ['ordeRS-x']],
  ['(?i)k', '(?i) without UNICODE_CASE: the Kelvin sign is not k', ['k', 'K'], ['\u212A']],
  ['(?i)[a-c]+', '(?i) applies to ranges', ['aBc'], ['d']],
  ['(?i)[^a]', '(?i) then negation: neither a nor A', ['b'], ['a', 'A']],
  ['prod-(?i:eu)-x', 'scoped (?i:...)', ['prod-EU-x'], ['PROD-eu-x', 'prod-eu-X']],
  ['(?i)a(?-i)b', '(?-i) switches it off again', ['Ab'], ['AB']],
  ['(?s)a.b', '(?s): dot matches a line terminator', ['a\nb'], ['ab']],
  ['(?x) a b # comment', '(?x): whitespace and comments ignored', ['ab'], ['a b']],
  ['a.b', 'dot: not a line terminator, \\u0085 included', ['a-b'], ['a\nb', 'a\u0085b', 'a\u2028b']],
  ['\\Aorders\\z', '\\A and \\z: start and end of input', ['orders'], ['xorders']],
  ['orders\\Z', '\\Z: before a final line terminator or at the end (matches() still needs the whole name)', ['orders'], ['orders\n']],
  ['orders$\\n', '$: before a final line terminator', ['orders\n'], ['orders']],
  ['a$\\r\\n', '$ before a final \\r\\n', ['a\r\n'], ['a']],
  ['a\\r$\\n', '$ never between a final \\r and \\n', [], ['a\r\n']],
  ['a\\sb', '\\s: [ \\t\\n\\x0B\\f\\r] only', ['a b', 'a\tb'], ['a\u00A0b', 'a\u2003b']],
  ['a\\Sb', '\\S: anything else', ['a\u00A0b'], ['a b']],
  ['a\\hb', '\\h: horizontal whitespace', ['a\u00A0b', 'a\u2003b', 'a b'], ['a\nb']],
  ['a\\vb', '\\v: vertical whitespace', ['a\nb', 'a\u2028b'], ['a b']],
  ['a\\Rb', '\\R: a line break, \\r\\n as one', ['a\r\nb', 'a\nb'], ['ab']],
  ['a\\R\\nb', '\\R is not atomic (JDK 9+): it gives back the \\n of \\r\\n', ['a\r\nb'], ['a\nb']],
  ['\\w+', '\\w: [a-zA-Z_0-9] only', ['a_1'], ['é']],
  ['\\d+', '\\d: [0-9] only', ['12'], ['١']],
  ['\\x41\\x{1F600}\\u00e9\\0101\\cA\\e\\a\\t', 'character escapes', ['A\u{1F600}éA\x01\x1B\x07\t'], ['A']],
  ['\\uD83D\\uDE00', 'a surrogate pair written as two \\u escapes is one character', ['\u{1F600}'], []],
  ['.', 'a supplementary character is one character', ['\u{1F600}'], ['ab']],
  ['a\\-b\\@c\\#', 'escaped punctuation stands for itself', ['a-b@c#'], []],
  ['a]b}', 'a lone ] or } is literal', ['a]b}'], []],
  ['[]a]+', '] first in a class is literal', [']a'], ['b']],
  ['(?<name>x)y', 'named group', ['xy'], ['x']],
  ['(?<=a)b|ab', 'lookbehind', ['ab'], ['b']],
];

/** [pattern, the construct named in the refusal] */
const REFUSED = [
  ['(a)\\1', '\\1'],
  ['(?<g>a)\\k<g>', '\\k'],
  ['\\bword\\b', '\\b'],
  ['a\\Bb', '\\B'],
  ['\\X', '\\X'],
  ['\\N{LATIN SMALL LETTER A}', '\\N'],
  ['(?m)^a', '(?m)'],
  ['(?d)a', '(?d)'],
  ['(?u)a', '(?u)'],
  ['(?U)\\w', '(?U)'],
  ['(?iu)a', '(?u)'],
  ['\\p{InGreek}', '\\p{InGreek}'],
  ['\\p{IsLatin}', '\\p{IsLatin}'],
  ['\\p{javaWhitespace}', '\\p{javaWhitespace}'],
  ['\\p{javaMirrored}', '\\p{javaMirrored}'],
  ['(?i)\\p{Lower}', '\\p{Lower}'],
  ['[^a-z&&[aeiou]]', '[^...&&...]'],
  ['a(?i)b|c', undefined], // allowed at the top level: (?i) lasts to the end, as in Java
  ['(a(?i)b)', '(?i)'],
  ['a{', '{'],
  ['{1}', '{'],
  ['*a', '*'],
  ['a)', ')'],
  ['(a', '('],
  ['[a', 'character class'],
  ['[z-a]', 'z-a'],
  ['\\y', '\\y'],
  ['a\\', '\\'],
  ['(?#x)', '(?#'],
];

function javaMatches(pattern, name) {
  const re = compileRegexList([pattern], 'groups');
  return re.test(name);
}

describe('Java regexes: translated exactly', function () {
  for (const [pattern, meaning, yes, no] of TRANSLATED) {
    it(`${pattern}: ${meaning}`, function () {
      for (const name of yes) assert.equal(javaMatches(pattern, name), true, `${pattern} should match ${JSON.stringify(name)} (JS: ${javaToJsPattern(pattern)})`);
      for (const name of no) assert.equal(javaMatches(pattern, name), false, `${pattern} should not match ${JSON.stringify(name)} (JS: ${javaToJsPattern(pattern)})`);
    });
  }

  it('the default filters still read as before', function () {
    const f = createGroupFilter({});
    assert.equal(f.accept('orders'), true);
    assert.equal(f.accept('console-consumer-1'), false);
    assert.equal(f.accept('__consumer'), false);
    const re = compileRegexList('.*[\\-\\.]internal, .*\\.replica, __.*', 'topics.exclude');
    assert.equal(re.test('mm2-offset-syncs.target.internal'), true);
    assert.equal(re.test('a.replica'), true);
    assert.equal(re.test('orders'), false);
  });

  it('several list entries with atomic emulation each keep their own groups', function () {
    const re = compileRegexList('a*+b, (?>x|xy)z, c++', 'groups');
    assert.equal(re.test('aab'), true);
    assert.equal(re.test('xz'), true);
    assert.equal(re.test('xyz'), false);
    assert.equal(re.test('ccc'), true);
  });
});

describe('Java regexes: refused, naming the construct', function () {
  for (const [pattern, construct] of REFUSED) {
    if (construct === undefined) {
      it(`${pattern}: accepted`, function () {
        assert.equal(javaMatches(pattern, 'aB'), true);
        assert.equal(javaMatches(pattern, 'C'), true, '(?i) applies to the later alternative too');
      });
      continue;
    }
    it(`${pattern}: refuses ${construct}`, function () {
      assert.throws(() => javaToJsPattern(pattern), (e) => {
        assert.ok(e instanceof JavaRegexError, String(e));
        assert.ok(e.message.includes(construct), `${e.message} names ${construct}`);
        return true;
      });
      assert.throws(() => compileRegexList(['ok', pattern], 'groups'), (e) => {
        assert.ok(e instanceof ConfigError);
        assert.equal(e.problems[0].property, 'groups');
        assert.ok(e.message.startsWith(`groups: '${pattern}' is not a valid regular expression (`), e.message);
        return true;
      });
    });
  }
});
