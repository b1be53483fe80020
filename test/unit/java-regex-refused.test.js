'use strict';
/**
 * The group and topic filters refuse what Java's java.util.regex refuses (MM2 compiles them with
 * it), naming the field, the construct and the fix, and take what Java takes. Java's answers were
 * recorded with Java 17 (test/fixtures/java/PatternCompile.java): its lookbehind check ("Look-behind
 * group does not have an obvious maximum length") over hand-written and generated lookbehinds,
 * and two rules JavaScript does not have: a group name used twice, and MM2 joining a list's items
 * with | into one pattern (an inline flag carries over to the items after it).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
/** @type {{ java: string, patterns: Array<[string, string]> }} */
const fixture = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'java-17-pattern-compile.json'), 'utf8'));
const { compileRegexList, compileRegexListToRegExp } = require('../../dist/core/java-regex-list');
const { ConfigError } = require('../../dist/core/errors');

/** The refusal of a one-item `groups` list, or null when compiled. */
function refusal(pattern) {
  try {
    compileRegexList([pattern], 'groups');
    return null;
  } catch (e) {
    assert.ok(e instanceof ConfigError, `${pattern}: ${e}`);
    return e;
  }
}

describe('Java regex semantics: what Java 17 refuses is refused, naming the field and the fix', function () {
  it(`every lookbehind of the fixture (${fixture.patterns.length} patterns): refused for its length exactly when Java refuses it`, function () {
    const LENGTH = 'Look-behind group does not have an obvious maximum length';
    // what this matcher refuses for its own documented reasons, whatever Java says (checked before the lookbehind)
    const OWN = /backreferences are not supported|\(\?i\): inside a group|expands to more than|quantifies nothing|\\X|\\b/;
    let refused = 0;
    for (const [pattern, java] of fixture.patterns) {
      const e = refusal(pattern);
      const why = e ? e.message : 'compiled';
      if (e && e.message.includes(LENGTH)) assert.equal(java, LENGTH, `${pattern}: refused for its length, Java '${java}'`);
      else if (java === LENGTH) assert.ok(e && OWN.test(e.message), `${pattern}: Java refuses it for its length, ours '${why}'`);
      else if (e) assert.match(e.message, OWN, `${pattern}: Java '${java}', ours '${why}'`);
      if (java === LENGTH && e && e.message.includes(LENGTH)) refused++;
    }
    assert.ok(refused > 300, `${refused} of Java's refusals checked`);
  });

  it('single characters repeated without bound are allowed in a lookbehind, as in Java 17, and match as Java does', function () {
    for (const p of ['(?<=a+)b', '(?<!x*)y', '(?<=ba+)c', '(?<=a{2,})b', '(?<=[a-z]+)x']) assert.equal(refusal(p), null, p);
    const m = compileRegexList('.*(?<=a+b)c', 'groups');
    assert.equal(m.test('aabc'), true); // Java: true
    assert.equal(m.test('xbc'), false); // Java: false
    assert.equal(compileRegexList('(?<=a+)b', 'groups').test('b'), false); // Java: false
  });

  it('a lookbehind Java refuses: the message names the field, the lookbehind, Java\'s words and the fix', function () {
    for (const [p, construct] of [['(?<=(?:ab)+)c', '(?<=(?:ab)+)'], ['(?<!x(?:a|b){1,3})y', '(?<!x(?:a|b){1,3})'], ['(?<=ba+?)c', '(?<=ba+?)'], ['orders(?<=\\R+)', '(?<=\\R+)']]) {
      const e = refusal(p);
      assert.ok(e, p);
      assert.deepEqual(e.problems.map((x) => x.property), ['groups']);
      assert.ok(e.message.startsWith(`groups: '${p}' is not a valid regular expression (${construct}: Java refuses this lookbehind ("Look-behind group does not have an obvious maximum length")`), e.message);
      assert.match(e.message, /repeat single characters only .* e\.g\. \(\?:ab\)\{0,10\}/);
    }
  });

  it('a group name used twice, in one item or in two (Java: "Named capturing group <n> is already defined")', function () {
    const one = refusal('(?<n>a)-(?<n>b)');
    assert.match(one.message, /\(\?<n>: names a second group 'n' \(Java rejects it: "Named capturing group <n> is already defined".*rename one of them/);
    assert.throws(() => compileRegexList('(?<n>orders),(?<n>billing)', 'topics'), (e) => e instanceof ConfigError && e.problems[0].property === 'topics' && /the items joined with \|, as MM2 compiles them.*names a second group 'n'/.test(e.message));
    assert.throws(() => compileRegexListToRegExp('(?<n>orders),(?<n>billing)', 'topics'), ConfigError);
    assert.ok(compileRegexList('(?<n>orders),(?<m>billing)', 'topics').test('billing'));
  });

  it('an inline flag at the start of an item applies to the items after it, as in the pattern MM2 joins with | (Java: (?i)orders|billing matches BILLING)', function () {
    for (const compile of [compileRegexList, compileRegexListToRegExp]) {
      const m = compile('(?i)orders,billing', 'groups');
      assert.equal(m.test('BILLING'), true);
      assert.equal(m.test('ORDERS'), true);
      const n = compile('billing,(?i)orders', 'groups');
      assert.equal(n.test('BILLING'), false); // Java: billing|(?i)orders does not match BILLING
      assert.equal(n.test('Orders'), true);
    }
  });
});
