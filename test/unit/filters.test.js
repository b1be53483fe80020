'use strict';
const assert = require('node:assert/strict');
const {
  createGroupFilter, createTopicFilter,
  DEFAULT_GROUPS, DEFAULT_GROUPS_EXCLUDE, DEFAULT_TOPICS, DEFAULT_TOPICS_EXCLUDE,
} = require('../../dist/core/filters');
const { ConfigError } = require('../../dist/core/errors');

const configError = (property) => (e) => {
  assert.ok(e instanceof ConfigError, `expected ConfigError, got ${e && e.name}: ${e && e.message}`);
  assert.ok(e.message.includes(property), `message "${e.message}" should name ${property}`);
  assert.equal(e.problems[0].property, property);
  return true;
};

describe('filters: defaults (DefaultGroupFilter / DefaultTopicFilter)', () => {
  it('exports MM2\'s default values', () => {
    assert.equal(DEFAULT_GROUPS, '.*');
    assert.equal(DEFAULT_GROUPS_EXCLUDE, 'console-consumer-.*, connect-.*, __.*');
    assert.equal(DEFAULT_TOPICS, '.*');
    assert.equal(DEFAULT_TOPICS_EXCLUDE, '.*[\\-\\.]internal, .*\\.replica, __.*');
  });

  it('default group filter', () => {
    const f = createGroupFilter({});
    for (const g of ['my-app', 'orders-consumer', 'console-consumer', 'connect', 'x__y', '']) assert.equal(f.accept(g), true, g);
    for (const g of ['console-consumer-1234', 'connect-mirror', '__amazon_msk', 'connect-']) assert.equal(f.accept(g), false, g);
    assert.equal(createGroupFilter().accept('app'), true);
  });

  it('default topic filter', () => {
    const f = createTopicFilter({});
    for (const t of ['orders', 'a.b', 'internal', 'x.internalz', 'replica', 'x-replica']) assert.equal(f.accept(t), true, t);
    for (const t of ['foo.internal', 'foo-internal', 'mm2-offset-syncs.b.internal', 'orders.replica', '__consumer_offsets']) assert.equal(f.accept(t), false, t);
    assert.equal(createTopicFilter(undefined).accept('orders'), true);
  });

  it('undefined and null properties take the default', () => {
    const f = createTopicFilter({ topics: undefined, 'topics.exclude': null });
    assert.equal(f.accept('orders'), true);
    assert.equal(f.accept('orders.replica'), false);
  });
});

describe('filters: explicit values', () => {
  it('include must match the whole name', () => {
    const f = createTopicFilter({ topics: 'ord.*' });
    assert.equal(f.accept('orders'), true);
    assert.equal(f.accept('my-orders'), false);
    const g = createTopicFilter({ topics: 'orders' });
    assert.equal(g.accept('orders2'), false);
    assert.equal(g.accept('orders'), true);
  });

  it('comma lists with whitespace, and arrays', () => {
    const f = createTopicFilter({ topics: ' a , b.*  ', 'topics.exclude': '' });
    assert.equal(f.accept('a'), true);
    assert.equal(f.accept('bcd'), true);
    assert.equal(f.accept('c'), false);
    const g = createGroupFilter({ groups: ['g1', 'team-.*'], 'groups.exclude': ['team-x'] });
    assert.equal(g.accept('g1'), true);
    assert.equal(g.accept('team-a'), true);
    assert.equal(g.accept('team-x'), false);
    assert.equal(g.accept('g2'), false);
  });

  it('a duplicate or empty item is refused as Kafka 4.2+ refuses it (Kafka 4.1 dropped the empty items)', () => {
    assert.throws(() => createTopicFilter({ topics: ' a , b.* ,, ' }), /topics: values must not be empty: items 3, 4 of 4/);
    assert.throws(() => createTopicFilter({ topics: ' , ' }), /topics: values must not be empty/);
  });

  it('excludes take precedence over includes', () => {
    const f = createGroupFilter({ groups: 'app-.*', 'groups.exclude': 'app-test-.*' });
    assert.equal(f.accept('app-prod-1'), true);
    assert.equal(f.accept('app-test-1'), false);
  });

  it('an empty include list matches nothing (topics="" replicates nothing)', () => {
    for (const empty of ['', ' ', []]) {
      const f = createTopicFilter({ topics: empty });
      assert.equal(f.accept('orders'), false);
      assert.equal(f.accept(''), false);
    }
    assert.equal(createGroupFilter({ groups: '' }).accept('app'), false);
  });

  it('an empty exclude list excludes nothing (groups.exclude="")', () => {
    const f = createGroupFilter({ 'groups.exclude': '' });
    assert.equal(f.accept('console-consumer-1'), true);
    assert.equal(f.accept('__x'), true);
    const t = createTopicFilter({ 'topics.exclude': [] });
    assert.equal(t.accept('__consumer_offsets'), true);
  });

  it('setting only the include keeps the default exclude', () => {
    const f = createGroupFilter({ groups: 'connect-.*|app' });
    assert.equal(f.accept('app'), true);
    assert.equal(f.accept('connect-x'), false);
  });

  it('the regex alternation of one entry does not leak outside its full-match anchor', () => {
    const f = createTopicFilter({ topics: 'a|b', 'topics.exclude': '' });
    assert.equal(f.accept('a'), true);
    assert.equal(f.accept('b'), true);
    assert.equal(f.accept('ab'), false);
    assert.equal(f.accept('xa'), false);
  });

  it('accept() of a non-string is false, never a crash', () => {
    const f = createTopicFilter({});
    assert.equal(f.accept(undefined), false);
    assert.equal(f.accept(null), false);
  });
});

