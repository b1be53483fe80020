'use strict';
/** The status an mm2-checkpoint node shows (nodes/mm2-checkpoint/mm2-checkpoint-status), with the en-US texts. */
const assert = require('node:assert/strict');
const { checkpointStatus } = require('../../dist/nodes/mm2-checkpoint/mm2-checkpoint-status');
const { makeTranslate } = require('../../dist/nodes/shared/i18n');

// the runtime's catalog missing (RED._ gives the key back): our en-US texts
const t = makeTranslate(/** @type {any} */ ({ _: (/** @type {string} */ key) => key }), 'mm2-checkpoint');

/**
 * A node state after one completed full cycle over `groups` groups, all checkpointed, `written` new checkpoints.
 * @param {{ groups: number, written: number, failed?: number, sourceMode: any, now: number }} o
 * @returns {any} a CheckpointNodeState (its cycle result holds only what the status reads)
 */
function stateAfterCycle({ groups, written, failed = 0, sourceMode, now }) {
  const names = Array.from({ length: groups }, (_, i) => `g${i}`);
  return {
    phase: { kind: 'ready' },
    last: {
      cycle: 1, full: true, groups: names, written: new Array(written).fill({}), coverage: [],
      failedGroups: Array.from({ length: failed }, (_, i) => ({ group: `g${i}`, error: 'x' })),
      latest: new Map(names.map((g) => [g, []])), startedAt: now, durationMs: 1, syncsLoaded: true,
    },
    lastAt: now - 59000,
    error: null,
    groups,
    sourceMode,
  };
}

describe('mm2-checkpoint status', function () {
  const now = 1_800_000_000_000;
  const polling = { kind: 'poll', reason: 'not authorized to follow __consumer_offsets', notAuthorized: true };

  it('while the offset syncs are not loaded: yellow, saying why when the replication\'s reader cannot read them (never green)', function () {
    const st = stateAfterCycle({ groups: 1, written: 0, sourceMode: { kind: 'events' }, now });
    const waiting = /** @type {any} */ (checkpointStatus(t, st, false, 600000, now));
    assert.deepEqual(waiting.activity, { fill: 'yellow', shape: 'ring', text: 'waiting for offset syncs' });
    const why = 'not authorized: grant READ on Topic:mm2-offset-syncs.target.internal to User:cp';
    const refused = /** @type {any} */ (checkpointStatus(t, st, false, 600000, now, why));
    assert.equal(refused.activity.fill, 'yellow');
    assert.match(refused.activity.text, /^offset syncs cannot be read: not authorized/);
    // loaded: the reader's past failure no longer matters
    assert.notEqual(/** @type {any} */ (checkpointStatus(t, st, true, 600000, now, why)).activity?.text?.startsWith('offset syncs cannot'), true);
  });

  it("says 'polling' when following was wanted but failed, also when the cycle's text is long", function () {
    for (const [groups, written, failed] of [[1, 2, 0], [10000, 100000, 0], [10000, 100000, 9999]]) {
      const v = /** @type {any} */ (checkpointStatus(t, stateAfterCycle({ groups, written, failed, sourceMode: polling, now }), true, 600000, now));
      assert.ok('activity' in v, JSON.stringify(v));
      assert.match(v.activity.text, / · polling$/, `${groups} groups: ${v.activity.text}`);
      assert.ok(v.activity.text.length <= 60, v.activity.text);
      assert.match(v.activity.text, new RegExp(`^${groups} ${groups === 1 ? 'group' : 'groups'}, `), 'the cycle text is what is shortened (and 1 group is not "1 groups")');
    }
  });

  it("no 'polling' while following, nor when set to poll", function () {
    for (const sourceMode of [{ kind: 'events' }, { kind: 'poll' }]) {
      const v = /** @type {any} */ (checkpointStatus(t, stateAfterCycle({ groups: 3, written: 2, sourceMode, now }), true, 600000, now));
      assert.equal(v.activity.text, '3 groups, 3 checkpointed, 2 new / 59 s ago');
      assert.equal(v.activity.fill, 'green');
    }
  });
});

describe('mm2-checkpoint status: a source that stopped answering', function () {
  const now = 1_800_000_000_000;

  it('yellow from the first failed request, whatever the last cycle said; green again once it is cleared', function () {
    const s = stateAfterCycle({ groups: 3, written: 2, sourceMode: { kind: 'events' }, now });
    s.sourceUnanswered = { since: now - 2000, reason: 'a fetch of __consumer_offsets from broker 1 failed' };
    const v = /** @type {any} */ (checkpointStatus(t, s, true, 600000, now));
    assert.deepEqual([v.activity.fill, v.activity.text], ['yellow', 'source stopped answering 2 s ago']);
    s.sourceUnanswered = null;
    assert.equal(/** @type {any} */ (checkpointStatus(t, s, true, 600000, now)).activity.fill, 'green');
  });
});

describe('mm2-checkpoint status: readiness', function () {
  const path = require('node:path');
  const { readinessText } = require('../../dist/nodes/mm2-checkpoint/mm2-checkpoint-status');
  const { groupReadiness, summarizeReadiness, unlistedGroupReadiness } = require('../../dist/core/readiness');
  const now = 1_800_000_000_000;
  const th = { maxReread: 1000, maxAgeMs: 300000 };
  /** The zh-CN catalog as the runtime has it (common merged in), with i18next's rule for a language without plural forms. */
  function zh() {
    const cat = require(path.join(__dirname, '../../dist/nodes/mm2-checkpoint/locales/zh-CN/mm2-checkpoint.json'));
    const look = (key) => key.split('.').reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), cat);
    return makeTranslate(/** @type {any} */ ({
      _: (/** @type {string} */ key, /** @type {any} */ subs) => {
        const text = look(key);
        if (typeof text !== 'string') return key;
        return text.replace(/__(\w+)__/g, (/** @type {string} */ _m, /** @type {string} */ n) => (subs && n in subs ? String(subs[n]) : `__${n}__`));
      },
    }), 'mm2-checkpoint');
  }
  const entry = (/** @type {number} */ partition, /** @type {string} */ status, /** @type {string} */ verdict, /** @type {number|null} */ reread) => ({ topic: 'orders', partition, status, verdict, reread, checkpointAt: null });
  const readyGroup = (/** @type {string} */ g) => groupReadiness(g, [/** @type {any} */ (entry(0, 'unchanged', 'ready', 12))]);
  /** @param {any} rd */
  function stateWith(rd) {
    const s = stateAfterCycle({ groups: rd.groups.length, written: 2, sourceMode: { kind: 'events' }, now });
    s.last.readiness = rd;
    return s;
  }

  it('every group ready: green, counted with the plural of the language', function () {
    const one = summarizeReadiness([readyGroup('a')], th);
    const three = summarizeReadiness(['a', 'b', 'c'].map(readyGroup), th);
    const v = /** @type {any} */ (checkpointStatus(t, stateWith(three), true, 600000, now));
    assert.deepEqual([v.activity.fill, v.activity.text], ['green', '3 groups ready, 2 new / 59 s ago']);
    assert.equal(/** @type {any} */ (checkpointStatus(t, stateWith(one), true, 600000, now)).activity.text, '1 group ready, 2 new / 59 s ago');
    assert.equal(/** @type {any} */ (checkpointStatus(zh(), stateWith(three), true, 600000, now)).activity.text, '3 个群组全部就绪，新增 2 个 / 59 秒前');
  });

  it('a group at risk: yellow, the counts and the worst group with its re-read', function () {
    const groups = Array.from({ length: 12 }, (_, i) => readyGroup(`g${i}`));
    groups.push(groupReadiness('orders-analytics', [/** @type {any} */ (entry(0, 'unchanged', 'ready', 220)), /** @type {any} */ (entry(2, 'unchanged', 'at-risk', 1095))]));
    const rd = summarizeReadiness(groups, th);
    const v = /** @type {any} */ (checkpointStatus(t, stateWith(rd), true, 600000, now));
    assert.deepEqual([v.activity.fill, v.activity.text], ['yellow', '12 ready, 1 at risk: orders-analytics re-reads 1,095 records']);
    assert.equal(readinessText(zh(), rd, 2, '5 秒前', now), '12 个就绪，1 个有风险：orders-analytics 将重读 1,095 条记录');
    // one record: the singular
    const single = summarizeReadiness([groupReadiness('x', [/** @type {any} */ (entry(0, 'emitted', 'at-risk', 1))])], { ...th, maxReread: 0 });
    assert.equal(readinessText(t, single, 0, '1 s ago', now), '0 ready, 1 at risk: x re-reads 1 record');
  });

  it('not covered, and a group whose offsets could not be listed for too long', function () {
    const uncovered = groupReadiness('billing', [/** @type {any} */ (entry(0, 'no-sync', 'not-covered', null))]);
    const old = unlistedGroupReadiness('ledger', readyGroup('ledger'), now - 600000, now, th);
    const rd = summarizeReadiness([readyGroup('a'), uncovered, old], th);
    assert.equal(readinessText(t, rd, 0, '1 s ago', now), '1 ready, 1 at risk, 1 not covered: billing has no offset sync yet');
    assert.equal(readinessText(zh(), rd, 0, '1 秒前', now), '1 个就绪，1 个有风险，1 个未覆盖：billing 尚无偏移同步');
    const onlyOld = summarizeReadiness([readyGroup('a'), old], th);
    assert.equal(readinessText(t, onlyOld, 0, '1 s ago', now), '1 ready, 1 at risk: ledger last listed 10 min ago');
    assert.equal(readinessText(zh(), onlyOld, 0, '1 秒前', now), '1 个就绪，1 个有风险：ledger 上次列出偏移量：10 分钟前');
    // every reason a group is not covered has its words in both languages
    for (const why of ['no-sync', 'older-than-oldest-sync', 'store-loading', 'offsets-not-listed', 'duplicate-remote-partition', 'topic-not-replicated', 'no-committed-offset']) {
      for (const tr of [t, zh()]) assert.notEqual(tr(`mm2-checkpoint.why.${why}`), `mm2-checkpoint.why.${why}`, why);
    }
  });

  it('a group not covered (nothing to resume from on the target) is never green, and the status says how many', function () {
    const uncovered = groupReadiness('billing', [/** @type {any} */ (entry(0, 'no-sync', 'not-covered', null))]);
    const some = /** @type {any} */ (checkpointStatus(t, stateWith(summarizeReadiness([readyGroup('a'), readyGroup('b'), uncovered], th)), true, 600000, now));
    assert.deepEqual([some.activity.fill, some.activity.text], ['yellow', '2 ready, 1 not covered: billing has no offset sync yet']);
    const none = /** @type {any} */ (checkpointStatus(t, stateWith(summarizeReadiness(['x', 'y', 'z'].map((g) => groupReadiness(g, [/** @type {any} */ (entry(0, 'no-committed-offset', 'not-covered', null))])), th)), true, 600000, now));
    assert.equal(none.activity.fill, 'yellow');
    assert.match(none.activity.text, /^0 ready, 3 not covered: x /);
  });

  it('a long group name is shortened within the status length', function () {
    const g = groupReadiness('x'.repeat(80), [/** @type {any} */ (entry(0, 'emitted', 'at-risk', 123456))]);
    const v = /** @type {any} */ (checkpointStatus(t, stateWith(summarizeReadiness([g], th)), true, 600000, now));
    assert.ok(v.activity.text.length <= 60, v.activity.text);
  });
});