describe('filters: bad configuration', () => {
  it('a bad regex is a ConfigError naming the property', () => {
    assert.throws(() => createGroupFilter({ groups: 'ok, [unclosed' }), configError('groups'));
    assert.throws(() => createGroupFilter({ 'groups.exclude': '(' }), configError('groups.exclude'));
    assert.throws(() => createTopicFilter({ topics: '*bad' }), configError('topics'));
    assert.throws(() => createTopicFilter({ 'topics.exclude': ['fine', 'a{2,1}'] }), configError('topics.exclude'));
  });

  it('a value of the wrong type is a ConfigError naming the property', () => {
    assert.throws(() => createTopicFilter({ topics: 5 }), configError('topics'));
    assert.throws(() => createGroupFilter({ groups: ['a', 7] }), configError('groups'));
    assert.throws(() => createGroupFilter({ 'groups.exclude': {} }), configError('groups.exclude'));
  });
});

describe('filters: lists of literal prefixes then .* (MM2\'s default groups) matched without a regex or a memo (issue 24 step g)', () => {
  const { compileRegexList, compileRegexListToRegExp, PrefixMatcher } = require('../../dist/core/java-regex-list');
  const names = [
    '', 'a', 'app', 'console-consumer-1', 'console-consumer-', 'console-consumer', 'connect-x', 'connect', '__x', '_x', 'Connect-x',
    'a\nb', '\n', 'console-consumer-\n', 'connect-\r', '__\u0085', 'x\u2028', 'x\u2029y', 'x\u000by', 'x\u000cy', 'g\u{1F600}', 'é-group', 'a-1.2',
  ];
  for (const list of ['.*', 'console-consumer-.*, connect-.*, __.*', 'a.*', 'a-.*, __.*, Z9_.*']) {
    it(`'${list}': a prefix matcher, each name answered as the Java regex answers it`, () => {
      const m = compileRegexList(list, 'groups');
      assert.ok(m instanceof PrefixMatcher);
      const ref = compileRegexListToRegExp(list, 'groups');
      for (const n of names) assert.equal(m.test(n), ref.test(n), JSON.stringify(n));
    });
  }

  it('any other item (a class, an escape, a dot alone, a group) keeps the regex matcher', () => {
    for (const list of ['a.+', 'a\\..*', '[ab].*', 'a.*b', '(a).*', 'a.*, b', '.*x.*', '(?i)a.*']) assert.ok(!(compileRegexList(list, 'groups') instanceof PrefixMatcher), list);
  });

  it('the default group filter answers as before, for names with line terminators too', () => {
    const f = createGroupFilter({});
    const ref = createGroupFilter({ groups: '.*(?:)', 'groups.exclude': 'console-consumer-.*(?:), connect-.*, __.*' });
    for (const n of names) assert.equal(f.accept(n), ref.accept(n), JSON.stringify(n));
    assert.equal(f.accept(/** @type {any} */ (5)), false);
  });
});
